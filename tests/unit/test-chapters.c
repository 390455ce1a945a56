/*
 * Chapter lists: the JSON chapters reader, its limits and its errors, an
 * episode's Podlove chapters, AntennaPod's merge, jump points and the JSON
 * written back.
 */
#include <feed/feed.h>

#include <string.h>

static FeedChapterList *
parse(const char *json, GError **error)
{
	return feed_chapter_list_new_from_json(json, strlen(json), error);
}

static FeedChapterList *
parse_ok(const char *json)
{
	g_autoptr(GError) error = NULL;
	FeedChapterList *list = parse(json, &error);

	g_assert_no_error(error);
	g_assert_nonnull(list);
	return list;
}

/* Checks that @json fails with FEED_ERROR_PARSE and a message with @words. */
static void
assert_bad(const char *json, const char *words)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChapterList) list = parse(json, &error);

	g_assert_null(list);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_PARSE);
	if (strstr(error->message, words) == NULL)
		g_test_fail_printf("'%s' gave \"%s\", which does not say "
		                   "\"%s\"",
		                   json, error->message, words);
}

static void
test_valid(void)
{
	g_autoptr(FeedChapterList) list = parse_ok(
	        "{\"version\": \"1.2.0\", \"author\": \"x\", \"chapters\": ["
	        "{\"startTime\": 0, \"title\": \"Intro\", "
	        "\"img\": \"https://example.com/a.jpg\", "
	        "\"url\": \"https://example.com/\", \"endTime\": 90.5},"
	        "{\"startTime\": 90.5, \"title\": \"Talk\", \"toc\": true,"
	        " \"location\": {\"name\": \"x\"}},"
	        "{\"startTime\": 3600, \"title\": null}]}");
	const FeedChapter *c;

	g_test_summary("a document with every member is read whole");
	g_assert_cmpuint(feed_chapter_list_get_n_chapters(list), ==, 3);
	g_assert_cmpuint(feed_chapter_list_get_n_jumps(list), ==, 3);
	c = feed_chapter_list_get_chapter(list, 0);
	g_assert_cmpint(feed_chapter_get_start_ms(c), ==, 0);
	g_assert_cmpint(feed_chapter_get_end(c), ==, 90500);
	g_assert_cmpstr(feed_chapter_get_title(c), ==, "Intro");
	g_assert_cmpstr(feed_chapter_get_image(c), ==,
	                "https://example.com/a.jpg");
	g_assert_cmpstr(feed_chapter_get_href(c), ==, "https://example.com/");
	g_assert_true(feed_chapter_is_toc(c));
	c = feed_chapter_list_get_chapter(list, 1);
	g_assert_cmpint(feed_chapter_get_start_ms(c), ==, 90500);
	g_assert_cmpint(feed_chapter_get_start(c), ==, 90);
	g_assert_cmpint(feed_chapter_get_end(c), ==, -1);
	g_assert_null(feed_chapter_get_image(c));
	c = feed_chapter_list_get_chapter(list, 2);
	g_assert_cmpint(feed_chapter_get_start_ms(c), ==, 3600000);
	g_assert_cmpstr(feed_chapter_get_title(c), ==, "");
}

static void
test_empty(void)
{
	g_autoptr(FeedChapterList) list =
	        parse_ok("{\"version\": \"1.2.0\", \"chapters\": []}");

	g_test_summary("an empty chapters array is an empty list");
	g_assert_cmpuint(feed_chapter_list_get_n_chapters(list), ==, 0);
	g_assert_cmpint(feed_chapter_list_find_jump(list, 0), ==, -1);
}

static void
test_sorted(void)
{
	g_autoptr(FeedChapterList) list =
	        parse_ok("{\"version\": \"1\", \"chapters\": ["
	                 "{\"startTime\": 30, \"title\": \"C\"},"
	                 "{\"startTime\": 10, \"title\": \"B1\"},"
	                 "{\"startTime\": 0, \"title\": \"A\"},"
	                 "{\"startTime\": 10, \"title\": \"B2\"}]}");
	static const char *const order[] = { "A", "B1", "B2", "C" };

	g_test_summary("chapters are sorted by start, ties in document order");
	g_assert_cmpuint(feed_chapter_list_get_n_chapters(list), ==, 4);
	for (guint i = 0; i < G_N_ELEMENTS(order); i++)
		g_assert_cmpstr(feed_chapter_get_title(
		                        feed_chapter_list_get_chapter(list, i)),
		                ==, order[i]);
}

