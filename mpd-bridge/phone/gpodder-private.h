/*
 * Between the files of the sync client: gpodder-http.c (requests and
 * errors), gpodder.c (the API's calls), gpodder-login.c (Nextcloud's Login
 * Flow v2), gpodder-json.c (the API's JSON) and gpodder-data.c (its
 * structs and times).
 */
#ifndef BRIDGE_GPODDER_PRIVATE_H
#define BRIDGE_GPODDER_PRIVATE_H

#include "phone/gpodder.h"

#include <curl/curl.h>

/* Sets a BRIDGE_GPODDER_ERROR_HTTP or _AUTH error with its @status. */
void
bridge_gpodder_set_status_error(GError **error, BridgeGpodderError code,
                                long status, const char *format, ...)
        G_GNUC_PRINTF(4, 5);

/* One call's requests, on one libcurl handle. */
typedef struct {
	const BridgeGpodderSettings *settings;
	CURL *easy;
	char *server;       /* for messages: no credentials, query or
	                       fragment */
	gboolean send_auth; /* FALSE for the login flow */
} BridgeGpodderSession;

/*
 * Opens @session on @settings' server; @send_auth is FALSE for the login
 * flow, which has no password yet.
 */
gboolean
bridge_gpodder_session_open(BridgeGpodderSession *session,
                            const BridgeGpodderSettings *settings,
                            gboolean send_auth, GError **error);

void
bridge_gpodder_session_close(BridgeGpodderSession *session);

/*
 * Sends a request to @url: a POST of @body (of @content_type) when @body
 * is not NULL, else a GET. Returns the answer of a 2xx, of at most
 * @max_bytes, or NULL with @error set.
 */
GBytes *
bridge_gpodder_request(BridgeGpodderSession *session, const char *url,
                       const char *content_type, const char *body,
                       gsize max_bytes, GError **error);

/* bridge_gpodder_request() of a JSON @body. */
GBytes *
bridge_gpodder_request_json(BridgeGpodderSession *session, const char *url,
                            const char *body, gsize max_bytes, GError **error);

/* The data of @bytes, "" when empty. */
const char *
bridge_gpodder_bytes_data(GBytes *bytes, gsize *length);

/* Prefixes @error with what could not be done, and at which server. */
void
bridge_gpodder_session_prefix_error(const BridgeGpodderSession *session,
                                    GError **error, const char *what);

/*
 * The JSON readers take @length bytes of @data, need not be
 * NUL-terminated, and fail with BRIDGE_GPODDER_ERROR_BAD_ANSWER naming the
 * field.
 */

/* {"caption": …, "type": "server"} */
char *
bridge_gpodder_device_to_json(const char *caption);

/* {"add": […], "remove": […]} */
char *
bridge_gpodder_changes_to_json(const char *const *add,
                               const char *const *remove);

/* A JSON array of @n actions of @actions from @first on. */
char *
bridge_gpodder_actions_to_json(GPtrArray *actions, guint first, guint n,
                               const char *device);

BridgeGpodderSubscriptions *
bridge_gpodder_subscriptions_from_json(const char *data, gsize length,
                                       GError **error);

BridgeGpodderUploaded *
bridge_gpodder_uploaded_from_json(const char *data, gsize length,
                                  GError **error);

/* The actions of {"actions": […], "timestamp": N}, and N. */
GPtrArray *
bridge_gpodder_actions_from_json(const char *data, gsize length,
                                 gint64 *timestamp, GError **error);

BridgeGpodderLogin *
bridge_gpodder_login_from_json(const char *data, gsize length, GError **error);

BridgeGpodderCredentials *
bridge_gpodder_credentials_from_json(const char *data, gsize length,
                                     GError **error);

#endif
