/*
 * Streams: the request and head objects (stream-request.c) and one stream
 * on the fetcher (stream.c).
 */
#ifndef FEED_STREAM_PRIVATE_H
#define FEED_STREAM_PRIVATE_H

#include "feed/stream.h"
#include "fetcher-private.h"

/* The caller's functions, shared by a request and its copies. */
typedef struct {
	FeedStreamHeadFunc head; /* NULL for none */
	FeedStreamDataFunc data; /* NULL: the body is dropped */
	gpointer user_data;
	GDestroyNotify notify; /* NULL for none */
} Funcs;

struct FeedStreamRequest {
	char *url;
	guint64 offset;   /* bytes; 0: the whole file, no Range */
	char *validator;  /* for If-Range; NULL for none */
	guint64 max_size; /* bytes; 0 means the default */
	char *username;   /* NULL for no credentials */
	char *password;   /* NULL for none */
	Funcs *funcs;     /* an atomic reference-counted box; NULL: none */
};

struct FeedStreamHead {
	guint http_status;
	guint64 offset;     /* byte of the file the body starts at */
	guint64 total;      /* bytes of the whole file; 0 when unknown */
	char *validator;    /* NULL when none */
	gboolean ranges;    /* the server takes byte ranges */
	char *content_type; /* NULL when none */
	char *url;
};

G_GNUC_INTERNAL
FeedStreamRequest *
feed_stream_request_copy(const FeedStreamRequest *request);

G_GNUC_INTERNAL
void
feed_stream_head_free(FeedStreamHead *head);

#endif
