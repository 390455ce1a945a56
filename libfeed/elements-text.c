/*
 * What the end of an element gives from its text: titles, links, authors,
 * dates, numbers, flags, persons, funding and the guid, for the channel and
 * for an item, and the item handed over once it has closed.
 */
#include "date-private.h"
#include "duration-private.h"
#include "elements-private.h"
#include "url-private.h"

static gint64
parse_date(FeedParser *parser, const char *text)
{
	gint64 seconds = feed_date_parse(text);

	if (seconds == 0 && *text != '\0')
		feed_parser_add_problem(
		        parser, "line %d: cannot read date '%s'",
		        xmlSAX2GetLineNumber(parser->ctxt), text);
	return seconds;
}

static FeedTristate
tristate(const char *text)
{
	switch (feed_text_parse_bool(text)) {
	case 0:
		return FEED_TRISTATE_FALSE;
	case 1:
		return FEED_TRISTATE_TRUE;
	default:
		return FEED_TRISTATE_UNSET;
	}
}

/* itunes:block: yes blocks; any other value given does not. */
static FeedTristate
block(const char *text)
{
	g_autofree char *value = trim(text);

	return g_ascii_strcasecmp(value, "yes") == 0 ? FEED_TRISTATE_TRUE
	                                             : FEED_TRISTATE_FALSE;
}

static char **
keywords(const char *text)
{
	g_autofree char *value = squash(text);

	if (*value == '\0')
		return g_new0(char *, 1);
	return g_strsplit(value, ", ", -1);
}

static void
end_person(FeedParser *parser, const Frame *frame, const char *text)
{
	Pending *pending = &parser->pending;
	GPtrArray **persons = parser->episode != NULL
	                              ? &parser->episode->persons
	                              : &parser->channel->persons;
	g_autofree char *name = squash(text);
	FeedPerson *person;

	if (*name == '\0')
		return;
	person = g_new0(FeedPerson, 1);
	person->name = g_steal_pointer(&name);
	person->role =
	        g_ascii_strdown(pending->a != NULL ? pending->a : "host", -1);
	person->group =
	        g_ascii_strdown(pending->b != NULL ? pending->b : "cast", -1);
	person->href = feed_url_resolve(frame->base, pending->c);
	person->image = feed_url_resolve(frame->base, pending->d);
	feed_ptr_array_add(persons, person, (GDestroyNotify)feed_person_free);
}

static void
end_funding(FeedParser *parser, const Frame *frame, const char *text)
{
	char *url = feed_url_resolve(frame->base, parser->pending.a);
	FeedFunding *funding;

	if (url == NULL)
		return;
	funding = g_new0(FeedFunding, 1);
	funding->url = url;
	funding->text = squash(text);
	feed_ptr_array_add(&parser->channel->funding, funding,
	                   (GDestroyNotify)feed_funding_free);
}

static void
end_guid(FeedParser *parser, const Frame *frame, const char *text)
{
	FeedEpisode *episode = parser->episode;
	const char *permalink = parser->pending.a;
	g_autofree char *guid = trim(text);

	/* An empty guid is no guid: the fallbacks then apply. */
	if (*guid == '\0')
		return;
	parser->item.guid_is_permalink =
	        permalink == NULL ||
	        g_ascii_strcasecmp(g_strstrip(parser->pending.a), "true") == 0;
	if (parser->item.guid_is_permalink)
		replace(&episode->guid, feed_url_resolve(frame->base, guid));
	else
		replace(&episode->guid, g_steal_pointer(&guid));
}

static void
end_item(FeedParser *parser)
{
	g_autoptr(FeedEpisode) episode = NULL;

	if (parser->episode == NULL)
		return;
	feed_parser_finish_item(parser);
	feed_parser_clear_item_scratch(&parser->item);
	episode = g_steal_pointer(&parser->episode);
	if (parser->func != NULL) {
		feed_xml_quiet_end(&parser->quiet);
		parser->func(episode, parser->user_data);
		feed_xml_quiet_begin(&parser->quiet);
	}
}

