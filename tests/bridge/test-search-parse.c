/*
 * Directory answers as mpd-bridge reads them, and the last search that
 * `subscribe N` reads. No network: the query itself is tested end to end
 * in tests/bridge-search.
 */
#include "feeds/search-command.h"
#include "feeds/search.h"

#include <string.h>

static GPtrArray *
parse(BridgeSearchDirectory directory, const char *json, GError **error)
{
	return bridge_search_parse(directory, json, strlen(json), error);
}

static const BridgeSearchResult *
result_at(GPtrArray *results, guint index)
{
	g_assert_cmpuint(index, <, results->len);
	return results->pdata[index];
}

static void
test_itunes(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) results = parse(
	        BRIDGE_SEARCH_ITUNES,
	        "{\"resultCount\": 6, \"results\": ["
	        "{\"collectionName\": \"PyTorch Developer Podcast\","
	        " \"artistName\": \"PyTorch\", \"trackCount\": 83,"
	        " \"feedUrl\": \"https://feeds.simplecast.com/OB5FkIl8\"},"
	        "{\"collectionName\": \"Apple's own\", \"trackCount\": 4},"
	        "{\"trackName\": \"Caf\\u00e9 \\u65e5\\u672c\","
	        " \"artistName\": null,"
	        " \"feedUrl\": \" http://example.org/cafe \"},"
	        "{\"collectionName\": \"Again\", \"trackCount\": 1,"
	        " \"feedUrl\": \"https://feeds.simplecast.com/OB5FkIl8\"},"
	        "{\"collectionName\": \"Local\", \"feedUrl\": \"file:///x\"},"
	        "{\"collectionName\": \"\\u001b]0;x\\u0007Tab\\there\\n\","
	        " \"trackCount\": 2.0, \"feedUrl\": \"http://e.org/a b\"},"
	        "{\"collectionName\": \"\\u001b[2J \\u2028 \\u0085\","
	        " \"artistName\": \" \\t \", \"trackCount\": -3,"
	        " \"feedUrl\": \"http://example.org/blank\"}"
	        "]}",
	        &error);

	g_test_summary("iTunes' documented shape: results without a usable "
	               "feed URL and repeats are left out, text is cleaned, "
	               "counts may be missing");
	g_assert_no_error(error);
	g_assert_cmpuint(results->len, ==, 3);
	g_assert_cmpstr(result_at(results, 0)->title, ==,
	                "PyTorch Developer Podcast");
	g_assert_cmpstr(result_at(results, 0)->author, ==, "PyTorch");
	g_assert_cmpint(result_at(results, 0)->episodes, ==, 83);
	g_assert_cmpstr(result_at(results, 0)->feed_url, ==,
	                "https://feeds.simplecast.com/OB5FkIl8");
	g_assert_cmpstr(result_at(results, 1)->title, ==, "Café 日本");
	g_assert_null(result_at(results, 1)->author);
	g_assert_cmpint(result_at(results, 1)->episodes, ==, -1);
	g_assert_cmpstr(result_at(results, 1)->feed_url, ==,
	                "http://example.org/cafe");
	g_assert_cmpstr(result_at(results, 2)->title, ==, "[2J");
	g_assert_null(result_at(results, 2)->author);
	g_assert_cmpint(result_at(results, 2)->episodes, ==, -1);
}

static void
test_podcastindex(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) results = parse(
	        BRIDGE_SEARCH_PODCASTINDEX,
	        "{\"status\": \"true\", \"feeds\": ["
	        "{\"id\": 4115011, \"title\": \"PyTorch Developer Podcast\","
	        " \"url\": \"https://feeds.simplecast.com/OB5FkIl8\","
	        " \"author\": \"Team PyTorch\", \"episodeCount\": 83},"
	        "{\"id\": 2, \"title\": null, \"url\": \"http://e.org/2\"}"
	        "], \"count\": 2, \"description\": \"Found matching feeds.\"}",
	        &error);

	g_test_summary("Podcast Index's documented shape");
	g_assert_no_error(error);
	g_assert_cmpuint(results->len, ==, 2);
	g_assert_cmpstr(result_at(results, 0)->author, ==, "Team PyTorch");
	g_assert_cmpint(result_at(results, 0)->episodes, ==, 83);
	g_assert_null(result_at(results, 1)->title);
	g_assert_cmpstr(result_at(results, 1)->feed_url, ==, "http://e.org/2");
}

