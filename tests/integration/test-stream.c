/*
 * Streams against tests/support/media-server.py over loopback HTTP:
 * public API only. The server runs as a child for the whole program; it
 * exits by itself when this process dies, because its standard input
 * closes.
 */
#include <curl/curl.h>
#include <feed/feed.h>

#include <gio/gio.h>
#include <string.h>

/* Seconds a test waits for the done function before it fails. */
#define WATCHDOG_SECONDS 20
#define SIZE             300000

static GSubprocess *server;
static guint port;

/* The server */

static gboolean
server_start(GError **error)
{
	const char *script = g_getenv("FEED_MEDIA_SERVER");
	g_autoptr(GDataInputStream) lines = NULL;
	g_autofree char *line = NULL;
	guint64 value;

	if (script == NULL) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
		            "FEED_MEDIA_SERVER is not set (run through meson "
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

static void
server_stop(void)
{
	if (server == NULL)
		return;
	g_subprocess_force_exit(server);
	g_subprocess_wait(server, NULL, NULL);
	g_clear_object(&server);
}

static char *
url(const char *path)
{
	return g_strdup_printf("http://127.0.0.1:%u%s", port, path);
}

/* The body of a GET of @path on the server, which must answer 200. */
static GBytes *
server_get(const char *path)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocketClient) client = g_socket_client_new();
	g_autoptr(GSocketConnection) connection = NULL;
	g_autoptr(GOutputStream) sink = NULL;
	g_autofree char *request = NULL;
	g_autoptr(GBytes) response = NULL;
	const char *data;
	const char *body;
	gsize length;

	connection = g_socket_client_connect_to_host(client, "127.0.0.1", port,
	                                             NULL, &error);
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
	response = g_memory_output_stream_steal_as_bytes(
	        G_MEMORY_OUTPUT_STREAM(sink));
	data = g_bytes_get_data(response, &length);
	g_assert_true(length > 12 && memcmp(data + 9, "200", 3) == 0);
	body = g_strstr_len(data, (gssize)length, "\r\n\r\n");
	g_assert_nonnull(body);
	body += 4;
	return g_bytes_new(body, length - (gsize)(body - data));
}

/* The file @name of @size bytes, as the server has it. */
static GBytes *
source_bytes(const char *name, gsize size)
{
	g_autofree char *path =
	        g_strdup_printf("/raw/%s?size=%" G_GSIZE_FORMAT, name, size);

	return server_get(path);
}

/*
 * What the server saw of @name: "STATUS RANGE IF-RANGE" lines, or with
 * @header the value of that request header in each ("-": none).
 */
static char **
server_log(const char *name, const char *header)
{
	g_autofree char *path =
	        header != NULL ? g_strdup_printf("/_log?name=%s&header=%s",
	                                         name, header)
	                       : g_strdup_printf("/_log?name=%s", name);
	g_autoptr(GBytes) body = server_get(path);
	g_autofree char *text =
	        g_strndup(g_bytes_get_data(body, NULL), g_bytes_get_size(body));
	char **lines = g_strsplit(g_strchomp(text), "\n", -1);

	for (guint i = 0; lines[i] != NULL; i++)
		g_strdelimit(lines[i], "\t", ' ');
	if (lines[0] != NULL && lines[0][0] == '\0') {
		g_strfreev(lines);
		lines = g_new0(char *, 1);
	}
	return lines;
}

/* Running streams */

typedef struct {
	GMainContext *context;
	FeedFetcher *fetcher;
} Fixture;

