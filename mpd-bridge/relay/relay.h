/*
 * The relay: a small HTTP server on 127.0.0.1 inside the daemon that MPD
 * streams episodes from, while the daemon fetches them from their hosts.
 * When a host cuts the connection, stalls or refuses, the relay goes on
 * from the byte it had, with back-off, and MPD never sees a cut. What it
 * fetched it keeps in a cache file of the episode, so seeks and resumes
 * into those bytes are answered from the disk; a whole file becomes the
 * episode's download when its podcast keeps downloads.
 *
 * It runs in the daemon when MPD is on this machine ([bridge] relay =
 * auto), or whenever [bridge] relay = yes; it serves only episodes the
 * store knows, to loopback peers only. A host gone for good (404 or 410
 * mid-way, or failing past [bridge] relay_give_up) ends what MPD streams
 * cleanly at the last byte fetched, and the episode stays in progress.
 */
#ifndef BRIDGE_RELAY_H
#define BRIDGE_RELAY_H

#include "core/bridge.h"

/*
 * Starts the relay in the daemon when the settings and MPD's address
 * allow it; says why not in the log when they do not. Before MPD is
 * connected, so that the first push already names the relay.
 */
void
bridge_relay_start(Bridge *bridge);

/*
 * The daemon stops: the hosts' URLs go back to MPD (news), and what MPD
 * streams from the relay now is either sent to its end from the cache
 * or moved to the host's URL where it was; then the server closes.
 */
void
bridge_relay_stop(Bridge *bridge);

void
bridge_relay_clear(Bridge *bridge);

/*
 * Whether the relay stops while MPD streams from it what its cache
 * cannot finish: then what plays must move to the host's URL.
 */
gboolean
bridge_relay_must_move(const Bridge *bridge);

/* Whether MPD is given relay URLs now. */
gboolean
bridge_relay_is_on(const Bridge *bridge);

/*
 * The URL MPD streams @episode from: the relay's while it runs, else
 * the host's.
 */
char *
bridge_relay_uri(const Bridge *bridge, const BridgeEpisode *episode);

/*
 * The part of @episode's file (0 to 1) that what MPD streams had when
 * the relay gave its host up mid-way: MPD gets zeros past it, so it can
 * be no further in the episode. 0 while the host is not given up.
 */
double
bridge_relay_gone_share(const Bridge *bridge, const BridgeEpisode *episode);

/*
 * For `status`, "; " and where the relay listens, or why it is off; and
 * the last host it gave up, when one was.
 */
void
bridge_relay_describe(const Bridge *bridge, GString *out);

/*
 * Whether @episode's cache file is whole; then @path_out (nullable) gets
 * it. The downloads take such a file instead of fetching it again.
 */
gboolean
bridge_relay_whole_file(const Bridge *bridge, const BridgeEpisode *episode,
                        char **path_out);

/*
 * The downloads took @episode's whole cache file (renamed it away): the
 * relay forgets its record. What MPD streams goes on from the open file.
 */
void
bridge_relay_file_taken(Bridge *bridge, const BridgeEpisode *episode);

#endif
