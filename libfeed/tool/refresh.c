/*
 * feedtool refresh: fetches every feed through FeedFetchers, keeps each
 * feed's validators in a cache directory so the next run sends conditional
 * GETs, and reports a line per feed as it finishes.
 *
 * Parsing takes as long as the network on a fast link, so the feeds are
 * shared among one fetcher per core, each on its own thread and main
 * context. A host's feeds all go to one fetcher, so the per-host limit
 * holds.
 */
#include "refresh.h"

#include "json-writer.h"
#include "listing.h"

#include <errno.h>
#include <feed/feed.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CACHE_FILE "validators"

#define MAX_WORKERS 4

typedef struct {
	GMutex lock;     /* over everything below: workers report here */
	GKeyFile *cache; /* NULL without --cache */
	gboolean json;
	gboolean progress; /* a live line on the terminal */
	guint total;
	guint done;
	guint updated, not_modified, unchanged, moved, failed;
	guint64 episodes;
	guint64 bytes;
	gint64 started;      /* monotonic microseconds */
	guint timeout;       /* seconds for a whole fetch, 0: the default */
	guint stall_timeout; /* seconds without a byte, 0: the default */
} Refresh;

/* One fetcher on its own thread, with the feeds of some hosts. */
typedef struct {
	Refresh *refresh;
	GPtrArray *urls; /* borrowed */
	guint jobs;      /* transfers at once */
	GMainLoop *loop;
	guint left; /* feeds not yet finished */
} Worker;

typedef struct {
	Worker *worker;
	char *url;
	guint episodes;
} Feed;

/* GKeyFile group names cannot hold every URL: a hash can. */
static char *
cache_group(const char *url)
{
	g_autofree char *hash =
	        g_compute_checksum_for_string(G_CHECKSUM_SHA256, url, -1);

	return g_strndup(hash, 20);
}

static char *
cache_get(Refresh *refresh, const char *url, const char *key)
{
	g_autofree char *group = cache_group(url);

	if (refresh->cache == NULL)
		return NULL;
	return g_key_file_get_string(refresh->cache, group, key, NULL);
}

static void
cache_put(Refresh *refresh, const char *url, const FeedFetchResult *result)
{
	g_autofree char *group = cache_group(url);
	const char *values[][2] = {
		{ "etag", feed_fetch_result_get_etag(result) },
		{ "last_modified",
		  feed_fetch_result_get_last_modified(result) },
		{ "content_hash", feed_fetch_result_get_content_hash(result) },
	};

	if (refresh->cache == NULL)
		return;
	g_key_file_set_string(refresh->cache, group, "url", url);
	for (guint i = 0; i < G_N_ELEMENTS(values); i++) {
		if (values[i][1] != NULL)
			g_key_file_set_string(refresh->cache, group,
			                      values[i][0], values[i][1]);
		else
			g_key_file_remove_key(refresh->cache, group,
			                      values[i][0], NULL);
	}
}

static char *
format_bytes(guint64 bytes)
{
	return g_format_size_full(bytes, G_FORMAT_SIZE_DEFAULT);
}

static void
clear_progress(Refresh *refresh)
{
	if (refresh->progress)
		fputs("\r\033[K", stderr);
}

static void
show_progress(Refresh *refresh)
{
	if (!refresh->progress || refresh->done == refresh->total)
		return;
	fprintf(stderr,
	        "\r\033[K[%u/%u] %u updated, %u not modified, %u failed",
	        refresh->done, refresh->total, refresh->updated,
	        refresh->not_modified, refresh->failed);
	fflush(stderr);
}

static const char *
status_word(const FeedFetchResult *result, const GError *error)
{
	if (error != NULL)
		return "failed";
	switch (feed_fetch_result_get_status(result)) {
	case FEED_FETCH_NOT_MODIFIED:
		return "not-modified";
	case FEED_FETCH_UNCHANGED:
		return "unchanged";
	default:
		return "updated";
	}
}

static void
print_json(const Feed *feed, const FeedFetchResult *result, const GError *error)
{
	JsonOut *json = json_out_new(stdout);
	const char *moved_to = feed_fetch_result_is_moved(result)
	                               ? feed_fetch_result_get_final_url(result)
	                               : NULL;

	json_out_begin_object(json);
	json_out_member_string(json, "url", feed->url);
	json_out_member_string(json, "status", status_word(result, error));
	json_out_member_string(json, "moved_to", moved_to);
	json_out_member_string(json, "discovered_url",
	                       feed_fetch_result_get_discovered_url(result));
	json_out_member_string(json, "new_feed_url",
	                       feed_fetch_result_get_new_feed_url(result));
	json_out_key(json, "episodes");
	json_out_int(json, feed->episodes);
	json_out_key(json, "bytes");
	json_out_int(json,
	             (gint64)feed_fetch_result_get_bytes_received(result));
	json_out_key(json, "seconds");
	json_out_double(json,
	                feed_fetch_result_get_elapsed(result) / 1000000.0);
	if (feed_fetch_result_get_http_status(result) != 0) {
		json_out_key(json, "http_status");
		json_out_int(json, feed_fetch_result_get_http_status(result));
	}
	json_out_member_string(json, "error",
	                       error != NULL ? error->message : NULL);
	json_out_end_object(json);
	json_out_finish(json, NULL);
}

