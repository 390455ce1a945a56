/* Fetching feeds over HTTP(S): many at once, on the GLib main loop. */
#ifndef FEED_FETCHER_H
#define FEED_FETCHER_H

#include <feed/channel.h>
#include <feed/parser.h>
#include <feed/version.h>
#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * Fetches feeds, downloads files (see feed_fetcher_download()) and
 * streams them (see feed_fetcher_stream()), concurrently with libcurl's
 * multi interface, driven by a GMainContext: no thread per transfer.
 * Bytes go from the network straight into the parser, to the file, or to
 * the caller. Use from the thread that runs its context, and do not
 * free it from one of its own callbacks. Proxies come from the environment
 * (`https_proxy`, `no_proxy`, …) and a CA bundle other than the system's
 * from `CURL_CA_BUNDLE`, as the curl tool reads them.
 */
typedef struct FeedFetcher FeedFetcher;

/** What to fetch, and what the caller already holds. Mutable until used. */
typedef struct FeedFetchRequest FeedFetchRequest;

/** What a fetch gave. Immutable. */
typedef struct FeedFetchResult FeedFetchResult;

/** How a request may be served. */
typedef enum {
	/** Nothing special. */
	FEED_FETCH_DEFAULT = 0,
	/** Allow `file://` URLs (never reached through a redirect). */
	FEED_FETCH_ALLOW_FILE = 1 << 0,
	/** Do not look for feed links when the URL answers with HTML. */
	FEED_FETCH_NO_DISCOVERY = 1 << 1,
	/** Follow RFC 5005 `rel="next"` pages and merge their episodes. */
	FEED_FETCH_FOLLOW_PAGES = 1 << 2,
} FeedFetchFlags;

/** How a fetch that succeeded went. */
typedef enum {
	/** The feed was fetched and parsed. */
	FEED_FETCH_UPDATED,
	/** The server answered 304: the caller's copy is current. */
	FEED_FETCH_NOT_MODIFIED,
	/** The body was byte-identical to the caller's content hash. */
	FEED_FETCH_UNCHANGED,
} FeedFetchStatus;

/**
 * Receives the outcome of feed_fetcher_fetch().
 *
 * @param result (transfer none) what happened; always given, also on
 *        failure (URL, HTTP status, bytes and time are filled in)
 * @param error (nullable) why the fetch failed, or NULL when it succeeded
 * @param user_data the data given to feed_fetcher_fetch()
 */
typedef void (*FeedFetchFunc)(FeedFetchResult *result, const GError *error,
                              gpointer user_data);

/**
 * Creates a request for @p url.
 *
 * @param url the feed's URL: http or https (file with
 *        #FEED_FETCH_ALLOW_FILE); `user:password@` is honoured
 * @return (transfer full) a new request; free with
 *         feed_fetch_request_free()
 * @since 0.1
 */
FEED_PUBLIC
FeedFetchRequest *
feed_fetch_request_new(const char *url);

