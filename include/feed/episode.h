/* One episode of a podcast, as the feed describes it. */
#ifndef FEED_EPISODE_H
#define FEED_EPISODE_H

#include <feed/chapter.h>
#include <feed/enclosure.h>
#include <feed/person.h>
#include <feed/transcript.h>
#include <feed/version.h>
#include <glib.h>

G_BEGIN_DECLS

/**
 * One item or entry of a feed. Immutable and reference-counted: the parser
 * lends each new episode to its callback, which takes a reference to keep
 * it. Strings are valid UTF-8.
 */
typedef struct FeedEpisode FeedEpisode;

/** A yes/no value that a feed may also leave out. */
typedef enum {
	/** The feed did not say, or said something unrecognised. */
	FEED_TRISTATE_UNSET,
	/** The feed said no (`no`, `false`, `clean`). */
	FEED_TRISTATE_FALSE,
	/** The feed said yes (`yes`, `true`, `explicit`). */
	FEED_TRISTATE_TRUE,
} FeedTristate;

/** `itunes:episodeType`. */
typedef enum {
	/** Absent or not one of the values below. */
	FEED_EPISODE_TYPE_UNSET,
	/** `full` */
	FEED_EPISODE_TYPE_FULL,
	/** `trailer` */
	FEED_EPISODE_TYPE_TRAILER,
	/** `bonus` */
	FEED_EPISODE_TYPE_BONUS,
} FeedEpisodeType;

/**
 * Takes a reference to an episode.
 *
 * @param episode an episode
 * @return (transfer full) @p episode
 * @since 0.1
 */
FEED_PUBLIC
FeedEpisode *
feed_episode_ref(FeedEpisode *episode);

/**
 * Drops a reference to an episode, freeing it with the last one.
 *
 * @param episode (nullable) an episode, or NULL to do nothing
 * @since 0.1
 */
FEED_PUBLIC
void
feed_episode_unref(FeedEpisode *episode);

/**
 * Returns the episode's globally unique id: `guid` (resolved when it is a
 * permalink), Atom `id` or RSS 1.0 `rdf:about`; failing those, the link or
 * the one enclosure URL.
 *
 * @param episode an episode
 * @return (transfer none) (nullable) the id, or NULL when there is none
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_episode_get_guid(const FeedEpisode *episode);

/**
 * Returns the episode's title, whitespace squashed (Atom XHTML gives its
 * text). Failing that, `dc:title`, then the first `media:title` of the
 * item, of a `media:group`, of a `media:content`; failing those, the file
 * name of its one enclosure without extension. An Atom title whose `type`
 * is a MIME type other than text or XML is base64, decoded first.
 *
 * @param episode an episode
 * @return (transfer none) (nullable) the title, or NULL when there is none
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_episode_get_title(const FeedEpisode *episode);

/**
 * Returns the episode's web page: `link`, or the first Atom link with `rel`
 * `alternate` (or none) and type `text/html` or none; failing those, one of
 * type `application/xhtml+xml`.
 *
 * @param episode an episode
 * @return (transfer none) the resolved link, `""` when there is none
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_episode_get_link(const FeedEpisode *episode);

/**
 * Returns the show notes as plain text (`itunes:summary`,
 * `media:description`, a text `description`, else `dc:description`, Atom
 * text `content` or `summary`). When the feed gave only HTML, this is that
 * HTML with the tags stripped. Atom `content` or `summary` whose `type` is
 * a MIME type other than text or XML is base64, decoded first.
 *
 * @param episode an episode
 * @return (transfer none) the text, `""` when there is none
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_episode_get_description(const FeedEpisode *episode);

/**
 * Returns the show notes as the feed's HTML, verbatim and not sanitized:
 * `content:encoded`, else an XHTML `body` or a `fullitem`; Atom HTML or
 * XHTML content or summary; or a `description` (else `dc:description`)
 * that is HTML, escaped or given as child elements. Markup given as
 * elements (XHTML, without Atom's wrapping `div`) is serialized as HTML.
 * Atom base64 `content` or `summary` (a `type` that is a MIME type other
 * than text or XML, or Atom 0.3's `mode="base64"`) is decoded first.
 *
 * @param episode an episode
 * @return (transfer none) (nullable) the HTML, or NULL when there is none
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_episode_get_description_html(const FeedEpisode *episode);

/**
 * Returns when the episode was published: `pubDate` or Atom `published`,
 * else Atom `updated`, else `dc:date`, else `dcterms:issued`, else
 * `dcterms:created`, else `dcterms:modified`.
 *
 * @param episode an episode
 * @return Unix seconds (UTC), or 0 when missing or unparseable
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_episode_get_published(const FeedEpisode *episode);

/**
 * Returns the episode's length as `itunes:duration` gives it.
 *
 * @param episode an episode
 * @return seconds, or 0 when missing or unparseable
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_episode_get_total_time(const FeedEpisode *episode);

/**
 * Returns the episode's payment page (`atom:link rel="payment"`).
 *
 * @param episode an episode
 * @return (transfer none) (nullable) the resolved URL, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_episode_get_payment_url(const FeedEpisode *episode);

/**
 * Returns how many enclosures the episode has.
 *
 * @param episode an episode
 * @return the number of enclosures, possibly 0
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_episode_get_n_enclosures(const FeedEpisode *episode);

/**
 * Returns one enclosure, in document order.
 *
 * @param episode an episode
 * @param index which enclosure, below feed_episode_get_n_enclosures()
 * @return (transfer none) the enclosure, owned by @p episode
 * @since 0.1
 */
