/*
 * mpd-bridge's state file. Whatever it holds, the store loads it or
 * refuses it with an error; what it loads, it saves, and what it saved
 * loads again: the same feeds and episodes, and the same file when saved
 * once more. A state that cannot be loaded after a save would be lost.
 */
#include "fuzz.h"

#include "state/store.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init_log();
	return 0;
}

static guint
count_episodes(const BridgeStore *store)
{
	g_autoptr(GPtrArray) episodes = bridge_store_list_episodes(store, NULL);

	return episodes->len;
}

/* The file as saved, without the time of saving. */
static char *
saved_text(const char *path)
{
	g_autofree char *text = NULL;
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) lines = NULL;
	GString *out = g_string_new(NULL);

	fuzz_check(g_file_get_contents(path, &text, NULL, &error), "%s",
	           error->message);
	lines = g_strsplit(text, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++)
		if (!g_str_has_prefix(lines[i], "saved="))
			g_string_append_printf(out, "%s\n", lines[i]);
	return g_string_free(out, FALSE);
}

static BridgeStore *
save_and_reload(BridgeStore *store, const char *path)
{
	g_autoptr(GError) error = NULL;
	BridgeStore *again;

	fuzz_check(bridge_store_save(store, &error), "%s", error->message);
	again = bridge_store_open(path, &error);
	fuzz_check(again != NULL, "the saved state does not load: %s",
	           error->message);
	return again;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autofree char *path = fuzz_write_temp("state", data, size);
	g_autoptr(GError) error = NULL;
	BridgeStore *store = bridge_store_open(path, &error);
	BridgeStore *again;
	BridgeStore *third;
	g_autofree char *first = NULL;
	g_autofree char *second = NULL;

	if (store == NULL) {
		fuzz_check(error != NULL, "failed without an error");
		fuzz_check_utf8("error message", error->message);
		return 0;
	}
	fuzz_check(error == NULL, "error set on success");

	again = save_and_reload(store, path);
	first = saved_text(path);
	fuzz_check(bridge_store_get_feeds(again)->len ==
	                   bridge_store_get_feeds(store)->len,
	           "%u feeds load as %u", bridge_store_get_feeds(store)->len,
	           bridge_store_get_feeds(again)->len);
	fuzz_check(count_episodes(again) == count_episodes(store),
	           "%u episodes load as %u", count_episodes(store),
	           count_episodes(again));

	third = save_and_reload(again, path);
	second = saved_text(path);
	fuzz_check(strcmp(first, second) == 0,
	           "saved again, the state changes:\n%s\n----\n%s", first,
	           second);
	bridge_store_free(third);
	bridge_store_free(again);
	bridge_store_free(store);
	return 0;
}
