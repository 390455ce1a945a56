/*
 * A round with the server, one at a time: a pull, a push, or both. It is
 * prepared on the main loop from the state, sent by gpodder.c in a worker
 * thread on a copy of the settings, and its answers are applied on the
 * main loop again; a failed round is tried again later, backing off.
 */
#include "phone/phone-sync-private.h"

#define OVERLAP      (24 * 60 * 60) /* asked again: late uploads */
#define STOP_TIMEOUT 10             /* seconds for the last push */
#define MAX_BACKOFF  (6 * 60 * 60)

/* What one round sends, and what it got back. */
typedef struct {
	BridgeGpodderSettings *settings;
	BridgePhoneSyncKind kind;
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
	g_auto(GStrv) gone = bridge_phone_sync_dup_removed(bridge);

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
	for (guint i = 0;
	     bridge_phone_sync_clock_trusted(bridge) && i < episodes->len;
	     i++) {
		BridgeEpisode *episode = episodes->pdata[i];
		BridgeGpodderAction *action;

		if (!episode->sync_unsent)
			continue;
		/* Changed while the clock could not say when: now, then. */
		if (episode->sync_changed == 0)
			episode->sync_changed = bridge_phone_sync_now();
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
	if (round->kind & BRIDGE_PHONE_SYNC_PUSH) {
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
	if (round->kind & BRIDGE_PHONE_SYNC_PULL) {
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

/* After a push: what the server took is sent no more. */
static void
pushed(Bridge *bridge, Round *round)
{
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);
	g_auto(GStrv) gone = bridge_phone_sync_dup_removed(bridge);
	g_autoptr(GPtrArray) still = g_ptr_array_new();
	GHashTableIter iter;
	gpointer key, value;

	for (guint i = 0; gone[i] != NULL; i++)
		if (!g_ptr_array_find_with_equal_func(round->remove, gone[i],
		                                      g_str_equal, NULL))
			g_ptr_array_add(still, gone[i]);
	bridge_phone_sync_set_removed(bridge, still);
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
		bridge_changed(bridge);
	}
	bridge_phone_sync_get(bridge)->pushed_changes =
	        round->add->len + round->remove->len + round->actions->len;
	bridge_phone_sync_set_int(bridge, "last_push", bridge_phone_sync_now());
}

static gboolean
on_retry(gpointer data)
{
	Bridge *bridge = data;

	bridge_phone_sync_get(bridge)->retry_timer = 0;
	bridge_phone_sync_start_round(bridge, BRIDGE_PHONE_SYNC_PULL |
	                                              BRIDGE_PHONE_SYNC_PUSH);
	return G_SOURCE_REMOVE;
}

static void
on_round(GObject *source, GAsyncResult *result, gpointer data)
{
	Bridge *bridge = data;
	struct BridgePhoneSync *s = bridge_phone_sync_get(bridge);
	Round *round = g_task_get_task_data(G_TASK(result));
	g_autoptr(GPtrArray) calls = g_steal_pointer(&s->answering);
	BridgePhoneSyncKind again = s->again;

	s->busy = FALSE;
	s->again = 0;
	if (round->error != NULL) {
		guint delay =
		        MIN(60u << MIN(s->failures, 10u), (guint)MAX_BACKOFF);

		s->failures++;
		bridge_phone_sync_set_last_error(bridge, round->error->message);
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
		bridge_phone_sync_set_last_error(bridge, NULL);
		if (round->register_device)
			bridge_phone_sync_set_registered(bridge, TRUE);
		if (round->kind & BRIDGE_PHONE_SYNC_PUSH)
			pushed(bridge, round);
		if (round->kind & BRIDGE_PHONE_SYNC_PULL)
			bridge_phone_sync_pulled(bridge, round->subscriptions,
			                         round->pulled,
			                         round->new_actions_since);
	}
	/*
	 * What a round did to episodes and feeds was noted as it did it.
	 * What is left is its bookkeeping (what was uploaded, the server's
	 * stamp, the last error): lost to a crash, it is done again, and
	 * it is not worth a whole save after every checkpoint's upload.
	 */
	bridge_changed_later(bridge);
	bridge_phone_sync_answer_calls(bridge, calls, round->error);
	/* What was asked while this round was out. */
	if (again != 0 || s->waiting->len > 0)
		bridge_phone_sync_start_round(
		        bridge,
		        again | (s->waiting->len > 0
		                         ? BRIDGE_PHONE_SYNC_PULL |
		                                   BRIDGE_PHONE_SYNC_PUSH
		                         : 0));
}

void
bridge_phone_sync_start_round(Bridge *bridge, BridgePhoneSyncKind kind)
{
	struct BridgePhoneSync *s = bridge_phone_sync_get(bridge);
	g_autofree char *why = bridge_phone_sync_dup_why_not(bridge);
	g_autoptr(GTask) task = NULL;
	Round *round;

	if (why != NULL) {
		g_autoptr(GError) error = g_error_new_literal(
		        BRIDGE_COMMAND_ERROR, BRIDGE_COMMAND_ERROR_FAILED, why);
		g_autoptr(GPtrArray) calls = g_steal_pointer(&s->waiting);

		s->waiting = g_ptr_array_new();
		g_debug("no sync: %s", why);
		bridge_phone_sync_answer_calls(bridge, calls, error);
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
	round->register_device = !bridge_phone_sync_is_registered(bridge);
	prepare_push(bridge, round);
	if (!(kind & BRIDGE_PHONE_SYNC_PUSH)) {
		g_ptr_array_set_size(round->add, 0);
		g_ptr_array_set_size(round->remove, 0);
		g_ptr_array_set_size(round->actions, 0);
		g_hash_table_remove_all(round->stamps);
	}
	round->subs_since = bridge_phone_sync_get_int(bridge, "subs_since");
	round->actions_since =
	        bridge_phone_sync_get_int(bridge, "actions_since");
	s->busy = TRUE;
	s->answering = g_steal_pointer(&s->waiting);
	s->waiting = g_ptr_array_new();
	task = g_task_new(NULL, NULL, on_round, bridge);
	g_task_set_task_data(task, round, (GDestroyNotify)round_free);
	g_task_run_in_thread(task, send_round);
}
