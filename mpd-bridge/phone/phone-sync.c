/*
 * Syncing with phones. A round (a pull, a push, or both) is prepared on
 * the main loop from the state, sent by gpodder.c in a worker thread on a
 * copy of the settings, and its answers are applied on the main loop
 * again; one round at a time. The state file keeps what waits: episodes
 * with sync_unsent, feeds whose synced_url is not their URL, and in its
 * [sync] group the server's timestamps, the removed subscriptions not
 * told yet, and the actions for episodes not known yet.
 */
#include "phone/phone-sync.h"

#include "core/identity.h"
#include "feeds/subscribe.h"
#include "phone/gpodder.h"
#include "playlists/lists.h"
#include "playlists/push.h"

#include <string.h>
#include <sys/timex.h>

#define GROUP          "sync"
#define OVERLAP        (24 * 60 * 60) /* asked again: late uploads */
#define FINISHED_SLACK 30             /* AntennaPod's "played" */
#define STOP_TIMEOUT   10             /* seconds for the last push */
#define RESUME_WAIT_MS 1000
#define MAX_UNMATCHED  500
#define UNMATCHED_DAYS 30
#define MAX_BACKOFF    (6 * 60 * 60)

typedef enum {
	ROUND_PULL = 1 << 0,
	ROUND_PUSH = 1 << 1,
} RoundKind;

/* What one round sends, and what it got back. */
typedef struct {
	BridgeGpodderSettings *settings;
	RoundKind kind;
	gboolean register_device;
	/* push */
	GPtrArray *add;     /* char *: feed URLs */
	GPtrArray *remove;  /* char *: feed URLs */
	GPtrArray *actions; /* BridgeGpodderAction * */
	GHashTable *stamps; /* episode id -> its sync_changed (gint64 *)
	                       when sent */
	/* pull */
	gint64 subs_since;
	gint64 actions_since;
	BridgeGpodderSubscriptions *subscriptions;
	GPtrArray *pulled; /* BridgeGpodderAction * */
	gint64 new_actions_since;
	GPtrArray *updates; /* BridgeGpodderUrlUpdate *, of the push */
	GError *error;
} Round;

/* What sync holds in the daemon, besides the state. */
struct BridgePhoneSync {
	guint pull_timer;
	guint push_timer;
	guint retry_timer;
	gboolean busy;        /* a round is out */
	RoundKind again;      /* what to do once it is back */
	GPtrArray *waiting;   /* BridgeCall * of `sync now`, answered after
	                         the next whole round */
	GPtrArray *answering; /* those the round out answers */
	GHashTable *held;     /* episode id -> BridgeGpodderAction *: for
	                         the episode playing when it came */
	guint failures;
	guint pulled_changes; /* of the last round, for `sync now` */
	guint pushed_changes;
	guint applied;
};

static void
round_free(Round *round)
{
	bridge_gpodder_settings_free(round->settings);
	g_clear_pointer(&round->add, g_ptr_array_unref);
	g_clear_pointer(&round->remove, g_ptr_array_unref);
	g_clear_pointer(&round->actions, g_ptr_array_unref);
	g_clear_pointer(&round->stamps, g_hash_table_unref);
	g_clear_pointer(&round->subscriptions,
	                bridge_gpodder_subscriptions_free);
	g_clear_pointer(&round->pulled, g_ptr_array_unref);
	g_clear_pointer(&round->updates, g_ptr_array_unref);
	g_clear_error(&round->error);
	g_free(round);
}

gboolean
bridge_phone_sync_enabled(const Bridge *bridge)
{
	return bridge->config->gpodder.server != NULL;
}

static gint64
now_seconds(void)
{
	return g_get_real_time() / G_USEC_PER_SEC;
}

/*
 * Whether the clock may stamp and judge actions. A box with no real-time
 * clock starts in the past until NTP answers; the kernel says whether it
 * has been synchronised since.
 */
static gboolean
clock_trusted(const Bridge *bridge)
{
	struct timex tx = { 0 };

	switch (bridge->config->gpodder.trust_clock) {
	case BRIDGE_CLOCK_TRUST_YES:
		return TRUE;
	case BRIDGE_CLOCK_TRUST_NO:
		return FALSE;
	case BRIDGE_CLOCK_TRUST_AUTO:
		break;
	}
	return adjtimex(&tx) != TIME_ERROR;
}

