/*
 * Episodes' transfers: each written hidden beside where it goes, tagged
 * in a thread, then renamed into place and told to MPD. They run on a
 * fetcher of their own, so that a 1 GB episode never holds up a feed's
 * refresh. What is wanted, and when, is downloads.c's.
 */
#include "downloads/downloads-private.h"

#include "core/download-files.h"
#include "core/episode-tags.h"
#include "downloads/tags.h"
#include "relay/relay.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

/* A failed download is tried again after a minute, doubling to 6 h. */
#define FIRST_RETRY 60
#define LAST_RETRY  (6 * 60 * 60)
/* A podcast's folder name is cut to this many bytes. */
#define FOLDER_BYTES 100

void
bridge_transfer_free(BridgeTransfer *transfer)
{
	g_free(transfer->episode_id);
	g_clear_object(&transfer->cancellable);
	g_free(transfer->hidden);
	g_free(transfer->final);
	g_free(transfer->relative);
	g_free(transfer);
}

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
end_transfer(Bridge *bridge, BridgeTransfer *transfer, const GError *error)
{
	BridgeDownloads *dl = bridge_downloads_state(bridge);

	g_hash_table_remove(dl->active, transfer->episode_id);
	if (transfer->done != NULL)
		transfer->done(bridge, transfer->episode_id, error,
		               transfer->done_data);
	bridge_transfer_free(transfer);
	bridge_downloads_start_waiting(bridge, dl);
	bridge_downloads_changed(bridge);
}

static void
note_failure(Bridge *bridge, BridgeEpisode *episode, const GError *error)
{
	guint shift = (guint)MIN(episode->download_failures, 10);
	gint64 wait = MIN((gint64)FIRST_RETRY << shift, LAST_RETRY);

	episode->download_failures++;
	episode->download_retry = bridge_downloads_now() + wait;
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
	episode->downloaded = bridge_downloads_now();
	episode->download_failures = 0;
	episode->download_retry = 0;
	g_clear_pointer(&episode->download_error, g_free);
	bridge_changed(bridge);
	g_message("downloaded %s into %s", episode->title, transfer->relative);
	bridge_downloads_tell_mpd(bridge);
	end_transfer(bridge, transfer, NULL);
}

static void
tag(Pending *pending, guint64 size);

static void
on_downloaded(FeedDownloadResult *result, const GError *error, gpointer data)
{
	Pending *pending = data;
	Bridge *bridge = pending->bridge;
	BridgeTransfer *transfer = pending->transfer;
	BridgeEpisode *episode =
	        bridge_store_find_episode(bridge->store, transfer->episode_id);

	if (error != NULL) {
		g_free(pending);
		if (episode != NULL &&
		    !g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
			note_failure(bridge, episode, error);
		end_transfer(bridge, transfer, error);
		return;
	}
	tag(pending, feed_download_result_get_size(result));
}

/* The file is whole at its hidden name: tagged next, off the loop. */
static void
tag(Pending *pending, guint64 size)
{
	Bridge *bridge = pending->bridge;
	BridgeTransfer *transfer = pending->transfer;
	BridgeEpisode *episode =
	        bridge_store_find_episode(bridge->store, transfer->episode_id);
	g_autoptr(GTask) task = NULL;

	transfer->received = size;
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

static void
on_copied(GObject *source, GAsyncResult *result, gpointer data)
{
	Pending *pending = data;
	Bridge *bridge = pending->bridge;
	BridgeTransfer *transfer = pending->transfer;
	BridgeEpisode *episode =
	        bridge_store_find_episode(bridge->store, transfer->episode_id);
	g_autoptr(GError) error = NULL;
	struct stat st;

	if (!g_file_copy_finish(G_FILE(source), result, &error) ||
	    g_stat(transfer->hidden, &st) != 0) {
		if (error == NULL)
			error = g_error_new(G_IO_ERROR, G_IO_ERROR_FAILED,
			                    "%s is gone", transfer->hidden);
		g_free(pending);
		g_unlink(transfer->hidden);
		end_transfer(bridge, transfer, error);
		return;
	}
	if (episode != NULL)
		bridge_relay_file_taken(bridge, episode);
	tag(pending, (guint64)st.st_size);
}

/*
 * The relay fetched all of @episode already: its cache file becomes
 * the download, renamed when it is on the same disk, else copied (in
 * GIO's thread). FALSE when it has no whole file.
 */
static gboolean
take_from_relay(Bridge *bridge, const BridgeEpisode *episode, Pending *pending)
{
	BridgeTransfer *transfer = pending->transfer;
	g_autofree char *cached = NULL;
	g_autoptr(GFile) from = NULL;
	g_autoptr(GFile) to = NULL;
	struct stat st;

	if (!bridge_relay_whole_file(bridge, episode, &cached) ||
	    g_stat(cached, &st) != 0)
		return FALSE;
	g_message("downloading %s from the relay's cache", episode->title);
	if (g_rename(cached, transfer->hidden) == 0) {
		bridge_relay_file_taken(bridge, episode);
		tag(pending, (guint64)st.st_size);
		return TRUE;
	}
	from = g_file_new_for_path(cached);
	to = g_file_new_for_path(transfer->hidden);
	g_file_copy_async(from, to,
	                  G_FILE_COPY_OVERWRITE | G_FILE_COPY_NOFOLLOW_SYMLINKS,
	                  G_PRIORITY_LOW, transfer->cancellable, NULL, NULL,
	                  on_copied, pending);
	return TRUE;
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
	pending = g_new0(Pending, 1);
	pending->bridge = bridge;
	pending->transfer = transfer;
	if (take_from_relay(bridge, episode, pending))
		return;
	request = feed_download_request_new(episode->url, transfer->hidden);
	feed_download_request_set_max_size(request, max);
	feed_download_request_set_progress_func(request, on_progress, transfer,
	                                        NULL);
	g_message("downloading %s", episode->title);
	feed_fetcher_download(fetcher_of(bridge, dl), request,
	                      transfer->cancellable, on_downloaded, pending);
}

/* Starts what waits, as far as the transfers at once and the room allow. */
void
bridge_downloads_start_waiting(Bridge *bridge, BridgeDownloads *dl)
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
		bridge_transfer_free(transfer);
		return;
	}
	g_queue_push_tail(&dl->waiting, transfer);
	bridge_downloads_start_waiting(bridge, dl);
	/* No room: it fails now rather than waiting for good. */
	if (dl->stopped != NULL && !bridge->daemon) {
		g_autoptr(GError) stopped = g_error_new_literal(
		        G_IO_ERROR, G_IO_ERROR_NO_SPACE, dl->stopped);

		g_queue_remove(&dl->waiting, transfer);
		if (done != NULL)
			done(bridge, episode->id, stopped, user_data);
		bridge_transfer_free(transfer);
	}
}
