/*
 * Pushing to MPD: a stored playlist per subscription, rewritten only when
 * its contents changed, and those of new, starred, continued and listed
 * episodes; as titled files when playlist-files.c can, else through the
 * protocol.
 * Only http(s) URLs from the store ever reach MPD.
 */
#include "playlists/push.h"

#include "downloads/downloads.h"
#include "playlists/playlist-files.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

/* Changes of position rewrite the Continue playlist at most this often. */
#define CONTINUE_EVERY_US (60 * G_USEC_PER_SEC)

char *
bridge_push_playlist_name(const Bridge *bridge, const BridgeFeed *feed)
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

/* The episodes of @feed's playlist: newest first, oldest first if serial. */
static GPtrArray *
playlist_episodes(const Bridge *bridge, const BridgeFeed *feed)
{
	g_autoptr(GPtrArray) episodes =
	        bridge_store_list_episodes(bridge->store, feed);
	g_autoptr(GRegex) match = compile(feed->match);
	g_autoptr(GRegex) exclude = compile(feed->exclude);
	GPtrArray *chosen = g_ptr_array_new();
	guint keep = feed->keep != 0 ? feed->keep : bridge->config->keep;

	for (guint i = 0; i < episodes->len && chosen->len < keep; i++) {
		BridgeEpisode *episode = episodes->pdata[i];

		if (episode->gone == 0 && kept(feed, episode, match, exclude))
			g_ptr_array_add(chosen, episode);
	}
	if (feed->serial) {
		for (guint i = 0, j = chosen->len; i + 1 < j; i++, j--) {
			gpointer swap = chosen->pdata[i];

			chosen->pdata[i] = chosen->pdata[j - 1];
			chosen->pdata[j - 1] = swap;
		}
	}
	return chosen;
}

/* What a playlist shows: its name, and each entry's URL, title, length. */
static char *
hash_of(const Bridge *bridge, const char *name, const GPtrArray *episodes)
{
	GChecksum *checksum = g_checksum_new(G_CHECKSUM_SHA256);
	char *hash;

	g_checksum_update(checksum, (const guchar *)name, -1);
	for (guint i = 0; i < episodes->len; i++) {
		const BridgeEpisode *episode = episodes->pdata[i];
		g_autofree char *uri = bridge_downloads_uri(bridge, episode);
		char duration[32];

		g_snprintf(duration, sizeof duration, "\n%" G_GINT64_FORMAT,
		           episode->duration);
		g_checksum_update(checksum, (const guchar *)"\n", 1);
		g_checksum_update(checksum, (const guchar *)uri, -1);
		g_checksum_update(checksum, (const guchar *)"\n", 1);
		g_checksum_update(checksum, (const guchar *)episode->title, -1);
		g_checksum_update(checksum, (const guchar *)duration, -1);
	}
	hash = g_strdup(g_checksum_get_string(checksum));
	g_checksum_free(checksum);
	return hash;
}

/* As a titled file when MPD's playlist directory allows, else as URLs. */
static gboolean
push(Bridge *bridge, const char *name, GPtrArray *episodes)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) uris = NULL;

	if (bridge_playlist_files_enabled(bridge)) {
		if (bridge_playlist_files_write(bridge, name, episodes, &error))
			return TRUE;
		g_warning("cannot write the playlist %s: %s", name,
		          error->message);
		return FALSE;
	}
	uris = g_ptr_array_new_full(episodes->len, g_free);
	for (guint i = 0; i < episodes->len; i++)
		g_ptr_array_add(
		        uris, bridge_downloads_uri(bridge, episodes->pdata[i]));
	if (!bridge_mpd_replace_playlist(bridge->mpd, name,
	                                 (const char *const *)uris->pdata,
	                                 uris->len, &error)) {
		g_warning("cannot write the playlist %s: %s", name,
		          error->message);
		return FALSE;
	}
	return TRUE;
}

/*
 * Pushes @episodes as the playlist @name unless *@pushed says MPD has it
 * as it was written; TRUE when it pushed.
 */
static gboolean
push_changed(Bridge *bridge, const char *name, GPtrArray *episodes,
             char **pushed, gboolean force)
{
	g_autofree char *safe = bridge_mpd_safe_playlist_name(name);
	g_autofree char *hash = hash_of(bridge, safe, episodes);

	if (!force && g_strcmp0(hash, *pushed) == 0 &&
	    !bridge_playlist_files_edited(bridge, safe))
		return FALSE;
	if (!push(bridge, safe, episodes))
		return FALSE;
	g_free(*pushed);
	*pushed = g_steal_pointer(&hash);
	return TRUE;
}

/*
 * MPD drops #EXTINF from playlists it writes itself, so clients that
 * browse the music directory see titles only in a file written here.
 */
