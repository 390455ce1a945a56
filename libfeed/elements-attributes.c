/*
 * What the start of an element gives from its attributes: enclosures and
 * their alternates, links, images, categories, chapters, transcripts and
 * languages, a new item, and the attributes a text element keeps for its
 * end (parser->pending).
 */
#include "duration-private.h"
#include "elements-private.h"
#include "url-private.h"

/* An attribute holding a URL, resolved against the in-scope base. */
static char *
url_attribute(FeedParser *parser, const Attributes *attrs, Namespace ns,
              const char *name, const Frame *frame)
{
	g_autofree char *value =
	        feed_parser_dup_attribute(parser, attrs, ns, name);

	return value != NULL ? feed_url_resolve(frame->base, value) : NULL;
}

/* `length` and `fileSize`: bytes, -1 when missing, zero or not a number. */
static gint64
file_size(const char *text)
{
	gint64 value;

	if (text == NULL || !feed_text_parse_int(text, &value) || value <= 0)
		return -1;
	return value;
}

static char *
mime_type(const char *text)
{
	g_autofree char *type = text != NULL ? trim(text) : NULL;

	if (type == NULL || strchr(type, '/') == NULL)
		return g_strdup("application/octet-stream");
	return g_steal_pointer(&type);
}

static void
add_enclosure(FeedParser *parser, const char *url, const char *type,
              const char *length, const Frame *frame)
{
	g_autofree char *resolved = NULL;
	FeedEnclosure *enclosure;

	/* An empty URL after trimming counts as no URL at all. */
	resolved = url != NULL ? feed_url_resolve(frame->base, url) : NULL;
	if (resolved == NULL)
		return;
	enclosure = g_new0(FeedEnclosure, 1);
	enclosure->url = feed_url_normalize(resolved);
	enclosure->mime_type = mime_type(type);
	enclosure->file_size = file_size(length);
	feed_ptr_array_add(&parser->episode->enclosures, enclosure,
	                   (GDestroyNotify)feed_enclosure_free);
}

static void
start_enclosure(FeedParser *parser, const Attributes *attrs, Namespace ns,
                const char *url_name, const char *length_name,
                const Frame *frame)
{
	Namespace attr_ns = ns == NS_ENC ? NS_ENC : NS_CORE;
	g_autofree char *url = feed_parser_dup_attribute(
	        parser, attrs, ns == NS_ENC ? NS_RDF : NS_CORE, url_name);
	g_autofree char *type =
	        feed_parser_dup_attribute(parser, attrs, attr_ns, "type");
	g_autofree char *length =
	        feed_parser_dup_attribute(parser, attrs, attr_ns, length_name);

	add_enclosure(parser, url, type, length, frame);
}

/* Trims @type in place. */
static gboolean
is_xhtml_type(char *type)
{
	return NAME_IS(g_strstrip(type), "application/xhtml+xml");
}

static void
start_channel_atom_link(FeedParser *parser, const Attributes *attrs,
                        const Frame *frame)
{
	FeedChannel *channel = parser->channel;
	g_autofree char *rel = attribute(parser, attrs, "rel");
	g_autofree char *type = attribute(parser, attrs, "type");
	char *href = url_attribute(parser, attrs, NS_CORE, "href", frame);
	const char *r = rel != NULL ? g_strstrip(rel) : "alternate";

	if (href == NULL)
		return;
	if (NAME_IS(r, "first"))
		replace(&channel->first_page_url, href);
	else if (NAME_IS(r, "next"))
		replace(&channel->next_page_url, href);
	else if (NAME_IS(r, "payment"))
		replace(&channel->payment_url, href);
	else if ((NAME_IS(r, "alternate") || NAME_IS(r, "self")) &&
	         ((type != NULL && NAME_IS(g_strstrip(type), "text/html")) ||
	          (type == NULL && channel->format == FEED_FORMAT_ATOM)))
		replace(&channel->link, href);
	else if (NAME_IS(r, "alternate") &&
	         (type == NULL || is_xhtml_type(type)))
		replace(&parser->channel_scratch.link, href);
	else if (NAME_IS(r, "self") && channel->self_url == NULL)
		channel->self_url = href;
	else if (NAME_IS(r, "hub") && channel->hub_url == NULL)
		channel->hub_url = href;
	else
		g_free(href);
}

