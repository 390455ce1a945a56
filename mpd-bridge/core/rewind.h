/*
 * How far an episode goes back when it plays on after a pause, as a
 * person writes it in [listening] rewind_after_pause: steps of a pause's
 * length and the seconds back after one that long, "1m:3 1h:10 1d:20"
 * (AntennaPod's rule). Nothing here talks to MPD.
 */
#ifndef BRIDGE_CORE_REWIND_H
#define BRIDGE_CORE_REWIND_H

#include <glib.h>

#define BRIDGE_REWIND_MAX_STEPS 8
#define BRIDGE_REWIND_MAX_PAUSE (366 * 86400) /* seconds: a step's pause */
#define BRIDGE_REWIND_MAX_BACK  600           /* seconds: a step's rewind */

typedef struct {
	guint pause_s; /* a pause longer than this many seconds, 1 or more */
	guint back_s;  /* goes back this many seconds; 0: not at all */
} BridgeRewindStep;

typedef struct {
	BridgeRewindStep steps[BRIDGE_REWIND_MAX_STEPS]; /* pause_s rising */
	guint n_steps; /* 0: an episode never goes back */
} BridgeRewind;

/* The default steps: 3 s after a minute, 10 s after an hour, 20 after a day. */
void
bridge_rewind_init_default(BridgeRewind *rewind);

/*
 * Reads @text into @rewind: steps PAUSE:BACK apart by spaces or commas,
 * PAUSE a whole number of seconds, or with s, m, h or d, BACK whole
 * seconds (an "s" may follow); the pauses rising. "none" or nothing: no
 * steps. FALSE, and @rewind as it was, when @text is none of that or a
 * number lies outside the limits above.
 */
gboolean
bridge_rewind_parse(const char *text, BridgeRewind *rewind);

/*
 * Seconds to go back after a pause of @pause_s: those of the longest
 * step that the pause is longer than; 0 when none is.
 */
guint
bridge_rewind_seconds(const BridgeRewind *rewind, gint64 pause_s);

/* A pause's length for the log: "45 s", "5 min", "3 h", "2 days". */
char *
bridge_rewind_describe_pause(gint64 pause_s);

#endif
