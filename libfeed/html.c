/*
 * Show notes: HTML to plain text.
 *
 * The JSON contract promises podcastparser's remove_html_tags(), and that is
 * defined by regular expressions applied one after the other to the whole
 * string, not by an HTML parser: `<li` also matches `<link>`, only a bare
 * `<p>` gives a blank line, a `<` without a later `>` stays as text, entities
 * are decoded after the tags are gone, and so on. libxml2's HTML parser
 * builds a tree with its own error recovery and cannot reproduce any of
 * that, so this file emulates the regular expressions by hand. It is also
 * much faster than a regex engine or a tree: a few linear passes that mostly
 * run memchr() and memcpy().
 *
 * podcastparser applies, in this order:
 *   1. `(<br[^>]*>|<[/]?ul[^>]*>|</li>)`, case-insensitive   -> "\n"
 *   2. `<li[^>]*>`, case-insensitive                          -> "\n * "
 *   3. `<[Pp]>`                                               -> "\n\n"
 *   4. `<[^>]*>`                                              -> ""
 *   5. `&#(\d{2,4});`                                         -> chr()
 *   6. `&(.{2,8});`                                           -> entitydefs
 *   7. `([\r\n]{2})([\r\n])+`                                 -> the first 2
 *   8. strip()
 * Steps 1-4 are one pass over the input: at each '<' the scanner works out
 * which step's match, if any, starts there, and where it ends given the
 * earlier steps' matches. Step 5 is a second pass and steps 6-7 a third,
 * both in place since each only shrinks the text; they stay apart so that
 * `&#38;amp;` still gives "&" as in podcastparser. A failed search for a
 * '>' is remembered, so the whole is linear in the input.
 *
 * Deliberate differences, which the contract allows or asks for:
 * - The contents of <script> and <style> are dropped.
 * - Step 5 also decodes `&#xHH;`, and decimal references of any length
 *   (podcastparser's step 6 deletes `&#9;`, `&#128512;` and `&#x41;` as
 *   unknown entity names). Only ASCII digits count (Python's \d also takes
 *   other scripts' digits). A reference to 0, to a surrogate or to a value
 *   above U+10FFFF becomes U+FFFD, so the result stays valid UTF-8 and has
 *   no NUL (podcastparser gives NUL for `&#00;`).
 * - Step 6 is lazy, `&(.{2,8}?);`: with podcastparser's greedy group,
 *   `&lt;b&gt;` is the unknown name "lt;b&gt" and vanishes. Here it gives
 *   `<b>`.
 * - Named entities come from libxml2's HTML 4 table, which is Python's
 *   entitydefs plus `&apos;`.
 * Like Python's, the case-insensitive `i` also matches U+0130 and U+0131.
 */
#include "html-private.h"
#include "text-private.h"

#include <libxml/HTMLparser.h>
#include <string.h>

typedef struct {
	const char *end; /* the input's NUL */
	/* the input's last '>'; NULL when there is none */
	const char *last_gt;
	/*
	 * Once a search for the end of a step-2 (s1) or step-4 (s3) match
	 * has failed from some position, it fails from every later position
	 * too; NULL means no search has failed yet.
	 */
	const char *s1_dead;
	const char *s3_dead;
} Scan;

/* `i` under re.IGNORECASE: i, I, U+0130 and U+0131. */
static gsize
i_len(const char *p)
{
	if (*p == 'i' || *p == 'I')
		return 1;
	if ((guchar)p[0] == 0xC4 &&
	    ((guchar)p[1] == 0xB0 || (guchar)p[1] == 0xB1))
		return 2;
	return 0;
}

/* g_ascii_tolower() is not inlined, and this is the innermost loop. */
static inline char
lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
}

/* The NUL terminator stops every look-ahead below: it matches nothing. */
static gboolean
starts_nocase(const char *p, char a, char b)
{
	return lower(p[0]) == a && lower(p[1]) == b;
}

static const char *
find_gt(const Scan *s, const char *from)
{
	if (s->last_gt == NULL || from > s->last_gt)
		return NULL;
	return memchr(from, '>', s->last_gt - from + 1);
}

