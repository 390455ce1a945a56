/* One ranged HTTP GET on a FeedFetcher, its body handed over as it comes. */
#ifndef FEED_STREAM_H
#define FEED_STREAM_H

#include <feed/fetcher.h>
#include <feed/version.h>
#include <gio/gio.h>

G_BEGIN_DECLS

/** The size cap of a stream when the request sets none: 2 GiB. */
#define FEED_STREAM_DEFAULT_MAX_SIZE (G_GUINT64_CONSTANT(2) << 30)

/**
 * What to stream: a URL, the byte of the file to start from, and the
 * validator the caller's earlier bytes came with. Mutable until used.
 *
 * A stream is one GET (and the redirects it leads to) whose body goes to
 * the request's data function as it arrives, nothing of it kept: no
 * retries, no resumes, no file. Bytes handed over before a failure stay
 * handed over; the caller decides whether to ask again from where they
 * stopped, with feed_stream_request_set_offset() and the validator that
 * feed_stream_head_get_validator() gave.
 */
typedef struct FeedStreamRequest FeedStreamRequest;

/**
 * What a response said of the file: its status, where its body starts
 * in the file, the file's size and validator. Owned by the stream and
 * lent to its callbacks: valid only during the call, so copy what is to
 * be kept.
 */
typedef struct FeedStreamHead FeedStreamHead;

/**
 * Receives the head of the response whose body is about to come: the
 * final 2xx response, after any redirects, once per stream and before any
 * data. Called from the fetcher's context; it must not free the fetcher.
 *
 * @param head (transfer none) what the response said
 * @param user_data the data given to feed_stream_request_set_funcs()
 * @return TRUE to take the body, FALSE to stop: the stream then ends with
 *         #G_IO_ERROR_CANCELLED and no data
 */
typedef gboolean (*FeedStreamHeadFunc)(const FeedStreamHead *head,
                                       gpointer user_data);

/**
 * Receives the body as it arrives, each piece as curl reads it, in order
 * and without gaps. Called from the fetcher's context; it must not free
 * the fetcher.
 *
 * @param offset the byte of the file that @p data starts at: the head's
 *        offset plus the bytes handed over before
 * @param data the bytes, lent for the call
 * @param length how many, never 0
 * @param user_data the data given to feed_stream_request_set_funcs()
 * @return TRUE for more, FALSE to stop: the stream then ends with
 *         #G_IO_ERROR_CANCELLED and no more data
 */
typedef gboolean (*FeedStreamDataFunc)(guint64 offset, const guint8 *data,
                                       gsize length, gpointer user_data);

/**
 * Receives the outcome of feed_fetcher_stream(), once.
 *
 * @param head (transfer none) (nullable) the final response's head, lent
 *        for the call. Given for a 2xx response (the one the head
 *        function saw, or one refused before it: too large, a wrong
 *        range) and for an error status (#FEED_ERROR_HTTP,
 *        #FEED_ERROR_GONE), so that its status tells a 404 from a 416
 *        or a 503. NULL when no such response came: the host could not
 *        be reached or timed out before answering, a redirect could not
 *        be followed, the scheme was refused, or the stream was cancelled
 *        before the response
 * @param error (nullable) why the stream stopped, or NULL when the whole
 *        body of the response came
 * @param user_data the data given to feed_fetcher_stream()
 */
typedef void (*FeedStreamDoneFunc)(const FeedStreamHead *head,
                                   const GError *error, gpointer user_data);

/**
 * Creates a request for @p url, from its first byte.
 *
 * @param url the file's URL: http or https (anything else fails the
 *        stream with #FEED_ERROR_SCHEME); `user:password@` is honoured
 * @return (transfer full) a new request; free with
 *         feed_stream_request_free()
 * @since 0.2
 */
FEED_PUBLIC
FeedStreamRequest *
feed_stream_request_new(const char *url);

/**
 * Frees a request. Streams started from it go on: they hold a copy.
 *
 * @param request (nullable) a request, or NULL to do nothing
 * @since 0.2
 */
