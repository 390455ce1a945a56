#include "core/relay-url.h"

#include "core/download-files.h"

#include <string.h>

#define HOST_PREFIX "http://127.0.0.1:"
#define PATH_PREFIX "/episode/"

char *
bridge_relay_url_make(guint port, const char *id, const char *type,
                      const char *url)
{
	return g_strdup_printf(HOST_PREFIX "%u" PATH_PREFIX "%s.%s", port, id,
	                       bridge_download_extension(type, url));
}

/* Ids are the store's: letters and digits. */
static gboolean
is_id(const char *text, gsize length)
{
	if (length == 0 || length > 128)
		return FALSE;
	for (gsize i = 0; i < length; i++)
		if (!g_ascii_isalnum(text[i]))
			return FALSE;
	return TRUE;
}

char *
bridge_relay_url_episode(const char *uri, gboolean path_only)
{
	const char *path = uri, *dot;

	if (!path_only) {
		if (!g_str_has_prefix(uri, HOST_PREFIX))
			return NULL;
		path = uri + strlen(HOST_PREFIX);
		while (g_ascii_isdigit(*path))
			path++;
	}
	if (!g_str_has_prefix(path, PATH_PREFIX))
		return NULL;
	path += strlen(PATH_PREFIX);
	dot = strchr(path, '.');
	if (dot == NULL || !is_id(path, dot - path) ||
	    !is_id(dot + 1, strlen(dot + 1)))
		return NULL;
	return g_strndup(path, dot - path);
}
