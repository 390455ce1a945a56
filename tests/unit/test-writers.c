/*
 * The playlist writers: M3U, XSPF and PLS, exactly as written, and what
 * hostile titles and URLs can and cannot do to them. Playlists come from
 * feeds through the public API; hostile ones the parser would clean first
 * are built by hand, to test the writers' own defence.
 */
#include "feed/feed.h"
#include "feed/playlist.h"
#include "playlist-private.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <string.h>

#define XSPF_NS "http://xspf.org/ns/0/"

/* Three episodes, the oldest first in the document, each a different case. */
static const char show_feed[] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<rss version=\"2.0\" "
        "xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\">\n"
        "<channel>\n"
        "<title>Writers &amp; Co</title>\n"
        "<itunes:author>Show Author</itunes:author>\n"
        "<itunes:image href=\"https://example.com/show.jpg\"/>\n"
        "<item>\n"
        "<title>Episode one</title>\n"
        "<guid isPermaLink=\"false\">guid-1</guid>\n"
        "<pubDate>Mon, 01 Jan 2024 10:00:00 GMT</pubDate>\n"
        "<itunes:author>Ann Artist</itunes:author>\n"
        "<itunes:duration>1:02:03</itunes:duration>\n"
        "<itunes:episode>7</itunes:episode>\n"
        "<itunes:image href=\"https://example.com/one.jpg\"/>\n"
        "<description>First line &lt; here.\nSecond line.</description>\n"
        "<enclosure url=\"https://example.com/one.mp3\" length=\"1\" "
        "type=\"audio/mpeg\"/>\n"
        "</item>\n"
        "<item>\n"
        "<title>Episode two</title>\n"
        "<guid isPermaLink=\"false\">guid-2</guid>\n"
        "<pubDate>Tue, 02 Jan 2024 10:00:00 GMT</pubDate>\n"
        "<enclosure url=\"https://example.com/two.mp3\" length=\"1\" "
        "type=\"audio/mpeg\"/>\n"
        "</item>\n"
        "<item>\n"
        "<title>Three, with &lt;b&gt; &amp; \"quotes\"</title>\n"
        "<guid isPermaLink=\"false\">guid-3</guid>\n"
        "<pubDate>Wed, 03 Jan 2024 10:00:00 GMT</pubDate>\n"
        "<itunes:duration>90</itunes:duration>\n"
        "<enclosure url=\"http://example.com/three.mp3?a=1&amp;b=2\" "
        "length=\"1\" type=\"audio/mpeg\"/>\n"
        "</item>\n"
        "</channel>\n"
        "</rss>\n";

/* No author anywhere: names are the titles alone. */
static const char anonymous_feed[] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<rss version=\"2.0\"><channel>\n"
        "<title>Nobody's show</title>\n"
        "<item><title>Only episode</title><guid>only</guid>\n"
        "<enclosure url=\"https://example.com/only.mp3\" length=\"1\" "
        "type=\"audio/mpeg\"/></item>\n"
        "</channel></rss>\n";

