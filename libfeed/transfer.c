/*
 * What every transfer of the fetcher shares, a feed's, a download's or a
 * stream's: the curl settings that carry its rules (schemes, no redirect
 * followed by curl, timeouts, the CA bundle), credentials, reading
 * headers (the range a response sends, the validator to resume it with),
 * and the route from the request's URL through its redirects: the scheme
 * each hop may have, the step from a response's status to the next hop
 * or to an error, and the messages of those errors.
 */
#include "feed/error.h"
#include "fetcher-private.h"

#include <string.h>

#define USER_AGENT "libfeed/" FEED_VERSION

char *
feed_transfer_host_of(const char *url)
{
	g_autoptr(GUri) uri = g_uri_parse(url, G_URI_FLAGS_ENCODED, NULL);
	const char *host = uri != NULL ? g_uri_get_host(uri) : NULL;

	if (host == NULL)
		return g_strdup(url);
	return g_strdup_printf("%s:%d", host, g_uri_get_port(uri));
}

void
feed_transfer_credentials(const char *url, const char *username,
                          const char *password, char **user_out,
                          char **password_out)
{
	g_autoptr(GUri) uri = NULL;

	*user_out = g_strdup(username);
	*password_out = g_strdup(password);
	if (username != NULL)
		return;
	/* Credentials in the URL count as given for its host alone. */
	uri = g_uri_parse(url, G_URI_FLAGS_HAS_PASSWORD | G_URI_FLAGS_ENCODED,
	                  NULL);
	if (uri == NULL || g_uri_get_user(uri) == NULL)
		return;
	*user_out = g_uri_unescape_string(g_uri_get_user(uri), NULL);
	g_free(*password_out);
	*password_out =
	        g_uri_get_password(uri) != NULL
	                ? g_uri_unescape_string(g_uri_get_password(uri), NULL)
	                : NULL;
}

CURL *
feed_transfer_new_easy(FeedFetcher *fetcher, Job *job, const char *url,
                       gboolean file, char *error_buffer)
{
	const char *ca_bundle = g_getenv("CURL_CA_BUNDLE");
	CURL *easy = curl_easy_init();

	error_buffer[0] = '\0';
	curl_easy_setopt(easy, CURLOPT_URL, url);
	curl_easy_setopt(easy, CURLOPT_PRIVATE, job);
	curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buffer);
	curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR,
	                 file ? "file" : "http,https");
	curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(easy, CURLOPT_USERAGENT, USER_AGENT);
	/*
	 * Debian's libcurl has its CA bundle built in; like the curl tool,
	 * libfeed lets CURL_CA_BUNDLE name another (a private CA, a test's).
	 */
	if (ca_bundle != NULL && *ca_bundle != '\0')
		curl_easy_setopt(easy, CURLOPT_CAINFO, ca_bundle);
	curl_easy_setopt(easy, CURLOPT_HTTP_VERSION,
	                 (long)CURL_HTTP_VERSION_2TLS);
	curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
	curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT,
	                 (long)fetcher->connect_timeout);
	curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME,
	                 (long)fetcher->stall_timeout);
	return easy;
}

struct curl_slist *
feed_transfer_add_header(struct curl_slist *headers, const char *name,
                         const char *value)
{
	g_autofree char *line = g_strdup_printf("%s: %s", name, value);

	/* A validator with a line break could smuggle a header in. */
	if (strpbrk(value, "\r\n") != NULL)
		return headers;
	return curl_slist_append(headers, line);
}

struct curl_slist *
feed_transfer_add_range(struct curl_slist *headers, guint64 offset,
                        const char *validator)
{
	g_autofree char *range =
	        g_strdup_printf("bytes=%" G_GUINT64_FORMAT "-", offset);

	headers = feed_transfer_add_header(headers, "Range", range);
	if (validator != NULL)
		headers = feed_transfer_add_header(headers, "If-Range",
		                                   validator);
	return headers;
}

gboolean
feed_transfer_status_line(const char *data, gsize length, guint *status,
                          char **reason)
{
	g_autofree char *line = NULL;
	g_auto(GStrv) parts = NULL;

	if (length <= 5 || strncmp(data, "HTTP/", 5) != 0)
		return FALSE;
	line = g_strstrip(g_strndup(data, length));
	parts = g_strsplit(line, " ", 3);
	*status = 0;
	g_clear_pointer(reason, g_free);
	if (parts[0] != NULL && parts[1] != NULL)
		*status = (guint)g_ascii_strtoull(parts[1], NULL, 10);
	if (parts[0] != NULL && parts[1] != NULL && parts[2] != NULL)
		*reason = g_strdup(parts[2]);
	return TRUE;
}

