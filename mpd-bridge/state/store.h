/*
 * The bridge's state: subscriptions and the episodes seen, kept in memory
 * and saved as one GKeyFile. Only this module touches the state file.
 */
#ifndef BRIDGE_STORE_H
#define BRIDGE_STORE_H

#include <gio/gio.h>

/* The state file's format; a file of a newer one is refused. */
#define BRIDGE_STORE_VERSION 2

/*
 * One subscription. Fields are the store's; change them, then save. The id
 * never changes; change the URL only with bridge_store_move_feed(). Strings
 * are UTF-8, in these structs as in the file.
 */
typedef struct {
	char *id;            /* stable: a hash of the first URL; never NULL */
	char *url;           /* the feed's current URL; never NULL */
	char *title;         /* the feed's own title; NULL until fetched */
	char *name;          /* the user's display name; NULL means title */
	gboolean auto_queue; /* queue new episodes as they appear */
	guint keep;          /* entries in its playlist; 0 means the default */
	char *match;         /* title pattern to keep; NULL means any */
	char *exclude;       /* title pattern to leave out; NULL means none */
	gint64 min_duration; /* seconds; 0 means any */
	gboolean serial;     /* itunes:type serial: oldest first */
	gboolean complete;   /* itunes:complete: polled rarely */
	gint64 ttl;          /* minutes the feed asks to be cached; 0: none */
	char *etag;          /* validators of the last fetch; NULL: none */
	char *last_modified;
	char *content_hash;
	gint64 last_refresh; /* Unix seconds of the last success; 0: never */
	gint64 next_refresh; /* Unix seconds when due; 0 means now */
	char *last_error;    /* of the last failure; NULL after a success */
	guint failures;      /* in a row, for the back-off */
	gboolean gone;       /* the server answered 410: never refreshed */
	char *pushed;        /* hash of the playlist last sent to MPD; NULL */
	gint64 added;        /* Unix seconds of the subscription */
	char *synced_url;    /* the URL a sync server knows it by; NULL
	                        until uploaded (phone-sync.c) */
	gint64 skip_intro;   /* seconds skipped at the start (skips.c) */
	gint64 skip_outro;   /* seconds skipped at the end */
	char *skip_chapters; /* chapters skipped, a title pattern; NULL */
	gboolean no_chapter_fetch; /* its JSON chapters are not fetched */
	gint64 download;           /* its newest episodes kept on disk
	                              (downloads.c): 0 means the default, -1
	                              none */
	gint64 speed; /* playback speed in hundredths (150 is 1.5×,
	                 listening/speed.c); 0 means the default */
	guint cached; /* the number of its episode cache's last write,
	                 which the cache holds too: one of another number
	                 is not the state's (store-cache.c) */
} BridgeFeed;

/*
 * One episode the bridge has seen in a feed. Fields are the store's;
 * change them, then save, but never id, feed_id or guid: they are keys.
 */
typedef struct {
	char *id;          /* stable: a hash of the feed id and guid */
	char *feed_id;     /* its BridgeFeed's id */
	char *guid;        /* never NULL */
	char *url;         /* the stream URL (http or https); never NULL */
	char *title;       /* never NULL */
	char *author;      /* NULL when unknown */
	gint64 published;  /* Unix seconds; 0 when unknown */
	gint64 duration;   /* seconds; 0 when unknown */
	gint64 number;     /* episode number; 0 when unknown */
	gint64 first_seen; /* Unix seconds */
	gboolean listened;
	gint64 listened_at; /* Unix seconds it was listened; 0 when unknown */
	gint64 position;    /* seconds into it; 0 when not started */
	gint64 last_played; /* Unix seconds; 0 when never */
	gboolean starred;
	gint64 gone; /* Unix seconds since when its feed has left it out;
	                0 while the feed lists it */
	/* For syncing with phones (phone-sync.c): */
	gint64 sync_changed;  /* Unix seconds of the last change to its
	                         position or listened state, here or on a
	                         phone; 0: none, or not stamped yet */
	char *sync_from;      /* the device that change came from; NULL:
	                         this one */
	gboolean sync_unsent; /* a change of ours not uploaded yet */
	/* For downloads (downloads.c): */
	char *type;               /* the enclosure's MIME type; NULL: unknown */
	char *file;               /* the downloaded file, tagged, relative to
	                             MPD's music directory; NULL: none */
	gint64 downloaded;        /* Unix seconds it was downloaded; 0: not */
	gint64 download;          /* 1: the listener asked for it; -1: they
	                             deleted it, not downloaded again unasked;
	                             0: as the rules say */
	char *download_error;     /* why the last try failed; NULL: none */
	gint64 download_failures; /* tries in a row that failed */
	gint64 download_retry;    /* Unix seconds of the next try; 0: now */
} BridgeEpisode;