/* Items without enclosures give no entries. */
static const char empty_feed[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                 "<rss version=\"2.0\"><channel>\n"
                                 "<title>Empty show</title>\n"
                                 "<item><title>Text only</title></item>\n"
                                 "</channel></rss>\n";

/*
 * A title that tries to end its line and start an entry of its own, with
 * the controls XML lets through as character references: TAB, CR, LF, C1
 * (NEL, CSI) and U+2028; and a raw ESC, which XML forbids, for the parser
 * to recover from.
 */
static const char hostile_feed[] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<rss version=\"2.0\"><channel>\n"
        "<title>Hostile&#10;[playlist]&#13;</title>\n"
        "<item><title>Bad&#10;#EXTINF:1,Injected&#13;&#10;"
        "http://evil.example/x.mp3&#10;File9=http://evil.example/y.mp3"
        "&#9;tab&#x85;nel&#x9b;31m&#x2028;\x1b[31mend</title>"
        "<guid>bad</guid>\n"
        "<pubDate>Mon, 01 Jan 2024 10:00:00 GMT</pubDate>\n"
        "<enclosure url=\"https://example.com/bad.mp3\" length=\"1\" "
        "type=\"audio/mpeg\"/></item>\n"
        "<item><title>Good</title><guid>good</guid>\n"
        "<pubDate>Tue, 02 Jan 2024 10:00:00 GMT</pubDate>\n"
        "<enclosure url=\"https://example.com/good.mp3\" length=\"1\" "
        "type=\"audio/mpeg\"/></item>\n"
        "</channel></rss>\n";

/* The playlist of @feed, oldest first. */
static FeedPlaylist *
playlist_from_feed(const char *feed)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = feed_channel_new_from_data(
	        feed, strlen(feed), "https://example.com/feed.xml", &error);
	g_autoptr(FeedPlaylistOptions) options = feed_playlist_options_new();

	g_assert_no_error(error);
	g_assert_nonnull(channel);
	feed_playlist_options_set_order(options,
	                                FEED_PLAYLIST_ORDER_OLDEST_FIRST);
	return feed_playlist_new(channel, options);
}

static char *
write_feed(const char *feed, FeedPlaylistFormat format)
{
	g_autoptr(FeedPlaylist) playlist = playlist_from_feed(feed);

	return feed_playlist_to_string(playlist, format);
}

/*
 * Hand-made entries, for text the parser would never hand over: every
 * field is set, and @url, @title and @artist are taken as they are.
 */
static FeedPlaylistEntry *
entry_new(const char *url, const char *title, const char *artist,
          gint64 duration)
{
	FeedPlaylistEntry *entry = g_new0(FeedPlaylistEntry, 1);

	entry->url = g_strdup(url);
	entry->mime_type = g_strdup("audio/mpeg");
	entry->title = g_strdup(title);
	entry->album = g_strdup("Album");
	entry->artist = g_strdup(artist);
	entry->guid = g_strdup(url);
	entry->image = NULL;
	entry->description = g_strdup("");
	entry->duration = duration;
	entry->season = -1;
	return entry;
}

static void
entry_free(gpointer data)
{
	FeedPlaylistEntry *entry = data;

	g_free(entry->url);
	g_free(entry->mime_type);
	g_free(entry->title);
	g_free(entry->album);
	g_free(entry->artist);
	g_free(entry->guid);
	g_free(entry->image);
	g_free(entry->description);
	g_free(entry);
}

/*
 * A playlist holding the NULL-terminated entries, laid out as
 * feed_playlist_new() lays them out, so feed_playlist_unref() frees it.
 */
static FeedPlaylist *
playlist_new(const char *title, ...)
{
	FeedPlaylist *playlist = g_new0(FeedPlaylist, 1);
	FeedPlaylistEntry *entry;
	va_list ap;

	g_atomic_ref_count_init(&playlist->ref);
	playlist->title = g_strdup(title);
	playlist->entries = g_ptr_array_new_with_free_func(entry_free);
	va_start(ap, title);
	while ((entry = va_arg(ap, FeedPlaylistEntry *)) != NULL)
		g_ptr_array_add(playlist->entries, entry);
	va_end(ap);
	return playlist;
}

/* Every line written to end with "\n" only, and nothing that a reader
 * could take for the end of a line, or a terminal for a command. */
static void
assert_clean_lines(const char *document)
{
	g_assert_true(g_utf8_validate(document, -1, NULL));
	g_assert_true(g_str_has_suffix(document, "\n"));
	for (const char *p = document; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if ((c < 0x20 && c != '\n') || (c >= 0x7f && c <= 0x9f) ||
		    c == 0x2028 || c == 0x2029)
			g_error("control character U+%04X at offset %td "
			        "of:\n%s",
			        c, p - document, document);
	}
}

static guint
count_lines(const char *document)
{
	guint n = 0;

	for (const char *p = document; *p != '\0'; p++)
		n += *p == '\n';
	return n;
}

/* ---- M3U ---- */

