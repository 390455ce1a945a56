/* A streaming JSON writer: values go out as they come, nothing is kept. */
#ifndef FEEDTOOL_JSON_WRITER_H
#define FEEDTOOL_JSON_WRITER_H

#include <glib.h>
#include <stdio.h>

typedef struct JsonOut JsonOut;

/* Writes to @out, which stays the caller's; flushes when freed. */
JsonOut *
json_out_new(FILE *out);

/* Flushes and frees; returns FALSE with @error set when writing failed. */
gboolean
json_out_finish(JsonOut *json, GError **error);

void
json_out_begin_object(JsonOut *json);

void
json_out_end_object(JsonOut *json);

void
json_out_begin_array(JsonOut *json);

void
json_out_end_array(JsonOut *json);

/* The key of the next member of the open object. */
void
json_out_key(JsonOut *json, const char *key);

/* A string, or null when @value is NULL. @value must be valid UTF-8. */
void
json_out_string(JsonOut *json, const char *value);

void
json_out_int(JsonOut *json, gint64 value);

void
json_out_double(JsonOut *json, double value);

void
json_out_bool(JsonOut *json, gboolean value);

void
json_out_null(JsonOut *json);

/* The member @key with a string value, left out when @value is NULL or "". */
void
json_out_member_string(JsonOut *json, const char *key, const char *value);

#endif
