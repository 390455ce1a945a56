#include "state/keyfile.h"

#include <string.h>

char *
bridge_key_file_get_string(GKeyFile *key_file, const char *group,
                           const char *key, GError **error)
{
	g_autofree char *raw =
	        g_key_file_get_value(key_file, group, key, error);

	if (raw == NULL)
		return NULL;
	for (const char *p = raw; *p != '\0'; p++) {
		if (*p != '\\')
			continue;
		p++;
		if (*p == '\0' || strchr("sntr\\", *p) == NULL) {
			g_set_error(error, G_KEY_FILE_ERROR,
			            G_KEY_FILE_ERROR_INVALID_VALUE,
			            "[%s] %s has a backslash that is none of "
			            "\\s \\n \\t \\r \\\\",
			            group, key);
			return NULL;
		}
	}
	return g_key_file_get_string(key_file, group, key, error);
}
