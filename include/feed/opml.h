/* Subscription lists in OPML: read from any podcast app, written for all. */
#ifndef FEED_OPML_H
#define FEED_OPML_H

#include <feed/error.h>
#include <feed/version.h>
#include <glib.h>

G_BEGIN_DECLS

/**
 * A list of feed subscriptions, as OPML holds them: each with its URL, its
 * title and the categories it is filed under. Mutable; use from one thread
 * at a time. Strings are valid UTF-8.
 */
typedef struct FeedOpml FeedOpml;

/**
 * One subscription of a #FeedOpml, owned by the list. Its strings are
 * normalized as described at feed_opml_add().
 */
typedef struct FeedSubscription FeedSubscription;

/** The largest OPML document read: 16 MiB. */
#define FEED_OPML_MAX_SIZE ((gsize)16 << 20)

/**
 * Creates an empty subscription list.
 *
 * @param title (nullable) the list's title, written as `head/title`; NULL
 *        means none
 * @return (transfer full) a new list; free with feed_opml_free()
 * @since 0.1
 */
FEED_PUBLIC
FeedOpml *
feed_opml_new(const char *title);

/**
 * Reads the subscriptions of an OPML document (1.0, 1.1 or 2.0, or none
 * declared) that is already in memory. Never loads external entities or
 * DTDs, never touches the network and does not expand the entities a
 * document declares (XML's own, such as `&amp;`, are read). Any encoding
 * libxml2 knows may be declared.
 *
 * Tolerant as podcast apps' exports require: element and attribute names
 * are matched case-insensitively (`xmlUrl`, `xmlurl`, `XMLURL`) and
 * recoverable XML errors are passed over. An `outline` is a subscription
 * when it has an `xmlUrl` (whatever its `type`), or a `url` with `type`
 * `rss` or `link`; its title is `title`, else `text`. An outline without
 * such a URL is a category: the subscriptions inside it are filed under
 * its `title`, else its `text` (untitled ones add no level). The children
 * of a subscription's outline count too, in the subscription's own
 * category. A URL listed again is skipped: the first one is kept.
 *
 * @param data the document; need not be NUL-terminated
 * @param length number of bytes in @p data
 * @param error return location for a GError, or NULL
 * @return (transfer full) a new list, possibly empty, or NULL with
 *         @p error set to #FEED_ERROR_PARSE (not XML),
 *         #FEED_ERROR_UNSUPPORTED (XML, but its root is not `opml`) or
 *         #FEED_ERROR_TOO_LARGE (over #FEED_OPML_MAX_SIZE)
 * @since 0.1
 */
FEED_PUBLIC
FeedOpml *
feed_opml_new_from_data(const char *data, gsize length, GError **error);

/**
 * Reads an OPML file, as feed_opml_new_from_data() does. Error messages
 * name the file.
 *
 * @param path the file's path
 * @param error return location for a GError, or NULL
 * @return (transfer full) a new list, or NULL with @p error set as for
 *         feed_opml_new_from_data(), or to #FEED_ERROR_IO
 * @since 0.1
 */
FEED_PUBLIC
FeedOpml *
feed_opml_new_from_file(const char *path, GError **error);

/**
 * Frees a list and its subscriptions.
 *
 * @param opml (nullable) a list, or NULL to do nothing
 * @since 0.1
 */
FEED_PUBLIC
void
feed_opml_free(FeedOpml *opml);

/**
 * Returns the list's title: `head/title`, whitespace squashed.
 *
 * @param opml a list
 * @return (transfer none) the title, `""` when there is none
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_opml_get_title(const FeedOpml *opml);

/**
 * Returns how many subscriptions the list holds.
 *
 * @param opml a list
 * @return the number of subscriptions, possibly 0
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_opml_get_n_subscriptions(const FeedOpml *opml);

/**
 * Returns one subscription, in document order (then in the order added).
 *
 * @param opml a list
 * @param index which subscription, below feed_opml_get_n_subscriptions()
 * @return (transfer none) the subscription, owned by @p opml and valid
 *         until it is freed
 * @since 0.1
 */
FEED_PUBLIC
const FeedSubscription *
feed_opml_get_subscription(const FeedOpml *opml, guint index);

/**
 * Adds a subscription at the end of the list, unless its URL is already
 * listed. Strings are normalized as when reading: @p url loses its
 * leading and trailing whitespace and every tab and line break (as WHATWG
 * URL parsing drops them) but is otherwise kept as given, so `feed://`
 * and `itpc://` URLs stay so; titles and category names have their
 * whitespace squashed; invalid UTF-8 is read as windows-1252 and control
 * characters are dropped.
 *
 * @param opml a list
 * @param url the feed's URL; not empty once normalized
 * @param title (nullable) the feed's title, or NULL for none
 * @param category (nullable) a NULL-terminated array of the category
 *        names the feed is filed under, outermost first (empty names are
 *        skipped); NULL or an empty array for none
 * @param html_url (nullable) the show's web page, or NULL
 * @return TRUE when the subscription was added, FALSE when a subscription
 *         of the same URL (compared byte for byte) was already listed
 * @since 0.1
 */
FEED_PUBLIC
gboolean
feed_opml_add(FeedOpml *opml, const char *url, const char *title,
              const char *const *category, const char *html_url);

/**
 * Writes the list as an OPML 2.0 document, in UTF-8, that gPodder,
 * AntennaPod, Apple Podcasts and other apps import: a `head` with the
 * title and an RFC 822 `dateCreated`, and in `body` an
 * `<outline type="rss" text="…" title="…" xmlUrl="…" htmlUrl="…"/>` for
 * each subscription (`htmlUrl` only when known), nested in an
 * `<outline text="…">` for each level of its category. Categories appear
 * where their first subscription was; subscriptions keep their order
 * within a category.
 *
 * @param opml a list
 * @return (transfer full) the document, NUL-terminated; free with g_free()
 * @since 0.1
 */
FEED_PUBLIC
char *
feed_opml_to_string(const FeedOpml *opml);

/**
 * Returns the feed's URL: `xmlUrl`, else `url`, normalized as described
 * at feed_opml_add().
 *
 * @param subscription a subscription
 * @return (transfer none) the URL, never empty
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_subscription_get_url(const FeedSubscription *subscription);

/**
 * Returns the feed's title: `title`, else `text`, whitespace squashed.
 *
 * @param subscription a subscription
 * @return (transfer none) the title, `""` when there is none
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_subscription_get_title(const FeedSubscription *subscription);

/**
 * Returns the show's web page (`htmlUrl`), normalized as the URL is.
 *
 * @param subscription a subscription
 * @return (transfer none) (nullable) the URL, or NULL when not given
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_subscription_get_html_url(const FeedSubscription *subscription);

/**
 * Returns the category path the feed is filed under: the names of the
 * outlines that enclose it, outermost first.
 *
 * @param subscription a subscription
 * @return (transfer none) a NULL-terminated array, empty for a feed at the
 *         top level
 * @since 0.1
 */
FEED_PUBLIC
const char *const *
feed_subscription_get_category(const FeedSubscription *subscription);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(FeedOpml, feed_opml_free)

G_END_DECLS

#endif
