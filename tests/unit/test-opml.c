/*
 * OPML: the exports of the major podcast apps import completely, written
 * lists read back whole, and hostile or broken documents fail cleanly.
 */
#include "feed/opml.h"

#include <glib/gstdio.h>
#include <libxml/parser.h>
#include <string.h>
#include <sys/wait.h>

/* One subscription as a test expects it; category levels joined by '/'. */
typedef struct {
	const char *url;
	const char *title;
	const char *category;
	const char *html_url;
} Expected;

static char *
joined_category(const FeedSubscription *subscription)
{
	return g_strjoinv(
	        "/", (char **)feed_subscription_get_category(subscription));
}

static void
assert_subscriptions(const FeedOpml *opml, const Expected *expected,
                     guint n_expected)
{
	g_assert_cmpuint(feed_opml_get_n_subscriptions(opml), ==, n_expected);
	for (guint i = 0; i < n_expected; i++) {
		const FeedSubscription *s = feed_opml_get_subscription(opml, i);
		g_autofree char *category = joined_category(s);

		g_assert_cmpstr(feed_subscription_get_url(s), ==,
		                expected[i].url);
		g_assert_cmpstr(feed_subscription_get_title(s), ==,
		                expected[i].title);
		g_assert_cmpstr(category, ==, expected[i].category);
		g_assert_cmpstr(feed_subscription_get_html_url(s), ==,
		                expected[i].html_url);
		g_assert_true(g_utf8_validate(feed_subscription_get_title(s),
		                              -1, NULL));
	}
}

static char *
sample_path(const char *name)
{
	const char *data = g_getenv("FEED_TEST_DATA");

	if (data == NULL)
		return NULL;
	return g_build_filename(data, "opml", name, NULL);
}

static FeedOpml *
read_sample(const char *name)
{
	g_autofree char *path = sample_path(name);
	g_autoptr(GError) error = NULL;
	FeedOpml *opml;

	if (path == NULL) {
		g_test_fail_printf("FEED_TEST_DATA is not set: run me "
		                   "with meson test");
		return NULL;
	}
	opml = feed_opml_new_from_file(path, &error);
	g_assert_no_error(error);
	g_assert_nonnull(opml);
	return opml;
}

/* Finds a subscription by URL: categories regroup feeds when written. */
static const FeedSubscription *
find(const FeedOpml *opml, const char *url)
{
	for (guint i = 0; i < feed_opml_get_n_subscriptions(opml); i++) {
		const FeedSubscription *s = feed_opml_get_subscription(opml, i);

		if (strcmp(feed_subscription_get_url(s), url) == 0)
			return s;
	}
	return NULL;
}

/* Everything in @a is in @b, alike, and nothing more. */
static void
assert_same_subscriptions(const FeedOpml *a, const FeedOpml *b)
{
	g_assert_cmpstr(feed_opml_get_title(a), ==, feed_opml_get_title(b));
	g_assert_cmpuint(feed_opml_get_n_subscriptions(a), ==,
	                 feed_opml_get_n_subscriptions(b));
	for (guint i = 0; i < feed_opml_get_n_subscriptions(a); i++) {
		const FeedSubscription *s = feed_opml_get_subscription(a, i);
		const FeedSubscription *t =
		        find(b, feed_subscription_get_url(s));
		g_autofree char *s_category = joined_category(s);
		g_autofree char *t_category = NULL;

		g_assert_nonnull(t);
		t_category = joined_category(t);
		g_assert_cmpstr(feed_subscription_get_title(s), ==,
		                feed_subscription_get_title(t));
		g_assert_cmpstr(s_category, ==, t_category);
		g_assert_cmpstr(feed_subscription_get_html_url(s), ==,
		                feed_subscription_get_html_url(t));
	}
}

static FeedOpml *
reread(const FeedOpml *opml)
{
	g_autofree char *text = feed_opml_to_string(opml);
	g_autoptr(GError) error = NULL;
	FeedOpml *copy = feed_opml_new_from_data(text, strlen(text), &error);

	g_assert_no_error(error);
	g_assert_nonnull(copy);
	return copy;
}

static void
test_gpodder(void)
{
	/* gPodder puts the description in `text`: `title` wins. */
	static const Expected expected[] = {
		{ "https://feeds.example.org/linuxoutlaws/ogg", "Linux Outlaws",
		  "", NULL },
		{ "http://feeds.wnyc.example.com/radiolab", "Radiolab", "",
		  NULL },
		{ "https://latenightlinux.example.com/feed/mp3",
		  "Late Night Linux", "", NULL },
		{ "https://chaosradio.example.de/feed/m4a?paged=1&format=full",
		  "Chaosradio", "", NULL },
		{ "https://podcast.example.de/s%C3%B6hne.xml",
		  "Söhne Mannheims Musik & Talk", "", NULL },
	};
	g_autoptr(FeedOpml) opml = NULL;

	g_test_summary("A gPodder export: flat, title and text, type rss");
	opml = read_sample("gpodder.opml");
	if (opml == NULL)
		return;
	g_assert_cmpstr(feed_opml_get_title(opml), ==, "gPodder subscriptions");
	assert_subscriptions(opml, expected, G_N_ELEMENTS(expected));
}

