/*
 * The files of downloaded episodes: their names, made safe for every file
 * system whatever a feed says, and the disk they are on. Nothing here
 * knows MPD or the state.
 */
#ifndef BRIDGE_DOWNLOAD_FILES_H
#define BRIDGE_DOWNLOAD_FILES_H

#include <glib.h>

/*
 * @text as one file name component: control characters and the
 * characters some file system refuses (/ \ : * ? " < > |) become blanks,
 * blanks are joined, leading dots, dashes and blanks and trailing dots
 * and blanks go, a name Windows reserves (CON, NUL, COM1 …) gets a "_",
 * and it is cut at a character boundary to @max_bytes. NULL when nothing
 * is left.
 */
char *
bridge_download_safe_name(const char *text, gsize max_bytes);

/*
 * The extension (without the dot) for an enclosure of MIME type @type
 * (nullable) at @url: from the type when it is a known audio or video
 * type, else from the URL's path when it ends in a known one, else "mp3".
 */
const char *
bridge_download_extension(const char *type, const char *url);

/*
 * "YYYY-MM-DD TITLE.EXT" for an episode published at @published (Unix
 * seconds; 0 leaves the date out), its title cut to fit, or @fallback
 * when the title leaves nothing.
 */
char *
bridge_download_file_name(const char *title, gint64 published,
                          const char *extension, const char *fallback);

/*
 * The bytes free for an unprivileged user on the file system of @path,
 * or FALSE with @error.
 */
gboolean
bridge_download_free_space(const char *path, guint64 *bytes, GError **error);

/*
 * Removes what an interrupted run left in the podcast folders under
 * @directory: hidden files (transfers, partial files and their notes, and
 * files not yet tagged). Returns how many went.
 */
guint
bridge_download_remove_partials(const char *directory);

#endif
