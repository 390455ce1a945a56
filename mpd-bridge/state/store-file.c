/*
 * The state file is a GKeyFile: a [bridge] group, then a [feed ID] group
 * per subscription, each followed by an [episode ID] group per episode,
 * then a [list ID] group per list. GKeyFile names cannot hold every URL
 * or GUID, so the ids are hashes and the raw values are keys.
 *
 * The file is parsed a group at a time, each in a GKeyFile of its own:
 * one GKeyFile of 50,000 episodes takes about 110 MB, seven times the
 * file, on top of the structs. Keys and groups this version does not know
 * are kept, raw, in a small GKeyFile of their own and written back on
 * save. It is saved whole, to a temporary file renamed over it.
 */
#include "state/store-private.h"

#include "state/keyfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCK_POLL_MS 20

/* The key and where its value lives: a key is the field's name. */
#define FEED_FIELD(name)    #name, offsetof(BridgeFeed, name)
#define EPISODE_FIELD(name) #name, offsetof(BridgeEpisode, name)

static const Field bridge_fields[] = {
	{ "version", 0, FIELD_INT64, TRUE },
	{ "saved", 0, FIELD_INT64, FALSE },
};

const Field bridge_store_feed_fields[] = {
	{ FEED_FIELD(url), FIELD_STRING, TRUE },
	{ FEED_FIELD(title), FIELD_STRING, FALSE },
	{ FEED_FIELD(name), FIELD_STRING, FALSE },
	{ FEED_FIELD(auto_queue), FIELD_BOOLEAN, FALSE },
	{ FEED_FIELD(keep), FIELD_UINT, FALSE },
	{ FEED_FIELD(match), FIELD_STRING, FALSE },
	{ FEED_FIELD(exclude), FIELD_STRING, FALSE },
	{ FEED_FIELD(min_duration), FIELD_INT64, FALSE },
	{ FEED_FIELD(serial), FIELD_BOOLEAN, FALSE },
	{ FEED_FIELD(complete), FIELD_BOOLEAN, FALSE },
	{ FEED_FIELD(ttl), FIELD_INT64, FALSE },
	{ FEED_FIELD(etag), FIELD_STRING, FALSE },
	{ FEED_FIELD(last_modified), FIELD_STRING, FALSE },
	{ FEED_FIELD(content_hash), FIELD_STRING, FALSE },
	{ FEED_FIELD(last_refresh), FIELD_INT64, FALSE },
	{ FEED_FIELD(next_refresh), FIELD_INT64, FALSE },
	{ FEED_FIELD(last_error), FIELD_STRING, FALSE },
	{ FEED_FIELD(failures), FIELD_UINT, FALSE },
	{ FEED_FIELD(gone), FIELD_BOOLEAN, FALSE },
	{ FEED_FIELD(pushed), FIELD_STRING, FALSE },
	{ FEED_FIELD(added), FIELD_INT64, FALSE },
	{ FEED_FIELD(synced_url), FIELD_STRING, FALSE },
	{ FEED_FIELD(skip_intro), FIELD_INT64, FALSE, TRUE },
	{ FEED_FIELD(skip_outro), FIELD_INT64, FALSE, TRUE },
	{ FEED_FIELD(skip_chapters), FIELD_STRING, FALSE },
	{ FEED_FIELD(no_chapter_fetch), FIELD_BOOLEAN, FALSE, TRUE },
	{ FEED_FIELD(download), FIELD_INT64, FALSE, TRUE },
};

const Field bridge_store_episode_fields[] = {
	{ EPISODE_FIELD(feed_id), FIELD_STRING, TRUE },
	{ EPISODE_FIELD(guid), FIELD_STRING, TRUE },
	{ EPISODE_FIELD(url), FIELD_STRING, TRUE },
	{ EPISODE_FIELD(title), FIELD_STRING, TRUE },
	{ EPISODE_FIELD(author), FIELD_STRING, FALSE },
	{ EPISODE_FIELD(published), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(duration), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(number), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(first_seen), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(listened), FIELD_BOOLEAN, FALSE },
	{ EPISODE_FIELD(listened_at), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(position), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(last_played), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(starred), FIELD_BOOLEAN, FALSE },
	{ EPISODE_FIELD(gone), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(sync_changed), FIELD_INT64, FALSE, TRUE },
	{ EPISODE_FIELD(sync_from), FIELD_STRING, FALSE, TRUE },
	{ EPISODE_FIELD(sync_unsent), FIELD_BOOLEAN, FALSE, TRUE },
	{ EPISODE_FIELD(type), FIELD_STRING, FALSE, TRUE },
	{ EPISODE_FIELD(file), FIELD_STRING, FALSE, TRUE },
	{ EPISODE_FIELD(downloaded), FIELD_INT64, FALSE, TRUE },
	{ EPISODE_FIELD(download), FIELD_INT64, FALSE, TRUE },
	{ EPISODE_FIELD(download_error), FIELD_STRING, FALSE, TRUE },
	{ EPISODE_FIELD(download_failures), FIELD_INT64, FALSE, TRUE },
	{ EPISODE_FIELD(download_retry), FIELD_INT64, FALSE, TRUE },
};

