/*
 * The URLs MPD is given for episodes while the relay runs
 * (relay/relay.h): http://127.0.0.1:PORT/episode/ID.EXT. Known here, below
 * the relay, so that an episode is found by such a URL whatever port a
 * run of the daemon had.
 */
#ifndef BRIDGE_RELAY_URL_H
#define BRIDGE_RELAY_URL_H

#include <glib.h>

/*
 * The relay URL of episode @id on @port; @type (nullable) and @url, the
 * host's, give the extension, so that MPD also knows the format by name.
 */
char *
bridge_relay_url_make(guint port, const char *id, const char *type,
                      const char *url);

/*
 * The episode id in @uri when it is a relay URL (of any port), else
 * NULL. @path_only: @uri is the path alone ("/episode/ID.EXT").
 */
char *
bridge_relay_url_episode(const char *uri, gboolean path_only);

#endif
