/*
 * What a response says of the file it carries: the range it sends, the
 * validator to resume it with, and whether it is a web page or a text
 * rather than audio.
 */
#include "download-private.h"

#include <string.h>

static gboolean
parse_number(const char *start, const char *end, guint64 *value)
{
	g_autofree char *text = g_strndup(start, (gsize)(end - start));

	return end > start &&
	       g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT64 - 1, value,
	                                  NULL);
}

gboolean
feed_content_range_parse(const char *value, ContentRange *range)
{
	const char *slash;
	const char *dash;

	memset(range, 0, sizeof *range);
	if (value == NULL || g_ascii_strncasecmp(value, "bytes ", 6) != 0)
		return FALSE;
	value += 6;
	while (*value == ' ')
		value++;
	slash = strchr(value, '/');
	if (slash == NULL)
		return FALSE;
	if (strcmp(slash + 1, "*") != 0 &&
	    !parse_number(slash + 1, slash + 1 + strlen(slash + 1),
	                  &range->total))
		return FALSE;
	if (slash == value + 1 && *value == '*')
		return range->total != 0;
	dash = memchr(value, '-', (gsize)(slash - value));
	if (dash == NULL || !parse_number(value, dash, &range->first) ||
	    !parse_number(dash + 1, slash, &range->last) ||
	    range->last < range->first ||
	    (range->total != 0 && range->last >= range->total))
		return FALSE;
	range->satisfied = TRUE;
	return TRUE;
}

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

const char *
feed_download_pick_validator(const char *etag, const char *last_modified)
{
	if (etag != NULL && *etag == '"')
		return etag;
	if (last_modified != NULL && *last_modified != '\0')
		return last_modified;
	return NULL;
}
