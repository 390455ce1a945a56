/*
 * Play-later, stars and named lists. A list holds episode ids, so it
 * survives refreshes and reloads; what MPD shows of it is playlists/push.c's.
 */
#include "playlists/lists.h"

#include "core/call.h"
#include "core/identity.h"
#include "downloads/downloads.h"
#include "playlists/push.h"

#include <string.h>

#define MAX_LIST_NAME 200

static gboolean
fail(GError **error, BridgeCommandError code, const char *message)
{
	g_set_error_literal(error, BRIDGE_COMMAND_ERROR, code, message);
	return FALSE;
}

void
bridge_lists_set_listened(Bridge *bridge, BridgeEpisode *episode,
                          gboolean listened)
{
	BridgeList *later = bridge_store_get_list(bridge->store, NULL, FALSE);
	gint at = later != NULL ? bridge_list_index_of(later, episode->id) : -1;

	episode->listened = listened;
	episode->listened_at =
	        listened ? g_get_real_time() / G_USEC_PER_SEC : 0;
	bridge_push_continuing_update(bridge, episode);
	if (listened && at >= 0) {
		g_ptr_array_remove_index(later->episodes, (guint)at);
		bridge_changed(bridge);
	} else {
		/* An episode's end, as one plays: a line in the journal. */
		bridge_changed_episode(bridge, episode);
	}
	bridge_downloads_changed(bridge);
}

gboolean
bridge_lists_check_name(const char *name, GError **error)
{
	if (*name == '\0' || !g_utf8_validate(name, -1, NULL))
		return fail(error, BRIDGE_COMMAND_ERROR_USAGE,
		            "a list needs a name of UTF-8 text");
	if (strlen(name) > MAX_LIST_NAME)
		return fail(error, BRIDGE_COMMAND_ERROR_USAGE,
		            "a list name is at most 200 bytes long");
	for (const char *p = name; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (c == '/' || g_unichar_iscntrl(c) || c == 0x2028 ||
		    c == 0x2029)
			return fail(error, BRIDGE_COMMAND_ERROR_USAGE,
			            "a list name is one line of text without "
			            "'/' (MPD names playlists by it)");
	}
	return TRUE;
}

static const char *
name_of(const BridgeList *list)
{
	return list->name != NULL ? list->name : "play-later";
}

/* Appends what is not on @list yet; says what it did to @out. */
static void
add_to(BridgeList *list, GPtrArray *episodes, GString *out)
{
	for (guint i = 0; i < episodes->len; i++) {
		const BridgeEpisode *episode = episodes->pdata[i];
		gboolean there = bridge_list_index_of(list, episode->id) >= 0;

		if (!there)
			g_ptr_array_add(list->episodes, g_strdup(episode->id));
		g_string_append_printf(out, "%s%s %s %s",
		                       out->len > 0 ? "; " : "", episode->title,
		                       there ? "was already on" : "added to",
		                       name_of(list));
	}
}

static void
remove_from(BridgeList *list, GPtrArray *episodes, GString *out)
{
	for (guint i = 0; i < episodes->len; i++) {
		const BridgeEpisode *episode = episodes->pdata[i];
		gint at = bridge_list_index_of(list, episode->id);

		if (at >= 0)
			g_ptr_array_remove_index(list->episodes, (guint)at);
		g_string_append_printf(out, "%s%s %s %s",
		                       out->len > 0 ? "; " : "", episode->title,
		                       at >= 0 ? "removed from" : "was not on",
		                       name_of(list));
	}
}

static void
changed(Bridge *bridge)
{
	bridge_changed(bridge);
	bridge_push_all(bridge, FALSE);
	bridge_downloads_changed(bridge);
}

static gboolean
set_star(Bridge *bridge, char **args, gboolean starred, GString *out,
         GError **error)
{
	g_autoptr(GPtrArray) chosen =
	        bridge_identity_find_episodes(bridge, args, error);

	if (chosen == NULL)
		return FALSE;
	for (guint i = 0; i < chosen->len; i++) {
		BridgeEpisode *episode = chosen->pdata[i];

		episode->starred = starred;
		g_string_append_printf(out, "%s%s: %s", i > 0 ? "; " : "",
		                       episode->title,
		                       starred ? "starred" : "not starred");
	}
	changed(bridge);
	return TRUE;
}

gboolean
bridge_lists_run_star(Bridge *bridge, char **args, GString *out, GError **error)
{
	return set_star(bridge, args, TRUE, out, error);
}

gboolean
bridge_lists_run_unstar(Bridge *bridge, char **args, GString *out,
                        GError **error)
{
	return set_star(bridge, args, FALSE, out, error);
}

/* The episodes of @list, numbered, one a line. */
static void
show(Bridge *bridge, const BridgeList *list, GString *out)
{
	for (guint i = 0; i < list->episodes->len; i++) {
		const BridgeEpisode *episode = bridge_store_find_episode(
		        bridge->store, list->episodes->pdata[i]);
		const BridgeFeed *feed =
		        episode != NULL
		                ? bridge_store_find_feed(bridge->store,
		                                         episode->feed_id)
		                : NULL;

		if (episode == NULL)
			continue;
		g_string_append_printf(out, "%5u  %s — %s\n", i + 1,
		                       feed != NULL ? bridge_feed_get_name(feed)
		                                    : "?",
		                       episode->title);
	}
}