static void
test_m3u_extinf(void)
{
	g_autofree char *m3u = NULL;

	g_test_summary("#EXTM3U, #PLAYLIST, then #EXTINF:SECONDS,Artist - "
	               "Title and the URL per entry; -1 for no length");
	m3u = write_feed(show_feed, FEED_PLAYLIST_FORMAT_M3U);
	g_assert_cmpstr(m3u, ==,
	                "#EXTM3U\n"
	                "#PLAYLIST:Writers & Co\n"
	                "#EXTINF:3723,Ann Artist - Episode one\n"
	                "https://example.com/one.mp3\n"
	                "#EXTINF:-1,Show Author - Episode two\n"
	                "https://example.com/two.mp3\n"
	                "#EXTINF:90,Show Author - Three, with <b> & "
	                "\"quotes\"\n"
	                "http://example.com/three.mp3?a=1&b=2\n");
}

static void
test_m3u_no_artist(void)
{
	g_autofree char *m3u = NULL;
	g_autoptr(FeedPlaylist) hand = NULL;
	g_autofree char *hand_m3u = NULL;

	g_test_summary("Without an artist the name is the title alone");
	m3u = write_feed(anonymous_feed, FEED_PLAYLIST_FORMAT_M3U);
	g_assert_cmpstr(m3u, ==,
	                "#EXTM3U\n"
	                "#PLAYLIST:Nobody's show\n"
	                "#EXTINF:-1,Only episode\n"
	                "https://example.com/only.mp3\n");

	/* An artist that cleans to nothing counts as none. */
	hand = playlist_new(
	        "", entry_new("https://a.example/1.mp3", "One", " \t\n", 5),
	        NULL);
	hand_m3u = feed_m3u_write(hand);
	g_assert_cmpstr(hand_m3u, ==,
	                "#EXTM3U\n"
	                "#EXTINF:5,One\n"
	                "https://a.example/1.mp3\n");
}

static void
test_m3u_hostile_title(void)
{
	g_autofree char *m3u = NULL;
	g_autoptr(FeedPlaylist) hand = NULL;
	g_autofree char *hand_m3u = NULL;

	g_test_summary("A title with line breaks or control characters stays "
	               "on its one #EXTINF line");
	m3u = write_feed(hostile_feed, FEED_PLAYLIST_FORMAT_M3U);
	assert_clean_lines(m3u);
	g_assert_cmpuint(count_lines(m3u), ==, 6);
	g_assert_true(g_str_has_prefix(m3u, "#EXTM3U\n#PLAYLIST:Hostile "
	                                    "[playlist]\n#EXTINF:-1,Bad "
	                                    "#EXTINF:1,Injected "
	                                    "http://evil.example/x.mp3 "));
	g_assert_true(g_str_has_suffix(m3u, "end\n"
	                                    "https://example.com/bad.mp3\n"
	                                    "#EXTINF:-1,Good\n"
	                                    "https://example.com/good.mp3\n"));

	/* What the parser would have cleaned already, raw. */
	hand = playlist_new(
	        "Title\r\n#EXTINF:1,x",
	        entry_new("https://a.example/1.mp3",
	                  "a\nb\rc\td\x1b[31me\xe2\x80\xa8"
	                  "f\xe2\x80\xa9g\xc2\x85h\xc2\x9bi\x7fj\x01k",
	                  "Art\nist", 12),
	        NULL);
	hand_m3u = feed_m3u_write(hand);
	assert_clean_lines(hand_m3u);
	g_assert_cmpstr(hand_m3u, ==,
	                "#EXTM3U\n"
	                "#PLAYLIST:Title #EXTINF:1,x\n"
	                "#EXTINF:12,Art ist - a b c d [31me f g h i j k\n"
	                "https://a.example/1.mp3\n");
}