static void
end_channel_text(FeedParser *parser, Role role, const Frame *frame,
                 const char *text)
{
	FeedChannel *channel = parser->channel;
	ChannelScratch *scratch = &parser->channel_scratch;
	gint64 number;

	switch (role) {
	case ROLE_CH_TITLE:
		replace(&channel->title, feed_parser_title_text(parser, text));
		break;
	case ROLE_CH_DC_TITLE:
		replace(&scratch->dc_title, squash(text));
		break;
	case ROLE_CH_LINK:
		replace(&channel->link, feed_url_resolve(frame->base, text));
		break;
	case ROLE_CH_DESCRIPTION:
		replace(&channel->description,
		        feed_parser_channel_description(
		                parser, text,
		                channel->format == FEED_FORMAT_ATOM));
		break;
	case ROLE_CH_SUMMARY:
		replace(&channel->itunes_summary,
		        feed_parser_channel_description(parser, text, FALSE));
		break;
	case ROLE_CH_SUBTITLE:
		replace(&scratch->subtitle, squash_nl(text));
		break;
	case ROLE_CH_DC_DESCRIPTION:
		replace(&scratch->dc_description, squash_nl(text));
		break;
	case ROLE_CH_RSS_AUTHOR:
		replace(&scratch->rss_author, squash(text));
		break;
	case ROLE_CH_DC_AUTHOR:
		replace(&scratch->dc_author, squash(text));
		break;
	case ROLE_CH_ITUNES_AUTHOR:
		replace(&channel->itunes_author, squash(text));
		break;
	case ROLE_CH_MANAGING_EDITOR:
		replace(&channel->managing_editor, squash(text));
		break;
	case ROLE_CH_DC_CREATOR:
		replace(&channel->dc_creator, squash(text));
		break;
	case ROLE_AUTHOR_NAME:
		replace(&channel->atom_author, squash(text));
		break;
	case ROLE_CH_LANGUAGE:
		replace(&channel->language, squash(text));
		break;
	case ROLE_CH_DC_LANGUAGE:
		replace(&channel->dc_language, squash(text));
		break;
	case ROLE_CH_NEW_URL:
	case ROLE_NEW_LOCATION:
		replace_unless_empty(&channel->new_url, squash(text));
		break;
	case ROLE_CH_TYPE: {
		g_autofree char *type = squash(text);

		if (NAME_IS(type, "episodic"))
			channel->show_type = FEED_SHOW_TYPE_EPISODIC;
		else if (NAME_IS(type, "serial"))
			channel->show_type = FEED_SHOW_TYPE_SERIAL;
		break;
	}
	case ROLE_CH_EXPLICIT:
		channel->explicit_ = tristate(text);
		break;
	case ROLE_CH_BLOCK:
		channel->block = block(text);
		break;
	case ROLE_CH_COMPLETE:
		channel->complete = block(text) == FEED_TRISTATE_TRUE;
		break;
	case ROLE_CH_LOCKED:
		channel->locked = tristate(text);
		break;
	case ROLE_CH_KEYWORDS:
		g_strfreev(channel->keywords);
		channel->keywords = keywords(text);
		break;
	case ROLE_CH_GENERATOR:
		replace(&channel->generator, squash(text));
		break;
	case ROLE_CH_FUNDING:
		end_funding(parser, frame, text);
		break;
	case ROLE_CH_PODCAST_GUID:
		replace(&channel->podcast_guid, squash(text));
		break;
	case ROLE_CH_MEDIUM: {
		g_autofree char *medium = trim(text);

		replace(&channel->medium, g_ascii_strdown(medium, -1));
		break;
	}
	case ROLE_CH_TTL:
		if (feed_text_parse_int(text, &number) && number > 0)
			channel->ttl = number;
		break;
	case ROLE_CH_UPDATED: {
		g_autofree char *date = squash(text);

		channel->updated = parse_date(parser, date);
		break;
	}
	case ROLE_CH_ICON:
	case ROLE_IMAGE_URL:
		replace_unless_empty(&channel->image_url,
		                     feed_url_resolve(frame->base, text));
		break;
	case ROLE_OWNER_NAME:
		replace(&channel->owner_name, squash(text));
		break;
	case ROLE_OWNER_EMAIL:
		replace(&channel->owner_email, squash(text));
		break;
	case ROLE_PERSON:
		end_person(parser, frame, text);
		break;
	default:
		break;
	}
}

