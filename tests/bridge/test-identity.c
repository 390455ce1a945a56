/*
 * Episode identity: which episode a stream URL that MPD reports belongs
 * to. The duplicate guesser is tested end to end in test-daemon.
 */
#include "core/identity.h"

#include <string.h>

typedef struct {
	BridgeConfig *config;
	BridgeStore *store;
	Bridge bridge;
} World;

static void
world_init(World *w)
{
	g_autofree char *none =
	        g_build_filename(g_get_user_config_dir(), "none", NULL);
	g_autofree char *path =
	        g_build_filename(g_get_user_data_dir(), "state", NULL);
	g_autoptr(GError) error = NULL;
	BridgeFeed *feed;
	BridgeEpisode *episode;

	w->config = bridge_config_load(none, &error);
	g_assert_no_error(error);
	w->store = bridge_store_open(path, &error);
	g_assert_no_error(error);
	feed = bridge_store_add_feed(w->store, "http://example.com/feed");
	episode = bridge_store_get_episode(w->store, feed, "one", NULL);
	g_free(episode->url);
	episode->url = g_strdup("http://example.com/one.mp3");
	memset(&w->bridge, 0, sizeof(w->bridge));
	w->bridge.config = w->config;
	w->bridge.store = w->store;
}

static void
world_clear(World *w)
{
	g_clear_pointer(&w->bridge.url_prefixes, g_regex_unref);
	bridge_store_free(w->store);
	bridge_config_free(w->config);
}

static void
test_no_url(void)
{
	World w;

	g_test_summary("MPD can say it plays and name no song (as it drops "
	               "one): that is no episode, and no critical warning");
	world_init(&w);
	g_assert_null(bridge_identity_find_by_url(&w.bridge, NULL));
	world_clear(&w);
}

static void
test_same_url(void)
{
	World w;
	BridgeEpisode *episode;

	g_test_summary("A stream URL finds the episode it came from");
	world_init(&w);
	episode = bridge_identity_find_by_url(&w.bridge,
	                                      "http://example.com/one.mp3");
	g_assert_nonnull(episode);
	g_assert_cmpstr(episode->guid, ==, "one");
	world_clear(&w);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add_func("/identity/no-url", test_no_url);
	g_test_add_func("/identity/same-url", test_same_url);
	return g_test_run();
}
