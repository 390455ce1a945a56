/*
 * Playback speed per podcast, through outputs of MPD's own that filter
 * with ffmpeg's atempo (MPD 0.24). The bridge never writes MPD's
 * configuration: `speed-setup` prints what to include from it.
 */
#include "listening/speed.h"

#include "core/call.h"
#include "core/speed.h"
#include "listening/tracker.h"
#include "mpd/mpd-conf.h"

#include <string.h>

#define SPEED_SIGN " at "
#define TIMES      "×"
#define FILTER     "mpd-bridge-speed-"

/* Speeds worth having at hand, whatever the podcasts say. */
static const guint useful[] = { 125, 150, 175, 200 };

guint
bridge_speed_of_episode(Bridge *bridge, const BridgeEpisode *episode)
{
	const BridgeFeed *feed;

	if (episode == NULL)
		return BRIDGE_SPEED_NORMAL;
	feed = bridge_store_find_feed(bridge->store, episode->feed_id);
	if (feed != NULL && feed->speed > 0)
		return (guint)feed->speed;
	return bridge->config->speed > 0 ? bridge->config->speed
	                                 : BRIDGE_SPEED_NORMAL;
}

gboolean
bridge_speed_parse_output(const char *output_name, char **base, guint *speed)
{
	const char *sign;
	g_autofree char *number = NULL;
	gsize length;

	g_return_val_if_fail(output_name != NULL, FALSE);
	g_return_val_if_fail(speed != NULL, FALSE);

	sign = g_strrstr(output_name, SPEED_SIGN);
	length = strlen(output_name);
	if (sign == NULL || sign == output_name ||
	    !g_str_has_suffix(output_name, TIMES))
		return FALSE;
	number = g_strndup(sign + strlen(SPEED_SIGN),
	                   (gsize)(output_name + length - strlen(TIMES) -
	                           (sign + strlen(SPEED_SIGN))));
	if (!bridge_speed_parse(number, speed) || *speed == BRIDGE_SPEED_NORMAL)
		return FALSE;
	if (base != NULL)
		*base = g_strndup(output_name, (gsize)(sign - output_name));
	return TRUE;
}

/* A value in MPD's configuration syntax: quoted, with \ and " escaped. */
static void
append_quoted(GString *out, const char *value)
{
	g_string_append_c(out, '"');
	for (const char *p = value; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			g_string_append_c(out, '\\');
		g_string_append_c(out, *p);
	}
	g_string_append_c(out, '"');
}

static void
append_setting(GString *out, const char *name, const char *value)
{
	/* Spaces: the channel turns a tab into one space. */
	g_string_append_printf(out, "    %s ", name);
	append_quoted(out, value);
	g_string_append_c(out, '\n');
}

/* atempo takes 0.5 to 2 in older ffmpeg: above, two in a row. */
static char *
graph_of(guint speed)
{
	char half[G_ASCII_DTOSTR_BUF_SIZE];
	g_autofree char *text = NULL;

	if (speed <= 200) {
		text = bridge_speed_format(speed);
		return g_strdup_printf("atempo=%s", text);
	}
	g_ascii_formatd(half, sizeof half, "%.4g", speed / 200.0);
	return g_strdup_printf("atempo=2,atempo=%s", half);
}

char *
bridge_speed_snippet(const char *name, const char *plugin,
                     const char *const *settings, const GArray *speeds)
{
	GString *out = g_string_new(NULL);

	g_return_val_if_fail(name != NULL, NULL);
	g_return_val_if_fail(speeds != NULL, NULL);

	for (guint i = 0; i < speeds->len; i++) {
		guint speed = g_array_index(speeds, guint, i);
		g_autofree char *text = bridge_speed_format(speed);
		g_autofree char *filter = g_strconcat(FILTER, text, NULL);
		g_autofree char *graph = graph_of(speed);

		g_string_append(out, "filter {\n");
		append_setting(out, "plugin", "ffmpeg");
		append_setting(out, "name", filter);
		append_setting(out, "graph", graph);
		g_string_append(out, "}\n\n");
	}
	for (guint i = 0; i < speeds->len; i++) {
		guint speed = g_array_index(speeds, guint, i);
		g_autofree char *text = bridge_speed_format(speed);
		g_autofree char *filters = g_strconcat(FILTER, text, NULL);
		g_autofree char *named =
		        g_strconcat(name, SPEED_SIGN, text, TIMES, NULL);

		g_string_append(out, "audio_output {\n");
		if (settings == NULL && plugin != NULL)
			append_setting(out, "type", plugin);
		for (guint j = 0; settings != NULL && settings[j] != NULL &&
		                  settings[j + 1] != NULL;
		     j += 2) {
			const char *key = settings[j];
			const char *value = settings[j + 1];

			if (strcmp(key, "filters") == 0) {
				/* Its own filters first, then the speed. */
				g_free(filters);
				filters = g_strconcat(value, ", ", FILTER, text,
				                      NULL);
			} else if (strcmp(key, "name") != 0 &&
			           strcmp(key, "enabled") != 0) {
				append_setting(out, key, value);
			}
		}
		append_setting(out, "name", named);
		append_setting(out, "filters", filters);
		append_setting(out, "enabled", "no");
		g_string_append(out, "}\n\n");
	}
	return g_string_free(out, FALSE);
}

