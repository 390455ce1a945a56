#include "episode-private.h"

void
feed_enclosure_free(FeedEnclosure *enclosure)
{
	if (enclosure == NULL)
		return;
	g_free(enclosure->url);
	g_free(enclosure->mime_type);
	g_free(enclosure);
}

void
feed_alternate_enclosure_free(FeedAlternateEnclosure *alternate)
{
	if (alternate == NULL)
		return;
	g_free(alternate->mime_type);
	g_free(alternate->title);
	g_ptr_array_unref(alternate->sources);
	g_free(alternate);
}

const char *
feed_enclosure_get_url(const FeedEnclosure *enclosure)
{
	g_return_val_if_fail(enclosure != NULL, NULL);
	return enclosure->url;
}

const char *
feed_enclosure_get_mime_type(const FeedEnclosure *enclosure)
{
	g_return_val_if_fail(enclosure != NULL, NULL);
	return enclosure->mime_type;
}

gint64
feed_enclosure_get_file_size(const FeedEnclosure *enclosure)
{
	g_return_val_if_fail(enclosure != NULL, -1);
	return enclosure->file_size;
}

const char *
feed_alternate_enclosure_get_mime_type(const FeedAlternateEnclosure *alternate)
{
	g_return_val_if_fail(alternate != NULL, NULL);
	return alternate->mime_type;
}

gint64
feed_alternate_enclosure_get_file_size(const FeedAlternateEnclosure *alternate)
{
	g_return_val_if_fail(alternate != NULL, -1);
	return alternate->file_size;
}

double
feed_alternate_enclosure_get_bitrate(const FeedAlternateEnclosure *alternate)
{
	g_return_val_if_fail(alternate != NULL, 0);
	return alternate->bitrate;
}

const char *
feed_alternate_enclosure_get_title(const FeedAlternateEnclosure *alternate)
{
	g_return_val_if_fail(alternate != NULL, NULL);
	return alternate->title;
}

gboolean
feed_alternate_enclosure_is_default(const FeedAlternateEnclosure *alternate)
{
	g_return_val_if_fail(alternate != NULL, FALSE);
	return alternate->is_default;
}

guint
feed_alternate_enclosure_get_n_sources(const FeedAlternateEnclosure *alternate)
{
	g_return_val_if_fail(alternate != NULL, 0);
	return alternate->sources->len;
}

const char *
feed_alternate_enclosure_get_source(const FeedAlternateEnclosure *alternate,
                                    guint index)
{
	g_return_val_if_fail(alternate != NULL, NULL);
	g_return_val_if_fail(index < alternate->sources->len, NULL);
	return g_ptr_array_index(alternate->sources, index);
}
