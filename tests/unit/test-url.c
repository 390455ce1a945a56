/*
 * URL helpers. The /url/normalize/ cases give what podcastparser 0.6.9's
 * normalize_feed_url() gives (None is NULL, as is a ValueError from
 * urlsplit()), except those marked [ext], which follow rule 5 of the JSON
 * contract.
 */
#include "url-private.h"

typedef struct {
	const char *name;
	const char *base;
	const char *ref;
	const char *expected;
} ResolveCase;

#define SHOW "http://example.com/feeds/show.rss"

static const ResolveCase resolve_cases[] = {
	{ "relative", SHOW, "episode", "http://example.com/feeds/episode" },
	{ "parent", SHOW, "../media/e.mp3", "http://example.com/media/e.mp3" },
	{ "absolute-path", SHOW, "/e.mp3", "http://example.com/e.mp3" },
	{ "network-path", SHOW, "//cdn.example.com/e.mp3",
	  "http://cdn.example.com/e.mp3" },
	{ "query", SHOW, "?page=2", SHOW "?page=2" },
	{ "fragment", SHOW, "#t=10", SHOW "#t=10" },
	{ "dot-segments", SHOW, "./a/./b/../c.mp3",
	  "http://example.com/feeds/a/c.mp3" },
	{ "too-many-parents", SHOW, "../../../../x", "http://example.com/x" },
	{ "trimmed", SHOW, "  e.mp3 \n", "http://example.com/feeds/e.mp3" },
	{ "base-trimmed", " " SHOW "\n", "e.mp3",
	  "http://example.com/feeds/e.mp3" },
	/* An absolute reference does not pass through GUri at all. */
	{ "absolute-verbatim", SHOW, "HTTP://Example.COM/A%7e%2f B",
	  "HTTP://Example.COM/A%7e%2f B" },
	{ "other-scheme", SHOW, "mailto:someone@example.com",
	  "mailto:someone@example.com" },
	{ "keeps-case-and-escapes", "http://example.com/A%2Fb/",
	  "C%2Fd%20e.MP3", "http://example.com/A%2Fb/C%2Fd%20e.MP3" },
	{ "space-encoded", SHOW, "my episode.mp3",
	  "http://example.com/feeds/my%20episode.mp3" },
	{ "file-base", "file:///srv/feeds/empty.rss", "media/e.mp3",
	  "file:///srv/feeds/media/e.mp3" },
	{ "host-without-path", "http://example.com", "e.mp3",
	  "http://example.com/e.mp3" },
	/* GLib would hit a critical writing the path "//y" without a host. */
	{ "no-authority-double-slash", "file:x", ".//y", "file:/.//y" },
	{ "no-base", NULL, " e.mp3 ", "e.mp3" },
	{ "empty-base", "", "e.mp3", "e.mp3" },
	{ "relative-base", "feeds/show.rss", "e.mp3", "e.mp3" },
	/* GUri rejects a stray '%', so the reference stays as it is. */
	{ "stray-percent", SHOW, "100%.mp3", "100%.mp3" },
	{ "empty-ref", SHOW, "", NULL },
	{ "blank-ref", SHOW, " \t\u00a0", NULL },
	{ "null-ref", SHOW, NULL, NULL },
};

static void
test_resolve(gconstpointer data)
{
	const ResolveCase *c = data;
	g_autofree char *out = feed_url_resolve(c->base, c->ref);

	g_assert_cmpstr(out, ==, c->expected);
}

typedef struct {
	const char *name;
	const char *input;
	const char *expected;
} Case;