/*
 * An ordered list of episodes: play-later (its name is NULL), or one the
 * user named. Edit its episodes in place, then save; an id that names no
 * episode is dropped when the state is loaded.
 */
typedef struct {
	char *id;            /* of its group in the file; never NULL */
	char *name;          /* NULL for play-later */
	GPtrArray *episodes; /* BridgeEpisode ids, char *, owned, in order */
	char *pushed;        /* hash of the playlist last sent to MPD; NULL
	                        before the first (not saved) */
} BridgeList;

typedef struct BridgeStore BridgeStore;

/*
 * Loads the state at @path, or starts empty when there is none (its
 * directory need not exist). A file that is not a state file, is damaged,
 * or is of a newer format is refused with an error that names it and says
 * what to do (G_KEY_FILE_ERROR, or G_FILE_ERROR when it cannot be read);
 * it is left as it is. Keys and groups it does not know are kept and
 * written back on save; comments are not.
 */
BridgeStore *
bridge_store_open(const char *path, GError **error);

void
bridge_store_free(BridgeStore *store);

/*
 * Writes the whole state atomically (temp file, rename), mode 0600,
 * creating its directory (mode 0700) when missing. On failure the old file
 * is left as it was and @error names the path.
 */
gboolean
bridge_store_save(BridgeStore *store, GError **error);

/*
 * A save in slices, for a loop that must answer meanwhile: the text is
 * made a few milliseconds at a time (bridge_store_save_step()), then
 * written and synced in a thread (bridge_store_save_write_async()), and
 * renamed over the state file on the loop (bridge_store_save_finish()).
 * The store may change between slices: a change of what feeds and
 * episodes there are starts the text again; a change of an episode
 * after its group was written needs another save, or a journal line
 * (bridge_store_journal_episode()), which the save keeps. A whole save
 * made meanwhile (bridge_store_save()) is newer: then this one is
 * dropped.
 */
typedef struct BridgeStoreSave BridgeStoreSave;

BridgeStoreSave *
bridge_store_save_begin(BridgeStore *store);

/* Makes more of the text for about @budget_us; TRUE once it is whole. */
gboolean
bridge_store_save_step(BridgeStoreSave *save, gint64 budget_us);

/* Writes the whole text beside the state file, synced, in a thread. */
void
bridge_store_save_write_async(BridgeStoreSave *save, GAsyncReadyCallback done,
                              gpointer data);

/*
 * On the loop, once written: renames it over the state file, unless a
 * newer whole save was made meanwhile, and keeps of the journal only the
 * lines written since the save began. FALSE with @error when it failed:
 * the state file is as it was. Frees @save.
 */
gboolean
bridge_store_save_finish(BridgeStoreSave *save, GAsyncResult *result,
                         GError **error);

/* Drops a save whose text is not written yet. */
void
bridge_store_save_free(BridgeStoreSave *save);

/*
 * Notes where @episode is (its position, last play and listened) in the
 * journal beside the state file, a line written and synced, instead of
 * a whole save: for checkpoints and ends while an episode plays. The
 * next whole save folds it in; a load replays it. @size (nullable) gets
 * the journal's size after it. FALSE with @error when it cannot be
 * written: then save the whole state instead.
 */
gboolean
bridge_store_journal_episode(BridgeStore *store, const BridgeEpisode *episode,
                             guint64 *size, GError **error);

/*
 * Whether the state file read is of an older format, which the next save
 * converts (keeping the old file as PATH.vN).
 */
gboolean
bridge_store_is_old_format(const BridgeStore *store);

/* Bytes of the journal's whole lines on the disk now; 0: none. */
guint64
bridge_store_journal_size(const BridgeStore *store);

/*
 * The state file's groups that belong to no feed, episode or list, as a
 * key file: phone-sync.c keeps its own in [sync]. Read and set them with
 * GKeyFile's functions, then save as after any change; they are written
 * after the rest, and a group of an unknown name is kept as it was.
 */
GKeyFile *
bridge_store_get_groups(BridgeStore *store);

/*
 * Takes the state's lock (an flock on PATH.lock), for a command line that
 * edits the state with no daemon running; waits at most @timeout_ms, then
 * fails with G_FILE_ERROR_AGAIN. Reloads the state when the file changed
 * since it was last read or saved: take the lock before changing anything
 * and look feeds and episodes up again after it, as a reload discards
 * unsaved changes and frees the old BridgeFeed and BridgeEpisode structs.
 * Fails without the lock when the changed file is refused.
 */
gboolean
bridge_store_lock(BridgeStore *store, guint timeout_ms, GError **error);

/*
 * Reads the state again when the file changed since it was last read or
 * saved, as bridge_store_lock() does: for a reader that let a writer
 * finish first. The same rules apply to what was looked up before.
 */
gboolean
bridge_store_reload(BridgeStore *store, GError **error);

void
bridge_store_unlock(BridgeStore *store);

