/* Ways to support a show (podcast:funding). */
#ifndef FEED_FUNDING_H
#define FEED_FUNDING_H

#include <feed/version.h>
#include <glib.h>

G_BEGIN_DECLS

/** One `podcast:funding` link. Owned by its channel and immutable. */
typedef struct FeedFunding FeedFunding;

/**
 * Returns the funding page's URL.
 *
 * @param funding a funding link
 * @return (transfer none) the resolved URL, never NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_funding_get_url(const FeedFunding *funding);

/**
 * Returns the text the feed shows for the link.
 *
 * @param funding a funding link
 * @return (transfer none) the squashed text, possibly empty, never NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_funding_get_text(const FeedFunding *funding);

G_END_DECLS

#endif