static void
fixture_setup(Fixture *fx, gconstpointer data)
{
	g_autoptr(GBytes) reset = server_get("/_reset");

	fx->context = g_main_context_new();
	g_main_context_push_thread_default(fx->context);
	fx->fetcher = feed_fetcher_new(fx->context);
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

/* What a FeedStreamHead said, copied: the head is lent for a call. */
typedef struct {
	gboolean seen;
	guint status;
	guint64 offset;
	guint64 total;
	char *validator;
	gboolean ranges;
	char *content_type;
	char *url;
} Head;

static void
head_copy(Head *copy, const FeedStreamHead *head)
{
	copy->seen = TRUE;
	copy->status = feed_stream_head_get_http_status(head);
	copy->offset = feed_stream_head_get_offset(head);
	copy->total = feed_stream_head_get_total(head);
	copy->validator = g_strdup(feed_stream_head_get_validator(head));
	copy->ranges = feed_stream_head_get_ranges(head);
	copy->content_type = g_strdup(feed_stream_head_get_content_type(head));
	copy->url = g_strdup(feed_stream_head_get_url(head));
}

static void
head_clear(Head *head)
{
	g_free(head->validator);
	g_free(head->content_type);
	g_free(head->url);
}

typedef struct {
	gboolean returned; /* feed_fetcher_stream() has returned */
	guint head_calls;
	Head head; /* what the head function saw */
	guint data_calls;
	guint64 first;    /* offset of the first data call */
	GByteArray *body; /* every byte handed over, in order */
	guint done_calls;
	Head done_head;    /* what the done function saw; seen: not NULL */
	GError *error;     /* what the done function saw */
	gboolean notified; /* the functions' data was freed */

	/* What the functions do */
	gboolean refuse_head;       /* the head function returns FALSE */
	guint stop_after;           /* data returns FALSE on this call; 0 */
	GCancellable *cancel_after; /* cancelled on the first data call */
	guint data_after_cancel;    /* data calls once it was cancelled */
} Outcome;

static void
outcome_init(Outcome *o)
{
	memset(o, 0, sizeof *o);
	o->body = g_byte_array_new();
}

static void
outcome_clear(Outcome *o)
{
	head_clear(&o->head);
	head_clear(&o->done_head);
	g_byte_array_unref(o->body);
	g_clear_error(&o->error);
}

static gboolean
on_head(const FeedStreamHead *head, gpointer data)
{
	Outcome *o = data;

	g_assert_cmpuint(o->head_calls, ==, 0);
	g_assert_cmpuint(o->data_calls, ==, 0);
	g_assert_cmpuint(o->done_calls, ==, 0);
	o->head_calls++;
	head_copy(&o->head, head);
	return !o->refuse_head;
}

static gboolean
on_data(guint64 offset, const guint8 *data, gsize length, gpointer user_data)
{
	Outcome *o = user_data;

	/* After the head, in order, without gaps, never empty. */
	g_assert_cmpuint(o->head_calls, ==, 1);
	g_assert_cmpuint(o->done_calls, ==, 0);
	g_assert_cmpuint(length, >, 0);
	g_assert_cmpuint(offset, ==, o->head.offset + o->body->len);
	if (o->cancel_after != NULL &&
	    g_cancellable_is_cancelled(o->cancel_after))
		o->data_after_cancel++;
	if (o->data_calls++ == 0)
		o->first = offset;
	g_byte_array_append(o->body, data, (guint)length);
	if (o->cancel_after != NULL)
		g_cancellable_cancel(o->cancel_after);
	return o->data_calls != o->stop_after;
}

static void
on_done(const FeedStreamHead *head, const GError *error, gpointer data)
{
	Outcome *o = data;

	/* Never before feed_fetcher_stream() returns; once. */
	g_assert_true(o->returned);
	g_assert_cmpuint(o->done_calls, ==, 0);
	o->done_calls++;
	if (head != NULL)
		head_copy(&o->done_head, head);
	o->error = error != NULL ? g_error_copy(error) : NULL;
}

static void
on_funcs_freed(gpointer data)
{
	Outcome *o = data;

	o->notified = TRUE;
}

static gboolean
on_watchdog(gpointer data)
{
	gboolean *expired = data;

	*expired = TRUE;
	return G_SOURCE_REMOVE;
}

static void
start(Fixture *fx, FeedStreamRequest *request, GCancellable *cancellable,
      Outcome *o)
{
	feed_stream_request_set_funcs(request, on_head, on_data, o,
	                              on_funcs_freed);
	feed_fetcher_stream(fx->fetcher, request, cancellable, on_done, o);
	feed_stream_request_free(request);
	o->returned = TRUE;
	/* The stream holds the functions until it ends. */
	g_assert_false(o->notified);
	g_assert_cmpuint(o->done_calls, ==, 0);
}

/* Waits for the done function of a stream start() started. */
static void
wait_done(Fixture *fx, Outcome *o)
{
	gboolean expired = FALSE;
	GSource *watchdog = g_timeout_source_new_seconds(WATCHDOG_SECONDS);

	g_source_set_callback(watchdog, on_watchdog, &expired, NULL);
	g_source_attach(watchdog, fx->context);
	while (o->done_calls == 0 && !expired)
		g_main_context_iteration(fx->context, TRUE);
	g_source_destroy(watchdog);
	g_source_unref(watchdog);
	g_assert_false(expired);
	g_assert_cmpuint(o->done_calls, ==, 1);
	g_assert_true(o->notified);
}

/* Streams @request (freed here) and waits for the outcome, in @o. */
static void
run(Fixture *fx, FeedStreamRequest *request, GCancellable *cancellable,
    Outcome *o)
{
	start(fx, request, cancellable, o);
	wait_done(fx, o);
}

/* A request for @path on the server. */
static FeedStreamRequest *
request_for(const char *path)
{
	g_autofree char *address = url(path);

	return feed_stream_request_new(address);
}

static FeedStreamRequest *
request_from(const char *path, guint64 offset, const char *validator)
{
	FeedStreamRequest *request = request_for(path);

	feed_stream_request_set_offset(request, offset);
	feed_stream_request_set_validator(request, validator);
	return request;
}

static void
assert_message_has(const GError *error, const char *word)
{
	if (strstr(error->message, word) == NULL)
		g_error("'%s' is not in the message '%s'", word,
		        error->message);
}

/* The bytes handed over are the file's from @from, @length of them. */
static void
assert_body_is(const Outcome *o, GBytes *source, gsize from, gsize length)
{
	const guint8 *bytes = g_bytes_get_data(source, NULL);

	g_assert_cmpuint(from + length, <=, g_bytes_get_size(source));
	g_assert_cmpuint(o->body->len, ==, length);
	g_assert_true(memcmp(o->body->data, bytes + from, length) == 0);
}

/* The tests */

static void
test_whole(Fixture *fx, gconstpointer data)
{
	g_autofree char *address = url("/media/whole.mp3?size=300000");
	g_autoptr(GBytes) source = source_bytes("whole", SIZE);
	g_auto(GStrv) log = NULL;
	g_auto(GStrv) encodings = NULL;
	Outcome o;

	g_test_summary("A whole file from byte 0: its head, then every byte "
	               "in order, and no Range or Accept-Encoding sent.");
	outcome_init(&o);
	run(fx, feed_stream_request_new(address), NULL, &o);
	g_assert_no_error(o.error);
	g_assert_cmpuint(o.head_calls, ==, 1);
	g_assert_cmpuint(o.head.status, ==, 200);
	g_assert_cmpuint(o.head.offset, ==, 0);
	g_assert_cmpuint(o.head.total, ==, SIZE);
	g_assert_cmpstr(o.head.validator, ==, "\"whole-v0-300000\"");
	g_assert_true(o.head.ranges);
	g_assert_cmpstr(o.head.content_type, ==, "audio/mpeg");
	g_assert_cmpstr(o.head.url, ==, address);
	g_assert_cmpuint(o.first, ==, 0);
	assert_body_is(&o, source, 0, SIZE);
	/* The done function sees the same head. */
	g_assert_true(o.done_head.seen);
	g_assert_cmpuint(o.done_head.status, ==, 200);
	g_assert_cmpuint(o.done_head.total, ==, SIZE);
	log = server_log("whole", NULL);
	g_assert_cmpuint(g_strv_length(log), ==, 1);
	g_assert_cmpstr(log[0], ==, "200 - -");
	encodings = server_log("whole", "Accept-Encoding");
	g_assert_cmpstr(encodings[0], ==, "-");
	outcome_clear(&o);
}

static void
test_range(Fixture *fx, gconstpointer data)
{
	g_autoptr(GBytes) source = source_bytes("range", SIZE);
	g_auto(GStrv) log = NULL;
	Outcome o;

	g_test_summary("An offset with a validator that holds is answered "
	               "206: the body is the file's bytes from there, and the "
	               "total comes from Content-Range.");
	outcome_init(&o);
	run(fx,
	    request_from("/media/range.mp3?size=300000", 100000,
	                 "\"range-v0-300000\""),
	    NULL, &o);
	g_assert_no_error(o.error);
	g_assert_cmpuint(o.head.status, ==, 206);
	g_assert_cmpuint(o.head.offset, ==, 100000);
	g_assert_cmpuint(o.head.total, ==, SIZE);
	g_assert_true(o.head.ranges);
	g_assert_cmpstr(o.head.validator, ==, "\"range-v0-300000\"");
	g_assert_cmpuint(o.first, ==, 100000);
	assert_body_is(&o, source, 100000, SIZE - 100000);
	log = server_log("range", NULL);
	g_assert_cmpuint(g_strv_length(log), ==, 1);
	g_assert_cmpstr(log[0], ==, "206 bytes=100000- \"range-v0-300000\"");
	outcome_clear(&o);
}

static void
test_range_by_date(Fixture *fx, gconstpointer data)
{
	const char *date = "Wed, 01 Jan 2025 00:00:00 GMT";
	g_autoptr(GBytes) source = source_bytes("dated", SIZE);
	g_auto(GStrv) log = NULL;
	Outcome o;

	g_test_summary("A weak ETag is no validator: the head gives the "
	               "Last-Modified date, which If-Range takes as well.");
	outcome_init(&o);
	run(fx, request_for("/media/dated.mp3?size=300000&weaketag=1"), NULL,
	    &o);
	g_assert_no_error(o.error);
	g_assert_cmpstr(o.head.validator, ==, date);
	outcome_clear(&o);

	outcome_init(&o);
	run(fx,
	    request_from("/media/dated.mp3?size=300000&weaketag=1", 250000,
	                 date),
	    NULL, &o);
	g_assert_no_error(o.error);
	g_assert_cmpuint(o.head.status, ==, 206);
	g_assert_cmpuint(o.head.offset, ==, 250000);
	assert_body_is(&o, source, 250000, SIZE - 250000);
	log = server_log("dated", NULL);
	g_assert_cmpuint(g_strv_length(log), ==, 2);
	g_assert_cmpstr(log[1], ==,
	                "206 bytes=250000- Wed, 01 Jan 2025 00:00:00 GMT");
	outcome_clear(&o);
}

static void
test_range_without_validator(Fixture *fx, gconstpointer data)
{
	g_autoptr(GBytes) source = source_bytes("bare", SIZE);
	g_auto(GStrv) log = NULL;
	Outcome o;

	g_test_summary("An offset without a validator sends Range alone.");
	outcome_init(&o);
	run(fx,
	    request_from("/media/bare.mp3?size=300000&novalidators=1", 123,
	                 NULL),
	    NULL, &o);
	g_assert_no_error(o.error);
	g_assert_cmpuint(o.head.status, ==, 206);
	g_assert_null(o.head.validator);
	assert_body_is(&o, source, 123, SIZE - 123);
	log = server_log("bare", NULL);
	g_assert_cmpstr(log[0], ==, "206 bytes=123- -");
	outcome_clear(&o);
}

static void
test_ranges_ignored(Fixture *fx, gconstpointer data)
{
	g_autoptr(GBytes) source = source_bytes("noranges", SIZE);
	g_auto(GStrv) log = NULL;
	Outcome o;

	g_test_summary("A server that ignores Range answers 200: the body "
	               "starts at byte 0 and the head says no ranges.");
	outcome_init(&o);
	run(fx,
	    request_from("/media/noranges.mp3?size=300000&noranges=1", 100000,
	                 "\"noranges-v0-300000\""),
	    NULL, &o);
	g_assert_no_error(o.error);
	g_assert_cmpuint(o.head.status, ==, 200);
	g_assert_cmpuint(o.head.offset, ==, 0);
	g_assert_cmpuint(o.head.total, ==, SIZE);
	g_assert_false(o.head.ranges);
	g_assert_cmpuint(o.first, ==, 0);
	assert_body_is(&o, source, 0, SIZE);
	log = server_log("noranges", NULL);
	g_assert_cmpstr(log[0], ==, "200 bytes=100000- \"noranges-v0-300000\"");
	outcome_clear(&o);
}

static void
test_stale_validator(Fixture *fx, gconstpointer data)
{
	g_autoptr(GBytes) source = source_bytes("stale", SIZE);
	g_auto(GStrv) log = NULL;
	Outcome o;

	g_test_summary("If-Range with a validator that no longer holds gets "
	               "the whole file, 200 from byte 0, and its new "
	               "validator.");
	outcome_init(&o);
	run(fx,
	    request_from("/media/stale.mp3?size=300000", 100000,
	                 "\"stale-v9-300000\""),
	    NULL, &o);
	g_assert_no_error(o.error);
	g_assert_cmpuint(o.head.status, ==, 200);
	g_assert_cmpuint(o.head.offset, ==, 0);
	g_assert_cmpuint(o.head.total, ==, SIZE);
	g_assert_true(o.head.ranges);
	g_assert_cmpstr(o.head.validator, ==, "\"stale-v0-300000\"");
	assert_body_is(&o, source, 0, SIZE);
	log = server_log("stale", NULL);
	g_assert_cmpstr(log[0], ==, "200 bytes=100000- \"stale-v9-300000\"");
	outcome_clear(&o);
}

static void
test_range_elsewhere(Fixture *fx, gconstpointer data)
{
	Outcome o;

	g_test_summary("A 206 of other bytes than those asked for fails "
	               "FAILED before its head and any data; the done "
	               "function still sees its head.");
	outcome_init(&o);
	run(fx,
	    request_from("/media/shift.mp3?size=300000&rangeshift=10", 1000,
	                 NULL),
	    NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_FAILED);
	assert_message_has(o.error, "/media/shift.mp3");
	assert_message_has(o.error, "1000");
	assert_message_has(o.error, "1010");
	g_assert_cmpuint(o.head_calls, ==, 0);
	g_assert_cmpuint(o.data_calls, ==, 0);
	g_assert_true(o.done_head.seen);
	g_assert_cmpuint(o.done_head.status, ==, 206);
	outcome_clear(&o);
}

static void
check_cut(Fixture *fx, const char *name, const char *how)
{
	g_autofree char *path = g_strdup_printf(
	        "/media/%s.mp3?size=300000&cut=100000%s", name, how);
	g_autoptr(GBytes) source = source_bytes(name, SIZE);
	g_auto(GStrv) log = NULL;
	Outcome o;

	outcome_init(&o);
	run(fx, request_for(path), NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_NETWORK);
	assert_message_has(o.error, path);
	/* A close delivers every byte sent; a reset may lose the last. */
	if (*how == '\0')
		g_assert_cmpuint(o.body->len, ==, 100000);
	g_assert_cmpuint(o.body->len, <=, 100000);
	assert_body_is(&o, source, 0, o.body->len);
	g_assert_true(o.done_head.seen);
	g_assert_cmpuint(o.done_head.status, ==, 200);
	g_assert_cmpuint(o.done_head.total, ==, SIZE);
	/* No retry of its own. */
	log = server_log(name, NULL);
	g_assert_cmpuint(g_strv_length(log), ==, 1);
	outcome_clear(&o);
}

static void
test_cut(Fixture *fx, gconstpointer data)
{
	g_test_summary("A connection closed mid-body fails NETWORK after "
	               "the bytes that came, which are the file's; nothing "
	               "is retried.");
	check_cut(fx, "cut", "");
}

static void
test_reset(Fixture *fx, gconstpointer data)
{
	g_test_summary("A connection reset mid-body fails NETWORK as well.");
	check_cut(fx, "reset", "&reset=1");
}

static void
test_status(Fixture *fx, gconstpointer data)
{
	g_autofree char *missing = url("/status/404");
	g_autofree char *expected =
	        g_strdup_printf("%s: HTTP 404 Not Found", missing);
	Outcome o;

	g_test_summary("An error status fails HTTP, or GONE for a 410, "
	               "without head or data calls; the done function sees "
	               "the status.");
	outcome_init(&o);
	run(fx, feed_stream_request_new(missing), NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_HTTP);
	g_assert_cmpstr(o.error->message, ==, expected);
	g_assert_cmpuint(o.head_calls, ==, 0);
	g_assert_cmpuint(o.data_calls, ==, 0);
	g_assert_true(o.done_head.seen);
	g_assert_cmpuint(o.done_head.status, ==, 404);
	g_assert_cmpuint(o.done_head.offset, ==, 0);
	g_assert_cmpuint(o.done_head.total, ==, 0);
	outcome_clear(&o);

	outcome_init(&o);
	run(fx, request_for("/status/503"), NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_HTTP);
	g_assert_cmpuint(o.done_head.status, ==, 503);
	outcome_clear(&o);

	outcome_init(&o);
	run(fx, request_for("/status/410"), NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_GONE);
	assert_message_has(o.error, "/status/410");
	g_assert_cmpuint(o.head_calls, ==, 0);
	g_assert_cmpuint(o.done_head.status, ==, 410);
	outcome_clear(&o);
}

static void
test_past_end(Fixture *fx, gconstpointer data)
{
	g_auto(GStrv) log = NULL;
	Outcome o;

	g_test_summary("An offset at the file's end is answered 416: HTTP, "
	               "with the status and the file's size in the head.");
	outcome_init(&o);
	run(fx,
	    request_from("/media/short.mp3?size=1000", 1000,
	                 "\"short-v0-1000\""),
	    NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_HTTP);
	assert_message_has(o.error, "416");
	g_assert_cmpuint(o.head_calls, ==, 0);
	g_assert_cmpuint(o.data_calls, ==, 0);
	g_assert_true(o.done_head.seen);
	g_assert_cmpuint(o.done_head.status, ==, 416);
	g_assert_cmpuint(o.done_head.offset, ==, 0);
	g_assert_cmpuint(o.done_head.total, ==, 1000);
	log = server_log("short", NULL);
	g_assert_cmpstr(log[0], ==, "416 bytes=1000- \"short-v0-1000\"");
	outcome_clear(&o);
}

static void
test_redirect(Fixture *fx, gconstpointer data)
{
	g_autofree char *target = url("/media/moved.mp3?size=300000");
	g_autofree char *escaped = g_uri_escape_string(target, NULL, FALSE);
	g_autofree char *path = g_strconcat("/redirect?to=", escaped, NULL);
	g_autoptr(GBytes) source = source_bytes("moved", SIZE);
	g_auto(GStrv) log = NULL;
	Outcome o;

	g_test_summary("A redirect is followed with the same range; the "
	               "head names the URL the body came from.");
	outcome_init(&o);
	run(fx, request_from(path, 5000, "\"moved-v0-300000\""), NULL, &o);
	g_assert_no_error(o.error);
	g_assert_cmpuint(o.head.status, ==, 206);
	g_assert_cmpuint(o.head.offset, ==, 5000);
	g_assert_cmpstr(o.head.url, ==, target);
	assert_body_is(&o, source, 5000, SIZE - 5000);
	log = server_log("moved", NULL);
	g_assert_cmpuint(g_strv_length(log), ==, 1);
	g_assert_cmpstr(log[0], ==, "206 bytes=5000- \"moved-v0-300000\"");
	outcome_clear(&o);
}

static void
test_scheme(Fixture *fx, gconstpointer data)
{
	Outcome o;

	g_test_summary("Only http and https: a file URL, or a redirect to "
	               "one, fails SCHEME without a head.");
	outcome_init(&o);
	run(fx, feed_stream_request_new("file:///etc/passwd"), NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_SCHEME);
	assert_message_has(o.error, "file:///etc/passwd");
	g_assert_false(o.done_head.seen);
	g_assert_cmpuint(o.head_calls, ==, 0);
	outcome_clear(&o);

	outcome_init(&o);
	run(fx, request_for("/redirect?to=file:///etc/passwd"), NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_SCHEME);
	g_assert_false(o.done_head.seen);
	g_assert_cmpuint(o.head_calls, ==, 0);
	g_assert_cmpuint(o.data_calls, ==, 0);
	outcome_clear(&o);
}

static void
test_unreachable(Fixture *fx, gconstpointer data)
{
	Outcome o;

	g_test_summary("A port nothing listens on fails NETWORK, without a "
	               "head.");
	outcome_init(&o);
	run(fx, feed_stream_request_new("http://127.0.0.1:1/x.mp3"), NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_NETWORK);
	assert_message_has(o.error, "http://127.0.0.1:1/x.mp3");
	g_assert_false(o.done_head.seen);
	outcome_clear(&o);
}

/*
 * The body stalls at once: curl averages its speed over the last few
 * seconds, so bytes just before a stall would delay the timeout by as
 * much.
 */
static void
test_stall(Fixture *fx, gconstpointer data)
{
	gint64 started = g_get_monotonic_time();
	gint64 elapsed;
	Outcome o;

	g_test_summary("A body that does not come fails TIMEOUT after the "
	               "fetcher's stall timeout, though the head came.");
	feed_fetcher_set_timeouts(fx->fetcher, 0, 0, 1);
	outcome_init(&o);
	run(fx, request_for("/media/stall.mp3?size=300000&stall=0"), NULL, &o);
	elapsed = g_get_monotonic_time() - started;
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_TIMEOUT);
	assert_message_has(o.error, "/media/stall.mp3");
	g_assert_cmpuint(o.head_calls, ==, 1);
	g_assert_cmpuint(o.data_calls, ==, 0);
	g_assert_cmpuint(o.done_head.status, ==, 200);
	g_assert_cmpint(elapsed, >=, G_USEC_PER_SEC);
	g_assert_cmpint(elapsed, <, 5 * G_USEC_PER_SEC);
	outcome_clear(&o);
}

