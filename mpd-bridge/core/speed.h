/*
 * Playback speeds as a person writes them ("1.5", "2", "1.25") and as
 * the bridge keeps them: hundredths, so 150 is 1.5× and 100 is 1×.
 * Nothing here talks to MPD.
 */
#ifndef BRIDGE_CORE_SPEED_H
#define BRIDGE_CORE_SPEED_H

#include <glib.h>

#define BRIDGE_SPEED_NORMAL 100 /* 1× */
#define BRIDGE_SPEED_MIN    50  /* 0.5×: atempo's own floor */
#define BRIDGE_SPEED_MAX    300 /* 3× */

/*
 * Reads @text ("1.5", "1.25", "2", "1.5x" or "1.5×"; at most two
 * decimals) into hundredths. FALSE when it is no number, has more
 * decimals, or lies outside 0.5–3.0.
 */
gboolean
bridge_speed_parse(const char *text, guint *hundredths);

/* "1.5", "2", "1.25" for 150, 200, 125: returns a new string. */
char *
bridge_speed_format(guint hundredths);

#endif