static void
assert_bad(BridgeSearchDirectory directory, const char *json, gssize length,
           const char *message)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) results = bridge_search_parse(
	        directory, json, length >= 0 ? (gsize)length : strlen(json),
	        &error);

	g_assert_null(results);
	g_assert_error(error, BRIDGE_SEARCH_ERROR,
	               BRIDGE_SEARCH_ERROR_BAD_ANSWER);
	if (strstr(error->message, message) == NULL)
		g_error("'%s' does not say '%s'", error->message, message);
}

static void
test_bad(void)
{
	g_autofree char *deep = NULL;
	char nul[] = "{\"results\": [{\"feedUrl\": \"http://a\0b\"}]}";

	g_test_summary("answers that are not JSON, or not of the "
	               "directory's shape, are errors that say which");
	assert_bad(BRIDGE_SEARCH_ITUNES, "", -1, "not JSON");
	assert_bad(BRIDGE_SEARCH_ITUNES, "<html>500</html>", -1, "not JSON");
	assert_bad(BRIDGE_SEARCH_ITUNES, "{\"results\": [", -1, "not JSON");
	assert_bad(BRIDGE_SEARCH_ITUNES, "[]", -1,
	           "not iTunes search JSON: it is not an object");
	assert_bad(BRIDGE_SEARCH_ITUNES, "{}", -1, "results is missing");
	assert_bad(BRIDGE_SEARCH_ITUNES, "{\"results\": {}}", -1,
	           "results is not an array");
	assert_bad(BRIDGE_SEARCH_ITUNES, "{\"results\": [1]}", -1,
	           "result 1 is not an object");
	assert_bad(BRIDGE_SEARCH_ITUNES, "{\"results\": [{\"feedUrl\": 7}]}",
	           -1, "feedUrl of result 1 is not a string");
	assert_bad(BRIDGE_SEARCH_ITUNES,
	           "{\"results\": [{}, {\"trackCount\": \"83\"}]}", -1,
	           "trackCount of result 2 is not a number");
	assert_bad(BRIDGE_SEARCH_ITUNES,
	           "{\"results\": [{\"collectionName\": []}]}", -1,
	           "collectionName of result 1 is not a string");
	assert_bad(BRIDGE_SEARCH_PODCASTINDEX, "{\"results\": []}", -1,
	           "not Podcast Index search JSON: feeds is missing");
	assert_bad(BRIDGE_SEARCH_PODCASTINDEX,
	           "{\"status\": \"false\", \"description\": \"No "
	           "\\u001bkey\"}",
	           -1, "status false: No key");
	assert_bad(BRIDGE_SEARCH_PODCASTINDEX,
	           "{\"status\": false, \"feeds\": []}", -1, "status false");
	assert_bad(BRIDGE_SEARCH_ITUNES, nul, sizeof(nul) - 1, "not JSON");
	/* json-glib would recurse until the stack ran out. */
	deep = g_strnfill(500000, '[');
	assert_bad(BRIDGE_SEARCH_ITUNES, deep, -1, "nested too deep");
}

static void
test_clean_text(void)
{
	static const struct {
		const char *text;
		const char *clean;
	} cases[] = {
		{ "plain", "plain" },
		{ "  two\r\n\tlines  ", "two lines" },
		{ "\033[31mred\033[0m\a", "[31mred[0m" },
		{ "nel\xc2\x85 and csi\xc2\x9b", "nel and csi" },
		{ "line\xe2\x80\xa8separator", "line separator" },
		{ "bad \xff byte", "bad \xef\xbf\xbd byte" },
		{ "\x01\x02\x7f", NULL },
		{ "", NULL },
	};

	g_test_summary("what reaches a terminal or MPD has no control "
	               "characters");
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *clean =
		        bridge_search_clean_text(cases[i].text);

		g_assert_cmpstr(clean, ==, cases[i].clean);
	}
	g_assert_true(bridge_search_is_feed_url("https://e.org/f?x=1"));
	g_assert_false(bridge_search_is_feed_url("https:///nohost"));
	g_assert_false(bridge_search_is_feed_url("feed://e.org/f"));
	g_assert_false(bridge_search_is_feed_url("http://e.org/\x1b[2J"));
}

