/*
 * Tags written into a downloaded episode's file: a copy of each fixture of
 * tests/data/tags (half a second of silence with a title, an artist and a
 * cover of its own) is tagged, then read back with TagLib. The cover art
 * and what MPD shows are checked by tests/bridge-tags/test-tags-mpd.py.
 */
#include "downloads/tags.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <tag_c.h>
#include <unistd.h>

typedef struct {
	const char *fixture; /* file name in tests/data/tags */
	const char *copy;    /* the name of the copy that is tagged */
	const char *format;  /* "mp3", "m4a", "ogg", "opus" or "flac" */
} Case;

static const Case cases[] = {
	{ "silence.mp3", "episode.mp3", "mp3" },
	{ "silence.m4a", "episode.m4a", "m4a" },
	{ "silence.ogg", "episode.ogg", "ogg" },
	{ "silence.opus", "episode.opus", "opus" },
	{ "silence.flac", "episode.flac", "flac" },
	/* The content decides, not the name. */
	{ "silence.opus", "opus-named.ogg", "opus" },
	{ "silence.m4a", "m4a-named.mp3", "m4a" },
	{ "silence.ogg", "vorbis-named.opus", "ogg" },
};

/* Copies of each case that threads tag at once. */
#define COPIES 3

/* What the fixtures have before they are tagged. */
#define FIXTURE_TITLE  "Fixture title"
#define FIXTURE_ARTIST "Fixture artist"

static const BridgeFileTags full_tags = {
	.title = "Épisode 12 – ünïcødé ✓",
	.album = "The Podcast",
	.artist = "Host Name",
	.date = "2024-05-01",
	.genre = "Podcast",
	.track = 12,
	.comment = "urn:uuid:0b0e0f5e-8c1a-4d6f-9c52-1f0c3a5a7e21",
};

/* A temporary directory for one test, removed with what is in it. */
typedef struct {
	char *dir;
} Fixture;

static void
fixture_set_up(Fixture *fixture, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	fixture->dir = g_dir_make_tmp("test-tags-XXXXXX", &error);
	g_assert_no_error(error);
}

static void
fixture_tear_down(Fixture *fixture, gconstpointer data)
{
	g_autoptr(GDir) dir = g_dir_open(fixture->dir, 0, NULL);
	const char *name;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree char *path =
		        g_build_filename(fixture->dir, name, NULL);

		if (g_file_test(path, G_FILE_TEST_IS_DIR))
			g_rmdir(path);
		else
			g_unlink(path);
	}
	g_rmdir(fixture->dir);
	g_free(fixture->dir);
}

static GBytes *
read_bytes(const char *path)
{
	g_autoptr(GError) error = NULL;
	char *data = NULL;
	gsize length = 0;

	g_file_get_contents(path, &data, &length, &error);
	g_assert_no_error(error);
	return g_bytes_new_take(data, length);
}

/* A copy of tests/data/tags/@name as @copy in the test's directory. */
static char *
copy_fixture(const Fixture *fixture, const char *name, const char *copy)
{
	g_autofree char *source = g_build_filename(g_getenv("FEED_TEST_DATA"),
	                                           "tags", name, NULL);
	g_autoptr(GBytes) bytes = read_bytes(source);
	char *path = g_build_filename(fixture->dir, copy, NULL);
	g_autoptr(GError) error = NULL;

	g_file_set_contents(path, g_bytes_get_data(bytes, NULL),
	                    (gssize)g_bytes_get_size(bytes), &error);
	g_assert_no_error(error);
	return path;
}

/*
 * Opens @path with TagLib as @format. TagLib 1.13 has no Opus type in its C
 * API: there an Opus file is read through a copy named *.opus.
 */
