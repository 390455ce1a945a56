/*
 * Channel messages: those MPD holds for our channel, read when it says
 * there are some, and those we send to a client's channel. Apart from
 * the connection (mpd.c), which reads them only when delivering events.
 */
#include "mpd/mpd-private.h"

/* Texts for our channel, or NULL when the connection was lost. */
GPtrArray *
bridge_mpd_read_messages(BridgeMpd *self)
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
	bridge_mpd_fail(self, &error, "cannot read messages");
	if (self->conn == NULL)
		return NULL;
	g_message("%s", error->message);
	return g_steal_pointer(&texts);
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

	if (!bridge_mpd_begin_command(mpd, error))
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

		ok = bridge_mpd_fail(mpd, error, what);
	}
	bridge_mpd_end_command(mpd);
	return ok;
}
