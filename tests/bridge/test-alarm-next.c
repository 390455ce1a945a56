/*
 * When an alarm rings next (bridge_alarm_next) and which times `alarm`
 * takes. The days are computed in a fixed zone, Europe/Berlin, so that
 * the changes to and from summer time fall on known days.
 */
#include "core/call.h"
#include "listening/alarm.h"

#define HOUR 3600

static GTimeZone *
berlin(void)
{
	GTimeZone *tz = g_time_zone_new_identifier("Europe/Berlin");

	g_assert_nonnull(tz);
	return tz;
}

/* Unix seconds of a wall-clock time in @tz. */
static gint64
at(GTimeZone *tz, int year, int month, int day, int hour, int minute)
{
	g_autoptr(GDateTime) time =
	        g_date_time_new(tz, year, month, day, hour, minute, 0);

	g_assert_nonnull(time);
	return g_date_time_to_unix(time);
}

/* The local wall clock of @unix in @tz, as "2024-03-31 07:00 +02". */
static char *
wall(GTimeZone *tz, gint64 unix)
{
	g_autoptr(GDateTime) utc = g_date_time_new_from_unix_utc(unix);
	g_autoptr(GDateTime) here = g_date_time_to_timezone(utc, tz);

	return g_date_time_format(here, "%Y-%m-%d %H:%M:%S %z");
}

static void
assert_next(GTimeZone *tz, gint64 after, int seconds, BridgeAlarmRepeat repeat,
            const char *expected)
{
	g_autofree char *got =
	        wall(tz, bridge_alarm_next(tz, after, seconds, repeat));

	g_assert_cmpstr(got, ==, expected);
}

static void
test_daily(void)
{
	g_autoptr(GTimeZone) tz = berlin();

	g_test_summary("daily: today when it is still to come, else "
	               "tomorrow; the time itself is past");
	/* Monday 3 June 2024. */
	assert_next(tz, at(tz, 2024, 6, 3, 6, 0), 7 * HOUR, BRIDGE_ALARM_DAILY,
	            "2024-06-03 07:00:00 +0200");
	assert_next(tz, at(tz, 2024, 6, 3, 7, 0), 7 * HOUR, BRIDGE_ALARM_DAILY,
	            "2024-06-04 07:00:00 +0200");
	assert_next(tz, at(tz, 2024, 6, 3, 8, 0), 7 * HOUR, BRIDGE_ALARM_DAILY,
	            "2024-06-04 07:00:00 +0200");
	/* Seconds count: a test sets one a few seconds ahead. */
	assert_next(tz, at(tz, 2024, 6, 3, 7, 0), 7 * HOUR + 3,
	            BRIDGE_ALARM_DAILY, "2024-06-03 07:00:03 +0200");
	/* The last day of the year goes on to the next. */
	assert_next(tz, at(tz, 2024, 12, 31, 23, 0), 6 * HOUR + 30 * 60,
	            BRIDGE_ALARM_DAILY, "2025-01-01 06:30:00 +0100");
}

static void
test_once(void)
{
	g_autoptr(GTimeZone) tz = berlin();

	g_test_summary("once: the next time the clock shows it, tomorrow "
	               "when it is past today");
	assert_next(tz, at(tz, 2024, 6, 3, 6, 59), 7 * HOUR, BRIDGE_ALARM_ONCE,
	            "2024-06-03 07:00:00 +0200");
	assert_next(tz, at(tz, 2024, 6, 3, 8, 0), 7 * HOUR, BRIDGE_ALARM_ONCE,
	            "2024-06-04 07:00:00 +0200");
}

static void
test_weekdays(void)
{
	g_autoptr(GTimeZone) tz = berlin();

	g_test_summary("weekdays: Monday to Friday; from Friday after the "
	               "time, or the weekend, Monday");
	/* Friday 7 June 2024. */
	assert_next(tz, at(tz, 2024, 6, 7, 6, 0), 7 * HOUR,
	            BRIDGE_ALARM_WEEKDAYS, "2024-06-07 07:00:00 +0200");
	assert_next(tz, at(tz, 2024, 6, 7, 8, 0), 7 * HOUR,
	            BRIDGE_ALARM_WEEKDAYS, "2024-06-10 07:00:00 +0200");
	assert_next(tz, at(tz, 2024, 6, 8, 6, 0), 7 * HOUR,
	            BRIDGE_ALARM_WEEKDAYS, "2024-06-10 07:00:00 +0200");
	assert_next(tz, at(tz, 2024, 6, 9, 23, 59), 7 * HOUR,
	            BRIDGE_ALARM_WEEKDAYS, "2024-06-10 07:00:00 +0200");
	/* Monday after the time: Tuesday. */
	assert_next(tz, at(tz, 2024, 6, 10, 7, 30), 7 * HOUR,
	            BRIDGE_ALARM_WEEKDAYS, "2024-06-11 07:00:00 +0200");
}

