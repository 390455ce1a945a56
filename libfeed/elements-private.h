/*
 * What the rules that give each element its meaning share: which element
 * means what (elements.c), what attributes (elements-attributes.c) and
 * text (elements-text.c) give, text that may be markup
 * (elements-markup.c), and the fallbacks once an item or the channel has
 * closed (elements-fallbacks.c). The helpers are static inline: they run
 * for nearly every element, and cost no call across files.
 */
#ifndef FEED_ELEMENTS_PRIVATE_H
#define FEED_ELEMENTS_PRIVATE_H

#include "parser-private.h"
#include "text-private.h"

#include <string.h>

#define NAME_IS(a, b) (strcmp((a), (b)) == 0)

static inline void
replace(char **field, char *value)
{
	g_free(*field);
	*field = value;
}

/* Sets *@field to @value unless @value is empty; takes @value. */
static inline void
replace_unless_empty(char **field, char *value)
{
	if (value == NULL || *value == '\0') {
		g_free(value);
		return;
	}
	replace(field, value);
}

static inline char *
squash(const char *text)
{
	return feed_text_squash(text, strlen(text));
}

static inline char *
squash_nl(const char *text)
{
	return feed_text_squash_nl(text, strlen(text));
}

static inline char *
trim(const char *text)
{
	return feed_text_trim(text, strlen(text));
}

static inline char *
attribute(FeedParser *parser, const Attributes *attrs, const char *name)
{
	return feed_parser_dup_attribute(parser, attrs, NS_CORE, name);
}

static inline gboolean
empty(const char *text)
{
	return text == NULL || *text == '\0';
}

/* elements-markup.c */

/*
 * How the text element @role, just started, takes child elements; for
 * Atom text constructs, also keeps `type` and `mode` in parser->pending.
 * A role whose text is never markup is left as it is.
 */
G_GNUC_INTERNAL
void
feed_parser_start_markup(FeedParser *parser, Role role,
                         const Attributes *attrs);

/* A title's text: squashed, the text of its HTML when it was markup. */
G_GNUC_INTERNAL
char *
feed_parser_title_text(FeedParser *parser, const char *text);

/*
 * A channel's description or itunes:summary, as text; @atom reads it as an
 * Atom text construct.
 */
G_GNUC_INTERNAL
char *
feed_parser_channel_description(FeedParser *parser, const char *text,
                                gboolean atom);

/*
 * An item's description: HTML, escaped or as child elements (@markup),
 * goes to description_html, text to description.
 */
G_GNUC_INTERNAL
void
feed_parser_end_item_description(FeedEpisode *episode, const char *text,
                                 gboolean markup);

/*
 * The end of an item's element whose text may be HTML: descriptions,
 * content:encoded, XHTML bodies, fullitem, Atom content and summary.
 */
G_GNUC_INTERNAL
void
feed_parser_end_item_markup(FeedParser *parser, Role role, const char *text);

/* elements-fallbacks.c */

G_GNUC_INTERNAL
void
feed_parser_clear_item_scratch(ItemScratch *item);

/* Fills what the item just closed left empty from its other sources. */
G_GNUC_INTERNAL
void
feed_parser_finish_item(FeedParser *parser);

#endif
