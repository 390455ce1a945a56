/*
 * Subscribing, checked: a feed is fetched before the answer, and kept
 * only when it could be read, or when the user says to keep it anyway.
 */
#ifndef BRIDGE_SUBSCRIBE_H
#define BRIDGE_SUBSCRIBE_H

#include "core/bridge.h"
#include "core/call.h"

/*
 * How long a command line waits for a daemon's answer to a subscribe:
 * past the fetch's own time limit, so the fetch's answer, even a
 * timeout, is the one the user sees.
 */
guint
bridge_subscribe_wait_ms(const BridgeConfig *config);

/*
 * Called when a subscription is settled: @feed is the new subscription,
 * or NULL when there is none, and then @error says why (G_IO_ERROR_EXISTS
 * for a feed already subscribed to). With @force, @feed may come with an
 * @error: why it cannot be read now.
 */
typedef void (*BridgeSubscribed)(Bridge *bridge, BridgeFeed *feed,
                                 const GError *error, gpointer user_data);

/* Whether @url can be subscribed to: http or https, with a host. */
gboolean
bridge_subscribe_check_url(const char *url, GError **error);

/*
 * Subscribes to @url (a feed, or a web page that links to one) and
 * fetches it at once; @name, when not NULL, names it. Unless @force, a
 * feed that cannot be read is dropped again. @done may run before this
 * returns.
 */
void
bridge_subscribe(Bridge *bridge, const char *url, const char *name,
                 gboolean force, BridgeSubscribed done, gpointer user_data);

/*
 * Drops @feed: its playlist and M3U file, its cached body, its episodes;
 * a sync server is told (unless @feed's synced_url was cleared first).
 */
void
bridge_unsubscribe(Bridge *bridge, BridgeFeed *feed);

/* The `subscribe [--force] URL [NAME]` command. */
void
bridge_subscribe_start(Bridge *bridge, char **args, BridgeCall *call);

#endif
