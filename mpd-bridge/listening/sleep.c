/*
 * The sleep timer. A timer "at" a time is a monotonic deadline with one
 * source: first for the start of the fade (when there is one), then for
 * the pause. A timer at the end of an episode is MPD's own single
 * oneshot; the daemon only follows MPD's player and options events to
 * know when it is done, or turned off in a client.
 *
 * When the listener pauses or stops before the time, the timer stays
 * armed: resuming plays on to the same deadline. If nothing plays when
 * it runs out, it pauses nothing and is done.
 */
#include "listening/sleep.h"

#include "core/call.h"
#include "core/identity.h"
#include "listening/fade.h"

#include <mpd/idle.h>
#include <string.h>

#define MIN_MS 1000
#define MAX_MS (24 * 3600 * 1000)

typedef enum {
	SLEEP_NONE,
	SLEEP_AT,  /* pause at a time */
	SLEEP_END, /* stop after an episode */
} SleepKind;

struct BridgeSleep {
	SleepKind kind;
	gint64 due;        /* SLEEP_AT: monotonic µs of the pause; 0: none */
	gint64 due_real;   /* the same as real time, µs since 1970, for
	                      answers; 0: none */
	gint64 length_ms;  /* SLEEP_AT: as it was asked for; 0: none */
	gint64 fade_ms;    /* SLEEP_AT: how long the fade takes, at most the
	                      timer's length; 0: no fade */
	guint timer;       /* source of the fade's start or of the pause; 0 */
	BridgeFade *fade;  /* the volume going down; NULL: not fading */
	int volume_before; /* MPD's volume as the fade began, restored after
	                      the pause; -1: nothing to restore */
	guint song_id;     /* SLEEP_END: the song it ends with; 0: none */
	char *title;       /* SLEEP_END: that episode's title (or URI); NULL */
	BridgeSingleMode single_before; /* SLEEP_END: MPD's single mode before
	                                   ours */
	gboolean single_set; /* SLEEP_END: we turned single oneshot on */
};

static BridgeSleep *
get_sleep(Bridge *bridge)
{
	if (bridge->sleep == NULL) {
		bridge->sleep = g_new0(BridgeSleep, 1);
		bridge->sleep->volume_before = -1;
	}
	return bridge->sleep;
}

gboolean
bridge_sleep_parse_duration(const char *text, gint64 *ms, GError **error)
{
	gsize digits = strspn(text, "0123456789.");
	const char *unit = text + digits;
	guint dots = 0;
	double value;
	double unit_ms = 60000;

	/* Plain digits and one dot: no signs, exponents, hex or "inf". */
	for (gsize i = 0; i < digits; i++)
		dots += text[i] == '.';
	if (digits == dots || dots > 1)
		goto bad;
	if (*unit == 's')
		unit_ms = 1000;
	else if (*unit == 'm')
		unit_ms = 60000;
	else if (*unit == 'h')
		unit_ms = 3600000;
	else if (*unit != '\0')
		goto bad;
	if (*unit != '\0' && unit[1] != '\0')
		goto bad;
	value = g_ascii_strtod(text, NULL) * unit_ms;
	if (value < MIN_MS - 0.5 || value > MAX_MS + 0.5)
		return bridge_command_fail(
		        error, BRIDGE_COMMAND_ERROR_USAGE,
		        "a sleep timer runs from 1 s to 24 h, "
		        "not '%s'",
		        text);
	*ms = (gint64)(value + 0.5);
	return TRUE;

bad:
	return bridge_command_fail(
	        error, BRIDGE_COMMAND_ERROR_USAGE,
	        "sleep takes minutes (20, 0.5), a time with a unit "
	        "(90s, 20m, 1h), end or off, not '%s'",
	        text);
}

gboolean
bridge_sleep_check(char **args, GError **error)
{
	gint64 ms;

	if (args[0] == NULL || strcmp(args[0], "end") == 0 ||
	    strcmp(args[0], "off") == 0)
		return TRUE;
	return bridge_sleep_parse_duration(args[0], &ms, error);
}