/* A list's group: its episodes are a GKeyFile list, read by hand. */
#define LIST_FIELD(name) #name, offsetof(BridgeList, name)

static const Field list_fields[] = {
	{ LIST_FIELD(name), FIELD_STRING, FALSE },
	{ "episodes", 0, FIELD_STRING, FALSE },
};

const gsize bridge_store_n_feed_fields = G_N_ELEMENTS(bridge_store_feed_fields);
const gsize bridge_store_n_episode_fields =
        G_N_ELEMENTS(bridge_store_episode_fields);

static void
stamp_from_stat(Stamp *stamp, const struct stat *st)
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
	return !a->exists ||
	       (a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	        a->mtime.tv_sec == b->mtime.tv_sec &&
	        a->mtime.tv_nsec == b->mtime.tv_nsec);
}

static void G_GNUC_PRINTF(5, 6)
        refuse(GError **error, GQuark domain, gint code, const char *path,
               const char *format, ...)
{
	g_autofree char *what = NULL;
	va_list args;

	va_start(args, format);
	what = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error(error, domain, code,
	            "cannot use the state file %s: %s; move it away to start "
	            "afresh (it is left as it is)",
	            path, what);
}

/* Reads the fields of @record from @group; TRUE, or FALSE with @error. */
static gboolean
read_fields(const BridgeStore *store, GKeyFile *key_file, const char *group,
            guint line, const Field *fields, gsize n_fields, gpointer record,
            gsize *found, GError **error)
{
	for (gsize i = 0; i < n_fields; i++) {
		const Field *field = &fields[i];
		g_autoptr(GError) local = NULL;
		g_autofree char *raw = NULL;
		gint64 number = 0;

		if (field->type == FIELD_STRING) {
			char *value = bridge_key_file_get_string(
			        key_file, group, field->key, &local);

			/* A bad escape comes with a value, and an error. */
			if (local != NULL &&
			    !g_error_matches(local, G_KEY_FILE_ERROR,
			                     G_KEY_FILE_ERROR_KEY_NOT_FOUND)) {
				g_free(value);
				refuse(error, G_KEY_FILE_ERROR,
				       G_KEY_FILE_ERROR_INVALID_VALUE,
				       store->path,
				       "line %u: [%s] %s has a backslash that "
				       "is none of \\s \\n \\t \\r \\\\",
				       line, group, field->key);
				return FALSE;
			}
			G_STRUCT_MEMBER(char *, record, field->offset) = value;
			if (value != NULL) {
				(*found)++;
				continue;
			}
		} else {
			raw = g_key_file_get_value(key_file, group, field->key,
			                           NULL);
		}
		if (raw == NULL) {
			if (!field->required)
				continue;
			refuse(error, G_KEY_FILE_ERROR,
			       G_KEY_FILE_ERROR_KEY_NOT_FOUND, store->path,
			       "line %u: [%s] has no %s", line, group,
			       field->key);
			return FALSE;
		}
		(*found)++;
		g_strstrip(raw);
		switch (field->type) {
		case FIELD_BOOLEAN:
			if (strcmp(raw, "true") == 0 || strcmp(raw, "1") == 0)
				G_STRUCT_MEMBER(gboolean, record,
				                field->offset) = TRUE;
			else if (strcmp(raw, "false") != 0 &&
			         strcmp(raw, "0") != 0)
				goto invalid;
			break;
		case FIELD_INT64:
			if (!g_ascii_string_to_signed(raw, 10, G_MININT64,
			                              G_MAXINT64, &number,
			                              NULL))
				goto invalid;
			if (record != NULL)
				G_STRUCT_MEMBER(gint64, record, field->offset) =
				        number;
			break;
		case FIELD_UINT: {
			guint64 unsigned_number = 0;

			if (!g_ascii_string_to_unsigned(raw, 10, 0, G_MAXUINT,
			                                &unsigned_number, NULL))
				goto invalid;
			G_STRUCT_MEMBER(guint, record, field->offset) =
			        (guint)unsigned_number;
			break;
		}
		case FIELD_STRING:
		default:
			g_assert_not_reached();
		}
		continue;
	invalid:
		refuse(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		       store->path, "line %u: [%s] %s is “%s”, not %s", line,
		       group, field->key, raw,
		       field->type == FIELD_BOOLEAN ? "true or false"
		                                    : "a whole number");
		return FALSE;
	}
	return TRUE;
}

