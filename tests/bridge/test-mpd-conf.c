/*
 * Reading MPD's own configuration file for its playlist_directory. Each
 * case of MPD's syntax here was checked against mpd 0.23.12 itself.
 */
#include "mpd/mpd-conf.h"

#include <pwd.h>
#include <string.h>
#include <sys/types.h>

/* Debian 12's /etc/mpd.conf, less most of its comments. */
static const char debian_conf[] =
        "# An example configuration file for MPD.\n"
        "# Read the user manual for documentation: "
        "http://www.musicpd.org/doc/user/\n"
        "\n"
        "# Files and directories "
        "#######################################################\n"
        "#\n"
        "music_directory\t\t\"/var/lib/mpd/music\"\n"
        "#\n"
        "playlist_directory\t\t\"/var/lib/mpd/playlists\"\n"
        "#\n"
        "db_file\t\t\t\"/var/lib/mpd/tag_cache\"\n"
        "#log_file\t\t\t\"/var/log/mpd/mpd.log\"\n"
        "#pid_file\t\t\t\"/run/mpd/pid\"\n"
        "state_file\t\t\t\"/var/lib/mpd/state\"\n"
        "sticker_file                   \"/var/lib/mpd/sticker.sql\"\n"
        "#\n"
        "user\t\t\t\t\"mpd\"\n"
        "#group\t\t\t\t\"nogroup\"\n"
        "bind_to_address\t\t\t\"localhost\"\n"
        "#bind_to_address\t\t\"/run/mpd/socket\"\n"
        "#port\t\t\t\t\"6600\"\n"
        "#database {\n"
        "#       plugin \"simple\"\n"
        "#}\n"
        "input {\n"
        "        plugin \"curl\"\n"
        "#       proxy \"proxy.isp.com:8080\"\n"
        "}\n"
        "\n"
        "decoder {\n"
        "        plugin                  \"hybrid_dsd\"\n"
        "        enabled                 \"no\"\n"
        "#       gapless                 \"no\"\n"
        "}\n"
        "decoder {\n"
        "        plugin        \"wildmidi\"\n"
        "        enabled       \"no\"\n"
        "        #config_file \"/etc/timidity/timidity.cfg\"\n"
        "}\n"
        "#audio_output {\n"
        "#\ttype\t\t\"alsa\"\n"
        "#\tname\t\t\"My ALSA Device\"\n"
        "##\tdevice\t\t\"hw:0,0\"\t# optional\n"
        "#}\n"
        "filesystem_charset\t\t\"UTF-8\"\n";

/* Writes @text to @name (which may hold folders) in this test's folder. */
static char *
write_file(const char *name, const char *text)
{
	g_autofree char *path =
	        g_build_filename(g_get_user_data_dir(), "conf", name, NULL);
	g_autofree char *folder = g_path_get_dirname(path);
	g_autoptr(GError) error = NULL;

	g_assert_cmpint(g_mkdir_with_parents(folder, 0700), ==, 0);
	g_file_set_contents(path, text, -1, &error);
	g_assert_no_error(error);
	return g_steal_pointer(&path);
}

/* The playlist_directory of mpd.conf holding @text, which must read. */
static char *
read_conf(const char *text)
{
	g_autofree char *path = write_file("mpd.conf", text);
	g_autoptr(GError) error = NULL;
	char *directory =
	        bridge_mpd_conf_directory(path, "playlist_directory", &error);

	g_assert_no_error(error);
	return directory;
}

/*
 * Reads mpd.conf holding @text, which must fail with @code in @domain,
 * naming @name (a file in the test's folder) and line @line.
 */
static void
assert_fails(const char *text, GQuark domain, int code, const char *name,
             guint line)
{
	g_autofree char *path = write_file("mpd.conf", text);
	g_autofree char *where = g_strdup_printf(
	        "%s/conf/%s line %u: ", g_get_user_data_dir(), name, line);
	g_autoptr(GError) error = NULL;
	g_autofree char *directory =
	        bridge_mpd_conf_directory(path, "playlist_directory", &error);

	g_assert_null(directory);
	g_assert_error(error, domain, code);
	g_test_message("error: %s", error->message);
	g_assert_true(g_str_has_prefix(error->message, where));
}

