/*
 * The wake-up alarm, `mpd-bridge alarm`: at a time of day (local time),
 * once, every day or on weekdays, it queues the newest episode of a
 * podcast, the new episodes, the episodes in progress or a stored
 * playlist, starts MPD playing quietly and raises the volume over
 * [bridge] alarm_fade seconds to where it was. Alarms are kept in the
 * state file's [alarms] group, so they outlive the daemon; one missed by
 * more than ten minutes while nothing ran is skipped, not played late.
 */
#ifndef BRIDGE_ALARM_H
#define BRIDGE_ALARM_H

#include "core/bridge.h"

typedef enum {
	BRIDGE_ALARM_DAILY,
	BRIDGE_ALARM_WEEKDAYS, /* Monday to Friday */
	BRIDGE_ALARM_ONCE,     /* the next time the clock shows it, then gone */
} BridgeAlarmRepeat;

/*
 * Reads a time of day, "7:00", "07:00" or "06:59:30", into seconds after
 * midnight (*@seconds). Anything else is a BRIDGE_COMMAND_ERROR_USAGE
 * error that says what is taken.
 */
gboolean
bridge_alarm_parse_time(const char *text, int *seconds, GError **error);

/*
 * When an alarm at @seconds after midnight in @tz rings next: the Unix
 * time of the first such wall-clock time after @after (Unix seconds), on
 * a day that @repeat allows (any for daily and once). Each day's time is
 * made from its own date in @tz, so a change to or from daylight saving
 * time moves nothing; a time that a change skips rings at the first
 * minute after the gap, and one that happens twice rings the first time.
 */
gint64
bridge_alarm_next(GTimeZone *tz, gint64 after, int seconds,
                  BridgeAlarmRepeat repeat);

/*
 * The command, `alarm [list | off N | HH:MM[:SS] [REPEAT] [WHAT]]`, for
 * the command table: lists the alarms, removes one, or sets one.
 */
gboolean
bridge_alarm_run(Bridge *bridge, char **args, GString *out, GError **error);

/*
 * Checks the arguments of `alarm` before they go to the daemon: a bad
 * time, repeat or N is a BRIDGE_COMMAND_ERROR_USAGE error.
 */
gboolean
bridge_alarm_check(char **args, GError **error);

/*
 * Appends "; next alarm Tue 07:00 (new)" to @out for `status`, or
 * nothing when no alarm is set.
 */
void
bridge_alarm_describe_next(Bridge *bridge, GString *out);

/*
 * The daemon runs: waits for the next alarm. Alarms missed by more than
 * ten minutes are skipped and logged; those less late ring now, once
 * MPD is there.
 */
void
bridge_alarm_start(Bridge *bridge);

/* The alarms changed: the daemon waits for the next one afresh. */
void
bridge_alarm_schedule(Bridge *bridge);

/* The daemon stops: no more waiting; a fade that runs stays where it is. */
void
bridge_alarm_stop(Bridge *bridge);

/* Frees what the alarm holds; NULL bridge->alarms does nothing. */
void
bridge_alarm_clear(Bridge *bridge);

#endif
