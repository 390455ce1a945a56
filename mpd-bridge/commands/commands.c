/*
 * The command table that the command line and the MPD channel share, so
 * that a command exists once.
 */
#include "commands/commands.h"

#include "commands/show.h"
#include "core/identity.h"
#include "core/notes-cache.h"
#include "downloads/downloads-command.h"
#include "feeds/import.h"
#include "feeds/refresh.h"
#include "feeds/search-command.h"
#include "feeds/subscribe.h"
#include "listening/chapters-command.h"
#include "listening/chapters.h"
#include "listening/queue.h"
#include "listening/skips.h"
#include "listening/sleep.h"
#include "listening/tracker.h"
#include "phone/phone-sync.h"
#include "playlists/lists.h"
#include "playlists/playlist-files.h"
#include "playlists/push.h"

#include <json-glib/json-glib.h>
#include <string.h>

#define fail(error, ...)                                                       \
	bridge_command_fail(error, BRIDGE_COMMAND_ERROR_FAILED, __VA_ARGS__)

#define usage_error(error, ...)                                                \
	bridge_command_fail(error, BRIDGE_COMMAND_ERROR_USAGE, __VA_ARGS__)

static gboolean
run_unsubscribe(Bridge *bridge, char **args, GString *out, GError **error)
{
	BridgeFeed *feed = bridge_identity_find_feed(bridge, args[0], error);
	g_autofree char *name = NULL;

	if (feed == NULL)
		return FALSE;
	name = g_strdup(bridge_feed_get_name(feed));
	bridge_unsubscribe(bridge, feed);
	g_message("unsubscribed from %s", name);
	g_string_append_printf(out, "unsubscribed from %s", name);
	return TRUE;
}

static gboolean
run_refresh(Bridge *bridge, char **args, GString *out, GError **error)
{
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);
	guint started = 0;

	if (args[0] != NULL) {
		BridgeFeed *feed =
		        bridge_identity_find_feed(bridge, args[0], error);

		if (feed == NULL)
			return FALSE;
		feed->gone = FALSE;
		bridge_refresh_feed(bridge, feed, NULL, NULL);
		g_string_append_printf(out, "refreshing %s",
		                       bridge_feed_get_name(feed));
		return TRUE;
	}
	for (guint i = 0; i < feeds->len; i++) {
		BridgeFeed *feed = feeds->pdata[i];

		if (!feed->gone) {
			bridge_refresh_feed(bridge, feed, NULL, NULL);
			started++;
		}
	}
	g_string_append_printf(out, "refreshing %u feed%s", started,
	                       started == 1 ? "" : "s");
	return TRUE;
}

static gboolean
parse_flag(const char *text, gboolean *value)
{
	if (g_ascii_strcasecmp(text, "yes") == 0 ||
	    g_ascii_strcasecmp(text, "true") == 0 ||
	    g_ascii_strcasecmp(text, "on") == 0)
		*value = TRUE;
	else if (g_ascii_strcasecmp(text, "no") == 0 ||
	         g_ascii_strcasecmp(text, "false") == 0 ||
	         g_ascii_strcasecmp(text, "off") == 0)
		*value = FALSE;
	else
		return FALSE;
	return TRUE;
}

static gboolean
parse_count(const char *text, guint64 *value)
{
	return g_ascii_string_to_unsigned(text, 10, 0, 1000000, value, NULL);
}

/* A pattern, or "" for none; checked now so a bad one is refused. */
static gboolean
set_pattern(char **field, const char *pattern, GError **error)
{
	g_autoptr(GRegex) regex = NULL;

	if (*pattern != '\0') {
		regex = g_regex_new(pattern, G_REGEX_CASELESS, 0, error);
		if (regex == NULL)
			return FALSE;
	}
	g_free(*field);
	*field = *pattern != '\0' ? g_strdup(pattern) : NULL;
	return TRUE;
}