static void
test_debian(void)
{
	g_autofree char *directory = NULL;

	g_test_summary("Debian's own /etc/mpd.conf gives its playlist "
	               "directory");
	directory = read_conf(debian_conf);
	g_assert_cmpstr(directory, ==, "/var/lib/mpd/playlists");
}

static void
test_none(void)
{
	g_autofree char *directory = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree char *missing = NULL;

	g_test_summary("A file that sets no playlist_directory gives NULL "
	               "and no error; a missing file is an error");
	directory = read_conf("music_directory \"/m\"\n"
	                      "# playlist_directory \"/commented\"\n");
	g_assert_null(directory);
	directory = read_conf("");
	g_assert_null(directory);

	missing = g_build_filename(g_get_user_data_dir(), "nowhere.conf", NULL);
	directory = bridge_mpd_conf_directory(missing, "playlist_directory",
	                                      &error);
	g_assert_null(directory);
	g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
	g_assert_nonnull(strstr(error->message, missing));
}

static void
test_include_relative(void)
{
	g_autofree char *directory = NULL;
	g_autofree char *inner = NULL;

	g_test_summary("An include is relative to the folder of the file "
	               "that includes it, as in MPD, at each level");
	g_free(write_file("b.conf", "playlist_directory \"/beside-main\"\n"));
	g_free(write_file("conf.d/b.conf",
	                  "playlist_directory \"/beside-a\"\n"));
	g_free(write_file("conf.d/a.conf", "include \"b.conf\"\n"));
	directory = read_conf("music_directory \"/m\"\n"
	                      "include \"conf.d/a.conf\"\n");
	g_assert_cmpstr(directory, ==, "/beside-a");

	inner = write_file("up/c.conf", "include \"../conf.d/b.conf\"\n");
	g_clear_pointer(&directory, g_free);
	directory = read_conf("include \"up/c.conf\"\n");
	g_assert_cmpstr(directory, ==, "/beside-a");
}

static void
test_include_absolute(void)
{
	g_autofree char *other = NULL;
	g_autofree char *text = NULL;
	g_autofree char *directory = NULL;

	g_test_summary("An absolute include is read where it says");
	g_assert_cmpint(g_mkdir_with_parents(g_get_user_config_dir(), 0700), ==,
	                0);
	other = g_build_filename(g_get_user_config_dir(), "elsewhere.conf",
	                         NULL);
	g_file_set_contents(other, "playlist_directory \"/elsewhere\"\n", -1,
	                    NULL);
	text = g_strdup_printf("include \"%s\"\n", other);
	directory = read_conf(text);
	g_assert_cmpstr(directory, ==, "/elsewhere");
}

static void
test_include_optional(void)
{
	g_autofree char *directory = NULL;

	g_test_summary("include_optional of a missing file is fine, of one "
	               "that exists is read; a missing include, or one of "
	               "something other than a file, is an error that names "
	               "the line including it");
	directory = read_conf("include_optional \"missing.conf\"\n"
	                      "playlist_directory \"/p\"\n");
	g_assert_cmpstr(directory, ==, "/p");

	g_free(write_file("there.conf", "playlist_directory \"/there\"\n"));
	g_clear_pointer(&directory, g_free);
	directory = read_conf("playlist_directory \"/p\"\n"
	                      "include_optional \"there.conf\"\n");
	g_assert_cmpstr(directory, ==, "/there");

	assert_fails("playlist_directory \"/p\"\n"
	             "include \"missing.conf\"\n",
	             G_FILE_ERROR, G_FILE_ERROR_NOENT, "mpd.conf", 2);

	/* Nor is a folder, a FIFO or a device read: they may never end. */
	g_free(write_file("folder/x.conf", ""));
	assert_fails("include \"folder\"\n", G_FILE_ERROR, G_FILE_ERROR_INVAL,
	             "mpd.conf", 1);
	assert_fails("\ninclude_optional \"/dev/zero\"\n", G_FILE_ERROR,
	             G_FILE_ERROR_INVAL, "mpd.conf", 2);
}

