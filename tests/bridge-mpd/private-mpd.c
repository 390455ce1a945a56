#include "private-mpd.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/prctl.h>

struct PrivateMpd {
	char *dir;         /* the temporary directory; deleted by _free */
	char *socket;      /* dir/socket */
	char *conf;        /* dir/mpd.conf */
	GSubprocess *proc; /* NULL while stopped */
};

PrivateMpd *
private_mpd_new(GError **error)
{
	g_autoptr(PrivateMpd) mpd = g_new0(PrivateMpd, 1);
	g_autofree char *conf = NULL;
	g_autofree char *music = NULL;
	g_autofree char *playlists = NULL;

	mpd->dir = g_dir_make_tmp("test-mpd-XXXXXX", error);
	if (mpd->dir == NULL)
		return NULL;
	mpd->socket = g_build_filename(mpd->dir, "socket", NULL);
	mpd->conf = g_build_filename(mpd->dir, "mpd.conf", NULL);
	music = g_build_filename(mpd->dir, "music", NULL);
	playlists = g_build_filename(mpd->dir, "playlists", NULL);
	g_mkdir(music, 0700);
	g_mkdir(playlists, 0700);
	/* MPD's config wants each block over several lines. */
	conf = g_strdup_printf("music_directory    \"%s\"\n"
	                       "playlist_directory \"%s\"\n"
	                       "db_file            \"%s/database\"\n"
	                       "state_file         \"%s/state\"\n"
	                       "sticker_file       \"%s/sticker.sql\"\n"
	                       "bind_to_address    \"%s\"\n"
	                       "auto_update        \"no\"\n"
	                       "zeroconf_enabled   \"no\"\n"
	                       "log_level          \"warning\"\n"
	                       "input {\n"
	                       "\tplugin \"curl\"\n"
	                       "}\n"
	                       "audio_output {\n"
	                       "\ttype \"null\"\n"
	                       "\tname \"null\"\n"
	                       "}\n",
	                       music, playlists, mpd->dir, mpd->dir, mpd->dir,
	                       mpd->socket);
	if (!g_file_set_contents(mpd->conf, conf, -1, error) ||
	    !private_mpd_start(mpd, error))
		return NULL;
	return g_steal_pointer(&mpd);
}

/*
 * A test that aborts must not leave MPD running: it would hold the test's
 * stderr open, and meson would wait for it.
 */
static void
die_with_parent(gpointer data)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
}

gboolean
private_mpd_start(PrivateMpd *mpd, GError **error)
{
	gint64 deadline = g_get_monotonic_time() + 5 * G_TIME_SPAN_SECOND;
	g_autofree char *program = g_find_program_in_path("mpd");
	g_autoptr(GSubprocessLauncher) launcher = NULL;

	g_return_val_if_fail(mpd->proc == NULL, FALSE);

	if (program == NULL) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
		            "mpd is not in PATH: install Debian's mpd package "
		            "(./build.sh test does)");
		return FALSE;
	}
	/* MPD logs to stderr; stdout carries the test's TAP. */
	launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
	g_subprocess_launcher_set_child_setup(launcher, die_with_parent, NULL,
	                                      NULL);
	mpd->proc = g_subprocess_launcher_spawn(launcher, error, program,
	                                        "--no-daemon", "--stderr",
	                                        mpd->conf, NULL);
	if (mpd->proc == NULL)
		return FALSE;
	/* The greeting comes after about 0.12 s. */
	for (;;) {
		struct mpd_connection *conn =
		        mpd_connection_new(mpd->socket, 0, 1000);
		gboolean up = conn != NULL && mpd_connection_get_error(conn) ==
		                                      MPD_ERROR_SUCCESS;

		if (conn != NULL)
			mpd_connection_free(conn);
		if (up)
			return TRUE;
		if (g_get_monotonic_time() > deadline) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
			            "mpd did not answer on %s within 5 s",
			            mpd->socket);
			private_mpd_stop(mpd);
			return FALSE;
		}
		g_usleep(20 * G_TIME_SPAN_MILLISECOND);
	}
}

void
private_mpd_stop(PrivateMpd *mpd)
{
	if (mpd->proc == NULL)
		return;
	g_subprocess_send_signal(mpd->proc, SIGTERM);
	g_subprocess_wait(mpd->proc, NULL, NULL);
	g_clear_object(&mpd->proc);
}

const char *
private_mpd_get_socket(const PrivateMpd *mpd)
{
	return mpd->socket;
}

const char *
private_mpd_get_dir(const PrivateMpd *mpd)
{
	return mpd->dir;
}

struct mpd_connection *
private_mpd_connect(const PrivateMpd *mpd)
{
	struct mpd_connection *conn = mpd_connection_new(mpd->socket, 0, 5000);

	g_assert_nonnull(conn);
	if (mpd_connection_get_error(conn) != MPD_ERROR_SUCCESS)
		g_error("cannot connect to the private MPD at %s: %s",
		        mpd->socket, mpd_connection_get_error_message(conn));
	return conn;
}

static void
remove_tree(const char *path)
{
	GDir *dir = g_dir_open(path, 0, NULL);
	const char *name;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree char *child = g_build_filename(path, name, NULL);

		if (g_file_test(child, G_FILE_TEST_IS_DIR) &&
		    !g_file_test(child, G_FILE_TEST_IS_SYMLINK))
			remove_tree(child);
		else
			g_unlink(child);
	}
	if (dir != NULL)
		g_dir_close(dir);
	g_rmdir(path);
}

void
private_mpd_free(PrivateMpd *mpd)
{
	if (mpd == NULL)
		return;
	private_mpd_stop(mpd);
	if (mpd->dir != NULL)
		remove_tree(mpd->dir);
	g_free(mpd->dir);
	g_free(mpd->socket);
	g_free(mpd->conf);
	g_free(mpd);
}
