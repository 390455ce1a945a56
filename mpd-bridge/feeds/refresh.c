/*
 * Refreshing subscriptions: one fetcher on the main loop, one timer for
 * whichever feed is due first, so the loop sleeps while nothing is due.
 */
#include "feeds/refresh.h"

#include "core/identity.h"
#include "core/notes-cache.h"
#include "listening/queue.h"
#include "playlists/push.h"

#include <string.h>

#define DAY            (24 * 60 * 60)
#define COMPLETE_EVERY (7 * DAY)

typedef struct {
	Bridge *bridge;
	char *feed_id;
	BridgeRefreshDone done;
	gpointer user_data;
	BridgeNotesWriter *notes; /* the body's copy; NULL: none */
} Refresh;

static gint64
now_seconds(void)
{
	return g_get_real_time() / G_USEC_PER_SEC;
}

/* How often a feed says it changes, from its rrule; 0 when it does not. */
static gint64
rrule_minutes(const char *rrule)
{
	static const struct {
		const char *freq;
		gint64 minutes;
	} periods[] = {
		{ "FREQ=HOURLY", 60 },
		{ "FREQ=DAILY", 24 * 60 },
		{ "FREQ=WEEKLY", 7 * 24 * 60 },
		{ "FREQ=MONTHLY", 30 * 24 * 60 },
		{ "FREQ=YEARLY", 365 * 24 * 60 },
	};
	g_autofree char *upper = NULL;
	const char *interval;
	gint64 every = 1;

	if (rrule == NULL)
		return 0;
	upper = g_ascii_strup(rrule, -1);
	interval = strstr(upper, "INTERVAL=");
	if (interval != NULL)
		every = MAX(g_ascii_strtoll(interval + 9, NULL, 10), 1);
	for (guint i = 0; i < G_N_ELEMENTS(periods); i++)
		if (strstr(upper, periods[i].freq) != NULL)
			return periods[i].minutes * every;
	return 0;
}

/*
 * Seconds until the next refresh: the configured interval, longer when
 * the feed asks for it (ttl, or a quarter of its stated update period, up
 * to a day), a week for a complete show; on failure the interval doubles
 * with each failure, up to a day. A tenth of jitter either way spreads
 * hundreds of feeds over time.
 */
static gint64
next_interval(const Bridge *bridge, const BridgeFeed *feed)
{
	gint64 seconds = (gint64)bridge->config->refresh_minutes * 60;
	double jitter = g_random_double_range(0.9, 1.1);

	if (feed->failures > 0) {
		guint shift = MIN(feed->failures - 1, 16u);

		return MIN(seconds << shift, (gint64)DAY) * jitter;
	}
	if (feed->complete)
		return COMPLETE_EVERY * jitter;
	seconds = MAX(seconds, MIN(feed->ttl * 60, (gint64)DAY));
	return seconds * jitter;
}

static void
queue_new(Bridge *bridge, BridgeEpisode *episode)
{
	g_autoptr(GError) error = NULL;

	if (!bridge_queue_episode(bridge, episode, &error))
		g_warning("cannot queue %s: %s", episode->title,
		          error->message);
	else
		g_message("queued the new episode %s", episode->title);
}

/*
 * Entries under guids the feed never used before may be episodes it
 * already had under another guid: those it leaves out this time. Each
 * that is takes its new guid and keeps its state.
 */
static void
adopt_new_guids(Bridge *bridge, BridgeFeed *feed, FeedPlaylist *all)
{
	g_autoptr(GPtrArray) candidates = NULL;
	g_autoptr(GHashTable) listed = g_hash_table_new(NULL, NULL);
	g_autoptr(GPtrArray) unknown = g_ptr_array_new();

	for (guint i = 0; i < feed_playlist_get_n_entries(all); i++) {
		const FeedPlaylistEntry *entry =
		        feed_playlist_get_entry(all, i);
		BridgeEpisode *episode = bridge_store_lookup_episode(
		        bridge->store, feed,
		        feed_playlist_entry_get_guid(entry));

		if (episode != NULL)
			g_hash_table_add(listed, episode);
		else
			g_ptr_array_add(unknown, (gpointer)entry);
	}
	if (unknown->len == 0)
		return;
	candidates = bridge_store_list_episodes(bridge->store, feed);
	for (guint i = candidates->len; i-- > 0;)
		if (g_hash_table_contains(listed, candidates->pdata[i]))
			g_ptr_array_remove_index(candidates, i);
	for (guint i = 0; i < unknown->len && candidates->len > 0; i++) {
		const FeedPlaylistEntry *entry = unknown->pdata[i];
		const char *guid = feed_playlist_entry_get_guid(entry);
		BridgeEpisode *episode =
		        bridge_identity_guess(bridge, candidates, entry);
		g_autofree char *old = NULL;

		if (episode == NULL)
			continue;
		old = g_strdup(episode->guid);
		if (!bridge_store_set_episode_guid(bridge->store, episode,
		                                   guid))
			continue;
		g_message("%s: %s is now guid %s (was %s); its state stays",
		          feed->url, episode->title, guid, old);
		g_ptr_array_remove(candidates, episode);
	}
}

