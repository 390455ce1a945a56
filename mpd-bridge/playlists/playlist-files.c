/*
 * Titled playlists as files in MPD's playlist_directory. Whether MPD reads
 * a directory is not taken on trust: a hidden probe playlist is written
 * there and asked for through MPD, so a stale configuration file or a
 * second MPD on the machine never leaves playlists unseen.
 */
#include "playlists/playlist-files.h"

#include "downloads/downloads.h"
#include "mpd/mpd-conf.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct BridgePlaylistFiles {
	char *directory;     /* MPD's playlist_directory, writable, and read
	                        by the MPD we talk to; NULL: playlists go
	                        through the protocol */
	char *note;          /* why not, and what would help; NULL when
	                        directory is set or nothing was tried */
	GHashTable *written; /* playlist name -> its file's identity as
	                        written (inode, size, mtime); NULL: none */
	gboolean unsaid;     /* files written that clients were not told of */
};

static BridgePlaylistFiles *
files_of(Bridge *bridge)
{
	if (bridge->files == NULL)
		bridge->files = g_new0(BridgePlaylistFiles, 1);
	return bridge->files;
}

/* Hidden names: MPD lists them, but only for the moment they exist. */
#define PROBE_NAME  ".mpd-bridge-probe"
#define NOTIFY_NAME ".mpd-bridge-changed"
#define QUEUE_NAME  ".mpd-bridge-queue"
#define PROBE_URL   "http://127.0.0.1/mpd-bridge-probe.mp3"

/*
 * What MPD takes through its protocol (mpd/): a file holds no URL it
 * would refuse there, and no title longer than a tag.
 */
#define MAX_URL_BYTES   3900
#define MAX_TITLE_BYTES 1024

gboolean
bridge_playlist_files_enabled(const Bridge *bridge)
{
	return bridge->files != NULL && bridge->files->directory != NULL;
}

const char *
bridge_playlist_files_note(const Bridge *bridge)
{
	return bridge->files != NULL ? bridge->files->note : NULL;
}

char *
bridge_playlist_files_path(const char *directory, const char *name)
{
	g_autofree char *file = g_strconcat(name, ".m3u", NULL);

	return g_build_filename(directory, file, NULL);
}

/*
 * Text for one line of M3U, at most @max bytes of it: control characters
 * become spaces.
 */
static void
append_line_text(GString *out, const char *text, gsize max)
{
	gsize start = out->len;

	for (const char *p = text; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (out->len - start + (g_utf8_next_char(p) - p) > max)
			break;
		if (c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x2028 ||
		    c == 0x2029)
			g_string_append_c(out, ' ');
		else
			g_string_append_len(out, p, g_utf8_next_char(p) - p);
	}
}

gboolean
bridge_playlist_files_fits(const Bridge *bridge, const BridgeEpisode *episode)
{
	g_autofree char *uri = bridge_downloads_uri(bridge, episode);

	return (bridge_downloads_is_file(uri) ||
	        g_ascii_strncasecmp(uri, "http://", 7) == 0 ||
	        g_ascii_strncasecmp(uri, "https://", 8) == 0) &&
	       strlen(uri) <= MAX_URL_BYTES;
}

GString *
bridge_playlist_files_m3u(const Bridge *bridge, const char *name,
                          GPtrArray *episodes)
{
	GString *out = g_string_new("#EXTM3U\n");

	if (name != NULL) {
		g_string_append(out, "#PLAYLIST:");
		append_line_text(out, name, G_MAXSIZE);
		g_string_append_c(out, '\n');
	}
	for (guint i = 0; i < episodes->len; i++) {
		const BridgeEpisode *episode = episodes->pdata[i];
		g_autofree char *uri = NULL;

		if (!bridge_playlist_files_fits(bridge, episode))
			continue;
		uri = bridge_downloads_uri(bridge, episode);
		g_string_append_printf(out, "#EXTINF:%" G_GINT64_FORMAT ",",
		                       episode->duration > 0 ? episode->duration
		                                             : -1);
		append_line_text(out, episode->title, MAX_TITLE_BYTES);
		g_string_append_c(out, '\n');
		append_line_text(out, uri, G_MAXSIZE);
		g_string_append_c(out, '\n');
	}
	return out;
}

