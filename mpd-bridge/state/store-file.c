/*
 * The state file on disk: saved whole, to a temporary file renamed over
 * it; reloaded when another writer changed it; locked while one changes
 * it. The text is made by store-write.c and read by store-load.c.
 */
#include "state/store-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCK_POLL_MS 20

void
bridge_store_stamp_from_stat(Stamp *stamp, const struct stat *st)
{
	stamp->exists = TRUE;
	stamp->dev = st->st_dev;
	stamp->ino = st->st_ino;
	stamp->size = st->st_size;
	stamp->mtime = st->st_mtim;
}

static gboolean
stamp_equal(const Stamp *a, const Stamp *b)
{
	if (a->exists != b->exists)
		return FALSE;
	return a->journal == b->journal &&
	       (!a->exists ||
	        (a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	         a->mtime.tv_sec == b->mtime.tv_sec &&
	         a->mtime.tv_nsec == b->mtime.tv_nsec));
}

/*
 * Adds to @error what to do about a state directory that cannot be
 * written to. The state file itself is never touched by a failed save:
 * the new state goes to a temporary file first.
 */
static void
add_advice(GError **error, const char *path)
{
	g_autofree char *dir = NULL;
	g_autofree char *advice = NULL;
	char *message;

	if (error == NULL || *error == NULL || (*error)->domain != G_FILE_ERROR)
		return;
	dir = g_path_get_dirname(path);
	switch ((*error)->code) {
	case G_FILE_ERROR_NOSPC:
		advice = g_strdup_printf("free some space on the file system "
		                         "of %s; %s is left as it was",
		                         dir, path);
		break;
	case G_FILE_ERROR_ROFS:
		advice = g_strdup_printf(
		        "%s is on a read-only file system: make it writable, "
		        "or name another file with state_file in the [bridge] "
		        "group of the config; %s is left as it was",
		        dir, path);
		break;
	case G_FILE_ERROR_ACCES:
	case G_FILE_ERROR_PERM:
		advice = g_strdup_printf("make %s writable for user %s; %s is "
		                         "left as it was",
		                         dir, g_get_user_name(), path);
		break;
	default:
		return;
	}
	message = g_strconcat((*error)->message, "; ", advice, NULL);
	g_free((*error)->message);
	(*error)->message = message;
}

static gboolean
make_parent(const char *path, const char *what, GError **error)
{
	g_autofree char *dir = g_path_get_dirname(path);
	int errsv;

	if (g_mkdir_with_parents(dir, 0700) == 0)
		return TRUE;
	errsv = errno;
	g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv),
	            "cannot %s %s: cannot create the directory %s: %s", what,
	            path, dir, g_strerror(errsv));
	return FALSE;
}

int
bridge_store_write_all(int fd, const char *data, gsize length)
{
	while (length > 0) {
		ssize_t n = write(fd, data, length);

		if (n < 0 && errno != EINTR)
			return errno;
		if (n > 0) {
			data += n;
			length -= (gsize)n;
		}
	}
	return 0;
}

/* The temporary file of a save: PATH.saving-XXXXXX. */
#define SAVING_SUFFIX ".saving-"

/*
 * Writes @text beside @path and renames it over @path, as
 * g_file_set_contents_full() does, but under a name of its own, so that
 * what a save killed halfway leaves behind can be told from a user's own
 * PATH.backup and removed (see remove_leftovers()).
 */
static char *
write_beside(const char *path, const GString *text, GError **error)
{
	char *temp = g_strconcat(path, SAVING_SUFFIX "XXXXXX", NULL);
	int fd = g_mkstemp_full(temp, O_WRONLY | O_CLOEXEC, 0600);
	int errsv;

	if (fd < 0) {
		errsv = errno;
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv),
		            "cannot create a file beside it: %s",
		            g_strerror(errsv));
		g_free(temp);
		return NULL;
	}
	errsv = bridge_store_write_all(fd, text->str, text->len);
	if (errsv == 0 && fsync(fd) != 0)
		errsv = errno;
	if (close(fd) != 0 && errsv == 0)
		errsv = errno;
	if (errsv == 0)
		return temp;
	unlink(temp);
	g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv),
	            "writing %s: %s", temp, g_strerror(errsv));
	g_free(temp);
	return NULL;
}

static gboolean
rename_over(const char *temp, const char *path, GError **error)
{
	int errsv;

	if (rename(temp, path) == 0)
		return TRUE;
	errsv = errno;
	unlink(temp);
	g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv),
	            "renaming %s: %s", temp, g_strerror(errsv));
	return FALSE;
}

