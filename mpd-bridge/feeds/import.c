/*
 * Importing an OPML file. Both ways end in the same summary: with no
 * daemon each feed is subscribed to here, all fetched at once by the
 * fetcher ([bridge] jobs at a time); with a daemon, as many threads each
 * send one subscribe after another, on a connection of their own.
 */
#include "feeds/import.h"

#include "feeds/subscribe.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	char *path;
	guint total;
	guint settled;
	guint subscribed;
	guint known;
	GPtrArray *failed; /* "URL: why", in the order they failed */
	gboolean progress; /* a progress line on the terminal */
} Import;

static Import *
import_new(const char *path, guint total, gboolean progress)
{
	Import *import = g_new0(Import, 1);

	import->path = g_strdup(path);
	import->total = total;
	import->failed = g_ptr_array_new_with_free_func(g_free);
	import->progress = progress && isatty(STDERR_FILENO);
	return import;
}

static void
import_free(Import *import)
{
	if (import->progress)
		fputs("\r\033[K", stderr);
	g_ptr_array_unref(import->failed);
	g_free(import->path);
	g_free(import);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Import, import_free)

/* One feed settled: @why is NULL when subscribed, else why not. */
static void
import_count(Import *import, gboolean known, const char *why)
{
	import->settled++;
	if (known)
		import->known++;
	else if (why != NULL)
		g_ptr_array_add(import->failed, g_strdup(why));
	else
		import->subscribed++;
	if (import->progress)
		fprintf(stderr, "\r[%u/%u] feeds checked", import->settled,
		        import->total);
}

/* The summary; FALSE, with @error, when a feed failed. */
static gboolean
import_report(const Import *import, GString *out, GError **error)
{
	g_string_append_printf(out,
	                       "imported %s: %u subscribed, %u already "
	                       "subscribed, %u failed",
	                       import->path, import->subscribed, import->known,
	                       import->failed->len);
	for (guint i = 0; i < import->failed->len; i++)
		g_string_append_printf(out, "\n  %s",
		                       (const char *)import->failed->pdata[i]);
	if (import->failed->len == 0)
		return TRUE;
	g_set_error(error, BRIDGE_COMMAND_ERROR, BRIDGE_COMMAND_ERROR_FAILED,
	            "%u of the %u feeds of %s could not be read; import-opml "
	            "--force keeps them anyway",
	            import->failed->len, import->total, import->path);
	return FALSE;
}

/* [--force] FILE: the file, or NULL after a usage error. */
static const char *
parse_args(char **args, gboolean *force, GError **error)
{
	*force = strcmp(args[0], "--force") == 0;
	if (*force)
		args++;
	if (args[0] == NULL || args[1] != NULL) {
		g_set_error_literal(error, BRIDGE_COMMAND_ERROR,
		                    BRIDGE_COMMAND_ERROR_USAGE,
		                    "usage: import-opml [--force] FILE");
		return NULL;
	}
	return args[0];
}

/* A local import under way: the call ends when every feed is settled. */
typedef struct {
	Import *import;
	BridgeCall *call;
	gboolean started; /* every subscribe is started */
} Local;

static void
finish_if_settled(Local *local)
{
	GError *error = NULL;

	if (!local->started || local->import->settled < local->import->total)
		return;
	import_report(local->import, bridge_call_get_out(local->call), &error);
	import_free(local->import);
	bridge_call_return(local->call, error);
	g_free(local);
}

static void
on_subscribed(Bridge *bridge, BridgeFeed *feed, const GError *error,
              gpointer data)
{
	Local *local = data;

	import_count(local->import,
	             feed == NULL && g_error_matches(error, G_IO_ERROR,
	                                             G_IO_ERROR_EXISTS),
	             feed == NULL ? error->message : NULL);
	finish_if_settled(local);
}

void
bridge_import_start(Bridge *bridge, char **args, BridgeCall *call)
{
	g_autoptr(FeedOpml) opml = NULL;
	GError *error = NULL;
	gboolean force;
	const char *path;
	Local *local;
	guint n;

	/*
	 * In the daemon, the command came from an MPD client, any of which
	 * may send one: it must not open the daemon's files.
	 */
	if (bridge->daemon) {
		bridge_call_return(
		        call,
		        g_error_new_literal(
		                BRIDGE_COMMAND_ERROR,
		                BRIDGE_COMMAND_ERROR_USAGE,
		                "import-opml reads a file, so it does not run "
		                "over MPD: run mpd-bridge import-opml FILE, or "
		                "send subscribe URL for each feed"));
		return;
	}
	path = parse_args(args, &force, &error);
	opml = path != NULL ? feed_opml_new_from_file(path, &error) : NULL;
	if (opml == NULL) {
		bridge_call_return(call, error);
		return;
	}
	n = feed_opml_get_n_subscriptions(opml);
	local = g_new0(Local, 1);
	local->import = import_new(path, n, TRUE);
	local->call = call;
	for (guint i = 0; i < n; i++) {
		const FeedSubscription *s = feed_opml_get_subscription(opml, i);

		bridge_subscribe(bridge, feed_subscription_get_url(s), NULL,
		                 force, on_subscribed, local);
	}
	local->started = TRUE;
	finish_if_settled(local);
}

