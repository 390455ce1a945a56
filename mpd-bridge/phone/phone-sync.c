/*
 * Syncing with phones, as the daemon sees it: a round starts at start,
 * on a timer, when MPD starts an episode, and a while after a change here
 * (phone-sync-round.c sends it). The state file keeps what waits:
 * episodes with sync_unsent, feeds whose synced_url is not their URL, and
 * in its [sync] group (phone-sync-state.c) the server's timestamps, the
 * removed subscriptions not told yet, and the actions for episodes not
 * known yet.
 */
#include "phone/phone-sync-private.h"

#define RESUME_WAIT_MS 1000

gboolean
bridge_phone_sync_enabled(const Bridge *bridge)
{
	return bridge->config->gpodder.server != NULL;
}

char *
bridge_phone_sync_dup_why_not(const Bridge *bridge)
{
	const BridgeGpodderSettings *settings = &bridge->config->gpodder;

	if (settings->server == NULL)
		return g_strdup("syncing is off: set [sync] server, kind, user "
		                "and password_file in the settings");
	if (settings->password == NULL)
		return g_strdup_printf("no password yet: run mpd-bridge sync "
		                       "login, or write it to %s (mode 600)",
		                       settings->password_file);
	return NULL;
}

static gboolean
on_pull_due(gpointer data)
{
	bridge_phone_sync_start_round(data, BRIDGE_PHONE_SYNC_PULL |
	                                            BRIDGE_PHONE_SYNC_PUSH);
	return G_SOURCE_CONTINUE;
}

static gboolean
on_push_due(gpointer data)
{
	Bridge *bridge = data;

	bridge_phone_sync_get(bridge)->push_timer = 0;
	bridge_phone_sync_start_round(bridge, BRIDGE_PHONE_SYNC_PUSH);
	return G_SOURCE_REMOVE;
}

static void
schedule_push(Bridge *bridge)
{
	struct BridgePhoneSync *s;

	if (!bridge->daemon || !bridge_phone_sync_enabled(bridge))
		return;
	s = bridge_phone_sync_get(bridge);
	if (s->push_timer == 0)
		s->push_timer = g_timeout_add_seconds(
		        bridge->config->gpodder.push_delay_seconds, on_push_due,
		        bridge);
}

void
bridge_phone_sync_start(Bridge *bridge)
{
	struct BridgePhoneSync *s;

	if (!bridge_phone_sync_enabled(bridge))
		return;
	s = bridge_phone_sync_get(bridge);
	g_message("syncing with %s as device %s",
	          bridge->config->gpodder.server,
	          bridge->config->gpodder.device);
	bridge_phone_sync_start_round(bridge, BRIDGE_PHONE_SYNC_PULL |
	                                              BRIDGE_PHONE_SYNC_PUSH);
	s->pull_timer = g_timeout_add_seconds(
	        bridge->config->gpodder.interval_minutes * 60, on_pull_due,
	        bridge);
}

void
bridge_phone_sync_stop(Bridge *bridge)
{
	struct BridgePhoneSync *s = bridge->phone;
	GMainContext *context = g_main_context_default();

	if (s == NULL || !bridge_phone_sync_enabled(bridge))
		return;
	g_clear_handle_id(&s->pull_timer, g_source_remove);
	g_clear_handle_id(&s->push_timer, g_source_remove);
	g_clear_handle_id(&s->retry_timer, g_source_remove);
	/* The round out first, then one more push of what is left. */
	while (s->busy)
		g_main_context_iteration(context, TRUE);
	bridge_phone_sync_start_round(bridge, BRIDGE_PHONE_SYNC_PUSH);
	while (s->busy)
		g_main_context_iteration(context, TRUE);
}

void
bridge_phone_sync_changed(Bridge *bridge, BridgeEpisode *episode)
{
	if (!bridge_phone_sync_enabled(bridge))
		return;
	episode->sync_changed = bridge_phone_sync_clock_trusted(bridge)
	                                ? bridge_phone_sync_now()
	                                : 0;
	g_clear_pointer(&episode->sync_from, g_free);
	episode->sync_unsent = TRUE;
	/* Ours now: what a phone said before it is past. */
	if (bridge->phone != NULL)
		g_hash_table_remove(bridge->phone->held, episode->id);
	/* With the checkpoint's position: one line in the journal. */
	bridge_changed_episode(bridge, episode);
	schedule_push(bridge);
}

void
bridge_phone_sync_feed_changed(Bridge *bridge)
{
	schedule_push(bridge);
}

void
bridge_phone_sync_feed_removed(Bridge *bridge, const BridgeFeed *feed)
{
	g_auto(GStrv) gone = NULL;
	g_autoptr(GPtrArray) urls = NULL;

	if (!bridge_phone_sync_enabled(bridge) || feed->synced_url == NULL)
		return;
	gone = bridge_phone_sync_dup_removed(bridge);
	urls = g_ptr_array_new();
	for (guint i = 0; gone[i] != NULL; i++)
		g_ptr_array_add(urls, gone[i]);
	if (!g_strv_contains((const char *const *)gone, feed->synced_url))
		g_ptr_array_add(urls, feed->synced_url);
	bridge_phone_sync_set_removed(bridge, urls);
	bridge_changed(bridge);
	schedule_push(bridge);
}

void
bridge_phone_sync_episode_started(Bridge *bridge, BridgeEpisode *episode)
{
	struct BridgePhoneSync *s;
	BridgeGpodderAction *held;

	if (!bridge_phone_sync_enabled(bridge) || !bridge->daemon)
		return;
	s = bridge_phone_sync_get(bridge);
	held = g_hash_table_lookup(s->held, episode->id);
	if (held != NULL && held->timestamp > episode->sync_changed)
		bridge_phone_sync_apply_to(bridge, episode, held);
	g_hash_table_remove(s->held, episode->id);
	/* Skipping through a queue asks once more at most: see again. */
	bridge_phone_sync_start_round(bridge, BRIDGE_PHONE_SYNC_PULL);
}

guint
bridge_phone_sync_resume_wait_ms(const Bridge *bridge)
{
	return bridge_phone_sync_enabled(bridge) && bridge->daemon
	               ? RESUME_WAIT_MS
	               : 0;
}

void
bridge_phone_sync_after_refresh(Bridge *bridge)
{
	g_autoptr(GPtrArray) actions = NULL;

	if (!bridge_phone_sync_enabled(bridge) ||
	    !bridge_phone_sync_has_unmatched(bridge) ||
	    !bridge_phone_sync_clock_trusted(bridge))
		return;
	actions = bridge_phone_sync_dup_unmatched(bridge);
	bridge_phone_sync_apply_actions(bridge, actions, TRUE);
}
