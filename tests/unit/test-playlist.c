/* Choosing and ordering playlist entries. Writers: test-writers. */
#include "feed/feed.h"
#include "playlist-private.h"

#include <libxml/parser.h>
#include <string.h>

#define ITUNES  "xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\""
#define PODCAST "xmlns:podcast=\"https://podcastindex.org/namespace/1.0\""

static FeedChannel *
channel_of(const char *items, const char *type)
{
	g_autofree char *doc = g_strdup_printf(
	        "<rss " ITUNES " " PODCAST "><channel><title>Show</title>"
	        "<itunes:author>Host</itunes:author>"
	        "<itunes:image href=\"http://example.com/show.jpg\"/>"
	        "<itunes:type>%s</itunes:type>%s</channel></rss>",
	        type, items);
	g_autoptr(GError) error = NULL;
	FeedChannel *channel =
	        feed_channel_new_from_data(doc, strlen(doc), NULL, &error);

	g_assert_no_error(error);
	return channel;
}

/* An item titled @title, dated day @day of January 2024. */
static char *
item(const char *title, int day, const char *enclosures)
{
	return g_strdup_printf(
	        "<item><title>%s</title><guid isPermaLink=\"false\">%s</guid>"
	        "<pubDate>%02d Jan 2024 00:00:00 GMT</pubDate>"
	        "<itunes:duration>%d</itunes:duration>%s</item>",
	        title, title, day, day * 60, enclosures);
}

static char *
audio(const char *name)
{
	return g_strdup_printf("<enclosure url=\"http://example.com/%s.mp3\" "
	                       "type=\"audio/mpeg\" length=\"1\"/>",
	                       name);
}

/* Five dated audio episodes, days 1 to 5, out of order in the document. */
static FeedChannel *
five(const char *type)
{
	static const int days[] = { 3, 1, 5, 2, 4 };
	GString *items = g_string_new(NULL);
	FeedChannel *channel;

	for (guint i = 0; i < G_N_ELEMENTS(days); i++) {
		g_autofree char *name = g_strdup_printf("ep%d", days[i]);
		g_autofree char *enclosure = audio(name);
		g_autofree char *one = item(name, days[i], enclosure);

		g_string_append(items, one);
	}
	channel = channel_of(items->str, type);
	g_string_free(items, TRUE);
	return channel;
}

static char *
titles(const FeedPlaylist *playlist)
{
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < feed_playlist_get_n_entries(playlist); i++) {
		const FeedPlaylistEntry *e =
		        feed_playlist_get_entry(playlist, i);

		g_string_append_printf(out, "%s%s", i > 0 ? " " : "",
		                       feed_playlist_entry_get_title(e));
	}
	return g_string_free(out, FALSE);
}

static void
test_order(void)
{
	g_autoptr(FeedChannel) episodic = five("episodic");
	g_autoptr(FeedChannel) serial = five("serial");
	g_autoptr(FeedPlaylistOptions) options = feed_playlist_options_new();
	g_autoptr(FeedPlaylist) a = feed_playlist_new(episodic, NULL);
	g_autoptr(FeedPlaylist) b = feed_playlist_new(serial, NULL);
	g_autoptr(FeedPlaylist) c = NULL;
	g_autofree char *ta = titles(a);
	g_autofree char *tb = titles(b);
	g_autofree char *tc = NULL;

	g_test_summary("Newest first, oldest first for serial shows");
	g_assert_cmpstr(ta, ==, "ep5 ep4 ep3 ep2 ep1");
	g_assert_cmpstr(tb, ==, "ep1 ep2 ep3 ep4 ep5");
	feed_playlist_options_set_order(options,
	                                FEED_PLAYLIST_ORDER_NEWEST_FIRST);
	c = feed_playlist_new(serial, options);
	tc = titles(c);
	g_assert_cmpstr(tc, ==, "ep5 ep4 ep3 ep2 ep1");
}

static void
test_filters(void)
{
	g_autoptr(FeedChannel) channel = five("episodic");
	g_autoptr(FeedPlaylistOptions) options = feed_playlist_options_new();
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedPlaylist) limited = NULL;
	g_autoptr(FeedPlaylist) since = NULL;
	g_autoptr(FeedPlaylist) matched = NULL;
	g_autofree char *t1 = NULL;
	g_autofree char *t2 = NULL;
	g_autofree char *t3 = NULL;

	g_test_summary("Limit, date, title patterns and length choose");
	feed_playlist_options_set_limit(options, 2);
	limited = feed_playlist_new(channel, options);
	t1 = titles(limited);
	g_assert_cmpstr(t1, ==, "ep5 ep4");

	feed_playlist_options_set_limit(options, 0);
	/* 3 January 2024, 00:00 UTC */
	feed_playlist_options_set_since(options, 1704240000);
	since = feed_playlist_new(channel, options);
	t2 = titles(since);
	g_assert_cmpstr(t2, ==, "ep5 ep4 ep3");

	feed_playlist_options_set_since(options, 0);
	g_assert_true(
	        feed_playlist_options_set_match(options, "EP[1-4]", &error));
	g_assert_true(feed_playlist_options_set_exclude(options, "2", &error));
	feed_playlist_options_set_min_duration(options, 3 * 60);
	matched = feed_playlist_new(channel, options);
	t3 = titles(matched);
	g_assert_cmpstr(t3, ==, "ep4 ep3");

	g_assert_false(feed_playlist_options_set_match(options, "(", &error));
	g_assert_error(error, G_REGEX_ERROR,
	               G_REGEX_ERROR_UNMATCHED_PARENTHESIS);
}

