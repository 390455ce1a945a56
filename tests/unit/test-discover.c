/*
 * Autodiscovery: the feed links of HTML pages, whole or in chunks of any
 * size, in any charset, however broken.
 */
#include "discover-private.h"

#include <libxml/parser.h>
#include <string.h>

#define PAGE "https://example.com/show/index.html"

typedef struct {
	const char *name;
	const char *summary;
	const char *page_url;
	const char *page;
	const char *expected[8];
} Case;

static const Case cases[] = {
	{ "rss-and-atom",
	  "A podcast site's head: RSS first though Atom comes first, then "
	  "Atom, then the rest; icons, stylesheets and hreflang alternates "
	  "are no feeds",
	  PAGE,
	  "<!DOCTYPE html>\n"
	  "<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	  "<title>The Example Show</title>\n"
	  "<link rel=\"stylesheet\" href=\"/style.css\">\n"
	  "<link rel=\"icon\" href=\"/favicon.ico\" type=\"image/x-icon\">\n"
	  "<link rel=\"alternate\" type=\"application/atom+xml\" "
	  "title=\"Atom\" href=\"https://example.com/feed.atom\">\n"
	  "<link rel=\"alternate\" type=\"application/rss+xml\" "
	  "title=\"RSS\" href=\"https://example.com/feed.rss\">\n"
	  "<link rel=\"canonical\" href=\"https://example.com/show/\">\n"
	  "<link rel=\"alternate\" hreflang=\"de\" "
	  "href=\"https://example.com/de/\">\n"
	  "<link rel=\"alternate\" type=\"application/rdf+xml\" "
	  "href=\"https://example.com/feed.rdf\">\n"
	  "<link rel=\"alternate\" type=\"application/rss+xml\" "
	  "title=\"Comments\" href=\"https://example.com/comments.rss\">\n"
	  "</head>\n<body><h1>The Example Show</h1></body>\n</html>\n",
	  { "https://example.com/feed.rss", "https://example.com/comments.rss",
	    "https://example.com/feed.atom", "https://example.com/feed.rdf" } },
	{ "relative",
	  "Relative hrefs are resolved against the page URL",
	  PAGE,
	  "<head>"
	  "<link rel=alternate type=application/rss+xml href=feed.xml>"
	  "<link rel=alternate type=application/rss+xml href=/podcast.rss>"
	  "<link rel=alternate type=application/rss+xml href=../all.rss>"
	  "<link rel=alternate type=application/rss+xml "
	  "href=//cdn.example.net/show.rss>"
	  "<link rel=alternate type=application/rss+xml href=?format=rss>"
	  "<link rel=alternate type=application/rss+xml "
	  "href=\" spaced.rss\n\">",
	  { "https://example.com/show/feed.xml",
	    "https://example.com/podcast.rss", "https://example.com/all.rss",
	    "https://cdn.example.net/show.rss",
	    "https://example.com/show/index.html?format=rss",
	    "https://example.com/show/spaced.rss" } },
	{ "base",
	  "The first <base href>, itself relative to the page, is the base",
	  PAGE,
	  "<head><base href=\"/podcasts/\">"
	  "<base href=\"https://other.example/\">"
	  "<link rel=alternate type=application/atom+xml href=atom.xml>"
	  "<link rel=alternate type=application/rss+xml href=feed.rss>",
	  { "https://example.com/podcasts/feed.rss",
	    "https://example.com/podcasts/atom.xml" } },
	{ "base-late",
	  "A <base> after a link still applies to it, as in browsers",
	  PAGE,
	  "<head><link rel=alternate type=application/rss+xml href=feed.rss>"
	  "<link rel=alternate type=application/rss+xml "
	  "href=https://example.com/abs.rss>"
	  "<base href=\"https://cdn.example.net/x/\">"
	  "<link rel=alternate type=application/rss+xml href=more.rss>",
	  { "https://cdn.example.net/x/feed.rss", "https://example.com/abs.rss",
	    "https://cdn.example.net/x/more.rss" } },
	{ "base-empty",
	  "A <base> without href does not count; one with an empty href "
	  "keeps the page URL, and is the first",
	  PAGE,
	  "<head><base target=_blank><base href=\"\">"
	  "<base href=\"https://other.example/\">"
	  "<link rel=alternate type=application/rss+xml href=feed.rss>",
	  { "https://example.com/show/feed.rss" } },
	{ "no-page-url",
	  "Without a page URL, relative hrefs lead nowhere",
	  NULL,
	  "<link rel=alternate type=application/rss+xml href=relative.rss>"
	  "<link rel=alternate type=application/rss+xml "
	  "href=https://example.com/abs.rss>",
	  { "https://example.com/abs.rss" } },
	{ "no-page-url-base",
	  "Without a page URL, an absolute <base> still resolves hrefs",
	  NULL,
	  "<base href=https://example.com/b/>"
	  "<link rel=alternate type=application/rss+xml href=r.rss>",
	  { "https://example.com/b/r.rss" } },
	{ "rel-tokens",
	  "rel is a list of tokens in any case; alternate or feed counts",
	  PAGE,
	  "<link rel=\"alternate feed\" type=application/rss+xml href=/a>"
	  "<link rel=\"ALTERNATE\" type=application/rss+xml href=/b>"
	  "<link rel=\"Feed\" type=application/rss+xml href=/c>"
	  "<link rel=\" \talternate\n\" type=application/rss+xml href=/d>"
	  "<link rel=\"alternate-feed\" type=application/rss+xml href=/x1>"
	  "<link rel=\"nofollow\" type=application/rss+xml href=/x2>"
	  "<link type=application/rss+xml href=/x3>"
	  "<link rel=\"\" type=application/rss+xml href=/x4>"
	  "<link rel=\"feeds\" type=application/rss+xml href=/x5>"
	  "<link rel=\"stylesheet alternate\" type=application/rss+xml "
	  "href=/e>"
	  "<LINK REL=\"Alternate\" TYPE=\"APPLICATION/RSS+XML\" HREF=\"/f\">",
	  { "https://example.com/a", "https://example.com/b",
	    "https://example.com/c", "https://example.com/d",
	    "https://example.com/e", "https://example.com/f" } },
	{ "type-parameters",
	  "Types are trimmed and lower-cased, parameters are ignored",
	  PAGE,
	  "<link rel=alternate type=\" Application/Atom+XML \" href=/atom>"
	  "<link rel=alternate type=\"text/xml;charset=UTF-8\" href=/text>"
	  "<link rel=alternate type=\"application/rss+xml; charset=utf-8\" "
	  "href=/rss>"
	  "<link rel=alternate type=\"application/xml\" href=/xml>"
	  "<link rel=alternate type=\"application/rdf+xml\" href=/rdf>"
	  "<link rel=alternate type=\"application/rss+xml2\" href=/x1>"
	  "<link rel=alternate type=\"application/rss\" href=/x2>"
	  "<link rel=alternate type=\"text/html\" href=/x3>"
	  "<link rel=alternate type=\"\" href=/x4>"
	  "<link rel=alternate type href=/x5>"
	  "<link rel=alternate href=/x6>",
	  { "https://example.com/rss", "https://example.com/atom",
	    "https://example.com/text", "https://example.com/xml",
	    "https://example.com/rdf" } },
	{ "no-links",
	  "A page without feed links gives an empty array",
	  PAGE,
	  "<html><head><title>No feeds</title>"
	  "<link rel=stylesheet href=/s.css>"
	  "<link rel=alternate hreflang=fr href=/fr/>"
	  "</head><body><a rel=alternate type=application/rss+xml "
	  "href=/anchor.rss>an anchor is no link element</a></body></html>",
	  { NULL } },
	{ "empty-page",
	  "An empty page gives an empty array",
	  PAGE,
	  "",
	  { NULL } },
	{ "not-html",
	  "Plain text gives an empty array",
	  PAGE,
	  "This is not HTML at all, just text > with < signs & such.\n",
	  { NULL } },
	{ "json-feed-skipped",
	  "JSON Feed is a feed libfeed does not read",
	  PAGE,
	  "<link rel=alternate type=application/feed+json href=/feed.json>"
	  "<link rel=alternate type=application/json href=/feed2.json>"
	  "<link rel=alternate type=application/rss+xml href=/feed.rss>",
	  { "https://example.com/feed.rss" } },
	{ "schemes",
	  "Only http and https URLs with a host count; empty hrefs do not",
	  PAGE,
	  "<link rel=alternate type=application/rss+xml "
	  "href=\"javascript:alert(1)\">"
	  "<link rel=alternate type=application/rss+xml "
	  "href=\"mailto:feeds@example.com\">"
	  "<link rel=alternate type=application/rss+xml "
	  "href=\"data:application/rss+xml,%3Crss%3E\">"
	  "<link rel=alternate type=application/rss+xml "
	  "href=\"ftp://example.com/f.rss\">"
	  "<link rel=alternate type=application/rss+xml "
	  "href=\"feed://example.com/f.rss\">"
	  "<link rel=alternate type=application/rss+xml href=\"\">"
	  "<link rel=alternate type=application/rss+xml href=\" \t \">"
	  "<link rel=alternate type=application/rss+xml href>"
	  "<link rel=alternate type=application/rss+xml>"
	  "<link rel=alternate type=application/rss+xml "
	  "href=\"http:no-host.rss\">"
	  "<link rel=alternate type=application/rss+xml "
	  "href=\"HTTPS://Example.COM/Upper.rss\">"
	  "<link rel=alternate type=application/rss+xml "
	  "href=\"http://example.com/plain.rss\">",
	  { "HTTPS://Example.COM/Upper.rss", "http://example.com/plain.rss" } },
	{ "duplicates",
	  "A URL is listed once, in the best place it has",
	  PAGE,
	  "<link rel=alternate type=application/atom+xml "
	  "href=https://example.com/both.xml>"
	  "<link rel=alternate type=application/rss+xml "
	  "href=https://example.com/feed.rss>"
	  "<link rel=alternate type=application/rss+xml href=/feed.rss>"
	  "<link rel=alternate type=application/atom+xml "
	  "href=https://example.com/atom.xml>"
	  "<link rel=alternate type=application/rss+xml href=/both.xml>"
	  "<link rel=alternate type=application/atom+xml href=/atom.xml>"
	  "<link rel=alternate type=application/rss+xml "
	  "href=https://example.com/feed.rss#top>",
	  { "https://example.com/feed.rss", "https://example.com/both.xml",
	    "https://example.com/feed.rss#top",
	    "https://example.com/atom.xml" } },
	{ "body",
	  "Links in the body, and after the end of the page, count too",
	  PAGE,
	  "<html><head><title>t</title></head><body>"
	  "<div><p>Subscribe: "
	  "<link rel=alternate type=application/rss+xml href=/in-body.rss>"
	  "</p></div></body></html>"
	  "<link rel=alternate type=application/atom+xml href=/after.atom>",
	  { "https://example.com/in-body.rss",
	    "https://example.com/after.atom" } },
	{ "hidden",
	  "Links in comments, scripts and styles are no links",
	  PAGE,
	  "<head><!-- <link rel=alternate type=application/rss+xml "
	  "href=/comment.rss> -->"
	  "<script>var s = '<link rel=alternate "
	  "type=application/rss+xml href=/script.rss>';</script>"
	  "<style>/* <link rel=alternate type=application/rss+xml "
	  "href=/style.rss> */</style>"
	  "<link rel=alternate type=application/rss+xml href=/real.rss>",
	  { "https://example.com/real.rss" } },
	{ "malformed",
	  "Broken HTML: unclosed tags, stray brackets, garbage bytes, bad "
	  "entities, and a last tag without its end",
	  PAGE,
	  "<html><head><title>Unclosed\n"
	  "<link rel=alternate type=application/rss+xml href=/unquoted.rss>\n"
	  "<div <p>>>> </ < <<link rel='alternate' "
	  "type='application/atom+xml' href='/single.atom'>\n"
	  "\x01\x02\xff\xfe\x80 garbage &bogus; &#xD800; &#0; <![CDATA[ x "
	  "<link rel=\"alternate\" type=\"application/rss+xml\" "
	  "href=\"/a&amp;b.rss?x=1&y=2\">\n"
	  "<link rel=\"alternate\" type=\"application/rss+xml\" "
	  "href=\"/a&amp;b.rss?x=1&y=2\" href=\"/second-href.rss\">\n"
	  "</body></html></html><p"
	  "<link rel=\"alternate\" type=\"application/rss+xml\" "
	  "href=\"/end.rss\"",
	  { "https://example.com/unquoted.rss",
	    "https://example.com/a&b.rss?x=1&y=2",
	    "https://example.com/single.atom" } },
	{ "windows-1252",
	  "A windows-1252 page gives UTF-8, undefined bytes and all",
	  PAGE,
	  "<html><head><meta http-equiv=\"Content-Type\" "
	  "content=\"text/html; charset=windows-1252\">"
	  "<title>Caf\xe9 \x93quoted\x94</title>\n"
	  "<link rel=alternate type=application/rss+xml title=\"R\xe9sum\xe9\" "
	  "href=\"/caf\xe9-\x80.rss\">\n"
	  "<link rel=alternate type=application/rss+xml "
	  "href=\"https://example.com/\xe9t\xe9.rss\">\n"
	  "<p>An undefined byte: \x81, and UTF-8 read as windows-1252: "
	  "\xe2\x80\x9d</p>\n"
	  "<link rel=alternate type=application/atom+xml href=\"/\x9d.atom\">",
	  { "https://example.com/caf%C3%A9-%E2%82%AC.rss",
	    "https://example.com/\xc3\xa9t\xc3\xa9.rss",
	    "https://example.com/%EF%BF%BD.atom" } },
	{ "latin1-label",
	  "A page labelled ISO-8859-1 is read as windows-1252, as browsers do",
	  PAGE,
	  "<meta charset=' ISO-8859-1 '>"
	  "<link rel=alternate type=application/rss+xml href=\"/\x80.rss\">",
	  { "https://example.com/%E2%82%AC.rss" } },
	{ "unknown-label",
	  "An unknown charset is ignored for the next <meta>",
	  PAGE,
	  "<meta charset=\"x-no-such-charset\">"
	  "<meta http-equiv=content-type "
	  "content=\"text/html;charset='koi8-r'\">"
	  "<link rel=alternate type=application/rss+xml href=\"/\xf0.rss\">",
	  { "https://example.com/%D0%9F.rss" } },
	{ "undeclared",
	  "Without a declaration, UTF-8, and bytes that are not UTF-8 "
	  "are read as windows-1252",
	  PAGE,
	  "<link rel=alternate type=application/rss+xml "
	  "href=\"/\xc3\xbc.rss\">"
	  "<link rel=alternate type=application/rss+xml href=\"/\xfc\x32.rss\">"
	  "<link rel=alternate type=application/rss+xml "
	  "href=\"https://example.com/\xe2\x82\xac\">",
	  { "https://example.com/%C3%BC.rss", "https://example.com/%C3%BC2.rss",
	    "https://example.com/\xe2\x82\xac" } },
	{ "utf8-bom",
	  "A UTF-8 byte order mark outranks the <meta>",
	  PAGE,
	  "\xef\xbb\xbf<meta charset=windows-1252>"
	  "<link rel=alternate type=application/rss+xml "
	  "href=\"/\xc3\xbc.rss\">",
	  { "https://example.com/%C3%BC.rss" } },
	{ "meta-after-sniffing",
	  "A <meta> past the first 1024 bytes is not read, as in browsers",
	  PAGE,
	  "<!-- "
	  "................................................................"
	  "................................................................"
	  "................................................................"
	  "................................................................"
	  "................................................................"
	  "................................................................"
	  "................................................................"
	  "................................................................"
	  "................................................................"
	  "................................................................"
	  "................................................................"
	  "................................................................"
	  "................................................................"
	  "................................................................"
	  "................................................................"
	  "................................................................"
	  "-->"
	  "<meta charset=koi8-r>"
	  "<link rel=alternate type=application/rss+xml href=\"/\xf0.rss\">",
	  { "https://example.com/%C3%B0.rss" } },
};

