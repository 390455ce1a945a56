/*
 * The fetcher against feed-server.py over loopback HTTP and HTTPS: public
 * API only. The server runs as a child for the whole program; it exits by
 * itself when this process dies, because its standard input closes.
 */
#include <curl/curl.h>
#include <feed/feed.h>
#include <feed/fetcher.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

/* Seconds a test waits for a callback before it fails. */
#define WATCHDOG_SECONDS 60

#define CREDENTIALS "Basic dXNlcjpzZWNyZXQ="

typedef struct {
	GSubprocess *process;
	guint port; /* 0 until started */
} Server;

/* What every test shares: started once by main(). */
typedef struct {
	Server http;
	Server https;
	char *tmp_dir;   /* holds the certificate; removed at exit */
	char *cert_path; /* in tmp_dir */
	char *data_dir;  /* tests/integration/data */
} Harness;

static Harness harness;

/* Starting and talking to the server */

static gboolean
server_start(Server *server, const char *cert, const char *key, GError **error)
{
	const char *script = g_getenv("FEED_TEST_SERVER");
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GDataInputStream) lines = NULL;
	g_autofree char *line = NULL;
	guint64 port;

	if (script == NULL) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
		            "FEED_TEST_SERVER is not set (run through meson "
		            "test)");
		return FALSE;
	}
	g_ptr_array_add(argv, (char *)"/usr/bin/python3");
	g_ptr_array_add(argv, (char *)script);
	if (cert != NULL) {
		g_ptr_array_add(argv, (char *)"--https");
		g_ptr_array_add(argv, (char *)cert);
		g_ptr_array_add(argv, (char *)key);
	}
	g_ptr_array_add(argv, NULL);
	server->process = g_subprocess_newv(
	        (const char *const *)argv->pdata,
	        G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
	        error);
	if (server->process == NULL)
		return FALSE;
	lines = g_data_input_stream_new(
	        g_subprocess_get_stdout_pipe(server->process));
	g_filter_input_stream_set_close_base_stream(
	        G_FILTER_INPUT_STREAM(lines), FALSE);
	line = g_data_input_stream_read_line(lines, NULL, NULL, error);
	if (line == NULL) {
		if (error != NULL && *error == NULL)
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			            "%s printed no port", script);
		return FALSE;
	}
	if (!g_ascii_string_to_unsigned(line, 10, 1, 65535, &port, error))
		return FALSE;
	server->port = (guint)port;
	return TRUE;
}

static void
server_stop(Server *server)
{
	if (server->process == NULL)
		return;
	g_subprocess_force_exit(server->process);
	g_subprocess_wait(server->process, NULL, NULL);
	g_clear_object(&server->process);
}

static gboolean
make_certificate(GError **error)
{
	g_autofree char *key = NULL;
	g_autoptr(GSubprocess) openssl = NULL;

	harness.tmp_dir = g_dir_make_tmp("feed-integ-XXXXXX", error);
	if (harness.tmp_dir == NULL)
		return FALSE;
	harness.cert_path = g_build_filename(harness.tmp_dir, "cert.pem", NULL);
	key = g_build_filename(harness.tmp_dir, "key.pem", NULL);
	openssl = g_subprocess_new(
	        G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
	                G_SUBPROCESS_FLAGS_STDERR_SILENCE,
	        error, "openssl", "req", "-x509", "-newkey", "rsa:2048",
	        "-nodes", "-subj", "/CN=127.0.0.1", "-addext",
	        "subjectAltName=IP:127.0.0.1", "-days", "1", "-keyout", key,
	        "-out", harness.cert_path, NULL);
	if (openssl == NULL)
		return FALSE;
	if (!g_subprocess_wait_check(openssl, NULL, error)) {
		g_prefix_error(error, "openssl req: ");
		return FALSE;
	}
	return server_start(&harness.https, harness.cert_path, key, error);
}

static void
remove_tmp_dir(void)
{
	g_autoptr(GDir) dir = NULL;
	const char *name;

	if (harness.tmp_dir == NULL)
		return;
	dir = g_dir_open(harness.tmp_dir, 0, NULL);
	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree char *path =
		        g_build_filename(harness.tmp_dir, name, NULL);

		g_remove(path);
	}
	g_rmdir(harness.tmp_dir);
}

/* A GET of a control path on the plain server, with HTTP/1.0. */
static char *
server_get(const char *path)
{
	g_autoptr(GSocketClient) client = g_socket_client_new();
	g_autoptr(GSocketConnection) connection = NULL;
	g_autoptr(GOutputStream) sink = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree char *request = NULL;
	g_autofree char *response = NULL;
	char *body;

	connection = g_socket_client_connect_to_host(
	        client, "127.0.0.1", harness.http.port, NULL, &error);
	g_assert_no_error(error);
	request = g_strdup_printf("GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n",
	                          path);
	g_output_stream_write_all(
	        g_io_stream_get_output_stream(G_IO_STREAM(connection)), request,
	        strlen(request), NULL, NULL, &error);
	g_assert_no_error(error);
	sink = g_memory_output_stream_new_resizable();
	g_output_stream_splice(
	        sink, g_io_stream_get_input_stream(G_IO_STREAM(connection)),
	        G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error);
	g_assert_no_error(error);
	g_output_stream_write_all(sink, "", 1, NULL, NULL, NULL);
	response =
	        g_memory_output_stream_steal_data(G_MEMORY_OUTPUT_STREAM(sink));
	g_assert_true(g_str_has_prefix(response, "HTTP/1.0 200") ||
	              g_str_has_prefix(response, "HTTP/1.1 200"));
	body = strstr(response, "\r\n\r\n");
	g_assert_nonnull(body);
	return g_strdup(body + 4);
}

/* One request the server saw, with the value of one of its headers. */
typedef struct {
	char *path;
	char *host;
	char *value; /* NULL when the header was absent */
} LogEntry;

static void
log_entry_free(gpointer data)
{
	LogEntry *entry = data;

	g_free(entry->path);
	g_free(entry->host);
	g_free(entry->value);
	g_free(entry);
}

/* The requests whose path starts with @prefix, oldest first. */
static GPtrArray *
server_find(const char *prefix, const char *header)
{
	g_autofree char *escaped = g_uri_escape_string(prefix, NULL, FALSE);
	g_autofree char *path =
	        g_strdup_printf("/_find?path=%s&header=%s", escaped, header);
	g_autofree char *text = server_get(path);
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	GPtrArray *entries = g_ptr_array_new_with_free_func(log_entry_free);

	for (guint i = 0; lines[i] != NULL; i++) {
		g_auto(GStrv) fields = g_strsplit(lines[i], "\t", 3);
		LogEntry *entry;

		if (g_strv_length(fields) != 3)
			continue;
		entry = g_new0(LogEntry, 1);
		entry->path = g_strdup(fields[0]);
		entry->host = g_strdup(fields[1]);
		if (fields[2][0] == '=')
			entry->value = g_strdup(fields[2] + 1);
		g_ptr_array_add(entries, entry);
	}
	return entries;
}

static guint
server_count(const char *prefix)
{
	g_autoptr(GPtrArray) entries = server_find(prefix, "User-Agent");

	return entries->len;
}

/* A figure of /_stats: @host NULL for the totals. */
static guint
server_stat(const char *key, const char *host)
{
	g_autofree char *text = server_get("/_stats");
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

	for (guint i = 0; lines[i] != NULL; i++) {
		g_auto(GStrv) f = g_strsplit(lines[i], " ", -1);
		guint n = g_strv_length(f);

		if (n == 0 || strcmp(f[0], key) != 0)
			continue;
		if (host == NULL && n == 2)
			return (guint)atoi(f[1]);
		if (host != NULL && n == 3 && strcmp(f[1], host) == 0)
			return (guint)atoi(f[2]);
	}
	return 0;
}

static char *
url_on(const char *host, const char *path)
{
	return g_strdup_printf("http://%s:%u%s", host, harness.http.port, path);
}

static char *
url(const char *path)
{
	return url_on("127.0.0.1", path);
}

/* A new request for @path on the plain server. */
static FeedFetchRequest *
request_for(const char *path)
{
	g_autofree char *address = url(path);

	return feed_fetch_request_new(address);
}

static char *
https_url(const char *host, const char *path)
{
	return g_strdup_printf("https://%s:%u%s", host, harness.https.port,
	                       path);
}

/* Running fetches */

typedef struct {
	GMainContext *context;
	FeedFetcher *fetcher;
} Fixture;

static void
fixture_setup(Fixture *fx, gconstpointer data)
{
	g_free(server_get("/_reset"));
	fx->context = g_main_context_new();
	g_main_context_push_thread_default(fx->context);
	fx->fetcher = feed_fetcher_new(fx->context);
	g_assert_nonnull(fx->fetcher);
}

