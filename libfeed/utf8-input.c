/*
 * A UTF-8 document made fit for libxml2 before it reads it.
 *
 * libxml2 2.9 copes with a byte that is not UTF-8 in text, where it
 * reports the byte and reads on, but not everywhere: in a CDATA section it
 * stops the whole document at it (and at a control character), and at the
 * end of a pushed chunk it takes such a byte for a character the chunk
 * cut and stops at the next markup. Feeds that say UTF-8 and carry a stray
 * windows-1252 byte in their show notes are common, and the rest of such a
 * feed would be lost, by where the byte sits or where the network cut the
 * stream. No library repairs a stream of bytes this way, so it is done
 * here, as feed_text_take_valid_utf8() does for text that libxml2 handed
 * over: a byte that is not part of a UTF-8 character is read as
 * windows-1252, C0 controls other than TAB, LF and CR are dropped (XML
 * allows none of them), and U+FFFE and U+FFFF become U+FFFD.
 */
#include "text-private.h"
#include "utf8-input-private.h"

#include <string.h>

/*
 * How many of the 8 bytes at @p, from the first, are printable ASCII
 * (0x20-0x7F) or LF: 8 when all are. Each byte is tested on its own, with
 * no carry into the next: its low 7 bits plus 0x60 reach its top bit when
 * they are 0x20 or more; XORed with LF it is zero only when it was LF, and
 * then its low 7 bits plus 0x7F do not reach the top bit.
 */
static inline guint
plain_ascii(const guchar *p)
{
	const guint64 lows = G_GUINT64_CONSTANT(0x7F7F7F7F7F7F7F7F);
	const guint64 highs = ~lows;
	const guint64 lf = G_GUINT64_CONSTANT(0x0A0A0A0A0A0A0A0A);
	guint64 word;
	guint64 printable;
	guint64 is_lf;
	guint64 flags;

	memcpy(&word, p, 8);
	word = GUINT64_FROM_LE(word);
	printable = (word & lows) + G_GUINT64_CONSTANT(0x6060606060606060);
	is_lf = ~((((word ^ lf) & lows) + lows) | (word ^ lf));
	flags = (word | ~printable) & ~is_lf & highs;
	return flags == 0 ? 8 : (guint)__builtin_ctzll(flags) / 8;
}

/* Whether @b is a continuation byte within [@lo, @hi]. */
static inline gboolean
within(guchar b, guchar lo, guchar hi)
{
	return b >= lo && b <= hi;
}

/*
 * The length of the character at @p, of which @n bytes are there: 0 when
 * the byte is not allowed, -1 when the bytes end before the character
 * does. Written out rather than g_utf8_get_char_validated(): a call per
 * character cost the parser a fifth of its time on feeds in French.
 */
static inline int
char_length(const guchar *p, gsize n)
{
	guchar c = p[0];
	guchar lo = 0x80;
	guchar hi = 0xBF;
	int need;

	if (c < 0x80) {
		if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r')
			return 1;
		return 0;
	}
	if (c < 0xC2 || c > 0xF4)
		return 0;
	if (c < 0xE0) {
		need = 2;
	} else if (c < 0xF0) {
		need = 3;
		/* No overlong form, no surrogate (Unicode's Table 3-7). */
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else {
		need = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	}
	for (int i = 1; i < need; i++) {
		if ((gsize)i >= n)
			return -1;
		if (!within(p[i], lo, hi))
			return 0;
		lo = 0x80;
		hi = 0xBF;
	}
	return need;
}

/* Whether the character at @p is U+FFFE or U+FFFF (not XML characters). */
static gboolean
is_noncharacter(const guchar *p)
{
	return p[0] == 0xEF && p[1] == 0xBF && (p[2] & 0xFE) == 0xBE;
}

typedef enum {
	RUN_ALLOWED,      /* what follows is ASCII, or nothing */
	RUN_NOT_ALLOWED,  /* a byte not allowed */
	RUN_CUT,          /* a character the bytes end within */
	RUN_NONCHARACTER, /* U+FFFE or U+FFFF */
} Run;

/*
 * Skips allowed characters from *@at on while they are beyond ASCII (at
 * least one character, ASCII or not): such characters tend to come in
 * runs. Says what stopped it at *@at.
 */
static inline Run
skip_run(const guchar *p, gsize length, gsize *at)
{
	do {
		int n = char_length(p + *at, length - *at);

		if (n == 0)
			return RUN_NOT_ALLOWED;
		if (n < 0)
			return RUN_CUT;
		if (n == 3 && is_noncharacter(p + *at))
			return RUN_NONCHARACTER;
		*at += (gsize)n;
	} while (*at < length && p[*at] >= 0x80);
	return RUN_ALLOWED;
}

gsize
feed_utf8_input_repair(const char *data, gsize length, gboolean at_end,
                       GString **repaired, gsize *first)
{
	const guchar *p = (const guchar *)data;
	GString *out = NULL;
	gsize copied = 0;
	gsize at = 0;

	while (at < length) {
		Run stop;

		if (length - at >= 8) {
			guint plain = plain_ascii(p + at);

			at += plain;
			if (plain == 8)
				continue;
		}
		stop = skip_run(p, length, &at);
		if (stop == RUN_ALLOWED)
			continue;
		if (stop == RUN_CUT && !at_end)
			break;
		if (out == NULL) {
			out = g_string_sized_new(length + 16);
			*first = at;
		}
		g_string_append_len(out, data + copied, at - copied);
		if (stop == RUN_NONCHARACTER) {
			g_string_append(out, "\xEF\xBF\xBD");
			at += 3;
		} else {
			/* A control is dropped. */
			if (p[at] >= 0x80)
				feed_text_append_cp1252(out, p[at]);
			at++;
		}
		copied = at;
	}
	if (out != NULL)
		g_string_append_len(out, data + copied, at - copied);
	*repaired = out;
	return at;
}