gboolean
feed_transfer_take_header(const char *line, gsize length, const char *name,
                          char **field)
{
	gsize name_length = strlen(name);

	if (length <= name_length || line[name_length] != ':' ||
	    g_ascii_strncasecmp(line, name, name_length) != 0)
		return FALSE;
	g_free(*field);
	*field = g_strstrip(
	        g_strndup(line + name_length + 1, length - name_length - 1));
	return TRUE;
}

gboolean
feed_transfer_is_html_type(const char *content_type)
{
	return content_type != NULL &&
	       (g_ascii_strncasecmp(content_type, "text/html", 9) == 0 ||
	        g_ascii_strncasecmp(content_type, "application/xhtml+xml",
	                            21) == 0);
}

static gboolean
parse_number(const char *start, const char *end, guint64 *value)
{
	g_autofree char *text = g_strndup(start, (gsize)(end - start));

	return end > start &&
	       g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT64 - 1, value,
	                                  NULL);
}

gboolean
feed_content_range_parse(const char *value, ContentRange *range)
{
	const char *slash;
	const char *dash;

	memset(range, 0, sizeof *range);
	if (value == NULL || g_ascii_strncasecmp(value, "bytes ", 6) != 0)
		return FALSE;
	value += 6;
	while (*value == ' ')
		value++;
	slash = strchr(value, '/');
	if (slash == NULL)
		return FALSE;
	if (strcmp(slash + 1, "*") != 0 &&
	    !parse_number(slash + 1, slash + 1 + strlen(slash + 1),
	                  &range->total))
		return FALSE;
	if (slash == value + 1 && *value == '*')
		return range->total != 0;
	dash = memchr(value, '-', (gsize)(slash - value));
	if (dash == NULL || !parse_number(value, dash, &range->first) ||
	    !parse_number(dash + 1, slash, &range->last) ||
	    range->last < range->first ||
	    (range->total != 0 && range->last >= range->total))
		return FALSE;
	range->satisfied = TRUE;
	return TRUE;
}

const char *
feed_transfer_pick_validator(const char *etag, const char *last_modified)
{
	if (etag != NULL && *etag == '"')
		return etag;
	if (last_modified != NULL && *last_modified != '\0')
		return last_modified;
	return NULL;
}

void
feed_route_init(Route *route, const char *url, const char *username,
                const char *password, const char *noun)
{
	route->noun = noun;
	route->origin = g_strdup(url);
	route->url = g_strdup(url);
	route->host = feed_transfer_host_of(url);
	route->visited =
	        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	feed_transfer_credentials(url, username, password, &route->username,
	                          &route->password);
	if (route->username != NULL)
		route->auth_host = g_strdup(route->host);
}

void
feed_route_clear(Route *route)
{
	g_free(route->origin);
	g_free(route->url);
	g_free(route->host);
	g_free(route->auth_host);
	g_free(route->username);
	if (route->password != NULL)
		memset(route->password, 0, strlen(route->password));
	g_free(route->password);
	g_clear_pointer(&route->visited, g_hash_table_unref);
	*route = (Route){ 0 };
}

void
feed_route_move(Route *route, const char *url)
{
	char *copy = g_strdup(url); /* @url may be the route's own */

	g_free(route->url);
	route->url = copy;
	g_free(route->host);
	route->host = feed_transfer_host_of(route->url);
}

void
feed_route_restart(Route *route)
{
	feed_route_move(route, route->origin);
	route->redirects = 0;
	route->temporary = FALSE;
	g_hash_table_remove_all(route->visited);
}

GError *
feed_route_error_valist(const Route *route, FeedError code, const char *format,
                        va_list args)
{
	g_autofree char *message = g_strdup_vprintf(format, args);

	return g_error_new(FEED_ERROR, code, "%s: %s", route->origin, message);
}

GError *
feed_route_error(const Route *route, FeedError code, const char *format, ...)
{
	va_list args;
	GError *error;

	va_start(args, format);
	error = feed_route_error_valist(route, code, format, args);
	va_end(args);
	return error;
}

gboolean
feed_route_check_scheme(const Route *route, gboolean first, gboolean allow_file,
                        const char *verb, GError **error)
{
	g_autofree char *scheme = g_uri_parse_scheme(route->url);

	if (scheme != NULL && (g_ascii_strcasecmp(scheme, "http") == 0 ||
	                       g_ascii_strcasecmp(scheme, "https") == 0))
		return TRUE;
	/* The request's own URL may be a file; a redirect's never. */
	if (scheme != NULL && first && allow_file &&
	    g_ascii_strcasecmp(scheme, "file") == 0)
		return TRUE;
	if (first)
		g_propagate_error(
		        error,
		        feed_route_error(route, FEED_ERROR_SCHEME,
		                         "only http and https URLs are %s",
		                         verb));
	else
		g_propagate_error(
		        error,
		        feed_route_error(route, FEED_ERROR_SCHEME,
		                         "redirected to %s, which is not http "
		                         "or https",
		                         route->url));
	return FALSE;
}

