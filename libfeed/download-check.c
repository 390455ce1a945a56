/*
 * What a response says of the file it carries: whether it is a web page
 * or a text rather than audio.
 */
#include "download-private.h"

#include <string.h>

gboolean
feed_download_looks_like_html(const char *data, gsize length)
{
	static const char *const starts[] = { "<!doctype html", "<html" };
	gsize i = 0;

	if (length >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	while (i < length && g_ascii_isspace(data[i]))
		i++;
	for (guint k = 0; k < G_N_ELEMENTS(starts); k++) {
		gsize n = strlen(starts[k]);

		if (length - i >= n &&
		    g_ascii_strncasecmp(data + i, starts[k], n) == 0)
			return TRUE;
	}
	return FALSE;
}

gboolean
feed_download_is_text_type(const char *content_type)
{
	return content_type != NULL &&
	       g_ascii_strncasecmp(content_type, "text/", 5) == 0;
}
