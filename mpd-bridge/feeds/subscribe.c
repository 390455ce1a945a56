/*
 * Subscribing, checked. The subscription is made first and fetched like
 * any refresh (redirects, a web page's feed link, a moved feed), so the
 * first fetch is the usual one; when it fails, the subscription goes
 * again before anything else saw it.
 */
#include "feeds/subscribe.h"

#include "core/notes-cache.h"
#include "feeds/refresh.h"
#include "feeds/search-command.h"
#include "playlists/push.h"

#include <string.h>

typedef struct {
	BridgeSubscribed done;
	gpointer user_data;
	char *url;
	gboolean force;
} Subscribing;

static gboolean
is_http(const char *url)
{
	g_autoptr(GUri) uri = g_uri_parse(url, G_URI_FLAGS_NONE, NULL);
	const char *scheme = uri != NULL ? g_uri_get_scheme(uri) : NULL;

	return scheme != NULL &&
	       (g_ascii_strcasecmp(scheme, "http") == 0 ||
	        g_ascii_strcasecmp(scheme, "https") == 0) &&
	       g_uri_get_host(uri) != NULL && *g_uri_get_host(uri) != '\0';
}

/*
 * The subscription a web page's feed link (or a redirect) led to when
 * another subscription has that feed already, else NULL.
 */
static BridgeFeed *
found_twice(Bridge *bridge, const BridgeFeed *feed,
            const FeedFetchResult *result)
{
	const char *found = feed_fetch_result_get_discovered_url(result);
	BridgeFeed *other;

	if (found == NULL && feed_fetch_result_is_moved(result))
		found = feed_fetch_result_get_final_url(result);
	if (found == NULL || strcmp(found, feed->url) == 0)
		return NULL;
	other = bridge_store_find_feed(bridge->store, found);
	return other != NULL && other != feed && strcmp(other->url, found) == 0
	               ? other
	               : NULL;
}

gboolean
bridge_subscribe_check_url(const char *url, GError **error)
{
	if (is_http(url))
		return TRUE;
	g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
	            "'%s' is not an http or https URL of a feed or a "
	            "podcast's website",
	            url);
	return FALSE;
}

static void
on_fetched(Bridge *bridge, BridgeFeed *feed, const FeedFetchResult *result,
           const GError *error, gpointer data)
{
	Subscribing *subscribing = data;
	g_autoptr(GError) dropped = NULL;
	BridgeFeed *other = NULL;

	if (result != NULL)
		other = found_twice(bridge, feed, result);
	if (other != NULL) {
		dropped = g_error_new(G_IO_ERROR, G_IO_ERROR_EXISTS,
		                      "already subscribed to %s (%s), the feed "
		                      "of %s",
		                      bridge_feed_get_name(other), other->url,
		                      subscribing->url);
		error = dropped;
		/* Both pushed the same playlist: it is the other's again. */
		bridge_push_remove(bridge, feed);
		bridge_notes_cache_remove(bridge, feed->id);
		bridge_store_remove_feed(bridge->store, feed);
		bridge_changed(bridge);
		bridge_push_feed(bridge, other, TRUE);
		feed = NULL;
	} else if (feed == NULL) {
		dropped = g_error_new(G_IO_ERROR, G_IO_ERROR_CANCELLED,
		                      "%s was unsubscribed from while it was "
		                      "being fetched",
		                      subscribing->url);
		error = dropped;
	} else if (error != NULL && !subscribing->force) {
		g_message("not subscribed: %s", error->message);
		bridge_store_remove_feed(bridge->store, feed);
		bridge_changed(bridge);
		feed = NULL;
	} else {
		g_message("subscribed to %s", feed->url);
		bridge_tell_feed(bridge, BRIDGE_NEWS_FEED_ADDED, feed);
	}
	subscribing->done(bridge, feed, error, subscribing->user_data);
	g_free(subscribing->url);
	g_free(subscribing);
}

