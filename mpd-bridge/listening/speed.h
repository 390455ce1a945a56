/*
 * Playback speed per podcast. MPD has no tempo command; MPD 0.24's
 * ffmpeg filter plugin can run "atempo" on an output, so a speed is an
 * output of its own: a copy of the listener's output named "NAME at
 * 1.5×" that filters through "mpd-bridge-speed-1.5". `speed-setup`
 * prints those for mpd.conf; as an episode starts, the output of its
 * podcast's speed is enabled and the others of the set disabled.
 * MPD's elapsed time stays in the episode's own time; the tracker,
 * chapters and skips scale the wall time by BridgeTracking's speed.
 */
#ifndef BRIDGE_LISTENING_SPEED_H
#define BRIDGE_LISTENING_SPEED_H

#include "core/bridge.h"

/* The speed @episode plays at (hundredths): its podcast's, or the
 * default; 1× for NULL (music). */
guint
bridge_speed_of_episode(Bridge *bridge, const BridgeEpisode *episode);

/*
 * `set FEED speed VALUE`: 0.5–3.0, or "default" or "1" to clear.
 * Appends to @note what MPD lacks to play it, if anything.
 */
gboolean
bridge_speed_set_feed(Bridge *bridge, BridgeFeed *feed, const char *value,
                      GString *note, GError **error);

/*
 * The command line's check of `set FEED speed VALUE` before it goes to
 * the daemon, so that a bad speed is a usage error there too; other
 * keys pass.
 */
gboolean
bridge_speed_check_set(char **args, GError **error);

/* An episode started: its speed's output, before anything is timed. */
void
bridge_speed_on_started(Bridge *bridge);

/* MPD's player changed: music gets the plain output back. */
void
bridge_speed_on_player(Bridge *bridge);

/* "; at 1.5×" for status, when what plays is not at 1×. */
void
bridge_speed_describe(Bridge *bridge, GString *out);

/*
 * Whether @output_name is a speed output, "NAME at 1.5×": then @base
 * (may be NULL) gets a new copy of NAME and @speed its speed.
 */
gboolean
bridge_speed_parse_output(const char *output_name, char **base, guint *speed);

/*
 * The mpd.conf text for @speeds (hundredths, sorted, 1× left out): a
 * filter block each, and an audio_output each that copies @settings
 * (names and values in turn, as bridge_mpd_conf_outputs() gives them;
 * may be NULL) or else has type @plugin, named "@name at S×".
 * Returns a new string.
 */
char *
bridge_speed_snippet(const char *name, const char *plugin,
                     const char *const *settings, const GArray *speeds);

/* `speed-setup [OUTPUT-NAME]`: prints the snippet and how to use it. */
gboolean
bridge_speed_run_setup(Bridge *bridge, char **args, GString *out,
                       GError **error);

#endif
