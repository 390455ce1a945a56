/*
 * The relay's life and what the daemon asks of it (see relay.h): its
 * thread, started and stopped, the URLs MPD is given, `status`, and the
 * cache files the downloads take. Everything here runs on the daemon's
 * thread but the functions the relay's thread calls, which say so.
 */
#include "relay/relay-private.h"

#include "core/answer.h"
#include "core/relay-url.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

/* How often the cache files are looked at, in seconds. */
#define CLEANUP_SECONDS (60 * 60)
/* How long a stopping daemon sends MPD what it streams, at most. */
#define DRAIN_US      (5 * G_USEC_PER_SEC)
#define DRAIN_POLL_US (50 * 1000)

/* A call on the relay's thread that the daemon's thread waits for. */
typedef struct {
	GSourceFunc func;
	gpointer data;
	GMutex lock;
	GCond done_cond;
	gboolean done;
} Call;

static gboolean
run_call(gpointer data)
{
	Call *call = data;

	call->func(call->data);
	g_mutex_lock(&call->lock);
	call->done = TRUE;
	g_cond_signal(&call->done_cond);
	g_mutex_unlock(&call->lock);
	return G_SOURCE_REMOVE;
}

void
bridge_relay_call(BridgeRelay *relay, GSourceFunc func, gpointer data)
{
	Call call = { func, data };

	g_mutex_init(&call.lock);
	g_cond_init(&call.done_cond);
	g_main_context_invoke(relay->context, run_call, &call);
	g_mutex_lock(&call.lock);
	while (!call.done)
		g_cond_wait(&call.done_cond, &call.lock);
	g_mutex_unlock(&call.lock);
	g_mutex_clear(&call.lock);
	g_cond_clear(&call.done_cond);
}

GSource *
bridge_relay_timeout(BridgeRelay *relay, guint ms, GSourceFunc func,
                     gpointer data)
{
	GSource *source = g_timeout_source_new(ms);

	g_source_set_callback(source, func, data, NULL);
	g_source_attach(source, relay->context);
	return source;
}

void
bridge_relay_source_clear(GSource *source)
{
	g_source_destroy(source);
	g_source_unref(source);
}

gboolean
bridge_relay_is_stopping(BridgeRelay *relay)
{
	return g_atomic_int_get(&relay->stopping);
}

static void
episode_free(gpointer data)
{
	RelayEpisode *episode = data;

	bridge_relay_episode_clear(episode);
	g_free(episode);
}

void
bridge_relay_episode_clear(RelayEpisode *episode)
{
	g_clear_pointer(&episode->url, g_free);
	g_clear_pointer(&episode->title, g_free);
	g_clear_pointer(&episode->type, g_free);
}

gboolean
bridge_relay_lookup(BridgeRelay *relay, const char *id, RelayEpisode *out)
{
	const RelayEpisode *known;

	g_mutex_lock(&relay->lock);
	known = g_hash_table_lookup(relay->episodes, id);
	if (known != NULL) {
		out->url = g_strdup(known->url);
		out->title = g_strdup(known->title);
		out->type = g_strdup(known->type);
	}
	g_mutex_unlock(&relay->lock);
	return known != NULL;
}

gboolean
bridge_relay_is_on(const Bridge *bridge)
{
	BridgeRelay *relay = bridge->relay;

	return relay != NULL && relay->thread != NULL &&
	       !bridge_relay_is_stopping(relay);
}

/* From now on the relay serves @episode: the URL MPD gets is known. */
static void
learn(BridgeRelay *relay, const BridgeEpisode *episode)
{
	RelayEpisode *known;

	g_mutex_lock(&relay->lock);
	known = g_hash_table_lookup(relay->episodes, episode->id);
	if (known == NULL || strcmp(known->url, episode->url) != 0 ||
	    strcmp(known->title, episode->title) != 0) {
		known = g_new0(RelayEpisode, 1);
		known->url = g_strdup(episode->url);
		known->title = g_strdup(episode->title);
		known->type = g_strdup(episode->type);
		g_hash_table_replace(relay->episodes, g_strdup(episode->id),
		                     known);
	}
	g_mutex_unlock(&relay->lock);
}

char *
bridge_relay_uri(const Bridge *bridge, const BridgeEpisode *episode)
{
	if (!bridge_relay_is_on(bridge))
		return g_strdup(episode->url);
	learn(bridge->relay, episode);
	return bridge_relay_url_make(bridge->relay->port, episode->id,
	                             episode->type, episode->url);
}

typedef struct {
	BridgeRelay *relay;
	char *id;
	BridgeNewsKind kind;
} News;

