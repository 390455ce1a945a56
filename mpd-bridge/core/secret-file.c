#include "core/secret-file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A password or app password is a line; anything longer is not one. */
#define MAX_BYTES 4096

static void
set_error(GError **error, const char *path, const char *format, ...)
        G_GNUC_PRINTF(3, 4);

static void
set_error(GError **error, const char *path, const char *format, ...)
{
	g_autofree char *reason = NULL;
	va_list args;

	va_start(args, format);
	reason = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
	            "%s %s", path, reason);
}

/*
 * The checks are on the open file, so that the file read is the file
 * checked.
 */
static gboolean
check(int fd, const char *path, GError **error)
{
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		set_error(error, path, "is not a regular file");
		return FALSE;
	}
	if (st.st_uid != geteuid()) {
		set_error(error, path,
		          "belongs to another user (uid %u), who could change "
		          "it: run chown %u %s",
		          (guint)st.st_uid, (guint)geteuid(), path);
		return FALSE;
	}
	if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
		set_error(error, path,
		          "can be read or changed by others (mode %03o): run "
		          "chmod 600 %s",
		          (guint)(st.st_mode & 0777), path);
		return FALSE;
	}
	return TRUE;
}

char *
bridge_secret_file_read(const char *path, GError **error)
{
	g_autofree char *data = g_malloc(MAX_BYTES + 1);
	gsize length = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int saved;

	if (fd < 0) {
		saved = errno;
		set_error(error, path, "cannot be read: %s", g_strerror(saved));
		return NULL;
	}
	if (!check(fd, path, error)) {
		close(fd);
		return NULL;
	}
	while (length <= MAX_BYTES) {
		ssize_t n = read(fd, data + length, MAX_BYTES + 1 - length);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			break;
		if (n < 0) {
			saved = errno;
			close(fd);
			set_error(error, path, "cannot be read: %s",
			          g_strerror(saved));
			return NULL;
		}
		length += (gsize)n;
	}
	close(fd);
	if (length > MAX_BYTES) {
		set_error(error, path,
		          "is larger than %d bytes: it should hold the "
		          "password alone",
		          MAX_BYTES);
		return NULL;
	}
	if (length > 0 && data[length - 1] == '\n')
		length--;
	if (length > 0 && data[length - 1] == '\r')
		length--;
	data[length] = '\0';
	if (length == 0 || strlen(data) != length ||
	    strpbrk(data, "\r\n") != NULL) {
		memset(data, 0, length);
		set_error(error, path,
		          "must hold the password on one line, and nothing "
		          "else");
		return NULL;
	}
	return g_steal_pointer(&data);
}
