/*
 * The state store: the file round-trips every field, refuses what it
 * cannot read without touching it, keeps what it does not know, saves
 * atomically and locks against a second writer.
 */
#include "state/store.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

/*
 * 50,000 episodes, as the benchmark has. Under AddressSanitizer, which CI
 * runs with slow unwinding on every malloc, that takes a minute: a tenth.
 * Under valgrind (FEED_TEST_VALGRIND set, as ./build.sh test does) it
 * takes half a minute: a tenth too, see many_feeds().
 */
#if defined(__SANITIZE_ADDRESS__)
#define MANY_FEEDS 50
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MANY_FEEDS 50
#endif
#endif
#ifndef MANY_FEEDS
#define MANY_FEEDS 500
#endif

static guint
many_feeds(void)
{
	return g_getenv("FEED_TEST_VALGRIND") != NULL ? MANY_FEEDS / 10
	                                              : MANY_FEEDS;
}

/* Values a key file must escape, or that look like its syntax. */
static const char *const awkward[] = {
	"Line one\nLine two\n",
	"  leading and trailing blanks  ",
	"\ttab first, tab\tinside",
	"back\\slash \\n not a newline, \\s not a space",
	"key=value [group] # not a comment ; list;separators,",
	"Ünïcödé — 日本語 🎧",
	"carriage\r\nreturn",
	"",
};

static char *
state_path(void)
{
	return g_build_filename(g_get_user_data_dir(), "mpd-bridge", "state",
	                        NULL);
}

static char *
short_hash(const char *text)
{
	char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1);

	sum[16] = '\0';
	return sum;
}

static BridgeStore *
open_ok(const char *path)
{
	g_autoptr(GError) error = NULL;
	BridgeStore *store = bridge_store_open(path, &error);

	g_assert_no_error(error);
	g_assert_nonnull(store);
	return store;
}

static void
save_ok(BridgeStore *store)
{
	g_autoptr(GError) error = NULL;

	g_assert_true(bridge_store_save(store, &error));
	g_assert_no_error(error);
}

static char *
read_file(const char *path, gsize *length)
{
	g_autoptr(GError) error = NULL;
	char *text = NULL;

	g_assert_true(g_file_get_contents(path, &text, length, &error));
	g_assert_no_error(error);
	return text;
}

static void
write_file(const char *path, const char *text)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *dir = g_path_get_dirname(path);

	g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
	g_assert_true(g_file_set_contents(path, text, -1, &error));
	g_assert_no_error(error);
}

/* Sets every field of @feed, strings from awkward[] starting at @k. */
static void
fill_feed(BridgeFeed *feed, guint k)
{
	char **strings[] = { &feed->title,        &feed->name,
		             &feed->match,        &feed->exclude,
		             &feed->etag,         &feed->last_modified,
		             &feed->content_hash, &feed->last_error,
		             &feed->pushed };

	for (guint i = 0; i < G_N_ELEMENTS(strings); i++) {
		g_free(*strings[i]);
		*strings[i] =
		        g_strdup(awkward[(k + i) % G_N_ELEMENTS(awkward)]);
	}
	feed->auto_queue = TRUE;
	feed->keep = 7 + k;
	feed->min_duration = 300;
	feed->serial = TRUE;
	feed->complete = (k % 2) == 0;
	feed->ttl = 60;
	feed->last_refresh = 1700000000;
	feed->next_refresh = 1700003600;
	feed->failures = G_MAXUINT;
	feed->gone = TRUE;
	feed->added = -5;
}

static void
fill_episode(BridgeEpisode *episode, guint k)
{
	g_free(episode->url);
	episode->url =
	        g_strdup_printf("https://cdn.example/%u.mp3?a=1&b=[2]", k);
	g_free(episode->title);
	episode->title = g_strdup(awkward[k % G_N_ELEMENTS(awkward)]);
	g_free(episode->author);
	episode->author = g_strdup(awkward[(k + 1) % G_N_ELEMENTS(awkward)]);
	episode->published = 1600000000 + k;
	episode->duration = 3600;
	episode->number = G_MAXINT64;
	episode->first_seen = G_MININT64;
	episode->listened = TRUE;
	episode->position = 42;
	episode->last_played = 1700000001;
}

static void
assert_feeds_equal(const BridgeFeed *a, const BridgeFeed *b)
{
	g_assert_cmpstr(a->id, ==, b->id);
	g_assert_cmpstr(a->url, ==, b->url);
	g_assert_cmpstr(a->title, ==, b->title);
	g_assert_cmpstr(a->name, ==, b->name);
	g_assert_cmpint(a->auto_queue, ==, b->auto_queue);
	g_assert_cmpuint(a->keep, ==, b->keep);
	g_assert_cmpstr(a->match, ==, b->match);
	g_assert_cmpstr(a->exclude, ==, b->exclude);
	g_assert_cmpint(a->min_duration, ==, b->min_duration);
	g_assert_cmpint(a->serial, ==, b->serial);
	g_assert_cmpint(a->complete, ==, b->complete);
	g_assert_cmpint(a->ttl, ==, b->ttl);
	g_assert_cmpstr(a->etag, ==, b->etag);
	g_assert_cmpstr(a->last_modified, ==, b->last_modified);
	g_assert_cmpstr(a->content_hash, ==, b->content_hash);
	g_assert_cmpint(a->last_refresh, ==, b->last_refresh);
	g_assert_cmpint(a->next_refresh, ==, b->next_refresh);
	g_assert_cmpstr(a->last_error, ==, b->last_error);
	g_assert_cmpuint(a->failures, ==, b->failures);
	g_assert_cmpint(a->gone, ==, b->gone);
	g_assert_cmpstr(a->pushed, ==, b->pushed);
	g_assert_cmpint(a->added, ==, b->added);
}

static void
assert_episodes_equal(const BridgeEpisode *a, const BridgeEpisode *b)
{
	g_assert_cmpstr(a->id, ==, b->id);
	g_assert_cmpstr(a->feed_id, ==, b->feed_id);
	g_assert_cmpstr(a->guid, ==, b->guid);
	g_assert_cmpstr(a->url, ==, b->url);
	g_assert_cmpstr(a->title, ==, b->title);
	g_assert_cmpstr(a->author, ==, b->author);
	g_assert_cmpint(a->published, ==, b->published);
	g_assert_cmpint(a->duration, ==, b->duration);
	g_assert_cmpint(a->number, ==, b->number);
	g_assert_cmpint(a->first_seen, ==, b->first_seen);
	g_assert_cmpint(a->listened, ==, b->listened);
	g_assert_cmpint(a->position, ==, b->position);
	g_assert_cmpint(a->last_played, ==, b->last_played);
}

/* Every feed and episode of @a is in @b, equal, in the same order. */
static void
assert_stores_equal(const BridgeStore *a, const BridgeStore *b)
{
	GPtrArray *feeds_a = bridge_store_get_feeds(a);
	GPtrArray *feeds_b = bridge_store_get_feeds(b);
	g_autoptr(GPtrArray) all_a = bridge_store_list_episodes(a, NULL);
	g_autoptr(GPtrArray) all_b = bridge_store_list_episodes(b, NULL);

	g_assert_cmpuint(feeds_a->len, ==, feeds_b->len);
	for (guint i = 0; i < feeds_a->len; i++) {
		const BridgeFeed *feed_a = g_ptr_array_index(feeds_a, i);
		const BridgeFeed *feed_b = g_ptr_array_index(feeds_b, i);
		g_autoptr(GPtrArray) list_a =
		        bridge_store_list_episodes(a, feed_a);
		g_autoptr(GPtrArray) list_b =
		        bridge_store_list_episodes(b, feed_b);

		assert_feeds_equal(feed_a, feed_b);
		g_assert_cmpuint(list_a->len, ==, list_b->len);
		for (guint j = 0; j < list_a->len; j++)
			assert_episodes_equal(g_ptr_array_index(list_a, j),
			                      g_ptr_array_index(list_b, j));
	}
	g_assert_cmpuint(all_a->len, ==, all_b->len);
	for (guint i = 0; i < all_a->len; i++)
		assert_episodes_equal(g_ptr_array_index(all_a, i),
		                      g_ptr_array_index(all_b, i));
}

static void
test_empty(void)
{
	g_autofree char *path = state_path();
	g_autofree char *dir = g_path_get_dirname(path);
	BridgeStore *store = NULL;
	g_autoptr(GPtrArray) episodes = NULL;
	struct stat st;

	g_test_summary("A missing file, in a missing directory, is an empty "
	               "state; saving creates both, 0700 and 0600");
	g_assert_false(g_file_test(dir, G_FILE_TEST_EXISTS));
	store = open_ok(path);
	g_assert_cmpstr(bridge_store_get_path(store), ==, path);
	g_assert_cmpuint(bridge_store_get_feeds(store)->len, ==, 0);
	episodes = bridge_store_list_episodes(store, NULL);
	g_assert_cmpuint(episodes->len, ==, 0);
	g_assert_null(bridge_store_find_feed(store, "anything"));
	g_assert_null(bridge_store_find_episode(store, "anything"));
	g_assert_false(g_file_test(dir, G_FILE_TEST_EXISTS));

	save_ok(store);
	g_assert_cmpint(g_stat(dir, &st), ==, 0);
	g_assert_cmpint(st.st_mode & 0777, ==, 0700);
	g_assert_cmpint(g_stat(path, &st), ==, 0);
	g_assert_cmpint(st.st_mode & 0777, ==, 0600);
	bridge_store_free(store);

	store = open_ok(path);
	g_assert_cmpuint(bridge_store_get_feeds(store)->len, ==, 0);
	bridge_store_free(store);
}

static void
test_mode(void)
{
	g_autofree char *path = state_path();
	BridgeStore *store = NULL;
	struct stat st;

	g_test_summary("The file is 0600 even when an older one was not");
	write_file(path, "[bridge]\nversion=1\n");
	g_assert_cmpint(g_chmod(path, 0644), ==, 0);
	store = open_ok(path);
	bridge_store_add_feed(store, "https://example.com/feed");
	save_ok(store);
	g_assert_cmpint(g_stat(path, &st), ==, 0);
	g_assert_cmpint(st.st_mode & 0777, ==, 0600);
	bridge_store_free(store);
}

