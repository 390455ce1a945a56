/*
 * A fade of MPD's volume from one level to another over a while, in small
 * steps: the sleep timer fades down before it pauses, the alarm fades up
 * after it starts playing. The listener wins: a volume set in a client
 * while it fades ends the fade, and theirs stays.
 */
#ifndef BRIDGE_FADE_H
#define BRIDGE_FADE_H

#include "core/bridge.h"

typedef struct BridgeFade BridgeFade;

/*
 * Sets MPD's volume to @from now and moves it to @to over @ms (0 to 100
 * each; @ms > 0), one step every quarter of a second, on the main loop.
 * @who names the fade in the log ("the alarm"). Returns NULL with @error
 * set when MPD refuses the first volume; a later failure ends the fade
 * and is logged.
 */
BridgeFade *
bridge_fade_start(Bridge *bridge, int from, int to, gint64 ms, const char *who,
                  GError **error);

/* Whether the fade still moves the volume. */
gboolean
bridge_fade_is_running(const BridgeFade *fade);

/*
 * Whether the listener set a volume while it faded: what they set
 * stays, and what the fade's owner would put back after it should not.
 */
gboolean
bridge_fade_is_overridden(const BridgeFade *fade);

/* Ends the fade where it is; NULL does nothing. */
void
bridge_fade_free(BridgeFade *fade);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(BridgeFade, bridge_fade_free)

#endif