static TagLib_File *
open_for_reading(const Fixture *fixture, const char *path, const char *format)
{
	TagLib_File *file = NULL;

	if (strcmp(format, "mp3") == 0) {
		file = taglib_file_new_type(path, TagLib_File_MPEG);
	} else if (strcmp(format, "m4a") == 0) {
		file = taglib_file_new_type(path, TagLib_File_MP4);
	} else if (strcmp(format, "ogg") == 0) {
		file = taglib_file_new_type(path, TagLib_File_OggVorbis);
	} else if (strcmp(format, "flac") == 0) {
		file = taglib_file_new_type(path, TagLib_File_FLAC);
	} else {
#if BRIDGE_TAGLIB_HAS_OPUS_TYPE
		file = taglib_file_new_type(path, TagLib_File_Opus);
#else
		g_autofree char *copy =
		        g_build_filename(fixture->dir, "read-back.opus", NULL);
		g_autoptr(GBytes) bytes = read_bytes(path);
		g_autoptr(GError) error = NULL;

		g_file_set_contents(copy, g_bytes_get_data(bytes, NULL),
		                    (gssize)g_bytes_get_size(bytes), &error);
		g_assert_no_error(error);
		file = taglib_file_new(copy);
#endif
	}
	g_assert_nonnull(file);
	g_assert_true(taglib_file_is_valid(file));
	return file;
}

/* What TagLib reads from a tagged file. */
typedef struct {
	char *title;
	char *album;
	char *artist;
	char *genre;
	char *comment;
	char *date; /* NULL without TagLib's properties (1.13) */
	guint year;
	guint track;
} ReadTags;

static char *
take_taglib_string(char *text)
{
	char *copy = g_strdup(text);

	taglib_free(text);
	return copy;
}

static void
read_tags(const Fixture *fixture, const char *path, const char *format,
          ReadTags *out)
{
	TagLib_File *file = open_for_reading(fixture, path, format);
	TagLib_Tag *tag = taglib_file_tag(file);

	g_assert_nonnull(tag);
	out->title = take_taglib_string(taglib_tag_title(tag));
	out->album = take_taglib_string(taglib_tag_album(tag));
	out->artist = take_taglib_string(taglib_tag_artist(tag));
	out->genre = take_taglib_string(taglib_tag_genre(tag));
	out->comment = take_taglib_string(taglib_tag_comment(tag));
	out->year = taglib_tag_year(tag);
	out->track = taglib_tag_track(tag);
	out->date = NULL;
#if BRIDGE_TAGLIB_HAS_PROPERTIES
	{
		char **dates = taglib_property_get(file, "DATE");

		if (dates != NULL) {
			g_assert_cmpuint(g_strv_length(dates), ==, 1);
			out->date = g_strdup(dates[0]);
			taglib_property_free(dates);
		}
	}
#endif
	taglib_file_free(file);
}

static void
read_tags_clear(ReadTags *tags)
{
	g_free(tags->title);
	g_free(tags->album);
	g_free(tags->artist);
	g_free(tags->genre);
	g_free(tags->comment);
	g_free(tags->date);
}

static void
write_ok(const char *path, const BridgeFileTags *tags)
{
	g_autoptr(GError) error = NULL;

	g_assert_true(bridge_tags_write(path, tags, &error));
	g_assert_no_error(error);
}

static void
test_write(Fixture *fixture, gconstpointer data)
{
	const Case *c = data;
	g_autofree char *path = copy_fixture(fixture, c->fixture, c->copy);
	ReadTags got;

	g_test_summary("Each tag reads back from each format, whatever the "
	               "file's name says");
	write_ok(path, &full_tags);
	read_tags(fixture, path, c->format, &got);
	g_assert_cmpstr(got.title, ==, full_tags.title);
	g_assert_cmpstr(got.album, ==, full_tags.album);
	g_assert_cmpstr(got.artist, ==, full_tags.artist);
	g_assert_cmpstr(got.genre, ==, full_tags.genre);
	g_assert_cmpstr(got.comment, ==, full_tags.comment);
	g_assert_cmpuint(got.year, ==, 2024);
	g_assert_cmpuint(got.track, ==, full_tags.track);
#if BRIDGE_TAGLIB_HAS_PROPERTIES
	g_assert_cmpstr(got.date, ==, "2024-05-01");
#endif
	read_tags_clear(&got);
}

