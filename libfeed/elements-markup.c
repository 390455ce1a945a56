/*
 * Text that may be markup: Atom's text constructs (the `type` and `mode`
 * that make them text, HTML or XHTML, and base64 content), the HTML that
 * RSS descriptions, content:encoded and XHTML bodies carry, and which of
 * them takes child elements as markup. parser.c serializes that markup.
 */
#include "elements-private.h"
#include "html-private.h"

/*
 * An Atom text construct (title, subtitle, summary, content). XHTML comes
 * as markup in a wrapping div; any other that holds elements is markup
 * too. What the `type` and `mode` say is read at its end.
 */
static void
start_atom_text(FeedParser *parser, const Attributes *attrs)
{
	g_autofree char *type = attribute(parser, attrs, "type");
	g_autofree char *mode = attribute(parser, attrs, "mode");
	gboolean xhtml;

	if (type != NULL)
		g_strstrip(type);
	if (mode != NULL)
		g_strstrip(mode);
	/* Atom 0.3's inline XHTML is application/xhtml+xml in mode xml. */
	xhtml = type != NULL && (NAME_IS(type, "xhtml") ||
	                         (NAME_IS(type, "application/xhtml+xml") &&
	                          (mode == NULL || NAME_IS(mode, "xml"))));
	parser->markup_mode = xhtml ? MARKUP_ALWAYS : MARKUP_ON_CHILD;
	parser->strip_wrapper = xhtml;
	replace(&parser->pending.a, g_steal_pointer(&type));
	replace(&parser->pending.b, g_steal_pointer(&mode));
}

void
feed_parser_start_markup(FeedParser *parser, Role role, const Attributes *attrs)
{
	gboolean atom = parser->channel->format == FEED_FORMAT_ATOM;

	switch (role) {
	case ROLE_CH_TITLE:
	case ROLE_IT_TITLE:
		if (atom)
			start_atom_text(parser, attrs);
		break;
	case ROLE_CH_DESCRIPTION:
		if (atom)
			start_atom_text(parser, attrs);
		else
			parser->markup_mode = MARKUP_ON_CHILD;
		break;
	case ROLE_CH_SUMMARY:
	case ROLE_IT_DESCRIPTION:
	case ROLE_IT_DC_DESCRIPTION:
	case ROLE_IT_SUMMARY:
	case ROLE_IT_CONTENT_ENCODED:
	case ROLE_IT_FULLITEM:
		parser->markup_mode = MARKUP_ON_CHILD;
		break;
	case ROLE_IT_BODY:
		parser->markup_mode = MARKUP_ALWAYS;
		break;
	case ROLE_IT_ATOM_CONTENT:
	case ROLE_IT_ATOM_SUMMARY:
		start_atom_text(parser, attrs);
		break;
	default:
		break;
	}
}

/*
 * An item/description: HTML, escaped or as child elements (@markup), goes
 * to description_html; text to description.
 */
void
feed_parser_end_item_description(FeedEpisode *episode, const char *text,
                                 gboolean markup)
{
	if (markup || feed_text_looks_like_html(text)) {
		if (episode->description_html == NULL)
			replace_unless_empty(&episode->description_html,
			                     trim(text));
	} else if (episode->description == NULL ||
	           *episode->description == '\0') {
		replace(&episode->description, squash_nl(text));
	}
}

/*
 * Base64 as Atom has it: Atom 0.3's mode="base64", and an Atom 1.0 text
 * construct (content, summary, title, subtitle) whose type is a MIME type
 * that is neither text nor XML. RFC 4287 allows that type on content
 * only, but lenient readers decode the others as well.
 */
static gboolean
is_base64(FeedParser *parser, const char *type, const char *mode)
{
	gsize n;

	if (NAME_IS(mode, "base64"))
		return TRUE;
	if (parser->atom03 || strchr(type, '/') == NULL)
		return FALSE;
	n = strlen(type);
	return g_ascii_strncasecmp(type, "text/", 5) != 0 &&
	       !(n >= 4 && g_ascii_strcasecmp(type + n - 4, "/xml") == 0) &&
	       !(n >= 4 && g_ascii_strcasecmp(type + n - 4, "+xml") == 0);
}

