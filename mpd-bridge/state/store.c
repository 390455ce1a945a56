/*
 * The bridge's state in memory: the subscriptions, their episodes and the
 * lists, with the lookups the daemon needs. The structs are the only copy
 * of the state; store-load.c reads and store-file.c saves them.
 */
#include "state/store-private.h"

#include <string.h>

#define ID_LENGTH 16

static void
free_strings(gpointer record, const Field *fields, gsize n_fields)
{
	for (gsize i = 0; i < n_fields; i++)
		if (fields[i].type == FIELD_STRING)
			g_free(G_STRUCT_MEMBER(char *, record,
			                       fields[i].offset));
}

Episode *
bridge_store_episode_new(const char *id)
{
	size_t size = strlen(id) + 1;
	Episode *episode = g_malloc0(sizeof(Episode) + size);

	memcpy(episode->id, id, size);
	episode->pub.id = episode->id;
	return episode;
}

void
bridge_store_episode_free(gpointer data)
{
	Episode *episode = data;

	free_strings(&episode->pub, bridge_store_episode_fields,
	             bridge_store_n_episode_fields);
	g_free(episode);
}

Feed *
bridge_store_feed_new(const char *id)
{
	Feed *feed = g_new0(Feed, 1);

	feed->pub.id = g_strdup(id);
	feed->episodes =
	        g_ptr_array_new_with_free_func(bridge_store_episode_free);
	feed->by_guid = g_hash_table_new(g_str_hash, g_str_equal);
	feed->heard =
	        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	return feed;
}

void
bridge_store_feed_free(gpointer data)
{
	Feed *feed = data;

	if (feed == NULL)
		return;
	/* The table's keys belong to the episodes: drop it first. */
	g_hash_table_unref(feed->by_guid);
	g_hash_table_unref(feed->heard);
	g_ptr_array_unref(feed->episodes);
	free_strings(&feed->pub, bridge_store_feed_fields,
	             bridge_store_n_feed_fields);
	g_free(feed->pub.id);
	g_free(feed);
}

void
bridge_store_list_free(gpointer data)
{
	BridgeList *list = data;

	g_free(list->id);
	g_free(list->name);
	g_free(list->pushed);
	g_ptr_array_unref(list->episodes);
	g_free(list);
}

BridgeList *
bridge_store_list_new(const char *id, const char *name)
{
	BridgeList *list = g_new0(BridgeList, 1);

	list->id = g_strdup(id);
	list->name = g_strdup(name);
	list->episodes = g_ptr_array_new_with_free_func(g_free);
	return list;
}

BridgeStore *
bridge_store_new_empty(const char *path)
{
	BridgeStore *store = g_new0(BridgeStore, 1);

	store->path = g_strdup(path);
	store->lock_fd = -1;
	store->feeds = g_ptr_array_new_with_free_func(bridge_store_feed_free);
	store->feed_ids = g_hash_table_new(g_str_hash, g_str_equal);
	store->episode_ids = g_hash_table_new(g_str_hash, g_str_equal);
	store->lists = g_ptr_array_new_with_free_func(bridge_store_list_free);
	store->extra = g_key_file_new();
	store->uncached = g_ptr_array_new_with_free_func(g_free);
	return store;
}

gint64
bridge_store_now(void)
{
	return g_get_real_time() / G_USEC_PER_SEC;
}

/* The first ID_LENGTH hex digits of SHA-256, hashed again while taken. */
static char *
new_id(GHashTable *taken, const char *seed)
{
	for (guint n = 0;; n++) {
		g_autofree char *input =
		        n == 0 ? g_strdup(seed)
		               : g_strdup_printf("%s\n%u", seed, n);
		char *id = g_compute_checksum_for_string(G_CHECKSUM_SHA256,
		                                         input, -1);

		id[ID_LENGTH] = '\0';
		if (!g_hash_table_contains(taken, id))
			return id;
		g_free(id);
	}
}

