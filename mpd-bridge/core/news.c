/*
 * News goes to the one listener that main() set. Synchronous on purpose:
 * a concern's news is heard before it goes on, as a direct call was, so
 * the order of what happens is the same.
 */
#include "core/news.h"

#include "core/bridge.h"

static void
tell(Bridge *bridge, const BridgeNews *news)
{
	if (bridge->news != NULL)
		bridge->news(bridge, news);
}

void
bridge_tell(Bridge *bridge, BridgeNewsKind kind)
{
	tell(bridge, &(BridgeNews){ .kind = kind });
}

void
bridge_tell_feed(Bridge *bridge, BridgeNewsKind kind, BridgeFeed *feed)
{
	tell(bridge, &(BridgeNews){ .kind = kind, .feed = feed });
}

void
bridge_tell_episode(Bridge *bridge, BridgeNewsKind kind, BridgeEpisode *episode)
{
	tell(bridge, &(BridgeNews){ .kind = kind, .episode = episode });
}