static const char *
clock_note(const Bridge *bridge)
{
	return clock_trusted(bridge)
	               ? NULL
	               : "the system clock is not synchronised yet, so no "
	                 "episode action is stamped, sent or applied; they "
	                 "wait (set [sync] trust_clock = yes if the clock is "
	                 "right)";
}

static GKeyFile *
groups(Bridge *bridge)
{
	return bridge_store_get_groups(bridge->store);
}

static gint64
get_int(Bridge *bridge, const char *key)
{
	return g_key_file_get_int64(groups(bridge), GROUP, key, NULL);
}

static void
set_int(Bridge *bridge, const char *key, gint64 value)
{
	g_key_file_set_int64(groups(bridge), GROUP, key, value);
}

static struct BridgePhoneSync *
state(Bridge *bridge)
{
	if (bridge->phone == NULL) {
		bridge->phone = g_new0(struct BridgePhoneSync, 1);
		bridge->phone->waiting = g_ptr_array_new();
		bridge->phone->held = g_hash_table_new_full(
		        g_str_hash, g_str_equal, g_free,
		        (GDestroyNotify)bridge_gpodder_action_free);
	}
	return bridge->phone;
}

/* The removed subscriptions not told yet. */
static char **
removed(Bridge *bridge)
{
	char **urls = g_key_file_get_string_list(groups(bridge), GROUP,
	                                         "removed", NULL, NULL);

	return urls != NULL ? urls : g_new0(char *, 1);
}

static void
set_removed(Bridge *bridge, GPtrArray *urls)
{
	if (urls->len == 0) {
		g_key_file_remove_key(groups(bridge), GROUP, "removed", NULL);
		return;
	}
	g_key_file_set_string_list(groups(bridge), GROUP, "removed",
	                           (const char *const *)urls->pdata, urls->len);
}

static GPtrArray *
unmatched(Bridge *bridge)
{
	g_autofree char *text =
	        g_key_file_get_string(groups(bridge), GROUP, "unmatched", NULL);
	g_autoptr(GError) error = NULL;
	GPtrArray *actions = NULL;

	if (text != NULL)
		actions = bridge_gpodder_actions_load(text, &error);
	if (error != NULL)
		g_warning("the state's [sync] unmatched is damaged, and "
		          "dropped: %s",
		          error->message);
	return actions != NULL
	               ? actions
	               : g_ptr_array_new_with_free_func(
	                         (GDestroyNotify)bridge_gpodder_action_free);
}

/* Keeps @actions for later: the newest, none older than a month. */
static void
set_unmatched(Bridge *bridge, GPtrArray *actions)
{
	g_autofree char *text = NULL;
	gint64 oldest = now_seconds() - UNMATCHED_DAYS * 24 * 60 * 60;

	for (guint i = actions->len; i-- > 0;) {
		const BridgeGpodderAction *action = actions->pdata[i];

		if (action->timestamp < oldest)
			g_ptr_array_remove_index(actions, i);
	}
	if (actions->len > MAX_UNMATCHED)
		g_ptr_array_remove_range(actions, 0,
		                         actions->len - MAX_UNMATCHED);
	if (actions->len == 0) {
		g_key_file_remove_key(groups(bridge), GROUP, "unmatched", NULL);
		return;
	}
	text = bridge_gpodder_actions_save(actions);
	g_key_file_set_string(groups(bridge), GROUP, "unmatched", text);
}

static gboolean
is_ours(Bridge *bridge, const BridgeGpodderAction *action)
{
	return g_strcmp0(action->device, bridge->config->gpodder.device) == 0;
}

/* The action that says where @episode is, or NULL when none can. */
static BridgeGpodderAction *
action_of(Bridge *bridge, const BridgeEpisode *episode)
{
	const BridgeFeed *feed =
	        bridge_store_find_feed(bridge->store, episode->feed_id);
	BridgeGpodderAction *action;
	gint64 total = episode->duration;

	if (feed == NULL)
		return NULL;
	if (!episode->listened && episode->position == 0) {
		action = bridge_gpodder_action_new(feed->url, episode->url,
		                                   BRIDGE_GPODDER_ACTION_NEW,
		                                   episode->sync_changed);
	} else {
		/* AntennaPod uses no position of 0, nor one without a total. */
		if (total <= 0 ||
		    (!episode->listened && episode->position <= 0))
			return NULL;
		action = bridge_gpodder_action_new(feed->url, episode->url,
		                                   BRIDGE_GPODDER_ACTION_PLAY,
		                                   episode->sync_changed);
		action->total = total;
		if (episode->listened) {
			action->started = total;
			action->position = total;
		} else {
			action->started = 0;
			action->position = MIN(episode->position, total);
		}
	}
	action->guid = g_strdup(episode->guid);
	return action;
}

