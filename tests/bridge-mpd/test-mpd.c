/*
 * mpd-bridge's MPD connection against real MPDs the test starts itself,
 * checked through separate libmpdclient connections; the address and name
 * rules need no MPD, and a fake server that never answers stands in for a
 * wedged MPD.
 */
#include "mpd/mpd.h"
#include "private-mpd.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <mpd/client.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define CHANNEL "mpd-bridge"

/*
 * Warnings from mpd-bridge that the running test provokes on purpose (a
 * lost connection); any other warning stays fatal (G_DEBUG=fatal-warnings).
 * GLib 2.74's g_test_expect_message() does not see structured logging.
 */
static guint expected_warnings;

static GLogWriterOutput
log_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields,
           gpointer user_data)
{
	const char *domain = NULL;

	for (gsize i = 0; i < n_fields; i++) {
		if (strcmp(fields[i].key, "GLIB_DOMAIN") == 0)
			domain = fields[i].value;
	}
	if ((level & G_LOG_LEVEL_WARNING) != 0 && expected_warnings > 0 &&
	    g_strcmp0(domain, "mpd-bridge") == 0) {
		expected_warnings--;
		g_log_writer_standard_streams(G_LOG_LEVEL_MESSAGE, fields,
		                              n_fields, user_data);
		return G_LOG_WRITER_HANDLED;
	}
	return g_log_writer_default(level, fields, n_fields, user_data);
}

typedef struct {
	PrivateMpd *mpd;          /* NULL when it could not start */
	BridgeMpdAddress address; /* the private MPD's socket */
	BridgeMpd *bridge;        /* the connection under test, or NULL */
	BridgeMpd *responder;     /* answers requests, or NULL */
	guint ups;                /* on_state(TRUE) calls */
	guint downs;              /* on_state(FALSE) calls */
	GPtrArray *messages;      /* texts on_message got */
	unsigned idle_events;     /* on_idle's masks, ORed */
	gboolean timed_out;       /* the guard of wait_until() fired */
	gboolean request_done;    /* the request thread has finished */
} Fixture;

static void
setup(Fixture *f, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	f->messages = g_ptr_array_new_with_free_func(g_free);
	f->mpd = private_mpd_new(&error);
	if (f->mpd == NULL) {
		g_test_fail_printf("%s", error->message);
		return;
	}
	f->address.host = g_strdup(private_mpd_get_socket(f->mpd));
}

static void
teardown(Fixture *f, gconstpointer data)
{
	g_clear_pointer(&f->bridge, bridge_mpd_free);
	g_clear_pointer(&f->responder, bridge_mpd_free);
	g_clear_pointer(&f->mpd, private_mpd_free);
	bridge_mpd_address_clear(&f->address);
	g_ptr_array_unref(f->messages);
	g_assert_cmpuint(expected_warnings, ==, 0);
}

static gboolean
on_guard(gpointer data)
{
	Fixture *f = data;

	f->timed_out = TRUE;
	return G_SOURCE_CONTINUE;
}

/* Runs the main loop until @done, or fails after a generous 30 s. */
static void
wait_until(Fixture *f, gboolean (*done)(Fixture *f))
{
	guint guard = g_timeout_add_seconds(30, on_guard, f);

	f->timed_out = FALSE;
	while (!done(f) && !f->timed_out)
		g_main_context_iteration(NULL, TRUE);
	g_source_remove(guard);
	g_assert_false(f->timed_out);
}

static void
on_state(gboolean connected, gpointer data)
{
	Fixture *f = data;

	if (connected)
		f->ups++;
	else
		f->downs++;
}

static void
on_message(const char *text, gpointer data)
{
	Fixture *f = data;

	g_ptr_array_add(f->messages, g_strdup(text));
}

static void
on_idle(unsigned events, gpointer data)
{
	Fixture *f = data;

	f->idle_events |= events;
}

static gboolean
one_up(Fixture *f)
{
	return f->ups == 1;
}

static gboolean
two_up(Fixture *f)
{
	return f->ups == 2;
}

static gboolean
one_down(Fixture *f)
{
	return f->downs == 1;
}

static gboolean
one_message(Fixture *f)
{
	return f->messages->len >= 1;
}

static gboolean
two_messages(Fixture *f)
{
	return f->messages->len >= 2;
}

static gboolean
request_done(Fixture *f)
{
	return f->request_done;
}

/* The connection under test, connected and subscribed to CHANNEL. */
static gboolean
connect_bridge(Fixture *f)
{
	if (f->mpd == NULL)
		return FALSE;
	f->bridge = bridge_mpd_new(&f->address, CHANNEL);
	bridge_mpd_set_handlers(f->bridge, on_state, on_message, on_idle, f);
	bridge_mpd_start(f->bridge);
	wait_until(f, one_up);
	g_assert_true(bridge_mpd_is_connected(f->bridge));
	return TRUE;
}

