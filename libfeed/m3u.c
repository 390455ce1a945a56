/*
 * Extended M3U, UTF-8. MPD and most players read `#EXTINF:SECONDS,NAME`
 * and take everything after the first comma as one opaque name, so the
 * artist goes there too, as "Artist - Title".
 */
#include "playlist-private.h"

/*
 * A URL is a line of its own here: one with a line break, any other
 * control character or a Unicode line separator would let a feed write
 * lines of its own, so such an entry is left out rather than repaired.
 * Entries' URLs are normalized already; this guards the format all the
 * same.
 */
static gboolean
url_is_safe(const char *url)
{
	if (url == NULL || *url == '\0' || !g_utf8_validate(url, -1, NULL))
		return FALSE;
	for (const char *p = url; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (c <= 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 ||
		    c == 0x2029)
			return FALSE;
	}
	return TRUE;
}

/* "Artist - Title", or whichever of the two is not empty. */
static char *
display_name(const FeedPlaylistEntry *entry)
{
	g_autofree char *artist = feed_playlist_one_line(entry->artist);
	g_autofree char *title = feed_playlist_one_line(entry->title);

	if (*artist == '\0')
		return g_steal_pointer(&title);
	if (*title == '\0')
		return g_steal_pointer(&artist);
	return g_strconcat(artist, " - ", title, NULL);
}

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

		if (!url_is_safe(entry->url))
			continue;
		name = display_name(entry);
		/* -1 is what players write and read for "unknown". */
		g_string_append_printf(out, "#EXTINF:%" G_GINT64_FORMAT ",%s\n",
		                       entry->duration > 0 ? entry->duration
		                                           : (gint64)-1,
		                       name);
		g_string_append_printf(out, "%s\n", entry->url);
	}
	return g_string_free(out, FALSE);
}