/* "20 min", "90 s", "2 min 30 s": what was asked for. */
static char *
describe_length(gint64 ms)
{
	gint64 s = (ms + 500) / 1000;

	if (s % 60 == 0)
		return g_strdup_printf("%" G_GINT64_FORMAT " min", s / 60);
	if (s < 60)
		return g_strdup_printf("%" G_GINT64_FORMAT " s", s);
	return g_strdup_printf("%" G_GINT64_FORMAT " min %d s", s / 60,
	                       (int)(s % 60));
}

/* "12:34", "1:02:03": what is left, rounded up. */
static char *
describe_left(gint64 us)
{
	gint64 s = (MAX(us, 0) + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC;

	if (s >= 3600)
		return g_strdup_printf("%" G_GINT64_FORMAT ":%02d:%02d",
		                       s / 3600, (int)(s / 60 % 60),
		                       (int)(s % 60));
	return g_strdup_printf("%" G_GINT64_FORMAT ":%02d", s / 60,
	                       (int)(s % 60));
}

/* "23:41", with seconds when the timer was asked for in seconds. */
static char *
describe_clock(const BridgeSleep *s)
{
	g_autoptr(GDateTime) at =
	        g_date_time_new_from_unix_local(s->due_real / G_USEC_PER_SEC);

	if (at == NULL)
		return g_strdup("-");
	return g_date_time_format(at, s->length_ms % 60000 != 0 ? "%H:%M:%S"
	                                                        : "%H:%M");
}

static guint
ms_until(gint64 due)
{
	gint64 left = due - g_get_monotonic_time();

	return left > 0 ? (guint)((left + 999) / 1000) : 0;
}

/* Ends a fade; puts the volume back unless the listener changed it. */
static void
end_fade(Bridge *bridge)
{
	BridgeSleep *s = bridge->sleep;
	g_autoptr(GError) error = NULL;

	/* The listener set a volume: theirs stays, now and after. */
	if (bridge_fade_is_overridden(s->fade))
		s->volume_before = -1;
	g_clear_pointer(&s->fade, bridge_fade_free);
	if (s->volume_before >= 0 && bridge->mpd != NULL &&
	    !bridge_mpd_set_volume(bridge->mpd, (guint)s->volume_before,
	                           &error))
		g_message("cannot restore the volume after the sleep timer: "
		          "%s",
		          error->message);
	s->volume_before = -1;
}

/* Puts MPD's single mode back as it was before a `sleep end`. */
static void
undo_single(Bridge *bridge)
{
	BridgeSleep *s = bridge->sleep;
	g_autoptr(GError) error = NULL;
	BridgeSingleMode mode;

	if (!s->single_set || bridge->mpd == NULL)
		return;
	s->single_set = FALSE;
	/* Only ours: a client may have set another mode meanwhile. */
	if (bridge_mpd_get_single(bridge->mpd, &mode, &error) &&
	    mode == BRIDGE_SINGLE_ONESHOT)
		bridge_mpd_set_single(bridge->mpd, s->single_before, &error);
	if (error != NULL)
		g_message("cannot undo single mode: %s", error->message);
}

/* Forgets the timer, whatever it was. */
static void
reset(Bridge *bridge)
{
	BridgeSleep *s = bridge->sleep;

	if (s == NULL)
		return;
	g_clear_handle_id(&s->timer, g_source_remove);
	end_fade(bridge);
	undo_single(bridge);
	g_clear_pointer(&s->title, g_free);
	s->kind = SLEEP_NONE;
	s->due = 0;
	s->due_real = 0;
	s->length_ms = 0;
	s->fade_ms = 0;
	s->song_id = 0;
}

static gboolean
on_due(gpointer data)
{
	Bridge *bridge = data;
	BridgeSleep *s = bridge->sleep;
	g_auto(BridgePlayerStatus) status = { 0 };
	g_autoptr(GError) error = NULL;
	const BridgeEpisode *episode;

	s->timer = 0;
	if (bridge->mpd == NULL ||
	    !bridge_mpd_player_status(bridge->mpd, &status, &error)) {
		g_warning("the sleep timer cannot pause: %s",
		          error != NULL ? error->message : "no MPD");
	} else if (status.state != BRIDGE_PLAYER_PLAY) {
		g_message("the sleep timer ran out; nothing played");
	} else if (!bridge_mpd_pause(bridge->mpd, &error)) {
		g_warning("the sleep timer cannot pause: %s", error->message);
	} else {
		episode = bridge_identity_find_by_url(bridge, status.uri);
		/* The tracker saves the position on the pause's event. */
		g_message("the sleep timer paused %s",
		          episode != NULL ? episode->title : status.uri);
	}
	reset(bridge);
	return G_SOURCE_REMOVE;
}

/* The last seconds: the volume goes down in steps while MPD plays. */
static gboolean
on_fade_due(gpointer data)
{
	Bridge *bridge = data;
	BridgeSleep *s = bridge->sleep;
	g_auto(BridgePlayerStatus) status = { 0 };
	g_autoptr(GError) error = NULL;
	int volume = -1;

	s->timer = g_timeout_add(ms_until(s->due), on_due, bridge);
	if (bridge->mpd == NULL ||
	    !bridge_mpd_player_status(bridge->mpd, &status, &error) ||
	    status.state != BRIDGE_PLAYER_PLAY ||
	    !bridge_mpd_get_volume(bridge->mpd, &volume, &error) ||
	    volume <= 0) {
		/* No mixer (-1), silent already, or nothing to fade. */
		if (error != NULL)
			g_message("the sleep timer does not fade: %s",
			          error->message);
		return G_SOURCE_REMOVE;
	}
	s->fade = bridge_fade_start(bridge, volume, 0, MAX(ms_until(s->due), 1),
	                            "the sleep timer", &error);
	if (s->fade == NULL)
		g_message("the sleep timer does not fade: %s", error->message);
	else
		s->volume_before = volume;
	return G_SOURCE_REMOVE;
}

static gboolean
start_at(Bridge *bridge, gint64 ms, GString *out)
{
	BridgeSleep *s = get_sleep(bridge);
	g_autofree char *length = describe_length(ms);
	g_autofree char *clock = NULL;

	reset(bridge);
	s->kind = SLEEP_AT;
	s->length_ms = ms;
	s->due = g_get_monotonic_time() + ms * 1000;
	s->due_real = g_get_real_time() + ms * 1000;
	s->fade_ms = MIN((gint64)bridge->config->sleep_fade_seconds * 1000, ms);
	if (s->fade_ms > 0)
		s->timer = g_timeout_add((guint)(ms - s->fade_ms), on_fade_due,
		                         bridge);
	else
		s->timer = g_timeout_add((guint)ms, on_due, bridge);
	clock = describe_clock(s);
	g_message("sleeping in %s, at %s", length, clock);
	g_string_append_printf(out, "sleeping in %s (at %s)", length, clock);
	return TRUE;
}

static gboolean
start_end(Bridge *bridge, GString *out, GError **error)
{
	BridgeSleep *s = get_sleep(bridge);
	g_auto(BridgePlayerStatus) status = { 0 };
	const BridgeEpisode *episode;
	BridgeSingleMode before;

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd)) {
		g_set_error_literal(error, BRIDGE_COMMAND_ERROR,
		                    BRIDGE_COMMAND_ERROR_FAILED,
		                    "MPD is not connected");
		return FALSE;
	}
	if (!bridge_mpd_protocol_at_least(bridge->mpd, 0, 21)) {
		g_set_error_literal(error, BRIDGE_COMMAND_ERROR,
		                    BRIDGE_COMMAND_ERROR_FAILED,
		                    "sleep end needs MPD 0.21 or later (its "
		                    "single oneshot); this MPD is older");
		return FALSE;
	}
	if (!bridge_mpd_player_status(bridge->mpd, &status, error))
		return FALSE;
	if (status.state == BRIDGE_PLAYER_STOP || status.song_id == 0) {
		g_set_error_literal(error, BRIDGE_COMMAND_ERROR,
		                    BRIDGE_COMMAND_ERROR_FAILED,
		                    "nothing plays: sleep end stops after the "
		                    "episode that plays");
		return FALSE;
	}
	reset(bridge);
	if (!bridge_mpd_get_single(bridge->mpd, &before, error) ||
	    !bridge_mpd_set_single(bridge->mpd, BRIDGE_SINGLE_ONESHOT, error))
		return FALSE;
	episode = bridge_identity_find_by_url(bridge, status.uri);
	s->kind = SLEEP_END;
	s->song_id = status.song_id;
	s->title = g_strdup(episode != NULL ? episode->title : status.uri);
	s->single_before = before;
	s->single_set = TRUE;
	g_message("sleeping at the end of %s", s->title);
	g_string_append_printf(out, "sleeping at the end of %s", s->title);
	return TRUE;
}