static void
print_line(const Feed *feed, const FeedFetchResult *result, const GError *error)
{
	g_autofree char *bytes =
	        format_bytes(feed_fetch_result_get_bytes_received(result));
	g_autofree char *url = listing_sanitize(feed->url);
	g_autofree char *detail = NULL;
	g_autofree char *episodes = NULL;
	const char *word = status_word(result, error);
	double seconds = feed_fetch_result_get_elapsed(result) / 1000000.0;

	if (error != NULL)
		detail = listing_sanitize(error->message);
	else if (feed_fetch_result_is_moved(result))
		detail = g_strdup_printf(
		        "moved to %s", feed_fetch_result_get_final_url(result));
	else if (feed_fetch_result_get_discovered_url(result) != NULL)
		detail = g_strdup_printf(
		        "feed found at %s",
		        feed_fetch_result_get_discovered_url(result));
	if (error != NULL) {
		printf("%-12s %6.2f s  %s\n", word, seconds, detail);
		return;
	}
	if (feed_fetch_result_get_status(result) == FEED_FETCH_UPDATED)
		episodes = g_strdup_printf("%5u episodes", feed->episodes);
	else
		episodes = g_strdup("             -");
	printf("%-12s %6.2f s  %s %9s  %s%s%s\n",
	       feed_fetch_result_is_moved(result) ? "moved" : word, seconds,
	       episodes, bytes, url, detail != NULL ? "  " : "",
	       detail != NULL ? detail : "");
}

static void
count(Refresh *refresh, const FeedFetchResult *result, const GError *error)
{
	refresh->bytes += feed_fetch_result_get_bytes_received(result);
	if (error != NULL) {
		refresh->failed++;
		return;
	}
	if (feed_fetch_result_is_moved(result))
		refresh->moved++;
	switch (feed_fetch_result_get_status(result)) {
	case FEED_FETCH_NOT_MODIFIED:
		refresh->not_modified++;
		break;
	case FEED_FETCH_UNCHANGED:
		refresh->unchanged++;
		break;
	default:
		refresh->updated++;
		break;
	}
}

static void
on_episode(FeedEpisode *episode, gpointer data)
{
	Feed *feed = data;

	feed->episodes++;
}

static void
on_fetched(FeedFetchResult *result, const GError *error, gpointer data)
{
	Feed *feed = data;
	Worker *worker = feed->worker;
	Refresh *refresh = worker->refresh;

	g_mutex_lock(&refresh->lock);
	refresh->done++;
	refresh->episodes += feed->episodes;
	count(refresh, result, error);
	if (error == NULL)
		cache_put(refresh, feed->url, result);
	clear_progress(refresh);
	if (refresh->json)
		print_json(feed, result, error);
	else
		print_line(feed, result, error);
	fflush(stdout);
	show_progress(refresh);
	g_mutex_unlock(&refresh->lock);
	g_free(feed->url);
	g_free(feed);
	if (--worker->left == 0)
		g_main_loop_quit(worker->loop);
}

static void
start(Worker *worker, FeedFetcher *fetcher, const char *url)
{
	Refresh *refresh = worker->refresh;
	g_autoptr(FeedFetchRequest) request = feed_fetch_request_new(url);
	g_autofree char *etag = NULL;
	g_autofree char *modified = NULL;
	g_autofree char *hash = NULL;
	Feed *feed = g_new0(Feed, 1);

	g_mutex_lock(&refresh->lock);
	etag = cache_get(refresh, url, "etag");
	modified = cache_get(refresh, url, "last_modified");
	hash = cache_get(refresh, url, "content_hash");
	g_mutex_unlock(&refresh->lock);
	feed->worker = worker;
	feed->url = g_strdup(url);
	feed_fetch_request_set_validators(request, etag, modified);
	feed_fetch_request_set_content_hash(request, hash);
	/* Count the episodes as they stream by; keep none of them. */
	feed_fetch_request_set_episode_func(request, on_episode, feed);
	feed_fetcher_fetch(fetcher, request, NULL, on_fetched, feed);
}

