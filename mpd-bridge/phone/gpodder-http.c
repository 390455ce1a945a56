/*
 * HTTP to a gpodder-API server: requests through core/http.c, blocking,
 * one libcurl handle for all the requests of a call so that pages and
 * batches reuse the connection; the error domain and what each failure
 * says.
 */
#include "phone/gpodder-private.h"

#include "core/http.h"

#include <string.h>

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
	g_autoptr(GError) failed = NULL;

	memset(session, 0, sizeof(*session));
	g_return_val_if_fail(settings != NULL && settings->server != NULL,
	                     FALSE);
	session->settings = settings;
	session->server = url_for_message(settings->server);
	session->send_auth = send_auth;
	session->easy = bridge_http_easy_new(&failed);
	if (session->easy == NULL) {
		g_set_error_literal(error, BRIDGE_GPODDER_ERROR,
		                    BRIDGE_GPODDER_ERROR_UNREACHABLE,
		                    failed->message);
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

/* Basic at once: no round trip for a challenge (mygpo sends none). */
static void
set_auth(BridgeGpodderSession *session)
{
	const BridgeGpodderSettings *settings = session->settings;

	if (session->send_auth && settings->user != NULL &&
	    settings->password != NULL) {
		curl_easy_setopt(session->easy, CURLOPT_HTTPAUTH,
		                 (long)CURLAUTH_BASIC);
		curl_easy_setopt(session->easy, CURLOPT_USERNAME,
		                 settings->user);
		curl_easy_setopt(session->easy, CURLOPT_PASSWORD,
		                 settings->password);
	}
}

/* @failed (BRIDGE_HTTP_ERROR, not _STATUS) in the words of the client. */
static void
transfer_error(const BridgeGpodderSession *session, const GError *failed,
               gsize max_bytes, GError **error)
{
	guint timeout = timeout_seconds(session->settings);

	switch ((BridgeHttpError)failed->code) {
	case BRIDGE_HTTP_ERROR_TIMEOUT:
		g_set_error(error, BRIDGE_GPODDER_ERROR,
		            BRIDGE_GPODDER_ERROR_TIMEOUT,
		            "no whole answer within %u s, or no byte for %u s: "
		            "try again later",
		            timeout, MIN(STALL_SECONDS, timeout));
		return;
	case BRIDGE_HTTP_ERROR_TOO_LARGE:
		g_set_error(error, BRIDGE_GPODDER_ERROR,
		            BRIDGE_GPODDER_ERROR_TOO_LARGE,
		            "the answer is larger than %u MiB",
		            (guint)(max_bytes / (1024 * 1024)));
		return;
	case BRIDGE_HTTP_ERROR_PROTOCOL:
		g_set_error(error, BRIDGE_GPODDER_ERROR,
		            BRIDGE_GPODDER_ERROR_UNREACHABLE,
		            "the server redirected to a URL that is not %s",
		            session->settings->insecure ||
		                            strcmp(redirect_protocols(
		                                           session->server),
		                                   "https") != 0
		                    ? "http or https"
		                    : "https");
		return;
	case BRIDGE_HTTP_ERROR_START:
	case BRIDGE_HTTP_ERROR_UNREACHABLE:
	case BRIDGE_HTTP_ERROR_STATUS:
		break;
	}
	g_set_error(error, BRIDGE_GPODDER_ERROR,
	            BRIDGE_GPODDER_ERROR_UNREACHABLE,
	            "cannot reach the server (%s): check the network, or "
	            "[sync] server",
	            failed->message);
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
	const BridgeGpodderSettings *settings = session->settings;
	const BridgeHttpRequest request = {
		.url = url,
		.body = body,
		.content_type = content_type,
		.redirect_protocols = settings->insecure
		                              ? "http,https"
		                              : redirect_protocols(url),
		.timeout_seconds = timeout_seconds(settings),
		.connect_seconds = CONNECT_SECONDS,
		.stall_seconds = STALL_SECONDS,
		.max_bytes = max_bytes,
	};
	g_autoptr(GError) failed = NULL;
	GBytes *answer;
	long status = 0;

	set_auth(session);
	answer = bridge_http_perform(session->easy, &request, &status, &failed);
	if (answer != NULL)
		return answer;
	if (g_error_matches(failed, BRIDGE_HTTP_ERROR,
	                    BRIDGE_HTTP_ERROR_STATUS))
		status_error(session, status, error);
	else
		transfer_error(session, failed, max_bytes, error);
	return NULL;
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