static void
start_item_atom_link(FeedParser *parser, const Attributes *attrs,
                     const Frame *frame)
{
	FeedEpisode *episode = parser->episode;
	g_autofree char *rel = attribute(parser, attrs, "rel");
	g_autofree char *type = attribute(parser, attrs, "type");
	g_autofree char *href = attribute(parser, attrs, "href");
	const char *r = rel != NULL ? g_strstrip(rel) : "alternate";

	if (NAME_IS(r, "enclosure")) {
		g_autofree char *length = attribute(parser, attrs, "length");

		add_enclosure(parser, href, type, length, frame);
		return;
	}
	if (href == NULL)
		return;
	if (NAME_IS(r, "payment")) {
		replace(&episode->payment_url,
		        feed_url_resolve(frame->base, href));
	} else if ((NAME_IS(r, "alternate") || NAME_IS(r, "self")) &&
	           (type == NULL || NAME_IS(g_strstrip(type), "text/html")) &&
	           (episode->link == NULL || *episode->link == '\0')) {
		replace(&episode->link, feed_url_resolve(frame->base, href));
	} else if (NAME_IS(r, "alternate") && type != NULL &&
	           is_xhtml_type(type) && parser->item.link == NULL) {
		parser->item.link = feed_url_resolve(frame->base, href);
	}
}

static void
start_item(FeedParser *parser, const Attributes *attrs)
{
	g_clear_pointer(&parser->episode, feed_episode_unref);
	parser->episode = feed_episode_new();
	feed_parser_clear_item_scratch(&parser->item);
	if (parser->channel->format == FEED_FORMAT_RSS1) {
		char *about = feed_parser_dup_attribute(parser, attrs, NS_RDF,
		                                        "about");

		replace_unless_empty(&parser->episode->guid, about);
	}
}

static void
start_category(FeedParser *parser, const Attributes *attrs)
{
	GPtrArray *categories = parser->channel->categories;
	g_autofree char *text = attribute(parser, attrs, "text");
	char **path;
	guint n;

	parser->category_depth++;
	if (parser->category_depth == 1) {
		path = g_new0(char *, 2);
		path[0] = text != NULL ? trim(text) : g_strdup("");
		g_ptr_array_add(categories, path);
		return;
	}
	/* Like podcastparser: two levels below the top, empty ones skipped. */
	if (parser->category_depth > 3 || categories->len == 0 || text == NULL)
		return;
	path = g_ptr_array_index(categories, categories->len - 1);
	n = g_strv_length(path);
	path = g_renew(char *, path, n + 2);
	path[n] = trim(text);
	path[n + 1] = NULL;
	if (*path[n] == '\0') {
		g_free(path[n]);
		path[n] = NULL;
	}
	g_ptr_array_index(categories, categories->len - 1) = path;
}

static void
start_chapter(FeedParser *parser, const Attributes *attrs, const Frame *frame)
{
	g_autofree char *start = attribute(parser, attrs, "start");
	g_autofree char *title = attribute(parser, attrs, "title");
	g_autofree char *href = NULL;
	g_autofree char *image = NULL;
	FeedChapter *chapter;

	if (start == NULL || title == NULL)
		return;
	href = url_attribute(parser, attrs, NS_CORE, "href", frame);
	image = url_attribute(parser, attrs, NS_CORE, "image", frame);
	chapter = g_new0(FeedChapter, 1);
	chapter->start = feed_duration_parse_ms(start);
	chapter->end = -1;
	chapter->toc = TRUE;
	chapter->title = g_steal_pointer(&title);
	chapter->href = g_steal_pointer(&href);
	chapter->image = g_steal_pointer(&image);
	feed_ptr_array_add(&parser->episode->chapters, chapter,
	                   (GDestroyNotify)feed_chapter_free);
}

