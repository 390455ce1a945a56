/*
 * The fetcher's insides, shared by the curl-on-GLib plumbing (fetcher.c),
 * what every transfer shares (transfer.c), the jobs it runs (fetch.c,
 * download.c, stream.c) and the request and result objects
 * (fetch-request.c).
 */
#ifndef FEED_FETCHER_PRIVATE_H
#define FEED_FETCHER_PRIVATE_H

#include "feed/error.h"
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

/*
 * What the fetcher queues and runs: a fetch of a feed (fetch.c), a
 * download (download.c) or a stream (stream.c). Each runs its transfers
 * one after another (redirects, pages, resumed downloads) and calls back
 * once at its end.
 */
typedef struct Job Job;

/* What a kind of job does when the fetcher calls on it. */
typedef struct {
	/* The host that counts against the per-host limit for the next
	 * transfer. */
	const char *(*get_host)(const Job *job);
	/* Makes the easy handle of the job's next transfer; NULL when the
	 * job ended instead (and called back). */
	CURL *(*start_transfer)(Job *job);
	/* The easy handle of the transfer under way, or NULL. */
	CURL *(*get_easy)(const Job *job);
	/* Called when the transfer ended with @code. Returns TRUE when the
	 * job goes on with another transfer, FALSE when it has finished and
	 * called back. */
	gboolean (*transfer_done)(Job *job, CURLcode code);
	/* Ends the job with @error (taken), calls back and frees it. Its
	 * easy handle must be out of the multi handle already. */
	void (*fail)(Job *job, GError *error);
	/* The message of the error a cancelled job ends with. */
	const char *cancelled_message;
} JobClass;

/* The first member of each kind of job. */
struct Job {
	const JobClass *klass;
	FeedFetcher *fetcher;
	GCancellable *cancellable; /* NULL when none */
	gulong cancel_handler;     /* 0 when not connected */
	GSource *cancel_idle;      /* pending cancellation, or NULL */
};

