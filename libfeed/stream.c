/*
 * One stream, from its first transfer to its callback: redirects followed
 * by hand under the fetch's rules, the head of the final response read
 * before its body, and the body handed to the caller as curl reads it,
 * nothing kept. Retrying, resuming and keeping bytes are the caller's.
 */
#include "feed/error.h"
#include "stream-private.h"

#include <string.h>

typedef struct {
	Job job; /* first: the fetcher sees a Job */
	FeedStreamRequest *request;
	FeedStreamDoneFunc callback;
	gpointer user_data;
	guint64 max_size; /* bytes of the file */
	Route route;

	CURL *easy; /* NULL between transfers */
	struct curl_slist *headers;
	char curl_error[CURL_ERROR_SIZE];

	/* The response under way. */
	guint status; /* 0 before its status line */
	char *reason; /* HTTP reason phrase, or NULL */
	/* Its headers as they came; NULL when absent. */
	char *etag;
	char *last_modified;
	char *content_type;
	char *content_range;
	char *content_length;
	char *accept_ranges;
	FeedStreamHead *head; /* once its headers ended; NULL before */
	gboolean body;        /* its body goes to the data function */
	guint64 delivered;    /* bytes of its body handed over */

	/* How the stream ends, set inside curl's callbacks. */
	gboolean stopped;   /* cancelled, or a function returned FALSE */
	GError *body_error; /* why the response was refused, or NULL */
} Stream;

static const JobClass stream_class;

static Job *
stream_new(FeedFetcher *fetcher, const FeedStreamRequest *request,
           GCancellable *cancellable, FeedStreamDoneFunc callback,
           gpointer user_data)
{
	Stream *s = g_new0(Stream, 1);

	feed_job_init(&s->job, &stream_class, fetcher, cancellable);
	s->request = feed_stream_request_copy(request);
	s->callback = callback;
	s->user_data = user_data;
	s->max_size = request->max_size != 0 ? request->max_size
	                                     : FEED_STREAM_DEFAULT_MAX_SIZE;
	feed_route_init(&s->route, request->url, request->username,
	                request->password, "file");
	return &s->job;
}

static void
reset_response(Stream *s)
{
	s->status = 0;
	g_clear_pointer(&s->reason, g_free);
	g_clear_pointer(&s->etag, g_free);
	g_clear_pointer(&s->last_modified, g_free);
	g_clear_pointer(&s->content_type, g_free);
	g_clear_pointer(&s->content_range, g_free);
	g_clear_pointer(&s->content_length, g_free);
	g_clear_pointer(&s->accept_ranges, g_free);
	g_clear_pointer(&s->head, feed_stream_head_free);
	s->body = FALSE;
	s->delivered = 0;
}

static void
end_transfer(Stream *s)
{
	g_clear_pointer(&s->easy, curl_easy_cleanup);
	g_clear_pointer(&s->headers, curl_slist_free_all);
}

static void
stream_free(Stream *s)
{
	feed_job_clear(&s->job);
	end_transfer(s);
	reset_response(s);
	g_clear_error(&s->body_error);
	feed_stream_request_free(s->request);
	feed_route_clear(&s->route);
	g_free(s);
}

static const char *
stream_get_host(const Job *job)
{
	return ((const Stream *)job)->route.host;
}

static CURL *
stream_get_easy(const Job *job)
{
	return ((const Stream *)job)->easy;
}

static gboolean
is_success(guint status)
{
	return status >= 200 && status < 300;
}

/*
 * Calls back with @error (taken), and the head when it is one the caller
 * may read: a 2xx response's, or an error status's. A redirect's is not.
 */
static void
complete(Stream *s, GError *error)
{
	const FeedStreamHead *head = s->head;

	if (head != NULL && !is_success(head->http_status) &&
	    !g_error_matches(error, FEED_ERROR, FEED_ERROR_HTTP) &&
	    !g_error_matches(error, FEED_ERROR, FEED_ERROR_GONE))
		head = NULL;
	s->callback(head, error, s->user_data);
	g_clear_error(&error);
	stream_free(s);
}

static void
stream_job_fail(Job *job, GError *error)
{
	Stream *s = (Stream *)job;

	end_transfer(s);
	complete(s, error);
}

/* From inside curl's callbacks: the transfer stops, and then the stream. */
static gboolean
stop(Stream *s)
{
	s->stopped = TRUE;
	return FALSE;
}

