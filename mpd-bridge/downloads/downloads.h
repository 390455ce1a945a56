/*
 * Episodes on disk: downloaded into a folder of MPD's music directory,
 * tagged, played from there, and deleted again.
 *
 * What is kept: the newest N episodes of each podcast not listened to
 * (`set FEED download N`, else [bridge] download), play-later's with
 * [bridge] download_later, and those asked for (`download EPISODE`).
 * Files are written hidden, tagged, then renamed into
 * DIRECTORY/PODCAST/DATE TITLE.EXT, and MPD is asked to read them. From
 * the moment MPD's database has a file, the episode's entries in every
 * playlist, and in the queue where it is not playing, name the file;
 * when the file goes they name the stream again.
 *
 * Files go again after [bridge] download_keep_days once listened, or
 * when newer episodes push them out of a podcast's newest N; never while
 * starred, on a list or playing. Before the disk budget or the free space
 * floor would be crossed, the oldest listened files go first; when that
 * is not enough, downloading stops and says why.
 */
#ifndef BRIDGE_DOWNLOADS_H
#define BRIDGE_DOWNLOADS_H

#include "core/bridge.h"

/*
 * Starts keeping episodes on disk in the daemon: partial files of an
 * earlier run are removed, and a first look is due.
 */
void
bridge_downloads_start(Bridge *bridge);

/* Cancels the transfers under way (the daemon stops). */
void
bridge_downloads_stop(Bridge *bridge);

void
bridge_downloads_clear(Bridge *bridge);

/*
 * What is wanted may have changed (a refresh, a list, an episode
 * listened, a setting): a look at what to download and delete is made
 * soon, once for a burst of changes.
 */
void
bridge_downloads_changed(Bridge *bridge);

/* MPD connected, or its database changed: which files it has now. */
void
bridge_downloads_on_database(Bridge *bridge);

/*
 * What MPD is given for @episode: its file once MPD's database has it,
 * else its stream: the relay's URL while the relay runs, or the host's.
 */
char *
bridge_downloads_uri(const Bridge *bridge, const BridgeEpisode *episode);

/* Whether @uri names a file in MPD's music directory (not a stream). */
gboolean
bridge_downloads_is_file(const char *uri);

#endif