static void
test_include_loop(void)
{
	g_autofree char *directory = NULL;
	GString *text = g_string_new(NULL);

	g_test_summary("An include loop is refused with an error, not "
	               "followed forever; so are includes over 16 deep, and "
	               "16 deep is fine");
	assert_fails("\n\ninclude \"mpd.conf\"\n", G_KEY_FILE_ERROR,
	             G_KEY_FILE_ERROR_PARSE, "mpd.conf", 3);

	g_free(write_file("loop/a.conf", "include \"b.conf\"\n"));
	g_free(write_file("loop/b.conf", "# b\ninclude \"a.conf\"\n"));
	assert_fails("include \"loop/a.conf\"\n", G_KEY_FILE_ERROR,
	             G_KEY_FILE_ERROR_PARSE, "loop/b.conf", 2);

	/* mpd.conf, then deep/1.conf to deep/16.conf. */
	for (guint i = 1; i <= 16; i++) {
		g_autofree char *name = g_strdup_printf("deep/%u.conf", i);

		g_string_printf(text, "include \"%u.conf\"\n", i + 1);
		if (i == 16)
			g_string_assign(text, "playlist_directory \"/deep\"\n");
		g_free(write_file(name, text->str));
	}
	directory = read_conf("include \"deep/1.conf\"\n");
	g_assert_cmpstr(directory, ==, "/deep");

	g_free(write_file("deep/16.conf", "include \"17.conf\"\n"));
	g_free(write_file("deep/17.conf", "playlist_directory \"/deeper\"\n"));
	assert_fails("include \"deep/1.conf\"\n", G_KEY_FILE_ERROR,
	             G_KEY_FILE_ERROR_PARSE, "deep/16.conf", 1);
	g_string_free(text, TRUE);
}

static void
test_home(void)
{
	g_autofree char *directory = NULL;
	g_autofree char *expected = NULL;

	g_test_summary("~ and ~/... are our home when the file sets no user");
	directory = read_conf("playlist_directory \"~/playlists\"\n");
	expected = g_build_filename(g_get_home_dir(), "playlists", NULL);
	g_assert_cmpstr(directory, ==, expected);

	g_clear_pointer(&directory, g_free);
	directory = read_conf("playlist_directory \"~\"\n");
	g_assert_cmpstr(directory, ==, g_get_home_dir());
}

static void
test_home_of_user(void)
{
	const char *name = g_get_user_name();
	struct passwd *entry = getpwnam(name);
	g_autofree char *directory = NULL;
	g_autofree char *expected = NULL;
	g_autofree char *text = NULL;

	g_test_summary("~ is the home of the file's user (set before or "
	               "after), ~name/... name's; an unknown user is an error "
	               "naming the line");
	g_assert_nonnull(entry);
	/* GTest gives the test a home of its own: the two differ. */
	g_assert_cmpstr(entry->pw_dir, !=, g_get_home_dir());
	expected = g_build_filename(entry->pw_dir, "lists", NULL);

	text = g_strdup_printf("playlist_directory \"~/lists\"\n"
	                       "user \"%s\"\n",
	                       name);
	directory = read_conf(text);
	g_assert_cmpstr(directory, ==, expected);

	g_free(text);
	text = g_strdup_printf("user \"%s\"\nplaylist_directory \"~\"\n", name);
	g_clear_pointer(&directory, g_free);
	directory = read_conf(text);
	g_assert_cmpstr(directory, ==, entry->pw_dir);

	g_free(text);
	text = g_strdup_printf("playlist_directory \"~%s/lists\"\n", name);
	g_clear_pointer(&directory, g_free);
	directory = read_conf(text);
	g_assert_cmpstr(directory, ==, expected);

	assert_fails("user \"no-such-user-at-all\"\n"
	             "playlist_directory \"~/lists\"\n",
	             G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
	             "mpd.conf", 1);
	assert_fails("\nplaylist_directory \"~no-such-user-at-all/lists\"\n",
	             G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
	             "mpd.conf", 2);
}

