/*
 * What each element of RSS 2.0/0.9x, RSS 1.0 and Atom 1.0/0.3 means, with
 * the iTunes, Podcast Index, Media RSS, content, Dublin Core and Podlove
 * namespaces: the rules of the feed JSON contract, element by element.
 */
#include "date-private.h"
#include "duration-private.h"
#include "feed/error.h"
#include "html-private.h"
#include "parser-private.h"
#include "text-private.h"
#include "url-private.h"

#include <string.h>

#define NAME_IS(a, b) (strcmp((a), (b)) == 0)

Namespace
feed_parser_classify_namespace(const xmlChar *uri, const xmlChar *prefix)
{
	const char *u = (const char *)uri;

	if (u == NULL) {
		/*
		 * An undeclared prefix leaves libxml2 with no namespace;
		 * feeds that forget xmlns:itunes still mean iTunes.
		 */
		const char *p = (const char *)prefix;

		if (p == NULL)
			return NS_CORE;
		if (NAME_IS(p, "itunes"))
			return NS_ITUNES;
		if (NAME_IS(p, "podcast"))
			return NS_PODCAST;
		if (NAME_IS(p, "atom"))
			return NS_ATOM;
		if (NAME_IS(p, "content"))
			return NS_CONTENT;
		if (NAME_IS(p, "xml"))
			return NS_XML;
		return NS_OTHER;
	}
	/* The second is the example in Apple's first specification (2005). */
	if (g_ascii_strcasecmp(
	            u, "http://www.itunes.com/dtds/podcast-1.0.dtd") == 0 ||
	    g_ascii_strcasecmp(u, "http://example.com/DTDs/Podcast-1.0.dtd") ==
	            0)
		return NS_ITUNES;
	if (NAME_IS(u, "http://www.w3.org/2005/Atom") ||
	    NAME_IS(u, "http://www.w3.org/2005/Atom/") ||
	    NAME_IS(u, "http://purl.org/atom/ns#"))
		return NS_ATOM;
	if (NAME_IS(u, "http://search.yahoo.com/mrss/") ||
	    NAME_IS(u, "http://search.yahoo.com/mrss"))
		return NS_MEDIA;
	if (NAME_IS(u, "http://podlove.org/simple-chapters") ||
	    NAME_IS(u, "http://podlove.org/simple-chapters/"))
		return NS_PSC;
	if (NAME_IS(u, "http://purl.org/rss/1.0/modules/content/"))
		return NS_CONTENT;
	if (g_ascii_strcasecmp(u, "https://github.com/Podcastindex-org/"
	                          "podcast-namespace/blob/main/docs/1.0.md") ==
	            0 ||
	    NAME_IS(u, "https://podcastindex.org/namespace/1.0"))
		return NS_PODCAST;
	if (NAME_IS(u, "http://purl.org/dc/elements/1.1/"))
		return NS_DC;
	if (NAME_IS(u, "http://purl.org/dc/terms/"))
		return NS_DCTERMS;
	if (NAME_IS(u, "http://www.w3.org/1999/xhtml"))
		return NS_XHTML;
	if (NAME_IS(u, "http://www.w3.org/1999/02/22-rdf-syntax-ns#"))
		return NS_RDF;
	if (NAME_IS(u, "http://purl.oclc.org/net/rss_2.0/enc#"))
		return NS_ENC;
	if (NAME_IS(u, "http://www.w3.org/XML/1998/namespace"))
		return NS_XML;
	/* RSS 1.0, RSS 0.90 and the rare RSS 2.0 that declares its own. */
	if (NAME_IS(u, "http://purl.org/rss/1.0/") ||
	    NAME_IS(u, "http://my.netscape.com/rdf/simple/0.9/") ||
	    NAME_IS(u, "http://backend.userland.com/rss2") ||
	    NAME_IS(u, "http://backend.userland.com/RSS2"))
		return NS_CORE;
	return NS_OTHER;
}