static gboolean
not_three(const FeedEpisode *episode, gpointer data)
{
	(*(int *)data)++;
	return strcmp(feed_episode_get_title(episode), "ep3") != 0;
}

static void
test_predicate(void)
{
	g_autoptr(FeedChannel) channel = five("episodic");
	g_autoptr(FeedPlaylistOptions) options = feed_playlist_options_new();
	g_autoptr(FeedPlaylist) playlist = NULL;
	g_autofree char *t = NULL;
	int calls = 0;

	g_test_summary("The caller's predicate has the last word");
	feed_playlist_options_set_predicate(options, not_three, &calls);
	playlist = feed_playlist_new(channel, options);
	t = titles(playlist);
	g_assert_cmpstr(t, ==, "ep5 ep4 ep2 ep1");
	g_assert_cmpint(calls, ==, 5);
}

static const FeedPlaylistEntry *
only_entry(const char *enclosures, FeedMediaKind media, FeedPlaylist **keep)
{
	g_autofree char *one = item("x", 1, enclosures);
	g_autoptr(FeedChannel) channel = channel_of(one, "episodic");
	g_autoptr(FeedPlaylistOptions) options = feed_playlist_options_new();

	feed_playlist_options_set_media(options, media);
	*keep = feed_playlist_new(channel, options);
	if (feed_playlist_get_n_entries(*keep) == 0)
		return NULL;
	g_assert_cmpuint(feed_playlist_get_n_entries(*keep), ==, 1);
	return feed_playlist_get_entry(*keep, 0);
}

static const char *
chosen(const char *enclosures, FeedMediaKind media)
{
	static char url[256];
	FeedPlaylist *playlist = NULL;
	const FeedPlaylistEntry *entry =
	        only_entry(enclosures, media, &playlist);

	g_strlcpy(url, entry != NULL ? feed_playlist_entry_get_url(entry) : "",
	          sizeof url);
	feed_playlist_unref(playlist);
	return url;
}

static void
test_best_enclosure(void)
{
	const char *video_then_audio =
	        "<enclosure url=\"http://e.com/v.mp4\" type=\"video/mp4\"/>"
	        "<enclosure url=\"http://e.com/a.mp3\" type=\"audio/mpeg\"/>";
	const char *unusable =
	        "<enclosure url=\"ftp://e.com/a.mp3\" type=\"audio/mpeg\"/>"
	        "<enclosure url=\"file:///etc/passwd\" type=\"audio/mpeg\"/>"
	        "<enclosure url=\"\" type=\"audio/mpeg\"/>"
	        "<enclosure url=\"https://e.com/ok.m4a\"/>";
	const char *alternates =
	        "<enclosure url=\"http://e.com/low.mp3\" type=\"video/mp4\"/>"
	        "<podcast:alternateEnclosure type=\"audio/mpeg\" "
	        "bitrate=\"64000\"><podcast:source "
	        "uri=\"http://e.com/64.mp3\"/>"
	        "</podcast:alternateEnclosure>"
	        "<podcast:alternateEnclosure type=\"audio/mpeg\" "
	        "bitrate=\"128000\"><podcast:source "
	        "uri=\"http://e.com/128.mp3\"/>"
	        "</podcast:alternateEnclosure>";
	const char *only_video =
	        "<enclosure url=\"http://e.com/v.mp4\" type=\"video/mp4\"/>";

	g_test_summary("One best usable enclosure: audio, http(s), bit rate");
	g_assert_cmpstr(chosen(video_then_audio, FEED_MEDIA_AUDIO), ==,
	                "http://e.com/a.mp3");
	g_assert_cmpstr(chosen(video_then_audio, FEED_MEDIA_VIDEO), ==,
	                "http://e.com/v.mp4");
	g_assert_cmpstr(chosen(unusable, FEED_MEDIA_AUDIO), ==,
	                "https://e.com/ok.m4a");
	g_assert_cmpstr(chosen(alternates, FEED_MEDIA_AUDIO), ==,
	                "http://e.com/128.mp3");
	g_assert_cmpstr(chosen(only_video, FEED_MEDIA_AUDIO), ==, "");
	g_assert_cmpstr(chosen(only_video, FEED_MEDIA_ANY), ==,
	                "http://e.com/v.mp4");
}