/* What the feed left out is marked gone, since now. */
static void
note_gone(Bridge *bridge, BridgeFeed *feed, GHashTable *listed, gint64 now)
{
	g_autoptr(GPtrArray) episodes = NULL;

	/* A feed that suddenly lists nothing is more likely broken. */
	if (g_hash_table_size(listed) == 0)
		return;
	episodes = bridge_store_list_episodes(bridge->store, feed);
	for (guint i = 0; i < episodes->len; i++) {
		BridgeEpisode *episode = episodes->pdata[i];

		if (g_hash_table_contains(listed, episode))
			episode->gone = 0;
		else if (episode->gone == 0)
			episode->gone = now;
	}
}

/*
 * Episodes gone from the feed for longer than the retention are
 * forgotten, unless starred or on a list: the user chose to keep those.
 */
static void
forget_expired(Bridge *bridge, BridgeFeed *feed, gint64 now)
{
	g_autoptr(GPtrArray) episodes =
	        bridge_store_list_episodes(bridge->store, feed);
	gint64 keep = (gint64)bridge->config->retention_days * DAY;

	for (guint i = 0; i < episodes->len; i++) {
		BridgeEpisode *episode = episodes->pdata[i];
		g_autoptr(GDateTime) since = NULL;
		g_autofree char *day = NULL;

		if (episode->gone == 0 || now - episode->gone <= keep ||
		    episode->starred ||
		    bridge_store_is_listed(bridge->store, episode))
			continue;
		since = g_date_time_new_from_unix_utc(episode->gone);
		day = since != NULL ? g_date_time_format(since, "%Y-%m-%d")
		                    : NULL;
		g_message("%s: forgot %s, gone from the feed since %s",
		          feed->url, episode->title, day != NULL ? day : "?");
		bridge_store_remove_episode(bridge->store, episode);
	}
}

/* Keeps every episode that has a playable enclosure; TRUE if new ones. */
static gboolean
store_episodes(Bridge *bridge, BridgeFeed *feed, FeedChannel *channel,
               gboolean first)
{
	g_autoptr(FeedPlaylistOptions) options = feed_playlist_options_new();
	g_autoptr(FeedPlaylist) all = NULL;
	g_autoptr(GHashTable) listed = g_hash_table_new(NULL, NULL);
	gint64 now = now_seconds();
	gboolean any_new = FALSE;

	feed_playlist_options_set_media(options, FEED_MEDIA_ANY);
	all = feed_playlist_new(channel, options);
	if (!first)
		adopt_new_guids(bridge, feed, all);
	for (guint i = 0; i < feed_playlist_get_n_entries(all); i++) {
		const FeedPlaylistEntry *entry =
		        feed_playlist_get_entry(all, i);
		gboolean created = FALSE;
		BridgeEpisode *episode = bridge_store_get_episode(
		        bridge->store, feed,
		        feed_playlist_entry_get_guid(entry), &created);
		const char *author = feed_playlist_entry_get_artist(entry);

		g_hash_table_add(listed, episode);
		g_free(episode->url);
		episode->url = g_strdup(feed_playlist_entry_get_url(entry));
		g_free(episode->title);
		episode->title = g_strdup(feed_playlist_entry_get_title(entry));
		g_free(episode->author);
		episode->author = g_strdup(author);
		g_free(episode->type);
		episode->type =
		        g_strdup(feed_playlist_entry_get_mime_type(entry));
		episode->published = feed_playlist_entry_get_date(entry);
		episode->duration = feed_playlist_entry_get_duration(entry);
		episode->number = feed_playlist_entry_get_number(entry);
		if (!created)
			continue;
		any_new = TRUE;
		episode->first_seen = now;
		/* A new subscription's back catalogue is not news. */
		if (!first && feed->auto_queue)
			queue_new(bridge, episode);
	}
	note_gone(bridge, feed, listed, now);
	return any_new;
}

/*
 * A playlist is named after its feed's title, unless the user named the
 * feed: when the name changes, the playlist under the old one goes (the
 * new one is pushed with the episodes), as `set FEED name` does.
 */