/* Atom 1.0's namespace; any other <feed> is read as Atom 0.3. */
static gboolean
is_atom10(const xmlChar *uri)
{
	return uri != NULL &&
	       (NAME_IS((const char *)uri, "http://www.w3.org/2005/Atom") ||
	        NAME_IS((const char *)uri, "http://www.w3.org/2005/Atom/"));
}

/*
 * Roots are known by their local name: <rss> in any namespace (Userland's
 * among others) is RSS and <feed> outside Atom 1.0's is Atom 0.3 or one of
 * its drafts. A namespace libfeed does not otherwise know becomes the
 * format's own for the whole document.
 */
Role
feed_parser_root_role(FeedParser *parser, Namespace ns, const xmlChar *uri,
                      const char *name)
{
	FeedChannel *channel = parser->channel;
	g_autofree char *message = NULL;
	g_autofree char *shown = NULL;
	g_autofree char *shown_ns = NULL;
	Role role = ROLE_SKIP;

	if (parser->root_seen)
		return ROLE_SKIP;
	parser->root_seen = TRUE;
	if (g_ascii_strcasecmp(name, "rss") == 0 &&
	    (ns == NS_CORE || ns == NS_OTHER)) {
		channel->format = FEED_FORMAT_RSS2;
		role = ROLE_RSS;
	} else if (ns == NS_RDF && NAME_IS(name, "RDF")) {
		channel->format = FEED_FORMAT_RSS1;
		role = ROLE_RDF;
	} else if (NAME_IS(name, "feed") &&
	           (ns == NS_ATOM || ns == NS_CORE || ns == NS_OTHER)) {
		channel->format = FEED_FORMAT_ATOM;
		parser->atom03 = !is_atom10(uri);
		role = ROLE_CHANNEL;
	}
	if (role != ROLE_SKIP) {
		if (ns == NS_OTHER) {
			parser->root_ns = g_strdup((const char *)uri);
			/* Its URI was cached as unknown a moment ago. */
			memset(parser->ns_uri, 0, sizeof(parser->ns_uri));
		}
		return role;
	}
	/* After an encoding error libxml2 passes names on byte for byte. */
	shown = feed_text_take_valid_utf8(g_strdup(name));
	shown_ns = uri != NULL ? feed_text_take_valid_utf8(g_strdup_printf(
	                                 "namespace %s", (const char *)uri))
	                       : g_strdup("no namespace");
	message = g_strdup_printf("not a feed: the root element is <%s> in %s, "
	                          "not <rss>, <feed> or <rdf:RDF>",
	                          shown, shown_ns);
	if (parser->error == NULL)
		parser->error = g_error_new_literal(
		        FEED_ERROR, FEED_ERROR_UNSUPPORTED, message);
	xmlStopParser(parser->ctxt);
	return ROLE_SKIP;
}

