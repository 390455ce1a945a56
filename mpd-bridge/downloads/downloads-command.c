/* The commands that download, delete and list episodes' files. */
#include "downloads/downloads-command.h"

#include "core/answer.h"
#include "core/identity.h"
#include "downloads/downloads-private.h"

#include <string.h>

#define MB (1024.0 * 1024.0)

/* "PODCAST — TITLE" */
static char *
label(Bridge *bridge, const BridgeEpisode *episode)
{
	const BridgeFeed *feed =
	        bridge_store_find_feed(bridge->store, episode->feed_id);

	return g_strdup_printf("%s — %s",
	                       feed != NULL ? bridge_feed_get_name(feed) : "?",
	                       episode->title);
}

/* A local `download`: waits for its transfers. */
typedef struct {
	BridgeCall *call;
	guint pending;
	guint failed;
	GString *lines;
} Waiting;

static void
on_done(Bridge *bridge, const char *episode_id, const GError *error,
        gpointer data)
{
	Waiting *waiting = data;
	BridgeEpisode *episode =
	        bridge_store_find_episode(bridge->store, episode_id);
	const char *title = episode != NULL ? episode->title : episode_id;

	if (error != NULL) {
		waiting->failed++;
		g_string_append_printf(waiting->lines,
		                       "%scannot download %s: %s",
		                       waiting->lines->len > 0 ? "\n" : "",
		                       title, error->message);
	} else if (episode != NULL && episode->file != NULL) {
		g_string_append_printf(waiting->lines, "%sdownloaded %s: %s",
		                       waiting->lines->len > 0 ? "\n" : "",
		                       title, episode->file);
	}
	if (--waiting->pending > 0)
		return;
	g_string_append(bridge_call_get_out(waiting->call),
	                waiting->lines->str);
	bridge_call_return(waiting->call,
	                   waiting->failed == 0
	                           ? NULL
	                           : g_error_new(BRIDGE_COMMAND_ERROR,
	                                         BRIDGE_COMMAND_ERROR_FAILED,
	                                         "%u of the downloads failed",
	                                         waiting->failed));
	g_string_free(waiting->lines, TRUE);
	g_free(waiting);
}

void
bridge_downloads_start_command(Bridge *bridge, char **args, BridgeCall *call)
{
	GString *out = bridge_call_get_out(call);
	GError *error = NULL;
	g_autoptr(GPtrArray) chosen =
	        bridge_identity_find_episodes(bridge, args, &error);
	g_autoptr(GPtrArray) fetch = g_ptr_array_new();
	Waiting *waiting;

	if (chosen == NULL || !bridge_downloads_locate(bridge, &error)) {
		bridge_call_return(call, error);
		return;
	}
	for (guint i = 0; i < chosen->len; i++) {
		BridgeEpisode *episode = chosen->pdata[i];

		if (episode->file != NULL) {
			g_string_append_printf(out, "%s%s is on disk: %s",
			                       out->len > 0 ? "\n" : "",
			                       episode->title, episode->file);
			continue;
		}
		episode->download = 1;
		episode->download_retry = 0;
		episode->download_failures = 0;
		g_ptr_array_add(fetch, episode);
	}
	bridge_changed(bridge);
	if (fetch->len == 0 || bridge->daemon) {
		for (guint i = 0; i < fetch->len; i++) {
			BridgeEpisode *episode = fetch->pdata[i];

			bridge_downloads_fetch(bridge, episode, NULL, NULL);
			g_string_append_printf(out, "%sdownloading %s",
			                       out->len > 0 ? "\n" : "",
			                       episode->title);
		}
		if (fetch->len > 0)
			g_string_append(out, "\n`mpd-bridge downloads` shows "
			                     "how far they are");
		bridge_call_return(call, NULL);
		return;
	}
	waiting = g_new0(Waiting, 1);
	waiting->call = call;
	waiting->pending = fetch->len;
	waiting->lines = g_string_new(out->str);
	g_string_truncate(out, 0);
	for (guint i = 0; i < fetch->len; i++)
		bridge_downloads_fetch(bridge, fetch->pdata[i], on_done,
		                       waiting);
}

