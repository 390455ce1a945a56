/*
 * mpd-bridge: the command line and the daemon. Commands that change the
 * state go through a running daemon (over MPD's client-to-client
 * messages), so two writers never lose each other's changes; with no
 * daemon they edit the state directly, under its lock.
 */
#include "commands/commands.h"
#include "core/bridge.h"
#include "downloads/downloads.h"
#include "feeds/import.h"
#include "feeds/refresh.h"
#include "feeds/search-command.h"
#include "feeds/subscribe.h"
#include "listening/alarm.h"
#include "listening/chapters.h"
#include "listening/queue.h"
#include "listening/skips.h"
#include "listening/sleep.h"
#include "listening/speed.h"
#include "listening/tracker.h"
#include "phone/login.h"
#include "phone/phone-sync.h"
#include "playlists/playlist-files.h"
#include "playlists/push.h"
#include "relay/relay.h"

#include <curl/curl.h>
#include <glib-unix.h>
#include <libxml/parser.h>
#include <locale.h>
#include <mpd/idle.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define REQUEST_TIMEOUT_MS 30000
#define CONNECT_WAIT_MS    5000
#define CATCH_UP_MS        10000

enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,
	EXIT_USAGE = 2,
};

static void
usage(FILE *out)
{
	fprintf(out, "Usage: mpd-bridge [--config FILE] COMMAND [ARG…]\n\n"
	             "  run\n      the daemon: keeps subscriptions fresh in "
	             "MPD\n");
	for (const BridgeCommand *c = bridge_commands(); c->name != NULL; c++) {
		g_autofree char *line = g_strjoin(" ", c->name, c->args, NULL);

		fprintf(out, "  %s\n      %s\n", g_strstrip(line), c->summary);
	}
	fprintf(out, "\nThe same commands work from any MPD client: mpc "
	             "sendmessage mpd-bridge \"refresh\".\n");
}

/* A reply goes back as one line: messages are single protocol lines. */
static char *
one_line(const char *text)
{
	char *line = g_strstrip(g_strdup(text));

	g_strdelimit(line, "\r\n", ';');
	return line;
}

/*
 * The command line's own reply channels get the answer's line breaks
 * escaped (\n, and \\ for a backslash), which it undoes: a listing
 * prints as it would without a daemon. Other clients get one_line().
 */
static char *
escaped_lines(const char *text)
{
	g_autofree char *trimmed = g_strstrip(g_strdup(text));
	GString *line = g_string_new(NULL);

	for (const char *p = trimmed; *p != '\0'; p++) {
		if (*p == '\\')
			g_string_append(line, "\\\\");
		else if (*p == '\n')
			g_string_append(line, "\\n");
		else if (*p != '\r')
			g_string_append_c(line, *p);
	}
	return g_string_free(line, FALSE);
}

static char *
unescaped_lines(const char *text)
{
	GString *out = g_string_new(NULL);

	for (const char *p = text; *p != '\0'; p++) {
		if (*p == '\\' && p[1] == 'n') {
			g_string_append_c(out, '\n');
			p++;
		} else if (*p == '\\' && p[1] == '\\') {
			g_string_append_c(out, '\\');
			p++;
		} else {
			g_string_append_c(out, *p);
		}
	}
	return g_string_free(out, FALSE);
}

/* The channel the command line asks the daemon to answer on. */
static char *
own_reply_channel(const Bridge *bridge, int pid)
{
	return g_strdup_printf("%s-reply-%d", bridge->config->channel, pid);
}

static void
reply(Bridge *bridge, const char *channel, const char *text)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *prefix =
	        g_strconcat(bridge->config->channel, "-reply-", NULL);
	const char *pid = g_str_has_prefix(channel, prefix)
	                          ? channel + strlen(prefix)
	                          : NULL;
	gboolean own = pid != NULL && *pid != '\0' &&
	               strspn(pid, "0123456789") == strlen(pid);
	g_autofree char *line = own ? escaped_lines(text) : one_line(text);

	if (!bridge_mpd_send_message(bridge->mpd, channel, line, &error))
		g_warning("cannot answer on %s: %s", channel, error->message);
}

/* An answer on the channel, waiting for its changes to be saved. */
typedef struct {
	char *channel;
	char *answer;
	gboolean changed; /* the command changes the state, and did */
} Answer;

