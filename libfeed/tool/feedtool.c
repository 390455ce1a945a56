/* feedtool: libfeed's command-line tool, on the public API alone. */
#include "chapters-command.h"
#include "download-command.h"
#include "feed-json.h"
#include "listing.h"
#include "opml-command.h"
#include "playlist-command.h"
#include "refresh.h"
#include "source.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <feed/feed.h>
#include <libxml/parser.h>
#include <locale.h>
#include <string.h>
#include <unistd.h>

enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1, /* not a feed, or unreadable */
	EXIT_USAGE = 2,
};

#define READ_CHUNK (64 * 1024)

typedef struct {
	JsonOut *json;
	gboolean episodes_open;
} JsonSink;

/* The feed object opens with its episodes, so each is written as it comes. */
static void
open_episodes(JsonSink *sink)
{
	if (sink->episodes_open)
		return;
	json_out_begin_object(sink->json);
	json_out_key(sink->json, "episodes");
	json_out_begin_array(sink->json);
	sink->episodes_open = TRUE;
}

static void
write_episode(FeedEpisode *episode, gpointer data)
{
	JsonSink *sink = data;

	open_episodes(sink);
	feedtool_json_episode(sink->json, episode);
}

/* Feeds @fd to @parser in chunks; FALSE with @error set on failure. */
static gboolean
read_into(int fd, FeedParser *parser, GError **error)
{
	g_autofree char *buffer = g_malloc(READ_CHUNK);

	for (;;) {
		gssize n = read(fd, buffer, READ_CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;
			g_set_error(error, FEED_ERROR, FEED_ERROR_IO,
			            "cannot read: %s", g_strerror(saved));
			return FALSE;
		}
		if (n == 0)
			return TRUE;
		if (!feed_parser_feed(parser, buffer, n, error))
			return FALSE;
	}
}

static int
open_input(const char *path, GError **error)
{
	int fd;

	if (strcmp(path, "-") == 0)
		return STDIN_FILENO;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int saved = errno;
		g_set_error(error, FEED_ERROR, FEED_ERROR_IO, "cannot open: %s",
		            g_strerror(saved));
	}
	return fd;
}

/* The base URL: the option as given (""= none), else the file's own URL. */
static char *
default_base(const char *path, const char *option)
{
	g_autofree char *absolute = NULL;

	if (option != NULL)
		return g_strdup(option);
	if (strcmp(path, "-") == 0)
		return NULL;
	absolute = g_canonicalize_filename(path, NULL);
	return g_filename_to_uri(absolute, NULL, NULL);
}

/* A file, or standard input, read in chunks into the parser. */
static FeedChannel *
parse_file(const char *path, const char *base, FeedEpisodeFunc func,
           gpointer func_data, GError **error)
{
	g_autoptr(FeedParser) parser = feed_parser_new(base, func, func_data);
	int fd = open_input(path, error);
	gboolean ok;

	if (fd < 0)
		return NULL;
	/*
	 * Episodes stream out, so memory does not grow with the file: the
	 * cap guards against servers, and a file or pipe was the user's
	 * choice. Entity expansion stays bounded by the parser.
	 */
	feed_parser_set_max_size(parser, G_MAXSIZE);
	ok = read_into(fd, parser, error);
	if (fd != STDIN_FILENO)
		close(fd);
	return ok ? feed_parser_finish(parser, error) : NULL;
}

/* A URL through the fetcher; file:// too, since the user named it. */
static FeedChannel *
fetch_url(const char *url, FeedEpisodeFunc func, gpointer func_data,
          GError **error)
{
	g_autoptr(FeedFetchRequest) request = feed_fetch_request_new(url);
	g_autoptr(FeedFetchResult) result = NULL;
	FeedChannel *channel;

	feed_fetch_request_set_flags(request, FEED_FETCH_ALLOW_FILE);
	feed_fetch_request_set_episode_func(request, func, func_data);
	result = feed_fetch_sync(request, NULL, error);
	if (result == NULL)
		return NULL;
	channel = feed_fetch_result_get_channel(result);
	if (channel == NULL) {
		g_set_error(error, FEED_ERROR, FEED_ERROR_FAILED,
		            "the server sent no feed");
		return NULL;
	}
	if (feed_fetch_result_get_discovered_url(result) != NULL)
		fprintf(stderr, "feedtool: %s: the feed of this page is %s\n",
		        url, feed_fetch_result_get_discovered_url(result));
	return feed_channel_ref(channel);
}

static void
report_problems(const char *name, const FeedChannel *channel)
{
	for (const char *const *e = feed_channel_get_errors(channel); *e; e++) {
		g_autofree char *clean = listing_sanitize(*e);

		fprintf(stderr, "feedtool: %s: %s\n", name, clean);
	}
}

