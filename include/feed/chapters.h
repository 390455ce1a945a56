/* An episode's chapters from all their sources, sorted, with jump points. */
#ifndef FEED_CHAPTERS_H
#define FEED_CHAPTERS_H

#include <feed/chapter.h>
#include <feed/episode.h>
#include <feed/fetcher.h>
#include <feed/version.h>
#include <glib.h>

G_BEGIN_DECLS

/**
 * The chapters of one episode, sorted by start (chapters that start
 * together keep their order), from a Podcasting 2.0 JSON chapters
 * document, from the episode's Podlove Simple Chapters, or both merged.
 * Reference-counted and immutable: it may be read from any thread.
 *
 * Every chapter counts in feed_chapter_list_get_n_chapters(); only those
 * for which feed_chapter_is_toc() is TRUE are jump points, the ones a
 * player lists and moves between with next, previous and "chapter N".
 */
typedef struct FeedChapterList FeedChapterList;

/** The most bytes feed_chapter_list_new_from_json() reads: 4 MiB. */
#define FEED_CHAPTERS_MAX_SIZE (4 * 1024 * 1024)

/** The most chapters a JSON chapters document may have. */
#define FEED_CHAPTERS_MAX_CHAPTERS 10000

/**
 * Reads a Podcasting 2.0 JSON chapters document: an object with `version`
 * (a string) and `chapters` (an array), each chapter an object with
 * `startTime` (seconds, a number that may be fractional) and optionally
 * `title`, `img`, `url`, `endTime` and `toc`; null counts as absent, other
 * members are ignored. `img` and `url` are kept only when they are http or
 * https URLs with a host. An `endTime` before its chapter's start is
 * dropped. Strict about everything else: a document that breaks these
 * rules gives no chapters and an error that says what is wrong ("chapter 3
 * has no startTime"). Titles are valid UTF-8, "" when absent.
 *
 * Refuses, before parsing, more than #FEED_CHAPTERS_MAX_SIZE bytes, and
 * arrays or objects nested more than 32 deep; after parsing, more than
 * #FEED_CHAPTERS_MAX_CHAPTERS chapters and starts beyond 10^10 seconds.
 *
 * @param data the document, UTF-8; need not be NUL-terminated
 * @param length number of bytes in @p data
 * @param error return location for a GError, or NULL
 * @return (transfer full) a new list (possibly empty when `chapters` is),
 *         or NULL with @p error set to #FEED_ERROR_PARSE, or to
 *         #FEED_ERROR_TOO_LARGE for a document over the size cap
 * @since 0.1
 */
FEED_PUBLIC
FeedChapterList *
feed_chapter_list_new_from_json(const char *data, gsize length, GError **error);

/**
 * Returns an episode's Podlove Simple Chapters as a list: copies of
 * feed_episode_get_chapter()'s, sorted by start, all of them jump points.
 *
 * @param episode an episode
 * @return (transfer full) a new list, possibly empty, never NULL
 * @since 0.1
 */
FEED_PUBLIC
FeedChapterList *
feed_chapter_list_new_from_episode(const FeedEpisode *episode);

/**
 * Merges two lists of one episode's chapters, as AntennaPod does. The
 * longer list wins whole. Lists of the same length whose chapters start
 * within a second of each other, pair by pair, are merged: the preferred
 * list's chapters, each missing title, link, image or end filled in from
 * its pair. Lists of the same length that differ more give the one with
 * more titles, links and images, or the preferred one on a tie.
 *
 * The preferred list is the one read from JSON, the richer source; when
 * both or neither are, @p b is.
 *
 * @param a (nullable) a list, e.g. feed_chapter_list_new_from_episode()'s
 * @param b (nullable) a list, e.g. feed_chapter_list_new_from_json()'s
 * @return (transfer full) the merged list, which may be @p a or @p b with
 *         a new reference; an empty list when both are NULL; never NULL
 * @since 0.1
 */
FEED_PUBLIC
FeedChapterList *
feed_chapter_list_merge(const FeedChapterList *a, const FeedChapterList *b);

/**
 * Writes the list as a Podcasting 2.0 JSON chapters document (version
 * 1.2.0), which feed_chapter_list_new_from_json() reads back to an equal
 * list: a caller may keep a merged list in a file.
 *
 * @param list a list
 * @return (transfer full) the document, UTF-8, ending in a newline
 * @since 0.1
 */
FEED_PUBLIC
char *
feed_chapter_list_to_json(const FeedChapterList *list);

/**
 * Takes a reference to a list.
 *
 * @param list a list
 * @return (transfer full) @p list
 * @since 0.1
 */
FEED_PUBLIC
FeedChapterList *
feed_chapter_list_ref(FeedChapterList *list);

