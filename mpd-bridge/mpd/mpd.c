/*
 * The daemon's connection lives in one of three states: disconnected (a
 * connection attempt is scheduled), idle ("idle" sent, the socket watched)
 * or busy (a command or a handler runs). Events that MPD reports while we
 * leave idle for a command are kept in `pending` and delivered from the
 * main loop, so handlers never run inside a caller's command.
 *
 * The requests to each of MPD's subsystems are in files of their own
 * (mpd-queue.c, mpd-player.c, mpd-playlists.c, mpd-database.c,
 * mpd-messages.c): each runs between bridge_mpd_begin_command() and
 * bridge_mpd_end_command(), and this file alone knows the states.
 */
#include "mpd/mpd-private.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include <mpd/client.h>
#include <signal.h>
#include <string.h>

/*
 * Reconnection tries come after 100 ms, then twice as long each time: the
 * wait for an MPD that is back is at most about as long as it was away
 * (a restart takes a fraction of a second), and a long outage costs a try
 * a minute.
 */
#define FIRST_BACKOFF_MS 100
#define MAX_BACKOFF_MS   60000

/*
 * Messages for the control channel; player, queue and stored playlist
 * changes for the tracker and the sync; database changes for downloads;
 * options for the sleep timer, which ends when a client turns single mode
 * off.
 */
#define IDLE_MASK                                                              \
	(MPD_IDLE_MESSAGE | MPD_IDLE_PLAYER | MPD_IDLE_QUEUE |                 \
	 MPD_IDLE_STORED_PLAYLIST | MPD_IDLE_DATABASE | MPD_IDLE_OPTIONS)

static gboolean
on_connect(gpointer data);
static gboolean
on_dispatch(gpointer data);
static gboolean
on_readable(int fd, GIOCondition condition, gpointer data);

/* Frees the socket without telling anyone; the caller decides. */
static void
close_connection(BridgeMpd *self)
{
	g_clear_handle_id(&self->watch_id, g_source_remove);
	g_clear_pointer(&self->conn, mpd_connection_free);
	self->idling = FALSE;
	self->pending = 0;
}

static void
schedule_connect(BridgeMpd *self, guint delay_ms)
{
	g_clear_handle_id(&self->connect_id, g_source_remove);
	if (delay_ms == 0)
		self->connect_id = g_idle_add(on_connect, self);
	else
		self->connect_id = g_timeout_add(delay_ms, on_connect, self);
}

static void
schedule_dispatch(BridgeMpd *self)
{
	if (self->dispatch_id == 0)
		self->dispatch_id = g_idle_add(on_dispatch, self);
}

static void
lose(BridgeMpd *self)
{
	g_autofree char *why =
	        g_strdup(mpd_connection_get_error_message(self->conn));

	close_connection(self);
	g_warning("lost the connection to %s: %s; reconnecting", self->where,
	          why);
	schedule_connect(self, FIRST_BACKOFF_MS);
	self->backoff_ms = 2 * FIRST_BACKOFF_MS;
	self->lost_unsaid = TRUE;
	schedule_dispatch(self);
}

/*
 * After a failed libmpdclient call: MPD's refusal becomes @error and the
 * connection stays; anything else also drops the connection. Returns
 * FALSE, for the caller to return.
 */
gboolean
bridge_mpd_fail(BridgeMpd *self, GError **error, const char *what)
{
	g_set_error(error, G_IO_ERROR, bridge_mpd_error_code(self->conn),
	            "%s on %s: %s", what, self->where,
	            mpd_connection_get_error_message(self->conn));
	if (!mpd_connection_clear_error(self->conn))
		lose(self);
	return FALSE;
}

/*
 * After a failure inside a command list. libmpdclient cannot abandon a
 * list it has begun: unless MPD refused the list, which ends it, the
 * connection is dropped and made anew, else every later command fails.
 */
gboolean
bridge_mpd_fail_list(BridgeMpd *self, GError **error, const char *what)
{
	if (mpd_connection_get_error(self->conn) == MPD_ERROR_SERVER)
		return bridge_mpd_fail(self, error, what);
	g_set_error(error, G_IO_ERROR, bridge_mpd_error_code(self->conn),
	            "%s on %s: %s", what, self->where,
	            mpd_connection_get_error_message(self->conn));
	lose(self);
	return FALSE;
}

static void
flush_lost(BridgeMpd *self)
{
	if (!self->lost_unsaid)
		return;
	self->lost_unsaid = FALSE;
	if (self->on_state != NULL) {
		self->depth++;
		self->on_state(FALSE, self->user_data);
		self->depth--;
	}
}

