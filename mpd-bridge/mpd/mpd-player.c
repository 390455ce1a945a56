/*
 * Requests about MPD's player and its options: what it plays, play, seek,
 * next and pause, single mode and the volume. Apart from the connection
 * (mpd.c), whose states they leave alone.
 */
#include "mpd/mpd-private.h"

gboolean
bridge_mpd_player_status(BridgeMpd *mpd, BridgePlayerStatus *status,
                         GError **error)
{
	const char *what = NULL;
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(status != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	*status = (BridgePlayerStatus){ .state = BRIDGE_PLAYER_STOP };
	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	if (!bridge_mpd_read_player_status(mpd->conn, status, &what))
		ok = bridge_mpd_fail(mpd, error, what);
	bridge_mpd_end_command(mpd);
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

	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	if (!mpd_run_play_id(mpd->conn, song_id))
		ok = bridge_mpd_fail(mpd, error, "cannot play");
	bridge_mpd_end_command(mpd);
	return ok;
}

gboolean
bridge_mpd_seek(BridgeMpd *mpd, guint song_id, guint seconds, GError **error)
{
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	if (!mpd_run_seek_id(mpd->conn, song_id, seconds))
		ok = bridge_mpd_fail(mpd, error, "cannot seek");
	bridge_mpd_end_command(mpd);
	return ok;
}

gboolean
bridge_mpd_seek_ms(BridgeMpd *mpd, guint song_id, gint64 ms, GError **error)
{
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	/* libmpdclient formats the float in the C locale, as MPD reads it. */
	if (!mpd_run_seek_id_float(mpd->conn, song_id,
	                           (float)MAX(ms, 0) / 1000.0f))
		ok = bridge_mpd_fail(mpd, error, "cannot seek");
	bridge_mpd_end_command(mpd);
	return ok;
}

gboolean
bridge_mpd_next(BridgeMpd *mpd, GError **error)
{
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	if (!mpd_run_next(mpd->conn))
		ok = bridge_mpd_fail(mpd, error,
		                     "cannot move on to the next song");
	bridge_mpd_end_command(mpd);
	return ok;
}

gboolean
bridge_mpd_pause(BridgeMpd *mpd, GError **error)
{
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	if (!mpd_run_pause(mpd->conn, true))
		ok = bridge_mpd_fail(mpd, error, "cannot pause");
	bridge_mpd_end_command(mpd);
	return ok;
}

/* MPD's status, for the options and mixer fields; NULL on failure. */
static struct mpd_status *
read_status(BridgeMpd *mpd, GError **error)
{
	struct mpd_status *status;

	if (!bridge_mpd_begin_command(mpd, error))
		return NULL;
	status = mpd_run_status(mpd->conn);
	if (status == NULL)
		bridge_mpd_fail(mpd, error,
		                "cannot ask for the player's status");
	bridge_mpd_end_command(mpd);
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

	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	if (!mpd_run_single_state(mpd->conn, state))
		ok = bridge_mpd_fail(mpd, error, "cannot set single mode");
	bridge_mpd_end_command(mpd);
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

	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	if (!mpd_run_set_volume(mpd->conn, volume))
		ok = bridge_mpd_fail(mpd, error, "cannot set the volume");
	bridge_mpd_end_command(mpd);
	return ok;
}
