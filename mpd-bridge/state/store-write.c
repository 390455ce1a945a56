/*
 * The store as the state file's text, for a save, with the unknown keys
 * and groups that were read (store-groups.c) written back, and the
 * episode caches of the feeds that changed (store-cache.c). Made in
 * slices, so that a loop answers meanwhile. Apart from store-file.c,
 * which puts them on disk.
 */
#include "state/store-private.h"

#include <string.h>

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

static void
append_header(GString *out, const BridgeStore *store)
{
	g_string_append(
	        out,
	        "# mpd-bridge's state: the subscriptions, and the episodes "
	        "with a state of\n"
	        "# their own. What the feeds say of the others is cached in "
	        "the .cache\n"
	        "# directory beside this file, and fetched again when it is "
	        "lost.\n"
	        "# mpd-bridge rewrites it: stop mpd-bridge before editing it "
	        "by hand,\n"
	        "# and keep the group names, which are ids. Times are Unix "
	        "seconds.\n"
	        "# Comments are not kept.\n");
	g_string_append_printf(
	        out, "\n[bridge]\nversion=%d\nsaved=%" G_GINT64_FORMAT "\n",
	        BRIDGE_STORE_VERSION, bridge_store_now());
	append_unknown(out, store->extra, "bridge");
}

static void
append_heard(GString *out, const char *id, const Heard *heard)
{
	char number[64];

	g_string_append(out, id);
	g_snprintf(number, sizeof(number),
	           ":%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT ";",
	           heard->listened_at, heard->last_played);
	g_string_append(out, number);
}

/* A feed's group, with its episodes listened and nothing more. */
static void
append_feed(GString *out, GKeyFile *scratch, GString *name,
            const BridgeStore *store, const Feed *feed, GHashTable *kept)
{
	gsize before;
	GHashTableIter iter;
	gpointer id, heard;

	g_string_assign(name, "feed ");
	g_string_append(name, feed->pub.id);
	append_group(out, scratch, store->extra, name->str, &feed->pub,
	             bridge_store_feed_fields, bridge_store_n_feed_fields);
	g_string_append(out, "heard=");
	before = out->len;
	for (guint i = 0; i < feed->episodes->len; i++) {
		const Episode *episode = feed->episodes->pdata[i];
		Heard record = { episode->pub.listened_at,
			         episode->pub.last_played };

		if (bridge_store_episode_is_heard(episode, kept))
			append_heard(out, episode->pub.id, &record);
	}
	/* Those whose episodes are not known yet, as they were. */
	g_hash_table_iter_init(&iter, feed->heard);
	while (g_hash_table_iter_next(&iter, &id, &heard))
		append_heard(out, id, heard);
	if (out->len == before)
		g_string_truncate(out, before - strlen("heard="));
	else
		g_string_append_c(out, '\n');
}

static void
append_episode(GString *out, GKeyFile *scratch, GString *name,
               const BridgeStore *store, const Episode *episode)
{
	g_string_assign(name, "episode ");
	g_string_append(name, episode->pub.id);
	append_group(out, scratch, store->extra, name->str, &episode->pub,
	             bridge_store_episode_fields,
	             bridge_store_n_episode_fields);
}

