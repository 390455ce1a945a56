/*
 * What was listened to, and where each episode was left: followed from
 * MPD's player events, whichever client did the playing. Never polls.
 */
#ifndef BRIDGE_TRACKER_H
#define BRIDGE_TRACKER_H

#include "core/bridge.h"

/* MPD's player changed (play, pause, stop, seek, another song). */
void
bridge_tracker_on_player(Bridge *bridge);

/*
 * The relay's host of @episode came back, or was given up: if MPD
 * plays it, where MPD is now.
 */
void
bridge_tracker_on_host(Bridge *bridge, const BridgeEpisode *episode);

/*
 * MPD went away, or the daemon stops: the position so far is kept and
 * the tracker forgets the player.
 */
void
bridge_tracker_stop(Bridge *bridge);

/*
 * Whether an episode counts as listened at @position_s of @duration_s,
 * by the [listening] settings.
 */
gboolean
bridge_tracker_is_done(const BridgeConfig *config, gint64 position_s,
                       gint64 duration_s);

/*
 * Where MPD is in what plays, in milliseconds, now: its elapsed time at
 * the last event, and the time since while it plays.
 */
gint64
bridge_tracker_position_ms(const BridgeTracking *t);

/*
 * @wall_ms of playing in the time of what plays: times the speed of its
 * output (BridgeTracking's speed), since MPD's elapsed time stays in the
 * episode's own time whatever the speed.
 */
gint64
bridge_tracker_played_ms(const BridgeTracking *t, gint64 wall_ms);

/* The wall time that playing @played_ms of what plays takes. */
gint64
bridge_tracker_wall_ms(const BridgeTracking *t, gint64 played_ms);

void
bridge_tracker_clear(Bridge *bridge);

#endif