void
bridge_store_attach(Feed *feed, Episode *episode)
{
	g_ptr_array_add(feed->episodes, episode);
	g_hash_table_insert(feed->by_guid, episode->pub.guid, episode);
}

/* An id on a list that names no episode: the episode was dropped. */
void
bridge_store_prune_lists(BridgeStore *store)
{
	for (guint i = 0; i < store->lists->len; i++) {
		BridgeList *list = g_ptr_array_index(store->lists, i);

		for (guint j = list->episodes->len; j-- > 0;)
			if (!g_hash_table_contains(store->episode_ids,
			                           list->episodes->pdata[j]))
				g_ptr_array_remove_index(list->episodes, j);
	}
}

GHashTable *
bridge_store_kept_ids(const BridgeStore *store)
{
	GHashTable *kept = g_hash_table_new(g_str_hash, g_str_equal);
	g_auto(GStrv) groups = g_key_file_get_groups(store->extra, NULL);

	for (guint i = 0; i < store->lists->len; i++) {
		const BridgeList *list = g_ptr_array_index(store->lists, i);

		for (guint j = 0; j < list->episodes->len; j++)
			g_hash_table_add(kept, list->episodes->pdata[j]);
	}
	/* Borrowed from the episodes, which outlive the table. */
	for (gsize i = 0; groups[i] != NULL; i++) {
		Episode *episode;

		if (!g_str_has_prefix(groups[i], "episode "))
			continue;
		episode = g_hash_table_lookup(store->episode_ids,
		                              groups[i] + strlen("episode "));
		if (episode != NULL)
			g_hash_table_add(kept, episode->pub.id);
	}
	return kept;
}

/*
 * A state of its own besides listened, last played and position: a star,
 * a sync stamp, a download, or its id in @kept.
 */
static gboolean
has_more_than_plays(const BridgeEpisode *e, GHashTable *kept)
{
	return e->starred || e->sync_changed != 0 || e->sync_from != NULL ||
	       e->sync_unsent || e->file != NULL || e->downloaded != 0 ||
	       e->download != 0 || e->download_error != NULL ||
	       e->download_failures != 0 || e->download_retry != 0 ||
	       g_hash_table_contains(kept, e->id);
}

gboolean
bridge_store_episode_is_heard(const Episode *episode, GHashTable *kept)
{
	const BridgeEpisode *e = &episode->pub;

	/* An id of a hand-made group may hold the record's separators. */
	return e->listened && e->position == 0 &&
	       strpbrk(e->id, ":; ") == NULL && !has_more_than_plays(e, kept);
}

gboolean
bridge_store_episode_is_own(const Episode *episode, GHashTable *kept)
{
	const BridgeEpisode *e = &episode->pub;

	return e->listened || e->listened_at != 0 || e->position != 0 ||
	       e->last_played != 0 || has_more_than_plays(e, kept);
}

