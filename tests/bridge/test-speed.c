/*
 * Playback speeds: what `set FEED speed` and [bridge] speed take, the
 * names of the speed outputs, and the mpd.conf text `speed-setup`
 * prints for them, read back as MPD would read it.
 */
#include "core/speed.h"
#include "listening/speed.h"
#include "mpd/mpd-conf.h"

#include <glib/gstdio.h>
#include <string.h>

static void
test_parse(void)
{
	static const struct {
		const char *text;
		guint hundredths;
	} good[] = {
		{ "1.5", 150 },  { "2", 200 },    { "0.5", 50 },
		{ "3", 300 },    { "3.0", 300 },  { "1.25", 125 },
		{ "1.5x", 150 }, { "1.5×", 150 }, { "1", 100 },
		{ "0.75", 75 },
	};
	static const char *const bad[] = {
		"",      "x",     "0.49", "3.01",     "4",   "-1.5",
		"1.255", "1,5",   ".5",   "1.5 ",     "nan", "inf",
		"1e0",   "1.5xx", "0",    "99999999",
	};

	for (gsize i = 0; i < G_N_ELEMENTS(good); i++) {
		guint value = 0;

		g_assert_true(bridge_speed_parse(good[i].text, &value));
		g_assert_cmpuint(value, ==, good[i].hundredths);
	}
	for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
		guint value = 7;

		if (bridge_speed_parse(bad[i], &value))
			g_error("took '%s' as %u", bad[i], value);
		g_assert_cmpuint(value, ==, 7);
	}
}

static void
test_format(void)
{
	static const struct {
		guint hundredths;
		const char *text;
	} cases[] = {
		{ 150, "1.5" }, { 200, "2" },    { 125, "1.25" },
		{ 50, "0.5" },  { 305, "3.05" },
	};

	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *text =
		        bridge_speed_format(cases[i].hundredths);
		guint back = 0;

		g_assert_cmpstr(text, ==, cases[i].text);
		if (cases[i].hundredths <= BRIDGE_SPEED_MAX) {
			g_assert_true(bridge_speed_parse(text, &back));
			g_assert_cmpuint(back, ==, cases[i].hundredths);
		}
	}
}

static void
test_output_names(void)
{
	g_autofree char *base = NULL;
	guint speed = 0;

	g_assert_true(bridge_speed_parse_output("My ALSA Device at 1.5×", &base,
	                                        &speed));
	g_assert_cmpstr(base, ==, "My ALSA Device");
	g_assert_cmpuint(speed, ==, 150);
	g_assert_true(bridge_speed_parse_output("a at b at 2×", NULL, &speed));
	g_assert_cmpuint(speed, ==, 200);
	g_assert_false(
	        bridge_speed_parse_output("My ALSA Device", NULL, &speed));
	g_assert_false(bridge_speed_parse_output("x at 1×", NULL, &speed));
	g_assert_false(bridge_speed_parse_output("x at 9×", NULL, &speed));
	g_assert_false(bridge_speed_parse_output(" at 1.5×", NULL, &speed));
	g_assert_false(bridge_speed_parse_output("x at 1.5", NULL, &speed));
}

/* The snippet, included from a config, gives one output a speed. */
static void
test_snippet(void)
{
	static const guint list[] = { 125, 150, 300 };
	static const char *const settings[] = {
		"type",    "alsa",       "name",     "Speakers", "device",
		"hw:0,0",  "mixer_type", "software", "filters",  "norm",
		"enabled", "yes",        NULL,
	};
	g_autoptr(GArray) speeds = g_array_new(FALSE, FALSE, sizeof(guint));
	g_autoptr(GError) error = NULL;
	g_autofree char *snippet = NULL;
	g_autofree char *dir = g_dir_make_tmp("test-speed-XXXXXX", &error);
	g_autofree char *main_conf = NULL;
	g_autofree char *part = NULL;
	g_autofree char *text = NULL;
	g_autoptr(GPtrArray) outputs = NULL;

	g_assert_no_error(error);
	g_array_append_vals(speeds, list, G_N_ELEMENTS(list));
	snippet = bridge_speed_snippet("Speakers \"A\"", "alsa",
	                               (const char *const *)settings, speeds);
	g_assert_nonnull(strstr(snippet, "    name \"mpd-bridge-speed-1.25\"\n"
	                                 "    graph \"atempo=1.25\"\n"));
	g_assert_nonnull(
	        strstr(snippet, "    graph \"atempo=2,atempo=1.5\"\n"));
	g_assert_nonnull(strstr(snippet, "    name \"Speakers \\\"A\\\" at "
	                                 "1.5×\"\n"));
	g_assert_nonnull(strstr(
	        snippet, "    filters \"norm, mpd-bridge-speed-1.5\"\n"));
	g_assert_null(strstr(snippet, "\"yes\""));

	/* MPD's own reader takes it, and sees three outputs in it. */
	part = g_build_filename(dir, "speed.conf", NULL);
	main_conf = g_build_filename(dir, "mpd.conf", NULL);
	text = g_strdup_printf("audio_output {\n    type \"null\"\n"
	                       "    name \"Speakers\"\n}\ninclude \"%s\"\n",
	                       part);
	g_assert_true(g_file_set_contents(part, snippet, -1, NULL));
	g_assert_true(g_file_set_contents(main_conf, text, -1, NULL));
	outputs = bridge_mpd_conf_outputs(main_conf, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(outputs->len, ==, 4);
	{
		char **second = outputs->pdata[2];
		guint speed = 0;
		g_autofree char *base = NULL;

		g_assert_cmpstr(second[0], ==, "type");
		g_assert_cmpstr(second[1], ==, "alsa");
		g_assert_cmpstr(second[2], ==, "device");
		g_assert_cmpstr(second[3], ==, "hw:0,0");
		for (guint j = 0; second[j] != NULL; j += 2)
			if (strcmp(second[j], "name") == 0)
				g_assert_true(bridge_speed_parse_output(
				        second[j + 1], &base, &speed));
		g_assert_cmpstr(base, ==, "Speakers \"A\"");
		g_assert_cmpuint(speed, ==, 150);
	}
	/* Without MPD's config, the type comes from MPD's outputs. */
	g_free(snippet);
	snippet = bridge_speed_snippet("null", "null", NULL, speeds);
	g_assert_nonnull(strstr(snippet,
	                        "audio_output {\n    type \"null\"\n"
	                        "    name \"null at 1.25×\"\n"
	                        "    filters \"mpd-bridge-speed-1.25\"\n"
	                        "    enabled \"no\"\n}\n"));
	g_unlink(part);
	g_unlink(main_conf);
	g_rmdir(dir);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/speed/parse", test_parse);
	g_test_add_func("/speed/format", test_format);
	g_test_add_func("/speed/output-names", test_output_names);
	g_test_add_func("/speed/snippet", test_snippet);
	return g_test_run();
}
