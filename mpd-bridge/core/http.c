/*
 * The options and the failures that the directory search and the gpodder
 * client have in common; see http.h for why it is libcurl by hand.
 */
#include "core/http.h"

#include <feed/version.h>
#include <string.h>

#define USER_AGENT    "mpd-bridge/" FEED_VERSION
#define MAX_REDIRECTS 5L

typedef struct {
	GByteArray *body;
	gsize max_bytes;
	gboolean too_large;
} Answer;

GQuark
bridge_http_error_quark(void)
{
	return g_quark_from_static_string("bridge-http-error-quark");
}

CURL *
bridge_http_easy_new(GError **error)
{
	CURL *easy = curl_easy_init();

	if (easy == NULL)
		g_set_error_literal(error, BRIDGE_HTTP_ERROR,
		                    BRIDGE_HTTP_ERROR_START,
		                    "cannot start a transfer (libcurl)");
	return easy;
}

static size_t
on_data(char *data, size_t size, size_t n, void *user_data)
{
	Answer *answer = user_data;

	if (n > 0 && size > (answer->max_bytes - answer->body->len) / n) {
		answer->too_large = TRUE;
		return 0;
	}
	g_byte_array_append(answer->body, (const guint8 *)data, size * n);
	return size * n;
}

static struct curl_slist *
request_headers(const BridgeHttpRequest *request)
{
	struct curl_slist *headers =
	        curl_slist_append(NULL, "Accept: application/json");

	if (request->body != NULL) {
		g_autofree char *content_type = g_strconcat(
		        "Content-Type: ", request->content_type, NULL);

		headers = curl_slist_append(headers, content_type);
	}
	for (guint i = 0; request->headers != NULL && request->headers[i]; i++)
		headers = curl_slist_append(headers, request->headers[i]);
	return headers;
}

static void
set_options(CURL *easy, const BridgeHttpRequest *request, Answer *answer,
            struct curl_slist *headers, char *message)
{
	const char *ca_bundle = g_getenv("CURL_CA_BUNDLE");

	if (request->body != NULL) {
		curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE,
		                 (curl_off_t)strlen(request->body));
		curl_easy_setopt(easy, CURLOPT_COPYPOSTFIELDS, request->body);
	} else {
		curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
	}
	curl_easy_setopt(easy, CURLOPT_URL, request->url);
	curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, message);
	curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR,
	                 request->redirect_protocols != NULL
	                         ? request->redirect_protocols
	                         : "http,https");
	curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(easy, CURLOPT_MAXREDIRS, MAX_REDIRECTS);
	/* A POST stays a POST when moved; libcurl would make it a GET. */
	curl_easy_setopt(easy, CURLOPT_POSTREDIR,
	                 (long)(CURL_REDIR_POST_301 | CURL_REDIR_POST_302));
	curl_easy_setopt(
	        easy, CURLOPT_CONNECTTIMEOUT,
	        (long)MIN(request->connect_seconds, request->timeout_seconds));
	curl_easy_setopt(easy, CURLOPT_TIMEOUT, (long)request->timeout_seconds);
	if (request->stall_seconds > 0) {
		curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
		curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME,
		                 (long)MIN(request->stall_seconds,
		                           request->timeout_seconds));
	}
	curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE,
	                 (curl_off_t)answer->max_bytes);
	curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(easy, CURLOPT_USERAGENT, USER_AGENT);
	curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(easy, CURLOPT_WRITEDATA, answer);
	/* As libfeed does: CURL_CA_BUNDLE names a CA of one's own. */
	if (ca_bundle != NULL && *ca_bundle != '\0')
		curl_easy_setopt(easy, CURLOPT_CAINFO, ca_bundle);
}

static void
transfer_error(CURLcode code, const char *message, const Answer *answer,
               GError **error)
{
	if (code == CURLE_OPERATION_TIMEDOUT)
		g_set_error_literal(error, BRIDGE_HTTP_ERROR,
		                    BRIDGE_HTTP_ERROR_TIMEOUT,
		                    curl_easy_strerror(code));
	else if (code == CURLE_FILESIZE_EXCEEDED ||
	         (code == CURLE_WRITE_ERROR && answer->too_large))
		g_set_error_literal(error, BRIDGE_HTTP_ERROR,
		                    BRIDGE_HTTP_ERROR_TOO_LARGE,
		                    curl_easy_strerror(code));
	/* The URL asked for is http or https: a redirect went elsewhere. */
	else if (code == CURLE_UNSUPPORTED_PROTOCOL)
		g_set_error_literal(error, BRIDGE_HTTP_ERROR,
		                    BRIDGE_HTTP_ERROR_PROTOCOL,
		                    curl_easy_strerror(code));
	else
		g_set_error_literal(
		        error, BRIDGE_HTTP_ERROR, BRIDGE_HTTP_ERROR_UNREACHABLE,
		        *message != '\0' ? message : curl_easy_strerror(code));
}

GBytes *
bridge_http_perform(CURL *easy, const BridgeHttpRequest *request, long *status,
                    GError **error)
{
	g_autoptr(GByteArray) body = g_byte_array_new();
	Answer answer = { body, request->max_bytes, FALSE };
	struct curl_slist *headers;
	char message[CURL_ERROR_SIZE] = "";
	CURLcode code;
	long answered = 0;

	g_return_val_if_fail(easy != NULL, NULL);

	headers = request_headers(request);
	set_options(easy, request, &answer, headers, message);
	code = curl_easy_perform(easy);
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &answered);
	/* The handle may live on: nothing of this call's stays in it. */
	curl_easy_setopt(easy, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, NULL);
	curl_easy_setopt(easy, CURLOPT_WRITEDATA, NULL);
	curl_slist_free_all(headers);
	if (status != NULL)
		*status = answered;
	if (code != CURLE_OK) {
		transfer_error(code, message, &answer, error);
		return NULL;
	}
	if (answered < 200 || answered > 299) {
		g_set_error(error, BRIDGE_HTTP_ERROR, BRIDGE_HTTP_ERROR_STATUS,
		            "HTTP %ld", answered);
		return NULL;
	}
	return g_byte_array_free_to_bytes(g_steal_pointer(&body));
}