static char *
identity_of(const char *path)
{
	GStatBuf st;

	if (g_stat(path, &st) != 0)
		return NULL;
	return g_strdup_printf(
	        "%llu:%lld:%lld.%09ld", (unsigned long long)st.st_ino,
	        (long long)st.st_size, (long long)st.st_mtim.tv_sec,
	        (long)st.st_mtim.tv_nsec);
}

static gboolean
write_file(const char *path, const char *data, gsize length, char **identity,
           GError **error)
{
	g_autofree char *tmp = g_strconcat(path, ".XXXXXX", NULL);
	int fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0644);
	int saved;

	if (fd < 0)
		goto failed;
	while (length > 0) {
		ssize_t n = write(fd, data, length);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto failed_open;
		data += n;
		length -= (gsize)n;
	}
	if (fchmod(fd, 0644) != 0 || close(fd) != 0) {
		fd = -1;
		goto failed_open;
	}
	/*
	 * The file's identity before it is in place: once renamed, MPD may
	 * write over it (a client's edit), and that edit must not be taken
	 * for ours. A rename keeps the inode, size and times.
	 */
	if (identity != NULL)
		*identity = identity_of(tmp);
	if (g_rename(tmp, path) != 0) {
		fd = -1;
		goto failed_open;
	}
	return TRUE;

failed_open:
	saved = errno;
	if (fd >= 0)
		close(fd);
	g_unlink(tmp);
	errno = saved;
failed:
	saved = errno;
	g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved),
	            "cannot write %s: %s", path, g_strerror(saved));
	return FALSE;
}

/*
 * Whole or not at all (a temporary file renamed over the old one), but
 * not fsync()ed, unlike g_file_set_contents_full(): the playlists are
 * made again from the state each time MPD connects, and a thousand
 * fsyncs on a Raspberry Pi's SD card take tens of seconds. Mode 0644, so
 * that MPD reads files another user wrote.
 */
gboolean
bridge_playlist_files_write_path(const char *path, const char *data,
                                 gsize length, GError **error)
{
	return write_file(path, data, length, NULL, error);
}

/* What tells our file from one written after it. */
gboolean
bridge_playlist_files_write(Bridge *bridge, const char *name,
                            GPtrArray *episodes, GError **error)
{
	BridgePlaylistFiles *files = files_of(bridge);
	g_autofree char *path = NULL;
	g_autofree char *identity = NULL;
	g_autoptr(GString) text = NULL;

	g_return_val_if_fail(files->directory != NULL, FALSE);

	path = bridge_playlist_files_path(files->directory, name);
	if (files->written == NULL)
		files->written = g_hash_table_new_full(g_str_hash, g_str_equal,
		                                       g_free, g_free);
	files->unsaid = TRUE;
	if (episodes->len == 0) {
		g_hash_table_remove(files->written, name);
		if (g_unlink(path) != 0 && errno != ENOENT) {
			int saved = errno;

			g_set_error(error, G_FILE_ERROR,
			            g_file_error_from_errno(saved),
			            "cannot delete %s: %s", path,
			            g_strerror(saved));
			return FALSE;
		}
		return TRUE;
	}
	text = bridge_playlist_files_m3u(bridge, name, episodes);
	if (!write_file(path, text->str, text->len, &identity, error)) {
		g_hash_table_remove(files->written, name);
		return FALSE;
	}
	g_hash_table_insert(files->written, g_strdup(name),
	                    g_steal_pointer(&identity));
	return TRUE;
}

void
bridge_playlist_files_forget(Bridge *bridge, const char *name)
{
	if (bridge->files != NULL && bridge->files->written != NULL)
		g_hash_table_remove(bridge->files->written, name);
}

