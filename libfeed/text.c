/* Text as feeds deliver it: whitespace, booleans, numbers, UTF-8 repair. */
#include "text-private.h"

#include <string.h>

/*
 * The contract follows podcastparser, which is Python: "whitespace" is what
 * str.isspace() accepts, which is also what str.strip(), str.split() and the
 * \s of a str regex use. That is 0x09-0x0D, 0x1C-0x1F, space, U+0085,
 * U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F and U+3000.
 * NBSP matters most: `&nbsp;` is everywhere in feeds.
 *
 * Returns the length in bytes of the whitespace character at @p, or 0.
 */
static gsize
space_len(const guchar *p, const guchar *end)
{
	if (p >= end)
		return 0;
	switch (p[0]) {
	case 0x09:
	case 0x0A:
	case 0x0B:
	case 0x0C:
	case 0x0D:
	case 0x1C:
	case 0x1D:
	case 0x1E:
	case 0x1F:
	case 0x20:
		return 1;
	case 0xC2:
		return end - p >= 2 && (p[1] == 0x85 || p[1] == 0xA0) ? 2 : 0;
	case 0xE1:
		return end - p >= 3 && p[1] == 0x9A && p[2] == 0x80 ? 3 : 0;
	case 0xE2:
		if (end - p < 3)
			return 0;
		/* U+2000-U+200A, U+2028, U+2029, U+202F; U+205F */
		if (p[1] == 0x80 &&
		    ((p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 ||
		     p[2] == 0xA9 || p[2] == 0xAF))
			return 3;
		if (p[1] == 0x81 && p[2] == 0x9F)
			return 3;
		return 0;
	case 0xE3:
		return end - p >= 3 && p[1] == 0x80 && p[2] == 0x80 ? 3 : 0;
	default:
		return 0;
	}
}

/* As space_len(), for the character that ends just before @end. */
static gsize
trailing_space_len(const guchar *start, const guchar *end)
{
	if (end - start >= 1 && space_len(end - 1, end) == 1)
		return 1;
	if (end - start >= 2 && space_len(end - 2, end) == 2)
		return 2;
	if (end - start >= 3 && space_len(end - 3, end) == 3)
		return 3;
	return 0;
}

static void
trim_range(const guchar **start, const guchar **end)
{
	const guchar *p = *start;
	const guchar *e = *end;
	gsize n;

	while ((n = space_len(p, e)) > 0)
		p += n;
	while ((n = trailing_space_len(p, e)) > 0)
		e -= n;
	*start = p;
	*end = e;
}

static char *
squash(const char *text, gsize length, gboolean keep_newlines)
{
	const guchar *p = (const guchar *)text;
	const guchar *end = p + length;
	gboolean pending_space = FALSE;
	char *result;
	char *w;

	if (text == NULL)
		return g_strdup("");
	trim_range(&p, &end);
	/* Runs only ever shrink, so the result fits in the input's length. */
	result = g_malloc(end - p + 1);
	w = result;
	while (p < end) {
		gsize n = space_len(p, end);

		if (n > 0 && !(keep_newlines && (*p == '\r' || *p == '\n'))) {
			pending_space = TRUE;
			p += n;
			continue;
		}
		if (pending_space) {
			*w++ = ' ';
			pending_space = FALSE;
		}
		*w++ = (char)*p++;
	}
	*w = '\0';
	return result;
}

char *
feed_text_squash(const char *text, gsize length)
{
	return squash(text, length, FALSE);
}

char *
feed_text_squash_nl(const char *text, gsize length)
{
	return squash(text, length, TRUE);
}

char *
feed_text_dup(const char *text, gsize length)
{
	char *copy = g_malloc(length + 1);

	memcpy(copy, text, length);
	copy[length] = '\0';
	return copy;
}

gsize
feed_text_normalize_line_ends(char *text, gsize length)
{
	char *cr = memchr(text, '\r', length);
	const char *end = text + length;
	char *out;

	if (cr == NULL)
		return length;
	out = cr;
	for (const char *p = cr; p < end; p++) {
		if (*p != '\r') {
			*out++ = *p;
			continue;
		}
		*out++ = '\n';
		if (p + 1 < end && p[1] == '\n')
			p++;
	}
	*out = '\0';
	return out - text;
}

char *
feed_text_trim(const char *text, gsize length)
{
	const guchar *p = (const guchar *)text;
	const guchar *end = p + length;

	if (text == NULL)
		return g_strdup("");
	trim_range(&p, &end);
	return feed_text_dup((const char *)p, end - p);
}

/*
 * windows-1252 for 0x80-0x9F; 0 marks the five bytes it leaves undefined.
 * 0xA0-0xFF are the Latin-1 code points of the same value.
 */
static const guint16 cp1252_c1[32] = {
	0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,      0x017D, 0,
	0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178,
};

void
feed_text_append_cp1252(GString *out, guchar byte)
{
	gunichar u = byte;

	if (byte >= 0x80 && byte < 0xA0)
		u = cp1252_c1[byte - 0x80];
	g_string_append_unichar(out, u != 0 ? u : 0xFFFD);
}

static gboolean
is_dropped_control(guchar c)
{
	return c < 0x20 && c != '\t' && c != '\n' && c != '\r';
}

static gboolean
has_dropped_control(const char *text)
{
	const guchar *p;

	for (p = (const guchar *)text; *p != '\0'; p++) {
		if (is_dropped_control(*p))
			return TRUE;
	}
	return FALSE;
}

static void
append_without_controls(GString *out, const char *p, const char *end)
{
	while (p < end) {
		const char *q = p;

		while (q < end && !is_dropped_control((guchar)*q))
			q++;
		g_string_append_len(out, p, q - p);
		p = q + 1;
	}
}

char *
feed_text_take_valid_utf8(char *text)
{
	const char *p;
	const char *end;
	GString *out;

	if (text == NULL)
		return NULL;
	if (!has_dropped_control(text) && g_utf8_validate(text, -1, NULL))
		return text;

	end = text + strlen(text);
	out = g_string_sized_new(end - text + 16);
	for (p = text; p < end;) {
		const char *valid_end;

		g_utf8_validate(p, end - p, &valid_end);
		append_without_controls(out, p, valid_end);
		if (valid_end >= end)
			break;
		/* Only bytes >= 0x80 can start an invalid sequence. */
		feed_text_append_cp1252(out, (guchar)*valid_end);
		p = valid_end + 1;
	}
	g_free(text);
	return g_string_free(out, FALSE);
}

static gboolean
equals_ascii_nocase(const guchar *p, gsize length, const char *word)
{
	return strlen(word) == length &&
	       g_ascii_strncasecmp((const char *)p, word, length) == 0;
}

int
feed_text_parse_bool(const char *text)
{
	const guchar *p = (const guchar *)text;
	const guchar *end;
	gsize length;

	if (text == NULL)
		return -1;
	end = p + strlen(text);
	trim_range(&p, &end);
	length = end - p;
	if (equals_ascii_nocase(p, length, "yes") ||
	    equals_ascii_nocase(p, length, "true") ||
	    equals_ascii_nocase(p, length, "explicit"))
		return 1;
	if (equals_ascii_nocase(p, length, "no") ||
	    equals_ascii_nocase(p, length, "false") ||
	    equals_ascii_nocase(p, length, "clean"))
		return 0;
	return -1;
}

/*
 * As Python's int(text) reads it, since podcastparser uses that for lengths,
 * seasons and episode numbers: any Unicode decimal digit counts (fullwidth
 * "１２" is 12), and single underscores may separate digits ("1_000").
 */
gboolean
feed_text_parse_int(const char *text, gint64 *value)
{
	const guchar *p = (const guchar *)text;
	const guchar *end;
	gboolean negative = FALSE;
	gboolean seen_digit = FALSE;
	gboolean after_underscore = FALSE;
	guint64 limit;
	guint64 acc = 0;

	if (text == NULL)
		return FALSE;
	end = p + strlen(text);
	trim_range(&p, &end);
	if (p < end && (*p == '+' || *p == '-')) {
		negative = *p == '-';
		p++;
	}
	limit = negative ? (guint64)G_MAXINT64 + 1 : (guint64)G_MAXINT64;
	while (p < end) {
		int digit;

		if (*p == '_') {
			if (!seen_digit || after_underscore)
				return FALSE;
			after_underscore = TRUE;
			p++;
			continue;
		}
		if (g_ascii_isdigit(*p)) {
			digit = *p - '0';
			p++;
		} else {
			gunichar c = g_utf8_get_char_validated((const char *)p,
			                                       end - p);

			if (*p < 0x80 || c == (gunichar)-1 || c == (gunichar)-2)
				return FALSE;
			digit = g_unichar_digit_value(c);
			if (digit < 0)
				return FALSE;
			p = (const guchar *)g_utf8_next_char(p);
		}
		if (acc > (limit - (guint64)digit) / 10)
			return FALSE;
		acc = acc * 10 + (guint64)digit;
		seen_digit = TRUE;
		after_underscore = FALSE;
	}
	if (!seen_digit || after_underscore)
		return FALSE;
	if (value != NULL) {
		if (negative)
			*value = acc == (guint64)G_MAXINT64 + 1 ? G_MININT64
			                                        : -(gint64)acc;
		else
			*value = (gint64)acc;
	}
	return TRUE;
}

/*
 * `[a-z]` under re.IGNORECASE: the ASCII letters, and also U+0130 and
 * U+0131 (which case-fold to i), U+017F (long s) and U+212A (Kelvin sign).
 * Relies on the NUL terminator to stop short sequences.
 */
static gsize
letter_len(const guchar *p)
{
	if (g_ascii_isalpha(*p))
		return 1;
	if (p[0] == 0xC4 && (p[1] == 0xB0 || p[1] == 0xB1))
		return 2;
	if (p[0] == 0xC5 && p[1] == 0xBF)
		return 2;
	if (p[0] == 0xE2 && p[1] == 0x84 && p[2] == 0xAA)
		return 3;
	return 0;
}

/*
 * podcastparser's is_html() searches for `<[a-z][a-z0-9]*(\s.*?>|/?>)` with
 * IGNORECASE and DOTALL, so after `<name` and one whitespace character any
 * later `>`, even lines away, completes the match. Backtracking into the
 * name cannot help, since a shorter name is followed by a name character.
 * So one scan over the `<`s decides, and the first `<name ` decides for good.
 */
gboolean
feed_text_looks_like_html(const char *text)
{
	const guchar *p;
	const guchar *end;

	if (text == NULL)
		return FALSE;
	end = (const guchar *)text + strlen(text);
	for (p = (const guchar *)text; (p = memchr(p, '<', end - p)) != NULL;
	     p++) {
		const guchar *q = p + 1;
		gsize n = letter_len(q);

		if (n == 0)
			continue;
		q += n;
		while ((n = letter_len(q)) > 0 || g_ascii_isdigit(*q))
			q += n > 0 ? n : 1;
		if (*q == '>' || (q[0] == '/' && q[1] == '>'))
			return TRUE;
		n = space_len(q, end);
		if (n > 0)
			return memchr(q + n, '>', end - (q + n)) != NULL;
	}
	return FALSE;
}
