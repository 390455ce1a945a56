/*
 * PLS version 2, the INI-like format of Winamp and SHOUTcast. Readers split
 * each line at its first '=', so values need no quoting, only one line
 * each. Entries are numbered from 1 with no gaps, as readers expect.
 */
#include "playlist-private.h"

char *
feed_pls_write(const FeedPlaylist *playlist)
{
	GString *out = g_string_new("[playlist]\n");
	guint n = 0;

	for (guint i = 0; i < playlist->entries->len; i++) {
		const FeedPlaylistEntry *entry = playlist->entries->pdata[i];
		g_autofree char *name = NULL;

		if (!feed_playlist_url_is_safe(entry->url))
			continue;
		n++;
		name = feed_playlist_entry_display_name(entry);
		g_string_append_printf(out, "File%u=%s\n", n, entry->url);
		g_string_append_printf(out, "Title%u=%s\n", n, name);
		g_string_append_printf(
		        out, "Length%u=%" G_GINT64_FORMAT "\n", n,
		        entry->duration > 0 ? entry->duration : (gint64)-1);
	}
	g_string_append_printf(out, "NumberOfEntries=%u\nVersion=2\n", n);
	return g_string_free(out, FALSE);
}