static void
assert_valid(char **links)
{
	if (links == NULL)
		g_assert_not_reached();
	for (char **l = links; *l != NULL; l++)
		g_assert_true(g_utf8_validate(*l, -1, NULL));
}

/* Pushes @page in chunks of @chunk bytes (0: all at once). */
static char **
discover(const char *page_url, const char *page, gsize length, gsize chunk)
{
	FeedDiscover *discover = feed_discover_new(page_url);
	char **links;

	if (chunk == 0)
		chunk = MAX(length, 1);
	for (gsize i = 0; i < length; i += chunk)
		feed_discover_push(discover, page + i, MIN(chunk, length - i));
	links = feed_discover_finish(discover);
	feed_discover_free(discover);
	assert_valid(links);
	return links;
}

static const gsize chunk_sizes[] = { 1, 2, 3, 5, 64, 1023, 1024, 1025, 4096 };

static void
test_case(gconstpointer data)
{
	const Case *c = data;
	g_auto(GStrv) links = NULL;

	g_test_summary(c->summary);
	links = discover(c->page_url, c->page, strlen(c->page), 0);
	g_assert_cmpstrv(links, c->expected);
}

/*
 * The first 1024 bytes are held until the charset is known, so a short
 * page is decoded in one go however it arrives. Its copy, after a long
 * comment, is not; being the same links, it adds none.
 */
