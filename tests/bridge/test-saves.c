/*
 * The daemon's whole saves in slices (core/bridge.c): who waits for
 * which save, and what reaches the file. The slices themselves are
 * tested in test-store's /store/save-slices.
 */
#include "core/bridge.h"

#include <string.h>

typedef struct {
	BridgeConfig *config;
	BridgeStore *store;
	Bridge bridge;
	BridgeFeed *feed;
	char *path;
} World;

static void
world_init(World *w)
{
	g_autofree char *none =
	        g_build_filename(g_get_user_config_dir(), "none", NULL);
	g_autoptr(GError) error = NULL;

	w->path = g_build_filename(g_get_user_data_dir(), "state", NULL);
	w->config = bridge_config_load(none, &error);
	g_assert_no_error(error);
	w->store = bridge_store_open(w->path, &error);
	g_assert_no_error(error);
	w->feed = bridge_store_add_feed(w->store, "http://example.com/feed");
	/*
	 * Enough groups for a save of several slices: episodes begun, which
	 * the key file holds.
	 */
	for (guint i = 0; i < 20000; i++) {
		g_autofree char *guid = g_strdup_printf("g%u", i);

		bridge_store_get_episode(w->store, w->feed, guid, NULL)
		        ->position = 1;
	}
	g_assert_true(bridge_store_save(w->store, &error));
	memset(&w->bridge, 0, sizeof(w->bridge));
	w->bridge.config = w->config;
	w->bridge.store = w->store;
	w->bridge.daemon = TRUE;
}

static void
world_clear(World *w)
{
	bridge_save_clear(&w->bridge);
	g_clear_handle_id(&w->bridge.save_timer, g_source_remove);
	g_clear_handle_id(&w->bridge.journal_idle, g_source_remove);
	g_clear_pointer(&w->bridge.to_journal, g_ptr_array_unref);
	bridge_store_free(w->store);
	bridge_config_free(w->config);
	g_free(w->path);
}

typedef struct {
	GString *order;
	const char *name;
	char *title_on_disk; /* what the file said of g0 as it was told */
	const char *path;
	const char *id;
} Told;

static void
on_told(Bridge *bridge, const GError *error, gpointer data)
{
	Told *told = data;
	g_autoptr(GError) read_error = NULL;
	g_autofree char *text = NULL;
	static const char *const titles[] = { "first", "second", "in slices",
		                              "at the stop" };

	g_assert_no_error(error);
	g_string_append(told->order, told->name);
	/* The file as it is now; reading, not parsing, to keep it quick. */
	g_assert_true(
	        g_file_get_contents(told->path, &text, NULL, &read_error));
	g_assert_no_error(read_error);
	for (guint i = 0; i < G_N_ELEMENTS(titles); i++) {
		g_autofree char *line =
		        g_strconcat("\ntitle=", titles[i], "\n", NULL);

		if (strstr(text, line) != NULL)
			told->title_on_disk = g_strdup(titles[i]);
	}
	g_assert_nonnull(told->title_on_disk);
}

static void
set_title(World *w, const char *title)
{
	BridgeEpisode *episode =
	        bridge_store_get_episode(w->store, w->feed, "g0", NULL);

	g_free(episode->title);
	episode->title = g_strdup(title);
	bridge_changed(&w->bridge);
}

static void
test_waiters(void)
{
	World w;
	g_autoptr(GString) order = g_string_new(NULL);
	const char *id;
	Told first = { order, "1", NULL, NULL, NULL };
	Told second = { order, "2", NULL, NULL, NULL };
	Told question = { order, "q", NULL, NULL, NULL };
	gint64 worst = 0;

	g_test_summary("Whoever waits for a save is told once the file holds "
	               "what changed before they asked, in order; a change "
	               "while a save is under way waits for the next, and "
	               "none is told before the loop ran");
	world_init(&w);
	id = bridge_store_get_episode(w.store, w.feed, "g0", NULL)->id;
	first.path = second.path = question.path = w.path;
	first.id = second.id = question.id = id;

	set_title(&w, "first");
	bridge_save_then(&w.bridge, on_told, &first);
	g_assert_cmpstr(order->str, ==, "");
	g_assert_nonnull(w.bridge.saving);
	/* A change while the first save is under way: the next one's. */
	g_main_context_iteration(NULL, FALSE);
	set_title(&w, "second");
	bridge_save_then(&w.bridge, on_told, &second);
	while (second.title_on_disk == NULL) {
		gint64 start = g_get_monotonic_time();

		g_main_context_iteration(NULL, TRUE);
		worst = MAX(worst, g_get_monotonic_time() - start);
	}
	g_assert_cmpstr(order->str, ==, "12");
	g_assert_cmpstr(second.title_on_disk, ==, "second");
	g_assert_nonnull(first.title_on_disk);
	/* How long a slice holds the loop is the benchmark's to say. */
	g_test_message("longest iteration of the loop: %" G_GINT64_FORMAT " µs",
	               worst);
	/* Nothing waits: told at once. */
	bridge_save_then(&w.bridge, on_told, &question);
	g_assert_cmpstr(order->str, ==, "12q");
	g_assert_cmpstr(question.title_on_disk, ==, "second");
	g_free(first.title_on_disk);
	g_free(second.title_on_disk);
	g_free(question.title_on_disk);
	world_clear(&w);
}

static void
test_newer_on_loop(void)
{
	World w;
	g_autoptr(GError) error = NULL;
	g_autoptr(GString) order = g_string_new(NULL);
	const char *id;
	Told waiting = { order, "w", NULL, NULL, NULL };
	BridgeStore *reader;

	g_test_summary("A save on the loop (the daemon's stop) while one in "
	               "slices is under way: it tells who waited, and the "
	               "file keeps the newer state");
	world_init(&w);
	id = bridge_store_get_episode(w.store, w.feed, "g0", NULL)->id;
	waiting.path = w.path;
	waiting.id = id;
	set_title(&w, "in slices");
	bridge_save_then(&w.bridge, on_told, &waiting);
	g_main_context_iteration(NULL, FALSE);
	set_title(&w, "at the stop");
	g_assert_true(bridge_save(&w.bridge, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(order->str, ==, "w");
	g_assert_cmpstr(waiting.title_on_disk, ==, "at the stop");
	/* Whatever the thread still does, the file keeps the newer. */
	for (guint i = 0; i < 50; i++)
		g_main_context_iteration(NULL, FALSE);
	g_usleep(100000);
	for (guint i = 0; i < 50; i++)
		g_main_context_iteration(NULL, FALSE);
	reader = bridge_store_open(w.path, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(bridge_store_find_episode(reader, id)->title, ==,
	                "at the stop");
	bridge_store_free(reader);
	g_free(waiting.title_on_disk);
	world_clear(&w);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

	g_test_add_func("/saves/waiters", test_waiters);
	g_test_add_func("/saves/newer-on-loop", test_newer_on_loop);
	return g_test_run();
}