/* The URIs of a stored playlist, by listplaylistinfo; NULL when none. */
static GPtrArray *
stored_playlist(Fixture *f, const char *name)
{
	struct mpd_connection *conn = private_mpd_connect(f->mpd);
	GPtrArray *uris = g_ptr_array_new_with_free_func(g_free);
	struct mpd_song *song;

	g_assert_true(mpd_send_list_playlist_meta(conn, name));
	while ((song = mpd_recv_song(conn)) != NULL) {
		g_ptr_array_add(uris, g_strdup(mpd_song_get_uri(song)));
		mpd_song_free(song);
	}
	if (!mpd_response_finish(conn)) {
		g_assert_cmpint(mpd_connection_get_server_error(conn), ==,
		                MPD_SERVER_ERROR_NO_EXIST);
		g_clear_pointer(&uris, g_ptr_array_unref);
	}
	mpd_connection_free(conn);
	return uris;
}

static gboolean
has_stored_playlist(Fixture *f, const char *name)
{
	struct mpd_connection *conn = private_mpd_connect(f->mpd);
	struct mpd_playlist *playlist;
	gboolean found = FALSE;

	g_assert_true(mpd_send_list_playlists(conn));
	while ((playlist = mpd_recv_playlist(conn)) != NULL) {
		found |= strcmp(mpd_playlist_get_path(playlist), name) == 0;
		mpd_playlist_free(playlist);
	}
	g_assert_true(mpd_response_finish(conn));
	mpd_connection_free(conn);
	return found;
}

static void
assert_playlist(Fixture *f, const char *name, const char *const *uris,
                guint n_uris)
{
	g_autoptr(GPtrArray) got = stored_playlist(f, name);

	if (got == NULL)
		g_error("MPD has no stored playlist \"%s\"", name);
	g_assert_cmpuint(got->len, ==, n_uris);
	for (guint i = 0; i < n_uris; i++)
		g_assert_cmpstr(got->pdata[i], ==, uris[i]);
}

static void
send_from_client(Fixture *f, const char *channel, const char *text)
{
	struct mpd_connection *conn = private_mpd_connect(f->mpd);

	g_assert_true(mpd_run_send_message(conn, channel, text));
	mpd_connection_free(conn);
}

typedef struct {
	const char *host;
	const char *port;
	const char *want_host;
	const char *want_password;
	guint want_port;
} EnvCase;

static void
test_address_env(void)
{
	static const EnvCase cases[] = {
		{ NULL, NULL, NULL, NULL, 0 },
		{ "", "", NULL, NULL, 0 },
		{ "mpd.example.org", "6601", "mpd.example.org", NULL, 6601 },
		{ "secret@mpd.example.org", NULL, "mpd.example.org", "secret",
		  0 },
		{ "/run/mpd/socket", NULL, "/run/mpd/socket", NULL, 0 },
		{ "secret@/run/mpd/socket", NULL, "/run/mpd/socket", "secret",
		  0 },
		{ "@mpd", NULL, "@mpd", NULL, 0 },
		{ "secret@@mpd", NULL, "@mpd", "secret", 0 },
		{ "secret@", NULL, NULL, "secret", 0 },
		{ "::1", "65535", "::1", NULL, 65535 },
		{ "localhost", "port", "localhost", NULL, 0 },
		{ "localhost", "0", "localhost", NULL, 0 },
		{ "localhost", "65536", "localhost", NULL, 0 },
		{ "localhost", "-1", "localhost", NULL, 0 },
	};

	g_test_summary("MPD_HOST and MPD_PORT as mpc and libmpdclient read "
	               "them, with the password split off");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_auto(BridgeMpdAddress) address = { 0 };

		g_test_message("MPD_HOST=%s MPD_PORT=%s", cases[i].host,
		               cases[i].port);
		if (cases[i].host != NULL)
			g_setenv("MPD_HOST", cases[i].host, TRUE);
		else
			g_unsetenv("MPD_HOST");
		if (cases[i].port != NULL)
			g_setenv("MPD_PORT", cases[i].port, TRUE);
		else
			g_unsetenv("MPD_PORT");
		bridge_mpd_address_from_env(&address);
		g_assert_cmpstr(address.host, ==, cases[i].want_host);
		g_assert_cmpstr(address.password, ==, cases[i].want_password);
		g_assert_cmpuint(address.port, ==, cases[i].want_port);
		g_assert_cmpuint(address.timeout_ms, ==, 0);
	}
	g_unsetenv("MPD_HOST");
	g_unsetenv("MPD_PORT");
}

static void
assert_safe(const char *name)
{
	g_autofree char *safe = bridge_mpd_safe_playlist_name(name);

	g_assert_true(g_utf8_validate(safe, -1, NULL));
	g_assert_cmpuint(strlen(safe), >, 0);
	g_assert_cmpuint(strlen(safe), <=, 200);
	g_assert_null(strchr(safe, '/'));
	g_assert_cmpint(safe[0], !=, '.');
	for (const char *p = safe; *p != '\0'; p++)
		g_assert_cmpint((guchar)*p, >=, 0x20);
}