gint
bridge_store_compare_seq(gconstpointer a, gconstpointer b)
{
	const Episode *x = *(Episode *const *)a;
	const Episode *y = *(Episode *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void
bridge_store_free(BridgeStore *store)
{
	if (store == NULL)
		return;
	bridge_store_unlock(store);
	g_hash_table_unref(store->episode_ids);
	g_hash_table_unref(store->feed_ids);
	g_ptr_array_unref(store->feeds);
	g_ptr_array_unref(store->lists);
	g_key_file_free(store->extra);
	g_ptr_array_unref(store->uncached);
	g_free(store->path);
	g_free(store);
}

gboolean
bridge_store_is_old_format(const BridgeStore *store)
{
	g_return_val_if_fail(store != NULL, FALSE);

	return store->stamp.exists && store->version < BRIDGE_STORE_VERSION;
}

const char *
bridge_store_get_path(const BridgeStore *store)
{
	g_return_val_if_fail(store != NULL, NULL);

	return store->path;
}

GPtrArray *
bridge_store_get_feeds(const BridgeStore *store)
{
	g_return_val_if_fail(store != NULL, NULL);

	return store->feeds;
}

/* Case-folded and normalized, for names a person types; NULL if invalid. */
static char *
fold(const char *name)
{
	g_autofree char *folded = NULL;

	if (name == NULL || !g_utf8_validate(name, -1, NULL))
		return NULL;
	folded = g_utf8_casefold(name, -1);
	return g_utf8_normalize(folded, -1, G_NORMALIZE_DEFAULT);
}

static BridgeFeed *
find_by_folded(const BridgeStore *store, const char *folded, size_t offset)
{
	for (guint i = 0; i < store->feeds->len; i++) {
		BridgeFeed *feed = g_ptr_array_index(store->feeds, i);
		g_autofree char *candidate =
		        fold(G_STRUCT_MEMBER(const char *, feed, offset));

		if (g_strcmp0(candidate, folded) == 0)
			return feed;
	}
	return NULL;
}

BridgeFeed *
bridge_store_find_feed_by_url(const BridgeStore *store, const char *url)
{
	g_return_val_if_fail(store != NULL, NULL);
	g_return_val_if_fail(url != NULL, NULL);

	for (guint i = 0; i < store->feeds->len; i++) {
		BridgeFeed *feed = g_ptr_array_index(store->feeds, i);

		if (strcmp(feed->url, url) == 0)
			return feed;
	}
	return NULL;
}

BridgeFeed *
bridge_store_find_feed(const BridgeStore *store, const char *key)
{
	g_autofree char *folded = NULL;
	BridgeFeed *feed = NULL;

	g_return_val_if_fail(store != NULL, NULL);
	g_return_val_if_fail(key != NULL, NULL);

	feed = g_hash_table_lookup(store->feed_ids, key);
	if (feed != NULL)
		return feed;
	feed = bridge_store_find_feed_by_url(store, key);
	if (feed != NULL)
		return feed;
	folded = fold(key);
	if (folded == NULL)
		return NULL;
	feed = find_by_folded(store, folded, offsetof(BridgeFeed, name));
	if (feed != NULL)
		return feed;
	return find_by_folded(store, folded, offsetof(BridgeFeed, title));
}

static gboolean
has_feed(const BridgeStore *store, const BridgeFeed *feed)
{
	return feed != NULL &&
	       g_hash_table_lookup(store->feed_ids, feed->id) == feed;
}

BridgeFeed *
bridge_store_add_feed(BridgeStore *store, const char *url)
{
	Feed *feed = NULL;
	g_autofree char *id = NULL;

	g_return_val_if_fail(store != NULL, NULL);
	g_return_val_if_fail(url != NULL && g_utf8_validate(url, -1, NULL),
	                     NULL);

	for (guint i = 0; i < store->feeds->len; i++) {
		const BridgeFeed *other = g_ptr_array_index(store->feeds, i);

		if (strcmp(other->url, url) == 0)
			return NULL;
	}
	id = new_id(store->feed_ids, url);
	feed = bridge_store_feed_new(id);
	feed->pub.url = g_strdup(url);
	feed->pub.added = bridge_store_now();
	/* A cache of it left from before it was removed is replaced. */
	feed->cache_changes = 1;
	g_ptr_array_add(store->feeds, feed);
	g_hash_table_insert(store->feed_ids, feed->pub.id, feed);
	store->generation++;
	return &feed->pub;
}

static void
drop_unknown(BridgeStore *store, const char *kind, const char *id)
{
	g_autofree char *group = g_strconcat(kind, " ", id, NULL);

	if (g_key_file_has_group(store->extra, group))
		g_key_file_remove_group(store->extra, group, NULL);
}

void
bridge_store_remove_feed(BridgeStore *store, BridgeFeed *feed)
{
	Feed *own = (Feed *)feed;

	g_return_if_fail(store != NULL);
	g_return_if_fail(has_feed(store, feed));

	for (guint i = 0; i < own->episodes->len; i++) {
		const Episode *episode = g_ptr_array_index(own->episodes, i);

		g_hash_table_remove(store->episode_ids, episode->pub.id);
		drop_unknown(store, "episode", episode->pub.id);
	}
	bridge_store_prune_lists(store);
	drop_unknown(store, "feed", feed->id);
	g_ptr_array_add(store->uncached, g_strdup(feed->id));
	g_hash_table_remove(store->feed_ids, feed->id);
	g_ptr_array_remove(store->feeds, own);
	store->generation++;
}

void
bridge_store_feed_changed(BridgeStore *store, BridgeFeed *feed)
{
	Feed *own = (Feed *)feed;

	g_return_if_fail(store != NULL);
	g_return_if_fail(has_feed(store, feed));

	own->cache_changes++;
	own->cache_lost = FALSE;
}

gboolean
bridge_store_feed_cache_lost(const BridgeStore *store, const BridgeFeed *feed)
{
	g_return_val_if_fail(store != NULL, FALSE);
	g_return_val_if_fail(has_feed(store, feed), FALSE);

	return ((const Feed *)feed)->cache_lost;
}

void
bridge_store_move_feed(BridgeStore *store, BridgeFeed *feed, const char *url)
{
	g_return_if_fail(store != NULL);
	g_return_if_fail(has_feed(store, feed));
	g_return_if_fail(url != NULL && g_utf8_validate(url, -1, NULL));

	g_free(feed->url);
	feed->url = g_strdup(url);
}

BridgeEpisode *
bridge_store_get_episode(BridgeStore *store, BridgeFeed *feed, const char *guid,
                         gboolean *created)
{
	Feed *own = (Feed *)feed;
	Episode *episode = NULL;
	g_autofree char *seed = NULL;
	g_autofree char *id = NULL;

	g_return_val_if_fail(store != NULL, NULL);
	g_return_val_if_fail(has_feed(store, feed), NULL);
	g_return_val_if_fail(guid != NULL && g_utf8_validate(guid, -1, NULL),
	                     NULL);

	episode = g_hash_table_lookup(own->by_guid, guid);
	if (created != NULL)
		*created = episode == NULL;
	if (episode != NULL)
		return &episode->pub;
	seed = g_strconcat(feed->id, "\n", guid, NULL);
	id = new_id(store->episode_ids, seed);
	episode = bridge_store_episode_new(id);
	episode->seq = store->next_seq++;
	episode->pub.feed_id = g_strdup(feed->id);
	episode->pub.guid = g_strdup(guid);
	episode->pub.url = g_strdup("");
	episode->pub.title = g_strdup("");
	episode->pub.first_seen = bridge_store_now();
	bridge_store_attach(own, episode);
	g_hash_table_insert(store->episode_ids, episode->pub.id, episode);
	bridge_store_heard_take(own, episode);
	own->cache_changes++;
	store->generation++;
	return &episode->pub;
}

BridgeEpisode *
bridge_store_lookup_episode(const BridgeStore *store, const BridgeFeed *feed,
                            const char *guid)
{
	Episode *episode = NULL;

	g_return_val_if_fail(store != NULL, NULL);
	g_return_val_if_fail(has_feed(store, feed), NULL);
	g_return_val_if_fail(guid != NULL, NULL);

	episode = g_hash_table_lookup(((const Feed *)feed)->by_guid, guid);
	return episode != NULL ? &episode->pub : NULL;
}

/* Newest first; undated last; then the latest seen; then the file order. */
static gint
compare_newest(gconstpointer a, gconstpointer b)
{
	const Episode *x = *(Episode *const *)a;
	const Episode *y = *(Episode *const *)b;

	if (x->pub.published != y->pub.published) {
		if (x->pub.published == 0 || y->pub.published == 0)
			return x->pub.published == 0 ? 1 : -1;
		return x->pub.published > y->pub.published ? -1 : 1;
	}
	if (x->pub.first_seen != y->pub.first_seen)
		return x->pub.first_seen > y->pub.first_seen ? -1 : 1;
	return bridge_store_compare_seq(a, b);
}

GPtrArray *
bridge_store_list_episodes(const BridgeStore *store, const BridgeFeed *feed)
{
	GPtrArray *list = NULL;

	g_return_val_if_fail(store != NULL, NULL);
	g_return_val_if_fail(feed == NULL || has_feed(store, feed), NULL);

	list = g_ptr_array_sized_new(
	        feed != NULL ? ((const Feed *)feed)->episodes->len
	                     : g_hash_table_size(store->episode_ids));
	for (guint i = 0; i < store->feeds->len; i++) {
		const Feed *each = g_ptr_array_index(store->feeds, i);

		if (feed != NULL && &each->pub != feed)
			continue;
		for (guint j = 0; j < each->episodes->len; j++)
			g_ptr_array_add(list,
			                g_ptr_array_index(each->episodes, j));
	}
	g_ptr_array_sort(list, compare_newest);
	return list;
}

GPtrArray *
bridge_store_filter_episodes(const BridgeStore *store, BridgeEpisodeFilter keep,
                             gpointer data)
{
	GPtrArray *list = NULL;

	g_return_val_if_fail(store != NULL, NULL);
	g_return_val_if_fail(keep != NULL, NULL);

	list = g_ptr_array_new();
	for (guint i = 0; i < store->feeds->len; i++) {
		const Feed *feed = g_ptr_array_index(store->feeds, i);

		for (guint j = 0; j < feed->episodes->len; j++) {
			BridgeEpisode *episode =
			        g_ptr_array_index(feed->episodes, j);

			if (keep(episode, data))
				g_ptr_array_add(list, episode);
		}
	}
	return list;
}

BridgeEpisode *
bridge_store_find_episode(const BridgeStore *store, const char *key)
{
	Episode *episode = NULL;

	g_return_val_if_fail(store != NULL, NULL);
	g_return_val_if_fail(key != NULL, NULL);

	episode = g_hash_table_lookup(store->episode_ids, key);
	if (episode != NULL)
		return &episode->pub;
	for (guint i = 0; i < store->feeds->len; i++) {
		const Feed *feed = g_ptr_array_index(store->feeds, i);

		episode = g_hash_table_lookup(feed->by_guid, key);
		if (episode != NULL)
			return &episode->pub;
	}
	for (guint i = 0; i < store->feeds->len; i++) {
		const Feed *feed = g_ptr_array_index(store->feeds, i);

		for (guint j = 0; j < feed->episodes->len; j++) {
			episode = g_ptr_array_index(feed->episodes, j);
			if (strcmp(episode->pub.url, key) == 0 ||
			    g_strcmp0(episode->pub.file, key) == 0)
				return &episode->pub;
		}
	}
	return NULL;
}

gboolean
bridge_store_set_episode_guid(BridgeStore *store, BridgeEpisode *episode,
                              const char *guid)
{
	Feed *feed = NULL;

	g_return_val_if_fail(store != NULL && episode != NULL, FALSE);
	g_return_val_if_fail(guid != NULL && g_utf8_validate(guid, -1, NULL),
	                     FALSE);

	feed = g_hash_table_lookup(store->feed_ids, episode->feed_id);
	g_return_val_if_fail(feed != NULL, FALSE);
	if (g_hash_table_contains(feed->by_guid, guid))
		return strcmp(guid, episode->guid) == 0;
	g_hash_table_remove(feed->by_guid, episode->guid);
	g_free(episode->guid);
	episode->guid = g_strdup(guid);
	g_hash_table_insert(feed->by_guid, episode->guid, episode);
	feed->cache_changes++;
	return TRUE;
}

void
bridge_store_remove_episode(BridgeStore *store, BridgeEpisode *episode)
{
	Feed *feed = NULL;

	g_return_if_fail(store != NULL && episode != NULL);

	feed = g_hash_table_lookup(store->feed_ids, episode->feed_id);
	g_return_if_fail(feed != NULL);
	g_hash_table_remove(feed->by_guid, episode->guid);
	g_hash_table_remove(store->episode_ids, episode->id);
	drop_unknown(store, "episode", episode->id);
	bridge_store_prune_lists(store);
	g_ptr_array_remove(feed->episodes, episode);
	feed->cache_changes++;
	store->generation++;
}

GPtrArray *
bridge_store_get_lists(const BridgeStore *store)
{
	g_return_val_if_fail(store != NULL, NULL);

	return store->lists;
}

BridgeList *
bridge_store_get_list(BridgeStore *store, const char *name, gboolean create)
{
	g_autofree char *folded = name != NULL ? fold(name) : NULL;
	g_autoptr(GHashTable) taken = NULL;
	g_autofree char *id = NULL;
	BridgeList *list = NULL;

	g_return_val_if_fail(store != NULL, NULL);
	g_return_val_if_fail(name == NULL || g_utf8_validate(name, -1, NULL),
	                     NULL);

	for (guint i = 0; i < store->lists->len; i++) {
		g_autofree char *other = NULL;

		list = g_ptr_array_index(store->lists, i);
		if (name == NULL || list->name == NULL) {
			if (name == NULL && list->name == NULL)
				return list;
			continue;
		}
		other = fold(list->name);
		if (strcmp(folded, other) == 0)
			return list;
	}
	if (!create)
		return NULL;
	if (name == NULL) {
		list = bridge_store_list_new(BRIDGE_STORE_LATER_ID, NULL);
		g_ptr_array_insert(store->lists, 0, list);
		return list;
	}
	taken = g_hash_table_new(g_str_hash, g_str_equal);
	g_hash_table_add(taken, (gpointer)BRIDGE_STORE_LATER_ID);
	for (guint i = 0; i < store->lists->len; i++)
		g_hash_table_add(taken,
		                 ((BridgeList *)store->lists->pdata[i])->id);
	id = new_id(taken, folded);
	list = bridge_store_list_new(id, name);
	g_ptr_array_add(store->lists, list);
	return list;
}

void
bridge_store_remove_list(BridgeStore *store, BridgeList *list)
{
	g_autofree char *group = NULL;

	g_return_if_fail(store != NULL && list != NULL);

	group = g_strconcat("list ", list->id, NULL);
	if (g_key_file_has_group(store->extra, group))
		g_key_file_remove_group(store->extra, group, NULL);
	g_ptr_array_remove(store->lists, list);
}

gint
bridge_list_index_of(const BridgeList *list, const char *episode_id)
{
	g_return_val_if_fail(list != NULL && episode_id != NULL, -1);

	for (guint i = 0; i < list->episodes->len; i++)
		if (strcmp(list->episodes->pdata[i], episode_id) == 0)
			return (gint)i;
	return -1;
}

gboolean
bridge_store_is_listed(const BridgeStore *store, const BridgeEpisode *episode)
{
	g_return_val_if_fail(store != NULL && episode != NULL, FALSE);

	for (guint i = 0; i < store->lists->len; i++)
		if (bridge_list_index_of(store->lists->pdata[i], episode->id) >=
		    0)
			return TRUE;
	return FALSE;
}

const char *
bridge_feed_get_name(const BridgeFeed *feed)
{
	return feed->name != NULL    ? feed->name
	       : feed->title != NULL ? feed->title
	                             : feed->url;
}

GKeyFile *
bridge_store_get_groups(BridgeStore *store)
{
	g_return_val_if_fail(store != NULL, NULL);
	return store->extra;
}

const char *
bridge_episode_get_state(const BridgeEpisode *episode)
{
	if (episode->listened)
		return "listened";
	if (episode->position > 0)
		return "in-progress";
	return "new";
}
