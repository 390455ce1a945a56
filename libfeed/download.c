/*
 * One download, from its first transfer to its callback: redirects
 * followed by hand under the fetch's rules, the first bytes looked at
 * before anything is written (a captive portal's page is not an episode),
 * the body written to PATH.part, resumed with Range and If-Range after a
 * cut, and renamed to PATH once its length is checked.
 */
#include "download-private.h"
#include "feed/error.h"

#include <string.h>

/* Automatic resumes after a cut, and restarts from zero, in one call. */
#define MAX_RESUMES 3
/* Bytes looked at for a web page before the first is written. */
#define SNIFF_SIZE 1024
/* A text body shorter than this is a portal's or an error's. */
#define MIN_TEXT_SIZE     (64 * 1024)
#define PROGRESS_INTERVAL (G_USEC_PER_SEC / 4)
/* As the curl tool's: fewer, larger writes than curl's default 16 KiB. */
#define BUFFER_SIZE (128 * 1024L)

typedef enum {
	BODY_NONE,  /* nothing yet */
	BODY_SNIFF, /* the first bytes, held in @head until looked at */
	BODY_WRITE, /* into the partial file */
	BODY_SKIP,  /* a redirect's or an error's: not kept */
} BodyState;

typedef struct {
	Job job; /* first: the fetcher sees a Job */
	FeedDownloadRequest *request;
	FeedDownloadFunc callback;
	gpointer user_data;
	FeedDownloadResult *result;
	guint64 max_size; /* bytes */
	Partial partial;

	Route route;      /* from the request's own URL, again after a resume */
	gboolean started; /* the first transfer has been made */
	guint resumes;    /* transfers after a cut or a wrong range */
	gboolean restart; /* the next transfer asks for the whole file */

	/* What is asked for, and what the file is. */
	guint64 offset;   /* where this transfer's Range starts; 0: none */
	char *validator;  /* for If-Range; NULL when it cannot be resumed */
	guint64 total;    /* the whole file's expected size; 0: unknown */
	gboolean resumed; /* this response appends to earlier bytes */

	CURL *easy; /* NULL between transfers */
	struct curl_slist *headers;
	char curl_error[CURL_ERROR_SIZE];

	/* The response under way. */
	guint status;
	char *reason;         /* HTTP reason phrase, or NULL */
	char *etag;           /* NULL when none */
	char *last_modified;  /* NULL when none */
	char *content_type;   /* NULL when none */
	char *content_range;  /* NULL when none */
	char *content_length; /* NULL when none */
	BodyState body;
	GByteArray *head;     /* while sniffing, else NULL */
	guint64 written;      /* bytes of this response written */
	GError *body_error;   /* why the body was refused, or NULL */
	gboolean discard;     /* with @body_error: remove the partial file */
	gint64 last_progress; /* monotonic microseconds; 0: none yet */
} Download;

static const JobClass download_class;

Job *
feed_download_new(FeedFetcher *fetcher, const FeedDownloadRequest *request,
                  GCancellable *cancellable, FeedDownloadFunc callback,
                  gpointer user_data)
{
	Download *d = g_new0(Download, 1);

	feed_job_init(&d->job, &download_class, fetcher, cancellable);
	d->request = feed_download_request_copy(request);
	d->callback = callback;
	d->user_data = user_data;
	d->result = feed_download_result_new(request->url, request->path);
	d->max_size = request->max_size != 0 ? request->max_size
	                                     : FEED_DOWNLOAD_DEFAULT_MAX_SIZE;
	feed_partial_init(&d->partial, request->path);
	feed_route_init(&d->route, request->url, request->username,
	                request->password, "file");
	return &d->job;
}

static void
reset_response(Download *d)
{
	d->status = 0;
	g_clear_pointer(&d->reason, g_free);
	g_clear_pointer(&d->etag, g_free);
	g_clear_pointer(&d->last_modified, g_free);
	g_clear_pointer(&d->content_type, g_free);
	g_clear_pointer(&d->content_range, g_free);
	g_clear_pointer(&d->content_length, g_free);
	d->body = BODY_NONE;
	g_clear_pointer(&d->head, g_byte_array_unref);
	d->written = 0;
	g_clear_error(&d->body_error);
	d->discard = FALSE;
}

static void
end_transfer(Download *d)
{
	g_clear_pointer(&d->easy, curl_easy_cleanup);
	g_clear_pointer(&d->headers, curl_slist_free_all);
}

static void
download_free(Download *d)
{
	feed_job_clear(&d->job);
	end_transfer(d);
	reset_response(d);
	feed_partial_clear(&d->partial);
	feed_download_request_free(d->request);
	feed_download_result_unref(d->result);
	feed_route_clear(&d->route);
	g_free(d->validator);
	g_free(d);
}

