/*
 * All of the daemon's state, in one struct made by main(): no file-scope
 * variables anywhere in mpd-bridge.
 */
#ifndef BRIDGE_BRIDGE_H
#define BRIDGE_BRIDGE_H

#include "core/config.h"
#include "core/news.h"
#include "mpd/mpd.h"
#include "state/store.h"

#include <feed/feed.h>

/* What the listening tracker knows of MPD's player since its last event. */
typedef struct {
	char *episode_id; /* the episode MPD is on, or NULL */
	guint song_id;    /* its queue id */
	BridgePlayerState state;
	gint64 elapsed_ms;      /* at the last event */
	gint64 at;              /* monotonic microseconds of the last event */
	gint64 duration_ms;     /* as MPD knows it; 0 when unknown */
	guint checkpoint;       /* source saving the position while playing */
	guint resume_timer;     /* source of a pending resume; 0: none */
	guint resume_check;     /* source checking a resume; 0: none */
	gint64 resume_below_ms; /* a due resume seeks only if MPD is still
	                           before this */
	gboolean held;          /* the episode was first seen paused: MPD's
	                           restored state, not the listener's yet */
	GHashTable *unseekable; /* episode ids whose seek failed, logged */
	GHashTable *tries;      /* episode id -> resumes MPD failed since the
	                           last that took; NULL until the first */
	char *player_error;     /* MPD's player error at the last event;
	                           NULL: none */
	guint speed;            /* of what plays, in hundredths (150 is
	                           1.5×), by the output chosen for it
	                           (listening/speed.c); 0 or 100: 1× */
	guint speed_wanted;     /* the speed outputs were last chosen for;
	                           0: none since MPD connected */
	gint64 paused_at;       /* monotonic microseconds of the event of the
	                           pause MPD is in; 0: none seen (no pause,
	                           or it began before a restart) */
	gint64 paused_real;     /* the same in real time, microseconds since
	                           1970; set with paused_at */
	gint64 paused_ms;       /* MPD's elapsed time at that pause; set
	                           with paused_at */
} BridgeTracking;

/* Where playlists go as files (playlist-files.c). */
typedef struct BridgePlaylistFiles BridgePlaylistFiles;

/* What titling MPD's queue knows (queue.c). */
typedef struct BridgeQueueTitles BridgeQueueTitles;

/* Skipping intros, outros and chapters (skips.c). */
typedef struct BridgeSkips BridgeSkips;

/* The chapters of what plays (chapters.c). */
typedef struct BridgeChapterState BridgeChapterState;

/* What syncing with phones holds in the daemon (phone-sync.c). */
typedef struct BridgePhoneSync BridgePhoneSync;

/* Episodes on disk: transfers, and the files MPD has (downloads.c). */
typedef struct BridgeDownloads BridgeDownloads;

/* The sleep timer, in the daemon's memory only (sleep.c). */
typedef struct BridgeSleep BridgeSleep;

/* The wake-up alarm's timer and fade; the alarms are in the state. */
typedef struct BridgeAlarms BridgeAlarms;

/* The relay between MPD and the hosts (relay/relay.h). */
typedef struct BridgeRelay BridgeRelay;

struct Bridge {
	BridgeConfig *config;
	BridgeStore *store;
	BridgeMpd *mpd;        /* NULL for a command line without MPD */
	FeedFetcher *fetcher;  /* NULL until a refresh needs one */
	GMainLoop *loop;       /* NULL outside the daemon */
	gboolean daemon;       /* running as `mpd-bridge run` */
	guint refresh_timer;   /* source of the next due refresh; 0: none */
	guint save_timer;      /* source of a pending save; 0: none */
	guint fetching;        /* refreshes under way */
	gboolean pushed;       /* playlists pushed whole since MPD connected:
	                          until then, every push is whole */
	gboolean dirty;        /* the state has changes not yet saved */
	gboolean later;        /* it has changes that wait for the next
	                          whole save (bridge_changed_later()) */
	GPtrArray *to_journal; /* ids of episodes whose journal line is
	                          due, char *; NULL: none */
	guint journal_idle;    /* source that writes them; 0: none */
	guint64 changes;       /* bridge_changed() calls so far */