static void
describe(Bridge *bridge, GString *out)
{
	BridgeSleep *s = bridge->sleep;
	g_autofree char *left = NULL;
	g_autofree char *clock = NULL;

	if (s == NULL || s->kind == SLEEP_NONE) {
		g_string_append(out, "no sleep timer");
	} else if (s->kind == SLEEP_END) {
		g_string_append_printf(out, "sleeping at the end of %s",
		                       s->title);
	} else {
		left = describe_left(s->due - g_get_monotonic_time());
		clock = describe_clock(s);
		g_string_append_printf(
		        out, "sleeping in %s (at %s%s)", left, clock,
		        bridge_fade_is_running(s->fade) ? ", fading" : "");
	}
}

gboolean
bridge_sleep_run(Bridge *bridge, char **args, GString *out, GError **error)
{
	gint64 ms;

	if (args[0] == NULL) {
		describe(bridge, out);
		return TRUE;
	}
	if (strcmp(args[0], "off") == 0) {
		if (bridge->sleep == NULL ||
		    bridge->sleep->kind == SLEEP_NONE) {
			g_string_append(out, "no sleep timer");
			return TRUE;
		}
		reset(bridge);
		g_message("sleep timer off");
		g_string_append(out, "sleep timer off");
		return TRUE;
	}
	if (strcmp(args[0], "end") == 0)
		return start_end(bridge, out, error);
	if (!bridge_sleep_parse_duration(args[0], &ms, error))
		return FALSE;
	return start_at(bridge, ms, out);
}

