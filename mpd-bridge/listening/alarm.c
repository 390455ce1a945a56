/*
 * The alarm's state and its ringing. The alarms live in the state's
 * [alarms] group (only this file reads or writes it), one key per alarm,
 * "1=07:00;daily;1717390800;latest;FEED-ID": the time, the repeat, the
 * Unix time it rings next and what it plays. Keeping the next time, not
 * only the time of day, is what lets a daemon that was down tell a
 * missed alarm from one still to come.
 *
 * One source waits for the soonest alarm, at most a minute at a time, so
 * that a suspend or a change of the clock is caught up with within a
 * minute. When it rings, what it asks for is appended to MPD's queue,
 * which is kept as it was: the first of what was added plays.
 */
#include "listening/alarm-private.h"

#include "core/call.h"
#include "listening/fade.h"
#include "listening/queue.h"
#include "playlists/push.h"

#include <string.h>

#define GROUP         "alarms"
#define GRACE_S       (10 * 60) /* late by more than this: missed */
#define MAX_WAIT_MS   60000
#define RETRY_MS      2000 /* waiting for MPD to connect */
#define MAX_EPISODES  10   /* queued by new and continue */
#define DEFAULT_LOUD  50   /* the volume an alarm rises to when MPD's is 0 */
#define START_DIVISOR 10   /* an alarm starts at a tenth of its volume */

struct BridgeAlarms {
	guint timer;      /* source waiting for the next alarm; 0: none */
	BridgeFade *fade; /* the volume rising after one rang; NULL */
};

static const char *const repeat_names[] = { "daily", "weekdays", "once" };
static const char *const what_names[] = { "new", "continue", "latest",
	                                  "playlist" };

void
bridge_alarm_free(BridgeAlarm *alarm)
{
	if (alarm == NULL)
		return;
	g_free(alarm->target);
	g_free(alarm);
}

gboolean
bridge_alarm_parse_time(const char *text, int *seconds, GError **error)
{
	g_auto(GStrv) parts = g_strsplit(text, ":", 4);
	guint n = g_strv_length(parts);
	guint64 value[3] = { 0, 0, 0 };
	const guint64 max[3] = { 23, 59, 59 };

	if (n < 2 || n > 3)
		goto bad;
	for (guint i = 0; i < n; i++) {
		/* Two digits, but "7:00" for the hour. */
		if (strlen(parts[i]) != 2 && !(i == 0 && strlen(parts[i]) == 1))
			goto bad;
		if (!g_ascii_string_to_unsigned(parts[i], 10, 0, max[i],
		                                &value[i], NULL))
			goto bad;
	}
	*seconds = (int)(value[0] * 3600 + value[1] * 60 + value[2]);
	return TRUE;

bad:
	return bridge_command_fail(error, BRIDGE_COMMAND_ERROR_USAGE,
	                           "an alarm's time is HH:MM or HH:MM:SS "
	                           "(07:00, 6:45:30), not '%s'",
	                           text);
}

/*
 * When @at's wall-clock time first happens: GLib takes standard time for
 * one that happens twice as summer time ends, and the alarm rings at the
 * first, an hour before, and not again at the second.
 */
static gint64
first_time(GDateTime *at)
{
	g_autoptr(GDateTime) before = g_date_time_add_hours(at, -1);

	if (g_date_time_get_hour(before) == g_date_time_get_hour(at) &&
	    g_date_time_get_minute(before) == g_date_time_get_minute(at) &&
	    g_date_time_get_second(before) == g_date_time_get_second(at))
		return g_date_time_to_unix(before);
	return g_date_time_to_unix(at);
}

