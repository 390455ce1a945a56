/*
 * Keeping episodes on disk: what to download and when, where files go,
 * and telling MPD (see downloads.h). The transfers and tagging are
 * transfers.c's; what goes, and the room left, download-room.c's.
 */
#include "downloads/downloads-private.h"

#include "core/episode-tags.h"

#include "core/download-files.h"
#include "mpd/mpd-conf.h"
#include "relay/relay.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Seconds between looks at what is due, when nothing else is. */
#define CLEANUP_INTERVAL (60 * 60)

BridgeDownloads *
bridge_downloads_state(Bridge *bridge)
{
	BridgeDownloads *dl = bridge->downloads;

	if (dl != NULL)
		return dl;
	dl = g_new0(BridgeDownloads, 1);
	dl->active = g_hash_table_new(g_str_hash, g_str_equal);
	g_queue_init(&dl->waiting);
	bridge->downloads = dl;
	return dl;
}

gint64
bridge_downloads_now(void)
{
	return g_get_real_time() / G_USEC_PER_SEC;
}

gboolean
bridge_downloads_is_file(const char *uri)
{
	return strstr(uri, "://") == NULL;
}

char *
bridge_downloads_uri(const Bridge *bridge, const BridgeEpisode *episode)
{
	const BridgeDownloads *dl = bridge->downloads;

	if (episode->file != NULL && dl != NULL && dl->in_db != NULL &&
	    g_hash_table_contains(dl->in_db, episode->file))
		return g_strdup(episode->file);
	return bridge_relay_uri(bridge, episode);
}

/* MPD's music directory: as set, as MPD says, or from its config file. */
static char *
find_music(Bridge *bridge)
{
	g_auto(GStrv) candidates = NULL;
	char *told;

	if (bridge->config->music_directory != NULL)
		return g_strdup(bridge->config->music_directory);
	if (bridge->mpd != NULL && bridge_mpd_is_connected(bridge->mpd)) {
		told = bridge_mpd_config_value(bridge->mpd, "music_directory");
		if (told != NULL)
			return told;
	}
	if (!bridge_mpd_address_is_local(&bridge->config->mpd))
		return NULL;
	candidates = bridge_mpd_conf_candidates();
	for (guint i = 0; candidates[i] != NULL; i++)
		if (g_file_test(candidates[i], G_FILE_TEST_EXISTS))
			return bridge_mpd_conf_directory(
			        candidates[i], "music_directory", NULL);
	return NULL;
}

static char *
resolve(const char *path)
{
	char *real = realpath(path, NULL);
	char *copy = real != NULL ? g_strdup(real) : NULL;

	free(real);
	return copy;
}

static gboolean
place(Bridge *bridge, BridgeDownloads *dl, GError **error)
{
	const char *wanted = bridge->config->download.directory;
	g_autofree char *music = find_music(bridge);
	g_autofree char *directory = NULL;
	g_autofree char *prefix = NULL;

	if (music == NULL || !g_path_is_absolute(music)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
		            "MPD's music directory is not known here; set "
		            "[bridge] music_directory to it (downloads go "
		            "into a folder of it)");
		return FALSE;
	}
	dl->music = resolve(music);
	if (dl->music == NULL) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
		            "MPD's music directory %s cannot be reached from "
		            "here (%s); set [bridge] music_directory to where "
		            "this machine sees it",
		            music, g_strerror(errno));
		return FALSE;
	}
	directory = wanted != NULL
	                    ? g_strdup(wanted)
	                    : g_build_filename(dl->music, "podcasts", NULL);
	/* A folder that does not exist yet is made by the first download. */
	if (!g_file_test(directory, G_FILE_TEST_IS_DIR)) {
		dl->directory = g_canonicalize_filename(directory, NULL);
	} else if (access(directory, W_OK) != 0) {
		int saved = errno;

		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved),
		            "cannot write in %s: %s; run mpd-bridge as MPD's "
		            "own user, or set [bridge] download_directory to "
		            "a folder of MPD's music directory that it can "
		            "write",
		            directory, g_strerror(saved));
		return FALSE;
	} else {
		dl->directory = resolve(directory);
	}
	prefix = g_strconcat(dl->music, "/", NULL);
	if (dl->directory == NULL || !g_str_has_prefix(dl->directory, prefix)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
		            "%s is not inside MPD's music directory %s, so MPD "
		            "would not play what is downloaded there; set "
		            "[bridge] download_directory to a folder of it",
		            directory, dl->music);
		return FALSE;
	}
	dl->relative = g_strdup(dl->directory + strlen(prefix));
	return TRUE;
}