static void
test_safe_name(void)
{
	static const struct {
		const char *name;
		const char *want;
	} cases[] = {
		{ "The Daily", "The Daily" },
		{ "AC/DC Radio", "AC_DC Radio" },
		{ "../../etc/passwd", "_._.._etc_passwd" },
		{ ".hidden", "_hidden" },
		{ "  . spaced  ", "_ spaced" },
		{ "line\nbreak\r\ttab\x1b[31m", "line break  tab [31m" },
		{ "", "unnamed" },
		{ " \n\t ", "unnamed" },
		{ "Ünïcödé Pödcäst", "Ünïcödé Pödcäst" },
		{ "bad \xff byte", "bad \xef\xbf\xbd byte" },
	};
	g_autofree char *long_ascii = g_strnfill(10000, 'x');
	g_autofree char *long_safe = NULL;
	GString *two_byte = g_string_new(NULL);
	g_autofree char *cut = NULL;

	g_test_summary("Playlist names: no '/', no control characters, no "
	               "leading dot, not empty, at most 200 bytes");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *safe =
		        bridge_mpd_safe_playlist_name(cases[i].name);

		g_assert_cmpstr(safe, ==, cases[i].want);
		assert_safe(cases[i].name);
	}

	long_safe = bridge_mpd_safe_playlist_name(long_ascii);
	g_assert_cmpuint(strlen(long_safe), ==, 200);

	/* 199 bytes, then a two-byte character that would cross 200. */
	g_string_append(two_byte, long_ascii + 10000 - 199);
	for (int i = 0; i < 5000; i++)
		g_string_append(two_byte, "é");
	cut = bridge_mpd_safe_playlist_name(two_byte->str);
	g_assert_cmpuint(strlen(cut), ==, 199);
	g_assert_true(g_utf8_validate(cut, -1, NULL));
	g_string_free(two_byte, TRUE);
}

static void
test_connect(Fixture *f, gconstpointer data)
{
	struct mpd_connection *conn;
	struct mpd_pair *pair;
	gboolean subscribed = FALSE;

	g_test_summary("The daemon's connection comes up from the main loop, "
	               "reports on_state(TRUE) and subscribes to its channel");
	if (!connect_bridge(f))
		return;
	g_assert_cmpuint(f->ups, ==, 1);
	g_assert_cmpuint(f->downs, ==, 0);

	conn = private_mpd_connect(f->mpd);
	g_assert_true(mpd_send_channels(conn));
	while ((pair = mpd_recv_channel_pair(conn)) != NULL) {
		subscribed |= strcmp(pair->value, CHANNEL) == 0;
		mpd_return_pair(conn, pair);
	}
	g_assert_true(mpd_response_finish(conn));
	mpd_connection_free(conn);
	g_assert_true(subscribed);
}

static void
replace_on_connect(gboolean connected, gpointer data)
{
	static const char *const uris[] = { "http://127.0.0.1:1/a.mp3" };
	Fixture *f = data;
	g_autoptr(GError) error = NULL;

	on_state(connected, f);
	g_assert_true(bridge_mpd_replace_playlist(f->bridge, "On connect", uris,
	                                          1, &error));
	g_assert_no_error(error);
}

static void
test_command_in_handler(Fixture *f, gconstpointer data)
{
	static const char *const uris[] = { "http://127.0.0.1:1/a.mp3" };

	g_test_summary("A handler may run commands; the connection then "
	               "goes back to idle and still hears messages");
	if (f->mpd == NULL)
		return;
	f->bridge = bridge_mpd_new(&f->address, CHANNEL);
	bridge_mpd_set_handlers(f->bridge, replace_on_connect, on_message,
	                        on_idle, f);
	bridge_mpd_start(f->bridge);
	wait_until(f, one_up);
	assert_playlist(f, "On connect", uris, 1);

	send_from_client(f, CHANNEL, "still listening");
	wait_until(f, one_message);
	g_assert_cmpstr(f->messages->pdata[0], ==, "still listening");
}

static void
test_replace_playlist(Fixture *f, gconstpointer data)
{
	static const char *const three[] = {
		"http://127.0.0.1:1/ep3.mp3",
		"http://127.0.0.1:1/ep2.mp3?a=1&b=\"2\"",
		"http://127.0.0.1:1/ep1.mp3",
	};
	static const char *const one[] = { "http://127.0.0.1:1/ep9.mp3" };
	g_autoptr(GError) error = NULL;

	g_test_summary("replace_playlist leaves exactly the given URIs in "
	               "order; an empty list leaves no playlist");
	if (!connect_bridge(f))
		return;

	g_assert_true(bridge_mpd_replace_playlist(f->bridge, "Podcast", three,
	                                          3, &error));
	g_assert_no_error(error);
	assert_playlist(f, "Podcast", three, 3);

	g_assert_true(bridge_mpd_replace_playlist(f->bridge, "Podcast", one, 1,
	                                          &error));
	g_assert_no_error(error);
	assert_playlist(f, "Podcast", one, 1);

	g_assert_true(bridge_mpd_replace_playlist(f->bridge, "Podcast", NULL, 0,
	                                          &error));
	g_assert_no_error(error);
	g_assert_false(has_stored_playlist(f, "Podcast"));

	/* Twice: none is there the second time. */
	g_assert_true(bridge_mpd_replace_playlist(f->bridge, "Podcast", NULL, 0,
	                                          &error));
	g_assert_no_error(error);
	g_assert_true(bridge_mpd_delete_playlist(f->bridge, "Podcast", &error));
	g_assert_no_error(error);

	g_assert_true(bridge_mpd_replace_playlist(f->bridge, "Other", one, 1,
	                                          &error));
	g_assert_true(has_stored_playlist(f, "Other"));
	g_assert_true(bridge_mpd_delete_playlist(f->bridge, "Other", &error));
	g_assert_no_error(error);
	g_assert_false(has_stored_playlist(f, "Other"));
	g_assert_true(bridge_mpd_is_connected(f->bridge));
}

