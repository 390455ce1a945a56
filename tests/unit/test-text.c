/*
 * Text helpers: squash, squash-nl, trim, UTF-8 repair, booleans, integers
 * and the is-it-HTML test. Unless a case says [ext], its expected value is
 * what podcastparser 0.6.9 (squash_whitespace, squash_whitespace_not_nl,
 * str.strip(), int(), is_html) gives for the same input.
 */
#include "text-private.h"

#include <string.h>

typedef struct {
	const char *name;
	const char *input;
	const char *expected;
} StringCase;

static const StringCase squash_cases[] = {
	{ "basic", " some\t   text  with a    lot of   spaces ",
	  "some text with a lot of spaces" },
	{ "nbsp", "\u00a0Hello\u00a0\u00a0world\u00a0", "Hello world" },
	{ "unicode-spaces",
	  "a\u2003b\u3000c\u202fd\u205fe\u1680f\u2028g\xc2\x85h\u2029i\u200aj",
	  "a b c d e f g h i j" },
	{ "not-spaces", "a\u200bb\u180ec\ufeffd", "a\u200bb\u180ec\ufeffd" },
	{ "newlines", "line one\r\n\r\nline two\n", "line one line two" },
	{ "vertical-tab-form-feed", "a\x0b\x0c b", "a b" },
	{ "info-separators", "a\x1c\x1d\x1e\x1f b", "a b" },
	{ "utf8",
	  "  \xc3\x87"
	  "a  va?  ",
	  "\xc3\x87"
	  "a va?" },
	{ "empty", "", "" },
	{ "only-spaces", " \t\n\u00a0\u3000 ", "" },
	{ "no-change", "already squashed", "already squashed" },
};

static const StringCase squash_nl_cases[] = {
	{ "basic", " linefeeds\ncarriage\r  returns",
	  "linefeeds\ncarriage\r returns" },
	{ "spaces-around-newline", "a \n b", "a \n b" },
	{ "tabs-around-newline", "a\t\t\n\t\tb", "a \n b" },
	{ "crlf-kept", "a\r\n\r\nb", "a\r\n\r\nb" },
	{ "trims-newlines", "\n\n text \n\n", "text" },
	{ "nbsp", "a\u00a0\u00a0\nb", "a \nb" },
	{ "line-separator-squashed", "a\u2028\u2029b", "a b" },
	{ "empty", "", "" },
};

static const StringCase trim_cases[] = {
	{ "basic", "  x  y \t", "x  y" },
	{ "unicode", "\u3000x y\u00a0", "x y" },
	{ "controls", "\x0b\x0cx\x1c", "x" },
	{ "not-space", "\u200bx\u200b", "\u200bx\u200b" },
	{ "empty", "", "" },
	{ "only-spaces", "\u00a0 \u2000", "" },
	{ "inner-kept", "a \n\n b", "a \n\n b" },
};

static void
test_squash(gconstpointer data)
{
	const StringCase *c = data;
	g_autofree char *out = feed_text_squash(c->input, strlen(c->input));

	g_assert_cmpstr(out, ==, c->expected);
}

static void
test_squash_nl(gconstpointer data)
{
	const StringCase *c = data;
	g_autofree char *out = feed_text_squash_nl(c->input, strlen(c->input));

	g_assert_cmpstr(out, ==, c->expected);
}

static void
test_trim(gconstpointer data)
{
	const StringCase *c = data;
	g_autofree char *out = feed_text_trim(c->input, strlen(c->input));

	g_assert_cmpstr(out, ==, c->expected);
}

/* The length, not a NUL, ends the input. */
static void
test_squash_length(void)
{
	static const char text[] = "  ab  cd  ef";
	g_autofree char *squashed = feed_text_squash(text, 8);
	g_autofree char *squashed_nl = feed_text_squash_nl(text, 8);
	g_autofree char *trimmed = feed_text_trim(text, 5);
	g_autofree char *nbsp_cut = feed_text_trim("x\xc2\xa0", 3);

	g_assert_cmpstr(squashed, ==, "ab cd");
	g_assert_cmpstr(squashed_nl, ==, "ab cd");
	g_assert_cmpstr(trimmed, ==, "ab");
	g_assert_cmpstr(nbsp_cut, ==, "x");
}

static void
test_squash_null(void)
{
	g_autofree char *squashed = feed_text_squash(NULL, 0);
	g_autofree char *squashed_nl = feed_text_squash_nl(NULL, 0);
	g_autofree char *trimmed = feed_text_trim(NULL, 0);

	g_assert_cmpstr(squashed, ==, "");
	g_assert_cmpstr(squashed_nl, ==, "");
	g_assert_cmpstr(trimmed, ==, "");
}

/* A truncated multi-byte space must not be read past the end. */
static void
test_squash_truncated_space(void)
{
	g_autofree char *a = feed_text_squash("x\xe3\x80", 3);
	g_autofree char *b = feed_text_squash("x\xc2", 2);

	g_assert_cmpstr(a, ==, "x\xe3\x80");
	g_assert_cmpstr(b, ==, "x\xc2");
}