static void
retitle(Bridge *bridge, BridgeFeed *feed, const char *title)
{
	BridgeFeed before = *feed;
	g_autofree char *old_name = bridge_push_playlist_name(bridge, feed);
	g_autofree char *new_name = NULL;

	feed->title = g_strdup(title);
	new_name = bridge_push_playlist_name(bridge, feed);
	if (feed->pushed != NULL && strcmp(old_name, new_name) != 0)
		bridge_push_remove(bridge, &before);
	g_free(before.title);
}

static void
take_channel(Bridge *bridge, BridgeFeed *feed, FeedChannel *channel,
             gboolean first)
{
	const char *title = feed_channel_get_title(channel);

	if (title != NULL && *title != '\0' &&
	    g_strcmp0(feed->title, title) != 0)
		retitle(bridge, feed, title);
	feed->serial =
	        feed_channel_get_show_type(channel) == FEED_SHOW_TYPE_SERIAL;
	feed->complete = feed_channel_is_complete(channel);
	feed->ttl =
	        MAX(feed_channel_get_ttl(channel),
	            rrule_minutes(feed_channel_get_update_rrule(channel)) / 4);
	store_episodes(bridge, feed, channel, first);
	bridge_store_feed_changed(bridge->store, feed);
}

static void
replace(char **field, const char *value)
{
	g_free(*field);
	*field = g_strdup(value);
}

/*
 * A permanent redirect or itunes:new-feed-url moves the subscription;
 * TRUE if it moved.
 */
static gboolean
follow_move(Bridge *bridge, BridgeFeed *feed, const FeedFetchResult *result)
{
	const char *moved =
	        feed_fetch_result_is_moved(result)
	                ? feed_fetch_result_get_final_url(result)
	                : feed_fetch_result_get_discovered_url(result);
	const char *new_url = feed_fetch_result_get_new_feed_url(result);
	const char *target =
	        new_url != NULL && (g_str_has_prefix(new_url, "http://") ||
	                            g_str_has_prefix(new_url, "https://"))
	                ? new_url
	                : moved;

	if (target == NULL || strcmp(target, feed->url) == 0 ||
	    bridge_store_find_feed(bridge->store, target) != NULL)
		return FALSE;
	g_message("%s moved to %s", feed->url, target);
	bridge_store_move_feed(bridge->store, feed, target);
	bridge_tell_feed(bridge, BRIDGE_NEWS_FEED_MOVED, feed);
	/* The validators belong to the old address. */
	g_clear_pointer(&feed->etag, g_free);
	g_clear_pointer(&feed->last_modified, g_free);
	return TRUE;
}

static const char *
outcome(const FeedFetchResult *result)
{
	switch (feed_fetch_result_get_status(result)) {
	case FEED_FETCH_UPDATED:
		return "updated";
	case FEED_FETCH_NOT_MODIFIED:
		return "not modified";
	case FEED_FETCH_UNCHANGED:
		return "unchanged";
	}
	return "?";
}

