/*
 * What a pull brought, applied to the state: the subscriptions a phone
 * added or dropped, and each episode's place or listened state where the
 * phone's change is newer than ours. Actions for episodes not known yet
 * wait in the state file for the next refresh.
 */
#include "phone/phone-sync-private.h"

#include "core/identity.h"
#include "feeds/subscribe.h"
#include "playlists/lists.h"
#include "playlists/push.h"

#include <string.h>

#define FINISHED_SLACK 30 /* AntennaPod's "played" */

static void
on_remote_subscribed(Bridge *bridge, BridgeFeed *feed, const GError *error,
                     gpointer data)
{
	g_autofree char *url = data;

	if (feed != NULL) {
		/* The server has it: nothing to upload. */
		g_free(feed->synced_url);
		feed->synced_url = g_strdup(url);
		g_message("subscribed to %s, as a phone did", url);
	} else if (!g_error_matches(error, G_IO_ERROR, G_IO_ERROR_EXISTS)) {
		g_message("cannot subscribe to %s, as a phone did: %s", url,
		          error->message);
	}
}

static BridgeFeed *
feed_synced_as(Bridge *bridge, const char *url)
{
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);

	for (guint i = 0; i < feeds->len; i++) {
		BridgeFeed *feed = feeds->pdata[i];

		if (g_strcmp0(feed->url, url) == 0 ||
		    g_strcmp0(feed->synced_url, url) == 0)
			return feed;
	}
	return NULL;
}

static void
apply_subscriptions(Bridge *bridge, const BridgeGpodderSubscriptions *subs)
{
	g_auto(GStrv) gone = bridge_phone_sync_dup_removed(bridge);

	for (guint i = 0; i < subs->remove->len; i++) {
		BridgeFeed *feed =
		        feed_synced_as(bridge, subs->remove->pdata[i]);

		if (feed == NULL)
			continue;
		g_message("unsubscribed from %s, as a phone did",
		          bridge_feed_get_name(feed));
		/* The server knows: nothing to tell it. */
		g_clear_pointer(&feed->synced_url, g_free);
		bridge_unsubscribe(bridge, feed);
		bridge_phone_sync_get(bridge)->pulled_changes++;
	}
	for (guint i = 0; i < subs->add->len; i++) {
		const char *url = subs->add->pdata[i];

		/* Ours, or one we dropped since and have not said so yet. */
		if (feed_synced_as(bridge, url) != NULL ||
		    g_strv_contains((const char *const *)gone, url))
			continue;
		bridge_phone_sync_get(bridge)->pulled_changes++;
		bridge_subscribe(bridge, url, NULL, TRUE, on_remote_subscribed,
		                 g_strdup(url));
	}
	bridge_phone_sync_set_int(bridge, "subs_since", subs->timestamp);
}

void
bridge_phone_sync_apply_to(Bridge *bridge, BridgeEpisode *episode,
                           const BridgeGpodderAction *action)
{
	gint64 duration =
	        episode->duration > 0 ? episode->duration : action->total;

	if (action->action == BRIDGE_GPODDER_ACTION_NEW) {
		if (episode->listened)
			bridge_lists_set_listened(bridge, episode, FALSE);
		episode->position = 0;
	} else if (duration > 0 &&
	           action->position >= duration - FINISHED_SLACK) {
		if (!episode->listened)
			bridge_lists_set_listened(bridge, episode, TRUE);
		episode->position = duration;
	} else {
		if (episode->listened)
			bridge_lists_set_listened(bridge, episode, FALSE);
		episode->position = action->position;
	}
	episode->sync_changed = action->timestamp;
	g_free(episode->sync_from);
	episode->sync_from =
	        g_strdup(action->device != NULL ? action->device : "");
	episode->sync_unsent = FALSE;
	bridge_phone_sync_get(bridge)->applied++;
	bridge_changed(bridge);
	g_message("%s: at %" G_GINT64_FORMAT " s%s, as %s says", episode->title,
	          episode->position, episode->listened ? ", listened" : "",
	          action->device != NULL && *action->device != '\0'
	                  ? action->device
	                  : "the sync server");
}

/* Whether @action says something we use: a play with a place, or new. */
static gboolean
is_usable(const BridgeGpodderAction *action)
{
	if (action->action == BRIDGE_GPODDER_ACTION_NEW)
		return TRUE;
	return action->action == BRIDGE_GPODDER_ACTION_PLAY &&
	       action->started >= 0 && action->position > 0 &&
	       action->total > 0;
}

/*
 * Whether MPD is on @episode: a position set now would be overwritten by
 * the player's a moment later. One that has just started and waits for
 * its resume takes it, and the resume goes there.
 */