static void
write_m3u(const Bridge *bridge, const char *name, GPtrArray *episodes)
{
	g_autoptr(GString) text =
	        bridge_playlist_files_m3u(bridge, name, episodes);
	g_autofree char *path = bridge_playlist_files_path(
	        bridge->config->music_directory, name);
	g_autoptr(GError) error = NULL;

	if (!bridge_playlist_files_write_path(path, text->str, text->len,
	                                      &error))
		g_warning("cannot write %s for browsing clients: %s", path,
		          error->message);
}

static void
push_feed(Bridge *bridge, BridgeFeed *feed, gboolean force)
{
	g_autofree char *name = NULL;
	g_autoptr(GPtrArray) episodes = NULL;
	g_autofree char *before = NULL;

	/* Not fetched yet: its playlist would be named after its URL. */
	if (feed->name == NULL && feed->title == NULL)
		return;
	name = bridge_push_playlist_name(bridge, feed);
	episodes = playlist_episodes(bridge, feed);
	before = g_strdup(feed->pushed);
	if (!push_changed(bridge, name, episodes, &feed->pushed, force))
		return;
	g_message("wrote the playlist %s (%u episodes)", name, episodes->len);
	if (bridge->config->music_directory != NULL)
		write_m3u(bridge, name, episodes);
	/* A forced push of the same playlist leaves nothing new to save. */
	if (g_strcmp0(before, feed->pushed) != 0)
		bridge_changed(bridge);
}

void
bridge_push_feed(Bridge *bridge, BridgeFeed *feed, gboolean force)
{
	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd))
		return;
	push_feed(bridge, feed, force);
	bridge_playlist_files_notify(bridge);
}

/*
 * The playlists drawn from every feed, newest first: the unlistened
 * episodes, and the starred ones. One pass: the sort is what costs.
 */
static void
push_new_and_starred(Bridge *bridge, gboolean force)
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
		BridgeEpisode *episode = episodes->pdata[i];

		if (!episode->listened && episode->gone == 0 &&
		    fresh->len < bridge->config->new_limit)
			g_ptr_array_add(fresh, episode);
		if (episode->starred)
			g_ptr_array_add(starred, episode);
	}
	if (*new_name != '\0')
		push_changed(bridge, new_name, fresh, &bridge->new_pushed,
		             force);
	if (*starred_name != '\0')
		push_changed(bridge, starred_name, starred,
		             &bridge->starred_pushed, force);
}

/* Most recently played first; the same moment, by id, for a stable order. */
static gint
by_last_played(gconstpointer a, gconstpointer b)
{
	const BridgeEpisode *x = *(BridgeEpisode *const *)a;
	const BridgeEpisode *y = *(BridgeEpisode *const *)b;

	if (x->last_played != y->last_played)
		return x->last_played > y->last_played ? -1 : 1;
	return strcmp(x->id, y->id);
}

static gboolean
is_continuing(const BridgeEpisode *episode, gpointer data)
{
	return !episode->listened && episode->position > 0 &&
	       episode->gone == 0;
}

/*
 * The episodes in progress, as bridge->continuing keeps them between
 * changes. Working them out looks at every episode, which at 100,000
 * is a tenth of a second once they have left the processor's caches.
 */
static GPtrArray *
continuing(Bridge *bridge)
{
	if (bridge->continuing == NULL) {
		bridge->continuing = bridge_store_filter_episodes(
		        bridge->store, is_continuing, NULL);
		g_ptr_array_sort(bridge->continuing, by_last_played);
	}
	return bridge->continuing;
}

GPtrArray *
bridge_push_continuing(Bridge *bridge)
{
	GPtrArray *going = continuing(bridge);
	guint n = MIN(going->len, bridge->config->continue_limit);
	GPtrArray *first = g_ptr_array_sized_new(n);

	for (guint i = 0; i < n; i++)
		g_ptr_array_add(first, going->pdata[i]);
	return first;
}

gboolean
bridge_push_continuing_update(Bridge *bridge, BridgeEpisode *episode)
{
	GPtrArray *going = bridge->continuing;
	guint was = 0, at = 0;
	gboolean found;

	if (going == NULL)
		return TRUE;
	found = g_ptr_array_find(going, episode, &was);
	if (found)
		g_ptr_array_remove_index(going, was);
	if (!is_continuing(episode, NULL))
		return found;
	while (at < going->len &&
	       by_last_played(&going->pdata[at], &episode) < 0)
		at++;
	g_ptr_array_insert(going, (gint)at, episode);
	return !found || at != was;
}

/*
 * The episodes in progress, most recently played first: what a client
 * that cannot send our commands (most phone apps) loads to go on.
 */
