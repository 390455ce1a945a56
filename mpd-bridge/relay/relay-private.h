/*
 * The relay's insides. It runs on a thread of its own, with a main
 * context of its own: the daemon talks to MPD in blocking calls on its
 * main loop, and MPD answers some of them (a seek) only once its decoder
 * has read from the relay. On the daemon's loop that would wait for
 * itself.
 *
 * So the relay's state is in two parts. What both threads use is under
 * @lock: the episodes the relay may serve (each registered as its URL is
 * handed to MPD) and the last host given up. Everything else (the
 * server, its connections, each episode's cache file and fetch) belongs
 * to the relay's thread; the daemon's thread reaches it only through
 * bridge_relay_call(), which runs a function there and waits for it.
 *
 * The parts: the life of the thread and what the daemon asks
 * (relay.c), the server and its connections (relay-server.c), the
 * answers to MPD (relay-reply.c), the fetch of each episode from its
 * host (relay-fetch.c), and the cache files (relay-cache.c).
 */
#ifndef BRIDGE_RELAY_PRIVATE_H
#define BRIDGE_RELAY_PRIVATE_H

#include "relay/relay-ranges.h"
#include "relay/relay.h"

#include <libsoup/soup.h>

/* Bytes read from a cache file and handed to the server at a time. */
#define RELAY_CHUNK (64 * 1024)

typedef struct RelayEntry RelayEntry;
typedef struct RelayReply RelayReply;
typedef struct RelayFetch RelayFetch;

/* An episode the relay may serve, as the store had it. */
typedef struct {
	char *url;         /* the host's */
	char *title;       /* for the log */
	char *type;        /* the enclosure's MIME type; NULL: unknown */
	double gone_share; /* of the file MPD had when its host was given
	                      up mid-way; 0: not given up */
} RelayEpisode;

/* Why a host was given up, for `status`. */
typedef struct {
	char *title;  /* the episode's; NULL while none was */
	char *host;   /* the host's name */
	char *reason; /* "HTTP 404", libcurl's words, … */
	gint64 at;    /* Unix seconds */
} RelayGone;

/* What the relay works by, copied from the settings at its start. */
typedef struct {
	guint give_up;    /* seconds a host may fail in a row */
	guint64 max_size; /* bytes a file may have */
	guint keep_days;  /* a listened episode's file is kept */
	guint64 budget;   /* bytes the cache may take; 0: no limit */
	guint64 min_free; /* bytes left free on its disk */
} RelayRules;

struct BridgeRelay {
	/* Set before the thread starts, read-only after. */
	Bridge *bridge;  /* the daemon's thread's, never the relay's */
	char *directory; /* of the cache files */
	guint port;      /* where it listens; 0 while it does not */
	RelayRules rules;
	GMainContext *context; /* the relay thread's */
	/* The daemon's thread's. */
	GThread *thread;
	char *off_why;    /* why MPD is not given relay URLs; NULL
	                     while it is */
	GSource *cleanup; /* the next look at the cache files; NULL */
	/* Both threads', under @lock. */
	GMutex lock;
	GHashTable *episodes; /* episode id -> RelayEpisode */
	RelayGone last_gone;
	gint stopping; /* atomic: the daemon stops; no new answers */
	/* The relay thread's. */
	GMainLoop *loop;
	SoupServer *server;
	GSocketService *service;
	FeedFetcher *fetcher; /* the relay's own: its limits and timeouts */
	GHashTable *entries;  /* episode id -> RelayEntry */
	GHashTable *sockets;  /* GSocket -> RelayConnection, accepted */
	GSource *sweep;       /* ends idle connections and entries */
	guint refused;        /* connections refused over the limit */
};

/* One episode's cache file, and its fetch from the host. */
struct RelayEntry {
	BridgeRelay *relay;
	char *id;             /* the episode's */
	char *url;            /* the host's, as the store had it */
	char *title;          /* for the log */
	char *path;           /* the cache file */
	int fd;               /* of the cache file; -1 when closed */
	BridgeRanges *ranges; /* the bytes in the file */
	guint64 total;        /* the file's size; 0 while unknown */
	gboolean ended;       /* the host ended the body: the file is
	                         ranges' end long, whatever total said */
	char *validator;      /* the host's ETag or Last-Modified; NULL */
	char *type;           /* the host's Content-Type; NULL */
	gboolean host_ranges; /* the host takes Range requests */
	gboolean head_known;  /* a response has said the above */
	gboolean whole;       /* every byte is in the file */
	gboolean taken;       /* the downloads took the file: no record */
	/* The fetch under way, or the one due. */
	RelayFetch *fetch;    /* NULL when none is under way */
	guint64 fetch_from;   /* where the one under way was asked from */
	guint64 fetch_at;     /* the next byte it brings */
	GSource *retry;       /* the next try; NULL: none due */
	guint failures;       /* tries in a row that brought nothing */
	guint cuts;           /* failures in all, for the log */
	gint64 failing_since; /* monotonic µs of the first of them; 0 */
	char *gone;           /* why the host is given up; NULL while it
	                         is not */
	gint64 gone_at;       /* monotonic µs it was given up */
	guint gone_status;    /* the host's HTTP status then; 0: none */
	guint64 recorded;     /* bytes in the file at the last record */
	guint64 synced;       /* bytes in the file at the last fdatasync */
	GList *replies;       /* RelayReply under way, newest first */
	gint64 idle_since;    /* monotonic µs since no reply is under way */
};