/* [ext] windows-1252 reading of invalid bytes; these are ours alone. */
static const StringCase utf8_cases[] = {
	{ "latin1", "caf\xe9", "caf\u00e9" },
	{ "windows-1252", "\x93quoted\x94 \x80 \x85 \x99",
	  "\u201cquoted\u201d \u20ac \u2026 \u2122" },
	{ "undefined-bytes", "\x81\x8d\x8f\x90\x9d",
	  "\ufffd\ufffd\ufffd\ufffd\ufffd" },
	{ "high-latin1", "\xa0\xff", "\u00a0\u00ff" },
	{ "truncated", "\xe2\x82 end", "\u00e2\u201a end" },
	{ "overlong", "\xc0\xaf", "\u00c0\u00af" },
	{ "surrogate", "\xed\xa0\x80", "\u00ed\u00a0\u20ac" },
	{ "too-large", "\xf4\x90\x80\x80", "\u00f4\ufffd\u20ac\u20ac" },
	{ "mixed", "ok \xc3\xa9 \xe9 ok", "ok \u00e9 \u00e9 ok" },
	{ "controls",
	  "a\x01"
	  "b\x1f"
	  "c\td\ne\rf\x0bg\x7f",
	  "abc\td\ne\rfg\x7f" },
	{ "controls-and-invalid", "\x07\xff\x1b", "\u00ff" },
};

static void
test_valid_utf8(gconstpointer data)
{
	const StringCase *c = data;
	g_autofree char *out = feed_text_take_valid_utf8(g_strdup(c->input));

	g_assert_cmpstr(out, ==, c->expected);
	g_assert_true(g_utf8_validate(out, -1, NULL));
}

/* The fast path hands back the very same string. */
static void
test_valid_utf8_unchanged(void)
{
	char *text = g_strdup("Ça va \u2013 \U0001f600 \ufffe\t\r\n");
	char *out = feed_text_take_valid_utf8(text);

	g_assert_true(out == text);
	g_free(out);
	g_assert_null(feed_text_take_valid_utf8(NULL));
}

/* Every single byte, alone and after a lead byte, comes out valid. */
static void
test_valid_utf8_all_bytes(void)
{
	int b;

	for (b = 1; b < 256; b++) {
		char in[4] = { (char)b, 'x', '\0', '\0' };
		char in2[4] = { (char)0xe2, (char)b, '\0', '\0' };
		g_autofree char *out = feed_text_take_valid_utf8(g_strdup(in));
		g_autofree char *out2 =
		        feed_text_take_valid_utf8(g_strdup(in2));

		g_assert_true(g_utf8_validate(out, -1, NULL));
		g_assert_true(g_utf8_validate(out2, -1, NULL));
		g_assert_true(g_str_has_suffix(out, "x"));
	}
}

typedef struct {
	const char *name;
	const char *input;
	int expected;
} BoolCase;

static const BoolCase bool_cases[] = {
	{ "yes", "yes", 1 },
	{ "yes-upper-padded", " YES ", 1 },
	{ "true", "True", 1 },
	{ "explicit", "Explicit\n", 1 },
	{ "no", "no", 0 },
	{ "false", "FALSE", 0 },
	{ "clean", "\u00a0clean\u00a0", 0 },
	{ "empty", "", -1 },
	{ "spaces", "  ", -1 },
	{ "y", "y", -1 },
	{ "one", "1", -1 },
	{ "yes-please", "yes please", -1 },
	{ "inner-space", "ex plicit", -1 },
	{ "null", NULL, -1 },
};

static void
test_parse_bool(gconstpointer data)
{
	const BoolCase *c = data;

	g_assert_cmpint(feed_text_parse_bool(c->input), ==, c->expected);
}

typedef struct {
	const char *name;
	const char *input;
	gboolean ok;
	gint64 expected;
} IntCase;

static const IntCase int_cases[] = {
	{ "plain", "42", TRUE, 42 },
	{ "padded", " 42\n", TRUE, 42 },
	{ "nbsp", "\u00a012\u00a0", TRUE, 12 },
	{ "plus", "+7", TRUE, 7 },
	{ "minus", "-5", TRUE, -5 },
	{ "zero", "0", TRUE, 0 },
	{ "leading-zeros", "007", TRUE, 7 },
	{ "underscore", "1_000", TRUE, 1000 },
	{ "fullwidth", "\uff11\uff12", TRUE, 12 },
	{ "arabic-indic", "\u0663", TRUE, 3 },
	{ "max", "9223372036854775807", TRUE, G_MAXINT64 },
	{ "min", "-9223372036854775808", TRUE, G_MININT64 },
	{ "overflow", "9223372036854775808", FALSE, 0 },
	{ "negative-overflow", "-9223372036854775809", FALSE, 0 },
	{ "empty", "", FALSE, 0 },
	{ "spaces", "  ", FALSE, 0 },
	{ "sign-only", "+", FALSE, 0 },
	{ "sign-space", "- 1", FALSE, 0 },
	{ "trailing-underscore", "1_", FALSE, 0 },
	{ "leading-underscore", "_1", FALSE, 0 },
	{ "double-underscore", "1__0", FALSE, 0 },
	{ "fraction", "1.5", FALSE, 0 },
	{ "hex", "0x10", FALSE, 0 },
	{ "suffix", "12a", FALSE, 0 },
	{ "inner-space", "1 2", FALSE, 0 },
	{ "superscript", "\u00b2", FALSE, 0 },
	{ "null", NULL, FALSE, 0 },
};

