/*
 * MPD's own configuration file, read as MPD 0.23 reads it, for the
 * things mpd-bridge wants from it: where MPD keeps its stored playlists
 * and its music, and its audio outputs (to copy for speeds).
 * Nothing here talks to MPD.
 *
 * Errors: G_FILE_ERROR when a file cannot be read; G_KEY_FILE_ERROR_PARSE
 * when one does not parse or includes too deep (or itself);
 * G_KEY_FILE_ERROR_INVALID_VALUE when the directory is no
 * absolute path or names a user that does not exist.
 */
#ifndef BRIDGE_MPD_CONF_H
#define BRIDGE_MPD_CONF_H

#include <glib.h>

/*
 * The @name ("playlist_directory" or "music_directory") that MPD's
 * configuration file @path sets,
 * following include and include_optional (relative to the including
 * file's folder, at most 16 deep), with "~" and "~/..." expanded as MPD
 * does (the home of the config's `user` when it sets one, else ours).
 * Returns a new absolute path, or NULL: with @error unset when the file
 * sets none, set when it cannot be read or does not parse (the message
 * names the file and line).
 */
char *
bridge_mpd_conf_directory(const char *path, const char *name, GError **error);

/*
 * The audio_output blocks of MPD's configuration file @path, includes
 * followed as above, in the file's order: each a NULL-terminated GStrv
 * of setting names and values in turn ("type", "alsa", "name", "…").
 * Returns a new array, or NULL with @error set.
 */
GPtrArray *
bridge_mpd_conf_outputs(const char *path, GError **error);

/*
 * The configuration files MPD reads, in MPD's order, of which the first
 * that exists counts: $XDG_CONFIG_HOME/mpd/mpd.conf, ~/.mpdconf,
 * ~/.mpd/mpd.conf, then /etc/mpd.conf. Returns a new NULL-terminated array.
 */
char **
bridge_mpd_conf_candidates(void);

#endif
