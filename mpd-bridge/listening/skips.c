/*
 * Skipping intros, outros and chapters (see skips.h). One timer, armed at
 * each player event for the next place playback would cross into
 * something skipped; when it fires, MPD is asked where it is, and only a
 * crossing made by playing, not by a seek, is skipped.
 */
#include "listening/skips.h"

#include "core/call.h"
#include "listening/chapters.h"
#include "listening/tracker.h"
#include "playlists/lists.h"

#include <string.h>

struct BridgeSkips {
	guint timer;              /* the next crossing into a skip; 0 */
	guint last_song;          /* MPD's song at the last look; 0 */
	gint64 last_pos;          /* milliseconds into it then */
	gint64 last_at;           /* monotonic microseconds then */
	gboolean own_seek;        /* the next move is a skip of ours */
	gboolean listener_jumped; /* the next move is a listener's jump */
	GHashTable *logged;       /* "EPISODE-ID WHAT" of skips said */
};

static BridgeSkips *
skips_of(Bridge *bridge)
{
	if (bridge->skips == NULL)
		bridge->skips = g_new0(BridgeSkips, 1);
	return bridge->skips;
}

/* A position this close after a start counts as having crossed it. */
#define CROSSED_MS 1500
/* Further than this from where playing would have got: a seek. */
#define SEEK_MS 2000
/* Episodes this close to their start have not been resumed. */
#define AT_START_MS    2000
#define RESUME_FROM_MS 10000

static gint64
now_us(void)
{
	return g_get_monotonic_time();
}

static gboolean
fail(GError **error, const char *message)
{
	g_set_error_literal(error, BRIDGE_COMMAND_ERROR,
	                    BRIDGE_COMMAND_ERROR_USAGE, message);
	return FALSE;
}

gboolean
bridge_skips_set_feed(BridgeFeed *feed, const char *key, const char *value,
                      gboolean *known, GError **error)
{
	guint64 seconds;

	*known = TRUE;
	if (strcmp(key, "skip-chapters") == 0) {
		g_autoptr(GRegex) regex = NULL;

		if (*value != '\0') {
			regex = g_regex_new(value, G_REGEX_CASELESS, 0, error);
			if (regex == NULL)
				return FALSE;
		}
		g_free(feed->skip_chapters);
		feed->skip_chapters = *value != '\0' ? g_strdup(value) : NULL;
		return TRUE;
	}
	if (strcmp(key, "skip-intro") != 0 && strcmp(key, "skip-outro") != 0) {
		*known = FALSE;
		return FALSE;
	}
	if (!g_ascii_string_to_unsigned(value, 10, 0, 3600, &seconds, NULL))
		return fail(error, "skip-intro and skip-outro are seconds, "
		                   "from 0 (none) to 3600");
	if (strcmp(key, "skip-intro") == 0)
		feed->skip_intro = (gint64)seconds;
	else
		feed->skip_outro = (gint64)seconds;
	return TRUE;
}

/* Says a skip once an episode. */
static void
log_once(Bridge *bridge, const BridgeEpisode *episode, const char *what,
         const char *format, ...) G_GNUC_PRINTF(4, 5);

static void
log_once(Bridge *bridge, const BridgeEpisode *episode, const char *what,
         const char *format, ...)
{
	BridgeSkips *s = skips_of(bridge);
	g_autofree char *key = g_strconcat(episode->id, " ", what, NULL);
	g_autofree char *text = NULL;
	va_list args;

	if (s->logged == NULL)
		s->logged = g_hash_table_new_full(g_str_hash, g_str_equal,
		                                  g_free, NULL);
	if (!g_hash_table_add(s->logged, g_steal_pointer(&key)))
		return;
	va_start(args, format);
	text = g_strdup_vprintf(format, args);
	va_end(args);
	g_message("%s", text);
}

static gint64
duration_ms(const BridgeTracking *t, const BridgeEpisode *episode)
{
	return t->duration_ms > 0 ? t->duration_ms : episode->duration * 1000;
}

/*
 * Where chapter @i ends: its own end when it says, else where the next
 * jump point starts (a hidden chapter within it is part of it), else at
 * the episode's end.
 */
