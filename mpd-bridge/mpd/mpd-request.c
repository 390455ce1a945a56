/*
 * The command line's round trip to a running daemon: a message on the
 * daemon's channel, and the answer awaited on a reply channel, on a
 * connection of its own that lives for that one request.
 */
#include "mpd/mpd-private.h"

#include <errno.h>
#include <gio/gio.h>
#include <poll.h>
#include <string.h>

/* Waits until @fd is readable; FALSE when @deadline (monotonic µs) passed. */
static gboolean
wait_readable(int fd, gint64 deadline)
{
	for (;;) {
		gint64 left = deadline - g_get_monotonic_time();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int n;

		if (left <= 0)
			return FALSE;
		n = poll(&pfd, 1, (int)MIN((left + 999) / 1000, G_MAXINT));
		if (n > 0)
			return TRUE;
		if (n < 0 && errno != EINTR)
			return TRUE; /* let libmpdclient report the error */
	}
}

static void
request_failed(struct mpd_connection *conn, const char *where, GError **error)
{
	g_set_error(error, G_IO_ERROR, bridge_mpd_error_code(conn), "%s: %s",
	            where, mpd_connection_get_error_message(conn));
}

/* The first message on @channel, or NULL; *@failed on a broken response. */
static char *
read_reply(struct mpd_connection *conn, const char *channel, gboolean *failed)
{
	struct mpd_message *message;
	char *reply = NULL;

	*failed = !mpd_send_read_messages(conn);
	while (!*failed && (message = mpd_recv_message(conn)) != NULL) {
		if (reply == NULL &&
		    g_strcmp0(mpd_message_get_channel(message), channel) == 0)
			reply = g_strdup(mpd_message_get_text(message));
		mpd_message_free(message);
	}
	if (!*failed)
		*failed = mpd_connection_get_error(conn) != MPD_ERROR_SUCCESS ||
		          !mpd_response_finish(conn);
	if (*failed)
		g_clear_pointer(&reply, g_free);
	return reply;
}

static char *
await_reply(struct mpd_connection *conn, const char *where,
            const char *reply_channel, guint timeout_ms, GError **error)
{
	gint64 deadline = g_get_monotonic_time() +
	                  (gint64)timeout_ms * G_TIME_SPAN_MILLISECOND;

	for (;;) {
		gboolean ready;
		gboolean failed;
		unsigned events;
		char *reply;

		/* A message that came first makes idle return at once. */
		if (!mpd_send_idle_mask(conn, MPD_IDLE_MESSAGE))
			break;
		ready = wait_readable(mpd_connection_get_fd(conn), deadline);
		if (ready)
			events = mpd_recv_idle(conn, false);
		else
			events = mpd_run_noidle(conn);
		if (events == 0 &&
		    mpd_connection_get_error(conn) != MPD_ERROR_SUCCESS)
			break;
		if ((events & MPD_IDLE_MESSAGE) != 0) {
			reply = read_reply(conn, reply_channel, &failed);
			if (failed)
				break;
			if (reply != NULL)
				return reply;
		}
		if (!ready) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
			            "the daemon did not answer within %u ms "
			            "through %s",
			            timeout_ms, where);
			return NULL;
		}
	}
	request_failed(conn, where, error);
	return NULL;
}

/* A connection of its own, or NULL; *@where names it for messages. */
static struct mpd_connection *
connect_once(const BridgeMpdAddress *address, char **where, GError **error)
{
	struct mpd_connection *conn;

	bridge_mpd_ignore_sigpipe();
	conn = mpd_connection_new(address->host, address->port,
	                          address->timeout_ms != 0
	                                  ? address->timeout_ms
	                                  : DEFAULT_TIMEOUT_MS);
	*where = bridge_mpd_describe_connection(address, conn);
	if (conn == NULL ||
	    mpd_connection_get_error(conn) != MPD_ERROR_SUCCESS) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED,
		            "cannot reach %s: %s; is it running? MPD_HOST and "
		            "MPD_PORT say where it is",
		            *where,
		            conn != NULL
		                    ? mpd_connection_get_error_message(conn)
		                    : "out of memory");
		g_clear_pointer(&conn, mpd_connection_free);
	}
	return conn;
}

char *
bridge_mpd_request(const BridgeMpdAddress *address, const char *channel,
                   const char *text, const char *reply_channel,
                   guint timeout_ms, GError **error)
{
	struct mpd_connection *conn;
	g_autofree char *where = NULL;
	g_autofree char *request = NULL;
	g_autofree char *raw = NULL;
	char *reply = NULL;

	g_return_val_if_fail(address != NULL, NULL);
	g_return_val_if_fail(channel != NULL, NULL);
	g_return_val_if_fail(text != NULL, NULL);
	g_return_val_if_fail(reply_channel != NULL, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	conn = connect_once(address, &where, error);
	if (conn == NULL)
		return NULL;

	raw = g_strdup_printf("@%s %s", reply_channel, text);
	request = bridge_mpd_clean_text(raw);
	if (bridge_mpd_quoted_length(request) +
	            bridge_mpd_quoted_length(channel) +
	            sizeof("sendmessage  \n") >
	    MAX_LINE_BYTES) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
		            "the command is too long for an MPD message (%zu "
		            "bytes; at most about %d)",
		            strlen(text), MAX_LINE_BYTES - 100);
	} else if (address->password != NULL &&
	           !mpd_run_password(conn, address->password)) {
		request_failed(conn, where, error);
		g_prefix_error(error, "wrong password? ");
	} else if (!mpd_run_subscribe(conn, reply_channel)) {
		request_failed(conn, where, error);
	} else if (!mpd_run_send_message(conn, channel, request)) {
		if (bridge_mpd_is_server_error(conn, MPD_SERVER_ERROR_NO_EXIST))
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			            "nobody listens on channel %s of %s: is "
			            "mpd-bridge running?",
			            channel, where);
		else
			request_failed(conn, where, error);
	} else {
		reply = await_reply(conn, where, reply_channel, timeout_ms,
		                    error);
	}
	mpd_connection_free(conn);
	return reply;
}

gboolean
bridge_mpd_request_player_status(const BridgeMpdAddress *address,
                                 BridgePlayerStatus *status, GError **error)
{
	struct mpd_connection *conn;
	g_autofree char *where = NULL;
	const char *what = NULL;
	gboolean ok = FALSE;

	g_return_val_if_fail(address != NULL, FALSE);
	g_return_val_if_fail(status != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	*status = (BridgePlayerStatus){ .state = BRIDGE_PLAYER_STOP };
	conn = connect_once(address, &where, error);
	if (conn == NULL)
		return FALSE;
	if (address->password != NULL &&
	    !mpd_run_password(conn, address->password)) {
		request_failed(conn, where, error);
		g_prefix_error(error, "wrong password? ");
	} else if (!bridge_mpd_read_player_status(conn, status, &what)) {
		request_failed(conn, where, error);
		g_prefix_error(error, "%s: ", what);
		bridge_player_status_clear(status);
	} else {
		ok = TRUE;
	}
	mpd_connection_free(conn);
	return ok;
}
