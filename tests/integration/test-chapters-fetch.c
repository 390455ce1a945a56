/*
 * JSON chapters fetched from feed-server.py over loopback: public API
 * only. The server runs as a child for the whole program and exits by
 * itself when this process dies, because its standard input closes.
 */
#include <curl/curl.h>
#include <feed/feed.h>

#include <gio/gio.h>
#include <string.h>

/* Seconds a test waits for a callback before it fails. */
#define WATCHDOG_SECONDS 60

static GSubprocess *server;
static guint port;

static gboolean
server_start(GError **error)
{
	const char *script = g_getenv("FEED_TEST_SERVER");
	g_autoptr(GDataInputStream) lines = NULL;
	g_autofree char *line = NULL;
	guint64 value;

	if (script == NULL) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
		            "FEED_TEST_SERVER is not set (run through meson "
		            "test)");
		return FALSE;
	}
	server = g_subprocess_new(G_SUBPROCESS_FLAGS_STDIN_PIPE |
	                                  G_SUBPROCESS_FLAGS_STDOUT_PIPE,
	                          error, "/usr/bin/python3", script, NULL);
	if (server == NULL)
		return FALSE;
	lines = g_data_input_stream_new(g_subprocess_get_stdout_pipe(server));
	g_filter_input_stream_set_close_base_stream(
	        G_FILTER_INPUT_STREAM(lines), FALSE);
	line = g_data_input_stream_read_line(lines, NULL, NULL, error);
	if (line == NULL) {
		if (error != NULL && *error == NULL)
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			            "%s printed no port", script);
		return FALSE;
	}
	if (!g_ascii_string_to_unsigned(line, 10, 1, 65535, &value, error))
		return FALSE;
	port = (guint)value;
	return TRUE;
}

static char *
url_of(const char *path)
{
	return g_strdup_printf("http://127.0.0.1:%u%s", port, path);
}

typedef struct {
	gboolean returned; /* feed_fetcher_fetch_chapters() has returned */
	gboolean early;    /* the callback came before it returned */
	guint calls;
	FeedChapterList *list;
	GError *error;
} Outcome;

static void
on_chapters(FeedChapterList *list, const GError *error, gpointer data)
{
	Outcome *outcome = data;

	outcome->calls++;
	outcome->early = !outcome->returned;
	g_assert_true((list == NULL) != (error == NULL));
	if (list != NULL)
		outcome->list = feed_chapter_list_ref(list);
	else
		outcome->error = g_error_copy(error);
}

static gboolean
on_watchdog(gpointer data)
{
	g_error("no callback within %d s", WATCHDOG_SECONDS);
	return G_SOURCE_REMOVE;
}

/*
 * Fetches @path on a fetcher of its own (timeouts in seconds, 0 for the
 * defaults) and waits for the one callback.
 */
static void
fetch(const char *path, guint timeout, Outcome *outcome)
{
	g_autoptr(GMainContext) context = g_main_context_new();
	g_autofree char *url =
	        strstr(path, "://") != NULL ? g_strdup(path) : url_of(path);
	FeedFetcher *fetcher;
	GSource *watchdog = g_timeout_source_new_seconds(WATCHDOG_SECONDS);

	g_assert_null(outcome->list);
	g_assert_null(outcome->error);
	outcome->returned = FALSE;
	outcome->early = FALSE;
	outcome->calls = 0;
	g_main_context_push_thread_default(context);
	g_source_set_callback(watchdog, on_watchdog, NULL, NULL);
	g_source_attach(watchdog, context);
	fetcher = feed_fetcher_new(context);
	if (timeout != 0)
		feed_fetcher_set_timeouts(fetcher, timeout, timeout, timeout);
	feed_fetcher_fetch_chapters(fetcher, url, NULL, on_chapters, outcome);
	outcome->returned = TRUE;
	while (outcome->calls == 0)
		g_main_context_iteration(context, TRUE);
	feed_fetcher_free(fetcher);
	g_source_destroy(watchdog);
	g_source_unref(watchdog);
	while (g_main_context_iteration(context, FALSE))
		;
	g_main_context_pop_thread_default(context);
	g_assert_cmpuint(outcome->calls, ==, 1);
	g_assert_false(outcome->early);
}

static void
outcome_clear(Outcome *outcome)
{
	g_clear_pointer(&outcome->list, feed_chapter_list_unref);
	g_clear_error(&outcome->error);
}

/* Checks @outcome failed with @code and a message that has @words. */
static void
assert_failed(Outcome *outcome, gint code, const char *words)
{
	g_assert_null(outcome->list);
	g_assert_error(outcome->error, FEED_ERROR, code);
	if (strstr(outcome->error->message, words) == NULL)
		g_test_fail_printf("\"%s\" does not say \"%s\"",
		                   outcome->error->message, words);
	outcome_clear(outcome);
}

static void
test_ok(void)
{
	Outcome outcome = { 0 };
	const FeedChapter *c;

	g_test_summary("a 200 gives the sorted chapters, after the call");
	fetch("/data/chapters.json", 0, &outcome);
	g_assert_no_error(outcome.error);
	g_assert_cmpuint(feed_chapter_list_get_n_chapters(outcome.list), ==, 3);
	g_assert_cmpuint(feed_chapter_list_get_n_jumps(outcome.list), ==, 2);
	c = feed_chapter_list_get_chapter(outcome.list, 1);
	g_assert_cmpint(feed_chapter_get_start_ms(c), ==, 60250);
	g_assert_cmpstr(feed_chapter_get_href(c), ==,
	                "https://example.invalid/news");
	outcome_clear(&outcome);
}