static gboolean
run_set(Bridge *bridge, char **args, GString *out, GError **error)
{
	BridgeFeed *feed = bridge_identity_find_feed(bridge, args[0], error);
	const char *key = args[1];
	const char *value = args[2];
	gboolean known = FALSE;
	guint64 number;

	if (feed == NULL)
		return FALSE;
	if (strcmp(key, "name") == 0) {
		bridge_push_remove(bridge, feed);
		g_free(feed->name);
		feed->name = *value != '\0' ? g_strdup(value) : NULL;
	} else if (strcmp(key, "auto-queue") == 0) {
		if (!parse_flag(value, &feed->auto_queue))
			return fail(error, "auto-queue is yes or no");
	} else if (strcmp(key, "keep") == 0) {
		if (!parse_count(value, &number))
			return fail(error, "keep is a number of episodes "
			                   "(0 for the default)");
		feed->keep = (guint)number;
	} else if (strcmp(key, "min-duration") == 0) {
		if (!parse_count(value, &number))
			return fail(error, "min-duration is a number of "
			                   "seconds");
		feed->min_duration = (gint64)number;
	} else if (strcmp(key, "fetch-chapters") == 0) {
		if (!bridge_chapters_set_feed(bridge, feed, value, error))
			return FALSE;
	} else if (bridge_skips_set_feed(feed, key, value, &known, error)) {
		/* skip-intro, skip-outro, skip-chapters */
	} else if (known) {
		return FALSE;
	} else if (strcmp(key, "download") == 0) {
		if (!bridge_downloads_set_feed(bridge, feed, value, error))
			return FALSE;
	} else if (strcmp(key, "match") == 0) {
		if (!set_pattern(&feed->match, value, error))
			return FALSE;
	} else if (strcmp(key, "exclude") == 0) {
		if (!set_pattern(&feed->exclude, value, error))
			return FALSE;
	} else {
		return fail(
		        error,
		        "unknown setting '%s'; the settings are name, "
		        "auto-queue, keep, match, exclude, min-duration and "
		        "download",
		        key);
	}
	bridge_changed(bridge);
	bridge_push_feed(bridge, feed, TRUE);
	g_string_append_printf(out, "%s: %s is now '%s'",
	                       bridge_feed_get_name(feed), key, value);
	return TRUE;
}

static gboolean
run_queue(Bridge *bridge, char **args, GString *out, GError **error)
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

static gboolean
run_mark(Bridge *bridge, char **args, GString *out, GError **error)
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

static gboolean
run_status(Bridge *bridge, char **args, GString *out, GError **error)
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
	if (episode != NULL)
		append_chapter(bridge, &status, out);
	if (bridge_playlist_files_note(bridge) != NULL)
		g_string_append_printf(out, "; %s",
		                       bridge_playlist_files_note(bridge));
	return TRUE;
}

static char *
format_time(gint64 unix_seconds, const char *format)
{
	g_autoptr(GDateTime) utc = NULL;
	g_autoptr(GDateTime) local = NULL;

	if (unix_seconds <= 0)
		return g_strdup("-");
	utc = g_date_time_new_from_unix_utc(unix_seconds);
	local = utc != NULL ? g_date_time_to_local(utc) : NULL;
	return local != NULL ? g_date_time_format(local, format)
	                     : g_strdup("-");
}

static void
write_json(const Bridge *bridge, GString *out, JsonBuilder *builder)
{
	g_autoptr(JsonGenerator) generator = json_generator_new();
	g_autoptr(JsonNode) root = json_builder_get_root(builder);
	g_autofree char *text = NULL;

	json_generator_set_root(generator, root);
	/* Over MPD's channel an answer is one line. */
	json_generator_set_pretty(generator, !bridge->daemon);
	text = json_generator_to_data(generator, NULL);
	g_string_append(out, text);
}

static void
member_string(JsonBuilder *builder, const char *name, const char *value)
{
	json_builder_set_member_name(builder, name);
	if (value != NULL)
		json_builder_add_string_value(builder, value);
	else
		json_builder_add_null_value(builder);
}

static void
member_int(JsonBuilder *builder, const char *name, gint64 value)
{
	json_builder_set_member_name(builder, name);
	json_builder_add_int_value(builder, value);
}

static guint
count_episodes(Bridge *bridge, const BridgeFeed *feed)
{
	g_autoptr(GPtrArray) episodes =
	        bridge_store_list_episodes(bridge->store, feed);

	return episodes->len;
}

