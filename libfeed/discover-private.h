/* Autodiscovery: the feed links of an HTML page. */
#ifndef FEED_DISCOVER_PRIVATE_H
#define FEED_DISCOVER_PRIVATE_H

#include <glib.h>

/* Reads an HTML page pushed in chunks and collects its feed links. */
typedef struct FeedDiscover FeedDiscover;

/*
 * Creates a reader for the page at @page_url (nullable), against which
 * relative links (and the page's own <base href>) are resolved.
 */
G_GNUC_INTERNAL
FeedDiscover *
feed_discover_new(const char *page_url);

/* Pushes the next @length bytes of the page. Never fails: HTML is lenient. */
G_GNUC_INTERNAL
void
feed_discover_push(FeedDiscover *discover, const char *data, gsize length);

/*
 * Ends the page and returns its feed links, resolved, without duplicates,
 * podcast-friendly formats first (RSS, then Atom, then others), each in
 * document order: a NULL-terminated array, empty when there are none. Free
 * with g_strfreev().
 */
G_GNUC_INTERNAL
char **
feed_discover_finish(FeedDiscover *discover);

G_GNUC_INTERNAL
void
feed_discover_free(FeedDiscover *discover);

#endif