	/* A whole save in slices (bridge_save_then()). */
	BridgeStoreSave *saving; /* under way; NULL: none */
	guint saving_idle;       /* source of its next slice; 0 once its
	                            text is being written */
	GSList *saved_waiting;   /* callers told when it is on disk */
	GSList *next_waiting;    /* the same, for changes made since it
	                            began: the next save's */
	gboolean save_failing;   /* the last save failed, and was logged */

	char *new_pushed;      /* hash of the new-episodes playlist last sent
	                          to MPD; NULL before the first */
	char *starred_pushed;  /* the same, of the starred playlist */
	char *continue_pushed; /* the same, of the Continue playlist */
	guint continue_timer;  /* source of a due Continue push; 0: none */
	gint64 continue_at;    /* monotonic microseconds of its last push;
	                          0: none yet */
	GPtrArray *continuing; /* BridgeEpisode *, borrowed: those in
	                          progress, most recently played first, kept
	                          through changes of position
	                          (playlists/push.c); NULL: to be worked out,
	                          as after any other change */
	GRegex *url_prefixes;  /* tracking-redirect prefixes; NULL until used */
	BridgeTracking tracking;
	BridgePlaylistFiles *files;      /* NULL until first looked at */
	BridgeQueueTitles *queue_titles; /* NULL until first looked at */
	BridgePhoneSync *phone;          /* NULL until syncing needs it */
	BridgeDownloads *downloads;      /* NULL until downloads need it */
	BridgeChapterState *chapters;    /* NULL until chapters are read */
	BridgeSkips *skips;              /* NULL until first looked at */
	BridgeSleep *sleep;              /* NULL until a sleep timer is set */
	BridgeAlarms *alarms;            /* NULL until the daemon waits for
	                                    an alarm */
	BridgeRelay *relay;              /* NULL outside the daemon */
	BridgeNewsListener news; /* hears what concerns tell; NULL: none */
	guint resume_wait_ms;    /* how long a resume waits for a phone to
	                            say where it stopped; 0: none */
};

/*
 * Notes that the state changed: the daemon saves it shortly after, in
 * one write for a burst of changes; a command line saves before it exits.
 */
void
bridge_changed(Bridge *bridge);

/*
 * Notes that only @episode's position, last play, listened or sync stamp
 * changed: in the daemon, a line in the state's journal, not a whole
 * save, unless a whole save is due anyway, the journal has grown long or
 * many episodes wait for their lines. The line is written once the loop
 * is idle, one for all that changed the episode meanwhile (the tracker's
 * checkpoint and the phone sync's stamp).
 */
void
bridge_changed_episode(Bridge *bridge, const BridgeEpisode *episode);

/*
 * Notes a change that may wait for the next whole save, for whatever
 * reason that comes, or the daemon's stop: one that a crash may lose at
 * no cost because what it records is done again, as a phone sync round's
 * bookkeeping (what was uploaded is uploaded again, and the server keeps
 * the newest).
 */
void
bridge_changed_later(Bridge *bridge);

/*
 * Saves now if a save is pending (or, in a command line, changes wait
 * for one); else writes the journal lines due. All of it on the loop:
 * for a command line and the daemon's stop. A save in slices under way
 * is dropped, since this one is newer.
 */
gboolean
bridge_save(Bridge *bridge, GError **error);

/* What bridge_save_then() calls: @error NULL once the changes are saved. */
typedef void (*BridgeSaved)(Bridge *bridge, const GError *error, gpointer data);

/*
 * In the daemon: calls @done once every change made so far is on disk,
 * at once when none waits. A whole save goes in slices of a few
 * milliseconds of the loop, and is written and synced in a thread, so
 * that MPD's events and the commands of others are not held up by it
 * (0.3 s at 100,000 episodes). A save that fails calls @done with its
 * error, and is tried again later.
 */
void
bridge_save_then(Bridge *bridge, BridgeSaved done, gpointer data);

/*
 * Writes the journal lines due now; a whole save that is due begins now
 * (in slices) rather than after the pause that gathers a burst.
 */
void
bridge_save_soon(Bridge *bridge);

/* Tells what waits for a save that none comes, as the daemon ends. */
void
bridge_save_clear(Bridge *bridge);

#endif
