/* placeholder until autodiscovery lands */
#include "discover-private.h"

struct FeedDiscover {
	int unused;
};

FeedDiscover *
feed_discover_new(const char *page_url)
{
	return g_new0(FeedDiscover, 1);
}

void
feed_discover_push(FeedDiscover *discover, const char *data, gsize length)
{
}

char **
feed_discover_finish(FeedDiscover *discover)
{
	return g_new0(char *, 1);
}

void
feed_discover_free(FeedDiscover *discover)
{
	g_free(discover);
}