static void
test_keep(Fixture *fixture, gconstpointer data)
{
	const Case *c = data;
	g_autofree char *path = copy_fixture(fixture, c->fixture, c->copy);
	const BridgeFileTags title_only = { .title = "Only the title" };
	const BridgeFileTags blank = {
		.title = " \t\n",
		.artist = "\r\n",
		.album = "",
		.genre = "\x01\x02",
	};
	ReadTags got;

	g_test_summary("A tag left NULL, 0 or blank keeps the file's own");
	write_ok(path, &full_tags);
	write_ok(path, &title_only);
	read_tags(fixture, path, c->format, &got);
	g_assert_cmpstr(got.title, ==, "Only the title");
	g_assert_cmpstr(got.artist, ==, full_tags.artist);
	g_assert_cmpstr(got.album, ==, full_tags.album);
	g_assert_cmpstr(got.comment, ==, full_tags.comment);
	g_assert_cmpuint(got.track, ==, full_tags.track);
	g_assert_cmpuint(got.year, ==, 2024);
	read_tags_clear(&got);

	write_ok(path, &blank);
	read_tags(fixture, path, c->format, &got);
	g_assert_cmpstr(got.title, ==, "Only the title");
	g_assert_cmpstr(got.artist, ==, full_tags.artist);
	g_assert_cmpstr(got.album, ==, full_tags.album);
	g_assert_cmpstr(got.genre, ==, full_tags.genre);
	read_tags_clear(&got);
}

static void
test_untouched_fields(Fixture *fixture, gconstpointer data)
{
	g_autofree char *path =
	        copy_fixture(fixture, "silence.mp3", "episode.mp3");
	const BridgeFileTags tags = { .title = "New title", .track = 3 };
	ReadTags got;

	g_test_summary("The file's own artist stays when none is given");
	write_ok(path, &tags);
	read_tags(fixture, path, "mp3", &got);
	g_assert_cmpstr(got.title, ==, "New title");
	g_assert_cmpstr(got.artist, ==, FIXTURE_ARTIST);
	g_assert_cmpuint(got.track, ==, 3);
	g_assert_cmpuint(got.year, ==, 0);
	read_tags_clear(&got);
}

static void
test_date_forms(Fixture *fixture, gconstpointer data)
{
	g_autofree char *path =
	        copy_fixture(fixture, "silence.ogg", "episode.ogg");
	const char *const dates[] = { "1999", "2003-07", "2024-02-29" };

	g_test_summary("A year alone and a year and month are dates too");
	for (gsize i = 0; i < G_N_ELEMENTS(dates); i++) {
		const BridgeFileTags tags = { .date = dates[i] };
		ReadTags got;

		write_ok(path, &tags);
		read_tags(fixture, path, "ogg", &got);
		g_assert_cmpuint(got.year, ==,
		                 (guint)g_ascii_strtoull(dates[i], NULL, 10));
#if BRIDGE_TAGLIB_HAS_PROPERTIES
		g_assert_cmpstr(got.date, ==, dates[i]);
#endif
		read_tags_clear(&got);
	}
}

static void
test_bad_date(void)
{
	const char *const bad[] = { "2024-13-01",      "2023-02-29", "24-05-01",
		                    "2024/05/01",      "0000",       "2024-5-1",
		                    "2024-05-01T10:00" };

	g_test_summary("A date that is not YYYY[-MM[-DD]] is a bug of the "
	               "caller's");
	for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
		const BridgeFileTags tags = { .date = bad[i] };

		g_test_expect_message("mpd-bridge", G_LOG_LEVEL_CRITICAL,
		                      "*date_year*");
		g_assert_false(bridge_tags_write("/nonexistent", &tags, NULL));
		g_test_assert_expected_messages();
	}
}