static void
test_m3u_unsafe_url(void)
{
	g_autoptr(FeedPlaylist) hand = NULL;
	g_autofree char *m3u = NULL;

	g_test_summary("An entry whose URL holds a control character is left "
	               "out, not written");
	hand = playlist_new(
	        "Show", entry_new("https://a.example/1.mp3", "One", NULL, 1),
	        entry_new("https://a.example/x.mp3\n#EXTINF:9,Evil\n"
	                  "https://evil.example/",
	                  "Bad", NULL, 2),
	        entry_new("https://a.example/\r.mp3", "CR", NULL, 3),
	        entry_new("https://a.example/\xc2\x85.mp3", "NEL", NULL, 4),
	        entry_new("https://a.example/\xe2\x80\xa8.mp3", "LS", NULL, 5),
	        entry_new("https://a.example/a b.mp3", "Space", NULL, 6),
	        entry_new("https://a.example/\xff.mp3", "Not UTF-8", NULL, 7),
	        entry_new("https://a.example/2.mp3", "Two", NULL, 8), NULL);
	m3u = feed_m3u_write(hand);
	g_assert_cmpstr(m3u, ==,
	                "#EXTM3U\n"
	                "#PLAYLIST:Show\n"
	                "#EXTINF:1,One\n"
	                "https://a.example/1.mp3\n"
	                "#EXTINF:8,Two\n"
	                "https://a.example/2.mp3\n");
}

static void
test_m3u_empty(void)
{
	g_autofree char *m3u = NULL;
	g_autoptr(FeedPlaylist) hand = NULL;
	g_autofree char *untitled = NULL;

	g_test_summary("An empty playlist is the header alone");
	m3u = write_feed(empty_feed, FEED_PLAYLIST_FORMAT_M3U);
	g_assert_cmpstr(m3u, ==, "#EXTM3U\n#PLAYLIST:Empty show\n");

	hand = playlist_new("", NULL);
	untitled = feed_m3u_write(hand);
	g_assert_cmpstr(untitled, ==, "#EXTM3U\n");
}

/* ---- XSPF ---- */

/* The document, which must be well-formed with no network access. */
static xmlDoc *
read_xspf(const char *xspf)
{
	xmlDoc *doc = xmlReadMemory(xspf, (int)strlen(xspf), "playlist.xspf",
	                            NULL, XML_PARSE_NONET);
	xmlNode *root;

	if (doc == NULL)
		g_error("not well-formed:\n%s", xspf);
	root = xmlDocGetRootElement(doc);
	g_assert_nonnull(root);
	g_assert_cmpstr((const char *)root->name, ==, "playlist");
	g_assert_nonnull(root->ns);
	g_assert_cmpstr((const char *)root->ns->href, ==, XSPF_NS);
	return doc;
}

/* The XSPF elements named @name below @parent. */
static GPtrArray *
children(xmlNode *parent, const char *name)
{
	GPtrArray *found = g_ptr_array_new();

	for (xmlNode *n = parent->children; n != NULL; n = n->next)
		if (n->type == XML_ELEMENT_NODE && n->ns != NULL &&
		    strcmp((const char *)n->ns->href, XSPF_NS) == 0 &&
		    strcmp((const char *)n->name, name) == 0)
			g_ptr_array_add(found, n);
	return found;
}

/* The text of the only child @name of @parent, or NULL when none. */
static char *
child_text(xmlNode *parent, const char *name)
{
	g_autoptr(GPtrArray) found = children(parent, name);
	xmlChar *content;
	char *text;

	g_assert_cmpuint(found->len, <=, 1);
	if (found->len == 0)
		return NULL;
	content = xmlNodeGetContent(found->pdata[0]);
	text = g_strdup((const char *)content);
	xmlFree(content);
	return text;
}

static void
assert_child(xmlNode *parent, const char *name, const char *expected)
{
	g_autofree char *text = child_text(parent, name);

	g_assert_cmpstr(text, ==, expected);
}

/* The <track> elements of the document's one <trackList>. */
static GPtrArray *
tracks(xmlDoc *doc)
{
	g_autoptr(GPtrArray) lists =
	        children(xmlDocGetRootElement(doc), "trackList");

	g_assert_cmpuint(lists->len, ==, 1);
	return children(lists->pdata[0], "track");
}

