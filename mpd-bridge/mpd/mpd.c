/*
 * The daemon's connection lives in one of three states: disconnected (a
 * connection attempt is scheduled), idle ("idle" sent, the socket watched)
 * or busy (a command or a handler runs). Events that MPD reports while we
 * leave idle for a command are kept in `pending` and delivered from the
 * main loop, so handlers never run inside a caller's command.
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
 * MPD refuses a command list larger than max_command_list_size (2 MiB by
 * default); stay well below it.
 */
#define MAX_LIST_BYTES (512 * 1024)

/* A tag value is cut shorter than a whole line (MAX_LINE_BYTES). */
#define MAX_TAG_BYTES 1024

/*
 * Messages for the control channel; player, queue and stored playlist
 * changes for the tracker and the sync; database changes for downloads;
 * options for the sleep timer, which ends when a client turns single mode
 * off.
 */
#define IDLE_MASK                                                              \
	(MPD_IDLE_MESSAGE | MPD_IDLE_PLAYER | MPD_IDLE_QUEUE |                 \
	 MPD_IDLE_STORED_PLAYLIST | MPD_IDLE_DATABASE | MPD_IDLE_OPTIONS)

struct BridgeMpd {
	BridgeMpdAddress address; /* a copy; timeout_ms is never 0 */
	char *channel;            /* subscribed on connecting; NULL: none */
	char *where;              /* "MPD at HOST", for messages */

	BridgeMpdStateFunc on_state; /* each NULL when not wanted */
	BridgeMpdMessageFunc on_message;
	BridgeMpdIdleFunc on_idle;
	gpointer user_data;

	struct mpd_connection *conn; /* NULL while disconnected */
	gboolean started;            /* bridge_mpd_start() was called */
	gboolean ever_connected;     /* tells "connected" from "reconnected" */
	gboolean idling;             /* "idle" sent and watch_id watches */
	guint watch_id;              /* the socket while idling; 0 otherwise */
	guint connect_id;            /* the next attempt; 0 when none due */
	guint dispatch_id;           /* deferred delivery; 0 when none due */
	unsigned pending;     /* enum mpd_idle bits not yet delivered; 0 */
	gboolean lost_unsaid; /* on_state(FALSE) not yet delivered */
	guint depth;          /* handlers running; 0 when none */
	guint backoff_ms;     /* wait after the next failed attempt: 100 ms,
	                         doubling to 60 s; 100 again once connected */
};

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
static gboolean
fail(BridgeMpd *self, GError **error, const char *what)
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
static gboolean
fail_list(BridgeMpd *self, GError **error, const char *what)
{
	if (mpd_connection_get_error(self->conn) == MPD_ERROR_SERVER)
		return fail(self, error, what);
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
		fail(self, NULL, "cannot wait for events");
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
		return fail(self, error, "cannot leave idle mode");
	self->pending |= events;
	return TRUE;
}