static gboolean
run_list(Bridge *bridge, char **args, GString *out, GError **error)
{
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);
	gboolean json = args[0] != NULL && strcmp(args[0], "--json") == 0;
	g_autoptr(JsonBuilder) builder = json_builder_new();

	if (args[0] != NULL && !json)
		return usage_error(error, "list takes only --json");
	json_builder_begin_array(builder);
	for (guint i = 0; i < feeds->len; i++) {
		const BridgeFeed *feed = feeds->pdata[i];
		guint n = count_episodes(bridge, feed);
		g_autofree char *refreshed =
		        format_time(feed->last_refresh, "%Y-%m-%d %H:%M");

		if (json) {
			json_builder_begin_object(builder);
			member_string(builder, "id", feed->id);
			member_string(builder, "url", feed->url);
			member_string(builder, "podcast",
			              bridge_feed_get_name(feed));
			member_string(builder, "title", feed->title);
			member_string(builder, "name", feed->name);
			member_int(builder, "episodes", n);
			member_int(builder, "last_refresh", feed->last_refresh);
			member_string(builder, "last_error", feed->last_error);
			json_builder_set_member_name(builder, "auto_queue");
			json_builder_add_boolean_value(builder,
			                               feed->auto_queue);
			json_builder_set_member_name(builder, "gone");
			json_builder_add_boolean_value(builder, feed->gone);
			json_builder_end_object(builder);
			continue;
		}
		g_string_append_printf(
		        out,
		        "%s\n    %s\n    %u episodes, "
		        "refreshed %s%s%s%s\n",
		        bridge_feed_get_name(feed), feed->url, n, refreshed,
		        feed->auto_queue ? ", auto-queue" : "",
		        feed->last_error != NULL ? "; error: " : "",
		        feed->last_error != NULL ? feed->last_error : "");
	}
	json_builder_end_array(builder);
	if (json)
		write_json(bridge, out, builder);
	else if (feeds->len == 0)
		g_string_append(out, "no subscriptions yet: mpd-bridge "
		                     "subscribe URL\n");
	return TRUE;
}

/* Whether @episode is in @state: one of its states, starred or later. */
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

static gboolean
run_episodes(Bridge *bridge, char **args, GString *out, GError **error)
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
			member_int(builder, "number", i + 1);
			member_string(builder, "id", e->id);
			member_string(builder, "guid", e->guid);
			member_string(builder, "feed", e->feed_id);
			member_string(builder, "podcast",
			              bridge_feed_get_name(feed));
			member_string(builder, "feed_url", feed->url);
			member_string(builder, "title", e->title);
			member_string(builder, "url", e->url);
			member_string(builder, "file", e->file);
			member_int(builder, "published", e->published);
			member_int(builder, "duration", e->duration);
			member_string(builder, "state",
			              bridge_episode_get_state(e));
			member_int(builder, "position", e->position);
			member_int(builder, "last_played", e->last_played);
			member_int(builder, "listened_at", e->listened_at);
			json_builder_set_member_name(builder, "starred");
			json_builder_add_boolean_value(builder, e->starred);
			json_builder_end_object(builder);
			continue;
		}
		date = format_time(e->published, "%Y-%m-%d");
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
		write_json(bridge, out, builder);
	return TRUE;
}

static gboolean
run_export_opml(Bridge *bridge, char **args, GString *out, GError **error)
{
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);
	g_autoptr(FeedOpml) opml = feed_opml_new("mpd-bridge subscriptions");
	g_autofree char *text = NULL;

	for (guint i = 0; i < feeds->len; i++) {
		const BridgeFeed *feed = feeds->pdata[i];

		feed_opml_add(opml, feed->url, bridge_feed_get_name(feed), NULL,
		              NULL);
	}
	text = feed_opml_to_string(opml);
	g_string_append(out, text);
	return TRUE;
}

static gboolean
run_ping(Bridge *bridge, char **args, GString *out, GError **error)
{
	g_string_append(out, "pong");
	return TRUE;
}

