/*
 * Chapters: reading them once per episode, keeping them, and the commands
 * that list and jump between them (see chapters.h).
 */
#include "listening/chapters.h"

#include "core/call.h"
#include "core/notes-cache.h"
#include "listening/tracker.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

struct BridgeChapterState {
	char *episode_id;          /* the episode MPD is on; NULL: none */
	FeedChapterList *chapters; /* its chapters; NULL while read */
	gint shown;                /* the jump point in MPD's song title;
	                              -1: none */
	guint boundary;            /* source of the next jump point's start */
	FeedFetcher *fetcher;      /* for JSON chapters; NULL until one */
	GHashTable *failed;        /* episode ids whose JSON fetch failed,
	                              said once */
};

static BridgeChapterState *
state_of(Bridge *bridge)
{
	if (bridge->chapters == NULL) {
		bridge->chapters = g_new0(BridgeChapterState, 1);
		bridge->chapters->shown = -1;
	}
	return bridge->chapters;
}

static void
follow(Bridge *bridge);

static char *
cache_path(const Bridge *bridge, const char *episode_id)
{
	g_autofree char *name = g_strconcat(episode_id, ".json", NULL);

	return g_build_filename(bridge->config->cache_directory, "chapters",
	                        name, NULL);
}

/* The merged list, kept: a JSON fetch is made once per episode. */
static void
keep(const Bridge *bridge, const char *episode_id, FeedChapterList *chapters)
{
	g_autofree char *path = cache_path(bridge, episode_id);
	g_autofree char *folder = g_path_get_dirname(path);
	g_autofree char *json = feed_chapter_list_to_json(chapters);
	g_autoptr(GError) error = NULL;

	if (g_mkdir_with_parents(folder, 0700) != 0 ||
	    !g_file_set_contents(path, json, -1, &error))
		g_warning("cannot keep the chapters in %s: %s", path,
		          error != NULL ? error->message : g_strerror(errno));
}

static FeedChapterList *
kept(const Bridge *bridge, const char *episode_id)
{
	g_autofree char *path = cache_path(bridge, episode_id);
	g_autofree char *data = NULL;
	gsize length;

	if (!g_file_get_contents(path, &data, &length, NULL))
		return NULL;
	return feed_chapter_list_new_from_json(data, length, NULL);
}

typedef struct {
	Bridge *bridge;
	char *episode_id;
	FeedChapterList *podlove;
	BridgeChaptersReady ready;
	gpointer user_data;
} Reading;

static void
reading_free(Reading *r)
{
	g_free(r->episode_id);
	g_clear_pointer(&r->podlove, feed_chapter_list_unref);
	g_free(r);
}

static void
on_fetched(FeedChapterList *json, const GError *error, gpointer data)
{
	Reading *r = data;
	BridgeChapterState *s = state_of(r->bridge);
	g_autoptr(FeedChapterList) merged = NULL;

	if (json != NULL) {
		merged = feed_chapter_list_merge(json, r->podlove);
		keep(r->bridge, r->episode_id, merged);
	} else {
		if (s->failed == NULL)
			s->failed = g_hash_table_new_full(
			        g_str_hash, g_str_equal, g_free, NULL);
		if (g_hash_table_add(s->failed, g_strdup(r->episode_id)))
			g_message("cannot read the chapters of an episode: %s",
			          error->message);
		merged = feed_chapter_list_ref(r->podlove);
	}
	r->ready(r->bridge, r->episode_id, merged, NULL, r->user_data);
	reading_free(r);
}

static gboolean
is_web(const char *url)
{
	return url != NULL && (g_ascii_strncasecmp(url, "http://", 7) == 0 ||
	                       g_ascii_strncasecmp(url, "https://", 8) == 0);
}

void
bridge_chapters_get(Bridge *bridge, const BridgeEpisode *episode,
                    BridgeChaptersReady ready, gpointer user_data)
{
	BridgeChapterState *s = state_of(bridge);
	const BridgeFeed *feed =
	        bridge_store_find_feed(bridge->store, episode->feed_id);
	g_autoptr(FeedChapterList) chapters = kept(bridge, episode->id);
	g_autoptr(FeedChannel) channel = NULL;
	g_autoptr(FeedEpisode) item = NULL;
	const char *url;
	Reading *r;

	if (chapters != NULL) {
		ready(bridge, episode->id, chapters, NULL, user_data);
		return;
	}
	if (feed != NULL)
		item = bridge_notes_cache_find(bridge, feed, episode->guid,
		                               &channel, NULL);
	r = g_new0(Reading, 1);
	r->bridge = bridge;
	r->episode_id = g_strdup(episode->id);
	r->ready = ready;
	r->user_data = user_data;
	r->podlove = item != NULL ? feed_chapter_list_new_from_episode(item)
	                          : feed_chapter_list_merge(NULL, NULL);
	url = item != NULL ? feed_episode_get_chapters_url(item) : NULL;
	if (!is_web(url) || feed->no_chapter_fetch ||
	    !bridge->config->fetch_chapters ||
	    (s->failed != NULL &&
	     g_hash_table_contains(s->failed, episode->id))) {
		ready(bridge, episode->id, r->podlove, NULL, user_data);
		reading_free(r);
		return;
	}
	if (s->fetcher == NULL)
		s->fetcher = feed_fetcher_new(NULL);
	feed_fetcher_fetch_chapters(s->fetcher, url, NULL, on_fetched, r);
}

