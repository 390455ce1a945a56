/*
 * Syncing with the podcast app on a phone, through a gpodder-API server
 * ([sync]; gpodder.c speaks the API): subscriptions both ways, and each
 * episode's position and listened state, newest change winning. The
 * daemon pulls at start, every [sync] interval, and when MPD starts an
 * episode; it pushes [sync] push_delay seconds after a change, and when
 * it stops. What waits to be uploaded is in the state file.
 */
#ifndef BRIDGE_PHONE_SYNC_H
#define BRIDGE_PHONE_SYNC_H

#include "core/bridge.h"
#include "core/call.h"

/* Whether [sync] names a server. */
gboolean
bridge_phone_sync_enabled(const Bridge *bridge);

/* In the daemon: the first sync now, then the timers. */
void
bridge_phone_sync_start(Bridge *bridge);

/*
 * In the daemon, as it stops: pushes what waits, with a short time
 * limit, blocking; then frees what sync holds.
 */
void
bridge_phone_sync_stop(Bridge *bridge);

/* Frees what sync holds in @bridge (also outside the daemon). */
void
bridge_phone_sync_clear(Bridge *bridge);

/*
 * Notes a change of @episode's position or listened state made here (by
 * playing, or a command): it is stamped, kept for upload, and a push is
 * due in push_delay seconds.
 */
void
bridge_phone_sync_changed(Bridge *bridge, BridgeEpisode *episode);

/* Notes a new subscription, or one that moved: a push is due. */
void
bridge_phone_sync_feed_changed(Bridge *bridge);

/* Notes that @feed is being unsubscribed from: the server is told. */
void
bridge_phone_sync_feed_removed(Bridge *bridge, const BridgeFeed *feed);

/*
 * MPD started @episode: an action held for it (it was playing when the
 * action came) is applied now, and a pull starts, so that the resume a
 * moment later goes where the phone stopped.
 */
void
bridge_phone_sync_episode_started(Bridge *bridge, BridgeEpisode *episode);

/* Milliseconds a resume waits for that pull; 0 with no sync. */
guint
bridge_phone_sync_resume_wait_ms(const Bridge *bridge);

/* A refresh ended: actions for episodes not known yet are tried again. */
void
bridge_phone_sync_after_refresh(Bridge *bridge);

/* `sync [now|reset|login]`, for the command table. */
void
bridge_phone_sync_start_command(Bridge *bridge, char **args, BridgeCall *call);

#endif
