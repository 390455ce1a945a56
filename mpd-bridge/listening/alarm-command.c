/*
 * The `alarm` command: set, list and remove alarms. The same parse runs
 * on the command line before the daemon is asked (bridge_alarm_check)
 * and in the daemon, so a typo is a usage error wherever it is typed.
 */
#include "listening/alarm-private.h"

#include "core/call.h"
#include "core/identity.h"

#include <string.h>

#define MAX_ALARMS 20

#define usage_error(error, ...)                                                \
	bridge_command_fail(error, BRIDGE_COMMAND_ERROR_USAGE, __VA_ARGS__)

/*
 * `HH:MM[:SS] [REPEAT] [WHAT]` into @alarm; for latest, the FEED as
 * typed goes to *@feed. Words after WHAT are one name: a playlist or a
 * feed may have spaces.
 */
static gboolean
parse_set(char **args, BridgeAlarm *alarm, char **feed, GError **error)
{
	guint i = 1;

	if (!bridge_alarm_parse_time(args[0], &alarm->time, error))
		return FALSE;
	alarm->repeat = BRIDGE_ALARM_DAILY;
	if (args[i] != NULL) {
		for (int r = BRIDGE_ALARM_DAILY; r <= BRIDGE_ALARM_ONCE; r++)
			if (strcmp(args[i], bridge_alarm_repeat_name(
			                            (BridgeAlarmRepeat)r)) ==
			    0) {
				alarm->repeat = (BridgeAlarmRepeat)r;
				i++;
				break;
			}
	}
	alarm->what = BRIDGE_ALARM_NEW;
	if (args[i] == NULL)
		return TRUE;
	if (strcmp(args[i], "new") == 0 || strcmp(args[i], "continue") == 0) {
		alarm->what = strcmp(args[i], "new") == 0
		                      ? BRIDGE_ALARM_NEW
		                      : BRIDGE_ALARM_CONTINUE;
		if (args[i + 1] != NULL)
			return usage_error(error,
			                   "alarm … %s takes nothing after it, "
			                   "not '%s'",
			                   args[i], args[i + 1]);
		return TRUE;
	}
	if (strcmp(args[i], "latest") == 0) {
		if (args[i + 1] == NULL)
			return usage_error(error,
			                   "alarm … latest needs a FEED");
		alarm->what = BRIDGE_ALARM_LATEST;
		*feed = g_strjoinv(" ", args + i + 1);
		return TRUE;
	}
	alarm->what = BRIDGE_ALARM_PLAYLIST;
	alarm->target = g_strjoinv(" ", args + i);
	return TRUE;
}

static gboolean
parse_off(char **args, guint *n, GError **error)
{
	guint64 value;

	if (args[1] == NULL || args[2] != NULL ||
	    !g_ascii_string_to_unsigned(args[1], 10, 1, G_MAXUINT, &value,
	                                NULL))
		return usage_error(error,
		                   "alarm off takes the number of an alarm "
		                   "(see mpd-bridge alarm list)");
	*n = (guint)value;
	return TRUE;
}

static gboolean
is_list(char **args)
{
	return args[0] == NULL ||
	       (strcmp(args[0], "list") == 0 && args[1] == NULL);
}

gboolean
bridge_alarm_check(char **args, GError **error)
{
	g_autoptr(BridgeAlarm) alarm = g_new0(BridgeAlarm, 1);
	g_autofree char *feed = NULL;
	guint n;

	if (is_list(args))
		return TRUE;
	if (strcmp(args[0], "off") == 0)
		return parse_off(args, &n, error);
	return parse_set(args, alarm, &feed, error);
}

/* "07:00 daily, latest Tech Talk; next Tue 07:00" */
static void
append_alarm(Bridge *bridge, const BridgeAlarm *alarm, GString *out)
{
	g_autofree char *time = bridge_alarm_format_time(alarm->time);
	g_autofree char *what = bridge_alarm_describe_what(bridge, alarm);
	g_autofree char *next = bridge_alarm_format_next(alarm);

	g_string_append_printf(out, "%s %s, %s; next %s", time,
	                       bridge_alarm_repeat_name(alarm->repeat), what,
	                       next);
}

static void
list(Bridge *bridge, GString *out)
{
	g_autoptr(GPtrArray) alarms = bridge_alarm_load(bridge);

	if (alarms->len == 0)
		g_string_append(out, "no alarms");
	for (guint i = 0; i < alarms->len; i++) {
		g_string_append_printf(out, "%s%u: ", i > 0 ? "\n" : "", i + 1);
		append_alarm(bridge, alarms->pdata[i], out);
	}
}

static gboolean
off(Bridge *bridge, guint n, GString *out, GError **error)
{
	g_autoptr(GPtrArray) alarms = bridge_alarm_load(bridge);

	if (n > alarms->len)
		return bridge_command_fail(error, BRIDGE_COMMAND_ERROR_FAILED,
		                           "there is no alarm %u (see "
		                           "mpd-bridge alarm list)",
		                           n);
	g_string_append_printf(out, "alarm %u off: ", n);
	append_alarm(bridge, alarms->pdata[n - 1], out);
	g_message("%s", out->str);
	g_ptr_array_remove_index(alarms, n - 1);
	bridge_alarm_save(bridge, alarms);
	bridge_alarm_schedule(bridge);
	return TRUE;
}

static gboolean
set(Bridge *bridge, char **args, GString *out, GError **error)
{
	g_autoptr(BridgeAlarm) alarm = g_new0(BridgeAlarm, 1);
	g_autoptr(GPtrArray) alarms = bridge_alarm_load(bridge);
	g_autoptr(GTimeZone) tz = g_time_zone_new_local();
	g_autofree char *feed_key = NULL;
	const BridgeFeed *feed;

	if (!parse_set(args, alarm, &feed_key, error))
		return FALSE;
	if (feed_key != NULL) {
		feed = bridge_identity_find_feed(bridge, feed_key, error);
		if (feed == NULL)
			return FALSE;
		alarm->target = g_strdup(feed->id);
	}
	if (alarms->len >= MAX_ALARMS)
		return bridge_command_fail(error, BRIDGE_COMMAND_ERROR_FAILED,
		                           "%u alarms are set, the most there "
		                           "may be: turn one off first",
		                           alarms->len);
	alarm->next = bridge_alarm_next(tz, g_get_real_time() / G_USEC_PER_SEC,
	                                alarm->time, alarm->repeat);
	g_string_append_printf(out, "alarm %u: ", alarms->len + 1);
	append_alarm(bridge, alarm, out);
	g_message("%s", out->str);
	g_ptr_array_add(alarms, g_steal_pointer(&alarm));
	bridge_alarm_save(bridge, alarms);
	bridge_alarm_schedule(bridge);
	return TRUE;
}

gboolean
bridge_alarm_run(Bridge *bridge, char **args, GString *out, GError **error)
{
	guint n = 0;

	if (is_list(args)) {
		list(bridge, out);
		return TRUE;
	}
	if (strcmp(args[0], "off") == 0)
		return parse_off(args, &n, error) && off(bridge, n, out, error);
	return set(bridge, args, out, error);
}