static gboolean
move(BridgeList *list, char **args, GString *out, Bridge *bridge,
     GError **error)
{
	g_autoptr(GPtrArray) chosen = NULL;
	char *one[2] = { args[0], NULL };
	const BridgeEpisode *episode;
	guint64 to = 0;
	char *id;
	gint at;

	if (args[0] == NULL || args[1] == NULL || args[2] != NULL)
		return fail(error, BRIDGE_COMMAND_ERROR_USAGE,
		            "usage: later move EPISODE POSITION");
	if (!g_ascii_string_to_unsigned(args[1], 10, 1, G_MAXUINT, &to, NULL))
		return fail(error, BRIDGE_COMMAND_ERROR_USAGE,
		            "a position on play-later is a number from 1");
	chosen = bridge_identity_find_episodes(bridge, one, error);
	if (chosen == NULL)
		return FALSE;
	episode = chosen->pdata[0];
	at = list != NULL ? bridge_list_index_of(list, episode->id) : -1;
	if (at < 0)
		return fail(error, BRIDGE_COMMAND_ERROR_FAILED,
		            "that episode is not on play-later (later add "
		            "EPISODE puts it there)");
	to = MIN(to, (guint64)list->episodes->len);
	id = g_ptr_array_steal_index(list->episodes, (guint)at);
	g_ptr_array_insert(list->episodes, (gint)to - 1, id);
	g_string_append_printf(out, "%s is now number %u on play-later",
	                       episode->title, (guint)to);
	changed(bridge);
	return TRUE;
}

gboolean
bridge_lists_run_later(Bridge *bridge, char **args, GString *out,
                       GError **error)
{
	const char *how = args[0] != NULL ? args[0] : "show";
	BridgeList *later = bridge_store_get_list(bridge->store, NULL, FALSE);
	g_autoptr(GPtrArray) chosen = NULL;

	if (strcmp(how, "show") == 0) {
		if (later == NULL || later->episodes->len == 0)
			g_string_append(out, "play-later is empty: mpd-bridge "
			                     "later add EPISODE\n");
		else
			show(bridge, later, out);
		return TRUE;
	}
	if (strcmp(how, "move") == 0)
		return move(later, args + 1, out, bridge, error);
	if (strcmp(how, "add") != 0 && strcmp(how, "remove") != 0)
		return fail(error, BRIDGE_COMMAND_ERROR_USAGE,
		            "later add, remove, move or show");
	if (args[1] == NULL)
		return fail(error, BRIDGE_COMMAND_ERROR_USAGE,
		            "usage: later add|remove EPISODE…");
	chosen = bridge_identity_find_episodes(bridge, args + 1, error);
	if (chosen == NULL)
		return FALSE;
	if (strcmp(how, "add") == 0)
		add_to(bridge_store_get_list(bridge->store, NULL, TRUE), chosen,
		       out);
	else if (later != NULL)
		remove_from(later, chosen, out);
	else
		g_string_append(out, "play-later is empty");
	changed(bridge);
	return TRUE;
}

gboolean
bridge_lists_run_list_add(Bridge *bridge, char **args, GString *out,
                          GError **error)
{
	g_autoptr(GPtrArray) chosen = NULL;

	if (!bridge_lists_check_name(args[0], error))
		return FALSE;
	chosen = bridge_identity_find_episodes(bridge, args + 1, error);
	if (chosen == NULL)
		return FALSE;
	add_to(bridge_store_get_list(bridge->store, args[0], TRUE), chosen,
	       out);
	changed(bridge);
	return TRUE;
}

/* With no EPISODE, or when its last one goes, the list goes too. */
gboolean
bridge_lists_run_list_remove(Bridge *bridge, char **args, GString *out,
                             GError **error)
{
	BridgeList *list = bridge_store_get_list(bridge->store, args[0], FALSE);
	g_autoptr(GPtrArray) chosen = NULL;

	if (list == NULL)
		return fail(error, BRIDGE_COMMAND_ERROR_FAILED,
		            "no list has that name (see mpd-bridge lists)");
	if (args[1] != NULL) {
		chosen = bridge_identity_find_episodes(bridge, args + 1, error);
		if (chosen == NULL)
			return FALSE;
		remove_from(list, chosen, out);
	}
	if (args[1] == NULL || list->episodes->len == 0) {
		g_string_append_printf(out, "%sremoved the list %s",
		                       out->len > 0 ? "; " : "", list->name);
		bridge_push_remove_list(bridge, list);
		bridge_store_remove_list(bridge->store, list);
	}
	changed(bridge);
	return TRUE;
}

gboolean
bridge_lists_run_lists(Bridge *bridge, char **args, GString *out,
                       GError **error)
{
	GPtrArray *lists = bridge_store_get_lists(bridge->store);
	g_autoptr(GPtrArray) all =
	        bridge_store_list_episodes(bridge->store, NULL);
	guint starred = 0;

	for (guint i = 0; i < all->len; i++)
		starred += ((const BridgeEpisode *)all->pdata[i])->starred;
	g_string_append_printf(out, "starred: %u episode%s\n", starred,
	                       starred == 1 ? "" : "s");
	for (guint i = 0; i < lists->len; i++) {
		const BridgeList *list = lists->pdata[i];

		g_string_append_printf(out, "%s: %u episode%s\n", name_of(list),
		                       list->episodes->len,
		                       list->episodes->len == 1 ? "" : "s");
		show(bridge, list, out);
	}
	return TRUE;
}
