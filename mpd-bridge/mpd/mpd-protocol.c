/*
 * Text for MPD's protocol and names for its connections, shared by the
 * daemon's connection and the command line's round trip.
 */
#include "mpd/mpd-private.h"

#include <gio/gio.h>
#include <signal.h>
#include <string.h>

/* The longest playlist name made, in bytes. */
#define MAX_NAME_BYTES 200

/* Text from a feed must not end a protocol line or confuse a terminal. */
static gboolean
is_control(gunichar c)
{
	return c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x2028 ||
	       c == 0x2029;
}

gsize
bridge_mpd_quoted_length(const char *text)
{
	gsize n = 2;

	for (const char *p = text; *p != '\0'; p++)
		n += *p == '"' || *p == '\\' ? 2 : 1;
	return n;
}

void
bridge_mpd_cut_quoted(char *text, gsize max)
{
	gsize n = 2;

	for (char *p = text; *p != '\0'; p = g_utf8_next_char(p)) {
		gsize width = (gsize)(g_utf8_next_char(p) - p);

		n += *p == '"' || *p == '\\' ? 2 : width;
		if (n > max) {
			*p = '\0';
			return;
		}
	}
}

char *
bridge_mpd_clean_text(const char *text)
{
	g_autofree char *valid = g_utf8_make_valid(text, -1);
	GString *out = g_string_sized_new(strlen(valid));

	for (const char *p = valid; *p != '\0'; p = g_utf8_next_char(p)) {
		if (is_control(g_utf8_get_char(p)))
			g_string_append_c(out, ' ');
		else
			g_string_append_len(out, p, g_utf8_next_char(p) - p);
	}
	return g_string_free(out, FALSE);
}

/*
 * libmpdclient 2.20 writes with send() but without MSG_NOSIGNAL: a command
 * to an MPD that has just gone away would kill the daemon with SIGPIPE
 * instead of failing with EPIPE. A program that chose its own handling
 * keeps it.
 */
void
bridge_mpd_ignore_sigpipe(void)
{
	struct sigaction old;

	if (sigaction(SIGPIPE, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
		signal(SIGPIPE, SIG_IGN);
}

static char *
describe(const char *host, guint port)
{
	if (host == NULL || *host == '\0')
		return g_strdup("MPD at its default address");
	if (port != 0 && host[0] != '/' && host[0] != '@')
		return g_strdup_printf("MPD at %s:%u", host, port);
	return g_strdup_printf("MPD at %s", host);
}

/* libmpdclient knows which default it tried when we gave no host. */
char *
bridge_mpd_describe_connection(const BridgeMpdAddress *address,
                               const struct mpd_connection *conn)
{
	const struct mpd_settings *settings;

	if (address->host != NULL || conn == NULL)
		return describe(address->host, address->port);
	settings = mpd_connection_get_settings(conn);
	if (settings == NULL)
		return describe(NULL, 0);
	return describe(mpd_settings_get_host(settings),
	                mpd_settings_get_port(settings));
}

int
bridge_mpd_error_code(const struct mpd_connection *conn)
{
	switch (mpd_connection_get_error(conn)) {
	case MPD_ERROR_SERVER:
		switch (mpd_connection_get_server_error(conn)) {
		case MPD_SERVER_ERROR_NO_EXIST:
			return G_IO_ERROR_NOT_FOUND;
		case MPD_SERVER_ERROR_EXIST:
			return G_IO_ERROR_EXISTS;
		case MPD_SERVER_ERROR_ARG:
			return G_IO_ERROR_INVALID_ARGUMENT;
		case MPD_SERVER_ERROR_PASSWORD:
		case MPD_SERVER_ERROR_PERMISSION:
			return G_IO_ERROR_PERMISSION_DENIED;
		default:
			return G_IO_ERROR_FAILED;
		}
	case MPD_ERROR_TIMEOUT:
		return G_IO_ERROR_TIMED_OUT;
	case MPD_ERROR_CLOSED:
	case MPD_ERROR_SYSTEM:
	case MPD_ERROR_MALFORMED:
		return G_IO_ERROR_CONNECTION_CLOSED;
	default:
		return G_IO_ERROR_FAILED;
	}
}

gboolean
bridge_mpd_is_server_error(const struct mpd_connection *conn,
                           enum mpd_server_error code)
{
	return mpd_connection_get_error(conn) == MPD_ERROR_SERVER &&
	       mpd_connection_get_server_error(conn) == code;
}

char *
bridge_mpd_safe_playlist_name(const char *name)
{
	g_autofree char *valid = NULL;
	GString *out;

	g_return_val_if_fail(name != NULL, NULL);

	valid = g_utf8_make_valid(name, -1);
	out = g_string_sized_new(strlen(valid));
	for (const char *p = valid; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (c == '/')
			g_string_append_c(out, '_');
		else if (is_control(c))
			g_string_append_c(out, ' ');
		else
			g_string_append_len(out, p, g_utf8_next_char(p) - p);
	}
	g_strstrip(out->str);
	g_string_set_size(out, strlen(out->str));
	if (out->len > MAX_NAME_BYTES) {
		const char *end = out->str + MAX_NAME_BYTES;

		/* Cut before the character that crosses the limit. */
		if ((*end & 0xc0) == 0x80)
			end = g_utf8_find_prev_char(out->str, end);
		g_string_truncate(out, end - out->str);
		g_strchomp(out->str);
		g_string_set_size(out, strlen(out->str));
	}
	if (out->len == 0)
		g_string_assign(out, "unnamed");
	/* MPD hides names that start with a dot, as ls does. */
	if (out->str[0] == '.')
		out->str[0] = '_';
	return g_string_free(out, FALSE);
}

gboolean
bridge_mpd_read_player_status(struct mpd_connection *conn,
                              BridgePlayerStatus *status, const char **what)
{
	struct mpd_status *st;
	struct mpd_song *song;

	*status = (BridgePlayerStatus){ .state = BRIDGE_PLAYER_STOP };
	st = mpd_run_status(conn);
	if (st == NULL) {
		*what = "cannot ask for the player's status";
		return FALSE;
	}
	switch (mpd_status_get_state(st)) {
	case MPD_STATE_PLAY:
		status->state = BRIDGE_PLAYER_PLAY;
		break;
	case MPD_STATE_PAUSE:
		status->state = BRIDGE_PLAYER_PAUSE;
		break;
	default:
		status->state = BRIDGE_PLAYER_STOP;
		break;
	}
	status->elapsed_ms = mpd_status_get_elapsed_ms(st);
	status->pos = (guint)MAX(mpd_status_get_song_pos(st), 0);
	status->duration_ms = mpd_status_get_total_time(st) * 1000;
	status->error = g_strdup(mpd_status_get_error(st));
	mpd_status_free(st);
	song = mpd_run_current_song(conn);
	if (song != NULL) {
		status->song_id = mpd_song_get_id(song);
		status->uri = g_strdup(mpd_song_get_uri(song));
		if (mpd_song_get_duration_ms(song) > 0)
			status->duration_ms = mpd_song_get_duration_ms(song);
		mpd_song_free(song);
	} else if (mpd_connection_get_error(conn) != MPD_ERROR_SUCCESS) {
		*what = "cannot ask for the current song";
		return FALSE;
	}
	return TRUE;
}
