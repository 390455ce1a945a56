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
	/** The document is larger than the caller's size cap. */
	FEED_ERROR_TOO_LARGE,
	/** Entity expansion went past libxml2's amplification limits. */
	FEED_ERROR_ENTITY_LIMIT,
	/** The document could not be read (I/O). */
	FEED_ERROR_IO,
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