/* URLs from the command line and from --urls, blank and # lines skipped. */
static GPtrArray *
collect_urls(char **args, const char *urls_file, GError **error)
{
	GPtrArray *urls = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *contents = NULL;
	g_auto(GStrv) lines = NULL;

	for (; args != NULL && *args != NULL; args++)
		g_ptr_array_add(urls, g_strdup(*args));
	if (urls_file == NULL)
		return urls;
	if (!g_file_get_contents(urls_file, &contents, NULL, error)) {
		g_ptr_array_unref(urls);
		return NULL;
	}
	lines = g_strsplit(contents, "\n", -1);
	for (char **line = lines; *line != NULL; line++) {
		char *url = g_strstrip(*line);

		if (*url != '\0' && *url != '#')
			g_ptr_array_add(urls, g_strdup(url));
	}
	return urls;
}

static gboolean
load_cache(Refresh *refresh, const char *dir, GError **error)
{
	g_autofree char *path = g_build_filename(dir, CACHE_FILE, NULL);
	g_autoptr(GError) local = NULL;

	if (g_mkdir_with_parents(dir, 0700) != 0) {
		int saved = errno;
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved),
		            "cannot create the cache directory %s: %s", dir,
		            g_strerror(saved));
		return FALSE;
	}
	refresh->cache = g_key_file_new();
	if (g_key_file_load_from_file(refresh->cache, path, G_KEY_FILE_NONE,
	                              &local))
		return TRUE;
	if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
		return TRUE;
	g_set_error(error, local->domain, local->code,
	            "cannot read the cache %s: %s (remove it to start afresh)",
	            path, local->message);
	return FALSE;
}

static gboolean
save_cache(Refresh *refresh, const char *dir, GError **error)
{
	g_autofree char *path = g_build_filename(dir, CACHE_FILE, NULL);
	g_autofree char *data = NULL;
	gsize length;

	data = g_key_file_to_data(refresh->cache, &length, NULL);
	if (!g_file_set_contents_full(path, data, length,
	                              G_FILE_SET_CONTENTS_CONSISTENT, 0600,
	                              error)) {
		g_prefix_error(error, "cannot save the cache: ");
		return FALSE;
	}
	return TRUE;
}

static gpointer
run_worker(gpointer data)
{
	Worker *worker = data;
	GMainContext *context = g_main_context_new();
	FeedFetcher *fetcher;

	g_main_context_push_thread_default(context);
	worker->loop = g_main_loop_new(context, FALSE);
	fetcher = feed_fetcher_new(context);
	feed_fetcher_set_max_transfers(fetcher, worker->jobs);
	feed_fetcher_set_timeouts(fetcher, 0, worker->refresh->timeout,
	                          worker->refresh->stall_timeout);
	worker->left = worker->urls->len;
	for (guint i = 0; i < worker->urls->len; i++)
		start(worker, fetcher, worker->urls->pdata[i]);
	if (worker->left > 0)
		g_main_loop_run(worker->loop);
	feed_fetcher_free(fetcher);
	g_main_loop_unref(worker->loop);
	g_main_context_pop_thread_default(context);
	g_main_context_unref(context);
	return NULL;
}

static char *
host_of(const char *url)
{
	g_autoptr(GUri) uri = g_uri_parse(url, G_URI_FLAGS_ENCODED, NULL);
	const char *host = uri != NULL ? g_uri_get_host(uri) : NULL;

	return g_strdup(host != NULL ? host : url);
}

/*
 * One worker per core, up to MAX_WORKERS. A host's feeds stay together,
 * and hosts are dealt out in turn as they first appear, so that the
 * workers get even shares.
 */
static void
run_workers(Refresh *refresh, GPtrArray *urls, guint jobs)
{
	guint n = MIN(MIN((guint)g_get_num_processors(), MAX_WORKERS), jobs);
	Worker workers[MAX_WORKERS] = { 0 };
	GThread *threads[MAX_WORKERS] = { 0 };
	g_autoptr(GHashTable) owner =
	        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	guint next = 0;

	n = MAX(n, 1);
	for (guint i = 0; i < n; i++) {
		workers[i].refresh = refresh;
		workers[i].urls = g_ptr_array_new();
		workers[i].jobs = MAX(jobs / n, 1);
	}
	for (guint i = 0; i < urls->len; i++) {
		char *host = host_of(urls->pdata[i]);
		gpointer found;

		if (!g_hash_table_lookup_extended(owner, host, NULL, &found)) {
			found = GUINT_TO_POINTER(next++ % n);
			g_hash_table_insert(owner, host, found);
		} else {
			g_free(host);
		}
		g_ptr_array_add(workers[GPOINTER_TO_UINT(found)].urls,
		                urls->pdata[i]);
	}
	for (guint i = 0; i < n; i++)
		threads[i] = g_thread_new("refresh", run_worker, &workers[i]);
	for (guint i = 0; i < n; i++) {
		g_thread_join(threads[i]);
		g_ptr_array_unref(workers[i].urls);
	}
}

