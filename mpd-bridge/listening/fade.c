/*
 * A volume fade. Each step sets the volume the time calls for, not one
 * more than the last, so a slow main loop makes a coarser fade, never a
 * longer one. Before each step the volume is read back: anything but the
 * fade's own last value was set by someone else.
 */
#include "listening/fade.h"

#define STEP_MS 250

struct BridgeFade {
	Bridge *bridge;
	char *who;           /* for the log: "the sleep timer" */
	int from;            /* the volume at the start, 0 to 100 */
	int to;              /* the volume at the end, 0 to 100 */
	gint64 start;        /* monotonic µs of the start */
	gint64 ms;           /* how long it takes; > 0 */
	int set;             /* the volume the fade set last */
	guint timer;         /* source of the next step; 0: done */
	gboolean overridden; /* the listener set a volume meanwhile */
};

static gboolean
on_step(gpointer data)
{
	BridgeFade *fade = data;
	Bridge *bridge = fade->bridge;
	g_autoptr(GError) error = NULL;
	gint64 done_ms;
	int volume;
	int target;

	if (bridge->mpd == NULL ||
	    !bridge_mpd_get_volume(bridge->mpd, &volume, &error)) {
		g_message("%s stops fading: %s", fade->who,
		          error != NULL ? error->message : "no MPD");
		fade->timer = 0;
		return G_SOURCE_REMOVE;
	}
	if (volume != fade->set) {
		g_message("the volume was changed during %s's fade: it stays "
		          "at %d",
		          fade->who, volume);
		fade->overridden = TRUE;
		fade->timer = 0;
		return G_SOURCE_REMOVE;
	}
	done_ms = CLAMP((g_get_monotonic_time() - fade->start) / 1000, 0,
	                fade->ms);
	target = fade->from +
	         (int)((fade->to - fade->from) * done_ms / fade->ms);
	if (target != fade->set) {
		if (!bridge_mpd_set_volume(bridge->mpd, (guint)target,
		                           &error)) {
			g_message("%s stops fading: %s", fade->who,
			          error->message);
			fade->timer = 0;
			return G_SOURCE_REMOVE;
		}
		fade->set = target;
	}
	if (done_ms >= fade->ms) {
		fade->timer = 0;
		return G_SOURCE_REMOVE;
	}
	return G_SOURCE_CONTINUE;
}

BridgeFade *
bridge_fade_start(Bridge *bridge, int from, int to, gint64 ms, const char *who,
                  GError **error)
{
	BridgeFade *fade;

	g_return_val_if_fail(from >= 0 && from <= 100, NULL);
	g_return_val_if_fail(to >= 0 && to <= 100, NULL);
	g_return_val_if_fail(ms > 0, NULL);

	if (bridge->mpd == NULL ||
	    !bridge_mpd_set_volume(bridge->mpd, (guint)from, error))
		return NULL;
	fade = g_new0(BridgeFade, 1);
	fade->bridge = bridge;
	fade->who = g_strdup(who);
	fade->from = from;
	fade->to = to;
	fade->start = g_get_monotonic_time();
	fade->ms = ms;
	fade->set = from;
	fade->timer = g_timeout_add(STEP_MS, on_step, fade);
	return fade;
}

gboolean
bridge_fade_is_running(const BridgeFade *fade)
{
	return fade != NULL && fade->timer != 0;
}

gboolean
bridge_fade_is_overridden(const BridgeFade *fade)
{
	return fade != NULL && fade->overridden;
}

void
bridge_fade_free(BridgeFade *fade)
{
	if (fade == NULL)
		return;
	g_clear_handle_id(&fade->timer, g_source_remove);
	g_free(fade->who);
	g_free(fade);
}