static void
test_toc(void)
{
	g_autoptr(FeedChapterList) list = parse_ok(
	        "{\"version\": \"1.2.0\", \"chapters\": ["
	        "{\"startTime\": 0, \"title\": \"A\"},"
	        "{\"startTime\": 5, \"title\": \"image\", \"toc\": false},"
	        "{\"startTime\": 10, \"title\": \"B\", \"toc\": true}]}");

	g_test_summary("toc:false chapters are kept but are not jump points");
	g_assert_cmpuint(feed_chapter_list_get_n_chapters(list), ==, 3);
	g_assert_false(
	        feed_chapter_is_toc(feed_chapter_list_get_chapter(list, 1)));
	g_assert_cmpuint(feed_chapter_list_get_n_jumps(list), ==, 2);
	g_assert_cmpstr(
	        feed_chapter_get_title(feed_chapter_list_get_jump(list, 1)), ==,
	        "B");
	/* At 7 s, the hidden chapter plays, but the jump point is A. */
	g_assert_cmpint(feed_chapter_list_find_jump(list, 7000), ==, 0);
}

static void
test_fractional(void)
{
	g_autoptr(FeedChapterList) list =
	        parse_ok("{\"version\": \"1.2.0\", \"chapters\": ["
	                 "{\"startTime\": 1.25}, {\"startTime\": 2.0004},"
	                 "{\"startTime\": 3.0006}, {\"startTime\": 1e2},"
	                 "{\"startTime\": 0.001}]}");
	static const gint64 expected[] = { 1, 1250, 2000, 3001, 100000 };

	g_test_summary("fractional starts round to the millisecond");
	for (guint i = 0; i < G_N_ELEMENTS(expected); i++)
		g_assert_cmpint(feed_chapter_get_start_ms(
		                        feed_chapter_list_get_chapter(list, i)),
		                ==, expected[i]);
}

static void
test_missing(void)
{
	g_test_summary("version, chapters and startTime are required");
	assert_bad("{\"chapters\": []}", "no version");
	assert_bad("{\"version\": null, \"chapters\": []}", "no version");
	assert_bad("{\"version\": \"1.2.0\"}", "no chapters");
	assert_bad("{\"version\": \"1.2.0\", \"chapters\": ["
	           "{\"startTime\": 1}, {\"startTime\": 2},"
	           "{\"title\": \"no start\"}]}",
	           "chapter 3 has no startTime");
	assert_bad("", "not a JSON chapters document");
	assert_bad("   ", "not a JSON chapters document");
}

static void
test_types(void)
{
	g_test_summary("members of the wrong type are named");
	assert_bad("[]", "not a JSON object");
	assert_bad("\"x\"", "not a JSON object");
	assert_bad("{\"version\": 1.2, \"chapters\": []}",
	           "version is not a string");
	assert_bad("{\"version\": \"1\", \"chapters\": {}}",
	           "chapters are not an array");
	assert_bad("{\"version\": \"1\", \"chapters\": [1]}",
	           "chapter 1 is not an object");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": "
	           "\"12\"}]}",
	           "startTime of chapter 1 is not a number");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": "
	           "true}]}",
	           "startTime of chapter 1 is not a number");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": "
	           "[1]}]}",
	           "startTime of chapter 1 is not a number");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": 1, "
	           "\"title\": 5}]}",
	           "title of chapter 1 is not a string");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": 1, "
	           "\"img\": {}}]}",
	           "img of chapter 1 is not a string");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": 1, "
	           "\"toc\": \"false\"}]}",
	           "toc of chapter 1 is not true or false");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": 1, "
	           "\"endTime\": \"2\"}]}",
	           "endTime of chapter 1 is not a number");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": 1,}]}",
	           "not a JSON chapters document");
}

static void
test_range(void)
{
	g_autoptr(FeedChapterList) list = NULL;

	g_test_summary("negative, huge and non-finite times are refused");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": -1}]}",
	           "startTime of chapter 1 is negative");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": "
	           "-0.5}]}",
	           "negative");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": "
	           "1e11}]}",
	           "beyond");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": "
	           "99999999999999999999999999}]}",
	           "not a JSON chapters document");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": "
	           "1e999}]}",
	           "not a JSON chapters document");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": "
	           "NaN}]}",
	           "not a JSON chapters document");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": "
	           "Infinity}]}",
	           "not a JSON chapters document");
	assert_bad("{\"version\": \"1\", \"chapters\": [{\"startTime\": 1, "
	           "\"endTime\": -3}]}",
	           "endTime of chapter 1 is negative");

	/* An end before the start says nothing: it is dropped. */
	list = parse_ok("{\"version\": \"1\", \"chapters\": [{\"startTime\": "
	                "10, \"endTime\": 5}]}");
	g_assert_cmpint(
	        feed_chapter_get_end(feed_chapter_list_get_chapter(list, 0)),
	        ==, -1);
}

