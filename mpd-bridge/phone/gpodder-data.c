/* The structs that carry the gpodder API's data, and its times. */
#include "phone/gpodder-private.h"

#include <string.h>

static const char *const action_names[] = {
	[BRIDGE_GPODDER_ACTION_NEW] = "new",
	[BRIDGE_GPODDER_ACTION_DOWNLOAD] = "download",
	[BRIDGE_GPODDER_ACTION_PLAY] = "play",
	[BRIDGE_GPODDER_ACTION_DELETE] = "delete",
};

static void
free_secret(char *secret)
{
	if (secret != NULL)
		memset(secret, 0, strlen(secret));
	g_free(secret);
}

BridgeGpodderSettings *
bridge_gpodder_settings_copy(const BridgeGpodderSettings *settings)
{
	BridgeGpodderSettings *copy = g_new0(BridgeGpodderSettings, 1);

	*copy = *settings;
	copy->server = g_strdup(settings->server);
	copy->user = g_strdup(settings->user);
	copy->password_file = g_strdup(settings->password_file);
	copy->password = g_strdup(settings->password);
	copy->device = g_strdup(settings->device);
	return copy;
}

void
bridge_gpodder_settings_free(BridgeGpodderSettings *settings)
{
	if (settings == NULL)
		return;
	g_free(settings->server);
	g_free(settings->user);
	g_free(settings->password_file);
	free_secret(settings->password);
	g_free(settings->device);
	g_free(settings);
}

BridgeGpodderAction *
bridge_gpodder_action_new(const char *podcast, const char *episode,
                          BridgeGpodderActionKind action, gint64 timestamp)
{
	BridgeGpodderAction *self = g_new0(BridgeGpodderAction, 1);

	self->podcast = g_strdup(podcast);
	self->episode = g_strdup(episode);
	self->action = action;
	self->timestamp = timestamp;
	self->started = -1;
	self->position = -1;
	self->total = -1;
	return self;
}

BridgeGpodderAction *
bridge_gpodder_action_copy(const BridgeGpodderAction *action)
{
	BridgeGpodderAction *copy = g_new0(BridgeGpodderAction, 1);

	*copy = *action;
	copy->podcast = g_strdup(action->podcast);
	copy->episode = g_strdup(action->episode);
	copy->guid = g_strdup(action->guid);
	copy->device = g_strdup(action->device);
	return copy;
}

void
bridge_gpodder_action_free(BridgeGpodderAction *action)
{
	if (action == NULL)
		return;
	g_free(action->podcast);
	g_free(action->episode);
	g_free(action->guid);
	g_free(action->device);
	g_free(action);
}

const char *
bridge_gpodder_action_kind_to_string(BridgeGpodderActionKind action)
{
	g_return_val_if_fail(action < G_N_ELEMENTS(action_names), NULL);
	return action_names[action];
}

gboolean
bridge_gpodder_action_kind_from_string(const char *text,
                                       BridgeGpodderActionKind *action)
{
	for (guint i = 0; i < G_N_ELEMENTS(action_names); i++) {
		if (g_ascii_strcasecmp(text, action_names[i]) == 0) {
			*action = (BridgeGpodderActionKind)i;
			return TRUE;
		}
	}
	return FALSE;
}

void
bridge_gpodder_subscriptions_free(BridgeGpodderSubscriptions *subscriptions)
{
	if (subscriptions == NULL)
		return;
	if (subscriptions->add != NULL)
		g_ptr_array_unref(subscriptions->add);
	if (subscriptions->remove != NULL)
		g_ptr_array_unref(subscriptions->remove);
	g_free(subscriptions);
}

void
bridge_gpodder_url_update_free(BridgeGpodderUrlUpdate *update)
{
	if (update == NULL)
		return;
	g_free(update->old_url);
	g_free(update->new_url);
	g_free(update);
}

void
bridge_gpodder_uploaded_free(BridgeGpodderUploaded *uploaded)
{
	if (uploaded == NULL)
		return;
	if (uploaded->update_urls != NULL)
		g_ptr_array_unref(uploaded->update_urls);
	g_free(uploaded);
}

void
bridge_gpodder_login_free(BridgeGpodderLogin *login)
{
	if (login == NULL)
		return;
	g_free(login->login_url);
	g_free(login->poll_endpoint);
	free_secret(login->token);
	g_free(login);
}

void
bridge_gpodder_credentials_free(BridgeGpodderCredentials *credentials)
{
	if (credentials == NULL)
		return;
	g_free(credentials->server);
	g_free(credentials->login_name);
	free_secret(credentials->app_password);
	g_free(credentials);
}

char *
bridge_gpodder_format_time(gint64 seconds)
{
	g_autoptr(GDateTime) time = g_date_time_new_from_unix_utc(seconds);

	g_return_val_if_fail(time != NULL, NULL);
	return g_date_time_format(time, "%Y-%m-%dT%H:%M:%S");
}

gboolean
bridge_gpodder_parse_time(const char *text, gint64 *seconds)
{
	g_autoptr(GTimeZone) utc = g_time_zone_new_utc();
	g_autoptr(GDateTime) time = NULL;

	if (text == NULL)
		return FALSE;
	time = g_date_time_new_from_iso8601(text, utc);
	if (time == NULL)
		return FALSE;
	*seconds = g_date_time_to_unix(time);
	return TRUE;
}
