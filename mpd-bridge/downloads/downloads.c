/*
 * Keeping episodes on disk: what to download and when, where files go,
 * the transfers, tagging, and telling MPD (see downloads.h; what goes,
 * and the room left, are download-room.c's). Transfers run on a fetcher
 * of their own, so that a 1 GB episode never holds up a feed's refresh.
 */
#include "downloads/downloads-private.h"

#include "core/episode-tags.h"

#include "downloads/download-files.h"
#include "downloads/tags.h"
#include "mpd/mpd-conf.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIRST_RETRY      60
#define LAST_RETRY       (6 * 60 * 60)
#define CLEANUP_INTERVAL (60 * 60)
#define FOLDER_BYTES     100

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

static gint64
now_seconds(void)
{
	return g_get_real_time() / G_USEC_PER_SEC;
}

static void
transfer_free(BridgeTransfer *transfer)
{
	g_free(transfer->episode_id);
	g_clear_object(&transfer->cancellable);
	g_free(transfer->hidden);
	g_free(transfer->final);
	g_free(transfer->relative);
	g_free(transfer);
}

gboolean
bridge_downloads_is_file(const char *uri)
{
	return strstr(uri, "://") == NULL;
}

const char *
bridge_downloads_uri(const Bridge *bridge, const BridgeEpisode *episode)
{
	const BridgeDownloads *dl = bridge->downloads;

	if (episode->file != NULL && dl != NULL && dl->in_db != NULL &&
	    g_hash_table_contains(dl->in_db, episode->file))
		return episode->file;
	return episode->url;
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
static gboolean
is_taken(BridgeDownloads *dl, const char *path)
{
	GHashTableIter iter;
	gpointer value;

	if (g_file_test(path, G_FILE_TEST_EXISTS) ||
	    g_file_test(path, G_FILE_TEST_IS_SYMLINK))
		return TRUE;
	g_hash_table_iter_init(&iter, dl->active);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		if (strcmp(((BridgeTransfer *)value)->final, path) == 0)
			return TRUE;
	return FALSE;
}

static char *
unique_path(BridgeDownloads *dl, const char *folder, const char *name)
{
	const char *dot = strrchr(name, '.');
	g_autofree char *stem = g_strndup(name, (gsize)(dot - name));
	char *path = g_build_filename(folder, name, NULL);

	for (guint n = 2; is_taken(dl, path) && n < 1000; n++) {
		g_autofree char *other =
		        g_strdup_printf("%s (%u)%s", stem, n, dot);

		g_free(path);
		path = g_build_filename(folder, other, NULL);
	}
	return path;
}

/* The podcast's folder, made when new; never a link out of it. */
static char *
podcast_folder(Bridge *bridge, BridgeDownloads *dl, const BridgeEpisode *e,
               GError **error)
{
	const BridgeFeed *feed =
	        bridge_store_find_feed(bridge->store, e->feed_id);
	g_autofree char *name = bridge_download_safe_name(
	        feed != NULL ? bridge_feed_get_name(feed) : NULL, FOLDER_BYTES);
	char *folder = g_build_filename(dl->directory,
	                                name != NULL ? name : e->feed_id, NULL);
	GStatBuf st;

	if (g_mkdir_with_parents(folder, 0755) != 0) {
		int saved = errno;

		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved),
		            "cannot make the folder %s: %s", folder,
		            g_strerror(saved));
		g_free(folder);
		return NULL;
	}
	if (g_lstat(folder, &st) != 0 || !S_ISDIR(st.st_mode)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
		            "%s is not a folder (a link?); move it away",
		            folder);
		g_free(folder);
		return NULL;
	}
	return folder;
}

static void
start_waiting(Bridge *bridge, BridgeDownloads *dl);

static void
end_transfer(Bridge *bridge, BridgeTransfer *transfer, const GError *error)
{
	BridgeDownloads *dl = bridge_downloads_state(bridge);

	g_hash_table_remove(dl->active, transfer->episode_id);
	if (transfer->done != NULL)
		transfer->done(bridge, transfer->episode_id, error,
		               transfer->done_data);
	transfer_free(transfer);
	start_waiting(bridge, dl);
	bridge_downloads_changed(bridge);
}

static void
note_failure(Bridge *bridge, BridgeEpisode *episode, const GError *error)
{
	guint shift = (guint)MIN(episode->download_failures, 10);
	gint64 wait = MIN((gint64)FIRST_RETRY << shift, LAST_RETRY);

	episode->download_failures++;
	episode->download_retry = now_seconds() + wait;
	g_free(episode->download_error);
	episode->download_error = g_strdup(error->message);
	bridge_changed(bridge);
	g_warning("cannot download %s: %s; trying again in %" G_GINT64_FORMAT
	          " min",
	          episode->title, error->message, (wait + 59) / 60);
}

