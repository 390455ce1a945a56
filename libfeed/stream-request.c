/* What a stream asks for and what its response said: plain objects. */
#include "stream-private.h"

#include <string.h>

static void
funcs_clear(gpointer data)
{
	Funcs *funcs = data;

	if (funcs->notify != NULL)
		funcs->notify(funcs->user_data);
}

static void
funcs_release(Funcs *funcs)
{
	if (funcs != NULL)
		g_atomic_rc_box_release_full(funcs, funcs_clear);
}

FeedStreamRequest *
feed_stream_request_new(const char *url)
{
	FeedStreamRequest *request;

	g_return_val_if_fail(url != NULL, NULL);
	request = g_new0(FeedStreamRequest, 1);
	request->url = g_strdup(url);
	return request;
}

FeedStreamRequest *
feed_stream_request_copy(const FeedStreamRequest *request)
{
	FeedStreamRequest *copy = g_new0(FeedStreamRequest, 1);

	*copy = *request;
	copy->url = g_strdup(request->url);
	copy->validator = g_strdup(request->validator);
	copy->username = g_strdup(request->username);
	copy->password = g_strdup(request->password);
	if (request->funcs != NULL)
		copy->funcs = g_atomic_rc_box_acquire(request->funcs);
	return copy;
}

/* Empty strings count as none, as a download request's do. */
static void
set_string(char **field, const char *value)
{
	if (*field != NULL)
		memset(*field, 0, strlen(*field));
	g_free(*field);
	*field = value != NULL && *value != '\0' ? g_strdup(value) : NULL;
}

void
feed_stream_request_free(FeedStreamRequest *request)
{
	if (request == NULL)
		return;
	g_free(request->url);
	g_free(request->validator);
	g_free(request->username);
	set_string(&request->password, NULL);
	funcs_release(request->funcs);
	g_free(request);
}

void
feed_stream_request_set_offset(FeedStreamRequest *request, guint64 offset)
{
	g_return_if_fail(request != NULL);
	request->offset = offset;
}

void
feed_stream_request_set_validator(FeedStreamRequest *request,
                                  const char *validator)
{
	g_return_if_fail(request != NULL);
	/* Left out, it would leave the range unconditional. */
	g_return_if_fail(validator == NULL ||
	                 strpbrk(validator, "\r\n") == NULL);
	set_string(&request->validator, validator);
}

void
feed_stream_request_set_max_size(FeedStreamRequest *request, guint64 max_size)
{
	g_return_if_fail(request != NULL);
	request->max_size = max_size;
}

void
feed_stream_request_set_credentials(FeedStreamRequest *request,
                                    const char *username, const char *password)
{
	g_return_if_fail(request != NULL);
	set_string(&request->username, username);
	set_string(&request->password, password);
}

void
feed_stream_request_set_funcs(FeedStreamRequest *request,
                              FeedStreamHeadFunc head, FeedStreamDataFunc data,
                              gpointer user_data, GDestroyNotify notify)
{
	Funcs *funcs;

	g_return_if_fail(request != NULL);
	funcs = g_atomic_rc_box_new0(Funcs);
	funcs->head = head;
	funcs->data = data;
	funcs->user_data = user_data;
	funcs->notify = notify;
	funcs_release(request->funcs);
	request->funcs = funcs;
}

void
feed_stream_head_free(FeedStreamHead *head)
{
	if (head == NULL)
		return;
	g_free(head->validator);
	g_free(head->content_type);
	g_free(head->url);
	g_free(head);
}

guint
feed_stream_head_get_http_status(const FeedStreamHead *head)
{
	g_return_val_if_fail(head != NULL, 0);
	return head->http_status;
}

guint64
feed_stream_head_get_offset(const FeedStreamHead *head)
{
	g_return_val_if_fail(head != NULL, 0);
	return head->offset;
}

guint64
feed_stream_head_get_total(const FeedStreamHead *head)
{
	g_return_val_if_fail(head != NULL, 0);
	return head->total;
}

const char *
feed_stream_head_get_validator(const FeedStreamHead *head)
{
	g_return_val_if_fail(head != NULL, NULL);
	return head->validator;
}

gboolean
feed_stream_head_get_ranges(const FeedStreamHead *head)
{
	g_return_val_if_fail(head != NULL, FALSE);
	return head->ranges;
}

const char *
feed_stream_head_get_content_type(const FeedStreamHead *head)
{
	g_return_val_if_fail(head != NULL, NULL);
	return head->content_type;
}

const char *
feed_stream_head_get_url(const FeedStreamHead *head)
{
	g_return_val_if_fail(head != NULL, NULL);
	return head->url;
}