static void
enter_idle(BridgeMpd *self)
{
	if (self->conn == NULL || self->idling)
		return;
	if (!mpd_send_idle_mask(self->conn, IDLE_MASK)) {
		bridge_mpd_fail(self, NULL, "cannot wait for events");
		return;
	}
	self->idling = TRUE;
	self->watch_id =
	        g_unix_fd_add(mpd_connection_get_fd(self->conn),
	                      G_IO_IN | G_IO_HUP | G_IO_ERR, on_readable, self);
}

static gboolean
leave_idle(BridgeMpd *self, GError **error)
{
	unsigned events;

	if (!self->idling)
		return TRUE;
	g_clear_handle_id(&self->watch_id, g_source_remove);
	self->idling = FALSE;
	events = mpd_run_noidle(self->conn);
	if (events == 0 &&
	    mpd_connection_get_error(self->conn) != MPD_ERROR_SUCCESS)
		return bridge_mpd_fail(self, error, "cannot leave idle mode");
	self->pending |= events;
	return TRUE;
}

/*
 * Runs the handlers for the pending events, then waits for more. Called
 * from the main loop only, with the connection out of idle.
 */
static void
deliver(BridgeMpd *self)
{
	while (self->conn != NULL && self->pending != 0) {
		unsigned events = self->pending;
		g_autoptr(GPtrArray) texts = NULL;

		self->pending = 0;
		if ((events & MPD_IDLE_MESSAGE) != 0 && self->channel != NULL) {
			texts = bridge_mpd_read_messages(self);
			if (texts == NULL)
				return;
		}
		self->depth++;
		for (guint i = 0; texts != NULL && i < texts->len; i++) {
			if (self->on_message != NULL)
				self->on_message(texts->pdata[i],
				                 self->user_data);
		}
		if (self->on_idle != NULL)
			self->on_idle(events, self->user_data);
		self->depth--;
	}
	enter_idle(self);
}

static gboolean
on_readable(int fd, GIOCondition condition, gpointer data)
{
	BridgeMpd *self = data;
	unsigned events;

	self->watch_id = 0;
	self->idling = FALSE;
	events = mpd_recv_idle(self->conn, false);
	if (events == 0 &&
	    mpd_connection_get_error(self->conn) != MPD_ERROR_SUCCESS) {
		bridge_mpd_fail(self, NULL, "cannot receive events");
		if (self->conn == NULL)
			return G_SOURCE_REMOVE;
	}
	self->pending |= events;
	deliver(self);
	return G_SOURCE_REMOVE;
}

static gboolean
on_dispatch(gpointer data)
{
	BridgeMpd *self = data;

	self->dispatch_id = 0;
	flush_lost(self);
	if (self->conn != NULL && !self->idling)
		deliver(self);
	return G_SOURCE_REMOVE;
}

static void
attempt_failed(BridgeMpd *self, struct mpd_connection *conn)
{
	const char *why = conn != NULL ? mpd_connection_get_error_message(conn)
	                               : "out of memory";

	/* Once per outage is enough for the journal (lose() said it). */
	if (!self->ever_connected && self->backoff_ms == FIRST_BACKOFF_MS)
		g_message("cannot connect to %s: %s; retrying in %u ms",
		          self->where, why, self->backoff_ms);
	else
		g_debug("cannot connect to %s: %s; retrying in %u ms",
		        self->where, why, self->backoff_ms);
	if (conn != NULL)
		mpd_connection_free(conn);
	schedule_connect(self, self->backoff_ms);
	self->backoff_ms = MIN(self->backoff_ms * 2, MAX_BACKOFF_MS);
}

static gboolean
on_connect(gpointer data)
{
	BridgeMpd *self = data;
	struct mpd_connection *conn;
	const unsigned *version;

	self->connect_id = 0;
	flush_lost(self);
	conn = mpd_connection_new(self->address.host, self->address.port,
	                          self->address.timeout_ms);
	if (conn != NULL && self->address.host == NULL) {
		g_free(self->where);
		self->where =
		        bridge_mpd_describe_connection(&self->address, conn);
	}
	if (conn == NULL ||
	    mpd_connection_get_error(conn) != MPD_ERROR_SUCCESS ||
	    (self->address.password != NULL &&
	     !mpd_run_password(conn, self->address.password)) ||
	    (self->channel != NULL &&
	     !mpd_run_subscribe(conn, self->channel))) {
		attempt_failed(self, conn);
		return G_SOURCE_REMOVE;
	}
	/* Notices a vanished peer on TCP even while we sit in idle. */
	mpd_connection_set_keepalive(conn, true);

	self->conn = conn;
	self->backoff_ms = FIRST_BACKOFF_MS;
	version = mpd_connection_get_server_version(conn);
	/* MPD 0.23 and 0.24 differ where users see it: docs/mpd-versions.md */
	g_message("%s %s, protocol %u.%u.%u",
	          self->ever_connected ? "reconnected to" : "connected to",
	          self->where, version[0], version[1], version[2]);
	self->ever_connected = TRUE;
	if (self->on_state != NULL) {
		self->depth++;
		self->on_state(TRUE, self->user_data);
		self->depth--;
	}
	if (self->conn != NULL && !self->idling)
		deliver(self);
	return G_SOURCE_REMOVE;
}

