/*
 * Show notes to plain text. Cases under /html/to-text/ give what
 * podcastparser 0.6.9's remove_html_tags() gives; cases under
 * /html/to-text-ext/ are the deliberate differences listed in html.c, with
 * podcastparser's result in a comment.
 */
#include "html-private.h"

#include <string.h>

typedef struct {
	const char *name;
	const char *input;
	const char *expected;
} Case;

static const Case pp_cases[] = {
	{ "plain", "Hello world", "Hello world" },
	{ "empty", "", "" },
	{ "paragraphs", "<p>First</p><p>Second</p>", "First\n\nSecond" },
	/* Only a bare <p> is a paragraph break. */
	{ "p-with-attributes", "<p class=\"x\">a</p><p>b</p>", "a\n\nb" },
	{ "br", "a<br>b<BR/>c<br class=x>d", "a\nb\nc\nd" },
	{ "list", "<ul><li>One</li><li>Two</li></ul>", "* One\n\n * Two" },
	{ "ordered-list", "<ol><li>a</li><li>b</li></ol>", "* a\n\n * b" },
	/* `<li[^>]*>` also matches <link>. */
	{ "link-is-li", "<link rel=x>text", "* text" },
	{ "dotted-capital-i", "<l\u0130>x", "* x" },
	{ "entities", "Q&amp;A &lt;3 &quot;x&quot; caf&eacute;",
	  "Q&A <3 \"x\" caf\u00e9" },
	{ "nbsp-trimmed", "&nbsp;Hello&nbsp;world&nbsp;", "Hello\u00a0world" },
	{ "numeric", "&#8220;Hi&#8221; &#39;x&#39; &#0065;",
	  "\u201cHi\u201d 'x' A" },
	{ "unknown-entity", "a&bogus;b", "ab" },
	{ "no-semicolon", "AT&T and R&D &nbsp", "AT&T and R&D &nbsp" },
	/* A numeric reference decoded to '&' starts a named one. */
	{ "numeric-then-named", "&#38;amp;", "&" },
	/* Entities are decoded after the tags are gone. */
	{ "entity-tag-not-stripped", "&lt;b      &gt;x", "<b      >x" },
	{ "entity-lt-gt", "&lt;3 and &gt;", "<3 and >" },
	{ "entity-across-tag", "&am<b>p;", "&" },
	{ "newline-collapse", "a\n\n\n\nb\r\n\r\nc", "a\n\nb\r\nc" },
	{ "newline-collapse-after-entity", "a\n\n&bogus;\n\nb", "a\n\nb" },
	{ "lt-without-gt", "a < b", "a < b" },
	{ "lt-then-gt", "1 <2 and 3> 2", "1  2" },
	{ "unclosed-tag", "text <b", "text <b" },
	{ "br-swallows-tag", "<br <b>x", "x" },
	/* Step 1 eats the '>' of <br>, so the <li> tag runs on to "x>". */
	{ "li-spans-br", "<li <br> x>y", "* y" },
	{ "li-ends-at-p", "<li <p> x>", "*  x>" },
	{ "comment", "a<!-- <p> -->b", "ab" },
	{ "attribute-with-gt", "<a title=\"x>y\">link</a>", "y\">link" },
	{ "utf8", "<p>Gr\u00fc\u00dfe \u2013 \u65e5\u672c</p>",
	  "Gr\u00fc\u00dfe \u2013 \u65e5\u672c" },
	{ "realistic",
	  "<p>Hello <b>world</b>!</p>\n<p>Links:</p><ul>\n"
	  "<li><a href=\"https://example.com\">Example</a></li>\n"
	  "<li>Second &amp; last</li>\n</ul>",
	  "Hello world!\n\nLinks:\n\n * Example\n\n * Second & last" },
	{ "only-tags", "<p></p><br><div></div>", "" },
	{ "entity-lf-blocks-name", "&a\nb;", "&a\nb;" },
	{ "entity-too-long", "&abcdefghi;", "&abcdefghi;" },
	/* Not a reference, so an unknown name "#x". */
	{ "hex-no-digits", "a&#x;b", "ab" },
	{ "numeric-newlines-collapse", "a&#10;&#10;&#10;b", "a\n\nb" },
};