/* The lists, and the groups of no feed, episode or list. */
static void
append_rest(GString *out, GKeyFile *scratch, GString *name,
            const BridgeStore *store)
{
	g_auto(GStrv) groups = g_key_file_get_groups(store->extra, NULL);

	for (guint i = 0; i < store->lists->len; i++) {
		const BridgeList *list = g_ptr_array_index(store->lists, i);

		g_string_assign(name, "list ");
		g_string_append(name, list->id);
		append_group(out, scratch, store->extra, name->str, list,
		             bridge_store_list_fields, 1);
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
}

/* Episodes gone through between two looks at the clock. */
#define SLICE_GROUPS 64

/* Starts @save's text again: which feeds and episodes there are changed. */
static void
restart(BridgeStoreSave *save)
{
	const BridgeStore *store = save->store;

	g_string_truncate(save->text, 0);
	append_header(save->text, store);
	/*
	 * The caches made of feeds that did not change since stay: a refresh
	 * of all restarts a save again and again, and 1,000 caches are
	 * 100,000 episodes to pack.
	 */
	for (guint i = save->caches->len; i-- > 0;) {
		const CacheBlob *blob = g_ptr_array_index(save->caches, i);
		const Feed *feed =
		        g_hash_table_lookup(store->feed_ids, blob->feed_id);

		if (feed != NULL && feed->cache_changes == blob->changes)
			continue;
		g_hash_table_remove(save->packed, blob->feed_id);
		g_ptr_array_remove_index_fast(save->caches, i);
	}
	save->feed = 0;
	save->episode = 0;
	save->generation = store->generation;
}

/* Counts a slice that began at @start, for the log; @whole. */
static gboolean
slice_done(BridgeStoreSave *save, gint64 start, gboolean whole)
{
	save->slices++;
	save->longest_us =
	        MAX(save->longest_us, g_get_monotonic_time() - start);
	return whole;
}

BridgeStoreSave *
bridge_store_save_begin(BridgeStore *store)
{
	BridgeStoreSave *save = g_new0(BridgeStoreSave, 1);

	save->store = store;
	save->text = g_string_sized_new((gsize)store->stamp.size + 4096);
	save->scratch = g_key_file_new();
	save->name = g_string_new(NULL);
	save->journal = store->stamp.journal;
	save->saves = store->saves;
	save->caches =
	        g_ptr_array_new_with_free_func(bridge_store_cache_blob_free);
	save->packed = g_hash_table_new(g_str_hash, g_str_equal);
	save->uncached = g_steal_pointer(&store->uncached);
	store->uncached = g_ptr_array_new_with_free_func(g_free);
	restart(save);
	return save;
}

gboolean
bridge_store_save_step(BridgeStoreSave *save, gint64 budget_us)
{
	const BridgeStore *store = save->store;
	gint64 start = g_get_monotonic_time();
	gint64 until = start + budget_us;
	guint groups = 0;

	g_return_val_if_fail(save->whole == FALSE, TRUE);
	if (save->generation != store->generation) {
		/*
		 * Seldom: a refresh that brought or dropped episodes. Past
		 * three, all in one go: a save that never ends saves nothing.
		 */
		if (++save->restarts > 3)
			budget_us = G_MAXINT64 / 2;
		until = g_get_monotonic_time() + budget_us;
		restart(save);
	}
	/* Lists may have changed since the last slice. */
	if (save->kept != NULL)
		g_hash_table_unref(save->kept);
	save->kept = bridge_store_kept_ids(store);
	while (save->feed < store->feeds->len) {
		Feed *feed = g_ptr_array_index(store->feeds, save->feed);

		if (save->episode == 0) {
			/* First: the feed's group holds the cache's number. */
			if (feed->cache_changes != feed->cache_saved &&
			    !g_hash_table_contains(save->packed,
			                           feed->pub.id)) {
				CacheBlob *blob = bridge_store_cache_pack(feed);

				g_ptr_array_add(save->caches, blob);
				g_hash_table_add(save->packed, blob->feed_id);
			}
			append_feed(save->text, save->scratch, save->name,
			            store, feed, save->kept);
		}
		while (save->episode < feed->episodes->len) {
			const Episode *episode =
			        feed->episodes->pdata[save->episode];

			save->episode++;
			/*
			 * Most are in the feed's cache alone, and most of the
			 * rest are in its group's heard list.
			 */
			if (bridge_store_episode_is_own(episode, save->kept) &&
			    !bridge_store_episode_is_heard(episode, save->kept))
				append_episode(save->text, save->scratch,
				               save->name, store, episode);
			if (++groups % SLICE_GROUPS == 0 &&
			    g_get_monotonic_time() >= until)
				return slice_done(save, start, FALSE);
		}
		save->feed++;
		save->episode = 0;
	}
	append_rest(save->text, save->scratch, save->name, store);
	save->whole = TRUE;
	return slice_done(save, start, TRUE);
}