void
bridge_subscribe(Bridge *bridge, const char *url, const char *name,
                 gboolean force, BridgeSubscribed done, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	/* By URL alone: a search by name folds every feed's name and title,
	 * which an import of 10,000 feeds did 10,000 times. */
	const BridgeFeed *known =
	        bridge_store_find_feed_by_url(bridge->store, url);
	Subscribing *subscribing;
	BridgeFeed *feed;

	if (!bridge_subscribe_check_url(url, &error)) {
		done(bridge, NULL, error, user_data);
		return;
	}
	if (known != NULL) {
		error = g_error_new(G_IO_ERROR, G_IO_ERROR_EXISTS,
		                    "already subscribed to %s (%s)",
		                    bridge_feed_get_name(known), url);
		done(bridge, NULL, error, user_data);
		return;
	}
	feed = bridge_store_add_feed(bridge->store, url);
	if (feed == NULL) {
		error = g_error_new(G_IO_ERROR, G_IO_ERROR_EXISTS,
		                    "already subscribed to %s", url);
		done(bridge, NULL, error, user_data);
		return;
	}
	feed->added = g_get_real_time() / G_USEC_PER_SEC;
	feed->auto_queue = bridge->config->auto_queue;
	if (name != NULL && *name != '\0')
		feed->name = g_strdup(name);
	subscribing = g_new0(Subscribing, 1);
	subscribing->done = done;
	subscribing->user_data = user_data;
	subscribing->url = g_strdup(url);
	subscribing->force = force;
	bridge_refresh_feed(bridge, feed, on_fetched, subscribing);
}

guint
bridge_subscribe_wait_ms(const BridgeConfig *config)
{
	return (config->fetch_timeout + 30) * 1000;
}

void
bridge_unsubscribe(Bridge *bridge, BridgeFeed *feed)
{
	bridge_tell_feed(bridge, BRIDGE_NEWS_FEED_REMOVED, feed);
	bridge_notes_cache_remove(bridge, feed->id);
	bridge_push_remove(bridge, feed);
	bridge_store_remove_feed(bridge->store, feed);
	bridge_changed(bridge);
	bridge_push_all(bridge, FALSE);
}

static guint
count_episodes(Bridge *bridge, const BridgeFeed *feed)
{
	g_autoptr(GPtrArray) episodes =
	        bridge_store_list_episodes(bridge->store, feed);

	return episodes->len;
}

static void
on_subscribed(Bridge *bridge, BridgeFeed *feed, const GError *error,
              gpointer data)
{
	BridgeCall *call = data;
	GString *out = bridge_call_get_out(call);

	/* Refused before any fetch: the error says it all. */
	if (feed == NULL &&
	    (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_EXISTS) ||
	     g_error_matches(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT))) {
		bridge_call_return(call, g_error_copy(error));
	} else if (feed == NULL) {
		bridge_call_return(
		        call,
		        g_error_new(BRIDGE_COMMAND_ERROR,
		                    BRIDGE_COMMAND_ERROR_FAILED,
		                    "not subscribed: %s (subscribe --force "
		                    "keeps a feed that is down today)",
		                    error->message));
	} else if (error != NULL) {
		g_string_append_printf(out,
		                       "subscribed to %s, which cannot be read "
		                       "now (%s); it is tried again at each "
		                       "refresh",
		                       feed->url, error->message);
		bridge_call_return(call, NULL);
	} else {
		guint n = count_episodes(bridge, feed);

		g_string_append_printf(out,
		                       "subscribed to %s: %u episode%s (%s)",
		                       bridge_feed_get_name(feed), n,
		                       n == 1 ? "" : "s", feed->url);
		bridge_call_return(call, NULL);
	}
}

void
bridge_subscribe_start(Bridge *bridge, char **args, BridgeCall *call)
{
	gboolean force = strcmp(args[0], "--force") == 0;
	g_autofree char *url = NULL;

	if (force)
		args++;
	if (args[0] == NULL || (args[1] != NULL && args[2] != NULL)) {
		bridge_call_return(
		        call, g_error_new_literal(BRIDGE_COMMAND_ERROR,
		                                  BRIDGE_COMMAND_ERROR_USAGE,
		                                  "usage: subscribe [--force] "
		                                  "URL [NAME]"));
		return;
	}
	/* A bare number is that podcast of the last search. */
	if (bridge_search_is_number(args[0])) {
		GError *error = NULL;

		url = bridge_search_resolve(bridge->config, args[0], &error);
		if (url == NULL) {
			bridge_call_return(call, error);
			return;
		}
	}
	bridge_subscribe(bridge, url != NULL ? url : args[0], args[1], force,
	                 on_subscribed, call);
}