static char *
doubled(const char *page)
{
	g_autoptr(GString) twice = g_string_new(page);

	g_string_append(twice, "\n<!--");
	while (twice->len < 1500)
		g_string_append_c(twice, ' ');
	g_string_append(twice, "-->\n");
	g_string_append(twice, page);
	return g_string_free(g_steal_pointer(&twice), FALSE);
}

static void
test_chunked(void)
{
	g_test_summary("Each page pushed one byte at a time, or in chunks of "
	               "any size, gives what it gives all at once");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		const Case *c = &cases[i];
		g_autofree char *page = doubled(c->page);

		for (gsize j = 0; j < G_N_ELEMENTS(chunk_sizes); j++) {
			g_auto(GStrv) links = NULL;
			g_auto(GStrv) twice = NULL;

			g_test_message("%s in chunks of %zu", c->name,
			               chunk_sizes[j]);
			links = discover(c->page_url, c->page, strlen(c->page),
			                 chunk_sizes[j]);
			g_assert_cmpstrv(links, c->expected);
			twice = discover(c->page_url, page, strlen(page),
			                 chunk_sizes[j]);
			g_assert_cmpstrv(twice, c->expected);
		}
	}
}

static void
test_push_after_sniffing(void)
{
	FeedDiscover *discover = feed_discover_new(PAGE);
	g_autoptr(GString) page = g_string_new("<head><title>");
	g_auto(GStrv) links = NULL;
	const char *const expected[] = { "https://example.com/late.rss", NULL };

	g_test_summary("Chunks that straddle the sniffed head and NUL bytes "
	               "are read as one page");
	while (page->len < 3000)
		g_string_append(page, "filler ");
	g_string_append(page, "</title>");
	g_string_append_len(page, "\0\0<link rel=alternate ", 23);
	g_string_append(page, "type=application/rss+xml href=/late.rss>");
	feed_discover_push(discover, page->str, 1000);
	feed_discover_push(discover, page->str + 1000, 0);
	feed_discover_push(discover, page->str + 1000, page->len - 1000);
	links = feed_discover_finish(discover);
	g_assert_cmpstrv(links, expected);
	g_strfreev(links);
	/* Finishing again gives the same links. */
	links = feed_discover_finish(discover);
	g_assert_cmpstrv(links, expected);
	feed_discover_free(discover);
}

