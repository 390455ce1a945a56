/* Podlove Simple Chapters of an episode. */
#ifndef FEED_CHAPTER_H
#define FEED_CHAPTER_H

#include <feed/version.h>
#include <glib.h>

G_BEGIN_DECLS

/**
 * One `psc:chapter`: a start time and a title, with an optional link and
 * image. Owned by its episode and immutable.
 */
typedef struct FeedChapter FeedChapter;

/**
 * Returns where the chapter starts.
 *
 * @param chapter a chapter
 * @return seconds from the start of the episode
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_chapter_get_start(const FeedChapter *chapter);

/**
 * Returns the chapter's title.
 *
 * @param chapter a chapter
 * @return (transfer none) the title, never NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_chapter_get_title(const FeedChapter *chapter);

/**
 * Returns the chapter's link.
 *
 * @param chapter a chapter
 * @return (transfer none) (nullable) the resolved `href`, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_chapter_get_href(const FeedChapter *chapter);

/**
 * Returns the chapter's image.
 *
 * @param chapter a chapter
 * @return (transfer none) (nullable) the resolved `image` URL, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_chapter_get_image(const FeedChapter *chapter);

G_END_DECLS

#endif