FEED_PUBLIC
const FeedEnclosure *
feed_episode_get_enclosure(const FeedEpisode *episode, guint index);

/**
 * Returns how many `podcast:alternateEnclosure` renditions there are.
 *
 * @param episode an episode
 * @return the number of renditions, possibly 0
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_episode_get_n_alternate_enclosures(const FeedEpisode *episode);

/**
 * Returns one `podcast:alternateEnclosure`, in document order.
 *
 * @param episode an episode
 * @param index which one, below feed_episode_get_n_alternate_enclosures()
 * @return (transfer none) the rendition, owned by @p episode
 * @since 0.1
 */
FEED_PUBLIC
const FeedAlternateEnclosure *
feed_episode_get_alternate_enclosure(const FeedEpisode *episode, guint index);

/**
 * Returns the episode number (`itunes:episode`).
 *
 * @param episode an episode
 * @return the number, or 0 when missing or not a positive integer
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_episode_get_number(const FeedEpisode *episode);

/**
 * Returns the season number (`itunes:season`).
 *
 * @param episode an episode
 * @return the season; 0 when given but not an integer; -1 when absent
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_episode_get_season(const FeedEpisode *episode);

/**
 * Returns the Podcast Index episode number (`podcast:episode`).
 *
 * @param episode an episode
 * @return the number, or 0 when missing or not a positive integer
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_episode_get_podcast_episode(const FeedEpisode *episode);

/**
 * Returns the Podcast Index season number (`podcast:season`).
 *
 * @param episode an episode
 * @return the season, or -1 when missing or not a whole number
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_episode_get_podcast_season(const FeedEpisode *episode);

/**
 * Returns the episode's `itunes:episodeType`.
 *
 * @param episode an episode
 * @return the type, #FEED_EPISODE_TYPE_UNSET when absent or unknown
 * @since 0.1
 */
FEED_PUBLIC
FeedEpisodeType
feed_episode_get_episode_type(const FeedEpisode *episode);

/**
 * Returns the episode's `itunes:subtitle`, whitespace squashed.
 *
 * @param episode an episode
 * @return (transfer none) (nullable) the subtitle, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_episode_get_subtitle(const FeedEpisode *episode);

/**
 * Returns the episode's own `itunes:author`, whitespace squashed.
 *
 * @param episode an episode
 * @return (transfer none) (nullable) the author, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_episode_get_itunes_author(const FeedEpisode *episode);

/**
 * Returns the episode's `itunes:explicit`.
 *
 * @param episode an episode
 * @return the flag, #FEED_TRISTATE_UNSET when absent or unrecognised
 * @since 0.1
 */
FEED_PUBLIC
FeedTristate
feed_episode_get_explicit(const FeedEpisode *episode);

/**
 * Tells whether `itunes:block` is `yes` for the episode.
 *
 * @param episode an episode
 * @return the flag, #FEED_TRISTATE_UNSET when absent
 * @since 0.1
 */
FEED_PUBLIC
FeedTristate
feed_episode_get_block(const FeedEpisode *episode);

/**
 * Returns the episode's own artwork: `itunes:image/@href` or
 * `media:thumbnail`, the last one in the document. Failing those,
 * `itunes:image/@url` or `itunes:link rel="image"`, the last one.
 *
 * @param episode an episode
 * @return (transfer none) (nullable) the resolved URL, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_episode_get_image_url(const FeedEpisode *episode);

/**
 * Returns how many Podlove Simple Chapters the episode has: those of its
 * first `psc:chapters`.
 *
 * @param episode an episode
 * @return the number of chapters, possibly 0
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_episode_get_n_chapters(const FeedEpisode *episode);

/**
 * Returns one chapter, in document order.
 *
 * @param episode an episode
 * @param index which chapter, below feed_episode_get_n_chapters()
 * @return (transfer none) the chapter, owned by @p episode
 * @since 0.1
 */
FEED_PUBLIC
const FeedChapter *
feed_episode_get_chapter(const FeedEpisode *episode, guint index);

/**
 * Returns the URL of the episode's `podcast:chapters` document.
 *
 * @param episode an episode
 * @return (transfer none) (nullable) the resolved URL, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_episode_get_chapters_url(const FeedEpisode *episode);

/**
 * Returns how many `podcast:transcript` elements the episode has.
 *
 * @param episode an episode
 * @return the number of transcripts, possibly 0
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_episode_get_n_transcripts(const FeedEpisode *episode);

/**
 * Returns one transcript, in document order.
 *
 * @param episode an episode
 * @param index which transcript, below feed_episode_get_n_transcripts()
 * @return (transfer none) the transcript, owned by @p episode
 * @since 0.1
 */
FEED_PUBLIC
const FeedTranscript *
feed_episode_get_transcript(const FeedEpisode *episode, guint index);

/**
 * Returns how many `podcast:person` elements the episode has.
 *
 * @param episode an episode
 * @return the number of persons, possibly 0
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_episode_get_n_persons(const FeedEpisode *episode);

/**
 * Returns one person credited on the episode, in document order.
 *
 * @param episode an episode
 * @param index which person, below feed_episode_get_n_persons()
 * @return (transfer none) the person, owned by @p episode
 * @since 0.1
 */
FEED_PUBLIC
const FeedPerson *
feed_episode_get_person(const FeedEpisode *episode, guint index);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(FeedEpisode, feed_episode_unref)

G_END_DECLS

#endif