gint64
bridge_alarm_next(GTimeZone *tz, gint64 after, int seconds,
                  BridgeAlarmRepeat repeat)
{
	g_autoptr(GDateTime) utc = g_date_time_new_from_unix_utc(after);
	g_autoptr(GDateTime) here = g_date_time_to_timezone(utc, tz);
	GDate date;

	g_date_clear(&date, 1);
	g_date_set_dmy(&date, (GDateDay)g_date_time_get_day_of_month(here),
	               (GDateMonth)g_date_time_get_month(here),
	               (GDateYear)g_date_time_get_year(here));
	/* Today may be past it; a weekend comes before a Monday. */
	for (int i = 0; i < 8; i++, g_date_add_days(&date, 1)) {
		g_autoptr(GDateTime) at = NULL;

		if (repeat == BRIDGE_ALARM_WEEKDAYS &&
		    g_date_get_weekday(&date) > G_DATE_FRIDAY)
			continue;
		at = g_date_time_new(tz, g_date_get_year(&date),
		                     g_date_get_month(&date),
		                     g_date_get_day(&date), seconds / 3600,
		                     seconds / 60 % 60, seconds % 60);
		if (at != NULL && first_time(at) > after)
			return first_time(at);
	}
	g_assert_not_reached();
	return 0;
}

char *
bridge_alarm_format_time(int seconds)
{
	if (seconds % 60 != 0)
		return g_strdup_printf("%02d:%02d:%02d", seconds / 3600,
		                       seconds / 60 % 60, seconds % 60);
	return g_strdup_printf("%02d:%02d", seconds / 3600, seconds / 60 % 60);
}

char *
bridge_alarm_format_next(const BridgeAlarm *alarm)
{
	g_autoptr(GDateTime) at = g_date_time_new_from_unix_local(alarm->next);

	if (at == NULL)
		return g_strdup("-");
	return g_date_time_format(at, alarm->time % 60 != 0 ? "%a %H:%M:%S"
	                                                    : "%a %H:%M");
}

const char *
bridge_alarm_repeat_name(BridgeAlarmRepeat repeat)
{
	return repeat_names[repeat];
}

char *
bridge_alarm_describe_what(Bridge *bridge, const BridgeAlarm *alarm)
{
	const BridgeFeed *feed;

	switch (alarm->what) {
	case BRIDGE_ALARM_NEW:
	case BRIDGE_ALARM_CONTINUE:
		return g_strdup(what_names[alarm->what]);
	case BRIDGE_ALARM_LATEST:
		feed = bridge_store_find_feed(bridge->store, alarm->target);
		return g_strdup_printf("latest %s",
		                       feed != NULL ? bridge_feed_get_name(feed)
		                                    : "(a feed no longer "
		                                      "subscribed)");
	case BRIDGE_ALARM_PLAYLIST:
		return g_strdup_printf("playlist %s", alarm->target);
	}
	g_assert_not_reached();
	return NULL;
}

static int
index_of(const char *const *names, guint n, const char *name)
{
	for (guint i = 0; i < n; i++)
		if (g_strcmp0(names[i], name) == 0)
			return (int)i;
	return -1;
}

static GKeyFile *
groups(Bridge *bridge)
{
	return bridge_store_get_groups(bridge->store);
}

/* One key's value as an alarm, or NULL. */
static BridgeAlarm *
read_alarm(char **fields)
{
	g_autoptr(BridgeAlarm) alarm = g_new0(BridgeAlarm, 1);
	guint n = g_strv_length(fields);
	gint64 next;
	int repeat;
	int what;

	if (n < 4 || !bridge_alarm_parse_time(fields[0], &alarm->time, NULL))
		return NULL;
	repeat = index_of(repeat_names, G_N_ELEMENTS(repeat_names), fields[1]);
	what = index_of(what_names, G_N_ELEMENTS(what_names), fields[3]);
	if (repeat < 0 || what < 0 ||
	    !g_ascii_string_to_signed(fields[2], 10, 0, G_MAXINT64, &next,
	                              NULL))
		return NULL;
	alarm->repeat = (BridgeAlarmRepeat)repeat;
	alarm->what = (BridgeAlarmWhat)what;
	alarm->next = next;
	if (alarm->what == BRIDGE_ALARM_LATEST ||
	    alarm->what == BRIDGE_ALARM_PLAYLIST) {
		if (n != 5 || *fields[4] == '\0')
			return NULL;
		alarm->target = g_strdup(fields[4]);
	} else if (n != 4) {
		return NULL;
	}
	return g_steal_pointer(&alarm);
}

/* Keys are 1, 2, …: in that order, whatever order the file has. */
static gint
compare_keys(gconstpointer a, gconstpointer b)
{
	gint64 x = g_ascii_strtoll(*(char *const *)a, NULL, 10);
	gint64 y = g_ascii_strtoll(*(char *const *)b, NULL, 10);

	return x < y ? -1 : x > y;
}