static void
on_saved(Bridge *bridge, const GError *error, gpointer data)
{
	Answer *answer = data;

	if (error != NULL && answer->changed) {
		g_free(answer->answer);
		answer->answer = g_strconcat("error done, but not saved yet "
		                             "(the daemon keeps trying): ",
		                             error->message, NULL);
	}
	if (bridge->mpd != NULL)
		reply(bridge, answer->channel, answer->answer);
	g_free(answer->channel);
	g_free(answer->answer);
	g_free(answer);
}

/* Where the answer to a channel message goes. */
static void
on_answered(Bridge *bridge, const BridgeCommand *command, const char *text,
            const GError *error, gpointer data)
{
	Answer *answer = g_new0(Answer, 1);

	answer->channel = data;
	if (error != NULL) {
		answer->answer = g_strconcat("error ", error->message, NULL);
		g_message("%s", answer->answer);
	} else {
		answer->answer = g_strconcat("ok ", text, NULL);
	}
	answer->changed = error == NULL && command != NULL &&
	                  command->changes && !command->daemon_only;
	/*
	 * Saved before the answer, so a reader of the state sees it, and "ok"
	 * to a change means it is on disk. One that is not yet is kept, and
	 * saved when the disk lets us (bridge.c tries again). So does ping,
	 * with which a command line waits for all that came before it
	 * (catch_up()). A question that changed nothing does not wait for a
	 * save under way.
	 */
	if ((command == NULL || !command->changes) && !bridge->dirty)
		on_saved(bridge, NULL, answer);
	else
		bridge_save_then(bridge, on_saved, answer);
}

/*
 * "@REPLY command args…": the reply channel, then the command. Most
 * commands answer at once; subscribe answers once its feed is fetched,
 * and messages after it are not kept waiting meanwhile.
 */
static void
on_message(const char *text, gpointer data)
{
	Bridge *bridge = data;
	g_autofree char *own_reply = NULL;
	g_auto(GStrv) argv = NULL;
	g_autoptr(GError) error = NULL;
	char *channel;
	gboolean ok;

	ok = bridge_command_parse_message(text, &own_reply, &argv, &error);
	/* Each command line that reads the state pings first: no news. */
	if (ok && strcmp(argv[0], "ping") == 0)
		g_debug("command from MPD: %s", text);
	else
		g_message("command from MPD: %s", text);
	channel = own_reply != NULL ? g_steal_pointer(&own_reply)
	                            : g_strconcat(bridge->config->channel,
	                                          "-replies", NULL);
	if (!ok) {
		on_answered(bridge, NULL, NULL, error, channel);
		return;
	}
	bridge_command_start(bridge, argv, on_answered, channel);
}

/*
 * What a concern did that others care about: the concerns that care, in
 * one place (core/news.h). Heard by the daemon and the command line.
 */
static void
on_news(Bridge *bridge, const BridgeNews *news)
{
	switch (news->kind) {
	case BRIDGE_NEWS_FILES:
		/* Before MPD forgets a file: the queue finds it by its path. */
		bridge_queue_follow_files(bridge);
		bridge_push_all(bridge, FALSE);
		break;
	case BRIDGE_NEWS_FEED_ADDED:
	case BRIDGE_NEWS_FEED_MOVED:
		bridge_phone_sync_feed_changed(bridge);
		break;
	case BRIDGE_NEWS_FEED_REMOVED:
		bridge_phone_sync_feed_removed(bridge, news->feed);
		break;
	case BRIDGE_NEWS_REFRESHED:
		bridge_downloads_changed(bridge);
		/* Actions a phone sent for episodes that may be here now. */
		if (bridge->fetching == 0)
			bridge_phone_sync_after_refresh(bridge);
		break;
	case BRIDGE_NEWS_PLAYED:
		bridge_phone_sync_changed(bridge, news->episode);
		bridge_push_continue_soon(bridge, news->episode);
		break;
	case BRIDGE_NEWS_LISTENED:
		bridge_push_all(bridge, FALSE);
		break;
	case BRIDGE_NEWS_STARTED:
		/* Before the resume and the chapters time anything. */
		bridge_speed_on_started(bridge);
		bridge_phone_sync_episode_started(bridge, news->episode);
		bridge_push_continue_soon(bridge, news->episode);
		break;
	case BRIDGE_NEWS_CHAPTERS:
		bridge_skips_on_player(bridge);
		break;
	case BRIDGE_NEWS_CHAPTER:
		if (bridge->config->chapter_titles)
			bridge_queue_retitle(bridge, bridge->tracking.song_id);
		break;
	case BRIDGE_NEWS_RELAY:
		/* The relay's URLs, or the hosts' again as it stops. */
		bridge_queue_follow_files(bridge);
		if (bridge_relay_must_move(bridge))
			bridge_queue_move_playing(bridge, FALSE);
		bridge_push_all(bridge, FALSE);
		break;
	case BRIDGE_NEWS_RELAY_WHOLE:
		bridge_downloads_changed(bridge);
		break;
	case BRIDGE_NEWS_RELAY_HOST:
		/* Where MPD really is, not where time says it would be. */
		if (bridge->tracking.episode_id != NULL &&
		    g_strcmp0(bridge->tracking.episode_id, news->episode->id) ==
		            0)
			bridge_tracker_on_player(bridge);
		break;
	}
}

