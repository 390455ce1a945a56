/*
 * Recovery that loses nothing, as a differential test: a document that
 * parses without a problem, and the same document behind a harmless
 * defect (a newline before <?xml, an undefined entity or a stray end tag
 * right inside the channel), give the same channel and episodes. Only
 * such documents are compared: in one that has problems, where a defect
 * lands, and so what it may cost, is not known.
 */
#include "check-feed.h"

#include <libxml/parser.h>

/* Deeper than this, libxml2's stacks may have to grow (see parser.c). */
#define MAX_DEFECT_DEPTH 8

static void
dump_episode(GString *out, const FeedEpisode *e)
{
	g_string_append_printf(
	        out,
	        "episode guid=%s title=%s link=%s\n desc=%s\n html=%s\n"
	        " published=%" G_GINT64_FORMAT " time=%" G_GINT64_FORMAT
	        " number=%" G_GINT64_FORMAT " season=%" G_GINT64_FORMAT
	        " type=%d explicit=%d block=%d\n subtitle=%s author=%s"
	        " image=%s chapters=%s payment=%s\n",
	        feed_episode_get_guid(e), feed_episode_get_title(e),
	        feed_episode_get_link(e), feed_episode_get_description(e),
	        feed_episode_get_description_html(e),
	        feed_episode_get_published(e), feed_episode_get_total_time(e),
	        feed_episode_get_number(e), feed_episode_get_season(e),
	        (int)feed_episode_get_episode_type(e),
	        (int)feed_episode_get_explicit(e),
	        (int)feed_episode_get_block(e), feed_episode_get_subtitle(e),
	        feed_episode_get_itunes_author(e),
	        feed_episode_get_image_url(e), feed_episode_get_chapters_url(e),
	        feed_episode_get_payment_url(e));
	for (guint i = 0; i < feed_episode_get_n_enclosures(e); i++) {
		const FeedEnclosure *enc = feed_episode_get_enclosure(e, i);

		g_string_append_printf(
		        out, " enclosure %s %s %" G_GINT64_FORMAT "\n",
		        feed_enclosure_get_url(enc),
		        feed_enclosure_get_mime_type(enc),
		        feed_enclosure_get_file_size(enc));
	}
	for (guint i = 0; i < feed_episode_get_n_chapters(e); i++) {
		const FeedChapter *c = feed_episode_get_chapter(e, i);

		g_string_append_printf(
		        out, " chapter %" G_GINT64_FORMAT " %s %s %s\n",
		        feed_chapter_get_start(c), feed_chapter_get_title(c),
		        feed_chapter_get_href(c), feed_chapter_get_image(c));
	}
	g_string_append_printf(out, " transcripts=%u persons=%u\n",
	                       feed_episode_get_n_transcripts(e),
	                       feed_episode_get_n_persons(e));
}

static char *
dump(const FeedChannel *c)
{
	GString *out = g_string_new(NULL);

	g_string_append_printf(
	        out,
	        "channel format=%d title=%s link=%s author=%s image=%s "
	        "language=%s new=%s generator=%s\n desc=%s\n",
	        (int)feed_channel_get_format(c), feed_channel_get_title(c),
	        feed_channel_get_link(c), feed_channel_get_author(c),
	        feed_channel_get_image_url(c), feed_channel_get_language(c),
	        feed_channel_get_new_url(c), feed_channel_get_generator(c),
	        feed_channel_get_description(c));
	for (guint i = 0; i < feed_channel_get_n_episodes(c); i++)
		dump_episode(out, feed_channel_get_episode(c, i));
	return g_string_free(out, FALSE);
}

/* Skips from @p past @close; the end if there is none. */
static const char *
skip_past(const char *p, const char *end, const char *close)
{
	gsize n = strlen(close);

	for (; p + n <= end; p++) {
		if (memcmp(p, close, n) == 0)
			return p + n;
	}
	return end;
}

static gboolean
is_name_char(char c)
{
	return g_ascii_isalnum(c) || c == '_' || c == '-' || c == '.' ||
	       c == ':' || (guchar)c >= 0x80;
}