static void
test_clean(Fixture *fixture, gconstpointer data)
{
	g_autofree char *path =
	        copy_fixture(fixture, "silence.mp3", "episode.mp3");
	g_autoptr(GString) long_title = g_string_new(NULL);
	const BridgeFileTags hostile = {
		.title = "Line\none\r\ntab\there\x1b[31mred\x7f del\xc2\x85"
		         "nel\xe2\x80\xa8sep\xe2\x80\xa9par  \x0b\x0c end\n",
		.album = "\x1b]0;title\x07Show\xc2\x9b",
		.artist = "Caf\xe9 \xff Host",
		.genre = "\tPodcast\t",
		.comment = "guid\x01\x02-1",
	};
	BridgeFileTags tags = { 0 };
	ReadTags got;

	g_test_summary("Control characters go, line breaks and separators "
	               "become spaces, invalid UTF-8 is repaired, a long "
	               "value is cut at a character");
	write_ok(path, &hostile);
	read_tags(fixture, path, "mp3", &got);
	g_assert_cmpstr(got.title, ==,
	                "Line one tab here[31mred del nel sep par end");
	g_assert_cmpstr(got.album, ==, "]0;titleShow");
	g_assert_cmpstr(got.artist, ==, "Caf\xef\xbf\xbd \xef\xbf\xbd Host");
	g_assert_cmpstr(got.genre, ==, "Podcast");
	g_assert_cmpstr(got.comment, ==, "guid-1");
	read_tags_clear(&got);

	/* 700 two-byte characters: 1400 bytes, cut to 512 of them. */
	for (int i = 0; i < 700; i++)
		g_string_append(long_title, "é");
	tags.title = long_title->str;
	write_ok(path, &tags);
	read_tags(fixture, path, "mp3", &got);
	g_assert_true(g_utf8_validate(got.title, -1, NULL));
	g_assert_cmpuint(strlen(got.title), ==, 1024);
	g_assert_true(strncmp(got.title, long_title->str, 1024) == 0);
	read_tags_clear(&got);
}

static void
assert_error_names(const GError *error, const char *path)
{
	g_assert_nonnull(error);
	if (strstr(error->message, path) == NULL)
		g_error("the message does not name %s: %s", path,
		        error->message);
}

/* An empty ID3v2.4 tag of 10 bytes of padding, then @rest. */
static char *
write_after_id3v2(const Fixture *fixture, const char *name, const void *rest,
                  gsize length)
{
	static const guint8 id3v2[] = { 'I', 'D', '3', 4, 0, 0, 0, 0, 0, 10,
		                        0,   0,   0,   0, 0, 0, 0, 0, 0, 0 };
	g_autoptr(GByteArray) bytes = g_byte_array_new();
	char *path = g_build_filename(fixture->dir, name, NULL);
	g_autoptr(GError) error = NULL;

	g_byte_array_append(bytes, id3v2, sizeof(id3v2));
	g_byte_array_append(bytes, rest, (guint)length);
	g_file_set_contents(path, (const char *)bytes->data, bytes->len,
	                    &error);
	g_assert_no_error(error);
	return path;
}

static void
test_id3v2_before_flac(Fixture *fixture, gconstpointer data)
{
	g_autofree char *source = g_build_filename(
	        g_getenv("FEED_TEST_DATA"), "tags", "silence.flac", NULL);
	g_autoptr(GBytes) flac = read_bytes(source);
	g_autofree char *path = write_after_id3v2(fixture, "episode.mp3",
	                                          g_bytes_get_data(flac, NULL),
	                                          g_bytes_get_size(flac));
	ReadTags got;

	g_test_summary("FLAC after an ID3v2 tag is still FLAC");
	write_ok(path, &full_tags);
	read_tags(fixture, path, "flac", &got);
	g_assert_cmpstr(got.title, ==, full_tags.title);
	read_tags_clear(&got);
}