static void
print_summary(Refresh *refresh)
{
	g_autofree char *bytes = format_bytes(refresh->bytes);
	double seconds =
	        (g_get_monotonic_time() - refresh->started) / 1000000.0;

	clear_progress(refresh);
	if (refresh->json)
		return;
	printf("\n%u feed%s in %.2f s: %u updated, %u not modified, "
	       "%u unchanged, %u moved, %u failed; %" G_GUINT64_FORMAT
	       " episodes; %s received\n",
	       refresh->total, refresh->total == 1 ? "" : "s", seconds,
	       refresh->updated, refresh->not_modified, refresh->unchanged,
	       refresh->moved, refresh->failed, refresh->episodes, bytes);
}

int
refresh_command(int argc, char **argv)
{
	int jobs = 8;
	int timeout = 0;
	int stall_timeout = 0;
	gboolean json = FALSE;
	g_autofree char *cache_dir = NULL;
	g_autofree char *urls_file = NULL;
	g_auto(GStrv) args = NULL;
	GOptionEntry entries[] = {
		{ "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
		  "Fetch N feeds at once (default 8)", "N" },
		{ "cache", 0, 0, G_OPTION_ARG_FILENAME, &cache_dir,
		  "Keep validators in DIR, so unchanged feeds transfer "
		  "nothing",
		  "DIR" },
		{ "json", 0, 0, G_OPTION_ARG_NONE, &json,
		  "One JSON object per feed, a line each", NULL },
		{ "urls", 0, 0, G_OPTION_ARG_FILENAME, &urls_file,
		  "Read URLs from FILE, one a line", "FILE" },
		{ "timeout", 0, 0, G_OPTION_ARG_INT, &timeout,
		  "Give up on a feed after SECONDS in all (default 120)",
		  "SECONDS" },
		{ "stall-timeout", 0, 0, G_OPTION_ARG_INT, &stall_timeout,
		  "Give up on a feed after SECONDS without a byte "
		  "(default 30)",
		  "SECONDS" },
		{ G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &args,
		  NULL, "URL…" },
		G_OPTION_ENTRY_NULL
	};
	g_autoptr(GOptionContext) context =
	        g_option_context_new("URL… - refresh many feeds at once");
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) urls = NULL;
	Refresh refresh = { 0 };

	g_option_context_add_main_entries(context, entries, NULL);
	g_option_context_set_summary(
	        context, "Fetches feeds concurrently, sending the validators "
	                 "of the last run,\nand prints a line per feed and a "
	                 "summary.");
	if (!g_option_context_parse(context, &argc, &argv, &error) ||
	    jobs < 1 || timeout < 0 || stall_timeout < 0 ||
	    (args == NULL && urls_file == NULL)) {
		fprintf(stderr, "feedtool refresh: %s\n",
		        error != NULL ? error->message
		        : jobs < 1    ? "--jobs must be at least 1"
		        : timeout < 0 || stall_timeout < 0
		                ? "a timeout must be a number of seconds"
		                : "give at least one URL, or --urls FILE");
		fprintf(stderr, "Try 'feedtool refresh --help'.\n");
		return 2;
	}
	urls = collect_urls(args, urls_file, &error);
	if (urls == NULL) {
		fprintf(stderr, "feedtool: %s\n", error->message);
		return 1;
	}
	if (cache_dir != NULL && !load_cache(&refresh, cache_dir, &error)) {
		fprintf(stderr, "feedtool: %s\n", error->message);
		return 1;
	}
	refresh.json = json;
	refresh.timeout = (guint)timeout;
	refresh.stall_timeout = (guint)stall_timeout;
	refresh.progress = isatty(STDERR_FILENO);
	refresh.total = urls->len;
	refresh.started = g_get_monotonic_time();
	run_workers(&refresh, urls, (guint)jobs);
	print_summary(&refresh);
	if (refresh.cache != NULL) {
		gboolean saved = save_cache(&refresh, cache_dir, &error);

		g_key_file_unref(refresh.cache);
		if (!saved) {
			fprintf(stderr, "feedtool: %s\n", error->message);
			return 1;
		}
	}
	return refresh.failed > 0 ? 1 : 0;
}
