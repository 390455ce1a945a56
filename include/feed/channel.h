/* A parsed podcast feed: the show's own data and its episodes. */
#ifndef FEED_CHANNEL_H
#define FEED_CHANNEL_H

#include <feed/episode.h>
#include <feed/funding.h>
#include <feed/person.h>
#include <feed/version.h>
#include <glib.h>

G_BEGIN_DECLS

/**
 * A parsed feed. Immutable and reference-counted; may be read from any
 * thread. Strings are valid UTF-8.
 */
typedef struct FeedChannel FeedChannel;

/** The kind of document a channel was read from. */
typedef enum {
	/** RSS 2.0 or 0.9x (`<rss>`, in any namespace or none). */
	FEED_FORMAT_RSS2,
	/**
	 * Atom 1.0 (`<feed>` in its namespace), or Atom 0.3 and its drafts
	 * (`<feed>` in any other namespace or none).
	 */
	FEED_FORMAT_ATOM,
	/** RSS 1.0 (`<rdf:RDF>`). */
	FEED_FORMAT_RSS1,
} FeedFormat;

/** `itunes:type`. */
typedef enum {
	/** Absent or not one of the values below. */
	FEED_SHOW_TYPE_UNSET,
	/** `episodic`: newest first. */
	FEED_SHOW_TYPE_EPISODIC,
	/** `serial`: oldest first. */
	FEED_SHOW_TYPE_SERIAL,
} FeedShowType;

/**
 * Parses a whole feed that is already in memory: RSS 2.0, 0.9x and 1.0,
 * Atom 1.0 and 0.3. The root is known by its local name (see #FeedFormat);
 * RSS's own elements match in any case. Never loads external entities or
 * DTDs and never touches the network. Recoverable problems do not fail the
 * parse: they are listed by feed_channel_get_errors(). A root that is no
 * feed fails with a message that names it and its namespace.
 *
 * @param data the document; need not be NUL-terminated
 * @param length number of bytes in @p data
 * @param base_url (nullable) where the document came from; relative URLs
 *        are resolved against it and it gives the fallback title
 * @param error return location for a GError, or NULL
 * @return (transfer full) a new channel, or NULL with @p error set to
 *         #FEED_ERROR_PARSE, #FEED_ERROR_UNSUPPORTED, #FEED_ERROR_TOO_LARGE
 *         or #FEED_ERROR_ENTITY_LIMIT
 * @since 0.1
 */
FEED_PUBLIC
FeedChannel *
feed_channel_new_from_data(const char *data, gsize length, const char *base_url,
                           GError **error);

/**
 * Reads and parses a feed file, in chunks, as
 * feed_channel_new_from_data() does.
 *
 * @param path the file's path
 * @param base_url (nullable) the feed's URL; NULL means the file's own
 *        `file://` URL
 * @param error return location for a GError, or NULL
 * @return (transfer full) a new channel, or NULL with @p error set as for
 *         feed_channel_new_from_data(), or #FEED_ERROR_IO
 * @since 0.1
 */
FEED_PUBLIC
FeedChannel *
feed_channel_new_from_file(const char *path, const char *base_url,
                           GError **error);

/**
 * Takes a reference to a channel.
 *
 * @param channel a channel
 * @return (transfer full) @p channel
 * @since 0.1
 */
FEED_PUBLIC
FeedChannel *
feed_channel_ref(FeedChannel *channel);

/**
 * Drops a reference to a channel, freeing it and its episodes with the
 * last one.
 *
 * @param channel (nullable) a channel, or NULL to do nothing
 * @since 0.1
 */
FEED_PUBLIC
void
feed_channel_unref(FeedChannel *channel);

/**
 * Returns the kind of document the channel came from.
 *
 * @param channel a channel
 * @return the format
 * @since 0.1
 */
FEED_PUBLIC
FeedFormat
feed_channel_get_format(const FeedChannel *channel);

