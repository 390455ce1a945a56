/*
 * Pushing to MPD: a stored playlist per subscription, rewritten only when
 * its contents changed, the playlist of new episodes, and tagged queue
 * entries. Only http(s) URLs from the store ever reach MPD.
 */
#include "sync.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

char *
bridge_sync_playlist_name(const Bridge *bridge, const BridgeFeed *feed)
{
	const char *name = feed->name != NULL    ? feed->name
	                   : feed->title != NULL ? feed->title
	                                         : feed->url;
	g_autofree char *full =
	        g_strconcat(bridge->config->playlist_prefix, name, NULL);

	return bridge_mpd_safe_playlist_name(full);
}

static gboolean
kept(const BridgeFeed *feed, const BridgeEpisode *episode, GRegex *match,
     GRegex *exclude)
{
	if (match != NULL && !g_regex_match(match, episode->title, 0, NULL))
		return FALSE;
	if (exclude != NULL && g_regex_match(exclude, episode->title, 0, NULL))
		return FALSE;
	return feed->min_duration == 0 || episode->duration == 0 ||
	       episode->duration >= feed->min_duration;
}

static GRegex *
compile(const char *pattern)
{
	return pattern != NULL ? g_regex_new(pattern, G_REGEX_CASELESS, 0, NULL)
	                       : NULL;
}

/* The URLs of @feed's playlist: newest first, oldest first if serial. */
static GPtrArray *
playlist_uris(const Bridge *bridge, const BridgeFeed *feed)
{
	g_autoptr(GPtrArray) episodes =
	        bridge_store_list_episodes(bridge->store, feed);
	g_autoptr(GRegex) match = compile(feed->match);
	g_autoptr(GRegex) exclude = compile(feed->exclude);
	GPtrArray *uris = g_ptr_array_new();
	guint keep = feed->keep != 0 ? feed->keep : bridge->config->keep;

	for (guint i = 0; i < episodes->len && uris->len < keep; i++) {
		const BridgeEpisode *episode = episodes->pdata[i];

		if (episode->gone == 0 && kept(feed, episode, match, exclude))
			g_ptr_array_add(uris, episode->url);
	}
	if (feed->serial) {
		for (guint i = 0, j = uris->len; i + 1 < j; i++, j--) {
			gpointer swap = uris->pdata[i];

			uris->pdata[i] = uris->pdata[j - 1];
			uris->pdata[j - 1] = swap;
		}
	}
	return uris;
}

static char *
hash_of(const char *name, const GPtrArray *uris)
{
	GChecksum *checksum = g_checksum_new(G_CHECKSUM_SHA256);
	char *hash;

	g_checksum_update(checksum, (const guchar *)name, -1);
	for (guint i = 0; i < uris->len; i++) {
		g_checksum_update(checksum, (const guchar *)"\n", 1);
		g_checksum_update(checksum, uris->pdata[i], -1);
	}
	hash = g_strdup(g_checksum_get_string(checksum));
	g_checksum_free(checksum);
	return hash;
}

static gboolean
push(Bridge *bridge, const char *name, GPtrArray *uris)
{
	g_autoptr(GError) error = NULL;

	if (!bridge_mpd_replace_playlist(bridge->mpd, name,
	                                 (const char *const *)uris->pdata,
	                                 uris->len, &error)) {
		g_warning("cannot write the playlist %s: %s", name,
		          error->message);
		return FALSE;
	}
	return TRUE;
}

/* Pushes @uris as the playlist @name unless *@pushed says MPD has it. */
static void
push_changed(Bridge *bridge, const char *name, GPtrArray *uris, char **pushed,
             gboolean force)
{
	g_autofree char *safe = bridge_mpd_safe_playlist_name(name);
	g_autofree char *hash = hash_of(safe, uris);

	if (!force && g_strcmp0(hash, *pushed) == 0)
		return;
	if (push(bridge, safe, uris)) {
		g_free(*pushed);
		*pushed = g_steal_pointer(&hash);
	}
}

/* Text for one line of M3U: control characters become spaces. */
static void
append_line_text(GString *out, const char *text)
{
	for (const char *p = text; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x2028 ||
		    c == 0x2029)
			g_string_append_c(out, ' ');
		else
			g_string_append_len(out, p, g_utf8_next_char(p) - p);
	}
}

/*
 * MPD drops #EXTINF from playlists it writes itself, so clients that
 * browse the music directory see titles only in a file written here.
 */
