/*
 * The streaming parser: chunked feeding, recovery, encodings, entities and
 * hostile documents. The per-field rules are pinned by tests/fixtures.
 */
#include "feed/feed.h"

#include <gio/gio.h>
#include <libxml/parser.h>
#include <string.h>

/* A summary of everything the parser hands out, for comparing runs. */
static void
dump_episode(GString *out, const FeedEpisode *e)
{
	g_string_append_printf(
	        out,
	        "episode guid=%s title=%s link=%s\n desc=%s\n html=%s\n"
	        " published=%" G_GINT64_FORMAT " time=%" G_GINT64_FORMAT
	        " number=%" G_GINT64_FORMAT " season=%" G_GINT64_FORMAT
	        " image=%s\n",
	        feed_episode_get_guid(e), feed_episode_get_title(e),
	        feed_episode_get_link(e), feed_episode_get_description(e),
	        feed_episode_get_description_html(e),
	        feed_episode_get_published(e), feed_episode_get_total_time(e),
	        feed_episode_get_number(e), feed_episode_get_season(e),
	        feed_episode_get_image_url(e));
	for (guint i = 0; i < feed_episode_get_n_enclosures(e); i++) {
		const FeedEnclosure *enc = feed_episode_get_enclosure(e, i);

		g_string_append_printf(
		        out, " enclosure %s %s %" G_GINT64_FORMAT "\n",
		        feed_enclosure_get_url(enc),
		        feed_enclosure_get_mime_type(enc),
		        feed_enclosure_get_file_size(enc));
	}
	for (guint i = 0; i < feed_episode_get_n_chapters(e); i++) {
		const FeedChapter *c = feed_episode_get_chapter(e, i);

		g_string_append_printf(
		        out, " chapter %" G_GINT64_FORMAT " %s\n",
		        feed_chapter_get_start(c), feed_chapter_get_title(c));
	}
}

static void
dump_channel(GString *out, const FeedChannel *c)
{
	g_string_append_printf(
	        out,
	        "channel title=%s link=%s author=%s "
	        "image=%s language=%s new=%s desc=%s\n",
	        feed_channel_get_title(c), feed_channel_get_link(c),
	        feed_channel_get_author(c), feed_channel_get_image_url(c),
	        feed_channel_get_language(c), feed_channel_get_new_url(c),
	        feed_channel_get_description(c));
	for (guint i = 0; i < feed_channel_get_n_episodes(c); i++)
		dump_episode(out, feed_channel_get_episode(c, i));
}

static void
collect(FeedEpisode *episode, gpointer data)
{
	dump_episode(data, episode);
}

/* Parses @data fed @chunk bytes at a time; returns the dump. */
static char *
parse_in_chunks(const char *data, gsize length, gsize chunk)
{
	GString *out = g_string_new(NULL);
	g_autoptr(FeedParser) parser = feed_parser_new(
	        "http://example.com/feeds/show.rss", collect, out);
	g_autoptr(FeedChannel) channel = NULL;
	g_autoptr(GError) error = NULL;

	for (gsize at = 0; at < length; at += chunk) {
		gboolean ok = feed_parser_feed(parser, data + at,
		                               MIN(chunk, length - at), &error);

		g_assert_no_error(error);
		g_assert_true(ok);
	}
	channel = feed_parser_finish(parser, &error);
	g_assert_no_error(error);
	dump_channel(out, channel);
	return g_string_free(out, FALSE);
}

static void
test_chunked(gconstpointer data)
{
	const char *path = data;
	g_autofree char *contents = NULL;
	g_autofree char *whole = NULL;
	gsize length;

	g_assert_true(g_file_get_contents(path, &contents, &length, NULL));
	whole = parse_in_chunks(contents, length, length > 0 ? length : 1);
	for (gsize chunk = 1; chunk <= 7; chunk += 3) {
		g_autofree char *pieces =
		        parse_in_chunks(contents, length, chunk);

		g_assert_cmpstr(pieces, ==, whole);
	}
}

static const char rich_feed[] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<rss version=\"2.0\" "
        "xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\" "
        "xmlns:content=\"http://purl.org/rss/1.0/modules/content/\">\n"
        "<channel><title>Caf&#233; &amp; Friends</title>\n"
        "<itunes:author>Ann</itunes:author>\n"
        "<item><title>One &nbsp;&eacute;</title><guid>g1</guid>\n"
        "<pubDate>Mon, 02 Jan 2006 15:04:05 +0000</pubDate>\n"
        "<itunes:duration>1:02:03</itunes:duration>\n"
        "<enclosure url=\"http://example.com/1.mp3?a=1&amp;b=2\" "
        "type=\"audio/mpeg\" length=\"123\"/>\n"
        "<content:encoded><![CDATA[<p>Hello <b>world</b></p>]]>"
        "</content:encoded></item>\n"
        "<item><title>Two</title><guid isPermaLink=\"false\">g2</guid>\n"
        "<description>Plain &lt;text&gt;</description></item>\n"
        "</channel></rss>\n";

