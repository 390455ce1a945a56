/*
 * Names and disk space for downloaded episodes. GLib has no name
 * sanitiser for file systems other than the one it runs on, and a feed's
 * title must make a name that FAT, exFAT and SMB shares take too, as a
 * music folder is often on one of those: hence the hand-written rules.
 */
#include "core/download-files.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/statvfs.h>

/* The extension of each MIME type a podcast enclosure has. */
static const struct {
	const char *type;
	const char *extension;
} types[] = {
	{ "audio/mpeg", "mp3" },       { "audio/mp3", "mp3" },
	{ "audio/x-mpeg", "mp3" },     { "audio/mpeg3", "mp3" },
	{ "audio/x-mp3", "mp3" },      { "audio/mp4", "m4a" },
	{ "audio/x-m4a", "m4a" },      { "audio/m4a", "m4a" },
	{ "audio/aac", "aac" },        { "audio/x-aac", "aac" },
	{ "audio/ogg", "ogg" },        { "audio/vorbis", "ogg" },
	{ "audio/opus", "opus" },      { "audio/flac", "flac" },
	{ "audio/x-flac", "flac" },    { "audio/wav", "wav" },
	{ "audio/x-wav", "wav" },      { "audio/wave", "wav" },
	{ "audio/webm", "webm" },      { "video/mp4", "mp4" },
	{ "video/x-m4v", "m4v" },      { "video/webm", "webm" },
	{ "audio/x-matroska", "mka" },
};

/* Extensions taken from a URL's path as they are. */
static const char *const known_extensions[] = {
	"mp3", "m4a", "m4b", "aac",  "ogg", "oga", "opus", "flac",
	"wav", "mp4", "m4v", "webm", "mka", "mkv", NULL,
};

/* Names Windows keeps for devices, whatever their extension. */
static gboolean
is_reserved(const char *name)
{
	static const char *const reserved[] = { "CON", "PRN", "AUX", "NUL",
		                                NULL };
	gsize stem = strcspn(name, ".");

	for (guint i = 0; reserved[i] != NULL; i++)
		if (stem == 3 && g_ascii_strncasecmp(name, reserved[i], 3) == 0)
			return TRUE;
	return stem == 4 &&
	       (g_ascii_strncasecmp(name, "COM", 3) == 0 ||
	        g_ascii_strncasecmp(name, "LPT", 3) == 0) &&
	       g_ascii_isdigit(name[3]);
}

char *
bridge_download_safe_name(const char *text, gsize max_bytes)
{
	g_autofree char *valid = NULL;
	GString *name;
	gboolean blank = FALSE;

	if (text == NULL)
		return NULL;
	valid = g_utf8_make_valid(text, -1);
	name = g_string_new(NULL);
	for (const char *p = valid; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);
		gsize length = (gsize)(g_utf8_next_char(p) - p);

		if (c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x2028 ||
		    c == 0x2029 || strchr("/\\:*?\"<>|", (int)c) != NULL ||
		    g_unichar_isspace(c)) {
			blank = name->len > 0;
			continue;
		}
		/* Leading dots would hide the file, dashes make options. */
		if (name->len == 0 && (c == '.' || c == '-'))
			continue;
		if (blank && name->len + 1 + length > max_bytes)
			break;
		if (blank)
			g_string_append_c(name, ' ');
		blank = FALSE;
		if (name->len + length > max_bytes)
			break;
		g_string_append_len(name, p, (gssize)length);
	}
	while (name->len > 0 && (name->str[name->len - 1] == '.' ||
	                         name->str[name->len - 1] == ' '))
		g_string_truncate(name, name->len - 1);
	if (name->len == 0) {
		g_string_free(name, TRUE);
		return NULL;
	}
	if (is_reserved(name->str))
		g_string_prepend_c(name, '_');
	return g_string_free(name, FALSE);
}

const char *
bridge_download_extension(const char *type, const char *url)
{
	g_autofree char *path = NULL;
	const char *dot;

	if (type != NULL) {
		gsize length = strcspn(type, "; \t");

		for (guint i = 0; i < G_N_ELEMENTS(types); i++)
			if (strlen(types[i].type) == length &&
			    g_ascii_strncasecmp(type, types[i].type, length) ==
			            0)
				return types[i].extension;
	}
	if (url != NULL) {
		g_autoptr(GUri) uri = g_uri_parse(url, G_URI_FLAGS_NONE, NULL);

		if (uri != NULL)
			path = g_uri_unescape_string(g_uri_get_path(uri), NULL);
	}
	dot = path != NULL ? strrchr(path, '.') : NULL;
	if (dot != NULL && strchr(dot, '/') == NULL)
		for (guint i = 0; known_extensions[i] != NULL; i++)
			if (g_ascii_strcasecmp(dot + 1, known_extensions[i]) ==
			    0)
				return known_extensions[i];
	return "mp3";
}

/* Room for the date, the extension, a " (99)" and a hiding dot. */
#define MAX_NAME_BYTES 200

char *
bridge_download_file_name(const char *title, gint64 published,
                          const char *extension, const char *fallback)
{
	g_autofree char *safe =
	        bridge_download_safe_name(title, MAX_NAME_BYTES);
	g_autofree char *date = NULL;

	if (published > 0) {
		g_autoptr(GDateTime) when =
		        g_date_time_new_from_unix_utc(published);

		date = when != NULL ? g_date_time_format(when, "%Y-%m-%d")
		                    : NULL;
	}
	return g_strdup_printf("%s%s%s.%s", date != NULL ? date : "",
	                       date != NULL ? " " : "",
	                       safe != NULL ? safe : fallback, extension);
}

gboolean
bridge_download_free_space(const char *path, guint64 *bytes, GError **error)
{
	struct statvfs fs;

	if (statvfs(path, &fs) != 0) {
		int saved = errno;

		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved),
		            "cannot tell the free space of %s: %s", path,
		            g_strerror(saved));
		return FALSE;
	}
	*bytes = (guint64)fs.f_bavail * (guint64)fs.f_frsize;
	return TRUE;
}

static guint
remove_hidden(const char *folder)
{
	g_autoptr(GDir) dir = g_dir_open(folder, 0, NULL);
	const char *name;
	guint removed = 0;

	if (dir == NULL)
		return 0;
	while ((name = g_dir_read_name(dir)) != NULL) {
		g_autofree char *path = NULL;

		if (name[0] != '.')
			continue;
		path = g_build_filename(folder, name, NULL);
		if (!g_file_test(path, G_FILE_TEST_IS_DIR) &&
		    g_unlink(path) == 0)
			removed++;
	}
	return removed;
}

guint
bridge_download_remove_partials(const char *directory)
{
	g_autoptr(GDir) dir = g_dir_open(directory, 0, NULL);
	const char *name;
	guint removed = 0;

	if (dir == NULL)
		return 0;
	while ((name = g_dir_read_name(dir)) != NULL) {
		g_autofree char *path = g_build_filename(directory, name, NULL);

		/* Podcast folders only: never a link to somewhere else. */
		if (name[0] != '.' && g_file_test(path, G_FILE_TEST_IS_DIR) &&
		    !g_file_test(path, G_FILE_TEST_IS_SYMLINK))
			removed += remove_hidden(path);
	}
	return removed;
}
