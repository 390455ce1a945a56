/* What downloads.c shares with the commands of downloads-command.c. */
#ifndef BRIDGE_DOWNLOADS_PRIVATE_H
#define BRIDGE_DOWNLOADS_PRIVATE_H

#include "downloads/downloads.h"

/* Downloads in the daemon, or in one command line (downloads.c). */
struct BridgeDownloads {
	FeedFetcher *fetcher;
	gboolean located;   /* a place was looked for since MPD connected */
	char *music;        /* MPD's music directory, resolved; NULL */
	char *directory;    /* where files go, resolved; NULL */
	char *relative;     /* directory, relative to music */
	char *note;         /* why there is no place; NULL */
	char *stopped;      /* why downloading stopped for want of room */
	GHashTable *active; /* episode id -> BridgeTransfer * */
	GQueue waiting;     /* BridgeTransfer * not started yet */
	GHashTable *in_db;  /* files MPD's database has; NULL until asked */
	guint pass;         /* idle source of a look due; 0: none */
	guint timer;        /* the next retry or cleanup; 0: none */
	gboolean started;   /* in the daemon: looks happen by themselves */
};

/* The downloads' state, made on the first call. */
BridgeDownloads *
bridge_downloads_state(Bridge *bridge);

/* @relative (to MPD's music directory) as an absolute path; new. */
char *
bridge_downloads_path(BridgeDownloads *dl, const char *relative);

/* Each podcast's newest N episodes, listened ones included: a new set. */
GHashTable *
bridge_downloads_newest(Bridge *bridge);

/* Asks MPD to read the download folder again (see downloads.c). */
void
bridge_downloads_tell_mpd(Bridge *bridge);

/*
 * Deletes the files whose time is up: listened ones after their days,
 * those that newer episodes pushed out of their podcast's newest; forgets
 * files that went behind our back (download-room.c).
 */
void
bridge_downloads_clean_up(Bridge *bridge);

/*
 * The bytes one more transfer may write: the oldest listened files go
 * first when needed. 0, with the reason kept for `downloads`, when there
 * is no room (download-room.c).
 */
guint64
bridge_downloads_make_room(Bridge *bridge);

/* Called as each transfer ends; @error NULL when the file is in place. */
typedef void (*BridgeDownloadDone)(Bridge *bridge, const char *episode_id,
                                   const GError *error, gpointer user_data);

/* A transfer under way, or its file being tagged. */
typedef struct {
	char *episode_id;
	GCancellable *cancellable;
	char *hidden;   /* the absolute path written: FOLDER/.NAME */
	char *final;    /* the absolute path it gets: FOLDER/NAME */
	char *relative; /* final, relative to MPD's music directory */
	guint64 received;
	guint64 total; /* 0 while unknown */
	gboolean tagging;
	BridgeDownloadDone done; /* NULL: nobody waits for it */
	gpointer done_data;
} BridgeTransfer;

/*
 * Finds where files go (MPD's music directory and the download folder in
 * it) the first time it is asked, and makes the folder; FALSE with
 * @error saying what to set when there is no such place.
 */
gboolean
bridge_downloads_locate(Bridge *bridge, GError **error);

/* MPD's music directory and the download folder, once located. */
const char *
bridge_downloads_get_music_directory(Bridge *bridge);
const char *
bridge_downloads_get_directory(Bridge *bridge);

/* Why downloading stopped for want of room; NULL when it has not. */
const char *
bridge_downloads_get_stopped(Bridge *bridge);

/* The transfer of @episode under way, or NULL. */
const BridgeTransfer *
bridge_downloads_get_transfer(Bridge *bridge, const BridgeEpisode *episode);

/*
 * The episodes that should be on disk and are not, in the order they are
 * fetched: those asked for, play-later's, each podcast's newest. Those
 * under way and those waiting to be tried again after a failure are in
 * it too. A new array of borrowed pointers.
 */
GPtrArray *
bridge_downloads_wanted(Bridge *bridge);

/*
 * Starts downloading @episode now, as far as the transfers at once allow
 * (else it waits its turn); @done hears of each transfer that ends.
 */
void
bridge_downloads_fetch(Bridge *bridge, BridgeEpisode *episode,
                       BridgeDownloadDone done, gpointer user_data);

/*
 * Deletes @episode's file: its entries in playlists and in the queue name
 * the stream again first, MPD is told. FALSE with @error when it is
 * playing, or the file cannot be deleted.
 */
gboolean
bridge_downloads_remove(Bridge *bridge, BridgeEpisode *episode, GError **error);

/* The size of @episode's file in bytes; 0 when it has none. */
guint64
bridge_downloads_file_size(Bridge *bridge, const BridgeEpisode *episode);

/* Starts waiting transfers, as many as download_jobs and the room allow. */
void
bridge_downloads_start_waiting(Bridge *bridge, BridgeDownloads *dl);

void
bridge_transfer_free(BridgeTransfer *transfer);

/* Seconds since the epoch, as the store keeps times. */
gint64
bridge_downloads_now(void);

#endif