static Role
channel_role(FeedParser *parser, Namespace ns, const char *name)
{
	gboolean atom = parser->channel->format == FEED_FORMAT_ATOM;

	if (ns == (atom ? NS_ATOM : NS_CORE)) {
		if (NAME_IS(name, "title"))
			return ROLE_CH_TITLE;
		if (NAME_IS(name, atom ? "entry" : "item"))
			return ROLE_ITEM;
		if (NAME_IS(name, "link"))
			return atom ? ROLE_CH_ATOM_LINK : ROLE_CH_LINK;
		if (atom) {
			if (NAME_IS(name, "subtitle") ||
			    NAME_IS(name, "tagline"))
				return ROLE_CH_DESCRIPTION;
			if (NAME_IS(name, "icon"))
				return ROLE_CH_ICON;
			if (NAME_IS(name, "author"))
				return ROLE_AUTHOR;
			if (NAME_IS(name, "updated") ||
			    NAME_IS(name, "modified"))
				return ROLE_CH_UPDATED;
			if (NAME_IS(name, "generator"))
				return ROLE_CH_GENERATOR;
			return ROLE_SKIP;
		}
		if (NAME_IS(name, "description"))
			return ROLE_CH_DESCRIPTION;
		if (NAME_IS(name, "image"))
			return ROLE_IMAGE;
		if (NAME_IS(name, "language"))
			return ROLE_CH_LANGUAGE;
		if (NAME_IS(name, "generator"))
			return ROLE_CH_GENERATOR;
		if (NAME_IS(name, "ttl"))
			return ROLE_CH_TTL;
		if (NAME_IS(name, "lastBuildDate"))
			return ROLE_CH_UPDATED;
		if (NAME_IS(name, "managingEditor"))
			return ROLE_CH_MANAGING_EDITOR;
		if (NAME_IS(name, "author"))
			return ROLE_CH_RSS_AUTHOR;
		return ROLE_SKIP;
	}
	switch (ns) {
	case NS_ITUNES:
		if (NAME_IS(name, "summary"))
			return ROLE_CH_SUMMARY;
		if (NAME_IS(name, "author"))
			return ROLE_CH_ITUNES_AUTHOR;
		if (NAME_IS(name, "owner"))
			return ROLE_OWNER;
		if (NAME_IS(name, "image"))
			return ROLE_CH_ITUNES_IMAGE;
		if (NAME_IS(name, "link"))
			return ROLE_CH_ITUNES_LINK;
		if (NAME_IS(name, "subtitle"))
			return ROLE_CH_SUBTITLE;
		if (NAME_IS(name, "new-feed-url"))
			return ROLE_CH_NEW_URL;
		if (NAME_IS(name, "type"))
			return ROLE_CH_TYPE;
		if (NAME_IS(name, "explicit"))
			return ROLE_CH_EXPLICIT;
		if (NAME_IS(name, "block"))
			return ROLE_CH_BLOCK;
		if (NAME_IS(name, "complete"))
			return ROLE_CH_COMPLETE;
		if (NAME_IS(name, "keywords"))
			return ROLE_CH_KEYWORDS;
		if (NAME_IS(name, "category"))
			return ROLE_CATEGORY;
		return ROLE_SKIP;
	case NS_PODCAST:
		if (NAME_IS(name, "funding"))
			return ROLE_CH_FUNDING;
		if (NAME_IS(name, "locked"))
			return ROLE_CH_LOCKED;
		if (NAME_IS(name, "guid"))
			return ROLE_CH_PODCAST_GUID;
		if (NAME_IS(name, "medium"))
			return ROLE_CH_MEDIUM;
		if (NAME_IS(name, "updateFrequency"))
			return ROLE_CH_UPDATE_FREQUENCY;
		if (NAME_IS(name, "person"))
			return ROLE_PERSON;
		return ROLE_SKIP;
	case NS_ATOM:
		return NAME_IS(name, "link") ? ROLE_CH_ATOM_LINK : ROLE_SKIP;
	case NS_DC:
		if (NAME_IS(name, "creator"))
			return ROLE_CH_DC_CREATOR;
		if (NAME_IS(name, "language"))
			return ROLE_CH_DC_LANGUAGE;
		if (NAME_IS(name, "title"))
			return ROLE_CH_DC_TITLE;
		if (NAME_IS(name, "description"))
			return ROLE_CH_DC_DESCRIPTION;
		if (NAME_IS(name, "author"))
			return ROLE_CH_DC_AUTHOR;
		return ROLE_SKIP;
	default:
		return ROLE_SKIP;
	}
}

static Role
atom_entry_role(FeedParser *parser, const char *name)
{
	if (NAME_IS(name, "title"))
		return ROLE_IT_TITLE;
	if (NAME_IS(name, "id"))
		return ROLE_IT_ATOM_ID;
	if (NAME_IS(name, "link"))
		return ROLE_IT_ATOM_LINK;
	if (NAME_IS(name, "content"))
		return ROLE_IT_ATOM_CONTENT;
	if (NAME_IS(name, "summary"))
		return ROLE_IT_ATOM_SUMMARY;
	if (NAME_IS(name, "published") || NAME_IS(name, "issued"))
		return ROLE_IT_ATOM_PUBLISHED;
	if (NAME_IS(name, "updated") || NAME_IS(name, "modified"))
		return ROLE_IT_ATOM_UPDATED;
	return ROLE_SKIP;
}