gboolean
bridge_downloads_run_delete(Bridge *bridge, char **args, GString *out,
                            GError **error)
{
	g_autoptr(GPtrArray) chosen =
	        bridge_identity_find_episodes(bridge, args, error);

	if (chosen == NULL)
		return FALSE;
	for (guint i = 0; i < chosen->len; i++) {
		BridgeEpisode *episode = chosen->pdata[i];
		g_autofree char *file = g_strdup(episode->file);
		g_autoptr(GError) local = NULL;

		episode->download = -1;
		bridge_changed(bridge);
		if (file == NULL) {
			g_string_append_printf(out, "%s%s has no file",
			                       out->len > 0 ? "\n" : "",
			                       episode->title);
			continue;
		}
		if (!bridge_downloads_remove(bridge, episode, &local))
			return bridge_command_fail(error,
			                           BRIDGE_COMMAND_ERROR_FAILED,
			                           "%s", local->message);
		g_string_append_printf(out, "%sdeleted %s",
		                       out->len > 0 ? "\n" : "", file);
	}
	return TRUE;
}

gboolean
bridge_downloads_set_feed(Bridge *bridge, BridgeFeed *feed, const char *value,
                          GError **error)
{
	guint64 number;

	if (strcmp(value, "default") == 0) {
		feed->download = 0;
	} else if (g_ascii_string_to_unsigned(value, 10, 0, 10000, &number,
	                                      NULL)) {
		feed->download = number == 0 ? -1 : (gint64)number;
	} else {
		return bridge_command_fail(
		        error, BRIDGE_COMMAND_ERROR_USAGE,
		        "download is a number of episodes (0 for none) or "
		        "default");
	}
	bridge_downloads_changed(bridge);
	return TRUE;
}

/* What `downloads` lists, in its four parts. */
typedef struct {
	GPtrArray *files;   /* on disk */
	GPtrArray *active;  /* under way */
	GPtrArray *waiting; /* wanted, not started */
	GPtrArray *failed;  /* wanted, waiting to be tried again */
} Listing;

static void
listing_clear(Listing *l)
{
	g_ptr_array_unref(l->files);
	g_ptr_array_unref(l->active);
	g_ptr_array_unref(l->waiting);
	g_ptr_array_unref(l->failed);
}

static void
gather(Bridge *bridge, Listing *l)
{
	g_autoptr(GPtrArray) all =
	        bridge_store_list_episodes(bridge->store, NULL);
	g_autoptr(GPtrArray) wanted = bridge_downloads_wanted(bridge);

	l->files = g_ptr_array_new();
	l->active = g_ptr_array_new();
	l->waiting = g_ptr_array_new();
	l->failed = g_ptr_array_new();
	for (guint i = 0; i < all->len; i++) {
		BridgeEpisode *episode = all->pdata[i];

		if (episode->file != NULL)
			g_ptr_array_add(l->files, episode);
		else if (bridge_downloads_get_transfer(bridge, episode) != NULL)
			g_ptr_array_add(l->active, episode);
	}
	for (guint i = 0; i < wanted->len; i++) {
		BridgeEpisode *episode = wanted->pdata[i];

		if (bridge_downloads_get_transfer(bridge, episode) != NULL)
			continue;
		g_ptr_array_add(episode->download_error != NULL ? l->failed
		                                                : l->waiting,
		                episode);
	}
}

