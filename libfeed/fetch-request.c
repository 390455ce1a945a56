/* What a fetch asks for and what it gives: plain objects. */
#include "fetcher-private.h"

#include <string.h>

FeedFetchRequest *
feed_fetch_request_new(const char *url)
{
	FeedFetchRequest *request;

	g_return_val_if_fail(url != NULL, NULL);
	request = g_new0(FeedFetchRequest, 1);
	request->url = g_strdup(url);
	return request;
}

FeedFetchRequest *
feed_fetch_request_copy(const FeedFetchRequest *request)
{
	FeedFetchRequest *copy = g_new0(FeedFetchRequest, 1);

	*copy = *request;
	copy->url = g_strdup(request->url);
	copy->etag = g_strdup(request->etag);
	copy->last_modified = g_strdup(request->last_modified);
	copy->content_hash = g_strdup(request->content_hash);
	copy->username = g_strdup(request->username);
	copy->password = g_strdup(request->password);
	if (request->body_stream != NULL)
		g_object_ref(request->body_stream);
	return copy;
}

void
feed_fetch_request_free(FeedFetchRequest *request)
{
	if (request == NULL)
		return;
	g_free(request->url);
	g_free(request->etag);
	g_free(request->last_modified);
	g_free(request->content_hash);
	g_free(request->username);
	if (request->password != NULL)
		memset(request->password, 0, strlen(request->password));
	g_free(request->password);
	g_clear_object(&request->body_stream);
	g_free(request);
}

/* Empty strings count as none, so "no validator" has one spelling. */
static void
set_string(char **field, const char *value)
{
	g_free(*field);
	*field = value != NULL && *value != '\0' ? g_strdup(value) : NULL;
}

void
feed_fetch_request_set_validators(FeedFetchRequest *request, const char *etag,
                                  const char *last_modified)
{
	g_return_if_fail(request != NULL);
	set_string(&request->etag, etag);
	set_string(&request->last_modified, last_modified);
}

void
feed_fetch_request_set_content_hash(FeedFetchRequest *request,
                                    const char *content_hash)
{
	g_return_if_fail(request != NULL);
	set_string(&request->content_hash, content_hash);
}

void
feed_fetch_request_set_credentials(FeedFetchRequest *request,
                                   const char *username, const char *password)
{
	g_return_if_fail(request != NULL);
	set_string(&request->username, username);
	set_string(&request->password, password);
}

void
feed_fetch_request_set_flags(FeedFetchRequest *request, FeedFetchFlags flags)
{
	g_return_if_fail(request != NULL);
	request->flags = flags;
}

void
feed_fetch_request_set_max_pages(FeedFetchRequest *request, guint max_pages)
{
	g_return_if_fail(request != NULL);
	request->max_pages = max_pages;
}

void
feed_fetch_request_set_episode_func(FeedFetchRequest *request,
                                    FeedEpisodeFunc func, gpointer user_data)
{
	g_return_if_fail(request != NULL);
	request->episode_func = func;
	request->episode_data = user_data;
}

void
feed_fetch_request_set_body_stream(FeedFetchRequest *request,
                                   GOutputStream *stream)
{
	g_return_if_fail(request != NULL);
	g_return_if_fail(stream == NULL || G_IS_OUTPUT_STREAM(stream));
	if (stream != NULL)
		g_object_ref(stream);
	g_clear_object(&request->body_stream);
	request->body_stream = stream;
}

FeedFetchResult *
feed_fetch_result_new(const char *url)
{
	FeedFetchResult *result = g_new0(FeedFetchResult, 1);

	g_atomic_ref_count_init(&result->ref);
	result->url = g_strdup(url);
	result->final_url = g_strdup(url);
	return result;
}

FeedFetchResult *
feed_fetch_result_ref(FeedFetchResult *result)
{
	g_return_val_if_fail(result != NULL, NULL);
	g_atomic_ref_count_inc(&result->ref);
	return result;
}

void
feed_fetch_result_unref(FeedFetchResult *result)
{
	if (result == NULL || !g_atomic_ref_count_dec(&result->ref))
		return;
	g_clear_pointer(&result->channel, feed_channel_unref);
	g_free(result->url);
	g_free(result->final_url);
	g_free(result->discovered_url);
	g_free(result->new_feed_url);
	g_free(result->etag);
	g_free(result->last_modified);
	g_free(result->content_hash);
	g_clear_error(&result->body_stream_error);
	g_clear_pointer(&result->body, g_bytes_unref);
	g_free(result);
}

FeedFetchStatus
feed_fetch_result_get_status(const FeedFetchResult *result)
{
	g_return_val_if_fail(result != NULL, FEED_FETCH_UPDATED);
	return result->status;
}

FeedChannel *
feed_fetch_result_get_channel(const FeedFetchResult *result)
{
	g_return_val_if_fail(result != NULL, NULL);
	return result->channel;
}

const char *
feed_fetch_result_get_url(const FeedFetchResult *result)
{
	g_return_val_if_fail(result != NULL, NULL);
	return result->url;
}

const char *
feed_fetch_result_get_final_url(const FeedFetchResult *result)
{
	g_return_val_if_fail(result != NULL, NULL);
	return result->final_url;
}

gboolean
feed_fetch_result_is_moved(const FeedFetchResult *result)
{
	g_return_val_if_fail(result != NULL, FALSE);
	return result->moved;
}

const char *
feed_fetch_result_get_discovered_url(const FeedFetchResult *result)
{
	g_return_val_if_fail(result != NULL, NULL);
	return result->discovered_url;
}

const char *
feed_fetch_result_get_new_feed_url(const FeedFetchResult *result)
{
	g_return_val_if_fail(result != NULL, NULL);
	return result->new_feed_url;
}

const char *
feed_fetch_result_get_etag(const FeedFetchResult *result)
{
	g_return_val_if_fail(result != NULL, NULL);
	return result->etag;
}

const char *
feed_fetch_result_get_last_modified(const FeedFetchResult *result)
{
	g_return_val_if_fail(result != NULL, NULL);
	return result->last_modified;
}

const char *
feed_fetch_result_get_content_hash(const FeedFetchResult *result)
{
	g_return_val_if_fail(result != NULL, NULL);
	return result->content_hash;
}

guint
feed_fetch_result_get_http_status(const FeedFetchResult *result)
{
	g_return_val_if_fail(result != NULL, 0);
	return result->http_status;
}

guint64
feed_fetch_result_get_bytes_received(const FeedFetchResult *result)
{
	g_return_val_if_fail(result != NULL, 0);
	return result->bytes;
}

const GError *
feed_fetch_result_get_body_stream_error(const FeedFetchResult *result)
{
	g_return_val_if_fail(result != NULL, NULL);
	return result->body_stream_error;
}

gint64
feed_fetch_result_get_elapsed(const FeedFetchResult *result)
{
	g_return_val_if_fail(result != NULL, 0);
	return result->elapsed;
}