static void
fixture_teardown(Fixture *fx, gconstpointer data)
{
	g_clear_pointer(&fx->fetcher, feed_fetcher_free);
	while (g_main_context_iteration(fx->context, FALSE))
		;
	g_main_context_pop_thread_default(fx->context);
	g_main_context_unref(fx->context);
}

typedef struct {
	FeedFetchResult *result; /* from the callback */
	GError *error;           /* from the callback, NULL on success */
	gboolean returned;       /* feed_fetcher_fetch() has returned */
	guint calls;             /* how often the callback ran */
	guint *total;            /* (nullable) counts every callback */
} Outcome;

static void
outcome_clear(Outcome *o)
{
	g_clear_pointer(&o->result, feed_fetch_result_unref);
	g_clear_error(&o->error);
}

static void
on_fetched(FeedFetchResult *result, const GError *error, gpointer data)
{
	Outcome *o = data;

	/* The header: never before feed_fetcher_fetch() returns, once. */
	g_assert_true(o->returned);
	g_assert_cmpuint(o->calls, ==, 0);
	g_assert_nonnull(result);
	o->calls++;
	if (o->total != NULL)
		(*o->total)++;
	o->result = feed_fetch_result_ref(result);
	o->error = error != NULL ? g_error_copy(error) : NULL;
}

/* Starts a fetch and frees @request at once: the fetcher copies it. */
static void
start_fetch(Fixture *fx, FeedFetchRequest *request, GCancellable *cancellable,
            Outcome *o)
{
	feed_fetcher_fetch(fx->fetcher, request, cancellable, on_fetched, o);
	feed_fetch_request_free(request);
	o->returned = TRUE;
}

static gboolean
on_watchdog(gpointer data)
{
	gboolean *expired = data;

	*expired = TRUE;
	return G_SOURCE_REMOVE;
}

static void
wait_count(Fixture *fx, const guint *count, guint target)
{
	gboolean expired = FALSE;
	GSource *watchdog = g_timeout_source_new_seconds(WATCHDOG_SECONDS);

	g_source_set_callback(watchdog, on_watchdog, &expired, NULL);
	g_source_attach(watchdog, fx->context);
	while (*count < target && !expired)
		g_main_context_iteration(fx->context, TRUE);
	g_source_destroy(watchdog);
	g_source_unref(watchdog);
	if (expired)
		g_test_message("only %u of %u callbacks within %d s", *count,
		               target, WATCHDOG_SECONDS);
	g_assert_cmpuint(*count, ==, target);
}

/* Fetches and returns the result, which the callback always gives. */
static FeedFetchResult *
fetch_request(Fixture *fx, FeedFetchRequest *request, GError **error)
{
	Outcome o = { 0 };

	start_fetch(fx, request, NULL, &o);
	wait_count(fx, &o.calls, 1);
	if (o.error != NULL)
		g_propagate_error(error, g_steal_pointer(&o.error));
	return o.result;
}

static FeedFetchResult *
fetch_url(Fixture *fx, const char *address, FeedFetchFlags flags,
          GError **error)
{
	FeedFetchRequest *request = feed_fetch_request_new(address);

	feed_fetch_request_set_flags(request, flags);
	return fetch_request(fx, request, error);
}

static FeedFetchResult *
fetch_path(Fixture *fx, const char *path, FeedFetchFlags flags, GError **error)
{
	g_autofree char *address = url(path);

	return fetch_url(fx, address, flags, error);
}

/* Checks feed-server.py's feed @name: title and @n episodes in order. */
static void
assert_feed(const FeedChannel *channel, const char *name, guint n)
{
	g_autofree char *title = g_strdup_printf("Feed %s", name);

	g_assert_nonnull(channel);
	g_assert_cmpstr(feed_channel_get_title(channel), ==, title);
	g_assert_cmpuint(feed_channel_get_n_episodes(channel), ==, n);
	for (guint i = 0; i < n; i++) {
		const FeedEpisode *e = feed_channel_get_episode(channel, i);
		g_autofree char *want =
		        g_strdup_printf("%s episode %u", name, i + 1);

		g_assert_cmpstr(feed_episode_get_title(e), ==, want);
	}
}

static void
assert_updated(FeedFetchResult *result, const char *name, guint n)
{
	g_assert_nonnull(result);
	g_assert_cmpint(feed_fetch_result_get_status(result), ==,
	                FEED_FETCH_UPDATED);
	g_assert_cmpuint(feed_fetch_result_get_http_status(result), ==, 200);
	assert_feed(feed_fetch_result_get_channel(result), name, n);
}

/* The header promises an opaque string: present, and nothing more. */
static void
assert_hash(const char *hash)
{
	g_assert_nonnull(hash);
	g_assert_cmpstr(hash, !=, "");
}

static gint
compare_strings(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const char *const *)a, *(const char *const *)b);
}

/* The titles of a channel's episodes, sorted. */
static GStrv
sorted_titles(const FeedChannel *channel)
{
	GPtrArray *titles = g_ptr_array_new();
	guint n = feed_channel_get_n_episodes(channel);

	for (guint i = 0; i < n; i++)
		g_ptr_array_add(titles,
		                g_strdup(feed_episode_get_title(
		                        feed_channel_get_episode(channel, i))));
	g_ptr_array_sort(titles, compare_strings);
	g_ptr_array_add(titles, NULL);
	return (GStrv)g_ptr_array_free(titles, FALSE);
}

/* "page 1 episode 1", "page 1 episode 2", … for @pages pages. */
static void
assert_pages(const FeedChannel *channel, guint pages)
{
	g_auto(GStrv) titles = NULL;

	g_assert_nonnull(channel);
	titles = sorted_titles(channel);
	g_assert_cmpuint(g_strv_length(titles), ==, 2 * pages);
	for (guint p = 0; p < pages; p++) {
		for (guint k = 0; k < 2; k++) {
			g_autofree char *want = g_strdup_printf(
			        "page %u episode %u", p + 1, k + 1);

			g_assert_cmpstr(titles[2 * p + k], ==, want);
		}
	}
}

/* Basics */

