/*
 * The fetcher's insides, shared by the curl-on-GLib plumbing (fetcher.c),
 * the life of one fetch (fetch.c) and the request and result objects
 * (fetch-request.c).
 */
#ifndef FEED_FETCHER_PRIVATE_H
#define FEED_FETCHER_PRIVATE_H

#include "feed/fetcher.h"

#include <curl/curl.h>

struct FeedFetchRequest {
	char *url;
	char *etag;          /* NULL when the caller has none */
	char *last_modified; /* NULL when the caller has none */
	char *content_hash;  /* NULL when the caller has none */
	char *username;      /* NULL for no credentials */
	char *password;      /* NULL for none */
	FeedFetchFlags flags;
	guint max_pages;              /* 0 means the default */
	FeedEpisodeFunc episode_func; /* NULL: episodes go to the channel */
	gpointer episode_data;
	GOutputStream *body_stream; /* gets a copy of the body; NULL: none */
	/*
	 * Set only inside libfeed, for documents that are not feeds (JSON
	 * chapters): the body is kept whole in the result's @body, up to
	 * this many bytes, instead of parsed. 0: the body is a feed.
	 */
	gsize keep_body_max;
};

struct FeedFetchResult {
	gatomicrefcount ref;
	FeedFetchStatus status;
	FeedChannel *channel; /* NULL unless UPDATED */
	char *url;
	char *final_url;
	char *discovered_url; /* NULL when the URL was a feed */
	char *new_feed_url;   /* NULL when the feed names none */
	char *etag;           /* NULL when the server sent none */
	char *last_modified;  /* NULL when the server sent none */
	char *content_hash;   /* NULL when no body came */
	gboolean moved;
	guint http_status; /* 0 when no response came */
	guint64 bytes;     /* bytes of bodies received, compressed */
	gint64 elapsed;    /* microseconds */
	/* Why the copy to the body stream stopped; NULL while it did not. */
	GError *body_stream_error;
	GBytes *body; /* the kept body (keep_body_max); NULL for feeds */
};

typedef struct Fetch Fetch;

struct FeedFetcher {
	GMainContext *context;
	CURLM *multi;
	GSource *timer;       /* curl's timeout, NULL when none is due */
	GQueue waiting;       /* of Fetch, not yet started */
	GHashTable *running;  /* Fetch -> itself, transfers under way */
	GHashTable *per_host; /* host -> GUINT_TO_POINTER(transfers) */
	/* host -> GUINT_TO_POINTER(fetches in @waiting); absent means none */
	GHashTable *waiting_hosts;
	guint max_transfers;
	guint max_per_host;
	guint connect_timeout; /* seconds */
	guint total_timeout;   /* seconds */
	guint stall_timeout;   /* seconds */
	guint max_redirects;
	gsize max_size; /* bytes after decompression */
};

G_GNUC_INTERNAL
FeedFetchRequest *
feed_fetch_request_copy(const FeedFetchRequest *request);

G_GNUC_INTERNAL
FeedFetchResult *
feed_fetch_result_new(const char *url);

/* fetch.c: one fetch, from its first transfer to its callback. */
G_GNUC_INTERNAL
Fetch *
feed_fetch_new(FeedFetcher *fetcher, const FeedFetchRequest *request,
               GCancellable *cancellable, FeedFetchFunc callback,
               gpointer user_data);

/* The host that counts against the per-host limit for the next transfer. */
G_GNUC_INTERNAL
const char *
feed_fetch_get_host(const Fetch *fetch);

/*
 * Makes the easy handle of the fetch's next transfer; NULL when the fetch
 * ended instead (and called back).
 */
G_GNUC_INTERNAL
CURL *
feed_fetch_start_transfer(Fetch *fetch);

/* The easy handle of the transfer under way, or NULL. */
G_GNUC_INTERNAL
CURL *
feed_fetch_get_easy(const Fetch *fetch);

/*
 * Called when the transfer of @easy ended with @code. Returns TRUE when the
 * fetch goes on with another transfer (redirect, discovered feed, next
 * page), FALSE when it has finished and called back.
 */
G_GNUC_INTERNAL
gboolean
feed_fetch_transfer_done(Fetch *fetch, CURLcode code);

/*
 * Ends the fetch with @error (taken), calls back and frees it. Its easy
 * handle must be out of the multi handle already.
 */
G_GNUC_INTERNAL
void
feed_fetch_fail(Fetch *fetch, GError *error);

G_GNUC_INTERNAL
void
feed_fetch_free(Fetch *fetch);

/* fetcher.c */
G_GNUC_INTERNAL
void
feed_fetcher_cancel(FeedFetcher *fetcher, Fetch *fetch);

#endif