static void
test_antennapod(void)
{
	static const Expected expected[] = {
		{ "https://feeds.example.com/99percentinvisible",
		  "99% Invisible", "",
		  "https://99percentinvisible.example.org" },
		{ "https://feeds.example.com/darknetdiaries", "Darknet Diaries",
		  "", "https://darknetdiaries.example.com/" },
		{ "https://feeds.example.com/hardfork", "Hard Fork", "", NULL },
		{ "https://changelog.example.com/podcast/feed",
		  "The Changelog: Software Development, Open Source", "",
		  "https://changelog.example.com/podcast" },
		{ "https://www.zeitsprung.example/feed/mp3/",
		  "Zeitsprung – Geschichten aus der Geschichte", "",
		  "https://www.zeitsprung.example" },
		{ "https://example.jp/podcast.rss", "日本語のポッドキャスト",
		  "", "https://example.jp/" },
	};
	g_autoptr(FeedOpml) opml = NULL;

	g_test_summary("An AntennaPod export: standalone declaration, "
	               "htmlUrl, non-ASCII titles");
	opml = read_sample("antennapod.opml");
	if (opml == NULL)
		return;
	g_assert_cmpstr(feed_opml_get_title(opml), ==,
	                "AntennaPod Subscriptions");
	assert_subscriptions(opml, expected, G_N_ELEMENTS(expected));
}

static void
test_apple(void)
{
	/* The wrapping outline is a category like any other. */
	static const Expected expected[] = {
		{ "https://feeds.example.com/54nAGcIl", "The Daily", "feeds",
		  NULL },
		{ "https://feeds.example.com/serial", "Serial", "feeds", NULL },
		{ "https://feeds.example.com/dancarlin/history?format=xml",
		  "Hardcore History", "feeds", NULL },
		{ "https://www.thisamericanlife.example/podcast/rss.xml",
		  "This American Life", "feeds", NULL },
	};
	g_autoptr(FeedOpml) opml = NULL;

	g_test_summary("An Apple Podcasts export: OPML 1.0, one wrapping "
	               "outline, text only");
	opml = read_sample("apple-podcasts.opml");
	if (opml == NULL)
		return;
	g_assert_cmpstr(feed_opml_get_title(opml), ==, "Podcasts");
	assert_subscriptions(opml, expected, G_N_ELEMENTS(expected));
}

static void
test_playerfm(void)
{
	static const Expected expected[] = {
		{ "https://feeds.example.com/sn", "Security Now", "Technology",
		  "https://twit.example.tv/shows/security-now" },
		{ "https://corecursive.example.com/feed", "CoRecursive",
		  "Technology/Programming", NULL },
		{ "https://seradio.example.net/feed/podcast/",
		  "Software Engineering Radio", "Technology/Programming",
		  NULL },
		{ "https://feeds.example.com/restishistory",
		  "The Rest Is History", "History", NULL },
		{ "https://example.net/uncategorised.xml", "Uncategorised Show",
		  "", NULL },
		{ "https://example.net/late-tech.xml", "Late Technology Show",
		  "Technology", NULL },
	};
	g_autoptr(FeedOpml) opml = NULL;

	g_test_summary("A Player FM / Podcast Addict style export: nested "
	               "categories, a category met twice");
	opml = read_sample("playerfm.opml");
	if (opml == NULL)
		return;
	g_assert_cmpstr(feed_opml_get_title(opml), ==,
	                "Player FM Subscriptions");
	assert_subscriptions(opml, expected, G_N_ELEMENTS(expected));
}

