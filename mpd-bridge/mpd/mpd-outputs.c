/*
 * Requests about MPD's audio outputs: which there are, and turning one
 * on or off. Apart from the connection (mpd.c), whose states they leave
 * alone.
 */
#include "mpd/mpd-private.h"

void
bridge_mpd_output_free(BridgeMpdOutput *output)
{
	if (output == NULL)
		return;
	g_free(output->name);
	g_free(output->plugin);
	g_free(output);
}

GPtrArray *
bridge_mpd_outputs(BridgeMpd *mpd, GError **error)
{
	g_autoptr(GPtrArray) outputs = NULL;
	struct mpd_output *output;
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	if (!bridge_mpd_begin_command(mpd, error))
		return NULL;
	outputs = g_ptr_array_new_with_free_func(
	        (GDestroyNotify)bridge_mpd_output_free);
	if (!mpd_send_outputs(mpd->conn))
		ok = FALSE;
	while (ok && (output = mpd_recv_output(mpd->conn)) != NULL) {
		BridgeMpdOutput *item = g_new0(BridgeMpdOutput, 1);

		item->id = mpd_output_get_id(output);
		item->name = g_strdup(mpd_output_get_name(output));
		item->plugin = g_strdup(mpd_output_get_plugin(output));
		item->enabled = mpd_output_get_enabled(output);
		g_ptr_array_add(outputs, item);
		mpd_output_free(output);
	}
	if (!ok || mpd_connection_get_error(mpd->conn) != MPD_ERROR_SUCCESS ||
	    !mpd_response_finish(mpd->conn))
		ok = bridge_mpd_fail(mpd, error, "cannot list MPD's outputs");
	bridge_mpd_end_command(mpd);
	return ok ? g_steal_pointer(&outputs) : NULL;
}

gboolean
bridge_mpd_enable_output(BridgeMpd *mpd, guint id, GError **error)
{
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	if (!mpd_run_enable_output(mpd->conn, id))
		ok = bridge_mpd_fail(mpd, error, "cannot enable an output");
	bridge_mpd_end_command(mpd);
	return ok;
}

gboolean
bridge_mpd_disable_output(BridgeMpd *mpd, guint id, GError **error)
{
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	if (!mpd_run_disable_output(mpd->conn, id))
		ok = bridge_mpd_fail(mpd, error, "cannot disable an output");
	bridge_mpd_end_command(mpd);
	return ok;
}