GPtrArray *
bridge_alarm_load(Bridge *bridge)
{
	GPtrArray *alarms = g_ptr_array_new_with_free_func(
	        (GDestroyNotify)bridge_alarm_free);
	gsize n = 0;
	g_auto(GStrv) keys =
	        g_key_file_get_keys(groups(bridge), GROUP, &n, NULL);

	if (keys == NULL)
		return alarms;
	qsort(keys, n, sizeof(char *), compare_keys);
	for (gsize i = 0; i < n; i++) {
		g_auto(GStrv) fields = g_key_file_get_string_list(
		        groups(bridge), GROUP, keys[i], NULL, NULL);
		BridgeAlarm *alarm = fields != NULL ? read_alarm(fields) : NULL;

		if (alarm == NULL)
			g_warning("the state's [alarms] %s is damaged, and "
			          "dropped",
			          keys[i]);
		else
			g_ptr_array_add(alarms, alarm);
	}
	return alarms;
}

void
bridge_alarm_save(Bridge *bridge, GPtrArray *alarms)
{
	g_key_file_remove_group(groups(bridge), GROUP, NULL);
	for (guint i = 0; i < alarms->len; i++) {
		const BridgeAlarm *alarm = alarms->pdata[i];
		g_autofree char *key = g_strdup_printf("%u", i + 1);
		g_autofree char *time = bridge_alarm_format_time(alarm->time);
		g_autofree char *next =
		        g_strdup_printf("%" G_GINT64_FORMAT, alarm->next);
		const char *fields[] = {
			time,          repeat_names[alarm->repeat],
			next,          what_names[alarm->what],
			alarm->target,
		};

		g_key_file_set_string_list(groups(bridge), GROUP, key, fields,
		                           alarm->target != NULL ? 5 : 4);
	}
	bridge_changed(bridge);
}

static struct BridgeAlarms *
get_alarms(Bridge *bridge)
{
	if (bridge->alarms == NULL)
		bridge->alarms = g_new0(struct BridgeAlarms, 1);
	return bridge->alarms;
}

/* The episodes a `new` or `continue` alarm queues, best first. */
static GPtrArray *
pick_episodes(Bridge *bridge, const BridgeAlarm *alarm)
{
	g_autoptr(GPtrArray) all =
	        bridge_store_list_episodes(bridge->store, NULL);
	GPtrArray *chosen = g_ptr_array_new();
	const BridgeFeed *feed;

	if (alarm->what == BRIDGE_ALARM_LATEST) {
		feed = bridge_store_find_feed(bridge->store, alarm->target);
		g_clear_pointer(&all, g_ptr_array_unref);
		all = feed != NULL
		              ? bridge_store_list_episodes(bridge->store, feed)
		              : g_ptr_array_new();
		if (all->len > 0)
			g_ptr_array_add(chosen, all->pdata[0]);
		return chosen;
	}
	/* Continue and New are what their playlists hold. */
	if (alarm->what == BRIDGE_ALARM_CONTINUE) {
		g_ptr_array_unref(chosen);
		chosen = bridge_push_continuing(bridge);
	}
	for (guint i = 0; i < all->len; i++) {
		BridgeEpisode *episode = all->pdata[i];

		if (alarm->what == BRIDGE_ALARM_NEW && !episode->listened &&
		    episode->gone == 0)
			g_ptr_array_add(chosen, episode);
	}
	if (chosen->len > MAX_EPISODES)
		g_ptr_array_set_size(chosen, MAX_EPISODES);
	return chosen;
}

/* Appends what @alarm asks for; FALSE with @error when nothing went in. */
static gboolean
queue_what(Bridge *bridge, const BridgeAlarm *alarm, GError **error)
{
	g_autoptr(GPtrArray) episodes = NULL;
	g_autofree char *what = NULL;
	guint queued = 0;

	if (alarm->what == BRIDGE_ALARM_PLAYLIST)
		return bridge_mpd_load_playlist(bridge->mpd, alarm->target,
		                                error);
	episodes = pick_episodes(bridge, alarm);
	for (guint i = 0; i < episodes->len; i++) {
		g_autoptr(GError) one = NULL;
		const BridgeEpisode *episode = episodes->pdata[i];

		if (bridge_queue_episode(bridge, episode, &one))
			queued++;
		else
			g_message("the alarm cannot queue %s: %s",
			          episode->title, one->message);
	}
	if (queued > 0)
		return TRUE;
	what = bridge_alarm_describe_what(bridge, alarm);
	g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
	            "no episode to play for %s", what);
	return FALSE;
}