static char *
many_chapters(guint n)
{
	GString *json = g_string_new("{\"version\": \"1\", \"chapters\": [");

	for (guint i = 0; i < n; i++)
		g_string_append_printf(json, "%s{\"startTime\": %u}",
		                       i > 0 ? "," : "", i);
	g_string_append(json, "]}");
	return g_string_free(json, FALSE);
}

static void
test_count(void)
{
	g_autofree char *most = many_chapters(FEED_CHAPTERS_MAX_CHAPTERS);
	g_autofree char *over = many_chapters(FEED_CHAPTERS_MAX_CHAPTERS + 1);
	g_autoptr(FeedChapterList) list = parse_ok(most);

	g_test_summary("10,000 chapters are read, 10,001 refused");
	g_assert_cmpuint(feed_chapter_list_get_n_chapters(list), ==, 10000);
	assert_bad(over, "10001 chapters, more than the 10000 allowed");
}

/* A document nested @levels deep, counting its root object. */
static char *
nested(guint levels)
{
	g_autofree char *open = g_strnfill(levels - 1, '[');
	g_autofree char *close = g_strnfill(levels - 1, ']');

	return g_strdup_printf("{\"version\": \"1\", \"chapters\": [], "
	                       "\"x\": %s%s}",
	                       open, close);
}

static void
test_depth(void)
{
	gsize n = 100000;
	g_autofree char *deep = g_malloc(2 * n + 1);
	g_autofree char *ok = nested(32);
	g_autofree char *over = nested(33);
	g_autoptr(FeedChapterList) list = NULL;

	g_test_summary("deep nesting is refused before json-glib sees it");
	memset(deep, '[', n);
	memset(deep + n, ']', n);
	deep[2 * n] = '\0';
	assert_bad(deep, "nested deeper than 32 levels");
	assert_bad(over, "nested deeper than 32 levels");
	list = parse_ok(ok);
	g_clear_pointer(&list, feed_chapter_list_unref);

	/* Brackets inside strings, escaped quotes too, do not count. */
	list = parse_ok("{\"version\": \"\\\"[[\", \"chapters\": "
	                "[{\"startTime\": 1, \"title\": "
	                "\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"}]}");
	g_assert_cmpuint(feed_chapter_list_get_n_chapters(list), ==, 1);
}

static void
test_urls(void)
{
	g_autoptr(FeedChapterList) list = parse_ok(
	        "{\"version\": \"1\", \"chapters\": ["
	        "{\"startTime\": 0, \"img\": \"file:///etc/passwd\","
	        " \"url\": \"javascript:alert(1)\"},"
	        "{\"startTime\": 1, \"img\": \"/relative.jpg\","
	        " \"url\": \"ftp://example.com/\"},"
	        "{\"startTime\": 2, \"img\": \"HTTP://example.com/a.png\","
	        " \"url\": \" https://example.com/x \"},"
	        "{\"startTime\": 3, \"img\": \"http://[bad/\","
	        " \"url\": \"\"},"
	        "{\"startTime\": 4, \"img\": \"https:no-host.jpg\","
	        " \"url\": \"http:///path\"}]}");
	const FeedChapter *c;

	g_test_summary("img and url are kept only when http or https, with a "
	               "host");
	for (guint i = 0; i < 2; i++) {
		c = feed_chapter_list_get_chapter(list, i);
		g_assert_null(feed_chapter_get_image(c));
		g_assert_null(feed_chapter_get_href(c));
	}
	c = feed_chapter_list_get_chapter(list, 2);
	g_assert_cmpstr(feed_chapter_get_image(c), ==,
	                "HTTP://example.com/a.png");
	g_assert_cmpstr(feed_chapter_get_href(c), ==, "https://example.com/x");
	for (guint i = 3; i < 5; i++) {
		c = feed_chapter_list_get_chapter(list, i);
		g_assert_null(feed_chapter_get_image(c));
		g_assert_null(feed_chapter_get_href(c));
	}
}