static void
test_block(void)
{
	g_autofree char *directory = NULL;

	g_test_summary("A playlist_directory inside a block is the block's, "
	               "not MPD's");
	directory = read_conf("audio_output {\n"
	                      "\ttype \"null\"\n"
	                      "\tplaylist_directory \"/in/block\"\n"
	                      "\tinclude \"not-read.conf\"\n"
	                      "}\n");
	g_assert_null(directory);

	directory = read_conf("input {   # a comment\n"
	                      "  playlist_directory \"/in/block\"\n"
	                      "  } # a comment\n"
	                      "playlist_directory \"/top\"\n"
	                      "audio_output {\n"
	                      "\tplaylist_directory \"/in/block\"\n"
	                      "}\n");
	g_assert_cmpstr(directory, ==, "/top");
}

static void
test_comments_and_escapes(void)
{
	g_autofree char *directory = NULL;

	g_test_summary("Comments, a comment after a value, escaped quotes "
	               "and backslashes, tabs and CRLF line ends");
	directory = read_conf(
	        "# playlist_directory \"/commented\"\n"
	        "\t  # playlist_directory \"/indented comment\"\n"
	        "\tplaylist_directory\t\"/a \\\"quoted\\\" \\q\\\\x\"\t# c\r\n"
	        "music_directory \"/m\"\r\n");
	g_assert_cmpstr(directory, ==, "/a \"quoted\" q\\x");
}

static void
test_last_wins(void)
{
	g_autofree char *directory = NULL;

	g_test_summary("As in MPD since 0.21.19, a later setting (also in an "
	               "included file) overrides an earlier one");
	directory = read_conf("playlist_directory \"/first\"\n"
	                      "playlist_directory \"/second\"\n");
	g_assert_cmpstr(directory, ==, "/second");

	g_free(write_file("local.conf", "playlist_directory \"/local\"\n"));
	g_clear_pointer(&directory, g_free);
	directory = read_conf("playlist_directory \"/main\"\n"
	                      "include \"local.conf\"\n");
	g_assert_cmpstr(directory, ==, "/local");

	g_clear_pointer(&directory, g_free);
	directory = read_conf("include \"local.conf\"\n"
	                      "playlist_directory \"/main\"\n");
	g_assert_cmpstr(directory, ==, "/main");
}

static void
test_not_absolute(void)
{
	g_test_summary("A relative playlist_directory is an error, as MPD "
	               "refuses it");
	assert_fails("\n\nplaylist_directory \"playlists\"\n", G_KEY_FILE_ERROR,
	             G_KEY_FILE_ERROR_INVALID_VALUE, "mpd.conf", 3);
	assert_fails("playlist_directory \"\"\n", G_KEY_FILE_ERROR,
	             G_KEY_FILE_ERROR_INVALID_VALUE, "mpd.conf", 1);
}

static void
test_bad_syntax(void)
{
	/* Each of these makes mpd 0.23.12 refuse to start. */
	static const struct {
		const char *text;
		guint line;
	} cases[] = {
		{ "music_directory \"/m\"\nplaylist_directory /p\n", 2 },
		{ "playlist_directory \"/p\n", 1 },
		{ "playlist_directory \"/p\"# no space\n", 1 },
		{ "playlist_directory \"/p\" \"/q\"\n", 1 },
		{ "playlist_directory\n", 1 },
		{ "playlist_directory # nothing\n", 1 },
		{ "playlist_directory {\n}\n", 1 },
		{ "1st \"x\"\n", 1 },
		{ "_x \"x\"\n", 1 },
		{ "foo-bar \"x\"\n", 1 },
		{ "foo\"x\"\n", 1 },
		{ "input {\n  plugin \"curl\"\n", 1 },
		{ "input { plugin \"curl\"\n}\n", 1 },
		{ "input {\n  plugin \"curl\"\n} x\n", 3 },
		{ "input {\n  plugin curl\n}\n", 2 },
		{ "input {\n  foo {\n  }\n}\n", 2 },
		{ "}\n", 1 },
	};

	g_test_summary("A file that MPD would not start with is an error "
	               "that names the file and line");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("case %" G_GSIZE_FORMAT ": %s", i,
		               cases[i].text);
		assert_fails(cases[i].text, G_KEY_FILE_ERROR,
		             G_KEY_FILE_ERROR_PARSE, "mpd.conf", cases[i].line);
	}

	g_free(write_file("bad.conf", "# fine\n\nuser \"mpd\" x\n"));
	assert_fails("include \"bad.conf\"\n", G_KEY_FILE_ERROR,
	             G_KEY_FILE_ERROR_PARSE, "bad.conf", 3);
}