static void
test_messy(void)
{
	static const Expected expected[] = {
		{ "http://example.com/upper.xml", "Upper Case", "", NULL },
		{ "http://example.com/mixed.xml", "Mixed Case", "", NULL },
		{ "http://example.com/link.xml", "Link With Url", "", NULL },
		{ "http://example.com/no-title.xml", "", "", NULL },
		{ "http://example.com/feed?a=1&b=2", "Ampersand", "", NULL },
		{ "http://example.com/caf%E9.xml", "Café Crème", "", NULL },
		{ "http://example.com/spaces.xml", "Spaces and newlines", "",
		  NULL },
		{ "http://example.com/empty-title.xml", "Title attr empty", "",
		  NULL },
		{ "http://example.com/wrapped.xml", "Wrapped", "", NULL },
		{ "http://example.com/atom.xml", "Atom Feed", "", NULL },
		{ "http://example.com/news.xml", "Nested News", "News",
		  "http://example.com/" },
		{ "http://example.com/news-child.xml", "News Child", "News",
		  NULL },
		{ "itpc://example.com/itpc.xml", "Itpc", "", NULL },
		{ "http://example.com/linebreak.xml", "Line Break", "", NULL },
		/* An undeclared entity is an error recovered from: dropped. */
		{ "http://example.com/undeclared.xml", "UndeclaredEntity", "",
		  NULL },
	};
	g_autoptr(FeedOpml) opml = NULL;

	g_test_summary("A hand-edited ISO-8859-1 file: any-case names, no "
	               "version, type link with url, missing titles, "
	               "duplicates, entities, untitled and include outlines");
	opml = read_sample("messy.opml");
	if (opml == NULL)
		return;
	g_assert_cmpstr(feed_opml_get_title(opml), ==, "Café subscriptions");
	assert_subscriptions(opml, expected, G_N_ELEMENTS(expected));
}

static FeedOpml *
parse_string(const char *text, GError **error)
{
	return feed_opml_new_from_data(text, strlen(text), error);
}

static void
test_encodings(void)
{
	static const struct {
		const char *document;
		const char *title;
	} cases[] = {
		/* Declared windows-1252: curly quotes and the euro sign. */
		{ "<?xml version=\"1.0\" encoding=\"windows-1252\"?><opml>"
		  "<body><outline text=\"\x93q\x94 \x80\" "
		  "xmlUrl=\"http://a/\"/>"
		  "</body></opml>",
		  "\u201cq\u201d \u20ac" },
		/* Latin-1 bytes declared as nothing, so as UTF-8. */
		{ "<opml><body><outline text=\"caf\xe9\" xmlUrl=\"http://a/\"/>"
		  "</body></opml>",
		  "caf\u00e9" },
		/* An encoding libxml2 does not know: read as UTF-8. */
		{ "<?xml version=\"1.0\" encoding=\"x-unheard-of\"?><opml>"
		  "<body><outline text=\"caf\xc3\xa9\" xmlUrl=\"http://a/\"/>"
		  "</body></opml>",
		  "caf\u00e9" },
		/* Control characters are dropped. */
		{ "<opml><body><outline text=\"a&#1;b\x02\" "
		  "xmlUrl=\"http://a/\"/></body></opml>",
		  "ab" },
	};

	g_test_summary("Declared, undeclared and unknown encodings all give "
	               "valid UTF-8");
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(FeedOpml) opml =
		        parse_string(cases[i].document, &error);
		const FeedSubscription *s;

		g_assert_no_error(error);
		g_assert_cmpuint(feed_opml_get_n_subscriptions(opml), ==, 1);
		s = feed_opml_get_subscription(opml, 0);
		g_assert_cmpstr(feed_subscription_get_url(s), ==, "http://a/");
		g_assert_cmpstr(feed_subscription_get_title(s), ==,
		                cases[i].title);
	}
}

static void
test_utf16(void)
{
	static const char utf8[] =
	        "<?xml version=\"1.0\" encoding=\"UTF-16\"?><opml><head>"
	        "<title>\u00dcber</title></head><body><outline text=\"\u00e9\" "
	        "xmlUrl=\"http://a/\"/></body></opml>";
	g_autoptr(GError) error = NULL;
	g_autofree char *utf16 = NULL;
	g_autofree char *with_bom = NULL;
	g_autoptr(FeedOpml) opml = NULL;
	gsize length;

	g_test_summary("A UTF-16 document with a byte order mark");
	utf16 = g_convert(utf8, -1, "UTF-16LE", "UTF-8", NULL, &length, NULL);
	g_assert_nonnull(utf16);
	with_bom = g_malloc(length + 2);
	with_bom[0] = '\xff';
	with_bom[1] = '\xfe';
	memcpy(with_bom + 2, utf16, length);
	opml = feed_opml_new_from_data(with_bom, length + 2, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(feed_opml_get_title(opml), ==, "\u00dcber");
	g_assert_cmpuint(feed_opml_get_n_subscriptions(opml), ==, 1);
	g_assert_cmpstr(feed_subscription_get_title(
	                        feed_opml_get_subscription(opml, 0)),
	                ==, "\u00e9");
}

static void
test_no_body(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedOpml) opml = NULL;

	g_test_summary("An OPML without body or outlines is an empty list");
	opml = parse_string("<opml version=\"2.0\"><head/></opml>", &error);
	g_assert_no_error(error);
	g_assert_cmpstr(feed_opml_get_title(opml), ==, "");
	g_assert_cmpuint(feed_opml_get_n_subscriptions(opml), ==, 0);
}

