/*
 * Chapters of episodes, from any MPD client: listed, and jumped between
 * while an episode plays. An episode's chapters are its feed's own
 * (Podlove, read from the feed body kept for show notes) merged with its
 * Podcasting 2.0 JSON chapters, fetched once, when its feed allows it,
 * and kept in cache_directory/chapters/.
 */
#ifndef BRIDGE_CHAPTERS_H
#define BRIDGE_CHAPTERS_H

#include "core/bridge.h"

/* What the chapters of the episode MPD is on hold (chapters.c). */
typedef struct BridgeChapterState BridgeChapterState;

/*
 * Called once with @episode_id's chapters (transfer none; an empty list
 * when it has none), or NULL with @error when they cannot be read.
 */
typedef void (*BridgeChaptersReady)(Bridge *bridge, const char *episode_id,
                                    FeedChapterList *chapters,
                                    const GError *error, gpointer user_data);

/* Gets @episode's chapters; @ready runs once, perhaps before this returns. */
void
bridge_chapters_get(Bridge *bridge, const BridgeEpisode *episode,
                    BridgeChaptersReady ready, gpointer user_data);

/*
 * The chapters of the episode MPD is on, once read (transfer none), or
 * NULL. The tracker's episode changing starts reading them.
 */
FeedChapterList *
bridge_chapters_current(Bridge *bridge);

/*
 * "EPISODE · CHAPTER", the title MPD's song @song_id gets while it plays
 * @episode in that chapter ([bridge] chapter_titles), or NULL.
 */
char *
bridge_chapters_song_title(Bridge *bridge, const BridgeEpisode *episode,
                           guint song_id);

/* MPD's player changed: reads the chapters of a new episode. */
void
bridge_chapters_on_player(Bridge *bridge);

void
bridge_chapters_clear(Bridge *bridge);

/* set FEED fetch-chapters yes|no: whether its JSON chapters are fetched. */
gboolean
bridge_chapters_set_feed(Bridge *bridge, BridgeFeed *feed, const char *value,
                         GError **error);

#endif