static void
test_round_trip(void)
{
	g_autofree char *path = state_path();
	BridgeStore *store = open_ok(path);
	BridgeStore *again = NULL;
	BridgeFeed *bare = NULL;

	g_test_summary("Every field of every feed and episode survives a "
	               "save and an open, awkward strings included");
	for (guint k = 0; k < G_N_ELEMENTS(awkward); k++) {
		g_autofree char *url = g_strdup_printf(
		        "https://example.com/feed?id=%u&x=[y]#z", k);
		BridgeFeed *feed = bridge_store_add_feed(store, url);

		g_assert_nonnull(feed);
		fill_feed(feed, k);
		for (guint e = 0; e < G_N_ELEMENTS(awkward); e++) {
			gboolean created = FALSE;
			BridgeEpisode *episode = bridge_store_get_episode(
			        store, feed, awkward[e], &created);

			g_assert_true(created);
			g_assert_cmpstr(episode->feed_id, ==, feed->id);
			g_assert_cmpstr(episode->guid, ==, awkward[e]);
			g_assert_cmpstr(episode->url, ==, "");
			g_assert_cmpstr(episode->title, ==, "");
			fill_episode(episode, k + e);
		}
	}
	/* A feed as it is just after subscribing: NULL stays NULL. */
	bare = bridge_store_add_feed(store, "http://bare.example/rss");
	g_assert_null(bare->title);
	g_assert_cmpint(bare->added, >, 0);
	bridge_store_get_episode(store, bare, "no author", NULL);

	save_ok(store);
	again = open_ok(path);
	assert_stores_equal(store, again);
	bare = bridge_store_find_feed(again, "http://bare.example/rss");
	g_assert_nonnull(bare);
	g_assert_null(bare->title);
	g_assert_null(bare->name);
	g_assert_null(bare->etag);
	g_assert_null(bridge_store_find_episode(again, "no author")->author);

	/* Saving what was loaded changes nothing but the time. */
	save_ok(again);
	bridge_store_free(again);
	again = open_ok(path);
	assert_stores_equal(store, again);
	bridge_store_free(again);
	bridge_store_free(store);
}

static void
test_readable(void)
{
	g_autofree char *path = state_path();
	BridgeStore *store = open_ok(path);
	BridgeFeed *feed =
	        bridge_store_add_feed(store, "https://example.com/a=b[c]");
	BridgeEpisode *episode =
	        bridge_store_get_episode(store, feed, "guid=1 [x]", NULL);
	BridgeEpisode *untouched =
	        bridge_store_get_episode(store, feed, "guid=2", NULL);
	g_autofree char *text = NULL;
	g_autofree char *feed_group = NULL;
	g_autofree char *episode_group = NULL;
	g_autofree char *untouched_group = NULL;
	g_autofree char *cache = NULL;
	g_autoptr(GKeyFile) key_file = g_key_file_new();
	g_autoptr(GError) error = NULL;
	BridgeStore *again = NULL;

	g_test_summary("The file is a key file a person can read: hashed "
	               "ids for names, raw URLs, GUIDs and titles as values; "
	               "an episode nobody touched is only in its feed's "
	               "cache");
	feed->title = g_strdup("A Show");
	g_free(episode->title);
	episode->title = g_strdup("First = best");
	episode->position = 5;
	g_free(untouched->title);
	untouched->title = g_strdup("Second");
	save_ok(store);

	text = read_file(path, NULL);
	g_assert_true(g_str_has_prefix(text, "#"));
	g_assert_nonnull(strstr(text, "\n[bridge]\nversion=2\nsaved="));
	feed_group = g_strdup_printf("\n[feed %s]\n", feed->id);
	episode_group = g_strdup_printf("\n[episode %s]\n", episode->id);
	untouched_group = g_strdup_printf("\n[episode %s]\n", untouched->id);
	g_assert_nonnull(strstr(text, feed_group));
	g_assert_nonnull(strstr(text, episode_group));
	g_assert_null(strstr(text, untouched_group));
	g_assert_null(strstr(text, "Second"));
	cache = g_strdup_printf("%s.cache/%s", path, feed->id);
	g_assert_true(g_file_test(cache, G_FILE_TEST_IS_REGULAR));
	again = open_ok(path);
	g_assert_cmpstr(bridge_store_find_episode(again, untouched->id)->title,
	                ==, "Second");
	g_assert_cmpint(bridge_store_find_episode(again, episode->id)->position,
	                ==, 5);
	bridge_store_free(again);
	g_assert_nonnull(strstr(text, "\nurl=https://example.com/a=b[c]\n"));
	g_assert_nonnull(strstr(text, "\nguid=guid=1 [x]\n"));
	g_assert_nonnull(strstr(text, "\ntitle=A Show\n"));
	g_assert_nonnull(strstr(text, "\nauto_queue=false\n"));
	g_assert_nonnull(strstr(text, "\nfeed_id="));

	g_assert_true(g_key_file_load_from_data(
	        key_file, text, -1, G_KEY_FILE_KEEP_TRANSLATIONS, &error));
	g_assert_no_error(error);
	g_assert_cmpint(
	        g_key_file_get_integer(key_file, "bridge", "version", NULL), ==,
	        BRIDGE_STORE_VERSION);
	g_assert_cmpint(g_key_file_get_int64(key_file, "bridge", "saved", NULL),
	                >, 1600000000);
	bridge_store_free(store);
}

static void
test_ids(void)
{
	g_autofree char *path = state_path();
	BridgeStore *store = open_ok(path);
	const char *url = "https://example.com/feed.xml";
	BridgeFeed *feed = bridge_store_add_feed(store, url);
	BridgeFeed *second = NULL;
	BridgeEpisode *episode = NULL;
	g_autofree char *feed_id = short_hash(url);
	g_autofree char *seed = NULL;
	g_autofree char *episode_id = NULL;
	gboolean created = TRUE;

	g_test_summary("Ids are 16 hex digits of SHA-256: of the URL for a "
	               "feed, hashed again when taken; of feed id and guid "
	               "for an episode");
	g_assert_cmpstr(feed->id, ==, feed_id);
	g_assert_null(bridge_store_add_feed(store, url));

	episode = bridge_store_get_episode(store, feed, "tag:1", &created);
	g_assert_true(created);
	seed = g_strconcat(feed_id, "\ntag:1", NULL);
	episode_id = short_hash(seed);
	g_assert_cmpstr(episode->id, ==, episode_id);
	g_assert_true(bridge_store_get_episode(store, feed, "tag:1",
	                                       &created) == episode);
	g_assert_false(created);

	/* The moved feed keeps its id; a new subscription to the old URL
	 * needs another. */
	bridge_store_move_feed(store, feed, "https://example.org/moved.xml");
	second = bridge_store_add_feed(store, url);
	g_assert_nonnull(second);
	g_assert_cmpstr(feed->id, ==, feed_id);
	g_assert_cmpstr(second->id, !=, feed_id);
	g_assert_cmpuint(strlen(second->id), ==, 16);
	g_assert_true(bridge_store_find_feed(store, feed_id) == feed);
	g_assert_true(bridge_store_find_feed(store, second->id) == second);
	g_assert_true(bridge_store_find_feed(store, url) == second);
	bridge_store_free(store);
}

static void
test_remove_feed(void)
{
	g_autofree char *path = state_path();
	BridgeStore *store = open_ok(path);
	BridgeFeed *gone = bridge_store_add_feed(store, "https://a.example/");
	BridgeFeed *kept = bridge_store_add_feed(store, "https://b.example/");
	g_autofree char *gone_id = g_strdup(gone->id);
	g_autofree char *episode_id = NULL;
	g_autoptr(GPtrArray) all = NULL;

	g_test_summary("Removing a feed removes its episodes, also from the "
	               "file");
	episode_id =
	        g_strdup(bridge_store_get_episode(store, gone, "a1", NULL)->id);
	bridge_store_get_episode(store, gone, "a2", NULL);
	bridge_store_get_episode(store, kept, "b1", NULL);
	save_ok(store);

	bridge_store_remove_feed(store, gone);
	g_assert_null(bridge_store_find_feed(store, gone_id));
	g_assert_null(bridge_store_find_episode(store, episode_id));
	g_assert_null(bridge_store_find_episode(store, "a2"));
	g_assert_nonnull(bridge_store_find_episode(store, "b1"));
	g_assert_cmpuint(bridge_store_get_feeds(store)->len, ==, 1);
	all = bridge_store_list_episodes(store, NULL);
	g_assert_cmpuint(all->len, ==, 1);
	save_ok(store);
	bridge_store_free(store);

	store = open_ok(path);
	g_assert_null(bridge_store_find_feed(store, gone_id));
	g_assert_null(bridge_store_find_episode(store, episode_id));
	g_assert_nonnull(bridge_store_find_feed(store, "https://b.example/"));
	g_assert_nonnull(bridge_store_find_episode(store, "b1"));
	bridge_store_free(store);
}

static void
test_move_feed(void)
{
	g_autofree char *path = state_path();
	BridgeStore *store = open_ok(path);
	BridgeFeed *feed = bridge_store_add_feed(store, "http://old.example/");
	g_autofree char *id = g_strdup(feed->id);
	BridgeEpisode *episode = NULL;

	g_test_summary("Moving a feed changes its URL and keeps its id, "
	               "fields and episodes");
	fill_feed(feed, 3);
	episode = bridge_store_get_episode(store, feed, "guid", NULL);
	fill_episode(episode, 1);
	bridge_store_move_feed(store, feed, "https://new.example/");
	g_assert_cmpstr(feed->url, ==, "https://new.example/");
	g_assert_cmpstr(feed->id, ==, id);
	g_assert_null(bridge_store_find_feed(store, "http://old.example/"));
	g_assert_true(bridge_store_find_feed(store, "https://new.example/") ==
	              feed);
	g_assert_cmpuint(feed->keep, ==, 10);
	g_assert_true(bridge_store_get_episode(store, feed, "guid", NULL) ==
	              episode);
	save_ok(store);
	bridge_store_free(store);

	store = open_ok(path);
	feed = bridge_store_find_feed(store, id);
	g_assert_nonnull(feed);
	g_assert_cmpstr(feed->url, ==, "https://new.example/");
	g_assert_cmpuint(feed->keep, ==, 10);
	episode = bridge_store_find_episode(store, "guid");
	g_assert_nonnull(episode);
	g_assert_cmpstr(episode->feed_id, ==, id);
	g_assert_cmpint(episode->position, ==, 42);
	bridge_store_free(store);
}

