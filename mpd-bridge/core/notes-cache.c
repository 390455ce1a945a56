/*
 * The last body of each feed, gzip-compressed, for show notes: written
 * while the feed is fetched, never held in memory.
 */
#include "core/notes-cache.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#define READ_CHUNK (64 * 1024)

struct BridgeNotesWriter {
	char *path;            /* the cached body it replaces */
	GFile *temp;           /* the file being written */
	GOutputStream *stream; /* compresses into @temp */
};

static char *
feeds_directory(const Bridge *bridge)
{
	return g_build_filename(bridge->config->cache_directory, "feeds", NULL);
}

char *
bridge_notes_cache_path(const Bridge *bridge, const char *feed_id)
{
	g_autofree char *directory = feeds_directory(bridge);
	g_autofree char *name = g_strconcat(feed_id, ".xml.gz", NULL);

	return g_build_filename(directory, name, NULL);
}

gboolean
bridge_notes_cache_exists(const Bridge *bridge, const char *feed_id)
{
	g_autofree char *path = bridge_notes_cache_path(bridge, feed_id);

	return g_file_test(path, G_FILE_TEST_IS_REGULAR);
}

BridgeNotesWriter *
bridge_notes_writer_new(const Bridge *bridge, const char *feed_id)
{
	g_autofree char *directory = feeds_directory(bridge);
	g_autofree char *path = bridge_notes_cache_path(bridge, feed_id);
	g_autofree char *temp_path = NULL;
	g_autoptr(GFile) temp = NULL;
	g_autoptr(GFileOutputStream) file = NULL;
	g_autoptr(GZlibCompressor) compressor = NULL;
	g_autoptr(GError) error = NULL;
	BridgeNotesWriter *writer;

	if (g_mkdir_with_parents(directory, 0700) != 0) {
		int saved = errno;

		g_message("show notes are not kept: cannot make %s: %s",
		          directory, g_strerror(saved));
		return NULL;
	}
	temp_path = g_strdup_printf("%s.tmp-%08x", path, g_random_int());
	temp = g_file_new_for_path(temp_path);
	file = g_file_create(temp, G_FILE_CREATE_PRIVATE, NULL, &error);
	if (file == NULL) {
		g_message("show notes are not kept: %s", error->message);
		return NULL;
	}
	writer = g_new0(BridgeNotesWriter, 1);
	writer->path = g_steal_pointer(&path);
	writer->temp = g_steal_pointer(&temp);
	compressor = g_zlib_compressor_new(G_ZLIB_COMPRESSOR_FORMAT_GZIP, -1);
	writer->stream = g_converter_output_stream_new(G_OUTPUT_STREAM(file),
	                                               G_CONVERTER(compressor));
	return writer;
}

GOutputStream *
bridge_notes_writer_get_stream(BridgeNotesWriter *writer)
{
	return writer->stream;
}

static gboolean
is_whole(const FeedFetchResult *result, const GError *error)
{
	return result != NULL && error == NULL &&
	       feed_fetch_result_get_status(result) == FEED_FETCH_UPDATED &&
	       feed_fetch_result_get_body_stream_error(result) == NULL;
}

void
bridge_notes_writer_end(BridgeNotesWriter *writer,
                        const FeedFetchResult *result, const GError *error)
{
	g_autoptr(GError) close_error = NULL;
	g_autofree char *temp_path = NULL;
	gboolean keep;

	if (writer == NULL)
		return;
	keep = is_whole(result, error);
	temp_path = g_file_get_path(writer->temp);
	/*
	 * Closing writes gzip's trailer. No fsync: a body cut by a crash is
	 * refused when read, and the next refresh writes it anew.
	 */
	if (!g_output_stream_close(writer->stream, NULL, &close_error) &&
	    keep) {
		g_message("show notes not kept: %s", close_error->message);
		keep = FALSE;
	}
	if (keep && g_rename(temp_path, writer->path) != 0) {
		int saved = errno;

		g_message("show notes not kept: cannot rename %s: %s",
		          temp_path, g_strerror(saved));
		keep = FALSE;
	}
	if (!keep)
		g_unlink(temp_path);
	g_object_unref(writer->stream);
	g_object_unref(writer->temp);
	g_free(writer->path);
	g_free(writer);
}

void
bridge_notes_cache_remove(const Bridge *bridge, const char *feed_id)
{
	g_autofree char *path = bridge_notes_cache_path(bridge, feed_id);

	if (g_unlink(path) != 0 && errno != ENOENT) {
		int saved = errno;

		g_message("cannot remove %s: %s", path, g_strerror(saved));
	}
}

typedef struct {
	const char *guid;
	FeedEpisode *found; /* owned; NULL until found */
} Search;

static gboolean
is_episode(const FeedEpisode *episode, const char *guid)
{
	if (feed_episode_get_guid(episode) != NULL)
		return strcmp(feed_episode_get_guid(episode), guid) == 0;
	/* Without a guid, the playlist entry took its enclosure's URL. */
	for (guint i = 0; i < feed_episode_get_n_enclosures(episode); i++)
		if (g_strcmp0(feed_enclosure_get_url(
		                      feed_episode_get_enclosure(episode, i)),
		              guid) == 0)
			return TRUE;
	return FALSE;
}

static void
on_episode(FeedEpisode *episode, gpointer data)
{
	Search *search = data;

	if (search->found == NULL && is_episode(episode, search->guid))
		search->found = feed_episode_ref(episode);
}

FeedEpisode *
bridge_notes_cache_find(const Bridge *bridge, const BridgeFeed *feed,
                        const char *guid, FeedChannel **channel, GError **error)
{
	g_autofree char *path = bridge_notes_cache_path(bridge, feed->id);
	g_autoptr(GFile) file = g_file_new_for_path(path);
	g_autoptr(GFileInputStream) raw = NULL;
	g_autoptr(GZlibDecompressor) decompressor = NULL;
	g_autoptr(GInputStream) input = NULL;
	g_autoptr(FeedParser) parser = NULL;
	g_autofree char *buffer = g_malloc(READ_CHUNK);
	Search search = { guid, NULL };
	gssize n;

	raw = g_file_read(file, NULL, error);
	if (raw == NULL)
		return NULL;
	decompressor = g_zlib_decompressor_new(G_ZLIB_COMPRESSOR_FORMAT_GZIP);
	input = g_converter_input_stream_new(G_INPUT_STREAM(raw),
	                                     G_CONVERTER(decompressor));
	parser = feed_parser_new(feed->url, on_episode, &search);
	while ((n = g_input_stream_read(input, buffer, READ_CHUNK, NULL,
	                                error)) > 0)
		if (!feed_parser_feed(parser, buffer, (gsize)n, error))
			break;
	if (n == 0)
		*channel = feed_parser_finish(parser, error);
	if (n != 0 || *channel == NULL) {
		g_prefix_error(error, "cannot read %s: ", path);
		g_clear_pointer(&search.found, feed_episode_unref);
		return NULL;
	}
	return search.found;
}
