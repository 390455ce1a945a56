/*
 * The gpodder API's calls: the paths of each family, batches of uploads,
 * and paging through downloads.
 */
#include "phone/gpodder-private.h"

#include <string.h>

/* A few thousand subscriptions are some hundred KiB. */
#define MAX_ANSWER_BYTES (4 * 1024 * 1024)
/* mygpo's page of 1,000 actions is about 500 KiB; opodsync has no cap. */
#define MAX_ACTIONS_BYTES (16 * 1024 * 1024)
/* AntennaPod's batch: servers and proxies take it. */
#define ACTIONS_PER_POST 30u
/*
 * Pages of actions one call reads at most (a million at mygpo's 1,000):
 * past that the caller gets what came, and goes on next time.
 */
#define MAX_ACTION_PAGES 1000u

#define NEXTCLOUD_APP "/index.php/apps/gpoddersync"

static char *
escape(const char *segment)
{
	return g_uri_escape_string(segment, NULL, FALSE);
}

/* SERVER/api/2/@what/USER@rest */
static char *
gpodder_url(const BridgeGpodderSettings *settings, const char *what,
            const char *rest)
{
	g_autofree char *user = escape(settings->user);

	return g_strconcat(settings->server, "/api/2/", what, "/", user, rest,
	                   NULL);
}

/* SERVER/api/2/@what/USER/DEVICE.json */
static char *
gpodder_device_url(const BridgeGpodderSettings *settings, const char *what)
{
	g_autofree char *device = escape(settings->device);
	g_autofree char *rest = g_strconcat("/", device, ".json", NULL);

	return gpodder_url(settings, what, rest);
}

static char *
with_since(const char *url, gint64 since)
{
	return g_strdup_printf("%s?since=%" G_GINT64_FORMAT, url,
	                       MAX(since, 0));
}

gboolean
bridge_gpodder_register_device(const BridgeGpodderSettings *settings,
                               GError **error)
{
	g_autofree char *url = NULL;
	g_autofree char *caption = NULL;
	g_autofree char *body = NULL;
	g_autoptr(GBytes) answer = NULL;
	BridgeGpodderSession session;

	g_return_val_if_fail(settings != NULL, FALSE);
	if (settings->kind == BRIDGE_GPODDER_KIND_NEXTCLOUD)
		return TRUE;
	if (!bridge_gpodder_session_open(&session, settings, TRUE, error))
		return FALSE;
	url = gpodder_device_url(settings, "devices");
	caption = g_strconcat("mpd-bridge on ", g_get_host_name(), NULL);
	body = bridge_gpodder_device_to_json(caption);
	answer = bridge_gpodder_request_json(&session, url, body,
	                                     MAX_ANSWER_BYTES, error);
	if (answer == NULL)
		bridge_gpodder_session_prefix_error(&session, error,
		                                    "register this device");
	bridge_gpodder_session_close(&session);
	return answer != NULL;
}

BridgeGpodderSubscriptions *
bridge_gpodder_download_subscriptions(const BridgeGpodderSettings *settings,
                                      gint64 since, GError **error)
{
	g_autofree char *base = NULL;
	g_autofree char *url = NULL;
	g_autoptr(GBytes) answer = NULL;
	BridgeGpodderSubscriptions *subscriptions = NULL;
	BridgeGpodderSession session;
	const char *data;
	gsize length;

	g_return_val_if_fail(settings != NULL, NULL);
	if (!bridge_gpodder_session_open(&session, settings, TRUE, error))
		return NULL;
	base = settings->kind == BRIDGE_GPODDER_KIND_NEXTCLOUD
	               ? g_strconcat(settings->server,
	                             NEXTCLOUD_APP "/subscriptions", NULL)
	               : gpodder_device_url(settings, "subscriptions");
	url = with_since(base, since);
	answer = bridge_gpodder_request_json(&session, url, NULL,
	                                     MAX_ANSWER_BYTES, error);
	if (answer != NULL) {
		data = bridge_gpodder_bytes_data(answer, &length);
		subscriptions = bridge_gpodder_subscriptions_from_json(
		        data, length, error);
	}
	if (subscriptions == NULL)
		bridge_gpodder_session_prefix_error(
		        &session, error, "download the subscriptions");
	bridge_gpodder_session_close(&session);
	return subscriptions;
}

