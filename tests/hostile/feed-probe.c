/*
 * The hostile-input suite's window on libfeed: parses a file or fetches a
 * URL through the public API and prints what came of it on one line, so a
 * table in Python can compare the exact FeedError code with the one it
 * expects.
 *
 *   feed-probe parse FILE [CHUNK]     push FILE into a FeedParser in CHUNK
 *                                     bytes (default 64 KiB)
 *   feed-probe fetch URL [MAX_SIZE]   fetch with a FeedFetcher; MAX_SIZE 0
 *                                     or none keeps the default cap
 *
 * Standard output: "ok EPISODES" or "error CODE MESSAGE", CODE being the
 * FeedError name without its prefix (TOO_LARGE, SCHEME, …); after a fetch,
 * a second line "received BYTES" (bytes over the network, compressed).
 * Exit status 0 for ok, 1 for error, 2 for bad usage.
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <feed/feed.h>
#include <libxml/parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const code_names[] = {
	[FEED_ERROR_FAILED] = "FAILED",
	[FEED_ERROR_PARSE] = "PARSE",
	[FEED_ERROR_UNSUPPORTED] = "UNSUPPORTED",
	[FEED_ERROR_TOO_LARGE] = "TOO_LARGE",
	[FEED_ERROR_ENTITY_LIMIT] = "ENTITY_LIMIT",
	[FEED_ERROR_IO] = "IO",
	[FEED_ERROR_HTTP] = "HTTP",
	[FEED_ERROR_GONE] = "GONE",
	[FEED_ERROR_NETWORK] = "NETWORK",
	[FEED_ERROR_TIMEOUT] = "TIMEOUT",
	[FEED_ERROR_REDIRECT] = "REDIRECT",
	[FEED_ERROR_SCHEME] = "SCHEME",
	[FEED_ERROR_NO_FEED] = "NO_FEED",
};

static void
count_episode(FeedEpisode *episode, gpointer user_data)
{
	guint *n = user_data;

	(*n)++;
}

/* One line whatever the message holds, so the table can read it. */
static int
report(const GError *error, guint n_episodes)
{
	g_autofree char *message = NULL;
	const char *code = "OTHER";

	if (error == NULL) {
		printf("ok %u\n", n_episodes);
		return 0;
	}
	if (error->domain == FEED_ERROR && error->code >= 0 &&
	    (gsize)error->code < G_N_ELEMENTS(code_names))
		code = code_names[error->code];
	message = g_strdup(error->message);
	g_strdelimit(message, "\r\n", ' ');
	printf("error %s %s\n", code, message);
	return 1;
}

static int
parse(const char *path, gsize chunk)
{
	guint n_episodes = 0;
	g_autoptr(FeedParser) parser =
	        feed_parser_new(NULL, count_episode, &n_episodes);
	g_autoptr(FeedChannel) channel = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree char *buffer = g_malloc(chunk);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		g_set_error(&error, FEED_ERROR, FEED_ERROR_IO, "%s: %s", path,
		            g_strerror(errno));
		return report(error, 0);
	}
	for (;;) {
		gssize n = read(fd, buffer, chunk);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			g_set_error(&error, FEED_ERROR, FEED_ERROR_IO, "%s: %s",
			            path, g_strerror(errno));
			break;
		}
		if (n == 0 || !feed_parser_feed(parser, buffer, n, &error))
			break;
	}
	close(fd);
	if (error == NULL)
		channel = feed_parser_finish(parser, &error);
	return report(error, n_episodes);
}

typedef struct {
	GMainLoop *loop;
	GError *error;
	guint n_episodes;
	guint64 received; /* bytes, compressed */
} Fetched;

static void
on_fetched(FeedFetchResult *result, const GError *error, gpointer user_data)
{
	Fetched *fetched = user_data;

	if (error != NULL)
		fetched->error = g_error_copy(error);
	fetched->received = feed_fetch_result_get_bytes_received(result);
	g_main_loop_quit(fetched->loop);
}

static int
fetch(const char *url, gsize max_size)
{
	g_autoptr(GMainLoop) loop = g_main_loop_new(NULL, FALSE);
	g_autoptr(FeedFetchRequest) request = feed_fetch_request_new(url);
	FeedFetcher *fetcher = feed_fetcher_new(NULL);
	Fetched fetched = { loop, NULL, 0, 0 };
	int status;

	feed_fetcher_set_max_size(fetcher, max_size);
	/* Episodes are counted, not kept: a large feed stays small here. */
	feed_fetch_request_set_episode_func(request, count_episode,
	                                    &fetched.n_episodes);
	feed_fetcher_fetch(fetcher, request, NULL, on_fetched, &fetched);
	g_main_loop_run(loop);
	feed_fetcher_free(fetcher);
	status = report(fetched.error, fetched.n_episodes);
	printf("received %" G_GUINT64_FORMAT "\n", fetched.received);
	g_clear_error(&fetched.error);
	return status;
}

int
main(int argc, char **argv)
{
	int status = 2;

	xmlInitParser();
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (argc >= 3 && argc <= 4 && strcmp(argv[1], "parse") == 0)
		status = parse(argv[2],
		               argc == 4 ? MAX(strtoul(argv[3], NULL, 10), 1)
		                         : 64 * 1024);
	else if (argc >= 3 && argc <= 4 && strcmp(argv[1], "fetch") == 0)
		status = fetch(argv[2],
		               argc == 4 ? strtoull(argv[3], NULL, 10) : 0);
	else
		fprintf(stderr, "usage: feed-probe parse FILE [CHUNK] | "
		                "fetch URL [MAX_SIZE]\n");
	curl_global_cleanup();
	xmlCleanupParser();
	return status;
}