static const char *
download_get_host(const Job *job)
{
	return ((const Download *)job)->route.host;
}

static CURL *
download_get_easy(const Job *job)
{
	return ((const Download *)job)->easy;
}

/* Calls back with the result, and @error (taken) when it failed. */
static void
complete(Download *d, GError *error)
{
	FeedDownloadResult *result = d->result;

	g_free(result->final_url);
	result->final_url = g_strdup(d->route.url);
	result->size = d->partial.size;
	d->callback(result, error, d->user_data);
	g_clear_error(&error);
	download_free(d);
}

/*
 * Ends the download with @error (taken). The partial file stays, to be
 * resumed, unless @discard.
 */
static void
fail_with(Download *d, GError *error, gboolean discard)
{
	end_transfer(d);
	if (discard)
		feed_partial_discard(&d->partial);
	else
		feed_partial_close(&d->partial);
	complete(d, error);
}

static void
download_job_fail(Job *job, GError *error)
{
	fail_with((Download *)job, error, FALSE);
}

static G_GNUC_PRINTF(3, 4) void fail(Download *d, FeedError code,
                                     const char *format, ...)
{
	va_list args;
	GError *error;

	va_start(args, format);
	error = feed_route_error_valist(&d->route, code, format, args);
	va_end(args);
	fail_with(d, error, FALSE);
}

/*
 * Refuses the body from inside curl's callback: the transfer stops, and
 * the download ends with this error once curl is done with it.
 */
static gboolean
refuse_with(Download *d, gboolean discard, GError *error)
{
	if (d->body_error != NULL) {
		g_error_free(error);
		return FALSE;
	}
	d->body_error = error;
	d->discard = discard;
	return FALSE;
}

static G_GNUC_PRINTF(4, 5) gboolean
        refuse(Download *d, gboolean discard, FeedError code,
               const char *format, ...)
{
	va_list args;
	GError *error;

	va_start(args, format);
	error = feed_route_error_valist(&d->route, code, format, args);
	va_end(args);
	return refuse_with(d, discard, error);
}

/*
 * Nothing of a web page is ever written, so a partial file from before
 * stays as it was.
 */
static gboolean
refuse_page(Download *d)
{
	return refuse(d, FALSE, FEED_ERROR_NOT_MEDIA,
	              "the server answered a web page instead of audio, "
	              "maybe a captive portal or a login page; try again on "
	              "an open network");
}

/* @discard: the text was written, and goes. */
static gboolean
refuse_text(Download *d, guint64 bytes, gboolean discard)
{
	return refuse(d, discard, FEED_ERROR_NOT_MEDIA,
	              "the server answered %" G_GUINT64_FORMAT
	              " bytes of text instead of audio, maybe a captive portal "
	              "or a login page; try again on an open network",
	              bytes);
}

/* @bytes: the file's size, or the bytes so far when it is unknown. */
static gboolean
refuse_too_large(Download *d, guint64 bytes)
{
	return refuse_with(
	        d, TRUE,
	        feed_route_too_large_error(&d->route, d->max_size,
	                                   d->total != 0 ? bytes : 0));
}

/* A disk error: the path and what the system said, and no more bytes. */
static gboolean
refuse_io(Download *d, const GError *error)
{
	return refuse(d, FALSE, FEED_ERROR_IO, "%s", error->message);
}

static void
report_progress(Download *d, gboolean last)
{
	Progress *progress = d->request->progress;
	gint64 now;

	if (progress == NULL)
		return;
	now = g_get_monotonic_time();
	if (!last && d->last_progress != 0 &&
	    now - d->last_progress < PROGRESS_INTERVAL)
		return;
	d->last_progress = now;
	progress->func(d->partial.size, last ? d->partial.size : d->total,
	               progress->data);
}

static gboolean
is_file_url(const char *url)
{
	return g_ascii_strncasecmp(url, "file:", 5) == 0;
}

/*
 * A partial file of the same URL, with a validator, is asked for from its
 * end; anything else there is replaced once a body comes.
 */
static void
look_for_partial(Download *d)
{
	PartialInfo info = { 0 };

	if (is_file_url(d->route.url) ||
	    !feed_partial_find(&d->partial, d->request->url, &info))
		return;
	d->offset = d->partial.size;
	d->total = info.total;
	d->validator = g_steal_pointer(&info.validator);
	feed_partial_info_clear(&info);
}

static size_t
on_header(char *data, size_t size, size_t n, void *user_data);

static size_t
on_body(char *data, size_t size, size_t n, void *user_data);

