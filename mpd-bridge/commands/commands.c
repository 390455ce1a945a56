/*
 * The command table that the command line and the MPD channel share, so
 * that a command exists once.
 */
#include "commands/commands.h"

#include "commands/bodies.h"
#include "commands/show.h"
#include "downloads/downloads-command.h"
#include "feeds/import.h"
#include "feeds/search-command.h"
#include "feeds/subscribe.h"
#include "listening/alarm.h"
#include "listening/chapters-command.h"
#include "listening/sleep.h"
#include "listening/speed.h"
#include "phone/phone-sync.h"
#include "playlists/lists.h"

#include <string.h>

#define fail(error, ...)                                                       \
	bridge_command_fail(error, BRIDGE_COMMAND_ERROR_FAILED, __VA_ARGS__)

#define usage_error(error, ...)                                                \
	bridge_command_fail(error, BRIDGE_COMMAND_ERROR_USAGE, __VA_ARGS__)

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
	  TRUE, FALSE, bridge_run_unsubscribe },
	{ "list", "[--json]", "the subscriptions, with their state", 0, 1,
	  FALSE, FALSE, bridge_run_list },
	{ "refresh", "[FEED]", "refresh one feed, or all, now", 0, 1, TRUE,
	  FALSE, bridge_run_refresh },
	{ "set", "FEED KEY VALUE",
	  "name, auto-queue, keep, match, exclude, min-duration, download or "
	  "speed",
	  3, 3, TRUE, FALSE, bridge_run_set, NULL, bridge_speed_check_set },
	{ "episodes",
	  "[FEED] [--state new|in-progress|listened|starred|later] [--json]",
	  "the episodes the bridge knows", 0, 4, FALSE, FALSE,
	  bridge_run_episodes },
	{ "mark", "listened|unlistened|new EPISODE…",
	  "mark episodes listened, or not, or new again", 2, G_MAXUINT, TRUE,
	  FALSE, bridge_run_mark },
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
	  bridge_run_status },
	{ "speed-setup", "[OUTPUT-NAME]",
	  "MPD outputs that play podcasts faster: a snippet for mpd.conf", 0, 1,
	  TRUE, TRUE, bridge_speed_run_setup },
	{ "queue", "EPISODE…",
	  "queue episodes: a number, a guid, or latest FEED", 1, G_MAXUINT,
	  TRUE, FALSE, bridge_run_queue },
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
	  bridge_run_export_opml },
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
	{ "alarm",
	  "[list|off N|HH:MM[:SS] [daily|weekdays|once] "
	  "[new|continue|latest FEED|PLAYLIST]]",
	  "wake up to podcasts at a time of day; alone, the alarms set", 0,
	  G_MAXUINT, TRUE, FALSE, bridge_alarm_run, NULL, bridge_alarm_check },
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