static FeedChannel *
parse_string(const char *text, GError **error)
{
	return feed_channel_new_from_data(
	        text, strlen(text), "http://example.com/feeds/show.rss", error);
}

static char *
parse_to_dump(const char *doc, GError **error)
{
	g_autoptr(FeedChannel) channel = parse_string(doc, error);
	GString *out = g_string_new(NULL);

	if (channel != NULL)
		dump_channel(out, channel);
	return g_string_free(out, FALSE);
}

static void
test_rich_chunked(void)
{
	g_autofree char *whole = parse_in_chunks(rich_feed, strlen(rich_feed),
	                                         strlen(rich_feed));
	g_autofree char *bytes =
	        parse_in_chunks(rich_feed, strlen(rich_feed), 1);

	g_test_summary("One byte at a time gives what the whole does");
	g_assert_cmpstr(bytes, ==, whole);
	g_assert_nonnull(strstr(whole, "title=Café & Friends"));
	g_assert_nonnull(strstr(whole, "title=One é"));
	g_assert_nonnull(strstr(whole, "http://example.com/1.mp3?a=1&b=2"));
}

typedef struct {
	guint seen;
} Counter;

static void
count(FeedEpisode *episode, gpointer data)
{
	((Counter *)data)->seen++;
}

static void
test_streaming(void)
{
	Counter counter = { 0 };
	g_autoptr(FeedParser) parser = feed_parser_new(NULL, count, &counter);
	g_autoptr(FeedChannel) channel = NULL;
	g_autoptr(GError) error = NULL;
	const char *first_item_end = strstr(rich_feed, "</item>") + 7;
	gsize head = first_item_end - rich_feed + 1;

	g_test_summary("An episode reaches the callback as its item closes");
	g_assert_true(feed_parser_feed(parser, rich_feed, head, &error));
	g_assert_cmpuint(counter.seen, ==, 1);
	g_assert_true(feed_parser_feed(parser, rich_feed + head,
	                               strlen(rich_feed) - head, &error));
	g_assert_cmpuint(counter.seen, ==, 2);
	channel = feed_parser_finish(parser, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(feed_channel_get_n_episodes(channel), ==, 0);
	g_assert_cmpstr(feed_channel_get_title(channel), ==, "Café & Friends");
}

static void
test_truncated(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;
	const char *doc = "<rss><channel><title>T</title>\n"
	                  "<item><title>one</title></item>\n"
	                  "<item><title>two</title><enclosure url=\"http://"
	                  "example.com/two.mp3\"/><description>cut he";

	g_test_summary("A truncated feed yields every episode it holds");
	channel = parse_string(doc, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(feed_channel_get_n_episodes(channel), ==, 2);
	g_assert_cmpstr(
	        feed_episode_get_title(feed_channel_get_episode(channel, 1)),
	        ==, "two");
	g_assert_cmpstr(feed_episode_get_description(
	                        feed_channel_get_episode(channel, 1)),
	                ==, "cut he");
	g_assert_nonnull(feed_channel_get_errors(channel)[0]);
	g_assert_true(
	        g_str_has_prefix(feed_channel_get_errors(channel)[0], "line "));
}

static void
test_malformed(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;
	const char *doc = "<rss><channel><title>T</title>\n"
	                  "<item><title>one & two</title></item>\n"
	                  "<item><title>three</b></title></item>\n"
	                  "</channel></rss>";

	g_test_summary("Malformed markup is recovered and each problem named");
	channel = parse_string(doc, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(feed_channel_get_n_episodes(channel), ==, 2);
	g_assert_cmpstr(
	        feed_episode_get_title(feed_channel_get_episode(channel, 1)),
	        ==, "three");
	g_assert_true(g_str_has_prefix(feed_channel_get_errors(channel)[0],
	                               "line 2: "));
}

/* A document with every kind of reference, before and after @defect. */
static char *
references_around(const char *prefix, const char *defect)
{
	return g_strconcat(
	        prefix,
	        "<?xml version=\"1.0\"?>\n"
	        "<!DOCTYPE rss [<!ENTITY show \"Small &amp; Kind\">]>\n"
	        "<rss><channel>",
	        defect,
	        "<title>Q&amp;A: &show;</title>\n"
	        "<item><title>It&apos;s &quot;on&quot; &#38; &#x26; "
	        "caf&eacute;&nbsp;&lt;3 &gt;</title>\n"
	        "<description>&lt;p&gt;Notes &amp;amp; more&lt;/p&gt;"
	        "</description>\n"
	        "<enclosure url=\"http://example.com/a.mp3?a=1&amp;b=2\" "
	        "type=\"audio/mpeg\" length=\"1\"/></item>\n"
	        "</channel></rss>\n",
	        NULL);
}

typedef struct {
	const char *name;
	const char *prefix; /* before the XML declaration */
	const char *defect; /* at the start of the channel */
} Defect;

static const Defect defects[] = {
	{ "newline-before-declaration", "\n", "" },
	{ "undefined-entity", "", "&undefined;" },
	{ "bare-ampersand", "", " & " },
	{ "no-semicolon", "", "&amp " },
	{ "bad-character-reference", "", "&#0;" },
	{ "duplicate-attribute", "", "<x a=\"1\" a=\"2\"/>" },
	{ "undefined-prefix", "", "<nope:x/>" },
	{ "stray-end-tag", "", "</stray>" },
	{ "stray-prefixed-end-tag", "", "</media:stray>" },
	{ "unparsable-end-tag", "", "</1>" },
	{ "two-errors", "\n", "&undefined;&#0;</stray>" },
};

static void
test_references_after_error(gconstpointer data)
{
	const Defect *defect = data;
	g_autofree char *clean = references_around("", "");
	g_autofree char *broken =
	        references_around(defect->prefix, defect->defect);
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = parse_string(broken, &error);
	g_autofree char *expected = parse_to_dump(clean, &error);
	g_autofree char *actual = NULL;
	GString *out = g_string_new(NULL);

	g_test_summary("After an error libxml2 recovers from, every entity "
	               "and character reference reaches the channel as in "
	               "the document without it, and the error is listed");
	g_assert_no_error(error);
	g_assert_nonnull(channel);
	g_assert_nonnull(feed_channel_get_errors(channel));
	g_assert_nonnull(feed_channel_get_errors(channel)[0]);
	dump_channel(out, channel);
	actual = g_string_free(out, FALSE);
	g_assert_cmpstr(actual, ==, expected);
	g_assert_nonnull(strstr(actual, "title=Q&A: Small & Kind"));
	g_assert_nonnull(strstr(actual, "It's \"on\" & & caf\xc3\xa9"));
	g_assert_nonnull(strstr(actual, "html=<p>Notes &amp; more</p>"));
}

static void
test_stray_end_tags_deep(void)
{
	GString *doc = g_string_new("<rss xmlns:a=\"urn:a\"><channel>"
	                            "<title>T</title><item><title>One</title>"
	                            "<description>");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;

	g_test_summary("Stray end tags at every depth, past where libxml2's "
	               "stacks grow, lose nothing after them");
	for (int i = 0; i < 40; i++)
		g_string_append_printf(doc,
		                       "<a:d%d xmlns:b%d=\"urn:%d\">"
		                       "</stray%d>",
		                       i, i, i, i);
	for (int i = 39; i >= 0; i--)
		g_string_append_printf(doc, "x</a:d%d></a:stray>", i);
	g_string_append(doc, "</description></item><item><title>Q&amp;A"
	                     "</title></item></channel></rss>");
	channel = feed_channel_new_from_data(doc->str, doc->len, NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(feed_channel_get_title(channel), ==, "T");
	g_assert_cmpuint(feed_channel_get_n_episodes(channel), ==, 2);
	g_assert_cmpstr(
	        feed_episode_get_title(feed_channel_get_episode(channel, 1)),
	        ==, "Q&A");
	g_string_free(doc, TRUE);
}

static void
expect_error(const char *doc, gsize length, gint code)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel =
	        feed_channel_new_from_data(doc, length, NULL, &error);

	g_assert_null(channel);
	g_assert_error(error, FEED_ERROR, code);
	g_assert_true(g_str_has_prefix(error->message, "not a feed") ||
	              code != FEED_ERROR_PARSE);
}

static void
test_not_a_feed(void)
{
	g_test_summary("Only a document with no feed root is an error");
	expect_error("", 0, FEED_ERROR_PARSE);
	expect_error("hello, world\n", 13, FEED_ERROR_PARSE);
	expect_error("<html><body><p>hi</p></body></html>", 35,
	             FEED_ERROR_UNSUPPORTED);
	expect_error("<?xml version=\"1.0\"?><opml/>", 28,
	             FEED_ERROR_UNSUPPORTED);
}

static void
test_root_names_namespace(void)
{
	static const struct {
		const char *doc;
		const char *shown;
	} cases[] = {
		{ "<html xmlns=\"http://www.w3.org/1999/xhtml\"><body/></html>",
		  "<html> in namespace http://www.w3.org/1999/xhtml" },
		{ "<opml version=\"2.0\"/>", "<opml> in no namespace" },
		{ "<a:rss xmlns:a=\"http://www.w3.org/2005/Atom\"/>",
		  "<rss> in namespace http://www.w3.org/2005/Atom" },
	};

	g_test_summary("A root that is no feed is named with its namespace");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(FeedChannel) channel = feed_channel_new_from_data(
		        cases[i].doc, strlen(cases[i].doc), NULL, &error);

		g_assert_null(channel);
		g_assert_error(error, FEED_ERROR, FEED_ERROR_UNSUPPORTED);
		g_assert_nonnull(strstr(error->message, cases[i].shown));
	}
}

static void
test_root_not_utf8(void)
{
	static const char doc[] = "<?xml version=\"1.0\"?><ch\xff\xfe"
	                          "annel/>";
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;

	g_test_summary("A root element whose name is not UTF-8 is named in "
	               "the error as valid UTF-8");
	channel =
	        feed_channel_new_from_data(doc, sizeof(doc) - 1, NULL, &error);
	g_assert_null(channel);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_UNSUPPORTED);
	g_assert_true(g_utf8_validate(error->message, -1, NULL));
	g_assert_nonnull(strstr(error->message, "<ch"));
}

static void
count_episode(FeedEpisode *episode, gpointer data)
{
	g_ptr_array_add(data, g_strdup(feed_episode_get_title(episode)));
}

/*
 * Parses the @length bytes at @doc in two pieces, cut at @cut, and checks
 * that both episodes came, titled @first and "Two". Returns the channel.
 */
static FeedChannel *
parse_cut_in_two(const char *doc, gsize length, gsize cut, const char *first)
{
	g_autoptr(GPtrArray) titles = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(FeedParser) parser =
	        feed_parser_new(NULL, count_episode, titles);
	g_autoptr(GError) error = NULL;
	FeedChannel *channel;

	g_assert_true(feed_parser_feed(parser, doc, cut, &error));
	g_assert_true(
	        feed_parser_feed(parser, doc + cut, length - cut, &error));
	channel = feed_parser_finish(parser, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(titles->len, ==, 2);
	g_assert_cmpstr(titles->pdata[0], ==, first);
	g_assert_cmpstr(titles->pdata[1], ==, "Two");
	return channel;
}

static void
test_cut_after_invalid_utf8(void)
{
	static const char doc[] = "<rss><channel><item><title>Caf\xe9</title>"
	                          "</item><item><title>Two</title></item>"
	                          "</channel></rss>";

	g_test_summary("A byte that is not UTF-8 just before where the "
	               "network cuts the feed loses nothing after it");
	for (gsize cut = 1; cut < sizeof(doc) - 1; cut++)
		feed_channel_unref(parse_cut_in_two(doc, sizeof(doc) - 1, cut,
		                                    "Caf\u00e9"));
}

static void
test_invalid_in_cdata(void)
{
	static const char doc[] =
	        "<?xml version=\"1.0\" encoding=\"utf-8\"?><rss><channel>"
	        "<item><title><![CDATA[\x93"
	        "Caf\xe9\x94 \x0b\xef\xbf\xbe"
	        "\xc3\xbc]]></title></item><item><title>Two</title></item>"
	        "</channel></rss>";

	g_test_summary(
	        "Bytes that are not UTF-8, a control character and "
	        "U+FFFE in CDATA, which stop libxml2's push parser, are "
	        "repaired before it reads them, wherever the feed is cut");
	for (gsize cut = 1; cut < sizeof(doc) - 1; cut++) {
		g_autoptr(FeedChannel) channel =
		        parse_cut_in_two(doc, sizeof(doc) - 1, cut,
		                         "\u201cCaf\u00e9\u201d \ufffd\u00fc");

		g_assert_nonnull(strstr(feed_channel_get_errors(channel)[0],
		                        "byte 75: not UTF-8"));
	}
}

static void
test_encoding_error_quiet(void)
{
	static const char doc[] = "<?xml version=\"1.0\" encoding=\"EUC-JP\"?>"
	                          "<rss><channel><title>a\xff\xfe\xff\xfe"
	                          "b</title></channel></rss>";

	g_test_summary("Bytes that are not in the declared encoding are "
	               "reported in the channel, not printed by libxml2");
	if (g_test_subprocess()) {
		g_autoptr(FeedChannel) channel = feed_channel_new_from_data(
		        doc, sizeof(doc) - 1, NULL, NULL);

		g_assert_nonnull(channel);
		g_assert_nonnull(feed_channel_get_errors(channel)[0]);
		g_assert_nonnull(strstr(feed_channel_get_errors(channel)[0],
		                        "declared encoding"));
		return;
	}
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_passed();
	g_test_trap_assert_stderr("");
}

static void
test_overlong_in_cdata(void)
{
	static const char doc[] = "<rss><channel><item><title>"
	                          "<![CDATA[a\xc0\xb6"
	                          "b]]></title></item></channel></rss>";
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;
	FeedEpisode *episode;

	g_test_summary("An overlong form in a CDATA section, which libxml2 "
	               "lets through, is repaired like other bytes that are "
	               "not UTF-8");
	channel =
	        feed_channel_new_from_data(doc, sizeof(doc) - 1, NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(feed_channel_get_n_episodes(channel), ==, 1);
	episode = feed_channel_get_episode(channel, 0);
	g_assert_cmpstr(feed_episode_get_title(episode), ==, "a\u00c0\u00b6b");
}

static void
test_size_cap(void)
{
	g_autoptr(FeedParser) parser = feed_parser_new(NULL, NULL, NULL);
	g_autoptr(GError) error = NULL;
	g_autofree char *doc = g_strnfill(4096, ' ');

	g_test_summary("A document over the caller's cap fails with TOO_LARGE");
	feed_parser_set_max_size(parser, 1024);
	memcpy(doc, "<rss><channel>", 14);
	g_assert_true(feed_parser_feed(parser, doc, 1000, &error));
	g_assert_false(feed_parser_feed(parser, doc + 1000, 1000, &error));
	g_assert_error(error, FEED_ERROR, FEED_ERROR_TOO_LARGE);
	g_assert_nonnull(strstr(error->message, "cap"));
}

/* A file whose contents must never appear in what the parser hands out. */
static char *
secret_file(const char *contents)
{
	g_autofree char *dir = g_dir_make_tmp("feed-secret-XXXXXX", NULL);
	char *path = g_build_filename(dir, "secret.txt", NULL);

	g_assert_true(g_file_set_contents(path, contents, -1, NULL));
	return path;
}

static void
test_external_entity(void)
{
	g_autofree char *path = secret_file("TOPSECRET");
	g_autofree char *doc = g_strdup_printf(
	        "<?xml version=\"1.0\"?>\n"
	        "<!DOCTYPE rss [<!ENTITY xxe SYSTEM \"file://%s\">]>\n"
	        "<rss><channel><title>a&xxe;b</title>"
	        "<item><title>&xxe;</title></item></channel></rss>",
	        path);
	g_autoptr(GError) error = NULL;
	g_autofree char *dump = parse_to_dump(doc, &error);

	g_test_summary("External general entities are never loaded");
	g_assert_no_error(error);
	g_assert_null(strstr(dump, "TOPSECRET"));
	g_assert_nonnull(strstr(dump, "title=ab"));
}

static void
test_parameter_entity(void)
{
	g_autofree char *path = secret_file("<!ENTITY leak \"TOPSECRET\">");
	g_autofree char *doc = g_strdup_printf(
	        "<?xml version=\"1.0\"?>\n"
	        "<!DOCTYPE rss [<!ENTITY %% pe SYSTEM \"file://%s\"> %%pe;]>\n"
	        "<rss><channel><title>a&leak;b</title></channel></rss>",
	        path);
	g_autofree char *dtd_doc = g_strdup_printf(
	        "<?xml version=\"1.0\"?>\n"
	        "<!DOCTYPE rss SYSTEM \"file://%s\">\n"
	        "<rss><channel><title>a&leak;b</title></channel></rss>",
	        path);
	g_autoptr(GError) error = NULL;
	g_autofree char *dump = parse_to_dump(doc, &error);
	g_autofree char *dtd_dump = NULL;

	g_test_summary("External parameter entities and DTDs are never loaded");
	g_assert_no_error(error);
	g_assert_null(strstr(dump, "TOPSECRET"));
	dtd_dump = parse_to_dump(dtd_doc, &error);
	g_assert_no_error(error);
	g_assert_null(strstr(dtd_dump, "TOPSECRET"));
}

static void
test_no_network(void)
{
	g_autoptr(GSocket) listener = NULL;
	g_autoptr(GInetAddress) loopback =
	        g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) address =
	        g_inet_socket_address_new(loopback, 0);
	g_autoptr(GSocketAddress) bound = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree char *doc = NULL;
	g_autofree char *dump = NULL;
	guint16 port;

	g_test_summary("A DTD or entity on the network is never fetched");
	listener = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
	                        G_SOCKET_PROTOCOL_TCP, &error);
	g_assert_no_error(error);
	g_assert_true(g_socket_bind(listener, address, TRUE, &error));
	g_assert_true(g_socket_listen(listener, &error));
	bound = g_socket_get_local_address(listener, &error);
	port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
	doc = g_strdup_printf(
	        "<?xml version=\"1.0\"?>\n"
	        "<!DOCTYPE rss SYSTEM \"http://127.0.0.1:%u/a.dtd\" [\n"
	        "<!ENTITY net SYSTEM \"http://127.0.0.1:%u/b.xml\">\n"
	        "<!ENTITY %% pnet SYSTEM \"http://127.0.0.1:%u/c.dtd\">\n"
	        "%%pnet;]>\n"
	        "<rss><channel><title>x&net;y</title></channel></rss>",
	        port, port, port);
	dump = parse_to_dump(doc, &error);
	g_assert_no_error(error);
	g_assert_nonnull(strstr(dump, "title=xy"));
	g_assert_false(g_socket_condition_check(listener, G_IO_IN) & G_IO_IN);
}

static void
test_billion_laughs(void)
{
	GString *doc = g_string_new("<?xml version=\"1.0\"?>\n"
	                            "<!DOCTYPE rss [<!ENTITY l0 \"lol\">\n");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;

	g_test_summary("Exponential entity expansion fails with ENTITY_LIMIT");
	for (int i = 1; i <= 10; i++) {
		g_string_append_printf(doc, "<!ENTITY l%d \"", i);
		for (int j = 0; j < 10; j++)
			g_string_append_printf(doc, "&l%d;", i - 1);
		g_string_append(doc, "\">\n");
	}
	g_string_append(doc, "]><rss><channel><title>&l10;</title>"
	                     "</channel></rss>");
	channel = feed_channel_new_from_data(doc->str, doc->len, NULL, &error);
	g_assert_null(channel);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_ENTITY_LIMIT);
	g_string_free(doc, TRUE);
}

