/*
 * Titles in MPD's queue. MPD says that its queue changed, not how; its
 * queue version and plchanges name the songs that changed since a
 * version, so each look costs what changed, not the queue's length.
 */
#include "listening/queue.h"

#include "core/episode-tags.h"
#include "core/identity.h"
#include "core/relay-url.h"
#include "downloads/downloads.h"
#include "listening/chapters.h"
#include "playlists/playlist-files.h"
#include "relay/relay.h"

#include <string.h>

struct BridgeQueueTitles {
	guint version;         /* MPD's queue version at the last scan; 0:
	                          none yet, every song is looked at */
	GHashTable *retagged;  /* song id -> times in a row it was tagged,
	                          of those tagged in the last scan; NULL */
	GHashTable *settled;   /* song id -> tags key that MPD kept after we
	                          tagged the song: MPD's way of storing ours,
	                          never fought over; NULL when none */
	GHashTable *strangers; /* URLs of queued streams that are no
	                          episode, as of changes number
	                          strangers_changes; NULL when none */
	guint64 strangers_changes;
	guint follow; /* source of a due swap of songs a client
	                 added to the relay's URLs; 0: none */
};

static BridgeQueueTitles *
titles_of(Bridge *bridge)
{
	if (bridge->queue_titles == NULL)
		bridge->queue_titles = g_new0(BridgeQueueTitles, 1);
	return bridge->queue_titles;
}

static gboolean
is_stream(const char *uri)
{
	return g_ascii_strncasecmp(uri, "http://", 7) == 0 ||
	       g_ascii_strncasecmp(uri, "https://", 8) == 0;
}

/*
 * Whether a queued song at @from is one to move to @to: a file or the
 * relay's URL on either side. Two URLs of a host (one behind a
 * measurement prefix) are left as the listener queued them.
 */
static gboolean
is_ours(const char *from, const char *to)
{
	g_autofree char *relayed_from = bridge_relay_url_episode(from, FALSE);
	g_autofree char *relayed_to = bridge_relay_url_episode(to, FALSE);

	return bridge_downloads_is_file(from) || bridge_downloads_is_file(to) ||
	       relayed_from != NULL || relayed_to != NULL;
}

/*
 * A radio stream changes its tags with every song it plays, and each
 * change is a look at the queue: knowing it is no episode spares a scan
 * of every episode's URL each time, until the state changes.
 */
static gboolean
is_stranger(Bridge *bridge, const char *uri)
{
	BridgeQueueTitles *q = titles_of(bridge);

	if (q->strangers != NULL && q->strangers_changes != bridge->changes)
		g_hash_table_remove_all(q->strangers);
	q->strangers_changes = bridge->changes;
	return q->strangers != NULL && g_hash_table_contains(q->strangers, uri);
}

static void
add_stranger(Bridge *bridge, const char *uri)
{
	BridgeQueueTitles *q = titles_of(bridge);

	if (q->strangers == NULL)
		q->strangers = g_hash_table_new_full(g_str_hash, g_str_equal,
		                                     g_free, NULL);
	g_hash_table_add(q->strangers, g_strdup(uri));
}

/* The songs to tag, and the tags and strings they need. */
typedef struct {
	GArray *ids;      /* guint */
	GArray *tags;     /* BridgeTags, borrowing from episodes and owned */
	GPtrArray *owned; /* dates and track numbers */
} Retag;

static void
retag_clear(Retag *retag)
{
	g_array_unref(retag->ids);
	g_array_unref(retag->tags);
	g_ptr_array_unref(retag->owned);
}

/*
 * Tagging a song that still differs at the next look, this many times in
 * a row: the file's own tags can land between our tagging and that look
 * (a client that loads and plays at once), but once, not every time.
 */
#define MAX_RETAGS 3

/*
 * How many times in a row @song was tagged when it needs our tags now (1
 * when it was not), or 0 when it does not. One that still differs after
 * MAX_RETAGS is how MPD keeps what we send: it is settled, never fought
 * over, for that way lies a loop of our own events.
 */
