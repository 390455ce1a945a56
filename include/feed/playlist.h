/* Episodes chosen and ordered as playlist entries, and playlist formats. */
#ifndef FEED_PLAYLIST_H
#define FEED_PLAYLIST_H

#include <feed/channel.h>
#include <feed/episode.h>
#include <feed/version.h>
#include <glib.h>

G_BEGIN_DECLS

/** One stream to play: an episode's best enclosure with its tags. */
typedef struct FeedPlaylistEntry FeedPlaylistEntry;

/** Entries chosen from a channel, in order. Immutable. */
typedef struct FeedPlaylist FeedPlaylist;

/** How entries are chosen; mutable until used. */
typedef struct FeedPlaylistOptions FeedPlaylistOptions;

/** The order of a playlist. */
typedef enum {
	/** Oldest first for `itunes:type` serial shows, else newest. */
	FEED_PLAYLIST_ORDER_DEFAULT,
	/** Newest first. */
	FEED_PLAYLIST_ORDER_NEWEST_FIRST,
	/** Oldest first. */
	FEED_PLAYLIST_ORDER_OLDEST_FIRST,
} FeedPlaylistOrder;

/** Which media an entry may be. */
typedef enum {
	/** Audio only: an episode with video alone gives no entry. */
	FEED_MEDIA_AUDIO,
	/** Video only. */
	FEED_MEDIA_VIDEO,
	/** Audio when there is some, else video, else any media. */
	FEED_MEDIA_ANY,
} FeedMediaKind;

/** The playlist formats libfeed writes. */
typedef enum {
	/** Extended M3U, UTF-8 (`#EXTM3U`, `#EXTINF`). */
	FEED_PLAYLIST_FORMAT_M3U,
	/** XSPF version 1. */
	FEED_PLAYLIST_FORMAT_XSPF,
	/** PLS version 2. */
	FEED_PLAYLIST_FORMAT_PLS,
} FeedPlaylistFormat;

/**
 * Decides whether an episode may be an entry, after the other options.
 *
 * @param episode the episode
 * @param user_data the data given with the predicate
 * @return TRUE to keep the episode
 */
typedef gboolean (*FeedEpisodePredicate)(const FeedEpisode *episode,
                                         gpointer user_data);

/**
 * Creates options that keep every audio episode in the default order.
 *
 * @return (transfer full) new options; free with
 *         feed_playlist_options_free()
 * @since 0.1
 */
FEED_PUBLIC
FeedPlaylistOptions *
feed_playlist_options_new(void);

/**
 * Frees options.
 *
 * @param options (nullable) options, or NULL to do nothing
 * @since 0.1
 */
FEED_PUBLIC
void
feed_playlist_options_free(FeedPlaylistOptions *options);

/**
 * Sets the order of the entries.
 *
 * @param options options
 * @param order the order
 * @since 0.1
 */
FEED_PUBLIC
void
feed_playlist_options_set_order(FeedPlaylistOptions *options,
                                FeedPlaylistOrder order);

/**
 * Keeps at most @p limit entries: the first ones in the playlist's order.
 *
 * @param options options
 * @param limit the most entries, or 0 for no limit
 * @since 0.1
 */
FEED_PUBLIC
void
feed_playlist_options_set_limit(FeedPlaylistOptions *options, guint limit);

/**
 * Keeps only episodes published at or after @p since.
 *
 * @param options options
 * @param since Unix seconds, or 0 for no bound; with a bound, undated
 *        episodes are left out
 * @since 0.1
 */
FEED_PUBLIC
void
feed_playlist_options_set_since(FeedPlaylistOptions *options, gint64 since);

/**
 * Keeps only episodes whose title matches @p pattern (a GRegex,
 * case-insensitive).
 *
 * @param options options
 * @param pattern (nullable) the pattern, or NULL for any title
 * @param error return location for a GError, or NULL
 * @return TRUE, or FALSE with @p error set (#G_REGEX_ERROR) when the
 *         pattern is not valid
 * @since 0.1
 */
FEED_PUBLIC
gboolean
feed_playlist_options_set_match(FeedPlaylistOptions *options,
                                const char *pattern, GError **error);

/**
 * Leaves out episodes whose title matches @p pattern (a GRegex,
 * case-insensitive).
 *
 * @param options options
 * @param pattern (nullable) the pattern, or NULL to leave none out
 * @param error return location for a GError, or NULL
 * @return TRUE, or FALSE with @p error set (#G_REGEX_ERROR) when the
 *         pattern is not valid
 * @since 0.1
 */
FEED_PUBLIC
gboolean
feed_playlist_options_set_exclude(FeedPlaylistOptions *options,
                                  const char *pattern, GError **error);

/**
 * Leaves out episodes known to be shorter than @p seconds; episodes of
 * unknown length stay.
 *
 * @param options options
 * @param seconds the shortest length kept, or 0 for any
 * @since 0.1
 */
FEED_PUBLIC
void
feed_playlist_options_set_min_duration(FeedPlaylistOptions *options,
                                       gint64 seconds);

/**
 * Sets which media an entry may be.
 *
 * @param options options
 * @param kind the media kind; #FEED_MEDIA_AUDIO by default
 * @since 0.1
 */
FEED_PUBLIC
void
feed_playlist_options_set_media(FeedPlaylistOptions *options,
                                FeedMediaKind kind);