static void
on_state(gboolean connected, gpointer data)
{
	Bridge *bridge = data;

	if (!connected) {
		bridge->pushed = FALSE;
		bridge_tracker_stop(bridge);
		bridge_skips_on_player(bridge);
		bridge_queue_reset(bridge);
		return;
	}
	bridge_playlist_files_detect(bridge);
	/* Files MPD has push the playlists with them, once (news). */
	bridge_downloads_on_database(bridge);
	/* What MPD kept of an earlier run: the URLs of now. */
	bridge_queue_follow_files(bridge);
	/* After a restart MPD may have lost what was pushed: push it all,
	 * unless the files did just now. */
	if (!bridge->pushed)
		bridge_push_all(bridge, TRUE);
	bridge_tracker_on_player(bridge);
	bridge_speed_on_player(bridge);
	bridge_chapters_on_player(bridge);
	bridge_skips_on_player(bridge);
	bridge_queue_on_change(bridge);
}

static void
on_idle(unsigned events, gpointer data)
{
	Bridge *bridge = data;

	if (events & MPD_IDLE_DATABASE)
		bridge_downloads_on_database(bridge);
	if (events & MPD_IDLE_PLAYER) {
		bridge_tracker_on_player(bridge);
		bridge_speed_on_player(bridge);
		bridge_chapters_on_player(bridge);
		bridge_skips_on_player(bridge);
	}
	bridge_sleep_on_idle(bridge, events);
	/* Playback replaces a stream's tags with its own: a queue change. */
	if (events & (MPD_IDLE_PLAYER | MPD_IDLE_QUEUE))
		bridge_queue_on_change(bridge);
	/* MPD rewrote a playlist a client edited, without its titles. */
	if ((events & MPD_IDLE_STORED_PLAYLIST) &&
	    bridge_playlist_files_any_edited(bridge)) {
		g_message("a client changed a playlist of ours: writing it "
		          "again, with titles");
		bridge_push_all(bridge, FALSE);
	}
}

static gboolean
on_signal(gpointer data)
{
	Bridge *bridge = data;

	g_message("stopping");
	g_main_loop_quit(bridge->loop);
	return G_SOURCE_CONTINUE;
}

