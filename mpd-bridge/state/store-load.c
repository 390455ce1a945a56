/*
 * Reading the state file into an empty store. The file is parsed a group
 * at a time, each in a GKeyFile of its own: one GKeyFile of 50,000
 * episodes takes about 110 MB, seven times the file, on top of the
 * structs. Here the file's text is read and cut into groups, [bridge]
 * first; store-groups.c reads each group.
 */
#include "state/store-private.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static gboolean
is_group_line(const char *p, const char *end, const char *group)
{
	size_t length = strlen(group);

	if ((size_t)(end - p) < length || memcmp(p, group, length) != 0)
		return FALSE;
	for (p += length; p < end; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r')
			return FALSE;
	return TRUE;
}

/*
 * Cuts @text before each line that begins with '[' (after blanks):
 * GKeyFile reads exactly those as groups, or refuses them. Lines before
 * the first group are left to GKeyFile to refuse.
 */
static GArray *
split_groups(const char *text, gsize length, gssize *bridge)
{
	GArray *sections = g_array_new(FALSE, FALSE, sizeof(Section));
	guint line = 1;

	*bridge = -1;
	for (gsize at = 0; at < length; line++) {
		const char *p = text + at;
		const char *newline = memchr(p, '\n', length - at);
		const char *end = newline != NULL ? newline : text + length;

		while (p < end && g_ascii_isspace(*p))
			p++;
		if (p < end && *p == '[') {
			Section section = { sections->len == 0 ? 0 : at, line };

			if (*bridge < 0 && is_group_line(p, end, "[bridge]"))
				*bridge = sections->len;
			g_array_append_val(sections, section);
		} else if (p < end && *p != '#' && sections->len > 0) {
			g_array_index(sections, Section, sections->len - 1)
			        .n_keys++;
		}
		at = (gsize)(end - text) + 1;
	}
	return sections;
}

static gboolean
parse(BridgeStore *store, const char *text, gsize length, GError **error)
{
	g_autoptr(GPtrArray) pending =
	        g_ptr_array_new_with_free_func(bridge_store_episode_free);
	g_autoptr(GArray) sections = NULL;
	const char *bad = NULL;
	gssize bridge = -1;

	if (!g_utf8_validate(text, (gssize)length, &bad)) {
		guint line = 1;

		for (const char *p = text; p < bad; p++)
			line += *p == '\n';
		bridge_store_refuse(error, G_KEY_FILE_ERROR,
		                    G_KEY_FILE_ERROR_UNKNOWN_ENCODING,
		                    store->path, "line %u is not UTF-8 text",
		                    line);
		return FALSE;
	}
	sections = split_groups(text, length, &bridge);
	if (bridge < 0) {
		bridge_store_refuse(error, G_KEY_FILE_ERROR,
		                    G_KEY_FILE_ERROR_GROUP_NOT_FOUND,
		                    store->path,
		                    "it has no [bridge] group, so it is not an "
		                    "mpd-bridge state file");
		return FALSE;
	}
	/* The version first, so a newer file is refused as newer. */
	for (guint i = 0, n = sections->len; i < n; i++) {
		guint k = i == 0               ? (guint)bridge
		          : i <= (guint)bridge ? i - 1
		                               : i;
		const Section *section = &g_array_index(sections, Section, k);
		gsize end =
		        k + 1 < n
		                ? g_array_index(sections, Section, k + 1).start
		                : length;

		if (!bridge_store_load_section(
		            store, text + section->start, end - section->start,
		            section, k == (guint)bridge, pending, error))
			return FALSE;
	}
	return bridge_store_attach_pending(store, pending, error);
}

/*
 * The episodes that only the feeds' caches hold, after the key file's.
 * A file of format 1 held them all: then every cache is written at the
 * first save, which converts the file.
 */
static void
read_caches(BridgeStore *store)
{
	store->next_seq = 0;
	for (guint i = 0; i < store->feeds->len; i++) {
		Feed *feed = g_ptr_array_index(store->feeds, i);

		if (store->version >= 2)
			bridge_store_cache_read(store, feed);
		else
			feed->cache_changes = 1;
		bridge_store_heard_apply(store, feed);
		/* Creation order is the order of the feeds and the caches. */
		for (guint j = 0; j < feed->episodes->len; j++)
			((Episode *)feed->episodes->pdata[j])->seq =
			        store->next_seq++;
	}
	bridge_store_prune_lists(store);
}

static char *
read_all(int fd, gsize size_hint, gsize *length, int *errsv)
{
	gsize allocated = size_hint + 1;
	gsize used = 0;
	char *buffer = g_malloc(allocated);

	for (;;) {
		ssize_t n;

		if (allocated - used < 2) {
			allocated *= 2;
			buffer = g_realloc(buffer, allocated);
		}
		n = read(fd, buffer + used, allocated - used - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*errsv = errno;
			g_free(buffer);
			return NULL;
		}
		if (n == 0)
			break;
		used += (gsize)n;
	}
	buffer[used] = '\0';
	*length = used;
	return buffer;
}

gboolean
bridge_store_load(BridgeStore *store, GError **error)
{
	g_autofree char *text = NULL;
	struct stat st;
	gsize length = 0;
	int errsv = 0;
	int fd = open(store->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		store->stamp.exists = FALSE;
		return TRUE;
	}
	if (fd < 0 || fstat(fd, &st) != 0) {
		errsv = errno;
	} else if (!S_ISREG(st.st_mode)) {
		errsv = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	} else {
		text = read_all(fd, (gsize)st.st_size, &length, &errsv);
	}
	if (fd >= 0)
		close(fd);
	if (errsv != 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv),
		            "cannot read the state file %s: %s", store->path,
		            errsv == EINVAL ? "not a regular file"
		                            : g_strerror(errsv));
		return FALSE;
	}
	if (!parse(store, text, length, error))
		return FALSE;
	read_caches(store);
	bridge_store_stamp_from_stat(&store->stamp, &st);
	store->stamp.journal = bridge_store_journal_replay(store);
	return TRUE;
}

BridgeStore *
bridge_store_open(const char *path, GError **error)
{
	BridgeStore *store = NULL;

	g_return_val_if_fail(path != NULL, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	store = bridge_store_new_empty(path);
	if (!bridge_store_load(store, error)) {
		bridge_store_free(store);
		return NULL;
	}
	return store;
}
