/*
 * What the files of the store share: store.c keeps the state in memory;
 * store-fields.c lists the key file's keys, store-load.c and
 * store-groups.c read it, store-write.c and store-file.c write it;
 * store-cache.c reads and writes the feeds' episode caches, and
 * store-heard.c the episodes listened and nothing more. Nothing else
 * includes this.
 */
#ifndef BRIDGE_STORE_PRIVATE_H
#define BRIDGE_STORE_PRIVATE_H

#include "state/store.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

/* The group id of play-later; a named list's is a hash of its name. */
#define BRIDGE_STORE_LATER_ID "later"

typedef enum {
	FIELD_STRING, /* char *; NULL when the key is absent */
	FIELD_BOOLEAN,
	FIELD_INT64,
	FIELD_UINT,
} FieldType;

typedef struct {
	const char *key;
	size_t offset; /* in BridgeFeed or BridgeEpisode */
	FieldType type;
	gboolean required;
	gboolean sparse; /* FIELD_INT64 or FIELD_BOOLEAN not written when 0
	                    or false: most never are */
} Field;

typedef struct {
	BridgeFeed pub;      /* first, so that a BridgeFeed * is a Feed * */
	GPtrArray *episodes; /* Episode *, in seq order; owns them */
	GHashTable *by_guid; /* guid -> Episode *, borrowed */
	guint cache_changes; /* of what its episode cache holds, so far */
	guint cache_saved;   /* cache_changes when its cache was written */
	gboolean cache_lost; /* its cache was missing, damaged or partial
	                        when read: the next refresh fetches the
	                        feed whole (store-cache.c) */
	GHashTable *heard;   /* episode id -> Heard *, owned: episodes
	                        listened, as the key file's feed group says,
	                        that are not known yet (a cache lost) */
} Feed;

/*
 * An episode listened and nothing else: a few bytes in its feed's group
 * (heard=ID:LISTENED_AT:LAST_PLAYED;…), not a group of its own.
 */
typedef struct {
	gint64 listened_at;
	gint64 last_played;
} Heard;

/* pub comes first, so that a BridgeEpisode * is an Episode *. */
typedef struct {
	BridgeEpisode pub;
	guint seq; /* creation order, kept through the file's order */
	char id[]; /* pub.id points here: one allocation, not two */
} Episode;

/* What the file was when last read or written, to notice other writers. */
typedef struct {
	gboolean exists; /* FALSE: there was no file; the rest is 0 */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	guint64 journal; /* bytes of PATH.journal's lines read or written;
	                    0: none */
} Stamp;

struct BridgeStore {
	char *path;
	int lock_fd;             /* of PATH.lock while locked; -1 otherwise */
	Stamp stamp;             /* of the file the state came from */
	GPtrArray *feeds;        /* Feed *, in the order added; owns them */
	GHashTable *feed_ids;    /* id -> Feed *, borrowed */
	GHashTable *episode_ids; /* id -> Episode *, borrowed */
	GPtrArray *lists;        /* BridgeList *, play-later first; owns them */
	GKeyFile *extra;         /* unknown keys and groups, raw, for saving */
	guint next_seq;          /* for the next Episode */
	guint generation;        /* one more each time feeds or episodes come or
	                            go, for a save in slices to start over */
	guint saves;             /* whole saves made, to tell a save in slices
	                            that one made after it began is newer */
	gint64 version;          /* of the file read; 0: none */
	GPtrArray *uncached;     /* ids of feeds removed since the last save,
	                            whose caches go with it */
};

/* A feed's episode cache made by a save, to write (store-cache.c). */
typedef struct {
	char *feed_id;
	GBytes *bytes;
	guint changes; /* the feed's cache_changes it holds */
	char *temp;    /* written beside it; NULL until then */
} CacheBlob;

/* A save in slices (store-write.c), then written in a thread (store-file.c). */
struct BridgeStoreSave {
	BridgeStore *store;
	GString *text;       /* what is made so far */
	GKeyFile *scratch;   /* for escaping */
	GString *name;       /* for group names */
	guint generation;    /* of the store when the text was begun */
	guint restarts;      /* begun again after a change of generation */
	guint feed;          /* the next feed to write */
	guint episode;       /* its next episode; 0: its own group first */
	gboolean whole;      /* the text is all there */
	guint64 journal;     /* bytes of the journal's lines as it began:
	                        the save holds them, and not those after */
	guint saves;         /* the store's saves as it began */
	GPtrArray *caches;   /* CacheBlob *, of the feeds whose cache changed */
	GHashTable *packed;  /* their feed ids, borrowed */
	GPtrArray *uncached; /* ids of feeds removed, whose caches go */
	GHashTable *kept;    /* bridge_store_kept_ids(), for the slice */
	char *path;          /* of the state file, for the thread */
	char *temp;          /* the file written beside it; NULL */
	guint slices;        /* made so far, for the log */
	gint64 longest_us;   /* the longest of them */
	gint64 write_us;     /* the thread's write and sync */
};

/*
 * The fields of the file, each a struct member (store-fields.c). A list's
 * first field is its name; its second, its episodes, is read and written
 * by hand.
 */
extern const Field bridge_store_feed_fields[];
extern const gsize bridge_store_n_feed_fields;
extern const Field bridge_store_episode_fields[];
extern const gsize bridge_store_n_episode_fields;
extern const Field bridge_store_list_fields[];
extern const gsize bridge_store_n_list_fields;

