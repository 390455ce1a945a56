/*
 * The relay's cache files: CACHE/relay/ID holds an episode's bytes where
 * they belong (a sparse file while it has gaps), and ID.record, a key
 * file, says which ranges are there and what the host said of the file,
 * so a later run goes on from it. The record is written after the bytes
 * it names are on the disk, through a temporary file and a rename.
 *
 * Files go by the downloads' rules: a listened episode's after
 * [bridge] download_keep_days, any not used for as long, and the least
 * recently used first when the cache would pass [bridge] download_budget
 * or leave less than [bridge] download_min_free on its disk.
 */
#include "relay/relay-private.h"

#include "core/download-files.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GROUP "relay"
/* Bytes between two records of a file being fetched. */
#define RECORD_EVERY (8 * 1024 * 1024)
#define DAY          (24 * 60 * 60)

static char *
record_path(const char *path)
{
	return g_strconcat(path, ".record", NULL);
}

gboolean
bridge_relay_cache_open(RelayEntry *entry)
{
	if (entry->fd >= 0)
		return TRUE;
	entry->fd = g_open(entry->path,
	                   O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (entry->fd < 0) {
		g_warning("relay: cannot open %s: %s", entry->path,
		          g_strerror(errno));
		return FALSE;
	}
	return TRUE;
}

void
bridge_relay_cache_load(RelayEntry *entry)
{
	g_autofree char *path = record_path(entry->path);
	g_autoptr(GKeyFile) record = g_key_file_new();
	g_autofree char *url = NULL;
	g_autofree char *ranges = NULL;
	g_autoptr(BridgeRanges) parsed = NULL;
	struct stat st;

	if (!g_key_file_load_from_file(record, path, G_KEY_FILE_NONE, NULL))
		goto fresh;
	url = g_key_file_get_string(record, GROUP, "url", NULL);
	ranges = g_key_file_get_string(record, GROUP, "ranges", NULL);
	if (url == NULL || strcmp(url, entry->url) != 0 || ranges == NULL ||
	    (parsed = bridge_ranges_parse(ranges)) == NULL ||
	    g_stat(entry->path, &st) != 0 ||
	    (guint64)st.st_size < bridge_ranges_end_from(parsed, 0))
		goto fresh;
	entry->total = g_key_file_get_uint64(record, GROUP, "total", NULL);
	entry->ended = g_key_file_get_boolean(record, GROUP, "ended", NULL);
	entry->validator =
	        g_key_file_get_string(record, GROUP, "validator", NULL);
	entry->type = g_key_file_get_string(record, GROUP, "type", NULL);
	entry->host_ranges =
	        g_key_file_get_boolean(record, GROUP, "host_ranges", NULL);
	entry->head_known = entry->total > 0 || entry->ended;
	bridge_ranges_free(entry->ranges);
	entry->ranges = g_steal_pointer(&parsed);
	entry->recorded = entry->synced = bridge_ranges_bytes(entry->ranges);
	if (entry->ended)
		entry->fetch_at = bridge_ranges_end_from(entry->ranges, 0);
	entry->whole = entry->head_known &&
	               (entry->total > 0 ? bridge_ranges_is_whole(entry->ranges,
	                                                          entry->total)
	                                 : entry->ended);
	return;
fresh:
	/* Nothing of it can be trusted: start again. */
	g_unlink(entry->path);
	g_unlink(path);
}

void
bridge_relay_cache_record(RelayEntry *entry, gboolean force)
{
	g_autofree char *path = NULL;
	g_autoptr(GKeyFile) record = NULL;
	g_autofree char *ranges = NULL;
	g_autofree char *data = NULL;
	g_autoptr(GError) error = NULL;
	guint64 bytes = bridge_ranges_bytes(entry->ranges);
	gsize length;

	if (entry->taken || entry->fd < 0 ||
	    (!force && bytes < entry->recorded + RECORD_EVERY))
		return;
	/* What the record names must be on the disk first. */
	if (bytes != entry->synced && fdatasync(entry->fd) != 0) {
		g_warning("relay: cannot write %s: %s", entry->path,
		          g_strerror(errno));
		return;
	}
	entry->synced = bytes;
	path = record_path(entry->path);
	record = g_key_file_new();
	ranges = bridge_ranges_to_string(entry->ranges);
	g_key_file_set_string(record, GROUP, "url", entry->url);
	g_key_file_set_string(record, GROUP, "title", entry->title);
	g_key_file_set_string(record, GROUP, "ranges", ranges);
	g_key_file_set_uint64(record, GROUP, "total", entry->total);
	g_key_file_set_boolean(record, GROUP, "ended", entry->ended);
	g_key_file_set_boolean(record, GROUP, "host_ranges",
	                       entry->host_ranges);
	if (entry->validator != NULL)
		g_key_file_set_string(record, GROUP, "validator",
		                      entry->validator);
	if (entry->type != NULL)
		g_key_file_set_string(record, GROUP, "type", entry->type);
	g_key_file_set_int64(record, GROUP, "used",
	                     g_get_real_time() / G_USEC_PER_SEC);
	data = g_key_file_to_data(record, &length, NULL);
	if (!g_file_set_contents_full(path, data, length,
	                              G_FILE_SET_CONTENTS_CONSISTENT, 0600,
	                              &error)) {
		g_warning("relay: cannot keep the record of %s: %s",
		          entry->title, error->message);
		return;
	}
	entry->recorded = bytes;
}

gboolean
bridge_relay_cache_write(RelayEntry *entry, guint64 offset, const guint8 *data,
                         gsize length)
{
	while (length > 0) {
		ssize_t n = pwrite(entry->fd, data, length, (off_t)offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			g_warning("relay: cannot write %s: %s", entry->path,
			          n < 0 ? g_strerror(errno) : "disk full");
			return FALSE;
		}
		data += n;
		offset += (guint64)n;
		length -= (gsize)n;
	}
	return TRUE;
}

GBytes *
bridge_relay_cache_read(RelayEntry *entry, guint64 offset, gsize max)
{
	guint8 *buffer = g_malloc(max);
	gsize got = 0;

	while (got < max) {
		ssize_t n = pread(entry->fd, buffer + got, max - got,
		                  (off_t)(offset + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			g_warning("relay: cannot read %s: %s", entry->path,
			          n < 0 ? g_strerror(errno)
			                : "shorter than its record");
			g_free(buffer);
			return NULL;
		}
		got += (gsize)n;
	}
	return g_bytes_new_take(buffer, got);
}

void
bridge_relay_cache_reset(RelayEntry *entry)
{
	bridge_ranges_clear(entry->ranges);
	entry->total = 0;
	entry->ended = FALSE;
	entry->whole = FALSE;
	entry->head_known = FALSE;
	g_clear_pointer(&entry->validator, g_free);
	if (entry->fd >= 0 && ftruncate(entry->fd, 0) != 0)
		g_warning("relay: cannot empty %s: %s", entry->path,
		          g_strerror(errno));
	entry->recorded = entry->synced = 0;
}

gboolean
bridge_relay_cache_is_whole(const BridgeRelay *relay,
                            const BridgeEpisode *episode)
{
	g_autofree char *path =
	        g_build_filename(relay->directory, episode->id, NULL);
	g_autofree char *record_name = record_path(path);
	g_autoptr(GKeyFile) record = g_key_file_new();
	g_autofree char *url = NULL;
	g_autofree char *text = NULL;
	g_autoptr(BridgeRanges) ranges = NULL;
	guint64 total;
	struct stat st;

	if (!g_key_file_load_from_file(record, record_name, G_KEY_FILE_NONE,
	                               NULL))
		return FALSE;
	url = g_key_file_get_string(record, GROUP, "url", NULL);
	text = g_key_file_get_string(record, GROUP, "ranges", NULL);
	total = g_key_file_get_uint64(record, GROUP, "total", NULL);
	if (g_strcmp0(url, episode->url) != 0 || text == NULL ||
	    (ranges = bridge_ranges_parse(text)) == NULL ||
	    g_stat(path, &st) != 0)
		return FALSE;
	if (total == 0 && g_key_file_get_boolean(record, GROUP, "ended", NULL))
		total = bridge_ranges_end_from(ranges, 0);
	return bridge_ranges_is_whole(ranges, total) &&
	       (guint64)st.st_size >= total;
}

/* A cache file as the cleanup sees it. */
typedef struct {
	char *id;
	char *path;
	gint64 used;   /* Unix seconds of its last record */
	guint64 bytes; /* on the disk (a sparse file takes what it holds) */
	gboolean due;  /* the rules say it goes, whatever room is left */
} CacheFile;

static void
cache_file_free(gpointer data)
{
	CacheFile *file = data;

	g_free(file->id);
	g_free(file->path);
	g_free(file);
}

void
bridge_relay_cache_remove(const char *path)
{
	g_autofree char *record = record_path(path);

	g_unlink(path);
	g_unlink(record);
}

static gint
by_use(gconstpointer a, gconstpointer b)
{
	const CacheFile *x = *(CacheFile *const *)a;
	const CacheFile *y = *(CacheFile *const *)b;

	return (x->used > y->used) - (x->used < y->used);
}

/* Whether the rules say @file goes: the store's part, on its thread. */
static gboolean
is_due(const BridgeRelay *relay, const CacheFile *file, gint64 now)
{
	const BridgeEpisode *episode =
	        bridge_store_find_episode(relay->bridge->store, file->id);
	gint64 keep = (gint64)relay->rules.keep_days * DAY;

	if (episode == NULL || strcmp(episode->id, file->id) != 0)
		return TRUE;
	if (episode->listened && episode->listened_at > 0 &&
	    now - episode->listened_at > keep)
		return TRUE;
	return now - file->used > keep;
}

/* The files of the folder that have a record, oldest use first; a
 * file without one is left to the relay's thread (@orphans). */
static GPtrArray *
list_files(const BridgeRelay *relay, GPtrArray *orphans)
{
	GPtrArray *files = g_ptr_array_new_with_free_func(cache_file_free);
	g_autoptr(GDir) dir = g_dir_open(relay->directory, 0, NULL);
	gint64 now = g_get_real_time() / G_USEC_PER_SEC;
	const char *name;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree char *path =
		        g_build_filename(relay->directory, name, NULL);
		g_autofree char *record = NULL;
		g_autoptr(GKeyFile) keys = g_key_file_new();
		CacheFile *file;
		struct stat st;

		if (strcmp(name, "port") == 0 || strchr(name, '.') != NULL)
			continue;
		record = record_path(path);
		if (g_lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
		    !g_key_file_load_from_file(keys, record, G_KEY_FILE_NONE,
		                               NULL)) {
			g_ptr_array_add(orphans, g_strdup(name));
			continue;
		}
		file = g_new0(CacheFile, 1);
		file->id = g_strdup(name);
		file->path = g_steal_pointer(&path);
		file->used = g_key_file_get_int64(keys, GROUP, "used", NULL);
		file->bytes = (guint64)st.st_blocks * 512;
		file->due = is_due(relay, file, now);
		g_ptr_array_add(files, file);
	}
	g_ptr_array_sort(files, by_use);
	return files;
}

static gboolean
needs_room(const BridgeRelay *relay, guint64 bytes)
{
	guint64 free_bytes;

	if (relay->rules.budget > 0 && bytes > relay->rules.budget)
		return TRUE;
	return bridge_download_free_space(relay->directory, &free_bytes,
	                                  NULL) &&
	       free_bytes < relay->rules.min_free;
}

typedef struct {
	BridgeRelay *relay;
	GPtrArray *files;   /* CacheFile, oldest use first */
	GPtrArray *orphans; /* names of files without a record */
	guint removed;
} Clean;

static gboolean
in_use(const BridgeRelay *relay, const char *id)
{
	const RelayEntry *entry = g_hash_table_lookup(relay->entries, id);

	return entry != NULL &&
	       (entry->replies != NULL || entry->fetch != NULL);
}

/* On the relay's thread, which knows what is in use. */
static gboolean
clean_in_thread(gpointer data)
{
	Clean *clean = data;
	BridgeRelay *relay = clean->relay;
	guint64 bytes = 0;

	for (guint i = 0; i < clean->orphans->len; i++) {
		const char *id = clean->orphans->pdata[i];
		g_autofree char *path = NULL;

		if (g_hash_table_contains(relay->entries, id))
			continue;
		path = g_build_filename(relay->directory, id, NULL);
		bridge_relay_cache_remove(path);
	}
	for (guint i = 0; i < clean->files->len; i++)
		bytes += ((CacheFile *)clean->files->pdata[i])->bytes;
	/* Oldest use first, so that room is made where it costs least. */
	for (guint i = 0; i < clean->files->len; i++) {
		CacheFile *file = clean->files->pdata[i];

		if (in_use(relay, file->id) ||
		    (!file->due && !needs_room(relay, bytes)))
			continue;
		g_hash_table_remove(relay->entries, file->id);
		bridge_relay_cache_remove(file->path);
		bytes -= file->bytes;
		clean->removed++;
	}
	return G_SOURCE_REMOVE;
}

void
bridge_relay_cache_clean(BridgeRelay *relay)
{
	g_autoptr(GPtrArray) orphans = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) files = list_files(relay, orphans);
	Clean clean = { relay, files, orphans, 0 };

	if (relay->thread == NULL)
		return;
	bridge_relay_call(relay, clean_in_thread, &clean);
	if (clean.removed > 0)
		g_message("relay: removed %u cache files", clean.removed);
}
