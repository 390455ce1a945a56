/*
 * The partial file of a download, PATH.part, and its note, PATH.part.info,
 * which says where the bytes came from so that a later download can ask
 * for the rest. Neither name is ever followed as a symbolic link: the
 * download directory may be shared (MPD's music directory), and a link
 * planted there must not make a download write somewhere else.
 */
#include "download-private.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INFO_GROUP    "download"
#define INFO_MAX_SIZE (64 * 1024)
/* Bytes written between two nudges to the disk's writeback. */
#define FLUSH_STEP (8 * 1024 * 1024)

void
feed_partial_info_clear(PartialInfo *info)
{
	g_clear_pointer(&info->url, g_free);
	g_clear_pointer(&info->validator, g_free);
	info->total = 0;
}

void
feed_partial_init(Partial *partial, const char *path)
{
	partial->path = g_strdup(path);
	partial->part_path = g_strconcat(path, ".part", NULL);
	partial->info_path = g_strconcat(path, ".part.info", NULL);
	partial->fd = -1;
	partial->size = 0;
}

void
feed_partial_close(Partial *partial)
{
	if (partial->fd >= 0)
		close(partial->fd);
	partial->fd = -1;
}

void
feed_partial_clear(Partial *partial)
{
	feed_partial_close(partial);
	g_clear_pointer(&partial->path, g_free);
	g_clear_pointer(&partial->part_path, g_free);
	g_clear_pointer(&partial->info_path, g_free);
}

void
feed_partial_discard(Partial *partial)
{
	feed_partial_close(partial);
	g_unlink(partial->part_path);
	g_unlink(partial->info_path);
	partial->size = 0;
}

static gboolean
set_errno_error(GError **error, int code, const char *what, const char *path)
{
	g_set_error(error, G_IO_ERROR, g_io_error_from_errno(code),
	            "cannot %s %s: %s", what, path, g_strerror(code));
	return FALSE;
}

/* The note, read without following a link; NULL when it is not there. */
static char *
read_note(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	GString *data;
	char buffer[4096];

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > INFO_MAX_SIZE) {
		close(fd);
		return NULL;
	}
	data = g_string_new(NULL);
	for (;;) {
		ssize_t n = read(fd, buffer, sizeof buffer);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || data->len + (gsize)n > INFO_MAX_SIZE) {
			close(fd);
			if (n == 0)
				return g_string_free(data, FALSE);
			g_string_free(data, TRUE);
			return NULL;
		}
		g_string_append_len(data, buffer, n);
	}
}

static gboolean
load_info(const char *path, PartialInfo *info)
{
	g_autofree char *data = read_note(path);
	g_autoptr(GKeyFile) key_file = g_key_file_new();
	g_autofree char *total = NULL;

	feed_partial_info_clear(info);
	if (data == NULL ||
	    !g_key_file_load_from_data(key_file, data, (gsize)-1,
	                               G_KEY_FILE_NONE, NULL))
		return FALSE;
	info->url = g_key_file_get_string(key_file, INFO_GROUP, "url", NULL);
	info->validator =
	        g_key_file_get_string(key_file, INFO_GROUP, "validator", NULL);
	total = g_key_file_get_string(key_file, INFO_GROUP, "total", NULL);
	if (total != NULL)
		info->total = g_ascii_strtoull(total, NULL, 10);
	if (info->url == NULL || info->validator == NULL ||
	    *info->validator == '\0') {
		feed_partial_info_clear(info);
		return FALSE;
	}
	return TRUE;
}

static gboolean
save_info(const char *path, const PartialInfo *info, GError **error)
{
	g_autoptr(GKeyFile) key_file = g_key_file_new();
	g_autofree char *data = NULL;
	g_autofree char *total =
	        g_strdup_printf("%" G_GUINT64_FORMAT, info->total);
	gsize length;

	g_key_file_set_string(key_file, INFO_GROUP, "url", info->url);
	g_key_file_set_string(key_file, INFO_GROUP, "validator",
	                      info->validator);
	g_key_file_set_string(key_file, INFO_GROUP, "total", total);
	data = g_key_file_to_data(key_file, &length, NULL);
	/* A temporary file renamed over the name: a link there is replaced. */
	return g_file_set_contents_full(path, data, length,
	                                G_FILE_SET_CONTENTS_CONSISTENT, 0644,
	                                error);
}