FeedChapterList *
bridge_chapters_current(Bridge *bridge)
{
	BridgeChapterState *s = state_of(bridge);

	if (g_strcmp0(s->episode_id, bridge->tracking.episode_id) != 0)
		return NULL;
	return s->chapters;
}

static void
on_current(Bridge *bridge, const char *episode_id, FeedChapterList *chapters,
           const GError *error, gpointer data)
{
	BridgeChapterState *s = state_of(bridge);

	if (g_strcmp0(s->episode_id, episode_id) != 0 || chapters == NULL)
		return;
	g_clear_pointer(&s->chapters, feed_chapter_list_unref);
	s->chapters = feed_chapter_list_ref(chapters);
	if (feed_chapter_list_get_n_chapters(chapters) > 0)
		g_debug("%u chapters in what plays",
		        feed_chapter_list_get_n_chapters(chapters));
	follow(bridge);
	bridge_tell(bridge, BRIDGE_NEWS_CHAPTERS);
}

char *
bridge_chapters_song_title(Bridge *bridge, const BridgeEpisode *episode,
                           guint song_id)
{
	BridgeChapterState *s = state_of(bridge);
	const FeedChapter *c;

	if (!bridge->config->chapter_titles || s->chapters == NULL ||
	    s->shown < 0 || song_id != bridge->tracking.song_id ||
	    g_strcmp0(episode->id, s->episode_id) != 0 ||
	    bridge->tracking.state == BRIDGE_PLAYER_STOP)
		return NULL;
	c = feed_chapter_list_get_jump(s->chapters, (guint)s->shown);
	if (feed_chapter_get_title(c) == NULL)
		return NULL;
	return g_strdup_printf("%s · %s", episode->title,
	                       feed_chapter_get_title(c));
}

static gboolean
on_boundary(gpointer data)
{
	Bridge *bridge = data;

	state_of(bridge)->boundary = 0;
	follow(bridge);
	return G_SOURCE_REMOVE;
}

/*
 * Keeps the title of MPD's current song on the chapter that plays: retags
 * it when another starts, and arms a timer for the next start.
 */
static void
follow(Bridge *bridge)
{
	BridgeChapterState *s = state_of(bridge);
	const BridgeTracking *t = &bridge->tracking;
	gint64 at = bridge_tracker_position_ms(&bridge->tracking);
	gint now = -1;

	g_clear_handle_id(&s->boundary, g_source_remove);
	if (s->chapters != NULL && t->state != BRIDGE_PLAYER_STOP &&
	    g_strcmp0(s->episode_id, t->episode_id) == 0)
		now = feed_chapter_list_find_jump(s->chapters, at);
	if (now != s->shown) {
		s->shown = now;
		bridge_tell(bridge, BRIDGE_NEWS_CHAPTER);
	}
	if (now >= 0 && t->state == BRIDGE_PLAYER_PLAY &&
	    (guint)now + 1 < feed_chapter_list_get_n_jumps(s->chapters)) {
		gint64 next =
		        feed_chapter_get_start_ms(feed_chapter_list_get_jump(
		                s->chapters, (guint)now + 1));

		s->boundary = g_timeout_add(
		        (guint)CLAMP(bridge_tracker_wall_ms(t, next - at) + 50,
		                     0, G_MAXINT32),
		        on_boundary, bridge);
	}
}

void
bridge_chapters_on_player(Bridge *bridge)
{
	BridgeChapterState *s = state_of(bridge);
	const char *now = bridge->tracking.episode_id;
	const BridgeEpisode *episode;

	if (g_strcmp0(s->episode_id, now) == 0) {
		follow(bridge);
		return;
	}
	g_clear_handle_id(&s->boundary, g_source_remove);
	s->shown = -1;
	g_clear_pointer(&s->chapters, feed_chapter_list_unref);
	g_free(s->episode_id);
	s->episode_id = g_strdup(now);
	episode = now != NULL ? bridge_store_find_episode(bridge->store, now)
	                      : NULL;
	if (episode != NULL)
		bridge_chapters_get(bridge, episode, on_current, NULL);
}

void
bridge_chapters_clear(Bridge *bridge)
{
	BridgeChapterState *s = bridge->chapters;

	if (s == NULL)
		return;
	g_clear_handle_id(&s->boundary, g_source_remove);
	g_clear_pointer(&s->fetcher, feed_fetcher_free);
	g_clear_pointer(&s->chapters, feed_chapter_list_unref);
	g_clear_pointer(&s->failed, g_hash_table_unref);
	g_free(s->episode_id);
	g_free(s);
	bridge->chapters = NULL;
}

gboolean
bridge_chapters_set_feed(Bridge *bridge, BridgeFeed *feed, const char *value,
                         GError **error)
{
	if (g_ascii_strcasecmp(value, "yes") == 0)
		feed->no_chapter_fetch = FALSE;
	else if (g_ascii_strcasecmp(value, "no") == 0)
		feed->no_chapter_fetch = TRUE;
	else
		return bridge_command_fail(error, BRIDGE_COMMAND_ERROR_USAGE,
		                           "fetch-chapters is yes or no");
	return TRUE;
}