struct FeedFetcher {
	GMainContext *context;
	CURLM *multi;
	GSource *timer;       /* curl's timeout, NULL when none is due */
	GQueue waiting;       /* of Job, not yet started */
	GHashTable *running;  /* Job -> itself, transfers under way */
	GHashTable *per_host; /* host -> GUINT_TO_POINTER(transfers) */
	/* host -> GUINT_TO_POINTER(jobs in @waiting); absent means none */
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
Job *
feed_fetch_new(FeedFetcher *fetcher, const FeedFetchRequest *request,
               GCancellable *cancellable, FeedFetchFunc callback,
               gpointer user_data);

/* transfer.c: what every transfer shares. */

/* @url's host and port, for the per-host limit (@url itself if none). */
G_GNUC_INTERNAL
char *
feed_transfer_host_of(const char *url);

/*
 * The credentials a job sends to @url's host: @username and @password
 * (nullable), else those in @url's user info; NULL when none.
 */
G_GNUC_INTERNAL
void
feed_transfer_credentials(const char *url, const char *username,
                          const char *password, char **user_out,
                          char **password_out);

/*
 * An easy handle for @url with what every transfer of @fetcher shares:
 * @job as its private pointer, the scheme (only file when @file, else
 * http and https), no redirect followed by curl, the user agent, the CA
 * bundle, HTTP/2, and the connect and stall timeouts. @error_buffer holds
 * CURL_ERROR_SIZE bytes and outlives the handle.
 */
G_GNUC_INTERNAL
CURL *
feed_transfer_new_easy(FeedFetcher *fetcher, Job *job, const char *url,
                       gboolean file, char *error_buffer);

/* Appends `NAME: VALUE`, unless @value would break the line. */
G_GNUC_INTERNAL
struct curl_slist *
feed_transfer_add_header(struct curl_slist *headers, const char *name,
                         const char *value);

/*
 * Appends `Range: bytes=OFFSET-` and, when @validator (nullable) is given,
 * `If-Range: VALIDATOR`.
 */
G_GNUC_INTERNAL
struct curl_slist *
feed_transfer_add_range(struct curl_slist *headers, guint64 offset,
                        const char *validator);

/*
 * When @data is a status line (each response, an interim 100 too, starts
 * with one), reads it into @status and @reason (nullable) and returns
 * TRUE.
 */
G_GNUC_INTERNAL
gboolean
feed_transfer_status_line(const char *data, gsize length, guint *status,
                          char **reason);

/* Keeps the value of header @name in *@field when @line is that header. */
G_GNUC_INTERNAL
gboolean
feed_transfer_take_header(const char *line, gsize length, const char *name,
                          char **field);

/* Tells whether a Content-Type (nullable) names a web page. */
G_GNUC_INTERNAL
gboolean
feed_transfer_is_html_type(const char *content_type);

/* What a Content-Range header says. */
typedef struct {
	gboolean satisfied; /* FALSE for `bytes * /TOTAL` (a 416's) */
	guint64 first;      /* first byte sent; 0 when not satisfied */
	guint64 last;       /* last byte sent, inclusive; 0 the same */
	guint64 total;      /* the whole file's size; 0 when `*` (unknown) */
} ContentRange;

/*
 * Reads a Content-Range value, `bytes FIRST-LAST/TOTAL` or `bytes
 * * /TOTAL` (without the space). FALSE when it is neither, or says
 * LAST < FIRST or TOTAL <= LAST.
 */
G_GNUC_INTERNAL
gboolean
feed_content_range_parse(const char *value, ContentRange *range);

/*
 * The validator to send in If-Range: a strong ETag (RFC 9110 forbids a
 * weak one there), else the Last-Modified date; NULL when neither.
 */
G_GNUC_INTERNAL
const char *
feed_transfer_pick_validator(const char *etag, const char *last_modified);

/*
 * Where a job's transfers go: the URL under way, the host credentials go
 * to, and the redirects followed from the request's own URL (transfer.c).
 */
typedef struct {
	const char *noun;    /* what errors call the body: "feed", "file" */
	char *origin;        /* the request's own URL; errors name it */
	char *url;           /* of the transfer under way or next */
	char *host;          /* url's host and port, for the per-host limit */
	char *auth_host;     /* the only host credentials go to; NULL: none */
	char *username;      /* NULL for none */
	char *password;      /* NULL for none */
	GHashTable *visited; /* URLs since the origin, to catch loops */
	guint redirects;     /* followed since the origin */
	gboolean temporary;  /* a redirect on the way was not 301/308 */
} Route;

/* What a response's status means for the job, once its transfer ended. */
typedef enum {
	ROUTE_BODY,       /* a success: the job reads what came */
	ROUTE_REDIRECTED, /* the route moved on: another transfer follows */
	ROUTE_FAILED,     /* the job fails with the error given */
} RouteStep;

/*
 * Starts @route at @url, with the credentials feed_transfer_credentials()
 * gives for it; @noun is a static string.
 */
G_GNUC_INTERNAL
void
feed_route_init(Route *route, const char *url, const char *username,
                const char *password, const char *noun);

/* Frees what @route holds, the password wiped first. */
G_GNUC_INTERNAL
void
feed_route_clear(Route *route);

/* Sends the next transfer to @url (a page, a discovered feed). */
G_GNUC_INTERNAL
void
feed_route_move(Route *route, const char *url);

/* Goes back to the origin, as if no redirect had been followed. */
G_GNUC_INTERNAL
void
feed_route_restart(Route *route);

/* Notes the URL under way as visited: a redirect back to it is a loop. */
G_GNUC_INTERNAL
void
feed_route_visit(Route *route);

/* A new error, its message `ORIGIN: ` and then @format's. */
G_GNUC_INTERNAL
GError *
feed_route_error(const Route *route, FeedError code, const char *format, ...)
        G_GNUC_PRINTF(3, 4);

G_GNUC_INTERNAL
GError *
feed_route_error_valist(const Route *route, FeedError code, const char *format,
                        va_list args) G_GNUC_PRINTF(3, 0);

/*
 * Tells whether the URL under way may be transferred: http and https,
 * and a file URL when @first (the request's own URL) and @allow_file.
 * Else FALSE with #FEED_ERROR_SCHEME set; @verb ("fetched") tells what
 * is done with URLs.
 */
G_GNUC_INTERNAL
gboolean
feed_route_check_scheme(const Route *route, gboolean first, gboolean allow_file,
                        const char *verb, GError **error);

/* Gives @easy the credentials when its host is the one they are for. */
G_GNUC_INTERNAL
void
feed_route_authorize(const Route *route, CURL *easy);

/*
 * The error of a transfer that curl ended with @code; @error_buffer is
 * the transfer's CURLOPT_ERRORBUFFER.
 */
G_GNUC_INTERNAL
GError *
feed_route_curl_error(const Route *route, CURLcode code,
                      const char *error_buffer);

/* #FEED_ERROR_HTTP: `HTTP STATUS REASON`; @reason is nullable. */
G_GNUC_INTERNAL
GError *
feed_route_http_error(const Route *route, long status, const char *reason);

/*
 * #FEED_ERROR_TOO_LARGE: the body is over @max_size bytes; @size is its
 * size, or 0 when that is unknown.
 */
G_GNUC_INTERNAL
GError *
feed_route_too_large_error(const Route *route, guint64 max_size, guint64 size);

/*
 * The redirect-and-status step after a transfer that curl completed:
 * follows a redirect to @location (nullable) within @max_redirects and
 * without a loop, or fails for 410 and, unless @success, any other status
 * (with its @reason, nullable). A status the job reads for itself (304,
 * 416) it handles before this step.
 */
G_GNUC_INTERNAL
RouteStep
feed_route_step(Route *route, guint max_redirects, long status,
                const char *reason, const char *location, gboolean success,
                GError **error);

/* fetcher.c */

/*
 * Fills in the fetcher's part of a new job and follows @cancellable
 * (nullable): cancelling it ends the job from the fetcher's context.
 */
G_GNUC_INTERNAL
void
feed_job_init(Job *job, const JobClass *klass, FeedFetcher *fetcher,
              GCancellable *cancellable);

/* Stops following the job's cancellable; for the job's free function. */
G_GNUC_INTERNAL
void
feed_job_clear(Job *job);

/*
 * Queues @job (taken) to run when the limits allow; it starts from the
 * fetcher's context, never inside this call.
 */
G_GNUC_INTERNAL
void
feed_fetcher_add_job(FeedFetcher *fetcher, Job *job);

/*
 * A job run to its end as a blocking call, for the *_sync() functions:
 * its callback hands what it gave to feed_sync_state_done().
 */
typedef struct SyncState SyncState;

struct SyncState {
	gconstpointer request;     /* the job's request (or URL), borrowed */
	GCancellable *cancellable; /* NULL when none */
	/* Queues the job on @fetcher with a callback that is given @state. */
	void (*start)(FeedFetcher *fetcher, SyncState *state);
	gboolean done;
	gpointer result; /* a reference to the job's result; NULL: none */
	GError *error;   /* NULL unless the job failed */
};

/*
 * Runs @state's job on a fetcher and a main context of their own until it
 * calls back. Returns its result, or NULL with @error set.
 */
G_GNUC_INTERNAL
gpointer
feed_fetcher_run_sync(SyncState *state, GError **error);

/*
 * For the job's callback: keeps @error (copied) or else @result (a
 * reference, taken), and ends feed_fetcher_run_sync().
 */
G_GNUC_INTERNAL
void
feed_sync_state_done(SyncState *state, const GError *error, gpointer result);

#endif