/* Texts for our channel, or NULL when the connection was lost. */
static GPtrArray *
read_messages(BridgeMpd *self)
{
	g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func(g_free);
	struct mpd_message *message;
	g_autoptr(GError) error = NULL;

	if (!mpd_send_read_messages(self->conn))
		goto failed;
	while ((message = mpd_recv_message(self->conn)) != NULL) {
		if (g_strcmp0(mpd_message_get_channel(message),
		              self->channel) == 0)
			g_ptr_array_add(
			        texts, g_strdup(mpd_message_get_text(message)));
		mpd_message_free(message);
	}
	if (mpd_connection_get_error(self->conn) != MPD_ERROR_SUCCESS ||
	    !mpd_response_finish(self->conn))
		goto failed;
	return g_steal_pointer(&texts);

failed:
	fail(self, &error, "cannot read messages");
	if (self->conn == NULL)
		return NULL;
	g_message("%s", error->message);
	return g_steal_pointer(&texts);
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
			texts = read_messages(self);
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
		fail(self, NULL, "cannot receive events");
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
static gboolean
begin_command(BridgeMpd *self, GError **error)
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
static void
end_command(BridgeMpd *self)
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

/*
 * One or more command lists; the first deletes the old playlist when
 * @exists. *@vanished tells that it was gone by then after all.
 */
static gboolean
fill_playlist(BridgeMpd *self, const char *name, const char *const *uris,
              guint n_uris, gboolean exists, gboolean *vanished, GError **error)
{
	guint i = 0;
	gboolean first = TRUE;
	g_autofree char *what =
	        g_strdup_printf("cannot replace stored playlist \"%s\"", name);

	*vanished = FALSE;
	if (n_uris == 0 && !exists)
		return TRUE;
	do {
		gsize bytes = 0;
		gboolean ok = mpd_command_list_begin(self->conn, false);

		if (ok && first && exists)
			ok = mpd_send_rm(self->conn, name);
		for (; ok && i < n_uris && bytes < MAX_LIST_BYTES; i++) {
			g_autofree char *uri = bridge_mpd_clean_text(uris[i]);
			gsize line = bridge_mpd_quoted_length(name) +
			             bridge_mpd_quoted_length(uri) +
			             sizeof("playlistadd  \n");

			if (line > MAX_LINE_BYTES) {
				g_warning("left a stream out of %s: its URL is "
				          "too long for MPD (%zu bytes)",
				          name, strlen(uri));
				continue;
			}
			ok = mpd_send_playlist_add(self->conn, name, uri);
			bytes += line;
		}
		ok = ok && mpd_command_list_end(self->conn) &&
		     mpd_response_finish(self->conn);
		if (!ok) {
			*vanished = first && exists &&
			            bridge_mpd_is_server_error(
			                    self->conn,
			                    MPD_SERVER_ERROR_NO_EXIST) &&
			            mpd_connection_get_server_error_location(
			                    self->conn) == 0;
			return fail_list(self, error, what);
		}
		first = FALSE;
	} while (i < n_uris);
	return TRUE;
}

/*
 * Assumes the playlist exists and deletes it in the same command list as
 * the first additions; when MPD answers that it does not, adds only.
 * Asking first with listplaylists cost 4 ms a playlist with 500 of them.
 */
static gboolean
replace_playlist(BridgeMpd *self, const char *name, const char *const *uris,
                 guint n_uris, GError **error)
{
	g_autofree char *clean_name = bridge_mpd_clean_text(name);
	gboolean vanished;
	g_autoptr(GError) local_error = NULL;

	if (fill_playlist(self, clean_name, uris, n_uris, TRUE, &vanished,
	                  &local_error))
		return TRUE;
	if (vanished && self->conn != NULL) {
		g_clear_error(&local_error);
		return fill_playlist(self, clean_name, uris, n_uris, FALSE,
		                     &vanished, error);
	}
	g_propagate_error(error, g_steal_pointer(&local_error));
	return FALSE;
}

gboolean
bridge_mpd_replace_playlist(BridgeMpd *mpd, const char *name,
                            const char *const *uris, guint n_uris,
                            GError **error)
{
	gboolean ok;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(name != NULL, FALSE);
	g_return_val_if_fail(n_uris == 0 || uris != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!begin_command(mpd, error))
		return FALSE;
	ok = replace_playlist(mpd, name, uris, n_uris, error);
	end_command(mpd);
	return ok;
}

gboolean
bridge_mpd_delete_playlist(BridgeMpd *mpd, const char *name, GError **error)
{
	g_autofree char *clean_name = NULL;
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(name != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!begin_command(mpd, error))
		return FALSE;
	clean_name = bridge_mpd_clean_text(name);
	if (!mpd_run_rm(mpd->conn, clean_name)) {
		/* MPD's refusals can always be cleared. */
		if (bridge_mpd_is_server_error(mpd->conn,
		                               MPD_SERVER_ERROR_NO_EXIST))
			mpd_connection_clear_error(mpd->conn);
		else
			ok = fail(mpd, error,
			          "cannot delete a stored playlist");
	}
	end_command(mpd);
	return ok;
}

/* The tags of BridgeTags, in its order. */
static const enum mpd_tag_type tag_types[] = {
	MPD_TAG_TITLE, MPD_TAG_ALBUM, MPD_TAG_ARTIST,
	MPD_TAG_DATE,  MPD_TAG_TRACK, MPD_TAG_GENRE,
};

static const char *
tag_value(const BridgeTags *tags, guint i)
{
	const char *values[] = { tags->title, tags->album, tags->artist,
		                 tags->date,  tags->track, tags->genre };

	G_STATIC_ASSERT(G_N_ELEMENTS(values) == G_N_ELEMENTS(tag_types));
	return values[i];
}

/* A tag's value as it is sent: one line, cut; NULL for none. */
static char *
clean_tag(const char *value)
{
	char *clean;

	if (value == NULL || *value == '\0')
		return NULL;
	clean = bridge_mpd_clean_text(value);
	bridge_mpd_cut_quoted(clean, MAX_TAG_BYTES);
	return clean;
}

/*
 * Each tag is cleared first: a value of the stream's own that we have
 * none for would otherwise stay beside ours.
 */
static gboolean
send_tags(struct mpd_connection *conn, unsigned id, const BridgeTags *tags,
          gsize *bytes)
{
	for (guint i = 0; i < G_N_ELEMENTS(tag_types); i++) {
		g_autofree char *clean = clean_tag(tag_value(tags, i));

		if (!mpd_send_clear_tag_id(conn, id, tag_types[i]))
			return FALSE;
		*bytes += sizeof("cleartagid 4294967295 MusicBrainz_ID\n");
		if (clean == NULL)
			continue;
		if (!mpd_send_add_tag_id(conn, id, tag_types[i], clean))
			return FALSE;
		*bytes += sizeof("addtagid 4294967295 MusicBrainz_ID \n") +
		          bridge_mpd_quoted_length(clean);
	}
	return TRUE;
}

static gboolean
tag_song(BridgeMpd *self, unsigned id, const BridgeTags *tags, GError **error)
{
	struct mpd_connection *conn = self->conn;
	gsize bytes = 0;

	if (!mpd_command_list_begin(conn, false) ||
	    !send_tags(conn, id, tags, &bytes) || !mpd_command_list_end(conn) ||
	    !mpd_response_finish(conn))
		return fail_list(self, error, "cannot tag a queued stream");
	return TRUE;
}

guint
bridge_mpd_queue(BridgeMpd *mpd, const char *uri, const BridgeTags *tags,
                 GError **error)
{
	g_autofree char *clean_uri = NULL;
	int id;

	g_return_val_if_fail(mpd != NULL, 0);
	g_return_val_if_fail(uri != NULL, 0);
	g_return_val_if_fail(error == NULL || *error == NULL, 0);

	clean_uri = bridge_mpd_clean_text(uri);
	if (bridge_mpd_quoted_length(clean_uri) + sizeof("addid \n") >
	    MAX_LINE_BYTES) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
		            "cannot queue a stream whose URL is %zu bytes: too "
		            "long for MPD",
		            strlen(clean_uri));
		return 0;
	}
	if (!begin_command(mpd, error))
		return 0;
	id = mpd_run_add_id(mpd->conn, clean_uri);
	if (id < 0) {
		g_autofree char *what =
		        g_strdup_printf("cannot queue %s", clean_uri);

		fail(mpd, error, what);
		id = 0;
	} else if (tags != NULL && !tag_song(mpd, (unsigned)id, tags, error)) {
		/* A song without the tags we meant is worse than none. */
		if (mpd->conn != NULL && !mpd_run_delete_id(mpd->conn, id))
			fail(mpd, NULL, "cannot delete an untagged stream");
		id = 0;
	}
	end_command(mpd);
	return (guint)id;
}

