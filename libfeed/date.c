/* Feed dates: RFC 822/2822 and ISO 8601 to Unix seconds. */
#include "date-private.h"

#include <string.h>

/*
 * Why not curl_getdate(): the contract is "as Python's
 * email.utils.parsedate_tz reads it", and measured against Python,
 * curl_getdate() 7.88 disagrees in both directions on dates real feeds
 * carry. It rejects full month names ("21 November 1997"), "+HH:MM" zones,
 * "09.55.06" times, 24:00:00 and years before 1583; it reads 2-digit years
 * 69 and 70 as 2069/2070 (Python: 1969/1970); it gives military zones and
 * names Python does not know (A, CET) an offset where Python reads
 * UTC; and it accepts forms Python rejects ("21 Nov 1997", no time). So
 * whether a string is a date at all has to be decided by a tokenizer that
 * follows Python's, and once the fields are known the arithmetic is a line
 * of GDate: handing a rebuilt string to curl would only parse it twice.
 */

/* A piece of the input, not NUL-terminated. */
typedef struct {
	const char *s;
	gsize len;
} Span;

/* Python's email._parseaddr._monthnames, in its order. */
static const char *const month_names[] = {
	"jan",     "feb",      "mar",       "apr",     "may",      "jun",
	"jul",     "aug",      "sep",       "oct",     "nov",      "dec",
	"january", "february", "march",     "april",   "may",      "june",
	"july",    "august",   "september", "october", "november", "december",
};

/*
 * Python's _daynames are the first seven. The full names are ours: Python
 * fails on any date whose first word is an undeleted full weekday, so
 * skipping it only adds dates.
 */
static const char *const day_names[] = {
	"mon",      "tue",    "wed",      "thu",     "fri",
	"sat",      "sun",    "monday",   "tuesday", "wednesday",
	"thursday", "friday", "saturday", "sunday",
};

/*
 * Python's _timezones, as ±HHMM integers. Every other word, military
 * letters included, means "zone unknown", which Python reads as local time
 * and we, like the contract, as UTC. RFC 1123 says to do that for the
 * military zones too, because RFC 822 got their signs backwards.
 */
static const struct {
	const char *name;
	int hhmm;
} zones[] = {
	{ "UT", 0 },     { "UTC", 0 },    { "GMT", 0 },    { "Z", 0 },
	{ "AST", -400 }, { "ADT", -300 }, { "EST", -500 }, { "EDT", -400 },
	{ "CST", -600 }, { "CDT", -500 }, { "MST", -700 }, { "MDT", -600 },
	{ "PST", -800 }, { "PDT", -700 },
};

/* date(1970, 1, 1).toordinal(), which is also GDate's Julian day. */
#define EPOCH_JULIAN 719163

/* Bounds every parsed field, so that no sum below can overflow. */
#define FIELD_MAX 999999999