/* The first URL in both @add and @remove, or NULL. */
static const char *
find_conflict(const char *const *add, const char *const *remove)
{
	g_autoptr(GHashTable) added = g_hash_table_new(g_str_hash, g_str_equal);

	for (guint i = 0; add != NULL && add[i] != NULL; i++)
		g_hash_table_add(added, (gpointer)add[i]);
	for (guint i = 0; remove != NULL && remove[i] != NULL; i++) {
		if (g_hash_table_contains(added, remove[i]))
			return remove[i];
	}
	return NULL;
}

BridgeGpodderUploaded *
bridge_gpodder_upload_subscriptions(const BridgeGpodderSettings *settings,
                                    const char *const *add,
                                    const char *const *remove, GError **error)
{
	g_autofree char *url = NULL;
	g_autofree char *body = NULL;
	g_autoptr(GBytes) answer = NULL;
	BridgeGpodderUploaded *uploaded = NULL;
	const char *conflict;
	BridgeGpodderSession session;
	const char *data;
	gsize length;

	g_return_val_if_fail(settings != NULL, NULL);
	if (!bridge_gpodder_session_open(&session, settings, TRUE, error))
		return NULL;
	conflict = find_conflict(add, remove);
	if (conflict != NULL) {
		g_set_error(error, BRIDGE_GPODDER_ERROR,
		            BRIDGE_GPODDER_ERROR_INVALID,
		            "%s is both added and removed", conflict);
		bridge_gpodder_session_prefix_error(&session, error,
		                                    "upload the subscriptions");
		bridge_gpodder_session_close(&session);
		return NULL;
	}
	url = settings->kind == BRIDGE_GPODDER_KIND_NEXTCLOUD
	              ? g_strconcat(settings->server,
	                            NEXTCLOUD_APP "/subscription_change/create",
	                            NULL)
	              : gpodder_device_url(settings, "subscriptions");
	body = bridge_gpodder_changes_to_json(add, remove);
	answer = bridge_gpodder_request_json(&session, url, body,
	                                     MAX_ANSWER_BYTES, error);
	if (answer != NULL) {
		data = bridge_gpodder_bytes_data(answer, &length);
		uploaded =
		        bridge_gpodder_uploaded_from_json(data, length, error);
	}
	if (uploaded == NULL)
		bridge_gpodder_session_prefix_error(&session, error,
		                                    "upload the subscriptions");
	bridge_gpodder_session_close(&session);
	return uploaded;
}

static char *
actions_url(const BridgeGpodderSettings *settings, gboolean upload)
{
	if (settings->kind == BRIDGE_GPODDER_KIND_NEXTCLOUD)
		return g_strconcat(settings->server, NEXTCLOUD_APP,
		                   upload ? "/episode_action/create"
		                          : "/episode_action",
		                   NULL);
	return gpodder_url(settings, "episodes", ".json");
}

BridgeGpodderUploaded *
bridge_gpodder_upload_actions(const BridgeGpodderSettings *settings,
                              GPtrArray *actions, guint *n_sent, GError **error)
{
	g_autoptr(BridgeGpodderUploaded) all = NULL;
	g_autofree char *url = NULL;
	BridgeGpodderSession session;

	g_return_val_if_fail(settings != NULL, NULL);
	g_return_val_if_fail(actions != NULL, NULL);
	for (guint i = 0; i < actions->len; i++) {
		const BridgeGpodderAction *action =
		        g_ptr_array_index(actions, i);

		g_return_val_if_fail(action->podcast != NULL &&
		                             action->episode != NULL,
		                     NULL);
		/* From 1970 to 9999: what the API's time form can say. */
		g_return_val_if_fail(action->timestamp >= 0 &&
		                             action->timestamp <= 253402300799,
		                     NULL);
	}
	if (n_sent != NULL)
		*n_sent = 0;
	if (!bridge_gpodder_session_open(&session, settings, TRUE, error))
		return NULL;
	all = g_new0(BridgeGpodderUploaded, 1);
	all->update_urls = g_ptr_array_new_with_free_func(
	        (GDestroyNotify)bridge_gpodder_url_update_free);
	url = actions_url(settings, TRUE);
	for (guint first = 0; first < actions->len; first += ACTIONS_PER_POST) {
		guint n = MIN(ACTIONS_PER_POST, actions->len - first);
		g_autofree char *body = bridge_gpodder_actions_to_json(
		        actions, first, n, settings->device);
		g_autoptr(GBytes) answer = NULL;
		g_autoptr(BridgeGpodderUploaded) uploaded = NULL;
		const char *data;
		gsize length;

		answer = bridge_gpodder_request_json(&session, url, body,
		                                     MAX_ANSWER_BYTES, error);
		if (answer != NULL) {
			data = bridge_gpodder_bytes_data(answer, &length);
			uploaded = bridge_gpodder_uploaded_from_json(
			        data, length, error);
		}
		if (uploaded == NULL) {
			bridge_gpodder_session_prefix_error(
			        &session, error, "upload episode actions");
			bridge_gpodder_session_close(&session);
			return NULL;
		}
		if (n_sent != NULL)
			*n_sent = first + n;
		all->timestamp = uploaded->timestamp;
		g_ptr_array_extend_and_steal(
		        all->update_urls,
		        g_steal_pointer(&uploaded->update_urls));
	}
	bridge_gpodder_session_close(&session);
	return g_steal_pointer(&all);
}