static BridgeConfig *
load_config(void)
{
	g_autofree char *none =
	        g_build_filename(g_get_user_config_dir(), "none", NULL);
	g_autoptr(GError) error = NULL;
	BridgeConfig *config = bridge_config_load(none, &error);

	g_assert_no_error(error);
	return config;
}

static void
assert_resolve_fails(const BridgeConfig *config, const char *number, int code,
                     const char *message)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *url = bridge_search_resolve(config, number, &error);

	g_assert_null(url);
	g_assert_error(error, BRIDGE_SEARCH_ERROR, code);
	if (strstr(error->message, message) == NULL)
		g_error("'%s' does not say '%s'", error->message, message);
}

static void
test_last_search(void)
{
	BridgeConfig *config = load_config();
	const char *const terms[] = { "pytorch", "dev", NULL };
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) results =
	        parse(BRIDGE_SEARCH_ITUNES,
	              "{\"results\": [{\"feedUrl\": \"http://e.org/1\"},"
	              "{\"feedUrl\": \"http://e.org/2\"}]}",
	              &error);
	g_autoptr(GPtrArray) none = g_ptr_array_new();
	g_autofree char *path = g_build_filename(config->cache_directory,
	                                         "last-search.json", NULL);
	g_autofree char *url = NULL;

	g_test_summary("subscribe N reads the last search; before any, or "
	               "past its end, it says what to do");
	g_assert_no_error(error);
	g_assert_true(bridge_search_is_number("12"));
	g_assert_false(bridge_search_is_number("+1"));
	g_assert_false(bridge_search_is_number("1e3"));
	g_assert_false(bridge_search_is_number(""));
	g_assert_false(bridge_search_is_number("12345678901"));
	assert_resolve_fails(config, "1", BRIDGE_SEARCH_ERROR_NO_RESULT,
	                     "no search yet: run mpd-bridge search TERMS");

	g_assert_true(bridge_search_save(config->cache_directory,
	                                 BRIDGE_SEARCH_ITUNES, terms, results,
	                                 &error));
	g_assert_no_error(error);
	url = bridge_search_resolve(config, "2", &error);
	g_assert_no_error(error);
	g_assert_cmpstr(url, ==, "http://e.org/2");
	assert_resolve_fails(config, "3", BRIDGE_SEARCH_ERROR_NO_RESULT,
	                     "the last search found 2 podcasts");
	assert_resolve_fails(config, "0", BRIDGE_SEARCH_ERROR_NO_RESULT,
	                     "choose a number from 1 to 2");

	g_assert_true(bridge_search_save(config->cache_directory,
	                                 BRIDGE_SEARCH_ITUNES, terms, none,
	                                 &error));
	assert_resolve_fails(config, "1", BRIDGE_SEARCH_ERROR_NO_RESULT,
	                     "the last search found no podcasts");

	g_assert_true(
	        g_file_set_contents(path, "{\"results\": [1]}", -1, &error));
	assert_resolve_fails(config, "1", BRIDGE_SEARCH_ERROR_CACHE,
	                     "run mpd-bridge search TERMS again");
	g_assert_true(g_file_set_contents(path, "not json", -1, &error));
	assert_resolve_fails(config, "1", BRIDGE_SEARCH_ERROR_CACHE,
	                     "cannot read the last search");
	bridge_config_free(config);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add_func("/search/parse/itunes", test_itunes);
	g_test_add_func("/search/parse/podcastindex", test_podcastindex);
	g_test_add_func("/search/parse/bad", test_bad);
	g_test_add_func("/search/clean-text", test_clean_text);
	g_test_add_func("/search/last-search", test_last_search);
	return g_test_run();
}