static void
test_billion_laughs_after_error(void)
{
	GString *doc = g_string_new("<?xml version=\"1.0\"?>\n"
	                            "<!DOCTYPE rss [<!ENTITY l0 \"lol\">\n");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;

	g_test_summary("After a recovered error, references are expanded "
	               "again, and exponential expansion still fails with "
	               "ENTITY_LIMIT");
	for (int i = 1; i <= 10; i++) {
		g_string_append_printf(doc, "<!ENTITY l%d \"", i);
		for (int j = 0; j < 10; j++)
			g_string_append_printf(doc, "&l%d;", i - 1);
		g_string_append(doc, "\">\n");
	}
	g_string_append(doc, "]><rss><channel>&undefined;<title>&l10;</title>"
	                     "</channel></rss>");
	channel = feed_channel_new_from_data(doc->str, doc->len, NULL, &error);
	g_assert_null(channel);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_ENTITY_LIMIT);
	g_string_free(doc, TRUE);
}

static void
test_predefined_count(void)
{
	GString *doc = g_string_new("<rss><channel><title>");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;

	g_test_summary("References to predefined entities do not count "
	               "towards libxml2's limit on undefined ones");
	for (int i = 0; i < 20000; i++)
		g_string_append(doc, "&lt;");
	g_string_append(doc, "</title><item><title>a &undefined; b</title>"
	                     "</item></channel></rss>");
	channel = feed_channel_new_from_data(doc->str, doc->len, NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(feed_channel_get_n_episodes(channel), ==, 1);
	g_string_free(doc, TRUE);
}

static void
test_quadratic_blowup(void)
{
	GString *doc = g_string_new("<?xml version=\"1.0\"?>\n"
	                            "<!DOCTYPE rss [<!ENTITY big \"");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;

	g_test_summary("Many references to one large entity are refused");
	for (int i = 0; i < 50000; i++)
		g_string_append_c(doc, 'x');
	g_string_append(doc, "\">]><rss><channel><title>");
	for (int i = 0; i < 50000; i++)
		g_string_append(doc, "&big;");
	g_string_append(doc, "</title></channel></rss>");
	channel = feed_channel_new_from_data(doc->str, doc->len, NULL, &error);
	g_assert_null(channel);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_ENTITY_LIMIT);
	g_string_free(doc, TRUE);
}

