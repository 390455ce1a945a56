/* Transcripts of an episode (podcast:transcript). */
#ifndef FEED_TRANSCRIPT_H
#define FEED_TRANSCRIPT_H

#include <feed/version.h>
#include <glib.h>

G_BEGIN_DECLS

/** One `podcast:transcript`. Owned by its episode and immutable. */
typedef struct FeedTranscript FeedTranscript;

/**
 * Returns the transcript's URL.
 *
 * @param transcript a transcript
 * @return (transfer none) the resolved URL, never NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_transcript_get_url(const FeedTranscript *transcript);

/**
 * Returns the transcript's MIME type.
 *
 * @param transcript a transcript
 * @return (transfer none) (nullable) the `type` attribute, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_transcript_get_mime_type(const FeedTranscript *transcript);

/**
 * Returns the transcript's language.
 *
 * @param transcript a transcript
 * @return (transfer none) (nullable) the `language` attribute, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_transcript_get_language(const FeedTranscript *transcript);

/**
 * Returns the transcript's relation, such as `captions`.
 *
 * @param transcript a transcript
 * @return (transfer none) (nullable) the `rel` attribute, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_transcript_get_rel(const FeedTranscript *transcript);

G_END_DECLS

#endif
