/* Text as feeds deliver it: whitespace, booleans, numbers, UTF-8 repair. */
#ifndef FEED_TEXT_PRIVATE_H
#define FEED_TEXT_PRIVATE_H

#include <glib.h>

/*
 * Returns a copy of the @length bytes at @text, trimmed, with every run of
 * whitespace collapsed to one space ("squash"). Whitespace is what Python's
 * str.split() splits on in podcastparser's squash_whitespace.
 */
G_GNUC_INTERNAL
char *
feed_text_squash(const char *text, gsize length);

/* As feed_text_squash(), but CR and LF are kept ("squash-nl"). */
G_GNUC_INTERNAL
char *
feed_text_squash_nl(const char *text, gsize length);

/*
 * Returns a copy of the @length bytes at @text without leading and
 * trailing whitespace.
 */
G_GNUC_INTERNAL
char *
feed_text_trim(const char *text, gsize length);

/*
 * Makes @text valid UTF-8 in place when it already is (returns @text), or
 * returns a new string in which each byte that is not part of a valid
 * UTF-8 sequence is read as windows-1252 (U+FFFD for its five undefined
 * bytes) and NUL bytes are dropped; @text is then freed. Takes ownership
 * of @text, which must be NUL-terminated and may be NULL.
 */
G_GNUC_INTERNAL
char *
feed_text_take_valid_utf8(char *text);

/*
 * Reads a feed boolean (rule 7 of the JSON contract): trimmed,
 * case-insensitive `yes`, `true`, `explicit` give 1; `no`, `false`, `clean`
 * give 0; anything else, and NULL, gives -1.
 */
G_GNUC_INTERNAL
int
feed_text_parse_bool(const char *text);

/*
 * Reads a decimal integer, surrounding whitespace allowed. Returns TRUE and
 * sets *@value when the whole of @text is one; FALSE otherwise.
 */
G_GNUC_INTERNAL
gboolean
feed_text_parse_int(const char *text, gint64 *value);

/*
 * Tells whether @text looks like HTML: it contains a match of
 * `<[a-z][a-z0-9]*(\s.*?>|/?>)`, case-insensitive.
 */
G_GNUC_INTERNAL
gboolean
feed_text_looks_like_html(const char *text);

#endif