static void
test_find_feed(void)
{
	g_autofree char *path = state_path();
	BridgeStore *store = open_ok(path);
	BridgeFeed *a = bridge_store_add_feed(store, "https://a.example/");
	BridgeFeed *b = bridge_store_add_feed(store, "https://b.example/");
	BridgeFeed *c = bridge_store_add_feed(store, "https://c.example/");

	g_test_summary("Feeds are found by id, URL, display name and title, "
	               "in that order; names ignore case");
	a->title = g_strdup("Café Society");
	a->name = g_strdup("morning");
	b->title = g_strdup("Morning News");
	c->title = g_strdup("morning"); /* loses to a's display name */

	g_assert_true(bridge_store_find_feed(store, a->id) == a);
	g_assert_true(bridge_store_find_feed(store, "https://b.example/") == b);
	g_assert_true(bridge_store_find_feed(store, "MORNING") == a);
	g_assert_true(bridge_store_find_feed(store, "morning news") == b);
	g_assert_true(bridge_store_find_feed(store, "CAFÉ SOCIETY") == a);
	/* The same letters decomposed. */
	g_assert_true(bridge_store_find_feed(store, "cafe\xcc\x81 society") ==
	              a);
	g_assert_null(bridge_store_find_feed(store, "Café"));
	g_assert_null(bridge_store_find_feed(store, "https://A.example/"));
	g_assert_null(bridge_store_find_feed(store, "\xff\xfe"));
	bridge_store_free(store);
}

static void
test_find_episode(void)
{
	g_autofree char *path = state_path();
	BridgeStore *store = open_ok(path);
	BridgeFeed *feed = bridge_store_add_feed(store, "https://a.example/");
	BridgeFeed *other = bridge_store_add_feed(store, "https://b.example/");
	BridgeEpisode *one = bridge_store_get_episode(store, feed, "g1", NULL);
	BridgeEpisode *two = bridge_store_get_episode(store, other, "g2", NULL);

	g_test_summary("Episodes are found by id, guid or stream URL");
	g_free(one->url);
	one->url = g_strdup("https://cdn.example/one.mp3");
	g_free(two->url);
	two->url = g_strdup("https://cdn.example/two.mp3");

	g_assert_true(bridge_store_find_episode(store, one->id) == one);
	g_assert_true(bridge_store_find_episode(store, "g2") == two);
	g_assert_true(bridge_store_find_episode(
	                      store, "https://cdn.example/one.mp3") == one);
	g_assert_null(bridge_store_find_episode(store, "g3"));
	g_assert_null(bridge_store_find_episode(store, "https://cdn.example"));
	bridge_store_free(store);
}

static void
assert_order(GPtrArray *list, const char *const *guids)
{
	guint i = 0;

	for (; guids[i] != NULL; i++) {
		const BridgeEpisode *episode = NULL;

		g_assert_cmpuint(i, <, list->len);
		episode = g_ptr_array_index(list, i);
		g_assert_cmpstr(episode->guid, ==, guids[i]);
	}
	g_assert_cmpuint(i, ==, list->len);
}

static void
test_list_order(void)
{
	g_autofree char *path = state_path();
	BridgeStore *store = open_ok(path);
	BridgeFeed *feed = bridge_store_add_feed(store, "https://a.example/");
	BridgeFeed *other = bridge_store_add_feed(store, "https://b.example/");
	/* guid, published, first_seen, in the order they are added */
	static const struct {
		const char *guid;
		gint64 published;
		gint64 first_seen;
	} added[] = {
		{ "undated-old", 0, 100 },   { "mid", 200, 100 },
		{ "new", 300, 100 },         { "undated-new-1", 0, 500 },
		{ "undated-new-2", 0, 500 }, { "mid-seen-later", 200, 400 },
		{ "old", 100, 100 },
	};
	static const char *const newest_first[] = {
		"new",           "mid-seen-later", "mid",         "old",
		"undated-new-1", "undated-new-2",  "undated-old", NULL,
	};
	static const char *const all[] = {
		"other-new",     "new",         "mid-seen-later",
		"mid",           "old",         "undated-new-1",
		"undated-new-2", "undated-old", NULL,
	};
	g_autoptr(GPtrArray) list = NULL;
	g_autoptr(GPtrArray) everything = NULL;
	BridgeEpisode *episode = NULL;

	g_test_summary("Episodes are listed newest first, undated last; "
	               "ties go to the latest seen, then to the order added");
	for (guint i = 0; i < G_N_ELEMENTS(added); i++) {
		episode = bridge_store_get_episode(store, feed, added[i].guid,
		                                   NULL);
		episode->published = added[i].published;
		episode->first_seen = added[i].first_seen;
	}
	episode = bridge_store_get_episode(store, other, "other-new", NULL);
	episode->published = 1000;

	list = bridge_store_list_episodes(store, feed);
	assert_order(list, newest_first);
	everything = bridge_store_list_episodes(store, NULL);
	assert_order(everything, all);

	/* The order added survives the file. */
	save_ok(store);
	bridge_store_free(store);
	store = open_ok(path);
	g_clear_pointer(&list, g_ptr_array_unref);
	list = bridge_store_list_episodes(
	        store, bridge_store_find_feed(store, "https://a.example/"));
	assert_order(list, newest_first);
	bridge_store_free(store);
}

/* Opening @text must fail, name the file and leave it byte for byte. */
static void
assert_refused(const char *text, GQuark domain, gint code, const char *expected)
{
	g_autofree char *path = state_path();
	g_autofree char *after = NULL;
	g_autoptr(GError) error = NULL;
	BridgeStore *store = NULL;
	struct stat before_st, after_st;
	gsize length = 0;

	write_file(path, text);
	g_assert_cmpint(g_stat(path, &before_st), ==, 0);
	store = bridge_store_open(path, &error);
	g_assert_null(store);
	g_assert_error(error, domain, code);
	g_test_message("refused: %s", error->message);
	g_assert_nonnull(strstr(error->message, path));
	g_assert_nonnull(strstr(error->message, expected));
	g_assert_nonnull(strstr(error->message, "left as it is"));

	after = read_file(path, &length);
	g_assert_cmpmem(after, length, text, strlen(text));
	g_assert_cmpint(g_stat(path, &after_st), ==, 0);
	g_assert_cmpint(after_st.st_ino, ==, before_st.st_ino);
	g_assert_cmpint(after_st.st_mtim.tv_sec, ==, before_st.st_mtim.tv_sec);
	g_assert_cmpint(after_st.st_mtim.tv_nsec, ==,
	                before_st.st_mtim.tv_nsec);
}

static void
test_refused_garbage(void)
{
	g_test_summary("A file that is not a key file is refused and left");
	assert_refused("\x89PNG\r\n\x1a\n\x01\x02\x03", G_KEY_FILE_ERROR,
	               G_KEY_FILE_ERROR_UNKNOWN_ENCODING, "move it away");
	assert_refused("this is not\na key file\n", G_KEY_FILE_ERROR,
	               G_KEY_FILE_ERROR_GROUP_NOT_FOUND, "no [bridge]");
	assert_refused("[bridge]\nversion=1\nthis line is nonsense\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
	               "move it away");
	assert_refused("[bridge]\nversion=1\n[feed x]\nurl=a\nnonsense\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE, "line 3");
	assert_refused("", G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_GROUP_NOT_FOUND,
	               "move it away");
}

static void
test_refused_no_bridge(void)
{
	g_test_summary("A key file without [bridge] is not our state");
	assert_refused("[Desktop Entry]\nName=Something else\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_GROUP_NOT_FOUND,
	               "no [bridge]");
}

static void
test_refused_version(void)
{
	g_test_summary("A newer format is refused as newer, even when the "
	               "rest is unreadable; a bad version as damage");
	assert_refused("[bridge]\nversion=3\n[feed x]\nsomething=new\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
	               "written by a newer mpd-bridge (format 3); update "
	               "mpd-bridge");
	assert_refused("[feed x]\n[bridge]\nversion=99\n", G_KEY_FILE_ERROR,
	               G_KEY_FILE_ERROR_INVALID_VALUE, "format 99");
	assert_refused("[bridge]\nversion=one\n", G_KEY_FILE_ERROR,
	               G_KEY_FILE_ERROR_INVALID_VALUE, "not a whole number");
	assert_refused("[bridge]\nversion=0\n", G_KEY_FILE_ERROR,
	               G_KEY_FILE_ERROR_INVALID_VALUE, "move it away");
	assert_refused("[bridge]\nsaved=1\n", G_KEY_FILE_ERROR,
	               G_KEY_FILE_ERROR_KEY_NOT_FOUND, "has no version");
}

static void
test_refused_missing_keys(void)
{
	g_test_summary("Groups that miss required keys, or hold bad values, "
	               "are refused with the group and line named");
	assert_refused("[bridge]\nversion=1\n\n[feed abc]\ntitle=No URL\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
	               "line 4: [feed abc] has no url");
	assert_refused("[bridge]\nversion=1\n[feed f]\nurl=http://x/\n"
	               "[episode e]\nfeed_id=f\nurl=http://x/1\ntitle=t\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
	               "[episode e] has no guid");
	assert_refused("[bridge]\nversion=2\n[feed ../x]\nurl=http://x/\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
	               "[feed ../x] has an id that is no file name");
	assert_refused("[bridge]\nversion=2\n[feed f]\nurl=http://x/\n"
	               "heard=e1:1:2;e2:x:2;\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
	               "line 3: [feed f] heard has “e2:x:2”");
	assert_refused("[bridge]\nversion=1\n[feed f]\nurl=http://x/\n"
	               "keep=-1\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
	               "keep is “-1”, not a whole number");
	assert_refused("[bridge]\nversion=1\n[feed f]\nurl=http://x/\n"
	               "gone=maybe\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
	               "not true or false");
	assert_refused("[bridge]\nversion=1\n[feed f]\nurl=bad \\q escape\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
	               "[feed f] url has a backslash");
	/* GLib sets its error twice for this one, and warns: not here. */
	assert_refused("[bridge]\nversion=1\n[feed f]\nurl=bad \\q end\\\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
	               "[feed f] url has a backslash");
	assert_refused("[bridge]\nversion=1\n[episode e]\nfeed_id=nowhere\n"
	               "guid=g\nurl=u\ntitle=t\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
	               "no [feed nowhere] group");
	assert_refused("[bridge]\nversion=1\n[feed f]\nurl=a\n[bridge]\n"
	               "version=1\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
	               "[bridge] appears twice");
	assert_refused("[bridge]\nversion=1\n[feed f]\nurl=a\n[feed f]\n"
	               "url=b\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
	               "[feed f] appears twice");
	assert_refused("[bridge]\nversion=1\n[feed f]\nurl=a\n"
	               "[episode 1]\nfeed_id=f\nguid=g\nurl=u\ntitle=t\n"
	               "[episode 2]\nfeed_id=f\nguid=g\nurl=u\ntitle=t\n",
	               G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
	               "the same guid");
}

static void
test_refused_unreadable(void)
{
	g_autofree char *path = state_path();
	g_autofree char *below = g_build_filename(path, "state", NULL);
	g_autoptr(GError) error = NULL;

	g_test_summary("A path that cannot be read is an error, not an "
	               "empty state");
	g_assert_cmpint(g_mkdir_with_parents(path, 0700), ==, 0);
	g_assert_null(bridge_store_open(path, &error));
	g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_ISDIR);
	g_assert_nonnull(strstr(error->message, path));
	g_clear_error(&error);

	g_assert_cmpint(g_rmdir(path), ==, 0);
	write_file(path, "[bridge]\nversion=1\n");
	g_assert_null(bridge_store_open(below, &error));
	g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR);
	g_assert_nonnull(strstr(error->message, below));
}