/* The temporary files of the episode caches (store-cache.c). */
static void
remove_cache_leftovers(const char *path)
{
	g_autofree char *dir_path = g_strconcat(path, ".cache", NULL);
	g_autoptr(GDir) dir = g_dir_open(dir_path, 0, NULL);
	const char *name;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		const char *suffix = strstr(name, SAVING_SUFFIX);
		g_autofree char *file = NULL;

		if (suffix == NULL ||
		    strlen(suffix) != strlen(SAVING_SUFFIX) + 6)
			continue;
		file = g_build_filename(dir_path, name, NULL);
		if (unlink(file) == 0)
			g_debug("removed %s, left by a save that was cut short",
			        file);
	}
}

/* Removes what saves killed halfway left; under the lock, so none runs. */
static void
remove_leftovers(const char *path)
{
	g_autofree char *dir_path = g_path_get_dirname(path);
	g_autofree char *base = g_path_get_basename(path);
	g_autofree char *prefix = g_strconcat(base, SAVING_SUFFIX, NULL);
	/* The journal's, as a save's end keeps its newest lines. */
	g_autofree char *journal_prefix =
	        g_strconcat(base, ".journal" SAVING_SUFFIX, NULL);
	g_autoptr(GDir) dir = g_dir_open(dir_path, 0, NULL);
	const char *name;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree char *file = NULL;

		if (!(g_str_has_prefix(name, prefix) &&
		      strlen(name) == strlen(prefix) + 6) &&
		    !(g_str_has_prefix(name, journal_prefix) &&
		      strlen(name) == strlen(journal_prefix) + 6))
			continue;
		file = g_build_filename(dir_path, name, NULL);
		if (unlink(file) == 0)
			g_debug("removed %s, left by a save that was cut short",
			        file);
	}
	remove_cache_leftovers(path);
}

/*
 * Writes the caches that @save made beside their files, and its text
 * beside the state file, synced; nothing is renamed yet. Touches
 * nothing of the store: this runs in a thread.
 */
static gboolean
write_save(BridgeStoreSave *save, GError **error)
{
	if (!make_parent(save->path, "save the state to", error))
		return FALSE;
	for (guint i = 0; i < save->caches->len; i++) {
		CacheBlob *blob = g_ptr_array_index(save->caches, i);
		int errsv = bridge_store_cache_write(save->path, blob);

		if (errsv != 0) {
			g_set_error(error, G_FILE_ERROR,
			            g_file_error_from_errno(errsv),
			            "cannot save the state to %s: cannot write "
			            "the episode cache of feed %s: %s",
			            save->path, blob->feed_id,
			            g_strerror(errsv));
			return FALSE;
		}
	}
	save->temp = write_beside(save->path, save->text, error);
	if (save->temp == NULL) {
		g_prefix_error(error,
		               "cannot save the state to %s: ", save->path);
		return FALSE;
	}
	return TRUE;
}

/*
 * Keeps a state file of format 1 as PATH.v1 before the first save of
 * the new format replaces it: an older mpd-bridge reads the copy.
 */
static void
keep_old_format(const BridgeStore *store)
{
	g_autofree char *copy = g_strdup_printf("%s.v%" G_GINT64_FORMAT,
	                                        store->path, store->version);
	g_autoptr(GFile) from = NULL;
	g_autoptr(GFile) to = NULL;
	g_autoptr(GError) error = NULL;

	if (unlink(copy) != 0 && errno != ENOENT)
		g_debug("cannot remove %s: %s", copy, g_strerror(errno));
	if (link(store->path, copy) != 0) {
		/* A file system without hard links. */
		from = g_file_new_for_path(store->path);
		to = g_file_new_for_path(copy);
		if (!g_file_copy(from, to, G_FILE_COPY_OVERWRITE, NULL, NULL,
		                 NULL, &error)) {
			g_warning("cannot keep a copy of %s as %s before "
			          "converting it: %s",
			          store->path, copy, error->message);
			return;
		}
	}
	g_message("converting the state file %s to format %d; the file as "
	          "it was is kept as %s, which an older mpd-bridge reads",
	          store->path, BRIDGE_STORE_VERSION, copy);
}

/*
 * On the loop: puts what write_save() wrote in place, the caches first.
 * A crash between them leaves caches of a number the key file does not
 * name yet: a load reads them, and refreshes their feeds whole.
 */