static void
test_samples_round_trip(void)
{
	static const char *const names[] = {
		"gpodder.opml",  "antennapod.opml", "apple-podcasts.opml",
		"playerfm.opml", "messy.opml",
	};

	g_test_summary("Each sample, written and read back, keeps every "
	               "subscription, title, category and web page");
	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autoptr(FeedOpml) opml = read_sample(names[i]);
		g_autoptr(FeedOpml) copy = NULL;
		g_autoptr(FeedOpml) again = NULL;
		g_autofree char *first = NULL;
		g_autofree char *second = NULL;

		if (opml == NULL)
			return;
		copy = reread(opml);
		assert_same_subscriptions(opml, copy);
		/* The second generation is the first, but for the date. */
		again = reread(copy);
		assert_same_subscriptions(copy, again);
		first = feed_opml_to_string(copy);
		second = feed_opml_to_string(again);
		g_assert_cmpuint(strlen(first), ==, strlen(second));
	}
}

static void
test_round_trip(void)
{
	const char *const science[] = { "Science", NULL };
	const char *const physics[] = { "Science", "Physics", NULL };
	const char *const padded[] = { " ", "Science", "", NULL };
	static const Expected expected[] = {
		{ "https://a.example/feed", "A", "Science",
		  "https://a.example/" },
		{ "https://b.example/feed", "B", "", NULL },
		{ "https://c.example/feed", "C", "Science/Physics", NULL },
		{ "https://d.example/feed", "", "Science", NULL },
	};
	g_autoptr(FeedOpml) opml = feed_opml_new("My  feeds");
	g_autoptr(FeedOpml) copy = NULL;

	g_test_summary("A list built with feed_opml_add() reads back as it "
	               "was, and the first of a URL is kept");
	g_assert_true(feed_opml_add(opml, " https://a.example/feed\n", " A ",
	                            science, "https://a.example/"));
	g_assert_true(
	        feed_opml_add(opml, "https://b.example/feed", "B", NULL, NULL));
	g_assert_true(feed_opml_add(opml, "https://c.example/feed", "C",
	                            physics, NULL));
	g_assert_false(feed_opml_add(opml, "https://a.example/feed", "again",
	                             NULL, NULL));
	g_assert_true(feed_opml_add(opml, "https://d.example/feed", NULL,
	                            padded, NULL));
	g_assert_cmpstr(feed_opml_get_title(opml), ==, "My feeds");
	assert_subscriptions(opml, expected, G_N_ELEMENTS(expected));

	copy = reread(opml);
	g_assert_cmpstr(feed_opml_get_title(copy), ==, "My feeds");
	assert_same_subscriptions(opml, copy);
}

static const char nasty_title[] = "Tom & Jerry <3 \"quoted\" 'single' "
                                  "\u00e9t\u00e9 \u65e5\u672c "
                                  "\U0001F3A7 ]]> &amp;";
static const char nasty_url[] = "https://x.example/feed?a=1&b=<2>&c=\"3\"";

static void
test_escaping(void)
{
	const char *const category[] = { "R&D <lab>", NULL };
	g_autoptr(FeedOpml) opml = feed_opml_new(nasty_title);
	g_autoptr(FeedOpml) copy = NULL;
	g_autofree char *text = NULL;
	xmlDocPtr doc;
	xmlNodePtr root;
	const FeedSubscription *s;

	g_test_summary("The written document is well-formed OPML 2.0, and "
	               "&, <, quotes and non-ASCII text survive");
	feed_opml_add(opml, nasty_url, nasty_title, category, nasty_url);
	text = feed_opml_to_string(opml);
	g_assert_true(g_utf8_validate(text, -1, NULL));
	g_assert_true(g_str_has_prefix(text, "<?xml version=\"1.0\" "
	                                     "encoding=\"UTF-8\"?>"));

	/* Strictly: no recovery. */
	doc = xmlReadMemory(text, (int)strlen(text), NULL, NULL,
	                    XML_PARSE_NONET | XML_PARSE_NOERROR |
	                            XML_PARSE_NOWARNING);
	g_assert_nonnull(doc);
	root = xmlDocGetRootElement(doc);
	g_assert_cmpstr((const char *)root->name, ==, "opml");
	{
		xmlChar *version = xmlGetProp(root, BAD_CAST "version");

		g_assert_cmpstr((const char *)version, ==, "2.0");
		xmlFree(version);
	}
	xmlFreeDoc(doc);
	g_assert_true(g_regex_match_simple(
	        "<dateCreated>(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} "
	        "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) "
	        "[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} \\+0000</dateCreated>",
	        text, 0, 0));
	g_assert_nonnull(strstr(text, "type=\"rss\""));
	g_assert_nonnull(strstr(text, "xmlUrl=\""));
	g_assert_nonnull(strstr(text, "htmlUrl=\""));

	copy = reread(opml);
	g_assert_cmpstr(feed_opml_get_title(copy), ==, nasty_title);
	g_assert_cmpuint(feed_opml_get_n_subscriptions(copy), ==, 1);
	s = feed_opml_get_subscription(copy, 0);
	g_assert_cmpstr(feed_subscription_get_url(s), ==, nasty_url);
	g_assert_cmpstr(feed_subscription_get_title(s), ==, nasty_title);
	g_assert_cmpstr(feed_subscription_get_html_url(s), ==, nasty_url);
	g_assert_cmpstr(feed_subscription_get_category(s)[0], ==, "R&D <lab>");
	g_assert_null(feed_subscription_get_category(s)[1]);
}

