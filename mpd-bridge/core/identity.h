/*
 * Which stored episode is this? Feeds change an episode's guid, put
 * tracking prefixes before its URL or take them away, and publish it
 * again; MPD's clients queue it by any of its URLs. The episode keeps its
 * state through all of it.
 */
#ifndef BRIDGE_IDENTITY_H
#define BRIDGE_IDENTITY_H

#include "core/bridge.h"

/*
 * A stream URL reduced to what names the file: no scheme, no tracking
 * prefixes (podtrac, chartable, podsights, op3, …), the host lower-cased.
 */
char *
bridge_identity_url_key(Bridge *bridge, const char *url);

/*
 * The episode a stream URL belongs to: the same URL, or one with the
 * same key. NULL when it is no known episode.
 */
BridgeEpisode *
bridge_identity_find_by_url(Bridge *bridge, const char *url);

/*
 * Every stored episode by the key of its URL, for looking up many URLs at
 * once: a new table (key -> borrowed BridgeEpisode *).
 */
GHashTable *
bridge_identity_url_index(Bridge *bridge);

/*
 * The episode of @url: the same URL in the store, or one with the same
 * key in *@index, which is made on the first look that needs it and
 * freed by the caller. NULL when it is no known episode.
 */
BridgeEpisode *
bridge_identity_find_indexed(Bridge *bridge, GHashTable **index,
                             const char *url);

/*
 * Which of @candidates (BridgeEpisode *) is, as far as one can tell, the
 * episode that a feed now lists as @entry under a guid it never used
 * before: the same URL key, or the same title with a date within a day
 * and a duration within five minutes (each when known), as AntennaPod
 * guesses. NULL when none is.
 */
BridgeEpisode *
bridge_identity_guess(Bridge *bridge, GPtrArray *candidates,
                      const FeedPlaylistEntry *entry);

/*
 * The subscription that FEED names: its URL, its name or its id. NULL,
 * with a BRIDGE_COMMAND_ERROR naming it, when none does.
 */
BridgeFeed *
bridge_identity_find_feed(Bridge *bridge, const char *key, GError **error);

/*
 * The episode that an EPISODE argument names: a number from `episodes`,
 * an id, a guid or a stream URL. NULL, with a BRIDGE_COMMAND_ERROR naming
 * it, when none does.
 */
BridgeEpisode *
bridge_identity_find_episode(Bridge *bridge, const char *key, GError **error);

/*
 * The episodes that EPISODE arguments name, as
 * bridge_identity_find_episode() finds them, or "latest FEED". A new
 * array of borrowed pointers, or NULL with @error naming the one not
 * found.
 */
GPtrArray *
bridge_identity_find_episodes(Bridge *bridge, char **args, GError **error);

#endif
