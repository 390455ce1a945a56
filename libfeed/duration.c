/* Episode durations (itunes:duration, psc:chapter start). */
#include "duration-private.h"

#include <string.h>

/* 2^53 - 1: the largest integer every JSON reader keeps exactly. */
#define DURATION_MAX G_GINT64_CONSTANT(9007199254740991)

/*
 * Reads ASCII digits at *@p, at least @min and at most @max of them (0 for
 * no limit), saturating just above DURATION_MAX so that huge values stay
 * huge without overflowing.
 */
static gboolean
read_number(const char **p, const char *end, gsize min, gsize max,
            gint64 *value)
{
	const char *s = *p;
	gint64 v = 0;

	while (s < end && g_ascii_isdigit(*s) &&
	       (max == 0 || (gsize)(s - *p) < max)) {
		if (v <= DURATION_MAX) {
			v = v * 10 + (*s - '0');
		}
		s++;
	}
	if ((gsize)(s - *p) < min) {
		return FALSE;
	}
	*p = s;
	*value = v;
	return TRUE;
}

/*
 * Skips a fraction ('.' and at least one digit). Its first three digits, as
 * milliseconds, go to *@ms; the rest is dropped.
 */
static void
skip_fraction(const char **p, const char *end, gint64 *ms)
{
	const char *s = *p;
	gint64 scale = 100;

	if (s < end && *s == '.' && s + 1 < end && g_ascii_isdigit(s[1])) {
		s++;
		*ms = 0;
		while (s < end && g_ascii_isdigit(*s)) {
			*ms += (*s - '0') * scale;
			scale /= 10;
			s++;
		}
		*p = s;
	}
}

/* Adds @count units of @unit seconds to *@total, or fails past the limit. */
static gboolean
add_units(gint64 *total, gint64 count, gint64 unit)
{
	if (count > (DURATION_MAX - *total) / unit) {
		return FALSE;
	}
	*total += count * unit;
	return TRUE;
}

/*
 * podcastparser's three regular expressions: (\d+)(:\d\d?){0,2}(\.\d+)?,
 * the first field being the largest unit. Its last resort, int(), would
 * also take "+5" and "-5"; the contract gives those 0.
 */
static gboolean
parse_clock(const char *p, const char *end, gint64 *seconds, gint64 *ms)
{
	gint64 fields[3];
	gsize n = 0;
	gint64 total = 0;

	if (!read_number(&p, end, 1, 0, &fields[n++])) {
		return FALSE;
	}
	while (n < G_N_ELEMENTS(fields) && p < end && *p == ':') {
		p++;
		if (!read_number(&p, end, 1, 2, &fields[n++])) {
			return FALSE;
		}
	}
	skip_fraction(&p, end, ms);
	if (p != end) {
		return FALSE;
	}
	for (gsize i = 0; i < n; i++) {
		if (!add_units(&total, fields[i], 1) ||
		    (i + 1 < n && !add_units(&total, total, 59))) {
			return FALSE;
		}
	}
	*seconds = total;
	return TRUE;
}

/*
 * ISO 8601 "P[nD][T[nH][nM][n[.f]S]]". Years and months have no fixed
 * length in seconds, so they are refused.
 */
static gboolean
parse_iso8601(const char *p, const char *end, gint64 *seconds, gint64 *ms)
{
	static const struct {
		char designator;
		gint64 unit;
		gboolean in_time;
	} parts[] = {
		{ 'D', 86400, FALSE },
		{ 'H', 3600, TRUE },
		{ 'M', 60, TRUE },
		{ 'S', 1, TRUE },
	};
	gint64 total = 0;
	gboolean any = FALSE;
	gboolean in_time = FALSE;
	gboolean any_time = FALSE;
	gsize next = 0;

	if (p == end || g_ascii_toupper(*p) != 'P') {
		return FALSE;
	}
	p++;
	while (p < end) {
		gint64 count;
		char designator;

		if (!in_time && g_ascii_toupper(*p) == 'T') {
			in_time = TRUE;
			p++;
			continue;
		}
		if (!read_number(&p, end, 1, 0, &count)) {
			return FALSE;
		}
		if (p < end && *p == '.') {
			skip_fraction(&p, end, ms);
			/* Only the seconds may have a fraction. */
			if (p == end || g_ascii_toupper(*p) != 'S') {
				return FALSE;
			}
		}
		if (p == end) {
			return FALSE;
		}
		designator = g_ascii_toupper(*p++);
		while (next < G_N_ELEMENTS(parts) &&
		       parts[next].designator != designator) {
			next++;
		}
		if (next == G_N_ELEMENTS(parts) ||
		    parts[next].in_time != in_time ||
		    !add_units(&total, count, parts[next].unit)) {
			return FALSE;
		}
		next++;
		any = TRUE;
		any_time = any_time || in_time;
	}
	if (!any || (in_time && !any_time)) {
		return FALSE;
	}
	*seconds = total;
	return TRUE;
}

/* Seconds and the milliseconds of a fraction; FALSE when unparseable. */
static gboolean
parse(const char *text, gint64 *seconds, gint64 *ms)
{
	const char *end;

	*seconds = 0;
	*ms = 0;
	if (text == NULL) {
		return FALSE;
	}
	while (g_ascii_isspace(*text)) {
		text++;
	}
	end = text + strlen(text);
	while (end > text && g_ascii_isspace(end[-1])) {
		end--;
	}
	if (parse_clock(text, end, seconds, ms)) {
		return TRUE;
	}
	*ms = 0;
	return parse_iso8601(text, end, seconds, ms);
}

gint64
feed_duration_parse(const char *text)
{
	gint64 seconds;
	gint64 ms;

	return parse(text, &seconds, &ms) ? seconds : 0;
}

gint64
feed_duration_parse_ms(const char *text)
{
	gint64 seconds;
	gint64 ms;

	if (!parse(text, &seconds, &ms)) {
		return 0;
	}
	/* DURATION_MAX seconds still fit in milliseconds. */
	return seconds * 1000 + ms;
}