static void
start_transcript(FeedParser *parser, const Attributes *attrs,
                 const Frame *frame)
{
	char *url = url_attribute(parser, attrs, NS_CORE, "url", frame);
	FeedTranscript *transcript;

	if (url == NULL)
		return;
	transcript = g_new0(FeedTranscript, 1);
	transcript->url = url;
	transcript->mime_type = attribute(parser, attrs, "type");
	transcript->language = attribute(parser, attrs, "language");
	transcript->rel = attribute(parser, attrs, "rel");
	feed_ptr_array_add(&parser->episode->transcripts, transcript,
	                   (GDestroyNotify)feed_transcript_free);
}

static void
start_alternate(FeedParser *parser, const Attributes *attrs)
{
	FeedAlternateEnclosure *alternate = g_new0(FeedAlternateEnclosure, 1);
	g_autofree char *length = attribute(parser, attrs, "length");
	g_autofree char *bitrate = attribute(parser, attrs, "bitrate");
	g_autofree char *is_default = attribute(parser, attrs, "default");

	alternate->mime_type = attribute(parser, attrs, "type");
	alternate->file_size = file_size(length);
	alternate->bitrate =
	        bitrate != NULL ? g_ascii_strtod(bitrate, NULL) : 0.0;
	if (!(alternate->bitrate > 0.0))
		alternate->bitrate = 0.0;
	alternate->title = attribute(parser, attrs, "title");
	alternate->is_default = feed_text_parse_bool(is_default) == 1;
	alternate->sources = g_ptr_array_new_with_free_func(g_free);
	g_clear_pointer(&parser->alternate, feed_alternate_enclosure_free);
	parser->alternate = alternate;
}

static void
start_alternate_source(FeedParser *parser, const Attributes *attrs,
                       const Frame *frame)
{
	g_autofree char *uri =
	        url_attribute(parser, attrs, NS_CORE, "uri", frame);

	if (parser->alternate != NULL && uri != NULL)
		g_ptr_array_add(parser->alternate->sources,
		                feed_url_normalize(uri));
}

/*
 * itunes:image: `href` as Apple specifies, else `url`, a common mistake,
 * which counts only when no other image is given. @fallback is the
 * channel's or the item's scratch.
 */
static void
start_itunes_image(FeedParser *parser, const Attributes *attrs,
                   const Frame *frame, char **field, char **fallback)
{
	char *href = url_attribute(parser, attrs, NS_CORE, "href", frame);

	if (href != NULL) {
		replace(field, href);
		return;
	}
	replace_unless_empty(
	        fallback, url_attribute(parser, attrs, NS_CORE, "url", frame));
}

/* itunes:link rel="image", the form of Apple's first specification. */
static void
start_itunes_link(FeedParser *parser, const Attributes *attrs,
                  const Frame *frame, char **fallback)
{
	g_autofree char *rel = attribute(parser, attrs, "rel");

	if (rel == NULL || !NAME_IS(g_strstrip(rel), "image"))
		return;
	replace_unless_empty(
	        fallback, url_attribute(parser, attrs, NS_CORE, "href", frame));
}

/* xml:lang, with `en_US` written as `en-US`. */
static char *
xml_lang(FeedParser *parser, const Attributes *attrs)
{
	g_autofree char *value =
	        feed_parser_dup_attribute(parser, attrs, NS_XML, "lang");
	char *lang;

	if (value == NULL)
		return NULL;
	lang = squash(value);
	g_strdelimit(lang, "_", '-');
	return lang;
}

/* Attributes that a text element needs at its end go to parser->pending. */
static void
keep_pending(FeedParser *parser, const Attributes *attrs, const char *a,
             const char *b, const char *c, const char *d)
{
	Pending *pending = &parser->pending;

	replace(&pending->a, a != NULL ? attribute(parser, attrs, a) : NULL);
	replace(&pending->b, b != NULL ? attribute(parser, attrs, b) : NULL);
	replace(&pending->c, c != NULL ? attribute(parser, attrs, c) : NULL);
	replace(&pending->d, d != NULL ? attribute(parser, attrs, d) : NULL);
}