static gboolean
is_playing(const Bridge *bridge, const BridgeEpisode *episode)
{
	const BridgeTracking *t = &bridge->tracking;

	return t->episode_id != NULL &&
	       strcmp(t->episode_id, episode->id) == 0 &&
	       t->state != BRIDGE_PLAYER_STOP && t->resume_timer == 0;
}

static gboolean
is_ours(Bridge *bridge, const BridgeGpodderAction *action)
{
	return g_strcmp0(action->device, bridge->config->gpodder.device) == 0;
}

/* guid -> GPtrArray of the episodes with that guid, in every feed. */
static GHashTable *
guid_index(Bridge *bridge)
{
	g_autoptr(GPtrArray) all =
	        bridge_store_list_episodes(bridge->store, NULL);
	GHashTable *index =
	        g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
	                              (GDestroyNotify)g_ptr_array_unref);

	for (guint i = 0; i < all->len; i++) {
		BridgeEpisode *episode = all->pdata[i];
		GPtrArray *same = g_hash_table_lookup(index, episode->guid);

		if (same == NULL) {
			same = g_ptr_array_new();
			g_hash_table_insert(index, episode->guid, same);
		}
		g_ptr_array_add(same, episode);
	}
	return index;
}

void
bridge_phone_sync_apply_actions(Bridge *bridge, GPtrArray *actions,
                                gboolean apply)
{
	g_autoptr(GHashTable) by_guid = guid_index(bridge);
	g_autoptr(GPtrArray) later = g_ptr_array_new_with_free_func(
	        (GDestroyNotify)bridge_gpodder_action_free);
	g_autoptr(GHashTable) kept =
	        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	gboolean any = FALSE;

	for (guint i = 0; i < actions->len; i++) {
		BridgeGpodderAction *action = actions->pdata[i];
		GPtrArray *matches =
		        action->guid != NULL
		                ? g_hash_table_lookup(by_guid, action->guid)
		                : NULL;
		g_autoptr(GPtrArray) one = g_ptr_array_new();

		if (is_ours(bridge, action) || !is_usable(action) ||
		    action->episode == NULL)
			continue;
		/* Not judged against a clock that may be wrong: kept. */
		if (!apply)
			matches = one;
		else if (matches == NULL) {
			BridgeEpisode *episode = bridge_identity_find_by_url(
			        bridge, action->episode);

			if (episode != NULL)
				g_ptr_array_add(one, episode);
			matches = one;
		}
		if (matches->len == 0) {
			/* Pulls overlap: the same action comes again. */
			char *key = g_strdup_printf(
			        "%s\n%s\n%" G_GINT64_FORMAT "\n%s",
			        action->guid != NULL ? action->guid : "",
			        action->episode, action->timestamp,
			        action->device != NULL ? action->device : "");

			if (g_hash_table_add(kept, key))
				g_ptr_array_add(
				        later,
				        bridge_gpodder_action_copy(action));
			continue;
		}
		for (guint j = 0; j < matches->len; j++) {
			BridgeEpisode *episode = matches->pdata[j];

			/* Older than what we know, or our own echo. */
			if (action->timestamp <= episode->sync_changed)
				continue;
			if (is_playing(bridge, episode)) {
				g_hash_table_replace(
				        bridge_phone_sync_get(bridge)->held,
				        g_strdup(episode->id),
				        bridge_gpodder_action_copy(action));
				continue;
			}
			bridge_phone_sync_apply_to(bridge, episode, action);
			any = TRUE;
		}
	}
	bridge_phone_sync_set_unmatched(bridge, later);
	/* With the server's stamp, which a crash loses too: pulled again. */
	bridge_changed_later(bridge);
	if (any)
		bridge_push_all(bridge, FALSE);
}

void
bridge_phone_sync_pulled(Bridge *bridge,
                         const BridgeGpodderSubscriptions *subscriptions,
                         GPtrArray *pulled, gint64 actions_since)
{
	g_autoptr(GPtrArray) actions = bridge_phone_sync_dup_unmatched(bridge);

	bridge_phone_sync_get(bridge)->pulled_changes = 0;
	bridge_phone_sync_get(bridge)->applied = 0;
	apply_subscriptions(bridge, subscriptions);
	/* Those kept from before first: the pulled ones are newer. */
	for (guint i = 0; i < pulled->len; i++)
		g_ptr_array_add(actions,
		                bridge_gpodder_action_copy(pulled->pdata[i]));
	bridge_phone_sync_get(bridge)->pulled_changes += pulled->len;
	bridge_phone_sync_apply_actions(
	        bridge, actions, bridge_phone_sync_clock_trusted(bridge));
	bridge_phone_sync_set_int(bridge, "actions_since", actions_since);
	bridge_phone_sync_set_int(bridge, "last_pull", bridge_phone_sync_now());
}
