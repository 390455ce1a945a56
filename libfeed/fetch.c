/*
 * One fetch, from its first transfer to its callback: conditional GET,
 * redirects followed by hand (so each hop's scheme, permanence and loops
 * are checked), the body streamed into the parser or, for a web page,
 * into autodiscovery, and RFC 5005 pages. A document that is not a feed
 * (JSON chapters) takes the same path, its body kept in memory instead.
 */
#include "channel-private.h"
#include "discover-private.h"
#include "feed/error.h"
#include "fetcher-private.h"

#include <string.h>
#include <xxhash.h>

#define DEFAULT_MAX_PAGES 10
#define ACCEPT                                                                 \
	"Accept: application/rss+xml, application/atom+xml, "                  \
	"application/rdf+xml;q=0.9, application/xml;q=0.9, text/xml;q=0.9, "   \
	"*/*;q=0.8"
#define ACCEPT_JSON                                                            \
	"Accept: application/json+chapters, application/json;q=0.9, "          \
	"*/*;q=0.8"

typedef enum {
	BODY_NONE, /* nothing yet */
	BODY_FEED, /* into the parser */
	BODY_PAGE, /* an HTML page, into autodiscovery */
	BODY_SKIP, /* an error page or a redirect's: counted, not read */
	BODY_KEEP, /* a document that is not a feed, kept in @kept */
} BodyKind;

typedef struct Fetch Fetch;

struct Fetch {
	Job job; /* first: the fetcher sees a Job */
	FeedFetchRequest *request;
	FeedFetchFunc callback;
	gpointer user_data;
	FeedFetchResult *result;
	gint64 started; /* monotonic microseconds */
	gint64 begun;   /* its first transfer's start, the same; 0: not yet */

	Route route;         /* its URLs visited: pages and feeds too */
	gboolean discovered; /* a page's feed link has been followed */
	gboolean first;      /* the next transfer is the first */
	guint pages;         /* pages followed after the first */

	CURL *easy; /* NULL between transfers */
	struct curl_slist *headers;
	char curl_error[CURL_ERROR_SIZE];

	/* The response under way. */
	guint status;
	char *reason;        /* HTTP reason phrase, or NULL */
	char *etag;          /* NULL when none */
	char *last_modified; /* NULL when none */
	char *content_type;  /* NULL when none */
	BodyKind body;
	gsize body_bytes; /* after decompression */
	FeedParser *parser;
	FeedDiscover *discover;
	XXH3_state_t *hash; /* of the body so far */
	GByteArray *kept;   /* BODY_KEEP's bytes so far, or NULL */
	GError *body_error; /* why the body was refused, or NULL */

	FeedChannel *channel; /* of the first page, once parsed */
	GPtrArray *episodes;  /* kept for the channel; NULL with a callback */
	GHashTable *guids;    /* across pages, to merge them; or NULL */
};

static const JobClass fetch_class;

Job *
feed_fetch_new(FeedFetcher *fetcher, const FeedFetchRequest *request,
               GCancellable *cancellable, FeedFetchFunc callback,
               gpointer user_data)
{
	Fetch *fetch = g_new0(Fetch, 1);

	feed_job_init(&fetch->job, &fetch_class, fetcher, cancellable);
	fetch->request = feed_fetch_request_copy(request);
	fetch->callback = callback;
	fetch->user_data = user_data;
	fetch->result = feed_fetch_result_new(request->url);
	fetch->started = g_get_monotonic_time();
	feed_route_init(&fetch->route, request->url, request->username,
	                request->password, "feed");
	fetch->first = TRUE;
	if (request->episode_func == NULL)
		fetch->episodes = g_ptr_array_new_with_free_func(
		        (GDestroyNotify)feed_episode_unref);
	if (request->flags & FEED_FETCH_FOLLOW_PAGES)
		fetch->guids = g_hash_table_new_full(g_str_hash, g_str_equal,
		                                     g_free, NULL);
	return &fetch->job;
}

static void
reset_response(Fetch *fetch)
{
	fetch->status = 0;
	g_clear_pointer(&fetch->reason, g_free);
	g_clear_pointer(&fetch->etag, g_free);
	g_clear_pointer(&fetch->last_modified, g_free);
	g_clear_pointer(&fetch->content_type, g_free);
	fetch->body = BODY_NONE;
	fetch->body_bytes = 0;
	g_clear_pointer(&fetch->parser, feed_parser_free);
	g_clear_pointer(&fetch->discover, feed_discover_free);
	g_clear_pointer(&fetch->hash, XXH3_freeState);
	g_clear_pointer(&fetch->kept, g_byte_array_unref);
	g_clear_error(&fetch->body_error);
}