static int
run_daemon(Bridge *bridge)
{
	g_autoptr(GError) error = NULL;
	guint term, intr;

	/* A reader holds the lock for a moment (catch_up): wait that out. */
	if (!bridge_store_lock(bridge->store, 1000, &error)) {
		fprintf(stderr,
		        "mpd-bridge: another mpd-bridge is running (%s)\n",
		        error->message);
		return EXIT_FAILED;
	}
	bridge->daemon = TRUE;
	bridge->loop = g_main_loop_new(NULL, FALSE);
	/*
	 * A journal an earlier run left (a crash) is folded in soon, and a
	 * state of an older format converted.
	 */
	if (bridge_store_journal_size(bridge->store) > 0 ||
	    bridge_store_is_old_format(bridge->store))
		bridge_changed(bridge);
	bridge->mpd =
	        bridge_mpd_new(&bridge->config->mpd, bridge->config->channel);
	bridge_mpd_set_handlers(bridge->mpd, on_state, on_message, on_idle,
	                        bridge);
	bridge_relay_start(bridge);
	bridge_mpd_start(bridge->mpd);
	term = g_unix_signal_add(SIGTERM, on_signal, bridge);
	intr = g_unix_signal_add(SIGINT, on_signal, bridge);
	g_message("running: state in %s, commands on MPD channel %s",
	          bridge_store_get_path(bridge->store),
	          bridge->config->channel);
	bridge_refresh_schedule(bridge);
	bridge_phone_sync_start(bridge);
	bridge->resume_wait_ms = bridge_phone_sync_resume_wait_ms(bridge);
	bridge_downloads_start(bridge);
	bridge_alarm_start(bridge);
	g_main_loop_run(bridge->loop);
	g_source_remove(term);
	g_source_remove(intr);
	/* While MPD is still there: it gets the hosts' URLs back. */
	bridge_relay_stop(bridge);
	bridge_sleep_stop(bridge);
	bridge_alarm_stop(bridge);
	bridge_tracker_stop(bridge);
	bridge_phone_sync_stop(bridge);
	bridge_downloads_stop(bridge);
	g_clear_pointer(&bridge->fetcher, feed_fetcher_free);
	/* A clean stop leaves the state in one file, with all that waited. */
	if (bridge_store_journal_size(bridge->store) > 0 || bridge->later ||
	    bridge->to_journal != NULL)
		bridge_changed(bridge);
	if (!bridge_save(bridge, &error)) {
		/* No loop runs the retry now: what was not saved is lost. */
		g_clear_handle_id(&bridge->save_timer, g_source_remove);
		fprintf(stderr, "mpd-bridge: %s\n", error->message);
		return EXIT_FAILED;
	}
	bridge_store_unlock(bridge->store);
	return EXIT_OK;
}

static gboolean
on_connect_wait(gpointer data)
{
	g_main_loop_quit(data);
	return G_SOURCE_REMOVE;
}

static void
on_connected(gboolean connected, gpointer data)
{
	if (connected)
		g_main_loop_quit(data);
}

/* For `queue` with no daemon: MPD directly, for this one command. */
static gboolean
connect_now(Bridge *bridge, GError **error)
{
	g_autoptr(GMainLoop) loop = g_main_loop_new(NULL, FALSE);
	guint timer;

	bridge->mpd = bridge_mpd_new(&bridge->config->mpd, NULL);
	bridge_mpd_set_handlers(bridge->mpd, on_connected, NULL, NULL, loop);
	bridge_mpd_start(bridge->mpd);
	timer = g_timeout_add(CONNECT_WAIT_MS, on_connect_wait, loop);
	g_main_loop_run(loop);
	if (!bridge_mpd_is_connected(bridge->mpd)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED,
		            "cannot reach MPD at %s: is it running? MPD_HOST "
		            "and MPD_PORT say where it is",
		            bridge->config->mpd.host != NULL
		                    ? bridge->config->mpd.host
		                    : "its default address");
		return FALSE;
	}
	g_source_remove(timer);
	bridge_playlist_files_detect(bridge);
	return TRUE;
}

/*
 * Waits for the refreshes a command started, so the state holds them; on
 * a terminal with a progress line, for an OPML import of hundreds.
 */
static void
finish_refreshes(Bridge *bridge)
{
	guint total = bridge->fetching;
	gboolean progress = total > 1 && isatty(STDERR_FILENO);

	while (bridge->fetching > 0) {
		g_main_context_iteration(NULL, TRUE);
		if (progress)
			fprintf(stderr, "\r[%u/%u] feeds refreshed",
			        total - bridge->fetching, total);
	}
	if (progress)
		fputs("\r\033[K", stderr);
}

/* A command run here: its outcome, once it has one. */
typedef struct {
	gboolean done;
	GString *out;
	GError *error;
} Outcome;

static void
on_outcome(Bridge *bridge, const BridgeCommand *command, const char *text,
           const GError *error, gpointer data)
{
	Outcome *outcome = data;

	outcome->done = TRUE;
	g_string_assign(outcome->out, text);
	outcome->error = error != NULL ? g_error_copy(error) : NULL;
}