/**
 * Frees a request.
 *
 * @param request (nullable) a request, or NULL to do nothing
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetch_request_free(FeedFetchRequest *request);

/**
 * Sets the validators of the copy the caller holds, for a conditional GET.
 *
 * @param request a request
 * @param etag (nullable) the `ETag` last received, or NULL
 * @param last_modified (nullable) the `Last-Modified` last received, or
 *        NULL
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetch_request_set_validators(FeedFetchRequest *request, const char *etag,
                                  const char *last_modified);

/**
 * Sets the content hash of the body the caller last parsed, from
 * feed_fetch_result_get_content_hash(): an identical body then gives
 * #FEED_FETCH_UNCHANGED without a channel.
 *
 * @param request a request
 * @param content_hash (nullable) the hash, or NULL
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetch_request_set_content_hash(FeedFetchRequest *request,
                                    const char *content_hash);

/**
 * Sets credentials for HTTP authentication, sent to the feed's own host
 * only, never to another host a redirect leads to.
 *
 * @param request a request
 * @param username (nullable) the user name, or NULL for none
 * @param password (nullable) the password, or NULL
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetch_request_set_credentials(FeedFetchRequest *request,
                                   const char *username, const char *password);

/**
 * Sets how the request may be served.
 *
 * @param request a request
 * @param flags a combination of #FeedFetchFlags
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetch_request_set_flags(FeedFetchRequest *request, FeedFetchFlags flags);

/**
 * Sets how many pages #FEED_FETCH_FOLLOW_PAGES follows.
 *
 * @param request a request
 * @param max_pages pages after the first; 0 means the default, 10
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetch_request_set_max_pages(FeedFetchRequest *request, guint max_pages);

/**
 * Hands each episode to @p func as it is parsed instead of keeping it in
 * the result's channel, so memory does not grow with the feed. Episodes
 * handed over before a fetch fails (a connection cut mid-feed) stay
 * handed over: wait for the outcome before acting on them.
 *
 * @param request a request
 * @param func (nullable) the callback, or NULL to keep episodes
 * @param user_data passed to @p func
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetch_request_set_episode_func(FeedFetchRequest *request,
                                    FeedEpisodeFunc func, gpointer user_data);

/**
 * Writes a copy of the feed's body to @p stream as it arrives, after
 * content decoding (the bytes the parser reads), so that a caller can keep
 * the document without holding it in memory. Only the feed's own body is
 * written: not the bodies of redirects, of error statuses or of a web page
 * that autodiscovery reads (the feed it links is written instead), and
 * with #FEED_FETCH_FOLLOW_PAGES only the first page. Writes block the
 * fetcher's context, so give a stream that does not block for long (a
 * local file). The stream is never flushed or closed: the caller closes
 * it once the fetch has called back, and then decides what to keep.
 *
 * - #FEED_FETCH_UPDATED: the whole body was written.
 * - #FEED_FETCH_UNCHANGED: the whole body was written too; it is the one
 *   the content hash was taken of.
 * - #FEED_FETCH_NOT_MODIFIED: nothing was written.
 * - A failed fetch: any part of the body may have been written; discard
 *   it.
 *
 * When a write fails, the copy stops there and the fetch goes on;
 * feed_fetch_result_get_body_stream_error() then says why. A request with
 * a stream is meant for one fetch: each fetch of it writes to the same
 * stream.
 *
 * @param request a request
 * @param stream (nullable) where the body goes, or NULL for no copy; the
 *        request and each fetch of it hold a reference
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetch_request_set_body_stream(FeedFetchRequest *request,
                                   GOutputStream *stream);

/**
 * Creates a fetcher whose transfers run on @p context.
 *
 * @param context (nullable) the main context, or NULL for the thread's
 *        default one
 * @return (transfer full) a new fetcher; free with feed_fetcher_free()
 * @since 0.1
 */
FEED_PUBLIC
FeedFetcher *
feed_fetcher_new(GMainContext *context);

/**
 * Frees a fetcher. Transfers still running are cancelled: their callbacks
 * run first, with #G_IO_ERROR_CANCELLED.
 *
 * @param fetcher (nullable) a fetcher, or NULL to do nothing
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetcher_free(FeedFetcher *fetcher);

/**
 * Sets how many transfers run at once; more wait their turn.
 *
 * @param fetcher a fetcher
 * @param max_transfers at most this many, 0 meaning the default, 8
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetcher_set_max_transfers(FeedFetcher *fetcher, guint max_transfers);

/**
 * Sets how many transfers to one host run at once.
 *
 * @param fetcher a fetcher
 * @param max_per_host at most this many, 0 meaning the default, 2
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetcher_set_max_per_host(FeedFetcher *fetcher, guint max_per_host);

/**
 * Sets the timeouts of each transfer.
 *
 * @param fetcher a fetcher
 * @param connect_seconds to connect, 0 meaning the default, 15
 * @param total_seconds for the whole fetch, redirects and pages included,
 *        counted from its first request (not while it waits for a free
 *        transfer), 0 meaning the default, 120; downloads and streams
 *        have no such limit
 * @param stall_seconds without a byte received, 0 meaning the default, 30;
 *        for downloads and streams too
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetcher_set_timeouts(FeedFetcher *fetcher, guint connect_seconds,
                          guint total_seconds, guint stall_seconds);

/**
 * Sets the largest feed accepted, counted after decompression. Downloads
 * and streams have caps of their own (feed_download_request_set_max_size(),
 * feed_stream_request_set_max_size()).
 *
 * @param fetcher a fetcher
 * @param max_size bytes; 0 means #FEED_PARSER_DEFAULT_MAX_SIZE
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetcher_set_max_size(FeedFetcher *fetcher, gsize max_size);

/**
 * Sets how many redirects a fetch follows.
 *
 * @param fetcher a fetcher
 * @param max_redirects at most this many, 0 meaning the default, 10
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetcher_set_max_redirects(FeedFetcher *fetcher, guint max_redirects);

/**
 * Starts fetching. @p callback runs once, from @p fetcher's context, when
 * the fetch ends; never before this returns.
 *
 * @param fetcher a fetcher
 * @param request the request; copied, so the caller may free it
 * @param cancellable (nullable) cancels the fetch, or NULL
 * @param callback called with the outcome
 * @param user_data passed to @p callback
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetcher_fetch(FeedFetcher *fetcher, const FeedFetchRequest *request,
                   GCancellable *cancellable, FeedFetchFunc callback,
                   gpointer user_data);

/**
 * Fetches one feed and waits for it, on a private main context.
 *
 * @param request the request
 * @param cancellable (nullable) cancels the fetch, or NULL
 * @param error return location for a GError, or NULL
 * @return (transfer full) the result, or NULL with @p error set (see
 *         #FeedError; a cancelled fetch gives #G_IO_ERROR_CANCELLED)
 * @since 0.1
 */