gboolean
feed_partial_find(Partial *partial, const char *url, PartialInfo *info)
{
	struct stat st;

	if (!load_info(partial->info_path, info))
		return FALSE;
	if (strcmp(info->url, url) == 0 &&
	    lstat(partial->part_path, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size > 0 &&
	    (info->total == 0 || (guint64)st.st_size <= info->total)) {
		partial->size = (guint64)st.st_size;
		return TRUE;
	}
	feed_partial_info_clear(info);
	return FALSE;
}

gboolean
feed_partial_open(Partial *partial, guint64 keep, const PartialInfo *info,
                  GError **error)
{
	/* O_NONBLOCK: opening a FIFO planted there must not hang. */
	int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
	const char *path = partial->part_path;
	g_autoptr(GError) info_error = NULL;
	struct stat st;
	int fd;

	g_assert(partial->fd < 0);
	if (keep == 0 && g_unlink(partial->info_path) != 0 && errno != ENOENT)
		return set_errno_error(error, errno, "remove",
		                       partial->info_path);
	fd = open(path, flags, 0644);
	if (fd < 0 && errno == ELOOP) {
		if (g_unlink(path) != 0 && errno != ENOENT)
			return set_errno_error(error, errno, "remove the link",
			                       path);
		fd = open(path, flags | O_EXCL, 0644);
	}
	if (fd < 0)
		return set_errno_error(error, errno, "create", path);
	if (fstat(fd, &st) != 0) {
		int saved = errno;

		close(fd);
		return set_errno_error(error, saved, "read", path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
		            "cannot write %s: not a regular file", path);
		return FALSE;
	}
	if ((guint64)st.st_size < keep) {
		close(fd);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
		            "%s shrank while it was downloaded", path);
		return FALSE;
	}
	if (ftruncate(fd, (off_t)keep) != 0 ||
	    lseek(fd, (off_t)keep, SEEK_SET) < 0) {
		int saved = errno;

		close(fd);
		return set_errno_error(error, saved, "write", path);
	}
	partial->fd = fd;
	partial->size = keep;
	partial->flushed = keep;
	/* Without its note the file is not resumed; no more. */
	if (keep == 0 && info != NULL &&
	    !save_info(partial->info_path, info, &info_error))
		g_debug("%s", info_error->message);
	return TRUE;
}

gboolean
feed_partial_write(Partial *partial, const char *data, gsize length,
                   GError **error)
{
	while (length > 0) {
		ssize_t n = write(partial->fd, data, length);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return set_errno_error(error, errno, "write",
			                       partial->part_path);
		data += n;
		length -= (gsize)n;
		partial->size += (guint64)n;
	}
	/*
	 * The commit waits for the disk (fdatasync): start the writeback as
	 * the bytes come, without waiting for it, so that little is left to
	 * wait for then. On a slow SD card, a whole episode's worth would
	 * hold up the main loop for seconds.
	 */
#ifdef SYNC_FILE_RANGE_WRITE
	if (partial->size - partial->flushed >= FLUSH_STEP) {
		sync_file_range(partial->fd, (off_t)partial->flushed,
		                (off_t)(partial->size - partial->flushed),
		                SYNC_FILE_RANGE_WRITE);
		partial->flushed = partial->size;
	}
#endif
	return TRUE;
}

gboolean
feed_partial_commit(Partial *partial, GError **error)
{
	int fd = partial->fd;

	partial->fd = -1;
	/* The name is the promise that the file is whole, also after a crash.
	 */
	if (fdatasync(fd) != 0) {
		int saved = errno;

		close(fd);
		return set_errno_error(error, saved, "write",
		                       partial->part_path);
	}
	if (close(fd) != 0)
		return set_errno_error(error, errno, "write",
		                       partial->part_path);
	if (g_rename(partial->part_path, partial->path) != 0) {
		int saved = errno;

		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved),
		            "cannot rename %s to %s: %s", partial->part_path,
		            partial->path, g_strerror(saved));
		return FALSE;
	}
	g_unlink(partial->info_path);
	return TRUE;
}