static int
run_locally(Bridge *bridge, char **argv)
{
	g_autoptr(GString) out = g_string_new(NULL);
	Outcome outcome = { FALSE, out, NULL };
	g_autoptr(GError) error = NULL;
	g_autoptr(GError) save_error = NULL;
	int status = EXIT_OK;

	if (strcmp(argv[0], "queue") == 0 && !connect_now(bridge, &error)) {
		fprintf(stderr, "mpd-bridge: %s\n", error->message);
		return EXIT_FAILED;
	}
	/* MPD says where its music is, and is told of new files. */
	if ((strcmp(argv[0], "download") == 0 ||
	     strcmp(argv[0], "delete") == 0) &&
	    !connect_now(bridge, NULL))
		g_clear_pointer(&bridge->mpd, bridge_mpd_free);
	bridge_command_start(bridge, argv, on_outcome, &outcome);
	while (!outcome.done)
		g_main_context_iteration(NULL, TRUE);
	error = outcome.error;
	finish_refreshes(bridge);
	/* What was done is saved even when the command failed in part. */
	if (!bridge_save(bridge, &save_error)) {
		fprintf(stderr, "mpd-bridge: %s\n", save_error->message);
		return EXIT_FAILED;
	}
	if (out->len > 0)
		printf("%s%s", out->str,
		       out->str[out->len - 1] == '\n' ? "" : "\n");
	if (error != NULL) {
		fprintf(stderr, "mpd-bridge: %s\n", error->message);
		status = g_error_matches(error, BRIDGE_COMMAND_ERROR,
		                         BRIDGE_COMMAND_ERROR_USAGE)
		                 ? EXIT_USAGE
		                 : EXIT_FAILED;
	}
	return status;
}

static int
import_through_daemon(Bridge *bridge, char **argv)
{
	g_autoptr(GString) out = g_string_new(NULL);
	g_autoptr(GError) error = NULL;
	gboolean ok;

	if (argv[1] == NULL) {
		fprintf(stderr,
		        "mpd-bridge: usage: import-opml [--force] FILE\n");
		return EXIT_USAGE;
	}
	ok = bridge_import_through_daemon(bridge->config, argv + 1, out,
	                                  &error);
	if (out->len > 0)
		printf("%s\n", out->str);
	if (!ok)
		fprintf(stderr, "mpd-bridge: %s\n", error->message);
	return ok ? EXIT_OK : EXIT_FAILED;
}

static char *
quote_command(char **argv)
{
	GString *text = g_string_new(NULL);

	for (guint i = 0; argv[i] != NULL; i++) {
		g_autofree char *quoted = g_shell_quote(argv[i]);

		g_string_append_printf(text, "%s%s", i > 0 ? " " : "", quoted);
	}
	return g_string_free(text, FALSE);
}

/* For `status` on a terminal: the "(NN%)" of the answer as a bar. */
static void
print_bar(const char *answer)
{
	const char *open = strrchr(answer, '(');
	int percent;

	if (open == NULL || sscanf(open, "(%d%%)", &percent) != 1)
		return;
	percent = CLAMP(percent, 0, 100);
	printf("[");
	for (int i = 0; i < 40; i++)
		putchar(i < percent * 40 / 100 ? '#' : '-');
	printf("] %d%%\n", percent);
}

/*
 * A running daemon holds the lock: the command goes to it over MPD. When
 * @lock_error is not NULL the lock was not busy but could not be taken;
 * with no daemon to ask, that is what went wrong.
 */