FEED_PUBLIC
void
feed_stream_request_free(FeedStreamRequest *request);

/**
 * Sets the byte of the file to start from: above 0, the request carries
 * `Range: bytes=OFFSET-`. A server that ignores ranges, or finds that
 * the validator no longer holds, answers the whole file from byte 0
 * instead (see feed_stream_head_get_offset()).
 *
 * @param request a request
 * @param offset bytes from the start of the file; 0 for the whole file
 * @since 0.2
 */
FEED_PUBLIC
void
feed_stream_request_set_offset(FeedStreamRequest *request, guint64 offset);

/**
 * Sets the validator of the bytes the caller already holds, sent as
 * `If-Range` beside the range (not when the offset is 0): the server
 * sends the rest only if the file is still the same, and the whole new
 * file otherwise. Give what feed_stream_head_get_validator() gave.
 *
 * @param request a request
 * @param validator (nullable) a strong `ETag` (`"..."`) or an HTTP date,
 *        without line breaks; NULL or empty for none (the range is then
 *        unconditional)
 * @since 0.2
 */
FEED_PUBLIC
void
feed_stream_request_set_validator(FeedStreamRequest *request,
                                  const char *validator);

/**
 * Sets the largest file accepted. A response that announces a larger
 * file fails with #FEED_ERROR_TOO_LARGE before its head function and
 * any data; a body that grows past the cap is handed over up to it, and
 * the stream then fails the same way. No byte at or past @p max_size of
 * the file is ever handed over.
 *
 * @param request a request
 * @param max_size bytes of the file; 0 means #FEED_STREAM_DEFAULT_MAX_SIZE
 * @since 0.2
 */
FEED_PUBLIC
void
feed_stream_request_set_max_size(FeedStreamRequest *request, guint64 max_size);

/**
 * Sets credentials for HTTP authentication, sent to the URL's own host
 * only, never to another host a redirect leads to.
 *
 * @param request a request
 * @param username (nullable) the user name, or NULL for none
 * @param password (nullable) the password, or NULL
 * @since 0.2
 */
FEED_PUBLIC
void
feed_stream_request_set_credentials(FeedStreamRequest *request,
                                    const char *username, const char *password);

/**
 * Sets the functions that receive the head and the body. Both are
 * called from the fetcher's context, inside its handling of the network:
 * they should return soon, and must not free the fetcher.
 *
 * @param request a request
 * @param head (nullable) receives the head of the final 2xx response, or
 *        NULL
 * @param data (nullable) receives the body, or NULL to drop it
 * @param user_data passed to @p head and @p data
 * @param notify (nullable) frees @p user_data once the request and every
 *        stream started from it are done with it, or NULL
 * @since 0.2
 */
FEED_PUBLIC
void
feed_stream_request_set_funcs(FeedStreamRequest *request,
                              FeedStreamHeadFunc head, FeedStreamDataFunc data,
                              gpointer user_data, GDestroyNotify notify);