/* A group and the lines up to the next one, comments above it included. */
typedef struct {
	gsize start;  /* offset of its first byte */
	guint line;   /* of its group line, from 1 */
	guint n_keys; /* lines that may be keys; at least the keys */
} Section;

static gboolean
is_field(const char *key, const Field *fields, gsize n_fields)
{
	for (gsize i = 0; i < n_fields; i++)
		if (strcmp(key, fields[i].key) == 0)
			return TRUE;
	return FALSE;
}

/*
 * Keeps the keys of @group that are not @fields, to write them back. The
 * usual group has none, which its count of lines tells without listing.
 */
static void
keep_unknown(BridgeStore *store, GKeyFile *key_file, const char *group,
             const Field *fields, gsize n_fields, gsize found,
             const Section *section)
{
	gsize n_keys = 0;
	g_auto(GStrv) keys = NULL;

	if (section->n_keys == found)
		return;
	keys = g_key_file_get_keys(key_file, group, &n_keys, NULL);
	for (gsize i = 0; i < n_keys; i++) {
		g_autofree char *raw = NULL;

		if (is_field(keys[i], fields, n_fields))
			continue;
		raw = g_key_file_get_value(key_file, group, keys[i], NULL);
		g_key_file_set_value(store->extra, group, keys[i], raw);
	}
}

/* Attaches an episode read from the file to its feed; FALSE if a twin. */
static gboolean
attach_loaded(BridgeStore *store, Feed *feed, Episode *episode, GError **error)
{
	Episode *twin = g_hash_table_lookup(feed->by_guid, episode->pub.guid);

	if (twin != NULL) {
		refuse(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		       store->path,
		       "[episode %s] and [episode %s] have the same guid in "
		       "[feed %s]",
		       twin->pub.id, episode->pub.id, feed->pub.id);
		return FALSE;
	}
	bridge_store_attach(feed, episode);
	return TRUE;
}

static gboolean
load_feed(BridgeStore *store, GKeyFile *key_file, const char *group,
          const Section *section, GError **error)
{
	const char *id = group + strlen("feed ");
	guint line = section->line;
	Feed *feed = NULL;
	gsize found = 0;

	if (*id == '\0' || g_hash_table_contains(store->feed_ids, id)) {
		refuse(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		       store->path, "line %u: [%s] %s", line, group,
		       *id == '\0' ? "has no id" : "appears twice");
		return FALSE;
	}
	feed = bridge_store_feed_new(id);
	if (!read_fields(store, key_file, group, line, bridge_store_feed_fields,
	                 G_N_ELEMENTS(bridge_store_feed_fields), &feed->pub,
	                 &found, error)) {
		bridge_store_feed_free(feed);
		return FALSE;
	}
	keep_unknown(store, key_file, group, bridge_store_feed_fields,
	             G_N_ELEMENTS(bridge_store_feed_fields), found, section);
	g_ptr_array_add(store->feeds, feed);
	g_hash_table_insert(store->feed_ids, feed->pub.id, feed);
	return TRUE;
}

