/*
 * The commands on subscriptions that span concerns: unsubscribe,
 * refresh, set, list and export-opml.
 */
#include "commands/bodies.h"

#include "core/answer.h"
#include "core/identity.h"
#include "core/notes-cache.h"
#include "downloads/downloads-command.h"
#include "feeds/refresh.h"
#include "feeds/subscribe.h"
#include "listening/chapters.h"
#include "listening/skips.h"
#include "listening/speed.h"
#include "phone/phone-sync.h"
#include "playlists/push.h"

#include <string.h>

#define fail(error, ...)                                                       \
	bridge_command_fail(error, BRIDGE_COMMAND_ERROR_FAILED, __VA_ARGS__)

#define usage_error(error, ...)                                                \
	bridge_command_fail(error, BRIDGE_COMMAND_ERROR_USAGE, __VA_ARGS__)

gboolean
bridge_run_unsubscribe(Bridge *bridge, char **args, GString *out,
                       GError **error)
{
	BridgeFeed *feed = bridge_identity_find_feed(bridge, args[0], error);
	g_autofree char *name = NULL;

	if (feed == NULL)
		return FALSE;
	name = g_strdup(bridge_feed_get_name(feed));
	bridge_unsubscribe(bridge, feed);
	g_message("unsubscribed from %s", name);
	g_string_append_printf(out, "unsubscribed from %s", name);
	return TRUE;
}

gboolean
bridge_run_refresh(Bridge *bridge, char **args, GString *out, GError **error)
{
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);
	guint started = 0;

	if (args[0] != NULL) {
		BridgeFeed *feed =
		        bridge_identity_find_feed(bridge, args[0], error);

		if (feed == NULL)
			return FALSE;
		feed->gone = FALSE;
		bridge_refresh_feed(bridge, feed, NULL, NULL);
		g_string_append_printf(out, "refreshing %s",
		                       bridge_feed_get_name(feed));
		return TRUE;
	}
	for (guint i = 0; i < feeds->len; i++) {
		BridgeFeed *feed = feeds->pdata[i];

		if (!feed->gone) {
			bridge_refresh_feed(bridge, feed, NULL, NULL);
			started++;
		}
	}
	g_string_append_printf(out, "refreshing %u feed%s", started,
	                       started == 1 ? "" : "s");
	return TRUE;
}

static gboolean
parse_flag(const char *text, gboolean *value)
{
	if (g_ascii_strcasecmp(text, "yes") == 0 ||
	    g_ascii_strcasecmp(text, "true") == 0 ||
	    g_ascii_strcasecmp(text, "on") == 0)
		*value = TRUE;
	else if (g_ascii_strcasecmp(text, "no") == 0 ||
	         g_ascii_strcasecmp(text, "false") == 0 ||
	         g_ascii_strcasecmp(text, "off") == 0)
		*value = FALSE;
	else
		return FALSE;
	return TRUE;
}

static gboolean
parse_count(const char *text, guint64 *value)
{
	return g_ascii_string_to_unsigned(text, 10, 0, 1000000, value, NULL);
}

/* A pattern, or "" for none; checked now so a bad one is refused. */
static gboolean
set_pattern(char **field, const char *pattern, GError **error)
{
	g_autoptr(GRegex) regex = NULL;

	if (*pattern != '\0') {
		regex = g_regex_new(pattern, G_REGEX_CASELESS, 0, error);
		if (regex == NULL)
			return FALSE;
	}
	g_free(*field);
	*field = *pattern != '\0' ? g_strdup(pattern) : NULL;
	return TRUE;
}