static void
test_write_empty(void)
{
	g_autoptr(FeedOpml) opml = feed_opml_new(NULL);
	g_autoptr(FeedOpml) copy = NULL;

	g_test_summary("An empty list writes a document that reads back "
	               "empty");
	g_assert_cmpstr(feed_opml_get_title(opml), ==, "");
	copy = reread(opml);
	g_assert_cmpuint(feed_opml_get_n_subscriptions(copy), ==, 0);
}

static void
test_not_opml(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedOpml) opml = NULL;

	g_test_summary("XML whose root is not opml is unsupported, and the "
	               "message says what it is");
	opml = parse_string("<?xml version=\"1.0\"?><rss version=\"2.0\">"
	                    "<channel><title>x</title></channel></rss>",
	                    &error);
	g_assert_null(opml);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_UNSUPPORTED);
	g_assert_nonnull(strstr(error->message, "not an opml document"));
	g_assert_nonnull(strstr(error->message, "<rss>"));
}

static void
test_root_not_utf8(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedOpml) opml = NULL;

	g_test_summary("A root element whose name is not UTF-8 is named in "
	               "the error as valid UTF-8");
	opml = parse_string("<op\xe7l><body/></op\xe7l>", &error);
	g_assert_null(opml);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_UNSUPPORTED);
	g_assert_true(g_utf8_validate(error->message, -1, NULL));
	g_assert_nonnull(strstr(error->message, "<op"));
}

static void
test_encoding_error_quiet(void)
{
	static const char doc[] = "<?xml version=\"1.0\" encoding=\"EUC-JP\"?>"
	                          "<opml><body><outline text=\"a\xff\xfe\xff"
	                          "\xfe\" xmlUrl=\"http://a/\"/></body></opml>";

	g_test_summary("Bytes that are not in the declared encoding are not "
	               "printed by libxml2");
	if (g_test_subprocess()) {
		g_autoptr(GError) error = NULL;
		g_autoptr(FeedOpml) opml = parse_string(doc, &error);

		g_assert_true((opml == NULL) == (error != NULL));
		return;
	}
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_passed();
	g_test_trap_assert_stderr("");
}

static void
test_not_xml(void)
{
	static const char *const documents[] = {
		"hello, world",
		"{\"subscriptions\": []}",
		"   ",
		"\x89PNG\r\n\x1a\n",
	};

	g_test_summary("Text that is not XML, and nothing, fail to parse");
	for (guint i = 0; i < G_N_ELEMENTS(documents); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(FeedOpml) opml = parse_string(documents[i], &error);

		g_assert_null(opml);
		g_assert_error(error, FEED_ERROR, FEED_ERROR_PARSE);
		g_assert_true(g_ascii_islower(error->message[0]));
		g_assert_false(g_str_has_suffix(error->message, "."));
	}
	{
		g_autoptr(GError) error = NULL;
		g_autoptr(FeedOpml) opml =
		        feed_opml_new_from_data("", 0, &error);

		g_assert_null(opml);
		g_assert_error(error, FEED_ERROR, FEED_ERROR_PARSE);
	}
}

static void
test_too_large(void)
{
	gsize length = FEED_OPML_MAX_SIZE + 1;
	g_autofree char *data = g_malloc(length);
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedOpml) opml = NULL;
	g_autofree char *dir = NULL;
	g_autofree char *path = NULL;
	FILE *file;

	g_test_summary("Documents over 16 MiB are refused, in memory and in "
	               "files");
	/* Well-formed, so that only the size can fail it. */
	memset(data, ' ', length);
	memcpy(data, "<opml>", 6);
	memcpy(data + length - 7, "</opml>", 7);
	opml = feed_opml_new_from_data(data, length, &error);
	g_assert_null(opml);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_TOO_LARGE);
	g_clear_error(&error);

	dir = g_dir_make_tmp("test-opml-XXXXXX", &error);
	g_assert_no_error(error);
	path = g_build_filename(dir, "huge.opml", NULL);
	file = g_fopen(path, "wb");
	g_assert_nonnull(file);
	g_assert_cmpuint(fwrite(data, 1, length, file), ==, length);
	fclose(file);
	opml = feed_opml_new_from_file(path, &error);
	g_assert_null(opml);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_TOO_LARGE);
	g_assert_nonnull(strstr(error->message, "huge.opml"));
	g_unlink(path);
	g_rmdir(dir);

	/* Exactly the cap is accepted. */
	g_clear_error(&error);
	memcpy(data + length - 8, "</opml>", 7);
	opml = feed_opml_new_from_data(data, length - 1, &error);
	g_assert_no_error(error);
	g_assert_nonnull(opml);
}