static void
end_transfer(Fetch *fetch)
{
	g_clear_pointer(&fetch->easy, curl_easy_cleanup);
	g_clear_pointer(&fetch->headers, curl_slist_free_all);
}

static void
fetch_free(Fetch *fetch)
{
	feed_job_clear(&fetch->job);
	end_transfer(fetch);
	reset_response(fetch);
	feed_fetch_request_free(fetch->request);
	feed_fetch_result_unref(fetch->result);
	feed_route_clear(&fetch->route);
	g_clear_pointer(&fetch->channel, feed_channel_unref);
	g_clear_pointer(&fetch->episodes, g_ptr_array_unref);
	g_clear_pointer(&fetch->guids, g_hash_table_unref);
	g_free(fetch);
}

static const char *
fetch_get_host(const Job *job)
{
	const Fetch *fetch = (const Fetch *)job;

	return fetch->route.host;
}

static CURL *
fetch_get_easy(const Job *job)
{
	const Fetch *fetch = (const Fetch *)job;

	return fetch->easy;
}

/* Calls back with the result, and @error (taken) when it failed. */
static void
complete(Fetch *fetch, GError *error)
{
	fetch->result->elapsed = g_get_monotonic_time() - fetch->started;
	fetch->callback(fetch->result, error, fetch->user_data);
	g_clear_error(&error);
	fetch_free(fetch);
}

static void
fetch_fail(Fetch *fetch, GError *error)
{
	end_transfer(fetch);
	complete(fetch, error);
}

static void
fetch_job_fail(Job *job, GError *error)
{
	fetch_fail((Fetch *)job, error);
}

static G_GNUC_PRINTF(3, 4) void fail(Fetch *fetch, FeedError code,
                                     const char *format, ...)
{
	va_list args;
	GError *error;

	va_start(args, format);
	error = feed_route_error_valist(&fetch->route, code, format, args);
	va_end(args);
	fetch_fail(fetch, error);
}

static size_t
on_header(char *data, size_t size, size_t n, void *user_data);

static size_t
on_body(char *data, size_t size, size_t n, void *user_data);

static CURL *
fetch_start_transfer(Job *job)
{
	Fetch *fetch = (Fetch *)job;
	FeedFetcher *fetcher = fetch->job.fetcher;
	const FeedFetchRequest *request = fetch->request;
	gint64 now = g_get_monotonic_time();
	gboolean allow_file = (request->flags & FEED_FETCH_ALLOW_FILE) != 0;
	GError *error = NULL;
	gint64 spent;
	long left;
	CURL *easy;

	/*
	 * The time limit runs from the first transfer, not from the queue: a
	 * feed kept waiting behind stalled ones has not been slow itself.
	 */
	if (fetch->begun == 0)
		fetch->begun = now;
	spent = (now - fetch->begun) / G_USEC_PER_SEC;
	left = (long)fetcher->total_timeout - (long)spent;

	if (!feed_route_check_scheme(&fetch->route, fetch->first, allow_file,
	                             "fetched", &error)) {
		fetch_fail(fetch, error);
		return NULL;
	}
	if (left <= 0) {
		fail(fetch, FEED_ERROR_TIMEOUT, "took longer than %u s",
		     fetcher->total_timeout);
		return NULL;
	}
	fetch->first = FALSE;
	reset_response(fetch);
	feed_route_visit(&fetch->route);

	easy = feed_transfer_new_easy(
	        fetcher, job, fetch->route.url,
	        allow_file && g_str_has_prefix(fetch->route.url, "file:"),
	        fetch->curl_error);
	fetch->easy = easy;
	curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(easy, CURLOPT_TIMEOUT, left);
	curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(easy, CURLOPT_HEADERDATA, fetch);
	curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(easy, CURLOPT_WRITEDATA, fetch);

	fetch->headers = curl_slist_append(
	        NULL, request->keep_body_max != 0 ? ACCEPT_JSON : ACCEPT);
	if (fetch->pages == 0 && !fetch->discovered) {
		if (request->etag != NULL)
			fetch->headers = feed_transfer_add_header(
			        fetch->headers, "If-None-Match", request->etag);
		if (request->last_modified != NULL)
			fetch->headers = feed_transfer_add_header(
			        fetch->headers, "If-Modified-Since",
			        request->last_modified);
	}
	curl_easy_setopt(easy, CURLOPT_HTTPHEADER, fetch->headers);
	feed_route_authorize(&fetch->route, easy);
	return easy;
}

