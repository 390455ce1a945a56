/* A password kept in a file of its own, which only its owner may read. */
#ifndef BRIDGE_SECRET_FILE_H
#define BRIDGE_SECRET_FILE_H

#include <glib.h>

/*
 * Reads the secret in @path: one line, its line break left out. The file
 * must be a regular file of the effective user's that no group or other
 * can read or write. Returns a new string, or NULL with @error
 * (G_KEY_FILE_ERROR_INVALID_VALUE) starting with @path and saying why, and
 * what to run; the secret is never in the message.
 */
char *
bridge_secret_file_read(const char *path, GError **error);

#endif