gboolean
bridge_downloads_locate(Bridge *bridge, GError **error)
{
	BridgeDownloads *dl = bridge_downloads_state(bridge);
	g_autoptr(GError) local = NULL;

	if (dl->located) {
		if (dl->relative != NULL)
			return TRUE;
		g_set_error_literal(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
		                    dl->note);
		return FALSE;
	}
	dl->located = TRUE;
	g_clear_pointer(&dl->music, g_free);
	g_clear_pointer(&dl->directory, g_free);
	g_clear_pointer(&dl->relative, g_free);
	g_clear_pointer(&dl->note, g_free);
	if (place(bridge, dl, &local)) {
		if (bridge->daemon)
			g_message("downloads go into %s", dl->directory);
		return TRUE;
	}
	g_clear_pointer(&dl->relative, g_free);
	dl->note = g_strdup_printf("cannot download: %s", local->message);
	g_set_error_literal(error, local->domain, local->code, dl->note);
	return FALSE;
}

const char *
bridge_downloads_get_music_directory(Bridge *bridge)
{
	return bridge_downloads_state(bridge)->music;
}

const char *
bridge_downloads_get_directory(Bridge *bridge)
{
	return bridge_downloads_state(bridge)->directory;
}

const char *
bridge_downloads_get_stopped(Bridge *bridge)
{
	return bridge_downloads_state(bridge)->stopped;
}

const BridgeTransfer *
bridge_downloads_get_transfer(Bridge *bridge, const BridgeEpisode *episode)
{
	BridgeDownloads *dl = bridge_downloads_state(bridge);
	const BridgeTransfer *transfer =
	        g_hash_table_lookup(dl->active, episode->id);

	if (transfer != NULL)
		return transfer;
	for (GList *l = dl->waiting.head; l != NULL; l = l->next) {
		transfer = l->data;
		if (strcmp(transfer->episode_id, episode->id) == 0)
			return transfer;
	}
	return NULL;
}

char *
bridge_downloads_path(BridgeDownloads *dl, const char *relative)
{
	return g_build_filename(dl->music, relative, NULL);
}

guint64
bridge_downloads_file_size(Bridge *bridge, const BridgeEpisode *episode)
{
	BridgeDownloads *dl = bridge_downloads_state(bridge);
	g_autofree char *path = NULL;
	GStatBuf st;

	if (episode->file == NULL || dl->music == NULL)
		return 0;
	path = bridge_downloads_path(dl, episode->file);
	return g_lstat(path, &st) == 0 ? (guint64)st.st_size : 0;
}

/* How many of @feed's newest episodes are kept on disk. */
static guint
keep_of(const Bridge *bridge, const BridgeFeed *feed)
{
	if (feed->download < 0)
		return 0;
	if (feed->download > 0)
		return (guint)feed->download;
	return bridge->config->download.episodes;
}

static gboolean
is_stream(const char *url)
{
	return g_ascii_strncasecmp(url, "http://", 7) == 0 ||
	       g_ascii_strncasecmp(url, "https://", 8) == 0;
}

static void
add_wanted(GPtrArray *wanted, GHashTable *seen, BridgeEpisode *episode)
{
	if (episode->file != NULL || !is_stream(episode->url) ||
	    !g_hash_table_add(seen, episode))
		return;
	g_ptr_array_add(wanted, episode);
}