/* An episode whose feed is further down goes to @pending until the end. */
static gboolean
load_episode(BridgeStore *store, GKeyFile *key_file, const char *group,
             const Section *section, GPtrArray *pending, GError **error)
{
	const char *id = group + strlen("episode ");
	guint line = section->line;
	Episode *episode = NULL;
	Feed *feed = NULL;
	gsize found = 0;

	if (*id == '\0' || g_hash_table_contains(store->episode_ids, id)) {
		refuse(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		       store->path, "line %u: [%s] %s", line, group,
		       *id == '\0' ? "has no id" : "appears twice");
		return FALSE;
	}
	episode = bridge_store_episode_new(id);
	episode->seq = store->next_seq++;
	if (!read_fields(store, key_file, group, line,
	                 bridge_store_episode_fields,
	                 G_N_ELEMENTS(bridge_store_episode_fields),
	                 &episode->pub, &found, error)) {
		bridge_store_episode_free(episode);
		return FALSE;
	}
	keep_unknown(store, key_file, group, bridge_store_episode_fields,
	             G_N_ELEMENTS(bridge_store_episode_fields), found, section);
	g_hash_table_insert(store->episode_ids, episode->pub.id, episode);
	feed = g_hash_table_lookup(store->feed_ids, episode->pub.feed_id);
	if (feed == NULL) {
		g_ptr_array_add(pending, episode);
		return TRUE;
	}
	if (!attach_loaded(store, feed, episode, error)) {
		bridge_store_episode_free(episode);
		return FALSE;
	}
	return TRUE;
}

static BridgeList *
find_list_id(const BridgeStore *store, const char *id)
{
	for (guint i = 0; i < store->lists->len; i++) {
		BridgeList *list = g_ptr_array_index(store->lists, i);

		if (strcmp(list->id, id) == 0)
			return list;
	}
	return NULL;
}

/* Its episodes are checked once every episode is loaded: see parse(). */
static gboolean
load_list(BridgeStore *store, GKeyFile *key_file, const char *group,
          const Section *section, GError **error)
{
	const char *id = group + strlen("list ");
	g_autofree char *raw = NULL;
	g_auto(GStrv) episodes = NULL;
	BridgeList *list = NULL;
	gsize found = 0;

	if (*id == '\0' || find_list_id(store, id) != NULL) {
		refuse(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		       store->path, "line %u: [%s] %s", section->line, group,
		       *id == '\0' ? "has no id" : "appears twice");
		return FALSE;
	}
	list = bridge_store_list_new(id, NULL);
	if (!read_fields(store, key_file, group, section->line, list_fields, 1,
	                 list, &found, error)) {
		bridge_store_list_free(list);
		return FALSE;
	}
	if ((list->name == NULL) != (strcmp(id, BRIDGE_STORE_LATER_ID) == 0)) {
		refuse(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		       store->path, "line %u: [%s] %s", section->line, group,
		       list->name == NULL ? "has no name" : "has a name");
		bridge_store_list_free(list);
		return FALSE;
	}
	/* Ids are hex: split by hand, past GLib's list escapes. */
	raw = g_key_file_get_value(key_file, group, "episodes", NULL);
	episodes = raw != NULL ? g_strsplit(raw, ";", -1) : NULL;
	for (gsize i = 0; episodes != NULL && episodes[i] != NULL; i++)
		if (*g_strstrip(episodes[i]) != '\0')
			g_ptr_array_add(list->episodes, g_strdup(episodes[i]));
	found += raw != NULL;
	keep_unknown(store, key_file, group, list_fields,
	             G_N_ELEMENTS(list_fields), found, section);
	if (list->name == NULL)
		g_ptr_array_insert(store->lists, 0, list);
	else
		g_ptr_array_add(store->lists, list);
	return TRUE;
}

