#include "episode-private.h"

void
feed_chapter_free(FeedChapter *chapter)
{
	if (chapter == NULL)
		return;
	g_free(chapter->title);
	g_free(chapter->href);
	g_free(chapter->image);
	g_free(chapter);
}

FeedChapter *
feed_chapter_copy(const FeedChapter *chapter)
{
	FeedChapter *copy = g_new0(FeedChapter, 1);

	copy->start = chapter->start;
	copy->end = chapter->end;
	copy->title = g_strdup(chapter->title);
	copy->href = g_strdup(chapter->href);
	copy->image = g_strdup(chapter->image);
	copy->toc = chapter->toc;
	return copy;
}

gint64
feed_chapter_get_start(const FeedChapter *chapter)
{
	g_return_val_if_fail(chapter != NULL, 0);
	return chapter->start / 1000;
}

gint64
feed_chapter_get_start_ms(const FeedChapter *chapter)
{
	g_return_val_if_fail(chapter != NULL, 0);
	return chapter->start;
}

gint64
feed_chapter_get_end(const FeedChapter *chapter)
{
	g_return_val_if_fail(chapter != NULL, -1);
	return chapter->end;
}

gboolean
feed_chapter_is_toc(const FeedChapter *chapter)
{
	g_return_val_if_fail(chapter != NULL, FALSE);
	return chapter->toc;
}

const char *
feed_chapter_get_title(const FeedChapter *chapter)
{
	g_return_val_if_fail(chapter != NULL, NULL);
	return chapter->title;
}

const char *
feed_chapter_get_href(const FeedChapter *chapter)
{
	g_return_val_if_fail(chapter != NULL, NULL);
	return chapter->href;
}

const char *
feed_chapter_get_image(const FeedChapter *chapter)
{
	g_return_val_if_fail(chapter != NULL, NULL);
	return chapter->image;
}