static gboolean
edited(const Bridge *bridge, const char *name, const char *as_written)
{
	g_autofree char *path =
	        bridge_playlist_files_path(bridge->files->directory, name);
	g_autofree char *now = identity_of(path);

	return g_strcmp0(now, as_written) != 0;
}

gboolean
bridge_playlist_files_edited(Bridge *bridge, const char *name)
{
	const char *as_written;

	if (bridge->files == NULL || bridge->files->directory == NULL ||
	    bridge->files->written == NULL)
		return FALSE;
	as_written = g_hash_table_lookup(bridge->files->written, name);
	return as_written != NULL && edited(bridge, name, as_written);
}

gboolean
bridge_playlist_files_any_edited(Bridge *bridge)
{
	GHashTableIter iter;
	gpointer name, as_written;

	if (bridge->files == NULL || bridge->files->directory == NULL ||
	    bridge->files->written == NULL)
		return FALSE;
	g_hash_table_iter_init(&iter, bridge->files->written);
	while (g_hash_table_iter_next(&iter, &name, &as_written))
		if (edited(bridge, name, as_written))
			return TRUE;
	return FALSE;
}

/*
 * A playlist deleted through MPD: MPD tells every client. It is a link
 * to nothing, which MPD deletes but never lists (it lists only what it
 * can open), so that no client sees it come and go: one that lists
 * playlists just then would ask for one that is gone.
 */
void
bridge_playlist_files_notify(Bridge *bridge)
{
	BridgePlaylistFiles *files = files_of(bridge);
	g_autofree char *path = NULL;
	g_autoptr(GError) error = NULL;

	if (files->directory == NULL || !files->unsaid || bridge->mpd == NULL ||
	    !bridge_mpd_is_connected(bridge->mpd))
		return;
	files->unsaid = FALSE;
	path = bridge_playlist_files_path(files->directory, NOTIFY_NAME);
	g_unlink(path);
	if (symlink(NOTIFY_NAME ".nothing", path) != 0) {
		g_debug("cannot tell clients that playlists changed: %s: %s",
		        path, g_strerror(errno));
		return;
	}
	if (!bridge_mpd_delete_playlist(bridge->mpd, NOTIFY_NAME, &error)) {
		g_debug("cannot tell clients that playlists changed: %s",
		        error->message);
		g_unlink(path);
	}
}

gboolean
bridge_playlist_files_load_one(Bridge *bridge, const BridgeEpisode *episode,
                               GError **error)
{
	g_autofree char *path = NULL;
	g_autoptr(GPtrArray) one = g_ptr_array_new();
	g_autoptr(GString) text = NULL;
	gboolean ok;

	g_return_val_if_fail(bridge_playlist_files_enabled(bridge), FALSE);

	g_ptr_array_add(one, (gpointer)episode);
	text = bridge_playlist_files_m3u(bridge, NULL, one);
	path = bridge_playlist_files_path(bridge->files->directory, QUEUE_NAME);
	if (!bridge_playlist_files_write_path(path, text->str, text->len,
	                                      error))
		return FALSE;
	ok = bridge_mpd_load_playlist(bridge->mpd, QUEUE_NAME, error);
	g_unlink(path);
	return ok;
}