gboolean
bridge_mpd_retag(BridgeMpd *mpd, guint id, const BridgeTags *tags,
                 GError **error)
{
	gboolean ok;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(tags != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!begin_command(mpd, error))
		return FALSE;
	ok = tag_song(mpd, id, tags, error);
	end_command(mpd);
	return ok;
}

gboolean
bridge_mpd_player_status(BridgeMpd *mpd, BridgePlayerStatus *status,
                         GError **error)
{
	const char *what = NULL;
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(status != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	*status =
	        (BridgePlayerStatus){ BRIDGE_PLAYER_STOP, 0, NULL, 0, 0, NULL };
	if (!begin_command(mpd, error))
		return FALSE;
	if (!bridge_mpd_read_player_status(mpd->conn, status, &what))
		ok = fail(mpd, error, what);
	end_command(mpd);
	return ok;
}

void
bridge_player_status_clear(BridgePlayerStatus *status)
{
	g_clear_pointer(&status->uri, g_free);
	g_clear_pointer(&status->error, g_free);
}

gboolean
bridge_mpd_play_id(BridgeMpd *mpd, guint song_id, GError **error)
{
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!begin_command(mpd, error))
		return FALSE;
	if (!mpd_run_play_id(mpd->conn, song_id))
		ok = fail(mpd, error, "cannot play");
	end_command(mpd);
	return ok;
}