/* The first song of the queue at @pos, or after, changed since @since. */
static guint
first_added(Bridge *bridge, guint since, guint pos, GError **error)
{
	g_autoptr(GPtrArray) songs = NULL;
	guint version;
	guint id = 0;
	guint best = G_MAXUINT;

	if (!bridge_mpd_queue_changes(bridge->mpd, since, &version, &songs,
	                              error))
		return 0;
	for (guint i = 0; i < songs->len; i++) {
		const BridgeQueueSong *song = songs->pdata[i];

		if (song->pos >= pos && song->pos < best) {
			best = song->pos;
			id = song->id;
		}
	}
	if (id == 0)
		g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
		                    "nothing was added to the queue");
	return id;
}

/* Starts @id quietly and raises the volume to where it was. */
static gboolean
play_rising(Bridge *bridge, guint id, GError **error)
{
	struct BridgeAlarms *a = get_alarms(bridge);
	gint64 fade_ms = (gint64)bridge->config->alarm_fade_seconds * 1000;
	g_autoptr(GError) fade_error = NULL;
	int volume = -1;

	g_clear_pointer(&a->fade, bridge_fade_free);
	/* A software mixer has no volume before its output opens. */
	if (fade_ms > 0 && !bridge_mpd_get_volume(bridge->mpd, &volume, error))
		return FALSE;
	if (volume == 0)
		volume = DEFAULT_LOUD;
	if (volume > 0)
		a->fade = bridge_fade_start(bridge, volume / START_DIVISOR,
		                            volume, fade_ms, "the alarm",
		                            &fade_error);
	if (!bridge_mpd_play_id(bridge->mpd, id, error))
		return FALSE;
	if (fade_ms > 0 && volume < 0 &&
	    bridge_mpd_get_volume(bridge->mpd, &volume, &fade_error) &&
	    volume >= 0)
		a->fade = bridge_fade_start(
		        bridge, MAX(volume, DEFAULT_LOUD) / START_DIVISOR,
		        MAX(volume, DEFAULT_LOUD), fade_ms, "the alarm",
		        &fade_error);
	if (fade_error != NULL)
		g_message("the alarm does not fade: %s", fade_error->message);
	return TRUE;
}

static void
ring(Bridge *bridge, const BridgeAlarm *alarm)
{
	g_autoptr(GPtrArray) before = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree char *what = bridge_alarm_describe_what(bridge, alarm);
	g_autofree char *time = bridge_alarm_format_time(alarm->time);
	guint version;
	guint id;

	/* The queue's length now is where the first added one lands. */
	if (!bridge_mpd_queue_changes(bridge->mpd, 0, &version, &before,
	                              &error) ||
	    !queue_what(bridge, alarm, &error) ||
	    (id = first_added(bridge, version, before->len, &error)) == 0 ||
	    !play_rising(bridge, id, &error)) {
		g_warning("the alarm at %s (%s) cannot play: %s", time, what,
		          error->message);
		return;
	}
	g_message("the alarm at %s plays %s", time, what);
}

/* Past its time: the next one, or gone when it rang once. */
static gboolean
advance(BridgeAlarm *alarm, GTimeZone *tz, gint64 now)
{
	if (alarm->repeat == BRIDGE_ALARM_ONCE)
		return FALSE;
	alarm->next = bridge_alarm_next(tz, now, alarm->time, alarm->repeat);
	return TRUE;
}