/* Where MPD reads playlists by the configuration; sets *@note if unknown. */
static char *
find_directory(Bridge *bridge, char **note)
{
	g_auto(GStrv) candidates = NULL;
	char *told;

	if (bridge->config->playlist_directory != NULL)
		return g_strdup(bridge->config->playlist_directory);
	/* MPD 0.24 says, to a client on its local socket. */
	told = bridge_mpd_config_value(bridge->mpd, "playlist_directory");
	if (told != NULL)
		return told;
	if (!bridge_mpd_address_is_local(&bridge->config->mpd)) {
		*note = g_strdup(
		        "playlists have no titles: MPD runs on another "
		        "machine; set [bridge] playlist_directory if this "
		        "one can write where that MPD reads playlists");
		return NULL;
	}
	candidates = bridge_mpd_conf_candidates();
	for (guint i = 0; candidates[i] != NULL; i++) {
		g_autoptr(GError) error = NULL;
		char *directory;

		if (!g_file_test(candidates[i], G_FILE_TEST_EXISTS))
			continue;
		directory = bridge_mpd_conf_directory(
		        candidates[i], "playlist_directory", &error);
		if (directory == NULL)
			*note = g_strdup_printf(
			        "playlists have no titles: %s; set [bridge] "
			        "playlist_directory to where MPD reads "
			        "playlists",
			        error != NULL ? error->message
			                      : "MPD's configuration sets no "
			                        "playlist_directory");
		return directory;
	}
	*note = g_strdup("playlists have no titles: MPD's configuration file "
	                 "was not found; set [bridge] playlist_directory to "
	                 "where MPD reads playlists");
	return NULL;
}

/* Whether MPD reads playlists from @directory: it sees the probe. */
static gboolean
probe(Bridge *bridge, const char *directory, char **note)
{
	g_autofree char *path =
	        bridge_playlist_files_path(directory, PROBE_NAME);
	g_autofree char *user = g_strdup(g_get_user_name());
	g_autoptr(GError) error = NULL;
	const char *text = "#EXTM3U\n#EXTINF:1,probe\n" PROBE_URL "\n";
	guint length = 0;
	gboolean seen;

	if (!g_file_test(directory, G_FILE_TEST_IS_DIR)) {
		*note = g_strdup_printf(
		        "playlists have no titles: %s is no directory; set "
		        "[bridge] playlist_directory to MPD's "
		        "playlist_directory",
		        directory);
		return FALSE;
	}
	if (!bridge_playlist_files_write_path(path, text, strlen(text),
	                                      &error)) {
		*note = g_strdup_printf(
		        "playlists have no titles: %s; run mpd-bridge as "
		        "MPD's own user, or let user %s write in %s",
		        error->message, user, directory);
		return FALSE;
	}
	seen = bridge_mpd_playlist_length(bridge->mpd, PROBE_NAME, &length,
	                                  &error) &&
	       length == 1;
	/* Through MPD, so its clients forget the probe at once. */
	if (!seen || !bridge_mpd_delete_playlist(bridge->mpd, PROBE_NAME, NULL))
		g_unlink(path);
	if (!seen && bridge_mpd_is_connected(bridge->mpd))
		*note = g_strdup_printf(
		        "playlists have no titles: MPD does not read "
		        "playlists from %s; set [bridge] playlist_directory "
		        "to MPD's playlist_directory",
		        directory);
	return seen;
}

void
bridge_playlist_files_detect(Bridge *bridge)
{
	BridgePlaylistFiles *files = files_of(bridge);
	g_autofree char *note = NULL;
	g_autofree char *directory = NULL;

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd))
		return;
	directory = find_directory(bridge, &note);
	if (directory != NULL && !probe(bridge, directory, &note))
		g_clear_pointer(&directory, g_free);
	if (directory != NULL && g_strcmp0(directory, files->directory) != 0 &&
	    bridge->daemon)
		g_message("writing playlists with titles into %s", directory);
	if (note != NULL && g_strcmp0(note, files->note) != 0 && bridge->daemon)
		g_message("%s", note);
	if (g_strcmp0(directory, files->directory) != 0 &&
	    files->written != NULL)
		g_hash_table_remove_all(files->written);
	g_free(files->directory);
	files->directory = g_steal_pointer(&directory);
	g_free(files->note);
	files->note = g_steal_pointer(&note);
}

void
bridge_playlist_files_clear(Bridge *bridge)
{
	BridgePlaylistFiles *files = bridge->files;

	if (files == NULL)
		return;
	g_free(files->directory);
	g_free(files->note);
	g_clear_pointer(&files->written, g_hash_table_unref);
	g_free(files);
	bridge->files = NULL;
}
