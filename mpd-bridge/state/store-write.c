/*
 * The store as the state file's text, for a save, with the unknown keys
 * and groups that were read (store-groups.c) written back. Apart from
 * store-file.c, which puts the text on disk.
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
}

static void
append_feed(GString *out, GKeyFile *scratch, GString *name,
            const BridgeStore *store, const Feed *feed)
{
	g_string_assign(name, "feed ");
	g_string_append(name, feed->pub.id);
	append_group(out, scratch, store->extra, name->str, &feed->pub,
	             bridge_store_feed_fields, bridge_store_n_feed_fields);
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

GString *
bridge_store_serialize(const BridgeStore *store)
{
	g_autoptr(GKeyFile) scratch = g_key_file_new();
	g_autoptr(GString) name = g_string_new(NULL);
	GString *out = g_string_sized_new((gsize)store->stamp.size + 4096);

	append_header(out, store);
	for (guint i = 0; i < store->feeds->len; i++) {
		const Feed *feed = g_ptr_array_index(store->feeds, i);

		append_feed(out, scratch, name, store, feed);
		for (guint j = 0; j < feed->episodes->len; j++)
			append_episode(out, scratch, name, store,
			               feed->episodes->pdata[j]);
	}
	append_rest(out, scratch, name, store);
	return out;
}

/* Groups written between two looks at the clock. */
#define SLICE_GROUPS 64

/* Starts @save's text again: which feeds and episodes there are changed. */
static void
restart(BridgeStoreSave *save)
{
	const BridgeStore *store = save->store;

	g_string_truncate(save->text, 0);
	append_header(save->text, store);
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
	while (save->feed < store->feeds->len) {
		const Feed *feed = g_ptr_array_index(store->feeds, save->feed);

		if (save->episode == 0)
			append_feed(save->text, save->scratch, save->name,
			            store, feed);
		while (save->episode < feed->episodes->len) {
			append_episode(save->text, save->scratch, save->name,
			               store,
			               feed->episodes->pdata[save->episode]);
			save->episode++;
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