static int
run_through_daemon(Bridge *bridge, char **argv, const GError *lock_error)
{
	g_autofree char *text = NULL;
	g_autofree char *reply_channel = own_reply_channel(bridge, getpid());
	const BridgeCommand *command = bridge_command_lookup(argv[0]);
	char *lines;
	g_autoptr(GError) error = NULL;
	g_autofree char *answer = NULL;
	g_auto(GStrv) found = NULL;
	char *url;

	if (strcmp(argv[0], "import-opml") == 0)
		return import_through_daemon(bridge, argv);
	if (command != NULL && command->check != NULL &&
	    !command->check(argv + 1, &error)) {
		fprintf(stderr, "mpd-bridge: %s\n", error->message);
		return EXIT_USAGE;
	}
	/* subscribe N: the daemon's cache may not be this user's. */
	if (strcmp(argv[0], "subscribe") == 0 && argv[1] != NULL) {
		guint u = strcmp(argv[1], "--force") == 0 ? 2 : 1;

		if (argv[u] != NULL && bridge_search_is_number(argv[u])) {
			url = bridge_search_resolve(bridge->config, argv[u],
			                            &error);
			if (url == NULL) {
				fprintf(stderr, "mpd-bridge: %s\n",
				        error->message);
				return EXIT_FAILED;
			}
			found = g_strdupv(argv);
			g_free(found[u]);
			found[u] = url;
			argv = found;
		}
	}
	text = quote_command(argv);
	/* Subscribe answers after its fetch, which has a limit of its own. */
	answer = bridge_mpd_request(
	        &bridge->config->mpd, bridge->config->channel, text,
	        reply_channel,
	        command != NULL && command->start != NULL
	                ? bridge_subscribe_wait_ms(bridge->config)
	                : REQUEST_TIMEOUT_MS,
	        &error);
	if (answer == NULL) {
		if (lock_error != NULL &&
		    (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
		     g_error_matches(error, G_IO_ERROR,
		                     G_IO_ERROR_CONNECTION_REFUSED)))
			fprintf(stderr, "mpd-bridge: %s\n",
			        lock_error->message);
		else if (g_error_matches(error, G_IO_ERROR,
		                         G_IO_ERROR_NOT_FOUND))
			fprintf(stderr,
			        "mpd-bridge: no daemon listens on MPD channel "
			        "%s: is mpd-bridge run running, with the same "
			        "MPD (MPD_HOST)?\n",
			        bridge->config->channel);
		else
			fprintf(stderr, "mpd-bridge: %s\n", error->message);
		return EXIT_FAILED;
	}
	lines = unescaped_lines(answer);
	g_free(answer);
	answer = g_steal_pointer(&lines);
	if (g_str_has_prefix(answer, "ok")) {
		printf("%s\n", g_strstrip(answer + 2));
		if (strcmp(argv[0], "status") == 0 && isatty(STDOUT_FILENO))
			print_bar(answer);
		return EXIT_OK;
	}
	fprintf(stderr, "mpd-bridge: %s\n",
	        g_str_has_prefix(answer, "error ") ? answer + 6 : answer);
	return EXIT_FAILED;
}

/*
 * Before a command that reads the state: when a daemon runs, what it was
 * asked before (over this command line or any MPD client) is done and
 * saved once it answers a ping, as MPD hands it messages in order and it
 * saves before each answer. Then the state is read again if it changed.
 */
static void
catch_up(Bridge *bridge)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *reply_channel = NULL;
	g_autofree char *answer = NULL;

	if (bridge_store_lock(bridge->store, 0, &error)) {
		bridge_store_unlock(bridge->store);
		return;
	}
	if (!g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_AGAIN))
		return;
	g_clear_error(&error);
	reply_channel = g_strdup_printf("%s-reply-%d", bridge->config->channel,
	                                (int)getpid());
	answer = bridge_mpd_request(&bridge->config->mpd,
	                            bridge->config->channel, "ping",
	                            reply_channel, CATCH_UP_MS, &error);
	/* No daemon to ask, or it is stuck: the state as it is. */
	if (answer == NULL)
		g_debug("no catching up with the daemon: %s", error->message);
	g_clear_error(&error);
	if (!bridge_store_reload(bridge->store, &error))
		g_warning("%s", error->message);
}

/*
 * Whether this user should ask a daemon that keeps another state: they
 * have none of their own, and a daemon answers on MPD's channel. So on a
 * box whose system service keeps its state where no other user may read
 * it, a person's commands reach that service rather than start a state
 * that no daemon runs. search stays here: `subscribe N` reads this
 * user's own search results.
 */
static gboolean
ask_other_daemon(Bridge *bridge, const char *name)
{
	g_autofree char *reply_channel = NULL;
	g_autofree char *answer = NULL;

	if (strcmp(name, "run") == 0 || strcmp(name, "search") == 0 ||
	    g_file_test(bridge->config->state_path, G_FILE_TEST_EXISTS))
		return FALSE;
	reply_channel = own_reply_channel(bridge, getpid());
	answer = bridge_mpd_request(&bridge->config->mpd,
	                            bridge->config->channel, "ping",
	                            reply_channel, CONNECT_WAIT_MS, NULL);
	return answer != NULL;
}

static int
run_command(Bridge *bridge, char **argv)
{
	const BridgeCommand *command = bridge_command_lookup(argv[0]);
	g_autoptr(GError) error = NULL;
	int status;

	if (command == NULL) {
		fprintf(stderr, "mpd-bridge: unknown command '%s'\n", argv[0]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (command->daemon_only)
		return run_through_daemon(bridge, argv, NULL);
	if (!command->changes) {
		catch_up(bridge);
		return run_locally(bridge, argv);
	}
	if (!bridge_store_lock(bridge->store, 200, &error))
		return run_through_daemon(
		        bridge, argv,
		        g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_AGAIN)
		                ? NULL
		                : error);
	status = run_locally(bridge, argv);
	bridge_store_unlock(bridge->store);
	return status;
}

/*
 * On the command line the outcome is printed; the log's messages are for
 * the daemon's journal. Warnings and worse still show.
 */
static GLogWriterOutput
quiet_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields,
             gpointer user_data)
{
	if ((level &
	     (G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG)) &&
	    g_getenv("G_MESSAGES_DEBUG") == NULL)
		return G_LOG_WRITER_HANDLED;
	return g_log_writer_default(level, fields, n_fields, user_data);
}

