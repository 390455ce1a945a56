/* What MPD shows: stored playlists per subscription, and the queue. */
#ifndef BRIDGE_SYNC_H
#define BRIDGE_SYNC_H

#include "bridge.h"

/* The MPD stored playlist name of @feed: prefix and name, made safe. */
char *
bridge_sync_playlist_name(const Bridge *bridge, const BridgeFeed *feed);

/*
 * Rewrites @feed's stored playlist when its contents changed since the
 * last push (always with @force). Does nothing without MPD.
 */
void
bridge_sync_feed(Bridge *bridge, BridgeFeed *feed, gboolean force);

/* Every subscription's playlist, and the playlist of new episodes. */
void
bridge_sync_all(Bridge *bridge, gboolean force);

/* Removes @feed's stored playlist from MPD (on unsubscribing). */
void
bridge_sync_remove(Bridge *bridge, const BridgeFeed *feed);

/*
 * Appends @episode to MPD's queue, tagged with its title, podcast, author,
 * date, number and the genre Podcast.
 */
gboolean
bridge_sync_queue(Bridge *bridge, const BridgeEpisode *episode, GError **error);

/*
 * MPD's player changed: when the song it is on is one the bridge queued
 * and MPD has replaced its tags with the stream's own, sets them again.
 */
void
bridge_sync_on_player(Bridge *bridge);

#endif
