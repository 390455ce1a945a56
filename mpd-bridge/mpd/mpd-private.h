/*
 * What the files of the MPD connection share: the daemon's connection
 * (mpd.c) with the requests to each of MPD's subsystems (mpd-queue.c,
 * mpd-player.c, mpd-outputs.c, mpd-playlists.c, mpd-database.c,
 * mpd-messages.c), and all of them with the command line's round trip
 * (mpd-request.c): text made fit for a protocol line, how a connection
 * is named in messages, and libmpdclient's errors as GIO's.
 */
#ifndef BRIDGE_MPD_PRIVATE_H
#define BRIDGE_MPD_PRIVATE_H

#include "mpd/mpd.h"

#include <mpd/client.h>

/*
 * As libmpdclient's own default. MPD's main thread can stop answering for
 * several seconds while its player waits on a slow stream (a seek into an
 * episode that is still loading took 11-16 s in tests/soak); a shorter
 * wait drops the connection, and with it the channel messages MPD holds
 * for the daemon.
 */
#define DEFAULT_TIMEOUT_MS 30000

/*
 * libmpdclient 2.20 builds each command line in a 4 KiB buffer and fails
 * a longer one before sending anything; MPD's own limit is higher. Lines
 * are kept under this, quoting included.
 */
#define MAX_LINE_BYTES 4000

/*
 * MPD refuses a command list larger than max_command_list_size (2 MiB by
 * default); stay well below it.
 */
#define MAX_LIST_BYTES (512 * 1024)

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

/*
 * Every command starts here: connected, and out of idle. FALSE with
 * @error set when MPD is away or idle could not be left.
 */
gboolean
bridge_mpd_begin_command(BridgeMpd *self, GError **error);

/*
 * Every command that began ends here, failed or not: back to idle, or the
 * events that came meanwhile to the main loop first.
 */
void
bridge_mpd_end_command(BridgeMpd *self);

/*
 * After a failed libmpdclient call: MPD's refusal becomes @error and the
 * connection stays; anything else also drops the connection. Returns
 * FALSE, for the caller to return. @what says what failed.
 */
gboolean
bridge_mpd_fail(BridgeMpd *self, GError **error, const char *what);

/*
 * After a failure inside a command list, which libmpdclient cannot
 * abandon: unless MPD refused the list, the connection is dropped and
 * made anew. Returns FALSE.
 */
gboolean
bridge_mpd_fail_list(BridgeMpd *self, GError **error, const char *what);

/*
 * Texts for our channel (mpd-messages.c), or NULL when the connection was
 * lost; a refusal is logged and what was read is returned.
 */
GPtrArray *
bridge_mpd_read_messages(BridgeMpd *self);

/* The bytes @text takes in a command line, in quotes, escapes and all. */
gsize
bridge_mpd_quoted_length(const char *text);

/* Cuts @text at a character boundary to take at most @max bytes quoted. */
void
bridge_mpd_cut_quoted(char *text, gsize max);

/*
 * A copy of @text, made valid UTF-8, with control characters (and U+2028,
 * U+2029) as spaces: text from a feed must not end a protocol line.
 */
char *
bridge_mpd_clean_text(const char *text);

/* Ignores SIGPIPE if it still has its default action (see mpd.h). */
void
bridge_mpd_ignore_sigpipe(void);

/*
 * "MPD at HOST[:PORT]" for messages; with @conn, the default that
 * libmpdclient tried when @address names no host.
 */
char *
bridge_mpd_describe_connection(const BridgeMpdAddress *address,
                               const struct mpd_connection *conn);

/* The G_IO_ERROR code for the error @conn is in. */
int
bridge_mpd_error_code(const struct mpd_connection *conn);

/* Whether MPD refused the last command with @code. */
gboolean
bridge_mpd_is_server_error(const struct mpd_connection *conn,
                           enum mpd_server_error code);

/*
 * Asks MPD on @conn what it plays (status, then currentsong) into
 * @status, which it clears first. FALSE when a command failed: *@what
 * then says which, and @conn holds the error.
 */
gboolean
bridge_mpd_read_player_status(struct mpd_connection *conn,
                              BridgePlayerStatus *status, const char **what);

#endif