static guint
needs_tags(BridgeQueueTitles *q, const BridgeQueueSong *song,
           const BridgeTags *tags)
{
	gpointer id = GUINT_TO_POINTER(song->id);
	g_autofree char *want = bridge_mpd_tags_key(tags);
	const char *settled;
	guint times;

	if (strcmp(want, song->tags_key) == 0) {
		if (q->settled != NULL)
			g_hash_table_remove(q->settled, id);
		return 0;
	}
	settled =
	        q->settled != NULL ? g_hash_table_lookup(q->settled, id) : NULL;
	if (settled != NULL && strcmp(settled, song->tags_key) == 0)
		return 0;
	times = q->retagged != NULL
	                ? GPOINTER_TO_UINT(g_hash_table_lookup(q->retagged, id))
	                : 0;
	if (times >= MAX_RETAGS) {
		if (q->settled == NULL)
			q->settled =
			        g_hash_table_new_full(NULL, NULL, NULL, g_free);
		g_hash_table_insert(q->settled, id, g_strdup(song->tags_key));
		g_debug("MPD keeps the tags of song %u otherwise than set",
		        song->id);
		return 0;
	}
	return times + 1;
}

/* How long a song a client added keeps its host's URL. */
#define FOLLOW_DELAY_MS 300

static gboolean
on_follow(gpointer data)
{
	Bridge *bridge = data;

	titles_of(bridge)->follow = 0;
	bridge_queue_follow_files(bridge);
	/* A resume that is due moves it where it seeks to. */
	if (bridge->tracking.resume_timer == 0)
		bridge_queue_move_playing(bridge, TRUE);
	return G_SOURCE_REMOVE;
}

void
bridge_queue_on_change(Bridge *bridge)
{
	BridgeQueueTitles *q = titles_of(bridge);
	g_autoptr(GPtrArray) songs = NULL;
	g_autoptr(GHashTable) index = NULL;
	g_autoptr(GError) error = NULL;
	GHashTable *retagged;
	guint version;
	gboolean relaying = bridge_relay_is_on(bridge);
	gboolean follow = FALSE;
	Retag retag = {
		g_array_new(FALSE, FALSE, sizeof(guint)),
		g_array_new(FALSE, FALSE, sizeof(BridgeTags)),
		g_ptr_array_new_with_free_func(g_free),
	};

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd))
		goto out;
	/* A look that fails leaves the version: the next one sees it all. */
	if (!bridge_mpd_queue_changes(bridge->mpd, q->version, &version, &songs,
	                              &error)) {
		g_message("cannot look at MPD's queue: %s", error->message);
		goto out;
	}
	q->version = version;
	retagged = g_hash_table_new(NULL, NULL);
	for (guint i = 0; i < songs->len; i++) {
		const BridgeQueueSong *song = songs->pdata[i];
		const BridgeEpisode *episode;
		BridgeTags tags;
		char *date, *track, *title;
		guint times;

		if (!is_stream(song->uri) || is_stranger(bridge, song->uri))
			continue;
		episode =
		        bridge_identity_find_indexed(bridge, &index, song->uri);
		if (episode == NULL) {
			add_stranger(bridge, song->uri);
			continue;
		}
		/* `mpc add` of a host's URL: the relay's takes its place. */
		if (relaying && !follow) {
			g_autofree char *uri =
			        bridge_downloads_uri(bridge, episode);

			follow = strcmp(uri, song->uri) != 0 &&
			         is_ours(song->uri, uri);
		}
		bridge_episode_tags(bridge, episode, &tags, &date, &track);
		title = bridge_chapters_song_title(bridge, episode, song->id);
		if (title != NULL) {
			tags.title = title;
			g_ptr_array_add(retag.owned, title);
		}
		if (date != NULL)
			g_ptr_array_add(retag.owned, date);
		if (track != NULL)
			g_ptr_array_add(retag.owned, track);
		times = needs_tags(q, song, &tags);
		if (times == 0)
			continue;
		g_array_append_val(retag.ids, song->id);
		g_array_append_val(retag.tags, tags);
		g_hash_table_insert(retagged, GUINT_TO_POINTER(song->id),
		                    GUINT_TO_POINTER(times));
	}
	g_clear_pointer(&q->retagged, g_hash_table_unref);
	q->retagged = retagged;
	if (retag.ids->len == 0)
		goto out;
	if (!bridge_mpd_retag_many(bridge->mpd, (guint *)retag.ids->data,
	                           (BridgeTags *)retag.tags->data,
	                           retag.ids->len, &error))
		g_message("cannot title episodes in MPD's queue: %s",
		          error->message);
	else
		g_debug("titled %u episodes in MPD's queue", retag.ids->len);