static Role
item_role(FeedParser *parser, Namespace ns, const char *name)
{
	gboolean atom = parser->channel->format == FEED_FORMAT_ATOM;

	if (ns == NS_CORE && !atom) {
		if (NAME_IS(name, "title"))
			return ROLE_IT_TITLE;
		if (NAME_IS(name, "link"))
			return ROLE_IT_LINK;
		if (NAME_IS(name, "guid"))
			return ROLE_IT_GUID;
		if (NAME_IS(name, "description"))
			return ROLE_IT_DESCRIPTION;
		if (NAME_IS(name, "pubDate"))
			return ROLE_IT_PUBDATE;
		if (NAME_IS(name, "enclosure"))
			return ROLE_IT_ENCLOSURE;
		if (NAME_IS(name, "fullitem"))
			return ROLE_IT_FULLITEM;
		return ROLE_SKIP;
	}
	switch (ns) {
	case NS_ATOM:
		if (atom)
			return atom_entry_role(parser, name);
		return NAME_IS(name, "link") ? ROLE_IT_ATOM_LINK : ROLE_SKIP;
	case NS_ITUNES:
		if (NAME_IS(name, "summary"))
			return ROLE_IT_SUMMARY;
		if (NAME_IS(name, "duration"))
			return ROLE_IT_DURATION;
		if (NAME_IS(name, "episode"))
			return ROLE_IT_EPISODE;
		if (NAME_IS(name, "season"))
			return ROLE_IT_SEASON;
		if (NAME_IS(name, "episodeType"))
			return ROLE_IT_EPISODE_TYPE;
		if (NAME_IS(name, "subtitle"))
			return ROLE_IT_SUBTITLE;
		if (NAME_IS(name, "author"))
			return ROLE_IT_ITUNES_AUTHOR;
		if (NAME_IS(name, "explicit"))
			return ROLE_IT_EXPLICIT;
		if (NAME_IS(name, "block"))
			return ROLE_IT_BLOCK;
		if (NAME_IS(name, "image"))
			return ROLE_IT_ITUNES_IMAGE;
		if (NAME_IS(name, "link"))
			return ROLE_IT_ITUNES_LINK;
		return ROLE_SKIP;
	case NS_MEDIA:
		if (NAME_IS(name, "content"))
			return ROLE_IT_MEDIA_CONTENT;
		if (NAME_IS(name, "group"))
			return ROLE_MEDIA_GROUP;
		if (NAME_IS(name, "thumbnail"))
			return ROLE_IT_MEDIA_THUMBNAIL;
		if (NAME_IS(name, "description"))
			return ROLE_IT_MEDIA_DESCRIPTION;
		if (NAME_IS(name, "title"))
			return ROLE_IT_MEDIA_TITLE;
		return ROLE_SKIP;
	case NS_CONTENT:
		return NAME_IS(name, "encoded") ? ROLE_IT_CONTENT_ENCODED
		                                : ROLE_SKIP;
	case NS_PSC:
		/* Only the first psc:chapters counts. */
		return NAME_IS(name, "chapters") && !parser->item.chapters_seen
		               ? ROLE_CHAPTERS
		               : ROLE_SKIP;
	case NS_PODCAST:
		if (NAME_IS(name, "chapters"))
			return ROLE_IT_PODCAST_CHAPTERS;
		if (NAME_IS(name, "transcript"))
			return ROLE_IT_TRANSCRIPT;
		if (NAME_IS(name, "person"))
			return ROLE_PERSON;
		if (NAME_IS(name, "alternateEnclosure"))
			return ROLE_ALTERNATE;
		if (NAME_IS(name, "season"))
			return ROLE_IT_PODCAST_SEASON;
		if (NAME_IS(name, "episode"))
			return ROLE_IT_PODCAST_EPISODE;
		return ROLE_SKIP;
	case NS_DC:
		if (NAME_IS(name, "date"))
			return ROLE_IT_DC_DATE;
		if (NAME_IS(name, "title"))
			return ROLE_IT_DC_TITLE;
		if (NAME_IS(name, "description"))
			return ROLE_IT_DC_DESCRIPTION;
		return ROLE_SKIP;
	case NS_DCTERMS:
		if (NAME_IS(name, "issued"))
			return ROLE_IT_DCTERMS_ISSUED;
		if (NAME_IS(name, "created"))
			return ROLE_IT_DCTERMS_CREATED;
		if (NAME_IS(name, "modified"))
			return ROLE_IT_DCTERMS_MODIFIED;
		return ROLE_SKIP;
	case NS_XHTML:
		return NAME_IS(name, "body") ? ROLE_IT_BODY : ROLE_SKIP;
	case NS_ENC:
		return NAME_IS(name, "enclosure") ? ROLE_IT_ENC_ENCLOSURE
		                                  : ROLE_SKIP;
	default:
		return ROLE_SKIP;
	}
}