/*
 * `sync login`: here, never through the daemon (it may wait twenty
 * minutes for the user's browser), and with no password read yet: it is
 * what writes it.
 */
static int
sync_login(const char *config_path)
{
	g_autoptr(GError) error = NULL;
	BridgeConfig *config = bridge_config_load_full(
	        config_path, BRIDGE_CONFIG_NO_SECRETS, &error);
	gboolean ok;

	if (config == NULL) {
		fprintf(stderr, "mpd-bridge: %s\n", error->message);
		return EXIT_FAILED;
	}
	ok = bridge_sync_login_run(config, NULL, stdout, &error);
	bridge_config_free(config);
	if (!ok) {
		fprintf(stderr, "mpd-bridge: %s\n", error->message);
		return EXIT_FAILED;
	}
	return EXIT_OK;
}

int
main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	const char *config_path = NULL;
	const BridgeCommand *command;
	Bridge bridge = { 0 };
	int status;

	setlocale(LC_ALL, "");
	/* libmpdclient before 2.23 writes seek times in LC_NUMERIC. */
	setlocale(LC_NUMERIC, "C");
	xmlInitParser();
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (argc >= 3 && strcmp(argv[1], "--config") == 0) {
		config_path = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (argc == 3 && strcmp(argv[1], "sync") == 0 &&
	    strcmp(argv[2], "login") == 0)
		return sync_login(config_path);
	bridge.config = bridge_config_load(config_path, &error);
	if (bridge.config == NULL) {
		fprintf(stderr, "mpd-bridge: %s\n", error->message);
		return EXIT_FAILED;
	}
	/* Asking the daemon needs no state: a big one takes time to read. */
	command = bridge_command_lookup(argv[1]);
	if (command != NULL &&
	    (command->daemon_only || ask_other_daemon(&bridge, argv[1]))) {
		g_log_set_writer_func(quiet_writer, NULL, NULL);
		status = run_through_daemon(&bridge, argv + 1, NULL);
		bridge_config_free(bridge.config);
		return status;
	}
	bridge.news = on_news;
	bridge.store = bridge_store_open(bridge.config->state_path, &error);
	if (bridge.store == NULL) {
		fprintf(stderr, "mpd-bridge: %s\n", error->message);
		bridge_config_free(bridge.config);
		return EXIT_FAILED;
	}
	if (strcmp(argv[1], "run") == 0 && argc == 2) {
		status = run_daemon(&bridge);
	} else {
		g_log_set_writer_func(quiet_writer, NULL, NULL);
		status = run_command(&bridge, argv + 1);
	}
	g_clear_pointer(&bridge.fetcher, feed_fetcher_free);
	g_clear_pointer(&bridge.mpd, bridge_mpd_free);
	g_clear_pointer(&bridge.loop, g_main_loop_unref);
	bridge_queue_clear(&bridge);
	bridge_playlist_files_clear(&bridge);
	g_free(bridge.new_pushed);
	g_free(bridge.starred_pushed);
	g_free(bridge.continue_pushed);
	g_clear_pointer(&bridge.continuing, g_ptr_array_unref);
	bridge_save_clear(&bridge);
	g_clear_pointer(&bridge.to_journal, g_ptr_array_unref);
	g_clear_handle_id(&bridge.journal_idle, g_source_remove);
	g_clear_handle_id(&bridge.continue_timer, g_source_remove);
	g_clear_pointer(&bridge.url_prefixes, g_regex_unref);
	bridge_tracker_clear(&bridge);
	bridge_phone_sync_clear(&bridge);
	bridge_downloads_clear(&bridge);
	bridge_relay_clear(&bridge);
	bridge_chapters_clear(&bridge);
	bridge_skips_clear(&bridge);
	bridge_sleep_clear(&bridge);
	bridge_alarm_clear(&bridge);
	bridge_store_free(bridge.store);
	bridge_config_free(bridge.config);
	return status;
}