/* Converts @utf8 to @charset for a page in that charset. */
static GBytes *
encode(const char *utf8, const char *charset, const char *prefix,
       gsize prefix_length)
{
	gsize length = 0;
	g_autofree char *converted = NULL;
	GByteArray *bytes = g_byte_array_new();

	converted = g_convert(utf8, -1, charset, "UTF-8", NULL, &length, NULL);
	g_assert_nonnull(converted);
	g_byte_array_append(bytes, (const guint8 *)prefix, prefix_length);
	g_byte_array_append(bytes, (const guint8 *)converted, length);
	return g_byte_array_free_to_bytes(bytes);
}

static void
assert_encoded(GBytes *page, const char *const *expected)
{
	gsize length;
	const char *data = g_bytes_get_data(page, &length);

	for (gsize j = 0; j < G_N_ELEMENTS(chunk_sizes); j++) {
		g_auto(GStrv) links =
		        discover(PAGE, data, length, chunk_sizes[j]);

		g_assert_cmpstrv(links, expected);
	}
	{
		g_auto(GStrv) links = discover(PAGE, data, length, 0);

		g_assert_cmpstrv(links, expected);
	}
}

/* A page whose link comes after a title of @n times @text. */
static char *
long_page(const char *meta, const char *text, int n, const char *href)
{
	g_autoptr(GString) html = g_string_new("<html><head>");

	g_string_append_printf(html, "%s<title>", meta);
	for (int i = 0; i < n; i++)
		g_string_append(html, text);
	g_string_append_printf(html,
	                       "</title><link rel=alternate "
	                       "type=application/rss+xml href=\"%s\">",
	                       href);
	return g_string_free(g_steal_pointer(&html), FALSE);
}

