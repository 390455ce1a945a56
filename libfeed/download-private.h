/*
 * Downloads: the request and result objects (download-request.c), one
 * download on the fetcher (download.c), whether a response carries audio
 * (download-check.c) and the partial file (partial.c).
 */
#ifndef FEED_DOWNLOAD_PRIVATE_H
#define FEED_DOWNLOAD_PRIVATE_H

#include "feed/download.h"
#include "fetcher-private.h"

/* The progress function, shared by a request and its copies. */
typedef struct {
	gatomicrefcount ref;
	FeedDownloadProgressFunc func;
	gpointer data;
	GDestroyNotify notify; /* NULL for none */
} Progress;

struct FeedDownloadRequest {
	char *url;
	char *path;
	guint64 max_size; /* bytes; 0 means the default */
	FeedFetchFlags flags;
	char *username;     /* NULL for no credentials */
	char *password;     /* NULL for none */
	Progress *progress; /* NULL for none */
};

struct FeedDownloadResult {
	gatomicrefcount ref;
	char *url;
	char *final_url;
	char *path;
	char *content_type; /* NULL when the server named none */
	guint64 size;       /* bytes of the file, or of the partial file */
	gboolean resumed;
	guint http_status; /* 0 when no response came */
};

G_GNUC_INTERNAL
FeedDownloadRequest *
feed_download_request_copy(const FeedDownloadRequest *request);

G_GNUC_INTERNAL
FeedDownloadResult *
feed_download_result_new(const char *url, const char *path);

/* download.c */

/* A download, for feed_fetcher_add_job(). */
G_GNUC_INTERNAL
Job *
feed_download_new(FeedFetcher *fetcher, const FeedDownloadRequest *request,
                  GCancellable *cancellable, FeedDownloadFunc callback,
                  gpointer user_data);

/* download-check.c: whether a response carries audio. */

/*
 * Tells whether a body that starts with @data looks like a web page:
 * `<!DOCTYPE html` or `<html`, in any case, after white space and a
 * byte-order mark.
 */
G_GNUC_INTERNAL
gboolean
feed_download_looks_like_html(const char *data, gsize length);

/* Tells whether a Content-Type (nullable) is text/anything. */
G_GNUC_INTERNAL
gboolean
feed_download_is_text_type(const char *content_type);

/* partial.c: PATH.part and PATH.part.info. */

/* What PATH.part.info says of the partial file. */
typedef struct {
	char *url;       /* the URL it was downloaded from */
	char *validator; /* for If-Range */
	guint64 total;   /* the whole file's size; 0 when unknown */
} PartialInfo;

/* The partial file of a download, and its note. */
typedef struct {
	char *path;      /* PATH, where the whole file goes */
	char *part_path; /* PATH.part */
	char *info_path; /* PATH.part.info */
	int fd;          /* PATH.part open to write; -1 when not */
	guint64 size;    /* bytes in PATH.part (as far as it was looked at) */
	guint64 flushed; /* bytes handed to the disk's writeback; 0: none */
} Partial;

G_GNUC_INTERNAL
void
feed_partial_info_clear(PartialInfo *info);

G_GNUC_INTERNAL
void
feed_partial_init(Partial *partial, const char *path);

/* Closes PATH.part, keeping it, and frees the names. */
G_GNUC_INTERNAL
void
feed_partial_clear(Partial *partial);

/*
 * Looks for bytes of @url to resume: TRUE, with @info filled in and the
 * partial's size set, when PATH.part.info names @url and a validator and
 * PATH.part holds bytes, no more than the total. Neither is followed as a
 * link.
 */
G_GNUC_INTERNAL
gboolean
feed_partial_find(Partial *partial, const char *url, PartialInfo *info);

/*
 * Opens PATH.part to write from byte @keep, creating it with mode 0644. A
 * symbolic link there is removed, not followed; anything else that is not
 * a regular file fails. From byte 0, the old note is removed first, so
 * that no note vouches for bytes of another version, and @info (nullable)
 * is written as the new one once the file is empty. FALSE with @error set
 * (a G_IO_ERROR whose message names the path; G_IO_ERROR_INVALID_DATA
 * when PATH.part holds fewer than @keep bytes).
 */
G_GNUC_INTERNAL
gboolean
feed_partial_open(Partial *partial, guint64 keep, const PartialInfo *info,
                  GError **error);

/* Appends to PATH.part; FALSE with @error set (a G_IO_ERROR). */
G_GNUC_INTERNAL
gboolean
feed_partial_write(Partial *partial, const char *data, gsize length,
                   GError **error);

/*
 * Flushes PATH.part to the disk, closes it and renames it to PATH, over a
 * link there if there is one; the note goes. FALSE with @error set.
 */
G_GNUC_INTERNAL
gboolean
feed_partial_commit(Partial *partial, GError **error);

/* Closes PATH.part, keeping it and its note for a later resume. */
G_GNUC_INTERNAL
void
feed_partial_close(Partial *partial);

/* Closes and removes PATH.part and its note. */
G_GNUC_INTERNAL
void
feed_partial_discard(Partial *partial);

#endif