/* Fills @round's push from the state. */
static void
prepare_push(Bridge *bridge, Round *round)
{
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);
	g_autoptr(GPtrArray) episodes =
	        bridge_store_list_episodes(bridge->store, NULL);
	g_auto(GStrv) gone = removed(bridge);

	round->add = g_ptr_array_new_with_free_func(g_free);
	round->remove = g_ptr_array_new_with_free_func(g_free);
	round->actions = g_ptr_array_new_with_free_func(
	        (GDestroyNotify)bridge_gpodder_action_free);
	round->stamps =
	        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	for (guint i = 0; gone[i] != NULL; i++)
		g_ptr_array_add(round->remove, g_strdup(gone[i]));
	for (guint i = 0; i < feeds->len; i++) {
		const BridgeFeed *feed = feeds->pdata[i];

		if (g_strcmp0(feed->synced_url, feed->url) == 0)
			continue;
		/* Moved: the old URL goes, the new one comes. */
		if (feed->synced_url != NULL)
			g_ptr_array_add(round->remove,
			                g_strdup(feed->synced_url));
		g_ptr_array_add(round->add, g_strdup(feed->url));
	}
	/* Actions wait for a clock that can stamp them. */
	for (guint i = 0; clock_trusted(bridge) && i < episodes->len; i++) {
		BridgeEpisode *episode = episodes->pdata[i];
		BridgeGpodderAction *action;

		if (!episode->sync_unsent)
			continue;
		/* Changed while the clock could not say when: now, then. */
		if (episode->sync_changed == 0)
			episode->sync_changed = now_seconds();
		action = action_of(bridge, episode);
		if (action != NULL)
			g_ptr_array_add(round->actions, action);
		/* The stamp, to know if it changed again meanwhile. */
		g_hash_table_insert(
		        round->stamps, g_strdup(episode->id),
		        g_memdup2(&episode->sync_changed, sizeof(gint64)));
	}
}

/* In the worker thread: touches only @round. */
static void
send_round(GTask *task, gpointer source, gpointer data,
           GCancellable *cancellable)
{
	Round *round = data;
	const BridgeGpodderSettings *settings = round->settings;
	g_autoptr(BridgeGpodderUploaded) uploaded = NULL;
	GError **error = &round->error;

	if (round->register_device &&
	    !bridge_gpodder_register_device(settings, error))
		goto out;
	if (round->kind & ROUND_PUSH) {
		if (round->add->len > 0 || round->remove->len > 0) {
			g_ptr_array_add(round->add, NULL);
			g_ptr_array_add(round->remove, NULL);
			uploaded = bridge_gpodder_upload_subscriptions(
			        settings,
			        (const char *const *)round->add->pdata,
			        (const char *const *)round->remove->pdata,
			        error);
			g_ptr_array_remove_index(round->add,
			                         round->add->len - 1);
			g_ptr_array_remove_index(round->remove,
			                         round->remove->len - 1);
			if (uploaded == NULL)
				goto out;
			round->updates =
			        g_steal_pointer(&uploaded->update_urls);
			g_clear_pointer(&uploaded,
			                bridge_gpodder_uploaded_free);
		}
		if (round->actions->len > 0) {
			uploaded = bridge_gpodder_upload_actions(
			        settings, round->actions, NULL, error);
			if (uploaded == NULL)
				goto out;
		}
	}
	if (round->kind & ROUND_PULL) {
		round->subscriptions = bridge_gpodder_download_subscriptions(
		        settings, round->subs_since, error);
		if (round->subscriptions == NULL)
			goto out;
		round->pulled = bridge_gpodder_download_actions(
		        settings, MAX(round->actions_since - OVERLAP, 0),
		        &round->new_actions_since, error);
	}
out:
	g_task_return_boolean(task, round->error == NULL);
}

