/*
 * Downloads against tests/support/media-server.py over loopback HTTP:
 * public API only. The server runs as a child for the whole program; it
 * exits by itself when this process dies, because its standard input
 * closes.
 *
 * Run as root, the program starts itself again in a mount namespace of
 * its own (unshare --mount), so that it can mount a small tmpfs for a full
 * disk and a read-only one, and nothing of them outlives it. As another
 * user the full disk is skipped and a directory of mode 0555 stands for
 * the read-only one; as root where no namespace can be made, both skip.
 */
#include <curl/curl.h>
#include <errno.h>
#include <feed/feed.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* Seconds a test waits for a callback before it fails. */
#define WATCHDOG_SECONDS 60
#define MiB              (1024 * 1024)

typedef struct {
	GSubprocess *process;
	guint port;
	gboolean namespaced; /* in a mount namespace of our own, as root */
} Harness;

static Harness harness;

/* The server */

static gboolean
server_start(GError **error)
{
	const char *script = g_getenv("FEED_MEDIA_SERVER");
	g_autoptr(GDataInputStream) lines = NULL;
	g_autofree char *line = NULL;
	guint64 port;

	if (script == NULL) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
		            "FEED_MEDIA_SERVER is not set (run through meson "
		            "test)");
		return FALSE;
	}
	harness.process = g_subprocess_new(
	        G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
	        error, "/usr/bin/python3", script, NULL);
	if (harness.process == NULL)
		return FALSE;
	lines = g_data_input_stream_new(
	        g_subprocess_get_stdout_pipe(harness.process));
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
	harness.port = (guint)port;
	return TRUE;
}

static void
server_stop(void)
{
	if (harness.process == NULL)
		return;
	g_subprocess_force_exit(harness.process);
	g_subprocess_wait(harness.process, NULL, NULL);
	g_clear_object(&harness.process);
}

static char *
url(const char *path)
{
	return g_strdup_printf("http://127.0.0.1:%u%s", harness.port, path);
}

/* The body of a GET of @path on the server, which must answer 200. */
static GBytes *
server_get(const char *path)
{
	g_autofree char *address = url(path);
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocketClient) client = g_socket_client_new();
	g_autoptr(GSocketConnection) connection = NULL;
	g_autoptr(GOutputStream) sink = NULL;
	g_autofree char *request = NULL;
	g_autoptr(GBytes) response = NULL;
	const char *data;
	const char *body;
	gsize length;

	connection = g_socket_client_connect_to_host(
	        client, "127.0.0.1", harness.port, NULL, &error);
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

/* The file's bytes as the server has them. */
static GBytes *
source_bytes(const char *name, gsize size, guint version)
{
	g_autofree char *path =
	        g_strdup_printf("/raw/%s?size=%" G_GSIZE_FORMAT "&version=%u",
	                        name, size, version);

	return server_get(path);
}

/* What the server saw of @name: "STATUS RANGE IF-RANGE" lines. */
static char **
server_log(const char *name)
{
	g_autofree char *path = g_strdup_printf("/_log?name=%s", name);
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

/* Running downloads */

typedef struct {
	GMainContext *context;
	FeedFetcher *fetcher;
	char *dir; /* a fresh directory for the files */
} Fixture;

static void
remove_tree(const char *path)
{
	g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
	const char *name;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree char *child = g_build_filename(path, name, NULL);
		GStatBuf st;

		if (g_lstat(child, &st) == 0 && S_ISDIR(st.st_mode)) {
			g_chmod(child, 0755);
			remove_tree(child);
		} else {
			g_remove(child);
		}
	}
	g_rmdir(path);
}

static void
fixture_setup(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) reset = server_get("/_reset");

	fx->dir = g_dir_make_tmp("feed-download-XXXXXX", &error);
	g_assert_no_error(error);
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
	remove_tree(fx->dir);
	g_free(fx->dir);
}

static char *
path_in(Fixture *fx, const char *name)
{
	return g_build_filename(fx->dir, name, NULL);
}

typedef struct {
	FeedDownloadResult *result;
	GError *error;
	gboolean returned; /* feed_fetcher_download() has returned */
	guint calls;
	GArray *received; /* guint64 of each progress call */
	GArray *totals;   /* guint64 of each progress call */
	GArray *times;    /* gint64 monotonic time of each progress call */
	GCancellable *cancel_after; /* (nullable) cancelled past cancel_at */
	guint64 cancel_at;
	gboolean notified; /* the progress data was freed */
} Outcome;

static void
outcome_init(Outcome *o)
{
	memset(o, 0, sizeof *o);
	o->received = g_array_new(FALSE, FALSE, sizeof(guint64));
	o->totals = g_array_new(FALSE, FALSE, sizeof(guint64));
	o->times = g_array_new(FALSE, FALSE, sizeof(gint64));
}

static void
outcome_clear(Outcome *o)
{
	g_clear_pointer(&o->result, feed_download_result_unref);
	g_clear_error(&o->error);
	g_array_unref(o->received);
	g_array_unref(o->totals);
	g_array_unref(o->times);
}