static void
write_m3u(const Bridge *bridge, const BridgeFeed *feed, const char *name)
{
	g_autoptr(GPtrArray) episodes =
	        bridge_store_list_episodes(bridge->store, feed);
	g_autoptr(GString) out = g_string_new("#EXTM3U\n#PLAYLIST:");
	g_autofree char *file = g_strconcat(name, ".m3u", NULL);
	g_autofree char *path =
	        g_build_filename(bridge->config->music_directory, file, NULL);
	g_autoptr(GError) error = NULL;
	guint keep = feed->keep != 0 ? feed->keep : bridge->config->keep;

	append_line_text(out, name);
	g_string_append_c(out, '\n');
	for (guint i = 0; i < episodes->len && i < keep; i++) {
		const BridgeEpisode *episode = episodes->pdata[i];

		g_string_append_printf(out, "#EXTINF:%" G_GINT64_FORMAT ",",
		                       episode->duration > 0 ? episode->duration
		                                             : -1);
		if (episode->author != NULL) {
			append_line_text(out, episode->author);
			g_string_append(out, " - ");
		}
		append_line_text(out, episode->title);
		g_string_append_c(out, '\n');
		append_line_text(out, episode->url);
		g_string_append_c(out, '\n');
	}
	if (!g_file_set_contents_full(path, out->str, out->len,
	                              G_FILE_SET_CONTENTS_CONSISTENT, 0644,
	                              &error))
		g_warning("cannot write %s for browsing clients: %s", path,
		          error->message);
}

void
bridge_sync_feed(Bridge *bridge, BridgeFeed *feed, gboolean force)
{
	g_autofree char *name = NULL;
	g_autoptr(GPtrArray) uris = NULL;
	g_autofree char *hash = NULL;

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd))
		return;
	/* Not fetched yet: its playlist would be named after its URL. */
	if (feed->name == NULL && feed->title == NULL)
		return;
	name = bridge_sync_playlist_name(bridge, feed);
	uris = playlist_uris(bridge, feed);
	hash = hash_of(name, uris);
	if (!force && g_strcmp0(hash, feed->pushed) == 0)
		return;
	if (!push(bridge, name, uris))
		return;
	g_message("wrote the playlist %s (%u episodes)", name, uris->len);
	if (bridge->config->music_directory != NULL)
		write_m3u(bridge, feed, name);
	/* A forced push of the same playlist leaves nothing new to save. */
	if (g_strcmp0(hash, feed->pushed) == 0)
		return;
	g_free(feed->pushed);
	feed->pushed = g_steal_pointer(&hash);
	bridge_changed(bridge);
}

/*
 * The playlists drawn from every feed, newest first: the unlistened
 * episodes, and the starred ones. One pass: the sort is what costs.
 */
static void
sync_new_and_starred(Bridge *bridge, gboolean force)
{
	const char *new_name = bridge->config->new_playlist;
	const char *starred_name = bridge->config->starred_playlist;
	g_autoptr(GPtrArray) episodes = NULL;
	g_autoptr(GPtrArray) fresh = g_ptr_array_new();
	g_autoptr(GPtrArray) starred = g_ptr_array_new();

	if (*new_name == '\0' && *starred_name == '\0')
		return;
	episodes = bridge_store_list_episodes(bridge->store, NULL);
	for (guint i = 0; i < episodes->len; i++) {
		const BridgeEpisode *episode = episodes->pdata[i];

		if (!episode->listened && episode->gone == 0 &&
		    fresh->len < bridge->config->new_limit)
			g_ptr_array_add(fresh, episode->url);
		if (episode->starred)
			g_ptr_array_add(starred, episode->url);
	}
	if (*new_name != '\0')
		push_changed(bridge, new_name, fresh, &bridge->new_pushed,
		             force);
	if (*starred_name != '\0')
		push_changed(bridge, starred_name, starred,
		             &bridge->starred_pushed, force);
}

char *
bridge_sync_list_name(const Bridge *bridge, const BridgeList *list)
{
	g_autofree char *full =
	        list->name != NULL ? g_strconcat(bridge->config->list_prefix,
	                                         list->name, NULL)
	                           : g_strdup(bridge->config->later_playlist);

	return bridge_mpd_safe_playlist_name(full);
}

/* Play-later and the named lists, in their own order. */
static void
sync_lists(Bridge *bridge, gboolean force)
{
	GPtrArray *lists = bridge_store_get_lists(bridge->store);

	for (guint i = 0; i < lists->len; i++) {
		BridgeList *list = lists->pdata[i];
		g_autoptr(GPtrArray) uris = g_ptr_array_new();
		g_autofree char *name = NULL;

		if (list->name == NULL &&
		    *bridge->config->later_playlist == '\0')
			continue;
		for (guint j = 0; j < list->episodes->len; j++) {
			const BridgeEpisode *episode =
			        bridge_store_find_episode(
			                bridge->store,
			                list->episodes->pdata[j]);

			if (episode != NULL)
				g_ptr_array_add(uris, episode->url);
		}
		name = bridge_sync_list_name(bridge, list);
		push_changed(bridge, name, uris, &list->pushed, force);
	}
}