static void
test_episode_before_feed(void)
{
	g_autofree char *path = state_path();
	BridgeStore *store = NULL;
	BridgeEpisode *episode = NULL;

	g_test_summary("Groups may come in any order in a file edited by "
	               "hand");
	write_file(path, "[episode e2]\nfeed_id=f\nguid=g2\nurl=u2\ntitle=t2\n"
	                 "[episode e1]\nfeed_id=f\nguid=g1\nurl=u1\ntitle=t1\n"
	                 "[feed f]\nurl=https://f.example/\n"
	                 "[episode e3]\nfeed_id=f\nguid=g3\nurl=u3\ntitle=t3\n"
	                 "[bridge]\nversion=1\n");
	store = open_ok(path);
	episode = bridge_store_find_episode(store, "e1");
	g_assert_nonnull(episode);
	g_assert_cmpstr(episode->guid, ==, "g1");
	{
		g_autoptr(GPtrArray) list = bridge_store_list_episodes(
		        store, bridge_store_find_feed(store, "f"));
		static const char *const order[] = { "g2", "g1", "g3", NULL };

		assert_order(list, order);
	}
	bridge_store_free(store);
}

static void
test_unknown_kept(void)
{
	g_autofree char *path = state_path();
	g_autoptr(GKeyFile) key_file = g_key_file_new();
	g_autoptr(GError) error = NULL;
	BridgeStore *store = NULL;
	BridgeFeed *feed = NULL;
	g_autofree char *value = NULL;

	g_test_summary("Keys and groups of the same version that this one "
	               "does not know survive a save");
	write_file(path, "# a comment\n"
	                 "[bridge]\nversion=1\nsaved=5\nfuture=yes\n"
	                 "[feed f]\nurl=https://f.example/\nkeep=3\n"
	                 "colour=blue\ntitle[de]=Die Sendung\n"
	                 "[episode e]\nfeed_id=f\nguid=g\nurl=u\ntitle=t\n"
	                 "rating=5\nnote=\\sspaced\\nout\n"
	                 "[notes]\ntext=hello = world\n"
	                 "[feed gone]\nurl=https://gone.example/\nmark=1\n");
	store = open_ok(path);
	feed = bridge_store_find_feed(store, "f");
	feed->keep = 4;
	bridge_store_remove_feed(store, bridge_store_find_feed(store, "gone"));
	save_ok(store);
	bridge_store_free(store);

	g_assert_true(g_key_file_load_from_file(
	        key_file, path, G_KEY_FILE_KEEP_TRANSLATIONS, &error));
	g_assert_no_error(error);
	value = g_key_file_get_string(key_file, "bridge", "future", NULL);
	g_assert_cmpstr(value, ==, "yes");
	g_clear_pointer(&value, g_free);
	value = g_key_file_get_string(key_file, "feed f", "colour", NULL);
	g_assert_cmpstr(value, ==, "blue");
	g_clear_pointer(&value, g_free);
	value = g_key_file_get_locale_string(key_file, "feed f", "title", "de",
	                                     NULL);
	g_assert_cmpstr(value, ==, "Die Sendung");
	g_clear_pointer(&value, g_free);
	g_assert_cmpint(
	        g_key_file_get_integer(key_file, "feed f", "keep", NULL), ==,
	        4);
	value = g_key_file_get_string(key_file, "episode e", "note", NULL);
	g_assert_cmpstr(value, ==, " spaced\nout");
	g_clear_pointer(&value, g_free);
	value = g_key_file_get_string(key_file, "episode e", "rating", NULL);
	g_assert_cmpstr(value, ==, "5");
	g_clear_pointer(&value, g_free);
	value = g_key_file_get_string(key_file, "notes", "text", NULL);
	g_assert_cmpstr(value, ==, "hello = world");
	g_assert_false(g_key_file_has_group(key_file, "feed gone"));

	/* And again, from the file this version wrote. */
	store = open_ok(path);
	save_ok(store);
	bridge_store_free(store);
	g_assert_true(g_key_file_load_from_file(
	        key_file, path, G_KEY_FILE_KEEP_TRANSLATIONS, &error));
	g_assert_true(g_key_file_has_key(key_file, "notes", "text", NULL));
	g_assert_true(g_key_file_has_key(key_file, "episode e", "note", NULL));
}

/* Whether the directory @dir holds no temporary file. */
static gboolean
none_half_written(const char *dir)
{
	g_autoptr(GDir) listing = g_dir_open(dir, 0, NULL);
	const char *name = NULL;

	while ((name = g_dir_read_name(listing)) != NULL)
		if (strchr(name, '.') != NULL)
			return FALSE;
	return TRUE;
}

/* Only the state file and its caches, with no file half-written. */
static gboolean
only_state_in(const char *dir)
{
	g_autoptr(GDir) listing = g_dir_open(dir, 0, NULL);
	const char *name = NULL;

	while ((name = g_dir_read_name(listing)) != NULL) {
		g_autofree char *caches = g_build_filename(dir, name, NULL);

		if (strcmp(name, "state") == 0)
			continue;
		if (strcmp(name, "state.cache") != 0 ||
		    !none_half_written(caches))
			return FALSE;
	}
	return TRUE;
}

/* A store of a few feeds, saved, with @old set to the file's bytes. */
static BridgeStore *
saved_store(const char *path, char **old, gsize *old_length)
{
	BridgeStore *store = open_ok(path);

	bridge_store_add_feed(store, "https://kept.example/");
	save_ok(store);
	*old = read_file(path, old_length);
	for (guint i = 0; i < 100; i++) {
		g_autofree char *url =
		        g_strdup_printf("https://new.example/%u", i);

		bridge_store_add_feed(store, url);
	}
	return store;
}

static void
test_save_failure_kept(void)
{
	g_autofree char *path = state_path();
	g_autofree char *dir = g_path_get_dirname(path);
	g_autofree char *old = NULL;
	g_autofree char *after = NULL;
	g_autoptr(GError) error = NULL;
	BridgeStore *store = NULL;
	struct rlimit limit, small;
	gsize old_length = 0;
	gsize length = 0;
	gboolean saved = FALSE;

	g_test_summary("A save that fails (here: a full disk, by the file "
	               "size limit, which binds root too) leaves the old file "
	               "and no debris, and says where");
	store = saved_store(path, &old, &old_length);
	g_assert_cmpint(getrlimit(RLIMIT_FSIZE, &limit), ==, 0);
	small = limit;
	small.rlim_cur = old_length + 10;
	signal(SIGXFSZ, SIG_IGN);
	g_assert_cmpint(setrlimit(RLIMIT_FSIZE, &small), ==, 0);
	saved = bridge_store_save(store, &error);
	g_assert_cmpint(setrlimit(RLIMIT_FSIZE, &limit), ==, 0);
	signal(SIGXFSZ, SIG_DFL);

	g_assert_false(saved);
	g_assert_true(error != NULL && error->domain == G_FILE_ERROR);
	g_test_message("save failed: %s", error->message);
	g_assert_true(
	        g_str_has_prefix(error->message, "cannot save the state to "));
	g_assert_nonnull(strstr(error->message, path));
	after = read_file(path, &length);
	g_assert_cmpmem(after, length, old, old_length);
	g_assert_true(only_state_in(dir));
	bridge_store_free(store);
}

static void
test_save_failure_read_only(void)
{
	g_autofree char *path = state_path();
	g_autofree char *dir = g_path_get_dirname(path);
	g_autofree char *old = NULL;
	g_autofree char *after = NULL;
	g_autoptr(GError) error = NULL;
	BridgeStore *store = NULL;
	gsize old_length = 0;
	gsize length = 0;

	g_test_summary("A save into a read-only directory fails, keeping "
	               "the old file");
	if (geteuid() == 0) {
		g_test_skip("root writes into read-only directories");
		return;
	}
	store = saved_store(path, &old, &old_length);
	g_assert_cmpint(g_chmod(dir, 0500), ==, 0);
	g_assert_false(bridge_store_save(store, &error));
	g_assert_cmpint(g_chmod(dir, 0700), ==, 0);
	g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_ACCES);
	g_assert_nonnull(strstr(error->message, path));
	after = read_file(path, &length);
	g_assert_cmpmem(after, length, old, old_length);
	bridge_store_free(store);
}

static void
test_save_failure_not_a_directory(void)
{
	g_autofree char *path = state_path();
	g_autofree char *dir = g_path_get_dirname(path);
	g_autoptr(GError) error = NULL;
	BridgeStore *store = open_ok(path);

	g_test_summary("A save whose directory is a file fails and says "
	               "which");
	write_file(dir, "in the way\n");
	bridge_store_add_feed(store, "https://example.com/");
	g_assert_false(bridge_store_save(store, &error));
	g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR);
	g_test_message("save failed: %s", error->message);
	g_assert_nonnull(strstr(error->message, path));
	g_assert_nonnull(strstr(error->message, "cannot save the state"));
	bridge_store_free(store);
}