static void
on_downloaded(FeedDownloadResult *result, const GError *error, gpointer data)
{
	Outcome *o = data;

	/* The header: never before feed_fetcher_download() returns, once. */
	g_assert_true(o->returned);
	g_assert_cmpuint(o->calls, ==, 0);
	g_assert_nonnull(result);
	o->calls++;
	o->result = feed_download_result_ref(result);
	o->error = error != NULL ? g_error_copy(error) : NULL;
}

static void
on_progress(guint64 received, guint64 total, gpointer data)
{
	Outcome *o = data;
	gint64 now = g_get_monotonic_time();

	g_array_append_val(o->received, received);
	g_array_append_val(o->totals, total);
	g_array_append_val(o->times, now);
	if (o->cancel_after != NULL && received >= o->cancel_at)
		g_cancellable_cancel(o->cancel_after);
}

static void
on_progress_freed(gpointer data)
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

/*
 * Downloads @request (freed here) with the fixture's fetcher and waits for
 * the callback; the outcome is in @o.
 */
static void
run(Fixture *fx, FeedDownloadRequest *request, GCancellable *cancellable,
    Outcome *o)
{
	gboolean expired = FALSE;
	GSource *watchdog = g_timeout_source_new_seconds(WATCHDOG_SECONDS);

	feed_download_request_set_progress_func(request, on_progress, o,
	                                        on_progress_freed);
	feed_fetcher_download(fx->fetcher, request, cancellable, on_downloaded,
	                      o);
	feed_download_request_free(request);
	o->returned = TRUE;
	g_source_set_callback(watchdog, on_watchdog, &expired, NULL);
	g_source_attach(watchdog, fx->context);
	while (o->calls == 0 && !expired)
		g_main_context_iteration(fx->context, TRUE);
	g_source_destroy(watchdog);
	g_source_unref(watchdog);
	g_assert_false(expired);
	g_assert_cmpuint(o->calls, ==, 1);
	/* The request and the download are gone: so is the progress data. */
	g_assert_true(o->notified);
}

/* Downloads /media/@query to @path in the fixture's directory. */
static void
download(Fixture *fx, const char *query, const char *path, Outcome *o)
{
	g_autofree char *address = url(query);

	run(fx, feed_download_request_new(address, path), NULL, o);
}

static guint64
file_size(const char *path)
{
	GStatBuf st;

	g_assert_cmpint(g_lstat(path, &st), ==, 0);
	return (guint64)st.st_size;
}

static gboolean
exists(const char *path)
{
	GStatBuf st;

	return g_lstat(path, &st) == 0;
}

static void
assert_file_is(const char *path, GBytes *expected)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *data = NULL;
	gsize length;
	GStatBuf st;

	g_assert_cmpint(g_lstat(path, &st), ==, 0);
	g_assert_true(S_ISREG(st.st_mode));
	g_file_get_contents(path, &data, &length, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(length, ==, g_bytes_get_size(expected));
	g_assert_true(memcmp(data, g_bytes_get_data(expected, NULL), length) ==
	              0);
}

/* No PATH, no PATH.part, no PATH.part.info. */
static void
assert_nothing_at(const char *path)
{
	g_autofree char *part = g_strconcat(path, ".part", NULL);
	g_autofree char *info = g_strconcat(path, ".part.info", NULL);

	g_assert_false(exists(path));
	g_assert_false(exists(part));
	g_assert_false(exists(info));
}

/* PATH is whole: the partial file and its note are gone. */
static void
assert_whole(const char *path, GBytes *expected)
{
	g_autofree char *part = g_strconcat(path, ".part", NULL);
	g_autofree char *info = g_strconcat(path, ".part.info", NULL);

	assert_file_is(path, expected);
	g_assert_false(exists(part));
	g_assert_false(exists(info));
}

static void
assert_message_has(const GError *error, const char *word)
{
	if (strstr(error->message, word) == NULL)
		g_error("'%s' is not in the message '%s'", word,
		        error->message);
}

/* The tests */

static void
test_whole(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "whole.mp3");
	g_autofree char *address = url("/media/whole.mp3?size=1048576");
	g_autoptr(GBytes) source = source_bytes("whole", MiB, 0);
	g_auto(GStrv) log = NULL;
	Outcome o;
	struct stat st;
	mode_t mask;

	g_test_summary("A file comes whole to its path; the partial file "
	               "and its note are gone.");
	outcome_init(&o);
	download(fx, "/media/whole.mp3?size=1048576", path, &o);
	g_assert_no_error(o.error);
	assert_whole(path, source);
	g_assert_cmpuint(feed_download_result_get_size(o.result), ==, MiB);
	g_assert_false(feed_download_result_was_resumed(o.result));
	g_assert_cmpuint(feed_download_result_get_http_status(o.result), ==,
	                 200);
	g_assert_cmpstr(feed_download_result_get_content_type(o.result), ==,
	                "audio/mpeg");
	g_assert_cmpstr(feed_download_result_get_path(o.result), ==, path);
	g_assert_cmpstr(feed_download_result_get_url(o.result), ==, address);
	g_assert_cmpstr(feed_download_result_get_final_url(o.result), ==,
	                address);
	mask = umask(0);
	umask(mask);
	g_assert_cmpint(stat(path, &st), ==, 0);
	g_assert_cmpint(st.st_mode & 0777, ==, 0644 & ~mask);
	log = server_log("whole");
	g_assert_cmpuint(g_strv_length(log), ==, 1);
	g_assert_cmpstr(log[0], ==, "200 - -");
	outcome_clear(&o);
}