static const Case normalize_cases[] = {
	{ "itpc", "itpc://example.org/podcast.rss",
	  "http://example.org/podcast.rss" },
	{ "feed", "feed://example.com/rss", "http://example.com/rss" },
	{ "itms", "itms://itunes.apple.com/x?id=1",
	  "http://itunes.apple.com/x?id=1" },
	{ "no-scheme", "curry.com", "http://curry.com/" },
	{ "no-scheme-empty-query", "example.com/feed?",
	  "http://example.com/feed" },
	{ "host-lowercased", "http://Example.COM/", "http://example.com/" },
	{ "path-case-kept", "HTTPS://Example.COM/Path/File.MP3",
	  "https://example.com/Path/File.MP3" },
	{ "userinfo-lowercased", "http://User:Pass@Host.com/x",
	  "http://user:pass@host.com/x" },
	{ "idn-lowercased", "http://\u00c9XAMPLE.com/\u00c4",
	  "http://\u00e9xample.com/\u00c4" },
	{ "dotted-capital-i", "HTTP://\u0130.com/", "http://i\u0307.com/" },
	{ "empty-query", "http://example.org/test?",
	  "http://example.org/test" },
	{ "empty-query-and-fragment", "https://example.com/x?#",
	  "https://example.com/x" },
	{ "query-fragment-kept", "http://e.com/x?a=B#Frag",
	  "http://e.com/x?a=B#Frag" },
	{ "empty-path", "https://example.com", "https://example.com/" },
	{ "port", "http://Example.com:8080", "http://example.com:8080/" },
	{ "trimmed", " http://example.com/podcast.rss ",
	  "http://example.com/podcast.rss" },
	{ "ftp", "FTP://Example.com/x", "ftp://example.com/x" },
	{ "file", "file:///srv/e.mp3", "file:///srv/e.mp3" },
	{ "escapes-kept", "http://example.com/a%20b%2Fc%7e",
	  "http://example.com/a%20b%2Fc%7e" },
	{ "ipv6", "http://[::1]:8080/x", "http://[::1]:8080/x" },
	{ "mailto", "mailto:someone@example.com",
	  "http://mailto:someone@example.com/" },
	/* As podcastparser, odd as it is. */
	{ "feed-colon-http", "feed:http://example.com/rss",
	  "http:///http://example.com/rss" },
	{ "inner-tab-newline", "http://example.com/a\tb\nc\r.mp3",
	  "http://example.com/abc.mp3" },
	/* [ext] podcastparser keeps the spaces raw. */
	{ "inner-space", " http://x.com/my episode.mp3?a b ",
	  "http://x.com/my%20episode.mp3?a%20b" },
	{ "too-short", "http://", NULL },
	{ "seven-chars", "a.b/cde", NULL },
	{ "eight-chars", "a.b/cdef", "http://a.b/cdef" },
	{ "seven-chars-after-trim", "  a.b/cde  ", NULL },
	{ "gopher", "gopher://gopher.hprc.utoronto.ca/file.txt", NULL },
	/* No "://", so "http://" goes in front, and it is a host. */
	{ "javascript", "javascript:alert(1)", "http://javascript:alert(1)/" },
	{ "bracket-unbalanced", "http://[::1/x", NULL },
	{ "bracket-not-ip", "http://[example.com]/x", NULL },
	{ "bracket-ipv4", "http://[1.2.3.4]/x", NULL },
	{ "nfkc-delimiter", "http://a\u2100b.com/", NULL },
	{ "empty", "", NULL },
	{ "null", NULL, NULL },
};

static void
test_normalize(gconstpointer data)
{
	const Case *c = data;
	g_autofree char *out = feed_url_normalize(c->input);

	g_assert_cmpstr(out, ==, c->expected);
}

/*
 * podcastparser takes the raw basename: it would give "E%20file" for the
 * first case and "example" for "http://example.com".
 */
static const Case basename_cases[] = {
	{ "decoded-no-query", "E%20file.mp3?t=1", "E file" },
	{ "url", "http://example.com/path/episode.mp3", "episode" },
	{ "file-url", "file:///srv/feeds/empty.rss", "empty" },
	{ "last-extension", "http://example.com/a.b.c", "a.b" },
	{ "no-extension", "http://example.com/episode", "episode" },
	{ "dot-file", "http://example.com/.mp3", ".mp3" },
	{ "dots-only", "http://example.com/...", "..." },
	{ "trailing-dot", "http://example.com/a.", "a" },
	{ "fragment", "http://example.com/x.mp3#a/b.c", "x" },
	{ "encoded-dot", "http://example.com/x%2Ey", "x" },
	{ "utf8", "http://example.com/caf%C3%A9.mp3", "caf\u00e9" },
	{ "latin1", "http://example.com/caf%E9.mp3", "caf\u00e9" },
	{ "nul-dropped", "http://example.com/a%00b.mp3", "ab" },
	{ "bad-escape-kept", "http://example.com/100%.mp3", "100%" },
	{ "path", "/home/me/file.txt", "file" },
	{ "bare-name", "file", "file" },
	{ "host-only", "http://example.com", NULL },
	{ "directory", "http://example.com/dir/", NULL },
	{ "directory-query", "http://example.com/dir/?x=a.mp3", NULL },
	{ "empty", "", NULL },
	{ "null", NULL, NULL },
};

static void
test_basename(gconstpointer data)
{
	const Case *c = data;
	g_autofree char *out = feed_url_basename_no_extension(c->input);

	g_assert_cmpstr(out, ==, c->expected);
	if (out != NULL)
		g_assert_true(g_utf8_validate(out, -1, NULL));
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
	g_test_summary("Resolving references, normalizing enclosure URLs as "
	               "podcastparser, and titles from URL basenames");

	ADD_CASES("/url/resolve/", resolve_cases, test_resolve);
	ADD_CASES("/url/normalize/", normalize_cases, test_normalize);
	ADD_CASES("/url/basename/", basename_cases, test_basename);

	return g_test_run();
}