static void
test_file_errors(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedOpml) opml = NULL;
	g_autofree char *dir = NULL;
	g_autofree char *rss = NULL;

	g_test_summary("A missing file is an I/O error, and file errors name "
	               "the file");
	opml = feed_opml_new_from_file("/nonexistent/subscriptions.opml",
	                               &error);
	g_assert_null(opml);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_IO);
	g_assert_nonnull(strstr(error->message, "subscriptions.opml"));
	g_clear_error(&error);

	dir = g_dir_make_tmp("test-opml-XXXXXX", &error);
	g_assert_no_error(error);
	rss = g_build_filename(dir, "feed.rss", NULL);
	g_assert_true(g_file_set_contents(rss, "<rss/>", -1, &error));
	opml = feed_opml_new_from_file(rss, &error);
	g_assert_null(opml);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_UNSUPPORTED);
	g_assert_true(g_str_has_prefix(error->message, rss));
	g_unlink(rss);
	g_rmdir(dir);
}

static void
test_line_separators(void)
{
	static const char document[] =
	        "<opml><body>"
	        "<outline xmlUrl=\"http://e.com/a&#10;b&#13;c&#9;d\"/>"
	        "<outline xmlUrl=\"http://e.com/ls\xe2\x80\xa8/ps"
	        "\xe2\x80\xa9\"/>"
	        "<outline xmlUrl=\"http://e.com/nel\xc2\x85/del\x7f\"/>"
	        "<outline xmlUrl=\" http://e.com/space d \"/>"
	        "</body></opml>";
	static const char *const urls[] = {
		"http://e.com/abcd",
		"http://e.com/ls%E2%80%A8/ps",
		"http://e.com/nel%C2%85/del%7F",
		"http://e.com/space d",
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedOpml) opml = parse_string(document, &error);

	g_test_summary("A feed URL is one line: tabs and line breaks dropped, "
	               "DEL, C1 and U+2028/9 percent-encoded");
	g_assert_no_error(error);
	g_assert_cmpuint(feed_opml_get_n_subscriptions(opml), ==,
	                 G_N_ELEMENTS(urls));
	for (guint i = 0; i < G_N_ELEMENTS(urls); i++)
		g_assert_cmpstr(feed_subscription_get_url(
		                        feed_opml_get_subscription(opml, i)),
		                ==, urls[i]);
}

static void
test_entities(void)
{
	g_autofree char *dir = NULL;
	g_autofree char *secret = NULL;
	g_autofree char *document = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedOpml) opml = NULL;
	const FeedSubscription *s;

	g_test_summary("Declared entities are not expanded, external ones "
	               "not loaded: no billion laughs, no file disclosure");
	dir = g_dir_make_tmp("test-opml-XXXXXX", &error);
	g_assert_no_error(error);
	secret = g_build_filename(dir, "secret.txt", NULL);
	g_assert_true(g_file_set_contents(secret, "SECRET", -1, &error));
	document = g_strdup_printf(
	        "<?xml version=\"1.0\"?>\n"
	        "<!DOCTYPE opml [\n"
	        " <!ENTITY a \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\">\n"
	        " <!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">\n"
	        " <!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">\n"
	        " <!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\">\n"
	        " <!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\">\n"
	        " <!ENTITY f \"&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;\">\n"
	        " <!ENTITY g \"&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;\">\n"
	        " <!ENTITY secret SYSTEM \"file://%s\">\n"
	        "]>\n"
	        "<opml><head><title>t&g;&secret;</title></head><body>"
	        "<outline text=\"x&g;&g;&secret;y\" "
	        "xmlUrl=\"http://a/&g;&secret;\"/></body></opml>",
	        secret);
	opml = parse_string(document, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(feed_opml_get_title(opml), ==, "t");
	g_assert_cmpuint(feed_opml_get_n_subscriptions(opml), ==, 1);
	s = feed_opml_get_subscription(opml, 0);
	g_assert_cmpstr(feed_subscription_get_title(s), ==, "xy");
	g_assert_cmpstr(feed_subscription_get_url(s), ==, "http://a/");
	g_unlink(secret);
	g_rmdir(dir);
}

#define N_MANY 10000