/* The tags a file gets: what MPD's queue shows for a stream. */
typedef struct {
	char *path;
	char *title, *album, *artist, *date, *comment;
	guint track;
} TagJob;

static void
tag_job_free(TagJob *job)
{
	g_free(job->path);
	g_free(job->title);
	g_free(job->album);
	g_free(job->artist);
	g_free(job->date);
	g_free(job->comment);
	g_free(job);
}

static void
tag_in_thread(GTask *task, gpointer source, gpointer data,
              GCancellable *cancellable)
{
	TagJob *job = data;
	BridgeFileTags tags = {
		.title = job->title,
		.album = job->album,
		.artist = job->artist,
		.date = job->date,
		.genre = "Podcast",
		.track = job->track,
		.comment = job->comment,
	};
	GError *error = NULL;

	if (bridge_tags_write(job->path, &tags, &error))
		g_task_return_boolean(task, TRUE);
	else
		g_task_return_error(task, error);
}

static TagJob *
tag_job_new(Bridge *bridge, const BridgeEpisode *episode, const char *path)
{
	TagJob *job = g_new0(TagJob, 1);
	g_autofree char *track = NULL;
	BridgeTags tags;

	bridge_episode_tags(bridge, episode, &tags, &job->date, &track);
	job->path = g_strdup(path);
	job->title = g_strdup(tags.title);
	job->album = g_strdup(tags.album);
	job->artist = g_strdup(tags.artist);
	job->track =
	        track != NULL ? (guint)g_ascii_strtoull(track, NULL, 10) : 0;
	job->comment = g_strdup(episode->guid);
	return job;
}

typedef struct {
	Bridge *bridge;
	BridgeTransfer *transfer;
} Pending;

static void
on_tagged(GObject *source, GAsyncResult *result, gpointer data)
{
	Pending *pending = data;
	Bridge *bridge = pending->bridge;
	BridgeTransfer *transfer = pending->transfer;
	BridgeEpisode *episode =
	        bridge_store_find_episode(bridge->store, transfer->episode_id);
	g_autoptr(GError) error = NULL;
	g_autofree char *final = NULL;

	g_free(pending);
	if (!g_task_propagate_boolean(G_TASK(result), &error))
		g_warning("%s: the file keeps its own tags: %s",
		          transfer->hidden, error->message);
	g_clear_error(&error);
	if (episode == NULL) {
		g_unlink(transfer->hidden);
		g_set_error_literal(&error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
		                    "the episode is gone");
		end_transfer(bridge, transfer, error);
		return;
	}
	if (g_file_test(transfer->final, G_FILE_TEST_EXISTS) ||
	    g_file_test(transfer->final, G_FILE_TEST_IS_SYMLINK)) {
		g_autofree char *folder = g_path_get_dirname(transfer->final);
		g_autofree char *name = g_path_get_basename(transfer->final);
		BridgeDownloads *dl = bridge_downloads_state(bridge);

		g_free(transfer->final);
		transfer->final = unique_path(dl, folder, name);
		g_free(transfer->relative);
		transfer->relative =
		        g_strdup(transfer->final + strlen(dl->music) + 1);
	}
	if (g_rename(transfer->hidden, transfer->final) != 0) {
		int saved = errno;

		g_set_error(&error, G_FILE_ERROR,
		            g_file_error_from_errno(saved),
		            "cannot rename %s to %s: %s", transfer->hidden,
		            transfer->final, g_strerror(saved));
		g_unlink(transfer->hidden);
		note_failure(bridge, episode, error);
		end_transfer(bridge, transfer, error);
		return;
	}
	g_free(episode->file);
	episode->file = g_strdup(transfer->relative);
	episode->downloaded = now_seconds();
	episode->download_failures = 0;
	episode->download_retry = 0;
	g_clear_pointer(&episode->download_error, g_free);
	bridge_changed(bridge);
	g_message("downloaded %s into %s", episode->title, transfer->relative);
	bridge_downloads_tell_mpd(bridge);
	end_transfer(bridge, transfer, NULL);
}

