/*
 * The feed parser on a whole document in memory, as feedtool and the
 * fetcher's callers use it: whatever the bytes, it returns a channel whose
 * every string is valid UTF-8, or fails with a FeedError.
 */
#include "check-feed.h"

#include <libxml/parser.h>

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init_log();
	xmlInitParser();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = feed_channel_new_from_data(
	        (const char *)data, size, FUZZ_BASE_URL, &error);

	if (channel == NULL) {
		fuzz_check_feed_error(error);
		return 0;
	}
	fuzz_check(error == NULL, "error set on success: %s", error->message);
	fuzz_check_channel(channel);
	for (guint i = 0; i < feed_channel_get_n_episodes(channel); i++)
		fuzz_check_episode(feed_channel_get_episode(channel, i));
	return 0;
}
