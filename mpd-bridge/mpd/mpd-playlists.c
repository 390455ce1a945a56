/*
 * Requests about MPD's stored playlists: each replaced whole in command
 * lists, deleted, loaded into the queue or counted. Apart from the
 * connection (mpd.c), whose states they leave alone.
 */
#include "mpd/mpd-private.h"

#include <string.h>

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
			return bridge_mpd_fail_list(self, error, what);
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

	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	ok = replace_playlist(mpd, name, uris, n_uris, error);
	bridge_mpd_end_command(mpd);
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

	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	clean_name = bridge_mpd_clean_text(name);
	if (!mpd_run_rm(mpd->conn, clean_name)) {
		/* MPD's refusals can always be cleared. */
		if (bridge_mpd_is_server_error(mpd->conn,
		                               MPD_SERVER_ERROR_NO_EXIST))
			mpd_connection_clear_error(mpd->conn);
		else
			ok = bridge_mpd_fail(mpd, error,
			                     "cannot delete a stored playlist");
	}
	bridge_mpd_end_command(mpd);
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

	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	clean_name = bridge_mpd_clean_text(name);
	if (!mpd_run_load(mpd->conn, clean_name))
		ok = bridge_mpd_fail(mpd, error,
		                     "cannot load a stored playlist");
	bridge_mpd_end_command(mpd);
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
	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	clean_name = bridge_mpd_clean_text(name);
	if (!mpd_send_list_playlist(mpd->conn, clean_name)) {
		bridge_mpd_fail(mpd, error, "cannot list a stored playlist");
		bridge_mpd_end_command(mpd);
		return FALSE;
	}
	while ((pair = mpd_recv_pair_named(mpd->conn, "file")) != NULL) {
		(*length)++;
		mpd_return_pair(mpd->conn, pair);
	}
	if (mpd_connection_get_error(mpd->conn) != MPD_ERROR_SUCCESS ||
	    !mpd_response_finish(mpd->conn)) {
		bridge_mpd_fail(mpd, error, "cannot list a stored playlist");
		bridge_mpd_end_command(mpd);
		return FALSE;
	}
	bridge_mpd_end_command(mpd);
	return TRUE;
}
