/*
 * The fallbacks of the feed JSON contract: once an item or the channel has
 * closed, a field the feed left empty is taken from the next source in
 * line (the scratch kept meanwhile), as podcastparser does.
 */
#include "elements-private.h"
#include "html-private.h"
#include "url-private.h"

void
feed_parser_clear_item_scratch(ItemScratch *item)
{
	g_free(item->dc_title);
	for (guint i = 0; i < G_N_ELEMENTS(item->media_title); i++)
		g_free(item->media_title[i]);
	g_free(item->dc_description);
	g_free(item->image_url);
	g_free(item->link);
	*item = (ItemScratch){ 0 };
}

void
feed_parser_clear_scratch(FeedParser *parser)
{
	ChannelScratch *c = &parser->channel_scratch;

	feed_parser_clear_item_scratch(&parser->item);
	g_free(c->dc_title);
	g_free(c->subtitle);
	g_free(c->dc_description);
	g_free(c->rss_author);
	g_free(c->dc_author);
	g_free(c->image_url);
	g_free(c->link);
	g_free(c->channel_lang);
	g_free(c->root_lang);
	*c = (ChannelScratch){ 0 };
}

/* A copy of the first of the @n strings that is not empty, or NULL. */
static char *
first_of_n(char *const *candidates, gsize n)
{
	for (gsize i = 0; i < n; i++)
		if (!empty(candidates[i]))
			return g_strdup(candidates[i]);
	return NULL;
}

#define FIRST_OF(...)                                                          \
	first_of_n((char *const[]){ __VA_ARGS__ },                             \
	           sizeof((char *const[]){ __VA_ARGS__ }) / sizeof(char *))

/* The rules that apply once an item has closed, as podcastparser's. */
void
feed_parser_finish_item(FeedParser *parser)
{
	FeedEpisode *episode = parser->episode;
	ItemScratch *item = &parser->item;
	GPtrArray *enclosures = episode->enclosures;

	if (!item->has_description && item->dc_description != NULL)
		feed_parser_end_item_description(episode, item->dc_description,
		                                 item->dc_description_markup);
	if (episode->description != NULL &&
	    feed_text_looks_like_html(episode->description)) {
		if (episode->description_html == NULL)
			episode->description_html =
			        g_steal_pointer(&episode->description);
		else
			g_clear_pointer(&episode->description, g_free);
	}
	if (empty(episode->description) && episode->description_html != NULL)
		replace(&episode->description,
		        feed_html_to_text(episode->description_html));
	if (episode->description == NULL)
		episode->description = g_strdup("");

	if (episode->published == 0)
		episode->published = parser->item.updated;
	if (episode->published == 0)
		episode->published = parser->item.dc_date;
	if (episode->published == 0)
		episode->published = item->issued;
	if (episode->published == 0)
		episode->published = item->created;
	if (episode->published == 0)
		episode->published = item->modified;
	if (empty(episode->image_url) && item->image_url != NULL)
		replace(&episode->image_url, g_steal_pointer(&item->image_url));
	if (empty(episode->link) && item->link != NULL)
		replace(&episode->link, g_steal_pointer(&item->link));
	if (episode->title == NULL)
		episode->title =
		        FIRST_OF(item->dc_title, item->media_title[0],
		                 item->media_title[1], item->media_title[2]);

	if (episode->guid == NULL && !empty(episode->link))
		episode->guid = g_strdup(episode->link);
	if (episode->guid == NULL && enclosures != NULL) {
		const FeedEnclosure *first = enclosures->pdata[0];
		gboolean same = TRUE;

		for (guint i = 1; i < enclosures->len && same; i++) {
			const FeedEnclosure *other = enclosures->pdata[i];

			same = g_strcmp0(first->url, other->url) == 0;
		}
		if (same)
			episode->guid = g_strdup(first->url);
	}
	if (episode->title == NULL && enclosures != NULL &&
	    enclosures->len == 1) {
		const FeedEnclosure *only = enclosures->pdata[0];

		if (only->url != NULL)
			episode->title =
			        feed_url_basename_no_extension(only->url);
	}
	if (empty(episode->link) && parser->item.guid_is_permalink &&
	    episode->guid != NULL)
		replace(&episode->link, g_strdup(episode->guid));
	if (episode->link == NULL)
		episode->link = g_strdup("");
}

void
feed_parser_finish_channel(FeedParser *parser)
{
	FeedChannel *channel = parser->channel;
	ChannelScratch *scratch = &parser->channel_scratch;

	if (empty(channel->title) && !empty(scratch->dc_title))
		replace(&channel->title, g_strdup(scratch->dc_title));
	if (empty(channel->title)) {
		g_autofree char *name =
		        parser->base_url != NULL
		                ? feed_url_basename_no_extension(
		                          parser->base_url)
		                : NULL;

		replace(&channel->title,
		        name != NULL ? g_steal_pointer(&name) : g_strdup(""));
	}
	if (empty(channel->description))
		replace(&channel->description,
		        FIRST_OF(channel->itunes_summary, scratch->subtitle,
		                 scratch->dc_description));
	if (empty(channel->language))
		replace(&channel->language,
		        FIRST_OF(channel->dc_language, scratch->channel_lang,
		                 scratch->root_lang));
	if (empty(channel->image_url) && scratch->image_url != NULL)
		replace(&channel->image_url,
		        g_steal_pointer(&scratch->image_url));
	if (empty(channel->link) && scratch->link != NULL)
		replace(&channel->link, g_steal_pointer(&scratch->link));
	channel->author =
	        FIRST_OF(channel->itunes_author, channel->atom_author,
	                 channel->managing_editor, channel->dc_creator,
	                 scratch->rss_author, scratch->dc_author);
}