static void
on_downloaded(FeedDownloadResult *result, const GError *error, gpointer data)
{
	Pending *pending = data;
	Bridge *bridge = pending->bridge;
	BridgeTransfer *transfer = pending->transfer;
	BridgeEpisode *episode =
	        bridge_store_find_episode(bridge->store, transfer->episode_id);
	g_autoptr(GTask) task = NULL;

	if (error != NULL) {
		g_free(pending);
		if (episode != NULL &&
		    !g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
			note_failure(bridge, episode, error);
		end_transfer(bridge, transfer, error);
		return;
	}
	transfer->received = feed_download_result_get_size(result);
	transfer->total = transfer->received;
	transfer->tagging = TRUE;
	if (episode == NULL) {
		g_autoptr(GError) gone =
		        g_error_new_literal(G_IO_ERROR, G_IO_ERROR_CANCELLED,
		                            "the episode is gone");

		g_free(pending);
		g_unlink(transfer->hidden);
		end_transfer(bridge, transfer, gone);
		return;
	}
	/* TagLib rewrites a file when its tags grow: not on the loop. */
	task = g_task_new(NULL, NULL, on_tagged, pending);
	g_task_set_task_data(task,
	                     tag_job_new(bridge, episode, transfer->hidden),
	                     (GDestroyNotify)tag_job_free);
	g_task_run_in_thread(task, tag_in_thread);
}

static void
on_progress(guint64 received, guint64 total, gpointer data)
{
	BridgeTransfer *transfer = data;

	transfer->received = received;
	transfer->total = total;
}

static FeedFetcher *
fetcher_of(Bridge *bridge, BridgeDownloads *dl)
{
	const BridgeDownloadSettings *s = &bridge->config->download;

	if (dl->fetcher == NULL) {
		dl->fetcher = feed_fetcher_new(NULL);
		feed_fetcher_set_max_transfers(dl->fetcher, s->jobs);
		feed_fetcher_set_max_per_host(dl->fetcher, s->per_host);
	}
	return dl->fetcher;
}

/* Starts @transfer with up to @max bytes. */
static void
start(Bridge *bridge, BridgeDownloads *dl, BridgeTransfer *transfer,
      guint64 max)
{
	BridgeEpisode *episode =
	        bridge_store_find_episode(bridge->store, transfer->episode_id);
	g_autoptr(FeedDownloadRequest) request = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree char *folder = NULL;
	g_autofree char *name = NULL;
	g_autofree char *hidden_name = NULL;
	Pending *pending;

	if (episode == NULL || episode->file != NULL) {
		end_transfer(bridge, transfer, NULL);
		return;
	}
	folder = podcast_folder(bridge, dl, episode, &error);
	if (folder == NULL) {
		note_failure(bridge, episode, error);
		end_transfer(bridge, transfer, error);
		return;
	}
	name = bridge_download_file_name(
	        episode->title, episode->published,
	        bridge_download_extension(episode->type, episode->url),
	        episode->id);
	transfer->final = unique_path(dl, folder, name);
	transfer->relative = g_strdup(transfer->final + strlen(dl->music) + 1);
	hidden_name = g_strconcat(".", strrchr(transfer->final, '/') + 1, NULL);
	transfer->hidden = g_build_filename(folder, hidden_name, NULL);
	transfer->cancellable = g_cancellable_new();
	g_hash_table_insert(dl->active, transfer->episode_id, transfer);
	request = feed_download_request_new(episode->url, transfer->hidden);
	feed_download_request_set_max_size(request, max);
	feed_download_request_set_progress_func(request, on_progress, transfer,
	                                        NULL);
	pending = g_new0(Pending, 1);
	pending->bridge = bridge;
	pending->transfer = transfer;
	g_message("downloading %s", episode->title);
	feed_fetcher_download(fetcher_of(bridge, dl), request,
	                      transfer->cancellable, on_downloaded, pending);
}

/* Starts what waits, as far as the transfers at once and the room allow. */
static void
start_waiting(Bridge *bridge, BridgeDownloads *dl)
{
	while (!g_queue_is_empty(&dl->waiting) &&
	       g_hash_table_size(dl->active) < bridge->config->download.jobs) {
		guint64 max = bridge_downloads_make_room(bridge);

		if (max == 0)
			return;
		start(bridge, dl, g_queue_pop_head(&dl->waiting), max);
	}
}

void
bridge_downloads_fetch(Bridge *bridge, BridgeEpisode *episode,
                       BridgeDownloadDone done, gpointer user_data)
{
	BridgeDownloads *dl = bridge_downloads_state(bridge);
	g_autoptr(GError) error = NULL;
	BridgeTransfer *transfer;

	if (bridge_downloads_get_transfer(bridge, episode) != NULL)
		return;
	transfer = g_new0(BridgeTransfer, 1);
	transfer->episode_id = g_strdup(episode->id);
	transfer->done = done;
	transfer->done_data = user_data;
	if (!bridge_downloads_locate(bridge, &error)) {
		if (done != NULL)
			done(bridge, episode->id, error, user_data);
		transfer_free(transfer);
		return;
	}
	g_queue_push_tail(&dl->waiting, transfer);
	start_waiting(bridge, dl);
	/* No room: it fails now rather than waiting for good. */
	if (dl->stopped != NULL && !bridge->daemon) {
		g_autoptr(GError) stopped = g_error_new_literal(
		        G_IO_ERROR, G_IO_ERROR_NO_SPACE, dl->stopped);

		g_queue_remove(&dl->waiting, transfer);
		if (done != NULL)
			done(bridge, episode->id, stopped, user_data);
		transfer_free(transfer);
	}
}

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
	gint64 now = now_seconds();
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
	start_waiting(bridge, dl);
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
	g_queue_clear_full(&dl->waiting, (GDestroyNotify)transfer_free);
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