static gboolean
load_bridge(BridgeStore *store, GKeyFile *key_file, const Section *section,
            GError **error)
{
	guint line = section->line;
	g_autofree char *raw =
	        g_key_file_get_value(key_file, "bridge", "version", NULL);
	gint64 version = 0;
	gsize found = 0;

	if (raw == NULL) {
		refuse(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
		       store->path, "line %u: [bridge] has no version", line);
		return FALSE;
	}
	g_strstrip(raw);
	if (!g_ascii_string_to_signed(raw, 10, G_MININT64, G_MAXINT64, &version,
	                              NULL)) {
		refuse(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		       store->path,
		       "line %u: [bridge] version is “%s”, not a whole number",
		       line, raw);
		return FALSE;
	}
	if (version > BRIDGE_STORE_VERSION) {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "cannot use the state file %s: it was written by "
		            "a newer mpd-bridge (format %" G_GINT64_FORMAT
		            "); update mpd-bridge (the file is left as it is)",
		            store->path, version);
		return FALSE;
	}
	if (version < 1) {
		refuse(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		       store->path,
		       "line %u: [bridge] version %" G_GINT64_FORMAT
		       " is no format mpd-bridge ever wrote",
		       line, version);
		return FALSE;
	}
	/* "saved" is only checked: it is rewritten on save. */
	if (!read_fields(store, key_file, "bridge", line, bridge_fields,
	                 G_N_ELEMENTS(bridge_fields), NULL, &found, error))
		return FALSE;
	keep_unknown(store, key_file, "bridge", bridge_fields,
	             G_N_ELEMENTS(bridge_fields), found, section);
	return TRUE;
}

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
load_section(BridgeStore *store, const char *text, gsize length,
             const Section *section, gboolean bridge, GPtrArray *pending,
             GError **error)
{
	g_autoptr(GKeyFile) key_file = g_key_file_new();
	g_autoptr(GError) local = NULL;
	g_autofree char *group = NULL;

	if (!g_key_file_load_from_data(key_file, text, length,
	                               G_KEY_FILE_KEEP_TRANSLATIONS, &local)) {
		refuse(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
		       store->path, "near line %u: %s", section->line,
		       local->message);
		return FALSE;
	}
	group = g_key_file_get_start_group(key_file);
	g_assert(group != NULL);
	if (bridge)
		return load_bridge(store, key_file, section, error);
	if (strcmp(group, "bridge") == 0) {
		refuse(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		       store->path, "line %u: [bridge] appears twice",
		       section->line);
		return FALSE;
	}
	if (g_str_has_prefix(group, "feed "))
		return load_feed(store, key_file, group, section, error);
	if (g_str_has_prefix(group, "episode "))
		return load_episode(store, key_file, group, section, pending,
		                    error);
	if (g_str_has_prefix(group, "list "))
		return load_list(store, key_file, group, section, error);
	keep_unknown(store, key_file, group, NULL, 0, 0, section);
	return TRUE;
}