static void
test_id3v2_before_aac(Fixture *fixture, gconstpointer data)
{
	/* An ADTS header: MPEG sync, layer 0. */
	static const guint8 adts[] = { 0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f,
		                       0xfc, 0x21, 0x00, 0x49, 0x90, 0x02 };
	g_autofree char *path =
	        write_after_id3v2(fixture, "episode.mp3", adts, sizeof(adts));
	g_autoptr(GError) error = NULL;

	g_test_summary("Raw AAC after an ID3v2 tag is no MP3");
	g_assert_false(bridge_tags_write(path, &full_tags, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
	assert_error_names(error, path);
}

static void
test_not_audio(Fixture *fixture, gconstpointer data)
{
	g_autofree char *path =
	        copy_fixture(fixture, "not-audio.mp3", "episode.mp3");
	g_autoptr(GBytes) before = read_bytes(path);
	g_autoptr(GBytes) after = NULL;
	g_autoptr(GError) error = NULL;

	g_test_summary("A web page saved as an episode is left alone");
	g_assert_false(bridge_tags_write(path, &full_tags, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
	assert_error_names(error, path);
	after = read_bytes(path);
	g_assert_true(g_bytes_equal(before, after));
}

static void
test_missing(Fixture *fixture, gconstpointer data)
{
	g_autofree char *path =
	        g_build_filename(fixture->dir, "missing.mp3", NULL);
	g_autoptr(GError) error = NULL;

	g_test_summary("A missing file is an error that names it");
	g_assert_false(bridge_tags_write(path, &full_tags, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
	assert_error_names(error, path);
}

static void
test_directory(Fixture *fixture, gconstpointer data)
{
	g_autofree char *path =
	        g_build_filename(fixture->dir, "folder.mp3", NULL);
	g_autoptr(GError) error = NULL;

	g_test_summary("A directory is no episode");
	g_assert_cmpint(g_mkdir(path, 0700), ==, 0);
	g_assert_false(bridge_tags_write(path, &full_tags, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY);
	assert_error_names(error, path);
}

static void
test_fifo(Fixture *fixture, gconstpointer data)
{
	g_autofree char *path =
	        g_build_filename(fixture->dir, "fifo.mp3", NULL);
	g_autoptr(GError) error = NULL;

	g_test_summary("A FIFO is refused at once, not read from");
	g_assert_cmpint(mkfifo(path, 0600), ==, 0);
	g_assert_false(bridge_tags_write(path, &full_tags, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
	assert_error_names(error, path);
}

static void
test_read_only(Fixture *fixture, gconstpointer data)
{
	g_autofree char *path =
	        copy_fixture(fixture, "silence.mp3", "episode.mp3");
	g_autoptr(GBytes) before = read_bytes(path);
	g_autoptr(GBytes) after = NULL;
	g_autoptr(GError) error = NULL;

	g_test_summary("A file we may not write is an error that names it, "
	               "and stays as it was");
	if (geteuid() == 0) {
		/* test-tags-mpd.py tries it as the user nobody. */
		g_test_skip("root writes into read-only files");
		return;
	}
	g_assert_cmpint(g_chmod(path, 0444), ==, 0);
	g_assert_false(bridge_tags_write(path, &full_tags, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
	assert_error_names(error, path);
	after = read_bytes(path);
	g_assert_true(g_bytes_equal(before, after));
}

/* The number of links tags.c has left in the temporary directory. */
static guint
count_links(void)
{
	g_autoptr(GDir) dir = g_dir_open(g_get_tmp_dir(), 0, NULL);
	const char *name;
	guint n = 0;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL)
		n += g_str_has_prefix(name, "mpd-bridge-tags-");
	return n;
}

static void
test_truncated(Fixture *fixture, gconstpointer data)
{
	const Case *c = data;
	g_autofree char *source = g_build_filename(g_getenv("FEED_TEST_DATA"),
	                                           "tags", c->fixture, NULL);
	g_autoptr(GBytes) whole = read_bytes(source);
	g_autofree char *path = g_build_filename(fixture->dir, c->copy, NULL);
	g_autoptr(GError) error = NULL;
	const guint8 *bytes = g_bytes_get_data(whole, NULL);
	gsize page = 27 + (gsize)bytes[26];
	guint links = count_links();

	g_test_summary("A file cut after its first page is one TagLib "
	               "cannot read: an error that names it");
	/* The Ogg page with the codec's first packet, and no more. */
	for (gsize i = 0; i < bytes[26]; i++)
		page += bytes[27 + i];
	g_file_set_contents(path, (const char *)bytes, (gssize)page, &error);
	g_assert_no_error(error);
	g_assert_false(bridge_tags_write(path, &full_tags, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
	assert_error_names(error, path);
	g_assert_cmpuint(count_links(), ==, links);
}

static void
test_no_links_left(Fixture *fixture, gconstpointer data)
{
	g_autofree char *path =
	        copy_fixture(fixture, "silence.opus", "episode.oga");
	guint links = count_links();

	g_test_summary("Nothing is left in the temporary directory");
	write_ok(path, &full_tags);
	g_assert_cmpuint(count_links(), ==, links);
}

typedef struct {
	const char *path;
	const Case *c;
	gboolean ok;
} Job;

static gpointer
write_job(gpointer data)
{
	Job *job = data;

	for (int i = 0; i < 5; i++)
		if (!bridge_tags_write(job->path, &full_tags, NULL))
			return NULL;
	job->ok = TRUE;
	return NULL;
}

static void
test_threads(Fixture *fixture, gconstpointer data)
{
	Job jobs[G_N_ELEMENTS(cases) * COPIES];
	GThread *threads[G_N_ELEMENTS(jobs)];
	char *paths[G_N_ELEMENTS(jobs)];

	g_test_summary("Distinct files are tagged from several threads at "
	               "once");
	for (gsize i = 0; i < G_N_ELEMENTS(jobs); i++) {
		const Case *c = &cases[i % G_N_ELEMENTS(cases)];
		g_autofree char *name = g_strdup_printf(
		        "%zu-%s", i / G_N_ELEMENTS(cases), c->copy);

		paths[i] = copy_fixture(fixture, c->fixture, name);
		jobs[i] = (Job){ .path = paths[i], .c = c };
	}
	for (gsize i = 0; i < G_N_ELEMENTS(jobs); i++)
		threads[i] = g_thread_new("tags", write_job, &jobs[i]);
	for (gsize i = 0; i < G_N_ELEMENTS(jobs); i++) {
		ReadTags got;

		g_thread_join(threads[i]);
		g_assert_true(jobs[i].ok);
		read_tags(fixture, paths[i], jobs[i].c->format, &got);
		g_assert_cmpstr(got.title, ==, full_tags.title);
		g_assert_cmpuint(got.track, ==, full_tags.track);
		read_tags_clear(&got);
		g_free(paths[i]);
	}
}

static void
add(const char *path, const void *data, void (*test)(Fixture *, gconstpointer))
{
	g_test_add(path, Fixture, data, fixture_set_up, test,
	           fixture_tear_down);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	/* As tags.c has it: the strings TagLib returns are ours to free. */
	taglib_set_string_management_enabled(FALSE);

	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *write =
		        g_strdup_printf("/tags/write/%s", cases[i].copy);
		g_autofree char *keep =
		        g_strdup_printf("/tags/keep/%s", cases[i].copy);

		add(write, &cases[i], test_write);
		add(keep, &cases[i], test_keep);
	}
	add("/tags/keep/fixture-artist", NULL, test_untouched_fields);
	add("/tags/date-forms", NULL, test_date_forms);
	g_test_add_func("/tags/bad-date", test_bad_date);
	add("/tags/clean", NULL, test_clean);
	add("/tags/id3v2-before-flac", NULL, test_id3v2_before_flac);
	add("/tags/error/id3v2-before-aac", NULL, test_id3v2_before_aac);
	add("/tags/error/not-audio", NULL, test_not_audio);
	add("/tags/error/missing", NULL, test_missing);
	add("/tags/error/directory", NULL, test_directory);
	add("/tags/error/fifo", NULL, test_fifo);
	add("/tags/error/read-only", NULL, test_read_only);
	add("/tags/error/truncated-ogg", &cases[2], test_truncated);
	add("/tags/error/truncated-opus-named-ogg", &cases[5], test_truncated);
	add("/tags/opus-link-removed", NULL, test_no_links_left);
	add("/tags/threads", NULL, test_threads);
	return g_test_run();
}