static size_t
on_header(char *data, size_t size, size_t n, void *user_data)
{
	Fetch *fetch = user_data;
	gsize length = size * n;

	/* Each response (an interim 100 too) starts with its status line. */
	if (length > 5 && strncmp(data, "HTTP/", 5) == 0) {
		reset_response(fetch);
		feed_transfer_status_line(data, length, &fetch->status,
		                          &fetch->reason);
		return length;
	}
	if (!feed_transfer_take_header(data, length, "ETag", &fetch->etag) &&
	    !feed_transfer_take_header(data, length, "Last-Modified",
	                               &fetch->last_modified))
		feed_transfer_take_header(data, length, "Content-Type",
		                          &fetch->content_type);
	return length;
}

static void
on_episode(FeedEpisode *episode, gpointer data)
{
	Fetch *fetch = data;
	const char *guid = feed_episode_get_guid(episode);

	/* Pages of one feed may repeat an episode at their seams. */
	if (fetch->guids != NULL && guid != NULL) {
		if (g_hash_table_contains(fetch->guids, guid))
			return;
		g_hash_table_add(fetch->guids, g_strdup(guid));
	}
	if (fetch->episodes != NULL)
		g_ptr_array_add(fetch->episodes, feed_episode_ref(episode));
	else
		fetch->request->episode_func(episode,
		                             fetch->request->episode_data);
}

/* The first of @needles in the first bytes of @data, case-insensitively. */
static const char *
first_tag(const char *data, gsize length, const char *const *needles)
{
	g_autofree char *head = g_ascii_strdown(data, MIN(length, 2048));
	const char *best = NULL;
	const char *found = NULL;

	for (; *needles != NULL; needles++) {
		const char *at = strstr(head, *needles);

		if (at != NULL && (best == NULL || at < best)) {
			best = at;
			found = *needles;
		}
	}
	return found;
}

/*
 * A web page goes to autodiscovery, a feed to the parser. Servers label
 * feeds text/html and pages text/xml, so the first bytes decide when they
 * can: which comes first, an <html> or a feed's root.
 */
static BodyKind
body_kind(Fetch *fetch, const char *data, gsize length)
{
	static const char *const roots[] = { "<html",    "<rss", "<feed",
		                             "<rdf:rdf", "<rdf", NULL };
	const char *first;

	if (fetch->status >= 300)
		return BODY_SKIP;
	if (fetch->request->keep_body_max != 0)
		return BODY_KEEP;
	if (fetch->discovered ||
	    (fetch->request->flags & FEED_FETCH_NO_DISCOVERY))
		return BODY_FEED;
	first = first_tag(data, length, roots);
	if (first != NULL)
		return strcmp(first, "<html") == 0 ? BODY_PAGE : BODY_FEED;
	return feed_transfer_is_html_type(fetch->content_type) ? BODY_PAGE
	                                                       : BODY_FEED;
}

static void
refuse_body(Fetch *fetch, GError *error)
{
	if (fetch->body_error == NULL)
		fetch->body_error = error;
	else
		g_error_free(error);
}

/* The caller's copy: the first page's body, until a write fails. */
static void
copy_body(Fetch *fetch, const char *data, gsize length)
{
	FeedFetchResult *result = fetch->result;
	GError *error = NULL;

	if (fetch->request->body_stream == NULL || fetch->pages > 0 ||
	    result->body_stream_error != NULL)
		return;
	if (!g_output_stream_write_all(fetch->request->body_stream, data,
	                               length, NULL, fetch->job.cancellable,
	                               &error))
		result->body_stream_error = error;
}