FEED_PUBLIC
FeedFetchResult *
feed_fetch_sync(const FeedFetchRequest *request, GCancellable *cancellable,
                GError **error);

/**
 * Takes a reference to a result.
 *
 * @param result a result
 * @return (transfer full) @p result
 * @since 0.1
 */
FEED_PUBLIC
FeedFetchResult *
feed_fetch_result_ref(FeedFetchResult *result);

/**
 * Drops a reference to a result.
 *
 * @param result (nullable) a result, or NULL to do nothing
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetch_result_unref(FeedFetchResult *result);

/**
 * Returns how the fetch went.
 *
 * @param result a result
 * @return the status; meaningless when the fetch failed
 * @since 0.1
 */
FEED_PUBLIC
FeedFetchStatus
feed_fetch_result_get_status(const FeedFetchResult *result);

/**
 * Returns the parsed feed.
 *
 * @param result a result
 * @return (transfer none) (nullable) the channel, with its episodes unless
 *         an episode callback took them; NULL unless #FEED_FETCH_UPDATED
 * @since 0.1
 */
FEED_PUBLIC
FeedChannel *
feed_fetch_result_get_channel(const FeedFetchResult *result);

/**
 * Returns the URL the request named.
 *
 * @param result a result
 * @return (transfer none) the URL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_fetch_result_get_url(const FeedFetchResult *result);

/**
 * Returns the URL the feed was finally read from, after redirects and
 * autodiscovery.
 *
 * @param result a result
 * @return (transfer none) the URL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_fetch_result_get_final_url(const FeedFetchResult *result);

/**
 * Tells whether every redirect on the way was permanent (301 or 308), so
 * the caller should store feed_fetch_result_get_final_url() instead.
 *
 * @param result a result
 * @return TRUE when there was at least one redirect and all were permanent
 * @since 0.1
 */
FEED_PUBLIC
gboolean
feed_fetch_result_is_moved(const FeedFetchResult *result);

/**
 * Returns the feed URL found in an HTML page's `<link rel="alternate">`,
 * when the URL named a web page rather than a feed.
 *
 * @param result a result
 * @return (transfer none) (nullable) the discovered URL, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_fetch_result_get_discovered_url(const FeedFetchResult *result);

/**
 * Returns the address the feed itself says it moved to
 * (`itunes:new-feed-url`).
 *
 * @param result a result
 * @return (transfer none) (nullable) the URL, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_fetch_result_get_new_feed_url(const FeedFetchResult *result);

/**
 * Returns the `ETag` of the response, to pass with the next request. After
 * a 304 that did not repeat it, the one the request gave.
 *
 * @param result a result
 * @return (transfer none) (nullable) the validator, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_fetch_result_get_etag(const FeedFetchResult *result);

/**
 * Returns the `Last-Modified` of the response, to pass with the next
 * request. After a 304 that did not repeat it, the one the request gave.
 *
 * @param result a result
 * @return (transfer none) (nullable) the validator, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_fetch_result_get_last_modified(const FeedFetchResult *result);

/**
 * Returns a hash of the body (an opaque string), to pass with the next
 * request. After a 304, the one the request gave.
 *
 * @param result a result
 * @return (transfer none) (nullable) the hash, or NULL when no body came
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_fetch_result_get_content_hash(const FeedFetchResult *result);

/**
 * Returns the HTTP status of the last response.
 *
 * @param result a result
 * @return the status, or 0 when no response came
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_fetch_result_get_http_status(const FeedFetchResult *result);

/**
 * Returns how many bytes came over the network, compressed, for every
 * request the fetch made.
 *
 * @param result a result
 * @return bytes of response bodies received
 * @since 0.1
 */
FEED_PUBLIC
guint64
feed_fetch_result_get_bytes_received(const FeedFetchResult *result);

/**
 * Tells why the copy of the body to the request's body stream stopped
 * (see feed_fetch_request_set_body_stream()).
 *
 * @param result a result
 * @return (transfer none) (nullable) the error of the write that failed,
 *         or NULL when every write succeeded or there was no stream
 * @since 0.1
 */
FEED_PUBLIC
const GError *
feed_fetch_result_get_body_stream_error(const FeedFetchResult *result);

/**
 * Returns how long the fetch took, from its start to its callback.
 *
 * @param result a result
 * @return microseconds
 * @since 0.1
 */
FEED_PUBLIC
gint64
feed_fetch_result_get_elapsed(const FeedFetchResult *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(FeedFetchRequest, feed_fetch_request_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FeedFetcher, feed_fetcher_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FeedFetchResult, feed_fetch_result_unref)

G_END_DECLS

#endif
