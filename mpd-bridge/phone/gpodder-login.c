/*
 * Nextcloud's Login Flow v2: an app password for a headless box, got by
 * a person who opens a URL in a browser.
 */
#include "phone/gpodder-private.h"

#include <string.h>

/* Its answers are a few hundred bytes. */
#define MAX_ANSWER_BYTES (64 * 1024)

static char *
escape(const char *segment)
{
	return g_uri_escape_string(segment, NULL, FALSE);
}

BridgeGpodderLogin *
bridge_gpodder_login_start(const BridgeGpodderSettings *settings,
                           GError **error)
{
	g_autofree char *url = NULL;
	g_autoptr(GBytes) answer = NULL;
	g_autoptr(BridgeGpodderLogin) login = NULL;
	BridgeGpodderSession session;
	const char *data;
	gsize length;

	g_return_val_if_fail(settings != NULL, NULL);
	if (!bridge_gpodder_session_open(&session, settings, FALSE, error))
		return NULL;
	url = g_strconcat(settings->server, "/index.php/login/v2", NULL);
	answer = bridge_gpodder_request(&session, url,
	                                "application/x-www-form-urlencoded", "",
	                                MAX_ANSWER_BYTES, error);
	if (answer != NULL) {
		data = bridge_gpodder_bytes_data(answer, &length);
		login = bridge_gpodder_login_from_json(data, length, error);
	}
	if (login != NULL && !g_str_has_prefix(login->login_url, "https://") &&
	    !g_str_has_prefix(login->login_url, "http://")) {
		g_clear_pointer(&login, bridge_gpodder_login_free);
		g_set_error(error, BRIDGE_GPODDER_ERROR,
		            BRIDGE_GPODDER_ERROR_BAD_ANSWER,
		            "the answer's login is not an http or https URL");
	}
	if (login == NULL)
		bridge_gpodder_session_prefix_error(&session, error,
		                                    "start a Nextcloud login");
	bridge_gpodder_session_close(&session);
	return g_steal_pointer(&login);
}

/*
 * The token goes only where the server could send the password: https, or
 * plain http when the server itself is plain http.
 */
static gboolean
check_endpoint(const BridgeGpodderSession *session, const char *endpoint,
               GError **error)
{
	if (g_str_has_prefix(endpoint, "https://"))
		return TRUE;
	if (g_str_has_prefix(endpoint, "http://") &&
	    (session->settings->insecure ||
	     g_ascii_strncasecmp(session->settings->server, "http:", 5) == 0))
		return TRUE;
	g_set_error(error, BRIDGE_GPODDER_ERROR, BRIDGE_GPODDER_ERROR_INVALID,
	            "the poll endpoint is not an https URL");
	return FALSE;
}

gboolean
bridge_gpodder_login_poll(const BridgeGpodderSettings *settings,
                          const BridgeGpodderLogin *login,
                          BridgeGpodderCredentials **credentials,
                          GError **error)
{
	g_autofree char *token = NULL;
	g_autofree char *body = NULL;
	g_autoptr(GBytes) answer = NULL;
	g_autoptr(GError) local = NULL;
	BridgeGpodderSession session;
	const char *data;
	gsize length;

	g_return_val_if_fail(settings != NULL, FALSE);
	g_return_val_if_fail(login != NULL, FALSE);
	g_return_val_if_fail(credentials != NULL, FALSE);
	*credentials = NULL;
	if (!bridge_gpodder_session_open(&session, settings, FALSE, error))
		return FALSE;
	if (!check_endpoint(&session, login->poll_endpoint, error)) {
		bridge_gpodder_session_prefix_error(
		        &session, error, "ask whether the login is done");
		bridge_gpodder_session_close(&session);
		return FALSE;
	}
	token = escape(login->token);
	body = g_strconcat("token=", token, NULL);
	answer = bridge_gpodder_request(&session, login->poll_endpoint,
	                                "application/x-www-form-urlencoded",
	                                body, MAX_ANSWER_BYTES, &local);
	memset(body, 0, strlen(body));
	/* Nextcloud answers 404 until the user has approved. */
	if (answer == NULL && bridge_gpodder_error_get_status(local) == 404) {
		bridge_gpodder_session_close(&session);
		return TRUE;
	}
	if (answer != NULL) {
		data = bridge_gpodder_bytes_data(answer, &length);
		*credentials = bridge_gpodder_credentials_from_json(
		        data, length, &local);
	}
	if (*credentials == NULL) {
		g_propagate_error(error, g_steal_pointer(&local));
		bridge_gpodder_session_prefix_error(
		        &session, error, "ask whether the login is done");
	}
	bridge_gpodder_session_close(&session);
	return *credentials != NULL;
}