static void
test_replace_long(Fixture *f, gconstpointer data)
{
	g_autoptr(GPtrArray) uris = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *padding = g_strnfill(300, 'p');
	g_autoptr(GError) error = NULL;

	g_test_summary("A playlist too large for one command list "
	               "arrives whole and in order");
	if (!connect_bridge(f))
		return;
	/* About 2.4 MB: more than MPD's default 2 MiB command list limit. */
	for (guint i = 0; i < 8000; i++)
		g_ptr_array_add(uris,
		                g_strdup_printf("http://127.0.0.1:1/%s/%u.mp3",
		                                padding, i));
	g_assert_true(bridge_mpd_replace_playlist(
	        f->bridge, "Long", (const char *const *)uris->pdata, uris->len,
	        &error));
	g_assert_no_error(error);
	assert_playlist(f, "Long", (const char *const *)uris->pdata, uris->len);
}

static void
test_safe_names_in_mpd(Fixture *f, gconstpointer data)
{
	static const char *const one[] = { "http://127.0.0.1:1/ep.mp3" };
	g_autofree char *long_ascii = g_strnfill(10000, 'x');
	GString *long_utf8 = g_string_new(NULL);
	const char *names[] = {
		"News/Politics", "../escape", ".hidden", "tab\there\nand\rCR",
		"\x1b[31mred",   long_ascii,  NULL,
	};

	g_test_summary("Names from bridge_mpd_safe_playlist_name() are "
	               "stored by MPD as they are");
	if (!connect_bridge(f))
		return;
	for (int i = 0; i < 5000; i++)
		g_string_append(long_utf8, "é");
	names[G_N_ELEMENTS(names) - 1] = long_utf8->str;

	for (gsize i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autofree char *safe = bridge_mpd_safe_playlist_name(names[i]);
		g_autoptr(GError) error = NULL;

		g_assert_true(bridge_mpd_replace_playlist(f->bridge, safe, one,
		                                          1, &error));
		g_assert_no_error(error);
		g_assert_true(has_stored_playlist(f, safe));
		assert_playlist(f, safe, one, 1);
	}
	g_string_free(long_utf8, TRUE);
}

/* @type has the value @want (NULL: none), and only one. */
static void
assert_tag(const struct mpd_song *song, enum mpd_tag_type type,
           const char *want)
{
	g_assert_cmpstr(mpd_song_get_tag(song, type, 0), ==, want);
	g_assert_null(mpd_song_get_tag(song, type, 1));
}

static void
test_queue(Fixture *f, gconstpointer data)
{
	const BridgeTags tags = {
		.title = "Episode\n7:\x1b[31m the \"red\"\r one\x7f",
		.album = "The Show",
		.artist = "The Host",
		.date = "2024-05-01",
		.track = "7",
		.genre = "Podcast",
	};
	const BridgeTags title_only = { .title = "Only a title" };
	g_autoptr(GError) error = NULL;
	struct mpd_connection *conn;
	struct mpd_song *song;
	guint id1, id2, id3;
	guint n = 0;

	g_test_summary("queue adds the stream with each tag once; control "
	               "characters in values become spaces");
	if (!connect_bridge(f))
		return;
	id1 = bridge_mpd_queue(f->bridge, "http://127.0.0.1:1/ep7.mp3", &tags,
	                       &error);
	g_assert_no_error(error);
	id2 = bridge_mpd_queue(f->bridge, "http://127.0.0.1:1/ep8.mp3",
	                       &title_only, &error);
	g_assert_no_error(error);
	id3 = bridge_mpd_queue(f->bridge, "http://127.0.0.1:1/ep9.mp3", NULL,
	                       &error);
	g_assert_no_error(error);
	g_assert_cmpuint(id1, >, 0);
	g_assert_cmpuint(id2, >, 0);
	g_assert_cmpuint(id3, >, 0);
	g_assert_cmpuint(id1, !=, id2);

	conn = private_mpd_connect(f->mpd);
	g_assert_true(mpd_send_list_queue_meta(conn));
	while ((song = mpd_recv_song(conn)) != NULL) {
		switch (n++) {
		case 0:
			g_assert_cmpuint(mpd_song_get_id(song), ==, id1);
			assert_tag(song, MPD_TAG_TITLE,
			           "Episode 7: [31m the \"red\"  one ");
			assert_tag(song, MPD_TAG_ALBUM, "The Show");
			assert_tag(song, MPD_TAG_ARTIST, "The Host");
			assert_tag(song, MPD_TAG_DATE, "2024-05-01");
			assert_tag(song, MPD_TAG_TRACK, "7");
			assert_tag(song, MPD_TAG_GENRE, "Podcast");
			break;
		case 1:
			g_assert_cmpuint(mpd_song_get_id(song), ==, id2);
			assert_tag(song, MPD_TAG_TITLE, "Only a title");
			assert_tag(song, MPD_TAG_ALBUM, NULL);
			assert_tag(song, MPD_TAG_GENRE, NULL);
			break;
		default:
			g_assert_cmpuint(mpd_song_get_id(song), ==, id3);
			g_assert_cmpstr(mpd_song_get_uri(song), ==,
			                "http://127.0.0.1:1/ep9.mp3");
			assert_tag(song, MPD_TAG_TITLE, NULL);
			break;
		}
		mpd_song_free(song);
	}
	g_assert_true(mpd_response_finish(conn));
	mpd_connection_free(conn);
	g_assert_cmpuint(n, ==, 3);
}