static void
test_utf8(void)
{
	static const char bad_title[] =
	        "{\"version\": \"1\", \"chapters\": [{\"startTime\": 0, "
	        "\"title\": \"caf\xc3\"}]}";
	static const char nul[] = "{\"version\": \"1\", \"chapters\": []}\0"
	                          "garbage";
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChapterList) list = NULL;
	const char *title;

	g_test_summary("invalid UTF-8 and NUL bytes are refused, by offset");
	assert_bad(bad_title, "not valid UTF-8 at byte 60");
	list = feed_chapter_list_new_from_json(nul, sizeof(nul) - 1, &error);
	g_assert_null(list);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_PARSE);
	g_assert_nonnull(strstr(error->message, "not valid UTF-8"));
	g_clear_error(&error);

	list = parse_ok("{\"version\": \"1\", \"chapters\": [{\"startTime\": "
	                "0, \"title\": \"caf\xc3\xa9 \\u00e9\"}]}");
	g_assert_cmpstr(
	        feed_chapter_get_title(feed_chapter_list_get_chapter(list, 0)),
	        ==, "caf\xc3\xa9 \xc3\xa9");
	g_clear_pointer(&list, feed_chapter_list_unref);

	/*
	 * Found by fuzz-chapters: json-glib 1.6 (Debian 12) decodes a lone
	 * surrogate to bytes that are not UTF-8; 1.10 (Debian 13) refuses
	 * the document. Either way nothing that is not UTF-8 comes out.
	 */
	list = parse("{\"version\": \"1\", \"chapters\": [{\"startTime\": "
	             "0, \"title\": \"a \\ud83c\\script\", "
	             "\"url\": \"https://example.com/\\ud83c\\sx\"}]}",
	             &error);
	if (list == NULL) {
		g_assert_error(error, FEED_ERROR, FEED_ERROR_PARSE);
		g_assert_true(g_utf8_validate(error->message, -1, NULL));
		return;
	}
	title = feed_chapter_get_title(feed_chapter_list_get_chapter(list, 0));
	g_assert_true(g_utf8_validate(title, -1, NULL));
	g_assert_true(g_str_has_prefix(title, "a "));
	g_assert_null(
	        feed_chapter_get_href(feed_chapter_list_get_chapter(list, 0)));
}

static void
test_size(void)
{
	gsize n = FEED_CHAPTERS_MAX_SIZE + 1;
	g_autofree char *big = g_malloc(n);
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChapterList) list = NULL;

	g_test_summary("more than 4 MiB is refused before it is read");
	memset(big, ' ', n);
	list = feed_chapter_list_new_from_json(big, n, &error);
	g_assert_null(list);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_TOO_LARGE);
}

/* Podlove chapters from a feed */

static const char podlove_feed[] =
        "<rss version=\"2.0\" "
        "xmlns:psc=\"http://podlove.org/simple-chapters\">"
        "<channel><title>T</title><item><title>E</title><guid>e</guid>"
        "<psc:chapters>"
        "<psc:chapter start=\"00:01:00.500\" title=\"Second\" "
        "href=\"https://example.com/2\"/>"
        "<psc:chapter start=\"0\" title=\"First\" "
        "image=\"https://example.com/1.jpg\"/>"
        "</psc:chapters></item></channel></rss>";

static FeedChapterList *
podlove_list(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = feed_channel_new_from_data(
	        podlove_feed, strlen(podlove_feed), NULL, &error);

	g_assert_no_error(error);
	return feed_chapter_list_new_from_episode(
	        feed_channel_get_episode(channel, 0));
}

static void
test_episode(void)
{
	g_autoptr(FeedChapterList) list = podlove_list();
	const FeedChapter *c;

	g_test_summary("an episode's Podlove chapters, sorted, all jumps");
	g_assert_cmpuint(feed_chapter_list_get_n_chapters(list), ==, 2);
	g_assert_cmpuint(feed_chapter_list_get_n_jumps(list), ==, 2);
	c = feed_chapter_list_get_chapter(list, 0);
	g_assert_cmpstr(feed_chapter_get_title(c), ==, "First");
	g_assert_cmpint(feed_chapter_get_end(c), ==, -1);
	g_assert_true(feed_chapter_is_toc(c));
	c = feed_chapter_list_get_chapter(list, 1);
	g_assert_cmpint(feed_chapter_get_start_ms(c), ==, 60500);
	g_assert_cmpint(feed_chapter_get_start(c), ==, 60);
}