static size_t
on_body(char *data, size_t size, size_t n, void *user_data)
{
	Fetch *fetch = user_data;
	gsize length = size * n;
	GError *error = NULL;
	gsize max_size = fetch->job.fetcher->max_size;

	if (fetch->request->keep_body_max != 0)
		max_size = MIN(max_size, fetch->request->keep_body_max);
	if (fetch->body == BODY_NONE) {
		fetch->body = body_kind(fetch, data, length);
		if (fetch->body == BODY_FEED) {
			fetch->parser = feed_parser_new(fetch->route.url,
			                                on_episode, fetch);
			feed_parser_set_max_size(fetch->parser,
			                         fetch->job.fetcher->max_size);
		} else if (fetch->body == BODY_PAGE) {
			fetch->discover = feed_discover_new(fetch->route.url);
		} else if (fetch->body == BODY_KEEP) {
			fetch->kept = g_byte_array_new();
		}
		/*
		 * The hash only tells a body from the last one, so it need not
		 * be cryptographic: XXH3 keeps pace with the network, where
		 * GLib's SHA-256 took a quarter of a refresh.
		 */
		fetch->hash = XXH3_createState();
		XXH3_128bits_reset(fetch->hash);
	}
	/* The cap counts decompressed bytes: a gzip bomb stops here. */
	fetch->body_bytes += length;
	if (fetch->body_bytes > max_size) {
		g_autofree char *cap =
		        g_format_size_full(max_size, G_FORMAT_SIZE_IEC_UNITS);

		refuse_body(fetch,
		            g_error_new(FEED_ERROR, FEED_ERROR_TOO_LARGE,
		                        "%s: the %s is larger than "
		                        "the %s cap",
		                        fetch->request->url,
		                        fetch->body == BODY_KEEP ? "document"
		                                                 : "feed",
		                        cap));
		return 0;
	}
	XXH3_128bits_update(fetch->hash, data, length);
	switch (fetch->body) {
	case BODY_FEED:
		copy_body(fetch, data, length);
		if (!feed_parser_feed(fetch->parser, data, length, &error)) {
			g_prefix_error(&error, "%s: ", fetch->request->url);
			refuse_body(fetch, error);
			return 0;
		}
		break;
	case BODY_PAGE:
		feed_discover_push(fetch->discover, data, length);
		break;
	case BODY_KEEP:
		g_byte_array_append(fetch->kept, (const guint8 *)data, length);
		break;
	default:
		break;
	}
	return length;
}

/* What the first page's response says, for the caller to keep. */
static void
record_response(Fetch *fetch)
{
	FeedFetchResult *result = fetch->result;

	g_free(result->final_url);
	result->final_url = g_strdup(fetch->route.url);
	result->moved = fetch->route.redirects > 0 && !fetch->route.temporary;
	result->etag = g_strdup(fetch->etag);
	result->last_modified = g_strdup(fetch->last_modified);
	if (fetch->hash != NULL) {
		XXH128_hash_t hash = XXH3_128bits_digest(fetch->hash);

		result->content_hash = g_strdup_printf(
		        "xxh128:%016" G_GINT64_MODIFIER
		        "x%016" G_GINT64_MODIFIER "x",
		        (guint64)hash.high64, (guint64)hash.low64);
	}
}

static gboolean
follow_discovered(Fetch *fetch)
{
	g_auto(GStrv) links = feed_discover_finish(fetch->discover);

	g_clear_pointer(&fetch->discover, feed_discover_free);
	if (links[0] == NULL) {
		fail(fetch, FEED_ERROR_NO_FEED,
		     "a web page that links to no feed");
		return FALSE;
	}
	fetch->discovered = TRUE;
	fetch->result->discovered_url = g_strdup(links[0]);
	feed_route_move(&fetch->route, links[0]);
	return TRUE;
}

/* A document that is not a feed has come whole: the result holds it. */
static void
finish_kept(Fetch *fetch)
{
	GByteArray *kept = g_steal_pointer(&fetch->kept);

	record_response(fetch);
	fetch->result->body = kept != NULL ? g_byte_array_free_to_bytes(kept)
	                                   : g_bytes_new(NULL, 0);
	fetch->result->status = FEED_FETCH_UPDATED;
	complete(fetch, NULL);
}

static void
finish_updated(Fetch *fetch)
{
	FeedFetchResult *result = fetch->result;
	FeedChannel *channel = g_steal_pointer(&fetch->channel);

	if (fetch->episodes != NULL) {
		g_ptr_array_unref(channel->episodes);
		channel->episodes = g_steal_pointer(&fetch->episodes);
	}
	result->status = FEED_FETCH_UPDATED;
	result->new_feed_url = g_strdup(feed_channel_get_new_url(channel));
	result->channel = channel;
	complete(fetch, NULL);
}