static CURL *
download_start_transfer(Job *job)
{
	Download *d = (Download *)job;
	gboolean allow_file = (d->request->flags & FEED_FETCH_ALLOW_FILE) != 0;
	GError *error = NULL;
	CURL *easy;

	if (!d->started) {
		d->started = TRUE;
		look_for_partial(d);
	}
	/* After a resume the request's own URL is asked again. */
	if (!feed_route_check_scheme(&d->route, d->route.redirects == 0,
	                             allow_file, "downloaded", &error)) {
		fail_with(d, error, FALSE);
		return NULL;
	}
	if (d->restart) {
		d->restart = FALSE;
		d->offset = 0;
		g_clear_pointer(&d->validator, g_free);
	}
	reset_response(d);
	feed_route_visit(&d->route);

	easy = feed_transfer_new_easy(job->fetcher, job, d->route.url,
	                              is_file_url(d->route.url), d->curl_error);
	d->easy = easy;
	/*
	 * No Accept-Encoding: ranges count bytes of the file as it is, and
	 * audio does not compress. No total timeout: a long file on a slow
	 * line is fine while bytes come (the stall timeout still holds).
	 */
	curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, BUFFER_SIZE);
	curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(easy, CURLOPT_HEADERDATA, d);
	curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(easy, CURLOPT_WRITEDATA, d);
	if (d->offset > 0 && d->validator != NULL)
		d->headers = feed_transfer_add_range(d->headers, d->offset,
		                                     d->validator);
	curl_easy_setopt(easy, CURLOPT_HTTPHEADER, d->headers);
	feed_route_authorize(&d->route, easy);
	return easy;
}

static size_t
on_header(char *data, size_t size, size_t n, void *user_data)
{
	Download *d = user_data;
	gsize length = size * n;

	/* Each response (an interim 100 too) starts with its status line. */
	if (length > 5 && strncmp(data, "HTTP/", 5) == 0) {
		reset_response(d);
		feed_transfer_status_line(data, length, &d->status, &d->reason);
		return length;
	}
	if (!feed_transfer_take_header(data, length, "ETag", &d->etag) &&
	    !feed_transfer_take_header(data, length, "Last-Modified",
	                               &d->last_modified) &&
	    !feed_transfer_take_header(data, length, "Content-Type",
	                               &d->content_type) &&
	    !feed_transfer_take_header(data, length, "Content-Range",
	                               &d->content_range))
		feed_transfer_take_header(data, length, "Content-Length",
		                          &d->content_length);
	return length;
}

/* The status of a response that carries the file: a file URL has none. */
static guint
effective_status(const Download *d)
{
	return is_file_url(d->route.url) ? 200 : d->status;
}

/*
 * The partial file is not what was asked for (a range from elsewhere, a
 * file of another size): ask again for the whole file.
 */
static gboolean
restart_whole(Download *d)
{
	d->restart = TRUE;
	return FALSE;
}

/*
 * A response that carries the file (or the rest of it): what it says of
 * the file, and whether it is one to keep. FALSE when it is refused.
 */
static gboolean
accept_response(Download *d)
{
	ContentRange range;

	if (effective_status(d) == 206) {
		if (d->content_range == NULL ||
		    !feed_content_range_parse(d->content_range, &range) ||
		    !range.satisfied)
			return refuse(d, FALSE, FEED_ERROR_FAILED,
			              "HTTP 206 without a valid Content-Range");
		if (range.first != d->offset ||
		    (d->total != 0 && range.total != 0 &&
		     range.total != d->total))
			return restart_whole(d);
		d->resumed = d->offset > 0;
		if (range.total != 0)
			d->total = range.total;
	} else {
		/*
		 * The whole file: the server ignores ranges, or If-Range found
		 * that the file changed. Its validator is the one to keep.
		 */
		guint64 length = 0;

		d->offset = 0;
		d->resumed = FALSE;
		if (d->content_length != NULL &&
		    !g_ascii_string_to_unsigned(d->content_length, 10, 0,
		                                G_MAXUINT64, &length, NULL))
			length = 0;
		d->total = length;
		g_free(d->validator);
		d->validator = is_file_url(d->route.url)
		                       ? NULL
		                       : g_strdup(feed_transfer_pick_validator(
		                                 d->etag, d->last_modified));
	}
	if (feed_transfer_is_html_type(d->content_type))
		return refuse_page(d);
	if (d->total > d->max_size)
		return refuse_too_large(d, d->total);
	if (feed_download_is_text_type(d->content_type) && d->total != 0 &&
	    d->total < MIN_TEXT_SIZE)
		return refuse_text(d, d->total, FALSE);
	return TRUE;
}

