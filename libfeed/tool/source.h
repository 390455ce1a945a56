/* Where a feed comes from: a file, standard input or a URL. */
#ifndef FEEDTOOL_SOURCE_H
#define FEEDTOOL_SOURCE_H

#include <feed/feed.h>

/* Whether @text names a URL (scheme://…) rather than a file. */
gboolean
source_is_url(const char *text);

/*
 * Reads a whole feed, with its episodes, from a file, standard input ("-")
 * or a URL (file:// included, since the user named it).
 */
FeedChannel *
source_load_channel(const char *source, GError **error);

#endif
