/*
 * bench-download: many downloads at once on one FeedFetcher, as a
 * download manager runs them; the download benchmark's program under
 * test (tests/bench-download/run), on the public API alone.
 *
 * Usage: bench-download [--jobs N] DIR URL...
 *
 * Each URL goes to DIR/NAME, NAME the last segment of its path. At most N
 * run at once (default 2), and never more than the fetcher's default 2 to
 * one host. A failure is printed on standard error; the exit status is 0
 * when every file came whole, 1 otherwise, 2 for bad usage.
 */
#include <curl/curl.h>
#include <feed/feed.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	guint left;   /* downloads not yet called back */
	guint failed; /* of those called back */
	guint64 bytes;
} Run;

static void
on_done(FeedDownloadResult *result, const GError *error, gpointer data)
{
	Run *run = data;

	run->left--;
	if (error != NULL) {
		fprintf(stderr, "bench-download: %s\n", error->message);
		run->failed++;
		return;
	}
	run->bytes += feed_download_result_get_size(result);
}

int
main(int argc, char **argv)
{
	g_autoptr(FeedFetcher) fetcher = NULL;
	Run run = { 0 };
	guint64 jobs = 2;
	int first = 1;

	if (argc > 2 && strcmp(argv[1], "--jobs") == 0) {
		if (!g_ascii_string_to_unsigned(argv[2], 10, 1, 1000, &jobs,
		                                NULL)) {
			fprintf(stderr, "bench-download: --jobs takes 1 to "
			                "1000\n");
			return 2;
		}
		first = 3;
	}
	if (argc - first < 2) {
		fprintf(stderr,
		        "usage: bench-download [--jobs N] DIR URL...\n");
		return 2;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	fetcher = feed_fetcher_new(NULL);
	feed_fetcher_set_max_transfers(fetcher, (guint)jobs);
	for (int i = first + 1; i < argc; i++) {
		g_autofree char *name = g_path_get_basename(argv[i]);
		g_autofree char *path =
		        g_build_filename(argv[first], name, NULL);
		g_autoptr(FeedDownloadRequest) request =
		        feed_download_request_new(argv[i], path);

		feed_fetcher_download(fetcher, request, NULL, on_done, &run);
		run.left++;
	}
	while (run.left > 0)
		g_main_context_iteration(NULL, TRUE);
	printf("%d files, %" G_GUINT64_FORMAT " bytes, %u failed\n",
	       argc - first - 1, run.bytes, run.failed);
	g_clear_pointer(&fetcher, feed_fetcher_free);
	curl_global_cleanup();
	return run.failed > 0 ? 1 : 0;
}
