/* Show notes laid out for people: blocks, wrapping and references. */
#include "feed/notes.h"

#include <string.h>

typedef struct {
	const char *name;
	const char *html;
	guint width;
	const char *expected;
	const char *links; /* the references, space-separated; NULL: none */
} Case;

static const Case cases[] = {
	{ "paragraphs", "<p>First</p><p>Second</p>", 80, "First\n\nSecond",
	  NULL },
	{ "fragment", "just text", 80, "just text", NULL },
	{ "empty", "", 80, "", NULL },
	{ "only-tags", "<p> </p><div></div>", 80, "", NULL },
	{ "whitespace", "  a \n\t b  <b> c </b>d ", 80, "a b c d", NULL },
	{ "br", "a<br>b<br/>c", 80, "a\nb\nc", NULL },
	{ "entities", "Q&amp;A &lt;3 &quot;x&quot; caf&eacute; &#8220;q&#8221;",
	  80, "Q&A <3 \"x\" caf\u00e9 \u201cq\u201d", NULL },
	{ "wrap", "<p>one two three four five six seven</p>", 10,
	  "one two\nthree four\nfive six\nseven", NULL },
	{ "wrap-utf8",
	  "<p>\u00e9\u00e9\u00e9 \u00e9\u00e9\u00e9 \u00e9\u00e9</p>", 6,
	  "\u00e9\u00e9\u00e9\n\u00e9\u00e9\u00e9 \u00e9\u00e9", NULL },
	{ "wrap-wide", "<p>\u65e5\u672c \u65e5\u672c</p>", 5,
	  "\u65e5\u672c\n\u65e5\u672c", NULL },
	{ "long-word-cut", "<p>abcdefghijkl</p>", 5, "abcde\nfghij\nkl", NULL },
	{ "no-wrap", "<p>one two three</p><p>four</p>", 0,
	  "one two three\n\nfour", NULL },
	{ "list", "<p>Intro</p><ul><li>One</li><li>Two</li></ul><p>End</p>", 80,
	  "Intro\n\n\u2022 One\n\u2022 Two\n\nEnd", NULL },
	{ "list-wrap", "<ul><li>aaa bbb ccc</li></ul>", 9,
	  "\u2022 aaa bbb\n  ccc", NULL },
	{ "ordered",
	  "<ol><li>a</li><li>b</li></ol><ol start=\"9\"><li>c</li>"
	  "<li>d</li></ol>",
	  80, "1. a\n2. b\n\n9. c\n10. d", NULL },
	{ "nested", "<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>", 80,
	  "\u2022 a\n  \u25e6 b\n\u2022 c", NULL },
	{ "item-paragraphs", "<ul><li><p>a</p></li><li><p>b</p></li></ul>", 80,
	  "\u2022 a\n\u2022 b", NULL },
	{ "heading", "<h2>Topics</h2>text", 80, "Topics\n\ntext", NULL },
	{ "blockquote", "<blockquote><p>said so</p></blockquote>after", 80,
	  "> said so\n\nafter", NULL },
	{ "blockquote-wrap", "<blockquote>aaa bbb ccc</blockquote>", 9,
	  "> aaa bbb\n> ccc", NULL },
	{ "pre", "<pre>\nline  one\n  two\tx</pre><p>a b c</p>", 3,
	  "line  one\n  two   x\n\na b\nc", NULL },
	{ "hidden", "<script>alert(1)</script><style>p{}</style>shown", 80,
	  "shown", NULL },
	{ "document",
	  "<html><head><title>T</title></head><body><p>b</p>"
	  "</body></html>",
	  80, "b", NULL },
	{ "link", "See <a href=\"https://example.com/a\">the page</a>.", 80,
	  "See the page [1].", "https://example.com/a" },
	{ "link-is-url",
	  "PR at <a href=\"https://github.com/x/y/pull/1\">"
	  "https://github.com/x/y/pull/1</a>",
	  80, "PR at [1]", "https://github.com/x/y/pull/1" },
	{ "link-is-bare-url",
	  "<a href=\"https://example.com/\">example.com</a>", 80, "[1]",
	  "https://example.com/" },
	{ "link-twice",
	  "<a href=\"http://a.example/\">A</a> <a href=\"http://b.example/\">B"
	  "</a> <a href=\"http://a.example/\">again</a>",
	  80, "A [1] B [2] again [1]", "http://a.example/ http://b.example/" },
	{ "link-mark-not-alone",
	  "<p>aaaa <a href=\"http://x.example/\">bbbb</a></p>", 10,
	  "aaaa\nbbbb [1]", "http://x.example/" },
	{ "link-relative",
	  "<a href=\"/local\">here</a> <a href=\"#top\">top"
	  "</a> <a href=\"javascript:x()\">js</a>",
	  80, "here top js", NULL },
	{ "link-mailto", "<a href=\"mailto:me@example.com\">me@example.com</a>",
	  80, "[1]", "mailto:me@example.com" },
	{ "link-empty", "<a href=\"http://i.example/\"><img src=x></a>", 80,
	  "[1]", "http://i.example/" },
	{ "controls",
	  "a\x01"
	  "b\x7f"
	  "c\xc2\x85"
	  "d&#1;e&#x9b;f",
	  80, "abcdef", NULL },
	{ "control-in-url", "<a href=\"http://c.example/&#10;x\">c</a>", 80,
	  "c [1]", "http://c.example/x" },
	{ "invalid-utf8",
	  "a\xff"
	  "b",
	  80,
	  "a\xef\xbf\xbd"
	  "b",
	  NULL },
	{ "table",
	  "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr>"
	  "</table>",
	  80, "a b\n\nc", NULL },
	{ "hr", "a<hr>b", 80, "a\n\n* * *\n\nb", NULL },
};

