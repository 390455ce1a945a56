/*
 * What alarm.c (the state and the ringing) and alarm-command.c (the
 * command) share.
 */
#ifndef BRIDGE_ALARM_PRIVATE_H
#define BRIDGE_ALARM_PRIVATE_H

#include "listening/alarm.h"

typedef enum {
	BRIDGE_ALARM_NEW,      /* the newest unlistened episodes */
	BRIDGE_ALARM_CONTINUE, /* the episodes in progress, last played first */
	BRIDGE_ALARM_LATEST,   /* the newest episode of one feed */
	BRIDGE_ALARM_PLAYLIST, /* a stored playlist of MPD's */
} BridgeAlarmWhat;

/* One alarm, as the state's [alarms] group keeps it. */
typedef struct {
	int time; /* seconds after midnight, local time */
	BridgeAlarmRepeat repeat;
	BridgeAlarmWhat what;
	char *target; /* BRIDGE_ALARM_LATEST: the feed's id;
	                 BRIDGE_ALARM_PLAYLIST: its name; else NULL */
	gint64 next;  /* Unix seconds it rings next */
} BridgeAlarm;

void
bridge_alarm_free(BridgeAlarm *alarm);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(BridgeAlarm, bridge_alarm_free)

/*
 * The alarms of the state, in the order they were set: a new array of
 * BridgeAlarm. An entry that cannot be read is logged and left out.
 */
GPtrArray *
bridge_alarm_load(Bridge *bridge);

/* Writes @alarms (of BridgeAlarm) as the state's alarms, and notes the change.
 */
void
bridge_alarm_save(Bridge *bridge, GPtrArray *alarms);

/* "07:00", or "06:59:30" when there are seconds: a new string. */
char *
bridge_alarm_format_time(int seconds);

/* "Tue 07:00" (with seconds when it has them): a new string. */
char *
bridge_alarm_format_next(const BridgeAlarm *alarm);

/* "daily", "weekdays" or "once". */
const char *
bridge_alarm_repeat_name(BridgeAlarmRepeat repeat);

/* "new", "continue", "latest NAME" or "playlist NAME": a new string. */
char *
bridge_alarm_describe_what(Bridge *bridge, const BridgeAlarm *alarm);

#endif