static gint64
chapter_end(FeedChapterList *chapters, guint i, gint64 duration)
{
	const FeedChapter *c = feed_chapter_list_get_chapter(chapters, i);
	gint64 start = feed_chapter_get_start_ms(c);

	if (feed_chapter_get_end(c) > start)
		return feed_chapter_get_end(c);
	for (guint j = i + 1; j < feed_chapter_list_get_n_chapters(chapters);
	     j++) {
		const FeedChapter *next =
		        feed_chapter_list_get_chapter(chapters, j);

		if (feed_chapter_is_toc(next) &&
		    feed_chapter_get_start_ms(next) > start)
			return feed_chapter_get_start_ms(next);
	}
	return duration > 0 ? duration : G_MAXINT64;
}

/* The next skipped chapter from @from on, crossed ones included. */
static gint
next_skipped(FeedChapterList *chapters, const char *pattern, gint64 from)
{
	g_autoptr(GRegex) regex = NULL;
	guint n;

	/* Compiled once a look; `set` checked that it compiles. */
	if (chapters == NULL || pattern == NULL)
		return -1;
	regex = g_regex_new(pattern, G_REGEX_CASELESS, 0, NULL);
	n = regex != NULL ? feed_chapter_list_get_n_chapters(chapters) : 0;
	for (guint i = 0; i < n; i++) {
		const FeedChapter *c =
		        feed_chapter_list_get_chapter(chapters, i);
		const char *title = feed_chapter_get_title(c);

		if (feed_chapter_get_start_ms(c) >= from && title != NULL &&
		    g_regex_match(regex, title, 0, NULL))
			return (gint)i;
	}
	return -1;
}

static void
skip_outro(Bridge *bridge, BridgeEpisode *episode, const BridgeFeed *feed)
{
	g_autoptr(GError) error = NULL;

	log_once(bridge, episode, "outro",
	         "skipped the last %" G_GINT64_FORMAT " s of %s",
	         feed->skip_outro, episode->title);
	if (!episode->listened) {
		bridge_lists_set_listened(bridge, episode, TRUE);
		g_message("listened to %s", episode->title);
		bridge_tell_episode(bridge, BRIDGE_NEWS_LISTENED, episode);
	}
	if (!bridge_mpd_next(bridge->mpd, &error))
		g_message("%s", error->message);
}

static void
skip_chapter(Bridge *bridge, const BridgeEpisode *episode,
             FeedChapterList *chapters, guint i, gint64 duration)
{
	BridgeSkips *s = skips_of(bridge);
	const FeedChapter *c = feed_chapter_list_get_chapter(chapters, i);
	gint64 end = chapter_end(chapters, i, duration);
	g_autofree char *what = g_strdup_printf("chapter %u", i);
	g_autoptr(GError) error = NULL;

	log_once(bridge, episode, what, "skipped the chapter \"%s\" of %s",
	         feed_chapter_get_title(c), episode->title);
	s->own_seek = TRUE;
	/* An ad that runs to the end: the episode is over. */
	if (duration > 0 && end >= duration - 1000) {
		if (!bridge_mpd_next(bridge->mpd, &error))
			g_message("%s", error->message);
		return;
	}
	if (!bridge_mpd_seek_ms(bridge->mpd, bridge->tracking.song_id, end,
	                        &error))
		g_message("cannot skip a chapter of %s: %s", episode->title,
		          error->message);
}

static gboolean
on_due(gpointer data);

/* What is due now, or the timer for when it is. */
static void
look(Bridge *bridge, gboolean seeked)
{
	BridgeSkips *s = skips_of(bridge);
	BridgeTracking *t = &bridge->tracking;
	BridgeEpisode *episode =
	        bridge_store_find_episode(bridge->store, t->episode_id);
	const BridgeFeed *feed =
	        episode != NULL ? bridge_store_find_feed(bridge->store,
	                                                 episode->feed_id)
	                        : NULL;
	FeedChapterList *chapters = bridge_chapters_current(bridge);
	gint64 pos = bridge_tracker_position_ms(t);
	gint64 duration, next = G_MAXINT64;
	gint skipped;

	if (feed == NULL)
		return;
	duration = duration_ms(t, episode);
	if (feed->skip_outro > 0 && duration > feed->skip_outro * 1000) {
		gint64 outro = duration - feed->skip_outro * 1000;

		if (pos >= outro && pos < outro + CROSSED_MS && !seeked) {
			skip_outro(bridge, episode, feed);
			return;
		}
		if (outro > pos)
			next = outro;
	}
	skipped = next_skipped(chapters, feed->skip_chapters,
	                       seeked ? pos : pos - CROSSED_MS);
	if (skipped >= 0) {
		gint64 start =
		        feed_chapter_get_start_ms(feed_chapter_list_get_chapter(
		                chapters, (guint)skipped));

		if (start <= pos) {
			skip_chapter(bridge, episode, chapters, (guint)skipped,
			             duration);
			return;
		}
		next = MIN(next, start);
	}
	if (next != G_MAXINT64 && t->state == BRIDGE_PLAYER_PLAY)
		s->timer = g_timeout_add(
		        (guint)MIN(bridge_tracker_wall_ms(t, next - pos),
		                   G_MAXINT32),
		        on_due, bridge);
}

