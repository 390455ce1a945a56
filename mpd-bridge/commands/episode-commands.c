/*
 * The commands on episodes that span concerns: queue, mark, status and
 * episodes.
 */
#include "commands/bodies.h"

#include "core/answer.h"
#include "core/identity.h"
#include "core/notes-cache.h"
#include "downloads/downloads-command.h"
#include "downloads/downloads.h"
#include "feeds/refresh.h"
#include "feeds/subscribe.h"
#include "listening/alarm.h"
#include "listening/chapters.h"
#include "listening/queue.h"
#include "listening/skips.h"
#include "listening/speed.h"
#include "phone/phone-sync.h"
#include "playlists/lists.h"
#include "playlists/playlist-files.h"
#include "playlists/push.h"
#include "relay/relay.h"

#include <string.h>

#define usage_error(error, ...)                                                \
	bridge_command_fail(error, BRIDGE_COMMAND_ERROR_USAGE, __VA_ARGS__)

gboolean
bridge_run_queue(Bridge *bridge, char **args, GString *out, GError **error)
{
	g_autoptr(GPtrArray) chosen =
	        bridge_identity_find_episodes(bridge, args, error);

	if (chosen == NULL)
		return FALSE;
	for (guint i = 0; i < chosen->len; i++) {
		BridgeEpisode *episode = chosen->pdata[i];

		if (!bridge_queue_episode(bridge, episode, error))
			return FALSE;
		g_string_append_printf(out, "%squeued %s", i > 0 ? "; " : "",
		                       episode->title);
	}
	return TRUE;
}

gboolean
bridge_run_mark(Bridge *bridge, char **args, GString *out, GError **error)
{
	const char *how = args[0];
	g_autoptr(GPtrArray) chosen = NULL;

	if (strcmp(how, "listened") != 0 && strcmp(how, "unlistened") != 0 &&
	    strcmp(how, "new") != 0)
		return usage_error(error,
		                   "mark listened, unlistened or new, not '%s'",
		                   how);
	chosen = bridge_identity_find_episodes(bridge, args + 1, error);
	if (chosen == NULL)
		return FALSE;
	for (guint i = 0; i < chosen->len; i++) {
		BridgeEpisode *episode = chosen->pdata[i];

		bridge_lists_set_listened(bridge, episode,
		                          strcmp(how, "listened") == 0);
		/* New again means from the start, with no trace of play. */
		if (strcmp(how, "new") == 0) {
			episode->position = 0;
			episode->last_played = 0;
		}
		bridge_phone_sync_changed(bridge, episode);
		g_string_append_printf(out, "%s%s: %s", i > 0 ? "; " : "",
		                       episode->title, how);
	}
	bridge_changed(bridge);
	bridge_push_all(bridge, FALSE);
	return TRUE;
}

static char *
clock_of(gint64 seconds)
{
	return g_strdup_printf("%" G_GINT64_FORMAT ":%02d:%02d", seconds / 3600,
	                       (int)(seconds / 60 % 60), (int)(seconds % 60));
}

static void
append_playing(Bridge *bridge, const BridgeEpisode *episode,
               const BridgePlayerStatus *status, GString *out)
{
	const BridgeFeed *feed;
	g_autofree char *at = NULL;
	g_autofree char *of = NULL;
	gint64 duration;

	feed = bridge_store_find_feed(bridge->store, episode->feed_id);
	duration = status->duration_ms > 0 ? status->duration_ms / 1000
	                                   : episode->duration;
	at = clock_of(status->elapsed_ms / 1000);
	of = clock_of(duration);
	g_string_append_printf(out, "%s %s — %s, %s of %s",
	                       status->state == BRIDGE_PLAYER_PLAY ? "playing"
	                       : status->state == BRIDGE_PLAYER_PAUSE
	                               ? "paused"
	                               : "stopped",
	                       feed != NULL ? bridge_feed_get_name(feed) : "?",
	                       episode->title, at, of);
	if (duration > 0)
		g_string_append_printf(
		        out, " (%d%%)",
		        (int)(status->elapsed_ms / 10 / MAX(duration, 1)));
}

/* "; chapter 2 of 5: TITLE" while the daemon knows what plays has them. */
static void
append_chapter(Bridge *bridge, const BridgePlayerStatus *status, GString *out)
{
	FeedChapterList *chapters = bridge_chapters_current(bridge);
	gint at = chapters != NULL ? feed_chapter_list_find_jump(
	                                     chapters, status->elapsed_ms)
	                           : -1;
	const char *title;

	if (at < 0)
		return;
	title = feed_chapter_get_title(
	        feed_chapter_list_get_jump(chapters, (guint)at));
	g_string_append_printf(out, "; chapter %d of %u%s%s", at + 1,
	                       feed_chapter_list_get_n_jumps(chapters),
	                       title != NULL ? ": " : "",
	                       title != NULL ? title : "");
}