static void
test_xspf_exact(void)
{
	g_autofree char *xspf = NULL;

	g_test_summary("XSPF version 1 with the elements in the order the "
	               "specification lists them");
	xspf = write_feed(show_feed, FEED_PLAYLIST_FORMAT_XSPF);
	g_assert_cmpstr(
	        xspf, ==,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<playlist version=\"1\" xmlns=\"http://xspf.org/ns/0/\">\n"
	        "  <title>Writers &amp; Co</title>\n"
	        "  <trackList>\n"
	        "    <track>\n"
	        "      <location>https://example.com/one.mp3</location>\n"
	        "      <identifier>guid-1</identifier>\n"
	        "      <title>Episode one</title>\n"
	        "      <creator>Ann Artist</creator>\n"
	        "      <annotation>First line &lt; here.\n"
	        "Second line.</annotation>\n"
	        "      <image>https://example.com/one.jpg</image>\n"
	        "      <album>Writers &amp; Co</album>\n"
	        "      <trackNum>7</trackNum>\n"
	        "      <duration>3723000</duration>\n"
	        "    </track>\n"
	        "    <track>\n"
	        "      <location>https://example.com/two.mp3</location>\n"
	        "      <identifier>guid-2</identifier>\n"
	        "      <title>Episode two</title>\n"
	        "      <creator>Show Author</creator>\n"
	        "      <image>https://example.com/show.jpg</image>\n"
	        "      <album>Writers &amp; Co</album>\n"
	        "    </track>\n"
	        "    <track>\n"
	        "      <location>http://example.com/three.mp3?a=1&amp;b=2"
	        "</location>\n"
	        "      <identifier>guid-3</identifier>\n"
	        "      <title>Three, with &lt;b&gt; &amp; "
	        "&quot;quotes&quot;</title>\n"
	        "      <creator>Show Author</creator>\n"
	        "      <image>https://example.com/show.jpg</image>\n"
	        "      <album>Writers &amp; Co</album>\n"
	        "      <duration>90000</duration>\n"
	        "    </track>\n"
	        "  </trackList>\n"
	        "</playlist>\n");
}

static void
test_xspf_round_trip(void)
{
	g_autofree char *xspf = NULL;
	xmlDoc *doc;
	xmlNode *root;
	g_autoptr(GPtrArray) list = NULL;
	g_autofree char *version = NULL;

	g_test_summary("XSPF parses back with libxml2 to the playlist's "
	               "values");
	xspf = write_feed(show_feed, FEED_PLAYLIST_FORMAT_XSPF);
	doc = read_xspf(xspf);
	root = xmlDocGetRootElement(doc);
	version = (char *)xmlGetProp(root, BAD_CAST "version");
	g_assert_cmpstr(version, ==, "1");
	assert_child(root, "title", "Writers & Co");

	list = tracks(doc);
	g_assert_cmpuint(list->len, ==, 3);

	assert_child(list->pdata[0], "location", "https://example.com/one.mp3");
	assert_child(list->pdata[0], "identifier", "guid-1");
	assert_child(list->pdata[0], "title", "Episode one");
	assert_child(list->pdata[0], "creator", "Ann Artist");
	assert_child(list->pdata[0], "album", "Writers & Co");
	assert_child(list->pdata[0], "trackNum", "7");
	assert_child(list->pdata[0], "duration", "3723000");
	assert_child(list->pdata[0], "image", "https://example.com/one.jpg");
	assert_child(list->pdata[0], "annotation",
	             "First line < here.\nSecond line.");

	/* Unknown length, number and notes: no element at all. */
	assert_child(list->pdata[1], "identifier", "guid-2");
	assert_child(list->pdata[1], "trackNum", NULL);
	assert_child(list->pdata[1], "duration", NULL);
	assert_child(list->pdata[1], "annotation", NULL);
	assert_child(list->pdata[1], "image", "https://example.com/show.jpg");

	assert_child(list->pdata[2], "location",
	             "http://example.com/three.mp3?a=1&b=2");
	assert_child(list->pdata[2], "title", "Three, with <b> & \"quotes\"");
	assert_child(list->pdata[2], "duration", "90000");
	xmlFreeDoc(doc);
}