/**
 * Starts a stream. @p callback runs once, from @p fetcher's context,
 * when the stream ends; never before this returns.
 *
 * The stream shares the fetcher's limits with its fetches and downloads:
 * the number of transfers at once and per host (it waits its turn like
 * them), the connect timeout, redirects, and the stall timeout (less than
 * a byte a second for that long fails it with #FEED_ERROR_TIMEOUT; curl
 * averages the rate over the last few seconds, so a stall right after a
 * burst of bytes is noticed that much later). The fetcher's total
 * timeout does not apply: a stream lasts as long as bytes keep coming.
 * No `Accept-Encoding` is sent, so offsets count the file's own bytes.
 * Freeing the fetcher cancels the streams under way: their callbacks run
 * first, with #G_IO_ERROR_CANCELLED.
 *
 * The request's Range is honoured only when the server answers 206 with a
 * `Content-Range` that starts at the requested offset; a 206 from
 * anywhere else fails with #FEED_ERROR_FAILED, as a server that does not
 * send what it was asked for, which asking again would not mend. A
 * server may answer a shorter range than asked for: the stream then
 * succeeds at the range's end, before the file's, which the caller sees
 * against feed_stream_head_get_total().
 *
 * @param fetcher a fetcher
 * @param request the request; copied, so the caller may free it
 * @param cancellable (nullable) cancels the stream, or NULL; no data is
 *        handed over once it is cancelled
 * @param callback called with the outcome: NULL when the whole body came;
 *        else #FEED_ERROR_HTTP (an error status; 416 when the offset is
 *        at or past the file's end), #FEED_ERROR_GONE (410),
 *        #FEED_ERROR_NETWORK (the host unresolvable or unreachable, the
 *        connection reset, or a body shorter than announced),
 *        #FEED_ERROR_TIMEOUT, #FEED_ERROR_REDIRECT, #FEED_ERROR_SCHEME,
 *        #FEED_ERROR_TOO_LARGE, #FEED_ERROR_FAILED (a 206 of other bytes
 *        than asked for, or without a valid `Content-Range`), or
 *        #G_IO_ERROR_CANCELLED (@p cancellable, the fetcher freed, or a
 *        function of the request returned FALSE). A #FEED_ERROR message
 *        names the request's URL
 * @param user_data passed to @p callback
 * @since 0.2
 */
FEED_PUBLIC
void
feed_fetcher_stream(FeedFetcher *fetcher, const FeedStreamRequest *request,
                    GCancellable *cancellable, FeedStreamDoneFunc callback,
                    gpointer user_data);

/**
 * Returns the response's HTTP status.
 *
 * @param head a head
 * @return 206 when the body is the range asked for, 200 (or another 2xx)
 *         when it is the file from its first byte; in the done function
 *         after #FEED_ERROR_HTTP or #FEED_ERROR_GONE, the error status
 * @since 0.2
 */
FEED_PUBLIC
guint
feed_stream_head_get_http_status(const FeedStreamHead *head);

/**
 * Returns the byte of the file where the body starts.
 *
 * @param head a head
 * @return the requested offset when the server answered 206 for it; 0
 *         when it answered the whole file (it ignores ranges, or
 *         `If-Range` found the file changed), and after an error status
 * @since 0.2
 */
FEED_PUBLIC
guint64
feed_stream_head_get_offset(const FeedStreamHead *head);

/**
 * Returns the size of the whole file: the total of `Content-Range` on a
 * 206 or a 416, `Content-Length` on a 200.
 *
 * @param head a head
 * @return bytes, or 0 when the server did not say (and after an error
 *         status other than 416)
 * @since 0.2
 */
FEED_PUBLIC
guint64
feed_stream_head_get_total(const FeedStreamHead *head);

/**
 * Returns the response's validator, to send with a later request for
 * the rest of the file (feed_stream_request_set_validator()).
 *
 * @param head a head
 * @return (transfer none) (nullable) the strong `ETag`, else the
 *         `Last-Modified` date; NULL when the response had neither (a
 *         weak `ETag` is no validator for `If-Range`)
 * @since 0.2
 */
FEED_PUBLIC
const char *
feed_stream_head_get_validator(const FeedStreamHead *head);

/**
 * Tells whether the server takes byte ranges, so that a later request
 * can start mid-file.
 *
 * @param head a head
 * @return TRUE when it answered 206 or said `Accept-Ranges: bytes`
 * @since 0.2
 */
FEED_PUBLIC
gboolean
feed_stream_head_get_ranges(const FeedStreamHead *head);

/**
 * Returns the `Content-Type` of the response, as the server gave it.
 *
 * @param head a head
 * @return (transfer none) (nullable) the media type, or NULL when the
 *         server named none
 * @since 0.2
 */
FEED_PUBLIC
const char *
feed_stream_head_get_content_type(const FeedStreamHead *head);

/**
 * Returns the URL the response came from, after redirects.
 *
 * @param head a head
 * @return (transfer none) the URL
 * @since 0.2
 */
FEED_PUBLIC
const char *
feed_stream_head_get_url(const FeedStreamHead *head);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(FeedStreamRequest, feed_stream_request_free)

G_END_DECLS

#endif
