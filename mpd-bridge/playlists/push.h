/*
 * What MPD shows as stored playlists: one per subscription, new episodes,
 * starred ones, those in progress, play-later and the named lists.
 */
#ifndef BRIDGE_PLAYLISTS_PUSH_H
#define BRIDGE_PLAYLISTS_PUSH_H

#include "core/bridge.h"

/* The MPD stored playlist name of @feed: prefix and name, made safe. */
char *
bridge_push_playlist_name(const Bridge *bridge, const BridgeFeed *feed);

/*
 * Rewrites @feed's stored playlist when its contents changed since the
 * last push (always with @force). Does nothing without MPD.
 */
void
bridge_push_feed(Bridge *bridge, BridgeFeed *feed, gboolean force);

/* The MPD stored playlist name of play-later or a named list. */
char *
bridge_push_list_name(const Bridge *bridge, const BridgeList *list);

/*
 * Every subscription's playlist, and those of new episodes, starred ones,
 * play-later and each named list: each rewritten only when it changed.
 */
void
bridge_push_all(Bridge *bridge, gboolean force);

/*
 * The episodes in progress, most recently played first, as the Continue
 * playlist holds them: a new array of borrowed pointers.
 */
GPtrArray *
bridge_push_continuing(Bridge *bridge);

/*
 * Keeps the episodes in progress true as @episode's position or listened
 * changed alone, without a look at every episode: it moves to where its
 * last play puts it, or out. FALSE when that changes nothing.
 */
gboolean
bridge_push_continuing_update(Bridge *bridge, BridgeEpisode *episode);

/*
 * Pushes the Continue playlist as @episode's position changes: now, or
 * once a minute has passed since its last push, so that a listener's
 * every checkpoint does not rewrite it.
 */
void
bridge_push_continue_soon(Bridge *bridge, BridgeEpisode *episode);

/*
 * Removes @feed's stored playlist from MPD, and its M3U file from the
 * music directory (on unsubscribing, or when the playlist's name changes).
 */
void
bridge_push_remove(Bridge *bridge, const BridgeFeed *feed);

/* Removes a named list's stored playlist from MPD. */
void
bridge_push_remove_list(Bridge *bridge, const BridgeList *list);

#endif
