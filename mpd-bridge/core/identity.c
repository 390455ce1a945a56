/*
 * Episode identity: URL keys for matching a stream to an episode, and the
 * duplicate guesser that keeps an episode's state when its feed gives it
 * a new guid.
 */
#include "core/identity.h"

#include "core/call.h"
#include "core/relay-url.h"

#include <string.h>

#define SAME_DAY      (24 * 60 * 60)
#define SAME_DURATION (5 * 60)

/*
 * Measurement prefixes that podcasts put before their real enclosure
 * URLs; the same episode may be queued with or without them.
 */
#define PREFIXES                                                               \
	"^(?:[^/]*podtrac\\.com/(?:pts/)?redirect\\.(?:mp3|m4a)/"              \
	"|[^/]+/redirect\\.mp3/"                                               \
	"|(?:chtbl\\.com|chrt\\.fm)/track/[^/]+/"                              \
	"|(?:pdst\\.fm|mgln\\.ai)/e/"                                          \
	"|op3\\.dev/e(?:,[^/]*)?/"                                             \
	"|(?:verifi\\.podscribe\\.com|pscrb\\.fm)/rss/p/"                      \
	"|arttrk\\.com/p/[^/]+/"                                               \
	"|pfx\\.vpixl\\.com/[^/]+/)"

/* The URL without scheme and tracking prefixes, host lower-cased. */
char *
bridge_identity_url_key(Bridge *bridge, const char *uri)
{
	const char *rest = strstr(uri, "://");
	g_autofree char *key = g_strdup(rest != NULL ? rest + 3 : uri);
	char *slash;

	if (bridge->url_prefixes == NULL)
		bridge->url_prefixes = g_regex_new(
		        PREFIXES, G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, NULL);
	for (guint i = 0; i < 8; i++) {
		g_autofree char *shorter =
		        g_regex_replace(bridge->url_prefixes, key, -1, 0, "",
		                        G_REGEX_MATCH_ANCHORED, NULL);

		if (shorter == NULL || strcmp(shorter, key) == 0)
			break;
		g_free(key);
		key = g_steal_pointer(&shorter);
		/* A prefix may keep the inner URL's own scheme. */
		if (strstr(key, "://") != NULL)
			memmove(key, strstr(key, "://") + 3,
			        strlen(strstr(key, "://") + 3) + 1);
	}
	slash = strchr(key, '/');
	if (slash != NULL)
		*slash = '\0';
	{
		g_autofree char *host = g_ascii_strdown(key, -1);

		return g_strconcat(host, slash != NULL ? "/" : "",
		                   slash != NULL ? slash + 1 : "", NULL);
	}
}

BridgeEpisode *
bridge_identity_find_by_url(Bridge *bridge, const char *uri)
{
	BridgeEpisode *episode;
	g_autoptr(GPtrArray) all = NULL;
	g_autofree char *key = NULL;
	g_autofree char *relayed = NULL;

	/* MPD can say it plays and name no song, as a song is dropped. */
	if (uri == NULL)
		return NULL;
	relayed = bridge_relay_url_episode(uri, FALSE);
	if (relayed != NULL)
		return bridge_store_find_episode(bridge->store, relayed);
	episode = bridge_store_find_episode(bridge->store, uri);
	if (episode != NULL)
		return episode;
	key = bridge_identity_url_key(bridge, uri);
	all = bridge_store_list_episodes(bridge->store, NULL);
	for (guint i = 0; i < all->len; i++) {
		BridgeEpisode *candidate = all->pdata[i];
		g_autofree char *other =
		        bridge_identity_url_key(bridge, candidate->url);

		if (strcmp(key, other) == 0)
			return candidate;
	}
	return NULL;
}

GHashTable *
bridge_identity_url_index(Bridge *bridge)
{
	g_autoptr(GPtrArray) all =
	        bridge_store_list_episodes(bridge->store, NULL);
	GHashTable *index =
	        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	/* Newest first, as bridge_identity_find_by_url() finds them. */
	for (guint i = 0; i < all->len; i++) {
		BridgeEpisode *episode = all->pdata[i];
		char *key = bridge_identity_url_key(bridge, episode->url);

		if (g_hash_table_contains(index, key))
			g_free(key);
		else
			g_hash_table_insert(index, key, episode);
	}
	return index;
}

BridgeEpisode *
bridge_identity_find_indexed(Bridge *bridge, GHashTable **index,
                             const char *url)
{
	g_autofree char *relayed = bridge_relay_url_episode(url, FALSE);
	BridgeEpisode *episode = NULL;
	g_autofree char *key = NULL;

	if (relayed != NULL)
		return bridge_store_find_episode(bridge->store, relayed);
	episode = bridge_store_find_episode(bridge->store, url);
	if (episode != NULL)
		return episode;
	if (*index == NULL)
		*index = bridge_identity_url_index(bridge);
	key = bridge_identity_url_key(bridge, url);
	return g_hash_table_lookup(*index, key);
}

