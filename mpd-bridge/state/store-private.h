/*
 * What the files of the store share: store.c keeps the state in memory;
 * store-fields.c lists the state file's keys, store-load.c and
 * store-groups.c read the file, store-write.c and store-file.c write it.
 * Nothing else includes this.
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
} Feed;

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
};

/* A save in slices (store-write.c), then written in a thread (store-file.c). */
struct BridgeStoreSave {
	BridgeStore *store;
	GString *text;     /* what is made so far */
	GKeyFile *scratch; /* for escaping */
	GString *name;     /* for group names */
	guint generation;  /* of the store when the text was begun */
	guint restarts;    /* begun again after a change of generation */
	guint feed;        /* the next feed to write */
	guint episode;     /* its next episode; 0: its own group first */
	gboolean whole;    /* the text is all there */
	guint64 journal;   /* bytes of the journal's lines as it began:
	                      the save holds them, and not those after */
	guint saves;       /* the store's saves as it began */
	char *path;        /* of the state file, for the thread */
	char *temp;        /* the file written beside it; NULL */
	guint slices;      /* made so far, for the log */
	gint64 longest_us; /* the longest of them */
	gint64 write_us;   /* the thread's write and sync */
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

/* The store as the file's text (store-write.c). */
GString *
bridge_store_serialize(const BridgeStore *store);

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