/* Step 1 at the '<' at @p: the '>' that ends its match, or NULL. */
static const char *
newline_tag_end(const Scan *s, const char *p)
{
	gsize n;

	if (starts_nocase(p + 1, 'b', 'r') || starts_nocase(p + 1, 'u', 'l'))
		return find_gt(s, p + 3);
	if (p[1] != '/')
		return NULL;
	if (starts_nocase(p + 2, 'u', 'l'))
		return find_gt(s, p + 4);
	if (lower(p[2]) == 'l' && (n = i_len(p + 3)) > 0 && p[3 + n] == '>')
		return p + 3 + n;
	return NULL;
}

/* Length of the `<li` at @p, or 0. */
static gsize
li_len(const char *p)
{
	gsize n;

	if (lower(p[1]) != 'l')
		return 0;
	n = i_len(p + 2);
	return n > 0 ? 2 + n : 0;
}

/*
 * The first '>' at or after @p that survives step 1, that is, the end of a
 * step-2 match. Step 1 scans every position, so a scan from here sees the
 * same step-1 matches as podcastparser's did.
 */
static const char *
s1_gt(Scan *s, const char *p)
{
	const char *start = p;

	if (s->s1_dead != NULL && p >= s->s1_dead)
		return NULL;
	while (s->last_gt != NULL && p <= s->last_gt &&
	       (p = strpbrk(p, "<>")) != NULL) {
		const char *e;

		if (*p == '>')
			return p;
		e = newline_tag_end(s, p);
		p = e != NULL ? e + 1 : p + 1;
	}
	s->s1_dead = start;
	return NULL;
}

/* As s1_gt(), for a '>' that survives steps 1 to 3: the end of a tag. */
static const char *
s3_gt(Scan *s, const char *p)
{
	const char *start = p;

	if (s->s3_dead != NULL && p >= s->s3_dead)
		return NULL;
	while (s->last_gt != NULL && p <= s->last_gt &&
	       (p = strpbrk(p, "<>")) != NULL) {
		const char *e;
		gsize n;

		if (*p == '>')
			return p;
		if ((e = newline_tag_end(s, p)) != NULL)
			p = e + 1;
		else if ((n = li_len(p)) > 0 && (e = s1_gt(s, p + n)) != NULL)
			p = e + 1;
		else if ((p[1] == 'p' || p[1] == 'P') && p[2] == '>')
			p += 3;
		else
			p++;
	}
	s->s3_dead = start;
	return NULL;
}

static gboolean
ends_tag_name(char c)
{
	return c == '>' || c == '/' || g_ascii_isspace(c);
}

/*
 * Called for the tag from @lt to @gt; returns where scanning resumes. For
 * <script> and <style>, that is their end tag (or the end of the input), so
 * their contents are dropped.
 */
static const char *
skip_raw_text(const Scan *s, const char *lt, const char *gt)
{
	const char *name = lt + 1;
	const char *p;
	gsize n;

	if (lower(name[0]) != 's')
		return gt + 1;
	if (g_ascii_strncasecmp(name, "script", 6) == 0)
		n = 6;
	else if (g_ascii_strncasecmp(name, "style", 5) == 0)
		n = 5;
	else
		return gt + 1;
	if (!ends_tag_name(name[n]) || gt[-1] == '/')
		return gt + 1;
	for (p = gt + 1; (p = memchr(p, '<', s->end - p)) != NULL; p++) {
		if (p[1] == '/' && g_ascii_strncasecmp(p + 2, name, n) == 0 &&
		    ends_tag_name(p[2 + n]))
			return p;
	}
	return s->end;
}

/* Steps 1 to 4 from @html into @out, which has room for as many bytes. */
static char *
strip_tags(const char *html, gsize length, char *out)
{
	Scan s = { html + length, NULL, NULL, NULL };
	const char *p = html;
	char *w = out;

	s.last_gt = memrchr(html, '>', length);
	while (p < s.end) {
		const char *lt = memchr(p, '<', s.end - p);
		const char *e;
		gsize n;

		if (lt == NULL || s.last_gt == NULL || lt > s.last_gt) {
			memcpy(w, p, s.end - p);
			w += s.end - p;
			break;
		}
		memcpy(w, p, lt - p);
		w += lt - p;
		p = lt;
		/* Each replacement is no longer than what it replaces. */
		if ((e = newline_tag_end(&s, p)) != NULL) {
			*w++ = '\n';
			p = e + 1;
		} else if ((n = li_len(p)) > 0 &&
		           (e = s1_gt(&s, p + n)) != NULL) {
			memcpy(w, "\n * ", 4);
			w += 4;
			p = e + 1;
		} else if ((p[1] == 'p' || p[1] == 'P') && p[2] == '>') {
			*w++ = '\n';
			*w++ = '\n';
			p += 3;
		} else if ((e = s3_gt(&s, p + 1)) != NULL) {
			p = skip_raw_text(&s, p, e);
		} else {
			*w++ = '<';
			p++;
		}
	}
	*w = '\0';
	return w;
}

