/* The error domain of libfeed. */
#ifndef FEED_ERROR_H
#define FEED_ERROR_H

#include <feed/version.h>
#include <glib.h>

G_BEGIN_DECLS

/** The GError domain of every error libfeed reports. */
#define FEED_ERROR (feed_error_quark())

/** The codes of #FEED_ERROR. */
typedef enum {
	/** Anything not covered below. */
	FEED_ERROR_FAILED,
	/** The document is not XML, or has no root that is a feed. */
	FEED_ERROR_PARSE,
	/** The root element is XML but no feed format libfeed reads. */
	FEED_ERROR_UNSUPPORTED,
	/** The document or download is larger than the caller's cap. */
	FEED_ERROR_TOO_LARGE,
	/** Entity expansion went past libxml2's amplification limits. */
	FEED_ERROR_ENTITY_LIMIT,
	/** A file could not be read or written (I/O). */
	FEED_ERROR_IO,
	/**
	 * The server answered with an HTTP error status (404, 5xx, …);
	 * feed_fetch_result_get_http_status() has it.
	 */
	FEED_ERROR_HTTP,
	/** The server answered 410 Gone: the feed will not come back. */
	FEED_ERROR_GONE,
	/** The host could not be resolved, reached or talked to. */
	FEED_ERROR_NETWORK,
	/** Connecting, the whole transfer, or a stalled transfer took too long.
	 */
	FEED_ERROR_TIMEOUT,
	/** Too many redirects, or redirects that loop. */
	FEED_ERROR_REDIRECT,
	/** A URL (or a redirect's target) of a scheme libfeed does not fetch.
	 */
	FEED_ERROR_SCHEME,
	/** A web page was fetched, but it links to no feed. */
	FEED_ERROR_NO_FEED,
	/**
	 * A download got a web page or a short text instead of audio: a
	 * captive portal or a login page, most often.
	 */
	FEED_ERROR_NOT_MEDIA,
} FeedError;

/**
 * Returns the quark of the #FEED_ERROR domain.
 *
 * @return the quark
 * @since 0.1
 */
FEED_PUBLIC
GQuark
feed_error_quark(void);

G_END_DECLS

#endif