static gint
compare_speeds(gconstpointer a, gconstpointer b)
{
	guint x = *(const guint *)a;
	guint y = *(const guint *)b;

	return x < y ? -1 : x > y;
}

static void
add_speed(GArray *speeds, guint speed)
{
	if (speed == 0 || speed == BRIDGE_SPEED_NORMAL)
		return;
	for (guint i = 0; i < speeds->len; i++)
		if (g_array_index(speeds, guint, i) == speed)
			return;
	g_array_append_val(speeds, speed);
}

/* The podcasts' speeds, the default, and a useful few; sorted. */
static GArray *
speeds_in_use(Bridge *bridge)
{
	GArray *speeds = g_array_new(FALSE, FALSE, sizeof(guint));
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);

	for (guint i = 0; i < feeds->len; i++)
		add_speed(speeds,
		          (guint)((const BridgeFeed *)feeds->pdata[i])->speed);
	add_speed(speeds, bridge->config->speed);
	for (guint i = 0; i < G_N_ELEMENTS(useful); i++)
		add_speed(speeds, useful[i]);
	g_array_sort(speeds, compare_speeds);
	return speeds;
}

static gboolean
name_in(GPtrArray *names, const char *name)
{
	for (guint i = 0; i < names->len; i++)
		if (strcmp(names->pdata[i], name) == 0)
			return TRUE;
	return FALSE;
}

/*
 * Enables the outputs of @wanted and disables the rest of the set: the
 * speed outputs and the plain ones they copy. Others are left alone.
 * Does nothing where MPD has no speed outputs.
 */
static void
choose(Bridge *bridge, guint wanted)
{
	BridgeTracking *t = &bridge->tracking;
	g_autoptr(GPtrArray) outputs = NULL;
	g_autoptr(GPtrArray) bases = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	gboolean targets = FALSE;
	guint chosen = BRIDGE_SPEED_NORMAL;

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd) ||
	    wanted == t->speed_wanted)
		return;
	outputs = bridge_mpd_outputs(bridge->mpd, &error);
	if (outputs == NULL) {
		g_message("%s", error->message);
		return;
	}
	t->speed_wanted = wanted;
	for (guint i = 0; i < outputs->len; i++) {
		const BridgeMpdOutput *o = outputs->pdata[i];
		char *base = NULL;
		guint speed;

		if (bridge_speed_parse_output(o->name, &base, &speed))
			g_ptr_array_add(bases, base);
		if (bridge_speed_parse_output(o->name, NULL, &speed) &&
		    speed == wanted)
			targets = TRUE;
	}
	if (bases->len == 0)
		goto done;
	if (!targets && wanted != BRIDGE_SPEED_NORMAL) {
		g_autofree char *text = bridge_speed_format(wanted);

		g_message("MPD has no output for %s×: run mpd-bridge "
		          "speed-setup again and include what it prints",
		          text);
		wanted = BRIDGE_SPEED_NORMAL;
	}
	/* Turn the new one on first, so that something always plays. */
	for (guint pass = 0; pass < 2; pass++) {
		for (guint i = 0; i < outputs->len; i++) {
			const BridgeMpdOutput *o = outputs->pdata[i];
			guint speed = BRIDGE_SPEED_NORMAL;
			gboolean ours = bridge_speed_parse_output(o->name, NULL,
			                                          &speed) ||
			                name_in(bases, o->name);
			gboolean target = ours && speed == wanted;
			gboolean ok = TRUE;

			if (!ours || target == o->enabled ||
			    (pass == 0) != target)
				continue;
			if (target)
				ok = bridge_mpd_enable_output(bridge->mpd,
				                              o->id, &error);
			else
				ok = bridge_mpd_disable_output(bridge->mpd,
				                               o->id, &error);
			if (!ok) {
				g_message("%s", error->message);
				g_clear_error(&error);
			}
		}
	}
	chosen = wanted;
