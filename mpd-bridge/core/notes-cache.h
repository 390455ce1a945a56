/*
 * Where show notes are kept: the last body fetched of each feed,
 * gzip-compressed, in the cache directory (feeds/FEED-ID.xml.gz). The
 * daemon keeps no notes in memory; `show` parses the body when asked.
 * It is a cache: anything here can be fetched again, and a feed whose
 * body is missing gets it at its next refresh.
 */
#ifndef BRIDGE_NOTES_CACHE_H
#define BRIDGE_NOTES_CACHE_H

#include "core/bridge.h"

#include <gio/gio.h>

/* A body being written during a fetch, to a temp file beside the cache. */
typedef struct BridgeNotesWriter BridgeNotesWriter;

/* The cached body of feed @feed_id: a new path, which may not exist. */
char *
bridge_notes_cache_path(const Bridge *bridge, const char *feed_id);

/* Whether the feed @feed_id has a cached body. */
gboolean
bridge_notes_cache_exists(const Bridge *bridge, const char *feed_id);

/*
 * Starts a copy of the next body of feed @feed_id: a new temp file in the
 * cache directory (made, mode 0700, when missing), compressed as it is
 * written. NULL, logged, when it cannot be made: the fetch goes on
 * without a copy.
 */
BridgeNotesWriter *
bridge_notes_writer_new(const Bridge *bridge, const char *feed_id);

/* Where the fetch writes the body: borrowed from @writer. */
GOutputStream *
bridge_notes_writer_get_stream(BridgeNotesWriter *writer);

/*
 * Ends the copy and frees @writer (NULL does nothing). The temp file
 * replaces the cached body (rename) when the fetch that wrote it,
 * @result with @error, UPDATED the feed and the copy is whole; otherwise,
 * or when @result is NULL (the feed is gone), it is removed. A failure is
 * logged; the cached body is then the one before.
 */
void
bridge_notes_writer_end(BridgeNotesWriter *writer,
                        const FeedFetchResult *result, const GError *error);

/* Removes the cached body of feed @feed_id, if there is one. */
void
bridge_notes_cache_remove(const Bridge *bridge, const char *feed_id);

/*
 * Parses the cached body of @feed and returns the episode whose guid is
 * @guid (or, for an item with no guid, whose enclosure URL is @guid), or
 * NULL with *@channel set and no error when the feed no longer lists it.
 * *@channel gets the feed's channel, without its episodes. Reading streams
 * the file: memory does not grow with the feed. With no cached body:
 * G_IO_ERROR_NOT_FOUND.
 */
FeedEpisode *
bridge_notes_cache_find(const Bridge *bridge, const BridgeFeed *feed,
                        const char *guid, FeedChannel **channel,
                        GError **error);

#endif
