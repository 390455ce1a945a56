/* Feed dates: RFC 822/2822 and ISO 8601 to Unix seconds. */
#ifndef FEED_DATE_PRIVATE_H
#define FEED_DATE_PRIVATE_H

#include <glib.h>

/*
 * Parses a date as feeds write it (feed-json.md rule 6):
 *
 * - RFC 822/2822 exactly as Python's email.utils.parsedate_tz() reads it:
 *   optional weekday (short or long, comma optional), 1- or 2-digit day,
 *   month names short or long in any case, 2-digit years (above 68 is 19yy,
 *   else 20yy), optional seconds, numeric zones, the names UT, UTC, GMT, Z,
 *   AST/ADT, EST/EDT, CST/CDT, MST/MDT and PST/PDT, extra spaces and words
 *   after the zone. Missing and unknown zones (military letters included)
 *   mean UTC. Beyond Python, "+HH:MM" zones count and a long weekday needs
 *   no comma.
 * - ISO 8601 / RFC 3339 through GDateTime: `YYYY-MM-DDTHH:MM:SS` then
 *   nothing (UTC), `Z` or `±HH:MM` (also `±HHMM`, `±HH`), with any fraction
 *   dropped, T and Z in either case, a space allowed for the T and before
 *   the zone. Like podcastparser, anything else after the seconds is
 *   ignored, and a date without a time is no date (0).
 *
 * Fields out of range carry over as in Python (31 Feb is 3 Mar), years
 * outside 1 to 9999 give 0. Dates before 1970 are negative. Locale-free,
 * thread-safe and allocation-free for RFC 822 dates.
 *
 * Returns Unix seconds (UTC), or 0 when @text is NULL, empty or
 * unparseable.
 */
G_GNUC_INTERNAL
gint64
feed_date_parse(const char *text);

#endif