/* Case, blanks and typographic quotes and dashes aside. */
static char *
title_key(const char *title)
{
	g_autofree char *folded = g_utf8_casefold(title, -1);
	GString *key = g_string_new(NULL);
	gboolean blank = FALSE;

	for (const char *p = folded; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (g_unichar_isspace(c)) {
			blank = key->len > 0;
			continue;
		}
		if (blank)
			g_string_append_c(key, ' ');
		blank = FALSE;
		if (c == 0x2018 || c == 0x2019)
			c = '\'';
		else if (c == 0x201c || c == 0x201d)
			c = '"';
		else if (c == 0x2013 || c == 0x2014)
			c = '-';
		g_string_append_unichar(key, c);
	}
	return g_string_free(key, FALSE);
}

static gboolean
close_enough(gint64 a, gint64 b, gint64 within)
{
	return a == 0 || b == 0 || (a > b ? a - b : b - a) <= within;
}

BridgeEpisode *
bridge_identity_guess(Bridge *bridge, GPtrArray *candidates,
                      const FeedPlaylistEntry *entry)
{
	g_autofree char *url = bridge_identity_url_key(
	        bridge, feed_playlist_entry_get_url(entry));
	g_autofree char *title =
	        title_key(feed_playlist_entry_get_title(entry));
	gint64 date = feed_playlist_entry_get_date(entry);
	gint64 duration = feed_playlist_entry_get_duration(entry);

	for (guint i = 0; i < candidates->len; i++) {
		BridgeEpisode *episode = candidates->pdata[i];
		g_autofree char *other =
		        bridge_identity_url_key(bridge, episode->url);

		if (strcmp(url, other) == 0)
			return episode;
	}
	if (*title == '\0')
		return NULL;
	for (guint i = 0; i < candidates->len; i++) {
		BridgeEpisode *episode = candidates->pdata[i];
		g_autofree char *other = title_key(episode->title);

		if (strcmp(title, other) == 0 &&
		    close_enough(date, episode->published, SAME_DAY) &&
		    close_enough(duration, episode->duration, SAME_DURATION))
			return episode;
	}
	return NULL;
}

BridgeFeed *
bridge_identity_find_feed(Bridge *bridge, const char *key, GError **error)
{
	BridgeFeed *feed = bridge_store_find_feed(bridge->store, key);

	if (feed == NULL)
		bridge_command_fail(
		        error, BRIDGE_COMMAND_ERROR_FAILED,
		        "no subscription is called '%s' (see mpd-bridge list)",
		        key);
	return feed;
}

BridgeEpisode *
bridge_identity_find_episode(Bridge *bridge, const char *key, GError **error)
{
	guint64 number;
	BridgeEpisode *episode;

	if (g_ascii_string_to_unsigned(key, 10, 1, G_MAXUINT, &number, NULL)) {
		g_autoptr(GPtrArray) all =
		        bridge_store_list_episodes(bridge->store, NULL);

		if (number <= all->len)
			return all->pdata[number - 1];
	}
	episode = bridge_store_find_episode(bridge->store, key);
	if (episode == NULL)
		bridge_command_fail(
		        error, BRIDGE_COMMAND_ERROR_FAILED,
		        "no episode is '%s' (see mpd-bridge episodes)", key);
	return episode;
}

GPtrArray *
bridge_identity_find_episodes(Bridge *bridge, char **args, GError **error)
{
	g_autoptr(GPtrArray) chosen = g_ptr_array_new();

	for (guint i = 0; args[i] != NULL; i++) {
		BridgeEpisode *episode;

		if (strcmp(args[i], "latest") == 0) {
			g_autoptr(GPtrArray) episodes = NULL;
			BridgeFeed *feed;

			if (args[i + 1] == NULL) {
				bridge_command_fail(error,
				                    BRIDGE_COMMAND_ERROR_FAILED,
				                    "latest needs a FEED");
				return NULL;
			}
			feed = bridge_identity_find_feed(bridge, args[++i],
			                                 error);
			if (feed == NULL)
				return NULL;
			episodes =
			        bridge_store_list_episodes(bridge->store, feed);
			if (episodes->len == 0) {
				bridge_command_fail(error,
				                    BRIDGE_COMMAND_ERROR_FAILED,
				                    "%s has no episodes yet",
				                    bridge_feed_get_name(feed));
				return NULL;
			}
			episode = episodes->pdata[0];
		} else {
			episode = bridge_identity_find_episode(bridge, args[i],
			                                       error);
			if (episode == NULL)
				return NULL;
		}
		g_ptr_array_add(chosen, episode);
	}
	return g_steal_pointer(&chosen);
}