static void
test_xspf_hostile(void)
{
	g_autofree char *from_feed = NULL;
	g_autoptr(FeedPlaylist) hand = NULL;
	g_autofree char *xspf = NULL;
	FeedPlaylistEntry *entry;
	xmlDoc *doc;
	g_autoptr(GPtrArray) list = NULL;

	g_test_summary("Controls XML 1.0 cannot carry never reach the "
	               "document; the annotation keeps its line breaks");
	from_feed = write_feed(hostile_feed, FEED_PLAYLIST_FORMAT_XSPF);
	doc = read_xspf(from_feed);
	list = tracks(doc);
	g_assert_cmpuint(list->len, ==, 2);
	g_clear_pointer(&list, g_ptr_array_unref);
	xmlFreeDoc(doc);

	entry = entry_new("https://a.example/1.mp3",
	                  "a\nb\x1b[31mc\x01\xef\xbf\xbe"
	                  "d\xe2\x80\xa8"
	                  "e",
	                  "Art\x02ist", 3);
	g_free(entry->description);
	entry->description = g_strdup("one\r\ntwo\rthree\n\tfour\x01\x1b[0m"
	                              "\x7f\xc2\x9b\xef\xbf\xbf five");
	g_free(entry->guid);
	entry->guid = g_strdup("guid\x0b-1");
	g_free(entry->image);
	entry->image = g_strdup("https://a.example/\n.jpg");
	hand = playlist_new(
	        "Show\x1b]0;title\x07", entry,
	        entry_new("https://a.example/\n.mp3", "Bad URL", NULL, 0),
	        NULL);
	xspf = feed_xspf_write(hand);
	doc = read_xspf(xspf);
	assert_child(xmlDocGetRootElement(doc), "title", "Show ]0;title");
	list = tracks(doc);
	g_assert_cmpuint(list->len, ==, 1);
	assert_child(list->pdata[0], "title", "a b [31mc d e");
	assert_child(list->pdata[0], "creator", "Art ist");
	assert_child(list->pdata[0], "identifier", "guid -1");
	assert_child(list->pdata[0], "annotation",
	             "one\ntwo\nthree\n\tfour[0m five");
	assert_child(list->pdata[0], "image", NULL);
	xmlFreeDoc(doc);
}

static void
test_xspf_empty(void)
{
	g_autofree char *xspf = NULL;
	xmlDoc *doc;
	g_autoptr(GPtrArray) list = NULL;

	g_test_summary("An empty playlist is a well-formed XSPF with an empty "
	               "trackList");
	xspf = write_feed(empty_feed, FEED_PLAYLIST_FORMAT_XSPF);
	g_assert_cmpstr(
	        xspf, ==,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<playlist version=\"1\" xmlns=\"http://xspf.org/ns/0/\">\n"
	        "  <title>Empty show</title>\n"
	        "  <trackList/>\n"
	        "</playlist>\n");
	doc = read_xspf(xspf);
	list = tracks(doc);
	g_assert_cmpuint(list->len, ==, 0);
	xmlFreeDoc(doc);
}

/* ---- PLS ---- */

static void
test_pls_entries(void)
{
	g_autofree char *pls = NULL;

	g_test_summary("PLS version 2: FileN, TitleN, LengthN from 1, then "
	               "NumberOfEntries and Version");
	pls = write_feed(show_feed, FEED_PLAYLIST_FORMAT_PLS);
	g_assert_cmpstr(pls, ==,
	                "[playlist]\n"
	                "File1=https://example.com/one.mp3\n"
	                "Title1=Ann Artist - Episode one\n"
	                "Length1=3723\n"
	                "File2=https://example.com/two.mp3\n"
	                "Title2=Show Author - Episode two\n"
	                "Length2=-1\n"
	                "File3=http://example.com/three.mp3?a=1&b=2\n"
	                "Title3=Show Author - Three, with <b> & \"quotes\"\n"
	                "Length3=90\n"
	                "NumberOfEntries=3\n"
	                "Version=2\n");
}

