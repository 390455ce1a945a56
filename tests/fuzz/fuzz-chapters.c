/*
 * A JSON chapters document, as libfeed reads what a podcast:chapters URL
 * serves: whatever the bytes, chapters or an error, never a crash; the
 * chapters sorted, valid UTF-8, links and images http or https only, the
 * jump points exactly the toc ones, and the list written back with
 * to_json read back equal.
 */
#include "fuzz.h"

#include <feed/feed.h>

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init_log();
	return 0;
}

static gboolean
is_web_url(const char *url)
{
	return url == NULL || g_ascii_strncasecmp(url, "http://", 7) == 0 ||
	       g_ascii_strncasecmp(url, "https://", 8) == 0;
}

static void
check_chapter(const FeedChapter *chapter, guint i)
{
	gint64 start = feed_chapter_get_start_ms(chapter);
	gint64 end = feed_chapter_get_end(chapter);

	fuzz_check(start >= 0, "chapter %u starts at %" G_GINT64_FORMAT, i,
	           start);
	fuzz_check(end == -1 || end >= start,
	           "chapter %u ends before it starts", i);
	fuzz_check(feed_chapter_get_start(chapter) == start / 1000,
	           "chapter %u's seconds", i);
	fuzz_check(feed_chapter_get_title(chapter) != NULL,
	           "chapter %u has a NULL title", i);
	fuzz_check_utf8("a title", feed_chapter_get_title(chapter));
	fuzz_check_utf8("a link", feed_chapter_get_href(chapter));
	fuzz_check_utf8("an image", feed_chapter_get_image(chapter));
	fuzz_check(is_web_url(feed_chapter_get_href(chapter)) &&
	                   is_web_url(feed_chapter_get_image(chapter)),
	           "chapter %u has a link or image that is not http(s)", i);
}

static void
check_same(const FeedChapterList *a, const FeedChapterList *b)
{
	guint n = feed_chapter_list_get_n_chapters(a);

	fuzz_check(n == feed_chapter_list_get_n_chapters(b),
	           "to_json read back has %u chapters, not %u",
	           feed_chapter_list_get_n_chapters(b), n);
	for (guint i = 0; i < n; i++) {
		const FeedChapter *x = feed_chapter_list_get_chapter(a, i);
		const FeedChapter *y = feed_chapter_list_get_chapter(b, i);

		fuzz_check(feed_chapter_get_start_ms(x) ==
		                           feed_chapter_get_start_ms(y) &&
		                   feed_chapter_get_end(x) ==
		                           feed_chapter_get_end(y) &&
		                   feed_chapter_is_toc(x) ==
		                           feed_chapter_is_toc(y),
		           "chapter %u's times or toc changed in to_json", i);
		fuzz_check(g_strcmp0(feed_chapter_get_title(x),
		                     feed_chapter_get_title(y)) == 0 &&
		                   g_strcmp0(feed_chapter_get_href(x),
		                             feed_chapter_get_href(y)) == 0 &&
		                   g_strcmp0(feed_chapter_get_image(x),
		                             feed_chapter_get_image(y)) == 0,
		           "chapter %u's text changed in to_json", i);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChapterList) list = feed_chapter_list_new_from_json(
	        (const char *)data, size, &error);
	g_autoptr(FeedChapterList) back = NULL;
	g_autoptr(FeedChapterList) merged = NULL;
	g_autofree char *json = NULL;
	guint n;
	guint jumps = 0;
	gint64 previous = 0;

	fuzz_check((list == NULL) == (error != NULL),
	           "an error and chapters, or neither");
	if (list == NULL) {
		fuzz_check(error->domain == FEED_ERROR &&
		                   (error->code == FEED_ERROR_PARSE ||
		                    error->code == FEED_ERROR_TOO_LARGE),
		           "error %s", error->message);
		fuzz_check_utf8("the error", error->message);
		return 0;
	}
	n = feed_chapter_list_get_n_chapters(list);
	fuzz_check(n <= FEED_CHAPTERS_MAX_CHAPTERS, "%u chapters", n);
	for (guint i = 0; i < n; i++) {
		const FeedChapter *chapter =
		        feed_chapter_list_get_chapter(list, i);

		check_chapter(chapter, i);
		fuzz_check(feed_chapter_get_start_ms(chapter) >= previous,
		           "chapter %u is out of order", i);
		previous = feed_chapter_get_start_ms(chapter);
		if (feed_chapter_is_toc(chapter)) {
			fuzz_check(feed_chapter_list_get_jump(list, jumps) ==
			                   chapter,
			           "jump %u is not chapter %u", jumps, i);
			fuzz_check(feed_chapter_list_find_jump(
			                   list, previous) >= (gint)jumps,
			           "find_jump at chapter %u", i);
			jumps++;
		}
	}
	fuzz_check(jumps == feed_chapter_list_get_n_jumps(list),
	           "%u jumps, not %u", feed_chapter_list_get_n_jumps(list),
	           jumps);
	if (jumps > 0)
		fuzz_check(feed_chapter_list_find_jump(
		                   list, feed_chapter_get_start_ms(
		                                 feed_chapter_list_get_jump(
		                                         list, 0)) -
		                                 1) == -1,
		           "find_jump before the first jump");

	json = feed_chapter_list_to_json(list);
	back = feed_chapter_list_new_from_json(json, strlen(json), &error);
	fuzz_check(back != NULL, "to_json wrote what it cannot read: %s",
	           error->message);
	check_same(list, back);

	merged = feed_chapter_list_merge(list, back);
	check_same(list, merged);
	return 0;
}