static gboolean
on_news(gpointer data)
{
	News *news = data;
	Bridge *bridge = news->relay->bridge;
	BridgeEpisode *episode =
	        bridge_store_find_episode(bridge->store, news->id);

	if (episode != NULL && strcmp(episode->id, news->id) == 0)
		bridge_tell_episode(bridge, news->kind, episode);
	g_free(news->id);
	g_free(news);
	return G_SOURCE_REMOVE;
}

void
bridge_relay_tell(RelayEntry *entry, BridgeNewsKind kind)
{
	News *news = g_new0(News, 1);

	news->relay = entry->relay;
	news->id = g_strdup(entry->id);
	news->kind = kind;
	/* The daemon's loop: its own context, never the relay's. */
	g_main_context_invoke(NULL, on_news, news);
}

void
bridge_relay_note_gone(RelayEntry *entry, const char *host, const char *reason)
{
	BridgeRelay *relay = entry->relay;
	RelayGone *gone = &relay->last_gone;

	g_mutex_lock(&relay->lock);
	g_free(gone->title);
	g_free(gone->host);
	g_free(gone->reason);
	gone->title = g_strdup(entry->title);
	gone->host = g_strdup(host);
	gone->reason = g_strdup(reason);
	gone->at = g_get_real_time() / G_USEC_PER_SEC;
	g_mutex_unlock(&relay->lock);
}

void
bridge_relay_note_share(RelayEntry *entry, double share)
{
	BridgeRelay *relay = entry->relay;
	RelayEpisode *known;

	g_mutex_lock(&relay->lock);
	known = g_hash_table_lookup(relay->episodes, entry->id);
	if (known != NULL)
		known->gone_share = share;
	g_mutex_unlock(&relay->lock);
}

double
bridge_relay_gone_share(const Bridge *bridge, const BridgeEpisode *episode)
{
	BridgeRelay *relay = bridge->relay;
	const RelayEpisode *known;
	double share = 0;

	if (relay == NULL)
		return 0;
	g_mutex_lock(&relay->lock);
	known = g_hash_table_lookup(relay->episodes, episode->id);
	if (known != NULL)
		share = known->gone_share;
	g_mutex_unlock(&relay->lock);
	return share;
}

/* The port of the last run, kept beside the cache files; 0: none. */
static guint
last_port(const BridgeRelay *relay)
{
	g_autofree char *path =
	        g_build_filename(relay->directory, "port", NULL);
	g_autofree char *text = NULL;
	guint64 port = 0;

	if (!g_file_get_contents(path, &text, NULL, NULL) ||
	    !g_ascii_string_to_unsigned(g_strstrip(text), 10, 1, 65535, &port,
	                                NULL))
		return 0;
	return (guint)port;
}

static void
keep_port(const BridgeRelay *relay)
{
	g_autofree char *path =
	        g_build_filename(relay->directory, "port", NULL);
	g_autofree char *text = g_strdup_printf("%u\n", relay->port);
	g_autoptr(GError) error = NULL;

	if (!g_file_set_contents(path, text, -1, &error))
		g_message("relay: cannot keep its port: %s", error->message);
}

/*
 * Why MPD is not to be given relay URLs, or NULL when it is: the relay
 * serves 127.0.0.1, which is MPD's own machine only when MPD is here.
 */
static char *
why_off(const BridgeConfig *config)
{
	if (config->relay.mode == BRIDGE_RELAY_NO)
		return g_strdup("[bridge] relay = no");
	if (config->relay.mode == BRIDGE_RELAY_AUTO &&
	    !bridge_mpd_address_is_local(&config->mpd))
		return g_strdup_printf(
		        "MPD is on another machine (%s), which cannot reach "
		        "this one's 127.0.0.1; [bridge] relay = yes if it is "
		        "this one",
		        config->mpd.host);
	return NULL;
}

static BridgeRelay *
relay_new(Bridge *bridge)
{
	const BridgeConfig *config = bridge->config;
	BridgeRelay *relay = g_new0(BridgeRelay, 1);

	relay->bridge = bridge;
	relay->directory =
	        g_build_filename(config->cache_directory, "relay", NULL);
	relay->rules.give_up = config->relay.give_up;
	relay->rules.max_size = (guint64)config->download.max_size_mb << 20;
	relay->rules.keep_days = config->download.keep_days;
	relay->rules.budget = (guint64)config->download.budget_mb << 20;
	relay->rules.min_free = (guint64)config->download.min_free_mb << 20;
	relay->episodes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
	                                        episode_free);
	g_mutex_init(&relay->lock);
	bridge->relay = relay;
	return relay;
}