static void
test_many(void)
{
	GString *document = g_string_new("<?xml version=\"1.0\"?>\n"
	                                 "<opml version=\"2.0\"><body>\n");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedOpml) opml = NULL;
	g_autoptr(FeedOpml) copy = NULL;

	g_test_summary("10,000 outlines in 10 categories read and write "
	               "whole");
	for (guint c = 0; c < 10; c++) {
		g_string_append_printf(document, "<outline text=\"Cat %u\">\n",
		                       c);
		for (guint i = 0; i < N_MANY / 10; i++)
			g_string_append_printf(
			        document,
			        "<outline type=\"rss\" text=\"Show %u-%u\" "
			        "xmlUrl=\"https://example.com/%u/%u.xml\"/>\n",
			        c, i, c, i);
		g_string_append(document, "</outline>\n");
	}
	g_string_append(document, "</body></opml>\n");
	opml = feed_opml_new_from_data(document->str, document->len, &error);
	g_string_free(document, TRUE);
	g_assert_no_error(error);
	g_assert_cmpuint(feed_opml_get_n_subscriptions(opml), ==, N_MANY);
	for (guint n = 0; n < N_MANY; n += 997) {
		const FeedSubscription *s = feed_opml_get_subscription(opml, n);
		g_autofree char *url = g_strdup_printf(
		        "https://example.com/%u/%u.xml", n / 1000, n % 1000);
		g_autofree char *title =
		        g_strdup_printf("Show %u-%u", n / 1000, n % 1000);
		g_autofree char *category = g_strdup_printf("Cat %u", n / 1000);
		g_autofree char *got = joined_category(s);

		g_assert_cmpstr(feed_subscription_get_url(s), ==, url);
		g_assert_cmpstr(feed_subscription_get_title(s), ==, title);
		g_assert_cmpstr(got, ==, category);
	}
	copy = reread(opml);
	g_assert_cmpuint(feed_opml_get_n_subscriptions(copy), ==, N_MANY);
	for (guint n = 0; n < N_MANY; n++)
		g_assert_cmpstr(feed_subscription_get_url(
		                        feed_opml_get_subscription(opml, n)),
		                ==,
		                feed_subscription_get_url(
		                        feed_opml_get_subscription(copy, n)));
}

/*
 * Runs feedtool with @args; FALSE (the test skipped) when there is no
 * feedtool, or one without the opml command.
 */
static gboolean
run_feedtool(const char *const *args, char **out, char **err, int *status)
{
	const char *feedtool = g_getenv("FEEDTOOL");
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	int wait_status;

	if (feedtool == NULL) {
		g_test_fail_printf("FEEDTOOL is not set: run me with "
		                   "meson test");
		return FALSE;
	}
	g_ptr_array_add(argv, (char *)feedtool);
	g_ptr_array_add(argv, (char *)"opml");
	for (; *args != NULL; args++)
		g_ptr_array_add(argv, (char *)*args);
	g_ptr_array_add(argv, NULL);
	g_assert_true(g_spawn_sync(NULL, (char **)argv->pdata, NULL,
	                           G_SPAWN_DEFAULT, NULL, NULL, out, err,
	                           &wait_status, &error));
	g_assert_no_error(error);
	g_assert_true(WIFEXITED(wait_status));
	*status = WEXITSTATUS(wait_status);
	return TRUE;
}

static void
test_tool_list(void)
{
	g_autofree char *path = sample_path("playerfm.opml");
	const char *args[] = { "list", path, NULL };
	const char *json_args[] = { "list", "--json", path, NULL };
	g_autofree char *out = NULL;
	g_autofree char *err = NULL;
	g_autofree char *json = NULL;
	g_autofree char *json_err = NULL;
	int status;

	g_test_summary("feedtool opml list prints a URL a line, or JSON");
	if (path == NULL) {
		g_test_fail_printf("FEED_TEST_DATA is not set: run me "
		                   "with meson test");
		return;
	}
	if (!run_feedtool(args, &out, &err, &status))
		return;
	g_assert_cmpint(status, ==, 0);
	g_assert_cmpstr(out, ==,
	                "https://feeds.example.com/sn\n"
	                "https://corecursive.example.com/feed\n"
	                "https://seradio.example.net/feed/podcast/\n"
	                "https://feeds.example.com/restishistory\n"
	                "https://example.net/uncategorised.xml\n"
	                "https://example.net/late-tech.xml\n");
	g_assert_true(run_feedtool(json_args, &json, &json_err, &status));
	g_assert_cmpint(status, ==, 0);
	g_assert_true(g_str_has_prefix(
	        json, "[{\"url\":\"https://feeds.example.com/sn\","
	              "\"title\":\"Security Now\","
	              "\"category\":[\"Technology\"],"
	              "\"html_url\":"
	              "\"https://twit.example.tv/shows/security-now\"},"));
	g_assert_nonnull(strstr(json, "\"category\":[\"Technology\","
	                              "\"Programming\"]"));
}

