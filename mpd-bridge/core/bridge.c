#include "core/bridge.h"

/* A burst of changes (a refresh of many feeds) is saved in one write. */
#define SAVE_DELAY_SECONDS 2
/*
 * After a failed save (a full disk, a read-only directory) the changes
 * stay in memory and the daemon tries again this often, so that they
 * reach the disk once it lets them, even when nothing else changes.
 */
#define SAVE_RETRY_SECONDS 10
/*
 * A journal this long is folded into the state file by a whole save:
 * some 1,300 checkpoints, eleven hours of playing, between whole saves
 * that nothing else asked for.
 */
#define JOURNAL_MAX_BYTES (64 * 1024)
/*
 * More episodes than this changed before the loop was idle (a command
 * that marks a season listened) are one whole save, not a synced line
 * each.
 */
#define JOURNAL_MAX_DUE 16

static gboolean
on_save(gpointer data)
{
	Bridge *bridge = data;
	g_autoptr(GError) error = NULL;

	bridge->save_timer = 0;
	if (!bridge_save(bridge, &error))
		g_warning("%s", error->message);
	return G_SOURCE_REMOVE;
}

/* The failure was logged when it happened: only the outcome is news. */
static gboolean
on_retry(gpointer data)
{
	Bridge *bridge = data;
	g_autoptr(GError) error = NULL;

	bridge->save_timer = 0;
	if (!bridge->dirty)
		return G_SOURCE_REMOVE;
	if (bridge_save(bridge, &error))
		g_message("saved the state to %s after all",
		          bridge_store_get_path(bridge->store));
	else
		g_debug("%s", error->message);
	return G_SOURCE_REMOVE;
}

void
bridge_changed(Bridge *bridge)
{
	bridge->dirty = TRUE;
	bridge->changes++;
	/* Any change may start, end or reorder what is in progress. */
	g_clear_pointer(&bridge->continuing, g_ptr_array_unref);
	if (bridge->daemon && bridge->save_timer == 0)
		bridge->save_timer = g_timeout_add_seconds(SAVE_DELAY_SECONDS,
		                                           on_save, bridge);
}

static void
journal(Bridge *bridge, const BridgeEpisode *episode)
{
	g_autoptr(GError) error = NULL;
	guint64 size = 0;

	if (!bridge_store_journal_episode(bridge->store, episode, &size,
	                                  &error)) {
		g_message("%s; saving the whole state instead", error->message);
		bridge_changed(bridge);
		return;
	}
	if (size > JOURNAL_MAX_BYTES)
		bridge_changed(bridge);
}

/* Writes the lines due, unless a whole save is due, which holds them. */
static void
write_due(Bridge *bridge)
{
	g_autoptr(GPtrArray) due = g_steal_pointer(&bridge->to_journal);

	g_clear_handle_id(&bridge->journal_idle, g_source_remove);
	for (guint i = 0; due != NULL && i < due->len && !bridge->dirty; i++) {
		const BridgeEpisode *episode =
		        bridge_store_find_episode(bridge->store, due->pdata[i]);

		if (episode != NULL)
			journal(bridge, episode);
	}
}

static gboolean
on_journal(gpointer data)
{
	Bridge *bridge = data;

	bridge->journal_idle = 0;
	write_due(bridge);
	return G_SOURCE_REMOVE;
}

/* The lines due are in memory: a whole save holds them. */
static void
forget_journal(Bridge *bridge)
{
	g_clear_pointer(&bridge->to_journal, g_ptr_array_unref);
	g_clear_handle_id(&bridge->journal_idle, g_source_remove);
}

void
bridge_changed_episode(Bridge *bridge, const BridgeEpisode *episode)
{
	/* The command line saves once, at its end; a due save has it all. */
	if (!bridge->daemon || bridge->dirty ||
	    (bridge->to_journal != NULL &&
	     bridge->to_journal->len >= JOURNAL_MAX_DUE)) {
		bridge_changed(bridge);
		return;
	}
	bridge->changes++;
	if (bridge->to_journal == NULL)
		bridge->to_journal = g_ptr_array_new_with_free_func(g_free);
	if (!g_ptr_array_find_with_equal_func(bridge->to_journal, episode->id,
	                                      g_str_equal, NULL))
		g_ptr_array_add(bridge->to_journal, g_strdup(episode->id));
	if (bridge->journal_idle == 0)
		bridge->journal_idle = g_idle_add(on_journal, bridge);
}

void
bridge_changed_later(Bridge *bridge)
{
	bridge->later = TRUE;
	bridge->changes++;
}

gboolean
bridge_save(Bridge *bridge, GError **error)
{
	g_clear_handle_id(&bridge->save_timer, g_source_remove);
	/*
	 * A checkpoint's line goes now. What waits for a whole save waits
	 * in the daemon, which saves it at its stop; a command line ends.
	 */
	if (!bridge->dirty && (!bridge->later || bridge->daemon)) {
		write_due(bridge);
		return TRUE;
	}
	if (!bridge_store_save(bridge->store, error)) {
		if (bridge->daemon)
			bridge->save_timer = g_timeout_add_seconds(
			        SAVE_RETRY_SECONDS, on_retry, bridge);
		return FALSE;
	}
	bridge->dirty = FALSE;
	bridge->later = FALSE;
	forget_journal(bridge);
	return TRUE;
}