gboolean
bridge_run_set(Bridge *bridge, char **args, GString *out, GError **error)
{
	BridgeFeed *feed = bridge_identity_find_feed(bridge, args[0], error);
	const char *key = args[1];
	const char *value = args[2];
	gboolean known = FALSE;
	guint64 number;
	g_autoptr(GString) note = g_string_new(NULL);

	if (feed == NULL)
		return FALSE;
	if (strcmp(key, "name") == 0) {
		bridge_push_remove(bridge, feed);
		g_free(feed->name);
		feed->name = *value != '\0' ? g_strdup(value) : NULL;
	} else if (strcmp(key, "auto-queue") == 0) {
		if (!parse_flag(value, &feed->auto_queue))
			return fail(error, "auto-queue is yes or no");
	} else if (strcmp(key, "keep") == 0) {
		if (!parse_count(value, &number))
			return fail(error, "keep is a number of episodes "
			                   "(0 for the default)");
		feed->keep = (guint)number;
	} else if (strcmp(key, "min-duration") == 0) {
		if (!parse_count(value, &number))
			return fail(error, "min-duration is a number of "
			                   "seconds");
		feed->min_duration = (gint64)number;
	} else if (strcmp(key, "fetch-chapters") == 0) {
		if (!bridge_chapters_set_feed(bridge, feed, value, error))
			return FALSE;
	} else if (bridge_skips_set_feed(feed, key, value, &known, error)) {
		/* skip-intro, skip-outro, skip-chapters */
	} else if (known) {
		return FALSE;
	} else if (strcmp(key, "download") == 0) {
		if (!bridge_downloads_set_feed(bridge, feed, value, error))
			return FALSE;
	} else if (strcmp(key, "speed") == 0) {
		if (!bridge_speed_set_feed(bridge, feed, value, note, error))
			return FALSE;
	} else if (strcmp(key, "match") == 0) {
		if (!set_pattern(&feed->match, value, error))
			return FALSE;
	} else if (strcmp(key, "exclude") == 0) {
		if (!set_pattern(&feed->exclude, value, error))
			return FALSE;
	} else {
		return fail(error,
		            "unknown setting '%s'; the settings are name, "
		            "auto-queue, keep, match, exclude, min-duration, "
		            "download and speed",
		            key);
	}
	bridge_changed(bridge);
	bridge_push_feed(bridge, feed, TRUE);
	g_string_append_printf(out, "%s: %s is now '%s'%s",
	                       bridge_feed_get_name(feed), key, value,
	                       note->str);
	return TRUE;
}

static guint
count_episodes(Bridge *bridge, const BridgeFeed *feed)
{
	g_autoptr(GPtrArray) episodes =
	        bridge_store_list_episodes(bridge->store, feed);

	return episodes->len;
}

gboolean
bridge_run_list(Bridge *bridge, char **args, GString *out, GError **error)
{
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);
	gboolean json = args[0] != NULL && strcmp(args[0], "--json") == 0;
	g_autoptr(JsonBuilder) builder = json_builder_new();

	if (args[0] != NULL && !json)
		return usage_error(error, "list takes only --json");
	json_builder_begin_array(builder);
	for (guint i = 0; i < feeds->len; i++) {
		const BridgeFeed *feed = feeds->pdata[i];
		guint n = count_episodes(bridge, feed);
		g_autofree char *refreshed = bridge_answer_local_time(
		        feed->last_refresh, "%Y-%m-%d %H:%M");

		if (json) {
			json_builder_begin_object(builder);
			bridge_json_member_string(builder, "id", feed->id);
			bridge_json_member_string(builder, "url", feed->url);
			bridge_json_member_string(builder, "podcast",
			                          bridge_feed_get_name(feed));
			bridge_json_member_string(builder, "title",
			                          feed->title);
			bridge_json_member_string(builder, "name", feed->name);
			bridge_json_member_int(builder, "episodes", n);
			bridge_json_member_int(builder, "last_refresh",
			                       feed->last_refresh);
			bridge_json_member_string(builder, "last_error",
			                          feed->last_error);
			json_builder_set_member_name(builder, "auto_queue");
			json_builder_add_boolean_value(builder,
			                               feed->auto_queue);
			json_builder_set_member_name(builder, "gone");
			json_builder_add_boolean_value(builder, feed->gone);
			json_builder_end_object(builder);
			continue;
		}
		g_string_append_printf(
		        out,
		        "%s\n    %s\n    %u episodes, "
		        "refreshed %s%s%s%s\n",
		        bridge_feed_get_name(feed), feed->url, n, refreshed,
		        feed->auto_queue ? ", auto-queue" : "",
		        feed->last_error != NULL ? "; error: " : "",
		        feed->last_error != NULL ? feed->last_error : "");
	}
	json_builder_end_array(builder);
	if (json)
		bridge_json_write(bridge, builder, out);
	else if (feeds->len == 0)
		g_string_append(out, "no subscriptions yet: mpd-bridge "
		                     "subscribe URL\n");
	return TRUE;
}

/* Whether @episode is in @state: one of its states, starred or later. */
gboolean
bridge_run_export_opml(Bridge *bridge, char **args, GString *out,
                       GError **error)
{
	GPtrArray *feeds = bridge_store_get_feeds(bridge->store);
	g_autoptr(FeedOpml) opml = feed_opml_new("mpd-bridge subscriptions");
	g_autofree char *text = NULL;

	for (guint i = 0; i < feeds->len; i++) {
		const BridgeFeed *feed = feeds->pdata[i];

		feed_opml_add(opml, feed->url, bridge_feed_get_name(feed), NULL,
		              NULL);
	}
	text = feed_opml_to_string(opml);
	g_string_append(out, text);
	return TRUE;
}