static void
test_parse_int(gconstpointer data)
{
	const IntCase *c = data;
	gint64 value = -12345;

	g_assert_cmpint(feed_text_parse_int(c->input, &value), ==, c->ok);
	if (c->ok)
		g_assert_cmpint(value, ==, c->expected);
	else
		g_assert_cmpint(value, ==, -12345);
	g_assert_cmpint(feed_text_parse_int(c->input, NULL), ==, c->ok);
}

typedef struct {
	const char *name;
	const char *input;
	gboolean expected;
} HtmlCase;

static const HtmlCase html_cases[] = {
	{ "heading", "<h1>HELLO</h1>", TRUE },
	{ "less-than", "a < b < c", FALSE },
	{ "br-slash", "<br/>", TRUE },
	{ "br-space-slash", "<br />", TRUE },
	{ "upper", "<P>", TRUE },
	{ "attribute", "see <a href=\"x\">this</a>", TRUE },
	{ "attribute-newline", "<a\nhref=x>", TRUE },
	/* re.DOTALL: the '>' may be lines away. */
	{ "dotall", "<a\nb\nc>", TRUE },
	{ "no-gt-after-space", "<x\ny", FALSE },
	{ "math", "3 <b 5 > 2", TRUE },
	{ "closing-only", "</b>", FALSE },
	{ "comment", "<!-- c -->", FALSE },
	{ "cdata", "<![CDATA[x]]>", FALSE },
	{ "slash-space", "<a/ >", FALSE },
	{ "hyphen", "<a-b>", FALSE },
	{ "digit-first", "<1>", FALSE },
	{ "space-first", "< b>", FALSE },
	{ "unclosed", "<b", FALSE },
	{ "self-closing", "<a/>", TRUE },
	{ "alnum-name", "<h2>", TRUE },
	{ "non-ascii-name", "<\u00e9>", FALSE },
	{ "kelvin-sign", "<\u212a>", TRUE },
	{ "long-s", "<\u017f>", TRUE },
	{ "dotless-i", "<\u0131>", TRUE },
	{ "nbsp-is-space", "<a\u00a0x>", TRUE },
	{ "later-match", "a < b, but <i>c</i>", TRUE },
	{ "plain", "Just text.", FALSE },
	{ "empty", "", FALSE },
	{ "null", NULL, FALSE },
};

static void
test_looks_like_html(gconstpointer data)
{
	const HtmlCase *c = data;

	g_assert_cmpint(feed_text_looks_like_html(c->input), ==, c->expected);
}

/*
 * 1 MB of "<a" with no '>': a quadratic scan would not finish within the
 * test's timeout. Speed itself is measured by the benchmark, not here.
 */
static void
test_looks_like_html_linear(void)
{
	GString *s = g_string_new(NULL);

	while (s->len < 1 << 20)
		g_string_append(s, "<a <b ");
	g_assert_false(feed_text_looks_like_html(s->str));
	g_string_free(s, TRUE);
}

#define ADD_CASES(prefix, cases, func)                                         \
	do {                                                                   \
		gsize i_;                                                      \
		for (i_ = 0; i_ < G_N_ELEMENTS(cases); i_++) {                 \
			g_autofree char *path_ =                               \
			        g_strconcat(prefix, cases[i_].name, NULL);     \
			g_test_add_data_func(path_, &cases[i_], func);         \
		}                                                              \
	} while (0)

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_summary("Whitespace, UTF-8 repair, booleans, integers and the "
	               "HTML test, against podcastparser's results");

	ADD_CASES("/text/squash/", squash_cases, test_squash);
	g_test_add_func("/text/squash/length", test_squash_length);
	g_test_add_func("/text/squash/null", test_squash_null);
	g_test_add_func("/text/squash/truncated-space",
	                test_squash_truncated_space);
	ADD_CASES("/text/squash-nl/", squash_nl_cases, test_squash_nl);
	ADD_CASES("/text/trim/", trim_cases, test_trim);
	ADD_CASES("/text/valid-utf8/", utf8_cases, test_valid_utf8);
	g_test_add_func("/text/valid-utf8/unchanged",
	                test_valid_utf8_unchanged);
	g_test_add_func("/text/valid-utf8/all-bytes",
	                test_valid_utf8_all_bytes);
	ADD_CASES("/text/parse-bool/", bool_cases, test_parse_bool);
	ADD_CASES("/text/parse-int/", int_cases, test_parse_int);
	ADD_CASES("/text/looks-like-html/", html_cases, test_looks_like_html);
	g_test_add_func("/text/looks-like-html/linear",
	                test_looks_like_html_linear);

	return g_test_run();
}