static void
test_utf16(void)
{
	g_autofree char *html = long_page("<meta charset=utf-16>",
	                                  "\xe2\x80\x9c\xf0\x9f\x8e\x99", 300,
	                                  "/\xc3\xa9\xf0\x9f\x8e\x99.rss");
	const char *const expected[] = {
		"https://example.com/%C3%A9%F0%9F%8E%99.rss", NULL
	};
	g_autoptr(GBytes) le = encode(html, "UTF-16LE", "\xff\xfe", 2);
	g_autoptr(GBytes) be = encode(html, "UTF-16BE", "\xfe\xff", 2);

	g_test_summary("A UTF-16 page with a byte order mark, split anywhere, "
	               "even inside a surrogate pair");
	assert_encoded(le, expected);
	assert_encoded(be, expected);
}

static void
test_shift_jis(void)
{
	/* 表 is 0x95 0x5C in Shift_JIS: its second byte is a backslash. */
	g_autofree char *html =
	        long_page("<meta http-equiv=\"Content-Type\" "
	                  "content=\"text/html; charset=Shift_JIS\">",
	                  "\xe7\x95\xaa\xe8\xa1\xa8", 300, "/\xe8\xa1\xa8.rss");
	const char *const expected[] = { "https://example.com/%E8%A1%A8.rss",
		                         NULL };
	g_autoptr(GBytes) page = encode(html, "SHIFT_JIS", "", 0);

	g_test_summary("A Shift_JIS page, split inside its characters");
	assert_encoded(page, expected);
}