/* The end of the tag that starts at @p, past quoted values; NULL if none. */
static const char *
tag_end(const char *p, const char *end)
{
	char quote = 0;

	for (; p < end; p++) {
		if (quote != 0) {
			if (*p == quote)
				quote = 0;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (*p == '>') {
			return p;
		}
	}
	return NULL;
}

/*
 * The offset just after the start tag of the first element whose local
 * name is channel or feed, outside comments, CDATA, processing
 * instructions and the DOCTYPE, in a document without problems; -1 if
 * there is none, it is empty, or it is nested deep.
 */
static gssize
after_channel_start(const char *data, gsize size)
{
	const char *p = data;
	const char *end = data + size;
	int depth = 0;

	while ((p = memchr(p, '<', end - p)) != NULL) {
		const char *q = p + 1;
		const char *local = q;
		const char *gt;
		gboolean closing = q < end && *q == '/';

		if (end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
			p = skip_past(p + 4, end, "-->");
			continue;
		}
		if (end - p >= 9 && memcmp(p, "<![CDATA[", 9) == 0) {
			p = skip_past(p + 9, end, "]]>");
			continue;
		}
		if (end - p >= 2 && p[1] == '?') {
			p = skip_past(p + 2, end, "?>");
			continue;
		}
		if (end - p >= 2 && p[1] == '!') {
			const char *subset = memchr(p, '[', end - p);

			gt = memchr(p, '>', end - p);
			if (subset != NULL && gt != NULL && subset < gt)
				p = skip_past(subset, end, "]>");
			else
				p = gt != NULL ? gt + 1 : end;
			continue;
		}
		if (closing)
			local = ++q;
		while (q < end && is_name_char(*q)) {
			if (*q == ':')
				local = q + 1;
			q++;
		}
		gt = tag_end(q, end);
		if (gt == NULL)
			return -1;
		p = gt + 1;
		if (closing) {
			depth--;
			continue;
		}
		if (gt[-1] == '/')
			continue;
		depth++;
		if ((q - local == 7 && memcmp(local, "channel", 7) == 0) ||
		    (q - local == 4 && memcmp(local, "feed", 4) == 0))
			return depth <= MAX_DEFECT_DEPTH ? gt + 1 - data : -1;
	}
	return -1;
}

/* Parses @data, which has @defect at @at, and compares it with @clean. */
static void
check_defect(const uint8_t *data, size_t size, gsize at, const char *defect,
             const char *clean)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;
	g_autofree char *recovered = NULL;
	GByteArray *bytes = g_byte_array_sized_new(size + strlen(defect));

	g_byte_array_append(bytes, data, at);
	g_byte_array_append(bytes, (const guint8 *)defect, strlen(defect));
	g_byte_array_append(bytes, data + at, size - at);
	channel = feed_channel_new_from_data((const char *)bytes->data,
	                                     bytes->len, FUZZ_BASE_URL, &error);
	g_byte_array_unref(bytes);
	fuzz_check(channel != NULL, "with %s at byte %zu: %s", defect,
	           (size_t)at, error->message);
	fuzz_check_channel(channel);
	fuzz_check(feed_channel_get_errors(channel) != NULL &&
	                   feed_channel_get_errors(channel)[0] != NULL,
	           "%s at byte %zu: no error listed", defect, (size_t)at);
	recovered = dump(channel);
	fuzz_check(strcmp(clean, recovered) == 0,
	           "%s at byte %zu changed the result:\n%s\n---\n%s", defect,
	           (size_t)at, clean, recovered);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init_log();
	xmlInitParser();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = feed_channel_new_from_data(
	        (const char *)data, size, FUZZ_BASE_URL, &error);
	g_autofree char *clean = NULL;
	const char *const *errors;
	gssize at;

	if (channel == NULL)
		return 0;
	errors = feed_channel_get_errors(channel);
	if (errors != NULL && errors[0] != NULL)
		return 0;
	clean = dump(channel);
	if (size > 6 && memcmp(data, "<?xml", 5) == 0 &&
	    g_ascii_isspace(data[5]))
		check_defect(data, size, 0, "\n", clean);
	at = after_channel_start((const char *)data, size);
	if (at < 0)
		return 0;
	check_defect(data, size, at, "&undefined-entity-25;", clean);
	check_defect(data, size, at, "</stray>", clean);
	return 0;
}
