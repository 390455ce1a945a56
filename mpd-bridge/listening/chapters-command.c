/*
 * Chapters' commands: the list of an episode's chapters, and jumps
 * between those of what plays. Apart from chapters.c, which reads the
 * chapters and follows what plays, as downloads' commands are.
 */
#include "listening/chapters-command.h"

#include "core/identity.h"
#include "listening/chapters.h"
#include "listening/skips.h"
#include "listening/tracker.h"

#include <string.h>

/* previous-chapter within this long of a start goes to the one before. */
#define RESTART_WITHIN_MS 3000

static char *
clock_of(gint64 ms)
{
	gint64 s = ms / 1000;

	return g_strdup_printf("%" G_GINT64_FORMAT ":%02d:%02d", s / 3600,
	                       (int)(s / 60 % 60), (int)(s % 60));
}

/* A command waiting for an episode's chapters. */
typedef struct {
	BridgeCall *call;
	char *what;  /* the command's name */
	gint target; /* chapter N's index, from 0 */
	gboolean playing;
} Asked;

static void
asked_free(Asked *a)
{
	g_free(a->what);
	g_free(a);
}

static void
write_list(Bridge *bridge, const BridgeEpisode *episode,
           FeedChapterList *chapters, gboolean playing, GString *out)
{
	const BridgeFeed *feed =
	        bridge_store_find_feed(bridge->store, episode->feed_id);
	guint n = feed_chapter_list_get_n_chapters(chapters);
	gint current =
	        playing ? feed_chapter_list_find_jump(
	                          chapters,
	                          bridge_tracker_position_ms(&bridge->tracking))
	                : -1;
	guint jump = 0;

	g_string_append_printf(out, "%s — %s: %u chapters",
	                       feed != NULL ? bridge_feed_get_name(feed) : "?",
	                       episode->title,
	                       feed_chapter_list_get_n_jumps(chapters));
	for (guint i = 0; i < n; i++) {
		const FeedChapter *c =
		        feed_chapter_list_get_chapter(chapters, i);
		g_autofree char *at = clock_of(feed_chapter_get_start_ms(c));
		const char *title = feed_chapter_get_title(c);

		if (!feed_chapter_is_toc(c)) {
			g_string_append_printf(out, "\n      %s  (hidden) %s",
			                       at, title != NULL ? title : "");
			continue;
		}
		g_string_append_printf(out, "\n%s%3u  %s  %s",
		                       (gint)jump == current ? ">" : " ",
		                       jump + 1, at,
		                       title != NULL ? title : "");
		jump++;
	}
}

static void
on_list(Bridge *bridge, const char *episode_id, FeedChapterList *chapters,
        const GError *error, gpointer data)
{
	Asked *a = data;
	const BridgeEpisode *episode =
	        bridge_store_find_episode(bridge->store, episode_id);

	if (episode == NULL || chapters == NULL) {
		bridge_call_return(
		        a->call,
		        g_error_new(BRIDGE_COMMAND_ERROR,
		                    BRIDGE_COMMAND_ERROR_FAILED, "%s",
		                    error != NULL ? error->message
		                                  : "the episode is gone"));
	} else if (feed_chapter_list_get_n_chapters(chapters) == 0) {
		bridge_call_return(a->call,
		                   g_error_new(BRIDGE_COMMAND_ERROR,
		                               BRIDGE_COMMAND_ERROR_FAILED,
		                               "%s has no chapters",
		                               episode->title));
	} else {
		write_list(bridge, episode, chapters, a->playing,
		           bridge_call_get_out(a->call));
		bridge_call_return(a->call, NULL);
	}
	asked_free(a);
}

static const BridgeEpisode *
playing(Bridge *bridge, GError **error)
{
	const BridgeTracking *t = &bridge->tracking;
	const BridgeEpisode *episode =
	        t->episode_id != NULL ? bridge_store_find_episode(bridge->store,
	                                                          t->episode_id)
	                              : NULL;

	if (episode == NULL || t->state == BRIDGE_PLAYER_STOP) {
		bridge_command_fail(error, BRIDGE_COMMAND_ERROR_FAILED,
		                    "no episode is playing");
		return NULL;
	}
	return episode;
}

void
bridge_chapters_start_list(Bridge *bridge, char **args, BridgeCall *call)
{
	GError *error = NULL;
	const BridgeEpisode *episode;
	Asked *a;

	if (args[0] == NULL) {
		episode = playing(bridge, &error);
	} else {
		g_autoptr(GPtrArray) chosen =
		        bridge_identity_find_episodes(bridge, args, &error);

		episode = chosen != NULL ? chosen->pdata[0] : NULL;
	}
	if (episode == NULL) {
		bridge_call_return(call, error);
		return;
	}
	a = g_new0(Asked, 1);
	a->call = call;
	a->playing = g_strcmp0(episode->id, bridge->tracking.episode_id) == 0 &&
	             bridge->tracking.state != BRIDGE_PLAYER_STOP;
	bridge_chapters_get(bridge, episode, on_list, a);
}