static gboolean
is_space(char c)
{
	/* The ASCII characters Python's str.split() splits on. */
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

static gboolean
span_equal(Span a, const char *word)
{
	return strlen(word) == a.len &&
	       g_ascii_strncasecmp(a.s, word, a.len) == 0;
}

static gboolean
span_ends_with(Span a, char c)
{
	return a.len > 0 && a.s[a.len - 1] == c;
}

/* Returns the index of @c in @a, or -1. */
static gssize
span_find(Span a, char c)
{
	const char *hit = memchr(a.s, c, a.len);

	return hit ? hit - a.s : -1;
}

/*
 * Splits @a at each @sep into at most @max spans; returns the number of
 * pieces, or more than @max when there are too many.
 */
static gsize
span_split(Span a, char sep, Span *out, gsize max)
{
	gsize n = 0;
	const char *p = a.s;
	const char *end = a.s + a.len;

	for (;;) {
		const char *hit = memchr(p, sep, (gsize)(end - p));
		const char *stop = hit ? hit : end;

		if (n < max) {
			out[n].s = p;
			out[n].len = (gsize)(stop - p);
		}
		n++;
		if (!hit || n > max) {
			return n;
		}
		p = hit + 1;
	}
}

/* Returns 1 to 12, or 0 when @a is not a month name. */
static int
month_of(Span a)
{
	for (gsize i = 0; i < G_N_ELEMENTS(month_names); i++) {
		if (span_equal(a, month_names[i])) {
			return (int)(i % 12) + 1;
		}
	}
	return 0;
}

static gboolean
is_day_name(Span a)
{
	for (gsize i = 0; i < G_N_ELEMENTS(day_names); i++) {
		if (span_equal(a, day_names[i])) {
			return TRUE;
		}
	}
	return FALSE;
}

/*
 * Python's int() for what feeds contain: an optional sign and ASCII digits.
 * Values beyond FIELD_MAX are refused rather than carried into absurd
 * timestamps.
 */
static gboolean
parse_int(Span a, gint64 *value)
{
	gsize i = 0;
	gboolean negative = FALSE;
	gint64 v = 0;

	if (a.len > 0 && (a.s[0] == '+' || a.s[0] == '-')) {
		negative = a.s[0] == '-';
		i++;
	}
	if (i == a.len) {
		return FALSE;
	}
	for (; i < a.len; i++) {
		if (!g_ascii_isdigit(a.s[i])) {
			return FALSE;
		}
		v = v * 10 + (a.s[i] - '0');
		if (v > FIELD_MAX) {
			return FALSE;
		}
	}
	*value = negative ? -v : v;
	return TRUE;
}

/*
 * Returns the zone offset in seconds east of UTC. Unknown zones, "-0000"
 * and a missing zone all give 0, as Python does under TZ=UTC.
 */
static gint64
zone_offset(Span tz)
{
	gint64 hhmm = 0;
	gint64 sign = 1;

	for (gsize i = 0; i < G_N_ELEMENTS(zones); i++) {
		if (span_equal(tz, zones[i].name)) {
			hhmm = zones[i].hhmm;
			goto convert;
		}
	}
	/*
	 * "+05:30" is not an integer to Python, which then ignores the zone;
	 * feeds that write it mean +0530, so we read it that way.
	 */
	if (tz.len == 6 && (tz.s[0] == '+' || tz.s[0] == '-') &&
	    g_ascii_isdigit(tz.s[1]) && g_ascii_isdigit(tz.s[2]) &&
	    tz.s[3] == ':' && g_ascii_isdigit(tz.s[4]) &&
	    g_ascii_isdigit(tz.s[5])) {
		hhmm = (tz.s[1] - '0') * 1000 + (tz.s[2] - '0') * 100 +
		       (tz.s[4] - '0') * 10 + (tz.s[5] - '0');
		if (tz.s[0] == '-') {
			hhmm = -hhmm;
		}
	} else if (!parse_int(tz, &hhmm)) {
		return 0;
	}
convert:
	/* Python does no range check: "+0575" is 5 hours and 75 minutes. */
	if (hhmm < 0) {
		sign = -1;
		hhmm = -hhmm;
	}
	return sign * ((hhmm / 100) * 3600 + (hhmm % 100) * 60);
}

/*
 * calendar.timegm(): fields out of range (day 31 of February, hour 24)
 * carry over into the next unit, as in Python.
 */
static gboolean
to_unix(gint64 year, int month, gint64 day, gint64 hour, gint64 minute,
        gint64 second, gint64 *result)
{
	GDate date;
	gint64 days;

	/* datetime.date() raises ValueError beyond these years. */
	if (year < 1 || year > 9999) {
		return FALSE;
	}
	g_date_clear(&date, 1);
	g_date_set_dmy(&date, 1, (GDateMonth)month, (GDateYear)year);
	days = (gint64)g_date_get_julian(&date) - EPOCH_JULIAN + day - 1;
	*result = ((days * 24 + hour) * 60 + minute) * 60 + second;
	return TRUE;
}

typedef enum {
	RFC822_NOT_A_DATE,
	RFC822_OUT_OF_RANGE,
	RFC822_OK,
} Rfc822Result;

/* A port of email._parseaddr._parsedate_tz() followed by mktime_tz(). */
static Rfc822Result
parse_rfc822(const char *text, gint64 *result)
{
	/* Six words cover a weekday and the five fields after it. */
	Span words[6];
	gsize n_words = 0;
	Span data[5];
	gsize n, first = 0;
	Span dd, mm, yy, tm, tz, tmp;
	Span clock[3];
	gsize n_clock;
	int month;
	gint64 year, day, hour, minute, second = 0;
	gssize i;

	for (const char *p = text;;) {
		const char *start;

		while (is_space(*p)) {
			p++;
		}
		if (*p == '\0') {
			break;
		}
		start = p;
		while (*p != '\0' && !is_space(*p)) {
			p++;
		}
		/* Beyond six words only "more than five fields" matters. */
		if (n_words == G_N_ELEMENTS(words)) {
			n_words++;
			break;
		}
		words[n_words].s = start;
		words[n_words].len = (gsize)(p - start);
		n_words++;
	}
	if (n_words == 0) {
		return RFC822_NOT_A_DATE;
	}

	/* The space after the weekday's comma is optional. */
	if (span_ends_with(words[0], ',') || is_day_name(words[0])) {
		first = 1;
	} else {
		for (i = (gssize)words[0].len - 1; i >= 0; i--) {
			if (words[0].s[i] == ',') {
				words[0].s += i + 1;
				words[0].len -= (gsize)i + 1;
				break;
			}
		}
	}
	n = n_words - first;
	for (gsize k = 0; k < n && k < G_N_ELEMENTS(data); k++) {
		data[k] = words[first + k];
	}

	/* RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT". */
	if (n == 3) {
		Span parts[3];

		if (span_split(data[0], '-', parts, 3) == 3) {
			data[4] = data[2];
			data[3] = data[1];
			data[0] = parts[0];
			data[1] = parts[1];
			data[2] = parts[2];
			n = 5;
		}
	}
	if (n == 4) {
		/* A zone glued to the time, or none at all. */
		Span s = data[3];

		i = span_find(s, '+');
		if (i == -1) {
			i = span_find(s, '-');
		}
		if (i > 0) {
			data[3].len = (gsize)i;
			data[4].s = s.s + i;
			data[4].len = s.len - (gsize)i;
		} else {
			data[4].s = "";
			data[4].len = 0;
		}
		n = 5;
	}
	if (n < 5) {
		return RFC822_NOT_A_DATE;
	}

	dd = data[0];
	mm = data[1];
	yy = data[2];
	tm = data[3];
	tz = data[4];
	if (dd.len == 0 || mm.len == 0 || yy.len == 0) {
		return RFC822_NOT_A_DATE;
	}
	month = month_of(mm);
	if (month == 0) {
		month = month_of(dd);
		if (month == 0) {
			return RFC822_NOT_A_DATE;
		}
		dd = mm;
	}
	if (span_ends_with(dd, ',')) {
		dd.len--;
	}
	if (span_find(yy, ':') > 0) {
		tmp = yy;
		yy = tm;
		tm = tmp;
	}
	if (span_ends_with(yy, ',')) {
		yy.len--;
	}
	if (yy.len == 0) {
		return RFC822_NOT_A_DATE;
	}
	if (!g_ascii_isdigit(yy.s[0])) {
		tmp = yy;
		yy = tz;
		tz = tmp;
	}
	if (span_ends_with(tm, ',')) {
		tm.len--;
	}

	n_clock = span_split(tm, ':', clock, 3);
	if (n_clock == 1 && span_find(tm, '.') >= 0) {
		/* Some mailers write "09.55.06". */
		n_clock = span_split(tm, '.', clock, 3);
	}
	if (n_clock != 2 && n_clock != 3) {
		return RFC822_NOT_A_DATE;
	}
	if (!parse_int(yy, &year) || !parse_int(dd, &day) ||
	    !parse_int(clock[0], &hour) || !parse_int(clock[1], &minute) ||
	    (n_clock == 3 && !parse_int(clock[2], &second))) {
		return RFC822_NOT_A_DATE;
	}
	if (year < 100) {
		year += year > 68 ? 1900 : 2000;
	}
	if (!to_unix(year, month, day, hour, minute, second, result)) {
		return RFC822_OUT_OF_RANGE;
	}
	*result -= zone_offset(tz);
	return RFC822_OK;
}

static gboolean
iso8601_to_unix(const char *s, gint64 *result)
{
	GTimeZone *utc = g_time_zone_new_utc();
	GDateTime *dt = g_date_time_new_from_iso8601(s, utc);

	g_time_zone_unref(utc);
	if (dt == NULL) {
		return FALSE;
	}
	*result = g_date_time_to_unix(dt);
	g_date_time_unref(dt);
	return TRUE;
}

/* Whether @s is a whole zone: Z, ±HH, ±HHMM or ±HH:MM. */
static gboolean
is_zone(const char *s, gsize len)
{
	if (len == 1) {
		return s[0] == 'Z' || s[0] == 'z';
	}
	if ((len != 3 && len != 5 && len != 6) ||
	    (s[0] != '+' && s[0] != '-')) {
		return FALSE;
	}
	for (gsize i = 1; i < len; i++) {
		if (!g_ascii_isdigit(s[i]) &&
		    !(len == 6 && i == 3 && s[i] == ':')) {
			return FALSE;
		}
	}
	return TRUE;
}

/*
 * Returns the length of the fraction of a second at @s ('.' or ',' and
 * digits) when it ends the time, or 0.
 */
static gsize
fraction_length(const char *s, gsize len)
{
	gsize j = 1;

	if (len == 0 || (s[0] != '.' && s[0] != ',')) {
		return 0;
	}
	while (j < len && g_ascii_isdigit(s[j])) {
		j++;
	}
	if (j == 1 || (j < len && s[j] != ' ' && !is_zone(s + j, len - j))) {
		return 0;
	}
	return j;
}

/* Longer than any ISO 8601 date once its fraction is gone. */
#define ISO_MAX 48

/* podcastparser's "%Y-%m-%dT%H:%M:%S", with a space allowed for the T. */
#define ISO_PREFIX 19

static gboolean
parse_iso8601(const char *s, gsize len, gint64 *result)
{
	char buf[ISO_MAX + 1];
	gsize out = 0;

	/*
	 * GDateTime wants a NUL-terminated string with an upper-case T and Z
	 * (RFC 3339 allows lower case) and refuses a space before the zone
	 * (Ruby's "2019-05-01 10:00:00 +0000"). The fraction is dropped here
	 * rather than by GDateTime, which refuses one of 19 digits or more and
	 * rounds ".9999999999999999" up to the next second.
	 */
	for (gsize i = 0; i < len && out <= ISO_MAX; i++) {
		gsize fraction = fraction_length(s + i, len - i);

		if (fraction > 0) {
			i += fraction - 1;
		} else if (s[i] == ' ' && is_zone(s + i + 1, len - i - 1)) {
			continue;
		} else if (out < ISO_MAX) {
			buf[out++] = g_ascii_toupper(s[i]);
		} else {
			out = ISO_MAX + 1;
		}
	}
	if (out <= ISO_MAX) {
		buf[out] = '\0';
		if (iso8601_to_unix(buf, result)) {
			return TRUE;
		}
	}

	/*
	 * podcastparser reads the first 19 characters and, when what follows
	 * is not a zone it knows, ignores it: "…T18:30:02 PST" is read as
	 * UTC. We do the same.
	 */
	if (len > ISO_PREFIX && s[4] == '-' && s[7] == '-' &&
	    (s[10] == 'T' || s[10] == 't' || s[10] == ' ') && s[13] == ':' &&
	    s[16] == ':') {
		for (gsize i = 0; i < ISO_PREFIX; i++) {
			buf[i] = g_ascii_toupper(s[i]);
		}
		buf[ISO_PREFIX] = '\0';
		return iso8601_to_unix(buf, result);
	}
	return FALSE;
}

gint64
feed_date_parse(const char *text)
{
	gint64 result = 0;
	const char *end;

	if (text == NULL) {
		return 0;
	}
	switch (parse_rfc822(text, &result)) {
	case RFC822_OK:
		return result;
	case RFC822_OUT_OF_RANGE:
		return 0;
	case RFC822_NOT_A_DATE:
		break;
	}

	while (is_space(*text)) {
		text++;
	}
	if (!g_ascii_isdigit(*text)) {
		return 0;
	}
	end = text + strlen(text);
	while (end > text && is_space(end[-1])) {
		end--;
	}
	if (!parse_iso8601(text, (gsize)(end - text), &result)) {
		return 0;
	}
	return result;
}