void
bridge_sleep_on_idle(Bridge *bridge, unsigned events)
{
	BridgeSleep *s = bridge->sleep;
	g_auto(BridgePlayerStatus) status = { 0 };
	g_autoptr(GError) error = NULL;
	const BridgeEpisode *episode;
	BridgeSingleMode mode;

	if (s == NULL || s->kind != SLEEP_END ||
	    (events & (MPD_IDLE_PLAYER | MPD_IDLE_OPTIONS)) == 0)
		return;
	if (!bridge_mpd_player_status(bridge->mpd, &status, &error) ||
	    !bridge_mpd_get_single(bridge->mpd, &mode, &error))
		return;
	if (status.song_id == s->song_id &&
	    status.state != BRIDGE_PLAYER_STOP) {
		if (mode == BRIDGE_SINGLE_ONESHOT)
			return;
		g_message("single mode was turned off in a client: sleep "
		          "timer off");
		s->single_set = FALSE;
		reset(bridge);
		return;
	}
	/* Another song plays, still in oneshot: the timer ends with it. */
	if (status.state == BRIDGE_PLAYER_PLAY && status.song_id != 0 &&
	    mode == BRIDGE_SINGLE_ONESHOT) {
		episode = bridge_identity_find_by_url(bridge, status.uri);
		g_free(s->title);
		s->title =
		        g_strdup(episode != NULL ? episode->title : status.uri);
		s->song_id = status.song_id;
		g_message("the sleep timer now ends with %s", s->title);
		return;
	}
	/*
	 * MPD 0.23 ends a oneshot on the next song, paused; a stop is the
	 * end too, whether MPD or the listener stopped. Single mode that is
	 * still oneshot then is undone by reset().
	 */
	if (mode != BRIDGE_SINGLE_ONESHOT)
		s->single_set = FALSE;
	g_message("%s ended: sleep timer done", s->title);
	reset(bridge);
}

void
bridge_sleep_stop(Bridge *bridge)
{
	if (bridge->sleep != NULL && bridge->sleep->kind != SLEEP_NONE)
		g_message("the sleep timer is dropped");
	reset(bridge);
}

void
bridge_sleep_clear(Bridge *bridge)
{
	if (bridge->sleep == NULL)
		return;
	g_clear_handle_id(&bridge->sleep->timer, g_source_remove);
	g_clear_pointer(&bridge->sleep->fade, bridge_fade_free);
	g_free(bridge->sleep->title);
	g_clear_pointer(&bridge->sleep, g_free);
}