/* What the relay's thread starts with: the outcome for the daemon's. */
typedef struct {
	BridgeRelay *relay;
	guint wanted; /* the port asked for; 0: any */
	GMutex lock;
	GCond ready_cond;
	gboolean ready;
	GError *error; /* why the server did not start; NULL */
} Start;

static gpointer
run_thread(gpointer data)
{
	Start *start = data;
	BridgeRelay *relay = start->relay;
	GError *error = NULL;

	g_main_context_push_thread_default(relay->context);
	relay->loop = g_main_loop_new(relay->context, FALSE);
	relay->port = start->wanted;
	if (!bridge_relay_server_start(relay, &error))
		relay->port = 0;
	g_mutex_lock(&start->lock);
	start->error = error;
	start->ready = TRUE;
	g_cond_signal(&start->ready_cond);
	g_mutex_unlock(&start->lock);
	/* @start is the daemon's thread's from here on. */
	if (relay->port != 0)
		g_main_loop_run(relay->loop);
	bridge_relay_server_free(relay);
	g_clear_pointer(&relay->loop, g_main_loop_unref);
	g_main_context_pop_thread_default(relay->context);
	return NULL;
}

/* Starts the relay's thread on @port (0: any); FALSE with @error. */
static gboolean
start_thread(BridgeRelay *relay, guint port, GError **error)
{
	Start start = { relay, port };

	g_mutex_init(&start.lock);
	g_cond_init(&start.ready_cond);
	relay->thread = g_thread_new("relay", run_thread, &start);
	g_mutex_lock(&start.lock);
	while (!start.ready)
		g_cond_wait(&start.ready_cond, &start.lock);
	g_mutex_unlock(&start.lock);
	g_mutex_clear(&start.lock);
	g_cond_clear(&start.ready_cond);
	if (start.error == NULL)
		return TRUE;
	g_thread_join(g_steal_pointer(&relay->thread));
	g_propagate_error(error, start.error);
	return FALSE;
}

static gboolean
on_cleanup(gpointer data)
{
	bridge_relay_cache_clean(data);
	return G_SOURCE_CONTINUE;
}

void
bridge_relay_start(Bridge *bridge)
{
	BridgeRelay *relay = relay_new(bridge);
	g_autoptr(GError) error = NULL;
	guint port = bridge->config->relay.port;
	guint last;

	relay->off_why = why_off(bridge->config);
	if (relay->off_why != NULL) {
		g_message("relay: off: %s", relay->off_why);
		return;
	}
	if (g_mkdir_with_parents(relay->directory, 0700) != 0) {
		relay->off_why =
		        g_strdup_printf("cannot make its folder %s: %s",
		                        relay->directory, g_strerror(errno));
		g_warning("relay: off: %s", relay->off_why);
		return;
	}
	relay->context = g_main_context_new();
	/* The last run's port, so that what MPD holds from it still plays. */
	last = port == 0 ? last_port(relay) : 0;
	if ((last == 0 || !start_thread(relay, last, NULL)) &&
	    !start_thread(relay, port, &error)) {
		relay->off_why = g_strdup_printf("cannot listen on "
		                                 "127.0.0.1:%u: %s",
		                                 port, error->message);
		g_warning("relay: off: %s", relay->off_why);
		return;
	}
	keep_port(relay);
	bridge_relay_cache_clean(relay);
	relay->cleanup = g_timeout_source_new_seconds(CLEANUP_SECONDS);
	g_source_set_callback(relay->cleanup, on_cleanup, relay, NULL);
	g_source_attach(relay->cleanup, NULL);
	g_message("relay: MPD streams episodes from 127.0.0.1:%u", relay->port);
	bridge_tell(bridge, BRIDGE_NEWS_RELAY);
}

typedef struct {
	BridgeRelay *relay;
	gboolean busy;
	gboolean drains;
} Busy;

static gboolean
ask_busy(gpointer data)
{
	Busy *busy = data;

	busy->busy = bridge_relay_server_busy(busy->relay, &busy->drains);
	return G_SOURCE_REMOVE;
}

static Busy
busy_of(BridgeRelay *relay)
{
	Busy busy = { relay };

	bridge_relay_call(relay, ask_busy, &busy);
	return busy;
}

gboolean
bridge_relay_must_move(const Bridge *bridge)
{
	BridgeRelay *relay = bridge->relay;
	Busy busy;

	if (relay == NULL || relay->thread == NULL ||
	    !bridge_relay_is_stopping(relay))
		return FALSE;
	busy = busy_of(relay);
	return busy.busy && !busy.drains;
}

static gboolean
close_server(gpointer data)
{
	bridge_relay_server_close(data);
	return G_SOURCE_REMOVE;
}

