/*
 * The episode caches: what each feed says of its episodes (guid, URL,
 * title, author, type, dates, duration, number), which can always be had
 * again from the feed. One file per feed in PATH.cache, named by the
 * feed's id, holding a GVariant that is read from a mapped file rather
 * than parsed. It is written only when a refresh changed what the feed
 * says; the key file, which holds what the listener did, is written far
 * more often and stays small.
 *
 * An episode with a state of its own is in the key file too, whole, so
 * that a cache lost costs nothing the listener did: the feed's next
 * refresh fetches it whole and brings back the rest. Each cache holds
 * the number that its feed's group in the key file names, which tells
 * a cache that a power cut left older or newer than the key file.
 */
#include "state/store-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * (magic, version, feed id, number, complete, episodes): the number is
 * the feed's `cached` as the key file holds it; an episode is (id, guid,
 * url, title, author, type, published, duration, number, first_seen,
 * gone), and an absent author or type is "". Native byte order: a file
 * from a machine of the other order reads as another version.
 */
#define CACHE_MAGIC   "mpd-bridge episode cache"
#define CACHE_VERSION 1
#define CACHE_TYPE    "(susuba(ssssssxxxxx))"
#define EPISODE_TYPE  "(ssssssxxxxx)"

char *
bridge_store_cache_path(const char *store_path, const char *feed_id)
{
	g_autofree char *dir = g_strconcat(store_path, ".cache", NULL);

	return g_build_filename(dir, feed_id, NULL);
}

static const char *
or_empty(const char *value)
{
	return value != NULL ? value : "";
}

CacheBlob *
bridge_store_cache_pack(Feed *feed)
{
	g_autoptr(GVariantBuilder) episodes =
	        g_variant_builder_new(G_VARIANT_TYPE("a" EPISODE_TYPE));
	CacheBlob *blob = g_new0(CacheBlob, 1);
	GVariant *whole;

	for (guint i = 0; i < feed->episodes->len; i++) {
		const BridgeEpisode *e = g_ptr_array_index(feed->episodes, i);

		g_variant_builder_add(episodes, EPISODE_TYPE, e->id, e->guid,
		                      e->url, e->title, or_empty(e->author),
		                      or_empty(e->type), e->published,
		                      e->duration, e->number, e->first_seen,
		                      e->gone);
	}
	feed->pub.cached++;
	whole = g_variant_ref_sink(g_variant_new(
	        CACHE_TYPE, CACHE_MAGIC, (guint32)CACHE_VERSION, feed->pub.id,
	        (guint32)feed->pub.cached, !feed->cache_lost, episodes));
	blob->feed_id = g_strdup(feed->pub.id);
	blob->bytes = g_variant_get_data_as_bytes(whole);
	blob->changes = feed->cache_changes;
	g_variant_unref(whole);
	return blob;
}

void
bridge_store_cache_blob_free(gpointer data)
{
	CacheBlob *blob = data;

	if (blob->temp != NULL)
		unlink(blob->temp);
	g_free(blob->temp);
	g_bytes_unref(blob->bytes);
	g_free(blob->feed_id);
	g_free(blob);
}

static char *
empty_to_null(const char *value)
{
	return *value != '\0' ? g_strdup(value) : NULL;
}

/* A cached episode the key file did not have, made and findable. */
static Episode *
make_episode(BridgeStore *store, Feed *feed, GVariant *entry)
{
	const char *id, *guid, *url, *title, *author, *type;
	Episode *episode;
	BridgeEpisode *pub;

	g_variant_get(entry, "(&s&s&s&s&s&sxxxxx)", &id, &guid, &url, &title,
	              &author, &type, NULL, NULL, NULL, NULL, NULL);
	if (*id == '\0' || g_hash_table_contains(store->episode_ids, id) ||
	    g_hash_table_contains(feed->by_guid, guid))
		return NULL;
	episode = bridge_store_episode_new(id);
	pub = &episode->pub;
	pub->feed_id = g_strdup(feed->pub.id);
	pub->guid = g_strdup(guid);
	pub->url = g_strdup(url);
	pub->title = g_strdup(title);
	pub->author = empty_to_null(author);
	pub->type = empty_to_null(type);
	g_variant_get(entry, "(&s&s&s&s&s&sxxxxx)", NULL, NULL, NULL, NULL,
	              NULL, NULL, &pub->published, &pub->duration, &pub->number,
	              &pub->first_seen, &pub->gone);
	g_hash_table_insert(feed->by_guid, pub->guid, episode);
	g_hash_table_insert(store->episode_ids, pub->id, episode);
	return episode;
}

/*
 * The cache's episodes, or NULL with why it cannot be used in @why; a
 * partial one's, with @why set too.
 */
static GVariant *
open_cache(const char *path, const BridgeFeed *feed, GMappedFile **mapped,
           const char **why)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) bytes = NULL;
	g_autoptr(GVariant) whole = NULL;
	const char *magic = NULL;
	const char *id = NULL;
	guint32 version = 0;
	guint32 number = 0;
	gboolean complete = FALSE;
	GVariant *episodes = NULL;

	*mapped = g_mapped_file_new(path, FALSE, &error);
	if (*mapped == NULL) {
		*why = g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_NOENT)
		               ? "missing"
		               : "unreadable";
		return NULL;
	}
	bytes = g_mapped_file_get_bytes(*mapped);
	whole = g_variant_ref_sink(g_variant_new_from_bytes(
	        G_VARIANT_TYPE(CACHE_TYPE), bytes, FALSE));
	/* Reads of a damaged GVariant are safe; this tells that it is. */
	if (!g_variant_is_normal_form(whole)) {
		*why = "damaged";
		return NULL;
	}
	g_variant_get(whole, "(&su&sub@a" EPISODE_TYPE ")", &magic, &version,
	              &id, &number, &complete, &episodes);
	if (strcmp(magic, CACHE_MAGIC) != 0 || strcmp(id, feed->id) != 0) {
		*why = "damaged";
	} else if (version != CACHE_VERSION) {
		*why = "of another version";
	} else {
		/* Its episodes are the feed's still, if not all of them. */
		if (!complete)
			*why = "partial";
		else if (number != feed->cached)
			*why = "not the one the state file names";
		return episodes;
	}
	g_variant_unref(episodes);
	return NULL;
}