static void
test_url_authority(void)
{
	static const struct {
		const char *url;
		const char *chosen;
	} cases[] = {
		/* Normalized as podcastparser does: "http://javascript:…" */
		{ "javascript:alert(1)", "" },
		{ "data:audio/mpeg;base64,SUQz", "" },
		{ "http:///no-host.mp3", "" },
		{ "https://", "" },
		{ "http://e.com:99999/a.mp3", "" },
		{ "http://e.com:port/a.mp3", "" },
		{ "http://[]/a.mp3", "" },
		{ "http://[::1/a.mp3", "" },
		/* Entries reach MPD as they are, not only through writers. */
		{ "http://e.com/ls\xe2\x80\xa8/a.mp3", "" },
		{ "http://e.com/nel\xc2\x85/a.mp3", "" },
		{ "http://e.com:8080/a.mp3", "http://e.com:8080/a.mp3" },
		{ "http://e.com:/a.mp3", "http://e.com:/a.mp3" },
		{ "http://u:p@e.com/a.mp3", "http://u:p@e.com/a.mp3" },
		{ "http://[::1]:80/a.mp3", "http://[::1]:80/a.mp3" },
		{ "https://e.com?x=1:2", "https://e.com/?x=1:2" },
	};

	g_test_summary("An enclosure URL without a host, with a port that is "
	               "not a number or with a line separator gives no entry");
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *enclosure = g_strdup_printf(
		        "<enclosure url=\"%s\" type=\"audio/mpeg\"/>",
		        cases[i].url);

		g_test_message("%s", cases[i].url);
		g_assert_cmpstr(chosen(enclosure, FEED_MEDIA_AUDIO), ==,
		                cases[i].chosen);
	}
}

static void
test_entry_fields(void)
{
	FeedPlaylist *playlist = NULL;
	const FeedPlaylistEntry *entry = only_entry(
	        "<enclosure url=\"http://e.com/a.mp3\" type=\"audio/mpeg\"/>"
	        "<itunes:episode>7</itunes:episode>"
	        "<itunes:season>2</itunes:season>",
	        FEED_MEDIA_AUDIO, &playlist);

	g_test_summary("An entry carries the tags a player shows");
	g_assert_nonnull(entry);
	g_assert_cmpstr(feed_playlist_entry_get_title(entry), ==, "x");
	g_assert_cmpstr(feed_playlist_entry_get_album(entry), ==, "Show");
	g_assert_cmpstr(feed_playlist_entry_get_artist(entry), ==, "Host");
	g_assert_cmpstr(feed_playlist_entry_get_guid(entry), ==, "x");
	g_assert_cmpstr(feed_playlist_entry_get_image(entry), ==,
	                "http://example.com/show.jpg");
	g_assert_cmpint(feed_playlist_entry_get_duration(entry), ==, 60);
	g_assert_cmpint(feed_playlist_entry_get_date(entry), ==, 1704067200);
	g_assert_cmpint(feed_playlist_entry_get_number(entry), ==, 7);
	g_assert_cmpint(feed_playlist_entry_get_season(entry), ==, 2);
	g_assert_cmpstr(feed_playlist_get_title(playlist), ==, "Show");
	feed_playlist_unref(playlist);
}

static void
test_never_twice(void)
{
	g_autofree char *enc = audio("same");
	g_autofree char *a = item("a", 1, enc);
	g_autofree char *b = item("b", 2, enc);
	g_autofree char *untitled = g_strdup_printf(
	        "<item><title></title>%s</item>",
	        "<enclosure "
	        "url=\"http://e.com/u.mp3\" type=\"audio/mpeg\"/>");
	g_autofree char *items = g_strconcat(a, b, untitled, NULL);
	g_autoptr(FeedChannel) channel = channel_of(items, "episodic");
	g_autoptr(FeedPlaylist) playlist = feed_playlist_new(channel, NULL);
	g_autofree char *t = titles(playlist);

	g_test_summary("One entry per stream, the first in the document; "
	               "untitled items left out");
	g_assert_cmpstr(t, ==, "a");
}

static void
test_one_line(void)
{
	static const struct {
		const char *in;
		const char *out;
	} cases[] = {
		{ "plain", "plain" },
		{ "two\nlines", "two lines" },
		{ "\r\n  tabs\tand\vmore\f ", "tabs and more" },
		{ "esc\x1b[31mred", "esc [31mred" },
		{ "c1\xc2\x85next\xe2\x80\xa8sep", "c1 next sep" },
		{ "", "" },
	};

	g_test_summary("Text for a line-based format stays on one line");
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *out = feed_playlist_one_line(cases[i].in);

		g_assert_cmpstr(out, ==, cases[i].out);
	}
	{
		g_autofree char *none = feed_playlist_one_line(NULL);

		g_assert_cmpstr(none, ==, "");
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	xmlInitParser();

	g_test_add_func("/playlist/order", test_order);
	g_test_add_func("/playlist/filters", test_filters);
	g_test_add_func("/playlist/predicate", test_predicate);
	g_test_add_func("/playlist/best-enclosure", test_best_enclosure);
	g_test_add_func("/playlist/url-authority", test_url_authority);
	g_test_add_func("/playlist/entry-fields", test_entry_fields);
	g_test_add_func("/playlist/never-twice", test_never_twice);
	g_test_add_func("/playlist/one-line", test_one_line);
	return g_test_run();
}
