/*
 * The disk side of downloads: which files go when (listened ones after
 * their days, those pushed out of a podcast's newest, the oldest listened
 * first when room is short), how much room a transfer has before the
 * budget or the free space floor, and deleting a file so that playlists
 * and the queue name the stream again first.
 */
#include "downloads/downloads-private.h"

#include "core/download-files.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#define DAY (24 * 60 * 60)
#define MB  (1024 * 1024)
/* A transfer needs at least this much room to start. */
#define MIN_ROOM MB

/* Whether @episode's file may go: not starred, listed, playing or new. */
static gboolean
may_delete(Bridge *bridge, const BridgeEpisode *episode)
{
	return episode->file != NULL && !episode->starred &&
	       !bridge_store_is_listed(bridge->store, episode) &&
	       g_strcmp0(bridge->tracking.episode_id, episode->id) != 0;
}

gboolean
bridge_downloads_remove(Bridge *bridge, BridgeEpisode *episode, GError **error)
{
	BridgeDownloads *dl = bridge_downloads_state(bridge);
	g_autofree char *relative = NULL;
	g_autofree char *path = NULL;

	if (episode->file == NULL)
		return TRUE;
	if (g_strcmp0(bridge->tracking.episode_id, episode->id) == 0 &&
	    bridge->tracking.state == BRIDGE_PLAYER_PLAY) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY,
		            "%s is playing; its file is deleted once it is "
		            "not",
		            episode->title);
		return FALSE;
	}
	if (!bridge_downloads_locate(bridge, error))
		return FALSE;
	relative = g_strdup(episode->file);
	path = bridge_downloads_path(dl, relative);
	if (g_unlink(path) != 0 && errno != ENOENT) {
		int saved = errno;

		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved),
		            "cannot delete %s: %s", path, g_strerror(saved));
		return FALSE;
	}
	/* Playlists and the queue name the stream before MPD forgets it. */
	if (dl->in_db != NULL)
		g_hash_table_remove(dl->in_db, relative);
	bridge_tell(bridge, BRIDGE_NEWS_FILES);
	g_clear_pointer(&episode->file, g_free);
	episode->downloaded = 0;
	bridge_changed(bridge);
	bridge_downloads_tell_mpd(bridge);
	return TRUE;
}

static void
remove_logged(Bridge *bridge, BridgeEpisode *episode, const char *why)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *file = g_strdup(episode->file);

	if (bridge_downloads_remove(bridge, episode, &error))
		g_message("deleted %s (%s): %s", file, episode->title, why);
	else
		g_warning("%s", error->message);
}

/* Listened episodes' files, the longest listened first. */
static gint
by_listened_at(gconstpointer a, gconstpointer b)
{
	const BridgeEpisode *x = *(BridgeEpisode *const *)a;
	const BridgeEpisode *y = *(BridgeEpisode *const *)b;

	return (x->listened_at > y->listened_at) -
	       (x->listened_at < y->listened_at);
}

static GPtrArray *
listened_files(Bridge *bridge)
{
	g_autoptr(GPtrArray) all =
	        bridge_store_list_episodes(bridge->store, NULL);
	GPtrArray *files = g_ptr_array_new();

	for (guint i = 0; i < all->len; i++) {
		BridgeEpisode *episode = all->pdata[i];

		if (episode->listened && may_delete(bridge, episode))
			g_ptr_array_add(files, episode);
	}
	g_ptr_array_sort(files, by_listened_at);
	return files;
}

/*
 * Files whose time is up: listened ones after their days, and those that
 * newer episodes pushed out of their podcast's newest; files that went
 * behind our back are forgotten.
 */
