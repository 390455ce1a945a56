/* Downloading an enclosure to a file, resumably, on a FeedFetcher. */
#ifndef FEED_DOWNLOAD_H
#define FEED_DOWNLOAD_H

#include <feed/fetcher.h>
#include <feed/version.h>
#include <gio/gio.h>

G_BEGIN_DECLS

/** The size cap of a download when the request sets none: 2 GiB. */
#define FEED_DOWNLOAD_DEFAULT_MAX_SIZE (G_GUINT64_CONSTANT(2) << 30)

/**
 * What to download and where to. Mutable until used.
 *
 * The body is written to `PATH.part` in the directory of `PATH`, which
 * must exist, and renamed to `PATH` once it is whole. Beside it,
 * `PATH.part.info` keeps the URL and the response's validator (a strong
 * `ETag`, else `Last-Modified`), so that a later download of the same URL
 * to the same path resumes the partial file with `Range` and `If-Range`.
 * A symbolic link at either name is never followed: it is removed, or
 * replaced. Run one download at a time for a given path.
 */
typedef struct FeedDownloadRequest FeedDownloadRequest;

/** What a download gave. Immutable and reference-counted. */
typedef struct FeedDownloadResult FeedDownloadResult;

/**
 * Reports how far a download has got: at most about four times a second
 * while bytes come, and once more when the file is whole, with
 * @p received equal to @p total.
 *
 * @param received bytes in the file so far, those of an earlier attempt
 *        that was resumed included
 * @param total the file's expected size, or 0 when the server did not say;
 *        on the last call, the file's size
 * @param user_data the data given to
 *        feed_download_request_set_progress_func()
 */
typedef void (*FeedDownloadProgressFunc)(guint64 received, guint64 total,
                                         gpointer user_data);

/**
 * Receives the outcome of feed_fetcher_download().
 *
 * @param result (transfer none) what happened; always given, also on
 *        failure (URL, path, HTTP status, and in the size the bytes the
 *        partial file holds)
 * @param error (nullable) why the download failed, or NULL when the file
 *        is whole at its path
 * @param user_data the data given to feed_fetcher_download()
 */
typedef void (*FeedDownloadFunc)(FeedDownloadResult *result,
                                 const GError *error, gpointer user_data);

/**
 * Creates a request to download @p url to @p path.
 *
 * @param url the file's URL: http or https (file with
 *        #FEED_FETCH_ALLOW_FILE); `user:password@` is honoured
 * @param path where the file goes, in a directory that exists; the
 *        download writes `PATH.part` and `PATH.part.info` beside it
 * @return (transfer full) a new request; free with
 *         feed_download_request_free()
 * @since 0.1
 */
FEED_PUBLIC
FeedDownloadRequest *
feed_download_request_new(const char *url, const char *path);

/**
 * Frees a request. Downloads started from it go on: they hold a copy.
 *
 * @param request (nullable) a request, or NULL to do nothing
 * @since 0.1
 */
FEED_PUBLIC
void
feed_download_request_free(FeedDownloadRequest *request);

/**
 * Sets the largest file accepted. A server that announces a larger one is
 * refused before a byte is written; one that sends more stops there, so
 * the disk never holds more than @p max_size bytes of it.
 *
 * @param request a request
 * @param max_size bytes; 0 means #FEED_DOWNLOAD_DEFAULT_MAX_SIZE
 * @since 0.1
 */
FEED_PUBLIC
void
feed_download_request_set_max_size(FeedDownloadRequest *request,
                                   guint64 max_size);

/**
 * Sets how the request may be served. Only #FEED_FETCH_ALLOW_FILE means
 * anything to a download (a `file://` URL, never reached through a
 * redirect); the other flags are ignored.
 *
 * @param request a request
 * @param flags a combination of #FeedFetchFlags
 * @since 0.1
 */
FEED_PUBLIC
void
feed_download_request_set_flags(FeedDownloadRequest *request,
                                FeedFetchFlags flags);

/**
 * Sets credentials for HTTP authentication, sent to the URL's own host
 * only, never to another host a redirect leads to.
 *
 * @param request a request
 * @param username (nullable) the user name, or NULL for none
 * @param password (nullable) the password, or NULL
 * @since 0.1
 */
FEED_PUBLIC
void
feed_download_request_set_credentials(FeedDownloadRequest *request,
                                      const char *username,
                                      const char *password);

/**
 * Sets a function that reports progress, called from the fetcher's
 * context. It must not free the fetcher.
 *
 * @param request a request
 * @param func (nullable) the function, or NULL for none
 * @param user_data passed to @p func
 * @param notify (nullable) frees @p user_data once the request and every
 *        download started from it are done with it, or NULL
 * @since 0.1
 */
FEED_PUBLIC
void
feed_download_request_set_progress_func(FeedDownloadRequest *request,
                                        FeedDownloadProgressFunc func,
                                        gpointer user_data,
                                        GDestroyNotify notify);

