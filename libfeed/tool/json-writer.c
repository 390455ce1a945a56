/*
 * JSON written by hand rather than through json-glib: json-glib builds a
 * tree before it writes, and feedtool must write each episode as it is
 * parsed, in memory that does not grow with the feed. Escaping here is the
 * whole of RFC 8259's rules for strings.
 */
#include "json-writer.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define FLUSH_AT  (64 * 1024)
#define MAX_DEPTH 32

struct JsonOut {
	FILE *out;
	GString *buffer;
	/* Per open object or array: has it a member yet. */
	gboolean has_member[MAX_DEPTH];
	guint depth;
	gboolean after_key;
	int write_errno; /* 0 until a write fails */
};

JsonOut *
json_out_new(FILE *out)
{
	JsonOut *json = g_new0(JsonOut, 1);

	json->out = out;
	json->buffer = g_string_sized_new(FLUSH_AT + 4096);
	return json;
}

static void
flush(JsonOut *json)
{
	if (json->buffer->len == 0)
		return;
	if (fwrite(json->buffer->str, 1, json->buffer->len, json->out) !=
	            json->buffer->len &&
	    json->write_errno == 0)
		json->write_errno = errno != 0 ? errno : EIO;
	g_string_truncate(json->buffer, 0);
}

gboolean
json_out_finish(JsonOut *json, GError **error)
{
	int saved;

	g_string_append_c(json->buffer, '\n');
	flush(json);
	if (fflush(json->out) != 0 && json->write_errno == 0)
		json->write_errno = errno;
	saved = json->write_errno;
	g_string_free(json->buffer, TRUE);
	g_free(json);
	if (saved != 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved),
		            "cannot write the output: %s", g_strerror(saved));
		return FALSE;
	}
	return TRUE;
}

/* The comma before a value, unless it follows a key or opens a container. */
static void
separate(JsonOut *json)
{
	if (json->after_key) {
		json->after_key = FALSE;
		return;
	}
	if (json->depth > 0) {
		if (json->has_member[json->depth - 1])
			g_string_append_c(json->buffer, ',');
		json->has_member[json->depth - 1] = TRUE;
	}
}

static void
open_container(JsonOut *json, char bracket)
{
	separate(json);
	g_string_append_c(json->buffer, bracket);
	g_assert(json->depth < MAX_DEPTH);
	json->has_member[json->depth++] = FALSE;
}

static void
close_container(JsonOut *json, char bracket)
{
	g_assert(json->depth > 0);
	json->depth--;
	g_string_append_c(json->buffer, bracket);
	if (json->buffer->len >= FLUSH_AT)
		flush(json);
}

void
json_out_begin_object(JsonOut *json)
{
	open_container(json, '{');
}

void
json_out_end_object(JsonOut *json)
{
	close_container(json, '}');
}

void
json_out_begin_array(JsonOut *json)
{
	open_container(json, '[');
}

void
json_out_end_array(JsonOut *json)
{
	close_container(json, ']');
}

static void
append_escaped(GString *buffer, const char *value)
{
	const char *run = value;
	const char *p;

	g_string_append_c(buffer, '"');
	for (p = value; *p != '\0'; p++) {
		unsigned char c = (unsigned char)*p;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		g_string_append_len(buffer, run, p - run);
		run = p + 1;
		switch (c) {
		case '"':
			g_string_append(buffer, "\\\"");
			break;
		case '\\':
			g_string_append(buffer, "\\\\");
			break;
		case '\n':
			g_string_append(buffer, "\\n");
			break;
		case '\r':
			g_string_append(buffer, "\\r");
			break;
		case '\t':
			g_string_append(buffer, "\\t");
			break;
		default:
			g_string_append_printf(buffer, "\\u%04x", c);
			break;
		}
	}
	g_string_append_len(buffer, run, p - run);
	g_string_append_c(buffer, '"');
}

void
json_out_key(JsonOut *json, const char *key)
{
	separate(json);
	append_escaped(json->buffer, key);
	g_string_append_c(json->buffer, ':');
	json->after_key = TRUE;
}

void
json_out_string(JsonOut *json, const char *value)
{
	if (value == NULL) {
		json_out_null(json);
		return;
	}
	separate(json);
	append_escaped(json->buffer, value);
}

void
json_out_int(JsonOut *json, gint64 value)
{
	separate(json);
	g_string_append_printf(json->buffer, "%" G_GINT64_FORMAT, value);
}

void
json_out_double(JsonOut *json, double value)
{
	char buffer[G_ASCII_DTOSTR_BUF_SIZE];

	separate(json);
	/* JSON has no NaN or infinity, and needs a '.', whatever the locale. */
	if (!isfinite(value))
		value = 0;
	g_string_append(json->buffer,
	                g_ascii_formatd(buffer, sizeof buffer, "%.3f", value));
}

void
json_out_bool(JsonOut *json, gboolean value)
{
	separate(json);
	g_string_append(json->buffer, value ? "true" : "false");
}

void
json_out_null(JsonOut *json)
{
	separate(json);
	g_string_append(json->buffer, "null");
}

void
json_out_member_string(JsonOut *json, const char *key, const char *value)
{
	if (value == NULL || *value == '\0')
		return;
	json_out_key(json, key);
	json_out_string(json, value);
}