static void
start_round(Bridge *bridge, RoundKind kind);

/* After a push: what the server took is sent no more. */
static void
pushed(Bridge *bridge, Round *round)
{
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);
	g_auto(GStrv) gone = removed(bridge);
	g_autoptr(GPtrArray) still = g_ptr_array_new();
	GHashTableIter iter;
	gpointer key, value;

	for (guint i = 0; gone[i] != NULL; i++)
		if (!g_ptr_array_find_with_equal_func(round->remove, gone[i],
		                                      g_str_equal, NULL))
			g_ptr_array_add(still, gone[i]);
	set_removed(bridge, still);
	for (guint i = 0; i < feeds->len; i++) {
		BridgeFeed *feed = feeds->pdata[i];

		if (g_ptr_array_find_with_equal_func(round->add, feed->url,
		                                     g_str_equal, NULL)) {
			g_free(feed->synced_url);
			feed->synced_url = g_strdup(feed->url);
		}
	}
	g_hash_table_iter_init(&iter, round->stamps);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		BridgeEpisode *episode =
		        bridge_store_find_episode(bridge->store, key);

		if (episode != NULL &&
		    episode->sync_changed == *(const gint64 *)value)
			episode->sync_unsent = FALSE;
	}
	/* The server keeps a feed under another URL: so do we. */
	for (guint i = 0; round->updates != NULL && i < round->updates->len;
	     i++) {
		const BridgeGpodderUrlUpdate *update = round->updates->pdata[i];
		BridgeFeed *feed =
		        bridge_store_find_feed(bridge->store, update->old_url);

		if (feed == NULL || update->new_url == NULL ||
		    *update->new_url == '\0' ||
		    bridge_store_find_feed(bridge->store, update->new_url))
			continue;
		g_message("the sync server keeps %s as %s", update->old_url,
		          update->new_url);
		bridge_store_move_feed(bridge->store, feed, update->new_url);
		g_free(feed->synced_url);
		feed->synced_url = g_strdup(update->new_url);
	}
	state(bridge)->pushed_changes =
	        round->add->len + round->remove->len + round->actions->len;
	set_int(bridge, "last_push", now_seconds());
}

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
	g_auto(GStrv) gone = removed(bridge);

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
		state(bridge)->pulled_changes++;
	}
	for (guint i = 0; i < subs->add->len; i++) {
		const char *url = subs->add->pdata[i];

		/* Ours, or one we dropped since and have not said so yet. */
		if (feed_synced_as(bridge, url) != NULL ||
		    g_strv_contains((const char *const *)gone, url))
			continue;
		state(bridge)->pulled_changes++;
		bridge_subscribe(bridge, url, NULL, TRUE, on_remote_subscribed,
		                 g_strdup(url));
	}
	set_int(bridge, "subs_since", subs->timestamp);
}

/* @action to @episode: where the phone stopped, or that it finished. */
static void
apply_to(Bridge *bridge, BridgeEpisode *episode,
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
	state(bridge)->applied++;
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

/*
 * Applies @actions, newest change winning per episode; those of episodes
 * not known yet go to [sync] unmatched, to be tried again after the next
 * refresh. Without @apply (a clock not to be trusted) all go there.
 */
static void
apply_actions(Bridge *bridge, GPtrArray *actions, gboolean apply)
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
				        state(bridge)->held,
				        g_strdup(episode->id),
				        bridge_gpodder_action_copy(action));
				continue;
			}
			apply_to(bridge, episode, action);
			any = TRUE;
		}
	}
	set_unmatched(bridge, later);
	bridge_changed(bridge);
	if (any)
		bridge_push_all(bridge, FALSE);
}

static void
pulled(Bridge *bridge, Round *round)
{
	g_autoptr(GPtrArray) actions = unmatched(bridge);

	state(bridge)->pulled_changes = 0;
	state(bridge)->applied = 0;
	apply_subscriptions(bridge, round->subscriptions);
	/* Those kept from before first: the pulled ones are newer. */
	for (guint i = 0; i < round->pulled->len; i++)
		g_ptr_array_add(actions, bridge_gpodder_action_copy(
		                                 round->pulled->pdata[i]));
	state(bridge)->pulled_changes += round->pulled->len;
	apply_actions(bridge, actions, clock_trusted(bridge));
	set_int(bridge, "actions_since", round->new_actions_since);
	set_int(bridge, "last_pull", now_seconds());
}

