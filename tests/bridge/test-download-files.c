/*
 * The names of downloaded episodes' files: whatever a feed's title or an
 * enclosure's URL says, one safe component of a sensible name.
 */
#include "core/download-files.h"

#include <glib/gstdio.h>
#include <string.h>

static void
check_safe(const char *text, const char *expected)
{
	g_autofree char *name = bridge_download_safe_name(text, 200);

	g_assert_cmpstr(name, ==, expected);
}

static void
test_safe_names(void)
{
	check_safe("Episode 12: The Return", "Episode 12 The Return");
	check_safe("../../etc/passwd", "etc passwd");
	check_safe("..", NULL);
	check_safe("/", NULL);
	check_safe("", NULL);
	check_safe(NULL, NULL);
	check_safe("a\x01"
	           "b\nc\td\x7f"
	           "e",
	           "a b c d e");
	check_safe("  .hidden  ", "hidden");
	check_safe("-rf *", "rf");
	check_safe("trailing dots...", "trailing dots");
	check_safe("what? <now> | \"quoted\" \\ back", "what now quoted back");
	check_safe("CON", "_CON");
	check_safe("nul.txt", "_nul.txt");
	check_safe("COM3", "_COM3");
	check_safe("CONSOLE", "CONSOLE");
	check_safe("Café – naïve ☕", "Café – naïve ☕");
	/* Invalid UTF-8 becomes the replacement character. */
	check_safe("bad \xff byte", "bad \xef\xbf\xbd byte");
}

static void
test_cut_at_characters(void)
{
	g_autofree char *name = bridge_download_safe_name("ééééé", 5);

	/* Two bytes each: two fit in 5 bytes, never half of one. */
	g_assert_cmpstr(name, ==, "éé");
	g_assert_true(g_utf8_validate(name, -1, NULL));
	g_free(name);
	name = bridge_download_safe_name("abc def", 5);
	g_assert_cmpstr(name, ==, "abc d");
}

static void
test_extensions(void)
{
	g_assert_cmpstr(bridge_download_extension("audio/mpeg", NULL), ==,
	                "mp3");
	g_assert_cmpstr(bridge_download_extension("audio/x-m4a", NULL), ==,
	                "m4a");
	g_assert_cmpstr(
	        bridge_download_extension("AUDIO/OGG; codecs=opus", NULL), ==,
	        "ogg");
	g_assert_cmpstr(bridge_download_extension("audio/opus", NULL), ==,
	                "opus");
	g_assert_cmpstr(bridge_download_extension(
	                        NULL, "https://cdn.example/ep/1.m4a?x=y.mp3"),
	                ==, "m4a");
	g_assert_cmpstr(
	        bridge_download_extension("application/octet-stream",
	                                  "https://cdn.example/a.b/file.OGG"),
	        ==, "ogg");
	/* An unknown or hostile one never becomes the extension. */
	g_assert_cmpstr(
	        bridge_download_extension(NULL, "https://x.example/run.sh"), ==,
	        "mp3");
	g_assert_cmpstr(bridge_download_extension(
	                        NULL, "https://x.example/a.mp3/..%2F..%2Fx"),
	                ==, "mp3");
	g_assert_cmpstr(bridge_download_extension(NULL, "not a url"), ==,
	                "mp3");
}

static void
test_file_names(void)
{
	g_autofree char *dated = bridge_download_file_name(
	        "Compiler collectives", 1722736066, "mp3", "id");
	g_autofree char *undated =
	        bridge_download_file_name("Title", 0, "m4a", "id");
	g_autofree char *empty =
	        bridge_download_file_name("../..", 1722736066, "ogg", "abc");

	g_assert_cmpstr(dated, ==, "2024-08-04 Compiler collectives.mp3");
	g_assert_cmpstr(undated, ==, "Title.m4a");
	g_assert_cmpstr(empty, ==, "2024-08-04 abc.ogg");
}

static void
test_partials(void)
{
	g_autofree char *dir = g_dir_make_tmp("download-files-XXXXXX", NULL);
	g_autofree char *show = g_build_filename(dir, "Show", NULL);
	g_autofree char *part = g_build_filename(show, ".a.mp3.part", NULL);
	g_autofree char *info =
	        g_build_filename(show, ".a.mp3.part.info", NULL);
	g_autofree char *done = g_build_filename(show, "a.mp3", NULL);
	g_autofree char *top = g_build_filename(dir, ".keep", NULL);
	guint64 free_bytes = 0;

	g_assert_cmpint(g_mkdir(show, 0755), ==, 0);
	g_assert_true(g_file_set_contents(part, "x", 1, NULL));
	g_assert_true(g_file_set_contents(info, "x", 1, NULL));
	g_assert_true(g_file_set_contents(done, "x", 1, NULL));
	g_assert_true(g_file_set_contents(top, "x", 1, NULL));
	g_assert_cmpuint(bridge_download_remove_partials(dir), ==, 2);
	g_assert_false(g_file_test(part, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(info, G_FILE_TEST_EXISTS));
	g_assert_true(g_file_test(done, G_FILE_TEST_EXISTS));
	/* Only podcast folders are swept, not the folder itself. */
	g_assert_true(g_file_test(top, G_FILE_TEST_EXISTS));
	g_assert_true(bridge_download_free_space(dir, &free_bytes, NULL));
	g_assert_cmpuint(free_bytes, >, 0);
	g_unlink(done);
	g_unlink(top);
	g_rmdir(show);
	g_rmdir(dir);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/download-files/safe-names", test_safe_names);
	g_test_add_func("/download-files/cut", test_cut_at_characters);
	g_test_add_func("/download-files/extensions", test_extensions);
	g_test_add_func("/download-files/file-names", test_file_names);
	g_test_add_func("/download-files/partials", test_partials);
	return g_test_run();
}
