/*
 * What syncing with phones remembers: its [sync] group of the state file
 * (only this file reads or writes it), what it holds in the daemon, and
 * the clock it stamps episode actions with.
 */
#include "phone/phone-sync-private.h"

#include <sys/timex.h>

#define GROUP          "sync"
#define MAX_UNMATCHED  500
#define UNMATCHED_DAYS 30

gint64
bridge_phone_sync_now(void)
{
	return g_get_real_time() / G_USEC_PER_SEC;
}

/*
 * Whether the clock may stamp and judge actions. A box with no real-time
 * clock starts in the past until NTP answers; the kernel says whether it
 * has been synchronised since.
 */
gboolean
bridge_phone_sync_clock_trusted(const Bridge *bridge)
{
	struct timex tx = { 0 };

	switch (bridge->config->gpodder.trust_clock) {
	case BRIDGE_CLOCK_TRUST_YES:
		return TRUE;
	case BRIDGE_CLOCK_TRUST_NO:
		return FALSE;
	case BRIDGE_CLOCK_TRUST_AUTO:
		break;
	}
	return adjtimex(&tx) != TIME_ERROR;
}

const char *
bridge_phone_sync_clock_note(const Bridge *bridge)
{
	return bridge_phone_sync_clock_trusted(bridge)
	               ? NULL
	               : "the system clock is not synchronised yet, so no "
	                 "episode action is stamped, sent or applied; they "
	                 "wait (set [sync] trust_clock = yes if the clock is "
	                 "right)";
}

static GKeyFile *
groups(const Bridge *bridge)
{
	return bridge_store_get_groups(bridge->store);
}

gint64
bridge_phone_sync_get_int(const Bridge *bridge, const char *key)
{
	return g_key_file_get_int64(groups(bridge), GROUP, key, NULL);
}

void
bridge_phone_sync_set_int(Bridge *bridge, const char *key, gint64 value)
{
	g_key_file_set_int64(groups(bridge), GROUP, key, value);
}

struct BridgePhoneSync *
bridge_phone_sync_get(Bridge *bridge)
{
	if (bridge->phone == NULL) {
		bridge->phone = g_new0(struct BridgePhoneSync, 1);
		bridge->phone->waiting = g_ptr_array_new();
		bridge->phone->held = g_hash_table_new_full(
		        g_str_hash, g_str_equal, g_free,
		        (GDestroyNotify)bridge_gpodder_action_free);
	}
	return bridge->phone;
}

void
bridge_phone_sync_clear(Bridge *bridge)
{
	struct BridgePhoneSync *s = bridge->phone;

	if (s == NULL)
		return;
	g_clear_handle_id(&s->pull_timer, g_source_remove);
	g_clear_handle_id(&s->push_timer, g_source_remove);
	g_clear_handle_id(&s->retry_timer, g_source_remove);
	g_ptr_array_unref(s->waiting);
	g_hash_table_unref(s->held);
	g_free(s);
	bridge->phone = NULL;
}

char **
bridge_phone_sync_dup_removed(const Bridge *bridge)
{
	char **urls = g_key_file_get_string_list(groups(bridge), GROUP,
	                                         "removed", NULL, NULL);

	return urls != NULL ? urls : g_new0(char *, 1);
}

void
bridge_phone_sync_set_removed(Bridge *bridge, GPtrArray *urls)
{
	if (urls->len == 0) {
		g_key_file_remove_key(groups(bridge), GROUP, "removed", NULL);
		return;
	}
	g_key_file_set_string_list(groups(bridge), GROUP, "removed",
	                           (const char *const *)urls->pdata, urls->len);
}

GPtrArray *
bridge_phone_sync_dup_unmatched(const Bridge *bridge)
{
	g_autofree char *text =
	        g_key_file_get_string(groups(bridge), GROUP, "unmatched", NULL);
	g_autoptr(GError) error = NULL;
	GPtrArray *actions = NULL;

	if (text != NULL)
		actions = bridge_gpodder_actions_load(text, &error);
	if (error != NULL)
		g_warning("the state's [sync] unmatched is damaged, and "
		          "dropped: %s",
		          error->message);
	return actions != NULL
	               ? actions
	               : g_ptr_array_new_with_free_func(
	                         (GDestroyNotify)bridge_gpodder_action_free);
}

void
bridge_phone_sync_set_unmatched(Bridge *bridge, GPtrArray *actions)
{
	g_autofree char *text = NULL;
	gint64 oldest = bridge_phone_sync_now() - UNMATCHED_DAYS * 24 * 60 * 60;

	for (guint i = actions->len; i-- > 0;) {
		const BridgeGpodderAction *action = actions->pdata[i];

		if (action->timestamp < oldest)
			g_ptr_array_remove_index(actions, i);
	}
	if (actions->len > MAX_UNMATCHED)
		g_ptr_array_remove_range(actions, 0,
		                         actions->len - MAX_UNMATCHED);
	if (actions->len == 0) {
		g_key_file_remove_key(groups(bridge), GROUP, "unmatched", NULL);
		return;
	}
	text = bridge_gpodder_actions_save(actions);
	g_key_file_set_string(groups(bridge), GROUP, "unmatched", text);
}

gboolean
bridge_phone_sync_has_unmatched(const Bridge *bridge)
{
	return g_key_file_has_key(groups(bridge), GROUP, "unmatched", NULL);
}

void
bridge_phone_sync_set_last_error(Bridge *bridge, const char *message)
{
	if (message == NULL)
		g_key_file_remove_key(groups(bridge), GROUP, "last_error",
		                      NULL);
	else
		g_key_file_set_string(groups(bridge), GROUP, "last_error",
		                      message);
}

char *
bridge_phone_sync_dup_last_error(const Bridge *bridge)
{
	return g_key_file_get_string(groups(bridge), GROUP, "last_error", NULL);
}

gboolean
bridge_phone_sync_is_registered(const Bridge *bridge)
{
	return g_key_file_get_boolean(groups(bridge), GROUP, "registered",
	                              NULL);
}

void
bridge_phone_sync_set_registered(Bridge *bridge, gboolean registered)
{
	if (registered)
		g_key_file_set_boolean(groups(bridge), GROUP, "registered",
		                       TRUE);
	else
		g_key_file_remove_key(groups(bridge), GROUP, "registered",
		                      NULL);
}