static const BridgeQueueSong *
song_of(GPtrArray *songs, guint id)
{
	for (guint i = 0; i < songs->len; i++) {
		const BridgeQueueSong *song = songs->pdata[i];

		if (song->id == id)
			return song;
	}
	return NULL;
}

static void
test_queue_changes(Fixture *f, gconstpointer data)
{
	const BridgeTags tags[] = {
		{ .title = "Tab\there, line\nbreak",
		  .album = "Show",
		  .date = "2024-05-01",
		  .track = "3",
		  .genre = "Podcast" },
		{ .title = "Second", .artist = "Host", .genre = "Podcast" },
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) songs = NULL;
	struct mpd_connection *conn;
	guint ids[2], other;
	guint version, since;

	g_test_summary("plchanges names the songs changed since a version; "
	               "retagging many sets exactly our tags, clearing a "
	               "stream's own; the tags key of what we set equals "
	               "the key of what MPD then reports");
	if (!connect_bridge(f))
		return;
	ids[0] = bridge_mpd_queue(f->bridge, "http://127.0.0.1:1/a.mp3", NULL,
	                          &error);
	ids[1] = bridge_mpd_queue(f->bridge, "http://127.0.0.1:1/b.mp3", NULL,
	                          &error);
	other = bridge_mpd_queue(f->bridge, "http://127.0.0.1:1/c.mp3", NULL,
	                         &error);
	g_assert_no_error(error);
	/* A stream's own Artist, which we have none for on the first. */
	conn = private_mpd_connect(f->mpd);
	g_assert_true(mpd_run_add_tag_id(conn, ids[0], MPD_TAG_ARTIST, "Own"));
	mpd_connection_free(conn);

	g_assert_true(bridge_mpd_queue_changes(f->bridge, 0, &version, &songs,
	                                       &error));
	g_assert_no_error(error);
	g_assert_cmpuint(songs->len, ==, 3);
	g_assert_cmpuint(version, >, 0);
	g_clear_pointer(&songs, g_ptr_array_unref);

	g_assert_true(bridge_mpd_retag_many(f->bridge, ids, tags, 2, &error));
	g_assert_no_error(error);
	since = version;
	g_assert_true(bridge_mpd_queue_changes(f->bridge, since, &version,
	                                       &songs, &error));
	g_assert_cmpuint(version, >, since);
	g_assert_null(song_of(songs, other));
	for (guint i = 0; i < 2; i++) {
		g_autofree char *want = bridge_mpd_tags_key(&tags[i]);
		const BridgeQueueSong *song = song_of(songs, ids[i]);

		g_assert_nonnull(song);
		g_assert_cmpstr(song != NULL ? song->tags_key : NULL, ==, want);
	}
	g_clear_pointer(&songs, g_ptr_array_unref);

	/* Nothing changed: no songs; a version from before a restart: all. */
	since = version;
	g_assert_true(bridge_mpd_queue_changes(f->bridge, since, &version,
	                                       &songs, &error));
	g_assert_cmpuint(songs->len, ==, 0);
	g_assert_cmpuint(version, ==, since);
	g_clear_pointer(&songs, g_ptr_array_unref);
	g_assert_true(bridge_mpd_queue_changes(f->bridge, version + 1000,
	                                       &version, &songs, &error));
	g_assert_cmpuint(songs->len, ==, 3);
}