out:
	retag_clear(&retag);
	/*
	 * A moment later: a client that adds a song and plays it by its id
	 * (addid, then playid) finds it, and what it then plays is moved.
	 */
	if (follow && q->follow == 0)
		q->follow = g_timeout_add(FOLLOW_DELAY_MS, on_follow, bridge);
}

void
bridge_queue_reset(Bridge *bridge)
{
	BridgeQueueTitles *q = titles_of(bridge);

	q->version = 0;
	g_clear_pointer(&q->retagged, g_hash_table_unref);
	g_clear_pointer(&q->settled, g_hash_table_unref);
}

void
bridge_queue_clear(Bridge *bridge)
{
	if (bridge->queue_titles == NULL)
		return;
	g_clear_handle_id(&bridge->queue_titles->follow, g_source_remove);
	bridge_queue_reset(bridge);
	g_clear_pointer(&bridge->queue_titles->strangers, g_hash_table_unref);
	g_clear_pointer(&bridge->queue_titles, g_free);
}

gboolean
bridge_queue_episode(Bridge *bridge, const BridgeEpisode *episode,
                     GError **error)
{
	g_autofree char *uri = bridge_downloads_uri(bridge, episode);
	g_autofree char *date = NULL;
	g_autofree char *track = NULL;
	BridgeTags tags;

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
		            "MPD is not connected");
		return FALSE;
	}
	/* A one-entry playlist carries the duration; the look tags it. */
	if (bridge_playlist_files_enabled(bridge) && episode->duration > 0 &&
	    !bridge_downloads_is_file(uri) &&
	    bridge_playlist_files_fits(bridge, episode)) {
		if (!bridge_playlist_files_load_one(bridge, episode, error))
			return FALSE;
		bridge_queue_on_change(bridge);
		return TRUE;
	}
	/* A file has tags of its own, which MPD keeps. */
	if (bridge_downloads_is_file(uri))
		return bridge_mpd_queue(bridge->mpd, uri, NULL, error) != 0;
	bridge_episode_tags(bridge, episode, &tags, &date, &track);
	return bridge_mpd_queue(bridge->mpd, uri, &tags, error) != 0;
}

void
bridge_queue_retitle(Bridge *bridge, guint song_id)
{
	g_auto(BridgePlayerStatus) status = { 0 };
	g_autoptr(GError) error = NULL;
	g_autofree char *date = NULL;
	g_autofree char *track = NULL;
	g_autofree char *title = NULL;
	const BridgeEpisode *episode;
	BridgeTags tags;

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd) ||
	    !bridge_mpd_player_status(bridge->mpd, &status, NULL) ||
	    status.song_id != song_id || status.uri == NULL ||
	    !is_stream(status.uri))
		return;
	episode = bridge_identity_find_by_url(bridge, status.uri);
	if (episode == NULL)
		return;
	bridge_episode_tags(bridge, episode, &tags, &date, &track);
	title = bridge_chapters_song_title(bridge, episode, song_id);
	if (title != NULL)
		tags.title = title;
	if (!bridge_mpd_retag(bridge->mpd, song_id, &tags, &error))
		g_message("cannot title the song that plays: %s",
		          error->message);
}

/* Starts that soon are moved without a jump a listener would hear. */
#define JUST_STARTED_MS 1500

/*
 * The song that @status says MPD plays or holds paused, moved to where
 * bridge_downloads_uri() says its episode plays from, at @ms; its new
 * id, or 0 when it is not an episode, or plays from there already.
 */
