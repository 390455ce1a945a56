/* URLs in feeds: resolving against xml:base and normalizing enclosures. */
#ifndef FEED_URL_PRIVATE_H
#define FEED_URL_PRIVATE_H

#include <glib.h>

/*
 * Resolves @ref against @base as RFC 3986 says. @ref is trimmed first.
 * Returns a new string: the resolved URL; @ref trimmed as it is when @base
 * is NULL or empty or either cannot be parsed; NULL when @ref is NULL or
 * empty after trimming.
 */
G_GNUC_INTERNAL
char *
feed_url_resolve(const char *base, const char *ref);

/*
 * Normalizes an (already resolved) enclosure URL as rule 5 of the JSON
 * contract says: scheme and host lower-cased, empty path becomes `/`, an
 * empty `?` dropped, `feed:`, `itpc:`, `itms:` become `http:`, `http://`
 * prefixed when there is no `://`, inner tabs and newlines removed, inner
 * spaces become `%20`. Returns a new string, or NULL when the scheme is not
 * http, https, ftp or file or the URL is shorter than 8 characters.
 */
G_GNUC_INTERNAL
char *
feed_url_normalize(const char *url);

/*
 * Returns the last path segment of @url without its extension,
 * percent-decoded, without query or fragment ("E%20file.mp3?t=1" gives
 * "E file"), or NULL when there is none. The result is valid UTF-8.
 */
G_GNUC_INTERNAL
char *
feed_url_basename_no_extension(const char *url);

#endif
