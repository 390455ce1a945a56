/*
 * The relay's record of which bytes of a cache file are there, and the
 * shape of its URLs: merging ranges as they touch, what is missing from
 * a byte on, the record as text (a damaged one refused), and the
 * episode id in a relay URL (anything else, or a path that climbs out,
 * is none).
 */
#include "core/relay-url.h"
#include "relay/relay-ranges.h"

static void
assert_text(const BridgeRanges *ranges, const char *want)
{
	g_autofree char *text = bridge_ranges_to_string(ranges);

	g_assert_cmpstr(text, ==, want);
}

static void
test_merge(void)
{
	g_autoptr(BridgeRanges) ranges = bridge_ranges_new();

	g_test_summary("Ranges merge when they overlap or touch, and stay "
	               "sorted");
	bridge_ranges_add(ranges, 100, 200);
	bridge_ranges_add(ranges, 300, 400);
	assert_text(ranges, "100-200,300-400");
	bridge_ranges_add(ranges, 0, 50);
	assert_text(ranges, "0-50,100-200,300-400");
	bridge_ranges_add(ranges, 200, 300);
	assert_text(ranges, "0-50,100-400");
	bridge_ranges_add(ranges, 40, 120);
	assert_text(ranges, "0-400");
	bridge_ranges_add(ranges, 10, 20);
	assert_text(ranges, "0-400");
	bridge_ranges_add(ranges, 500, 600);
	bridge_ranges_add(ranges, 450, 700);
	assert_text(ranges, "0-400,450-700");
	g_assert_cmpuint(bridge_ranges_bytes(ranges), ==, 650);
	bridge_ranges_clear(ranges);
	assert_text(ranges, "");
}

static void
test_missing(void)
{
	g_autoptr(BridgeRanges) ranges = bridge_ranges_new();

	g_test_summary("What is there from a byte on, and the first byte "
	               "missing, within the file's size");
	bridge_ranges_add(ranges, 0, 100);
	bridge_ranges_add(ranges, 200, 300);
	g_assert_cmpuint(bridge_ranges_end_from(ranges, 0), ==, 100);
	g_assert_cmpuint(bridge_ranges_end_from(ranges, 99), ==, 100);
	g_assert_cmpuint(bridge_ranges_end_from(ranges, 100), ==, 100);
	g_assert_cmpuint(bridge_ranges_end_from(ranges, 150), ==, 150);
	g_assert_cmpuint(bridge_ranges_end_from(ranges, 250), ==, 300);
	g_assert_cmpuint(bridge_ranges_next_missing(ranges, 50, 1000), ==, 100);
	g_assert_cmpuint(bridge_ranges_next_missing(ranges, 250, 280), ==, 280);
	g_assert_cmpuint(bridge_ranges_next_missing(ranges, 250, 0), ==, 300);
	g_assert_cmpuint(bridge_ranges_next_start(ranges, 100), ==, 200);
	g_assert_cmpuint(bridge_ranges_next_start(ranges, 200), ==,
	                 G_MAXUINT64);
	g_assert_false(bridge_ranges_is_whole(ranges, 300));
	g_assert_true(bridge_ranges_is_whole(ranges, 100));
	g_assert_false(bridge_ranges_is_whole(ranges, 0));
	bridge_ranges_add(ranges, 100, 200);
	g_assert_true(bridge_ranges_is_whole(ranges, 300));
}

static void
test_record(void)
{
	static const char *const damaged[] = {
		"x",
		"10",
		"5-5",
		"9-3",
		"0-10,5-20",
		"0-10,,",
		"0-10,20-1",
		"-1-5",
		"0-1-2",
		"0-10,10-20",
		"a-b",
		" 0-10",
		"0-18446744073709551616",
	};
	g_autoptr(BridgeRanges) parsed = bridge_ranges_parse("0-10,20-30");

	g_test_summary("The record reads back what was written; a damaged "
	               "one is refused, not half read");
	g_assert_nonnull(parsed);
	assert_text(parsed, "0-10,20-30");
	g_clear_pointer(&parsed, bridge_ranges_free);
	parsed = bridge_ranges_parse("");
	g_assert_nonnull(parsed);
	g_assert_cmpuint(bridge_ranges_bytes(parsed), ==, 0);
	for (guint i = 0; i < G_N_ELEMENTS(damaged); i++) {
		BridgeRanges *bad = bridge_ranges_parse(damaged[i]);

		if (bad != NULL)
			g_error("'%s' was read", damaged[i]);
	}
}

static void
test_urls(void)
{
	static const char *const none[] = {
		"http://127.0.0.1:1234/episode/abc",
		"http://127.0.0.1:1234/episode/.mp3",
		"http://127.0.0.1:1234/episode/../state.mp3",
		"http://127.0.0.1:1234/episode/a/b.mp3",
		"http://127.0.0.1:1234/episode/abc.mp3.x",
		"http://127.0.0.1:1234/episode/abc.mp3?x=1",
		"http://127.0.0.2:1234/episode/abc.mp3",
		"https://127.0.0.1:1234/episode/abc.mp3",
		"http://example.org/episode/abc.mp3",
		"podcasts/Show/episode/abc.mp3",
	};
	g_autofree char *url =
	        bridge_relay_url_make(4321, "0123abcd", "audio/mpeg", "x");
	g_autofree char *id = bridge_relay_url_episode(url, FALSE);
	g_autofree char *path_id =
	        bridge_relay_url_episode("/episode/0123abcd.m4a", TRUE);

	g_test_summary("A relay URL names its episode, of any port; nothing "
	               "else does");
	g_assert_cmpstr(url, ==, "http://127.0.0.1:4321/episode/0123abcd.mp3");
	g_assert_cmpstr(id, ==, "0123abcd");
	g_assert_cmpstr(path_id, ==, "0123abcd");
	for (guint i = 0; i < G_N_ELEMENTS(none); i++) {
		g_autofree char *found =
		        bridge_relay_url_episode(none[i], FALSE);

		g_assert_null(found);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add_func("/relay/ranges/merge", test_merge);
	g_test_add_func("/relay/ranges/missing", test_missing);
	g_test_add_func("/relay/ranges/record", test_record);
	g_test_add_func("/relay/urls", test_urls);
	return g_test_run();
}