static void
test_huge(void)
{
	g_autoptr(GString) page = g_string_new("<html><head>");
	g_auto(GStrv) links = NULL;

	g_test_summary("A page of 10,000 feed links gives the first 32");
	for (int i = 0; i < 10000; i++)
		g_string_append_printf(page,
		                       "<link rel=alternate "
		                       "type=application/rss+xml "
		                       "href=/feed-%d.rss>\n",
		                       i);
	links = discover(PAGE, page->str, page->len, 0);
	g_assert_cmpuint(g_strv_length(links), ==, 32);
	for (int i = 0; i < 32; i++) {
		g_autofree char *url =
		        g_strdup_printf("https://example.com/feed-%d.rss", i);

		g_assert_cmpstr(links[i], ==, url);
	}
}

static void
test_huge_priority(void)
{
	g_autoptr(GString) page = g_string_new("<html><head>");
	g_auto(GStrv) links = NULL;

	g_test_summary("The 32 links kept are the best ones: an RSS link "
	               "after 5,000 Atom links comes first");
	for (int i = 0; i < 5000; i++)
		g_string_append_printf(page,
		                       "<link rel=alternate "
		                       "type=application/atom+xml "
		                       "href=/atom-%d>\n"
		                       "<link rel=alternate type=text/xml "
		                       "href=/xml-%d>\n",
		                       i, i);
	g_string_append(page, "<link rel=alternate type=application/rss+xml "
	                      "href=/last.rss>");
	links = discover(PAGE, page->str, page->len, 0);
	g_assert_cmpuint(g_strv_length(links), ==, 32);
	g_assert_cmpstr(links[0], ==, "https://example.com/last.rss");
	for (int i = 1; i < 32; i++) {
		g_autofree char *url =
		        g_strdup_printf("https://example.com/atom-%d", i - 1);

		g_assert_cmpstr(links[i], ==, url);
	}
}