static void
on_fetched(FeedFetchResult *result, const GError *error, gpointer data)
{
	Refresh *refresh = data;
	Bridge *bridge = refresh->bridge;
	BridgeFeed *feed =
	        bridge_store_find_feed(bridge->store, refresh->feed_id);
	gint64 now = now_seconds();

	bridge->fetching--;
	bridge_notes_writer_end(refresh->notes, feed != NULL ? result : NULL,
	                        error);
	/* Unsubscribed while it was being fetched, or shutting down. */
	if (feed == NULL ||
	    g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
		goto out;
	if (error != NULL) {
		feed->failures++;
		replace(&feed->last_error, error->message);
		feed->gone =
		        g_error_matches(error, FEED_ERROR, FEED_ERROR_GONE);
		/* One that someone waits for is theirs to report. */
		g_log_structured(G_LOG_DOMAIN,
		                 refresh->done != NULL ? G_LOG_LEVEL_MESSAGE
		                                       : G_LOG_LEVEL_WARNING,
		                 "FEED_URL", feed->url, "MESSAGE", "%s%s",
		                 error->message,
		                 feed->gone ? " (no more refreshes)" : "");
	} else {
		gboolean first = feed->last_refresh == 0;
		FeedChannel *channel = feed_fetch_result_get_channel(result);

		feed->failures = 0;
		g_clear_pointer(&feed->last_error, g_free);
		feed->last_refresh = now;
		replace(&feed->etag, feed_fetch_result_get_etag(result));
		replace(&feed->last_modified,
		        feed_fetch_result_get_last_modified(result));
		replace(&feed->content_hash,
		        feed_fetch_result_get_content_hash(result));
		if (channel != NULL)
			take_channel(bridge, feed, channel, first);
		forget_expired(bridge, feed, now);
		if (follow_move(bridge, feed, result) || channel != NULL) {
			bridge_push_feed(bridge, feed, FALSE);
			/*
			 * New, Starred and the lists draw on every feed:
			 * pushing them after each of 1,000 feeds refreshed at
			 * once sorted every episode 1,000 times, for minutes.
			 * Forgetting what New was marks them stale; they are
			 * pushed once, when no refresh is under way.
			 */
			g_clear_pointer(&bridge->new_pushed, g_free);
		}
	}
	feed->next_refresh = now + next_interval(bridge, feed);
	bridge_changed(bridge);
	if (bridge->fetching == 0 && bridge->new_pushed == NULL)
		bridge_push_all(bridge, FALSE);
	bridge_tell_feed(bridge, BRIDGE_NEWS_REFRESHED, feed);
out:
	/* "0 under way" tells a test that a refresh of many feeds is over. */
	g_debug("refreshed %s: %s; %u under way",
	        feed != NULL ? feed->url : refresh->feed_id,
	        error != NULL ? error->message : outcome(result),
	        bridge->fetching);
	/* Last: a subscription that failed its first fetch goes here. */
	if (refresh->done != NULL)
		refresh->done(bridge, feed, error == NULL ? result : NULL,
		              error, refresh->user_data);
	bridge_refresh_schedule(bridge);
	g_free(refresh->feed_id);
	g_free(refresh);
}

void
bridge_refresh_feed(Bridge *bridge, BridgeFeed *feed, BridgeRefreshDone done,
                    gpointer user_data)
{
	g_autoptr(FeedFetchRequest) request = feed_fetch_request_new(feed->url);
	Refresh *refresh = g_new0(Refresh, 1);

	if (bridge->fetcher == NULL) {
		bridge->fetcher = feed_fetcher_new(NULL);
		guint total = bridge->config->fetch_timeout;

		feed_fetcher_set_max_transfers(bridge->fetcher,
		                               bridge->config->jobs);
		feed_fetcher_set_timeouts(bridge->fetcher, MIN(total, 15u),
		                          total, MIN(total, 30u));
	}
	refresh->bridge = bridge;
	refresh->feed_id = g_strdup(feed->id);
	refresh->done = done;
	refresh->user_data = user_data;
	refresh->notes = bridge_notes_writer_new(bridge, feed->id);
	/*
	 * With no notes kept yet (a cache deleted), or the episodes only
	 * the feed's cache held lost, the whole body again.
	 */
	if ((refresh->notes == NULL ||
	     bridge_notes_cache_exists(bridge, feed->id)) &&
	    !bridge_store_feed_cache_lost(bridge->store, feed)) {
		feed_fetch_request_set_validators(request, feed->etag,
		                                  feed->last_modified);
		feed_fetch_request_set_content_hash(request,
		                                    feed->content_hash);
	}
	if (refresh->notes != NULL)
		feed_fetch_request_set_body_stream(
		        request,
		        bridge_notes_writer_get_stream(refresh->notes));
	/* Not due again while it is being fetched. */
	feed->next_refresh = G_MAXINT64;
	bridge->fetching++;
	feed_fetcher_fetch(bridge->fetcher, request, NULL, on_fetched, refresh);
}

static gboolean
on_due(gpointer data)
{
	Bridge *bridge = data;
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);
	gint64 now = now_seconds();

	bridge->refresh_timer = 0;
	for (guint i = 0; i < feeds->len; i++) {
		BridgeFeed *feed = feeds->pdata[i];

		if (!feed->gone && feed->next_refresh <= now)
			bridge_refresh_feed(bridge, feed, NULL, NULL);
	}
	bridge_refresh_schedule(bridge);
	return G_SOURCE_REMOVE;
}

void
bridge_refresh_schedule(Bridge *bridge)
{
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);
	gint64 due = G_MAXINT64;
	gint64 now = now_seconds();

	g_clear_handle_id(&bridge->refresh_timer, g_source_remove);
	if (!bridge->daemon)
		return;
	for (guint i = 0; i < feeds->len; i++) {
		const BridgeFeed *feed = feeds->pdata[i];

		if (!feed->gone)
			due = MIN(due, feed->next_refresh);
	}
	if (due == G_MAXINT64)
		return;
	bridge->refresh_timer = g_timeout_add_seconds(
	        (guint)CLAMP(due - now, 0, (gint64)G_MAXUINT32), on_due,
	        bridge);
}