static guint
move(Bridge *bridge, const BridgePlayerStatus *status, gint64 ms)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *uri = NULL;
	g_autofree char *date = NULL;
	g_autofree char *track = NULL;
	const BridgeEpisode *episode;
	BridgeTags tags;
	guint id;

	if (status->state == BRIDGE_PLAYER_STOP || status->uri == NULL ||
	    !is_stream(status->uri))
		return 0;
	episode = bridge_identity_find_by_url(bridge, status->uri);
	if (episode == NULL)
		return 0;
	uri = bridge_downloads_uri(bridge, episode);
	if (strcmp(uri, status->uri) == 0 || !is_ours(status->uri, uri))
		return 0;
	bridge_episode_tags(bridge, episode, &tags, &date, &track);
	id = bridge_mpd_swap_current(bridge->mpd, status->song_id, status->pos,
	                             uri, is_stream(uri) ? &tags : NULL, ms,
	                             status->state == BRIDGE_PLAYER_PAUSE,
	                             &error);
	if (id == 0)
		g_message("cannot move %s to %s: %s", episode->title, uri,
		          error->message);
	else
		g_message("%s now plays from %s", episode->title, uri);
	return id;
}

guint
bridge_queue_move_playing_at(Bridge *bridge, gint64 ms)
{
	g_auto(BridgePlayerStatus) status = { 0 };
	g_autoptr(GError) error = NULL;

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd) ||
	    !bridge_mpd_player_status(bridge->mpd, &status, &error))
		return 0;
	return move(bridge, &status, ms);
}

void
bridge_queue_move_playing(Bridge *bridge, gboolean just_started)
{
	g_auto(BridgePlayerStatus) status = { 0 };
	g_autoptr(GError) error = NULL;

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd) ||
	    !bridge_mpd_player_status(bridge->mpd, &status, &error) ||
	    (just_started && (status.state != BRIDGE_PLAYER_PLAY ||
	                      status.elapsed_ms > JUST_STARTED_MS)))
		return;
	move(bridge, &status, status.elapsed_ms);
}

void
bridge_queue_follow_files(Bridge *bridge)
{
	g_autoptr(GPtrArray) songs = NULL;
	g_autoptr(GError) error = NULL;
	g_auto(BridgePlayerStatus) status = { 0 };
	guint version, swapped = 0;

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd) ||
	    !bridge_mpd_player_status(bridge->mpd, &status, &error) ||
	    !bridge_mpd_queue_changes(bridge->mpd, 0, &version, &songs,
	                              &error)) {
		if (error != NULL)
			g_message("cannot look at MPD's queue: %s",
			          error->message);
		return;
	}
	for (guint i = 0; i < songs->len; i++) {
		const BridgeQueueSong *song = songs->pdata[i];
		const BridgeEpisode *episode;
		g_autofree char *uri = NULL;
		g_autofree char *date = NULL;
		g_autofree char *track = NULL;
		BridgeTags tags;

		/* What plays is left alone: it would start again. */
		if (song->id == status.song_id &&
		    status.state != BRIDGE_PLAYER_STOP)
			continue;
		if (is_stream(song->uri) && is_stranger(bridge, song->uri))
			continue;
		episode = bridge_identity_find_by_url(bridge, song->uri);
		if (episode == NULL)
			continue;
		uri = bridge_downloads_uri(bridge, episode);
		if (strcmp(uri, song->uri) == 0 || !is_ours(song->uri, uri))
			continue;
		bridge_episode_tags(bridge, episode, &tags, &date, &track);
		if (bridge_mpd_replace_song(bridge->mpd, song->id, song->pos,
		                            uri, is_stream(uri) ? &tags : NULL,
		                            &error) == 0) {
			g_message("cannot put %s in the queue: %s", uri,
			          error->message);
			g_clear_error(&error);
			continue;
		}
		swapped++;
	}
	if (swapped > 0)
		g_message("%u queued episodes now play from %s", swapped,
		          swapped == 1 ? "their file or stream"
		                       : "their files or streams");
}
