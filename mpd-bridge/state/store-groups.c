/*
 * One group of the state file into the store: its fields checked and
 * read, the feed, episode or list made, and episodes attached to their
 * feeds. Keys and groups this version does not know are kept, raw, in a
 * small GKeyFile of their own, which store-write.c writes back on save.
 * Apart from store-load.c, which finds the groups in the file's text.
 */
#include "state/store-private.h"

#include "state/keyfile.h"

#include <stdarg.h>
#include <string.h>

void
bridge_store_refuse(GError **error, GQuark domain, gint code, const char *path,
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
				bridge_store_refuse(
				        error, G_KEY_FILE_ERROR,
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
			bridge_store_refuse(error, G_KEY_FILE_ERROR,
			                    G_KEY_FILE_ERROR_KEY_NOT_FOUND,
			                    store->path,
			                    "line %u: [%s] has no %s", line,
			                    group, field->key);
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
		bridge_store_refuse(
		        error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		        store->path, "line %u: [%s] %s is “%s”, not %s", line,
		        group, field->key, raw,
		        field->type == FIELD_BOOLEAN ? "true or false"
		                                     : "a whole number");
		return FALSE;
	}
	return TRUE;
}

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
		bridge_store_refuse(
		        error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
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
	g_autofree char *heard = NULL;
	Feed *feed = NULL;
	gsize found = 0;

	if (*id == '\0' || g_hash_table_contains(store->feed_ids, id)) {
		bridge_store_refuse(
		        error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		        store->path, "line %u: [%s] %s", line, group,
		        *id == '\0' ? "has no id" : "appears twice");
		return FALSE;
	}
	/* It names the feed's episode cache: a file in STATE.cache. */
	if (strchr(id, '/') != NULL || *id == '.') {
		bridge_store_refuse(
		        error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		        store->path,
		        "line %u: [%s] has an id that is no file name", line,
		        group);
		return FALSE;
	}
	feed = bridge_store_feed_new(id);
	if (!read_fields(store, key_file, group, line, bridge_store_feed_fields,
	                 bridge_store_n_feed_fields, &feed->pub, &found,
	                 error)) {
		bridge_store_feed_free(feed);
		return FALSE;
	}
	/* Its episodes listened and nothing more (store-heard.c). */
	heard = g_key_file_get_value(key_file, group, "heard", NULL);
	if (heard != NULL &&
	    !bridge_store_heard_parse(store, feed, heard, line, error)) {
		bridge_store_feed_free(feed);
		return FALSE;
	}
	keep_unknown(store, key_file, group, bridge_store_feed_fields,
	             bridge_store_n_feed_fields, found + (heard != NULL),
	             section);
	if (heard != NULL)
		g_key_file_remove_key(store->extra, group, "heard", NULL);
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
		bridge_store_refuse(
		        error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		        store->path, "line %u: [%s] %s", line, group,
		        *id == '\0' ? "has no id" : "appears twice");
		return FALSE;
	}
	episode = bridge_store_episode_new(id);
	episode->seq = store->next_seq++;
	if (!read_fields(store, key_file, group, line,
	                 bridge_store_episode_fields,
	                 bridge_store_n_episode_fields, &episode->pub, &found,
	                 error)) {
		bridge_store_episode_free(episode);
		return FALSE;
	}
	keep_unknown(store, key_file, group, bridge_store_episode_fields,
	             bridge_store_n_episode_fields, found, section);
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
		bridge_store_refuse(
		        error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		        store->path, "line %u: [%s] %s", section->line, group,
		        *id == '\0' ? "has no id" : "appears twice");
		return FALSE;
	}
	list = bridge_store_list_new(id, NULL);
	if (!read_fields(store, key_file, group, section->line,
	                 bridge_store_list_fields, 1, list, &found, error)) {
		bridge_store_list_free(list);
		return FALSE;
	}
	if ((list->name == NULL) != (strcmp(id, BRIDGE_STORE_LATER_ID) == 0)) {
		bridge_store_refuse(
		        error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
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
	keep_unknown(store, key_file, group, bridge_store_list_fields,
	             bridge_store_n_list_fields, found, section);
	if (list->name == NULL)
		g_ptr_array_insert(store->lists, 0, list);
	else
		g_ptr_array_add(store->lists, list);
	return TRUE;
}

static const Field bridge_fields[] = {
	{ "version", 0, FIELD_INT64, TRUE },
	{ "saved", 0, FIELD_INT64, FALSE },
};

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
		bridge_store_refuse(error, G_KEY_FILE_ERROR,
		                    G_KEY_FILE_ERROR_KEY_NOT_FOUND, store->path,
		                    "line %u: [bridge] has no version", line);
		return FALSE;
	}
	g_strstrip(raw);
	if (!g_ascii_string_to_signed(raw, 10, G_MININT64, G_MAXINT64, &version,
	                              NULL)) {
		bridge_store_refuse(
		        error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
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
		bridge_store_refuse(
		        error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		        store->path,
		        "line %u: [bridge] version %" G_GINT64_FORMAT
		        " is no format mpd-bridge ever wrote",
		        line, version);
		return FALSE;
	}
	store->version = version;
	/* "saved" is only checked: it is rewritten on save. */
	if (!read_fields(store, key_file, "bridge", line, bridge_fields,
	                 G_N_ELEMENTS(bridge_fields), NULL, &found, error))
		return FALSE;
	keep_unknown(store, key_file, "bridge", bridge_fields,
	             G_N_ELEMENTS(bridge_fields), found, section);
	return TRUE;
}

gboolean
bridge_store_load_section(BridgeStore *store, const char *text, gsize length,
                          const Section *section, gboolean bridge,
                          GPtrArray *pending, GError **error)
{
	g_autoptr(GKeyFile) key_file = g_key_file_new();
	g_autoptr(GError) local = NULL;
	g_autofree char *group = NULL;

	if (!g_key_file_load_from_data(key_file, text, length,
	                               G_KEY_FILE_KEEP_TRANSLATIONS, &local)) {
		bridge_store_refuse(error, G_KEY_FILE_ERROR,
		                    G_KEY_FILE_ERROR_PARSE, store->path,
		                    "near line %u: %s", section->line,
		                    local->message);
		return FALSE;
	}
	group = g_key_file_get_start_group(key_file);
	g_assert(group != NULL);
	if (bridge)
		return load_bridge(store, key_file, section, error);
	if (strcmp(group, "bridge") == 0) {
		bridge_store_refuse(error, G_KEY_FILE_ERROR,
		                    G_KEY_FILE_ERROR_INVALID_VALUE, store->path,
		                    "line %u: [bridge] appears twice",
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
gboolean
bridge_store_attach_pending(BridgeStore *store, GPtrArray *pending,
                            GError **error)
{
	while (pending->len > 0) {
		Episode *episode = g_ptr_array_steal_index(pending, 0);
		Feed *feed = g_hash_table_lookup(store->feed_ids,
		                                 episode->pub.feed_id);

		if (feed == NULL) {
			bridge_store_refuse(
			        error, G_KEY_FILE_ERROR,
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
