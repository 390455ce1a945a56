/*
 * bench-parse: push one feed file through the streaming parser, as a client
 * of the public API would, and print nothing but the episode count.
 *
 * Usage: bench-parse FILE [BASE_URL]
 *
 * tests/bench/run times this program; it is not a test.
 */
#include <feed/feed.h>
#include <libxml/parser.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK_SIZE (64 * 1024)

typedef struct {
	/* Episodes handed to the callback; 0 before the first. */
	guint64 episodes;
	/*
	 * Title bytes plus enclosures, summed so that the compiler cannot
	 * drop the accessor calls; 0 before the first episode.
	 */
	guint64 checksum;
} Counter;

static void
on_episode(FeedEpisode *episode, gpointer user_data)
{
	Counter *counter = user_data;
	const char *title = feed_episode_get_title(episode);

	counter->episodes++;
	if (title != NULL)
		counter->checksum += strlen(title);
	counter->checksum += feed_episode_get_n_enclosures(episode);
}

static gboolean
parse_fd(int fd, const char *base_url, Counter *counter, GError **error)
{
	g_autoptr(FeedParser) parser = NULL;
	g_autoptr(FeedChannel) channel = NULL;
	g_autofree char *buf = g_malloc(CHUNK_SIZE);
	struct stat st;

	parser = feed_parser_new(base_url, on_episode, counter);
	/* Larger --episodes runs may pass the default cap; lift it for them. */
	if (fstat(fd, &st) == 0 &&
	    (gsize)st.st_size >= FEED_PARSER_DEFAULT_MAX_SIZE)
		feed_parser_set_max_size(parser, (gsize)st.st_size + 1);

	for (;;) {
		ssize_t n = read(fd, buf, CHUNK_SIZE);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			g_set_error(error, G_FILE_ERROR,
			            g_file_error_from_errno(errno), "read: %s",
			            g_strerror(errno));
			return FALSE;
		}
		if (n == 0)
			break;
		if (!feed_parser_feed(parser, buf, (gsize)n, error))
			return FALSE;
	}

	channel = feed_parser_finish(parser, error);
	return channel != NULL;
}

int
main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	Counter counter = { 0, 0 };
	const char *path;
	const char *base_url;
	int fd;
	gboolean ok;

	if (argc < 2 || argc > 3) {
		g_printerr("usage: %s FILE [BASE_URL]\n", argv[0]);
		return 2;
	}
	path = argv[1];
	base_url = argc == 3 ? argv[2] : "https://show.example/feed.xml";

	xmlInitParser();

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		g_printerr("bench-parse: %s: %s\n", path, g_strerror(errno));
		return 1;
	}
	ok = parse_fd(fd, base_url, &counter, &error);
	close(fd);
	if (!ok) {
		g_printerr("bench-parse: %s: %s\n", path, error->message);
		return 1;
	}

	g_printerr("%" G_GUINT64_FORMAT " episodes (checksum %" G_GUINT64_FORMAT
	           ")\n",
	           counter.episodes, counter.checksum);
	return 0;
}