/* Merging */

static void
assert_titles(const FeedChapterList *list, const char *expected)
{
	g_autoptr(GString) got = g_string_new(NULL);

	for (guint i = 0; i < feed_chapter_list_get_n_chapters(list); i++)
		g_string_append_printf(
		        got, "%s%s", i > 0 ? "," : "",
		        feed_chapter_get_title(
		                feed_chapter_list_get_chapter(list, i)));
	g_assert_cmpstr(got->str, ==, expected);
}

static void
test_merge_longer(void)
{
	g_autoptr(FeedChapterList) podlove = podlove_list();
	g_autoptr(FeedChapterList) json = parse_ok(
	        "{\"version\": \"1\", \"chapters\": [{\"startTime\": 0, "
	        "\"title\": \"J1\"}, {\"startTime\": 30, \"title\": \"J2\"},"
	        "{\"startTime\": 60, \"title\": \"J3\"}]}");
	g_autoptr(FeedChapterList) one = parse_ok(
	        "{\"version\": \"1\", \"chapters\": [{\"startTime\": 0, "
	        "\"title\": \"only\"}]}");
	g_autoptr(FeedChapterList) m1 = feed_chapter_list_merge(podlove, json);
	g_autoptr(FeedChapterList) m2 = feed_chapter_list_merge(json, podlove);
	g_autoptr(FeedChapterList) m3 = feed_chapter_list_merge(one, podlove);

	g_test_summary("the longer list wins whole, in either order");
	g_assert_true(m1 == json);
	g_assert_true(m2 == json);
	g_assert_true(m3 == podlove);
}

static void
test_merge_null(void)
{
	g_autoptr(FeedChapterList) podlove = podlove_list();
	g_autoptr(FeedChapterList) m1 = feed_chapter_list_merge(podlove, NULL);
	g_autoptr(FeedChapterList) m2 = feed_chapter_list_merge(NULL, podlove);
	g_autoptr(FeedChapterList) m3 = feed_chapter_list_merge(NULL, NULL);

	g_test_summary("a NULL list leaves the other; two give an empty one");
	g_assert_true(m1 == podlove);
	g_assert_true(m2 == podlove);
	g_assert_nonnull(m3);
	g_assert_cmpuint(feed_chapter_list_get_n_chapters(m3), ==, 0);
}

static void
test_merge_fields(void)
{
	g_autoptr(FeedChapterList) podlove = podlove_list();
	/* Within a second of 0 and 60.5; the first has no title. */
	g_autoptr(FeedChapterList) json = parse_ok(
	        "{\"version\": \"1\", \"chapters\": [{\"startTime\": 0.9}, "
	        "{\"startTime\": 61, \"title\": \"JSON second\", "
	        "\"img\": \"https://example.com/j.jpg\", \"toc\": false, "
	        "\"endTime\": 70}]}");
	g_autoptr(FeedChapterList) m1 = feed_chapter_list_merge(podlove, json);
	g_autoptr(FeedChapterList) m2 = feed_chapter_list_merge(json, podlove);
	const FeedChapter *c;

	g_test_summary("lists of one length within a second merge field by "
	               "field, JSON first");
	for (guint k = 0; k < 2; k++) {
		const FeedChapterList *m = k == 0 ? m1 : m2;

		g_assert_true(m != json && m != podlove);
		assert_titles(m, "First,JSON second");
		c = feed_chapter_list_get_chapter(m, 0);
		g_assert_cmpint(feed_chapter_get_start_ms(c), ==, 900);
		g_assert_cmpstr(feed_chapter_get_image(c), ==,
		                "https://example.com/1.jpg");
		c = feed_chapter_list_get_chapter(m, 1);
		g_assert_cmpint(feed_chapter_get_start_ms(c), ==, 61000);
		g_assert_cmpstr(feed_chapter_get_image(c), ==,
		                "https://example.com/j.jpg");
		g_assert_cmpstr(feed_chapter_get_href(c), ==,
		                "https://example.com/2");
		g_assert_cmpint(feed_chapter_get_end(c), ==, 70000);
		g_assert_false(feed_chapter_is_toc(c));
		g_assert_cmpuint(feed_chapter_list_get_n_jumps(m), ==, 1);
	}
}