/* Opens the partial file to write this response's bytes. */
static gboolean
open_part(Download *d)
{
	g_autoptr(GError) error = NULL;
	PartialInfo info = { d->request->url, d->validator, d->total };

	if (feed_partial_open(&d->partial, d->offset,
	                      d->validator != NULL ? &info : NULL, &error))
		return TRUE;
	if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA))
		return restart_whole(d);
	return refuse_io(d, error);
}

static gboolean
write_part(Download *d, const char *data, gsize length)
{
	g_autoptr(GError) error = NULL;

	if (d->partial.size + length > d->max_size)
		return refuse_too_large(d, d->partial.size + length);
	if (!feed_partial_write(&d->partial, data, length, &error))
		return refuse_io(d, error);
	d->written += length;
	report_progress(d, FALSE);
	return TRUE;
}

/* The first bytes are not a web page: they go to the file. */
static gboolean
end_sniff(Download *d)
{
	g_autoptr(GByteArray) head = g_steal_pointer(&d->head);

	if (feed_download_looks_like_html((const char *)head->data, head->len))
		return refuse_page(d);
	if (!open_part(d))
		return FALSE;
	d->body = BODY_WRITE;
	return write_part(d, (const char *)head->data, head->len);
}

/* The first bytes of a response's body. FALSE when it is refused. */
static gboolean
begin_body(Download *d)
{
	guint status = effective_status(d);

	if (status < 200 || status >= 300) {
		d->body = BODY_SKIP;
		return TRUE;
	}
	if (!accept_response(d))
		return FALSE;
	/* A resumed body starts mid-file: only the first bytes tell. */
	if (d->offset == 0) {
		d->body = BODY_SNIFF;
		d->head = g_byte_array_new();
		return TRUE;
	}
	d->body = BODY_WRITE;
	return open_part(d);
}

static size_t
on_body(char *data, size_t size, size_t n, void *user_data)
{
	Download *d = user_data;
	gsize length = size * n;

	if (d->body == BODY_NONE && !begin_body(d))
		return 0;
	switch (d->body) {
	case BODY_SNIFF:
		g_byte_array_append(d->head, (const guint8 *)data,
		                    (guint)length);
		if (d->head->len >= SNIFF_SIZE && !end_sniff(d))
			return 0;
		return length;
	case BODY_WRITE:
		return write_part(d, data, length) ? length : 0;
	default:
		return length;
	}
}

/* A transfer cut mid-body, after which the rest may be asked for. */
static gboolean
is_cut(CURLcode code)
{
	switch (code) {
	case CURLE_PARTIAL_FILE:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return TRUE;
	default:
		return FALSE;
	}
}

/* Goes back to the request's own URL for the next transfer. */
static void
back_to_start(Download *d)
{
	feed_partial_close(&d->partial);
	feed_route_restart(&d->route);
}

/*
 * After a cut that came after some bytes, asks for the rest; FALSE when it
 * cannot (no validator, no progress, or enough tries).
 */
static gboolean
resume_after_cut(Download *d, CURLcode code)
{
	if (!is_cut(code) || d->body != BODY_WRITE || d->written == 0 ||
	    d->validator == NULL || d->resumes >= MAX_RESUMES)
		return FALSE;
	g_debug("%s: cut after %" G_GUINT64_FORMAT " bytes (%s), resuming",
	        d->request->url, d->partial.size, curl_easy_strerror(code));
	d->resumes++;
	d->offset = d->partial.size;
	back_to_start(d);
	return TRUE;
}

/* Checks the file, and renames it into place. */
static void
finish(Download *d)
{
	g_autoptr(GError) error = NULL;
	guint64 size = d->partial.size;

	if (d->total != 0 && size != d->total) {
		fail(d, FEED_ERROR_NETWORK,
		     "truncated: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
		     " bytes came",
		     size, d->total);
		return;
	}
	if (feed_download_is_text_type(d->content_type) &&
	    size < MIN_TEXT_SIZE) {
		refuse_text(d, size, TRUE);
	} else if (feed_partial_commit(&d->partial, &error)) {
		d->result->resumed = d->resumed;
		d->result->content_type = g_strdup(d->content_type);
		report_progress(d, TRUE);
		complete(d, NULL);
		return;
	} else {
		refuse_io(d, error);
	}
	fail_with(d, g_steal_pointer(&d->body_error), d->discard);
}

/*
 * After the body was refused: another transfer when the bytes were not
 * those asked for, else the end.
 */
