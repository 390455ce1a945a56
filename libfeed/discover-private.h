/* Autodiscovery: the feed links of an HTML page. */
#ifndef FEED_DISCOVER_PRIVATE_H
#define FEED_DISCOVER_PRIVATE_H

#include <glib.h>

/* Reads an HTML page pushed in chunks and collects its feed links. */
typedef struct FeedDiscover FeedDiscover;

/*
 * Creates a reader for the page at @page_url (nullable), against which
 * relative links (and the page's own <base href>) are resolved; without
 * it, only absolute links count. Free with feed_discover_free().
 */
G_GNUC_INTERNAL
FeedDiscover *
feed_discover_new(const char *page_url);

/*
 * Pushes the next @length bytes of the page, cut anywhere: the result does
 * not depend on where. Never fails: HTML is lenient. Not after
 * feed_discover_finish().
 */
G_GNUC_INTERNAL
void
feed_discover_push(FeedDiscover *discover, const char *data, gsize length);

/*
 * Ends the page and returns its feed links, resolved, without duplicates,
 * podcast-friendly formats first (RSS, then Atom, then others), each in
 * document order: a NULL-terminated array, empty when there are none. Free
 * with g_strfreev(). A feed link is a <link> anywhere in the page whose rel
 * holds the token "alternate" or "feed" and whose type is RSS, Atom, RDF,
 * application/xml or text/xml (not JSON Feed), with an http or https URL;
 * at most 32, the first in that order. The page is read in the charset of
 * its byte order mark, else of a <meta> in its first 1024 bytes, else as
 * UTF-8 with stray bytes read as windows-1252; the links are valid UTF-8.
 * Calling it again returns the same links.
 */
G_GNUC_INTERNAL
char **
feed_discover_finish(FeedDiscover *discover);

/* NULL does nothing. */
G_GNUC_INTERNAL
void
feed_discover_free(FeedDiscover *discover);

#endif
