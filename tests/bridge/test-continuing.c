/*
 * The episodes in progress, as the Continue playlist holds them: kept
 * between checkpoints and moved as an episode plays, worked out again
 * after any other change. Its push to MPD is tested in test-listen.
 */
#include "playlists/push.h"

#include <string.h>

typedef struct {
	BridgeConfig *config;
	BridgeStore *store;
	Bridge bridge;
	BridgeEpisode *episodes[3];
} World;

static void
world_init(World *w)
{
	g_autofree char *none =
	        g_build_filename(g_get_user_config_dir(), "none", NULL);
	g_autofree char *path =
	        g_build_filename(g_get_user_data_dir(), "state", NULL);
	g_autoptr(GError) error = NULL;
	static const char *const guids[] = { "a", "b", "c" };
	static const gint64 played[] = { 100, 300, 200 };
	BridgeFeed *feed;

	w->config = bridge_config_load(none, &error);
	g_assert_no_error(error);
	w->store = bridge_store_open(path, &error);
	g_assert_no_error(error);
	feed = bridge_store_add_feed(w->store, "http://example.com/feed");
	for (guint i = 0; i < G_N_ELEMENTS(guids); i++) {
		BridgeEpisode *episode = bridge_store_get_episode(
		        w->store, feed, guids[i], NULL);

		episode->position = 60;
		episode->last_played = played[i];
		w->episodes[i] = episode;
	}
	/* One never started: not in progress. */
	bridge_store_get_episode(w->store, feed, "d", NULL);
	memset(&w->bridge, 0, sizeof(w->bridge));
	w->bridge.config = w->config;
	w->bridge.store = w->store;
}

static void
world_clear(World *w)
{
	g_clear_pointer(&w->bridge.continuing, g_ptr_array_unref);
	bridge_store_free(w->store);
	bridge_config_free(w->config);
}

/* The guids of what bridge_push_continuing() gives, joined. */
static char *
continuing(World *w)
{
	g_autoptr(GPtrArray) going = bridge_push_continuing(&w->bridge);
	GString *guids = g_string_new(NULL);

	for (guint i = 0; i < going->len; i++)
		g_string_append(guids,
		                ((BridgeEpisode *)going->pdata[i])->guid);
	return g_string_free(guids, FALSE);
}

static void
assert_continuing(World *w, const char *expected)
{
	g_autofree char *got = continuing(w);

	g_assert_cmpstr(got, ==, expected);
}

static void
test_order(void)
{
	World w;

	g_test_summary("The episodes in progress, most recently played "
	               "first, as many as continue_limit says");
	world_init(&w);
	assert_continuing(&w, "bca");
	w.config->continue_limit = 2;
	assert_continuing(&w, "bc");
	world_clear(&w);
}

static void
test_playing(void)
{
	World w;
	BridgeEpisode *a, *b;

	g_test_summary("An episode that plays moves first without a look at "
	               "every episode; one listened to leaves after the "
	               "change is noted");
	world_init(&w);
	a = w.episodes[0];
	b = w.episodes[1];
	assert_continuing(&w, "bca");
	a->position = 90;
	a->last_played = 400;
	bridge_push_continue_soon(&w.bridge, a);
	assert_continuing(&w, "abc");
	/* Played again where it is: nothing moves. */
	a->last_played = 401;
	bridge_push_continue_soon(&w.bridge, a);
	assert_continuing(&w, "abc");
	b->listened = TRUE;
	bridge_changed(&w.bridge);
	g_assert_null(w.bridge.continuing);
	assert_continuing(&w, "ac");
	/* Back to the top of an episode: out, as it plays on. */
	a->position = 0;
	bridge_push_continue_soon(&w.bridge, a);
	assert_continuing(&w, "c");
	world_clear(&w);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add_func("/continuing/order", test_order);
	g_test_add_func("/continuing/playing", test_playing);
	return g_test_run();
}