static void
test_attribute_blowup(void)
{
	GString *doc = g_string_new("<?xml version=\"1.0\"?>\n"
	                            "<!DOCTYPE rss [<!ENTITY big \"");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;

	g_test_summary("A blow-up in an attribute, with attributes after it "
	               "that are read once it is refused: ENTITY_LIMIT, and "
	               "nothing read from freed memory");
	for (int i = 0; i < 50000; i++)
		g_string_append_c(doc, 'x');
	g_string_append(doc, "\">]><rss><channel><title>t</title><item>"
	                     "<enclosure url=\"http://e.com/");
	for (int i = 0; i < 50000; i++)
		g_string_append(doc, "&big;");
	g_string_append(doc, "\" type=\"audio/mpeg\" length=\"1\"/>"
	                     "</item></channel></rss>");
	channel = feed_channel_new_from_data(doc->str, doc->len, NULL, &error);
	g_assert_null(channel);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_ENTITY_LIMIT);
	g_string_free(doc, TRUE);
}

static void
test_markup_attribute_blowup(void)
{
	GString *doc = g_string_new("<?xml version=\"1.0\"?>\n"
	                            "<!DOCTYPE rss [<!ENTITY big \"");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;

	g_test_summary("A blow-up in the attributes of markup inside a "
	               "description, which is serialized: ENTITY_LIMIT");
	for (int i = 0; i < 50000; i++)
		g_string_append_c(doc, 'x');
	g_string_append(doc, "\">]><rss><channel><title>t</title><item>"
	                     "<description>");
	for (int i = 0; i < 100; i++) {
		g_string_append(doc, "<a title=\"");
		for (int j = 0; j < 500; j++)
			g_string_append(doc, "&big;");
		g_string_append(doc, "\">x</a>");
	}
	g_string_append(doc, "</description></item></channel></rss>");
	channel = feed_channel_new_from_data(doc->str, doc->len, NULL, &error);
	g_assert_null(channel);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_ENTITY_LIMIT);
	g_string_free(doc, TRUE);
}