/*
 * A cut at byte 300,000 of the first response: the second asks for the
 * rest from where the bytes stopped (a reset loses what was in flight).
 */
static void
check_cut_resumes(Fixture *fx, const char *name, const char *how)
{
	g_autofree char *file = g_strconcat(name, ".mp3", NULL);
	g_autofree char *path = path_in(fx, file);
	g_autofree char *query = g_strdup_printf(
	        "/media/%s.mp3?size=1048576&cut=300000%s", name, how);
	g_autoptr(GBytes) source = source_bytes(name, MiB, 0);
	g_autofree char *etag = g_strdup_printf("\"%s-v0-1048576\"", name);
	g_auto(GStrv) log = NULL;
	g_auto(GStrv) fields = NULL;
	guint64 from;
	Outcome o;

	outcome_init(&o);
	download(fx, query, path, &o);
	g_assert_no_error(o.error);
	assert_whole(path, source);
	g_assert_true(feed_download_result_was_resumed(o.result));
	g_assert_cmpuint(feed_download_result_get_http_status(o.result), ==,
	                 206);
	log = server_log(name);
	g_assert_cmpuint(g_strv_length(log), ==, 2);
	g_assert_cmpstr(log[0], ==, "200 - -");
	fields = g_strsplit(log[1], " ", 3);
	g_assert_cmpstr(fields[0], ==, "206");
	g_assert_true(g_str_has_prefix(fields[1], "bytes="));
	from = g_ascii_strtoull(fields[1] + 6, NULL, 10);
	g_assert_cmpuint(from, >, 0);
	g_assert_cmpuint(from, <=, 300000);
	if (*how == '\0')
		g_assert_cmpuint(from, ==, 300000);
	g_assert_cmpstr(fields[2], ==, etag);
	outcome_clear(&o);
}

static void
test_cut_resumes(Fixture *fx, gconstpointer data)
{
	g_test_summary("A connection closed mid-body is resumed at once, "
	               "with Range and If-Range, and the bytes are the "
	               "source's.");
	check_cut_resumes(fx, "cut", "");
}

static void
test_reset_resumes(Fixture *fx, gconstpointer data)
{
	g_test_summary("A connection reset mid-body is resumed as well.");
	check_cut_resumes(fx, "reset", "&reset=1");
}

static void
test_cut_every_time(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "every.mp3");
	g_autofree char *part = g_strconcat(path, ".part", NULL);
	g_autofree char *info = g_strconcat(path, ".part.info", NULL);
	g_auto(GStrv) log = NULL;
	Outcome o;

	g_test_summary("A server that cuts every response is resumed three "
	               "times, then the download fails and keeps what came.");
	outcome_init(&o);
	download(fx, "/media/every.mp3?size=1048576&cutevery=100000", path, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_NETWORK);
	assert_message_has(o.error, "/media/every.mp3");
	g_assert_false(exists(path));
	g_assert_true(exists(info));
	g_assert_cmpuint(feed_download_result_get_size(o.result), ==, 400000);
	g_assert_cmpuint(file_size(part), ==, 400000);
	log = server_log("every");
	g_assert_cmpuint(g_strv_length(log), ==, 4);
	g_assert_cmpstr(log[3], ==, "206 bytes=300000- \"every-v0-1048576\"");
	outcome_clear(&o);
}

static void
test_resume_across_calls(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "later.mp3");
	g_autofree char *part = g_strconcat(path, ".part", NULL);
	g_autofree char *info = g_strconcat(path, ".part.info", NULL);
	g_autofree char *address = url("/media/later.mp3?size=1048576"
	                               "&rate=2000000");
	g_autoptr(GBytes) source = source_bytes("later", MiB, 0);
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	g_autofree char *expected = NULL;
	g_auto(GStrv) log = NULL;
	guint64 kept;
	Outcome o;

	g_test_summary("A download cancelled half-way keeps its partial "
	               "file; the next one of the same URL to the same path "
	               "asks for the rest only.");
	outcome_init(&o);
	o.cancel_after = cancellable;
	o.cancel_at = 200000;
	run(fx, feed_download_request_new(address, path), cancellable, &o);
	g_assert_error(o.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
	g_assert_false(exists(path));
	g_assert_true(exists(info));
	kept = file_size(part);
	g_assert_cmpuint(kept, >=, 200000);
	g_assert_cmpuint(kept, <, MiB);
	g_assert_cmpuint(feed_download_result_get_size(o.result), ==, kept);
	outcome_clear(&o);

	outcome_init(&o);
	run(fx, feed_download_request_new(address, path), NULL, &o);
	g_assert_no_error(o.error);
	assert_whole(path, source);
	g_assert_true(feed_download_result_was_resumed(o.result));
	g_assert_cmpuint(feed_download_result_get_size(o.result), ==, MiB);
	/* Progress counts the bytes from before too. */
	g_assert_cmpuint(o.received->len, >, 0);
	g_assert_cmpuint(g_array_index(o.received, guint64, 0), >, kept);
	log = server_log("later");
	g_assert_cmpuint(g_strv_length(log), ==, 2);
	expected = g_strdup_printf(
	        "206 bytes=%" G_GUINT64_FORMAT "- \"later-v0-1048576\"", kept);
	g_assert_cmpstr(log[1], ==, expected);
	outcome_clear(&o);
}

