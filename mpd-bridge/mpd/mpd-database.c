/*
 * Requests about what MPD has on disk: its database, read anew or listed
 * below a folder, and values of its configuration (where its music and
 * its playlists are). Apart from the connection (mpd.c), whose states
 * they leave alone.
 */
#include "mpd/mpd-private.h"

#include <string.h>

gboolean
bridge_mpd_update(BridgeMpd *mpd, const char *path, GError **error)
{
	g_autofree char *clean_path = NULL;
	gboolean ok = TRUE;

	g_return_val_if_fail(mpd != NULL, FALSE);
	g_return_val_if_fail(path != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	clean_path = bridge_mpd_clean_text(path);
	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	if (mpd_run_update(mpd->conn, clean_path) == 0) {
		g_autofree char *what = g_strdup_printf(
		        "cannot have MPD read %s into its database",
		        clean_path);

		ok = bridge_mpd_fail(mpd, error, what);
	}
	bridge_mpd_end_command(mpd);
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
	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	if (!mpd_send_list_all(mpd->conn, clean_path)) {
		bridge_mpd_fail(mpd, error, "cannot list MPD's database");
		bridge_mpd_end_command(mpd);
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
			ok = bridge_mpd_fail(mpd, error,
			                     "cannot list MPD's database");
		}
	}
	bridge_mpd_end_command(mpd);
	if (ok)
		*songs = g_steal_pointer(&found);
	return ok;
}

char *
bridge_mpd_config_value(BridgeMpd *mpd, const char *name)
{
	struct mpd_pair *pair;
	char *value = NULL;

	g_return_val_if_fail(mpd != NULL, NULL);
	g_return_val_if_fail(name != NULL, NULL);

	if (!bridge_mpd_begin_command(mpd, NULL))
		return NULL;
	if (!mpd_send_command(mpd->conn, "config", NULL)) {
		bridge_mpd_fail(mpd, NULL,
		                "cannot ask for MPD's configuration");
		bridge_mpd_end_command(mpd);
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
		bridge_mpd_fail(mpd, NULL,
		                "cannot ask for MPD's configuration");
		g_clear_pointer(&value, g_free);
	}
	bridge_mpd_end_command(mpd);
	return value;
}
