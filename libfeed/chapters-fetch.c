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

static void
on_sync_done(FeedChapterList *list, const GError *error, gpointer data)
{
	feed_sync_state_done(data, error,
	                     error == NULL ? feed_chapter_list_ref(list)
	                                   : NULL);
}

static void
start_sync(FeedFetcher *fetcher, SyncState *state)
{
	feed_fetcher_fetch_chapters(fetcher, state->request, state->cancellable,
	                            on_sync_done, state);
}

FeedChapterList *
feed_chapters_fetch_sync(const char *url, GCancellable *cancellable,
                         GError **error)
{
	SyncState state = { url, cancellable, start_sync };

	g_return_val_if_fail(url != NULL, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	return feed_fetcher_run_sync(&state, error);
}