done:
	if (chosen != (t->speed > 0 ? t->speed : BRIDGE_SPEED_NORMAL)) {
		g_autofree char *text = bridge_speed_format(chosen);

		/* What played so far played at the speed before. */
		t->elapsed_ms = bridge_tracker_position_ms(t);
		t->at = g_get_monotonic_time();
		g_message("playing at %s×", text);
	}
	t->speed = chosen;
}

void
bridge_speed_on_started(Bridge *bridge)
{
	const BridgeEpisode *episode = bridge_store_find_episode(
	        bridge->store, bridge->tracking.episode_id);

	choose(bridge, bridge_speed_of_episode(bridge, episode));
}

void
bridge_speed_on_player(Bridge *bridge)
{
	const BridgeTracking *t = &bridge->tracking;
	const BridgeEpisode *episode;

	if (t->state == BRIDGE_PLAYER_STOP)
		return;
	episode = t->episode_id != NULL ? bridge_store_find_episode(
	                                          bridge->store, t->episode_id)
	                                : NULL;
	choose(bridge, bridge_speed_of_episode(bridge, episode));
}

void
bridge_speed_describe(Bridge *bridge, GString *out)
{
	const BridgeTracking *t = &bridge->tracking;
	const BridgeEpisode *episode;
	guint wanted;
	g_autofree char *text = NULL;

	if (t->episode_id == NULL || t->state == BRIDGE_PLAYER_STOP)
		return;
	episode = bridge_store_find_episode(bridge->store, t->episode_id);
	wanted = bridge_speed_of_episode(bridge, episode);
	if (t->speed > 0 && t->speed != BRIDGE_SPEED_NORMAL) {
		text = bridge_speed_format(t->speed);
		g_string_append_printf(out, "; at %s×", text);
	} else if (wanted != BRIDGE_SPEED_NORMAL) {
		text = bridge_speed_format(wanted);
		g_string_append_printf(out,
		                       "; at 1× (%s× wanted: MPD has no "
		                       "speed output for it)",
		                       text);
	}
}

/* What MPD needs before it can play at @speed; "" when it has it. */
static void
explain_missing(Bridge *bridge, guint speed, GString *note)
{
	g_autoptr(GPtrArray) outputs = NULL;
	gboolean any = FALSE;
	gboolean found = FALSE;
	g_autofree char *text = bridge_speed_format(speed);

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd))
		return;
	if (!bridge_mpd_protocol_at_least(bridge->mpd, 0, 24)) {
		g_string_append(note,
		                "; MPD is older than 0.24 and cannot play "
		                "faster or slower: speeds need MPD 0.24's "
		                "ffmpeg filter plugin (Debian 13's MPD), then "
		                "mpd-bridge speed-setup");
		return;
	}
	outputs = bridge_mpd_outputs(bridge->mpd, NULL);
	for (guint i = 0; outputs != NULL && i < outputs->len; i++) {
		const BridgeMpdOutput *o = outputs->pdata[i];
		guint at;

		if (bridge_speed_parse_output(o->name, NULL, &at)) {
			any = TRUE;
			found = found || at == speed;
		}
	}
	if (!any)
		g_string_append(note,
		                "; MPD has no speed outputs yet: run "
		                "mpd-bridge speed-setup and include what it "
		                "prints in mpd.conf");
	else if (!found)
		g_string_append_printf(note,
		                       "; MPD has no output for %s× yet: run "
		                       "mpd-bridge speed-setup again and "
		                       "include what it prints in mpd.conf",
		                       text);
}

static gboolean
parse_setting(const char *value, guint *speed, GError **error)
{
	if (g_ascii_strcasecmp(value, "default") == 0 || *value == '\0')
		*speed = 0;
	else if (!bridge_speed_parse(value, speed))
		return bridge_command_fail(
		        error, BRIDGE_COMMAND_ERROR_USAGE,
		        "speed is from 0.5 to 3.0 (like 1.25 or 1.5), or "
		        "default");
	if (*speed == BRIDGE_SPEED_NORMAL)
		*speed = 0;
	return TRUE;
}

gboolean
bridge_speed_check_set(char **args, GError **error)
{
	guint speed;

	if (strcmp(args[1], "speed") != 0)
		return TRUE;
	return parse_setting(args[2], &speed, error);
}

gboolean
bridge_speed_set_feed(Bridge *bridge, BridgeFeed *feed, const char *value,
                      GString *note, GError **error)
{
	guint speed;

	if (!parse_setting(value, &speed, error))
		return FALSE;
	feed->speed = speed;
	if (speed != 0 || bridge->config->speed > BRIDGE_SPEED_NORMAL ||
	    (bridge->config->speed > 0 &&
	     bridge->config->speed < BRIDGE_SPEED_NORMAL))
		explain_missing(bridge,
		                speed != 0 ? speed : bridge->config->speed,
		                note);
	/* If it plays now, it plays at its new speed now. */
	bridge->tracking.speed_wanted = 0;
	bridge_speed_on_player(bridge);
	return TRUE;
}