static void
test_too_large(Fixture *fx, gconstpointer data)
{
	g_autoptr(GBytes) source = source_bytes("long", SIZE);
	FeedStreamRequest *request;
	Outcome o;

	g_test_summary("A file announced over the cap fails TOO_LARGE "
	               "before its head and any data; one that grows past it "
	               "is handed over up to the cap, then fails.");
	outcome_init(&o);
	request = request_for("/media/big.mp3?size=300000");
	feed_stream_request_set_max_size(request, 100000);
	run(fx, request, NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_TOO_LARGE);
	assert_message_has(o.error, "/media/big.mp3");
	g_assert_cmpuint(o.head_calls, ==, 0);
	g_assert_cmpuint(o.data_calls, ==, 0);
	g_assert_cmpuint(o.done_head.total, ==, SIZE);
	outcome_clear(&o);

	/* A 206 counts the whole file, not the range. */
	outcome_init(&o);
	request = request_from("/media/big.mp3?size=300000", 250000, NULL);
	feed_stream_request_set_max_size(request, 100000);
	run(fx, request, NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_TOO_LARGE);
	g_assert_cmpuint(o.data_calls, ==, 0);
	outcome_clear(&o);

	outcome_init(&o);
	request = request_for("/media/long.mp3?size=300000&nolength=1");
	feed_stream_request_set_max_size(request, 100000);
	run(fx, request, NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_TOO_LARGE);
	g_assert_cmpuint(o.head_calls, ==, 1);
	g_assert_cmpuint(o.head.total, ==, 0);
	assert_body_is(&o, source, 0, 100000);
	outcome_clear(&o);

	/* The same file under a cap it fits. */
	outcome_init(&o);
	request = request_for("/media/long.mp3?size=300000&nolength=1");
	feed_stream_request_set_max_size(request, SIZE);
	run(fx, request, NULL, &o);
	g_assert_no_error(o.error);
	assert_body_is(&o, source, 0, SIZE);
	outcome_clear(&o);
}