static void
answer_calls(Bridge *bridge, GPtrArray *calls, const GError *error)
{
	struct BridgePhoneSync *s = state(bridge);

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
		if (clock_note(bridge) != NULL)
			g_string_append_printf(bridge_call_get_out(call),
			                       "; %s", clock_note(bridge));
		bridge_call_return(call, NULL);
	}
}

static gboolean
on_retry(gpointer data)
{
	Bridge *bridge = data;

	state(bridge)->retry_timer = 0;
	start_round(bridge, ROUND_PULL | ROUND_PUSH);
	return G_SOURCE_REMOVE;
}

static void
on_round(GObject *source, GAsyncResult *result, gpointer data)
{
	Bridge *bridge = data;
	struct BridgePhoneSync *s = state(bridge);
	Round *round = g_task_get_task_data(G_TASK(result));
	g_autoptr(GPtrArray) calls = g_steal_pointer(&s->answering);
	RoundKind again = s->again;

	s->busy = FALSE;
	s->again = 0;
	if (round->error != NULL) {
		guint delay =
		        MIN(60u << MIN(s->failures, 10u), (guint)MAX_BACKOFF);

		s->failures++;
		g_key_file_set_string(groups(bridge), GROUP, "last_error",
		                      round->error->message);
		g_warning("cannot sync with %s: %s; trying again in %u s",
		          bridge->config->gpodder.server, round->error->message,
		          delay);
		if (bridge->daemon) {
			g_clear_handle_id(&s->retry_timer, g_source_remove);
			s->retry_timer =
			        g_timeout_add_seconds(delay, on_retry, bridge);
		}
	} else {
		s->failures = 0;
		g_key_file_remove_key(groups(bridge), GROUP, "last_error",
		                      NULL);
		if (round->register_device)
			g_key_file_set_boolean(groups(bridge), GROUP,
			                       "registered", TRUE);
		if (round->kind & ROUND_PUSH)
			pushed(bridge, round);
		if (round->kind & ROUND_PULL)
			pulled(bridge, round);
	}
	bridge_changed(bridge);
	answer_calls(bridge, calls, round->error);
	/* What was asked while this round was out. */
	if (again != 0 || s->waiting->len > 0)
		start_round(bridge, again | (s->waiting->len > 0
		                                     ? ROUND_PULL | ROUND_PUSH
		                                     : 0));
}

/* Why no round can go now, or NULL. */
static char *
cannot_sync(const Bridge *bridge)
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

static void
start_round(Bridge *bridge, RoundKind kind)
{
	struct BridgePhoneSync *s = state(bridge);
	g_autofree char *why = cannot_sync(bridge);
	g_autoptr(GTask) task = NULL;
	Round *round;

	if (why != NULL) {
		g_autoptr(GError) error = g_error_new_literal(
		        BRIDGE_COMMAND_ERROR, BRIDGE_COMMAND_ERROR_FAILED, why);
		g_autoptr(GPtrArray) calls = g_steal_pointer(&s->waiting);

		s->waiting = g_ptr_array_new();
		g_debug("no sync: %s", why);
		answer_calls(bridge, calls, error);
		return;
	}
	if (s->busy) {
		s->again |= kind;
		return;
	}
	round = g_new0(Round, 1);
	round->settings =
	        bridge_gpodder_settings_copy(&bridge->config->gpodder);
	/* The last push as the daemon stops must not hold it up long. */
	if (bridge->loop != NULL && !g_main_loop_is_running(bridge->loop))
		round->settings->timeout_seconds = STOP_TIMEOUT;
	round->kind = kind;
	round->register_device = !g_key_file_get_boolean(groups(bridge), GROUP,
	                                                 "registered", NULL);
	prepare_push(bridge, round);
	if (!(kind & ROUND_PUSH)) {
		g_ptr_array_set_size(round->add, 0);
		g_ptr_array_set_size(round->remove, 0);
		g_ptr_array_set_size(round->actions, 0);
		g_hash_table_remove_all(round->stamps);
	}
	round->subs_since = get_int(bridge, "subs_since");
	round->actions_since = get_int(bridge, "actions_since");
	s->busy = TRUE;
	s->answering = g_steal_pointer(&s->waiting);
	s->waiting = g_ptr_array_new();
	task = g_task_new(NULL, NULL, on_round, bridge);
	g_task_set_task_data(task, round, (GDestroyNotify)round_free);
	g_task_run_in_thread(task, send_round);
}

