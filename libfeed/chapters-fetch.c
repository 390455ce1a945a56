/*
 * JSON chapters fetched on the fetcher: the path of a feed fetch (schemes,
 * redirects, credentials, timeouts, the size cap), the body kept in memory
 * and read by feed_chapter_list_new_from_json() at the end.
 */
#include "feed/chapters.h"
#include "feed/error.h"
#include "fetcher-private.h"

typedef struct {
	FeedChaptersFunc callback;
	gpointer user_data;
} ChaptersFetch;

static void
on_fetched(FeedFetchResult *result, const GError *error, gpointer data)
{
	ChaptersFetch *fetch = data;
	g_autoptr(GError) local = NULL;
	g_autoptr(FeedChapterList) list = NULL;

	if (error == NULL && result->body == NULL) {
		/* A 304 to a request without validators. */
		local = g_error_new(FEED_ERROR, FEED_ERROR_HTTP,
		                    "%s: the server sent no document (HTTP %u)",
		                    result->url, result->http_status);
	} else if (error == NULL) {
		gsize length;
		const char *bytes = g_bytes_get_data(result->body, &length);

		list = feed_chapter_list_new_from_json(bytes, length, &local);
		if (list == NULL)
			g_prefix_error(&local, "%s: ", result->url);
	}
	fetch->callback(list, error != NULL ? error : local, fetch->user_data);
	g_free(fetch);
}

void
feed_fetcher_fetch_chapters(FeedFetcher *fetcher, const char *url,
                            GCancellable *cancellable,
                            FeedChaptersFunc callback, gpointer user_data)
{
	g_autoptr(FeedFetchRequest) request = NULL;
	ChaptersFetch *fetch;

	g_return_if_fail(fetcher != NULL);
	g_return_if_fail(url != NULL);
	g_return_if_fail(callback != NULL);

	fetch = g_new0(ChaptersFetch, 1);
	fetch->callback = callback;
	fetch->user_data = user_data;
	request = feed_fetch_request_new(url);
	request->keep_body_max = FEED_CHAPTERS_MAX_SIZE;
	feed_fetcher_fetch(fetcher, request, cancellable, on_fetched, fetch);
}

typedef struct {
	gboolean done;
	FeedChapterList *list;
	GError *error;
} SyncState;

static void
on_sync_done(FeedChapterList *list, const GError *error, gpointer data)
{
	SyncState *state = data;

	state->done = TRUE;
	if (error != NULL)
		state->error = g_error_copy(error);
	else
		state->list = feed_chapter_list_ref(list);
}

FeedChapterList *
feed_chapters_fetch_sync(const char *url, GCancellable *cancellable,
                         GError **error)
{
	GMainContext *context;
	FeedFetcher *fetcher;
	SyncState state = { FALSE, NULL, NULL };

	g_return_val_if_fail(url != NULL, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	context = g_main_context_new();
	g_main_context_push_thread_default(context);
	fetcher = feed_fetcher_new(context);
	feed_fetcher_fetch_chapters(fetcher, url, cancellable, on_sync_done,
	                            &state);
	while (!state.done)
		g_main_context_iteration(context, TRUE);
	feed_fetcher_free(fetcher);
	g_main_context_pop_thread_default(context);
	g_main_context_unref(context);
	if (state.error != NULL) {
		g_propagate_error(error, state.error);
		return NULL;
	}
	return state.list;
}