static void
test_bad_encoding_at_start(void)
{
	static const char doc[] = "\0<\0\0\x93";
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;

	g_test_summary("Bytes that libxml2 cannot decode as it creates its "
	               "context are an error, not a crash");
	channel =
	        feed_channel_new_from_data(doc, sizeof(doc) - 1, NULL, &error);
	g_assert_null(channel);
	g_assert_nonnull(error);
}

static void
test_deep_nesting(void)
{
	GString *doc = g_string_new("<rss><channel><title>t</title>");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;
	g_autofree char *dump = NULL;

	g_test_summary("Elements nested more than 256 deep: FEED_ERROR_PARSE "
	               "at once; 256 levels are read");
	for (int i = 0; i < 100000; i++)
		g_string_append(doc, "<a>");
	channel = feed_channel_new_from_data(doc->str, doc->len, NULL, &error);
	g_assert_null(channel);
	g_assert_error(error, FEED_ERROR, FEED_ERROR_PARSE);
	g_assert_nonnull(strstr(error->message, "nested more than 256"));
	g_clear_error(&error);

	g_string_assign(doc, "<rss><channel><title>t</title><item>");
	/* rss, channel and item are three levels of the 256. */
	for (int i = 0; i < 253; i++)
		g_string_append(doc, "<a>");
	for (int i = 0; i < 253; i++)
		g_string_append(doc, "</a>");
	g_string_append(doc, "<title>deep</title></item></channel></rss>");
	dump = parse_to_dump(doc->str, &error);
	g_assert_no_error(error);
	g_assert_nonnull(strstr(dump, "title=deep"));
	g_string_free(doc, TRUE);
}