const char *
bridge_store_get_path(const BridgeStore *store);

/* The subscriptions, in the order they were added; borrowed, read-only. */
GPtrArray *
bridge_store_get_feeds(const BridgeStore *store);

/*
 * Finds a subscription by id, URL, display name or title (in that order;
 * names case-insensitively), or NULL.
 */
BridgeFeed *
bridge_store_find_feed(const BridgeStore *store, const char *key);

/* The subscription whose URL is exactly @url, or NULL. */
BridgeFeed *
bridge_store_find_feed_by_url(const BridgeStore *store, const char *url);

/* What a person calls @feed: their name for it, else its title or URL. */
const char *
bridge_feed_get_name(const BridgeFeed *feed);

/* What `episodes` says of @episode: "new", "in-progress" or "listened". */
const char *
bridge_episode_get_state(const BridgeEpisode *episode);

/* Adds a subscription for @url, or returns NULL when it exists already. */
BridgeFeed *
bridge_store_add_feed(BridgeStore *store, const char *url);

/*
 * Removes a subscription and its episodes, taking them out of every list,
 * and frees them.
 */
void
bridge_store_remove_feed(BridgeStore *store, BridgeFeed *feed);

/*
 * Says that what @feed says of its episodes changed (a refresh took a new
 * body): its episode cache is written with the next save. Episodes that
 * come, go or take a new guid through the store need not say so.
 */
void
bridge_store_feed_changed(BridgeStore *store, BridgeFeed *feed);

/*
 * Whether @feed's episode cache was missing, damaged or partial when the
 * state was read, and no refresh has brought the feed whole since: then
 * only its episodes with a state of their own are known, and the next
 * refresh must fetch it whole, without validators.
 */
gboolean
bridge_store_feed_cache_lost(const BridgeStore *store, const BridgeFeed *feed);

/* Moves a subscription to @url, keeping everything else. */
void
bridge_store_move_feed(BridgeStore *store, BridgeFeed *feed, const char *url);

/*
 * Returns the episode of @feed with @guid, creating it (with *@created
 * set; @created may be NULL) when it is new. A new episode's url and title
 * are "" and its first_seen is now: fill them in.
 */
BridgeEpisode *
bridge_store_get_episode(BridgeStore *store, BridgeFeed *feed, const char *guid,
                         gboolean *created);

/* The episode of @feed with @guid, or NULL. */
BridgeEpisode *
bridge_store_lookup_episode(const BridgeStore *store, const BridgeFeed *feed,
                            const char *guid);

/*
 * The episodes of @feed (all feeds when NULL), newest first: by published
 * date, latest first, the undated last; where those tie, the latest
 * first_seen first, then in the order they were added (a feed's document
 * order). A new array of borrowed pointers.
 */
GPtrArray *
bridge_store_list_episodes(const BridgeStore *store, const BridgeFeed *feed);

/* Whether @episode is one that bridge_store_filter_episodes() keeps. */
typedef gboolean (*BridgeEpisodeFilter)(const BridgeEpisode *episode,
                                        gpointer data);

/*
 * The episodes of every feed that @keep keeps, in no order: a pass
 * without the sort of bridge_store_list_episodes(), which at 100,000
 * episodes takes a tenth of a second. A new array of borrowed pointers.
 */
GPtrArray *
bridge_store_filter_episodes(const BridgeStore *store, BridgeEpisodeFilter keep,
                             gpointer data);

/*
 * Finds an episode by id, guid, stream URL or downloaded file (in that
 * order), or NULL.
 */
BridgeEpisode *
bridge_store_find_episode(const BridgeStore *store, const char *key);

/*
 * Gives @episode the guid its feed now uses for it, keeping its id and
 * everything else; FALSE, changing nothing, when another episode of the
 * feed has that guid.
 */
gboolean
bridge_store_set_episode_guid(BridgeStore *store, BridgeEpisode *episode,
                              const char *guid);

/* Forgets an episode, taking it out of every list, and frees it. */
void
bridge_store_remove_episode(BridgeStore *store, BridgeEpisode *episode);

/* The lists, play-later first if it exists; borrowed, read-only. */
GPtrArray *
bridge_store_get_lists(const BridgeStore *store);

/*
 * The list called @name (case-insensitively; NULL for play-later), made
 * empty when it does not exist and @create, else NULL.
 */
BridgeList *
bridge_store_get_list(BridgeStore *store, const char *name, gboolean create);

/* Removes a list (not its episodes) and frees it. */
void
bridge_store_remove_list(BridgeStore *store, BridgeList *list);

/* Where the episode @episode_id is on @list, from 0; -1 when not. */
gint
bridge_list_index_of(const BridgeList *list, const char *episode_id);

/* Whether @episode is on any list. */
gboolean
bridge_store_is_listed(const BridgeStore *store, const BridgeEpisode *episode);

#endif
