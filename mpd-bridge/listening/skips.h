/*
 * Skip rules per podcast, as `set FEED KEY VALUE` sets them:
 * skip-intro SECONDS (only when an episode starts from its beginning, not
 * on a resume), skip-outro SECONDS (the episode counts as listened and
 * MPD moves on that long before its end), skip-chapters REGEX (chapters
 * whose titles match are jumped over as playback reaches them). A skip
 * happens only as playback crosses into what is skipped: a listener who
 * seeks into it stays there. Each skip is logged once.
 */
#ifndef BRIDGE_SKIPS_H
#define BRIDGE_SKIPS_H

#include "core/bridge.h"

/* MPD's player changed, or the chapters of what plays arrived. */
void
bridge_skips_on_player(Bridge *bridge);

/* A command moved the player (chapter jumps): not a skip to undo. */
void
bridge_skips_listener_jumped(Bridge *bridge);

void
bridge_skips_clear(Bridge *bridge);

/*
 * set FEED skip-intro|skip-outro|skip-chapters VALUE; FALSE with *@known
 * FALSE when @key is none of these.
 */
gboolean
bridge_skips_set_feed(BridgeFeed *feed, const char *key, const char *value,
                      gboolean *known, GError **error);

#endif
