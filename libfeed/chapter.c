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

gint64
feed_chapter_get_start(const FeedChapter *chapter)
{
	g_return_val_if_fail(chapter != NULL, 0);
	return chapter->start;
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