/* Each podcast's newest N, listened ones included: a set. */
GHashTable *
bridge_downloads_newest(Bridge *bridge)
{
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);
	GHashTable *newest = g_hash_table_new(NULL, NULL);

	for (guint i = 0; i < feeds->len; i++) {
		const BridgeFeed *feed = feeds->pdata[i];
		guint keep = keep_of(bridge, feed);
		g_autoptr(GPtrArray) episodes = NULL;

		if (keep == 0)
			continue;
		episodes = bridge_store_list_episodes(bridge->store, feed);
		for (guint j = 0, n = 0; j < episodes->len && n < keep; j++) {
			BridgeEpisode *episode = episodes->pdata[j];

			if (episode->gone != 0)
				continue;
			g_hash_table_add(newest, episode);
			n++;
		}
	}
	return newest;
}

GPtrArray *
bridge_downloads_wanted(Bridge *bridge)
{
	GPtrArray *wanted = g_ptr_array_new();
	g_autoptr(GHashTable) seen = g_hash_table_new(NULL, NULL);
	g_autoptr(GPtrArray) all =
	        bridge_store_list_episodes(bridge->store, NULL);
	g_autoptr(GHashTable) newest = bridge_downloads_newest(bridge);
	BridgeList *later = bridge_store_get_list(bridge->store, NULL, FALSE);

	for (guint i = 0; i < all->len; i++) {
		BridgeEpisode *episode = all->pdata[i];

		if (episode->download > 0)
			add_wanted(wanted, seen, episode);
	}
	if (bridge->config->download.later && later != NULL)
		for (guint i = 0; i < later->episodes->len; i++) {
			BridgeEpisode *episode = bridge_store_find_episode(
			        bridge->store, later->episodes->pdata[i]);

			if (episode != NULL && !episode->listened &&
			    episode->download >= 0)
				add_wanted(wanted, seen, episode);
		}
	for (guint i = 0; i < all->len; i++) {
		BridgeEpisode *episode = all->pdata[i];

		if (g_hash_table_contains(newest, episode) &&
		    !episode->listened && episode->download >= 0)
			add_wanted(wanted, seen, episode);
	}
	return wanted;
}

/*
 * Tells MPD that its download folder changed, so that its database
 * follows: the whole folder, as MPD 0.23 does not find a file whose
 * folders its database does not have yet. A look at files' dates, cheap.
 */
void
bridge_downloads_tell_mpd(Bridge *bridge)
{
	g_autoptr(GError) error = NULL;

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd) ||
	    bridge->downloads->relative == NULL)
		return;
	if (!bridge_mpd_update(bridge->mpd, bridge->downloads->relative,
	                       &error))
		g_warning("%s", error->message);
}

/* "FOLDER/NAME", unique among files on disk and transfers under way. */
/* When the next try of a failed download is due; 0 when none is. */
static gint64
next_retry(GPtrArray *wanted)
{
	gint64 next = 0;

	for (guint i = 0; i < wanted->len; i++) {
		const BridgeEpisode *episode = wanted->pdata[i];

		if (episode->download_retry > 0 &&
		    (next == 0 || episode->download_retry < next))
			next = episode->download_retry;
	}
	return next;
}

static gboolean
on_timer(gpointer data);

/* One look: delete what is due, fetch what is wanted, arm the timer. */
static void
look(Bridge *bridge)
{
	BridgeDownloads *dl = bridge_downloads_state(bridge);
	g_autoptr(GPtrArray) wanted = NULL;
	gint64 now = bridge_downloads_now();
	gint64 next;

	if (!bridge_downloads_locate(bridge, NULL))
		return;
	bridge_downloads_clean_up(bridge);
	wanted = bridge_downloads_wanted(bridge);
	for (guint i = 0; i < wanted->len; i++) {
		BridgeEpisode *episode = wanted->pdata[i];

		if (episode->download_retry <= now)
			bridge_downloads_fetch(bridge, episode, NULL, NULL);
	}
	bridge_downloads_start_waiting(bridge, dl);
	next = next_retry(wanted);
	g_clear_handle_id(&dl->timer, g_source_remove);
	next = next > now ? MIN(next - now, CLEANUP_INTERVAL)
	                  : CLEANUP_INTERVAL;
	dl->timer = g_timeout_add_seconds((guint)next, on_timer, bridge);
}