/* Episodes that came before their feed in the file. */
static gboolean
attach_pending(BridgeStore *store, GPtrArray *pending, GError **error)
{
	while (pending->len > 0) {
		Episode *episode = g_ptr_array_steal_index(pending, 0);
		Feed *feed = g_hash_table_lookup(store->feed_ids,
		                                 episode->pub.feed_id);

		if (feed == NULL) {
			refuse(error, G_KEY_FILE_ERROR,
			       G_KEY_FILE_ERROR_INVALID_VALUE, store->path,
			       "[episode %s] belongs to feed %s, which has "
			       "no [feed %s] group",
			       episode->pub.id, episode->pub.feed_id,
			       episode->pub.feed_id);
			bridge_store_episode_free(episode);
			return FALSE;
		}
		if (!attach_loaded(store, feed, episode, error)) {
			bridge_store_episode_free(episode);
			return FALSE;
		}
		g_ptr_array_sort(feed->episodes, bridge_store_compare_seq);
	}
	return TRUE;
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
		refuse(error, G_KEY_FILE_ERROR,
		       G_KEY_FILE_ERROR_UNKNOWN_ENCODING, store->path,
		       "line %u is not UTF-8 text", line);
		return FALSE;
	}
	sections = split_groups(text, length, &bridge);
	if (bridge < 0) {
		refuse(error, G_KEY_FILE_ERROR,
		       G_KEY_FILE_ERROR_GROUP_NOT_FOUND, store->path,
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

		if (!load_section(store, text + section->start,
		                  end - section->start, section,
		                  k == (guint)bridge, pending, error))
			return FALSE;
	}
	if (!attach_pending(store, pending, error))
		return FALSE;
	bridge_store_prune_lists(store);
	return TRUE;
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
	stamp_from_stat(&store->stamp, &st);
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

/*
 * Escapes as GKeyFile does, through a scratch one, so the rules are
 * GLib's. GKeyFile cannot keep a leading form feed; nothing else is lost.
 */
static void
append_value(GString *out, GKeyFile *scratch, const char *value)
{
	g_autofree char *valid = NULL;
	g_autofree char *escaped = NULL;

	if (!g_utf8_validate(value, -1, NULL))
		value = valid = g_utf8_make_valid(value, -1);
	if (strpbrk(value, "\n\r\\") == NULL && value[0] != ' ' &&
	    value[0] != '\t') {
		g_string_append(out, value);
		return;
	}
	g_key_file_set_string(scratch, "s", "v", value);
	escaped = g_key_file_get_value(scratch, "s", "v", NULL);
	g_string_append(out, escaped);
}

static void
append_unknown(GString *out, GKeyFile *extra, const char *group)
{
	g_auto(GStrv) keys = NULL;

	if (!g_key_file_has_group(extra, group))
		return;
	keys = g_key_file_get_keys(extra, group, NULL, NULL);
	for (gsize i = 0; keys[i] != NULL; i++) {
		g_autofree char *raw =
		        g_key_file_get_value(extra, group, keys[i], NULL);

		g_string_append_printf(out, "%s=%s\n", keys[i], raw);
	}
}

/* Without printf, whose every call allocates: a save writes 650,000 keys. */
static void
append_group(GString *out, GKeyFile *scratch, GKeyFile *extra,
             const char *group, gconstpointer record, const Field *fields,
             gsize n_fields)
{
	g_string_append(out, "\n[");
	g_string_append(out, group);
	g_string_append(out, "]\n");
	for (gsize i = 0; i < n_fields; i++) {
		const Field *field = &fields[i];
		const char *string = NULL;
		char number[32];

		if (field->type == FIELD_STRING) {
			string = G_STRUCT_MEMBER(const char *, record,
			                         field->offset);
			if (string == NULL)
				continue;
		} else if (field->sparse &&
		           (field->type == FIELD_BOOLEAN
		                    ? !G_STRUCT_MEMBER(gboolean, record,
		                                       field->offset)
		                    : G_STRUCT_MEMBER(gint64, record,
		                                      field->offset) == 0)) {
			continue;
		}
		g_string_append(out, field->key);
		g_string_append_c(out, '=');
		switch (field->type) {
		case FIELD_STRING:
			append_value(out, scratch, string);
			break;
		case FIELD_BOOLEAN:
			g_string_append(out, G_STRUCT_MEMBER(gboolean, record,
			                                     field->offset)
			                             ? "true"
			                             : "false");
			break;
		case FIELD_INT64:
			g_snprintf(
			        number, sizeof(number), "%" G_GINT64_FORMAT,
			        G_STRUCT_MEMBER(gint64, record, field->offset));
			g_string_append(out, number);
			break;
		case FIELD_UINT:
			g_snprintf(
			        number, sizeof(number), "%u",
			        G_STRUCT_MEMBER(guint, record, field->offset));
			g_string_append(out, number);
			break;
		default:
			g_assert_not_reached();
		}
		g_string_append_c(out, '\n');
	}
	append_unknown(out, extra, group);
}

/*
 * Whether append_group() writes @group's unknown keys. Those of a feed or
 * episode that is gone are dropped with it.
 */
static gboolean
is_known_group(const char *group)
{
	return strcmp(group, "bridge") == 0 ||
	       g_str_has_prefix(group, "feed ") ||
	       g_str_has_prefix(group, "episode ") ||
	       g_str_has_prefix(group, "list ");
}

static GString *
serialize(const BridgeStore *store)
{
	g_autoptr(GKeyFile) scratch = g_key_file_new();
	g_autoptr(GString) name = g_string_new(NULL);
	g_auto(GStrv) groups = g_key_file_get_groups(store->extra, NULL);
	GString *out = g_string_sized_new((gsize)store->stamp.size + 4096);

	g_string_append(
	        out,
	        "# mpd-bridge's state: the subscriptions and the episodes "
	        "seen in them.\n"
	        "# mpd-bridge rewrites it: stop mpd-bridge before editing it "
	        "by hand,\n"
	        "# and keep the group names, which are ids. Times are Unix "
	        "seconds.\n"
	        "# Comments are not kept.\n");
	g_string_append_printf(
	        out, "\n[bridge]\nversion=%d\nsaved=%" G_GINT64_FORMAT "\n",
	        BRIDGE_STORE_VERSION, bridge_store_now());
	append_unknown(out, store->extra, "bridge");
	for (guint i = 0; i < store->feeds->len; i++) {
		const Feed *feed = g_ptr_array_index(store->feeds, i);

		g_string_assign(name, "feed ");
		g_string_append(name, feed->pub.id);
		append_group(out, scratch, store->extra, name->str, &feed->pub,
		             bridge_store_feed_fields,
		             G_N_ELEMENTS(bridge_store_feed_fields));
		for (guint j = 0; j < feed->episodes->len; j++) {
			const Episode *episode =
			        g_ptr_array_index(feed->episodes, j);

			g_string_assign(name, "episode ");
			g_string_append(name, episode->pub.id);
			append_group(out, scratch, store->extra, name->str,
			             &episode->pub, bridge_store_episode_fields,
			             G_N_ELEMENTS(bridge_store_episode_fields));
		}
	}
	for (guint i = 0; i < store->lists->len; i++) {
		const BridgeList *list = g_ptr_array_index(store->lists, i);

		g_string_assign(name, "list ");
		g_string_append(name, list->id);
		append_group(out, scratch, store->extra, name->str, list,
		             list_fields, 1);
		g_string_append(out, "episodes=");
		for (guint j = 0; j < list->episodes->len; j++) {
			g_string_append(out, list->episodes->pdata[j]);
			g_string_append_c(out, ';');
		}
		g_string_append_c(out, '\n');
	}
	for (gsize i = 0; groups[i] != NULL; i++) {
		if (is_known_group(groups[i]))
			continue;
		g_string_append_printf(out, "\n[%s]\n", groups[i]);
		append_unknown(out, store->extra, groups[i]);
	}
	return out;
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

/* The temporary file of a save: PATH.saving-XXXXXX. */
#define SAVING_SUFFIX ".saving-"

/*
 * Writes @text beside @path and renames it over @path, as
 * g_file_set_contents_full() does, but under a name of its own, so that
 * what a save killed halfway leaves behind can be told from a user's own
 * PATH.backup and removed (see remove_leftovers()).
 */
static gboolean
write_and_rename(const char *path, const GString *text, GError **error)
{
	g_autofree char *temp = g_strconcat(path, SAVING_SUFFIX "XXXXXX", NULL);
	int fd = g_mkstemp_full(temp, O_WRONLY | O_CLOEXEC, 0600);
	const char *p = text->str;
	gsize left = text->len;
	int errsv = 0;

	if (fd < 0) {
		errsv = errno;
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv),
		            "cannot create a file beside it: %s",
		            g_strerror(errsv));
		return FALSE;
	}
	while (left > 0 && errsv == 0) {
		ssize_t n = write(fd, p, left);

		if (n < 0 && errno != EINTR)
			errsv = errno;
		if (n > 0) {
			p += n;
			left -= (gsize)n;
		}
	}
	if (errsv == 0 && fsync(fd) != 0)
		errsv = errno;
	if (close(fd) != 0 && errsv == 0)
		errsv = errno;
	if (errsv == 0 && rename(temp, path) != 0)
		errsv = errno;
	if (errsv == 0)
		return TRUE;
	unlink(temp);
	g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv),
	            "writing %s: %s", temp, g_strerror(errsv));
	return FALSE;
}