/**
 * Starts downloading. @p callback runs once, from @p fetcher's context,
 * when the download ends; never before this returns.
 *
 * The download shares the fetcher's limits with its fetches: the number
 * of transfers at once and per host, the connect timeout, redirects, and
 * the stall timeout (less than a byte a second for that long fails it).
 * The fetcher's total timeout does not apply: a large file on a slow line
 * takes as long as it takes, as long as bytes keep coming.
 *
 * A partial file of an earlier download of the same URL to the same path
 * is resumed when its validator still matches; when the server ignores
 * the range, or the file changed, the download starts again from the
 * first byte. When the connection is cut after some bytes came (a reset,
 * a body shorter than announced), the download resumes by itself, up to
 * 3 times, if the server gave a validator.
 *
 * What a download keeps when it fails: the partial file stays, to be
 * resumed, after a network or HTTP error, a disk error, a timeout or a
 * cancellation. It is removed when the file was too large, and when the
 * body turned out to be text rather than audio. A web page answered
 * instead of the file leaves an earlier partial file as it was.
 *
 * @param fetcher a fetcher
 * @param request the request; copied, so the caller may free it
 * @param cancellable (nullable) cancels the download, or NULL
 * @param callback called with the outcome: on failure a #FEED_ERROR (see
 *        feed_download_sync()) or #G_IO_ERROR_CANCELLED
 * @param user_data passed to @p callback
 * @since 0.1
 */
FEED_PUBLIC
void
feed_fetcher_download(FeedFetcher *fetcher, const FeedDownloadRequest *request,
                      GCancellable *cancellable, FeedDownloadFunc callback,
                      gpointer user_data);

/**
 * Downloads one file and waits for it, on a private main context and a
 * fetcher with the default settings.
 *
 * @param request the request
 * @param cancellable (nullable) cancels the download, or NULL
 * @param error return location for a GError, or NULL
 * @return (transfer full) the result, or NULL with @p error set:
 *         #FEED_ERROR_NOT_MEDIA (a web page or a short text instead of
 *         audio), #FEED_ERROR_TOO_LARGE, #FEED_ERROR_IO (the path, and
 *         why it could not be written), #FEED_ERROR_HTTP,
 *         #FEED_ERROR_GONE, #FEED_ERROR_NETWORK (also a body shorter than
 *         announced), #FEED_ERROR_TIMEOUT, #FEED_ERROR_REDIRECT,
 *         #FEED_ERROR_SCHEME, #FEED_ERROR_FAILED, or
 *         #G_IO_ERROR_CANCELLED
 * @since 0.1
 */
FEED_PUBLIC
FeedDownloadResult *
feed_download_sync(const FeedDownloadRequest *request,
                   GCancellable *cancellable, GError **error);

/**
 * Takes a reference to a result.
 *
 * @param result a result
 * @return (transfer full) @p result
 * @since 0.1
 */
FEED_PUBLIC
FeedDownloadResult *
feed_download_result_ref(FeedDownloadResult *result);

/**
 * Drops a reference to a result.
 *
 * @param result (nullable) a result, or NULL to do nothing
 * @since 0.1
 */
FEED_PUBLIC
void
feed_download_result_unref(FeedDownloadResult *result);

/**
 * Returns the URL the request named.
 *
 * @param result a result
 * @return (transfer none) the URL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_download_result_get_url(const FeedDownloadResult *result);

/**
 * Returns the URL the file was last read from, after redirects.
 *
 * @param result a result
 * @return (transfer none) the URL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_download_result_get_final_url(const FeedDownloadResult *result);

/**
 * Returns the path the request named.
 *
 * @param result a result
 * @return (transfer none) the path
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_download_result_get_path(const FeedDownloadResult *result);

/**
 * Returns the `Content-Type` of the response, as the server gave it.
 *
 * @param result a result
 * @return (transfer none) (nullable) the media type, or NULL when the
 *         server named none
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_download_result_get_content_type(const FeedDownloadResult *result);

/**
 * Returns the size of the file.
 *
 * @param result a result
 * @return bytes of the finished file; after a failure, the bytes the
 *         partial file holds (0 when it was removed)
 * @since 0.1
 */
FEED_PUBLIC
guint64
feed_download_result_get_size(const FeedDownloadResult *result);

/**
 * Tells whether the file was resumed: whether some of its bytes came
 * before the last transfer, from an earlier download or from an attempt
 * of this one that was cut.
 *
 * @param result a result
 * @return TRUE when the last transfer appended to a partial file
 * @since 0.1
 */
FEED_PUBLIC
gboolean
feed_download_result_was_resumed(const FeedDownloadResult *result);

/**
 * Returns the HTTP status of the last response.
 *
 * @param result a result
 * @return the status (200 or 206 for a finished file), or 0 when no
 *         response came or the URL was a file
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_download_result_get_http_status(const FeedDownloadResult *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(FeedDownloadRequest, feed_download_request_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FeedDownloadResult, feed_download_result_unref)

G_END_DECLS

#endif
