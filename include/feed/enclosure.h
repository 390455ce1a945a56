/* Media files attached to an episode. */
#ifndef FEED_ENCLOSURE_H
#define FEED_ENCLOSURE_H

#include <feed/version.h>
#include <glib.h>

G_BEGIN_DECLS

/**
 * One media file of an episode: an RSS `enclosure`, a `media:content` or an
 * Atom `link rel="enclosure"`. Owned by its episode and immutable.
 */
typedef struct FeedEnclosure FeedEnclosure;

/**
 * A `podcast:alternateEnclosure`: another rendition of the episode's media
 * with one or more source URLs. Owned by its episode and immutable.
 */
typedef struct FeedAlternateEnclosure FeedAlternateEnclosure;

/**
 * Returns the enclosure's URL, resolved against the document's base and
 * normalized (lower-case scheme and host, `feed:`/`itpc:` become `http:`).
 *
 * @param enclosure an enclosure
 * @return (transfer none) (nullable) the URL, or NULL when the URL's scheme
 *         is not http, https, ftp or file, or the URL is unusable
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_enclosure_get_url(const FeedEnclosure *enclosure);

/**
 * Returns the enclosure's MIME type.
 *
 * @param enclosure an enclosure
 * @return (transfer none) the type, `application/octet-stream` when the
 *         feed gave none or one without a `/`
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_enclosure_get_mime_type(const FeedEnclosure *enclosure);

/**
 * Returns the enclosure's size as the feed states it.
 *
 * @param enclosure an enclosure
 * @return the size in bytes, or -1 when unknown
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_enclosure_get_file_size(const FeedEnclosure *enclosure);

/**
 * Returns the MIME type of an alternate enclosure.
 *
 * @param alternate an alternate enclosure
 * @return (transfer none) (nullable) the `type` attribute, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_alternate_enclosure_get_mime_type(const FeedAlternateEnclosure *alternate);

/**
 * Returns the size of an alternate enclosure.
 *
 * @param alternate an alternate enclosure
 * @return the `length` attribute in bytes, or -1 when unknown
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_alternate_enclosure_get_file_size(const FeedAlternateEnclosure *alternate);

/**
 * Returns the bit rate of an alternate enclosure.
 *
 * @param alternate an alternate enclosure
 * @return the `bitrate` attribute in bits per second, or 0 when unknown
 * @since 0.1
 */
FEED_PUBLIC
double
feed_alternate_enclosure_get_bitrate(const FeedAlternateEnclosure *alternate);

/**
 * Returns the title of an alternate enclosure.
 *
 * @param alternate an alternate enclosure
 * @return (transfer none) (nullable) the `title` attribute, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_alternate_enclosure_get_title(const FeedAlternateEnclosure *alternate);

/**
 * Tells whether the feed marks this rendition as the default one.
 *
 * @param alternate an alternate enclosure
 * @return TRUE when `default="true"`
 * @since 0.1
 */
FEED_PUBLIC
gboolean
feed_alternate_enclosure_is_default(const FeedAlternateEnclosure *alternate);

/**
 * Returns how many `podcast:source` URLs the rendition has.
 *
 * @param alternate an alternate enclosure
 * @return the number of sources, possibly 0
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_alternate_enclosure_get_n_sources(const FeedAlternateEnclosure *alternate);

/**
 * Returns one source URL of a rendition, resolved and normalized as
 * feed_enclosure_get_url() is.
 *
 * @param alternate an alternate enclosure
 * @param index which source, below
 *        feed_alternate_enclosure_get_n_sources()
 * @return (transfer none) (nullable) the URL, or NULL when unusable
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_alternate_enclosure_get_source(const FeedAlternateEnclosure *alternate,
                                    guint index);

G_END_DECLS

#endif
