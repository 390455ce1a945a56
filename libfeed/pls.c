/*
 * PLS version 2, the INI-like format of Winamp and SHOUTcast. Readers split
 * each line at its first '=', so values need no quoting, only one line
 * each. Entries are numbered from 1 with no gaps, as readers expect.
 */
#include "playlist-private.h"

/*
 * As in m3u.c: a URL that could break its line leaves its entry out rather
 * than being repaired.
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

/* "Artist - Title", as M3U writes it, so both formats show alike. */
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
feed_pls_write(const FeedPlaylist *playlist)
{
	GString *out = g_string_new("[playlist]\n");
	guint n = 0;

	for (guint i = 0; i < playlist->entries->len; i++) {
		const FeedPlaylistEntry *entry = playlist->entries->pdata[i];
		g_autofree char *name = NULL;

		if (!url_is_safe(entry->url))
			continue;
		n++;
		name = display_name(entry);
		g_string_append_printf(out, "File%u=%s\n", n, entry->url);
		g_string_append_printf(out, "Title%u=%s\n", n, name);
		g_string_append_printf(out, "Length%u=%" G_GINT64_FORMAT "\n",
		                       n,
		                       entry->duration > 0 ? entry->duration
		                                           : (gint64)-1);
	}
	g_string_append_printf(out, "NumberOfEntries=%u\nVersion=2\n", n);
	return g_string_free(out, FALSE);
}