static gboolean
on_timer(gpointer data)
{
	Bridge *bridge = data;

	bridge->downloads->timer = 0;
	look(bridge);
	return G_SOURCE_REMOVE;
}

static gboolean
on_pass(gpointer data)
{
	Bridge *bridge = data;

	bridge->downloads->pass = 0;
	look(bridge);
	return G_SOURCE_REMOVE;
}

void
bridge_downloads_changed(Bridge *bridge)
{
	BridgeDownloads *dl = bridge->downloads;

	if (dl == NULL || !dl->started)
		return;
	if (dl->pass == 0)
		dl->pass = g_timeout_add(200, on_pass, bridge);
}

void
bridge_downloads_start(Bridge *bridge)
{
	BridgeDownloads *dl = bridge_downloads_state(bridge);
	g_autoptr(GError) error = NULL;

	dl->started = TRUE;
	if (!bridge_downloads_locate(bridge, &error)) {
		/* Said once; nothing is wanted unless downloads are on. */
		g_debug("%s", error->message);
	} else {
		guint removed = bridge_download_remove_partials(dl->directory);

		if (removed > 0)
			g_message("removed %u partial downloads of an earlier "
			          "run",
			          removed);
	}
	bridge_downloads_changed(bridge);
}

void
bridge_downloads_stop(Bridge *bridge)
{
	BridgeDownloads *dl = bridge->downloads;
	GHashTableIter iter;
	gpointer value;

	if (dl == NULL)
		return;
	dl->started = FALSE;
	g_clear_handle_id(&dl->pass, g_source_remove);
	g_clear_handle_id(&dl->timer, g_source_remove);
	g_queue_clear_full(&dl->waiting, (GDestroyNotify)bridge_transfer_free);
	g_hash_table_iter_init(&iter, dl->active);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		g_cancellable_cancel(((BridgeTransfer *)value)->cancellable);
	/* Transfers end with the fetcher, cancelled; tagging ends itself. */
	g_clear_pointer(&dl->fetcher, feed_fetcher_free);
	while (g_hash_table_size(dl->active) > 0)
		g_main_context_iteration(NULL, TRUE);
}

void
bridge_downloads_clear(Bridge *bridge)
{
	BridgeDownloads *dl = bridge->downloads;

	if (dl == NULL)
		return;
	bridge_downloads_stop(bridge);
	g_hash_table_unref(dl->active);
	g_clear_pointer(&dl->in_db, g_hash_table_unref);
	g_free(dl->music);
	g_free(dl->directory);
	g_free(dl->relative);
	g_free(dl->note);
	g_free(dl->stopped);
	g_free(dl);
	bridge->downloads = NULL;
}

static gboolean
same_set(GHashTable *a, GHashTable *b)
{
	GHashTableIter iter;
	gpointer key;

	if (a == NULL || b == NULL)
		return a == b;
	if (g_hash_table_size(a) != g_hash_table_size(b))
		return FALSE;
	g_hash_table_iter_init(&iter, a);
	while (g_hash_table_iter_next(&iter, &key, NULL))
		if (!g_hash_table_contains(b, key))
			return FALSE;
	return TRUE;
}

void
bridge_downloads_on_database(Bridge *bridge)
{
	BridgeDownloads *dl = bridge_downloads_state(bridge);
	g_autoptr(GHashTable) songs = NULL;
	g_autoptr(GError) error = NULL;

	if (bridge->mpd == NULL || !bridge_mpd_is_connected(bridge->mpd))
		return;
	/* MPD may say now where its music is (MPD 0.24, local socket). */
	if (dl->relative == NULL)
		dl->located = FALSE;
	if (!bridge_downloads_locate(bridge, NULL))
		return;
	if (!bridge_mpd_list_songs(bridge->mpd, dl->relative, &songs, &error)) {
		g_message("%s", error->message);
		return;
	}
	if (same_set(songs, dl->in_db))
		return;
	g_clear_pointer(&dl->in_db, g_hash_table_unref);
	dl->in_db = g_steal_pointer(&songs);
	/* Playlists and the queue name the files MPD has now. */
	bridge_tell(bridge, BRIDGE_NEWS_FILES);
}