static gboolean
after_refusal(Download *d)
{
	if (!d->restart) {
		fail_with(d, g_steal_pointer(&d->body_error), d->discard);
		return FALSE;
	}
	/* Counted with the resumes: a server may keep doing it. */
	if (d->resumes >= MAX_RESUMES) {
		fail(d, FEED_ERROR_FAILED,
		     "the server keeps sending other bytes than those asked "
		     "for");
		return FALSE;
	}
	d->resumes++;
	back_to_start(d);
	return TRUE;
}

/*
 * A 416: nothing is left after the partial file's end. With a validator
 * that still held, the partial file is the whole file.
 */
static gboolean
range_not_satisfiable(Download *d)
{
	ContentRange range;

	if (d->offset == 0) {
		fail_with(d, feed_route_http_error(&d->route, 416, d->reason),
		          FALSE);
		return FALSE;
	}
	if (d->content_range != NULL &&
	    feed_content_range_parse(d->content_range, &range) &&
	    !range.satisfied && range.total == d->offset) {
		d->total = range.total;
		d->resumed = TRUE;
		/* The type of the 416's own body, not the file's. */
		g_clear_pointer(&d->content_type, g_free);
		if (!open_part(d))
			return after_refusal(d);
		finish(d);
		return FALSE;
	}
	restart_whole(d);
	return after_refusal(d);
}

/*
 * The body of a response that carries the file has ended: what was held
 * back to be looked at goes to the file. FALSE when it was refused.
 */
static gboolean
end_body(Download *d)
{
	if (d->body == BODY_NONE) {
		if (!accept_response(d))
			return FALSE;
		return refuse(d, FALSE, FEED_ERROR_NOT_MEDIA,
		              "the server answered an empty file instead of "
		              "audio");
	}
	if (d->body == BODY_SNIFF)
		return end_sniff(d);
	return TRUE;
}

static gboolean
download_transfer_done(Job *job, CURLcode code)
{
	Download *d = (Download *)job;
	g_autofree char *location = NULL;
	const char *redirect = NULL;
	GError *error = NULL;
	long status = 0;
	guint effective;

	curl_easy_getinfo(d->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(d->easy, CURLINFO_REDIRECT_URL, &redirect);
	location = g_strdup(redirect);
	end_transfer(d);
	d->result->http_status = (guint)status;
	effective = effective_status(d);

	if (code == CURLE_OK && d->body_error == NULL && !d->restart &&
	    effective >= 200 && effective < 300)
		end_body(d);
	if (d->body_error != NULL || d->restart)
		return after_refusal(d);
	if (code != CURLE_OK) {
		if (resume_after_cut(d, code))
			return TRUE;
		fail_with(d,
		          feed_route_curl_error(&d->route, code, d->curl_error),
		          FALSE);
		return FALSE;
	}
	if (status == 416)
		return range_not_satisfiable(d);
	switch (feed_route_step(&d->route, job->fetcher->max_redirects, status,
	                        d->reason, location,
	                        effective >= 200 && effective < 300, &error)) {
	case ROUTE_REDIRECTED:
		return TRUE;
	case ROUTE_FAILED:
		fail_with(d, error, FALSE);
		return FALSE;
	case ROUTE_BODY:
		break;
	}
	finish(d);
	return FALSE;
}

static const JobClass download_class = {
	.get_host = download_get_host,
	.start_transfer = download_start_transfer,
	.get_easy = download_get_easy,
	.transfer_done = download_transfer_done,
	.fail = download_job_fail,
	.cancelled_message = "the download was cancelled",
};

void
feed_fetcher_download(FeedFetcher *fetcher, const FeedDownloadRequest *request,
                      GCancellable *cancellable, FeedDownloadFunc callback,
                      gpointer user_data)
{
	g_return_if_fail(fetcher != NULL);
	g_return_if_fail(request != NULL);
	g_return_if_fail(callback != NULL);

	feed_fetcher_add_job(fetcher,
	                     feed_download_new(fetcher, request, cancellable,
	                                       callback, user_data));
}

static void
on_sync_done(FeedDownloadResult *result, const GError *error, gpointer data)
{
	feed_sync_state_done(data, error,
	                     error == NULL ? feed_download_result_ref(result)
	                                   : NULL);
}

static void
start_sync(FeedFetcher *fetcher, SyncState *state)
{
	feed_fetcher_download(fetcher, state->request, state->cancellable,
	                      on_sync_done, state);
}

FeedDownloadResult *
feed_download_sync(const FeedDownloadRequest *request,
                   GCancellable *cancellable, GError **error)
{
	SyncState state = { request, cancellable, start_sync };

	g_return_val_if_fail(request != NULL, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	return feed_fetcher_run_sync(&state, error);
}