/* A group and the lines up to the next one, comments above it included. */
typedef struct {
	gsize start;  /* offset of its first byte */
	guint line;   /* of its group line, from 1 */
	guint n_keys; /* lines that may be keys; at least the keys */
} Section;

/* The in-memory side (store.c). */
BridgeStore *
bridge_store_new_empty(const char *path);

Episode *
bridge_store_episode_new(const char *id);

void
bridge_store_episode_free(gpointer data);

Feed *
bridge_store_feed_new(const char *id);

void
bridge_store_feed_free(gpointer data);

BridgeList *
bridge_store_list_new(const char *id, const char *name);

void
bridge_store_list_free(gpointer data);

/* Appends @episode to @feed's episodes, findable by its guid. */
void
bridge_store_attach(Feed *feed, Episode *episode);

/* Drops list entries that name no episode. */
void
bridge_store_prune_lists(BridgeStore *store);

/* Episodes in creation order, for g_ptr_array_sort(). */
gint
bridge_store_compare_seq(gconstpointer a, gconstpointer b);

gint64
bridge_store_now(void);

/* The file side (store-load.c): reads @store->path into an empty store. */
gboolean
bridge_store_load(BridgeStore *store, GError **error);

/*
 * Sets @error to say that the state file at @path cannot be used, with
 * what is wrong in it (@format), and that it is left as it is.
 */
void
bridge_store_refuse(GError **error, GQuark domain, gint code, const char *path,
                    const char *format, ...) G_GNUC_PRINTF(5, 6);

/*
 * Reads one group of the file (store-groups.c): the @length bytes of
 * @text that @section found. @bridge says that it is the [bridge] group,
 * which is read first. An episode whose feed is not read yet goes to
 * @pending.
 */
gboolean
bridge_store_load_section(BridgeStore *store, const char *text, gsize length,
                          const Section *section, gboolean bridge,
                          GPtrArray *pending, GError **error);

/* Attaches the episodes that came before their feed in the file. */
gboolean
bridge_store_attach_pending(BridgeStore *store, GPtrArray *pending,
                            GError **error);

/*
 * Whether @episode has a state of its own, which the key file keeps:
 * anything the listener did, a download, or its id in @kept. An episode
 * nobody touched is only in its feed's cache.
 */
gboolean
bridge_store_episode_is_own(const Episode *episode, GHashTable *kept);

/*
 * Whether @episode is listened and has no other state of its own, so
 * that its feed's group holds it (Heard) rather than a group of its own.
 */
gboolean
bridge_store_episode_is_heard(const Episode *episode, GHashTable *kept);

/*
 * Reads a feed group's heard= value into @feed->heard; FALSE with
 * @error, which names @line, when it is not one.
 */
gboolean
bridge_store_heard_parse(BridgeStore *store, Feed *feed, const char *value,
                         guint line, GError **error);

/*
 * Marks @feed's episodes listened as its heard records say, once they
 * are read; those of episodes not known yet wait for them.
 */
void
bridge_store_heard_apply(BridgeStore *store, Feed *feed);

/* Applies the record waiting for @episode, new in @feed, if any. */
void
bridge_store_heard_take(Feed *feed, Episode *episode);

/*
 * The ids of the episodes the key file keeps whatever their fields: on
 * a list, or with keys this version does not know. Borrowed.
 */
GHashTable *
bridge_store_kept_ids(const BridgeStore *store);

/*
 * The episode caches (store-cache.c): one file per feed in PATH.cache,
 * a GVariant of what the feed says of each episode, read from a mapped
 * file. The key file holds what the listener did.
 */
char *
bridge_store_cache_path(const char *store_path, const char *feed_id);

/*
 * @feed's cache as it is now, for a save, under a new number, which the
 * key file written after it holds.
 */
CacheBlob *
bridge_store_cache_pack(Feed *feed);

void
bridge_store_cache_blob_free(gpointer data);

/*
 * Reads @feed's cache into it, after the key file: the episodes it
 * lists that the key file does not are made, in the cache's order. A
 * cache that is missing, damaged or partial marks the feed cache_lost.
 */
void
bridge_store_cache_read(BridgeStore *store, Feed *feed);

/* Writes @blob beside its cache file, not synced: 0, or an errno. */
int
bridge_store_cache_write(const char *store_path, CacheBlob *blob);

/*
 * Renames the caches written over their files and removes those of
 * @uncached feeds: on the loop, before the key file is renamed. FALSE
 * with @error when a rename fails.
 */
gboolean
bridge_store_cache_commit(BridgeStore *store, GPtrArray *caches,
                          GPtrArray *uncached, GError **error);

/* What the file is now, from stat(), to notice other writers later. */
void
bridge_store_stamp_from_stat(Stamp *stamp, const struct stat *st);

/* Writes all of @data to @fd: 0, or the errno of what failed. */
int
bridge_store_write_all(int fd, const char *data, gsize length);

/*
 * store-journal.c: replays PATH.journal over the state just read; the
 * bytes it had, 0 when there is none.
 */
guint64
bridge_store_journal_replay(BridgeStore *store);

/* Removes PATH.journal, which a whole save has folded in. */
void
bridge_store_journal_remove(BridgeStore *store);

/*
 * Keeps of PATH.journal only the lines after its first @from bytes,
 * which a whole save has folded in; FALSE with @error when it cannot.
 */
gboolean
bridge_store_journal_keep_after(BridgeStore *store, guint64 from,
                                GError **error);

#endif