static void
test_case(gconstpointer data)
{
	const Case *c = data;
	g_autoptr(FeedNotes) notes = feed_notes_new_from_html(c->html, -1);
	g_autofree char *text = feed_notes_format(notes, c->width);
	g_autoptr(GString) links = g_string_new(NULL);

	g_assert_cmpstr(text, ==, c->expected);
	for (guint i = 0; i < feed_notes_get_n_links(notes); i++)
		g_string_append_printf(links, "%s%s", i > 0 ? " " : "",
		                       feed_notes_get_link(notes, i));
	g_assert_cmpstr(links->len > 0 ? links->str : NULL, ==, c->links);
}

static void
test_length(void)
{
	g_autoptr(FeedNotes) notes = feed_notes_new_from_html("<p>ab</p>cd", 9);
	g_autofree char *text = feed_notes_format(notes, 80);

	g_test_summary("A length stops the HTML where it says");
	g_assert_cmpstr(text, ==, "ab");
}

static void
test_plain(void)
{
	g_autoptr(FeedNotes) notes = feed_notes_new_from_text(
	        "First line\nsecond  line\r\n\r\n\n  Next paragraph, "
	        "long enough to wrap\x02 <b>not a tag</b>\n",
	        -1);
	g_autofree char *text = feed_notes_format(notes, 20);

	g_test_summary("Plain text: blank lines part paragraphs, line "
	               "breaks stay, nothing is read as HTML");
	g_assert_cmpstr(text, ==,
	                "First line\nsecond line\n\nNext paragraph, long\n"
	                "enough to wrap\n<b>not a tag</b>");
	g_assert_cmpuint(feed_notes_get_n_links(notes), ==, 0);
}

static void
test_width_floor(void)
{
	g_autoptr(FeedNotes) notes = feed_notes_new_from_html(
	        "<ul><li><ul><li><ul><li><ul><li>aaa bbb ccc ddd eee fff ggg"
	        "</li></ul></li></ul></li></ul></li></ul>",
	        -1);
	g_autofree char *text = feed_notes_format(notes, 24);
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

	g_test_summary("Deep lists in a narrow width still give words room");
	g_assert_cmpuint(g_strv_length(lines), ==, 2);
	g_assert_true(g_str_has_prefix(lines[0], "      "));
	g_assert_nonnull(strstr(lines[0], "aaa bbb ccc ddd eee"));
}

static void
test_deep(void)
{
	GString *html = g_string_new(NULL);
	g_autoptr(FeedNotes) notes = NULL;
	g_autofree char *text = NULL;

	g_test_summary("Deeply nested markup neither crashes nor hangs");
	for (guint i = 0; i < 5000; i++)
		g_string_append(html,
		                "<blockquote><ul><li><a href=\"http://x/\">");
	g_string_append(html, "deep");
	notes = feed_notes_new_from_html(html->str, (gssize)html->len);
	text = feed_notes_format(notes, 80);
	g_assert_nonnull(text);
	g_string_free(html, TRUE);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path =
		        g_strdup_printf("/notes/html/%s", cases[i].name);

		g_test_add_data_func(path, &cases[i], test_case);
	}
	g_test_add_func("/notes/html/length", test_length);
	g_test_add_func("/notes/text/plain", test_plain);
	g_test_add_func("/notes/format/width-floor", test_width_floor);
	g_test_add_func("/notes/html/deep", test_deep);
	return g_test_run();
}
