#include "episode-private.h"

void
feed_funding_free(FeedFunding *funding)
{
	if (funding == NULL)
		return;
	g_free(funding->url);
	g_free(funding->text);
	g_free(funding);
}

const char *
feed_funding_get_url(const FeedFunding *funding)
{
	g_return_val_if_fail(funding != NULL, NULL);
	return funding->url;
}

const char *
feed_funding_get_text(const FeedFunding *funding)
{
	g_return_val_if_fail(funding != NULL, NULL);
	return funding->text;
}
