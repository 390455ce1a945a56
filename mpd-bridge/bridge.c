#include "bridge.h"

/* A burst of changes (a refresh of many feeds) is saved in one write. */
#define SAVE_DELAY_SECONDS 2

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

void
bridge_changed(Bridge *bridge)
{
	bridge->dirty = TRUE;
	if (bridge->daemon && bridge->save_timer == 0)
		bridge->save_timer = g_timeout_add_seconds(SAVE_DELAY_SECONDS,
		                                           on_save, bridge);
}

gboolean
bridge_save(Bridge *bridge, GError **error)
{
	g_clear_handle_id(&bridge->save_timer, g_source_remove);
	if (!bridge->dirty)
		return TRUE;
	if (!bridge_store_save(bridge->store, error))
		return FALSE;
	bridge->dirty = FALSE;
	return TRUE;
}