static void
test_ignores_ranges(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "noranges.mp3");
	g_autoptr(GBytes) source = source_bytes("noranges", MiB, 0);
	g_auto(GStrv) log = NULL;
	Outcome o;

	g_test_summary("A server that answers a range with the whole file "
	               "gets it written from the start.");
	outcome_init(&o);
	download(fx, "/media/noranges.mp3?size=1048576&cut=300000&noranges=1",
	         path, &o);
	g_assert_no_error(o.error);
	assert_whole(path, source);
	g_assert_false(feed_download_result_was_resumed(o.result));
	log = server_log("noranges");
	g_assert_cmpuint(g_strv_length(log), ==, 2);
	g_assert_cmpstr(log[1], ==,
	                "200 bytes=300000- \"noranges-v0-1048576\"");
	outcome_clear(&o);
}

static void
test_file_changed(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "changed.mp3");
	g_autoptr(GBytes) old_source = source_bytes("changed", MiB, 0);
	g_autoptr(GBytes) source = source_bytes("changed", MiB, 1);
	g_auto(GStrv) log = NULL;
	Outcome o;

	g_test_summary("When the file changed between attempts, If-Range "
	               "gets the new one whole, and nothing of the old one "
	               "stays.");
	g_assert_false(g_bytes_equal(old_source, source));
	outcome_init(&o);
	download(fx, "/media/changed.mp3?size=1048576&cut=300000&change=1",
	         path, &o);
	g_assert_no_error(o.error);
	assert_whole(path, source);
	g_assert_false(feed_download_result_was_resumed(o.result));
	log = server_log("changed");
	g_assert_cmpuint(g_strv_length(log), ==, 2);
	g_assert_cmpstr(log[1], ==, "200 bytes=300000- \"changed-v0-1048576\"");
	outcome_clear(&o);
}

static void
test_weak_etag(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "weak.mp3");
	g_autoptr(GBytes) source = source_bytes("weak", MiB, 0);
	g_auto(GStrv) log = NULL;
	Outcome o;

	g_test_summary("A weak ETag is never sent in If-Range: the "
	               "Last-Modified date is.");
	outcome_init(&o);
	download(fx, "/media/weak.mp3?size=1048576&cut=300000&weaketag=1", path,
	         &o);
	g_assert_no_error(o.error);
	assert_whole(path, source);
	g_assert_true(feed_download_result_was_resumed(o.result));
	log = server_log("weak");
	g_assert_cmpuint(g_strv_length(log), ==, 2);
	g_assert_cmpstr(log[1], ==,
	                "206 bytes=300000- Wed, 01 Jan 2025 00:00:00 GMT");
	outcome_clear(&o);
}

static void
test_no_validator(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "bare.mp3");
	g_autofree char *info = g_strconcat(path, ".part.info", NULL);
	g_autoptr(GBytes) source = source_bytes("bare", MiB, 0);
	g_auto(GStrv) log = NULL;
	Outcome o;

	g_test_summary("Without a validator nothing is resumed: a cut "
	               "fails, and the next download starts from zero.");
	outcome_init(&o);
	download(fx, "/media/bare.mp3?size=1048576&cut=300000&novalidators=1",
	         path, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_NETWORK);
	g_assert_false(exists(path));
	g_assert_false(exists(info));
	outcome_clear(&o);

	outcome_init(&o);
	download(fx, "/media/bare.mp3?size=1048576&novalidators=1", path, &o);
	g_assert_no_error(o.error);
	assert_whole(path, source);
	g_assert_false(feed_download_result_was_resumed(o.result));
	log = server_log("bare");
	g_assert_cmpuint(g_strv_length(log), ==, 2);
	g_assert_cmpstr(log[1], ==, "200 - -");
	outcome_clear(&o);
}

static void
write_file(const char *path, const void *data, gsize length)
{
	g_autoptr(GError) error = NULL;

	g_file_set_contents(path, data, (gssize)length, &error);
	g_assert_no_error(error);
}

static void
test_whole_partial(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "done.mp3");
	g_autofree char *part = g_strconcat(path, ".part", NULL);
	g_autofree char *info = g_strconcat(path, ".part.info", NULL);
	g_autofree char *address = url("/media/done.mp3?size=65536");
	g_autoptr(GBytes) source = source_bytes("done", 65536, 0);
	g_autofree char *note = g_strdup_printf(
	        "[download]\nurl=%s\nvalidator=\"done-v0-65536\"\n"
	        "total=65536\n",
	        address);
	g_auto(GStrv) log = NULL;
	Outcome o;

	g_test_summary("A partial file that is already whole (a crash "
	               "before the rename) is answered 416, and renamed.");
	write_file(part, g_bytes_get_data(source, NULL),
	           g_bytes_get_size(source));
	write_file(info, note, strlen(note));
	outcome_init(&o);
	run(fx, feed_download_request_new(address, path), NULL, &o);
	g_assert_no_error(o.error);
	assert_whole(path, source);
	g_assert_true(feed_download_result_was_resumed(o.result));
	log = server_log("done");
	g_assert_cmpuint(g_strv_length(log), ==, 1);
	g_assert_cmpstr(log[0], ==, "416 bytes=65536- \"done-v0-65536\"");
	outcome_clear(&o);
}