static gboolean
on_due(gpointer data)
{
	Bridge *bridge = data;
	BridgeSkips *s = skips_of(bridge);
	BridgeTracking *t = &bridge->tracking;
	g_auto(BridgePlayerStatus) status = { 0 };

	s->timer = 0;
	if (!bridge_mpd_player_status(bridge->mpd, &status, NULL) ||
	    status.song_id != t->song_id || status.state != BRIDGE_PLAYER_PLAY)
		return G_SOURCE_REMOVE;
	t->elapsed_ms = status.elapsed_ms;
	t->at = now_us();
	look(bridge, FALSE);
	return G_SOURCE_REMOVE;
}

/* An intro skipped as the episode starts from its beginning. */
static gboolean
skip_intro(Bridge *bridge, const BridgeEpisode *episode)
{
	BridgeTracking *t = &bridge->tracking;
	const BridgeFeed *feed =
	        bridge_store_find_feed(bridge->store, episode->feed_id);
	gint64 intro = feed != NULL ? feed->skip_intro * 1000 : 0;
	gint64 duration = duration_ms(t, episode);
	g_autoptr(GError) error = NULL;

	/* A resume under way, or due: not from the beginning. */
	if (intro == 0 || t->resume_timer != 0 || t->resume_check != 0 ||
	    bridge_tracker_position_ms(t) >= AT_START_MS ||
	    (episode->position * 1000 >= RESUME_FROM_MS &&
	     !episode->listened) ||
	    (duration > 0 && duration <= intro))
		return FALSE;
	skips_of(bridge)->own_seek = TRUE;
	if (!bridge_mpd_seek_ms(bridge->mpd, t->song_id, intro, &error)) {
		g_message("cannot skip the intro of %s: %s", episode->title,
		          error->message);
		return FALSE;
	}
	log_once(bridge, episode, "intro",
	         "skipped the first %" G_GINT64_FORMAT " s of %s", intro / 1000,
	         episode->title);
	return TRUE;
}

void
bridge_skips_on_player(Bridge *bridge)
{
	BridgeSkips *s = skips_of(bridge);
	BridgeTracking *t = &bridge->tracking;
	BridgeEpisode *episode;
	gint64 pos, expected;
	gboolean started, seeked;

	g_clear_handle_id(&s->timer, g_source_remove);
	episode = t->episode_id != NULL && t->state == BRIDGE_PLAYER_PLAY
	                  ? bridge_store_find_episode(bridge->store,
	                                              t->episode_id)
	                  : NULL;
	if (episode == NULL) {
		/* Paused, it goes on from here; stopped, it starts anew. */
		s->last_pos = bridge_tracker_position_ms(t);
		s->last_at = now_us();
		if (t->state == BRIDGE_PLAYER_STOP)
			s->last_song = 0;
		return;
	}
	pos = bridge_tracker_position_ms(t);
	started = s->last_song != t->song_id;
	/* Playing on from the last look would have got about here. */
	expected = s->last_pos +
	           bridge_tracker_played_ms(t, (now_us() - s->last_at) / 1000);
	seeked = !started && !s->own_seek && ABS(pos - expected) > SEEK_MS;
	if (s->listener_jumped) {
		seeked = TRUE;
		s->listener_jumped = FALSE;
	}
	s->own_seek = FALSE;
	s->last_song = t->song_id;
	s->last_pos = pos;
	s->last_at = now_us();
	if (started && skip_intro(bridge, episode))
		return;
	look(bridge, seeked);
}

void
bridge_skips_listener_jumped(Bridge *bridge)
{
	skips_of(bridge)->listener_jumped = TRUE;
}

void
bridge_skips_clear(Bridge *bridge)
{
	BridgeSkips *s = bridge->skips;

	if (s == NULL)
		return;
	g_clear_handle_id(&s->timer, g_source_remove);
	g_clear_pointer(&s->logged, g_hash_table_unref);
	g_clear_pointer(&bridge->skips, g_free);
}