/**
 * Returns the show's title (`title`, else `dc:title`; Atom XHTML gives its
 * text, and Atom text whose `type` is a MIME type other than text or XML
 * is base64, decoded first); failing that, the base URL's file name
 * without extension.
 *
 * @param channel a channel
 * @return (transfer none) the title, `""` when there is none
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_title(const FeedChannel *channel);

/**
 * Returns the show's web page: `link`, or an Atom link with `rel`
 * `alternate` (or none) and type `text/html`; failing those, one of type
 * `application/xhtml+xml` or, in RSS, of no type.
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the resolved link, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_link(const FeedChannel *channel);

/**
 * Returns the show's description as text: `description`, else
 * `itunes:summary`, else `itunes:subtitle`, else `dc:description`; Atom
 * `subtitle`. One given as markup (child elements, Atom XHTML) gives the
 * text of that HTML; an Atom `subtitle` whose `type` is a MIME type other
 * than text or XML is base64, decoded first.
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the description, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_description(const FeedChannel *channel);

/**
 * Returns the show's author: `itunes:author`, else Atom `author/name`, else
 * `managingEditor`, else `dc:creator`, else `author`, else `dc:author`.
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the author, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_author(const FeedChannel *channel);

/**
 * Returns the show's `itunes:author` alone.
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the author, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_itunes_author(const FeedChannel *channel);

/**
 * Returns the name in `itunes:owner`.
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the name, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_owner_name(const FeedChannel *channel);

/**
 * Returns the e-mail address in `itunes:owner`.
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the address, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_owner_email(const FeedChannel *channel);

/**
 * Returns the show's cover art: `image/url` or `itunes:image/@href`, the
 * later one in the document; Atom `icon`. Failing those,
 * `itunes:image/@url` or `itunes:link rel="image"`, the later one.
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the resolved URL, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_image_url(const FeedChannel *channel);

/**
 * Returns the show's language: `language`, else `dc:language`, else the
 * `xml:lang` of the channel, else of the root element, written with `-`
 * for `_` (`en_US` gives `en-US`).
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the language tag, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_language(const FeedChannel *channel);

/**
 * Returns the address the feed says it moved to (`itunes:new-feed-url` or
 * `redirect/newLocation`).
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the URL, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_new_url(const FeedChannel *channel);

/**
 * Returns the show's `itunes:type`.
 *
 * @param channel a channel
 * @return the type, #FEED_SHOW_TYPE_UNSET when absent or unknown
 * @since 0.1
 */
FEED_PUBLIC
FeedShowType
feed_channel_get_show_type(const FeedChannel *channel);

/**
 * Returns the show's `itunes:explicit`.
 *
 * @param channel a channel
 * @return the flag, #FEED_TRISTATE_UNSET when absent or unrecognised
 * @since 0.1
 */
FEED_PUBLIC
FeedTristate
feed_channel_get_explicit(const FeedChannel *channel);

/**
 * Tells whether `itunes:block` is `yes` for the show.
 *
 * @param channel a channel
 * @return the flag, #FEED_TRISTATE_UNSET when absent
 * @since 0.1
 */
FEED_PUBLIC
FeedTristate
feed_channel_get_block(const FeedChannel *channel);

/**
 * Tells whether `itunes:complete` is `yes`: no more episodes will come.
 *
 * @param channel a channel
 * @return TRUE when the show is complete
 * @since 0.1
 */
FEED_PUBLIC
gboolean
feed_channel_is_complete(const FeedChannel *channel);

/**
 * Tells whether `podcast:locked` forbids importing the feed elsewhere.
 *
 * @param channel a channel
 * @return the flag, #FEED_TRISTATE_UNSET when absent or unrecognised
 * @since 0.1
 */
FEED_PUBLIC
FeedTristate
feed_channel_get_locked(const FeedChannel *channel);

/**
 * Returns how many top-level `itunes:category` elements there are.
 *
 * @param channel a channel
 * @return the number of categories, possibly 0
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_channel_get_n_categories(const FeedChannel *channel);

/**
 * Returns one category path: the top-level text, then its sub-categories.
 *
 * @param channel a channel
 * @param index which category, below feed_channel_get_n_categories()
 * @return (transfer none) a NULL-terminated array of at least one string
 * @since 0.1
 */
FEED_PUBLIC
const char *const *
feed_channel_get_category(const FeedChannel *channel, guint index);