static const Case ext_cases[] = {
	/* podcastparser: "bold" (its greedy group eats "lt;b&gt"). */
	{ "escaped-tag", "&lt;b&gt;bold&lt;/b&gt;", "<b>bold</b>" },
	/* podcastparser: "" */
	{ "double-escaped", "&amp;lt;", "&lt;" },
	/* podcastparser: "<3" */
	{ "entities-close-together", "&lt;3 &amp; &lt;", "<3 & <" },
	/* podcastparser: "Q more" */
	{ "adjacent-semicolon", "Q&amp;A; more", "Q&A; more" },
	/* podcastparser: "avar x = '\n\n';b" */
	{ "script", "a<script>var x = '<p>';</script>b", "ab" },
	/* podcastparser: "a1 b" */
	{ "script-upper", "a<SCRIPT type=\"x\">1 < 2</SCRIPT >b", "ab" },
	/* podcastparser: "p { color: red; }Text" */
	{ "style", "<style type=\"text/css\">p { color: red; }</style>Text",
	  "Text" },
	/* podcastparser: "aalert(1)" */
	{ "script-unclosed", "a<script>alert(1)", "a" },
	/* podcastparser: "xyz" */
	{ "script-close-prefix", "<style>x</styles>y</style>z", "z" },
	/* These two are as podcastparser: no contents to drop. */
	{ "script-self-closed", "a<script src=x/>b", "ab" },
	{ "script-name-prefix", "<scripture>x</scripture>", "x" },
	/* podcastparser: "" */
	{ "hex", "&#x2014;&#X41;", "\u2014A" },
	/* podcastparser: "ab" */
	{ "one-digit", "a&#9;b", "a\tb" },
	/* podcastparser: "" */
	{ "five-digits", "&#128512;", "\U0001f600" },
	/* podcastparser: "" */
	{ "leading-zeros", "&#0000065;", "A" },
	/* podcastparser: "ab" */
	{ "zero", "a&#0;b", "a\ufffdb" },
	/* podcastparser: "abc" */
	{ "surrogate", "a&#xD800;b&#57343;c", "a\ufffdb\ufffdc" },
	/* podcastparser: "&#99999999999999999999;" */
	{ "too-large", "&#x110000;&#99999999999999999999;", "\ufffd\ufffd" },
	/* podcastparser: "its" */
	{ "apos", "it&apos;s", "it's" },
};

static void
test_to_text(gconstpointer data)
{
	const Case *c = data;
	g_autofree char *out = feed_html_to_text(c->input);

	g_assert_cmpstr(out, ==, c->expected);
	g_assert_true(g_utf8_validate(out, -1, NULL));
}

static void
test_null(void)
{
	g_assert_null(feed_html_to_text(NULL));
}

/*
 * Inputs that would make a naive scanner quadratic: unclosed tags, <li>
 * and <br> without '>', each 1 MB. A quadratic scan would not finish within
 * the test's timeout; speed itself is measured by the benchmark, not here.
 */
static void
test_linear(void)
{
	static const char *const units[] = {
		"<a ",         "<li ",     "<br ", "&amp", "<li <br> ",
		"<a <li <br>", "<script>", "&#",   "&#x1", "\n\n\n",
	};
	gsize i;

	for (i = 0; i < G_N_ELEMENTS(units); i++) {
		GString *s = g_string_new(NULL);
		char *out;

		while (s->len < 1 << 20)
			g_string_append(s, units[i]);
		g_string_append(s, "end>");
		out = feed_html_to_text(s->str);
		g_assert_true(g_utf8_validate(out, -1, NULL));
		g_free(out);
		g_string_free(s, TRUE);
	}
}

/* Every byte after every tag and entity opener: no crash, valid output. */
static void
test_all_bytes(void)
{
	static const char *const openers[] = {
		"<",  "<b", "<br", "</",  "</l", "<l",  "<li",
		"<p", "&",  "&#",  "&#x", "&a",  "&am", "&amp",
	};
	gsize i;
	int b;

	for (i = 0; i < G_N_ELEMENTS(openers); i++) {
		for (b = 1; b < 128; b++) {
			char tail[2] = { (char)b, '\0' };
			g_autofree char *in =
			        g_strconcat("x", openers[i], tail, NULL);
			g_autofree char *out = feed_html_to_text(in);

			g_assert_nonnull(out);
			g_assert_true(g_utf8_validate(out, -1, NULL));
			g_assert_cmpuint(strlen(out), <=, strlen(in) + 3);
		}
	}
}

int
main(int argc, char **argv)
{
	gsize i;

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_summary("HTML show notes to plain text as podcastparser's "
	               "remove_html_tags(), plus the documented differences");

	for (i = 0; i < G_N_ELEMENTS(pp_cases); i++) {
		g_autofree char *path =
		        g_strconcat("/html/to-text/", pp_cases[i].name, NULL);

		g_test_add_data_func(path, &pp_cases[i], test_to_text);
	}
	for (i = 0; i < G_N_ELEMENTS(ext_cases); i++) {
		g_autofree char *path = g_strconcat("/html/to-text-ext/",
		                                    ext_cases[i].name, NULL);

		g_test_add_data_func(path, &ext_cases[i], test_to_text);
	}
	g_test_add_func("/html/to-text/null", test_null);
	g_test_add_func("/html/to-text/linear", test_linear);
	g_test_add_func("/html/to-text/all-bytes", test_all_bytes);

	return g_test_run();
}
