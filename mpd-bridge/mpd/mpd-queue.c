/*
 * Requests about MPD's queue: streams added with our tags, tagged anew or
 * swapped in place, and the queue's changes read back with a key of
 * their tags to tell ours. Apart from the connection (mpd.c), whose
 * states they leave alone.
 */
#include "mpd/mpd-private.h"

#include <gio/gio.h>
#include <string.h>

/* A tag value is cut shorter than a whole line (MAX_LINE_BYTES). */
#define MAX_TAG_BYTES 1024

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
		return bridge_mpd_fail_list(self, error,
		                            "cannot tag a queued stream");
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
	if (!bridge_mpd_begin_command(mpd, error))
		return 0;
	id = mpd_run_add_id(mpd->conn, clean_uri);
	if (id < 0) {
		g_autofree char *what =
		        g_strdup_printf("cannot queue %s", clean_uri);

		bridge_mpd_fail(mpd, error, what);
		id = 0;
	} else if (tags != NULL && !tag_song(mpd, (unsigned)id, tags, error)) {
		/* A song without the tags we meant is worse than none. */
		if (mpd->conn != NULL && !mpd_run_delete_id(mpd->conn, id))
			bridge_mpd_fail(mpd, NULL,
			                "cannot delete an untagged stream");
		id = 0;
	}
	bridge_mpd_end_command(mpd);
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

	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	ok = tag_song(mpd, id, tags, error);
	bridge_mpd_end_command(mpd);
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

	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	status = mpd_run_status(mpd->conn);
	if (status == NULL) {
		bridge_mpd_fail(mpd, error,
		                "cannot ask for the queue's version");
		bridge_mpd_end_command(mpd);
		return FALSE;
	}
	*version = mpd_status_get_queue_version(status);
	mpd_status_free(status);
	/* MPD counts from 0 again after a restart. */
	if (since > *version)
		since = 0;
	if (since == *version) {
		bridge_mpd_end_command(mpd);
		*songs = g_steal_pointer(&changed);
		return TRUE;
	}
	if (!mpd_send_queue_changes_meta(mpd->conn, since)) {
		bridge_mpd_fail(mpd, error,
		                "cannot ask for the queue's changes");
		bridge_mpd_end_command(mpd);
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
		bridge_mpd_fail(mpd, error, "cannot read the queue's changes");
		bridge_mpd_end_command(mpd);
		return FALSE;
	}
	bridge_mpd_end_command(mpd);
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
	if (!bridge_mpd_begin_command(mpd, error))
		return FALSE;
	while (ok && i < n) {
		gsize bytes = 0;

		ok = mpd_command_list_begin(mpd->conn, false);
		for (; ok && i < n && bytes < MAX_LIST_BYTES; i++)
			ok = send_tags(mpd->conn, ids[i], &tags[i], &bytes);
		ok = ok && mpd_command_list_end(mpd->conn) &&
		     mpd_response_finish(mpd->conn);
		if (!ok)
			bridge_mpd_fail_list(mpd, error,
			                     "cannot tag queued streams");
	}
	bridge_mpd_end_command(mpd);
	return ok;
}

static void
drop(BridgeMpd *mpd, int id, const char *what);

/*
 * The steps a swap of songs shares, inside one command: @uri added at
 * @pos, tagged with @tags when not NULL; its id, or -1 with @error set
 * (and nothing left of it in the queue).
 */
static int
add_tagged(BridgeMpd *mpd, const char *uri, guint pos, const BridgeTags *tags,
           GError **error)
{
	g_autofree char *clean_uri = bridge_mpd_clean_text(uri);
	int added = mpd_run_add_id_to(mpd->conn, clean_uri, pos);

	if (added < 0) {
		g_autofree char *what =
		        g_strdup_printf("cannot queue %s", clean_uri);

		bridge_mpd_fail(mpd, error, what);
		return -1;
	}
	if (tags != NULL && !tag_song(mpd, (unsigned)added, tags, error)) {
		drop(mpd, added, "cannot delete an untagged stream");
		return -1;
	}
	return added;
}

/* Deletes song @id, added a moment ago, after a failure. */
static void
drop(BridgeMpd *mpd, int id, const char *what)
{
	if (mpd->conn != NULL && !mpd_run_delete_id(mpd->conn, id))
		bridge_mpd_fail(mpd, NULL, what);
}

/* Deletes song @id, which another took the place of: gone meanwhile (a
 * client's edit) is no failure. */
static void
delete_replaced(BridgeMpd *mpd, guint id)
{
	if (mpd_run_delete_id(mpd->conn, id))
		return;
	if (bridge_mpd_is_server_error(mpd->conn, MPD_SERVER_ERROR_NO_EXIST))
		mpd_connection_clear_error(mpd->conn);
	else
		bridge_mpd_fail(mpd, NULL,
		                "cannot take a song out of the queue");
}

guint
bridge_mpd_replace_song(BridgeMpd *mpd, guint id, guint pos, const char *uri,
                        const BridgeTags *tags, GError **error)
{
	int added;

	g_return_val_if_fail(mpd != NULL, 0);
	g_return_val_if_fail(uri != NULL, 0);
	g_return_val_if_fail(error == NULL || *error == NULL, 0);

	if (!bridge_mpd_begin_command(mpd, error))
		return 0;
	added = add_tagged(mpd, uri, pos, tags, error);
	if (added >= 0)
		delete_replaced(mpd, id);
	bridge_mpd_end_command(mpd);
	return added >= 0 ? (guint)added : 0;
}

guint
bridge_mpd_swap_current(BridgeMpd *mpd, guint id, guint pos, const char *uri,
                        const BridgeTags *tags, gint64 ms, gboolean paused,
                        GError **error)
{
	int added;

	g_return_val_if_fail(mpd != NULL, 0);
	g_return_val_if_fail(uri != NULL, 0);
	g_return_val_if_fail(error == NULL || *error == NULL, 0);

	if (!bridge_mpd_begin_command(mpd, error))
		return 0;
	added = add_tagged(mpd, uri, pos + 1, tags, error);
	if (added < 0) {
		bridge_mpd_end_command(mpd);
		return 0;
	}
	if (!mpd_run_seek_id_float(mpd->conn, (unsigned)added,
	                           (float)MAX(ms, 0) / 1000.0f) ||
	    (paused && !mpd_run_pause(mpd->conn, true))) {
		bridge_mpd_fail(mpd, error, "cannot play it there");
		drop(mpd, added, "cannot delete a stream");
		bridge_mpd_end_command(mpd);
		return 0;
	}
	delete_replaced(mpd, id);
	bridge_mpd_end_command(mpd);
	return (guint)added;
}
