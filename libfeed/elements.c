/*
 * What each element of RSS 2.0/0.9x, RSS 1.0 and Atom 1.0/0.3 means, with
 * the iTunes, Podcast Index, Media RSS, content, Dublin Core and Podlove
 * namespaces: the namespaces known, the root that makes a document a feed,
 * and the role of each element where it stands. What a role then reads is
 * in elements-attributes.c, elements-text.c and elements-markup.c.
 */
#include "elements-private.h"
#include "feed/error.h"

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
