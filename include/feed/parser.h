/* The streaming feed parser: bytes in, episodes out as each one closes. */
#ifndef FEED_PARSER_H
#define FEED_PARSER_H

#include <feed/channel.h>
#include <feed/episode.h>
#include <feed/version.h>
#include <glib.h>

G_BEGIN_DECLS

/**
 * A push parser. Feed it the document in chunks of any size; it hands each
 * episode to its callback as soon as the episode's element closes, and keeps
 * no more than one episode in memory. Use from one thread at a time.
 */
typedef struct FeedParser FeedParser;

/** The default cap on a document's size: 64 MiB. */
#define FEED_PARSER_DEFAULT_MAX_SIZE ((gsize)64 << 20)

/**
 * Receives one episode.
 *
 * @param episode (transfer none) the episode; take a reference with
 *        feed_episode_ref() to keep it past the call
 * @param user_data the data given to feed_parser_new()
 */
typedef void (*FeedEpisodeFunc)(FeedEpisode *episode, gpointer user_data);

/**
 * Creates a push parser.
 *
 * @param base_url (nullable) where the document comes from; relative URLs
 *        are resolved against it, and it gives the fallback title
 * @param func (nullable) called with each episode, or NULL to drop them
 * @param user_data passed to @p func
 * @return (transfer full) a new parser; free with feed_parser_free()
 * @since 0.1
 */
FEED_PUBLIC
FeedParser *
feed_parser_new(const char *base_url, FeedEpisodeFunc func, gpointer user_data);

/**
 * Frees a parser, finished or not.
 *
 * @param parser (nullable) a parser, or NULL to do nothing
 * @since 0.1
 */
FEED_PUBLIC
void
feed_parser_free(FeedParser *parser);

/**
 * Sets the largest document the parser accepts. Call before the first
 * feed_parser_feed().
 *
 * @param parser a parser
 * @param max_size the cap in bytes; 0 means #FEED_PARSER_DEFAULT_MAX_SIZE
 * @since 0.1
 */
FEED_PUBLIC
void
feed_parser_set_max_size(FeedParser *parser, gsize max_size);

/**
 * Passes the next chunk of the document. Episodes that the chunk completes
 * reach the callback before this returns.
 *
 * @param parser a parser
 * @param data the bytes; need not be NUL-terminated
 * @param length number of bytes in @p data, possibly 0
 * @param error return location for a GError, or NULL
 * @return TRUE, or FALSE with @p error set to #FEED_ERROR_TOO_LARGE,
 *         #FEED_ERROR_ENTITY_LIMIT, #FEED_ERROR_UNSUPPORTED or
 *         #FEED_ERROR_PARSE; after FALSE the parser only accepts
 *         feed_parser_free()
 * @since 0.1
 */
FEED_PUBLIC
gboolean
feed_parser_feed(FeedParser *parser, const char *data, gsize length,
                 GError **error);

/**
 * Ends the document and returns what the feed says of itself. An unclosed
 * item at the end of a truncated document still reaches the callback.
 *
 * @param parser a parser
 * @param error return location for a GError, or NULL
 * @return (transfer full) the channel without episodes (they went to the
 *         callback), or NULL with @p error set as for feed_parser_feed()
 * @since 0.1
 */
FEED_PUBLIC
FeedChannel *
feed_parser_finish(FeedParser *parser, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(FeedParser, feed_parser_free)

G_END_DECLS

#endif