static gboolean
on_timer(gpointer data)
{
	Bridge *bridge = data;
	g_autoptr(GTimeZone) tz = g_time_zone_new_local();
	g_autoptr(GPtrArray) alarms = bridge_alarm_load(bridge);
	g_autoptr(BridgeAlarm) ringing = NULL;
	gint64 now = g_get_real_time() / G_USEC_PER_SEC;
	gboolean connected =
	        bridge->mpd != NULL && bridge_mpd_is_connected(bridge->mpd);
	gboolean changed = FALSE;
	gboolean waiting = FALSE;

	get_alarms(bridge)->timer = 0;
	for (guint i = 0; i < alarms->len;) {
		BridgeAlarm *alarm = alarms->pdata[i];
		g_autofree char *time = bridge_alarm_format_time(alarm->time);
		g_autofree char *what = NULL;
		gint64 late = now - alarm->next;

		if (late < 0 || (late <= GRACE_S && !connected)) {
			/* To come, or waiting for MPD within its grace. */
			waiting = waiting || late >= 0;
			i++;
			continue;
		}
		what = bridge_alarm_describe_what(bridge, alarm);
		if (late > GRACE_S) {
			g_message("the alarm at %s (%s) was missed by "
			          "%" G_GINT64_FORMAT " min, while mpd-bridge "
			          "or MPD was down: skipped, not played late",
			          time, what, late / 60);
		} else if (ringing == NULL) {
			ringing = g_new0(BridgeAlarm, 1);
			*ringing = *alarm;
			ringing->target = g_strdup(alarm->target);
		} else {
			/* Two at once: the first set plays. */
			g_message("the alarm at %s (%s) rings with another",
			          time, what);
		}
		changed = TRUE;
		if (advance(alarm, tz, now))
			i++;
		else
			g_ptr_array_remove_index(alarms, i);
	}
	if (changed)
		bridge_alarm_save(bridge, alarms);
	if (ringing != NULL)
		ring(bridge, ringing);
	if (waiting)
		get_alarms(bridge)->timer =
		        g_timeout_add(RETRY_MS, on_timer, bridge);
	else
		bridge_alarm_schedule(bridge);
	return G_SOURCE_REMOVE;
}

void
bridge_alarm_schedule(Bridge *bridge)
{
	g_autoptr(GPtrArray) alarms = NULL;
	gint64 soonest = G_MAXINT64;
	gint64 wait_ms;

	if (!bridge->daemon)
		return;
	g_clear_handle_id(&get_alarms(bridge)->timer, g_source_remove);
	alarms = bridge_alarm_load(bridge);
	for (guint i = 0; i < alarms->len; i++)
		soonest = MIN(soonest, ((BridgeAlarm *)alarms->pdata[i])->next);
	if (soonest == G_MAXINT64)
		return;
	wait_ms = CLAMP((soonest * G_USEC_PER_SEC - g_get_real_time() + 999) /
	                        1000,
	                0, MAX_WAIT_MS);
	get_alarms(bridge)->timer =
	        g_timeout_add((guint)wait_ms, on_timer, bridge);
}

void
bridge_alarm_describe_next(Bridge *bridge, GString *out)
{
	g_autoptr(GPtrArray) alarms = bridge_alarm_load(bridge);
	const BridgeAlarm *soonest = NULL;
	g_autofree char *next = NULL;
	g_autofree char *what = NULL;

	for (guint i = 0; i < alarms->len; i++) {
		const BridgeAlarm *alarm = alarms->pdata[i];

		if (soonest == NULL || alarm->next < soonest->next)
			soonest = alarm;
	}
	if (soonest == NULL)
		return;
	next = bridge_alarm_format_next(soonest);
	what = bridge_alarm_describe_what(bridge, soonest);
	g_string_append_printf(out, "; next alarm %s (%s)", next, what);
}

void
bridge_alarm_start(Bridge *bridge)
{
	/* What was missed while nothing ran is found at once. */
	g_clear_handle_id(&get_alarms(bridge)->timer, g_source_remove);
	get_alarms(bridge)->timer = g_idle_add(on_timer, bridge);
}

void
bridge_alarm_stop(Bridge *bridge)
{
	if (bridge->alarms == NULL)
		return;
	g_clear_handle_id(&bridge->alarms->timer, g_source_remove);
	g_clear_pointer(&bridge->alarms->fade, bridge_fade_free);
}

void
bridge_alarm_clear(Bridge *bridge)
{
	bridge_alarm_stop(bridge);
	g_clear_pointer(&bridge->alarms, g_free);
}