static void
test_lock(void)
{
	g_autofree char *path = state_path();
	g_autofree char *pid = g_strdup_printf("process %ld", (long)getpid());
	g_autoptr(GError) error = NULL;
	BridgeStore *first = open_ok(path);
	BridgeStore *second = NULL;
	BridgeFeed *feed = NULL;
	gint64 start;

	g_test_summary("A second writer waits for the lock, gives up with a "
	               "clear error, and once it has the lock sees what the "
	               "first one saved");
	feed = bridge_store_add_feed(first, "https://one.example/");
	save_ok(first);
	second = open_ok(path);
	g_assert_nonnull(
	        bridge_store_find_feed(second, "https://one.example/"));

	/* Nothing changed: the second keeps its structs. */
	feed = bridge_store_find_feed(second, "https://one.example/");
	g_assert_true(bridge_store_lock(second, 0, &error));
	g_assert_no_error(error);
	g_assert_true(bridge_store_find_feed(second, "https://one.example/") ==
	              feed);
	bridge_store_unlock(second);

	g_assert_true(bridge_store_lock(first, 1000, &error));
	g_assert_no_error(error);
	start = g_get_monotonic_time();
	g_assert_false(bridge_store_lock(second, 150, &error));
	g_assert_cmpint(g_get_monotonic_time() - start, >=, 140 * 1000);
	g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_AGAIN);
	g_test_message("lock failed: %s", error->message);
	g_assert_nonnull(strstr(error->message, path));
	g_assert_nonnull(strstr(error->message, pid));
	g_assert_nonnull(strstr(error->message, "try again"));
	g_clear_error(&error);

	bridge_store_add_feed(first, "https://two.example/");
	save_ok(first);
	g_assert_null(bridge_store_find_feed(second, "https://two.example/"));
	bridge_store_unlock(first);

	g_assert_true(bridge_store_lock(second, 1000, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(bridge_store_get_path(second), ==, path);
	g_assert_nonnull(
	        bridge_store_find_feed(second, "https://two.example/"));
	bridge_store_add_feed(second, "https://three.example/");
	save_ok(second);
	bridge_store_unlock(second);

	/* The first reloads in turn, and keeps nothing stale. */
	g_assert_true(bridge_store_lock(first, 1000, &error));
	g_assert_no_error(error);
	g_assert_nonnull(
	        bridge_store_find_feed(first, "https://three.example/"));
	g_assert_cmpuint(bridge_store_get_feeds(first)->len, ==, 3);
	bridge_store_free(first); /* unlocks */

	g_assert_true(bridge_store_lock(second, 0, &error));
	g_assert_no_error(error);
	bridge_store_free(second);
}

static void
test_lock_refused_reload(void)
{
	g_autofree char *path = state_path();
	g_autoptr(GError) error = NULL;
	BridgeStore *store = open_ok(path);
	BridgeStore *other = NULL;

	g_test_summary("A lock whose reload meets a damaged file fails, and "
	               "does not hold the lock");
	save_ok(store);
	write_file(path, "garbage\n");
	g_assert_false(bridge_store_lock(store, 100, &error));
	g_assert_error(error, G_KEY_FILE_ERROR,
	               G_KEY_FILE_ERROR_GROUP_NOT_FOUND);
	g_assert_nonnull(strstr(error->message, path));
	g_clear_error(&error);
	write_file(path, "[bridge]\nversion=1\n");
	other = open_ok(path);
	g_assert_true(bridge_store_lock(other, 0, &error));
	g_assert_no_error(error);
	bridge_store_free(other);
	bridge_store_free(store);
}

static long
rss_kib(const char *field)
{
	g_autofree char *status = NULL;
	const char *line = NULL;

	if (!g_file_get_contents("/proc/self/status", &status, NULL, NULL))
		return -1;
	line = strstr(status, field);
	return line != NULL ? strtol(line + strlen(field), NULL, 10) : -1;
}

static void
test_many(void)
{
	g_autofree char *path = state_path();
	BridgeStore *store = open_ok(path);
	BridgeStore *again = NULL;
	g_autoptr(GPtrArray) all = NULL;
	gint64 start;
	struct stat st;
	long rss_before;

	g_test_summary("500 feeds of 100 episodes each (a tenth under "
	               "AddressSanitizer or valgrind) round-trip");
	for (guint f = 0; f < many_feeds(); f++) {
		g_autofree char *url =
		        g_strdup_printf("https://example.com/feeds/%u.xml", f);
		BridgeFeed *feed = bridge_store_add_feed(store, url);

		feed->title = g_strdup_printf("Feed number %u", f);
		feed->etag = g_strdup_printf("\"etag-%u\"", f);
		for (guint e = 0; e < 100; e++) {
			g_autofree char *guid = g_strdup_printf(
			        "https://example.com/feeds/%u/episodes/%u", f,
			        e);
			BridgeEpisode *episode = bridge_store_get_episode(
			        store, feed, guid, NULL);

			g_free(episode->url);
			episode->url = g_strdup_printf(
			        "https://cdn.example.com/audio/%u/%u.mp3", f,
			        e);
			g_free(episode->title);
			episode->title = g_strdup_printf(
			        "Episode %u of feed %u: a title of some length",
			        e, f);
			episode->author = g_strdup("Some Author");
			episode->published = 1600000000 + e * 86400;
			episode->duration = 3600;
			episode->number = e;
			episode->position = e % 7;
		}
	}
	start = g_get_monotonic_time();
	save_ok(store);
	g_assert_cmpint(g_stat(path, &st), ==, 0);
	g_test_message("saved %u episodes (%lld bytes) in %.3f s",
	               many_feeds() * 100, (long long)st.st_size,
	               (g_get_monotonic_time() - start) / 1e6);

	rss_before = rss_kib("VmRSS:");
	start = g_get_monotonic_time();
	again = open_ok(path);
	g_test_message("loaded them in %.3f s; RSS grew by %ld KiB",
	               (g_get_monotonic_time() - start) / 1e6,
	               rss_kib("VmRSS:") - rss_before);
	all = bridge_store_list_episodes(again, NULL);
	g_assert_cmpuint(all->len, ==, many_feeds() * 100);
	assert_stores_equal(store, again);
	bridge_store_free(again);
	bridge_store_free(store);
}

static gboolean
on_list(const BridgeList *list, const char *id)
{
	for (guint i = 0; i < list->episodes->len; i++)
		if (strcmp(list->episodes->pdata[i], id) == 0)
			return TRUE;
	return FALSE;
}

/* Lists keep their order and names; the new episode fields round-trip. */
static void
test_lists_round_trip(void)
{
	g_autofree char *path = state_path();
	BridgeStore *store = NULL;
	BridgeFeed *feed = NULL;
	BridgeEpisode *a, *b, *c;
	BridgeList *later, *named;
	g_autofree char *a_id = NULL;
	g_autofree char *b_id = NULL;
	g_autofree char *c_id = NULL;

	g_remove(path);
	store = open_ok(path);
	feed = bridge_store_add_feed(store, "http://example.com/lists.xml");
	a = bridge_store_get_episode(store, feed, "a", NULL);
	b = bridge_store_get_episode(store, feed, "b", NULL);
	c = bridge_store_get_episode(store, feed, "c", NULL);
	a_id = g_strdup(a->id);
	b_id = g_strdup(b->id);
	c_id = g_strdup(c->id);
	b->starred = TRUE;
	b->listened_at = 1700000000;
	c->gone = 1700000001;
	g_assert_null(bridge_store_get_list(store, NULL, FALSE));
	named = bridge_store_get_list(store, "Road [trip] = ;#", TRUE);
	later = bridge_store_get_list(store, NULL, TRUE);
	g_ptr_array_add(later->episodes, g_strdup(c_id));
	g_ptr_array_add(later->episodes, g_strdup(a_id));
	g_ptr_array_add(named->episodes, g_strdup(b_id));
	g_assert_true(bridge_store_get_list(store, "ROAD [TRIP] = ;#", FALSE) ==
	              named);
	g_assert_true(bridge_store_get_lists(store)->pdata[0] == later);
	save_ok(store);
	bridge_store_free(store);

	store = open_ok(path);
	later = bridge_store_get_list(store, NULL, FALSE);
	named = bridge_store_get_list(store, "road [trip] = ;#", FALSE);
	g_assert_nonnull(later);
	g_assert_nonnull(named);
	g_assert_cmpstr(named->name, ==, "Road [trip] = ;#");
	g_assert_null(later->name);
	g_assert_cmpuint(later->episodes->len, ==, 2);
	g_assert_cmpstr(later->episodes->pdata[0], ==, c_id);
	g_assert_cmpstr(later->episodes->pdata[1], ==, a_id);
	g_assert_cmpuint(named->episodes->len, ==, 1);
	b = bridge_store_find_episode(store, b_id);
	c = bridge_store_find_episode(store, c_id);
	g_assert_true(b->starred);
	g_assert_cmpint(b->listened_at, ==, 1700000000);
	g_assert_cmpint(c->gone, ==, 1700000001);
	g_assert_true(bridge_store_is_listed(store, c));
	g_assert_true(bridge_store_is_listed(
	        store, bridge_store_find_episode(store, "a")));

	/* Forgetting an episode takes it off every list. */
	bridge_store_remove_episode(store, c);
	g_assert_null(bridge_store_find_episode(store, c_id));
	g_assert_cmpuint(later->episodes->len, ==, 1);
	g_assert_false(on_list(later, c_id));
	bridge_store_remove_list(store, named);
	g_assert_null(bridge_store_get_list(store, "Road [trip] = ;#", FALSE));
	save_ok(store);
	bridge_store_free(store);

	store = open_ok(path);
	g_assert_cmpuint(bridge_store_get_lists(store)->len, ==, 1);
	/* Unsubscribing empties the lists of the feed's episodes. */
	bridge_store_remove_feed(store,
	                         bridge_store_get_feeds(store)->pdata[0]);
	g_assert_cmpuint(
	        bridge_store_get_list(store, NULL, FALSE)->episodes->len, ==,
	        0);
	bridge_store_free(store);
}

/* An id on a list that names no episode is dropped on load. */
static void
test_lists_dangling(void)
{
	g_autofree char *path = state_path();
	g_autoptr(GError) error = NULL;
	BridgeStore *store = NULL;
	g_autofree char *dir = g_path_get_dirname(path);
	BridgeList *later;

	g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
	g_assert_true(
	        g_file_set_contents(path,
	                            "[bridge]\nversion=1\n\n[list later]\n"
	                            "episodes=0123456789abcdef;\n",
	                            -1, &error));
	store = open_ok(path);
	later = bridge_store_get_list(store, NULL, FALSE);
	g_assert_nonnull(later);
	g_assert_cmpuint(later->episodes->len, ==, 0);
	bridge_store_free(store);

	/* A named list needs its name; play-later has none. */
	g_assert_true(g_file_set_contents(
	        path, "[bridge]\nversion=1\n\n[list 0123]\nepisodes=\n", -1,
	        &error));
	g_assert_null(bridge_store_open(path, &error));
	g_assert_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE);
	g_assert_nonnull(strstr(error->message, "has no name"));
}