/* What makes two answered actions the same one. */
static char *
action_key(const BridgeGpodderAction *action)
{
	return g_strdup_printf("%s\037%s\037%s\037%d\037%" G_GINT64_FORMAT
	                       "\037%" G_GINT64_FORMAT "\037%" G_GINT64_FORMAT
	                       "\037%" G_GINT64_FORMAT "\037%s",
	                       action->podcast, action->episode,
	                       action->guid != NULL ? action->guid : "",
	                       (int)action->action, action->timestamp,
	                       action->started, action->position, action->total,
	                       action->device != NULL ? action->device : "");
}

GPtrArray *
bridge_gpodder_download_actions(const BridgeGpodderSettings *settings,
                                gint64 since, gint64 *new_since, GError **error)
{
	g_autoptr(GPtrArray) all = NULL;
	g_autoptr(GHashTable) seen = NULL;
	g_autofree char *base = NULL;
	gint64 cursor = MAX(since, 0);
	BridgeGpodderSession session;

	g_return_val_if_fail(settings != NULL, NULL);
	g_return_val_if_fail(new_since != NULL, NULL);
	if (!bridge_gpodder_session_open(&session, settings, TRUE, error))
		return NULL;
	all = g_ptr_array_new_with_free_func(
	        (GDestroyNotify)bridge_gpodder_action_free);
	seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	base = actions_url(settings, FALSE);
	for (guint page = 0; page < MAX_ACTION_PAGES; page++) {
		g_autofree char *url = with_since(base, cursor);
		g_autoptr(GBytes) answer = NULL;
		g_autoptr(GPtrArray) actions = NULL;
		gint64 timestamp = 0;
		guint fresh = 0;
		const char *data;
		gsize length;

		answer = bridge_gpodder_request_json(&session, url, NULL,
		                                     MAX_ACTIONS_BYTES, error);
		if (answer != NULL) {
			data = bridge_gpodder_bytes_data(answer, &length);
			actions = bridge_gpodder_actions_from_json(
			        data, length, &timestamp, error);
		}
		if (actions == NULL) {
			bridge_gpodder_session_prefix_error(
			        &session, error, "download episode actions");
			bridge_gpodder_session_close(&session);
			return NULL;
		}
		for (guint i = 0; i < actions->len; i++) {
			BridgeGpodderAction *action =
			        g_ptr_array_index(actions, i);

			if (!g_hash_table_add(seen, action_key(action)))
				continue;
			g_ptr_array_add(all,
			                g_ptr_array_steal_index(actions, i--));
			fresh++;
		}
		g_debug("%u new episode actions since %" G_GINT64_FORMAT
		        ", answered up to %" G_GINT64_FORMAT,
		        fresh, cursor, timestamp);
		/*
		 * mygpo's since is inclusive and its timestamp that of its
		 * last action: an answer of old actions alone, or one that
		 * does not move on, would come again and again.
		 */
		if (fresh == 0 || timestamp <= cursor) {
			cursor = MAX(cursor, timestamp);
			break;
		}
		cursor = timestamp;
	}
	bridge_gpodder_session_close(&session);
	*new_since = cursor;
	return g_steal_pointer(&all);
}
