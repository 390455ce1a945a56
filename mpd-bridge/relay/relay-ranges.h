/*
 * Which bytes of a file are there: a sorted set of byte ranges, merged as
 * they touch. The relay keeps one per cache file, so that it answers
 * from the disk what it has and asks the host only for the rest.
 */
#ifndef BRIDGE_RELAY_RANGES_H
#define BRIDGE_RELAY_RANGES_H

#include <glib.h>

typedef struct BridgeRanges BridgeRanges;

BridgeRanges *
bridge_ranges_new(void);

void
bridge_ranges_free(BridgeRanges *ranges);

/* Notes that bytes [@start, @end) are there; @end > @start. */
void
bridge_ranges_add(BridgeRanges *ranges, guint64 start, guint64 end);

/* Forgets every range. */
void
bridge_ranges_clear(BridgeRanges *ranges);

/*
 * Where the bytes that are there from @offset on end: the end of the
 * range that holds @offset, or @offset itself when it holds none.
 */
guint64
bridge_ranges_end_from(const BridgeRanges *ranges, guint64 offset);

/*
 * The first byte at or after @offset that is not there; with @total (0:
 * unknown) the bytes past it count as there, so that @total means none
 * is missing from @offset on.
 */
guint64
bridge_ranges_next_missing(const BridgeRanges *ranges, guint64 offset,
                           guint64 total);

/* Where the next range after @offset starts; G_MAXUINT64 when none. */
guint64
bridge_ranges_next_start(const BridgeRanges *ranges, guint64 offset);

/* Whether every byte of [0, @total) is there; FALSE for @total 0. */
gboolean
bridge_ranges_is_whole(const BridgeRanges *ranges, guint64 total);

/* Bytes there in all. */
guint64
bridge_ranges_bytes(const BridgeRanges *ranges);

/* As text, "0-1000,5000-8000" (ends exclusive); "" when empty. */
char *
bridge_ranges_to_string(const BridgeRanges *ranges);

/*
 * Reads what bridge_ranges_to_string() wrote into a new set; NULL when
 * @text is not that (a damaged record).
 */
BridgeRanges *
bridge_ranges_parse(const char *text);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(BridgeRanges, bridge_ranges_free)

#endif