/*
 * Reads the digits and ';' of a character reference after its "&#".
 * Returns the position after the ';', or NULL.
 */
static const char *
parse_char_ref(const char *p, gunichar *c)
{
	gboolean hex = *p == 'x' || *p == 'X';
	guint32 value = 0;
	const char *digits;

	if (hex)
		p++;
	for (digits = p;; p++) {
		int d = hex ? g_ascii_xdigit_value(*p)
		            : g_ascii_digit_value(*p);

		if (d < 0)
			break;
		value = value * (hex ? 16 : 10) + (guint32)d;
		if (value > 0x10FFFF)
			value = 0x110000;
	}
	if (p == digits || *p != ';')
		return NULL;
	if (value == 0 || value > 0x10FFFF ||
	    (value >= 0xD800 && value <= 0xDFFF))
		value = 0xFFFD;
	*c = value;
	return p + 1;
}

/*
 * Step 5, in place on the NUL-terminated @buf up to @end; returns the new
 * end. A reference is at least as long as its UTF-8.
 */
static char *
decode_char_refs(char *buf, char *end)
{
	char *r = buf;
	char *w = buf;
	char *amp;

	while ((amp = memchr(r, '&', end - r)) != NULL) {
		const char *after;
		gunichar c;

		memmove(w, r, amp - r);
		w += amp - r;
		if (amp[1] == '#' && (after = parse_char_ref(amp + 2, &c))) {
			w += g_unichar_to_utf8(c, w);
			r = (char *)after;
		} else {
			*w++ = '&';
			r = amp + 1;
		}
	}
	memmove(w, r, end - r);
	w += end - r;
	*w = '\0';
	return w;
}

/*
 * The ';' that ends the lazy group of `&(.{2,8}?);` whose characters start
 * at @p, or NULL. `.` is any character but "\n".
 */
static const char *
entity_end(const char *p, const char *end)
{
	int i;

	for (i = 0; i <= 8 && p < end; i++) {
		if (*p == ';' && i >= 2)
			return p;
		if (*p == '\n')
			return NULL;
		p++;
		while (p < end && ((guchar)*p & 0xC0) == 0x80)
			p++;
	}
	return NULL;
}

static gunichar
lookup_entity(const char *name, gsize length)
{
	char buf[9];
	const htmlEntityDesc *entity;

	/* Longer names are not ASCII, and all entity names are. */
	if (length > 8)
		return 0;
	memcpy(buf, name, length);
	buf[length] = '\0';
	entity = htmlEntityLookup((const xmlChar *)buf);
	return entity != NULL ? entity->value : 0;
}

/* Steps 6 and 7, in place as decode_char_refs(). */
static char *
decode_entities(char *buf, char *end)
{
	char *r = buf;
	char *w = buf;
	int newlines = 0;

	while (r < end) {
		gsize n = strcspn(r, "&\r\n");

		if (n > 0) {
			memmove(w, r, n);
			w += n;
			r += n;
			newlines = 0;
		} else if (*r == '&') {
			const char *semi = entity_end(r + 1, end);
			gunichar c;

			if (semi == NULL) {
				*w++ = *r++;
				newlines = 0;
				continue;
			}
			/* An unknown name is deleted, as entitydefs.get(). */
			c = lookup_entity(r + 1, semi - (r + 1));
			if (c != 0) {
				w += g_unichar_to_utf8(c, w);
				newlines = 0;
			}
			r = (char *)semi + 1;
		} else {
			if (newlines < 2)
				*w++ = *r;
			newlines++;
			r++;
		}
	}
	*w = '\0';
	return w;
}

char *
feed_html_to_text(const char *html)
{
	gsize length;
	char *buf;
	char *end;
	char *result;

	if (html == NULL)
		return NULL;
	length = strlen(html);
	buf = g_malloc(length + 1);
	end = strip_tags(html, length, buf);
	end = decode_char_refs(buf, end);
	end = decode_entities(buf, end);
	result = feed_text_trim(buf, end - buf);
	g_free(buf);
	return result;
}