static gboolean
on_pull_due(gpointer data)
{
	start_round(data, ROUND_PULL | ROUND_PUSH);
	return G_SOURCE_CONTINUE;
}

static gboolean
on_push_due(gpointer data)
{
	Bridge *bridge = data;

	state(bridge)->push_timer = 0;
	start_round(bridge, ROUND_PUSH);
	return G_SOURCE_REMOVE;
}

static void
schedule_push(Bridge *bridge)
{
	struct BridgePhoneSync *s;

	if (!bridge->daemon || !bridge_phone_sync_enabled(bridge))
		return;
	s = state(bridge);
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
	s = state(bridge);
	g_message("syncing with %s as device %s",
	          bridge->config->gpodder.server,
	          bridge->config->gpodder.device);
	start_round(bridge, ROUND_PULL | ROUND_PUSH);
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
	start_round(bridge, ROUND_PUSH);
	while (s->busy)
		g_main_context_iteration(context, TRUE);
}

void
bridge_phone_sync_clear(Bridge *bridge)
{
	struct BridgePhoneSync *s = bridge->phone;

	if (s == NULL)
		return;
	g_clear_handle_id(&s->pull_timer, g_source_remove);
	g_clear_handle_id(&s->push_timer, g_source_remove);
	g_clear_handle_id(&s->retry_timer, g_source_remove);
	g_ptr_array_unref(s->waiting);
	g_hash_table_unref(s->held);
	g_free(s);
	bridge->phone = NULL;
}

void
bridge_phone_sync_changed(Bridge *bridge, BridgeEpisode *episode)
{
	if (!bridge_phone_sync_enabled(bridge))
		return;
	episode->sync_changed = clock_trusted(bridge) ? now_seconds() : 0;
	g_clear_pointer(&episode->sync_from, g_free);
	episode->sync_unsent = TRUE;
	/* Ours now: what a phone said before it is past. */
	if (bridge->phone != NULL)
		g_hash_table_remove(bridge->phone->held, episode->id);
	bridge_changed(bridge);
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
	gone = removed(bridge);
	urls = g_ptr_array_new();
	for (guint i = 0; gone[i] != NULL; i++)
		g_ptr_array_add(urls, gone[i]);
	if (!g_strv_contains((const char *const *)gone, feed->synced_url))
		g_ptr_array_add(urls, feed->synced_url);
	set_removed(bridge, urls);
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
	s = state(bridge);
	held = g_hash_table_lookup(s->held, episode->id);
	if (held != NULL && held->timestamp > episode->sync_changed)
		apply_to(bridge, episode, held);
	g_hash_table_remove(s->held, episode->id);
	/* Skipping through a queue asks once more at most: see again. */
	start_round(bridge, ROUND_PULL);
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
	    !g_key_file_has_key(groups(bridge), GROUP, "unmatched", NULL) ||
	    !clock_trusted(bridge))
		return;
	actions = unmatched(bridge);
	apply_actions(bridge, actions, TRUE);
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
	g_autoptr(GPtrArray) later = unmatched(bridge);
	g_auto(GStrv) gone = removed(bridge);
	g_autofree char *pull = time_text(get_int(bridge, "last_pull"));
	g_autofree char *push = time_text(get_int(bridge, "last_push"));
	g_autofree char *why = cannot_sync(bridge);
	g_autofree char *error = g_key_file_get_string(groups(bridge), GROUP,
	                                               "last_error", NULL);
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
	if (clock_note(bridge) != NULL)
		g_string_append_printf(out, "%s\n", clock_note(bridge));
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
		g_autofree char *why = cannot_sync(bridge);

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
		g_ptr_array_add(state(bridge)->waiting, call);
		start_round(bridge, ROUND_PULL | ROUND_PUSH);
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

		set_int(bridge, "subs_since", 0);
		set_int(bridge, "actions_since", 0);
		g_key_file_remove_key(groups(bridge), GROUP, "registered",
		                      NULL);
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