/* One answer to MPD under way. */
struct RelayReply {
	RelayEntry *entry;
	SoupServerMessage *msg; /* NULL once it finished */
	gboolean head;          /* a HEAD request: no body */
	gboolean answered;      /* status and headers are set */
	guint64 start;          /* first byte asked for */
	guint64 next;           /* the next byte to hand over */
	guint64 end;            /* one past the last; G_MAXUINT64 while
	                           the file's size is unknown */
	guint queued;           /* chunks handed over, not yet written */
	gboolean stale;         /* the file changed under it, or cannot be
	                           read: zeros to its end */
	gboolean completed;     /* its whole body was handed over */
	GSource *hangup;        /* watches MPD's side while it waits */
};

/* relay.c */

/* Runs @func(@data) on the relay's thread and returns when it did. */
void
bridge_relay_call(BridgeRelay *relay, GSourceFunc func, gpointer data);

/* A timeout on the relay's context; destroy it with
 * bridge_relay_source_clear(). */
GSource *
bridge_relay_timeout(BridgeRelay *relay, guint ms, GSourceFunc func,
                     gpointer data);

void
bridge_relay_source_clear(GSource *source);

gboolean
bridge_relay_is_stopping(BridgeRelay *relay);

/* Copies what the relay knows of episode @id into @out; FALSE when it
 * does not know it. Free with bridge_relay_episode_clear(). */
gboolean
bridge_relay_lookup(BridgeRelay *relay, const char *id, RelayEpisode *out);

void
bridge_relay_episode_clear(RelayEpisode *episode);

/* The relay's thread: the daemon's thread hears @kind of @entry. */
void
bridge_relay_tell(RelayEntry *entry, BridgeNewsKind kind);

/* The relay's thread: @entry's host is given up, for `status`. */
void
bridge_relay_note_gone(RelayEntry *entry, const char *host, const char *reason);

/*
 * The relay's thread: the part of @entry's file what MPD streams has
 * (0 to 1) as its host is given up, for the tracker; 0 when the host is
 * asked again.
 */
void
bridge_relay_note_share(RelayEntry *entry, double share);

/* relay-server.c: the relay's thread. */

/* Starts serving on @relay->port (set); FALSE with @error. */
gboolean
bridge_relay_server_start(BridgeRelay *relay, GError **error);

/* No more connections; what is under way goes on. */
void
bridge_relay_server_close(BridgeRelay *relay);

/* Whether a reply is under way, and whether each can be sent to its
 * end from the cache files. */
gboolean
bridge_relay_server_busy(BridgeRelay *relay, gboolean *drains);

/* Ends every reply and connection, and frees the server. */
void
bridge_relay_server_free(BridgeRelay *relay);

/* A request came whole on @msg: its connection is busy until the
 * message finishes. */
void
bridge_relay_request_began(BridgeRelay *relay, SoupServerMessage *msg);

/* The socket of @msg's connection; NULL when it went. */
GSocket *
bridge_relay_socket_of(BridgeRelay *relay, SoupServerMessage *msg);

/* Ends a connection: libsoup sees its end, and lets go of it. */
void
bridge_relay_hang_up(GSocket *socket);

/* relay-reply.c: the relay's thread. */
void
bridge_relay_on_request(SoupServer *server, SoupServerMessage *msg,
                        const char *path, GHashTable *query,
                        gpointer user_data);

/* More bytes, the host's answer, or its end: the replies go on. */
void
bridge_relay_replies_wake(RelayEntry *entry);

/* The file changed: what was answered before cannot go on. */
void
bridge_relay_replies_stale(RelayEntry *entry);

/* Ends every reply of @entry at once (the daemon stops). */
void
bridge_relay_replies_cut(RelayEntry *entry);

/* relay-fetch.c: the relay's thread. */

/* The entry of episode @id, made and read from its record when new. */
RelayEntry *
bridge_relay_entry(BridgeRelay *relay, const char *id,
                   const RelayEpisode *episode);

void
bridge_relay_entry_free(RelayEntry *entry);

/*
 * A reply needs byte @offset: the host is asked for it unless it is in
 * the file or on its way. Only the newest reply (@lead) moves a fetch
 * under way; others wait for it.
 */
void
bridge_relay_fetch_want(RelayEntry *entry, guint64 offset, gboolean lead);

/* A new request for an episode whose host was given up a while ago:
 * the host gets another chance. */
void
bridge_relay_fetch_retry_gone(RelayEntry *entry);

/* No reply for a while: the fetch stops. */
void
bridge_relay_entry_rest(RelayEntry *entry);

/* relay-cache.c: the relay's thread, but for the last three. */

/* Opens the cache file (made when missing); FALSE with the reason
 * logged. */
gboolean
bridge_relay_cache_open(RelayEntry *entry);

/* Reads what the record of @entry's file says into it. */
void
bridge_relay_cache_load(RelayEntry *entry);

/* Writes the record of @entry's file (when it changed, or @force). */
void
bridge_relay_cache_record(RelayEntry *entry, gboolean force);

/* Writes @data at @offset of the file; FALSE with the reason logged. */
gboolean
bridge_relay_cache_write(RelayEntry *entry, guint64 offset, const guint8 *data,
                         gsize length);

/* Up to @max bytes from @offset, which must be in the file; NULL when
 * it cannot be read (logged). */
GBytes *
bridge_relay_cache_read(RelayEntry *entry, guint64 offset, gsize max);

/* Forgets the file's bytes: the host changed it. */
void
bridge_relay_cache_reset(RelayEntry *entry);

/* Any thread: whether the record of @episode's file says it is whole. */
gboolean
bridge_relay_cache_is_whole(const BridgeRelay *relay,
                            const BridgeEpisode *episode);

/* Any thread: removes the cache file at @path and its record. */
void
bridge_relay_cache_remove(const char *path);

/* The daemon's thread: removes the cache files the rules say go. */
void
bridge_relay_cache_clean(BridgeRelay *relay);

#endif
