#include "core/answer.h"

char *
bridge_answer_local_time(gint64 unix_seconds, const char *format)
{
	g_autoptr(GDateTime) utc = NULL;
	g_autoptr(GDateTime) local = NULL;

	if (unix_seconds <= 0)
		return g_strdup("-");
	utc = g_date_time_new_from_unix_utc(unix_seconds);
	local = utc != NULL ? g_date_time_to_local(utc) : NULL;
	return local != NULL ? g_date_time_format(local, format)
	                     : g_strdup("-");
}

void
bridge_json_member_string(JsonBuilder *builder, const char *name,
                          const char *value)
{
	json_builder_set_member_name(builder, name);
	if (value != NULL)
		json_builder_add_string_value(builder, value);
	else
		json_builder_add_null_value(builder);
}

void
bridge_json_member_int(JsonBuilder *builder, const char *name, gint64 value)
{
	json_builder_set_member_name(builder, name);
	json_builder_add_int_value(builder, value);
}

void
bridge_json_write(const Bridge *bridge, JsonBuilder *builder, GString *out)
{
	g_autoptr(JsonGenerator) generator = json_generator_new();
	g_autoptr(JsonNode) root = json_builder_get_root(builder);
	g_autofree char *text = NULL;

	json_generator_set_root(generator, root);
	json_generator_set_pretty(generator, !bridge->daemon);
	text = json_generator_to_data(generator, NULL);
	g_string_append(out, text);
}
