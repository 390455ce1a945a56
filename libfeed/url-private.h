/* URLs in feeds: resolving against xml:base and normalizing enclosures. */
#ifndef FEED_URL_PRIVATE_H
#define FEED_URL_PRIVATE_H

#include <glib.h>

/*
 * Resolves @ref against @base as RFC 3986 says. @ref and @base are trimmed
 * first. Returns a new string: @ref trimmed as it is when it is absolute
 * (has a scheme), when @base is NULL or empty, or when GUri cannot parse
 * either (a relative @base, a stray '%'); NULL when @ref is NULL or empty
 * after trimming; otherwise the URL that GUri resolves, which keeps case
 * and existing %XX escapes but decodes %XX of unreserved characters,
 * upper-cases the hex of the others and percent-encodes spaces and
 * non-ASCII bytes.
 */
G_GNUC_INTERNAL
char *
feed_url_resolve(const char *base, const char *ref);

/*
 * Normalizes an (already resolved) enclosure URL as rule 5 of the JSON
 * contract says, which is podcastparser's normalize_feed_url(): trimmed,
 * scheme and netloc lower-cased, empty path becomes `/`, an empty `?` or
 * `#` dropped, `feed:`, `itpc:`, `itms:` become `http:`, `http://` prefixed
 * when there is no `://`, inner tabs and newlines removed; then inner
 * spaces become `%20`, and nothing else is escaped. Returns a new string,
 * or NULL when the scheme is not http, https, ftp or file, when the
 * trimmed URL is shorter than 8 characters, or when Python's urlsplit()
 * would raise ValueError (unbalanced or invalid brackets in the host, a
 * host whose NFKC form contains a delimiter).
 */
G_GNUC_INTERNAL
char *
feed_url_normalize(const char *url);

/*
 * Returns the last path segment of @url without its extension,
 * percent-decoded, without query or fragment ("E%20file.mp3?t=1" gives
 * "E file"), or NULL when there is none. The host is not a segment:
 * "http://example.com" gives NULL. The extension is split off as Python's
 * os.path.splitext() does, after decoding, so ".mp3" stays ".mp3". The
 * result is valid UTF-8 as feed_text_take_valid_utf8() makes it: decoded
 * bytes that are not UTF-8 are read as windows-1252, and %00 is dropped.
 */
G_GNUC_INTERNAL
char *
feed_url_basename_no_extension(const char *url);

#endif