static void
test_other_url(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "other.mp3");
	g_autofree char *part = g_strconcat(path, ".part", NULL);
	g_autofree char *info = g_strconcat(path, ".part.info", NULL);
	g_autoptr(GBytes) source = source_bytes("other", 65536, 0);
	const char *note = "[download]\nurl=http://127.0.0.1:1/else.mp3\n"
	                   "validator=\"other-v0-65536\"\ntotal=65536\n";
	g_auto(GStrv) log = NULL;
	Outcome o;

	g_test_summary("A partial file of another URL is not resumed.");
	write_file(part, "0123456789", 10);
	write_file(info, note, strlen(note));
	outcome_init(&o);
	download(fx, "/media/other.mp3?size=65536", path, &o);
	g_assert_no_error(o.error);
	assert_whole(path, source);
	log = server_log("other");
	g_assert_cmpstr(log[0], ==, "200 - -");
	outcome_clear(&o);
}

static void
check_not_media(Fixture *fx, const char *name, const char *query,
                const char *words)
{
	g_autofree char *file = g_strconcat(name, ".mp3", NULL);
	g_autofree char *path = path_in(fx, file);
	g_autofree char *address = url(query);
	Outcome o;

	outcome_init(&o);
	run(fx, feed_download_request_new(address, path), NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_NOT_MEDIA);
	assert_message_has(o.error, address);
	assert_message_has(o.error, words);
	assert_message_has(o.error, "captive portal");
	assert_message_has(o.error, "open network");
	assert_nothing_at(path);
	outcome_clear(&o);
}

static void
test_html_page(Fixture *fx, gconstpointer data)
{
	g_test_summary("A web page instead of audio is refused, by its type "
	               "or by its first bytes, and nothing is written.");
	check_not_media(fx, "page", "/media/page.mp3?html=1", "a web page");
	check_not_media(fx, "pagebody", "/media/pagebody.mp3?htmlbody=1",
	                "a web page");
	check_not_media(fx, "pagebody2",
	                "/media/pagebody2.mp3?htmlbody=1&size=300",
	                "a web page");
}

static void
test_tiny_text(Fixture *fx, gconstpointer data)
{
	g_test_summary("A short text instead of audio is refused, with or "
	               "without its length announced, and nothing stays.");
	check_not_media(fx, "text", "/media/text.mp3?text=300",
	                "300 bytes of text");
	check_not_media(fx, "textbody",
	                "/media/textbody.mp3?size=5000&type=text/plain"
	                "&nolength=1",
	                "5000 bytes of text");
}

static void
test_page_keeps_partial(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "portal.mp3");
	g_autofree char *part = g_strconcat(path, ".part", NULL);
	g_autofree char *info = g_strconcat(path, ".part.info", NULL);
	g_autofree char *address = url("/media/portal.mp3?html=1");
	g_autofree char *note = g_strdup_printf(
	        "[download]\nurl=%s\nvalidator=\"portal-v0-65536\"\n"
	        "total=65536\n",
	        address);
	Outcome o;

	g_test_summary("A web page answered to a resume (a portal on another "
	               "network) leaves the partial file for later.");
	write_file(part, "0123456789", 10);
	write_file(info, note, strlen(note));
	outcome_init(&o);
	run(fx, feed_download_request_new(address, path), NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_NOT_MEDIA);
	g_assert_cmpuint(file_size(part), ==, 10);
	g_assert_true(exists(info));
	g_assert_false(exists(path));
	outcome_clear(&o);
}

static void
test_too_large(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "huge.mp3");
	g_autofree char *address = url("/media/huge.mp3?size=65536&huge=1");
	g_autofree char *path2 = path_in(fx, "long.mp3");
	g_autofree char *address2 =
	        url("/media/long.mp3?size=1048576&nolength=1");
	g_autofree char *huge = g_format_size_full(G_GUINT64_CONSTANT(10) << 30,
	                                           G_FORMAT_SIZE_IEC_UNITS);
	g_autofree char *cap = g_format_size_full(
	        FEED_DOWNLOAD_DEFAULT_MAX_SIZE, G_FORMAT_SIZE_IEC_UNITS);
	g_autofree char *small_cap =
	        g_format_size_full(300000, G_FORMAT_SIZE_IEC_UNITS);
	FeedDownloadRequest *request;
	Outcome o;

	g_test_summary("A file over the cap is refused, announced or not, "
	               "and no more than the cap is ever on disk.");
	outcome_init(&o);
	run(fx, feed_download_request_new(address, path), NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_TOO_LARGE);
	assert_message_has(o.error, address);
	assert_message_has(o.error, huge);
	assert_message_has(o.error, cap);
	g_assert_cmpuint(o.received->len, ==, 0);
	assert_nothing_at(path);
	outcome_clear(&o);

	outcome_init(&o);
	request = feed_download_request_new(address2, path2);
	feed_download_request_set_max_size(request, 300000);
	run(fx, request, NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_TOO_LARGE);
	assert_message_has(o.error, "larger than the");
	assert_message_has(o.error, small_cap);
	for (guint i = 0; i < o.received->len; i++)
		g_assert_cmpuint(g_array_index(o.received, guint64, i), <=,
		                 300000);
	assert_nothing_at(path2);
	outcome_clear(&o);
}