void
feed_route_visit(Route *route)
{
	g_hash_table_add(route->visited, g_strdup(route->url));
}

void
feed_route_authorize(const Route *route, CURL *easy)
{
	if (route->auth_host == NULL ||
	    strcmp(route->auth_host, route->host) != 0)
		return;
	curl_easy_setopt(easy, CURLOPT_USERNAME, route->username);
	if (route->password != NULL)
		curl_easy_setopt(easy, CURLOPT_PASSWORD, route->password);
}

GError *
feed_route_curl_error(const Route *route, CURLcode code,
                      const char *error_buffer)
{
	const char *detail = error_buffer[0] != '\0' ? error_buffer
	                                             : curl_easy_strerror(code);

	switch (code) {
	case CURLE_OPERATION_TIMEDOUT:
		return feed_route_error(route, FEED_ERROR_TIMEOUT,
		                        "timed out: %s", detail);
	case CURLE_UNSUPPORTED_PROTOCOL:
		return feed_route_error(route, FEED_ERROR_SCHEME, "%s", detail);
	case CURLE_PARTIAL_FILE:
		/*
		 * A feed's parser repairs a cut document, so only this error
		 * tells a truncated feed from a short one.
		 */
		return feed_route_error(route, FEED_ERROR_NETWORK,
		                        "truncated: the connection closed "
		                        "before the whole %s came (%s)",
		                        route->noun, detail);
	case CURLE_URL_MALFORMAT:
		return feed_route_error(route, FEED_ERROR_FAILED,
		                        "not a valid URL (%s)", detail);
	case CURLE_FILE_COULDNT_READ_FILE:
		return feed_route_error(route, FEED_ERROR_IO, "%s", detail);
	default:
		return feed_route_error(route, FEED_ERROR_NETWORK, "%s",
		                        detail);
	}
}

GError *
feed_route_http_error(const Route *route, long status, const char *reason)
{
	return feed_route_error(route, FEED_ERROR_HTTP, "HTTP %ld%s%s", status,
	                        reason != NULL ? " " : "",
	                        reason != NULL ? reason : "");
}

GError *
feed_route_too_large_error(const Route *route, guint64 max_size, guint64 size)
{
	g_autofree char *cap =
	        g_format_size_full(max_size, G_FORMAT_SIZE_IEC_UNITS);
	g_autofree char *bytes =
	        g_format_size_full(size, G_FORMAT_SIZE_IEC_UNITS);

	if (size == 0)
		return feed_route_error(route, FEED_ERROR_TOO_LARGE,
		                        "the %s is larger than the %s cap",
		                        route->noun, cap);
	return feed_route_error(route, FEED_ERROR_TOO_LARGE,
	                        "the %s is %s, larger than the %s cap",
	                        route->noun, bytes, cap);
}

/* Moves on to @location; FALSE with @error set when it may not. */
static gboolean
follow_redirect(Route *route, guint max_redirects, guint status,
                const char *location, GError **error)
{
	if (location == NULL) {
		g_propagate_error(error,
		                  feed_route_error(route, FEED_ERROR_REDIRECT,
		                                   "HTTP %u redirect without a "
		                                   "Location",
		                                   status));
		return FALSE;
	}
	if (++route->redirects > max_redirects) {
		g_propagate_error(error,
		                  feed_route_error(route, FEED_ERROR_REDIRECT,
		                                   "more than %u redirects",
		                                   max_redirects));
		return FALSE;
	}
	if (g_hash_table_contains(route->visited, location)) {
		g_propagate_error(error,
		                  feed_route_error(route, FEED_ERROR_REDIRECT,
		                                   "redirects loop back to %s",
		                                   location));
		return FALSE;
	}
	if (status != 301 && status != 308)
		route->temporary = TRUE;
	feed_route_move(route, location);
	return TRUE;
}

RouteStep
feed_route_step(Route *route, guint max_redirects, long status,
                const char *reason, const char *location, gboolean success,
                GError **error)
{
	switch (status) {
	case 301:
	case 302:
	case 303:
	case 307:
	case 308:
		return follow_redirect(route, max_redirects, (guint)status,
		                       location, error)
		               ? ROUTE_REDIRECTED
		               : ROUTE_FAILED;
	case 410:
		g_propagate_error(error,
		                  feed_route_error(route, FEED_ERROR_GONE,
		                                   "HTTP 410 Gone: the %s was "
		                                   "removed for good",
		                                   route->noun));
		return ROUTE_FAILED;
	default:
		break;
	}
	if (!success) {
		g_propagate_error(error,
		                  feed_route_http_error(route, status, reason));
		return ROUTE_FAILED;
	}
	return ROUTE_BODY;
}
