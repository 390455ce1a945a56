/*
 * The push parser fed in pieces, as the fetcher feeds it from the
 * network. The input's first bytes say where the document is cut; the
 * rest is the document. Cutting must change nothing: the pieces give the
 * episodes and the channel that the whole document gives at once. Only
 * where the markup is broken may they differ, as libxml2's recovery from
 * broken markup depends on what it has seen of the input so far.
 */
#include "check-feed.h"

#include <libxml/parser.h>

/* Bytes of the input that choose the cuts, used in turn. */
#define N_CUTS 4

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init_log();
	xmlInitParser();
	return 0;
}

static void
keep_episode(FeedEpisode *episode, gpointer user_data)
{
	g_ptr_array_add(user_data, feed_episode_ref(episode));
}

/*
 * A cut byte below 128 is a piece of that many bytes (0: an empty push,
 * then one byte); from 128 on, of (byte - 127) * 128 bytes, up to 16 KiB.
 */
static gsize
piece_size(guint8 cut)
{
	return cut < 128 ? cut : (gsize)(cut - 127) * 128;
}

static gboolean
feed_in_pieces(FeedParser *parser, const guint8 *cuts, const char *document,
               gsize size, GError **error)
{
	gsize at = 0;

	for (guint i = 0; at < size; i++) {
		gsize piece = piece_size(cuts[i % N_CUTS]);

		if (piece == 0) {
			if (!feed_parser_feed(parser, document + at, 0, error))
				return FALSE;
			piece = 1;
		}
		piece = MIN(piece, size - at);
		if (!feed_parser_feed(parser, document + at, piece, error))
			return FALSE;
		at += piece;
	}
	return TRUE;
}

static void
check_same_string(const char *what, const char *a, const char *b)
{
	fuzz_check(g_strcmp0(a, b) == 0,
	           "%s differs: '%s' in pieces, '%s' whole", what,
	           a != NULL ? a : "(null)", b != NULL ? b : "(null)");
}

static void
check_same_episode(const FeedEpisode *a, const FeedEpisode *b)
{
	check_same_string("guid", feed_episode_get_guid(a),
	                  feed_episode_get_guid(b));
	check_same_string("title", feed_episode_get_title(a),
	                  feed_episode_get_title(b));
	check_same_string("link", feed_episode_get_link(a),
	                  feed_episode_get_link(b));
	check_same_string("description", feed_episode_get_description(a),
	                  feed_episode_get_description(b));
	fuzz_check(feed_episode_get_published(a) ==
	                   feed_episode_get_published(b),
	           "published differs");
	fuzz_check(feed_episode_get_total_time(a) ==
	                   feed_episode_get_total_time(b),
	           "total time differs");
	fuzz_check(feed_episode_get_n_enclosures(a) ==
	                   feed_episode_get_n_enclosures(b),
	           "number of enclosures differs");
	for (guint i = 0; i < feed_episode_get_n_enclosures(a); i++)
		check_same_string("enclosure url",
		                  feed_enclosure_get_url(
		                          feed_episode_get_enclosure(a, i)),
		                  feed_enclosure_get_url(
		                          feed_episode_get_enclosure(b, i)));
}

/*
 * A document that nearly reaches the entity cap passes or not by where it
 * is cut: the cap grows with the bytes read so far.
 */
static gboolean
hit_entity_limit(const GError *error)
{
	return g_error_matches(error, FEED_ERROR, FEED_ERROR_ENTITY_LIMIT);
}

static void
on_xml_error(void *ctx, xmlErrorPtr error)
{
	gboolean *sound = ((xmlParserCtxtPtr)ctx)->_private;

	/* Bytes that are not UTF-8 and unbound prefixes leave the markup. */
	if (error->level == XML_ERR_WARNING ||
	    error->domain == XML_FROM_NAMESPACE ||
	    error->code == XML_ERR_INVALID_CHAR)
		return;
	*sound = FALSE;
}

/* Whether libxml2 finds the markup well-formed, loading nothing. */
static gboolean
markup_is_sound(const char *document, gsize length)
{
	xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
	gboolean sound = TRUE;
	xmlDocPtr doc;

	g_assert(ctxt != NULL);
	ctxt->_private = &sound;
	ctxt->sax->serror = on_xml_error;
	doc = xmlCtxtReadMemory(ctxt, document, (int)length, NULL, NULL,
	                        XML_PARSE_RECOVER | XML_PARSE_NONET);
	xmlFreeDoc(doc);
	xmlFreeParserCtxt(ctxt);
	return sound;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(GPtrArray) episodes = g_ptr_array_new_with_free_func(
	        (GDestroyNotify)feed_episode_unref);
	g_autoptr(FeedParser) parser = NULL;
	g_autoptr(FeedChannel) channel = NULL;
	g_autoptr(FeedChannel) whole = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GError) whole_error = NULL;
	const char *document = (const char *)data + N_CUTS;
	gsize length;

	if (size < N_CUTS)
		return 0;
	length = size - N_CUTS;
	parser = feed_parser_new(FUZZ_BASE_URL, keep_episode, episodes);
	if (feed_in_pieces(parser, data, document, length, &error))
		channel = feed_parser_finish(parser, &error);
	whole = feed_channel_new_from_data(document, length, FUZZ_BASE_URL,
	                                   &whole_error);
	if (channel == NULL) {
		fuzz_check_feed_error(error);
	} else {
		fuzz_check(error == NULL, "error set on success");
		fuzz_check_channel(channel);
		for (guint i = 0; i < episodes->len; i++)
			fuzz_check_episode(episodes->pdata[i]);
	}

	if (hit_entity_limit(error) || hit_entity_limit(whole_error) ||
	    !markup_is_sound(document, length))
		return 0;
	fuzz_check((channel == NULL) == (whole == NULL),
	           "in pieces: %s; whole: %s",
	           error != NULL ? error->message : "parsed",
	           whole_error != NULL ? whole_error->message : "parsed");
	if (channel == NULL) {
		fuzz_check(error->code == whole_error->code,
		           "in pieces: %s; whole: %s", error->message,
		           whole_error->message);
		return 0;
	}
	check_same_string("channel title", feed_channel_get_title(channel),
	                  feed_channel_get_title(whole));
	check_same_string("channel link", feed_channel_get_link(channel),
	                  feed_channel_get_link(whole));
	fuzz_check(feed_channel_get_format(channel) ==
	                   feed_channel_get_format(whole),
	           "format differs");
	fuzz_check(episodes->len == feed_channel_get_n_episodes(whole),
	           "%u episodes in pieces, %u whole", episodes->len,
	           feed_channel_get_n_episodes(whole));
	for (guint i = 0; i < episodes->len; i++)
		check_same_episode(episodes->pdata[i],
		                   feed_channel_get_episode(whole, i));
	return 0;
}