/* Every command starts here: connected, and out of idle. */
gboolean
bridge_mpd_begin_command(BridgeMpd *self, GError **error)
{
	if (self->conn == NULL) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
		            "not connected to %s", self->where);
		return FALSE;
	}
	return leave_idle(self, error);
}

/*
 * Inside a handler, whoever ran the handler re-enters idle; otherwise
 * events that came with "noidle" go to the main loop first.
 */
void
bridge_mpd_end_command(BridgeMpd *self)
{
	if (self->depth > 0 || self->conn == NULL)
		return;
	if (self->pending != 0)
		schedule_dispatch(self);
	else
		enter_idle(self);
}

void
bridge_mpd_address_from_env(BridgeMpdAddress *address)
{
	const char *host = g_getenv("MPD_HOST");
	const char *port = g_getenv("MPD_PORT");
	guint64 number;

	g_return_if_fail(address != NULL);

	if (host != NULL && *host != '\0') {
		const char *at = host[0] == '@' ? NULL : strchr(host, '@');

		if (at != NULL) {
			if (at > host)
				address->password = g_strndup(host, at - host);
			host = at + 1;
		}
		if (*host != '\0')
			address->host = g_strdup(host);
	}
	if (port != NULL &&
	    g_ascii_string_to_unsigned(port, 10, 1, 65535, &number, NULL))
		address->port = (guint)number;
}

void
bridge_mpd_address_clear(BridgeMpdAddress *address)
{
	if (address == NULL)
		return;
	g_free(address->host);
	g_free(address->password);
	memset(address, 0, sizeof(*address));
}

static void
copy_address(BridgeMpdAddress *to, const BridgeMpdAddress *from)
{
	to->host = g_strdup(from->host);
	to->port = from->port;
	to->password = g_strdup(from->password);
	to->timeout_ms =
	        from->timeout_ms != 0 ? from->timeout_ms : DEFAULT_TIMEOUT_MS;
}

BridgeMpd *
bridge_mpd_new(const BridgeMpdAddress *address, const char *channel)
{
	BridgeMpd *self;

	g_return_val_if_fail(address != NULL, NULL);

	bridge_mpd_ignore_sigpipe();
	self = g_new0(BridgeMpd, 1);
	copy_address(&self->address, address);
	self->channel = g_strdup(channel);
	self->where = bridge_mpd_describe_connection(address, NULL);
	self->backoff_ms = FIRST_BACKOFF_MS;
	return self;
}

void
bridge_mpd_set_handlers(BridgeMpd *mpd, BridgeMpdStateFunc on_state,
                        BridgeMpdMessageFunc on_message,
                        BridgeMpdIdleFunc on_idle, gpointer user_data)
{
	g_return_if_fail(mpd != NULL);

	mpd->on_state = on_state;
	mpd->on_message = on_message;
	mpd->on_idle = on_idle;
	mpd->user_data = user_data;
}

void
bridge_mpd_start(BridgeMpd *mpd)
{
	g_return_if_fail(mpd != NULL);
	g_return_if_fail(!mpd->started);

	mpd->started = TRUE;
	schedule_connect(mpd, 0);
}

void
bridge_mpd_free(BridgeMpd *mpd)
{
	if (mpd == NULL)
		return;
	close_connection(mpd);
	g_clear_handle_id(&mpd->connect_id, g_source_remove);
	g_clear_handle_id(&mpd->dispatch_id, g_source_remove);
	bridge_mpd_address_clear(&mpd->address);
	g_free(mpd->channel);
	g_free(mpd->where);
	g_free(mpd);
}

gboolean
bridge_mpd_is_connected(const BridgeMpd *mpd)
{
	g_return_val_if_fail(mpd != NULL, FALSE);

	return mpd->conn != NULL;
}

gboolean
bridge_mpd_protocol_at_least(const BridgeMpd *mpd, guint major, guint minor)
{
	g_return_val_if_fail(mpd != NULL, FALSE);

	return mpd->conn != NULL && mpd_connection_cmp_server_version(
	                                    mpd->conn, major, minor, 0) >= 0;
}

gboolean
bridge_mpd_address_is_local(const BridgeMpdAddress *address)
{
	const char *host = address->host;

	/* libmpdclient's default is the local socket, then localhost. */
	return host == NULL || host[0] == '/' || host[0] == '@' ||
	       g_ascii_strcasecmp(host, "localhost") == 0 ||
	       g_str_has_prefix(host, "127.") || strcmp(host, "::1") == 0;
}
