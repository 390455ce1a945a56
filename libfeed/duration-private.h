/* Episode durations (itunes:duration, psc:chapter start). */
#ifndef FEED_DURATION_PRIVATE_H
#define FEED_DURATION_PRIVATE_H

#include <glib.h>

/*
 * Parses a duration: `H:MM:SS`, `M:SS`, `S`, each with an optional
 * fraction that is dropped, or ISO 8601 `PT#H#M#S`. Surrounding spaces are
 * ignored. Returns seconds, or 0 when @text is NULL, empty, negative, larger
 * than 2^53-1 or unparseable.
 */
G_GNUC_INTERNAL
gint64
feed_duration_parse(const char *text);

#endif