static void
test_long_page(void)
{
	g_autoptr(GString) page = g_string_new("<html><head><title>t</title>");
	const char *const expected[] = { "https://example.com/0.rss",
		                         "https://example.com/300.rss",
		                         "https://example.com/end.rss", NULL };
	const gsize sizes[] = { 1, 7, 250, 4096, 65536 };

	g_test_summary("A long page of comments, scripts and quoted '>' that "
	               "chunks cut anywhere: what libxml2 has read is let go");
	for (int i = 0; i < 600; i++) {
		g_string_append_printf(page, "<!-- comment %d > -- > -->", i);
		g_string_append(page,
		                "<script>if (a > b) x = '</p>';</script>");
		g_string_append_printf(page, "<p title=\"a > b\" class='>'>%d",
		                       i);
		if (i % 300 == 0)
			g_string_append_printf(page,
			                       "<link rel=alternate "
			                       "type=application/rss+xml "
			                       "title=\"x > y\" href=/%d.rss>",
			                       i);
	}
	g_string_append(page, "<!-- <link rel=alternate "
	                      "type=application/rss+xml href=/no.rss> -->"
	                      "<link rel=alternate type=application/rss+xml "
	                      "href=/end.rss>");
	for (gsize i = 0; i < G_N_ELEMENTS(sizes); i++) {
		g_auto(GStrv) links =
		        discover(PAGE, page->str, page->len, sizes[i]);

		g_assert_cmpstrv(links, expected);
	}
}

static void
test_long_href(void)
{
	g_autoptr(GString) page = g_string_new(
	        "<link rel=alternate type=application/rss+xml href=/");
	g_auto(GStrv) links = NULL;
	const char *const expected[] = { "https://example.com/short.rss",
		                         NULL };

	g_test_summary("An href longer than 8 KiB is no feed and not kept");
	for (int i = 0; i < 9000; i++)
		g_string_append_c(page, 'a');
	g_string_append(page, "><link rel=alternate type=application/rss+xml "
	                      "href=/short.rss>");
	links = discover(PAGE, page->str, page->len, 0);
	g_assert_cmpstrv(links, expected);
}

/* Pieces of pages, broken ones most of all, for pages made at random. */
static const char *const fragments[] = {
	"<link rel=alternate type=application/rss+xml href=/a.rss>",
	"<link rel='alternate feed' type='application/atom+xml; q=1' "
	"href=\"/b\xc3\xa9.atom\">",
	"<link rel=alternate type=text/xml href=/c.xml title=\"x > y < z\">",
	"<script>if (a < b && c > d) s = '</p><link rel=alternate "
	"type=application/rss+xml href=/s.rss>';</script>",
	"<style>p > a { content: '</style'; }</style>",
	"<!-- <link rel=alternate type=application/rss+xml "
	"href=/comment.rss> -- > -->",
	"<!-->",
	"<!--->",
	"<!",
	"<?php echo 1 ?>",
	"<!DOCTYPE html>",
	"<![CDATA[ x ]]>",
	"<p>",
	"</p>",
	"<div class='a>b'>",
	"</div>",
	"text ",
	"a < b ",
	"&amp; &lt; &#x3C; &bogus ",
	"\xc3\xa9\xe2\x82\xac\xf0\x9f\x8e\x99",
	"\xff\x80\x81",
	"\xe2\x82",
	"<",
	">",
	"\"",
	"'",
	"</",
	"</html>",
	"</body>",
	"<html>",
	"<head>",
	"</head>",
	"<body>",
	"<base href=/base/>",
	"<title>t",
	"</title>",
	"<meta charset=windows-1252>",
	"<meta charset=shift_jis>",
	"<textarea><link rel=alternate type=application/rss+xml "
	"href=/ta.rss></textarea>",
	"<svg><link rel=alternate type=application/rss+xml href=/svg/></svg>",
	"<table><tr><td>",
	"\r\n",
	"\t",
	"<a href=x",
	"<link rel=alternate type=application/rss+xml href=\"/unterminated",
};