void
bridge_downloads_clean_up(Bridge *bridge)
{
	BridgeDownloads *dl = bridge_downloads_state(bridge);
	g_autoptr(GPtrArray) all =
	        bridge_store_list_episodes(bridge->store, NULL);
	g_autoptr(GHashTable) newest = bridge_downloads_newest(bridge);
	gint64 keep = (gint64)bridge->config->download.keep_days * DAY;
	gint64 now = bridge_downloads_now();

	for (guint i = 0; i < all->len; i++) {
		BridgeEpisode *episode = all->pdata[i];
		g_autofree char *path = NULL;

		if (episode->file == NULL)
			continue;
		path = bridge_downloads_path(dl, episode->file);
		if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
			g_message("%s is gone from the disk", episode->file);
			g_clear_pointer(&episode->file, g_free);
			episode->downloaded = 0;
			bridge_changed(bridge);
			continue;
		}
		if (!may_delete(bridge, episode))
			continue;
		if (episode->listened && episode->listened_at + keep <= now)
			remove_logged(bridge, episode, "listened");
		else if (episode->download == 0 && !episode->listened &&
		         !g_hash_table_contains(newest, episode))
			remove_logged(bridge, episode,
			              "no longer among its podcast's newest");
	}
}

/* The bytes all downloaded files take. */
static guint64
bytes_used(Bridge *bridge)
{
	g_autoptr(GPtrArray) all =
	        bridge_store_list_episodes(bridge->store, NULL);
	guint64 used = 0;

	for (guint i = 0; i < all->len; i++)
		used += bridge_downloads_file_size(bridge, all->pdata[i]);
	return used;
}

/*
 * The bytes a new transfer may write before the budget or the free space
 * floor is crossed, less what the transfers under way still need.
 */
static guint64
room(Bridge *bridge, BridgeDownloads *dl, GError **error)
{
	const BridgeDownloadSettings *s = &bridge->config->download;
	guint64 max = (guint64)s->max_size_mb * MB;
	guint64 floor = (guint64)s->min_free_mb * MB;
	guint64 pending = 0, received = 0, free_bytes;
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, dl->active);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		const BridgeTransfer *t = value;

		received += t->received;
		if (t->total > t->received)
			pending += t->total - t->received;
	}
	/* The folder is made by the first download: till then, its disk. */
	if (!bridge_download_free_space(
	            g_file_test(dl->directory, G_FILE_TEST_IS_DIR)
	                    ? dl->directory
	                    : dl->music,
	            &free_bytes, error))
		return 0;
	free_bytes = free_bytes > pending ? free_bytes - pending : 0;
	max = MIN(max, free_bytes > floor ? free_bytes - floor : 0);
	if (s->budget_mb > 0) {
		guint64 budget = (guint64)s->budget_mb * MB;
		guint64 used = bytes_used(bridge) + received + pending;

		max = MIN(max, budget > used ? budget - used : 0);
	}
	return max;
}

static char *
why_no_room(Bridge *bridge, BridgeDownloads *dl, const GError *error)
{
	const BridgeDownloadSettings *s = &bridge->config->download;

	if (error != NULL)
		return g_strdup_printf("downloading stopped: %s",
		                       error->message);
	if (s->budget_mb > 0 &&
	    bytes_used(bridge) + MIN_ROOM > (guint64)s->budget_mb * MB)
		return g_strdup_printf(
		        "downloading stopped: the files take the whole "
		        "[bridge] download_budget of %u MB; raise it, or "
		        "delete some (mpd-bridge delete EPISODE)",
		        s->budget_mb);
	return g_strdup_printf("downloading stopped: %s has less than "
	                       "[bridge] download_min_free (%u MB) left; "
	                       "free some space, or delete some episodes "
	                       "(mpd-bridge delete EPISODE)",
	                       dl->directory, s->min_free_mb);
}

/*
 * Room for one more transfer: the oldest listened files go first when
 * needed. 0 with dl->stopped saying why when there is none.
 */
guint64
bridge_downloads_make_room(Bridge *bridge)
{
	BridgeDownloads *dl = bridge_downloads_state(bridge);
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) files = NULL;
	guint64 left = room(bridge, dl, &error);

	if (error == NULL && left < MIN_ROOM) {
		files = listened_files(bridge);
		for (guint i = 0; i < files->len && left < MIN_ROOM; i++) {
			remove_logged(bridge, files->pdata[i],
			              "making room for newer episodes");
			left = room(bridge, dl, &error);
		}
	}
	if (left >= MIN_ROOM) {
		if (dl->stopped != NULL)
			g_message("downloading again: there is room");
		g_clear_pointer(&dl->stopped, g_free);
		return left;
	}
	if (dl->stopped == NULL) {
		dl->stopped = why_no_room(bridge, dl, error);
		g_warning("%s", dl->stopped);
	}
	return 0;
}
