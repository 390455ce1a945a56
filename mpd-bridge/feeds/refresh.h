/* Keeping subscriptions fresh: fetching feeds when they are due. */
#ifndef BRIDGE_REFRESH_H
#define BRIDGE_REFRESH_H

#include "core/bridge.h"

/*
 * Called when a refresh ends: @error is NULL on success, and then
 * @result is the fetch's (else NULL); @feed is NULL when it was
 * unsubscribed from meanwhile.
 */
typedef void (*BridgeRefreshDone)(Bridge *bridge, BridgeFeed *feed,
                                  const FeedFetchResult *result,
                                  const GError *error, gpointer user_data);

/*
 * Fetches @feed now, stores what changed, and schedules its next refresh:
 * hourly by default with jitter, longer when the feed asks (ttl,
 * podcast:updateFrequency) or is complete, backing off exponentially on
 * failure up to a day. A permanent redirect or itunes:new-feed-url moves
 * the subscription; 410 marks it gone. @done may be NULL; it is called
 * last, so it may remove @feed from the store.
 */
void
bridge_refresh_feed(Bridge *bridge, BridgeFeed *feed, BridgeRefreshDone done,
                    gpointer user_data);

/* Arms one timer for the subscription due first; none when none is due. */
void
bridge_refresh_schedule(Bridge *bridge);

#endif
