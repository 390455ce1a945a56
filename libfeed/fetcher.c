/*
 * libcurl's multi interface on a GLib main context: curl says which
 * sockets to watch and when to wake it, and GSources do the watching. No
 * thread per transfer and no polling loop. Jobs beyond the limits wait
 * in a queue here rather than inside curl, where their timeouts would run.
 */
#include "fetcher-private.h"

#include <glib-unix.h>

#define DEFAULT_MAX_TRANSFERS 8
#define DEFAULT_MAX_PER_HOST  2
#define DEFAULT_CONNECT       15
#define DEFAULT_TOTAL         120
#define DEFAULT_STALL         30
#define DEFAULT_REDIRECTS     10

static void
start_waiting(FeedFetcher *fetcher);

static guint
count_of(GHashTable *counts, const char *host)
{
	return GPOINTER_TO_UINT(g_hash_table_lookup(counts, host));
}

static void
count_add(GHashTable *counts, const char *host, int delta)
{
	guint count = count_of(counts, host) + delta;

	if (count == 0)
		g_hash_table_remove(counts, host);
	else
		g_hash_table_insert(counts, g_strdup(host),
		                    GUINT_TO_POINTER(count));
}

static guint
host_count(FeedFetcher *fetcher, const char *host)
{
	return count_of(fetcher->per_host, host);
}

static void
host_add(FeedFetcher *fetcher, const char *host, int delta)
{
	count_add(fetcher->per_host, host, delta);
}

/* Hands the job's next transfer to curl; FALSE when it ended instead. */
static gboolean
add_transfer(FeedFetcher *fetcher, Job *job)
{
	CURL *easy = job->klass->start_transfer(job);

	if (easy == NULL)
		return FALSE;
	host_add(fetcher, job->klass->get_host(job), 1);
	g_hash_table_add(fetcher->running, job);
	curl_multi_add_handle(fetcher->multi, easy);
	return TRUE;
}

static void
remove_transfer(FeedFetcher *fetcher, Job *job, CURL *easy)
{
	curl_multi_remove_handle(fetcher->multi, easy);
	g_hash_table_remove(fetcher->running, job);
	host_add(fetcher, job->klass->get_host(job), -1);
}

/* Collects what curl finished, then lets waiting jobs in. */
static void
read_messages(FeedFetcher *fetcher)
{
	CURLMsg *message;
	int left;

	while ((message = curl_multi_info_read(fetcher->multi, &left))) {
		Job *job = NULL;
		CURL *easy = message->easy_handle;

		if (message->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&job);
		remove_transfer(fetcher, job, easy);
		/*
		 * A redirect, a discovered feed, the next page or a resumed
		 * download goes on.
		 */
		if (job->klass->transfer_done(job, message->data.result))
			add_transfer(fetcher, job);
	}
	start_waiting(fetcher);
}

static gboolean
on_socket_ready(int fd, GIOCondition condition, gpointer data)
{
	FeedFetcher *fetcher = data;
	int events = 0;
	int running;

	if (condition & G_IO_IN)
		events |= CURL_CSELECT_IN;
	if (condition & G_IO_OUT)
		events |= CURL_CSELECT_OUT;
	/*
	 * As curl's own poll does: an error or hang-up is also readable, so
	 * that curl reads and reports what happened ("Connection reset by
	 * peer"). CURL_CSELECT_ERR alone only says "select/poll returned
	 * error", which a connection reset under load came out as.
	 */
	if (condition & (G_IO_ERR | G_IO_HUP))
		events |= CURL_CSELECT_IN | CURL_CSELECT_ERR;
	curl_multi_socket_action(fetcher->multi, fd, events, &running);
	read_messages(fetcher);
	return G_SOURCE_CONTINUE;
}

