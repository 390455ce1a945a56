/* What a download asks for and what it gives: plain objects. */
#include "download-private.h"

#include <string.h>

static Progress *
progress_ref(Progress *progress)
{
	if (progress != NULL)
		g_atomic_ref_count_inc(&progress->ref);
	return progress;
}

static void
progress_unref(Progress *progress)
{
	if (progress == NULL || !g_atomic_ref_count_dec(&progress->ref))
		return;
	if (progress->notify != NULL)
		progress->notify(progress->data);
	g_free(progress);
}

FeedDownloadRequest *
feed_download_request_new(const char *url, const char *path)
{
	FeedDownloadRequest *request;

	g_return_val_if_fail(url != NULL, NULL);
	g_return_val_if_fail(path != NULL && *path != '\0', NULL);
	request = g_new0(FeedDownloadRequest, 1);
	request->url = g_strdup(url);
	request->path = g_strdup(path);
	return request;
}

FeedDownloadRequest *
feed_download_request_copy(const FeedDownloadRequest *request)
{
	FeedDownloadRequest *copy = g_new0(FeedDownloadRequest, 1);

	*copy = *request;
	copy->url = g_strdup(request->url);
	copy->path = g_strdup(request->path);
	copy->username = g_strdup(request->username);
	copy->password = g_strdup(request->password);
	copy->progress = progress_ref(request->progress);
	return copy;
}

void
feed_download_request_free(FeedDownloadRequest *request)
{
	if (request == NULL)
		return;
	g_free(request->url);
	g_free(request->path);
	g_free(request->username);
	if (request->password != NULL)
		memset(request->password, 0, strlen(request->password));
	g_free(request->password);
	progress_unref(request->progress);
	g_free(request);
}

void
feed_download_request_set_max_size(FeedDownloadRequest *request,
                                   guint64 max_size)
{
	g_return_if_fail(request != NULL);
	request->max_size = max_size;
}

void
feed_download_request_set_flags(FeedDownloadRequest *request,
                                FeedFetchFlags flags)
{
	g_return_if_fail(request != NULL);
	request->flags = flags;
}

/* Empty strings count as none, as a fetch request's do. */
static void
set_string(char **field, const char *value)
{
	if (*field != NULL)
		memset(*field, 0, strlen(*field));
	g_free(*field);
	*field = value != NULL && *value != '\0' ? g_strdup(value) : NULL;
}

void
feed_download_request_set_credentials(FeedDownloadRequest *request,
                                      const char *username,
                                      const char *password)
{
	g_return_if_fail(request != NULL);
	set_string(&request->username, username);
	set_string(&request->password, password);
}

void
feed_download_request_set_progress_func(FeedDownloadRequest *request,
                                        FeedDownloadProgressFunc func,
                                        gpointer user_data,
                                        GDestroyNotify notify)
{
	Progress *progress = NULL;

	g_return_if_fail(request != NULL);
	if (func != NULL) {
		progress = g_new0(Progress, 1);
		g_atomic_ref_count_init(&progress->ref);
		progress->func = func;
		progress->data = user_data;
		progress->notify = notify;
	}
	progress_unref(request->progress);
	request->progress = progress;
}

FeedDownloadResult *
feed_download_result_new(const char *url, const char *path)
{
	FeedDownloadResult *result = g_new0(FeedDownloadResult, 1);

	g_atomic_ref_count_init(&result->ref);
	result->url = g_strdup(url);
	result->final_url = g_strdup(url);
	result->path = g_strdup(path);
	return result;
}

FeedDownloadResult *
feed_download_result_ref(FeedDownloadResult *result)
{
	g_return_val_if_fail(result != NULL, NULL);
	g_atomic_ref_count_inc(&result->ref);
	return result;
}

void
feed_download_result_unref(FeedDownloadResult *result)
{
	if (result == NULL || !g_atomic_ref_count_dec(&result->ref))
		return;
	g_free(result->url);
	g_free(result->final_url);
	g_free(result->path);
	g_free(result->content_type);
	g_free(result);
}

const char *
feed_download_result_get_url(const FeedDownloadResult *result)
{
	g_return_val_if_fail(result != NULL, NULL);
	return result->url;
}

const char *
feed_download_result_get_final_url(const FeedDownloadResult *result)
{
	g_return_val_if_fail(result != NULL, NULL);
	return result->final_url;
}

const char *
feed_download_result_get_path(const FeedDownloadResult *result)
{
	g_return_val_if_fail(result != NULL, NULL);
	return result->path;
}

const char *
feed_download_result_get_content_type(const FeedDownloadResult *result)
{
	g_return_val_if_fail(result != NULL, NULL);
	return result->content_type;
}

guint64
feed_download_result_get_size(const FeedDownloadResult *result)
{
	g_return_val_if_fail(result != NULL, 0);
	return result->size;
}

gboolean
feed_download_result_was_resumed(const FeedDownloadResult *result)
{
	g_return_val_if_fail(result != NULL, FALSE);
	return result->resumed;
}

guint
feed_download_result_get_http_status(const FeedDownloadResult *result)
{
	g_return_val_if_fail(result != NULL, 0);
	return result->http_status;
}