/* A new guid keeps the episode's id and state; a taken one is refused. */
static void
test_set_guid(void)
{
	g_autofree char *path = state_path();
	BridgeStore *store = NULL;
	BridgeFeed *feed = NULL;
	BridgeEpisode *a, *b;
	g_autofree char *a_id = NULL;

	g_remove(path);
	store = open_ok(path);
	feed = bridge_store_add_feed(store, "http://example.com/guid.xml");
	a = bridge_store_get_episode(store, feed, "old", NULL);
	b = bridge_store_get_episode(store, feed, "other", NULL);
	a->listened = TRUE;
	a_id = g_strdup(a->id);
	g_assert_false(bridge_store_set_episode_guid(store, a, "other"));
	g_assert_cmpstr(a->guid, ==, "old");
	g_assert_true(bridge_store_set_episode_guid(store, a, "new"));
	g_assert_true(bridge_store_lookup_episode(store, feed, "new") == a);
	g_assert_null(bridge_store_lookup_episode(store, feed, "old"));
	g_assert_true(bridge_store_lookup_episode(store, feed, "other") == b);
	save_ok(store);
	bridge_store_free(store);

	store = open_ok(path);
	a = bridge_store_find_episode(store, "new");
	g_assert_nonnull(a);
	g_assert_cmpstr(a->id, ==, a_id);
	g_assert_true(a->listened);
	bridge_store_free(store);
}

/* Writes @text into @journal after @store's lines, as a writer would. */
static void
write_after_lines(BridgeStore *store, const char *journal, const char *text)
{
	int fd = open(journal, O_WRONLY);

	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(pwrite(fd, text, strlen(text),
	                       (off_t)bridge_store_journal_size(store)),
	                ==, (ssize_t)strlen(text));
	g_assert_cmpint(close(fd), ==, 0);
}

static void
test_journal(void)
{
	g_autofree char *path = state_path();
	g_autofree char *journal = g_strconcat(path, ".journal", NULL);
	g_autoptr(GError) error = NULL;
	BridgeStore *store = open_ok(path);
	BridgeFeed *feed = bridge_store_add_feed(store, "https://a.example/");
	BridgeEpisode *one = bridge_store_get_episode(store, feed, "g1", NULL);
	BridgeEpisode *two = bridge_store_get_episode(store, feed, "g2", NULL);
	g_autofree char *one_id = g_strdup(one->id);
	g_autofree char *two_id = g_strdup(two->id);
	g_autofree char *cut = NULL;
	BridgeStore *reader;
	guint64 size = 0;

	g_test_summary("Positions go to the journal, a line each, which a "
	               "load replays over the file (a line a crash cut "
	               "short passed over), a reload notices, and a whole "
	               "save folds in");
	g_free(one->url);
	one->url = g_strdup("https://cdn.example/one.mp3");
	g_free(two->url);
	two->url = g_strdup("https://cdn.example/two.mp3");
	save_ok(store);
	reader = open_ok(path);
	one->position = 61;
	one->last_played = 1000;
	g_assert_true(bridge_store_journal_episode(store, one, &size, &error));
	g_assert_no_error(error);
	g_assert_cmpuint(size, >, 0);
	g_assert_cmpuint(size, <, 100);
	one->position = 122;
	one->last_played = 2000;
	g_assert_true(bridge_store_journal_episode(store, one, NULL, NULL));
	two->position = 7;
	g_assert_true(bridge_store_journal_episode(store, two, NULL, NULL));
	g_assert_cmpuint(bridge_store_journal_size(store), ==,
	                 bridge_store_journal_size(reader));
	/* A reader that read the file before sees the journal grew. */
	g_assert_true(bridge_store_reload(reader, &error));
	g_assert_no_error(error);
	g_assert_cmpint(bridge_store_find_episode(reader, one_id)->position, ==,
	                122);
	bridge_store_free(reader);
	/* Lines go over the zeros it was made of: its length stays. */
	{
		struct stat st;

		g_assert_cmpint(stat(journal, &st), ==, 0);
		g_assert_cmpint(st.st_size, ==, 4096);
	}
	/* A crash in the middle of a line: the line is not one. */
	cut = g_strdup_printf("position %s 999", two_id);
	write_after_lines(store, journal, cut);
	reader = open_ok(path);
	g_assert_cmpint(bridge_store_find_episode(reader, one_id)->position, ==,
	                122);
	g_assert_cmpint(bridge_store_find_episode(reader, one_id)->last_played,
	                ==, 2000);
	g_assert_cmpint(bridge_store_find_episode(reader, two_id)->position, ==,
	                7);
	/* The next line goes over what the crash cut short. */
	bridge_store_find_episode(reader, two_id)->position = 8;
	g_assert_true(bridge_store_journal_episode(
	        reader, bridge_store_find_episode(reader, two_id), NULL, NULL));
	{
		BridgeStore *third = open_ok(path);

		g_assert_cmpint(
		        bridge_store_find_episode(third, two_id)->position, ==,
		        8);
		bridge_store_free(third);
	}
	save_ok(reader);
	g_assert_false(g_file_test(journal, G_FILE_TEST_EXISTS));
	bridge_store_free(reader);
	reader = open_ok(path);
	g_assert_cmpint(bridge_store_find_episode(reader, one_id)->position, ==,
	                122);
	bridge_store_free(reader);
	bridge_store_free(store);
}

static void
test_journal_sync(void)
{
	g_autofree char *path = state_path();
	BridgeStore *store = open_ok(path);
	BridgeFeed *feed = bridge_store_add_feed(store, "https://a.example/");
	BridgeEpisode *ours = bridge_store_get_episode(store, feed, "g1", NULL);
	BridgeEpisode *phones =
	        bridge_store_get_episode(store, feed, "g2", NULL);
	g_autofree char *ours_id = g_strdup(ours->id);
	g_autofree char *phones_id = g_strdup(phones->id);
	BridgeStore *reader;
	BridgeEpisode *got;

	g_test_summary("A change of this machine's for a phone sync goes to "
	               "the journal with its stamp and whether it is "
	               "uploaded; a phone's own change keeps what it says");
	ours->sync_from = g_strdup("phone");
	phones->sync_changed = 500;
	phones->sync_from = g_strdup("phone");
	save_ok(store);
	/* Ours now: the stamp is ours, not uploaded yet. */
	g_clear_pointer(&ours->sync_from, g_free);
	ours->position = 30;
	ours->sync_changed = 1000;
	ours->sync_unsent = TRUE;
	g_assert_true(bridge_store_journal_episode(store, ours, NULL, NULL));
	phones->position = 12;
	g_assert_true(bridge_store_journal_episode(store, phones, NULL, NULL));
	reader = open_ok(path);
	got = bridge_store_find_episode(reader, ours_id);
	g_assert_cmpint(got->position, ==, 30);
	g_assert_cmpint(got->sync_changed, ==, 1000);
	g_assert_true(got->sync_unsent);
	g_assert_null(got->sync_from);
	got = bridge_store_find_episode(reader, phones_id);
	g_assert_cmpint(got->position, ==, 12);
	g_assert_cmpint(got->sync_changed, ==, 500);
	g_assert_cmpstr(got->sync_from, ==, "phone");
	bridge_store_free(reader);
	/* Uploaded: the next line says so. */
	ours->sync_unsent = FALSE;
	g_assert_true(bridge_store_journal_episode(store, ours, NULL, NULL));
	reader = open_ok(path);
	g_assert_false(bridge_store_find_episode(reader, ours_id)->sync_unsent);
	bridge_store_free(reader);
	bridge_store_free(store);
}

static void
test_journal_listened(void)
{
	g_autofree char *path = state_path();
	g_autofree char *journal = g_strconcat(path, ".journal", NULL);
	BridgeStore *store = open_ok(path);
	BridgeFeed *feed = bridge_store_add_feed(store, "https://a.example/");
	BridgeEpisode *done = bridge_store_get_episode(store, feed, "g1", NULL);
	BridgeEpisode *old = bridge_store_get_episode(store, feed, "g2", NULL);
	g_autofree char *done_id = g_strdup(done->id);
	g_autofree char *old_id = g_strdup(old->id);
	g_autofree char *lines = NULL;
	BridgeStore *reader;
	BridgeEpisode *got;

	g_test_summary("An episode's end goes to the journal: listened and "
	               "when, and back; an earlier version's position line "
	               "and a line of nonsense are read as before");
	save_ok(store);
	done->position = 3590;
	done->listened = TRUE;
	done->listened_at = 1700000000;
	g_assert_true(bridge_store_journal_episode(store, done, NULL, NULL));
	reader = open_ok(path);
	got = bridge_store_find_episode(reader, done_id);
	g_assert_true(got->listened);
	g_assert_cmpint(got->listened_at, ==, 1700000000);
	g_assert_cmpint(got->position, ==, 3590);
	bridge_store_free(reader);
	done->listened = FALSE;
	done->listened_at = 0;
	g_assert_true(bridge_store_journal_episode(store, done, NULL, NULL));
	/* What an earlier version wrote, and what no version wrote. */
	lines = g_strdup_printf("position %s 45 1000\n\nepisode %s 1 2 3\n"
	                        "episode %s 9 9 2 9\n",
	                        old_id, old_id, old_id);
	write_after_lines(store, journal, lines);
	reader = open_ok(path);
	got = bridge_store_find_episode(reader, done_id);
	g_assert_false(got->listened);
	g_assert_cmpint(got->listened_at, ==, 0);
	got = bridge_store_find_episode(reader, old_id);
	g_assert_cmpint(got->position, ==, 45);
	g_assert_cmpint(got->last_played, ==, 1000);
	g_assert_false(got->listened);
	bridge_store_free(reader);
	bridge_store_free(store);
}

static void
on_result(GObject *source, GAsyncResult *result, gpointer data)
{
	*(GAsyncResult **)data = g_object_ref(result);
}

/* Makes @save's text in the smallest slices, @between() after each. */
static void
slice_all(BridgeStoreSave *save, void (*between)(guint slice, gpointer data),
          gpointer data)
{
	guint slices = 0;

	while (!bridge_store_save_step(save, 0))
		if (between != NULL)
			between(slices++, data);
	g_assert_true(slices > 0 || between == NULL);
}

/* Writes @save in its thread and finishes it; what finish said. */
static gboolean
write_now(BridgeStoreSave *save, GError **error)
{
	GAsyncResult *result = NULL;
	gboolean ok;

	bridge_store_save_write_async(save, on_result, &result);
	while (result == NULL)
		g_main_context_iteration(NULL, TRUE);
	ok = bridge_store_save_finish(save, result, error);
	g_object_unref(result);
	return ok;
}

typedef struct {
	BridgeStore *store;
	BridgeFeed *feed;
	BridgeEpisode *first;
	gboolean added;
} Churn;

/* Between slices: the first episode changes after its group was made,
 * and once an episode comes and one goes, which starts the text over. */