static void
test_short_body(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "short.mp3");
	Outcome o;

	g_test_summary("A body shorter than its Content-Length fails, and "
	               "the file is not put in place.");
	outcome_init(&o);
	download(fx, "/media/short.mp3?size=200000&short=1000", path, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_NETWORK);
	assert_message_has(o.error, "truncated");
	g_assert_false(exists(path));
	outcome_clear(&o);
}

static void
test_http_error(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "missing.mp3");
	g_autofree char *address = url("/status/404");
	g_autofree char *expected =
	        g_strdup_printf("%s: HTTP 404 Not Found", address);
	Outcome o;

	g_test_summary("An HTTP error is worded as a feed's, and nothing is "
	               "written.");
	outcome_init(&o);
	run(fx, feed_download_request_new(address, path), NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_HTTP);
	g_assert_cmpstr(o.error->message, ==, expected);
	g_assert_cmpuint(feed_download_result_get_http_status(o.result), ==,
	                 404);
	assert_nothing_at(path);
	outcome_clear(&o);
}

static void
test_redirect_to_file(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "passwd");
	g_autofree char *address = url("/redirect?to=file:///etc/passwd");
	FeedDownloadRequest *request;
	Outcome o;

	g_test_summary("A redirect to a file: URL is refused, even with "
	               "file: URLs allowed.");
	outcome_init(&o);
	request = feed_download_request_new(address, path);
	feed_download_request_set_flags(request, FEED_FETCH_ALLOW_FILE);
	run(fx, request, NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_SCHEME);
	assert_message_has(o.error, "redirected to file:///etc/passwd");
	assert_nothing_at(path);
	outcome_clear(&o);
}

static void
test_file_url(Fixture *fx, gconstpointer data)
{
	g_autofree char *source_path = path_in(fx, "source.mp3");
	g_autofree char *address = g_filename_to_uri(source_path, NULL, NULL);
	g_autofree char *path = path_in(fx, "copy.mp3");
	g_autoptr(GBytes) source = source_bytes("file", 100000, 0);
	FeedDownloadRequest *request;
	Outcome o;

	g_test_summary("A file: URL is copied with FEED_FETCH_ALLOW_FILE "
	               "and refused without.");
	write_file(source_path, g_bytes_get_data(source, NULL),
	           g_bytes_get_size(source));
	outcome_init(&o);
	run(fx, feed_download_request_new(address, path), NULL, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_SCHEME);
	assert_nothing_at(path);
	outcome_clear(&o);

	outcome_init(&o);
	request = feed_download_request_new(address, path);
	feed_download_request_set_flags(request, FEED_FETCH_ALLOW_FILE);
	run(fx, request, NULL, &o);
	g_assert_no_error(o.error);
	assert_whole(path, source);
	outcome_clear(&o);
}

static void
test_symlink_part(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "linked.mp3");
	g_autofree char *part = g_strconcat(path, ".part", NULL);
	g_autofree char *victim = path_in(fx, "victim");
	g_autofree char *victim2 = path_in(fx, "victim2");
	g_autoptr(GBytes) source = source_bytes("linked", 100000, 0);
	g_autofree char *data_after = NULL;
	Outcome o;

	g_test_summary("A symbolic link at PATH.part or at PATH is never "
	               "followed: what it points to stays as it was.");
	write_file(victim, "keep me", 7);
	write_file(victim2, "keep me too", 11);
	g_assert_cmpint(symlink(victim, part), ==, 0);
	g_assert_cmpint(symlink(victim2, path), ==, 0);
	outcome_init(&o);
	download(fx, "/media/linked.mp3?size=100000", path, &o);
	g_assert_no_error(o.error);
	assert_whole(path, source);
	g_file_get_contents(victim, &data_after, NULL, NULL);
	g_assert_cmpstr(data_after, ==, "keep me");
	g_clear_pointer(&data_after, g_free);
	g_file_get_contents(victim2, &data_after, NULL, NULL);
	g_assert_cmpstr(data_after, ==, "keep me too");
	outcome_clear(&o);
}

