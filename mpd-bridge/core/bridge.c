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

/* The loop's time a slice of a whole save takes, at most about. */
#define SLICE_US 4000

typedef struct {
	BridgeSaved done;
	gpointer data;
} Waiter;

static void
start_save(Bridge *bridge);

static gboolean
on_save(gpointer data)
{
	Bridge *bridge = data;

	bridge->save_timer = 0;
	start_save(bridge);
	return G_SOURCE_REMOVE;
}

/* Tells @waiters, first come first. */
static void
tell(Bridge *bridge, GSList *waiters, const GError *error)
{
	waiters = g_slist_reverse(waiters);
	for (GSList *l = waiters; l != NULL; l = l->next) {
		Waiter *waiter = l->data;

		waiter->done(bridge, error, waiter->data);
	}
	g_slist_free_full(waiters, g_free);
}

static void
on_written(GObject *source, GAsyncResult *result, gpointer data)
{
	Bridge *bridge = data;
	BridgeStoreSave *save = g_task_get_task_data(G_TASK(result));
	g_autoptr(GError) error = NULL;
	gboolean ours = save == bridge->saving;
	gboolean saved = bridge_store_save_finish(save, result, &error);

	/* A whole save on the loop since (bridge_save()) told them. */
	if (!ours)
		return;
	bridge->saving = NULL;
	if (!saved) {
		/* Kept in memory, and tried again until the disk lets us. */
		if (!bridge->save_failing)
			g_warning("%s", error->message);
		else
			g_debug("%s", error->message);
		bridge->save_failing = TRUE;
		bridge->dirty = TRUE;
		g_clear_handle_id(&bridge->save_timer, g_source_remove);
		bridge->save_timer = g_timeout_add_seconds(SAVE_RETRY_SECONDS,
		                                           on_save, bridge);
		tell(bridge, g_steal_pointer(&bridge->saved_waiting), error);
		return;
	}
	if (bridge->save_failing)
		g_message("saved the state to %s after all",
		          bridge_store_get_path(bridge->store));
	bridge->save_failing = FALSE;
	tell(bridge, g_steal_pointer(&bridge->saved_waiting), NULL);
	/* What changed meanwhile: at once when someone waits for it. */
	if (bridge->next_waiting != NULL)
		start_save(bridge);
	else if (bridge->dirty && bridge->save_timer == 0)
		bridge->save_timer = g_timeout_add_seconds(SAVE_DELAY_SECONDS,
		                                           on_save, bridge);
}

static gboolean
on_slice(gpointer data)
{
	Bridge *bridge = data;

	if (!bridge_store_save_step(bridge->saving, SLICE_US))
		return G_SOURCE_CONTINUE;
	bridge->saving_idle = 0;
	bridge_store_save_write_async(bridge->saving, on_written, bridge);
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

/*
 * Begins a whole save in slices, when one is due and none is under way
 * (its end begins the next); else writes the lines due.
 */
static void
start_save(Bridge *bridge)
{
	if (bridge->saving != NULL)
		return;
	/* A line that cannot be written asks for a whole save instead. */
	if (!bridge->dirty)
		write_due(bridge);
	if (!bridge->dirty) {
		tell(bridge, g_steal_pointer(&bridge->next_waiting), NULL);
		return;
	}
	g_clear_handle_id(&bridge->save_timer, g_source_remove);
	/*
	 * From here on the text is made from what the store holds as each
	 * slice runs: the lines due, and what waited, are in it.
	 */
	bridge->saving = bridge_store_save_begin(bridge->store);
	bridge->dirty = FALSE;
	bridge->later = FALSE;
	forget_journal(bridge);
	bridge->saved_waiting = g_steal_pointer(&bridge->next_waiting);
	bridge->saving_idle = g_idle_add(on_slice, bridge);
}

/* Drops the save in slices under way, for a newer one on the loop. */
static void
drop_slices(Bridge *bridge)
{
	if (bridge->saving == NULL)
		return;
	/* Written in a thread already: its end sees the newer save. */
	if (bridge->saving_idle != 0) {
		g_clear_handle_id(&bridge->saving_idle, g_source_remove);
		bridge_store_save_free(bridge->saving);
	}
	bridge->saving = NULL;
	bridge->dirty = TRUE;
	bridge->next_waiting =
	        g_slist_concat(g_steal_pointer(&bridge->next_waiting),
	                       g_steal_pointer(&bridge->saved_waiting));
}

void
bridge_save_then(Bridge *bridge, BridgeSaved done, gpointer data)
{
	Waiter *waiter;

	if (!bridge->dirty && bridge->saving == NULL) {
		write_due(bridge);
		if (!bridge->dirty) {
			done(bridge, NULL, data);
			return;
		}
	}
	waiter = g_new0(Waiter, 1);
	waiter->done = done;
	waiter->data = data;
	/* Nothing changed since the save under way began: it holds all. */
	if (!bridge->dirty)
		bridge->saved_waiting =
		        g_slist_prepend(bridge->saved_waiting, waiter);
	else
		bridge->next_waiting =
		        g_slist_prepend(bridge->next_waiting, waiter);
	start_save(bridge);
}

void
bridge_save_soon(Bridge *bridge)
{
	start_save(bridge);
}

void
bridge_save_clear(Bridge *bridge)
{
	g_autoptr(GError) error = g_error_new_literal(
	        G_IO_ERROR, G_IO_ERROR_CANCELLED, "the daemon stopped");

	/* A thread that still writes is left to end with the process. */
	if (bridge->saving_idle != 0) {
		g_clear_handle_id(&bridge->saving_idle, g_source_remove);
		bridge_store_save_free(bridge->saving);
	}
	bridge->saving = NULL;
	tell(bridge, g_steal_pointer(&bridge->saved_waiting), error);
	tell(bridge, g_steal_pointer(&bridge->next_waiting), error);
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
	drop_slices(bridge);
	/*
	 * A checkpoint's line goes now. What waits for a whole save waits
	 * in the daemon, which saves it at its stop; a command line ends.
	 */
	if (!bridge->dirty && (!bridge->later || bridge->daemon)) {
		write_due(bridge);
		/* A line that cannot be written asks for a whole save. */
		if (!bridge->dirty) {
			tell(bridge, g_steal_pointer(&bridge->next_waiting),
			     NULL);
			return TRUE;
		}
	}
	if (!bridge_store_save(bridge->store, error)) {
		if (bridge->daemon)
			bridge->save_timer = g_timeout_add_seconds(
			        SAVE_RETRY_SECONDS, on_save, bridge);
		return FALSE;
	}
	bridge->dirty = FALSE;
	bridge->later = FALSE;
	forget_journal(bridge);
	tell(bridge, g_steal_pointer(&bridge->next_waiting), NULL);
	return TRUE;
}
