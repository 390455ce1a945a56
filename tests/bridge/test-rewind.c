/*
 * How far an episode goes back after a pause: the steps of [listening]
 * rewind_after_pause as they are written, which step a pause gets, and
 * what a bad value says.
 */
#include "core/config.h"
#include "core/rewind.h"

#include <string.h>

static void
assert_steps(const BridgeRewind *rewind, const guint *pairs, guint n_steps)
{
	g_assert_cmpuint(rewind->n_steps, ==, n_steps);
	for (guint i = 0; i < n_steps; i++) {
		g_assert_cmpuint(rewind->steps[i].pause_s, ==, pairs[2 * i]);
		g_assert_cmpuint(rewind->steps[i].back_s, ==, pairs[2 * i + 1]);
	}
}

static void
test_default(void)
{
	static const guint antennapod[] = { 60, 3, 3600, 10, 86400, 20 };
	BridgeRewind rewind = { 0 };

	g_test_summary("The default is AntennaPod's: 3 s after a minute, "
	               "10 after an hour, 20 after a day");
	bridge_rewind_init_default(&rewind);
	assert_steps(&rewind, antennapod, 3);
	g_assert_cmpuint(bridge_rewind_seconds(&rewind, 0), ==, 0);
	g_assert_cmpuint(bridge_rewind_seconds(&rewind, 60), ==, 0);
	g_assert_cmpuint(bridge_rewind_seconds(&rewind, 61), ==, 3);
	g_assert_cmpuint(bridge_rewind_seconds(&rewind, 3600), ==, 3);
	g_assert_cmpuint(bridge_rewind_seconds(&rewind, 3601), ==, 10);
	g_assert_cmpuint(bridge_rewind_seconds(&rewind, 86401), ==, 20);
	g_assert_cmpuint(bridge_rewind_seconds(&rewind, 400 * 86400), ==, 20);
	g_assert_cmpuint(bridge_rewind_seconds(&rewind, -5), ==, 0);
}

static void
test_parse(void)
{
	static const guint same[] = { 60, 3, 3600, 10, 86400, 20 };
	static const guint seconds[] = { 2, 3, 90, 0, 7200, 600 };
	static const guint one[] = { 31622400, 1 };
	BridgeRewind rewind = { 0 };

	g_test_summary("Steps PAUSE:BACK apart by spaces or commas; a pause "
	               "with s, m, h or d, or seconds; back in seconds");
	g_assert_true(bridge_rewind_parse("1m:3 1h:10 1d:20", &rewind));
	assert_steps(&rewind, same, 3);
	g_assert_true(
	        bridge_rewind_parse(" 60s:3s,3600:10 ,, 1d:20s\t", &rewind));
	assert_steps(&rewind, same, 3);
	g_assert_true(bridge_rewind_parse("2s:3 90:0 2h:600", &rewind));
	assert_steps(&rewind, seconds, 3);
	/* A step of 0 s back turns the rewind off for pauses that long. */
	g_assert_cmpuint(bridge_rewind_seconds(&rewind, 100), ==, 0);
	g_assert_cmpuint(bridge_rewind_seconds(&rewind, 3), ==, 3);
	g_assert_true(bridge_rewind_parse("366d:1", &rewind));
	assert_steps(&rewind, one, 1);
	g_assert_true(bridge_rewind_parse("none", &rewind));
	g_assert_cmpuint(rewind.n_steps, ==, 0);
	g_assert_cmpuint(bridge_rewind_seconds(&rewind, 86400 * 9), ==, 0);
	g_assert_true(bridge_rewind_parse("1m:3", &rewind));
	g_assert_true(bridge_rewind_parse("", &rewind));
	g_assert_cmpuint(rewind.n_steps, ==, 0);
}

static void
test_refused(void)
{
	static const char *const bad[] = {
		"3",
		"1m",
		"1m:",
		":3",
		"1m:3 30s:1",
		"1m:3 1m:5",
		"0s:3",
		"1x:3",
		"1m:601",
		"367d:1",
		"1m:-3",
		"-1m:3",
		"1.5m:3",
		"1m:3.5",
		"1m:3m",
		"1 m:3",
		"1m=3",
		"nothing",
		"1m:3 none",
		"99999999999999999999:1",
		"1s:1 2s:1 3s:1 4s:1 5s:1 6s:1 7s:1 8s:1 9s:1",
	};
	BridgeRewind rewind;

	g_test_summary("A bad value is refused, and the steps stay as they "
	               "were");
	bridge_rewind_init_default(&rewind);
	for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_test_message("%s", bad[i]);
		g_assert_false(bridge_rewind_parse(bad[i], &rewind));
		g_assert_cmpuint(rewind.n_steps, ==, 3);
		g_assert_cmpuint(rewind.steps[2].back_s, ==, 20);
	}
}

static void
test_describe(void)
{
	static const struct {
		gint64 pause_s;
		const char *text;
	} cases[] = {
		{ 0, "0 s" },      { 45, "45 s" },       { 119, "119 s" },
		{ 120, "2 min" },  { 3599, "59 min" },   { 7200, "2 h" },
		{ 86400, "24 h" }, { 172800, "2 days" },
	};

	g_test_summary("A pause's length for the log");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *text =
		        bridge_rewind_describe_pause(cases[i].pause_s);

		g_assert_cmpstr(text, ==, cases[i].text);
	}
}

static BridgeConfig *
load(const char *text, GError **error)
{
	g_autofree char *folder =
	        g_build_filename(g_get_user_config_dir(), "mpd-bridge", NULL);
	g_autofree char *path = g_build_filename(folder, "config", NULL);

	g_assert_cmpint(g_mkdir_with_parents(folder, 0700), ==, 0);
	g_assert_true(g_file_set_contents(path, text, -1, NULL));
	return bridge_config_load(path, error);
}

static void
test_config(void)
{
	static const guint short_steps[] = { 2, 3, 3600, 10 };
	g_autoptr(GError) error = NULL;
	BridgeConfig *config = load("[bridge]\nkeep=5\n", &error);

	g_test_summary("[listening] rewind_after_pause: the default without "
	               "it, the steps it gives, and a bad one that names the "
	               "key and the form");
	g_assert_no_error(error);
	g_assert_cmpuint(config->rewind.n_steps, ==, 3);
	g_assert_cmpuint(config->rewind.steps[0].pause_s, ==, 60);
	bridge_config_free(config);

	config = load("[listening]\nrewind_after_pause = 2s:3 1h:10\n", &error);
	g_assert_no_error(error);
	assert_steps(&config->rewind, short_steps, 2);
	bridge_config_free(config);

	config = load("[listening]\nrewind_after_pause=none\n", &error);
	g_assert_no_error(error);
	g_assert_cmpuint(config->rewind.n_steps, ==, 0);
	bridge_config_free(config);

	config = load("[listening]\nrewind_after_pause=1h:3 1m:10\n", &error);
	g_assert_null(config);
	g_assert_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE);
	g_test_message("%s", error->message);
	g_assert_nonnull(strstr(error->message, "[listening] "
	                                        "rewind_after_pause is steps "
	                                        "PAUSE:SECONDS"));
	g_assert_nonnull(strstr(error->message, "'1h:3 1m:10'"));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add_func("/rewind/default", test_default);
	g_test_add_func("/rewind/parse", test_parse);
	g_test_add_func("/rewind/refused", test_refused);
	g_test_add_func("/rewind/describe", test_describe);
	g_test_add_func("/rewind/config", test_config);
	return g_test_run();
}