static void
test_progress(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "slow.mp3");
	g_autoptr(GBytes) source = source_bytes("slow", 600000, 0);
	guint n;
	Outcome o;

	g_test_summary("Progress comes at most about four times a second, "
	               "growing, and ends with the file's size as total.");
	outcome_init(&o);
	download(fx, "/media/slow.mp3?size=600000&rate=400000", path, &o);
	g_assert_no_error(o.error);
	assert_whole(path, source);
	n = o.received->len;
	/* About 1.5 s: at least 3 reports and the last, at most 4 a second. */
	g_assert_cmpuint(n, >=, 4);
	g_assert_cmpuint(n, <=, 12);
	for (guint i = 0; i < n; i++) {
		g_assert_cmpuint(g_array_index(o.totals, guint64, i), ==,
		                 600000);
		if (i == 0)
			continue;
		g_assert_cmpuint(g_array_index(o.received, guint64, i), >,
		                 g_array_index(o.received, guint64, i - 1));
		/* All but the last call are a quarter second apart. */
		if (i < n - 1)
			g_assert_cmpint(
			        g_array_index(o.times, gint64, i) -
			                g_array_index(o.times, gint64, i - 1),
			        >=, G_USEC_PER_SEC / 4);
	}
	g_assert_cmpuint(g_array_index(o.received, guint64, n - 1), ==, 600000);
	outcome_clear(&o);
}

/* A tmpfs over @dir, in our own mount namespace. */
static void
mount_tmpfs(const char *dir, const char *options, unsigned long flags)
{
	if (mount("tmpfs", dir, "tmpfs", flags, options) != 0)
		g_error("mount tmpfs on %s: %s", dir, g_strerror(errno));
}

static void
test_read_only(Fixture *fx, gconstpointer data)
{
	g_autofree char *dir = path_in(fx, "ro");
	g_autofree char *path = g_build_filename(dir, "ro.mp3", NULL);
	Outcome o;

	g_test_summary("A directory that cannot be written fails with an "
	               "I/O error that names the path and why.");
	if (!harness.namespaced && geteuid() == 0) {
		g_test_skip("root writes to any directory: needs a mount "
		            "namespace, which unshare could not make");
		return;
	}
	g_assert_cmpint(g_mkdir(dir, 0755), ==, 0);
	if (harness.namespaced)
		mount_tmpfs(dir, "size=64k", MS_RDONLY);
	else
		g_assert_cmpint(g_chmod(dir, 0555), ==, 0);
	outcome_init(&o);
	download(fx, "/media/ro.mp3?size=100000", path, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_IO);
	assert_message_has(o.error, path);
	assert_message_has(o.error, harness.namespaced ? g_strerror(EROFS)
	                                               : g_strerror(EACCES));
	if (harness.namespaced)
		g_assert_cmpint(umount2(dir, MNT_DETACH), ==, 0);
	g_assert_false(exists(path));
	outcome_clear(&o);
}

static void
test_disk_full(Fixture *fx, gconstpointer data)
{
	g_autofree char *dir = path_in(fx, "full");
	g_autofree char *path = g_build_filename(dir, "full.mp3", NULL);
	g_autofree char *part = g_strconcat(path, ".part", NULL);
	g_auto(GStrv) log = NULL;
	Outcome o;

	g_test_summary("A disk that fills up fails the download at once with "
	               "an I/O error naming the path; the partial file stays "
	               "to be resumed.");
	if (!harness.namespaced) {
		g_test_skip("needs root, for a tmpfs in a mount namespace");
		return;
	}
	g_assert_cmpint(g_mkdir(dir, 0755), ==, 0);
	mount_tmpfs(dir, "size=256k", 0);
	outcome_init(&o);
	download(fx, "/media/full.mp3?size=4194304", path, &o);
	g_assert_error(o.error, FEED_ERROR, FEED_ERROR_IO);
	assert_message_has(o.error, part);
	assert_message_has(o.error, g_strerror(ENOSPC));
	g_assert_false(exists(path));
	g_assert_true(exists(part));
	g_assert_cmpuint(file_size(part), <=, 256 * 1024);
	/* Aborted at once: not resumed, not read to its end. */
	log = server_log("full");
	g_assert_cmpuint(g_strv_length(log), ==, 1);
	g_assert_cmpint(umount2(dir, MNT_DETACH), ==, 0);
	outcome_clear(&o);
}

static void
test_limits(Fixture *fx, gconstpointer data)
{
	char *paths[2] = { NULL };
	Outcome o[2];
	gboolean expired = FALSE;
	GSource *watchdog = g_timeout_source_new_seconds(WATCHDOG_SECONDS);
	guint done = 0;
	gint64 start = g_get_monotonic_time();

	g_test_summary("Downloads share the fetcher's limits, but not its "
	               "total timeout: a download slower than it finishes.");
	feed_fetcher_set_max_transfers(fx->fetcher, 1);
	feed_fetcher_set_timeouts(fx->fetcher, 0, 1, 0);
	for (guint i = 0; i < 2; i++) {
		g_autofree char *name = g_strdup_printf("lim%u.mp3", i);
		g_autofree char *query = g_strdup_printf(
		        "/media/lim%u.mp3?size=300000&rate=200000", i);
		g_autofree char *address = url(query);
		FeedDownloadRequest *request;

		paths[i] = path_in(fx, name);
		outcome_init(&o[i]);
		request = feed_download_request_new(address, paths[i]);
		feed_fetcher_download(fx->fetcher, request, NULL, on_downloaded,
		                      &o[i]);
		feed_download_request_free(request);
		o[i].returned = TRUE;
	}
	g_source_set_callback(watchdog, on_watchdog, &expired, NULL);
	g_source_attach(watchdog, fx->context);
	while (done < 2 && !expired) {
		g_main_context_iteration(fx->context, TRUE);
		done = o[0].calls + o[1].calls;
	}
	g_source_destroy(watchdog);
	g_source_unref(watchdog);
	g_assert_false(expired);
	for (guint i = 0; i < 2; i++) {
		g_assert_no_error(o[i].error);
		g_assert_cmpuint(file_size(paths[i]), ==, 300000);
		outcome_clear(&o[i]);
		g_free(paths[i]);
	}
	/* One after the other, each 1.5 s: 3 s in all. */
	g_assert_cmpint(g_get_monotonic_time() - start, >=,
	                (gint64)(2.8 * G_USEC_PER_SEC));
}