static void
churn(guint slice, gpointer data)
{
	Churn *c = data;

	c->first->position = 100 + slice;
	g_assert_true(
	        bridge_store_journal_episode(c->store, c->first, NULL, NULL));
	if (slice == 3 && !c->added) {
		BridgeEpisode *late = bridge_store_get_episode(
		        c->store, c->feed, "late", NULL);

		g_free(late->title);
		late->title = g_strdup("Came during the save");
		bridge_store_remove_episode(
		        c->store, bridge_store_get_episode(c->store, c->feed,
		                                           "g1", NULL));
		c->added = TRUE;
	}
}

static void
test_save_slices(void)
{
	g_autofree char *path = state_path();
	g_autofree char *journal = g_strconcat(path, ".journal", NULL);
	g_autoptr(GError) error = NULL;
	BridgeStore *store = open_ok(path);
	BridgeFeed *feed = bridge_store_add_feed(store, "https://a.example/");
	g_autofree char *first_id = NULL;
	BridgeStoreSave *save;
	BridgeStore *reader;
	gboolean found = FALSE;
	Churn c = { store, feed, NULL, FALSE };

	g_test_summary("A save in slices: a change between slices is kept "
	               "(a new episode starts the text over, a journal line "
	               "written meanwhile stays and lines before it go), and "
	               "a whole save made meanwhile wins");
	for (guint i = 0; i < 500; i++) {
		g_autofree char *guid = g_strdup_printf("g%u", i);

		bridge_store_get_episode(store, feed, guid, NULL);
	}
	c.first = bridge_store_get_episode(store, feed, "g0", NULL);
	first_id = g_strdup(c.first->id);
	save_ok(store);
	/* A line before the save began, which the save holds. */
	c.first->position = 50;
	g_assert_true(bridge_store_journal_episode(store, c.first, NULL, NULL));
	save = bridge_store_save_begin(store);
	slice_all(save, churn, &c);
	g_assert_true(c.added);
	g_assert_true(write_now(save, &error));
	g_assert_no_error(error);
	/* The journal keeps only the lines written since the save began. */
	{
		gsize length = 0;
		g_autofree char *text = read_file(journal, &length);
		g_autofree char *before =
		        g_strdup_printf("episode %s 50 ", first_id);

		g_assert_null(strstr(text, before));
		g_assert_nonnull(strstr(text, first_id));
	}
	reader = open_ok(path);
	g_assert_cmpint(bridge_store_find_episode(reader, first_id)->position,
	                ==, c.first->position);
	{
		g_autoptr(GPtrArray) all =
		        bridge_store_list_episodes(reader, NULL);

		for (guint i = 0; i < all->len; i++) {
			const BridgeEpisode *e = all->pdata[i];

			found = found || g_strcmp0(e->title,
			                           "Came during the save") == 0;
			g_assert_cmpstr(e->guid, !=, "g1");
		}
		g_assert_cmpuint(all->len, ==, 500);
	}
	g_assert_true(found);
	bridge_store_free(reader);
	/* A whole save while the text was made: that one stays. */
	save = bridge_store_save_begin(store);
	slice_all(save, NULL, NULL);
	c.first->position = 777;
	save_ok(store);
	c.first->position = 1;
	g_assert_true(write_now(save, &error));
	reader = open_ok(path);
	g_assert_cmpint(bridge_store_find_episode(reader, first_id)->position,
	                ==, 777);
	bridge_store_free(reader);
	bridge_store_free(store);
}

/* At the fourth slice, an episode comes to the feed @data. */
static void
add_late(guint slice, gpointer data)
{
	Churn *c = data;

	if (slice != 3 || c->added)
		return;
	bridge_store_get_episode(c->store, c->feed, "late", NULL);
	c->added = TRUE;
}

static void
test_save_restart_caches(void)
{
	g_autofree char *path = state_path();
	g_autoptr(GError) error = NULL;
	BridgeStore *store = open_ok(path);
	BridgeFeed *b = bridge_store_add_feed(store, "https://b.example/");
	BridgeFeed *a = bridge_store_add_feed(store, "https://a.example/");
	Churn c = { store, a, NULL, FALSE };
	BridgeStoreSave *save;
	BridgeStore *reader;
	guint cached_a, cached_b;

	g_test_summary("A save in slices that starts over keeps the caches it "
	               "made of feeds that did not change since, and makes "
	               "again those of feeds that did");
	for (guint i = 0; i < 400; i++) {
		g_autofree char *guid = g_strdup_printf("g%u", i);

		bridge_store_get_episode(store, i < 100 ? b : a, guid, NULL);
	}
	save_ok(store);
	bridge_store_feed_changed(store, a);
	bridge_store_feed_changed(store, b);
	cached_a = a->cached;
	cached_b = b->cached;
	save = bridge_store_save_begin(store);
	slice_all(save, add_late, &c);
	g_assert_true(c.added);
	g_assert_true(write_now(save, &error));
	g_assert_no_error(error);
	g_assert_cmpuint(b->cached, ==, cached_b + 1);
	g_assert_cmpuint(a->cached, ==, cached_a + 2);
	reader = open_ok(path);
	g_assert_false(bridge_store_feed_cache_lost(
	        reader, bridge_store_find_feed(reader, "https://a.example/")));
	g_assert_false(bridge_store_feed_cache_lost(
	        reader, bridge_store_find_feed(reader, "https://b.example/")));
	g_assert_nonnull(bridge_store_find_episode(reader, "late"));
	{
		g_autoptr(GPtrArray) all =
		        bridge_store_list_episodes(reader, NULL);

		g_assert_cmpuint(all->len, ==, 401);
	}
	bridge_store_free(reader);
	bridge_store_free(store);
}