static int
on_socket(CURL *easy, curl_socket_t fd, int what, void *data, void *socket_data)
{
	FeedFetcher *fetcher = data;
	GSource *source = socket_data;
	GIOCondition condition = 0;

	if (source != NULL) {
		g_source_destroy(source);
		g_source_unref(source);
		source = NULL;
	}
	if (what != CURL_POLL_REMOVE) {
		if (what & CURL_POLL_IN)
			condition |= G_IO_IN;
		if (what & CURL_POLL_OUT)
			condition |= G_IO_OUT;
		source = g_unix_fd_source_new(fd, condition);
		g_source_set_callback(source, G_SOURCE_FUNC(on_socket_ready),
		                      fetcher, NULL);
		g_source_attach(source, fetcher->context);
	}
	curl_multi_assign(fetcher->multi, fd, source);
	return 0;
}

static gboolean
on_timeout(gpointer data)
{
	FeedFetcher *fetcher = data;
	GSource *self = g_steal_pointer(&fetcher->timer);
	int running;

	curl_multi_socket_action(fetcher->multi, CURL_SOCKET_TIMEOUT, 0,
	                         &running);
	read_messages(fetcher);
	g_source_unref(self);
	return G_SOURCE_REMOVE;
}

static int
on_timer(CURLM *multi, long timeout_ms, void *data)
{
	FeedFetcher *fetcher = data;

	if (fetcher->timer != NULL) {
		g_source_destroy(fetcher->timer);
		g_clear_pointer(&fetcher->timer, g_source_unref);
	}
	if (timeout_ms >= 0) {
		fetcher->timer = g_timeout_source_new((guint)timeout_ms);
		g_source_set_callback(fetcher->timer, on_timeout, fetcher,
		                      NULL);
		g_source_attach(fetcher->timer, fetcher->context);
	}
	return 0;
}