static Role
role_of(FeedParser *parser, Role parent, Namespace ns, const char *name)
{
	switch (parent) {
	case ROLE_RSS:
		if (ns != NS_CORE)
			return ROLE_SKIP;
		if (NAME_IS(name, "channel"))
			return ROLE_CHANNEL;
		if (NAME_IS(name, "redirect"))
			return ROLE_REDIRECT;
		return NAME_IS(name, "item") ? ROLE_ITEM : ROLE_SKIP;
	case ROLE_RDF:
		if (ns != NS_CORE)
			return ROLE_SKIP;
		if (NAME_IS(name, "channel"))
			return ROLE_CHANNEL;
		if (NAME_IS(name, "image"))
			return ROLE_IMAGE;
		return NAME_IS(name, "item") ? ROLE_ITEM : ROLE_SKIP;
	case ROLE_CHANNEL:
		return channel_role(parser, ns, name);
	case ROLE_ITEM:
		return item_role(parser, ns, name);
	case ROLE_IMAGE:
		return ns == NS_CORE && NAME_IS(name, "url") ? ROLE_IMAGE_URL
		                                             : ROLE_SKIP;
	case ROLE_OWNER:
		if (ns == NS_ITUNES && NAME_IS(name, "name"))
			return ROLE_OWNER_NAME;
		if (ns == NS_ITUNES && NAME_IS(name, "email"))
			return ROLE_OWNER_EMAIL;
		return ROLE_SKIP;
	case ROLE_CATEGORY:
		return ns == NS_ITUNES && NAME_IS(name, "category")
		               ? ROLE_CATEGORY
		               : ROLE_SKIP;
	case ROLE_REDIRECT:
		return ns == NS_CORE && NAME_IS(name, "newLocation")
		               ? ROLE_NEW_LOCATION
		               : ROLE_SKIP;
	case ROLE_MEDIA_GROUP:
		if (ns != NS_MEDIA)
			return ROLE_SKIP;
		if (NAME_IS(name, "content"))
			return ROLE_IT_MEDIA_CONTENT;
		if (NAME_IS(name, "thumbnail"))
			return ROLE_IT_MEDIA_THUMBNAIL;
		if (NAME_IS(name, "description"))
			return ROLE_IT_MEDIA_DESCRIPTION;
		if (NAME_IS(name, "title"))
			return ROLE_IT_GROUP_MEDIA_TITLE;
		return ROLE_SKIP;
	case ROLE_IT_MEDIA_CONTENT:
		return ns == NS_MEDIA && NAME_IS(name, "title") &&
		                       parser->episode != NULL
		               ? ROLE_IT_CONTENT_MEDIA_TITLE
		               : ROLE_SKIP;
	case ROLE_CHAPTERS:
		return ns == NS_PSC && NAME_IS(name, "chapter") ? ROLE_CHAPTER
		                                                : ROLE_SKIP;
	case ROLE_ALTERNATE:
		return ns == NS_PODCAST && NAME_IS(name, "source")
		               ? ROLE_ALTERNATE_SOURCE
		               : ROLE_SKIP;
	case ROLE_AUTHOR:
		return ns == NS_ATOM && NAME_IS(name, "name") ? ROLE_AUTHOR_NAME
		                                              : ROLE_SKIP;
	default:
		return ROLE_SKIP;
	}
}