static void
test_candidates(void)
{
	const char *home = g_get_home_dir();
	g_autofree char *config = g_build_filename(home, "xdg-config", NULL);
	g_autofree char *expected = NULL;
	g_auto(GStrv) paths = NULL;

	g_test_summary("MPD's configuration files, in MPD's order, honour "
	               "XDG_CONFIG_HOME (when it is a folder) and HOME");
	g_assert_cmpint(g_mkdir_with_parents(config, 0700), ==, 0);
	g_setenv("XDG_CONFIG_HOME", config, TRUE);
	paths = bridge_mpd_conf_candidates();
	g_assert_cmpuint(g_strv_length(paths), ==, 4);
	expected = g_build_filename(config, "mpd", "mpd.conf", NULL);
	g_assert_cmpstr(paths[0], ==, expected);
	g_free(expected);
	expected = g_build_filename(home, ".mpdconf", NULL);
	g_assert_cmpstr(paths[1], ==, expected);
	g_free(expected);
	expected = g_build_filename(home, ".mpd", "mpd.conf", NULL);
	g_assert_cmpstr(paths[2], ==, expected);
	g_assert_cmpstr(paths[3], ==, "/etc/mpd.conf");

	/* MPD falls back to ~/.config for an XDG_CONFIG_HOME it cannot use. */
	g_setenv("XDG_CONFIG_HOME", "relative/folder", TRUE);
	g_strfreev(paths);
	paths = bridge_mpd_conf_candidates();
	g_free(expected);
	expected = g_build_filename(home, ".config", "mpd", "mpd.conf", NULL);
	g_assert_cmpstr(paths[0], ==, expected);

	g_setenv("XDG_CONFIG_HOME", "/no/such/folder", TRUE);
	g_strfreev(paths);
	paths = bridge_mpd_conf_candidates();
	g_assert_cmpstr(paths[0], ==, expected);

	g_unsetenv("XDG_CONFIG_HOME");
	g_strfreev(paths);
	paths = bridge_mpd_conf_candidates();
	g_assert_cmpstr(paths[0], ==, expected);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add_func("/mpd-conf/debian", test_debian);
	g_test_add_func("/mpd-conf/none", test_none);
	g_test_add_func("/mpd-conf/include/relative", test_include_relative);
	g_test_add_func("/mpd-conf/include/absolute", test_include_absolute);
	g_test_add_func("/mpd-conf/include/optional", test_include_optional);
	g_test_add_func("/mpd-conf/include/loop", test_include_loop);
	g_test_add_func("/mpd-conf/home/ours", test_home);
	g_test_add_func("/mpd-conf/home/user", test_home_of_user);
	g_test_add_func("/mpd-conf/block", test_block);
	g_test_add_func("/mpd-conf/syntax/comments-and-escapes",
	                test_comments_and_escapes);
	g_test_add_func("/mpd-conf/syntax/bad", test_bad_syntax);
	g_test_add_func("/mpd-conf/last-wins", test_last_wins);
	g_test_add_func("/mpd-conf/not-absolute", test_not_absolute);
	g_test_add_func("/mpd-conf/candidates", test_candidates);
	return g_test_run();
}
