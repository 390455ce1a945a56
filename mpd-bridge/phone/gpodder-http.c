/*
 * HTTP to a gpodder-API server: libcurl's easy interface, blocking, one
 * handle for all the requests of a call so that pages and batches reuse
 * the connection; the error domain and what each failure says.
 */
#include "phone/gpodder-private.h"

#include <curl/curl.h>
#include <feed/version.h>
#include <string.h>

#define USER_AGENT      "mpd-bridge/" FEED_VERSION
#define MAX_REDIRECTS   5L
#define CONNECT_SECONDS 15u
/* A transfer that moves no byte for this long has stalled. */
#define STALL_SECONDS 30u

typedef struct {
	long status; /* HTTP status; 0 when the error is not about one */
} BridgeGpodderErrorPrivate;

static void
bridge_gpodder_error_private_init(BridgeGpodderErrorPrivate *private)
{
	/* Checked only for -Wnull-dereference: GLib passes one. */
	if (private != NULL)
	private->status = 0;
}

static void
bridge_gpodder_error_private_copy(const BridgeGpodderErrorPrivate *source,
                                  BridgeGpodderErrorPrivate *destination)
{
	if (source != NULL && destination != NULL)
		destination->status = source->status;
}

static void
bridge_gpodder_error_private_clear(BridgeGpodderErrorPrivate *private)
{
}

G_DEFINE_EXTENDED_ERROR(BridgeGpodderError, bridge_gpodder_error)

long
bridge_gpodder_error_get_status(const GError *error)
{
	const BridgeGpodderErrorPrivate *private;

	g_return_val_if_fail(error != NULL, 0);
	if (error->domain != BRIDGE_GPODDER_ERROR)
		return 0;
	private = bridge_gpodder_error_get_private(error);
	return private != NULL ? private->status : 0;
}

void
bridge_gpodder_set_status_error(GError **error, BridgeGpodderError code,
                                long status, const char *format, ...)
{
	BridgeGpodderErrorPrivate *private;
	va_list args;
	GError *local;

	if (error == NULL)
		return;
	va_start(args, format);
	local = g_error_new_valist(BRIDGE_GPODDER_ERROR, code, format, args);
	va_end(args);
	private = bridge_gpodder_error_get_private(local);
	if (private != NULL)
	private->status = status;
	g_propagate_error(error, local);
}

typedef struct {
	GByteArray *body;
	gsize max_bytes;
	gboolean too_large;
} Answer;

/* @url for a message: what GUri shows without user, query or fragment. */
static char *
url_for_message(const char *url)
{
	g_autoptr(GUri) uri = g_uri_parse(url, G_URI_FLAGS_NONE, NULL);

	if (uri == NULL)
		return g_strdup("(not a URL)");
	return g_uri_to_string_partial(uri, G_URI_HIDE_USERINFO |
	                                            G_URI_HIDE_QUERY |
	                                            G_URI_HIDE_FRAGMENT);
}

gboolean
bridge_gpodder_session_open(BridgeGpodderSession *session,
                            const BridgeGpodderSettings *settings,
                            gboolean send_auth, GError **error)
{
	memset(session, 0, sizeof(*session));
	g_return_val_if_fail(settings != NULL && settings->server != NULL,
	                     FALSE);
	session->settings = settings;
	session->server = url_for_message(settings->server);
	session->send_auth = send_auth;
	session->easy = curl_easy_init();
	if (session->easy == NULL) {
		g_set_error(error, BRIDGE_GPODDER_ERROR,
		            BRIDGE_GPODDER_ERROR_UNREACHABLE,
		            "cannot start a transfer (libcurl)");
		return FALSE;
	}
	return TRUE;
}

void
bridge_gpodder_session_close(BridgeGpodderSession *session)
{
	g_clear_pointer(&session->easy, curl_easy_cleanup);
	g_clear_pointer(&session->server, g_free);
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

static guint
timeout_seconds(const BridgeGpodderSettings *settings)
{
	return settings->timeout_seconds > 0 ? settings->timeout_seconds : 60;
}

/*
 * Redirects stay on https unless the server is plain http, which the
 * settings allow only to this machine or with insecure = true.
 */
static const char *
redirect_protocols(const char *server)
{
	return g_ascii_strncasecmp(server, "https:", 6) == 0 ? "https"
	                                                     : "http,https";
}

static void
set_options(BridgeGpodderSession *session, const char *url, Answer *answer,
            struct curl_slist *headers, char *message)
{
	const BridgeGpodderSettings *settings = session->settings;
	CURL *easy = session->easy;
	const char *ca_bundle = g_getenv("CURL_CA_BUNDLE");
	guint timeout = timeout_seconds(settings);

	curl_easy_setopt(easy, CURLOPT_URL, url);
	curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, message);
	curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR,
	                 settings->insecure ? "http,https"
	                                    : redirect_protocols(url));
	curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(easy, CURLOPT_MAXREDIRS, MAX_REDIRECTS);
	/* A POST stays a POST when moved; libcurl would make it a GET. */
	curl_easy_setopt(easy, CURLOPT_POSTREDIR,
	                 (long)(CURL_REDIR_POST_301 | CURL_REDIR_POST_302));
	curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT,
	                 (long)MIN(CONNECT_SECONDS, timeout));
	curl_easy_setopt(easy, CURLOPT_TIMEOUT, (long)timeout);
	curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME,
	                 (long)MIN(STALL_SECONDS, timeout));
	curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE,
	                 (curl_off_t)answer->max_bytes);
	curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(easy, CURLOPT_USERAGENT, USER_AGENT);
	curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(easy, CURLOPT_WRITEDATA, answer);
	/* Basic at once: no round trip for a challenge (mygpo sends none). */
	if (session->send_auth && settings->user != NULL &&
	    settings->password != NULL) {
		curl_easy_setopt(easy, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(easy, CURLOPT_USERNAME, settings->user);
		curl_easy_setopt(easy, CURLOPT_PASSWORD, settings->password);
	}
	/* As libfeed does: CURL_CA_BUNDLE names a CA of one's own. */
	if (ca_bundle != NULL && *ca_bundle != '\0')
		curl_easy_setopt(easy, CURLOPT_CAINFO, ca_bundle);
}

