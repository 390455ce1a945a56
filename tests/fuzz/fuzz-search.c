/*
 * A podcast directory's answer, as mpd-bridge reads it for `search`: for
 * either directory, whatever the bytes, a list of results or an error,
 * never a crash; each result has an http or https feed URL, and no
 * control character reaches a terminal or MPD.
 */
#include "fuzz.h"

#include "feeds/search.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init_log();
	return 0;
}

static gboolean
has_control(const char *text)
{
	for (const char *p = text; p != NULL && *p != '\0';
	     p = g_utf8_next_char(p))
		if (g_unichar_iscntrl(g_utf8_get_char(p)))
			return TRUE;
	return FALSE;
}

static void
check(BridgeSearchDirectory directory, const uint8_t *data, size_t size)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) results = bridge_search_parse(
	        directory, (const char *)data, size, &error);

	fuzz_check((results == NULL) == (error != NULL),
	           "an error and results, or neither");
	if (results == NULL) {
		fuzz_check(g_error_matches(error, BRIDGE_SEARCH_ERROR,
		                           BRIDGE_SEARCH_ERROR_BAD_ANSWER),
		           "error %s", error->message);
		fuzz_check_utf8("the error", error->message);
		return;
	}
	for (guint i = 0; i < results->len; i++) {
		const BridgeSearchResult *result = results->pdata[i];

		fuzz_check(bridge_search_is_feed_url(result->feed_url),
		           "result %u's feed URL is '%s'", i, result->feed_url);
		fuzz_check_utf8("a title", result->title);
		fuzz_check_utf8("an author", result->author);
		fuzz_check(!has_control(result->title) &&
		                   !has_control(result->author),
		           "result %u has a control character", i);
		fuzz_check(result->episodes >= -1, "episodes %" G_GINT64_FORMAT,
		           result->episodes);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(BRIDGE_SEARCH_ITUNES, data, size);
	check(BRIDGE_SEARCH_PODCASTINDEX, data, size);
	return 0;
}