static void
end_item_text(FeedParser *parser, Role role, const Frame *frame,
              const char *text)
{
	FeedEpisode *episode = parser->episode;
	ItemScratch *item = &parser->item;
	gint64 number;

	switch (role) {
	case ROLE_IT_TITLE:
		replace(&episode->title, feed_parser_title_text(parser, text));
		break;
	case ROLE_IT_DC_TITLE:
		replace(&item->dc_title, squash(text));
		break;
	case ROLE_IT_MEDIA_TITLE:
	case ROLE_IT_GROUP_MEDIA_TITLE:
	case ROLE_IT_CONTENT_MEDIA_TITLE: {
		/* The first of each kind; the item's own before the others. */
		char **title = &item->media_title[role - ROLE_IT_MEDIA_TITLE];

		if (empty(*title))
			replace(title, squash(text));
		break;
	}
	case ROLE_IT_LINK:
		replace(&episode->link, feed_url_resolve(frame->base, text));
		break;
	case ROLE_IT_GUID:
		end_guid(parser, frame, text);
		break;
	case ROLE_IT_ATOM_ID:
		replace_unless_empty(&episode->guid, trim(text));
		break;
	case ROLE_IT_DESCRIPTION:
	case ROLE_IT_DC_DESCRIPTION:
	case ROLE_IT_CONTENT_ENCODED:
	case ROLE_IT_BODY:
	case ROLE_IT_FULLITEM:
	case ROLE_IT_ATOM_CONTENT:
	case ROLE_IT_ATOM_SUMMARY:
		feed_parser_end_item_markup(parser, role, text);
		break;
	case ROLE_IT_SUMMARY:
	case ROLE_IT_MEDIA_DESCRIPTION:
		replace_unless_empty(&episode->description, squash_nl(text));
		break;
	case ROLE_IT_PUBDATE:
	case ROLE_IT_ATOM_PUBLISHED:
		episode->published = parse_date(parser, text);
		break;
	case ROLE_IT_ATOM_UPDATED:
		parser->item.updated = parse_date(parser, text);
		break;
	case ROLE_IT_DC_DATE:
		parser->item.dc_date = parse_date(parser, text);
		break;
	case ROLE_IT_DCTERMS_ISSUED:
		item->issued = parse_date(parser, text);
		break;
	case ROLE_IT_DCTERMS_CREATED:
		item->created = parse_date(parser, text);
		break;
	case ROLE_IT_DCTERMS_MODIFIED:
		item->modified = parse_date(parser, text);
		break;
	case ROLE_IT_DURATION:
		episode->total_time = feed_duration_parse(text);
		break;
	case ROLE_IT_EPISODE:
		if (feed_text_parse_int(text, &number) && number > 0)
			episode->number = number;
		break;
	case ROLE_IT_PODCAST_EPISODE:
		if (feed_text_parse_int(text, &number) && number > 0)
			episode->podcast_episode = number;
		break;
	case ROLE_IT_SEASON:
		episode->season =
		        feed_text_parse_int(text, &number) ? number : 0;
		break;
	case ROLE_IT_PODCAST_SEASON:
		if (feed_text_parse_int(text, &number) && number >= 0)
			episode->podcast_season = number;
		break;
	case ROLE_IT_EPISODE_TYPE: {
		g_autofree char *trimmed = trim(text);
		g_autofree char *type = g_ascii_strdown(trimmed, -1);

		if (NAME_IS(type, "full"))
			episode->episode_type = FEED_EPISODE_TYPE_FULL;
		else if (NAME_IS(type, "trailer"))
			episode->episode_type = FEED_EPISODE_TYPE_TRAILER;
		else if (NAME_IS(type, "bonus"))
			episode->episode_type = FEED_EPISODE_TYPE_BONUS;
		break;
	}
	case ROLE_IT_SUBTITLE:
		replace(&episode->subtitle, squash(text));
		break;
	case ROLE_IT_ITUNES_AUTHOR:
		replace(&episode->itunes_author, squash(text));
		break;
	case ROLE_IT_EXPLICIT:
		episode->explicit_ = tristate(text);
		break;
	case ROLE_IT_BLOCK:
		episode->block = block(text);
		break;
	case ROLE_PERSON:
		end_person(parser, frame, text);
		break;
	default:
		break;
	}
}

/* What the element's start kept in parser->pending is spent. */
static void
clear_pending(Pending *pending)
{
	g_clear_pointer(&pending->a, g_free);
	g_clear_pointer(&pending->b, g_free);
	g_clear_pointer(&pending->c, g_free);
	g_clear_pointer(&pending->d, g_free);
}

void
feed_parser_end_role(FeedParser *parser, Role role, const Frame *frame,
                     const char *text)
{
	switch (role) {
	case ROLE_ITEM:
		end_item(parser);
		return;
	case ROLE_CATEGORY:
		parser->category_depth--;
		return;
	case ROLE_ALTERNATE:
		if (parser->episode != NULL && parser->alternate != NULL)
			feed_ptr_array_add(
			        &parser->episode->alternates,
			        g_steal_pointer(&parser->alternate),
			        (GDestroyNotify)feed_alternate_enclosure_free);
		return;
	default:
		break;
	}
	if (text == NULL)
		return;
	if (parser->episode != NULL && role >= ROLE_IT_TITLE)
		end_item_text(parser, role, frame, text);
	else if (parser->episode != NULL && role == ROLE_PERSON)
		end_item_text(parser, role, frame, text);
	else
		end_channel_text(parser, role, frame, text);
	clear_pending(&parser->pending);
}