static void
push_continue(Bridge *bridge, gboolean force)
{
	const char *name = bridge->config->continue_playlist;
	g_autoptr(GPtrArray) going = NULL;

	if (*name == '\0')
		return;
	going = bridge_push_continuing(bridge);
	bridge->continue_at = g_get_monotonic_time();
	push_changed(bridge, name, going, &bridge->continue_pushed, force);
}

static gboolean
on_continue_due(gpointer data)
{
	Bridge *bridge = data;

	bridge->continue_timer = 0;
	if (bridge->mpd != NULL && bridge_mpd_is_connected(bridge->mpd))
		push_continue(bridge, FALSE);
	return G_SOURCE_REMOVE;
}

void
bridge_push_continue_soon(Bridge *bridge, BridgeEpisode *episode)
{
	gint64 since;

	/*
	 * As an episode plays, it stays first: then the playlist is as it
	 * was, and is neither hashed nor pushed again.
	 */
	if (!bridge_push_continuing_update(bridge, episode))
		return;
	if (bridge->continue_timer != 0 || bridge->mpd == NULL ||
	    !bridge_mpd_is_connected(bridge->mpd))
		return;
	since = g_get_monotonic_time() - bridge->continue_at;
	if (bridge->continue_at == 0 || since >= CONTINUE_EVERY_US) {
		push_continue(bridge, FALSE);
		return;
	}
	bridge->continue_timer =
	        g_timeout_add((guint)((CONTINUE_EVERY_US - since) / 1000 + 1),
	                      on_continue_due, bridge);
}

char *
bridge_push_list_name(const Bridge *bridge, const BridgeList *list)
{
	g_autofree char *full =
	        list->name != NULL ? g_strconcat(bridge->config->list_prefix,
	                                         list->name, NULL)
	                           : g_strdup(bridge->config->later_playlist);

	return bridge_mpd_safe_playlist_name(full);
}

/* Play-later and the named lists, in their own order. */
static void
push_lists(Bridge *bridge, gboolean force)
{
	GPtrArray *lists = bridge_store_get_lists(bridge->store);

	for (guint i = 0; i < lists->len; i++) {
		BridgeList *list = lists->pdata[i];
		g_autoptr(GPtrArray) episodes = g_ptr_array_new();
		g_autofree char *name = NULL;

		if (list->name == NULL &&
		    *bridge->config->later_playlist == '\0')
			continue;
		for (guint j = 0; j < list->episodes->len; j++) {
			BridgeEpisode *episode = bridge_store_find_episode(
			        bridge->store, list->episodes->pdata[j]);

			if (episode != NULL)
				g_ptr_array_add(episodes, episode);
		}
		name = bridge_push_list_name(bridge, list);
		push_changed(bridge, name, episodes, &list->pushed, force);
	}
}

void
bridge_push_remove_list(Bridge *bridge, const BridgeList *list)
{
	g_autofree char *name = NULL;
	g_autoptr(GError) error = NULL;

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd))
		return;
	name = bridge_push_list_name(bridge, list);
	bridge_playlist_files_forget(bridge, name);
	if (!bridge_mpd_delete_playlist(bridge->mpd, name, &error))
		g_warning("cannot delete the playlist %s: %s", name,
		          error->message);
}

void
bridge_push_all(Bridge *bridge, gboolean force)
{
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd))
		return;
	/* MPD may have lost what an earlier connection pushed. */
	force = force || !bridge->pushed;
	for (guint i = 0; i < feeds->len; i++)
		push_feed(bridge, feeds->pdata[i], force);
	push_new_and_starred(bridge, force);
	push_continue(bridge, force);
	push_lists(bridge, force);
	bridge_playlist_files_notify(bridge);
	bridge->pushed = TRUE;
}

/* The M3U file of a playlist that goes: left, it would still show. */
static void
remove_m3u(const Bridge *bridge, const char *name)
{
	g_autofree char *path = bridge_playlist_files_path(
	        bridge->config->music_directory, name);

	if (g_unlink(path) != 0 && errno != ENOENT)
		g_warning("cannot delete %s: %s", path, g_strerror(errno));
}

void
bridge_push_remove(Bridge *bridge, const BridgeFeed *feed)
{
	g_autofree char *name = bridge_push_playlist_name(bridge, feed);
	g_autoptr(GError) error = NULL;

	if (bridge->config->music_directory != NULL)
		remove_m3u(bridge, name);
	bridge_playlist_files_forget(bridge, name);
	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd))
		return;
	if (!bridge_mpd_delete_playlist(bridge->mpd, name, &error))
		g_warning("cannot delete the playlist %s: %s", name,
		          error->message);
}
