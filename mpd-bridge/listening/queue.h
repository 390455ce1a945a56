/*
 * Episodes in MPD's queue look like podcasts whoever put them there: mpc
 * loading a podcast's playlist, a client adding one entry, `mpc add URL`
 * or mpd-bridge itself. Each queued song whose URL is a known episode
 * (also behind measurement prefixes) gets its title, the podcast as
 * album, the author as artist, its date, its number as track and the
 * genre Podcast, and gets them again when playback replaces them with
 * the stream's own.
 */
#ifndef BRIDGE_QUEUE_H
#define BRIDGE_QUEUE_H

#include "core/bridge.h"

/*
 * Appends @episode to MPD's queue, titled; through a one-entry playlist
 * file when playlist-files.c can write one, so that its duration shows
 * too.
 */
gboolean
bridge_queue_episode(Bridge *bridge, const BridgeEpisode *episode,
                     GError **error);

/*
 * MPD's queue or player changed (or MPD connected): titles the songs
 * that changed since the last look and are episodes without our tags.
 * Our own tagging changes the queue again; that look finds the tags in
 * place and ends there.
 */
void
bridge_queue_on_change(Bridge *bridge);

/*
 * Each queued episode that does not play names what
 * bridge_downloads_uri() gives for it: its file once MPD has it, its
 * stream again once the file is gone. One look at the whole queue.
 */
void
bridge_queue_follow_files(Bridge *bridge);

/*
 * The song MPD plays or holds paused, when it is an episode MPD streams
 * from elsewhere than bridge_downloads_uri() says now (the relay stops
 * under it, or started meanwhile): the same episode from there takes its
 * place, where it was. @just_started: only when it started a moment ago,
 * so that nobody hears a jump.
 */
void
bridge_queue_move_playing(Bridge *bridge, gboolean just_started);

/*
 * The same, at @ms into it, whenever it started; the song's new id, or 0
 * when it was not moved.
 */
guint
bridge_queue_move_playing_at(Bridge *bridge, gint64 ms);

/*
 * Titles MPD's song @song_id again when it is a stream that plays an
 * episode: with its chapter, or without once that is over.
 */
void
bridge_queue_retitle(Bridge *bridge, guint song_id);

/* MPD went away: the next look takes in the whole queue. */
void
bridge_queue_reset(Bridge *bridge);

void
bridge_queue_clear(Bridge *bridge);

#endif