static void
test_redirect(void)
{
	Outcome outcome = { 0 };

	g_test_summary("http redirects are followed as for feeds");
	fetch("/redirect/302/3/data/chapters.json", 0, &outcome);
	g_assert_no_error(outcome.error);
	g_assert_cmpuint(feed_chapter_list_get_n_chapters(outcome.list), ==, 3);
	outcome_clear(&outcome);
	fetch("/loop/a", 0, &outcome);
	assert_failed(&outcome, FEED_ERROR_REDIRECT, "loop");
}

static void
test_404(void)
{
	Outcome outcome = { 0 };
	g_autofree char *url = url_of("/status/404");

	g_test_summary("an HTTP error names its status and the URL");
	fetch("/status/404", 0, &outcome);
	g_assert_true(g_str_has_prefix(outcome.error->message, url));
	assert_failed(&outcome, FEED_ERROR_HTTP, "HTTP 404");
}

static void
test_schemes(void)
{
	Outcome outcome = { 0 };

	g_test_summary("file:// is refused, given or through a redirect");
	fetch("/toscheme/file", 0, &outcome);
	assert_failed(&outcome, FEED_ERROR_SCHEME, "not http or https");
	fetch("file:///etc/passwd", 0, &outcome);
	assert_failed(&outcome, FEED_ERROR_SCHEME, "only http and https");
}

static void
test_too_large(void)
{
	Outcome outcome = { 0 };
	g_autofree char *just = g_strdup_printf("/bytes/%d", 4 << 20);
	g_autofree char *over = g_strdup_printf("/bytes/%d", (4 << 20) + 1);

	g_test_summary("a body over 4 MiB is refused, compressed or not");
	fetch(just, 0, &outcome);
	g_assert_no_error(outcome.error);
	g_assert_cmpuint(feed_chapter_list_get_n_chapters(outcome.list), ==, 0);
	outcome_clear(&outcome);
	fetch(over, 0, &outcome);
	assert_failed(&outcome, FEED_ERROR_TOO_LARGE, "MiB cap");
	fetch("/bomb", 0, &outcome);
	assert_failed(&outcome, FEED_ERROR_TOO_LARGE, "MiB cap");
}

static void
test_timeout(void)
{
	Outcome outcome = { 0 };
	gint64 start = g_get_monotonic_time();

	g_test_summary("a server that does not answer times out");
	fetch("/hang/chapters", 1, &outcome);
	g_assert_cmpint(g_get_monotonic_time() - start, <, 10 * G_USEC_PER_SEC);
	assert_failed(&outcome, FEED_ERROR_TIMEOUT, "");
}

static void
test_not_json(void)
{
	Outcome outcome = { 0 };
	g_autofree char *url = url_of("/data/chapters-bad.json");

	g_test_summary("a bad document names the URL and what is wrong");
	fetch("/data/chapters-bad.json", 0, &outcome);
	g_assert_true(g_str_has_prefix(outcome.error->message, url));
	assert_failed(&outcome, FEED_ERROR_PARSE, "chapter 3 has no startTime");
	fetch("/feed/x", 0, &outcome);
	assert_failed(&outcome, FEED_ERROR_PARSE,
	              "not a JSON chapters document");
}

static void
test_sync(void)
{
	g_autofree char *good = url_of("/data/chapters.json");
	g_autofree char *bad = url_of("/status/500");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChapterList) list = NULL;

	g_test_summary("the blocking call gives the same");
	list = feed_chapters_fetch_sync(good, NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(feed_chapter_list_get_n_chapters(list), ==, 3);
	g_clear_pointer(&list, feed_chapter_list_unref);
	list = feed_chapters_fetch_sync(bad, NULL, &error);
	g_assert_null(list);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_HTTP);
}

static void
test_cancel(void)
{
	g_autofree char *url = url_of("/hang/cancel");
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChapterList) list = NULL;

	g_test_summary("a cancelled fetch ends with G_IO_ERROR_CANCELLED");
	g_cancellable_cancel(cancellable);
	list = feed_chapters_fetch_sync(url, cancellable, &error);
	g_assert_null(list);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

int
main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	int status;

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (!server_start(&error)) {
		g_printerr("cannot start the server: %s\n", error->message);
		return 1;
	}
	g_test_add_func("/chapters-fetch/ok", test_ok);
	g_test_add_func("/chapters-fetch/redirect", test_redirect);
	g_test_add_func("/chapters-fetch/404", test_404);
	g_test_add_func("/chapters-fetch/schemes", test_schemes);
	g_test_add_func("/chapters-fetch/too-large", test_too_large);
	g_test_add_func("/chapters-fetch/timeout", test_timeout);
	g_test_add_func("/chapters-fetch/not-json", test_not_json);
	g_test_add_func("/chapters-fetch/sync", test_sync);
	g_test_add_func("/chapters-fetch/cancel", test_cancel);
	status = g_test_run();
	g_subprocess_force_exit(server);
	g_subprocess_wait(server, NULL, NULL);
	g_clear_object(&server);
	curl_global_cleanup();
	return status;
}