void
feed_parser_start_role(FeedParser *parser, Role role, const Frame *frame,
                       const Attributes *attrs)
{
	FeedChannel *channel = parser->channel;
	FeedEpisode *episode = parser->episode;

	switch (role) {
	case ROLE_RSS:
	case ROLE_RDF:
		replace(&parser->channel_scratch.root_lang,
		        xml_lang(parser, attrs));
		break;
	case ROLE_CHANNEL:
		replace(&parser->channel_scratch.channel_lang,
		        xml_lang(parser, attrs));
		break;
	case ROLE_ITEM:
		start_item(parser, attrs);
		break;
	case ROLE_CATEGORY:
		start_category(parser, attrs);
		break;
	case ROLE_CH_ITUNES_IMAGE:
		start_itunes_image(parser, attrs, frame, &channel->image_url,
		                   &parser->channel_scratch.image_url);
		break;
	case ROLE_CH_ITUNES_LINK:
		start_itunes_link(parser, attrs, frame,
		                  &parser->channel_scratch.image_url);
		break;
	case ROLE_CHAPTERS:
		parser->item.chapters_seen = TRUE;
		break;
	case ROLE_CH_ATOM_LINK:
		start_channel_atom_link(parser, attrs, frame);
		break;
	case ROLE_CH_UPDATE_FREQUENCY:
		replace_unless_empty(&channel->update_rrule,
		                     attribute(parser, attrs, "rrule"));
		break;
	case ROLE_CH_FUNDING:
		keep_pending(parser, attrs, "url", NULL, NULL, NULL);
		break;
	case ROLE_PERSON:
		keep_pending(parser, attrs, "role", "group", "href", "img");
		break;
	case ROLE_IT_GUID:
		keep_pending(parser, attrs, "isPermaLink", NULL, NULL, NULL);
		break;
	case ROLE_IT_ENCLOSURE:
		start_enclosure(parser, attrs, NS_CORE, "url", "length", frame);
		break;
	case ROLE_IT_MEDIA_CONTENT:
		start_enclosure(parser, attrs, NS_CORE, "url", "fileSize",
		                frame);
		break;
	case ROLE_IT_ENC_ENCLOSURE:
		start_enclosure(parser, attrs, NS_ENC, "resource", "length",
		                frame);
		break;
	case ROLE_IT_ATOM_LINK:
		start_item_atom_link(parser, attrs, frame);
		break;
	case ROLE_IT_ITUNES_IMAGE:
		start_itunes_image(parser, attrs, frame, &episode->image_url,
		                   &parser->item.image_url);
		break;
	case ROLE_IT_ITUNES_LINK:
		start_itunes_link(parser, attrs, frame,
		                  &parser->item.image_url);
		break;
	case ROLE_IT_MEDIA_THUMBNAIL:
		replace_unless_empty(
		        &episode->image_url,
		        url_attribute(parser, attrs, NS_CORE, "url", frame));
		break;
	case ROLE_IT_PODCAST_CHAPTERS:
		replace_unless_empty(
		        &episode->chapters_url,
		        url_attribute(parser, attrs, NS_CORE, "url", frame));
		break;
	case ROLE_IT_TRANSCRIPT:
		start_transcript(parser, attrs, frame);
		break;
	case ROLE_CHAPTER:
		start_chapter(parser, attrs, frame);
		break;
	case ROLE_ALTERNATE:
		start_alternate(parser, attrs);
		break;
	case ROLE_ALTERNATE_SOURCE:
		start_alternate_source(parser, attrs, frame);
		break;
	default:
		/* Titles, descriptions and content: text that may be markup. */
		feed_parser_start_markup(parser, role, attrs);
		break;
	}
}
