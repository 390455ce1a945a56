/* GKeyFile, read without tripping over GLib's own escape handling. */
#ifndef BRIDGE_KEYFILE_H
#define BRIDGE_KEYFILE_H

#include <glib.h>

/*
 * g_key_file_get_string(), except that a value with a backslash that is
 * none of \s \n \t \r \\ is refused here, with G_KEY_FILE_ERROR_INVALID_VALUE:
 * GLib 2.74 sets its GError twice on a value with both a bad escape and a
 * backslash at its end, and logs a warning about itself.
 */
char *
bridge_key_file_get_string(GKeyFile *key_file, const char *group,
                           const char *key, GError **error);

#endif
