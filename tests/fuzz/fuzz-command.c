/*
 * Messages on mpd-bridge's channel, as any MPD client may send them: each
 * line of the input is one message, split by the channel's parser and run
 * by the shared command table against a bridge with no MPD and no network,
 * whose state (two feeds, five episodes) is made afresh for each input.
 *
 * Commands that would fetch a feed or read a named file (subscribe,
 * refresh, import-opml) or that need MPD to mean anything (status) are
 * parsed but not run.
 */
#include "fuzz.h"

#include "commands/commands.h"
#include "listening/tracker.h"

/* More lines than this are not read: a channel message is one line. */
#define MAX_MESSAGES 8

static BridgeConfig *config;

static const char *const offline_commands[] = {
	"unsubscribe", "list",   "set",         "episodes", "mark",
	"star",        "unstar", "later",       "list-add", "list-remove",
	"lists",       "queue",  "export-opml", "ping",     NULL,
};

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	g_autofree char *none =
	        g_build_filename(fuzz_temp_dir(), "no-config", NULL);
	g_autoptr(GError) error = NULL;

	fuzz_init_log();
	config = bridge_config_load(none, &error);
	fuzz_check(config != NULL, "%s", error->message);
	return 0;
}

static void
add_episode(BridgeStore *store, BridgeFeed *feed, const char *guid,
            const char *title, gint64 published)
{
	BridgeEpisode *episode =
	        bridge_store_get_episode(store, feed, guid, NULL);

	g_free(episode->url);
	episode->url = g_strdup_printf("http://example.com/%s.mp3", guid);
	g_free(episode->title);
	episode->title = g_strdup(title);
	episode->published = published;
	episode->duration = 1800;
}

/* Never saved: the path names no file, and nothing calls save. */
static BridgeStore *
new_store(void)
{
	g_autofree char *path =
	        g_build_filename(fuzz_temp_dir(), "state", NULL);
	g_autoptr(GError) error = NULL;
	BridgeStore *store = bridge_store_open(path, &error);
	BridgeFeed *feed;

	fuzz_check(store != NULL, "%s", error->message);
	feed = bridge_store_add_feed(store, "http://example.com/alpha.rss");
	feed->title = g_strdup("Alpha Show");
	add_episode(store, feed, "a1", "First of Alpha", 1600000000);
	add_episode(store, feed, "a2", "Second of Alpha", 1600086400);
	add_episode(store, feed, "a3", "Undated", 0);
	feed = bridge_store_add_feed(store, "https://example.org/beta");
	feed->name = g_strdup("beta");
	add_episode(store, feed, "b1", "Beta one", 1500000000);
	add_episode(store, feed, "b2", "Beta two", 1700000000);
	return store;
}

static gboolean
runs_offline(const char *name)
{
	/* Not a command: run it, for the error that says so. */
	if (bridge_command_lookup(name) == NULL)
		return TRUE;
	return g_strv_contains(offline_commands, name);
}

static void
run_message(Bridge *bridge, const char *text)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *reply = NULL;
	g_auto(GStrv) argv = NULL;
	g_autoptr(GString) out = g_string_new(NULL);
	gboolean ok;

	ok = bridge_command_parse_message(text, &reply, &argv, &error);
	fuzz_check(ok == (error == NULL), "'%s': %s", text,
	           ok ? "error set on success" : "failed without an error");
	if (!ok)
		return;
	fuzz_check(argv != NULL && argv[0] != NULL, "'%s' gives no command",
	           text);
	if (!runs_offline(argv[0]))
		return;
	ok = bridge_command_run(bridge, argv, out, &error);
	fuzz_check(ok == (error == NULL), "'%s': %s", text,
	           ok ? "error set on success" : "failed without an error");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autofree char *text = fuzz_dup_string(data, size);
	g_auto(GStrv) lines = g_strsplit(text, "\n", MAX_MESSAGES + 1);
	Bridge bridge = { 0 };

	bridge.config = config;
	bridge.store = new_store();
	for (guint i = 0; lines[i] != NULL && i < MAX_MESSAGES; i++)
		run_message(&bridge, lines[i]);
	bridge_tracker_clear(&bridge);
	bridge_store_free(bridge.store);
	return 0;
}