static gboolean
quit_loop(gpointer data)
{
	BridgeRelay *relay = data;

	g_main_loop_quit(relay->loop);
	return G_SOURCE_REMOVE;
}

void
bridge_relay_stop(Bridge *bridge)
{
	BridgeRelay *relay = bridge->relay;
	gint64 until = g_get_monotonic_time() + DRAIN_US;
	Busy busy;

	if (relay == NULL || relay->thread == NULL ||
	    bridge_relay_is_stopping(relay))
		return;
	g_atomic_int_set(&relay->stopping, TRUE);
	bridge_relay_call(relay, close_server, relay);
	/* The hosts' URLs, in the queue and the playlists. */
	bridge_tell(bridge, BRIDGE_NEWS_RELAY);
	/*
	 * What MPD streams from the relay now is sent to its end when the
	 * cache has it all, for MPD to play on after the daemon is gone;
	 * what still needed the host was moved to the host's URL by the
	 * news (the queue's part).
	 */
	busy = busy_of(relay);
	while (busy.busy && busy.drains && g_get_monotonic_time() < until) {
		g_usleep(DRAIN_POLL_US);
		busy = busy_of(relay);
	}
	bridge_relay_call(relay, quit_loop, relay);
	g_thread_join(g_steal_pointer(&relay->thread));
	g_message("relay: stopped");
}

void
bridge_relay_clear(Bridge *bridge)
{
	BridgeRelay *relay = bridge->relay;

	if (relay == NULL)
		return;
	/* A daemon that did not stop it (a failure on the way). */
	if (relay->thread != NULL) {
		g_atomic_int_set(&relay->stopping, TRUE);
		bridge_relay_call(relay, quit_loop, relay);
		g_thread_join(g_steal_pointer(&relay->thread));
	}
	g_clear_pointer(&relay->cleanup, bridge_relay_source_clear);
	g_clear_pointer(&relay->context, g_main_context_unref);
	g_hash_table_destroy(relay->episodes);
	g_mutex_clear(&relay->lock);
	g_free(relay->directory);
	g_free(relay->off_why);
	g_free(relay->last_gone.title);
	g_free(relay->last_gone.host);
	g_free(relay->last_gone.reason);
	g_clear_pointer(&bridge->relay, g_free);
}

void
bridge_relay_describe(const Bridge *bridge, GString *out)
{
	BridgeRelay *relay = bridge->relay;
	g_autofree char *when = NULL;

	if (relay == NULL) {
		/* The command line: why a daemon would not relay. */
		g_autofree char *why = why_off(bridge->config);

		if (why != NULL)
			g_string_append_printf(out, "; relay off: %s", why);
		return;
	}
	if (relay->off_why != NULL) {
		g_string_append_printf(out, "; relay off: %s", relay->off_why);
		return;
	}
	g_string_append_printf(out, "; relay on 127.0.0.1:%u", relay->port);
	g_mutex_lock(&relay->lock);
	if (relay->last_gone.title != NULL) {
		when = bridge_answer_local_time(relay->last_gone.at,
		                                "%a %H:%M");
		g_string_append_printf(
		        out, "; %s gave up %s at %s: %s", relay->last_gone.host,
		        relay->last_gone.title, when, relay->last_gone.reason);
	}
	g_mutex_unlock(&relay->lock);
}

gboolean
bridge_relay_whole_file(const Bridge *bridge, const BridgeEpisode *episode,
                        char **path_out)
{
	const BridgeRelay *relay = bridge->relay;

	if (relay == NULL || relay->port == 0 ||
	    !bridge_relay_cache_is_whole(relay, episode))
		return FALSE;
	if (path_out != NULL)
		*path_out =
		        g_build_filename(relay->directory, episode->id, NULL);
	return TRUE;
}

typedef struct {
	BridgeRelay *relay;
	const char *id;
} Taken;

static gboolean
mark_taken(gpointer data)
{
	Taken *taken = data;
	RelayEntry *entry =
	        g_hash_table_lookup(taken->relay->entries, taken->id);

	if (entry != NULL)
		entry->taken = TRUE;
	return G_SOURCE_REMOVE;
}

void
bridge_relay_file_taken(Bridge *bridge, const BridgeEpisode *episode)
{
	BridgeRelay *relay = bridge->relay;
	Taken taken = { relay, episode->id };
	g_autofree char *path = NULL;

	if (relay == NULL || relay->port == 0)
		return;
	if (relay->thread != NULL)
		bridge_relay_call(relay, mark_taken, &taken);
	path = g_build_filename(relay->directory, episode->id, NULL);
	bridge_relay_cache_remove(path);
}