static void
test_spring_forward(void)
{
	g_autoptr(GTimeZone) tz = berlin();
	gint64 saturday = at(tz, 2024, 3, 30, 7, 0);
	gint64 sunday =
	        bridge_alarm_next(tz, saturday, 7 * HOUR, BRIDGE_ALARM_DAILY);

	g_test_summary("the night summer time starts (31 March 2024): 07:00 "
	               "stays 07:00, 23 hours after the day before's; a time "
	               "in the skipped hour rings at its end");
	g_assert_cmpint(sunday - saturday, ==, 23 * HOUR);
	assert_next(tz, saturday, 7 * HOUR, BRIDGE_ALARM_DAILY,
	            "2024-03-31 07:00:00 +0200");
	assert_next(tz, saturday, 2 * HOUR + 30 * 60, BRIDGE_ALARM_DAILY,
	            "2024-03-31 03:00:00 +0200");
	/* And the day after is 24 hours on again. */
	assert_next(tz, sunday, 7 * HOUR, BRIDGE_ALARM_DAILY,
	            "2024-04-01 07:00:00 +0200");
}

static void
test_fall_back(void)
{
	g_autoptr(GTimeZone) tz = berlin();
	gint64 saturday = at(tz, 2024, 10, 26, 7, 0);
	gint64 sunday =
	        bridge_alarm_next(tz, saturday, 7 * HOUR, BRIDGE_ALARM_DAILY);

	g_test_summary("the night summer time ends (27 October 2024): 07:00 "
	               "stays 07:00, 25 hours after the day before's; a time "
	               "of the hour that comes twice rings the first time");
	g_assert_cmpint(sunday - saturday, ==, 25 * HOUR);
	assert_next(tz, saturday, 7 * HOUR, BRIDGE_ALARM_DAILY,
	            "2024-10-27 07:00:00 +0100");
	assert_next(tz, saturday, 2 * HOUR + 30 * 60, BRIDGE_ALARM_ONCE,
	            "2024-10-27 02:30:00 +0200");
	/* Rung at the first: not again an hour later, but the next day. */
	assert_next(tz, at(tz, 2024, 10, 27, 0, 30) + 2 * HOUR,
	            2 * HOUR + 30 * 60, BRIDGE_ALARM_DAILY,
	            "2024-10-28 02:30:00 +0100");
}

static void
test_parse_time(void)
{
	static const struct {
		const char *text;
		int seconds;
	} taken[] = {
		{ "07:00", 7 * HOUR },
		{ "7:00", 7 * HOUR },
		{ "00:00", 0 },
		{ "23:59", 23 * HOUR + 59 * 60 },
		{ "06:59:30", 6 * HOUR + 59 * 60 + 30 },
	};
	static const char *const refused[] = {
		"",      "7",      "24:00",       "07:60", "07:00:60",
		"7:0",   "007:00", "07:00:00:00", "-1:00", "+7:00",
		"07:0a", "07.00",  "07:00 ",
	};

	g_test_summary("HH:MM or HH:MM:SS, a one-digit hour too; nothing "
	               "else");
	for (gsize i = 0; i < G_N_ELEMENTS(taken); i++) {
		g_autoptr(GError) error = NULL;
		int seconds = -1;

		g_assert_true(bridge_alarm_parse_time(taken[i].text, &seconds,
		                                      &error));
		g_assert_no_error(error);
		g_assert_cmpint(seconds, ==, taken[i].seconds);
	}
	for (gsize i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_autoptr(GError) error = NULL;
		int seconds = -1;

		g_assert_false(
		        bridge_alarm_parse_time(refused[i], &seconds, &error));
		g_assert_error(error, BRIDGE_COMMAND_ERROR,
		               BRIDGE_COMMAND_ERROR_USAGE);
		g_assert_cmpint(seconds, ==, -1);
	}
}

static void
test_check(void)
{
	char *none[] = { NULL };
	char *list[] = { "list", NULL };
	char *off[] = { "off", "2", NULL };
	char *full[] = { "07:00", "weekdays", "latest", "Tech", "Talk", NULL };
	char *playlist[] = { "6:30", "Morning", "mix", NULL };
	char *bad[][4] = {
		{ "off", NULL },
		{ "off", "0", NULL },
		{ "off", "x", NULL },
		{ "soon", NULL },
		{ "07:00", "latest", NULL },
		{ "07:00", "new", "x", NULL },
	};

	g_test_summary("the command line's check passes the forms it knows "
	               "and refuses the rest as usage errors");
	g_assert_true(bridge_alarm_check(none, NULL));
	g_assert_true(bridge_alarm_check(list, NULL));
	g_assert_true(bridge_alarm_check(off, NULL));
	g_assert_true(bridge_alarm_check(full, NULL));
	g_assert_true(bridge_alarm_check(playlist, NULL));
	for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(GError) error = NULL;

		g_assert_false(bridge_alarm_check(bad[i], &error));
		g_assert_error(error, BRIDGE_COMMAND_ERROR,
		               BRIDGE_COMMAND_ERROR_USAGE);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add_func("/alarm/next/daily", test_daily);
	g_test_add_func("/alarm/next/once", test_once);
	g_test_add_func("/alarm/next/weekdays", test_weekdays);
	g_test_add_func("/alarm/next/spring-forward", test_spring_forward);
	g_test_add_func("/alarm/next/fall-back", test_fall_back);
	g_test_add_func("/alarm/parse/time", test_parse_time);
	g_test_add_func("/alarm/parse/check", test_check);
	return g_test_run();
}
