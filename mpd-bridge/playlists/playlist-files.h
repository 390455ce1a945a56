/*
 * Titled stored playlists. MPD keeps a playlist written through its
 * protocol as bare URLs, and clients then show a podcast as rows of
 * identical file names; but it reads an extended M3U file in its
 * playlist_directory on each request, with each entry's title and
 * duration. When that directory is on this machine and writable, the
 * bridge writes its playlists there; otherwise the sync writes them
 * through the protocol, and the note says what would give titles.
 */
#ifndef BRIDGE_PLAYLIST_FILES_H
#define BRIDGE_PLAYLIST_FILES_H

#include "core/bridge.h"

/*
 * Finds where MPD reads playlists ([bridge] playlist_directory, or MPD's
 * own configuration when MPD is on this machine), checks that it can be
 * written and that the MPD we are connected to reads it. Sets
 * bridge->files.directory, or the note; logs a change of either once.
 * Run on each connection to MPD.
 */
void
bridge_playlist_files_detect(Bridge *bridge);

/* Whether playlists go into files (FALSE: through the protocol). */
gboolean
bridge_playlist_files_enabled(const Bridge *bridge);

/*
 * Why playlists have no titles and what would give them them, or NULL
 * when they have.
 */
const char *
bridge_playlist_files_note(const Bridge *bridge);

/*
 * Writes the playlist @name as NAME.m3u: #EXTM3U, then for each of
 * @episodes (BridgeEpisode *) its #EXTINF:SECONDS,TITLE line and its URL.
 * Whole or not at all; no playlist at all for no episodes. Titles and
 * URLs stay on their own lines: control characters become spaces.
 */
gboolean
bridge_playlist_files_write(Bridge *bridge, const char *name,
                            GPtrArray *episodes, GError **error);

/* Forgets @name, whose playlist is being deleted. */
void
bridge_playlist_files_forget(Bridge *bridge, const char *name);

/*
 * Whether the file of @name is not as written last (a client edited it,
 * and MPD wrote it again without titles, or deleted it).
 */
gboolean
bridge_playlist_files_edited(Bridge *bridge, const char *name);

/* Whether any file written is not as written last. */
gboolean
bridge_playlist_files_any_edited(Bridge *bridge);

/*
 * Clients learn of a changed playlist from MPD's stored_playlist event,
 * which files written beside MPD do not raise: after files were written,
 * makes MPD raise one (a hidden playlist made and deleted through it).
 */
void
bridge_playlist_files_notify(Bridge *bridge);

/*
 * Whether @episode goes into a file: its downloaded file, or an http(s)
 * URL, of a length that MPD takes through its protocol too.
 */
gboolean
bridge_playlist_files_fits(const Bridge *bridge, const BridgeEpisode *episode);

/*
 * Appends @episode to MPD's queue through a hidden one-entry playlist, so
 * that the queue shows its duration before it plays (addid cannot set
 * one). Only when files are enabled.
 */
gboolean
bridge_playlist_files_load_one(Bridge *bridge, const BridgeEpisode *episode,
                               GError **error);

/* @directory/@name.m3u, a new string. */
char *
bridge_playlist_files_path(const char *directory, const char *name);

/*
 * The M3U text of @episodes (BridgeEpisode *), titled @name (NULL: no
 * #PLAYLIST line). Only those that fit are written, titles cut to 1 KiB.
 */
GString *
bridge_playlist_files_m3u(const Bridge *bridge, const char *name,
                          GPtrArray *episodes);

/*
 * Writes @data to @path whole or not at all, mode 0644, without fsync:
 * what it writes can be made again.
 */
gboolean
bridge_playlist_files_write_path(const char *path, const char *data,
                                 gsize length, GError **error);

void
bridge_playlist_files_clear(Bridge *bridge);

#endif