/*
 * RSS's own element names, as role_of() spells them. iTunes reads them
 * without regard to case, and so do feeds written for it.
 */
static const char *
rss_name(const char *name)
{
	static const char *const names[] = {
		"channel",     "item",          "title",          "link",
		"description", "guid",          "pubDate",        "enclosure",
		"image",       "url",           "language",       "generator",
		"ttl",         "lastBuildDate", "managingEditor", "author",
		"redirect",    "newLocation",   "fullitem",
	};

	for (gsize i = 0; i < G_N_ELEMENTS(names); i++)
		if (g_ascii_strcasecmp(name, names[i]) == 0)
			return names[i];
	return NULL;
}

Role
feed_parser_role(FeedParser *parser, Role parent, Namespace ns,
                 const char *name)
{
	gboolean atom = parser->channel->format == FEED_FORMAT_ATOM;
	const char *canonical;
	Role role;

	/* A <feed> without a namespace still has Atom's elements. */
	if (ns == NS_CORE && atom)
		ns = NS_ATOM;
	role = role_of(parser, parent, ns, name);
	/* Exact names first: only an unknown element pays for the rest. */
	if (role != ROLE_SKIP || ns != NS_CORE || atom)
		return role;
	canonical = rss_name(name);
	if (canonical == NULL || NAME_IS(canonical, name))
		return role;
	return role_of(parser, parent, ns, canonical);
}

gboolean
feed_parser_role_wants_text(Role role)
{
	switch (role) {
	case ROLE_CH_ITUNES_IMAGE:
	case ROLE_CH_ITUNES_LINK:
	case ROLE_CH_ATOM_LINK:
	case ROLE_CH_UPDATE_FREQUENCY:
	case ROLE_IT_ENCLOSURE:
	case ROLE_IT_MEDIA_CONTENT:
	case ROLE_IT_ENC_ENCLOSURE:
	case ROLE_IT_ATOM_LINK:
	case ROLE_IT_ITUNES_IMAGE:
	case ROLE_IT_ITUNES_LINK:
	case ROLE_IT_MEDIA_THUMBNAIL:
	case ROLE_IT_PODCAST_CHAPTERS:
	case ROLE_IT_TRANSCRIPT:
	case ROLE_CHAPTER:
	case ROLE_ALTERNATE_SOURCE:
		return FALSE;
	default:
		return role > ROLE_LAST_CONTAINER;
	}
}

static void
replace(char **field, char *value)
{
	g_free(*field);
	*field = value;
}

/* Sets *@field to @value unless @value is empty; takes @value. */
static void
replace_unless_empty(char **field, char *value)
{
	if (value == NULL || *value == '\0') {
		g_free(value);
		return;
	}
	replace(field, value);
}

static char *
squash(const char *text)
{
	return feed_text_squash(text, strlen(text));
}

static char *
squash_nl(const char *text)
{
	return feed_text_squash_nl(text, strlen(text));
}

static char *
trim(const char *text)
{
	return feed_text_trim(text, strlen(text));
}

static char *
attribute(FeedParser *parser, const Attributes *attrs, const char *name)
{
	return feed_parser_dup_attribute(parser, attrs, NS_CORE, name);
}

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
clear_item_scratch(ItemScratch *item)
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

	clear_item_scratch(&parser->item);
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

static void
start_item(FeedParser *parser, const Attributes *attrs)
{
	g_clear_pointer(&parser->episode, feed_episode_unref);
	parser->episode = feed_episode_new();
	clear_item_scratch(&parser->item);
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
	case ROLE_CH_TITLE:
	case ROLE_IT_TITLE:
		if (channel->format == FEED_FORMAT_ATOM)
			start_atom_text(parser, attrs);
		break;
	case ROLE_CH_DESCRIPTION:
		if (channel->format == FEED_FORMAT_ATOM)
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
	case ROLE_IT_ATOM_CONTENT:
	case ROLE_IT_ATOM_SUMMARY:
		start_atom_text(parser, attrs);
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
		break;
	}
}

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