static void
test_merge_apart(void)
{
	g_autoptr(FeedChapterList) podlove = podlove_list();
	/* Same length, but 2 s off: no merge; the richer list wins. */
	g_autoptr(FeedChapterList) bare = parse_ok(
	        "{\"version\": \"1\", \"chapters\": [{\"startTime\": 2}, "
	        "{\"startTime\": 62}]}");
	g_autoptr(FeedChapterList) titled = parse_ok(
	        "{\"version\": \"1\", \"chapters\": [{\"startTime\": 2, "
	        "\"title\": \"a\", \"url\": \"https://example.com/\"}, "
	        "{\"startTime\": 62, \"title\": \"b\"}]}");
	/* Podlove scores 4 (two titles, a link, an image). */
	g_autoptr(FeedChapterList) rich = parse_ok(
	        "{\"version\": \"1\", \"chapters\": [{\"startTime\": 2, "
	        "\"title\": \"a\", \"url\": \"https://example.com/\"}, "
	        "{\"startTime\": 62, \"title\": \"b\", "
	        "\"img\": \"https://example.com/b.jpg\"}]}");
	g_autoptr(FeedChapterList) m1 = feed_chapter_list_merge(podlove, bare);
	g_autoptr(FeedChapterList) m2 =
	        feed_chapter_list_merge(titled, podlove);
	g_autoptr(FeedChapterList) m3 = feed_chapter_list_merge(podlove, rich);

	g_test_summary("lists too far apart are not merged: the one that says "
	               "more wins, JSON on a tie");
	g_assert_true(m1 == podlove);
	g_assert_true(m2 == podlove);
	g_assert_true(m3 == rich);
}

static void
test_merge_same_kind(void)
{
	g_autoptr(FeedChapterList) a = parse_ok(
	        "{\"version\": \"1\", \"chapters\": [{\"startTime\": 0, "
	        "\"title\": \"A\"}, {\"startTime\": 10}]}");
	g_autoptr(FeedChapterList) b = parse_ok(
	        "{\"version\": \"1\", \"chapters\": [{\"startTime\": 0.5}, "
	        "{\"startTime\": 10, \"title\": \"B\"}]}");
	g_autoptr(FeedChapterList) m = feed_chapter_list_merge(a, b);

	g_test_summary("two lists of one kind prefer the second");
	assert_titles(m, "A,B");
	g_assert_cmpint(
	        feed_chapter_get_start_ms(feed_chapter_list_get_chapter(m, 0)),
	        ==, 500);
}

/* Jumps */

static void
test_find_jump(void)
{
	g_autoptr(FeedChapterList) list = parse_ok(
	        "{\"version\": \"1\", \"chapters\": ["
	        "{\"startTime\": 10}, {\"startTime\": 20, \"toc\": false},"
	        "{\"startTime\": 30}, {\"startTime\": 30},"
	        "{\"startTime\": 40.5}]}");
	g_autoptr(FeedChapterList) hidden = parse_ok(
	        "{\"version\": \"1\", \"chapters\": [{\"startTime\": 0, "
	        "\"toc\": false}]}");
	static const struct {
		gint64 position;
		gint jump;
	} cases[] = {
		{ G_MININT64, -1 }, { -1, -1 },        { 0, -1 },
		{ 9999, -1 },       { 10000, 0 },      { 25000, 0 },
		{ 29999, 0 },       { 30000, 2 },      { 40499, 2 },
		{ 40500, 3 },       { G_MAXINT64, 3 },
	};

	g_test_summary("the jump point playing is the last that has started");
	g_assert_cmpuint(feed_chapter_list_get_n_jumps(list), ==, 4);
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
		g_assert_cmpint(
		        feed_chapter_list_find_jump(list, cases[i].position),
		        ==, cases[i].jump);
	g_assert_cmpint(feed_chapter_list_find_jump(hidden, 5000), ==, -1);
}

/* Writing JSON */