/* The feed's body has ended; FALSE when the fetch ended with it. */
static gboolean
finish_feed(Fetch *fetch)
{
	const FeedFetchRequest *request = fetch->request;
	g_autoptr(GError) error = NULL;
	FeedChannel *page;
	const char *next;
	guint max_pages;

	if (fetch->parser == NULL) {
		fail(fetch, FEED_ERROR_PARSE, "the server sent an empty body");
		return FALSE;
	}
	page = feed_parser_finish(fetch->parser, &error);
	if (page == NULL) {
		g_prefix_error(&error, "%s: ", request->url);
		fetch_fail(fetch, g_steal_pointer(&error));
		return FALSE;
	}
	if (fetch->channel == NULL) {
		fetch->channel = page;
		record_response(fetch);
		if (request->content_hash != NULL &&
		    g_strcmp0(request->content_hash,
		              fetch->result->content_hash) == 0) {
			fetch->result->status = FEED_FETCH_UNCHANGED;
			complete(fetch, NULL);
			return FALSE;
		}
	}
	next = feed_channel_get_next_page_url(page);
	max_pages = request->max_pages != 0 ? request->max_pages
	                                    : DEFAULT_MAX_PAGES;
	if ((request->flags & FEED_FETCH_FOLLOW_PAGES) && next != NULL &&
	    fetch->pages < max_pages &&
	    !g_hash_table_contains(fetch->route.visited, next)) {
		fetch->pages++;
		feed_route_move(&fetch->route, next);
		if (page != fetch->channel)
			feed_channel_unref(page);
		return TRUE;
	}
	if (page != fetch->channel)
		feed_channel_unref(page);
	finish_updated(fetch);
	return FALSE;
}

/* A 304 to the conditional GET: the caller's copy is current. */
static void
finish_not_modified(Fetch *fetch)
{
	FeedFetchResult *result = fetch->result;

	record_response(fetch);
	/* A 304 need not repeat the validators: the caller's stand. */
	if (result->etag == NULL)
		result->etag = g_strdup(fetch->request->etag);
	if (result->last_modified == NULL)
		result->last_modified = g_strdup(fetch->request->last_modified);
	g_free(result->content_hash);
	result->content_hash = g_strdup(fetch->request->content_hash);
	result->status = FEED_FETCH_NOT_MODIFIED;
	complete(fetch, NULL);
}

static gboolean
fetch_transfer_done(Job *job, CURLcode code)
{
	Fetch *fetch = (Fetch *)job;
	FeedFetchResult *result = fetch->result;
	g_autofree char *location = NULL;
	const char *redirect = NULL;
	GError *error = NULL;
	curl_off_t size = 0;
	long status = 0;

	curl_easy_getinfo(fetch->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(fetch->easy, CURLINFO_SIZE_DOWNLOAD_T, &size);
	curl_easy_getinfo(fetch->easy, CURLINFO_REDIRECT_URL, &redirect);
	location = g_strdup(redirect);
	result->bytes += (guint64)MAX(size, 0);
	result->http_status = (guint)status;

	if (fetch->body_error != NULL) {
		fetch_fail(fetch, g_steal_pointer(&fetch->body_error));
		return FALSE;
	}
	if (code != CURLE_OK) {
		fetch_fail(fetch, feed_route_curl_error(&fetch->route, code,
		                                        fetch->curl_error));
		return FALSE;
	}
	end_transfer(fetch);
	/* Only the first page's own URL was asked conditionally. */
	if (status == 304 && fetch->pages == 0 && !fetch->discovered) {
		finish_not_modified(fetch);
		return FALSE;
	}
	switch (feed_route_step(
	        &fetch->route, fetch->job.fetcher->max_redirects, status,
	        fetch->reason, location, status < 300, &error)) {
	case ROUTE_REDIRECTED:
		return TRUE;
	case ROUTE_FAILED:
		fetch_fail(fetch, error);
		return FALSE;
	case ROUTE_BODY:
		break;
	}
	if (fetch->request->keep_body_max != 0) {
		finish_kept(fetch);
		return FALSE;
	}
	if (fetch->body == BODY_PAGE)
		return follow_discovered(fetch);
	return finish_feed(fetch);
}

static const JobClass fetch_class = {
	.get_host = fetch_get_host,
	.start_transfer = fetch_start_transfer,
	.get_easy = fetch_get_easy,
	.transfer_done = fetch_transfer_done,
	.fail = fetch_job_fail,
	.cancelled_message = "the fetch was cancelled",
};