static void
test_internal_entity(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *dump = parse_to_dump(
	        "<?xml version=\"1.0\"?>\n"
	        "<!DOCTYPE rss [<!ENTITY show \"Small &amp; Kind\">]>\n"
	        "<rss><channel><title>&show;</title></channel></rss>",
	        &error);

	g_test_summary("A small declared entity expands as XML says");
	g_assert_no_error(error);
	g_assert_nonnull(strstr(dump, "title=Small & Kind"));
}

static void
test_html_entities(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *dump = parse_to_dump(
	        "<rss><channel><title>a&nbsp;b&mdash;c&eacute;&hellip;</title>"
	        "<item><title>x</title><enclosure url=\"http://example.com/"
	        "caf&eacute;.mp3\"/></item></channel></rss>",
	        &error);

	g_test_summary("Undeclared HTML entities decode to their characters");
	g_assert_no_error(error);
	g_assert_nonnull(strstr(dump, "title=a b—cé…"));
	g_assert_nonnull(strstr(dump, "café.mp3"));
}

static void
test_utf16(void)
{
	g_autoptr(GError) error = NULL;
	const char *doc = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>"
	                  "<rss><channel><title>Grüße 日本</title>"
	                  "<item><title>é</title></item></channel></rss>";
	gsize length;
	g_autofree char *utf16 =
	        g_convert(doc, -1, "UTF-16LE", "UTF-8", NULL, &length, &error);
	g_autofree char *with_bom = g_malloc(length + 2);
	g_autofree char *whole = NULL;
	g_autofree char *bytes = NULL;

	g_test_summary("UTF-16 with a byte-order mark, fed whole and bytewise");
	g_assert_no_error(error);
	with_bom[0] = (char)0xff;
	with_bom[1] = (char)0xfe;
	memcpy(with_bom + 2, utf16, length);
	whole = parse_in_chunks(with_bom, length + 2, length + 2);
	bytes = parse_in_chunks(with_bom, length + 2, 1);
	g_assert_nonnull(strstr(whole, "title=Grüße 日本"));
	g_assert_cmpstr(bytes, ==, whole);
}

