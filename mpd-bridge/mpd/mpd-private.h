/*
 * What the daemon's connection (mpd.c) and the command line's round trip
 * (mpd-request.c) share: text made fit for a protocol line, how a
 * connection is named in messages, and libmpdclient's errors as GIO's.
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