void
bridge_sync_remove_list(Bridge *bridge, const BridgeList *list)
{
	g_autofree char *name = NULL;
	g_autoptr(GError) error = NULL;

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd))
		return;
	name = bridge_sync_list_name(bridge, list);
	if (!bridge_mpd_delete_playlist(bridge->mpd, name, &error))
		g_warning("cannot delete the playlist %s: %s", name,
		          error->message);
}

void
bridge_sync_all(Bridge *bridge, gboolean force)
{
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd))
		return;
	for (guint i = 0; i < feeds->len; i++)
		bridge_sync_feed(bridge, feeds->pdata[i], force);
	sync_new_and_starred(bridge, force);
	sync_lists(bridge, force);
}

/* The M3U file of a playlist that goes: left, it would still show. */
static void
remove_m3u(const Bridge *bridge, const char *name)
{
	g_autofree char *file = g_strconcat(name, ".m3u", NULL);
	g_autofree char *path =
	        g_build_filename(bridge->config->music_directory, file, NULL);

	if (g_unlink(path) != 0 && errno != ENOENT)
		g_warning("cannot delete %s: %s", path, g_strerror(errno));
}

void
bridge_sync_remove(Bridge *bridge, const BridgeFeed *feed)
{
	g_autofree char *name = bridge_sync_playlist_name(bridge, feed);
	g_autoptr(GError) error = NULL;

	if (bridge->config->music_directory != NULL)
		remove_m3u(bridge, name);
	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd))
		return;
	if (!bridge_mpd_delete_playlist(bridge->mpd, name, &error))
		g_warning("cannot delete the playlist %s: %s", name,
		          error->message);
}

/* The tags an episode gets in MPD's queue; @date and @track hold them. */
static void
fill_tags(const Bridge *bridge, const BridgeEpisode *episode, BridgeTags *tags,
          char **date, char **track)
{
	const BridgeFeed *feed =
	        bridge_store_find_feed(bridge->store, episode->feed_id);

	*date = NULL;
	*track = NULL;
	if (episode->published > 0) {
		g_autoptr(GDateTime) when =
		        g_date_time_new_from_unix_utc(episode->published);

		*date = when != NULL ? g_date_time_format(when, "%Y-%m-%d")
		                     : NULL;
	}
	if (episode->number > 0)
		*track = g_strdup_printf("%" G_GINT64_FORMAT, episode->number);
	*tags = (BridgeTags){ 0 };
	tags->title = episode->title;
	tags->album = feed != NULL
	                      ? (feed->name != NULL ? feed->name : feed->title)
	                      : NULL;
	tags->artist = episode->author;
	tags->date = *date;
	tags->track = *track;
	tags->genre = "Podcast";
}

gboolean
bridge_sync_queue(Bridge *bridge, const BridgeEpisode *episode, GError **error)
{
	g_autofree char *date = NULL;
	g_autofree char *track = NULL;
	BridgeTags tags;
	guint id;

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
		            "MPD is not connected");
		return FALSE;
	}
	fill_tags(bridge, episode, &tags, &date, &track);
	id = bridge_mpd_queue(bridge->mpd, episode->url, &tags, error);
	if (id == 0)
		return FALSE;
	if (bridge->queued == NULL)
		bridge->queued =
		        g_hash_table_new_full(NULL, NULL, NULL, g_free);
	g_hash_table_insert(bridge->queued, GUINT_TO_POINTER(id),
	                    g_strdup(episode->id));
	return TRUE;
}

void
bridge_sync_on_player(Bridge *bridge)
{
	g_autofree char *title = NULL;
	g_autofree char *album = NULL;
	g_autofree char *date = NULL;
	g_autofree char *track = NULL;
	g_autoptr(GError) error = NULL;
	const BridgeEpisode *episode;
	const char *episode_id;
	BridgeTags tags;
	guint id;

	if (bridge->queued == NULL ||
	    !bridge_mpd_current_song(bridge->mpd, &id, &title, &album, &error))
		return;
	episode_id = g_hash_table_lookup(bridge->queued, GUINT_TO_POINTER(id));
	episode = episode_id != NULL
	                  ? bridge_store_find_episode(bridge->store, episode_id)
	                  : NULL;
	if (episode == NULL)
		return;
	fill_tags(bridge, episode, &tags, &date, &track);
	/* Ours still stand: retagging now would only wake MPD's clients. */
	if (g_strcmp0(title, tags.title) == 0 &&
	    g_strcmp0(album, tags.album) == 0)
		return;
	if (!bridge_mpd_retag(bridge->mpd, id, &tags, &error))
		g_warning("cannot tag %s again: %s", episode->title,
		          error->message);
	else
		g_message("tagged %s again as playback started",
		          episode->title);
}
