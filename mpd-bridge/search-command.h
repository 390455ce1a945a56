/*
 * `mpd-bridge search TERMS…`, and the last search that `subscribe N`
 * reads: kept as JSON in the cache directory.
 */
#ifndef BRIDGE_SEARCH_COMMAND_H
#define BRIDGE_SEARCH_COMMAND_H

#include "bridge.h"
#include "search.h"

/* The search command, `search [--json] TERMS…`, for the command table. */
gboolean
bridge_search_run(Bridge *bridge, char **args, GString *out, GError **error);

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