static const BridgeCommand commands[] = {
	{ "subscribe", "[--force] URL|N [NAME]",
	  "subscribe to a feed, a podcast's site, or a search's result N, "
	  "once it is read",
	  1, 3, TRUE, FALSE, NULL, bridge_subscribe_start },
	{ "unsubscribe", "FEED", "drop a subscription and its playlist", 1, 1,
	  TRUE, FALSE, run_unsubscribe },
	{ "list", "[--json]", "the subscriptions, with their state", 0, 1,
	  FALSE, FALSE, run_list },
	{ "refresh", "[FEED]", "refresh one feed, or all, now", 0, 1, TRUE,
	  FALSE, run_refresh },
	{ "set", "FEED KEY VALUE",
	  "name, auto-queue, keep, match, exclude, min-duration or download", 3,
	  3, TRUE, FALSE, run_set },
	{ "episodes",
	  "[FEED] [--state new|in-progress|listened|starred|later] [--json]",
	  "the episodes the bridge knows", 0, 4, FALSE, FALSE, run_episodes },
	{ "mark", "listened|unlistened|new EPISODE…",
	  "mark episodes listened, or not, or new again", 2, G_MAXUINT, TRUE,
	  FALSE, run_mark },
	{ "star", "EPISODE…", "star episodes (Podcasts: Starred)", 1, G_MAXUINT,
	  TRUE, FALSE, bridge_lists_run_star },
	{ "unstar", "EPISODE…", "take the star off episodes", 1, G_MAXUINT,
	  TRUE, FALSE, bridge_lists_run_unstar },
	{ "later", "[add|remove EPISODE…|move EPISODE POSITION]",
	  "the play-later list (Podcasts: Play later)", 0, G_MAXUINT, TRUE,
	  FALSE, bridge_lists_run_later },
	{ "list-add", "NAME EPISODE…",
	  "put episodes on a named list, made if new", 2, G_MAXUINT, TRUE,
	  FALSE, bridge_lists_run_list_add },
	{ "list-remove", "NAME [EPISODE…]",
	  "take episodes off a list; the whole list without any", 1, G_MAXUINT,
	  TRUE, FALSE, bridge_lists_run_list_remove },
	{ "lists", "", "play-later and the named lists, with their episodes", 0,
	  0, FALSE, FALSE, bridge_lists_run_lists },
	{ "status", "", "what plays, and how far it has got", 0, 0, TRUE, TRUE,
	  run_status },
	{ "queue", "EPISODE…",
	  "queue episodes: a number, a guid, or latest FEED", 1, G_MAXUINT,
	  TRUE, FALSE, run_queue },
	{ "show", "[EPISODE] [--json]",
	  "an episode's page: show notes, chapters, links", 0, 3, FALSE, FALSE,
	  bridge_show_run },
	{ "download", "EPISODE…",
	  "download episodes into MPD's music directory, to play from disk", 1,
	  G_MAXUINT, TRUE, FALSE, NULL, bridge_downloads_start_command },
	{ "delete", "EPISODE…",
	  "delete downloaded episodes' files; they play from the stream", 1,
	  G_MAXUINT, TRUE, FALSE, bridge_downloads_run_delete },
	{ "downloads", "[--json]",
	  "episodes on disk, under way, waiting and failed", 0, 1, TRUE, FALSE,
	  bridge_downloads_run_list },
	{ "chapters", "[EPISODE]",
	  "an episode's chapters; alone, what plays, the current marked", 0,
	  G_MAXUINT, FALSE, TRUE, NULL, bridge_chapters_start_list },
	{ "next-chapter", "", "jump to the next chapter of what plays", 0, 0,
	  FALSE, TRUE, NULL, bridge_chapters_start_next },
	{ "previous-chapter", "",
	  "jump to the start of this chapter, or the one before", 0, 0, FALSE,
	  TRUE, NULL, bridge_chapters_start_previous },
	{ "chapter", "N", "jump to chapter N of what plays", 1, 1, FALSE, TRUE,
	  NULL, bridge_chapters_start_goto },
	{ "import-opml", "[--force] FILE",
	  "subscribe to every feed of an OPML file that can be read", 1, 2,
	  TRUE, FALSE, NULL, bridge_import_start },
	{ "export-opml", "", "the subscriptions as OPML", 0, 0, FALSE, FALSE,
	  run_export_opml },
	{ "search", "[--json] TERMS…",
	  "find podcasts by name in a directory; subscribe N takes one", 1,
	  G_MAXUINT, FALSE, FALSE, NULL, bridge_search_start },
	{ "sync", "[now|reset|login]",
	  "syncing with the podcast app on a phone: its state, or now", 0, 1,
	  TRUE, FALSE, NULL, bridge_phone_sync_start_command },
	{ "ping", "", "check that the daemon answers", 0, 0, TRUE, TRUE,
	  run_ping },
	{ "sleep", "[MINUTES|DURATION|end|off]",
	  "pause after a while (20, 90s, 1h), stop after this episode, or "
	  "say what is set",
	  0, 1, TRUE, TRUE, bridge_sleep_run, NULL, bridge_sleep_check },
	{ NULL, NULL, NULL, 0, 0, FALSE, FALSE, NULL, NULL, NULL },
};