/* Seeks what plays to @chapter; the answer names it. */
static gboolean
jump(Bridge *bridge, const BridgeEpisode *episode, FeedChapterList *chapters,
     guint index, GString *out, GError **error)
{
	const FeedChapter *c = feed_chapter_list_get_jump(chapters, index);
	gint64 start = feed_chapter_get_start_ms(c);
	g_autofree char *at = clock_of(start);
	g_autoptr(GError) local = NULL;

	if (!bridge_mpd_seek_ms(bridge->mpd, bridge->tracking.song_id, start,
	                        &local))
		return bridge_command_fail(
		        error, BRIDGE_COMMAND_ERROR_FAILED,
		        "cannot jump in %s: %s; a stream that cannot seek "
		        "jumps once the episode is downloaded "
		        "(mpd-bridge download)",
		        episode->title, local->message);
	bridge_skips_listener_jumped(bridge);
	g_string_append_printf(out, "chapter %u of %u at %s: %s", index + 1,
	                       feed_chapter_list_get_n_jumps(chapters), at,
	                       feed_chapter_get_title(c) != NULL
	                               ? feed_chapter_get_title(c)
	                               : "");
	return TRUE;
}

static void
on_jump(Bridge *bridge, const char *episode_id, FeedChapterList *chapters,
        const GError *error, gpointer data)
{
	Asked *a = data;
	GError *local = NULL;
	const BridgeEpisode *episode = playing(bridge, &local);
	guint n =
	        chapters != NULL ? feed_chapter_list_get_n_jumps(chapters) : 0;
	gint64 at = bridge_tracker_position_ms(&bridge->tracking);
	gint current;
	gint target = a->target;

	if (episode == NULL || g_strcmp0(episode->id, episode_id) != 0) {
		if (local == NULL)
			local = g_error_new_literal(BRIDGE_COMMAND_ERROR,
			                            BRIDGE_COMMAND_ERROR_FAILED,
			                            "the episode changed");
		goto out;
	}
	if (n == 0) {
		bridge_command_fail(&local, BRIDGE_COMMAND_ERROR_FAILED,
		                    "%s has no chapters", episode->title);
		goto out;
	}
	current = feed_chapter_list_find_jump(chapters, at);
	if (strcmp(a->what, "next-chapter") == 0) {
		target = current + 1;
		if (target >= (gint)n) {
			bridge_command_fail(&local, BRIDGE_COMMAND_ERROR_FAILED,
			                    "%s is in its last chapter",
			                    episode->title);
			goto out;
		}
	} else if (strcmp(a->what, "previous-chapter") == 0) {
		/* As players do: a few seconds in, to this one's start. */
		target = current;
		if (current < 0 ||
		    at - feed_chapter_get_start_ms(feed_chapter_list_get_jump(
		                 chapters, (guint)current)) <
		            RESTART_WITHIN_MS)
			target = MAX(current - 1, 0);
	} else if (target >= (gint)n) {
		bridge_command_fail(&local, BRIDGE_COMMAND_ERROR_USAGE,
		                    "%s has %u chapters, not %d",
		                    episode->title, n, target + 1);
		goto out;
	}
	jump(bridge, episode, chapters, (guint)target,
	     bridge_call_get_out(a->call), &local);
out:
	bridge_call_return(a->call, local);
	asked_free(a);
}

static void
start_jump(Bridge *bridge, const char *what, gint target, BridgeCall *call)
{
	GError *error = NULL;
	const BridgeEpisode *episode = playing(bridge, &error);
	Asked *a;

	if (episode == NULL) {
		bridge_call_return(call, error);
		return;
	}
	a = g_new0(Asked, 1);
	a->call = call;
	a->what = g_strdup(what);
	a->target = target;
	bridge_chapters_get(bridge, episode, on_jump, a);
}

void
bridge_chapters_start_next(Bridge *bridge, char **args, BridgeCall *call)
{
	start_jump(bridge, "next-chapter", 0, call);
}

void
bridge_chapters_start_previous(Bridge *bridge, char **args, BridgeCall *call)
{
	start_jump(bridge, "previous-chapter", 0, call);
}

void
bridge_chapters_start_goto(Bridge *bridge, char **args, BridgeCall *call)
{
	guint64 n;

	if (!g_ascii_string_to_unsigned(args[0], 10, 1, 100000, &n, NULL)) {
		bridge_call_return(
		        call, g_error_new(BRIDGE_COMMAND_ERROR,
		                          BRIDGE_COMMAND_ERROR_USAGE,
		                          "chapter takes a chapter's number, "
		                          "from 1, not '%s'",
		                          args[0]));
		return;
	}
	start_jump(bridge, "chapter", (gint)n - 1, call);
}