static void
transfer_error(const BridgeGpodderSession *session, CURLcode code,
               const char *message, const Answer *answer, GError **error)
{
	guint timeout = timeout_seconds(session->settings);

	if (code == CURLE_OPERATION_TIMEDOUT)
		g_set_error(error, BRIDGE_GPODDER_ERROR,
		            BRIDGE_GPODDER_ERROR_TIMEOUT,
		            "no whole answer within %u s, or no byte for %u s: "
		            "try again later",
		            timeout, MIN(STALL_SECONDS, timeout));
	else if (code == CURLE_FILESIZE_EXCEEDED ||
	         (code == CURLE_WRITE_ERROR && answer->too_large))
		g_set_error(error, BRIDGE_GPODDER_ERROR,
		            BRIDGE_GPODDER_ERROR_TOO_LARGE,
		            "the answer is larger than %u MiB",
		            (guint)(answer->max_bytes / (1024 * 1024)));
	else if (code == CURLE_UNSUPPORTED_PROTOCOL)
		g_set_error(error, BRIDGE_GPODDER_ERROR,
		            BRIDGE_GPODDER_ERROR_UNREACHABLE,
		            "the server redirected to a URL that is not %s",
		            session->settings->insecure ||
		                            strcmp(redirect_protocols(
		                                           session->server),
		                                   "https") != 0
		                    ? "http or https"
		                    : "https");
	else
		g_set_error(error, BRIDGE_GPODDER_ERROR,
		            BRIDGE_GPODDER_ERROR_UNREACHABLE,
		            "cannot reach the server (%s): check the network, "
		            "or [sync] server",
		            *message != '\0' ? message
		                             : curl_easy_strerror(code));
}

static void
status_error(const BridgeGpodderSession *session, long status, GError **error)
{
	const BridgeGpodderSettings *settings = session->settings;
	const char *hint = "";

	if ((status == 401 || status == 403) && session->send_auth) {
		bridge_gpodder_set_status_error(
		        error, BRIDGE_GPODDER_ERROR_AUTH, status,
		        "the server refused user '%s' (HTTP %ld): check "
		        "[sync] user and password_file",
		        settings->user != NULL ? settings->user : "", status);
		return;
	}
	if (status == 429 || status >= 500)
		hint = ": try again later";
	else if (status == 404 &&
	         settings->kind == BRIDGE_GPODDER_KIND_NEXTCLOUD)
		hint = ": check [sync] server and kind, and that Nextcloud "
		       "has the gpoddersync app";
	else if (status == 404)
		hint = ": check [sync] server and kind";
	bridge_gpodder_set_status_error(
	        error, BRIDGE_GPODDER_ERROR_HTTP, status,
	        "the server answered HTTP %ld%s", status, hint);
}

/*
 * Sends a request to @url: a POST of @body (of @content_type) when @body
 * is not NULL, else a GET. Returns the answer of a 2xx, or NULL with
 * @error set.
 */
GBytes *
bridge_gpodder_request(BridgeGpodderSession *session, const char *url,
                       const char *content_type, const char *body,
                       gsize max_bytes, GError **error)
{
	g_autoptr(GByteArray) data = g_byte_array_new();
	Answer answer = { data, max_bytes, FALSE };
	g_autofree char *content_header = NULL;
	struct curl_slist *headers = NULL;
	char message[CURL_ERROR_SIZE] = "";
	CURLcode code;
	long status = 0;

	headers = curl_slist_append(headers, "Accept: application/json");
	if (body != NULL) {
		content_header =
		        g_strconcat("Content-Type: ", content_type, NULL);
		headers = curl_slist_append(headers, content_header);
		curl_easy_setopt(session->easy, CURLOPT_POSTFIELDSIZE_LARGE,
		                 (curl_off_t)strlen(body));
		curl_easy_setopt(session->easy, CURLOPT_COPYPOSTFIELDS, body);
	} else {
		curl_easy_setopt(session->easy, CURLOPT_HTTPGET, 1L);
	}
	set_options(session, url, &answer, headers, message);
	code = curl_easy_perform(session->easy);
	curl_easy_getinfo(session->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_setopt(session->easy, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(headers);
	if (code != CURLE_OK) {
		transfer_error(session, code, message, &answer, error);
		return NULL;
	}
	if (status < 200 || status > 299) {
		status_error(session, status, error);
		return NULL;
	}
	return g_byte_array_free_to_bytes(g_steal_pointer(&data));
}

GBytes *
bridge_gpodder_request_json(BridgeGpodderSession *session, const char *url,
                            const char *body, gsize max_bytes, GError **error)
{
	return bridge_gpodder_request(session, url, "application/json", body,
	                              max_bytes, error);
}

const char *
bridge_gpodder_bytes_data(GBytes *bytes, gsize *length)
{
	const char *data = g_bytes_get_data(bytes, length);

	return data != NULL ? data : "";
}

void
bridge_gpodder_session_prefix_error(const BridgeGpodderSession *session,
                                    GError **error, const char *what)
{
	g_prefix_error(error, "cannot %s at %s: ", what, session->server);
}