/*
 * The text of an Atom text construct, base64 decoded first, and whether
 * it is HTML: `type` html (Atom 1.0) or text/html, `mode` escaped (Atom
 * 0.3), or markup as child elements (XHTML among them). @text is lent;
 * the result is new.
 */
static char *
atom_text(FeedParser *parser, const char *text, gboolean *html)
{
	const char *type = parser->pending.a != NULL ? parser->pending.a : "";
	const char *mode = parser->pending.b != NULL ? parser->pending.b : "";
	gsize length;
	guchar *bytes;
	char *decoded;

	*html = parser->markup || NAME_IS(type, "html") ||
	        NAME_IS(type, "text/html") ||
	        NAME_IS(type, "application/xhtml+xml") ||
	        NAME_IS(mode, "escaped");
	if (parser->markup || !is_base64(parser, type, mode))
		return g_strdup(text);
	bytes = g_base64_decode(text, &length);
	decoded = feed_text_dup((const char *)bytes, length);
	g_free(bytes);
	feed_text_normalize_line_ends(decoded, length);
	/* Decoded bytes may hold anything, a NUL among them. */
	return feed_text_take_valid_utf8(decoded);
}

/*
 * A title: squashed text. One that came as markup (Atom XHTML) is HTML,
 * and its text is what counts.
 */
char *
feed_parser_title_text(FeedParser *parser, const char *text)
{
	g_autofree char *plain = NULL;
	g_autofree char *decoded = NULL;
	gboolean html;

	if (parser->channel->format != FEED_FORMAT_ATOM)
		return squash(text);
	decoded = atom_text(parser, text, &html);
	if (!parser->markup)
		return squash(decoded);
	plain = feed_html_to_text(decoded);
	return squash(plain);
}

/*
 * A channel description: text, squash-nl. One that came as markup gives
 * the text of that HTML; there is no HTML description of a channel.
 */
char *
feed_parser_channel_description(FeedParser *parser, const char *text,
                                gboolean atom)
{
	g_autofree char *decoded = NULL;
	g_autofree char *plain = NULL;
	gboolean html;

	if (atom)
		text = decoded = atom_text(parser, text, &html);
	if (!parser->markup)
		return squash_nl(text);
	plain = feed_html_to_text(text);
	return squash_nl(plain);
}

/*
 * atom:content and atom:summary: HTML goes to description_html, text to
 * description. A summary only fills what content left empty.
 */
static void
end_atom_content(FeedParser *parser, const char *text, gboolean is_summary)
{
	FeedEpisode *episode = parser->episode;
	g_autofree char *decoded = NULL;
	gboolean html;
	char **field;

	decoded = atom_text(parser, text, &html);
	field = html ? &episode->description_html : &episode->description;
	if (is_summary && *field != NULL && **field != '\0')
		return;
	replace_unless_empty(field, html ? trim(decoded) : squash_nl(decoded));
}

/* An XHTML body or a fullitem: content:encoded unless there is one. */
static void
end_body(FeedParser *parser, const char *text)
{
	FeedEpisode *episode = parser->episode;
	char *html;

	if (parser->item.html_from_content || parser->item.html_from_body)
		return;
	html = trim(text);
	parser->item.html_from_body = *html != '\0';
	replace_unless_empty(&episode->description_html, html);
}

void
feed_parser_end_item_markup(FeedParser *parser, Role role, const char *text)
{
	FeedEpisode *episode = parser->episode;
	ItemScratch *item = &parser->item;

	switch (role) {
	case ROLE_IT_DESCRIPTION:
		item->has_description = TRUE;
		feed_parser_end_item_description(episode, text, parser->markup);
		break;
	case ROLE_IT_DC_DESCRIPTION:
		if (item->dc_description != NULL)
			break;
		item->dc_description = g_strdup(text);
		item->dc_description_markup = parser->markup;
		break;
	case ROLE_IT_CONTENT_ENCODED: {
		char *html = trim(text);

		item->html_from_content |= *html != '\0';
		replace_unless_empty(&episode->description_html, html);
		break;
	}
	case ROLE_IT_BODY:
	case ROLE_IT_FULLITEM:
		end_body(parser, text);
		break;
	case ROLE_IT_ATOM_CONTENT:
	case ROLE_IT_ATOM_SUMMARY:
		end_atom_content(parser, text, role == ROLE_IT_ATOM_SUMMARY);
		break;
	default:
		break;
	}
}