void
bridge_store_cache_read(BridgeStore *store, Feed *feed)
{
	g_autofree char *path =
	        bridge_store_cache_path(store->path, feed->pub.id);
	g_autoptr(GHashTable) taken = g_hash_table_new(NULL, NULL);
	g_autoptr(GVariant) episodes = NULL;
	GMappedFile *mapped = NULL;
	GPtrArray *merged = NULL;
	const char *why = NULL;
	gsize n;

	episodes = open_cache(path, &feed->pub, &mapped, &why);
	if (why != NULL) {
		feed->cache_lost = TRUE;
		/* Due now: what the key file does not hold comes back. */
		feed->pub.next_refresh = 0;
		g_message("the episode cache %s of %s is %s: the feed's next "
		          "refresh fetches it whole",
		          path, feed->pub.url, why);
	}
	if (episodes == NULL) {
		if (mapped != NULL)
			g_mapped_file_unref(mapped);
		return;
	}
	/* The cache's order, with the key file's episodes in their places. */
	n = g_variant_n_children(episodes);
	merged = g_ptr_array_new_full((guint)n + feed->episodes->len,
	                              bridge_store_episode_free);
	for (gsize i = 0; i < n; i++) {
		g_autoptr(GVariant) entry =
		        g_variant_get_child_value(episodes, i);
		const char *id = NULL;
		Episode *episode;

		g_variant_get_child(entry, 0, "&s", &id);
		episode = g_hash_table_lookup(store->episode_ids, id);
		if (episode != NULL &&
		    strcmp(episode->pub.feed_id, feed->pub.id) == 0) {
			if (g_hash_table_add(taken, episode))
				g_ptr_array_add(merged, episode);
			continue;
		}
		episode = make_episode(store, feed, entry);
		if (episode != NULL)
			g_ptr_array_add(merged, episode);
	}
	/* The key file's episodes the cache does not know, last. */
	for (guint i = 0; i < feed->episodes->len; i++)
		if (!g_hash_table_contains(taken, feed->episodes->pdata[i]))
			g_ptr_array_add(merged, feed->episodes->pdata[i]);
	g_ptr_array_set_free_func(feed->episodes, NULL);
	g_ptr_array_unref(feed->episodes);
	feed->episodes = merged;
	g_mapped_file_unref(mapped);
}

int
bridge_store_cache_write(const char *store_path, CacheBlob *blob)
{
	g_autofree char *path =
	        bridge_store_cache_path(store_path, blob->feed_id);
	g_autofree char *dir = g_path_get_dirname(path);
	gsize length = 0;
	const char *data = g_bytes_get_data(blob->bytes, &length);
	char *temp;
	int fd;
	int errsv;

	if (g_mkdir_with_parents(dir, 0700) != 0)
		return errno;
	temp = g_strconcat(path, ".saving-XXXXXX", NULL);
	fd = g_mkstemp_full(temp, O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0) {
		errsv = errno;
		g_free(temp);
		return errsv;
	}
	/*
	 * Not synced: 10,000 fsyncs made an import of as many feeds take
	 * a minute on a busy disk. A cache that a power cut left old, cut
	 * short or empty is told by its number or its form, and its feed
	 * is fetched again: nothing in it is the listener's.
	 */
	errsv = bridge_store_write_all(fd, data, length);
	if (close(fd) != 0 && errsv == 0)
		errsv = errno;
	if (errsv != 0) {
		unlink(temp);
		g_free(temp);
		return errsv;
	}
	blob->temp = temp;
	return 0;
}

gboolean
bridge_store_cache_commit(BridgeStore *store, GPtrArray *caches,
                          GPtrArray *uncached, GError **error)
{
	for (guint i = 0; caches != NULL && i < caches->len; i++) {
		CacheBlob *blob = g_ptr_array_index(caches, i);
		g_autofree char *path =
		        bridge_store_cache_path(store->path, blob->feed_id);
		Feed *feed =
		        g_hash_table_lookup(store->feed_ids, blob->feed_id);

		if (rename(blob->temp, path) != 0) {
			int errsv = errno;

			g_set_error(error, G_FILE_ERROR,
			            g_file_error_from_errno(errsv),
			            "renaming %s: %s", blob->temp,
			            g_strerror(errsv));
			return FALSE;
		}
		g_clear_pointer(&blob->temp, g_free);
		if (feed != NULL)
			feed->cache_saved =
			        MAX(feed->cache_saved, blob->changes);
	}
	for (guint i = 0; uncached != NULL && i < uncached->len; i++) {
		const char *id = g_ptr_array_index(uncached, i);
		g_autofree char *path = NULL;

		/* Subscribed again since: its cache is newer. */
		if (g_hash_table_contains(store->feed_ids, id))
			continue;
		path = bridge_store_cache_path(store->path, id);
		if (unlink(path) != 0 && errno != ENOENT)
			g_debug("cannot remove %s: %s", path,
			        g_strerror(errno));
	}
	return TRUE;
}