FeedFetcher *
feed_fetcher_new(GMainContext *context)
{
	FeedFetcher *fetcher = g_new0(FeedFetcher, 1);

	fetcher->context = context != NULL
	                           ? g_main_context_ref(context)
	                           : g_main_context_ref_thread_default();
	fetcher->multi = curl_multi_init();
	g_queue_init(&fetcher->waiting);
	fetcher->running = g_hash_table_new(NULL, NULL);
	fetcher->per_host =
	        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	fetcher->waiting_hosts =
	        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	fetcher->max_transfers = DEFAULT_MAX_TRANSFERS;
	fetcher->max_per_host = DEFAULT_MAX_PER_HOST;
	fetcher->connect_timeout = DEFAULT_CONNECT;
	fetcher->total_timeout = DEFAULT_TOTAL;
	fetcher->stall_timeout = DEFAULT_STALL;
	fetcher->max_redirects = DEFAULT_REDIRECTS;
	fetcher->max_size = FEED_PARSER_DEFAULT_MAX_SIZE;

	curl_multi_setopt(fetcher->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(fetcher->multi, CURLMOPT_SOCKETDATA, fetcher);
	curl_multi_setopt(fetcher->multi, CURLMOPT_TIMERFUNCTION, on_timer);
	curl_multi_setopt(fetcher->multi, CURLMOPT_TIMERDATA, fetcher);
	curl_multi_setopt(fetcher->multi, CURLMOPT_PIPELINING,
	                  (long)CURLPIPE_MULTIPLEX);
	return fetcher;
}

static void
fail_cancelled(Job *job)
{
	job->klass->fail(job,
	                 g_error_new_literal(G_IO_ERROR, G_IO_ERROR_CANCELLED,
	                                     job->klass->cancelled_message));
}

void
feed_fetcher_free(FeedFetcher *fetcher)
{
	Job *job;
	GHashTableIter iter;

	if (fetcher == NULL)
		return;
	while ((job = g_queue_pop_head(&fetcher->waiting)) != NULL)
		fail_cancelled(job);
	g_hash_table_iter_init(&iter, fetcher->running);
	while (g_hash_table_iter_next(&iter, (gpointer *)&job, NULL)) {
		g_hash_table_iter_steal(&iter);
		curl_multi_remove_handle(fetcher->multi,
		                         job->klass->get_easy(job));
		fail_cancelled(job);
	}
	if (fetcher->timer != NULL) {
		g_source_destroy(fetcher->timer);
		g_source_unref(fetcher->timer);
	}
	curl_multi_cleanup(fetcher->multi);
	g_hash_table_unref(fetcher->running);
	g_hash_table_unref(fetcher->per_host);
	g_hash_table_unref(fetcher->waiting_hosts);
	g_main_context_unref(fetcher->context);
	g_free(fetcher);
}

void
feed_fetcher_set_max_transfers(FeedFetcher *fetcher, guint max_transfers)
{
	g_return_if_fail(fetcher != NULL);
	fetcher->max_transfers =
	        max_transfers != 0 ? max_transfers : DEFAULT_MAX_TRANSFERS;
}

void
feed_fetcher_set_max_per_host(FeedFetcher *fetcher, guint max_per_host)
{
	g_return_if_fail(fetcher != NULL);
	fetcher->max_per_host =
	        max_per_host != 0 ? max_per_host : DEFAULT_MAX_PER_HOST;
}

void
feed_fetcher_set_timeouts(FeedFetcher *fetcher, guint connect_seconds,
                          guint total_seconds, guint stall_seconds)
{
	g_return_if_fail(fetcher != NULL);
	fetcher->connect_timeout =
	        connect_seconds != 0 ? connect_seconds : DEFAULT_CONNECT;
	fetcher->total_timeout =
	        total_seconds != 0 ? total_seconds : DEFAULT_TOTAL;
	fetcher->stall_timeout =
	        stall_seconds != 0 ? stall_seconds : DEFAULT_STALL;
}

void
feed_fetcher_set_max_size(FeedFetcher *fetcher, gsize max_size)
{
	g_return_if_fail(fetcher != NULL);
	fetcher->max_size =
	        max_size != 0 ? max_size : FEED_PARSER_DEFAULT_MAX_SIZE;
}

void
feed_fetcher_set_max_redirects(FeedFetcher *fetcher, guint max_redirects)
{
	g_return_if_fail(fetcher != NULL);
	fetcher->max_redirects =
	        max_redirects != 0 ? max_redirects : DEFAULT_REDIRECTS;
}

/*
 * Starts waiting jobs while there is room, oldest first. The walk ends
 * once every host with fetches waiting is seen full: with thousands of
 * feeds on one host, each finished transfer would otherwise walk the
 * whole queue, and importing 10,000 feeds took a quarter of a minute.
 */
static void
start_waiting(FeedFetcher *fetcher)
{
	g_autoptr(GHashTable) full = g_hash_table_new(g_str_hash, g_str_equal);
	GList *link = fetcher->waiting.head;

	while (link != NULL &&
	       g_hash_table_size(fetcher->running) < fetcher->max_transfers) {
		Job *job = link->data;
		const char *host = job->klass->get_host(job);
		GList *next = link->next;

		if (host_count(fetcher, host) < fetcher->max_per_host) {
			g_queue_delete_link(&fetcher->waiting, link);
			count_add(fetcher->waiting_hosts, host, -1);
			add_transfer(fetcher, job);
		} else {
			g_hash_table_add(full, (gpointer)host);
			if (g_hash_table_size(full) ==
			    g_hash_table_size(fetcher->waiting_hosts))
				break;
		}
		link = next;
	}
}

/* Runs from the context, so callbacks never run inside the caller's call. */
static gboolean
on_start(gpointer data)
{
	start_waiting(data);
	return G_SOURCE_REMOVE;
}

void
feed_fetcher_add_job(FeedFetcher *fetcher, Job *job)
{
	GSource *idle;

	g_queue_push_tail(&fetcher->waiting, job);
	count_add(fetcher->waiting_hosts, job->klass->get_host(job), 1);
	idle = g_idle_source_new();
	g_source_set_callback(idle, on_start, fetcher, NULL);
	g_source_attach(idle, fetcher->context);
	g_source_unref(idle);
}

void
feed_fetcher_fetch(FeedFetcher *fetcher, const FeedFetchRequest *request,
                   GCancellable *cancellable, FeedFetchFunc callback,
                   gpointer user_data)
{
	g_return_if_fail(fetcher != NULL);
	g_return_if_fail(request != NULL);
	g_return_if_fail(callback != NULL);

	feed_fetcher_add_job(fetcher,
	                     feed_fetch_new(fetcher, request, cancellable,
	                                    callback, user_data));
}

static void
cancel_job(FeedFetcher *fetcher, Job *job)
{
	if (g_queue_remove(&fetcher->waiting, job)) {
		count_add(fetcher->waiting_hosts, job->klass->get_host(job),
		          -1);
		fail_cancelled(job);
		return;
	}
	if (g_hash_table_contains(fetcher->running, job)) {
		remove_transfer(fetcher, job, job->klass->get_easy(job));
		fail_cancelled(job);
		start_waiting(fetcher);
	}
}

/*
 * Cancellation may come from any thread, and from inside the caller's own
 * code: the job ends from its fetcher's context, outside curl.
 */
static gboolean
cancel_now(gpointer data)
{
	Job *job = data;

	g_clear_pointer(&job->cancel_idle, g_source_unref);
	cancel_job(job->fetcher, job);
	return G_SOURCE_REMOVE;
}

static void
on_cancelled(GCancellable *cancellable, gpointer data)
{
	Job *job = data;
	GSource *idle = g_idle_source_new();

	g_source_set_callback(idle, cancel_now, job, NULL);
	if (job->cancel_idle == NULL) {
		job->cancel_idle = idle;
		g_source_attach(idle, job->fetcher->context);
	} else {
		g_source_unref(idle);
	}
}

void
feed_job_init(Job *job, const JobClass *klass, FeedFetcher *fetcher,
              GCancellable *cancellable)
{
	job->klass = klass;
	job->fetcher = fetcher;
	if (cancellable != NULL) {
		job->cancellable = g_object_ref(cancellable);
		job->cancel_handler = g_cancellable_connect(
		        cancellable, G_CALLBACK(on_cancelled), job, NULL);
	}
}

void
feed_job_clear(Job *job)
{
	if (job->cancel_handler != 0)
		g_cancellable_disconnect(job->cancellable, job->cancel_handler);
	job->cancel_handler = 0;
	if (job->cancel_idle != NULL) {
		g_source_destroy(job->cancel_idle);
		g_clear_pointer(&job->cancel_idle, g_source_unref);
	}
	g_clear_object(&job->cancellable);
}

gpointer
feed_fetcher_run_sync(SyncState *state, GError **error)
{
	GMainContext *context = g_main_context_new();
	FeedFetcher *fetcher;

	g_main_context_push_thread_default(context);
	fetcher = feed_fetcher_new(context);
	state->start(fetcher, state);
	while (!state->done)
		g_main_context_iteration(context, TRUE);
	feed_fetcher_free(fetcher);
	g_main_context_pop_thread_default(context);
	g_main_context_unref(context);
	if (state->error != NULL) {
		g_propagate_error(error, state->error);
		return NULL;
	}
	return state->result;
}

void
feed_sync_state_done(SyncState *state, const GError *error, gpointer result)
{
	state->done = TRUE;
	if (error != NULL)
		state->error = g_error_copy(error);
	else
		state->result = result;
}

static void
on_sync_done(FeedFetchResult *result, const GError *error, gpointer data)
{
	feed_sync_state_done(data, error,
	                     error == NULL ? feed_fetch_result_ref(result)
	                                   : NULL);
}

static void
start_sync(FeedFetcher *fetcher, SyncState *state)
{
	feed_fetcher_fetch(fetcher, state->request, state->cancellable,
	                   on_sync_done, state);
}

FeedFetchResult *
feed_fetch_sync(const FeedFetchRequest *request, GCancellable *cancellable,
                GError **error)
{
	SyncState state = { request, cancellable, start_sync };

	g_return_val_if_fail(request != NULL, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	return feed_fetcher_run_sync(&state, error);
}
