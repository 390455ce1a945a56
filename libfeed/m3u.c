/*
 * Extended M3U, UTF-8. MPD and most players read `#EXTINF:SECONDS,NAME`
 * and take everything after the first comma as one opaque name, so the
 * artist goes there too, as "Artist - Title".
 */
#include "playlist-private.h"

char *
feed_m3u_write(const FeedPlaylist *playlist)
{
	GString *out = g_string_new("#EXTM3U\n");
	g_autofree char *title = feed_playlist_one_line(playlist->title);

	if (*title != '\0')
		g_string_append_printf(out, "#PLAYLIST:%s\n", title);
	for (guint i = 0; i < playlist->entries->len; i++) {
		const FeedPlaylistEntry *entry = playlist->entries->pdata[i];
		g_autofree char *name = NULL;

		if (!feed_playlist_url_is_safe(entry->url))
			continue;
		name = feed_playlist_entry_display_name(entry);
		/* -1 is what players write and read for "unknown". */
		g_string_append_printf(out, "#EXTINF:%" G_GINT64_FORMAT ",%s\n",
		                       entry->duration > 0 ? entry->duration
		                                           : (gint64)-1,
		                       name);
		g_string_append_printf(out, "%s\n", entry->url);
	}
	return g_string_free(out, FALSE);
}
