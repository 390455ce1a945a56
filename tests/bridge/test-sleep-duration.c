/*
 * What `mpd-bridge sleep` takes as a DURATION, and what it refuses: the
 * command line checks it before asking the daemon, so a bad one is a
 * usage error (exit 2) there.
 */
#include "core/call.h"
#include "listening/sleep.h"

#include <string.h>

static void
test_taken(void)
{
	static const struct {
		const char *text;
		gint64 ms;
	} cases[] = {
		{ "20", 20 * 60000 }, { "0.5", 30000 },     { "90s", 90000 },
		{ "20m", 1200000 },   { "1h", 3600000 },    { "1.5h", 5400000 },
		{ "1s", 1000 },       { "24h", 86400000 },  { ".5", 30000 },
		{ "2.", 120000 },     { "1440", 86400000 },
	};

	g_test_summary("minutes, or a number with s, m or h");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		gint64 ms = 0;

		g_assert_true(bridge_sleep_parse_duration(cases[i].text, &ms,
		                                          &error));
		g_assert_no_error(error);
		g_assert_cmpint(ms, ==, cases[i].ms);
	}
}

static void
test_refused(void)
{
	static const char *const bad[] = {
		"-1",  "x",    "",     ".",  "1.2.3", "1e3", "0x10", "inf",
		"nan", "20mm", "20 m", "+5", "5d",    "m",   "1,5",
	};
	static const char *const out_of_range[] = {
		"0", "0.01", "0.9s", "25h", "1441", "99999999999999999999",
	};

	g_test_summary("a bad DURATION is a usage error that says why");
	for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(GError) error = NULL;
		gint64 ms = 0;

		g_assert_false(
		        bridge_sleep_parse_duration(bad[i], &ms, &error));
		g_assert_error(error, BRIDGE_COMMAND_ERROR,
		               BRIDGE_COMMAND_ERROR_USAGE);
		g_assert_nonnull(strstr(error->message, "sleep takes minutes"));
	}
	for (gsize i = 0; i < G_N_ELEMENTS(out_of_range); i++) {
		g_autoptr(GError) error = NULL;
		gint64 ms = 0;

		g_assert_false(bridge_sleep_parse_duration(out_of_range[i], &ms,
		                                           &error));
		g_assert_error(error, BRIDGE_COMMAND_ERROR,
		               BRIDGE_COMMAND_ERROR_USAGE);
		g_assert_nonnull(strstr(error->message, "from 1 s to 24 h"));
	}
}

static void
test_check(void)
{
	char *end[] = { "end", NULL };
	char *off[] = { "off", NULL };
	char *none[] = { NULL };
	char *bad[] = { "soon", NULL };
	g_autoptr(GError) error = NULL;

	g_test_summary("the command line's check passes the words it knows");
	g_assert_true(bridge_sleep_check(end, NULL));
	g_assert_true(bridge_sleep_check(off, NULL));
	g_assert_true(bridge_sleep_check(none, NULL));
	g_assert_false(bridge_sleep_check(bad, &error));
	g_assert_error(error, BRIDGE_COMMAND_ERROR, BRIDGE_COMMAND_ERROR_USAGE);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add_func("/sleep/duration/taken", test_taken);
	g_test_add_func("/sleep/duration/refused", test_refused);
	g_test_add_func("/sleep/duration/check", test_check);
	return g_test_run();
}