/* Removes what saves killed halfway left; under the lock, so none runs. */
static void
remove_leftovers(const char *path)
{
	g_autofree char *dir_path = g_path_get_dirname(path);
	g_autofree char *base = g_path_get_basename(path);
	g_autofree char *prefix = g_strconcat(base, SAVING_SUFFIX, NULL);
	g_autoptr(GDir) dir = g_dir_open(dir_path, 0, NULL);
	const char *name;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree char *file = NULL;

		if (!g_str_has_prefix(name, prefix) ||
		    strlen(name) != strlen(prefix) + 6)
			continue;
		file = g_build_filename(dir_path, name, NULL);
		if (unlink(file) == 0)
			g_debug("removed %s, left by a save that was cut short",
			        file);
	}
}

gboolean
bridge_store_save(BridgeStore *store, GError **error)
{
	g_autoptr(GString) text = NULL;
	struct stat st;

	g_return_val_if_fail(store != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	text = serialize(store);
	if (!make_parent(store->path, "save the state to", error)) {
		add_advice(error, store->path);
		return FALSE;
	}
	if (!write_and_rename(store->path, text, error)) {
		g_prefix_error(error,
		               "cannot save the state to %s: ", store->path);
		add_advice(error, store->path);
		return FALSE;
	}
	if (stat(store->path, &st) == 0)
		stamp_from_stat(&store->stamp, &st);
	return TRUE;
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
		stamp_from_stat(&now, &st);
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