static void
test_declared_encodings(void)
{
	g_autoptr(GError) error = NULL;
	/* "Caf\xe9 \x93quoted\x94 \x80" in windows-1252 */
	g_autofree char *cp1252 = parse_to_dump(
	        "<?xml version=\"1.0\" encoding=\"windows-1252\"?>"
	        "<rss><channel><title>Caf\xe9 \x93q\x94 \x80</title>"
	        "</channel></rss>",
	        &error);
	g_autofree char *latin9 = NULL;

	g_test_summary("Declared single-byte encodings are converted");
	g_assert_no_error(error);
	g_assert_nonnull(strstr(cp1252, "title=Café “q” €"));
	latin9 = parse_to_dump("<?xml version=\"1.0\" "
	                       "encoding=\"ISO-8859-15\"?><rss><channel>"
	                       "<title>\xa4 \xe9</title></channel></rss>",
	                       &error);
	g_assert_no_error(error);
	g_assert_nonnull(strstr(latin9, "title=€ é"));
}

static void
test_invalid_utf8(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *dump = parse_to_dump(
	        "<rss><channel><title>Caf\xe9 d\xc3\xa9j\xc3\xa0 "
	        "\x80</title><item><title>\xff\xfe ok</title><enclosure "
	        "url=\"http://example.com/\xe9.mp3\"/></item></channel></rss>",
	        &error);

	g_test_summary("Invalid UTF-8 is repaired: all output is valid");
	g_assert_no_error(error);
	g_assert_true(g_utf8_validate(dump, -1, NULL));
	g_assert_nonnull(strstr(dump, "déjà"));
}