static void
add_episodes(Bridge *bridge, JsonBuilder *b, const char *name, GPtrArray *list)
{
	json_builder_set_member_name(b, name);
	json_builder_begin_array(b);
	for (guint i = 0; i < list->len; i++) {
		const BridgeEpisode *e = list->pdata[i];
		const BridgeFeed *feed =
		        bridge_store_find_feed(bridge->store, e->feed_id);
		const BridgeTransfer *t =
		        bridge_downloads_get_transfer(bridge, e);

		json_builder_begin_object(b);
		bridge_json_member_string(b, "id", e->id);
		bridge_json_member_string(
		        b, "podcast",
		        feed != NULL ? bridge_feed_get_name(feed) : NULL);
		bridge_json_member_string(b, "title", e->title);
		bridge_json_member_string(b, "url", e->url);
		if (e->file != NULL) {
			bridge_json_member_string(b, "file", e->file);
			bridge_json_member_int(
			        b, "size",
			        (gint64)bridge_downloads_file_size(bridge, e));
			bridge_json_member_int(b, "downloaded", e->downloaded);
		}
		if (t != NULL) {
			bridge_json_member_int(b, "received",
			                       (gint64)t->received);
			bridge_json_member_int(b, "total", (gint64)t->total);
		}
		if (e->download_error != NULL) {
			bridge_json_member_string(b, "error",
			                          e->download_error);
			bridge_json_member_int(b, "retry", e->download_retry);
		}
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
}

static void
list_json(Bridge *bridge, Listing *l, GString *out)
{
	g_autoptr(JsonBuilder) b = json_builder_new();

	json_builder_begin_object(b);
	bridge_json_member_string(b, "directory",
	                          bridge_downloads_get_directory(bridge));
	bridge_json_member_string(b, "stopped",
	                          bridge_downloads_get_stopped(bridge));
	add_episodes(bridge, b, "files", l->files);
	add_episodes(bridge, b, "active", l->active);
	add_episodes(bridge, b, "waiting", l->waiting);
	add_episodes(bridge, b, "failed", l->failed);
	json_builder_end_object(b);
	bridge_json_write(bridge, b, out);
}

static void
list_text(Bridge *bridge, Listing *l, GString *out)
{
	const char *stopped = bridge_downloads_get_stopped(bridge);
	gint64 now = g_get_real_time() / G_USEC_PER_SEC;
	guint64 total = 0;

	for (guint i = 0; i < l->files->len; i++)
		total += bridge_downloads_file_size(bridge, l->files->pdata[i]);
	g_string_append_printf(out, "on disk in %s: %u, %.1f MB",
	                       bridge_downloads_get_directory(bridge),
	                       l->files->len, (double)total / MB);
	for (guint i = 0; i < l->files->len; i++) {
		const BridgeEpisode *e = l->files->pdata[i];
		g_autofree char *name = label(bridge, e);

		g_string_append_printf(
		        out, "\n  %s · %.1f MB%s", name,
		        (double)bridge_downloads_file_size(bridge, e) / MB,
		        e->listened ? " · listened" : "");
	}
	if (l->active->len > 0)
		g_string_append_printf(out, "\nunder way: %u", l->active->len);
	for (guint i = 0; i < l->active->len; i++) {
		const BridgeEpisode *e = l->active->pdata[i];
		const BridgeTransfer *t =
		        bridge_downloads_get_transfer(bridge, e);
		g_autofree char *name = label(bridge, e);

		if (t->tagging)
			g_string_append_printf(out, "\n  %s · tagging", name);
		else if (t->total > 0)
			g_string_append_printf(
			        out, "\n  %s · %u%% of %.1f MB", name,
			        (guint)(100 * t->received / t->total),
			        (double)t->total / MB);
		else
			g_string_append_printf(out, "\n  %s · %.1f MB", name,
			                       (double)t->received / MB);
	}
	if (l->waiting->len > 0)
		g_string_append_printf(out, "\nwaiting: %u", l->waiting->len);
	for (guint i = 0; i < l->waiting->len; i++) {
		g_autofree char *name = label(bridge, l->waiting->pdata[i]);

		g_string_append_printf(out, "\n  %s", name);
	}
	if (l->failed->len > 0)
		g_string_append_printf(out, "\nfailed: %u", l->failed->len);
	for (guint i = 0; i < l->failed->len; i++) {
		const BridgeEpisode *e = l->failed->pdata[i];
		g_autofree char *name = label(bridge, e);
		gint64 wait = e->download_retry - now;

		g_string_append_printf(out, "\n  %s: %s; ", name,
		                       e->download_error);
		if (wait > 0)
			g_string_append_printf(
			        out, "tried again in %" G_GINT64_FORMAT " min",
			        (wait + 59) / 60);
		else
			g_string_append(out, "tried again soon");
	}
	if (stopped != NULL)
		g_string_append_printf(out, "\n%s", stopped);
}

gboolean
bridge_downloads_run_list(Bridge *bridge, char **args, GString *out,
                          GError **error)
{
	gboolean json = args[0] != NULL && strcmp(args[0], "--json") == 0;
	Listing listing;

	if (args[0] != NULL && !json)
		return bridge_command_fail(
		        error, BRIDGE_COMMAND_ERROR_USAGE,
		        "downloads takes --json or nothing, not '%s'", args[0]);
	if (!bridge_downloads_locate(bridge, error))
		return FALSE;
	gather(bridge, &listing);
	if (json)
		list_json(bridge, &listing, out);
	else
		list_text(bridge, &listing, out);
	listing_clear(&listing);
	return TRUE;
}
