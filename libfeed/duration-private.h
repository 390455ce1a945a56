/* Episode durations (itunes:duration, psc:chapter start). */
#ifndef FEED_DURATION_PRIVATE_H
#define FEED_DURATION_PRIVATE_H

#include <glib.h>

/*
 * Parses a duration (feed-json.md, `total_time`): `H:MM:SS`, `M:SS` or
 * `S`, where the first field has any number of digits and the others one
 * or two (`1:2:3` = 3723, `62:03` = 3723), each with an optional `.fraction`
 * that is dropped, or ISO 8601 `PT#H#M#S` (`P#D` and `P#DT…` too, a fraction
 * on the seconds only, designators in either case). Surrounding spaces are
 * ignored. No sign is accepted.
 *
 * Returns seconds, or 0 when @text is NULL, empty, negative, larger than
 * 2^53-1 or unparseable.
 */
G_GNUC_INTERNAL
gint64
feed_duration_parse(const char *text);

/*
 * The same, to the millisecond: the fraction's first three digits count
 * (`35:12.250` = 2112250). Returns milliseconds, 0 when unparseable.
 */
G_GNUC_INTERNAL
gint64
feed_duration_parse_ms(const char *text);

#endif