/* What the threads of an import through the daemon share. */
typedef struct {
	const BridgeConfig *config;
	FeedOpml *opml;
	gboolean force;
	gint next;            /* the next subscription to send */
	GAsyncQueue *answers; /* Answer, one for each subscription */
} Sender;

typedef struct {
	char *url;
	char *answer; /* the daemon's, or NULL */
	GError *error;
} Answer;

static void
answer_free(Answer *answer)
{
	g_free(answer->url);
	g_free(answer->answer);
	g_clear_error(&answer->error);
	g_free(answer);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Answer, answer_free)

typedef struct {
	Sender *sender;
	guint index;
} Thread;

static gpointer
send_subscribes(gpointer data)
{
	Thread *thread = data;
	Sender *sender = thread->sender;
	g_autofree char *reply_channel =
	        g_strdup_printf("%s-reply-%d-%u", sender->config->channel,
	                        (int)getpid(), thread->index);
	guint n = feed_opml_get_n_subscriptions(sender->opml);
	guint i;

	while ((i = (guint)g_atomic_int_add(&sender->next, 1)) < n) {
		const FeedSubscription *s =
		        feed_opml_get_subscription(sender->opml, i);
		g_autofree char *quoted =
		        g_shell_quote(feed_subscription_get_url(s));
		g_autofree char *text = g_strconcat(
		        "subscribe ", sender->force ? "--force " : "", quoted,
		        NULL);
		Answer *answer = g_new0(Answer, 1);
		g_autoptr(GError) error = NULL;

		answer->url = g_strdup(feed_subscription_get_url(s));
		/*
		 * Checked here too: to the daemon, a bare number is a
		 * search's result.
		 */
		if (!bridge_subscribe_check_url(answer->url, &error)) {
			answer->answer =
			        g_strconcat("error ", error->message, NULL);
			g_async_queue_push(sender->answers, answer);
			continue;
		}
		answer->answer = bridge_mpd_request(
		        &sender->config->mpd, sender->config->channel, text,
		        reply_channel, bridge_subscribe_wait_ms(sender->config),
		        &answer->error);
		g_async_queue_push(sender->answers, answer);
	}
	g_free(thread);
	return NULL;
}

/* One answer of the daemon's, counted as the local import counts. */
static void
count_answer(Import *import, const Answer *answer)
{
	g_autofree char *why = NULL;
	const char *text = answer->answer;

	if (text == NULL) {
		why = g_strdup_printf("%s: %s", answer->url,
		                      answer->error->message);
	} else if (g_str_has_prefix(text, "error already subscribed")) {
		import_count(import, TRUE, NULL);
		return;
	} else if (g_str_has_prefix(text, "error not subscribed: ")) {
		why = g_strdup(text + strlen("error not subscribed: "));
	} else if (g_str_has_prefix(text, "error ")) {
		why = g_strdup(text + strlen("error "));
	}
	import_count(import, FALSE, why);
}

gboolean
bridge_import_through_daemon(const BridgeConfig *config, char **args,
                             GString *out, GError **error)
{
	g_autoptr(FeedOpml) opml = NULL;
	g_autoptr(Import) import = NULL;
	g_autoptr(GPtrArray) threads = g_ptr_array_new();
	Sender sender = { 0 };
	const char *path;
	guint n;

	path = parse_args(args, &sender.force, error);
	opml = path != NULL ? feed_opml_new_from_file(path, error) : NULL;
	if (opml == NULL)
		return FALSE;
	n = feed_opml_get_n_subscriptions(opml);
	import = import_new(path, n, TRUE);
	sender.config = config;
	sender.opml = opml;
	sender.answers = g_async_queue_new();
	for (guint i = 0; i < MIN(config->jobs, n); i++) {
		Thread *thread = g_new0(Thread, 1);

		thread->sender = &sender;
		thread->index = i;
		g_ptr_array_add(threads, g_thread_new("import", send_subscribes,
		                                      thread));
	}
	for (guint i = 0; i < n; i++) {
		g_autoptr(Answer) answer = g_async_queue_pop(sender.answers);

		count_answer(import, answer);
	}
	for (guint i = 0; i < threads->len; i++)
		g_thread_join(threads->pdata[i]);
	g_async_queue_unref(sender.answers);
	return import_report(import, out, error);
}
