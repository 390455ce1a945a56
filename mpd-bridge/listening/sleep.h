/*
 * The sleep timer, `mpd-bridge sleep`: pauses MPD after a while, fading
 * its volume over the last seconds ([bridge] sleep_fade), or has MPD stop
 * after the episode it plays (single oneshot). It lives in the daemon's
 * memory: a restart of the daemon drops it.
 */
#ifndef BRIDGE_SLEEP_H
#define BRIDGE_SLEEP_H

#include "core/bridge.h"

/*
 * The command, `sleep [DURATION|end|off]`, for the command table: sets
 * the timer, ends it, or says what is set and how long is left.
 */
gboolean
bridge_sleep_run(Bridge *bridge, char **args, GString *out, GError **error);

/*
 * Checks the arguments of `sleep` before they go to the daemon: a bad
 * DURATION is a BRIDGE_COMMAND_ERROR_USAGE error.
 */
gboolean
bridge_sleep_check(char **args, GError **error);

/*
 * Reads a DURATION into *@ms: minutes ("20", "0.5") or a number with a
 * unit ("90s", "20m", "1h"), from 1 s to 24 h. Anything else is a
 * BRIDGE_COMMAND_ERROR_USAGE error that says what is taken.
 */
gboolean
bridge_sleep_parse_duration(const char *text, gint64 *ms, GError **error);

/*
 * MPD reported @events (enum mpd_idle): a timer that waits for the end
 * of an episode is done when MPD leaves it, and off when a client turns
 * single mode off.
 */
void
bridge_sleep_on_idle(Bridge *bridge, unsigned events);

/*
 * The daemon stops: the timer is dropped, a volume it was fading is
 * restored and a single oneshot it set is undone.
 */
void
bridge_sleep_stop(Bridge *bridge);

/* Frees what the timer holds; NULL bridge->sleep does nothing. */
void
bridge_sleep_clear(Bridge *bridge);

#endif