static void
test_load_playlist(Fixture *f, gconstpointer data)
{
	g_autofree char *dir = NULL;
	g_autofree char *path = NULL;
	g_autofree char *told = NULL;
	g_autoptr(GError) error = NULL;
	struct mpd_connection *conn;
	struct mpd_song *song;
	guint length = 99;

	g_test_summary("a playlist file in MPD's directory: its length, and "
	               "load puts its entries in the queue with Name and "
	               "Time; config tells MPD 0.24's playlist directory");
	if (!connect_bridge(f))
		return;
	dir = g_build_filename(private_mpd_get_dir(f->mpd), "playlists", NULL);
	path = g_build_filename(dir, "Titled.m3u", NULL);
	g_assert_true(g_file_set_contents(path,
	                                  "#EXTM3U\n#EXTINF:993,Compiler "
	                                  "collectives\nhttp://127.0.0.1:1/"
	                                  "a.mp3\n#EXTINF:-1,No length\n"
	                                  "http://127.0.0.1:1/b.mp3\n",
	                                  -1, NULL));
	g_assert_true(bridge_mpd_playlist_length(f->bridge, "Titled", &length,
	                                         &error));
	g_assert_no_error(error);
	g_assert_cmpuint(length, ==, 2);
	g_assert_false(
	        bridge_mpd_playlist_length(f->bridge, "None", &length, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
	g_clear_error(&error);
	g_assert_true(bridge_mpd_is_connected(f->bridge));

	g_assert_true(bridge_mpd_load_playlist(f->bridge, "Titled", &error));
	g_assert_no_error(error);
	conn = private_mpd_connect(f->mpd);
	song = mpd_run_get_queue_song_pos(conn, 0);
	g_assert_nonnull(song);
	g_assert_cmpstr(mpd_song_get_tag(song, MPD_TAG_NAME, 0), ==,
	                "Compiler collectives");
	g_assert_cmpuint(mpd_song_get_duration(song), ==, 993);
	mpd_song_free(song);
	mpd_connection_free(conn);

	/* MPD 0.23 does not say; 0.24 says, to a client on its socket. */
	told = bridge_mpd_config_value(f->bridge, "playlist_directory");
	if (told != NULL)
		g_assert_cmpstr(told, ==, dir);
	g_clear_pointer(&told, g_free);
	told = bridge_mpd_config_value(f->bridge, "music_directory");
	g_assert_nonnull(told);
	g_assert_true(bridge_mpd_is_connected(f->bridge));
}

static void
test_server_error(Fixture *f, gconstpointer data)
{
	static const char *const bad[] = { "http://127.0.0.1:1/ok.mp3",
		                           "nosuchscheme://x/y.mp3" };
	g_autoptr(GError) error = NULL;
	guint id;

	g_test_summary("MPD's refusal is a GError with MPD's message, and "
	               "the connection carries on");
	if (!connect_bridge(f))
		return;

	id = bridge_mpd_queue(f->bridge, "nosuchscheme://x/y.mp3", NULL,
	                      &error);
	g_assert_cmpuint(id, ==, 0);
	g_assert_nonnull(error);
	g_test_message("queue: %s", error->message);
	g_assert_nonnull(strstr(error->message, "nosuchscheme"));
	g_clear_error(&error);

	g_assert_false(bridge_mpd_send_message(f->bridge, "nobody-here", "hi",
	                                       &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
	g_assert_nonnull(strstr(error->message, "nobody is subscribed"));
	g_clear_error(&error);

	g_assert_false(
	        bridge_mpd_replace_playlist(f->bridge, "Bad", bad, 2, &error));
	g_assert_nonnull(error);
	g_test_message("replace: %s", error->message);
	g_clear_error(&error);

	g_assert_true(bridge_mpd_is_connected(f->bridge));
	id = bridge_mpd_queue(f->bridge, "http://127.0.0.1:1/ok.mp3", NULL,
	                      &error);
	g_assert_no_error(error);
	g_assert_cmpuint(id, >, 0);
	g_assert_cmpuint(f->downs, ==, 0);
}

static void
test_messages(Fixture *f, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	g_test_summary("Another client's sendmessage on the channel reaches "
	               "on_message, also while a command runs");
	if (!connect_bridge(f))
		return;

	send_from_client(f, CHANNEL, "hello");
	wait_until(f, one_message);
	g_assert_cmpstr(f->messages->pdata[0], ==, "hello");
	g_assert_true((f->idle_events & MPD_IDLE_MESSAGE) != 0);

	/* It arrives while the connection is idle; the command's noidle
	 * must not lose it. */
	send_from_client(f, CHANNEL, "during a command");
	g_assert_true(bridge_mpd_delete_playlist(f->bridge, "none", &error));
	g_assert_no_error(error);
	wait_until(f, two_messages);
	g_assert_cmpstr(f->messages->pdata[1], ==, "during a command");
}

/* Answers "@CHANNEL TEXT" on CHANNEL with "re: TEXT", as the daemon will. */
static void
respond(const char *text, gpointer data)
{
	Fixture *f = data;
	const char *space = strchr(text, ' ');
	g_autofree char *channel = NULL;
	g_autofree char *answer = NULL;
	g_autoptr(GError) error = NULL;

	g_assert_true(text[0] == '@' && space != NULL);
	channel = g_strndup(text + 1, space - text - 1);
	answer = g_strdup_printf("re: %s", space + 1);
	g_assert_true(
	        bridge_mpd_send_message(f->responder, channel, answer, &error));
	g_assert_no_error(error);
}

static void
on_responder_state(gboolean connected, gpointer data)
{
	Fixture *f = data;

	if (connected)
		f->ups++;
}

typedef struct {
	Fixture *f;
	char *reply;
	GError *error;
} Request;

static gboolean
mark_request_done(gpointer data)
{
	Fixture *f = data;

	f->request_done = TRUE;
	return G_SOURCE_REMOVE;
}

static gpointer
run_request(gpointer data)
{
	Request *request = data;

	request->reply = bridge_mpd_request(&request->f->address, CHANNEL,
	                                    "status\nnow", "mpd-bridge-reply-1",
	                                    10000, &request->error);
	g_idle_add(mark_request_done, request->f);
	return NULL;
}

static void
test_request(Fixture *f, gconstpointer data)
{
	Request request = { .f = f };
	GThread *thread;

	g_test_summary("bridge_mpd_request gets the daemon's answer on its "
	               "reply channel");
	if (f->mpd == NULL)
		return;
	f->responder = bridge_mpd_new(&f->address, CHANNEL);
	bridge_mpd_set_handlers(f->responder, on_responder_state, respond, NULL,
	                        f);
	bridge_mpd_start(f->responder);
	wait_until(f, one_up);

	/* It blocks; the responder needs this thread's main loop. */
	thread = g_thread_new("request", run_request, &request);
	wait_until(f, request_done);
	g_thread_join(thread);
	g_assert_no_error(request.error);
	g_assert_cmpstr(request.reply, ==, "re: status now");
	g_free(request.reply);
}

static void
test_request_nobody(Fixture *f, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	char *reply;

	g_test_summary("No daemon subscribed: G_IO_ERROR_NOT_FOUND at once");
	if (f->mpd == NULL)
		return;
	reply = bridge_mpd_request(&f->address, CHANNEL, "status", "reply-2",
	                           10000, &error);
	g_assert_null(reply);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
	g_test_message("%s", error->message);
}

static void
test_request_silent(Fixture *f, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	struct mpd_connection *silent;
	char *reply;

	g_test_summary("A subscriber that never answers: "
	               "G_IO_ERROR_TIMED_OUT after the request's timeout");
	if (f->mpd == NULL)
		return;
	silent = private_mpd_connect(f->mpd);
	g_assert_true(mpd_run_subscribe(silent, CHANNEL));
	reply = bridge_mpd_request(&f->address, CHANNEL, "status", "reply-3",
	                           200, &error);
	g_assert_null(reply);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
	g_assert_nonnull(strstr(error->message, "the daemon did not answer"));
	mpd_connection_free(silent);
}

static void
test_request_refused(void)
{
	g_autofree char *dir = g_dir_make_tmp("test-mpd-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "no-mpd-here", NULL);
	BridgeMpdAddress address = { .host = path, .timeout_ms = 2000 };
	g_autoptr(GError) error = NULL;
	char *reply;

	g_test_summary("No MPD at the address: G_IO_ERROR_CONNECTION_REFUSED "
	               "naming it");
	reply = bridge_mpd_request(&address, CHANNEL, "status", "reply-4", 1000,
	                           &error);
	g_assert_null(reply);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);
	g_assert_nonnull(strstr(error->message, path));
	g_assert_nonnull(strstr(error->message, "MPD_HOST"));
	g_test_message("%s", error->message);
	g_rmdir(dir);
}

/* A server that greets like MPD and then never answers. */
typedef struct {
	char *dir;
	char *path;
	int listener;
	GThread *thread;
	Fixture *f;     /* told of each connection when not NULL */
	guint accepted; /* connections so far; atomic */
} Wedged;

static gboolean
on_wedged_accept(gpointer data)
{
	Fixture *f = data;

	f->ups++;
	return G_SOURCE_REMOVE;
}

static gpointer
run_wedged(gpointer data)
{
	Wedged *wedged = data;
	static const char greeting[] = "OK MPD 0.23.5\n";
	char buffer[256];
	int fd;

	/* Until wedged_free() shuts the listener down. */
	while ((fd = accept(wedged->listener, NULL, NULL)) >= 0) {
		g_atomic_int_inc(&wedged->accepted);
		if (wedged->f != NULL)
			g_idle_add(on_wedged_accept, wedged->f);
		/* The client may have given up already: no SIGPIPE. */
		send(fd, greeting, sizeof(greeting) - 1, MSG_NOSIGNAL);
		/* Swallow commands until the client hangs up. */
		while (read(fd, buffer, sizeof(buffer)) > 0)
			continue;
		close(fd);
	}
	return NULL;
}

static Wedged *
wedged_new(Fixture *f)
{
	Wedged *wedged = g_new0(Wedged, 1);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	wedged->f = f;
	wedged->dir = g_dir_make_tmp("test-mpd-XXXXXX", NULL);
	g_assert_nonnull(wedged->dir);
	wedged->path = g_build_filename(wedged->dir, "wedged", NULL);
	g_strlcpy(sa.sun_path, wedged->path, sizeof(sa.sun_path));
	wedged->listener = socket(AF_UNIX, SOCK_STREAM, 0);
	g_assert_cmpint(wedged->listener, >=, 0);
	g_assert_cmpint(
	        bind(wedged->listener, (struct sockaddr *)&sa, sizeof(sa)), ==,
	        0);
	g_assert_cmpint(listen(wedged->listener, 4), ==, 0);
	wedged->thread = g_thread_new("wedged", run_wedged, wedged);
	return wedged;
}

static void
wedged_free(Wedged *wedged)
{
	shutdown(wedged->listener, SHUT_RDWR);
	g_thread_join(wedged->thread);
	close(wedged->listener);
	g_unlink(wedged->path);
	g_rmdir(wedged->dir);
	g_free(wedged->path);
	g_free(wedged->dir);
	g_free(wedged);
}

static void
test_request_wedged(void)
{
	Wedged *wedged = wedged_new(NULL);
	BridgeMpdAddress address = { .host = wedged->path, .timeout_ms = 1000 };
	g_autoptr(GError) error = NULL;
	char *reply;

	g_test_summary("An MPD that accepts but never answers costs the "
	               "request one command timeout, not forever");
	reply = bridge_mpd_request(&address, CHANNEL, "status", "reply-5",
	                           60000, &error);
	g_assert_null(reply);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
	g_test_message("%s", error->message);
	wedged_free(wedged);
}

static void
on_state_flag(gboolean connected, gpointer data)
{
	gboolean *called = data;

	*called = TRUE;
}

static gboolean
two_attempts(Fixture *f)
{
	return f->ups >= 2;
}

static void
test_daemon_wedged(void)
{
	Fixture f = { 0 };
	Wedged *wedged = wedged_new(&f);
	BridgeMpdAddress address = { .host = wedged->path, .timeout_ms = 1000 };
	BridgeMpd *bridge = bridge_mpd_new(&address, CHANNEL);
	gboolean connected = FALSE;

	g_test_summary("Against an MPD that never answers, each connection "
	               "attempt times out and the next follows the back-off");
	bridge_mpd_set_handlers(bridge, on_state_flag, NULL, NULL, &connected);
	bridge_mpd_start(bridge);
	wait_until(&f, two_attempts);
	g_assert_false(bridge_mpd_is_connected(bridge));
	g_assert_false(connected);
	bridge_mpd_free(bridge);
	wedged_free(wedged);
	/* Its last on_wedged_accept() must not outlive @f. */
	while (g_main_context_iteration(NULL, FALSE))
		continue;
}

static void
test_reconnect(Fixture *f, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	g_test_summary("MPD goes: on_state(FALSE) and a warning; it comes "
	               "back on the same socket: on_state(TRUE), subscribed");
	if (!connect_bridge(f))
		return;

	expected_warnings = 1;
	private_mpd_stop(f->mpd);
	wait_until(f, one_down);
	g_assert_cmpuint(expected_warnings, ==, 0);
	g_assert_false(bridge_mpd_is_connected(f->bridge));
	g_assert_cmpuint(bridge_mpd_queue(f->bridge, "http://127.0.0.1:1/x",
	                                  NULL, &error),
	                 ==, 0);
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED);

	g_assert_true(private_mpd_start(f->mpd, NULL));
	wait_until(f, two_up);
	g_assert_cmpuint(f->downs, ==, 1);
	g_assert_true(bridge_mpd_is_connected(f->bridge));

	send_from_client(f, CHANNEL, "back again");
	wait_until(f, one_message);
	g_assert_cmpstr(f->messages->pdata[0], ==, "back again");
}

static void
test_lost_in_command(Fixture *f, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	g_test_summary("MPD dies while the connection is idle and a command "
	               "comes before the loop noticed: an error, not "
	               "SIGPIPE; then on_state(FALSE) from the main loop");
	if (!connect_bridge(f))
		return;

	expected_warnings = 1;
	private_mpd_stop(f->mpd);
	g_assert_false(
	        bridge_mpd_send_message(f->bridge, CHANNEL, "anyone?", &error));
	g_assert_nonnull(error);
	g_test_message("%s", error->message);
	g_assert_cmpuint(expected_warnings, ==, 0);
	g_assert_false(bridge_mpd_is_connected(f->bridge));
	/* Handlers run from the main loop, not inside the command. */
	g_assert_cmpuint(f->downs, ==, 0);
	wait_until(f, one_down);

	g_assert_true(private_mpd_start(f->mpd, NULL));
	wait_until(f, two_up);
}

static void
add(const char *path, void (*test)(Fixture *, gconstpointer))
{
	g_test_add(path, Fixture, NULL, setup, test, teardown);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_log_set_writer_func(log_writer, NULL, NULL);

	g_test_add_func("/bridge-mpd/address/env", test_address_env);
	g_test_add_func("/bridge-mpd/playlist/safe-name", test_safe_name);
	add("/bridge-mpd/connect", test_connect);
	add("/bridge-mpd/playlist/replace", test_replace_playlist);
	add("/bridge-mpd/playlist/replace-long", test_replace_long);
	add("/bridge-mpd/playlist/safe-names-in-mpd", test_safe_names_in_mpd);
	add("/bridge-mpd/queue/tags", test_queue);
	add("/bridge-mpd/queue/changes", test_queue_changes);
	add("/bridge-mpd/playlist/load", test_load_playlist);
	add("/bridge-mpd/errors/server", test_server_error);
	add("/bridge-mpd/messages/receive", test_messages);
	add("/bridge-mpd/request/round-trip", test_request);
	add("/bridge-mpd/request/nobody", test_request_nobody);
	add("/bridge-mpd/request/silent", test_request_silent);
	g_test_add_func("/bridge-mpd/request/refused", test_request_refused);
	g_test_add_func("/bridge-mpd/request/wedged", test_request_wedged);
	g_test_add_func("/bridge-mpd/wedged", test_daemon_wedged);
	add("/bridge-mpd/command-in-handler", test_command_in_handler);
	add("/bridge-mpd/reconnect", test_reconnect);
	add("/bridge-mpd/lost-in-command", test_lost_in_command);
	return g_test_run();
}
