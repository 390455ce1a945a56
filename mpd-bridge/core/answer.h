/*
 * What the commands' answers share: times as a person reads them, and
 * the few steps every JSON answer (`list --json`, `episodes --json`,
 * `downloads --json`, `search --json`) takes with json-glib's builder.
 */
#ifndef BRIDGE_CORE_ANSWER_H
#define BRIDGE_CORE_ANSWER_H

#include "core/bridge.h"

#include <json-glib/json-glib.h>

/* @unix_seconds in local time, as @format says; "-" when unknown. */
char *
bridge_answer_local_time(gint64 unix_seconds, const char *format);

/* Adds member @name: @value, or null when @value is NULL. */
void
bridge_json_member_string(JsonBuilder *builder, const char *name,
                          const char *value);

/* Adds member @name: @value. */
void
bridge_json_member_int(JsonBuilder *builder, const char *name, gint64 value);

/*
 * Appends what @builder built to @out: pretty on the command line, one
 * line from the daemon, since an answer over MPD's channel is one line.
 */
void
bridge_json_write(const Bridge *bridge, JsonBuilder *builder, GString *out);

#endif
