/* Text as feeds deliver it: whitespace, booleans, numbers, UTF-8 repair. */
#ifndef FEED_TEXT_PRIVATE_H
#define FEED_TEXT_PRIVATE_H

#include <glib.h>

/*
 * Returns a copy of the @length bytes at @text, trimmed, with every run of
 * whitespace collapsed to one space ("squash"). Whitespace is what Python's
 * str.split() splits on in podcastparser's squash_whitespace: 0x09-0x0D,
 * 0x1C-0x1F, space, U+0085, U+00A0 (NBSP), U+1680, U+2000-U+200A, U+2028,
 * U+2029, U+202F, U+205F and U+3000. NULL @text gives "".
 */
G_GNUC_INTERNAL
char *
feed_text_squash(const char *text, gsize length);

/* As feed_text_squash(), but CR and LF are kept ("squash-nl"). */
G_GNUC_INTERNAL
char *
feed_text_squash_nl(const char *text, gsize length);

/*
 * Returns a NUL-terminated copy of the @length bytes at @text. Unlike
 * g_strndup() it does not scan for a NUL first: text here has none, and
 * show notes run to kilobytes an episode.
 */
G_GNUC_INTERNAL
char *
feed_text_dup(const char *text, gsize length);

/*
 * Ends every line of the @length bytes at @text with LF, as XML's
 * end-of-line handling does: CR LF and a lone CR become LF, in place.
 * Returns the new length, at most @length; a NUL is written after it.
 */
G_GNUC_INTERNAL
gsize
feed_text_normalize_line_ends(char *text, gsize length);

/*
 * Returns a copy of the @length bytes at @text without leading and
 * trailing whitespace (as feed_text_squash() defines it).
 */
G_GNUC_INTERNAL
char *
feed_text_trim(const char *text, gsize length);

/*
 * Makes @text valid UTF-8 without C0 control characters other than TAB, LF
 * and CR. Returns @text itself when it already is, or else a new string in
 * which each byte that is not part of a valid UTF-8 sequence (as
 * g_utf8_validate() sees it) is read as windows-1252, with U+FFFD for its
 * five undefined bytes 0x81, 0x8D, 0x8F, 0x90 and 0x9D, and the other C0
 * controls are dropped; @text is then freed. Takes ownership of @text,
 * which ends at its first NUL byte (so no NUL reaches the result) and may
 * be NULL.
 */
G_GNUC_INTERNAL
char *
feed_text_take_valid_utf8(char *text);

/*
 * Appends @byte to @out as windows-1252 reads it, in UTF-8: U+FFFD for its
 * five undefined bytes 0x81, 0x8D, 0x8F, 0x90 and 0x9D.
 */
G_GNUC_INTERNAL
void
feed_text_append_cp1252(GString *out, guchar byte);

/*
 * Reads a feed boolean (rule 7 of the JSON contract): trimmed,
 * case-insensitive `yes`, `true`, `explicit` give 1; `no`, `false`, `clean`
 * give 0; anything else, and NULL, gives -1.
 */
G_GNUC_INTERNAL
int
feed_text_parse_bool(const char *text);

/*
 * Reads a decimal integer as Python's int() does, since podcastparser uses
 * it: surrounding whitespace, a sign, any Unicode decimal digits and single
 * underscores between digits are allowed ("+1_000", "１２"). Returns TRUE and
 * sets *@value (which may be NULL) when the whole of @text is one that fits
 * in a gint64; FALSE otherwise, and for NULL.
 */
G_GNUC_INTERNAL
gboolean
feed_text_parse_int(const char *text, gint64 *value);

/*
 * Tells whether @text looks like HTML: it contains a match of
 * `<[a-z][a-z0-9]*(\s.*?>|/?>)`, case-insensitive. As in podcastparser's
 * is_html(), `.` also matches a newline (re.DOTALL), `\s` is the
 * whitespace above, and `[a-z]` also matches U+0130, U+0131, U+017F and
 * U+212A. Linear time; NULL gives FALSE.
 */
G_GNUC_INTERNAL
gboolean
feed_text_looks_like_html(const char *text);

#endif
