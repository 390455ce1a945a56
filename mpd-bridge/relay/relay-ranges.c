/*
 * A sorted array of disjoint ranges that do not touch. A cache file of an
 * episode has a few of them (one per place MPD jumped to), so a linear
 * look is enough; GLib has no interval set.
 */
#include "relay/relay-ranges.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	guint64 start;
	guint64 end; /* exclusive */
} Range;

struct BridgeRanges {
	GArray *items; /* of Range, sorted, disjoint, not touching */
};

BridgeRanges *
bridge_ranges_new(void)
{
	BridgeRanges *ranges = g_new0(BridgeRanges, 1);

	ranges->items = g_array_new(FALSE, FALSE, sizeof(Range));
	return ranges;
}

void
bridge_ranges_free(BridgeRanges *ranges)
{
	if (ranges == NULL)
		return;
	g_array_unref(ranges->items);
	g_free(ranges);
}

static Range *
item(const BridgeRanges *ranges, guint i)
{
	return &g_array_index(ranges->items, Range, i);
}

void
bridge_ranges_add(BridgeRanges *ranges, guint64 start, guint64 end)
{
	guint i = 0, j;
	Range merged = { start, end };

	g_return_if_fail(end > start);
	/* The first range that ends at or after @start touches or follows. */
	while (i < ranges->items->len && item(ranges, i)->end < start)
		i++;
	/* Those from i that start at or before @end merge into one. */
	for (j = i; j < ranges->items->len && item(ranges, j)->start <= end;
	     j++) {
		merged.start = MIN(merged.start, item(ranges, j)->start);
		merged.end = MAX(merged.end, item(ranges, j)->end);
	}
	if (j > i)
		g_array_remove_range(ranges->items, i, j - i);
	g_array_insert_val(ranges->items, i, merged);
}

void
bridge_ranges_clear(BridgeRanges *ranges)
{
	g_array_set_size(ranges->items, 0);
}

guint64
bridge_ranges_end_from(const BridgeRanges *ranges, guint64 offset)
{
	for (guint i = 0; i < ranges->items->len; i++) {
		const Range *r = item(ranges, i);

		if (r->start > offset)
			break;
		if (offset < r->end)
			return r->end;
	}
	return offset;
}

guint64
bridge_ranges_next_missing(const BridgeRanges *ranges, guint64 offset,
                           guint64 total)
{
	guint64 at = bridge_ranges_end_from(ranges, offset);

	return total > 0 ? MIN(at, total) : at;
}

guint64
bridge_ranges_next_start(const BridgeRanges *ranges, guint64 offset)
{
	for (guint i = 0; i < ranges->items->len; i++)
		if (item(ranges, i)->start > offset)
			return item(ranges, i)->start;
	return G_MAXUINT64;
}

gboolean
bridge_ranges_is_whole(const BridgeRanges *ranges, guint64 total)
{
	return total > 0 && bridge_ranges_end_from(ranges, 0) >= total;
}

guint64
bridge_ranges_bytes(const BridgeRanges *ranges)
{
	guint64 bytes = 0;

	for (guint i = 0; i < ranges->items->len; i++)
		bytes += item(ranges, i)->end - item(ranges, i)->start;
	return bytes;
}

char *
bridge_ranges_to_string(const BridgeRanges *ranges)
{
	GString *text = g_string_new(NULL);

	for (guint i = 0; i < ranges->items->len; i++)
		g_string_append_printf(
		        text, "%s%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT,
		        i > 0 ? "," : "", item(ranges, i)->start,
		        item(ranges, i)->end);
	return g_string_free(text, FALSE);
}

static gboolean
parse_number(const char *text, guint64 *value)
{
	return g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT64, value,
	                                  NULL);
}

BridgeRanges *
bridge_ranges_parse(const char *text)
{
	g_autoptr(BridgeRanges) ranges = bridge_ranges_new();
	g_auto(GStrv) parts = NULL;
	guint64 last_end = 0;

	if (*text == '\0')
		return g_steal_pointer(&ranges);
	parts = g_strsplit(text, ",", -1);
	for (guint i = 0; parts[i] != NULL; i++) {
		g_auto(GStrv) ends = g_strsplit(parts[i], "-", 3);
		guint64 start, end;

		if (g_strv_length(ends) != 2 ||
		    !parse_number(ends[0], &start) ||
		    !parse_number(ends[1], &end) || end <= start ||
		    (i > 0 && start <= last_end))
			return NULL;
		g_array_append_val(ranges->items,
		                   ((Range){ .start = start, .end = end }));
		last_end = end;
	}
	return g_steal_pointer(&ranges);
}
