/* Where a feed comes from: a file, standard input or a URL. */
#include "source.h"

#include <string.h>
#include <unistd.h>

gboolean
source_is_url(const char *text)
{
	const char *colon = strchr(text, ':');
	g_autofree char *scheme = g_uri_parse_scheme(text);

	return scheme != NULL && colon != NULL && strncmp(colon, "://", 3) == 0;
}

FeedChannel *
source_load_channel(const char *source, GError **error)
{
	g_autoptr(FeedFetchRequest) request = NULL;
	g_autoptr(FeedFetchResult) result = NULL;
	g_autofree char *data = NULL;
	gsize length;

	if (strcmp(source, "-") == 0) {
		g_autoptr(GIOChannel) in = g_io_channel_unix_new(STDIN_FILENO);

		g_io_channel_set_encoding(in, NULL, NULL);
		if (g_io_channel_read_to_end(in, &data, &length, error) !=
		    G_IO_STATUS_NORMAL)
			return NULL;
		return feed_channel_new_from_data(data, length, NULL, error);
	}
	if (!source_is_url(source))
		return feed_channel_new_from_file(source, NULL, error);
	request = feed_fetch_request_new(source);
	feed_fetch_request_set_flags(request, FEED_FETCH_ALLOW_FILE);
	result = feed_fetch_sync(request, NULL, error);
	if (result == NULL)
		return NULL;
	if (feed_fetch_result_get_channel(result) == NULL) {
		g_set_error(error, FEED_ERROR, FEED_ERROR_FAILED,
		            "%s: the server sent no feed", source);
		return NULL;
	}
	return feed_channel_ref(feed_fetch_result_get_channel(result));
}
