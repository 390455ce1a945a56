/*
 * Episodes listened and nothing more, most of a long listener's: their
 * feed's group in the key file holds them as a list,
 *
 *     heard=ID:LISTENED_AT:LAST_PLAYED;ID:LISTENED_AT:LAST_PLAYED;…
 *
 * some 40 bytes each, where a group of its own took 400; the feed's
 * episode cache says what they are. Read after the caches, so a record
 * finds its episode; one whose episode is not known yet (its cache lost)
 * waits in the feed until a refresh brings the episode, and is written
 * back meanwhile.
 */
#include "state/store-private.h"

#include <string.h>

static gboolean
parse_time(const char *text, gint64 *out)
{
	return g_ascii_string_to_signed(text, 10, G_MININT64, G_MAXINT64, out,
	                                NULL);
}

gboolean
bridge_store_heard_parse(BridgeStore *store, Feed *feed, const char *value,
                         guint line, GError **error)
{
	g_auto(GStrv) records = g_strsplit(value, ";", -1);

	for (gsize i = 0; records[i] != NULL; i++) {
		g_auto(GStrv) parts = NULL;
		Heard heard = { 0 };

		g_strstrip(records[i]);
		if (records[i][0] == '\0')
			continue;
		parts = g_strsplit(records[i], ":", -1);
		if (g_strv_length(parts) != 3 || parts[0][0] == '\0' ||
		    !parse_time(parts[1], &heard.listened_at) ||
		    !parse_time(parts[2], &heard.last_played)) {
			bridge_store_refuse(
			        error, G_KEY_FILE_ERROR,
			        G_KEY_FILE_ERROR_INVALID_VALUE, store->path,
			        "line %u: [feed %s] heard has “%s”, "
			        "not ID:LISTENED_AT:LAST_PLAYED",
			        line, feed->pub.id, records[i]);
			return FALSE;
		}
		g_hash_table_replace(feed->heard, g_strdup(parts[0]),
		                     g_memdup2(&heard, sizeof(heard)));
	}
	return TRUE;
}

static void
mark(Episode *episode, const Heard *heard)
{
	episode->pub.listened = TRUE;
	episode->pub.listened_at = heard->listened_at;
	episode->pub.last_played = heard->last_played;
}

void
bridge_store_heard_apply(BridgeStore *store, Feed *feed)
{
	GHashTableIter iter;
	gpointer id, heard;

	g_hash_table_iter_init(&iter, feed->heard);
	while (g_hash_table_iter_next(&iter, &id, &heard)) {
		Episode *episode = g_hash_table_lookup(store->episode_ids, id);

		if (episode == NULL ||
		    strcmp(episode->pub.feed_id, feed->pub.id) != 0)
			continue;
		mark(episode, heard);
		g_hash_table_iter_remove(&iter);
	}
}

void
bridge_store_heard_take(Feed *feed, Episode *episode)
{
	const Heard *heard = g_hash_table_lookup(feed->heard, episode->pub.id);

	if (heard == NULL)
		return;
	mark(episode, heard);
	g_hash_table_remove(feed->heard, episode->pub.id);
}