static void
add_fixture_tests(void)
{
	const char *data = g_getenv("FEED_TEST_DATA");
	g_autofree char *dir_path = NULL;
	g_autoptr(GDir) dir = NULL;
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	const char *name;

	if (data == NULL)
		return;
	dir_path = g_build_filename(data, "parse", NULL);
	dir = g_dir_open(dir_path, 0, NULL);
	if (dir == NULL)
		return;
	while ((name = g_dir_read_name(dir)) != NULL)
		if (!g_str_has_suffix(name, ".json") &&
		    !g_str_has_suffix(name, ".base"))
			g_ptr_array_add(names, g_strdup(name));
	g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
	for (guint i = 0; i < names->len; i++) {
		const char *file = *(char **)&names->pdata[i];
		g_autofree char *test_path =
		        g_strdup_printf("/parser/chunked/%s", file);
		char *path = g_build_filename(dir_path, file, NULL);
		g_autoptr(FeedChannel) channel =
		        feed_channel_new_from_file(path, NULL, NULL);

		/* Not-a-feed fixtures have no result to compare. */
		if (channel == NULL) {
			g_free(path);
			continue;
		}
		g_test_add_data_func_full(test_path, path, test_chunked,
		                          g_free);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	xmlInitParser();

	g_test_add_func("/parser/chunked/rich", test_rich_chunked);
	g_test_add_func("/parser/chunked/cut-after-invalid-utf8",
	                test_cut_after_invalid_utf8);
	g_test_add_func("/parser/streaming/episode-on-close", test_streaming);
	g_test_add_func("/parser/recover/truncated", test_truncated);
	g_test_add_func("/parser/recover/malformed", test_malformed);
	for (gsize i = 0; i < G_N_ELEMENTS(defects); i++) {
		g_autofree char *path =
		        g_strconcat("/parser/recover/references-after/",
		                    defects[i].name, NULL);

		g_test_add_data_func(path, &defects[i],
		                     test_references_after_error);
	}
	g_test_add_func("/parser/recover/stray-end-tags-deep",
	                test_stray_end_tags_deep);
	g_test_add_func("/parser/error/not-a-feed", test_not_a_feed);
	g_test_add_func("/parser/error/root-names-namespace",
	                test_root_names_namespace);
	g_test_add_func("/parser/error/root-not-utf8", test_root_not_utf8);
	g_test_add_func("/parser/error/size-cap", test_size_cap);
	g_test_add_func("/parser/error/encoding-quiet",
	                test_encoding_error_quiet);
	g_test_add_func("/parser/hostile/external-entity",
	                test_external_entity);
	g_test_add_func("/parser/hostile/parameter-entity",
	                test_parameter_entity);
	g_test_add_func("/parser/hostile/no-network", test_no_network);
	g_test_add_func("/parser/hostile/billion-laughs", test_billion_laughs);
	g_test_add_func("/parser/hostile/billion-laughs-after-error",
	                test_billion_laughs_after_error);
	g_test_add_func("/parser/hostile/predefined-count",
	                test_predefined_count);
	g_test_add_func("/parser/hostile/quadratic-blowup",
	                test_quadratic_blowup);
	g_test_add_func("/parser/hostile/attribute-blowup",
	                test_attribute_blowup);
	g_test_add_func("/parser/hostile/markup-attribute-blowup",
	                test_markup_attribute_blowup);
	g_test_add_func("/parser/hostile/deep-nesting", test_deep_nesting);
	g_test_add_func("/parser/hostile/bad-encoding-at-start",
	                test_bad_encoding_at_start);
	g_test_add_func("/parser/entities/internal", test_internal_entity);
	g_test_add_func("/parser/entities/html", test_html_entities);
	g_test_add_func("/parser/encoding/utf16-bom", test_utf16);
	g_test_add_func("/parser/encoding/declared", test_declared_encodings);
	g_test_add_func("/parser/encoding/invalid-utf8", test_invalid_utf8);
	g_test_add_func("/parser/encoding/invalid-in-cdata",
	                test_invalid_in_cdata);
	g_test_add_func("/parser/encoding/overlong-in-cdata",
	                test_overlong_in_cdata);
	add_fixture_tests();
	return g_test_run();
}
