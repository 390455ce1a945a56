/*
 * `show [EPISODE] [--json]`: an episode's page, as a podcast app shows
 * it. Show notes come from the feed's cached body (notes-cache.h).
 */
#ifndef BRIDGE_SHOW_H
#define BRIDGE_SHOW_H

#include "core/bridge.h"

/*
 * The command: EPISODE as `episodes` numbers them, a guid, an id, a stream
 * URL or "latest FEED"; with none, the episode MPD is on. On a terminal the
 * notes wrap to its width (COLUMNS overrides it; 80 when not a terminal);
 * in the daemon, whose answer becomes one line, nothing wraps.
 */
gboolean
bridge_show_run(Bridge *bridge, char **args, GString *out, GError **error);

#endif