/**
 * Drops a reference to a list, freeing it with the last one.
 *
 * @param list (nullable) a list; NULL does nothing
 * @since 0.1
 */
FEED_PUBLIC
void
feed_chapter_list_unref(FeedChapterList *list);

/**
 * Returns how many chapters the list has, jump points or not.
 *
 * @param list a list
 * @return the number of chapters, possibly 0
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_chapter_list_get_n_chapters(const FeedChapterList *list);

/**
 * Returns one chapter, in order of start.
 *
 * @param list a list
 * @param index which chapter, below feed_chapter_list_get_n_chapters()
 * @return (transfer none) the chapter, owned by @p list
 * @since 0.1
 */
FEED_PUBLIC
const FeedChapter *
feed_chapter_list_get_chapter(const FeedChapterList *list, guint index);

/**
 * Returns how many jump points the list has: chapters for which
 * feed_chapter_is_toc() is TRUE.
 *
 * @param list a list
 * @return the number of jump points, possibly 0
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_chapter_list_get_n_jumps(const FeedChapterList *list);

/**
 * Returns one jump point, in order of start: "chapter N" of a player is
 * jump N - 1.
 *
 * @param list a list
 * @param index which jump point, below feed_chapter_list_get_n_jumps()
 * @return (transfer none) the chapter, owned by @p list
 * @since 0.1
 */
FEED_PUBLIC
const FeedChapter *
feed_chapter_list_get_jump(const FeedChapterList *list, guint index);

/**
 * Finds the jump point playing at a position: the last one that starts at
 * or before it. Next is that index + 1; previous is that index - 1, or
 * the same index to go back to its start.
 *
 * @param list a list
 * @param position_ms milliseconds from the start of the episode
 * @return an index below feed_chapter_list_get_n_jumps(), or -1 when the
 *         position is before the first jump point or there is none
 * @since 0.1
 */
FEED_PUBLIC
gint
feed_chapter_list_find_jump(const FeedChapterList *list, gint64 position_ms);

/**
 * Called once when a fetch of JSON chapters ends.
 *
 * @param chapters (transfer none) (nullable) the chapters, valid during the
 *        call (take a reference to keep them); NULL on error
 * @param error (nullable) why the fetch failed, or NULL; owned by libfeed
 * @param user_data the pointer given with the fetch
 * @since 0.1
 */
typedef void (*FeedChaptersFunc)(FeedChapterList *chapters, const GError *error,
                                 gpointer user_data);

/**
 * Fetches and reads a JSON chapters document (an episode's
 * feed_episode_get_chapters_url()) on a fetcher, under the rules of its
 * feed fetches: http and https only (never `file://`, not even through a
 * redirect), redirects checked hop by hop and limited as for feeds, the
 * fetcher's timeouts and transfer limits, and a size cap of
 * #FEED_CHAPTERS_MAX_SIZE (or the fetcher's own, when smaller), counted
 * after decompression.
 *
 * The Podcasting 2.0 specification asks apps to get the listener's
 * consent before they fetch chapters, since the server learns who
 * listens: ask before calling this.
 *
 * @param fetcher a fetcher
 * @param url the document's URL
 * @param cancellable (nullable) cancels the fetch; the callback then gets
 *        G_IO_ERROR_CANCELLED
 * @param callback called once, from the fetcher's context, never before
 *        this function returns; its error is one of the fetcher's (e.g.
 *        #FEED_ERROR_HTTP, #FEED_ERROR_SCHEME, #FEED_ERROR_REDIRECT,
 *        #FEED_ERROR_TIMEOUT, #FEED_ERROR_TOO_LARGE, #FEED_ERROR_NETWORK)
 *        or one of feed_chapter_list_new_from_json()'s, each message
 *        starting with @p url
 * @param user_data passed to @p callback
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetcher_fetch_chapters(FeedFetcher *fetcher, const char *url,
                            GCancellable *cancellable,
                            FeedChaptersFunc callback, gpointer user_data);

/**
 * Fetches and reads a JSON chapters document, blocking, on a fetcher of
 * its own with the default settings (see feed_fetcher_fetch_chapters()).
 * Runs a private main context, so it may be called from any thread.
 *
 * @param url the document's URL
 * @param cancellable (nullable) cancels the fetch
 * @param error return location for a GError, or NULL
 * @return (transfer full) the chapters, or NULL with @p error set as for
 *         feed_fetcher_fetch_chapters()
 * @since 0.1
 */
FEED_PUBLIC
FeedChapterList *
feed_chapters_fetch_sync(const char *url, GCancellable *cancellable,
                         GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(FeedChapterList, feed_chapter_list_unref)

G_END_DECLS

#endif
