/* A UTF-8 document made fit for libxml2 before it reads it. */
#ifndef FEED_UTF8_INPUT_PRIVATE_H
#define FEED_UTF8_INPUT_PRIVATE_H

#include <glib.h>

/*
 * Reads the @length bytes at @data, a stretch of a UTF-8 document, and
 * returns how many of them can go to libxml2 now: all, unless they end
 * inside a character and more may come (@at_end false). When some of
 * those bytes are not allowed, *@repaired is set to a new string of them
 * in which each byte that is not part of a UTF-8 character is read as
 * windows-1252, C0 controls other than TAB, LF and CR are dropped, and
 * U+FFFE and U+FFFF are U+FFFD; *@first is then the offset of the first
 * byte not allowed. Otherwise *@repaired is NULL and the bytes go as they
 * are.
 */
G_GNUC_INTERNAL
gsize
feed_utf8_input_repair(const char *data, gsize length, gboolean at_end,
                       GString **repaired, gsize *first);

#endif