/**
 * Returns the show's `itunes:keywords`, split at `", "`.
 *
 * @param channel a channel
 * @return (transfer none) a NULL-terminated array, possibly empty
 * @since 0.1
 */
FEED_PUBLIC
const char *const *
feed_channel_get_keywords(const FeedChannel *channel);

/**
 * Returns the feed's `generator`.
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the generator, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_generator(const FeedChannel *channel);

/**
 * Returns the show's payment page (`atom:link rel="payment"`).
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the resolved URL, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_payment_url(const FeedChannel *channel);

/**
 * Returns how many `podcast:funding` links there are.
 *
 * @param channel a channel
 * @return the number of links, possibly 0
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_channel_get_n_funding(const FeedChannel *channel);

/**
 * Returns one `podcast:funding` link, in document order.
 *
 * @param channel a channel
 * @param index which link, below feed_channel_get_n_funding()
 * @return (transfer none) the link, owned by @p channel
 * @since 0.1
 */
FEED_PUBLIC
const FeedFunding *
feed_channel_get_funding(const FeedChannel *channel, guint index);

/**
 * Returns how many `podcast:person` elements the show has.
 *
 * @param channel a channel
 * @return the number of persons, possibly 0
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_channel_get_n_persons(const FeedChannel *channel);

/**
 * Returns one person credited on the show, in document order.
 *
 * @param channel a channel
 * @param index which person, below feed_channel_get_n_persons()
 * @return (transfer none) the person, owned by @p channel
 * @since 0.1
 */
FEED_PUBLIC
const FeedPerson *
feed_channel_get_person(const FeedChannel *channel, guint index);

/**
 * Returns the feed's own address (`atom:link rel="self"`).
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the resolved URL, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_self_url(const FeedChannel *channel);

/**
 * Returns the feed's WebSub hub (`atom:link rel="hub"`).
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the resolved URL, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_hub_url(const FeedChannel *channel);

/**
 * Returns the first page of a paged feed (RFC 5005 `rel="first"`).
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the resolved URL, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_first_page_url(const FeedChannel *channel);

/**
 * Returns the next page of a paged feed (RFC 5005 `rel="next"`).
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the resolved URL, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_next_page_url(const FeedChannel *channel);

/**
 * Returns the show's `podcast:guid`.
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the guid, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_podcast_guid(const FeedChannel *channel);

/**
 * Returns the show's `podcast:medium`, such as `podcast` or `music`.
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the medium, lower-cased, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_medium(const FeedChannel *channel);

/**
 * Returns the `rrule` of `podcast:updateFrequency`.
 *
 * @param channel a channel
 * @return (transfer none) (nullable) the recurrence rule, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_channel_get_update_rrule(const FeedChannel *channel);

/**
 * Returns how long the feed may be cached (`ttl`).
 *
 * @param channel a channel
 * @return minutes, or 0 when not given
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_channel_get_ttl(const FeedChannel *channel);

/**
 * Returns when the feed was last changed (`lastBuildDate`, Atom `updated`).
 *
 * @param channel a channel
 * @return Unix seconds (UTC), or 0 when not given
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_channel_get_updated(const FeedChannel *channel);

/**
 * Returns the problems met while parsing, each naming its line.
 *
 * @param channel a channel
 * @return (transfer none) a NULL-terminated array, empty when there were
 *         none
 * @since 0.1
 */
FEED_PUBLIC
const char *const *
feed_channel_get_errors(const FeedChannel *channel);

/**
 * Returns how many episodes the channel holds. A channel made by
 * feed_parser_finish() holds none: they went to the parser's callback.
 *
 * @param channel a channel
 * @return the number of episodes, possibly 0
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_channel_get_n_episodes(const FeedChannel *channel);

/**
 * Returns one episode, in document order.
 *
 * @param channel a channel
 * @param index which episode, below feed_channel_get_n_episodes()
 * @return (transfer none) the episode, owned by @p channel
 * @since 0.1
 */
FEED_PUBLIC
FeedEpisode *
feed_channel_get_episode(const FeedChannel *channel, guint index);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(FeedChannel, feed_channel_unref)

G_END_DECLS

#endif
