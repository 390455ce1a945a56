/*
 * The user's own lists of episodes: play-later (an ordered queue that
 * outlives MPD's), starred episodes, and named lists; and the marks that
 * move an episode between new, in progress and listened.
 */
#ifndef BRIDGE_LISTS_H
#define BRIDGE_LISTS_H

#include "core/bridge.h"

/*
 * Marks @episode listened now, or not (@listened FALSE keeps its
 * position). A listened episode leaves play-later: it has been played.
 * Does not push playlists; the caller does, once for a batch.
 */
void
bridge_lists_set_listened(Bridge *bridge, BridgeEpisode *episode,
                          gboolean listened);

/*
 * A name a list can have: one line of text, no '/', at most 200 bytes.
 * FALSE with @error saying why.
 */
gboolean
bridge_lists_check_name(const char *name, GError **error);

/* Commands of the shared table (see commands/commands.h). */
gboolean
bridge_lists_run_star(Bridge *bridge, char **args, GString *out,
                      GError **error);

gboolean
bridge_lists_run_unstar(Bridge *bridge, char **args, GString *out,
                        GError **error);

gboolean
bridge_lists_run_later(Bridge *bridge, char **args, GString *out,
                       GError **error);

gboolean
bridge_lists_run_list_add(Bridge *bridge, char **args, GString *out,
                          GError **error);

gboolean
bridge_lists_run_list_remove(Bridge *bridge, char **args, GString *out,
                             GError **error);

gboolean
bridge_lists_run_lists(Bridge *bridge, char **args, GString *out,
                       GError **error);

#endif
