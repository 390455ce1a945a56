/* Feed dates: RFC 822/2822 and ISO 8601 to Unix seconds. */
#ifndef FEED_DATE_PRIVATE_H
#define FEED_DATE_PRIVATE_H

#include <glib.h>

/*
 * Parses a date as feeds write it: RFC 822/2822 in its real-world forms
 * (no weekday, two-digit years, named, military and missing zones, extra
 * spaces) or ISO 8601 / RFC 3339 (`YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`,
 * no zone meaning UTC). Returns Unix seconds (UTC), or 0 when @text is NULL,
 * empty or unparseable.
 */
G_GNUC_INTERNAL
gint64
feed_date_parse(const char *text);

#endif