static void
test_sync(Fixture *fx, gconstpointer data)
{
	g_autofree char *path = path_in(fx, "sync.mp3");
	g_autofree char *address = url("/media/sync.mp3?size=100000");
	g_autofree char *bad = url("/status/500");
	g_autoptr(FeedDownloadRequest) request =
	        feed_download_request_new(address, path);
	g_autoptr(FeedDownloadRequest) bad_request =
	        feed_download_request_new(bad, path);
	g_autoptr(GBytes) source = source_bytes("sync", 100000, 0);
	g_autoptr(FeedDownloadResult) result = NULL;
	g_autoptr(GError) error = NULL;

	g_test_summary("feed_download_sync() downloads and waits.");
	result = feed_download_sync(request, NULL, &error);
	g_assert_no_error(error);
	g_assert_nonnull(result);
	assert_whole(path, source);
	g_assert_null(feed_download_sync(bad_request, NULL, &error));
	g_assert_error(error, FEED_ERROR, FEED_ERROR_HTTP);
}

/* Root starts itself again in a mount namespace of its own. */
static void
enter_mount_namespace(int argc, char **argv)
{
	g_autofree char *unshare = NULL;
	char **args;
	int status;

	if (geteuid() != 0)
		return;
	if (g_getenv("FEED_TEST_UNSHARED") != NULL) {
		harness.namespaced = TRUE;
		return;
	}
	unshare = g_find_program_in_path("unshare");
	/* Where no namespace can be made (a container), the disk tests skip. */
	if (unshare == NULL ||
	    !g_spawn_sync(NULL,
	                  (char *[]){ unshare, (char *)"--mount",
	                              (char *)"--propagation",
	                              (char *)"private", (char *)"true", NULL },
	                  NULL,
	                  G_SPAWN_STDOUT_TO_DEV_NULL |
	                          G_SPAWN_STDERR_TO_DEV_NULL,
	                  NULL, NULL, NULL, NULL, &status, NULL) ||
	    !g_spawn_check_wait_status(status, NULL))
		return;
	args = g_new0(char *, argc + 5);
	args[0] = unshare;
	args[1] = (char *)"--mount";
	args[2] = (char *)"--propagation";
	args[3] = (char *)"private";
	for (int i = 0; i < argc; i++)
		args[4 + i] = argv[i];
	g_setenv("FEED_TEST_UNSHARED", "1", TRUE);
	execv(unshare, args);
	g_printerr("cannot run %s: %s\n", unshare, g_strerror(errno));
	exit(1);
}

#define ADD(path, func)                                                        \
	g_test_add(path, Fixture, NULL, fixture_setup, func, fixture_teardown)

int
main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	int status;

	enter_mount_namespace(argc, argv);
	g_test_init(&argc, &argv, NULL);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (!server_start(&error)) {
		g_printerr("cannot start the server: %s\n", error->message);
		return 1;
	}

	ADD("/download/whole", test_whole);
	ADD("/download/resume/cut", test_cut_resumes);
	ADD("/download/resume/reset", test_reset_resumes);
	ADD("/download/resume/cut-every-time", test_cut_every_time);
	ADD("/download/resume/across-calls", test_resume_across_calls);
	ADD("/download/resume/ranges-ignored", test_ignores_ranges);
	ADD("/download/resume/file-changed", test_file_changed);
	ADD("/download/resume/weak-etag", test_weak_etag);
	ADD("/download/resume/no-validator", test_no_validator);
	ADD("/download/resume/already-whole", test_whole_partial);
	ADD("/download/resume/other-url", test_other_url);
	ADD("/download/not-media/html", test_html_page);
	ADD("/download/not-media/tiny-text", test_tiny_text);
	ADD("/download/not-media/keeps-partial", test_page_keeps_partial);
	ADD("/download/too-large", test_too_large);
	ADD("/download/short-body", test_short_body);
	ADD("/download/http-error", test_http_error);
	ADD("/download/scheme/redirect-to-file", test_redirect_to_file);
	ADD("/download/scheme/file-url", test_file_url);
	ADD("/download/disk/symlink", test_symlink_part);
	ADD("/download/disk/read-only", test_read_only);
	ADD("/download/disk/full", test_disk_full);
	ADD("/download/progress", test_progress);
	ADD("/download/limits", test_limits);
	ADD("/download/sync", test_sync);

	status = g_test_run();
	server_stop();
	curl_global_cleanup();
	return status;
}