static gboolean
refuse_with(Stream *s, GError *error)
{
	g_assert(s->body_error == NULL);
	s->body_error = error;
	return FALSE;
}

static size_t
on_header(char *data, size_t size, size_t n, void *user_data);

static size_t
on_body(char *data, size_t size, size_t n, void *user_data);

static CURL *
stream_start_transfer(Job *job)
{
	Stream *s = (Stream *)job;
	GError *error = NULL;
	CURL *easy;

	reset_response(s);
	if (!feed_route_check_scheme(&s->route, s->route.redirects == 0, FALSE,
	                             "streamed", &error)) {
		complete(s, error);
		return NULL;
	}
	feed_route_visit(&s->route);

	easy = feed_transfer_new_easy(job->fetcher, job, s->route.url, FALSE,
	                              s->curl_error);
	s->easy = easy;
	/*
	 * As a download's: no Accept-Encoding, so that offsets count the
	 * file's own bytes, and no total timeout, only the stall timeout.
	 * A proxy's answer to CONNECT is not the server's head.
	 */
	curl_easy_setopt(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
	curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(easy, CURLOPT_HEADERDATA, s);
	curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(easy, CURLOPT_WRITEDATA, s);
	if (s->request->offset > 0)
		s->headers = feed_transfer_add_range(
		        s->headers, s->request->offset, s->request->validator);
	curl_easy_setopt(easy, CURLOPT_HTTPHEADER, s->headers);
	feed_route_authorize(&s->route, easy);
	return easy;
}

/* Whether an Accept-Ranges value lists bytes. */
static gboolean
lists_bytes(const char *accept_ranges)
{
	g_auto(GStrv) units = NULL;

	if (accept_ranges == NULL)
		return FALSE;
	units = g_strsplit(accept_ranges, ",", -1);
	for (guint i = 0; units[i] != NULL; i++)
		if (g_ascii_strcasecmp(g_strstrip(units[i]), "bytes") == 0)
			return TRUE;
	return FALSE;
}

/*
 * Where a 2xx body starts in the file and how far the file goes; FALSE
 * when it is refused. A 206 must be the range asked for: placed anywhere
 * else, its bytes would be handed over as others.
 */
static gboolean
place_body(Stream *s, guint64 *end)
{
	FeedStreamHead *head = s->head;
	ContentRange range;
	guint64 length;

	if (head->http_status != 206) {
		if (s->content_length != NULL &&
		    g_ascii_string_to_unsigned(s->content_length, 10, 0,
		                               G_MAXUINT64, &length, NULL))
			head->total = length;
		*end = head->total;
		return TRUE;
	}
	if (!feed_content_range_parse(s->content_range, &range) ||
	    !range.satisfied)
		return refuse_with(
		        s, feed_route_error(&s->route, FEED_ERROR_FAILED,
		                            "HTTP 206 without a valid "
		                            "Content-Range"));
	if (range.first != s->request->offset)
		return refuse_with(
		        s, feed_route_error(
		                   &s->route, FEED_ERROR_FAILED,
		                   "asked for the bytes from %" G_GUINT64_FORMAT
		                   ", the server sent those from "
		                   "%" G_GUINT64_FORMAT,
		                   s->request->offset, range.first));
	head->offset = range.first;
	head->total = range.total;
	*end = range.total != 0 ? range.total : range.last + 1;
	return TRUE;
}

/* The headers of a response ended; FALSE stops the transfer. */
static gboolean
end_headers(Stream *s)
{
	Funcs *funcs = s->request->funcs;
	FeedStreamHead *head;
	ContentRange range;
	guint64 end = 0;

	if (s->status < 200)
		return TRUE; /* an interim 100: the response follows */
	head = g_new0(FeedStreamHead, 1);
	head->http_status = s->status;
	head->url = g_strdup(s->route.url);
	head->content_type = g_strdup(s->content_type);
	head->validator = g_strdup(
	        feed_transfer_pick_validator(s->etag, s->last_modified));
	head->ranges = s->status == 206 || lists_bytes(s->accept_ranges);
	s->head = head;
	/* A 416 says how large the file is, which the offset passed. */
	if (s->status == 416 &&
	    feed_content_range_parse(s->content_range, &range) &&
	    !range.satisfied)
		head->total = range.total;
	if (!is_success(s->status))
		return TRUE; /* a redirect's or an error's body is dropped */
	if (!place_body(s, &end))
		return FALSE;
	if (end > s->max_size)
		return refuse_with(s, feed_route_too_large_error(&s->route,
		                                                 s->max_size,
		                                                 head->total));
	if (funcs != NULL && funcs->head != NULL &&
	    !funcs->head(head, funcs->user_data))
		return stop(s);
	s->body = TRUE;
	return TRUE;
}

static size_t
on_header(char *data, size_t size, size_t n, void *user_data)
{
	Stream *s = user_data;
	gsize length = size * n;

	/* Each response (an interim 100 too) starts with its status line. */
	if (length > 5 && strncmp(data, "HTTP/", 5) == 0) {
		reset_response(s);
		feed_transfer_status_line(data, length, &s->status, &s->reason);
		return length;
	}
	if (s->head != NULL)
		return length; /* trailers, after the body */
	if (length > 0 && (data[0] == '\r' || data[0] == '\n'))
		return end_headers(s) ? length : 0;
	if (!feed_transfer_take_header(data, length, "ETag", &s->etag) &&
	    !feed_transfer_take_header(data, length, "Last-Modified",
	                               &s->last_modified) &&
	    !feed_transfer_take_header(data, length, "Content-Type",
	                               &s->content_type) &&
	    !feed_transfer_take_header(data, length, "Content-Range",
	                               &s->content_range) &&
	    !feed_transfer_take_header(data, length, "Content-Length",
	                               &s->content_length))
		feed_transfer_take_header(data, length, "Accept-Ranges",
		                          &s->accept_ranges);
	return length;
}

static size_t
on_body(char *data, size_t size, size_t n, void *user_data)
{
	Stream *s = user_data;
	Funcs *funcs = s->request->funcs;
	gsize length = size * n;
	guint64 at;
	gsize take;

	if (!s->body)
		return length;
	/* The cancellation itself ends the stream later, from an idle. */
	if (s->job.cancellable != NULL &&
	    g_cancellable_is_cancelled(s->job.cancellable)) {
		stop(s);
		return 0;
	}
	at = s->head->offset + s->delivered;
	take = at >= s->max_size ? 0 : (gsize)MIN(length, s->max_size - at);
	if (take > 0 && funcs != NULL && funcs->data != NULL &&
	    !funcs->data(at, (const guint8 *)data, take, funcs->user_data)) {
		stop(s);
		return 0;
	}
	s->delivered += take;
	if (take < length) {
		refuse_with(s, feed_route_too_large_error(
		                       &s->route, s->max_size, s->head->total));
		return 0;
	}
	return length;
}

static gboolean
stream_transfer_done(Job *job, CURLcode code)
{
	Stream *s = (Stream *)job;
	g_autofree char *location = NULL;
	const char *redirect = NULL;
	GError *error = NULL;
	long status = 0;

	curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(s->easy, CURLINFO_REDIRECT_URL, &redirect);
	location = g_strdup(redirect);
	end_transfer(s);

	if (s->stopped)
		error = g_error_new_literal(G_IO_ERROR, G_IO_ERROR_CANCELLED,
		                            stream_class.cancelled_message);
	else if (s->body_error != NULL)
		error = g_steal_pointer(&s->body_error);
	else if (code != CURLE_OK)
		error = feed_route_curl_error(&s->route, code, s->curl_error);
	else if (feed_route_step(&s->route, job->fetcher->max_redirects, status,
	                         s->reason, location, is_success((guint)status),
	                         &error) == ROUTE_REDIRECTED)
		return TRUE;
	complete(s, error);
	return FALSE;
}

static const JobClass stream_class = {
	.get_host = stream_get_host,
	.start_transfer = stream_start_transfer,
	.get_easy = stream_get_easy,
	.transfer_done = stream_transfer_done,
	.fail = stream_job_fail,
	.cancelled_message = "the stream was cancelled",
};

void
feed_fetcher_stream(FeedFetcher *fetcher, const FeedStreamRequest *request,
                    GCancellable *cancellable, FeedStreamDoneFunc callback,
                    gpointer user_data)
{
	g_return_if_fail(fetcher != NULL);
	g_return_if_fail(request != NULL);
	g_return_if_fail(callback != NULL);

	feed_fetcher_add_job(fetcher, stream_new(fetcher, request, cancellable,
	                                         callback, user_data));
}