static gboolean
commit_save(BridgeStoreSave *save, GError **error)
{
	BridgeStore *store = save->store;
	struct stat st;

	if (store->version < BRIDGE_STORE_VERSION && store->stamp.exists)
		keep_old_format(store);
	if (!bridge_store_cache_commit(store, save->caches, save->uncached,
	                               error) ||
	    !rename_over(save->temp, store->path, error)) {
		g_prefix_error(error,
		               "cannot save the state to %s: ", store->path);
		return FALSE;
	}
	g_clear_pointer(&save->temp, g_free);
	g_clear_pointer(&save->uncached, g_ptr_array_unref);
	if (stat(store->path, &st) == 0)
		bridge_store_stamp_from_stat(&store->stamp, &st);
	store->version = BRIDGE_STORE_VERSION;
	store->saves++;
	return TRUE;
}

gboolean
bridge_store_save(BridgeStore *store, GError **error)
{
	BridgeStoreSave *save = NULL;
	gboolean ok = FALSE;

	g_return_val_if_fail(store != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	save = bridge_store_save_begin(store);
	bridge_store_save_step(save, G_MAXINT64 / 2);
	save->path = g_strdup(store->path);
	ok = write_save(save, error) && commit_save(save, error);
	if (!ok)
		add_advice(error, store->path);
	bridge_store_save_free(save);
	if (!ok)
		return FALSE;
	/*
	 * The file holds what the journal said now. A crash right between
	 * the rename and this leaves both: a load replays lines that are
	 * older than the file by at most one checkpoint's time.
	 */
	bridge_store_journal_remove(store);
	return TRUE;
}

void
bridge_store_save_free(BridgeStoreSave *save)
{
	if (save == NULL)
		return;
	if (save->temp != NULL)
		unlink(save->temp);
	/* Not saved: the next save removes those caches. */
	if (save->uncached != NULL) {
		for (guint i = 0; i < save->uncached->len; i++)
			g_ptr_array_add(save->store->uncached,
			                g_strdup(save->uncached->pdata[i]));
		g_ptr_array_unref(save->uncached);
	}
	g_hash_table_unref(save->packed);
	g_ptr_array_unref(save->caches);
	if (save->kept != NULL)
		g_hash_table_unref(save->kept);
	g_string_free(save->text, TRUE);
	g_key_file_free(save->scratch);
	g_string_free(save->name, TRUE);
	g_free(save->path);
	g_free(save->temp);
	g_free(save);
}

/* The thread's part: the text, written beside the file and synced. */
static void
write_in_thread(GTask *task, gpointer source, gpointer data,
                GCancellable *cancellable)
{
	BridgeStoreSave *save = data;
	GError *error = NULL;
	gint64 start = g_get_monotonic_time();

	if (!write_save(save, &error)) {
		g_task_return_error(task, error);
		return;
	}
	save->write_us = g_get_monotonic_time() - start;
	g_task_return_boolean(task, TRUE);
}

void
bridge_store_save_write_async(BridgeStoreSave *save, GAsyncReadyCallback done,
                              gpointer data)
{
	g_autoptr(GTask) task = g_task_new(NULL, NULL, done, data);

	g_return_if_fail(save->whole);
	save->path = g_strdup(save->store->path);
	/* Made before the thread, which touches nothing of the store. */
	g_task_set_task_data(task, save, NULL);
	g_task_run_in_thread(task, write_in_thread);
}

gboolean
bridge_store_save_finish(BridgeStoreSave *save, GAsyncResult *result,
                         GError **error)
{
	BridgeStore *store = save->store;
	g_autoptr(GError) failed = NULL;
	gboolean ok = FALSE;

	if (!g_task_propagate_boolean(G_TASK(result), error)) {
		add_advice(error, store->path);
		goto out;
	}
	/* A whole save since holds all this one did, and more. */
	if (store->saves != save->saves) {
		ok = TRUE;
		goto out;
	}
	if (!commit_save(save, error)) {
		add_advice(error, store->path);
		goto out;
	}
	ok = TRUE;
	g_debug("saved the state to %s: %zu bytes and %u episode caches made "
	        "in %u slices of the loop, the longest %.1f ms, then written "
	        "in %.1f ms",
	        store->path, save->text->len, save->caches->len, save->slices,
	        save->longest_us / 1000.0, save->write_us / 1000.0);
	/*
	 * Lines the file holds now must go: replayed over it, an old
	 * position would undo a change saved since (a `mark new`).
	 */
	if (!bridge_store_journal_keep_after(store, save->journal, &failed)) {
		g_warning("%s; removing it, with what the last seconds "
		          "of play wrote",
		          failed->message);
		bridge_store_journal_remove(store);
	}
out:
	bridge_store_save_free(save);
	return ok;
}

/* Swaps in the file's state when another writer changed it. */
static gboolean
reload_if_changed(BridgeStore *store, GError **error)
{
	BridgeStore *fresh = NULL;
	BridgeStore old;
	Stamp now = { 0 };
	struct stat st;

	if (stat(store->path, &st) == 0)
		bridge_store_stamp_from_stat(&now, &st);
	now.journal = bridge_store_journal_size(store);
	if (stamp_equal(&now, &store->stamp))
		return TRUE;
	fresh = bridge_store_new_empty(store->path);
	if (!bridge_store_load(fresh, error)) {
		bridge_store_free(fresh);
		return FALSE;
	}
	old = *store;
	*store = *fresh;
	*fresh = old;
	/* Another state altogether: a save in slices starts over. */
	store->generation = old.generation + 1;
	store->saves = old.saves + 1;
	/* The path and the lock stay with the store. */
	fresh->path = store->path;
	store->path = old.path;
	fresh->lock_fd = -1;
	store->lock_fd = old.lock_fd;
	bridge_store_free(fresh);
	return TRUE;
}

gboolean
bridge_store_reload(BridgeStore *store, GError **error)
{
	g_return_val_if_fail(store != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	return reload_if_changed(store, error);
}

/* The process that holds the lock, as it wrote itself in; 0: unknown. */
static long
lock_holder(int fd)
{
	char buffer[32];
	ssize_t n = pread(fd, buffer, sizeof(buffer) - 1, 0);
	long pid = 0;

	if (n <= 0)
		return 0;
	buffer[n] = '\0';
	pid = strtol(buffer, NULL, 10);
	return pid > 0 ? pid : 0;
}

static void
lock_timed_out(const BridgeStore *store, int fd, guint timeout_ms,
               GError **error)
{
	long pid = lock_holder(fd);
	g_autofree char *holder =
	        pid > 0 ? g_strdup_printf(" (process %ld)", pid) : NULL;

	g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_AGAIN,
	            "cannot lock the state file %s: another mpd-bridge%s "
	            "holds %s.lock and did not let go within %u ms; try again "
	            "when it is done",
	            store->path, holder != NULL ? holder : "", store->path,
	            timeout_ms);
}

gboolean
bridge_store_lock(BridgeStore *store, guint timeout_ms, GError **error)
{
	g_autofree char *lock_path = NULL;
	g_autofree char *pid = NULL;
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	int fd;

	g_return_val_if_fail(store != NULL, FALSE);
	g_return_val_if_fail(store->lock_fd < 0, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	lock_path = g_strconcat(store->path, ".lock", NULL);
	if (!make_parent(lock_path, "lock", error)) {
		add_advice(error, store->path);
		return FALSE;
	}
	fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		int errsv = errno;

		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv),
		            "cannot lock the state file %s: cannot open %s: %s",
		            store->path, lock_path, g_strerror(errsv));
		add_advice(error, store->path);
		return FALSE;
	}
	while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int errsv = errno;
		gint64 now = g_get_monotonic_time();

		if (errsv == EINTR)
			continue;
		if (errsv == EWOULDBLOCK && now < deadline) {
			g_usleep((gulong)MIN(LOCK_POLL_MS * 1000,
			                     deadline - now));
			continue;
		}
		if (errsv == EWOULDBLOCK)
			lock_timed_out(store, fd, timeout_ms, error);
		else
			g_set_error(error, G_FILE_ERROR,
			            g_file_error_from_errno(errsv),
			            "cannot lock the state file %s: %s",
			            store->path, g_strerror(errsv));
		close(fd);
		return FALSE;
	}
	/* Only for the message of whoever waits for it. */
	pid = g_strdup_printf("%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 ||
	    pwrite(fd, pid, strlen(pid), 0) != (ssize_t)strlen(pid))
		g_debug("cannot write the process id to %s: %s", lock_path,
		        g_strerror(errno));
	store->lock_fd = fd;
	remove_leftovers(store->path);
	if (!reload_if_changed(store, error)) {
		bridge_store_unlock(store);
		return FALSE;
	}
	return TRUE;
}

void
bridge_store_unlock(BridgeStore *store)
{
	g_return_if_fail(store != NULL);

	if (store->lock_fd < 0)
		return;
	/* Closing the last descriptor releases the flock. */
	close(store->lock_fd);
	store->lock_fd = -1;
}