static int
parse_command(int argc, char **argv)
{
	gboolean json = FALSE;
	g_autofree char *base_option = NULL;
	GOptionEntry entries[] = {
		{ "json", 0, 0, G_OPTION_ARG_NONE, &json,
		  "Write the feed as JSON (see feed-json.md)", NULL },
		{ "base-url", 0, 0, G_OPTION_ARG_STRING, &base_option,
		  "The feed's own URL: resolves relative links (\"\" for "
		  "none)",
		  "URL" },
		G_OPTION_ENTRY_NULL
	};
	g_autoptr(GOptionContext) context =
	        g_option_context_new("FILE|- - read a feed and list it");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;
	g_autofree char *base = NULL;
	Listing *listing = NULL;
	JsonSink sink = { NULL, FALSE };
	FeedEpisodeFunc func;
	gpointer func_data;
	const char *path;
	const char *name;

	g_option_context_add_main_entries(context, entries, NULL);
	g_option_context_set_summary(
	        context, "Reads an RSS or Atom podcast feed and lists its "
	                 "episodes,\nor writes it as JSON with --json.");
	if (!g_option_context_parse(context, &argc, &argv, &error) ||
	    argc != 2) {
		fprintf(stderr, "feedtool parse: %s\n",
		        error != NULL ? error->message
		                      : "give exactly one FILE, or - for "
		                        "standard input");
		fprintf(stderr, "Try 'feedtool parse --help'.\n");
		return EXIT_USAGE;
	}
	path = argv[1];
	name = strcmp(path, "-") == 0 ? "standard input" : path;
	base = default_base(path, base_option);

	if (json) {
		sink.json = json_out_new(stdout);
		func = write_episode;
		func_data = &sink;
	} else {
		listing = listing_new();
		func = listing_add_episode;
		func_data = listing;
	}
	if (source_is_url(path))
		channel = fetch_url(path, func, func_data, &error);
	else
		channel = parse_file(path, base, func, func_data, &error);
	if (channel == NULL) {
		/* The fetcher's messages name the URL themselves. */
		if (source_is_url(path))
			fprintf(stderr, "feedtool: %s\n", error->message);
		else
			fprintf(stderr, "feedtool: %s: %s\n", name,
			        error->message);
		if (sink.json != NULL)
			json_out_finish(sink.json, NULL);
		listing_free(listing);
		return EXIT_FAILED;
	}
	report_problems(name, channel);
	if (json) {
		open_episodes(&sink);
		json_out_end_array(sink.json);
		feedtool_json_channel_members(sink.json, channel);
		json_out_end_object(sink.json);
		if (!json_out_finish(sink.json, &error)) {
			fprintf(stderr, "feedtool: %s\n", error->message);
			return EXIT_FAILED;
		}
	} else {
		listing_print(listing, channel, stdout);
		listing_free(listing);
		if (fflush(stdout) != 0) {
			fprintf(stderr,
			        "feedtool: cannot write the output: %s\n",
			        g_strerror(errno));
			return EXIT_FAILED;
		}
	}
	return EXIT_OK;
}

static void
usage(FILE *out)
{
	fprintf(out,
	        "Usage: feedtool COMMAND [OPTION…]\n"
	        "\n"
	        "Commands:\n"
	        "  parse [--json] [--base-url URL] FILE|URL|-\n"
	        "      read a feed and list its episodes, or write it as JSON\n"
	        "  refresh [--jobs N] [--cache DIR] [--json] [--urls FILE]\n"
	        "          [--timeout SECONDS] [--stall-timeout SECONDS] "
	        "URL…\n"
	        "      fetch many feeds at once, transferring only what "
	        "changed\n"
	        "  playlist [--format m3u|xspf|pls] [--newest N] "
	        "[--oldest-first] [--since DATE]\n"
	        "           [--match RE] [--exclude RE] [-o FILE] FEED\n"
	        "      a feed's episodes as a playlist\n"
	        "  chapters [--json] [--no-fetch] FEED EPISODE\n"
	        "      an episode's chapters, Podlove and JSON ones merged\n"
	        "  opml list [--json] FILE|-\n"
	        "      the feed URLs of a subscription list\n"
	        "  opml make [-o FILE] [--title TITLE] URL…\n"
	        "      a subscription list of feeds, with their titles\n"
	        "  download [-o FILE] URL\n"
	        "      an episode's file to disk, resumed if it was cut\n"
	        "\n"
	        "'feedtool COMMAND --help' describes a command's options.\n");
}

int
main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	xmlInitParser();
	curl_global_init(CURL_GLOBAL_DEFAULT);

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("feedtool %s\n", FEED_VERSION);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "parse") == 0)
		return parse_command(argc - 1, argv + 1);
	if (strcmp(argv[1], "refresh") == 0)
		return refresh_command(argc - 1, argv + 1);
	if (strcmp(argv[1], "playlist") == 0)
		return playlist_command(argc - 1, argv + 1);
	if (strcmp(argv[1], "opml") == 0)
		return opml_command(argc - 1, argv + 1);
	if (strcmp(argv[1], "download") == 0)
		return download_command(argc - 1, argv + 1);
	if (strcmp(argv[1], "chapters") == 0)
		return chapters_command(argc - 1, argv + 1);
	fprintf(stderr, "feedtool: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
