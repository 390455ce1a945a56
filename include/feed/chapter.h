/* One chapter of an episode: Podlove Simple Chapters or JSON chapters. */
#ifndef FEED_CHAPTER_H
#define FEED_CHAPTER_H

#include <feed/version.h>
#include <glib.h>

G_BEGIN_DECLS

/**
 * One chapter: a start time and a title, with an optional link, image and
 * end. It comes from a `psc:chapter` (owned by its episode) or from a
 * Podcasting 2.0 JSON chapters document (owned by a #FeedChapterList), and
 * is immutable.
 */
typedef struct FeedChapter FeedChapter;

/**
 * Returns where the chapter starts, in whole seconds.
 *
 * @param chapter a chapter
 * @return seconds from the start of the episode, a fraction dropped (see
 *         feed_chapter_get_start_ms())
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_chapter_get_start(const FeedChapter *chapter);

/**
 * Returns where the chapter starts, to the millisecond: a `psc:chapter`
 * `start` of `35:12.250` gives 2112250, a JSON `startTime` of 12.5 gives
 * 12500.
 *
 * @param chapter a chapter
 * @return milliseconds from the start of the episode, never negative
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_chapter_get_start_ms(const FeedChapter *chapter);

/**
 * Returns where the chapter ends, when its source says so (JSON `endTime`;
 * Podlove chapters have none).
 *
 * @param chapter a chapter
 * @return milliseconds from the start of the episode, or -1 when unknown
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_chapter_get_end(const FeedChapter *chapter);

/**
 * Returns whether the chapter is a jump point: FALSE for a JSON chapter
 * with `toc: false`, which marks a part (an image change, say) that
 * players leave out of their chapter lists and of next and previous; TRUE
 * for every other chapter, Podlove ones included.
 *
 * @param chapter a chapter
 * @return whether the chapter belongs in a table of contents
 * @since 0.1
 */
FEED_PUBLIC
gboolean
feed_chapter_is_toc(const FeedChapter *chapter);

/**
 * Returns the chapter's title.
 *
 * @param chapter a chapter
 * @return (transfer none) the title, never NULL; "" when a JSON chapter has
 *         none
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_chapter_get_title(const FeedChapter *chapter);

/**
 * Returns the chapter's link.
 *
 * @param chapter a chapter
 * @return (transfer none) (nullable) the resolved `href` (JSON: `url`,
 *         kept only when http or https), or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_chapter_get_href(const FeedChapter *chapter);

/**
 * Returns the chapter's image.
 *
 * @param chapter a chapter
 * @return (transfer none) (nullable) the resolved `image` URL (JSON: `img`,
 *         kept only when http or https), or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_chapter_get_image(const FeedChapter *chapter);

G_END_DECLS

#endif
