/*
 * One HTTP request on a libcurl easy handle, blocking, for mpd-bridge's
 * own clients (the directory search, the gpodder client): the rules they
 * share (http and https only, up to 5 redirects, a size cap on the
 * answer, time limits, the user agent, CURL_CA_BUNDLE) and what went
 * wrong, as a BRIDGE_HTTP_ERROR that each client words for its own
 * users. Feeds and episodes are fetched by libfeed, not here.
 *
 * It is written around libcurl by hand, not on an HTTP library, because
 * libcurl is already the dependency (libfeed fetches with it) and what is
 * shared is a page of options; libsoup, or any second HTTP stack, is not
 * used in the project and would bring its own TLS and main-loop rules.
 *
 * Nothing here touches the Bridge: each function may run on any thread,
 * one handle on one thread at a time, once main() has called
 * curl_global_init().
 */
#ifndef BRIDGE_HTTP_H
#define BRIDGE_HTTP_H

#include <curl/curl.h>
#include <glib.h>

#define BRIDGE_HTTP_ERROR (bridge_http_error_quark())

typedef enum {
	BRIDGE_HTTP_ERROR_START,       /* libcurl gave no handle; the message
	                                  says so */
	BRIDGE_HTTP_ERROR_UNREACHABLE, /* the transfer failed; the message is
	                                  libcurl's words for why */
	BRIDGE_HTTP_ERROR_TIMEOUT,     /* no whole answer in time, or no byte
	                                  for the stall time */
	BRIDGE_HTTP_ERROR_TOO_LARGE,   /* an answer past max_bytes */
	BRIDGE_HTTP_ERROR_PROTOCOL,    /* a redirect to a scheme not allowed */
	BRIDGE_HTTP_ERROR_STATUS,      /* an HTTP status other than 2xx */
} BridgeHttpError;

/* One request; the caller owns every pointer, for the call only. */
typedef struct {
	const char *url;
	/* "Name: value" lines after "Accept: application/json" (and the
	   Content-Type of @body), NULL-terminated; NULL for none */
	const char *const *headers;
	const char *body;         /* sent as a POST; NULL for a GET */
	const char *content_type; /* of @body; unused for a GET */
	/* libcurl's list of schemes a redirect may go to, "http,https" or
	   "https"; NULL for "http,https" */
	const char *redirect_protocols;
	guint timeout_seconds; /* for the whole transfer; 0 for none */
	guint connect_seconds; /* for the connection, at most
	                          timeout_seconds; 0 for libcurl's own */
	guint stall_seconds;   /* a transfer that moves no byte for this
	                          long (at most timeout_seconds) fails;
	                          0 for no such limit */
	gsize max_bytes;       /* of the answer; larger fails */
} BridgeHttpRequest;

GQuark
bridge_http_error_quark(void);

/*
 * A new easy handle (free it with curl_easy_cleanup()), or NULL with
 * @error set to BRIDGE_HTTP_ERROR_START.
 */
CURL *
bridge_http_easy_new(GError **error);

/*
 * Sends @request on @easy, which may have been used before (its
 * connection is reused) and may carry options of the caller's, such as
 * credentials. Returns the body of a 2xx answer, or NULL with @error set
 * in the BRIDGE_HTTP_ERROR domain. @status (may be NULL) is set to the
 * HTTP status, 0 when there was none.
 */
GBytes *
bridge_http_perform(CURL *easy, const BridgeHttpRequest *request, long *status,
                    GError **error);

#endif
