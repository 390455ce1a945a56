/*
 * `sync`: the status of syncing, a round now (answered when it is back),
 * or a reset that makes the next round start from zero.
 */
#include "phone/phone-sync-private.h"

#include <string.h>

void
bridge_phone_sync_answer_calls(Bridge *bridge, GPtrArray *calls,
                               const GError *error)
{
	struct BridgePhoneSync *s = bridge_phone_sync_get(bridge);

	for (guint i = 0; calls != NULL && i < calls->len; i++) {
		BridgeCall *call = calls->pdata[i];

		if (error != NULL) {
			bridge_call_return(call, g_error_copy(error));
			continue;
		}
		g_string_append_printf(
		        bridge_call_get_out(call),
		        "synced with %s: %u change%s pulled (%u applied), %u "
		        "pushed",
		        bridge->config->gpodder.server, s->pulled_changes,
		        s->pulled_changes == 1 ? "" : "s", s->applied,
		        s->pushed_changes);
		if (bridge_phone_sync_clock_note(bridge) != NULL)
			g_string_append_printf(
			        bridge_call_get_out(call), "; %s",
			        bridge_phone_sync_clock_note(bridge));
		bridge_call_return(call, NULL);
	}
}

static char *
time_text(gint64 seconds)
{
	g_autoptr(GDateTime) utc = NULL;
	g_autoptr(GDateTime) local = NULL;

	if (seconds <= 0)
		return g_strdup("never");
	utc = g_date_time_new_from_unix_utc(seconds);
	local = utc != NULL ? g_date_time_to_local(utc) : NULL;
	return local != NULL ? g_date_time_format(local, "%Y-%m-%d %H:%M:%S")
	                     : g_strdup("?");
}

static void
append_status(Bridge *bridge, GString *out)
{
	const BridgeGpodderSettings *settings = &bridge->config->gpodder;
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);
	g_autoptr(GPtrArray) episodes =
	        bridge_store_list_episodes(bridge->store, NULL);
	g_autoptr(GPtrArray) later = bridge_phone_sync_dup_unmatched(bridge);
	g_auto(GStrv) gone = bridge_phone_sync_dup_removed(bridge);
	g_autofree char *pull =
	        time_text(bridge_phone_sync_get_int(bridge, "last_pull"));
	g_autofree char *push =
	        time_text(bridge_phone_sync_get_int(bridge, "last_push"));
	g_autofree char *why = bridge_phone_sync_dup_why_not(bridge);
	g_autofree char *error = bridge_phone_sync_dup_last_error(bridge);
	guint subs = g_strv_length(gone);
	guint actions = 0;

	for (guint i = 0; i < feeds->len; i++) {
		const BridgeFeed *feed = feeds->pdata[i];

		if (g_strcmp0(feed->synced_url, feed->url) != 0)
			subs++;
	}
	for (guint i = 0; i < episodes->len; i++)
		if (((const BridgeEpisode *)episodes->pdata[i])->sync_unsent)
			actions++;
	g_string_append_printf(
	        out,
	        "syncing with %s (%s) as device %s\n"
	        "last pull: %s\nlast push: %s\n"
	        "waiting to be pushed: %u subscription change%s, %u "
	        "episode%s\n"
	        "waiting for their episode: %u action%s\n",
	        settings->server,
	        settings->kind == BRIDGE_GPODDER_KIND_NEXTCLOUD
	                ? "Nextcloud gpoddersync"
	                : "gpodder API",
	        settings->device, pull, push, subs, subs == 1 ? "" : "s",
	        actions, actions == 1 ? "" : "s", later->len,
	        later->len == 1 ? "" : "s");
	if (error != NULL)
		g_string_append_printf(out, "last error: %s\n", error);
	if (why != NULL)
		g_string_append_printf(out, "not syncing: %s\n", why);
	if (bridge_phone_sync_clock_note(bridge) != NULL)
		g_string_append_printf(out, "%s\n",
		                       bridge_phone_sync_clock_note(bridge));
}

void
bridge_phone_sync_start_command(Bridge *bridge, char **args, BridgeCall *call)
{
	const char *what = args[0];

	if (what != NULL && args[1] != NULL) {
		bridge_call_return(
		        call, g_error_new_literal(BRIDGE_COMMAND_ERROR,
		                                  BRIDGE_COMMAND_ERROR_USAGE,
		                                  "usage: sync [now|reset]"));
		return;
	}
	if (!bridge_phone_sync_enabled(bridge)) {
		g_autofree char *why = bridge_phone_sync_dup_why_not(bridge);

		bridge_call_return(
		        call,
		        g_error_new_literal(BRIDGE_COMMAND_ERROR,
		                            BRIDGE_COMMAND_ERROR_FAILED, why));
		return;
	}
	if (what == NULL) {
		append_status(bridge, bridge_call_get_out(call));
		bridge_call_return(call, NULL);
	} else if (strcmp(what, "now") == 0) {
		g_ptr_array_add(bridge_phone_sync_get(bridge)->waiting, call);
		bridge_phone_sync_start_round(bridge,
		                              BRIDGE_PHONE_SYNC_PULL |
		                                      BRIDGE_PHONE_SYNC_PUSH);
	} else if (strcmp(what, "login") == 0) {
		/* The command line runs it itself (main.c). */
		bridge_call_return(
		        call,
		        g_error_new_literal(
		                BRIDGE_COMMAND_ERROR,
		                BRIDGE_COMMAND_ERROR_USAGE,
		                "sync login waits for a browser, so it runs "
		                "only on the command line: mpd-bridge sync "
		                "login"));
	} else if (strcmp(what, "reset") == 0) {
		GPtrArray *feeds = bridge_store_get_feeds(bridge->store);

		bridge_phone_sync_set_int(bridge, "subs_since", 0);
		bridge_phone_sync_set_int(bridge, "actions_since", 0);
		bridge_phone_sync_set_registered(bridge, FALSE);
		/* Every subscription is told again: the server keeps one. */
		for (guint i = 0; i < feeds->len; i++)
			g_clear_pointer(
			        &((BridgeFeed *)feeds->pdata[i])->synced_url,
			        g_free);
		bridge_changed(bridge);
		g_string_append(bridge_call_get_out(call),
		                "the next sync starts from zero");
		bridge_call_return(call, NULL);
	} else {
		bridge_call_return(call,
		                   g_error_new(BRIDGE_COMMAND_ERROR,
		                               BRIDGE_COMMAND_ERROR_USAGE,
		                               "sync takes now or reset, not "
		                               "'%s'",
		                               what));
	}
}