const BridgeCommand *
bridge_commands(void)
{
	return commands;
}

const BridgeCommand *
bridge_command_lookup(const char *name)
{
	for (const BridgeCommand *c = commands; c->name != NULL; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

/* "a, b and c": the names of the commands, for an error message. */
static char *
command_names(void)
{
	GString *text = g_string_new(NULL);

	for (const BridgeCommand *c = commands; c->name != NULL; c++)
		g_string_append_printf(text, "%s%s",
		                       c == commands       ? ""
		                       : c[1].name == NULL ? " and "
		                                           : ", ",
		                       c->name);
	return g_string_free(text, FALSE);
}

/* The command @argv names, when its arguments fit it. */
static const BridgeCommand *
check_command(char **argv, GError **error)
{
	const BridgeCommand *command =
	        argv[0] != NULL ? bridge_command_lookup(argv[0]) : NULL;
	guint n = argv[0] != NULL ? g_strv_length(argv + 1) : 0;

	if (command == NULL) {
		g_autofree char *names = command_names();

		usage_error(error, "unknown command '%s'; the commands are %s",
		            argv[0] != NULL ? argv[0] : "", names);
		return NULL;
	}
	if (n < command->min_args || n > command->max_args) {
		fail(error, "usage: %s %s", command->name, command->args);
		return NULL;
	}
	/* Names, URLs and guids are UTF-8 in the state: so is what finds them.
	 */
	for (guint i = 1; argv[i] != NULL; i++)
		if (!g_utf8_validate(argv[i], -1, NULL)) {
			usage_error(error,
			            "argument %u of %s is not UTF-8 text", i,
			            command->name);
			return NULL;
		}
	return command;
}

gboolean
bridge_command_run(Bridge *bridge, char **argv, GString *out, GError **error)
{
	const BridgeCommand *command = check_command(argv, error);

	if (command == NULL)
		return FALSE;
	if (command->run == NULL)
		return usage_error(error,
		                   "%s answers later: it is started, "
		                   "not run",
		                   command->name);
	return command->run(bridge, argv + 1, out, error);
}

/* A started command, until its call ends. */
typedef struct {
	Bridge *bridge;
	const BridgeCommand *command;
	char **argv; /* a copy: the arguments live as long as the call */
	BridgeCallDone done;
	gpointer user_data;
} Started;

static void
on_end(const char *answer, const GError *error, gpointer user_data)
{
	Started *started = user_data;

	started->done(started->bridge, started->command, answer, error,
	              started->user_data);
	g_strfreev(started->argv);
	g_free(started);
}

void
bridge_command_start(Bridge *bridge, char **argv, BridgeCallDone done,
                     gpointer user_data)
{
	Started *started = g_new0(Started, 1);
	BridgeCall *call = bridge_call_new(on_end, started);
	GError *error = NULL;
	char **args;

	started->bridge = bridge;
	started->argv = g_strdupv(argv);
	started->done = done;
	started->user_data = user_data;
	started->command = check_command(started->argv, &error);
	args = started->argv + 1;
	if (started->command == NULL)
		bridge_call_return(call, error);
	else if (started->command->start != NULL)
		started->command->start(bridge, args, call);
	else if (started->command->run(bridge, args, bridge_call_get_out(call),
	                               &error))
		bridge_call_return(call, NULL);
	else
		bridge_call_return(call, error);
}

gboolean
bridge_command_parse_message(const char *text, char **reply_channel,
                             char ***argv, GError **error)
{
	g_autofree char *channel = NULL;
	g_autoptr(GError) shell_error = NULL;

	if (text[0] == '@') {
		const char *space = strchr(text, ' ');
		gsize length = space != NULL ? (gsize)(space - text - 1)
		                             : strlen(text + 1);

		channel = g_strndup(text + 1, length);
		text = space != NULL ? space + 1 : "";
	}
	if (!g_shell_parse_argv(text, NULL, argv, &shell_error))
		return usage_error(error, "cannot read the command: %s",
		                   shell_error->message);
	*reply_channel = g_steal_pointer(&channel);
	return TRUE;
}