gboolean
bridge_run_status(Bridge *bridge, char **args, GString *out, GError **error)
{
	g_auto(BridgePlayerStatus) status = { 0 };
	const BridgeEpisode *episode;

	if (bridge->mpd == NULL ||
	    !bridge_mpd_player_status(bridge->mpd, &status, error))
		return FALSE;
	episode = status.uri != NULL
	                  ? bridge_identity_find_by_url(bridge, status.uri)
	                  : NULL;
	if (episode == NULL)
		g_string_append(out, status.uri != NULL
		                             ? "MPD plays no podcast episode"
		                             : "nothing plays");
	else
		append_playing(bridge, episode, &status, out);
	if (episode != NULL) {
		append_chapter(bridge, &status, out);
		bridge_speed_describe(bridge, out);
	}
	bridge_alarm_describe_next(bridge, out);
	bridge_relay_describe(bridge, out);
	if (bridge_playlist_files_note(bridge) != NULL)
		g_string_append_printf(out, "; %s",
		                       bridge_playlist_files_note(bridge));
	return TRUE;
}

static gboolean
is_in_state(Bridge *bridge, const BridgeEpisode *episode, const char *state)
{
	BridgeList *later;

	if (strcmp(state, "starred") == 0)
		return episode->starred;
	if (strcmp(state, "later") == 0) {
		later = bridge_store_get_list(bridge->store, NULL, FALSE);
		return later != NULL &&
		       bridge_list_index_of(later, episode->id) >= 0;
	}
	return strcmp(state, bridge_episode_get_state(episode)) == 0;
}

static const char *const states[] = {
	"new", "in-progress", "listened", "starred", "later", NULL,
};

gboolean
bridge_run_episodes(Bridge *bridge, char **args, GString *out, GError **error)
{
	g_autoptr(GPtrArray) all =
	        bridge_store_list_episodes(bridge->store, NULL);
	g_autoptr(JsonBuilder) builder = json_builder_new();
	const BridgeFeed *only = NULL;
	const char *state = NULL;
	gboolean json = FALSE;

	for (guint i = 0; args[i] != NULL; i++) {
		if (strcmp(args[i], "--json") == 0) {
			json = TRUE;
		} else if (strcmp(args[i], "--state") == 0) {
			state = args[++i];
			/* What the first version called in-progress. */
			if (g_strcmp0(state, "started") == 0)
				state = "in-progress";
			if (state == NULL ||
			    !g_strv_contains((const char *const *)states,
			                     state))
				return usage_error(
				        error, "--state is new, in-progress, "
				               "listened, starred or later");
		} else if ((only = bridge_identity_find_feed(bridge, args[i],
		                                             error)) == NULL) {
			return FALSE;
		}
	}
	json_builder_begin_array(builder);
	for (guint i = 0; i < all->len; i++) {
		const BridgeEpisode *e = all->pdata[i];
		const BridgeFeed *feed =
		        bridge_store_find_feed(bridge->store, e->feed_id);
		g_autofree char *date = NULL;

		if (only != NULL && feed != only)
			continue;
		if (state != NULL && !is_in_state(bridge, e, state))
			continue;
		if (json) {
			json_builder_begin_object(builder);
			bridge_json_member_int(builder, "number", i + 1);
			bridge_json_member_string(builder, "id", e->id);
			bridge_json_member_string(builder, "guid", e->guid);
			bridge_json_member_string(builder, "feed", e->feed_id);
			bridge_json_member_string(builder, "podcast",
			                          bridge_feed_get_name(feed));
			bridge_json_member_string(builder, "feed_url",
			                          feed->url);
			bridge_json_member_string(builder, "title", e->title);
			bridge_json_member_string(builder, "url", e->url);
			bridge_json_member_string(builder, "file", e->file);
			bridge_json_member_int(builder, "published",
			                       e->published);
			bridge_json_member_int(builder, "duration",
			                       e->duration);
			bridge_json_member_string(builder, "state",
			                          bridge_episode_get_state(e));
			bridge_json_member_int(builder, "position",
			                       e->position);
			bridge_json_member_int(builder, "last_played",
			                       e->last_played);
			bridge_json_member_int(builder, "listened_at",
			                       e->listened_at);
			json_builder_set_member_name(builder, "starred");
			json_builder_add_boolean_value(builder, e->starred);
			json_builder_end_object(builder);
			continue;
		}
		date = bridge_answer_local_time(e->published, "%Y-%m-%d");
		/* Across feeds, each line says whose episode it is. */
		g_string_append_printf(
		        out,
		        "%5u  %-10s  %" G_GINT64_FORMAT
		        ":%02d:%02d  %-11s  %s%s%s\n",
		        i + 1, date, e->duration / 3600,
		        (int)(e->duration / 60 % 60), (int)(e->duration % 60),
		        bridge_episode_get_state(e),
		        only == NULL ? bridge_feed_get_name(feed) : "",
		        only == NULL ? " — " : "", e->title);
	}
	json_builder_end_array(builder);
	if (json)
		bridge_json_write(bridge, builder, out);
	return TRUE;
}