static void
test_random(void)
{
	g_test_summary("Pages made at random from broken pieces give the "
	               "same links whole, a byte at a time and in chunks of "
	               "random sizes (--seed repeats a run)");
	for (int i = 0; i < 60; i++) {
		g_autoptr(GString) page = g_string_new(NULL);
		int n = g_test_rand_int_range(1, i % 10 == 0 ? 2000 : 200);
		FeedDiscover *reader = feed_discover_new(PAGE);
		g_auto(GStrv) whole = NULL;
		g_auto(GStrv) bytes = NULL;
		g_auto(GStrv) chunks = NULL;

		for (int j = 0; j < n; j++) {
			int k = g_test_rand_int_range(0,
			                              G_N_ELEMENTS(fragments));

			g_string_append(page, fragments[k]);
		}
		whole = discover(PAGE, page->str, page->len, 0);
		bytes = discover(PAGE, page->str, page->len, 1);
		g_assert_cmpstrv(bytes, whole);
		for (gsize at = 0; at < page->len;) {
			gsize length = (gsize)g_test_rand_int_range(1, 300);

			length = MIN(length, page->len - at);
			feed_discover_push(reader, page->str + at, length);
			at += length;
		}
		chunks = feed_discover_finish(reader);
		feed_discover_free(reader);
		g_assert_cmpstrv(chunks, whole);
	}
}

/* Pages that make libxml2 complain, and would print if it were let. */
static void
run_noisy_pages(void)
{
	static const char *const pages[] = {
		"<html><head><meta charset=windows-1252>"
		"<link rel=alternate type=application/rss+xml href=/\x81>",
		"<meta charset=shift_jis><p>\x81\xff\x80\xa0<<<<</p>",
		"<meta charset=utf-16><p>\xff\xfe\x00<",
		"<meta charset=x-bogus><p>&#xFFFFFFFF;&#0;&nosuch;</p>",
		"\xfe\xff\xd8\x00<\x00\x00",
		"<!DOCTYPE html PUBLIC \"x\" \"http://example.com/x.dtd\">"
		"<html><html><body></head><title><title></td></tr>"
		"<a <b <c d=\"e></p>\x00\x01\x1b</",
	};

	for (gsize i = 0; i < G_N_ELEMENTS(pages); i++) {
		const char *page = pages[i];
		gsize length = strlen(page);

		g_strfreev(discover(PAGE, page, length, 0));
		g_strfreev(discover(PAGE, page, length, 1));
	}
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		const char *page = cases[i].page;

		g_strfreev(discover(PAGE, page, strlen(page), 0));
	}
	for (int i = 0; i < 10; i++) {
		g_autoptr(GString) page = g_string_new(NULL);

		for (int j = 0; j < 3000; j++) {
			int k = g_test_rand_int_range(0,
			                              G_N_ELEMENTS(fragments));

			g_string_append(page, fragments[k]);
		}
		g_strfreev(discover(PAGE, page->str, page->len, 0));
	}
}

static void
test_silent(void)
{
	g_test_summary("libxml2 prints nothing, even on broken markup and "
	               "bytes the declared charset rejects");
	if (g_test_subprocess()) {
		run_noisy_pages();
		return;
	}
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_passed();
	g_test_trap_assert_stderr("");
	g_test_trap_assert_stdout("");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	xmlInitParser();

	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path =
		        g_strconcat("/discover/", cases[i].name, NULL);

		g_test_add_data_func(path, &cases[i], test_case);
	}
	g_test_add_func("/discover/chunked", test_chunked);
	g_test_add_func("/discover/push-after-sniffing",
	                test_push_after_sniffing);
	g_test_add_func("/discover/utf-16", test_utf16);
	g_test_add_func("/discover/shift-jis", test_shift_jis);
	g_test_add_func("/discover/huge", test_huge);
	g_test_add_func("/discover/huge-priority", test_huge_priority);
	g_test_add_func("/discover/long-page", test_long_page);
	g_test_add_func("/discover/random", test_random);
	g_test_add_func("/discover/long-href", test_long_href);
	g_test_add_func("/discover/silent", test_silent);
	return g_test_run();
}