static void
test_tool_errors(void)
{
	const char *missing[] = { "list", "/nonexistent/feeds.opml", NULL };
	const char *no_file[] = { "list", NULL };
	const char *no_url[] = { "make", NULL };
	g_autofree char *out = NULL;
	g_autofree char *err = NULL;
	int status;

	g_test_summary("feedtool opml: 1 for an unreadable file, named; 2 "
	               "for bad usage");
	if (!run_feedtool(missing, &out, &err, &status))
		return;
	g_assert_cmpint(status, ==, 1);
	g_assert_nonnull(strstr(err, "/nonexistent/feeds.opml"));
	g_clear_pointer(&out, g_free);
	g_clear_pointer(&err, g_free);
	g_assert_true(run_feedtool(no_file, &out, &err, &status));
	g_assert_cmpint(status, ==, 2);
	g_clear_pointer(&out, g_free);
	g_clear_pointer(&err, g_free);
	g_assert_true(run_feedtool(no_url, &out, &err, &status));
	g_assert_cmpint(status, ==, 2);
}

static void
test_tool_make(void)
{
	const char *data = g_getenv("FEED_TEST_DATA");
	g_autofree char *dir = NULL;
	g_autofree char *output = NULL;
	g_autofree char *feed = NULL;
	g_autofree char *good = NULL;
	g_autofree char *bad = NULL;
	g_autofree char *out = NULL;
	g_autofree char *err = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedOpml) opml = NULL;
	const FeedSubscription *s;
	int status;

	g_test_summary("feedtool opml make titles each feed, keeps one that "
	               "fails under its URL with a warning, and exits 1");
	if (data == NULL) {
		g_test_fail_printf("FEED_TEST_DATA is not set: run me "
		                   "with meson test");
		return;
	}
	dir = g_dir_make_tmp("test-opml-XXXXXX", &error);
	g_assert_no_error(error);
	output = g_build_filename(dir, "made.opml", NULL);
	feed = g_build_filename(data, "parse", "atom-feed.atom", NULL);
	good = g_filename_to_uri(feed, NULL, &error);
	g_assert_no_error(error);
	bad = g_strconcat("file://", dir, "/missing.xml", NULL);
	{
		const char *args[] = { "make", "-o", output, "--title",
			               "Mine", good, bad,    NULL };

		if (!run_feedtool(args, &out, &err, &status)) {
			g_rmdir(dir);
			return;
		}
	}
	g_assert_cmpint(status, ==, 1);
	g_assert_nonnull(strstr(err, bad));
	opml = feed_opml_new_from_file(output, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(feed_opml_get_title(opml), ==, "Mine");
	g_assert_cmpuint(feed_opml_get_n_subscriptions(opml), ==, 2);
	s = feed_opml_get_subscription(opml, 0);
	g_assert_cmpstr(feed_subscription_get_url(s), ==, good);
	g_assert_cmpstr(feed_subscription_get_title(s), ==, "Atom Show");
	s = feed_opml_get_subscription(opml, 1);
	g_assert_cmpstr(feed_subscription_get_url(s), ==, bad);
	g_assert_cmpstr(feed_subscription_get_title(s), ==, bad);
	g_unlink(output);
	g_rmdir(dir);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	xmlInitParser();

	g_test_add_func("/opml/read/gpodder", test_gpodder);
	g_test_add_func("/opml/read/antennapod", test_antennapod);
	g_test_add_func("/opml/read/apple-podcasts", test_apple);
	g_test_add_func("/opml/read/playerfm", test_playerfm);
	g_test_add_func("/opml/read/messy", test_messy);
	g_test_add_func("/opml/read/encodings", test_encodings);
	g_test_add_func("/opml/read/utf-16", test_utf16);
	g_test_add_func("/opml/read/no-body", test_no_body);
	g_test_add_func("/opml/read/many", test_many);
	g_test_add_func("/opml/write/round-trip", test_round_trip);
	g_test_add_func("/opml/write/samples-round-trip",
	                test_samples_round_trip);
	g_test_add_func("/opml/write/escaping", test_escaping);
	g_test_add_func("/opml/write/empty", test_write_empty);
	g_test_add_func("/opml/error/not-opml", test_not_opml);
	g_test_add_func("/opml/error/root-not-utf8", test_root_not_utf8);
	g_test_add_func("/opml/error/encoding-quiet",
	                test_encoding_error_quiet);
	g_test_add_func("/opml/error/not-xml", test_not_xml);
	g_test_add_func("/opml/error/too-large", test_too_large);
	g_test_add_func("/opml/error/file", test_file_errors);
	g_test_add_func("/opml/hostile/entities", test_entities);
	g_test_add_func("/opml/hostile/line-separators", test_line_separators);
	g_test_add_func("/opml/tool/list", test_tool_list);
	g_test_add_func("/opml/tool/make", test_tool_make);
	g_test_add_func("/opml/tool/errors", test_tool_errors);
	return g_test_run();
}