static void
test_leftovers(void)
{
	g_autofree char *path = state_path();
	g_autofree char *save = g_strconcat(path, ".saving-a1B2c3", NULL);
	g_autofree char *journal =
	        g_strconcat(path, ".journal.saving-d4E5f6", NULL);
	g_autofree char *own = g_strconcat(path, ".saving-mine", NULL);
	g_autofree char *caches = g_strconcat(path, ".cache", NULL);
	g_autofree char *cache =
	        g_strconcat(caches, "/0123456789abcdef.saving-g7H8i9", NULL);
	g_autoptr(GError) error = NULL;
	BridgeStore *store = open_ok(path);

	g_test_summary("What a save killed half-way left (the state's "
	               "temporary file, the journal's, an episode cache's) "
	               "goes as the lock is taken; a file of another name "
	               "stays");
	save_ok(store);
	g_assert_cmpint(g_mkdir_with_parents(caches, 0700), ==, 0);
	g_assert_true(g_file_set_contents(cache, "half", -1, NULL));
	g_assert_true(g_file_set_contents(save, "half", -1, NULL));
	g_assert_true(g_file_set_contents(journal, "half", -1, NULL));
	g_assert_true(g_file_set_contents(own, "mine", -1, NULL));
	g_assert_true(bridge_store_lock(store, 1000, &error));
	g_assert_no_error(error);
	bridge_store_unlock(store);
	g_assert_false(g_file_test(save, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(journal, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(cache, G_FILE_TEST_EXISTS));
	g_assert_true(g_file_test(own, G_FILE_TEST_EXISTS));
	bridge_store_free(store);
}

/* A feed of three episodes, the first begun, saved; @ids gets theirs. */
static BridgeStore *
cached_store(const char *path, GStrv *ids)
{
	BridgeStore *store = open_ok(path);
	BridgeFeed *feed = bridge_store_add_feed(store, "https://c.example/");

	*ids = g_new0(char *, 4);

	for (guint i = 0; i < 3; i++) {
		g_autofree char *guid = g_strdup_printf("c%u", i);
		BridgeEpisode *episode =
		        bridge_store_get_episode(store, feed, guid, NULL);

		g_free(episode->url);
		episode->url = g_strdup_printf("https://c.example/%u.mp3", i);
		episode->published = 1700000000 + i;
		(*ids)[i] = g_strdup(episode->id);
	}
	bridge_store_find_episode(store, (*ids)[0])->position = 30;
	feed->etag = g_strdup("\"v1\"");
	feed->next_refresh = 1900000000;
	save_ok(store);
	return store;
}

/* Opens @path: the number of episodes, and whether the feed's is lost. */
static guint
open_counting(const char *path, gboolean *lost)
{
	BridgeStore *store = open_ok(path);
	BridgeFeed *feed = bridge_store_get_feeds(store)->pdata[0];
	g_autoptr(GPtrArray) all = bridge_store_list_episodes(store, NULL);
	guint n = all->len;

	*lost = bridge_store_feed_cache_lost(store, feed);
	if (*lost)
		g_assert_cmpint(feed->next_refresh, ==, 0);
	else
		g_assert_cmpint(feed->next_refresh, ==, 1900000000);
	bridge_store_free(store);
	return n;
}

static void
test_cache_lost(void)
{
	g_autofree char *path = state_path();
	g_auto(GStrv) ids = NULL;
	BridgeStore *store = cached_store(path, &ids);
	BridgeStore *again = NULL;
	BridgeFeed *feed = bridge_store_get_feeds(store)->pdata[0];
	g_autofree char *cache = g_strdup_printf("%s.cache/%s", path, feed->id);
	g_autofree char *bytes = NULL;
	gsize length = 0;
	gboolean lost = TRUE;

	g_test_summary("An episode cache that is missing, damaged, cut "
	               "short, partial or older than the key file loses only "
	               "what the feed says: the "
	               "episodes the listener touched stay, and the feed is "
	               "due for a refresh without validators, until one "
	               "brings it whole");
	g_assert_cmpuint(open_counting(path, &lost), ==, 3);
	g_assert_false(lost);
	bytes = read_file(cache, &length);

	/* Cut short, damaged, of another version, missing. */
	write_file(cache, "");
	g_assert_cmpuint(open_counting(path, &lost), ==, 1);
	g_assert_true(lost);
	g_assert_true(
	        g_file_set_contents(cache, bytes, (gssize)length / 2, NULL));
	g_assert_cmpuint(open_counting(path, &lost), ==, 1);
	g_assert_true(lost);
	bytes[0] ^= 0x55; /* its magic */
	g_assert_true(g_file_set_contents(cache, bytes, (gssize)length, NULL));
	g_assert_cmpuint(open_counting(path, &lost), ==, 1);
	g_assert_true(lost);
	g_assert_cmpint(g_unlink(cache), ==, 0);
	g_assert_cmpuint(open_counting(path, &lost), ==, 1);
	g_assert_true(lost);

	/* What is saved before a refresh comes is partial: still lost. */
	again = open_ok(path);
	feed = bridge_store_get_feeds(again)->pdata[0];
	g_assert_cmpint(bridge_store_find_episode(again, ids[0])->position, ==,
	                30);
	bridge_store_get_episode(again, feed, "c9", NULL);
	save_ok(again);
	g_assert_true(g_file_test(cache, G_FILE_TEST_IS_REGULAR));
	g_assert_cmpuint(open_counting(path, &lost), ==, 2);
	g_assert_true(lost);

	/* A refresh that took the feed whole: complete again. */
	for (guint i = 1; i < 3; i++) {
		g_autofree char *guid = g_strdup_printf("c%u", i);

		bridge_store_get_episode(again, feed, guid, NULL);
	}
	bridge_store_feed_changed(again, feed);
	g_assert_false(bridge_store_feed_cache_lost(again, feed));
	feed->next_refresh = 1900000000;
	save_ok(again);
	g_assert_cmpuint(open_counting(path, &lost), ==, 4);
	g_assert_false(lost);

	/* One older than the key file (a power cut) is read, and lost. */
	bytes[0] ^= 0x55;
	g_assert_true(g_file_set_contents(cache, bytes, (gssize)length, NULL));
	g_assert_cmpuint(open_counting(path, &lost), ==, 3);
	g_assert_true(lost);
	bridge_store_free(again);
	bridge_store_free(store);
}

static void
test_cache_written(void)
{
	g_autofree char *path = state_path();
	g_auto(GStrv) ids = NULL;
	BridgeStore *store = cached_store(path, &ids);
	BridgeFeed *feed = bridge_store_get_feeds(store)->pdata[0];
	g_autofree char *cache = g_strdup_printf("%s.cache/%s", path, feed->id);
	BridgeEpisode *untouched = bridge_store_find_episode(store, ids[1]);
	struct stat before, after;

	g_test_summary("A feed's cache is written when what the feed says "
	               "changed, not on a save of what the listener did; a "
	               "feed removed takes its cache along");
	g_assert_cmpint(g_stat(cache, &before), ==, 0);
	bridge_store_find_episode(store, ids[0])->position = 60;
	bridge_store_find_episode(store, ids[1])->starred = TRUE;
	save_ok(store);
	g_assert_cmpint(g_stat(cache, &after), ==, 0);
	g_assert_cmpuint(after.st_ino, ==, before.st_ino);

	/* A refresh changed a title: the cache follows. */
	g_free(untouched->title);
	untouched->title = g_strdup("Renamed");
	untouched->starred = FALSE;
	bridge_store_feed_changed(store, feed);
	save_ok(store);
	g_assert_cmpint(g_stat(cache, &after), ==, 0);
	g_assert_cmpuint(after.st_ino, !=, before.st_ino);
	{
		BridgeStore *again = open_ok(path);

		g_assert_cmpstr(bridge_store_find_episode(again, ids[1])->title,
		                ==, "Renamed");
		g_assert_false(
		        bridge_store_find_episode(again, ids[1])->starred);
		bridge_store_free(again);
	}

	bridge_store_remove_feed(store, feed);
	save_ok(store);
	g_assert_false(g_file_test(cache, G_FILE_TEST_EXISTS));
	bridge_store_free(store);
}

static void
test_heard(void)
{
	g_autofree char *path = state_path();
	g_auto(GStrv) ids = NULL;
	BridgeStore *store = cached_store(path, &ids);
	BridgeStore *again = NULL;
	BridgeFeed *feed = bridge_store_get_feeds(store)->pdata[0];
	g_autofree char *cache = g_strdup_printf("%s.cache/%s", path, feed->id);
	g_autofree char *text = NULL;
	g_autofree char *record = NULL;
	g_autofree char *heard_group = NULL;
	g_autofree char *starred_group = NULL;
	BridgeEpisode *heard = bridge_store_find_episode(store, ids[1]);
	BridgeEpisode *starred = bridge_store_find_episode(store, ids[2]);

	g_test_summary("An episode listened and nothing more is a record in "
	               "its feed's group, not a group; a record whose episode "
	               "is not known (its cache lost) waits for it, and is "
	               "kept meanwhile");
	heard->listened = TRUE;
	heard->listened_at = 1700000100;
	heard->last_played = 1700000050;
	starred->listened = TRUE;
	starred->starred = TRUE;
	save_ok(store);
	text = read_file(path, NULL);
	record = g_strdup_printf("\nheard=%s:1700000100:1700000050;\n", ids[1]);
	heard_group = g_strdup_printf("[episode %s]", ids[1]);
	starred_group = g_strdup_printf("[episode %s]", ids[2]);
	g_assert_nonnull(strstr(text, record));
	g_assert_null(strstr(text, heard_group));
	g_assert_nonnull(strstr(text, starred_group));
	g_clear_pointer(&text, g_free);

	/* Its cache lost: the record waits, and is written back. */
	g_assert_cmpint(g_unlink(cache), ==, 0);
	again = open_ok(path);
	g_assert_null(bridge_store_find_episode(again, ids[1]));
	save_ok(again);
	text = read_file(path, NULL);
	g_assert_nonnull(strstr(text, record));
	bridge_store_free(again);

	/* A refresh brings the episode back: listened, as it was. */
	again = open_ok(path);
	feed = bridge_store_get_feeds(again)->pdata[0];
	heard = bridge_store_get_episode(again, feed, "c1", NULL);
	g_assert_cmpstr(heard->id, ==, ids[1]);
	g_assert_true(heard->listened);
	g_assert_cmpint(heard->listened_at, ==, 1700000100);
	g_assert_cmpint(heard->last_played, ==, 1700000050);
	g_assert_true(bridge_store_find_episode(again, ids[2])->starred);
	bridge_store_free(again);
	bridge_store_free(store);
}

static void
test_upgrade(void)
{
	g_autofree char *path = state_path();
	g_autofree char *copy = g_strconcat(path, ".v1", NULL);
	g_autofree char *text = NULL;
	g_autofree char *kept = NULL;
	g_autoptr(GString) old =
	        g_string_new("[bridge]\nversion=1\n"
	                     "[feed f]\nurl=https://f.example/\n"
	                     "etag=\"e\"\n");
	BridgeStore *store = NULL;

	g_test_summary("A state of format 1 is read whole, and its first save "
	               "converts it: the file as it was is kept as STATE.v1, "
	               "the key file keeps only the episodes with a state of "
	               "their own (those listened and nothing more as records "
	               "in their feed's group), and nothing is lost");
	for (guint i = 0; i < 50; i++)
		g_string_append_printf(old,
		                       "[episode e%u]\nfeed_id=f\nguid=g%u\n"
		                       "url=https://f.example/%u.mp3\n"
		                       "title=Episode %u\npublished=%u\n"
		                       "listened=%s\n",
		                       i, i, i, i, 1700000000 + i,
		                       i < 10 ? "true" : "false");
	g_string_append(old, "[list later]\nepisodes=e20;e30;\n");
	write_file(path, old->str);
	store = open_ok(path);
	save_ok(store);
	bridge_store_free(store);

	kept = read_file(copy, NULL);
	g_assert_cmpstr(kept, ==, old->str);
	text = read_file(path, NULL);
	g_assert_nonnull(strstr(text, "\nversion=2\n"));
	g_assert_null(strstr(text, "[episode e9]"));
	g_assert_nonnull(strstr(text, "\nheard=e0:0:0;e1:0:0;"));
	g_assert_nonnull(strstr(text, "e9:0:0;\n"));
	g_assert_nonnull(strstr(text, "[episode e20]"));
	g_assert_null(strstr(text, "[episode e11]"));
	g_assert_nonnull(strstr(text, "\netag=\"e\"\n"));

	store = open_ok(path);
	{
		g_autoptr(GPtrArray) all =
		        bridge_store_list_episodes(store, NULL);
		BridgeList *later = bridge_store_get_list(store, NULL, FALSE);

		g_assert_cmpuint(all->len, ==, 50);
		g_assert_cmpstr(bridge_store_find_episode(store, "e11")->title,
		                ==, "Episode 11");
		g_assert_true(bridge_store_find_episode(store, "e9")->listened);
		g_assert_cmpuint(later->episodes->len, ==, 2);
		g_assert_false(bridge_store_feed_cache_lost(
		        store, bridge_store_find_feed(store, "f")));
	}
	bridge_store_free(store);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

	g_test_add_func("/store/empty", test_empty);
	g_test_add_func("/store/mode", test_mode);
	g_test_add_func("/store/round-trip", test_round_trip);
	g_test_add_func("/store/readable", test_readable);
	g_test_add_func("/store/ids", test_ids);
	g_test_add_func("/store/remove-feed", test_remove_feed);
	g_test_add_func("/store/move-feed", test_move_feed);
	g_test_add_func("/store/find-feed", test_find_feed);
	g_test_add_func("/store/find-episode", test_find_episode);
	g_test_add_func("/store/list-order", test_list_order);
	g_test_add_func("/store/refused/garbage", test_refused_garbage);
	g_test_add_func("/store/refused/no-bridge", test_refused_no_bridge);
	g_test_add_func("/store/refused/version", test_refused_version);
	g_test_add_func("/store/refused/missing-keys",
	                test_refused_missing_keys);
	g_test_add_func("/store/refused/unreadable", test_refused_unreadable);
	g_test_add_func("/store/episode-before-feed", test_episode_before_feed);
	g_test_add_func("/store/unknown-kept", test_unknown_kept);
	g_test_add_func("/store/save-failure/kept", test_save_failure_kept);
	g_test_add_func("/store/save-failure/read-only",
	                test_save_failure_read_only);
	g_test_add_func("/store/save-failure/not-a-directory",
	                test_save_failure_not_a_directory);
	g_test_add_func("/store/lock", test_lock);
	g_test_add_func("/store/lock/refused-reload", test_lock_refused_reload);
	g_test_add_func("/store/many", test_many);
	g_test_add_func("/store/lists/round-trip", test_lists_round_trip);
	g_test_add_func("/store/lists/dangling", test_lists_dangling);
	g_test_add_func("/store/set-guid", test_set_guid);
	g_test_add_func("/store/journal", test_journal);
	g_test_add_func("/store/journal-sync", test_journal_sync);
	g_test_add_func("/store/journal-listened", test_journal_listened);
	g_test_add_func("/store/save-slices", test_save_slices);
	g_test_add_func("/store/save-restart-caches", test_save_restart_caches);
	g_test_add_func("/store/leftovers", test_leftovers);
	g_test_add_func("/store/cache-lost", test_cache_lost);
	g_test_add_func("/store/cache-written", test_cache_written);
	g_test_add_func("/store/heard", test_heard);
	g_test_add_func("/store/upgrade", test_upgrade);

	return g_test_run();
}