static void
test_stop_in_data(Fixture *fx, gconstpointer data)
{
	Outcome o;

	g_test_summary("A data function that returns FALSE stops the "
	               "stream: CANCELLED, and no more data.");
	outcome_init(&o);
	o.stop_after = 1;
	run(fx, request_for("/media/stop.mp3?size=4000000"), NULL, &o);
	g_assert_error(o.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
	g_assert_cmpuint(o.data_calls, ==, 1);
	g_assert_cmpuint(o.body->len, <, 4000000);
	g_assert_true(o.done_head.seen);
	outcome_clear(&o);
}

static void
test_stop_in_head(Fixture *fx, gconstpointer data)
{
	Outcome o;

	g_test_summary("A head function that returns FALSE stops the stream "
	               "before any data: CANCELLED.");
	outcome_init(&o);
	o.refuse_head = TRUE;
	run(fx, request_for("/media/nohead.mp3?size=300000"), NULL, &o);
	g_assert_error(o.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
	g_assert_cmpuint(o.head_calls, ==, 1);
	g_assert_cmpuint(o.data_calls, ==, 0);
	outcome_clear(&o);
}

static void
test_cancel(Fixture *fx, gconstpointer data)
{
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	Outcome o;

	g_test_summary("A cancelled stream ends CANCELLED, and no data comes "
	               "once it is cancelled.");
	outcome_init(&o);
	o.cancel_after = cancellable;
	run(fx, request_for("/media/cancel.mp3?size=4000000"), cancellable, &o);
	g_assert_error(o.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
	g_assert_cmpuint(o.data_calls, ==, 1);
	g_assert_cmpuint(o.data_after_cancel, ==, 0);
	outcome_clear(&o);

	/* Cancelled before it started: no head at all. */
	outcome_init(&o);
	start(fx, request_for("/media/cancel.mp3?size=300000"), cancellable,
	      &o);
	wait_done(fx, &o);
	g_assert_error(o.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
	g_assert_cmpuint(o.head_calls, ==, 0);
	g_assert_false(o.done_head.seen);
	outcome_clear(&o);
}

static void
test_fetcher_freed(Fixture *fx, gconstpointer data)
{
	gboolean expired = FALSE;
	GSource *watchdog = g_timeout_source_new_seconds(WATCHDOG_SECONDS);
	Outcome o;

	g_test_summary("Freeing the fetcher with a stream under way ends it "
	               "CANCELLED, before the free returns.");
	outcome_init(&o);
	start(fx, request_for("/media/freed.mp3?size=4000000&rate=2000000"),
	      NULL, &o);
	g_source_set_callback(watchdog, on_watchdog, &expired, NULL);
	g_source_attach(watchdog, fx->context);
	while (o.data_calls == 0 && !expired)
		g_main_context_iteration(fx->context, TRUE);
	g_source_destroy(watchdog);
	g_source_unref(watchdog);
	g_assert_false(expired);
	g_clear_pointer(&fx->fetcher, feed_fetcher_free);
	g_assert_cmpuint(o.done_calls, ==, 1);
	g_assert_error(o.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
	g_assert_true(o.notified);
	g_assert_true(o.done_head.seen);
	outcome_clear(&o);
}

static void
test_credentials(Fixture *fx, gconstpointer data)
{
	g_autofree char *elsewhere =
	        g_strdup_printf("http://localhost:%u/media/away.mp3", port);
	g_autofree char *escaped = g_uri_escape_string(elsewhere, NULL, FALSE);
	g_autofree char *hop = g_strconcat("/redirect?to=", escaped, NULL);
	g_autoptr(GBytes) source = source_bytes("home", 1000);
	g_auto(GStrv) home = NULL;
	g_auto(GStrv) away = NULL;
	FeedStreamRequest *request;
	Outcome o;

	g_test_summary("Credentials go to the URL's own host only, not to "
	               "another that a redirect leads to.");
	outcome_init(&o);
	request = request_for("/media/home.mp3?size=1000");
	feed_stream_request_set_credentials(request, "ann", "secret");
	run(fx, request, NULL, &o);
	g_assert_no_error(o.error);
	assert_body_is(&o, source, 0, 1000);
	home = server_log("home", "Authorization");
	/* "ann:secret" in base64 */
	g_assert_cmpstr(home[0], ==, "Basic YW5uOnNlY3JldA==");
	outcome_clear(&o);

	outcome_init(&o);
	request = request_for(hop);
	feed_stream_request_set_credentials(request, "ann", "secret");
	run(fx, request, NULL, &o);
	g_assert_no_error(o.error);
	away = server_log("away", "Authorization");
	g_assert_cmpuint(g_strv_length(away), ==, 1);
	g_assert_cmpstr(away[0], ==, "-");
	outcome_clear(&o);
}

#define ADD(path, func)                                                        \
	g_test_add(path, Fixture, NULL, fixture_setup, func, fixture_teardown)

int
main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	int status;

	g_test_init(&argc, &argv, NULL);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (!server_start(&error)) {
		g_printerr("cannot start the server: %s\n", error->message);
		return 1;
	}

	ADD("/stream/whole", test_whole);
	ADD("/stream/range/206", test_range);
	ADD("/stream/range/by-date", test_range_by_date);
	ADD("/stream/range/no-validator", test_range_without_validator);
	ADD("/stream/range/ignored", test_ranges_ignored);
	ADD("/stream/range/stale-validator", test_stale_validator);
	ADD("/stream/range/elsewhere", test_range_elsewhere);
	ADD("/stream/range/past-end", test_past_end);
	ADD("/stream/cut/close", test_cut);
	ADD("/stream/cut/reset", test_reset);
	ADD("/stream/status", test_status);
	ADD("/stream/redirect", test_redirect);
	ADD("/stream/scheme", test_scheme);
	ADD("/stream/unreachable", test_unreachable);
	ADD("/stream/stall", test_stall);
	ADD("/stream/too-large", test_too_large);
	ADD("/stream/stop/data", test_stop_in_data);
	ADD("/stream/stop/head", test_stop_in_head);
	ADD("/stream/cancel", test_cancel);
	ADD("/stream/fetcher-freed", test_fetcher_freed);
	ADD("/stream/credentials", test_credentials);

	status = g_test_run();
	server_stop();
	curl_global_cleanup();
	return status;
}