gboolean
bridge_mpd_seek(BridgeMpd *mpd, guint song_id, guint seconds, GError **error)
{
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!begin_command(mpd, error))
		return FALSE;
	if (!mpd_run_seek_id(mpd->conn, song_id, seconds))
		ok = fail(mpd, error, "cannot seek");
	end_command(mpd);
	return ok;
}

gboolean
bridge_mpd_seek_ms(BridgeMpd *mpd, guint song_id, gint64 ms, GError **error)
{
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!begin_command(mpd, error))
		return FALSE;
	/* libmpdclient formats the float in the C locale, as MPD reads it. */
	if (!mpd_run_seek_id_float(mpd->conn, song_id,
	                           (float)MAX(ms, 0) / 1000.0f))
		ok = fail(mpd, error, "cannot seek");
	end_command(mpd);
	return ok;
}

gboolean
bridge_mpd_next(BridgeMpd *mpd, GError **error)
{
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!begin_command(mpd, error))
		return FALSE;
	if (!mpd_run_next(mpd->conn))
		ok = fail(mpd, error, "cannot move on to the next song");
	end_command(mpd);
	return ok;
}

gboolean
bridge_mpd_pause(BridgeMpd *mpd, GError **error)
{
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!begin_command(mpd, error))
		return FALSE;
	if (!mpd_run_pause(mpd->conn, true))
		ok = fail(mpd, error, "cannot pause");
	end_command(mpd);
	return ok;
}

/* MPD's status, for the options and mixer fields; NULL on failure. */
static struct mpd_status *
read_status(BridgeMpd *mpd, GError **error)
{
	struct mpd_status *status;

	if (!begin_command(mpd, error))
		return NULL;
	status = mpd_run_status(mpd->conn);
	if (status == NULL)
		fail(mpd, error, "cannot ask for the player's status");
	end_command(mpd);
	return status;
}

gboolean
bridge_mpd_get_single(BridgeMpd *mpd, BridgeSingleMode *mode, GError **error)
{
	struct mpd_status *status;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(mode != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	status = read_status(mpd, error);
	if (status == NULL)
		return FALSE;
	switch (mpd_status_get_single_state(status)) {
	case MPD_SINGLE_ON:
		*mode = BRIDGE_SINGLE_ON;
		break;
	case MPD_SINGLE_ONESHOT:
		*mode = BRIDGE_SINGLE_ONESHOT;
		break;
	default:
		*mode = BRIDGE_SINGLE_OFF;
		break;
	}
	mpd_status_free(status);
	return TRUE;
}

gboolean
bridge_mpd_set_single(BridgeMpd *mpd, BridgeSingleMode mode, GError **error)
{
	enum mpd_single_state state = mode == BRIDGE_SINGLE_ON ? MPD_SINGLE_ON
	                              : mode == BRIDGE_SINGLE_ONESHOT
	                                      ? MPD_SINGLE_ONESHOT
	                                      : MPD_SINGLE_OFF;
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!begin_command(mpd, error))
		return FALSE;
	if (!mpd_run_single_state(mpd->conn, state))
		ok = fail(mpd, error, "cannot set single mode");
	end_command(mpd);
	return ok;
}