/*
 * An item/description: HTML, escaped or as child elements (@markup), goes
 * to description_html; text to description.
 */
static void
end_item_description(FeedEpisode *episode, const char *text, gboolean markup)
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
 * Base64 as Atom has it: Atom 0.3's mode="base64", and Atom 1.0 content
 * whose type is a MIME type that is neither text nor XML.
 */
static gboolean
is_base64(FeedParser *parser, const char *type, const char *mode,
          gboolean is_content)
{
	gsize n;

	if (NAME_IS(mode, "base64"))
		return TRUE;
	if (!is_content || parser->atom03 || strchr(type, '/') == NULL)
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
atom_text(FeedParser *parser, const char *text, gboolean is_content,
          gboolean *html)
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
	if (parser->markup || !is_base64(parser, type, mode, is_content))
		return g_strdup(text);
	bytes = g_base64_decode(text, &length);
	decoded = feed_text_dup((const char *)bytes, length);
	g_free(bytes);
	/* Decoded bytes may hold anything, a NUL among them. */
	return feed_text_take_valid_utf8(decoded);
}

/*
 * A title: squashed text. One that came as markup (Atom XHTML) is HTML,
 * and its text is what counts.
 */
static char *
title_text(FeedParser *parser, const char *text)
{
	g_autofree char *plain = NULL;
	g_autofree char *decoded = NULL;
	gboolean html;

	if (parser->channel->format != FEED_FORMAT_ATOM)
		return squash(text);
	decoded = atom_text(parser, text, FALSE, &html);
	if (!parser->markup)
		return squash(decoded);
	plain = feed_html_to_text(decoded);
	return squash(plain);
}

/*
 * A channel description: text, squash-nl. One that came as markup gives
 * the text of that HTML; there is no HTML description of a channel.
 */
static char *
channel_description(FeedParser *parser, const char *text, gboolean atom)
{
	g_autofree char *decoded = NULL;
	g_autofree char *plain = NULL;
	gboolean html;

	if (atom)
		text = decoded = atom_text(parser, text, FALSE, &html);
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

	decoded = atom_text(parser, text, !is_summary, &html);
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

static gboolean
empty(const char *text)
{
	return text == NULL || *text == '\0';
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
static void
finish_item(FeedParser *parser)
{
	FeedEpisode *episode = parser->episode;
	ItemScratch *item = &parser->item;
	GPtrArray *enclosures = episode->enclosures;

	if (!item->has_description && item->dc_description != NULL)
		end_item_description(episode, item->dc_description,
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

static void
end_item(FeedParser *parser)
{
	g_autoptr(FeedEpisode) episode = NULL;

	if (parser->episode == NULL)
		return;
	finish_item(parser);
	clear_item_scratch(&parser->item);
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
		replace(&channel->title, title_text(parser, text));
		break;
	case ROLE_CH_DC_TITLE:
		replace(&scratch->dc_title, squash(text));
		break;
	case ROLE_CH_LINK:
		replace(&channel->link, feed_url_resolve(frame->base, text));
		break;
	case ROLE_CH_DESCRIPTION:
		replace(&channel->description,
		        channel_description(parser, text,
		                            channel->format ==
		                                    FEED_FORMAT_ATOM));
		break;
	case ROLE_CH_SUMMARY:
		replace(&channel->itunes_summary,
		        channel_description(parser, text, FALSE));
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
		replace(&episode->title, title_text(parser, text));
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
		item->has_description = TRUE;
		end_item_description(episode, text, parser->markup);
		break;
	case ROLE_IT_DC_DESCRIPTION:
		if (item->dc_description != NULL)
			break;
		item->dc_description = g_strdup(text);
		item->dc_description_markup = parser->markup;
		break;
	case ROLE_IT_SUMMARY:
	case ROLE_IT_MEDIA_DESCRIPTION:
		replace_unless_empty(&episode->description, squash_nl(text));
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
	keep_pending(parser, NULL, NULL, NULL, NULL, NULL);
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