static void
test_basic_updated(Fixture *fx, gconstpointer data)
{
	g_autofree char *address = url("/feed/basic");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("A plain fetch: UPDATED, the episodes, validators, "
	               "hash, URLs");
	result = fetch_url(fx, address, FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(result, "basic", 3);
	g_assert_cmpstr(feed_fetch_result_get_url(result), ==, address);
	g_assert_cmpstr(feed_fetch_result_get_final_url(result), ==, address);
	g_assert_false(feed_fetch_result_is_moved(result));
	g_assert_null(feed_fetch_result_get_discovered_url(result));
	g_assert_null(feed_fetch_result_get_new_feed_url(result));
	g_assert_nonnull(feed_fetch_result_get_etag(result));
	g_assert_cmpstr(feed_fetch_result_get_last_modified(result), ==,
	                "Wed, 01 Jan 2025 00:00:00 GMT");
	assert_hash(feed_fetch_result_get_content_hash(result));
	g_assert_cmpuint(feed_fetch_result_get_bytes_received(result), >, 0);
	g_assert_cmpint(feed_fetch_result_get_elapsed(result), >=, 0);
	g_assert_cmpuint(server_count("/feed/basic"), ==, 1);
}

static void
test_basic_user_agent(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	g_autoptr(GPtrArray) seen = NULL;
	const LogEntry *entry;

	g_test_summary("The User-Agent starts with libfeed/");
	result = fetch_path(fx, "/feed/ua", FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	seen = server_find("/feed/ua", "User-Agent");
	g_assert_cmpuint(seen->len, ==, 1);
	entry = seen->pdata[0];
	g_assert_nonnull(entry->value);
	g_assert_true(g_str_has_prefix(entry->value, "libfeed/"));
}

static void
test_basic_new_feed_url(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("itunes:new-feed-url reaches the result");
	result =
	        fetch_path(fx, "/feed/nf?newurl=1", FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(result, "nf", 3);
	g_assert_cmpstr(feed_fetch_result_get_new_feed_url(result), ==,
	                "http://example.invalid/nf/new.xml");
}

static void
test_basic_atom(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("An Atom feed over HTTP");
	result = fetch_path(fx, "/atom/at", FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(result, "at", 3);
}

/* Conditional requests */

static void
test_conditional_etag(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) first = NULL;
	g_autoptr(FeedFetchResult) second = NULL;
	g_autoptr(GPtrArray) seen = NULL;
	g_autofree char *address = url("/feed/cond");
	FeedFetchRequest *request;
	const char *etag;

	g_test_summary("The ETag of a fetch, sent back, gives NOT_MODIFIED "
	               "and travels as If-None-Match");
	first = fetch_url(fx, address, FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(first, "cond", 3);
	etag = feed_fetch_result_get_etag(first);
	g_assert_nonnull(etag);

	request = feed_fetch_request_new(address);
	feed_fetch_request_set_validators(request, etag, NULL);
	second = fetch_request(fx, request, &error);
	g_assert_no_error(error);
	g_assert_cmpint(feed_fetch_result_get_status(second), ==,
	                FEED_FETCH_NOT_MODIFIED);
	g_assert_cmpuint(feed_fetch_result_get_http_status(second), ==, 304);
	g_assert_null(feed_fetch_result_get_channel(second));
	g_assert_cmpstr(feed_fetch_result_get_final_url(second), ==, address);

	seen = server_find("/feed/cond", "If-None-Match");
	g_assert_cmpuint(seen->len, ==, 2);
	g_assert_null(((LogEntry *)seen->pdata[0])->value);
	g_assert_cmpstr(((LogEntry *)seen->pdata[1])->value, ==, etag);
}

static void
test_conditional_last_modified(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) first = NULL;
	g_autoptr(FeedFetchResult) second = NULL;
	g_autoptr(GPtrArray) seen = NULL;
	g_autofree char *address = url("/feed/condlm");
	FeedFetchRequest *request;
	const char *modified;

	g_test_summary("Last-Modified alone, sent back, gives NOT_MODIFIED "
	               "and travels as If-Modified-Since");
	first = fetch_url(fx, address, FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	modified = feed_fetch_result_get_last_modified(first);
	g_assert_nonnull(modified);

	request = feed_fetch_request_new(address);
	feed_fetch_request_set_validators(request, NULL, modified);
	second = fetch_request(fx, request, &error);
	g_assert_no_error(error);
	g_assert_cmpint(feed_fetch_result_get_status(second), ==,
	                FEED_FETCH_NOT_MODIFIED);
	g_assert_null(feed_fetch_result_get_channel(second));

	seen = server_find("/feed/condlm", "If-Modified-Since");
	g_assert_cmpuint(seen->len, ==, 2);
	g_assert_cmpstr(((LogEntry *)seen->pdata[1])->value, ==, modified);
}

static void
test_conditional_bare_304(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) first = NULL;
	g_autoptr(FeedFetchResult) second = NULL;
	g_autofree char *address = url("/feed/bare?bare304=1");
	FeedFetchRequest *request;

	g_test_summary("A 304 without validators: the result carries the "
	               "request's validators and content hash");
	first = fetch_url(fx, address, FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(first, "bare", 3);

	request = feed_fetch_request_new(address);
	feed_fetch_request_set_validators(
	        request, feed_fetch_result_get_etag(first),
	        feed_fetch_result_get_last_modified(first));
	feed_fetch_request_set_content_hash(
	        request, feed_fetch_result_get_content_hash(first));
	second = fetch_request(fx, request, &error);
	g_assert_no_error(error);
	g_assert_cmpint(feed_fetch_result_get_status(second), ==,
	                FEED_FETCH_NOT_MODIFIED);
	g_assert_cmpstr(feed_fetch_result_get_etag(second), ==,
	                feed_fetch_result_get_etag(first));
	g_assert_cmpstr(feed_fetch_result_get_last_modified(second), ==,
	                feed_fetch_result_get_last_modified(first));
	g_assert_cmpstr(feed_fetch_result_get_content_hash(second), ==,
	                feed_fetch_result_get_content_hash(first));
}

static void
test_conditional_changed(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) first = NULL;
	g_autoptr(FeedFetchResult) second = NULL;
	g_autoptr(FeedFetchResult) third = NULL;
	g_autofree char *address = url("/feed/chg");
	FeedFetchRequest *request;

	g_test_summary("Old validators after the feed changed: UPDATED with "
	               "the new episode and new validators");
	first = fetch_url(fx, address, FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	g_free(server_get("/_bump/chg"));

	request = feed_fetch_request_new(address);
	feed_fetch_request_set_validators(
	        request, feed_fetch_result_get_etag(first),
	        feed_fetch_result_get_last_modified(first));
	feed_fetch_request_set_content_hash(
	        request, feed_fetch_result_get_content_hash(first));
	second = fetch_request(fx, request, &error);
	g_assert_no_error(error);
	assert_updated(second, "chg", 4);
	g_assert_cmpstr(feed_fetch_result_get_etag(second), !=,
	                feed_fetch_result_get_etag(first));
	g_assert_cmpstr(feed_fetch_result_get_content_hash(second), !=,
	                feed_fetch_result_get_content_hash(first));

	request = feed_fetch_request_new(address);
	feed_fetch_request_set_validators(
	        request, feed_fetch_result_get_etag(second),
	        feed_fetch_result_get_last_modified(second));
	third = fetch_request(fx, request, &error);
	g_assert_no_error(error);
	g_assert_cmpint(feed_fetch_result_get_status(third), ==,
	                FEED_FETCH_NOT_MODIFIED);
}

static void
test_conditional_hash_unchanged(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) first = NULL;
	g_autoptr(FeedFetchResult) second = NULL;
	g_autoptr(FeedFetchResult) third = NULL;
	g_autofree char *address = url("/noval/hash");
	FeedFetchRequest *request;
	const char *hash;

	g_test_summary("No validators: the content hash of the last body "
	               "gives UNCHANGED without a channel");
	first = fetch_url(fx, address, FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(first, "hash", 3);
	g_assert_null(feed_fetch_result_get_etag(first));
	g_assert_null(feed_fetch_result_get_last_modified(first));
	hash = feed_fetch_result_get_content_hash(first);
	assert_hash(hash);

	request = feed_fetch_request_new(address);
	feed_fetch_request_set_content_hash(request, hash);
	second = fetch_request(fx, request, &error);
	g_assert_no_error(error);
	g_assert_cmpint(feed_fetch_result_get_status(second), ==,
	                FEED_FETCH_UNCHANGED);
	g_assert_cmpuint(feed_fetch_result_get_http_status(second), ==, 200);
	g_assert_null(feed_fetch_result_get_channel(second));
	g_assert_cmpstr(feed_fetch_result_get_content_hash(second), ==, hash);

	g_free(server_get("/_bump/hash"));
	request = feed_fetch_request_new(address);
	feed_fetch_request_set_content_hash(request, hash);
	third = fetch_request(fx, request, &error);
	g_assert_no_error(error);
	assert_updated(third, "hash", 4);
	g_assert_cmpstr(feed_fetch_result_get_content_hash(third), !=, hash);
}

/* Redirects */

static void
test_redirect_chain(Fixture *fx, gconstpointer data)
{
	guint code = GPOINTER_TO_UINT(data);
	g_autofree char *path =
	        g_strdup_printf("/redirect/%u/3/feed/r%u", code, code);
	g_autofree char *name = g_strdup_printf("r%u", code);
	g_autofree char *start = url(path);
	g_autofree char *final = g_strdup_printf("/feed/%s", name);
	g_autofree char *final_url = url(final);
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("Three redirects of one status: the final URL, and "
	               "is_moved only for 301 and 308");
	result = fetch_url(fx, start, FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(result, name, 3);
	g_assert_cmpstr(feed_fetch_result_get_url(result), ==, start);
	g_assert_cmpstr(feed_fetch_result_get_final_url(result), ==, final_url);
	if (code == 301 || code == 308)
		g_assert_true(feed_fetch_result_is_moved(result));
	else
		g_assert_false(feed_fetch_result_is_moved(result));
	g_assert_cmpuint(server_count("/redirect/"), ==, 3);
}

static void
test_redirect_mixed(Fixture *fx, gconstpointer data)
{
	g_autofree char *final_url = url("/feed/mix");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("A 301 then a 302: not moved");
	result = fetch_path(fx, "/mixed/feed/mix", FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(result, "mix", 3);
	g_assert_cmpstr(feed_fetch_result_get_final_url(result), ==, final_url);
	g_assert_false(feed_fetch_result_is_moved(result));
}

static void
test_redirect_loop(Fixture *fx, gconstpointer data)
{
	g_autofree char *address = url("/loop/a");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("Redirects that loop: FEED_ERROR_REDIRECT");
	result = fetch_url(fx, address, FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_REDIRECT);
	g_assert_cmpstr(feed_fetch_result_get_url(result), ==, address);
	/* At most the default 10 redirects, then the one that failed. */
	g_assert_cmpuint(server_count("/loop/"), <=, 11);
}

static void
test_redirect_too_many(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) eleven = NULL;
	g_autoptr(FeedFetchResult) ten = NULL;
	g_autoptr(FeedFetchResult) two = NULL;
	g_autoptr(FeedFetchResult) three = NULL;

	g_test_summary("10 redirects by default, then FEED_ERROR_REDIRECT; "
	               "feed_fetcher_set_max_redirects() changes it");
	ten = fetch_path(fx, "/redirect/302/10/feed/many10", FEED_FETCH_DEFAULT,
	                 &error);
	g_assert_no_error(error);
	assert_updated(ten, "many10", 3);
	eleven = fetch_path(fx, "/redirect/302/11/feed/many11",
	                    FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_REDIRECT);
	g_clear_error(&error);
	g_assert_cmpuint(server_count("/feed/many11"), ==, 0);

	feed_fetcher_set_max_redirects(fx->fetcher, 2);
	two = fetch_path(fx, "/redirect/301/2/feed/two", FEED_FETCH_DEFAULT,
	                 &error);
	g_assert_no_error(error);
	assert_updated(two, "two", 3);
	three = fetch_path(fx, "/redirect/301/3/feed/three", FEED_FETCH_DEFAULT,
	                   &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_REDIRECT);
	g_assert_cmpuint(server_count("/feed/three"), ==, 0);
}

static void
test_redirect_to_scheme(Fixture *fx, gconstpointer data)
{
	const char *path = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("A redirect to file:// or ftp://: FEED_ERROR_SCHEME, "
	               "even with FEED_FETCH_ALLOW_FILE");
	result = fetch_path(fx, path, FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_SCHEME);
	g_assert_null(feed_fetch_result_get_channel(result));
	g_clear_error(&error);
	g_clear_pointer(&result, feed_fetch_result_unref);

	result = fetch_path(fx, path, FEED_FETCH_ALLOW_FILE, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_SCHEME);
	g_assert_null(feed_fetch_result_get_channel(result));
	g_assert_cmpuint(feed_fetch_result_get_http_status(result), ==, 302);
	g_assert_cmpuint(server_count(path), ==, 2);
}

/* Schemes */

static void
test_scheme_file(Fixture *fx, gconstpointer data)
{
	g_autofree char *path =
	        g_build_filename(harness.data_dir, "feedtool.xml", NULL);
	g_autofree char *address = g_filename_to_uri(path, NULL, NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) refused = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	FeedChannel *channel;

	g_test_summary("file:// is refused unless FEED_FETCH_ALLOW_FILE");
	refused = fetch_url(fx, address, FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_SCHEME);
	g_assert_null(feed_fetch_result_get_channel(refused));
	g_assert_cmpstr(feed_fetch_result_get_url(refused), ==, address);
	g_clear_error(&error);

	result = fetch_url(fx, address, FEED_FETCH_ALLOW_FILE, &error);
	g_assert_no_error(error);
	g_assert_cmpint(feed_fetch_result_get_status(result), ==,
	                FEED_FETCH_UPDATED);
	channel = feed_fetch_result_get_channel(result);
	g_assert_nonnull(channel);
	g_assert_cmpstr(feed_channel_get_title(channel), ==,
	                "Integration Fixture");
	g_assert_cmpuint(feed_channel_get_n_episodes(channel), ==, 2);
	g_assert_cmpstr(
	        feed_episode_get_title(feed_channel_get_episode(channel, 0)),
	        ==, "Fixture episode one");
}

static void
test_scheme_ftp(Fixture *fx, gconstpointer data)
{
	g_autofree char *address =
	        g_strdup_printf("ftp://127.0.0.1:%u/x.xml", harness.http.port);
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("An ftp:// URL is refused without a connection");
	result = fetch_url(fx, address, FEED_FETCH_ALLOW_FILE, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_SCHEME);
	g_assert_cmpuint(feed_fetch_result_get_http_status(result), ==, 0);
}

/* HTTP statuses */

typedef struct {
	const char *path;
	guint status;
	FeedError code;
} StatusCase;

static const StatusCase status_cases[] = {
	{ "/status/404", 404, FEED_ERROR_HTTP },
	{ "/status/410", 410, FEED_ERROR_GONE },
	{ "/status/500", 500, FEED_ERROR_HTTP },
	{ "/status/503", 503, FEED_ERROR_HTTP },
};

static void
test_status(Fixture *fx, gconstpointer data)
{
	const StatusCase *c = data;
	g_autofree char *address = url(c->path);
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("An HTTP error status: its error code, and the "
	               "status in the result");
	result = fetch_url(fx, address, FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, (gint)c->code);
	g_assert_nonnull(strstr(error->message, address));
	g_assert_cmpuint(feed_fetch_result_get_http_status(result), ==,
	                 c->status);
	g_assert_cmpstr(feed_fetch_result_get_url(result), ==, address);
	g_assert_null(feed_fetch_result_get_channel(result));
	g_assert_cmpuint(server_count(c->path), ==, 1);
}

/* Compression and size */

static void
test_gzip_decoded(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) zipped = NULL;
	g_autoptr(FeedFetchResult) plain = NULL;
	g_autoptr(GPtrArray) seen = NULL;
	const char *accept;

	g_test_summary("Accept-Encoding offers gzip; a gzip body is decoded "
	               "and counted compressed");
	zipped = fetch_path(fx, "/gzip/gz?n=20", FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(zipped, "gz", 20);
	plain = fetch_path(fx, "/noval/gz?n=20", FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(plain, "gz", 20);

	seen = server_find("/gzip/gz", "Accept-Encoding");
	g_assert_cmpuint(seen->len, ==, 1);
	accept = ((LogEntry *)seen->pdata[0])->value;
	g_assert_nonnull(accept);
	g_assert_nonnull(strstr(accept, "gzip"));
	g_assert_cmpuint(feed_fetch_result_get_bytes_received(zipped), <,
	                 feed_fetch_result_get_bytes_received(plain));
	/* The hash is of the document, not of its encoding. */
	g_assert_cmpstr(feed_fetch_result_get_content_hash(zipped), ==,
	                feed_fetch_result_get_content_hash(plain));
}

static void
test_gzip_bomb(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("A small gzip body inflating to 200 MiB: "
	               "FEED_ERROR_TOO_LARGE at a 1 MiB cap");
	feed_fetcher_set_max_size(fx->fetcher, 1 << 20);
	result = fetch_path(fx, "/bomb", FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_TOO_LARGE);
	g_assert_null(feed_fetch_result_get_channel(result));
}

static void
test_size_plain(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	g_autoptr(FeedFetchResult) small = NULL;

	g_test_summary("An uncompressed body past the cap: "
	               "FEED_ERROR_TOO_LARGE; a smaller one is fine");
	feed_fetcher_set_max_size(fx->fetcher, 64 << 10);
	result = fetch_path(fx, "/noval/big?n=400", FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_TOO_LARGE);
	g_clear_error(&error);
	small = fetch_path(fx, "/noval/small", FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(small, "small", 3);
}

/* Slow, stalled and broken transfers */

static void
test_slow(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("A body dribbled over 2 s with a 1 s stall timeout: "
	               "bytes keep coming, so it completes");
	feed_fetcher_set_timeouts(fx->fetcher, 5, 60, 1);
	result = fetch_path(fx, "/slow", FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(result, "slow", 3);
}

static void
test_stall(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("Half a body, then silence: FEED_ERROR_TIMEOUT after "
	               "the stall timeout");
	feed_fetcher_set_timeouts(fx->fetcher, 5, 60, 1);
	result = fetch_path(fx, "/stall", FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_TIMEOUT);
	g_assert_cmpuint(feed_fetch_result_get_http_status(result), ==, 200);
	g_assert_cmpuint(feed_fetch_result_get_bytes_received(result), >, 0);
}

static void
test_total_timeout(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("A 1 s limit on the whole transfer: "
	               "FEED_ERROR_TIMEOUT on a stalled body");
	feed_fetcher_set_timeouts(fx->fetcher, 5, 1, 30);
	result = fetch_path(fx, "/stall", FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_TIMEOUT);
}

static void
test_timeout_not_queued(Fixture *fx, gconstpointer data)
{
	Outcome stalled = { 0 };
	Outcome queued = { 0 };

	g_test_summary("One transfer at a time and a 2 s limit: a feed that "
	               "waits behind a stalled one for that long still gets "
	               "its own 2 s");
	feed_fetcher_set_max_transfers(fx->fetcher, 1);
	feed_fetcher_set_timeouts(fx->fetcher, 5, 2, 30);
	start_fetch(fx, request_for("/stall"), NULL, &stalled);
	start_fetch(fx, request_for("/feed/queued"), NULL, &queued);
	wait_count(fx, &queued.calls, 1);
	g_assert_error(stalled.error, FEED_ERROR, FEED_ERROR_TIMEOUT);
	g_assert_no_error(queued.error);
	assert_updated(queued.result, "queued", 3);
	outcome_clear(&stalled);
	outcome_clear(&queued);
}

static void
collect_title(FeedEpisode *episode, gpointer data)
{
	GPtrArray *titles = data;

	g_ptr_array_add(titles, g_strdup(feed_episode_get_title(episode)));
}

/*
 * @data is the server's path: a body cut in its third item, short of its
 * Content-Length or without its last chunk.
 */
static void
test_truncated(Fixture *fx, gconstpointer data)
{
	const char *path = data;
	g_autofree char *first = g_strdup_printf("%s episode 1", path + 1);
	g_autofree char *second = g_strdup_printf("%s episode 2", path + 1);
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	g_autoptr(FeedFetchResult) streamed = NULL;
	g_autoptr(GPtrArray) titles = g_ptr_array_new_with_free_func(g_free);
	FeedFetchRequest *request;

	g_test_summary("A body cut short of its length: the fetch fails with "
	               "FEED_ERROR_NETWORK and says truncated, though the "
	               "parser could repair the document; the whole items "
	               "before the cut still stream out");
	result = fetch_path(fx, path, FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_NETWORK);
	g_assert_nonnull(strstr(error->message, "truncated"));
	g_assert_null(feed_fetch_result_get_channel(result));
	g_assert_cmpuint(feed_fetch_result_get_http_status(result), ==, 200);
	g_clear_error(&error);

	request = request_for(path);
	feed_fetch_request_set_episode_func(request, collect_title, titles);
	streamed = fetch_request(fx, request, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_NETWORK);
	g_assert_cmpuint(titles->len, ==, 2);
	g_assert_cmpstr(titles->pdata[0], ==, first);
	g_assert_cmpstr(titles->pdata[1], ==, second);
}

static void
test_hang(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("A server that reads the request and never answers: "
	               "FEED_ERROR_TIMEOUT after the stall timeout, no HTTP "
	               "status");
	feed_fetcher_set_timeouts(fx->fetcher, 5, 60, 1);
	result = fetch_path(fx, "/hang", FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_TIMEOUT);
	g_assert_cmpuint(feed_fetch_result_get_http_status(result), ==, 0);
	g_assert_cmpuint(feed_fetch_result_get_bytes_received(result), ==, 0);
}

static void
test_reset(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("A connection closed without an answer: "
	               "FEED_ERROR_NETWORK, no HTTP status");
	result = fetch_path(fx, "/reset", FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_NETWORK);
	g_assert_cmpuint(feed_fetch_result_get_http_status(result), ==, 0);
}

static void
test_reset_body(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("Headers and half a body, then a RST: "
	               "FEED_ERROR_NETWORK naming the reset, no channel");
	result = fetch_path(fx, "/reset-body", FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_NETWORK);
	g_assert_nonnull(strstr(error->message, "reset"));
	g_assert_null(feed_fetch_result_get_channel(result));
	g_assert_cmpuint(feed_fetch_result_get_http_status(result), ==, 200);
}

static void
test_refused(Fixture *fx, gconstpointer data)
{
	g_autoptr(GSocket) socket = NULL;
	g_autoptr(GInetAddress) loopback = NULL;
	g_autoptr(GSocketAddress) any = NULL;
	g_autoptr(GSocketAddress) bound = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	g_autofree char *address = NULL;
	guint port;

	g_test_summary("Nobody listening: FEED_ERROR_NETWORK");
	/* A port that was free a moment ago and is closed now. */
	socket = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
	                      G_SOCKET_PROTOCOL_TCP, &error);
	g_assert_no_error(error);
	loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	any = g_inet_socket_address_new(loopback, 0);
	g_socket_bind(socket, any, FALSE, &error);
	g_assert_no_error(error);
	bound = g_socket_get_local_address(socket, &error);
	g_assert_no_error(error);
	port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
	g_socket_close(socket, NULL);

	address = g_strdup_printf("http://127.0.0.1:%u/feed/x", port);
	result = fetch_url(fx, address, FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_NETWORK);
	g_assert_nonnull(strstr(error->message, "127.0.0.1"));
	g_assert_cmpuint(feed_fetch_result_get_http_status(result), ==, 0);
}

/* Autodiscovery */

static void
test_discovery(Fixture *fx, gconstpointer data)
{
	const char *kind = data;
	g_autofree char *page_path =
	        g_strdup_printf("/page/%s/d%s", kind, kind);
	g_autofree char *name = g_strdup_printf("d%s", kind);
	g_autofree char *feed_path = g_strdup_printf(
	        "/%s/%s", strcmp(kind, "rss") == 0 ? "feed" : "atom", name);
	g_autofree char *page = url(page_path);
	g_autofree char *feed = url(feed_path);
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("An HTML page linking a feed: the discovered URL and "
	               "the linked feed's episodes");
	result = fetch_url(fx, page, FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(result, name, 3);
	g_assert_cmpstr(feed_fetch_result_get_url(result), ==, page);
	g_assert_cmpstr(feed_fetch_result_get_discovered_url(result), ==, feed);
	g_assert_cmpstr(feed_fetch_result_get_final_url(result), ==, feed);
	g_assert_cmpuint(server_count(feed_path), ==, 1);
}

static void
test_discovery_none(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("An HTML page linking no feed: FEED_ERROR_NO_FEED");
	result = fetch_path(fx, "/page/none", FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_NO_FEED);
	g_assert_null(feed_fetch_result_get_discovered_url(result));
	g_assert_null(feed_fetch_result_get_channel(result));
}

static void
test_discovery_disabled(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("FEED_FETCH_NO_DISCOVERY: the page is not a feed, and "
	               "its link is not followed");
	result = fetch_path(fx, "/page/rss/nodisc", FEED_FETCH_NO_DISCOVERY,
	                    &error);
	g_assert_nonnull(error);
	g_test_message("no discovery: %s", error->message);
	g_assert_true(error->domain == FEED_ERROR);
	g_assert_true(error->code == FEED_ERROR_PARSE ||
	              error->code == FEED_ERROR_UNSUPPORTED ||
	              error->code == FEED_ERROR_NO_FEED);
	g_assert_null(feed_fetch_result_get_discovered_url(result));
	g_assert_cmpuint(server_count("/feed/nodisc"), ==, 0);
}

static void
test_html_as_feed(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("A feed served as text/html is still read as a feed");
	result = fetch_path(fx, "/html-as-feed", FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(result, "htmlfeed", 3);
	g_assert_null(feed_fetch_result_get_discovered_url(result));
}

/* Paged feeds (RFC 5005) */

static void
test_pages_follow(Fixture *fx, gconstpointer data)
{
	const char *kind = data;
	g_autofree char *first = g_strdup_printf("/%s/1", kind);
	g_autofree char *prefix = g_strdup_printf("/%s/", kind);
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("FEED_FETCH_FOLLOW_PAGES: the episodes of all three "
	               "pages, merged");
	result = fetch_path(fx, first, FEED_FETCH_FOLLOW_PAGES, &error);
	g_assert_no_error(error);
	g_assert_cmpint(feed_fetch_result_get_status(result), ==,
	                FEED_FETCH_UPDATED);
	assert_pages(feed_fetch_result_get_channel(result), 3);
	g_assert_cmpuint(server_count(prefix), ==, 3);
}

static void
test_pages_first_only(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("Without FEED_FETCH_FOLLOW_PAGES: page 1 only");
	result = fetch_path(fx, "/paged/1", FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_pages(feed_fetch_result_get_channel(result), 1);
	g_assert_cmpuint(server_count("/paged/"), ==, 1);
}

static void
test_pages_max(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	FeedFetchRequest *request = request_for("/paged/1");

	g_test_summary("feed_fetch_request_set_max_pages(1): one page after "
	               "the first");
	feed_fetch_request_set_flags(request, FEED_FETCH_FOLLOW_PAGES);
	feed_fetch_request_set_max_pages(request, 1);
	result = fetch_request(fx, request, &error);
	g_assert_no_error(error);
	assert_pages(feed_fetch_result_get_channel(result), 2);
	g_assert_cmpuint(server_count("/paged/"), ==, 2);
}

static void
test_pages_loop(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	FeedChannel *channel;

	g_test_summary("Pages whose next links loop: the fetch ends, after "
	               "at most 1 + 10 pages");
	result = fetch_path(fx, "/paged-loop/1", FEED_FETCH_FOLLOW_PAGES,
	                    &error);
	g_assert_cmpuint(server_count("/paged-loop/"), <=, 11);
	if (error != NULL) {
		g_test_message("page loop: %s", error->message);
		g_assert_true(error->domain == FEED_ERROR);
		return;
	}
	channel = feed_fetch_result_get_channel(result);
	g_assert_nonnull(channel);
	g_assert_cmpuint(feed_channel_get_n_episodes(channel), >=, 4);
	g_assert_cmpuint(feed_channel_get_n_episodes(channel), <=, 22);
}

/* Authentication */

static void
assert_authorization(const char *prefix, const char *host, gboolean sent)
{
	g_autoptr(GPtrArray) seen = server_find(prefix, "Authorization");
	const LogEntry *last;

	g_assert_cmpuint(seen->len, >=, 1);
	last = seen->pdata[seen->len - 1];
	g_assert_cmpstr(last->host, ==, host);
	if (sent)
		g_assert_cmpstr(last->value, ==, CREDENTIALS);
	else
		g_assert_null(last->value);
}

static void
test_auth_userinfo(Fixture *fx, gconstpointer data)
{
	g_autofree char *address = g_strdup_printf(
	        "http://user:secret@127.0.0.1:%u/auth/ui", harness.http.port);
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("user:secret@ in the URL authenticates");
	result = fetch_url(fx, address, FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(result, "ui", 3);
	assert_authorization("/auth/ui", "127.0.0.1", TRUE);
}

static void
test_auth_credentials(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	FeedFetchRequest *request = request_for("/auth/cr");

	g_test_summary("feed_fetch_request_set_credentials() authenticates");
	feed_fetch_request_set_credentials(request, "user", "secret");
	result = fetch_request(fx, request, &error);
	g_assert_no_error(error);
	assert_updated(result, "cr", 3);
	assert_authorization("/auth/cr", "127.0.0.1", TRUE);
}

static void
test_auth_refused(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) none = NULL;
	g_autoptr(FeedFetchResult) wrong = NULL;
	FeedFetchRequest *request = request_for("/auth/no");

	g_test_summary("No or wrong credentials: FEED_ERROR_HTTP with 401");
	none = fetch_path(fx, "/auth/no", FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_HTTP);
	g_assert_cmpuint(feed_fetch_result_get_http_status(none), ==, 401);
	g_clear_error(&error);

	feed_fetch_request_set_credentials(request, "user", "wrong");
	wrong = fetch_request(fx, request, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_HTTP);
	g_assert_cmpuint(feed_fetch_result_get_http_status(wrong), ==, 401);
}

static void
test_auth_other_host(Fixture *fx, gconstpointer data)
{
	gboolean in_url = GPOINTER_TO_INT(data);
	g_autofree char *final = url_on("localhost", "/feed/xh");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	FeedFetchRequest *request;

	g_test_summary("Credentials are not sent to another host a redirect "
	               "leads to (127.0.0.1 -> localhost)");
	if (in_url) {
		g_autofree char *address =
		        g_strdup_printf("http://user:secret@127.0.0.1:%u"
		                        "/authredirect/localhost/feed/xh",
		                        harness.http.port);

		request = feed_fetch_request_new(address);
	} else {
		g_autofree char *address =
		        url("/authredirect/localhost/feed/xh");

		request = feed_fetch_request_new(address);
		feed_fetch_request_set_credentials(request, "user", "secret");
	}
	result = fetch_request(fx, request, &error);
	g_assert_no_error(error);
	assert_updated(result, "xh", 3);
	g_assert_cmpstr(feed_fetch_result_get_final_url(result), ==, final);
	assert_authorization("/authredirect/", "127.0.0.1", TRUE);
	assert_authorization("/feed/xh", "localhost", FALSE);
}

static void
test_auth_same_host(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	FeedFetchRequest *request =
	        request_for("/authredirect/127.0.0.1/auth/sh");

	g_test_summary("A redirect on the feed's own host keeps the "
	               "credentials");
	feed_fetch_request_set_credentials(request, "user", "secret");
	result = fetch_request(fx, request, &error);
	g_assert_no_error(error);
	assert_updated(result, "sh", 3);
	assert_authorization("/auth/sh", "127.0.0.1", TRUE);
}

/* HTTPS */

static void
test_https(Fixture *fx, gconstpointer data)
{
	g_autofree char *address = https_url("127.0.0.1", "/feed/tls");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	g_autoptr(FeedFetchResult) again = NULL;
	FeedFetchRequest *request;

	g_test_summary("A feed over HTTPS with a certificate the CA bundle "
	               "trusts, and a conditional GET over it");
	result = fetch_url(fx, address, FEED_FETCH_DEFAULT, &error);
	g_assert_no_error(error);
	assert_updated(result, "tls", 3);
	g_assert_cmpstr(feed_fetch_result_get_final_url(result), ==, address);

	request = feed_fetch_request_new(address);
	feed_fetch_request_set_validators(
	        request, feed_fetch_result_get_etag(result), NULL);
	again = fetch_request(fx, request, &error);
	g_assert_no_error(error);
	g_assert_cmpint(feed_fetch_result_get_status(again), ==,
	                FEED_FETCH_NOT_MODIFIED);
}

static void
test_https_wrong_host(Fixture *fx, gconstpointer data)
{
	g_autofree char *address = https_url("localhost", "/feed/tls");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("A certificate for another name is refused: "
	               "FEED_ERROR_NETWORK");
	result = fetch_url(fx, address, FEED_FETCH_DEFAULT, &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_NETWORK);
	g_assert_null(feed_fetch_result_get_channel(result));
}

/* Many fetches at once */

typedef struct {
	guint max_transfers; /* 0: leave the default */
	guint max_per_host;  /* 0: leave the default */
	guint n;
} ManyCase;

static void
run_many(Fixture *fx, const ManyCase *c, const char *const *hosts)
{
	g_autofree Outcome *outcomes = g_new0(Outcome, c->n);
	guint total = 0;

	if (c->max_transfers != 0)
		feed_fetcher_set_max_transfers(fx->fetcher, c->max_transfers);
	if (c->max_per_host != 0)
		feed_fetcher_set_max_per_host(fx->fetcher, c->max_per_host);
	for (guint i = 0; i < c->n; i++) {
		g_autofree char *path =
		        g_strdup_printf("/feed/many%u?delay=100", i);
		g_autofree char *address = url_on(hosts[i % 2], path);

		outcomes[i].total = &total;
		start_fetch(fx, feed_fetch_request_new(address), NULL,
		            &outcomes[i]);
	}
	wait_count(fx, &total, c->n);
	for (guint i = 0; i < c->n; i++) {
		g_autofree char *name = g_strdup_printf("many%u", i);

		g_assert_no_error(outcomes[i].error);
		assert_updated(outcomes[i].result, name, 3);
		g_assert_cmpuint(outcomes[i].calls, ==, 1);
		outcome_clear(&outcomes[i]);
	}
}

static void
test_many_max_transfers(Fixture *fx, gconstpointer data)
{
	static const char *const hosts[] = { "127.0.0.1", "127.0.0.1" };
	const ManyCase c = { 8, 64, 50 };
	guint active;

	g_test_summary("50 fetches, at most 8 transfers: all complete, the "
	               "server never sees more than 8 at once");
	run_many(fx, &c, hosts);
	active = server_stat("max_active", NULL);
	g_test_message("at most %u requests and %u connections at once", active,
	               server_stat("max_connections", NULL));
	g_assert_cmpuint(active, <=, 8);
	g_assert_cmpuint(active, >=, 2);
	g_assert_cmpuint(server_stat("max_connections", NULL), <=, 8);
}

static void
test_many_per_host(Fixture *fx, gconstpointer data)
{
	static const char *const hosts[] = { "127.0.0.1", "localhost" };
	const ManyCase c = { 8, 0, 40 };

	g_test_summary("40 fetches on two hosts, default 2 per host: all "
	               "complete, never more than 2 at once on a host");
	run_many(fx, &c, hosts);
	g_test_message("per host: %u and %u requests at once",
	               server_stat("max_active_host", "127.0.0.1"),
	               server_stat("max_active_host", "localhost"));
	g_assert_cmpuint(server_stat("max_active_host", "127.0.0.1"), <=, 2);
	g_assert_cmpuint(server_stat("max_active_host", "localhost"), <=, 2);
	g_assert_cmpuint(server_stat("max_active_host", "localhost"), >=, 1);
	g_assert_cmpuint(server_stat("max_connections_host", "127.0.0.1"), <=,
	                 2);
	g_assert_cmpuint(server_stat("max_connections_host", "localhost"), <=,
	                 2);
	g_assert_cmpuint(server_stat("max_active", NULL), <=, 4);
}

/* Cancellation */

typedef struct {
	GCancellable *cancellable;
	const char *prefix;
} CancelWhenSeen;

static gboolean
cancel_when_seen(gpointer data)
{
	CancelWhenSeen *c = data;

	if (server_count(c->prefix) == 0)
		return G_SOURCE_CONTINUE;
	g_cancellable_cancel(c->cancellable);
	return G_SOURCE_REMOVE;
}

static void
test_cancel_before(Fixture *fx, gconstpointer data)
{
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	g_autofree char *address = url("/feed/precancel");
	Outcome o = { 0 };

	g_test_summary("A fetch cancelled before it starts: "
	               "G_IO_ERROR_CANCELLED, after feed_fetcher_fetch() "
	               "returns");
	g_cancellable_cancel(cancellable);
	start_fetch(fx, feed_fetch_request_new(address), cancellable, &o);
	wait_count(fx, &o.calls, 1);
	g_assert_error(o.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
	g_assert_cmpstr(feed_fetch_result_get_url(o.result), ==, address);
	g_assert_null(feed_fetch_result_get_channel(o.result));
	outcome_clear(&o);
}

static void
test_cancel_during(Fixture *fx, gconstpointer data)
{
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	CancelWhenSeen when = { cancellable, "/stall" };
	GSource *poll = g_timeout_source_new(20);
	Outcome stalled = { 0 };
	Outcome other = { 0 };

	g_test_summary("Cancelling one running fetch: G_IO_ERROR_CANCELLED "
	               "for it, the other completes");
	g_source_set_callback(poll, cancel_when_seen, &when, NULL);
	g_source_attach(poll, fx->context);
	start_fetch(fx, request_for("/stall"), cancellable, &stalled);
	start_fetch(fx, request_for("/feed/other?delay=200"), NULL, &other);
	wait_count(fx, &stalled.calls, 1);
	g_source_destroy(poll);
	g_source_unref(poll);
	g_assert_true(g_cancellable_is_cancelled(cancellable));
	g_assert_error(stalled.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
	g_assert_null(feed_fetch_result_get_channel(stalled.result));
	wait_count(fx, &other.calls, 1);
	g_assert_no_error(other.error);
	assert_updated(other.result, "other", 3);
	outcome_clear(&stalled);
	outcome_clear(&other);
}

static void
test_cancel_free_fetcher(Fixture *fx, gconstpointer data)
{
	Outcome o = { 0 };
	guint seen = 0;

	g_test_summary("Freeing a fetcher with a transfer running: its "
	               "callback runs first, with G_IO_ERROR_CANCELLED");
	start_fetch(fx, request_for("/stall"), NULL, &o);
	for (guint i = 0; i < 1000 && seen == 0 && o.calls == 0; i++) {
		g_main_context_iteration(fx->context, FALSE);
		g_usleep(10000);
		seen = server_count("/stall");
	}
	g_assert_cmpuint(seen, ==, 1);
	g_assert_cmpuint(o.calls, ==, 0);
	g_clear_pointer(&fx->fetcher, feed_fetcher_free);
	g_assert_cmpuint(o.calls, ==, 1);
	g_assert_error(o.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
	outcome_clear(&o);
}

/* Streaming episodes */

static void
test_stream_episodes(Fixture *fx, gconstpointer data)
{
	g_autoptr(GPtrArray) titles = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	FeedFetchRequest *request = request_for("/feed/stream?n=5");
	FeedChannel *channel;

	g_test_summary("An episode callback gets every episode in order; "
	               "the result's channel holds none");
	feed_fetch_request_set_episode_func(request, collect_title, titles);
	result = fetch_request(fx, request, &error);
	g_assert_no_error(error);
	g_assert_cmpint(feed_fetch_result_get_status(result), ==,
	                FEED_FETCH_UPDATED);
	channel = feed_fetch_result_get_channel(result);
	g_assert_nonnull(channel);
	g_assert_cmpstr(feed_channel_get_title(channel), ==, "Feed stream");
	g_assert_cmpuint(feed_channel_get_n_episodes(channel), ==, 0);
	g_assert_cmpuint(titles->len, ==, 5);
	for (guint i = 0; i < 5; i++) {
		g_autofree char *want =
		        g_strdup_printf("stream episode %u", i + 1);

		g_assert_cmpstr(titles->pdata[i], ==, want);
	}
}

static void
test_stream_pages(Fixture *fx, gconstpointer data)
{
	g_autoptr(GPtrArray) titles = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	FeedFetchRequest *request = request_for("/paged/1");

	g_test_summary("Followed pages stream their episodes too");
	feed_fetch_request_set_flags(request, FEED_FETCH_FOLLOW_PAGES);
	feed_fetch_request_set_episode_func(request, collect_title, titles);
	result = fetch_request(fx, request, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(titles->len, ==, 6);
	g_assert_cmpuint(feed_channel_get_n_episodes(
	                         feed_fetch_result_get_channel(result)),
	                 ==, 0);
}

/* A copy of the body */

/* What a memory stream holds, as a NUL-terminated string. */
static char *
stream_text(GOutputStream *stream)
{
	GMemoryOutputStream *memory = G_MEMORY_OUTPUT_STREAM(stream);

	return g_strndup(g_memory_output_stream_get_data(memory),
	                 g_memory_output_stream_get_data_size(memory));
}

/* Fetches @path with a copy of the body into a new memory stream. */
static FeedFetchResult *
fetch_copy(Fixture *fx, const char *path, const char *etag,
           GOutputStream **stream, GError **error)
{
	FeedFetchRequest *request = request_for(path);

	*stream = g_memory_output_stream_new_resizable();
	feed_fetch_request_set_body_stream(request, *stream);
	feed_fetch_request_set_validators(request, etag, NULL);
	return fetch_request(fx, request, error);
}

static void
test_body_stream_copy(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	g_autoptr(GOutputStream) stream = NULL;
	g_autoptr(FeedChannel) channel = NULL;
	g_autofree char *copy = NULL;
	g_autofree char *plain = server_get("/noval/copy");

	g_test_summary("The body stream gets the feed as decoded, not the "
	               "bodies of the redirects before it");
	result = fetch_copy(fx, "/redirect/302/2/gzip/copy", NULL, &stream,
	                    &error);
	g_assert_no_error(error);
	assert_updated(result, "copy", 3);
	g_assert_null(feed_fetch_result_get_body_stream_error(result));
	g_assert_false(g_output_stream_is_closed(stream));
	copy = stream_text(stream);
	g_assert_cmpstr(copy, ==, plain);
	channel = feed_channel_new_from_data(copy, strlen(copy), NULL, &error);
	g_assert_no_error(error);
	assert_feed(channel, "copy", 3);
}

static void
test_body_stream_discovered(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	g_autoptr(GOutputStream) stream = NULL;
	g_autofree char *copy = NULL;
	g_autofree char *feed = server_get("/feed/dcopy");

	g_test_summary("After autodiscovery the body stream holds the feed, "
	               "not the web page");
	result = fetch_copy(fx, "/page/rss/dcopy", NULL, &stream, &error);
	g_assert_no_error(error);
	assert_updated(result, "dcopy", 3);
	copy = stream_text(stream);
	g_assert_cmpstr(copy, ==, feed);
}

static void
test_body_stream_nothing(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) first = NULL;
	g_autoptr(FeedFetchResult) second = NULL;
	g_autoptr(FeedFetchResult) failed = NULL;
	g_autoptr(GOutputStream) stream = NULL;
	g_autoptr(GOutputStream) again = NULL;
	g_autoptr(GOutputStream) error_page = NULL;

	g_test_summary("A 304 and an error status write nothing to the body "
	               "stream");
	first = fetch_copy(fx, "/feed/nothing", NULL, &stream, &error);
	g_assert_no_error(error);
	assert_updated(first, "nothing", 3);
	second = fetch_copy(fx, "/feed/nothing",
	                    feed_fetch_result_get_etag(first), &again, &error);
	g_assert_no_error(error);
	g_assert_cmpint(feed_fetch_result_get_status(second), ==,
	                FEED_FETCH_NOT_MODIFIED);
	g_assert_cmpuint(g_memory_output_stream_get_data_size(
	                         G_MEMORY_OUTPUT_STREAM(again)),
	                 ==, 0);
	failed = fetch_copy(fx, "/status/500/nothing", NULL, &error_page,
	                    &error);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_HTTP);
	g_assert_cmpuint(g_memory_output_stream_get_data_size(
	                         G_MEMORY_OUTPUT_STREAM(error_page)),
	                 ==, 0);
}

static void
test_body_stream_write_fails(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	g_autoptr(GOutputStream) stream =
	        g_memory_output_stream_new_resizable();
	FeedFetchRequest *request = request_for("/feed/closed");

	g_test_summary("A stream that refuses the copy does not fail the "
	               "fetch; the result says why the copy stopped");
	g_output_stream_close(stream, NULL, NULL);
	feed_fetch_request_set_body_stream(request, stream);
	result = fetch_request(fx, request, &error);
	g_assert_no_error(error);
	assert_updated(result, "closed", 3);
	g_assert_error(feed_fetch_result_get_body_stream_error(result),
	               G_IO_ERROR, G_IO_ERROR_CLOSED);
}

/* feed_fetch_sync() */

static void
test_sync_updated(Fixture *fx, gconstpointer data)
{
	g_autoptr(FeedFetchRequest) request = request_for("/feed/sync");
	g_autoptr(FeedFetchRequest) again = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	g_autoptr(FeedFetchResult) second = NULL;

	g_test_summary("feed_fetch_sync(): UPDATED, then NOT_MODIFIED with "
	               "the validators");
	result = feed_fetch_sync(request, NULL, &error);
	g_assert_no_error(error);
	assert_updated(result, "sync", 3);

	again = request_for("/feed/sync");
	feed_fetch_request_set_validators(
	        again, feed_fetch_result_get_etag(result),
	        feed_fetch_result_get_last_modified(result));
	second = feed_fetch_sync(again, NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpint(feed_fetch_result_get_status(second), ==,
	                FEED_FETCH_NOT_MODIFIED);
}

static void
test_sync_redirect(Fixture *fx, gconstpointer data)
{
	g_autoptr(FeedFetchRequest) request =
	        request_for("/redirect/308/2/feed/syncr");
	g_autofree char *final = url("/feed/syncr");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedFetchResult) result = NULL;

	g_test_summary("feed_fetch_sync() follows redirects");
	result = feed_fetch_sync(request, NULL, &error);
	g_assert_no_error(error);
	assert_updated(result, "syncr", 3);
	g_assert_true(feed_fetch_result_is_moved(result));
	g_assert_cmpstr(feed_fetch_result_get_final_url(result), ==, final);
}

static void
test_sync_errors(Fixture *fx, gconstpointer data)
{
	g_autoptr(FeedFetchRequest) missing = request_for("/status/404");
	g_autoptr(FeedFetchRequest) gone = request_for("/status/410");
	g_autoptr(GError) error = NULL;
	FeedFetchResult *result;

	g_test_summary("feed_fetch_sync() failing: NULL and the error");
	result = feed_fetch_sync(missing, NULL, &error);
	g_assert_null(result);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_HTTP);
	g_clear_error(&error);
	result = feed_fetch_sync(gone, NULL, &error);
	g_assert_null(result);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_GONE);
}

static gpointer
cancel_thread(gpointer data)
{
	GCancellable *cancellable = data;

	for (guint i = 0; i < 3000; i++) {
		if (server_count("/stall") > 0)
			break;
		g_usleep(10000);
	}
	g_cancellable_cancel(cancellable);
	return NULL;
}

static void
test_sync_cancelled(Fixture *fx, gconstpointer data)
{
	g_autoptr(FeedFetchRequest) request = request_for("/stall");
	g_autoptr(GCancellable) before = g_cancellable_new();
	g_autoptr(GCancellable) during = g_cancellable_new();
	g_autoptr(GError) error = NULL;
	GThread *thread;
	FeedFetchResult *result;

	g_test_summary("feed_fetch_sync() cancelled before it starts, and "
	               "from another thread while it runs");
	g_cancellable_cancel(before);
	result = feed_fetch_sync(request, before, &error);
	g_assert_null(result);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
	g_clear_error(&error);

	thread = g_thread_new("cancel", cancel_thread, during);
	result = feed_fetch_sync(request, during, &error);
	g_thread_join(thread);
	g_assert_null(result);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

#define ADD(path, func, data)                                                  \
	g_test_add(path, Fixture, data, fixture_setup, func, fixture_teardown)

int
main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	const char *data_dir;
	int status;

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	curl_global_init(CURL_GLOBAL_DEFAULT);

	data_dir = g_getenv("FEED_TEST_INTEGRATION_DATA");
	if (data_dir == NULL ||
	    !server_start(&harness.http, NULL, NULL, &error) ||
	    !make_certificate(&error)) {
		printf("Bail out! %s\n",
		       error != NULL ? error->message
		                     : "FEED_TEST_INTEGRATION_DATA is not set");
		server_stop(&harness.http);
		server_stop(&harness.https);
		remove_tmp_dir();
		return 1;
	}
	harness.data_dir = g_strdup(data_dir);
	g_setenv("CURL_CA_BUNDLE", harness.cert_path, TRUE);

	ADD("/fetch/basic/updated", test_basic_updated, NULL);
	ADD("/fetch/basic/user-agent", test_basic_user_agent, NULL);
	ADD("/fetch/basic/new-feed-url", test_basic_new_feed_url, NULL);
	ADD("/fetch/basic/atom", test_basic_atom, NULL);
	ADD("/fetch/conditional/etag-304", test_conditional_etag, NULL);
	ADD("/fetch/conditional/last-modified-304",
	    test_conditional_last_modified, NULL);
	ADD("/fetch/conditional/bare-304", test_conditional_bare_304, NULL);
	ADD("/fetch/conditional/changed", test_conditional_changed, NULL);
	ADD("/fetch/conditional/content-hash-unchanged",
	    test_conditional_hash_unchanged, NULL);
	ADD("/fetch/redirect/301", test_redirect_chain, GUINT_TO_POINTER(301));
	ADD("/fetch/redirect/302", test_redirect_chain, GUINT_TO_POINTER(302));
	ADD("/fetch/redirect/307", test_redirect_chain, GUINT_TO_POINTER(307));
	ADD("/fetch/redirect/308", test_redirect_chain, GUINT_TO_POINTER(308));
	ADD("/fetch/redirect/mixed", test_redirect_mixed, NULL);
	ADD("/fetch/redirect/loop", test_redirect_loop, NULL);
	ADD("/fetch/redirect/too-many", test_redirect_too_many, NULL);
	ADD("/fetch/redirect/to-file", test_redirect_to_scheme,
	    "/toscheme/file");
	ADD("/fetch/redirect/to-ftp", test_redirect_to_scheme, "/toscheme/ftp");
	ADD("/fetch/scheme/file", test_scheme_file, NULL);
	ADD("/fetch/scheme/ftp", test_scheme_ftp, NULL);
	for (guint i = 0; i < G_N_ELEMENTS(status_cases); i++) {
		g_autofree char *path = g_strdup_printf("/fetch/status/%u",
		                                        status_cases[i].status);

		ADD(path, test_status, &status_cases[i]);
	}
	ADD("/fetch/gzip/decoded", test_gzip_decoded, NULL);
	ADD("/fetch/gzip/bomb", test_gzip_bomb, NULL);
	ADD("/fetch/size/plain", test_size_plain, NULL);
	ADD("/fetch/transfer/slow", test_slow, NULL);
	ADD("/fetch/transfer/stall", test_stall, NULL);
	ADD("/fetch/transfer/total-timeout", test_total_timeout, NULL);
	ADD("/fetch/transfer/hang", test_hang, NULL);
	ADD("/fetch/transfer/timeout-not-queued", test_timeout_not_queued,
	    NULL);
	ADD("/fetch/transfer/truncated", test_truncated, "/truncate");
	ADD("/fetch/transfer/truncated-chunked", test_truncated,
	    "/truncate-chunked");
	ADD("/fetch/transfer/reset", test_reset, NULL);
	ADD("/fetch/transfer/reset-body", test_reset_body, NULL);
	ADD("/fetch/transfer/refused", test_refused, NULL);
	ADD("/fetch/discovery/rss", test_discovery, "rss");
	ADD("/fetch/discovery/atom", test_discovery, "atom");
	ADD("/fetch/discovery/no-link", test_discovery_none, NULL);
	ADD("/fetch/discovery/disabled", test_discovery_disabled, NULL);
	ADD("/fetch/discovery/html-as-feed", test_html_as_feed, NULL);
	ADD("/fetch/pages/follow", test_pages_follow, "paged");
	ADD("/fetch/pages/follow-relative", test_pages_follow, "paged-rel");
	ADD("/fetch/pages/first-only", test_pages_first_only, NULL);
	ADD("/fetch/pages/max-pages", test_pages_max, NULL);
	ADD("/fetch/pages/loop", test_pages_loop, NULL);
	ADD("/fetch/auth/userinfo", test_auth_userinfo, NULL);
	ADD("/fetch/auth/credentials", test_auth_credentials, NULL);
	ADD("/fetch/auth/refused", test_auth_refused, NULL);
	ADD("/fetch/auth/other-host", test_auth_other_host,
	    GINT_TO_POINTER(FALSE));
	ADD("/fetch/auth/other-host-userinfo", test_auth_other_host,
	    GINT_TO_POINTER(TRUE));
	ADD("/fetch/auth/same-host", test_auth_same_host, NULL);
	ADD("/fetch/https/feed", test_https, NULL);
	ADD("/fetch/https/wrong-host", test_https_wrong_host, NULL);
	ADD("/fetch/many/max-transfers", test_many_max_transfers, NULL);
	ADD("/fetch/many/per-host", test_many_per_host, NULL);
	ADD("/fetch/cancel/before-start", test_cancel_before, NULL);
	ADD("/fetch/cancel/during", test_cancel_during, NULL);
	ADD("/fetch/cancel/free-fetcher", test_cancel_free_fetcher, NULL);
	ADD("/fetch/stream/episodes", test_stream_episodes, NULL);
	ADD("/fetch/stream/pages", test_stream_pages, NULL);
	ADD("/fetch/body-stream/copy", test_body_stream_copy, NULL);
	ADD("/fetch/body-stream/discovered", test_body_stream_discovered, NULL);
	ADD("/fetch/body-stream/nothing", test_body_stream_nothing, NULL);
	ADD("/fetch/body-stream/write-fails", test_body_stream_write_fails,
	    NULL);
	ADD("/fetch/sync/updated", test_sync_updated, NULL);
	ADD("/fetch/sync/redirect", test_sync_redirect, NULL);
	ADD("/fetch/sync/errors", test_sync_errors, NULL);
	ADD("/fetch/sync/cancelled", test_sync_cancelled, NULL);

	status = g_test_run();

	server_stop(&harness.http);
	server_stop(&harness.https);
	remove_tmp_dir();
	g_free(harness.tmp_dir);
	g_free(harness.cert_path);
	g_free(harness.data_dir);
	curl_global_cleanup();
	return status;
}