static void
assert_same(const FeedChapterList *a, const FeedChapterList *b)
{
	g_assert_cmpuint(feed_chapter_list_get_n_chapters(a), ==,
	                 feed_chapter_list_get_n_chapters(b));
	for (guint i = 0; i < feed_chapter_list_get_n_chapters(a); i++) {
		const FeedChapter *x = feed_chapter_list_get_chapter(a, i);
		const FeedChapter *y = feed_chapter_list_get_chapter(b, i);

		g_assert_cmpint(feed_chapter_get_start_ms(x), ==,
		                feed_chapter_get_start_ms(y));
		g_assert_cmpint(feed_chapter_get_end(x), ==,
		                feed_chapter_get_end(y));
		g_assert_cmpstr(feed_chapter_get_title(x), ==,
		                feed_chapter_get_title(y));
		g_assert_cmpstr(feed_chapter_get_href(x), ==,
		                feed_chapter_get_href(y));
		g_assert_cmpstr(feed_chapter_get_image(x), ==,
		                feed_chapter_get_image(y));
		g_assert_cmpint(feed_chapter_is_toc(x), ==,
		                feed_chapter_is_toc(y));
	}
}

static void
test_round_trip(void)
{
	g_autoptr(FeedChapterList) podlove = podlove_list();
	g_autoptr(FeedChapterList) json = parse_ok(
	        "{\"version\": \"1\", \"chapters\": ["
	        "{\"startTime\": 0.9, \"endTime\": 60.001},"
	        "{\"startTime\": 61, \"title\": \"Quote \\\" back\\\\slash "
	        "\\t tab \\u0001 caf\\u00e9 \\ud83c\\udf99\","
	        " \"img\": \"https://example.com/j.jpg\", \"toc\": false}]}");
	g_autoptr(FeedChapterList) merged =
	        feed_chapter_list_merge(podlove, json);
	g_autoptr(FeedChapterList) empty =
	        parse_ok("{\"version\": \"1\", \"chapters\": []}");
	const FeedChapterList *lists[] = { podlove, json, merged, empty };

	g_test_summary("to_json writes what new_from_json reads back equal");
	for (guint i = 0; i < G_N_ELEMENTS(lists); i++) {
		g_autofree char *text = feed_chapter_list_to_json(lists[i]);
		g_autoptr(FeedChapterList) back = parse_ok(text);
		g_autofree char *again = feed_chapter_list_to_json(back);

		g_assert_true(g_str_has_suffix(text, "\n"));
		assert_same(lists[i], back);
		g_assert_cmpstr(text, ==, again);
	}
}

static void
test_to_json_form(void)
{
	g_autoptr(FeedChapterList) list = parse_ok(
	        "{\"version\": \"1\", \"chapters\": [{\"startTime\": 12.5, "
	        "\"title\": \"A\", \"url\": \"https://example.com/\", "
	        "\"endTime\": 13.025, \"toc\": false}, {\"startTime\": 20}]}");
	g_autofree char *text = feed_chapter_list_to_json(list);

	g_test_summary("to_json writes exact seconds and leaves out defaults");
	g_assert_cmpstr(text, ==,
	                "{\n  \"version\": \"1.2.0\",\n  \"chapters\": [\n"
	                "    {\"startTime\": 12.5, \"title\": \"A\", "
	                "\"url\": \"https://example.com/\", "
	                "\"endTime\": 13.025, \"toc\": false},\n"
	                "    {\"startTime\": 20}\n  ]\n}\n");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add_func("/chapters/json/valid", test_valid);
	g_test_add_func("/chapters/json/empty", test_empty);
	g_test_add_func("/chapters/json/sorted", test_sorted);
	g_test_add_func("/chapters/json/toc", test_toc);
	g_test_add_func("/chapters/json/fractional", test_fractional);
	g_test_add_func("/chapters/json/missing", test_missing);
	g_test_add_func("/chapters/json/types", test_types);
	g_test_add_func("/chapters/json/range", test_range);
	g_test_add_func("/chapters/json/count", test_count);
	g_test_add_func("/chapters/json/depth", test_depth);
	g_test_add_func("/chapters/json/urls", test_urls);
	g_test_add_func("/chapters/json/utf8", test_utf8);
	g_test_add_func("/chapters/json/size", test_size);
	g_test_add_func("/chapters/episode", test_episode);
	g_test_add_func("/chapters/merge/longer", test_merge_longer);
	g_test_add_func("/chapters/merge/null", test_merge_null);
	g_test_add_func("/chapters/merge/fields", test_merge_fields);
	g_test_add_func("/chapters/merge/apart", test_merge_apart);
	g_test_add_func("/chapters/merge/same-kind", test_merge_same_kind);
	g_test_add_func("/chapters/find-jump", test_find_jump);
	g_test_add_func("/chapters/to-json/round-trip", test_round_trip);
	g_test_add_func("/chapters/to-json/form", test_to_json_form);
	return g_test_run();
}