gboolean
bridge_mpd_get_volume(BridgeMpd *mpd, int *volume, GError **error)
{
	struct mpd_status *status;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(volume != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	status = read_status(mpd, error);
	if (status == NULL)
		return FALSE;
	*volume = mpd_status_get_volume(status);
	mpd_status_free(status);
	return TRUE;
}

gboolean
bridge_mpd_set_volume(BridgeMpd *mpd, guint volume, GError **error)
{
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(volume <= 100, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!begin_command(mpd, error))
		return FALSE;
	if (!mpd_run_set_volume(mpd->conn, volume))
		ok = fail(mpd, error, "cannot set the volume");
	end_command(mpd);
	return ok;
}

gboolean
bridge_mpd_send_message(BridgeMpd *mpd, const char *channel, const char *text,
                        GError **error)
{
	g_autofree char *clean_channel = NULL;
	g_autofree char *clean = NULL;
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(channel != NULL, FALSE);
	g_return_val_if_fail(text != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!begin_command(mpd, error))
		return FALSE;
	clean_channel = bridge_mpd_clean_text(channel);
	clean = bridge_mpd_clean_text(text);
	/* A long answer is cut: a message is one command line. */
	bridge_mpd_cut_quoted(clean,
	                      MAX_LINE_BYTES -
	                              bridge_mpd_quoted_length(clean_channel) -
	                              sizeof("sendmessage  \n"));
	if (!mpd_run_send_message(mpd->conn, clean_channel, clean)) {
		g_autofree char *what = g_strdup_printf(
		        "cannot send a message to channel %s", clean_channel);

		ok = fail(mpd, error, what);
	}
	end_command(mpd);
	return ok;
}

/* Between the values of one tag, and between tags, in a tags key. */
#define KEY_VALUES '\x1f'
#define KEY_TAGS   '\x1e'

char *
bridge_mpd_tags_key(const BridgeTags *tags)
{
	GString *key = g_string_new(NULL);

	g_return_val_if_fail(tags != NULL, NULL);

	for (guint i = 0; i < G_N_ELEMENTS(tag_types); i++) {
		g_autofree char *clean = clean_tag(tag_value(tags, i));

		if (i > 0)
			g_string_append_c(key, KEY_TAGS);
		if (clean != NULL)
			g_string_append(key, clean);
	}
	return g_string_free(key, FALSE);
}

static char *
song_tags_key(const struct mpd_song *song)
{
	GString *key = g_string_new(NULL);

	for (guint i = 0; i < G_N_ELEMENTS(tag_types); i++) {
		const char *value;

		if (i > 0)
			g_string_append_c(key, KEY_TAGS);
		for (unsigned j = 0;
		     (value = mpd_song_get_tag(song, tag_types[i], j)) != NULL;
		     j++) {
			if (j > 0)
				g_string_append_c(key, KEY_VALUES);
			g_string_append(key, value);
		}
	}
	return g_string_free(key, FALSE);
}

void
bridge_queue_song_free(BridgeQueueSong *song)
{
	if (song == NULL)
		return;
	g_free(song->uri);
	g_free(song->tags_key);
	g_free(song);
}

gboolean
bridge_mpd_queue_changes(BridgeMpd *mpd, guint since, guint *version,
                         GPtrArray **songs, GError **error)
{
	g_autoptr(GPtrArray) changed = g_ptr_array_new_with_free_func(
	        (GDestroyNotify)bridge_queue_song_free);
	struct mpd_status *status;
	struct mpd_song *song;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(version != NULL && songs != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!begin_command(mpd, error))
		return FALSE;
	status = mpd_run_status(mpd->conn);
	if (status == NULL) {
		fail(mpd, error, "cannot ask for the queue's version");
		end_command(mpd);
		return FALSE;
	}
	*version = mpd_status_get_queue_version(status);
	mpd_status_free(status);
	/* MPD counts from 0 again after a restart. */
	if (since > *version)
		since = 0;
	if (since == *version) {
		end_command(mpd);
		*songs = g_steal_pointer(&changed);
		return TRUE;
	}
	if (!mpd_send_queue_changes_meta(mpd->conn, since)) {
		fail(mpd, error, "cannot ask for the queue's changes");
		end_command(mpd);
		return FALSE;
	}
	while ((song = mpd_recv_song(mpd->conn)) != NULL) {
		BridgeQueueSong *entry = g_new0(BridgeQueueSong, 1);

		entry->id = mpd_song_get_id(song);
		entry->pos = mpd_song_get_pos(song);
		entry->uri = g_strdup(mpd_song_get_uri(song));
		entry->tags_key = song_tags_key(song);
		g_ptr_array_add(changed, entry);
		mpd_song_free(song);
	}
	if (mpd_connection_get_error(mpd->conn) != MPD_ERROR_SUCCESS ||
	    !mpd_response_finish(mpd->conn)) {
		fail(mpd, error, "cannot read the queue's changes");
		end_command(mpd);
		return FALSE;
	}
	end_command(mpd);
	*songs = g_steal_pointer(&changed);
	return TRUE;
}

gboolean
bridge_mpd_retag_many(BridgeMpd *mpd, const guint *ids, const BridgeTags *tags,
                      guint n, GError **error)
{
	guint i = 0;
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(n == 0 || (ids != NULL && tags != NULL), FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (n == 0)
		return TRUE;
	if (!begin_command(mpd, error))
		return FALSE;
	while (ok && i < n) {
		gsize bytes = 0;

		ok = mpd_command_list_begin(mpd->conn, false);
		for (; ok && i < n && bytes < MAX_LIST_BYTES; i++)
			ok = send_tags(mpd->conn, ids[i], &tags[i], &bytes);
		ok = ok && mpd_command_list_end(mpd->conn) &&
		     mpd_response_finish(mpd->conn);
		if (!ok)
			fail_list(mpd, error, "cannot tag queued streams");
	}
	end_command(mpd);
	return ok;
}

guint
bridge_mpd_replace_song(BridgeMpd *mpd, guint id, guint pos, const char *uri,
                        const BridgeTags *tags, GError **error)
{
	g_autofree char *clean_uri = NULL;
	int added;

	g_return_val_if_fail(mpd != NULL, 0);
	g_return_val_if_fail(uri != NULL, 0);
	g_return_val_if_fail(error == NULL || *error == NULL, 0);

	clean_uri = bridge_mpd_clean_text(uri);
	if (!begin_command(mpd, error))
		return 0;
	added = mpd_run_add_id_to(mpd->conn, clean_uri, pos);
	if (added < 0) {
		g_autofree char *what =
		        g_strdup_printf("cannot queue %s", clean_uri);

		fail(mpd, error, what);
		end_command(mpd);
		return 0;
	}
	if (tags != NULL && !tag_song(mpd, (unsigned)added, tags, error)) {
		if (mpd->conn != NULL && !mpd_run_delete_id(mpd->conn, added))
			fail(mpd, NULL, "cannot delete an untagged stream");
		end_command(mpd);
		return 0;
	}
	/* Gone meanwhile (a client's edit): the new one stays. */
	if (!mpd_run_delete_id(mpd->conn, id)) {
		if (bridge_mpd_is_server_error(mpd->conn,
		                               MPD_SERVER_ERROR_NO_EXIST))
			mpd_connection_clear_error(mpd->conn);
		else
			fail(mpd, NULL, "cannot take a song out of the queue");
	}
	end_command(mpd);
	return (guint)added;
}

gboolean
bridge_mpd_update(BridgeMpd *mpd, const char *path, GError **error)
{
	g_autofree char *clean_path = NULL;
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(path != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	clean_path = bridge_mpd_clean_text(path);
	if (!begin_command(mpd, error))
		return FALSE;
	if (mpd_run_update(mpd->conn, clean_path) == 0) {
		g_autofree char *what = g_strdup_printf(
		        "cannot have MPD read %s into its database",
		        clean_path);

		ok = fail(mpd, error, what);
	}
	end_command(mpd);
	return ok;
}

gboolean
bridge_mpd_list_songs(BridgeMpd *mpd, const char *path, GHashTable **songs,
                      GError **error)
{
	g_autoptr(GHashTable) found =
	        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autofree char *clean_path = NULL;
	struct mpd_entity *entity;
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(path != NULL && songs != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	clean_path = bridge_mpd_clean_text(path);
	if (!begin_command(mpd, error))
		return FALSE;
	if (!mpd_send_list_all(mpd->conn, clean_path)) {
		fail(mpd, error, "cannot list MPD's database");
		end_command(mpd);
		return FALSE;
	}
	while ((entity = mpd_recv_entity(mpd->conn)) != NULL) {
		if (mpd_entity_get_type(entity) == MPD_ENTITY_TYPE_SONG)
			g_hash_table_add(found,
			                 g_strdup(mpd_song_get_uri(
			                         mpd_entity_get_song(entity))));
		mpd_entity_free(entity);
	}
	if (mpd_connection_get_error(mpd->conn) != MPD_ERROR_SUCCESS ||
	    !mpd_response_finish(mpd->conn)) {
		/* No such folder yet: nothing of ours is in the database. */
		if (bridge_mpd_is_server_error(mpd->conn,
		                               MPD_SERVER_ERROR_NO_EXIST)) {
			mpd_connection_clear_error(mpd->conn);
			g_hash_table_remove_all(found);
		} else {
			ok = fail(mpd, error, "cannot list MPD's database");
		}
	}
	end_command(mpd);
	if (ok)
		*songs = g_steal_pointer(&found);
	return ok;
}

gboolean
bridge_mpd_load_playlist(BridgeMpd *mpd, const char *name, GError **error)
{
	g_autofree char *clean_name = NULL;
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(name != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!begin_command(mpd, error))
		return FALSE;
	clean_name = bridge_mpd_clean_text(name);
	if (!mpd_run_load(mpd->conn, clean_name))
		ok = fail(mpd, error, "cannot load a stored playlist");
	end_command(mpd);
	return ok;
}

gboolean
bridge_mpd_playlist_length(BridgeMpd *mpd, const char *name, guint *length,
                           GError **error)
{
	g_autofree char *clean_name = NULL;
	struct mpd_pair *pair;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(name != NULL && length != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	*length = 0;
	if (!begin_command(mpd, error))
		return FALSE;
	clean_name = bridge_mpd_clean_text(name);
	if (!mpd_send_list_playlist(mpd->conn, clean_name)) {
		fail(mpd, error, "cannot list a stored playlist");
		end_command(mpd);
		return FALSE;
	}
	while ((pair = mpd_recv_pair_named(mpd->conn, "file")) != NULL) {
		(*length)++;
		mpd_return_pair(mpd->conn, pair);
	}
	if (mpd_connection_get_error(mpd->conn) != MPD_ERROR_SUCCESS ||
	    !mpd_response_finish(mpd->conn)) {
		fail(mpd, error, "cannot list a stored playlist");
		end_command(mpd);
		return FALSE;
	}
	end_command(mpd);
	return TRUE;
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

char *
bridge_mpd_config_value(BridgeMpd *mpd, const char *name)
{
	struct mpd_pair *pair;
	char *value = NULL;

	g_return_val_if_fail(mpd != NULL, NULL);
	g_return_val_if_fail(name != NULL, NULL);

	if (!begin_command(mpd, NULL))
		return NULL;
	if (!mpd_send_command(mpd->conn, "config", NULL)) {
		fail(mpd, NULL, "cannot ask for MPD's configuration");
		end_command(mpd);
		return NULL;
	}
	while ((pair = mpd_recv_pair(mpd->conn)) != NULL) {
		if (value == NULL && strcmp(pair->name, name) == 0)
			value = g_strdup(pair->value);
		mpd_return_pair(mpd->conn, pair);
	}
	/* Refused to a client on TCP: the answer is "not known". */
	if (mpd_connection_get_error(mpd->conn) != MPD_ERROR_SUCCESS ||
	    !mpd_response_finish(mpd->conn)) {
		fail(mpd, NULL, "cannot ask for MPD's configuration");
		g_clear_pointer(&value, g_free);
	}
	end_command(mpd);
	return value;
}