/**
 * Sets a last test each episode must pass (say, "not yet listened").
 *
 * @param options options
 * @param predicate (nullable) the test, or NULL for none
 * @param user_data passed to @p predicate
 * @since 0.1
 */
FEED_PUBLIC
void
feed_playlist_options_set_predicate(FeedPlaylistOptions *options,
                                    FeedEpisodePredicate predicate,
                                    gpointer user_data);

/**
 * Chooses and orders the entries of @p channel. Each episode gives at most
 * one entry, from its best usable enclosure: an http(s) URL that names a
 * host, with a numeric port if any, and holds no space, control character
 * or line separator. Episodes without one or without a title are left
 * out.
 *
 * @param channel a channel with its episodes
 * @param options (nullable) how to choose, or NULL for the defaults
 * @return (transfer full) a new playlist, possibly empty
 * @since 0.1
 */
FEED_PUBLIC
FeedPlaylist *
feed_playlist_new(const FeedChannel *channel,
                  const FeedPlaylistOptions *options);

/**
 * Takes a reference to a playlist.
 *
 * @param playlist a playlist
 * @return (transfer full) @p playlist
 * @since 0.1
 */
FEED_PUBLIC
FeedPlaylist *
feed_playlist_ref(FeedPlaylist *playlist);

/**
 * Drops a reference to a playlist.
 *
 * @param playlist (nullable) a playlist, or NULL to do nothing
 * @since 0.1
 */
FEED_PUBLIC
void
feed_playlist_unref(FeedPlaylist *playlist);

/**
 * Returns the playlist's title: the podcast's.
 *
 * @param playlist a playlist
 * @return (transfer none) the title, never NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_playlist_get_title(const FeedPlaylist *playlist);

/**
 * Returns how many entries the playlist has.
 *
 * @param playlist a playlist
 * @return the number of entries
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_playlist_get_n_entries(const FeedPlaylist *playlist);

/**
 * Returns one entry, in the playlist's order.
 *
 * @param playlist a playlist
 * @param index which entry, below feed_playlist_get_n_entries()
 * @return (transfer none) the entry, owned by @p playlist
 * @since 0.1
 */
FEED_PUBLIC
const FeedPlaylistEntry *
feed_playlist_get_entry(const FeedPlaylist *playlist, guint index);

/**
 * Writes the playlist in @p format. Titles with line breaks or control
 * characters cannot break a line-based format: they are replaced.
 *
 * @param playlist a playlist
 * @param format the format
 * @return (transfer full) the document, UTF-8
 * @since 0.1
 */
FEED_PUBLIC
char *
feed_playlist_to_string(const FeedPlaylist *playlist,
                        FeedPlaylistFormat format);

/**
 * Returns the entry's stream URL: http or https.
 *
 * @param entry an entry
 * @return (transfer none) the URL, never NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_playlist_entry_get_url(const FeedPlaylistEntry *entry);

/**
 * Returns the entry's MIME type.
 *
 * @param entry an entry
 * @return (transfer none) the type, never NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_playlist_entry_get_mime_type(const FeedPlaylistEntry *entry);

/**
 * Returns the episode's title.
 *
 * @param entry an entry
 * @return (transfer none) the title, never NULL or empty
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_playlist_entry_get_title(const FeedPlaylistEntry *entry);

/**
 * Returns the podcast's title, the entry's album.
 *
 * @param entry an entry
 * @return (transfer none) the title, possibly empty, never NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_playlist_entry_get_album(const FeedPlaylistEntry *entry);

/**
 * Returns the entry's artist: the episode's `itunes:author`, else the
 * podcast's author.
 *
 * @param entry an entry
 * @return (transfer none) (nullable) the artist, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_playlist_entry_get_artist(const FeedPlaylistEntry *entry);

/**
 * Returns when the episode was published.
 *
 * @param entry an entry
 * @return Unix seconds, or 0 when unknown
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_playlist_entry_get_date(const FeedPlaylistEntry *entry);

/**
 * Returns the episode's length.
 *
 * @param entry an entry
 * @return seconds, or 0 when unknown
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_playlist_entry_get_duration(const FeedPlaylistEntry *entry);

/**
 * Returns the episode number.
 *
 * @param entry an entry
 * @return the number, or 0 when unknown
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_playlist_entry_get_number(const FeedPlaylistEntry *entry);

/**
 * Returns the season number.
 *
 * @param entry an entry
 * @return the season, or -1 when unknown
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_playlist_entry_get_season(const FeedPlaylistEntry *entry);

/**
 * Returns the episode's guid.
 *
 * @param entry an entry
 * @return (transfer none) the guid, never NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_playlist_entry_get_guid(const FeedPlaylistEntry *entry);

/**
 * Returns the episode's artwork, else the podcast's.
 *
 * @param entry an entry
 * @return (transfer none) (nullable) the image URL, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_playlist_entry_get_image(const FeedPlaylistEntry *entry);

/**
 * Returns the episode's show notes as text, for an annotation.
 *
 * @param entry an entry
 * @return (transfer none) the text, possibly empty, never NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_playlist_entry_get_description(const FeedPlaylistEntry *entry);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(FeedPlaylistOptions, feed_playlist_options_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FeedPlaylist, feed_playlist_unref)

G_END_DECLS

#endif
