/*
 * `mpd-bridge search TERMS…`, and the last search that `subscribe N`
 * reads: kept as JSON in the cache directory.
 */
#ifndef BRIDGE_SEARCH_COMMAND_H
#define BRIDGE_SEARCH_COMMAND_H

#include "core/bridge.h"
#include "core/call.h"
#include "feeds/search.h"

/*
 * The search command, `search [--json] TERMS…`, for the command table:
 * the directory is asked in a worker thread, and the call ends from the
 * main loop.
 */
void
bridge_search_start(Bridge *bridge, char **args, BridgeCall *call);

/*
 * Keeps @results of a search for @terms in @directory as the last search,
 * in @cache_directory (made if missing), replacing the one before at once
 * (a temporary file renamed over it). Touches no shared state.
 */
gboolean
bridge_search_save(const char *cache_directory, BridgeSearchDirectory directory,
                   const char *const *terms, const GPtrArray *results,
                   GError **error);

/* Whether @text is a bare number: what `subscribe N` takes. */
gboolean
bridge_search_is_number(const char *text);

/*
 * The feed URL of result @number (from 1) of the last search kept in
 * @config's cache directory: a new string, or NULL with @error saying that
 * there was no search yet, or how many podcasts it found.
 */
char *
bridge_search_resolve(const BridgeConfig *config, const char *number,
                      GError **error);

#endif