/* The output to copy: the one named, or the first enabled plain one. */
static const BridgeMpdOutput *
pick_base(GPtrArray *outputs, const char *wanted)
{
	const BridgeMpdOutput *first = NULL;
	guint speed;

	for (guint i = 0; i < outputs->len; i++) {
		const BridgeMpdOutput *o = outputs->pdata[i];

		if (bridge_speed_parse_output(o->name, NULL, &speed))
			continue;
		if (wanted != NULL) {
			if (strcmp(o->name, wanted) == 0)
				return o;
			continue;
		}
		if (o->enabled)
			return o;
		if (first == NULL)
			first = o;
	}
	return first;
}

/* The output's block in MPD's own configuration file, when local. */
static char **
settings_of(Bridge *bridge, const char *name)
{
	g_auto(GStrv) candidates = NULL;
	g_autoptr(GPtrArray) blocks = NULL;

	if (!bridge_mpd_address_is_local(&bridge->config->mpd))
		return NULL;
	candidates = bridge_mpd_conf_candidates();
	for (guint i = 0; candidates[i] != NULL && blocks == NULL; i++)
		if (g_file_test(candidates[i], G_FILE_TEST_EXISTS))
			blocks = bridge_mpd_conf_outputs(candidates[i], NULL);
	for (guint i = 0; blocks != NULL && i < blocks->len; i++) {
		char **block = blocks->pdata[i];

		for (guint j = 0; block[j] != NULL && block[j + 1] != NULL;
		     j += 2)
			if (strcmp(block[j], "name") == 0 &&
			    strcmp(block[j + 1], name) == 0)
				return g_strdupv(block);
	}
	return NULL;
}

gboolean
bridge_speed_run_setup(Bridge *bridge, char **args, GString *out,
                       GError **error)
{
	g_autoptr(GPtrArray) outputs = NULL;
	g_autoptr(GArray) speeds = NULL;
	g_auto(GStrv) settings = NULL;
	g_autofree char *snippet = NULL;
	const BridgeMpdOutput *base;

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd))
		return bridge_command_fail(error, BRIDGE_COMMAND_ERROR_FAILED,
		                           "MPD is not connected");
	outputs = bridge_mpd_outputs(bridge->mpd, error);
	if (outputs == NULL)
		return FALSE;
	base = pick_base(outputs, args[0]);
	if (base == NULL && args[0] != NULL)
		return bridge_command_fail(
		        error, BRIDGE_COMMAND_ERROR_USAGE,
		        "MPD has no output named '%s': mpc outputs lists them",
		        args[0]);
	if (base == NULL)
		return bridge_command_fail(error, BRIDGE_COMMAND_ERROR_FAILED,
		                           "MPD has no audio output to copy");
	settings = settings_of(bridge, base->name);
	if (settings == NULL && base->plugin == NULL)
		return bridge_command_fail(
		        error, BRIDGE_COMMAND_ERROR_FAILED,
		        "cannot tell the type of MPD's output '%s': MPD "
		        "does not say, and its configuration file is not "
		        "readable here",
		        base->name);
	speeds = speeds_in_use(bridge);
	snippet = bridge_speed_snippet(base->name, base->plugin,
	                               (const char *const *)settings, speeds);
	g_string_append(
	        out,
	        "# Playback speeds for mpd-bridge: outputs that copy MPD's\n"
	        "# output '");
	g_string_append(out, base->name);
	g_string_append(
	        out,
	        "' through ffmpeg's atempo filter, pitch kept.\n"
	        "# Needs MPD 0.24 or later (its ffmpeg filter plugin).\n"
	        "# Save as /etc/mpd-bridge-speed.conf, add to /etc/mpd.conf\n"
	        "#     include \"/etc/mpd-bridge-speed.conf\"\n"
	        "# then restart MPD (sudo systemctl restart mpd).\n");
	if (settings == NULL)
		g_string_append(out, "# MPD's configuration file was not "
		                     "readable here: add the output's own\n"
		                     "# settings (device, …) to each block.\n");
	if (!bridge_mpd_protocol_at_least(bridge->mpd, 0, 24))
		g_string_append(out, "# This MPD is older than 0.24: it would "
		                     "refuse to start with this file.\n");
	g_string_append_c(out, '\n');
	g_string_append(out, snippet);
	/* The answer has no trailing blank line. */
	while (out->len > 0 && out->str[out->len - 1] == '\n')
		g_string_truncate(out, out->len - 1);
	return TRUE;
}