static void
test_pls_numbering(void)
{
	g_autoptr(FeedPlaylist) hand = NULL;
	g_autofree char *pls = NULL;

	g_test_summary("Entries left out leave no gap in the numbers or the "
	               "count");
	hand = playlist_new(
	        "Show", entry_new("https://a.example/1.mp3", "One", "A", 1),
	        entry_new("https://a.example/\n.mp3", "Bad", NULL, 2),
	        entry_new("https://a.example/2.mp3", "Two", NULL, 0), NULL);
	pls = feed_pls_write(hand);
	g_assert_cmpstr(pls, ==,
	                "[playlist]\n"
	                "File1=https://a.example/1.mp3\n"
	                "Title1=A - One\n"
	                "Length1=1\n"
	                "File2=https://a.example/2.mp3\n"
	                "Title2=Two\n"
	                "Length2=-1\n"
	                "NumberOfEntries=2\n"
	                "Version=2\n");
}

static void
test_pls_hostile_title(void)
{
	g_autofree char *pls = NULL;
	g_autoptr(FeedPlaylist) hand = NULL;
	g_autofree char *hand_pls = NULL;

	g_test_summary("A title with line breaks or control characters stays "
	               "on its one TitleN line");
	pls = write_feed(hostile_feed, FEED_PLAYLIST_FORMAT_PLS);
	assert_clean_lines(pls);
	g_assert_cmpuint(count_lines(pls), ==, 9);
	g_assert_nonnull(strstr(pls, "\nFile1=https://example.com/bad.mp3\n"
	                             "Title1=Bad #EXTINF:1,Injected "
	                             "http://evil.example/x.mp3 "
	                             "File9=http://evil.example/y.mp3 "));
	g_assert_nonnull(strstr(pls, "\nNumberOfEntries=2\n"));

	hand = playlist_new("",
	                    entry_new("https://a.example/1.mp3",
	                              "a\nFile2=x\rb\tc\x1b[31md\xe2\x80\xa8"
	                              "e\xc2\x85"
	                              "f",
	                              NULL, 0),
	                    NULL);
	hand_pls = feed_pls_write(hand);
	assert_clean_lines(hand_pls);
	g_assert_cmpstr(hand_pls, ==,
	                "[playlist]\n"
	                "File1=https://a.example/1.mp3\n"
	                "Title1=a File2=x b c [31md e f\n"
	                "Length1=-1\n"
	                "NumberOfEntries=1\n"
	                "Version=2\n");
}

static void
test_pls_empty(void)
{
	g_autofree char *pls = NULL;

	g_test_summary("An empty playlist says it has no entries");
	pls = write_feed(empty_feed, FEED_PLAYLIST_FORMAT_PLS);
	g_assert_cmpstr(pls, ==, "[playlist]\nNumberOfEntries=0\nVersion=2\n");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

	g_test_add_func("/writers/m3u/extinf", test_m3u_extinf);
	g_test_add_func("/writers/m3u/no-artist", test_m3u_no_artist);
	g_test_add_func("/writers/m3u/hostile-title", test_m3u_hostile_title);
	g_test_add_func("/writers/m3u/unsafe-url", test_m3u_unsafe_url);
	g_test_add_func("/writers/m3u/empty", test_m3u_empty);
	g_test_add_func("/writers/xspf/exact", test_xspf_exact);
	g_test_add_func("/writers/xspf/round-trip", test_xspf_round_trip);
	g_test_add_func("/writers/xspf/hostile", test_xspf_hostile);
	g_test_add_func("/writers/xspf/empty", test_xspf_empty);
	g_test_add_func("/writers/pls/entries", test_pls_entries);
	g_test_add_func("/writers/pls/numbering", test_pls_numbering);
	g_test_add_func("/writers/pls/hostile-title", test_pls_hostile_title);
	g_test_add_func("/writers/pls/empty", test_pls_empty);
	return g_test_run();
}
