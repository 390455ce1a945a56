/*
 * The push parser's state, shared by the SAX plumbing (parser.c) and the
 * rules that give each element its meaning (elements.c and the
 * elements-*.c beside it, see elements-private.h).
 */
#ifndef FEED_PARSER_PRIVATE_H
#define FEED_PARSER_PRIVATE_H

#include "channel-private.h"
#include "feed/parser.h"
#include "xml-private.h"

#include <libxml/parser.h>

/* The namespaces a feed's elements can be in, as far as libfeed cares. */
typedef enum {
	NS_CORE,  /* no namespace, or RSS 0.90/1.0's or Atom's own */
	NS_OTHER, /* any namespace libfeed does not read */
	NS_ITUNES,
	NS_ATOM,
	NS_MEDIA,
	NS_PSC,
	NS_CONTENT,
	NS_PODCAST,
	NS_DC,
	NS_DCTERMS,
	NS_RDF,
	NS_ENC,
	NS_XML,
	NS_XHTML,
} Namespace;

/*
 * What an element means where it stands: the same name means different
 * things in a channel and in an item. Roles up to ROLE_LAST_CONTAINER hold
 * other elements; the rest are leaves read from attributes or text.
 */
typedef enum {
	ROLE_SKIP, /* ignored, with everything inside it */
	ROLE_RSS,
	ROLE_RDF,
	ROLE_CHANNEL, /* rss/channel, rdf:RDF/channel, or the Atom feed */
	ROLE_ITEM,
	ROLE_IMAGE,
	ROLE_OWNER,
	ROLE_CATEGORY,
	ROLE_REDIRECT,
	ROLE_MEDIA_GROUP,
	ROLE_CHAPTERS,
	ROLE_ALTERNATE,
	ROLE_AUTHOR,
	ROLE_LAST_CONTAINER = ROLE_AUTHOR,

	/* channel */
	ROLE_CH_TITLE,
	ROLE_CH_DC_TITLE,
	ROLE_CH_LINK,
	ROLE_CH_DESCRIPTION,
	ROLE_CH_SUMMARY,
	ROLE_CH_SUBTITLE,
	ROLE_CH_DC_DESCRIPTION,
	ROLE_CH_ITUNES_AUTHOR,
	ROLE_CH_MANAGING_EDITOR,
	ROLE_CH_DC_CREATOR,
	ROLE_CH_RSS_AUTHOR,
	ROLE_CH_DC_AUTHOR,
	ROLE_CH_LANGUAGE,
	ROLE_CH_DC_LANGUAGE,
	ROLE_CH_NEW_URL,
	ROLE_CH_TYPE,
	ROLE_CH_EXPLICIT,
	ROLE_CH_BLOCK,
	ROLE_CH_COMPLETE,
	ROLE_CH_KEYWORDS,
	ROLE_CH_GENERATOR,
	ROLE_CH_FUNDING,
	ROLE_CH_LOCKED,
	ROLE_CH_PODCAST_GUID,
	ROLE_CH_MEDIUM,
	ROLE_CH_UPDATE_FREQUENCY,
	ROLE_CH_TTL,
	ROLE_CH_UPDATED,
	ROLE_CH_ICON,
	ROLE_CH_ITUNES_IMAGE,
	ROLE_CH_ITUNES_LINK,
	ROLE_CH_ATOM_LINK,
	ROLE_OWNER_NAME,
	ROLE_OWNER_EMAIL,
	ROLE_IMAGE_URL,
	ROLE_NEW_LOCATION,
	ROLE_AUTHOR_NAME,
	ROLE_PERSON, /* channel or item */

	/* item */
	ROLE_IT_TITLE,
	ROLE_IT_DC_TITLE,
	ROLE_IT_MEDIA_TITLE,         /* of the item */
	ROLE_IT_GROUP_MEDIA_TITLE,   /* of a media:group */
	ROLE_IT_CONTENT_MEDIA_TITLE, /* of a media:content */
	ROLE_IT_LINK,
	ROLE_IT_GUID,
	ROLE_IT_ATOM_ID,
	ROLE_IT_DESCRIPTION,
	ROLE_IT_DC_DESCRIPTION,
	ROLE_IT_SUMMARY,
	ROLE_IT_MEDIA_DESCRIPTION,
	ROLE_IT_CONTENT_ENCODED,
	ROLE_IT_BODY,     /* XHTML body */
	ROLE_IT_FULLITEM, /* escaped HTML */
	ROLE_IT_ATOM_CONTENT,
	ROLE_IT_ATOM_SUMMARY,
	ROLE_IT_PUBDATE,
	ROLE_IT_ATOM_PUBLISHED,
	ROLE_IT_ATOM_UPDATED,
	ROLE_IT_DC_DATE,
	ROLE_IT_DCTERMS_ISSUED,
	ROLE_IT_DCTERMS_CREATED,
	ROLE_IT_DCTERMS_MODIFIED,
	ROLE_IT_DURATION,
	ROLE_IT_EPISODE,
	ROLE_IT_SEASON,
	ROLE_IT_PODCAST_EPISODE,
	ROLE_IT_PODCAST_SEASON,
	ROLE_IT_EPISODE_TYPE,
	ROLE_IT_SUBTITLE,
	ROLE_IT_ITUNES_AUTHOR,
	ROLE_IT_EXPLICIT,
	ROLE_IT_BLOCK,
	ROLE_IT_ENCLOSURE,
	ROLE_IT_MEDIA_CONTENT,
	ROLE_IT_ENC_ENCLOSURE,
	ROLE_IT_ATOM_LINK,
	ROLE_IT_ITUNES_IMAGE,
	ROLE_IT_ITUNES_LINK,
	ROLE_IT_MEDIA_THUMBNAIL,
	ROLE_IT_PODCAST_CHAPTERS,
	ROLE_IT_TRANSCRIPT,
	ROLE_CHAPTER,
	ROLE_ALTERNATE_SOURCE,
} Role;

/* One open element. */
typedef struct {
	Role role;
	const char *base;    /* in-scope xml:base; NULL means none */
	char *own_base;      /* set when this element carries xml:base */
	const xmlChar *name; /* local name, interned by libxml2's dictionary */
	int ns_entries;      /* libxml2's nsTab entries for the namespaces it
	                        declares: 2 a namespace */
} Frame;

/* The attributes of one element as SAX2 delivers them. */
typedef struct {
	const xmlChar **values; /* 5 pointers an attribute */
	int n;
} Attributes;

/*
 * Scratch that lives from an item's start to its end: the sources that
 * only count when the ones before them in the contract are missing.
 */
typedef struct {
	gboolean guid_is_permalink;
	gboolean chapters_seen;     /* a psc:chapters has been read */
	gboolean has_description;   /* an item/description has been read */
	gboolean html_from_content; /* content:encoded gave description_html */
	gboolean html_from_body;    /* an XHTML body or fullitem gave it */
	gint64 updated;             /* Atom updated/modified; 0 means absent */
	gint64 dc_date;             /* 0 means absent */
	gint64 issued;              /* dcterms:issued; 0 means absent */
	gint64 created;             /* dcterms:created; 0 means absent */
	gint64 modified;            /* dcterms:modified; 0 means absent */
	char *dc_title;             /* squashed; NULL means absent */
	/* media:title of the item, of a media:group, of a media:content */
	char *media_title[3];           /* squashed; NULL means absent */
	char *dc_description;           /* as given; NULL means absent */
	gboolean dc_description_markup; /* it held child elements */
	char *image_url; /* itunes:image/@url, itunes:link; NULL */
	char *link;      /* an Atom link that only counts when no
	                    other gave one; NULL means absent */
} ItemScratch;

/* The channel's counterpart of ItemScratch, kept until the end. */
typedef struct {
	char *dc_title;       /* squashed; NULL means absent */
	char *subtitle;       /* itunes:subtitle; NULL means absent */
	char *dc_description; /* NULL means absent */
	char *rss_author;     /* channel/author; NULL means absent */
	char *dc_author;      /* NULL means absent */
	char *image_url;      /* itunes:image/@url, itunes:link; NULL */
	char *link;           /* see ItemScratch.link; NULL */
	char *channel_lang;   /* xml:lang of the channel; NULL */
	char *root_lang;      /* xml:lang of the root; NULL */
} ChannelScratch;

/*
 * How the capturing element takes child elements. Without markup, only
 * their text is kept; with it, parser->text holds them serialized as HTML
 * (tags, attributes, escaped text).
 */
typedef enum {
	MARKUP_NONE,     /* child elements are not markup */
	MARKUP_ON_CHILD, /* the first child element makes the text markup */
	MARKUP_ALWAYS,   /* the text is markup from the start (XHTML) */
} MarkupMode;

/* Attribute values a text element keeps until its end. */
typedef struct {
	char *a; /* role-dependent, see elements-attributes.c */
	char *b;
	char *c;
	char *d;
} Pending;

struct FeedParser {
	char *base_url; /* NULL means no base */
	FeedEpisodeFunc func;
	gpointer user_data;
	gsize max_size;   /* bytes */
	gsize fed;        /* bytes so far */
	gsize text_bytes; /* bytes of text libxml2 handed over so far */

	xmlSAXHandler sax;
	xmlParserCtxtPtr ctxt;     /* NULL until the first 4 bytes arrive */
	GByteArray *head;          /* bytes not yet given to libxml2 */
	GHashTable *html_entities; /* name -> xmlEntity, made on first use */

	FeedChannel *channel;
	FeedEpisode *episode; /* the open item, NULL outside items */
	ItemScratch item;
	FeedAlternateEnclosure *alternate; /* the open one, or NULL */
	guint category_depth; /* nesting of itunes:category; 0 outside */
	gboolean root_seen;
	gboolean atom03; /* a <feed> outside Atom 1.0's namespace */
	char *root_ns;   /* the root's namespace when it was not one libfeed
	                    knows, read as RSS's or Atom's own; NULL */
	ChannelScratch channel_scratch;

	GArray *frames; /* of Frame */
	GString *text;  /* text of the capturing element */
	guint capture;  /* depth of the capturing element + 1; 0 when none */
	Pending pending;
	MarkupMode markup_mode; /* of the capturing element */
	gboolean markup;        /* parser->text is serialized markup */
	gboolean strip_wrapper; /* the first child, a div, is left out */
	gboolean child_seen;    /* the capturing element has had a child */
	guint wrapper_depth;    /* frames->len of the wrapping div; 0 none */
	gboolean cdata_cr;      /* the last CDATA piece ended with a CR */
	gboolean stray_end_tag; /* libxml2 reported an end tag that closes
	                           no open element */
	gboolean can_keep_open; /* the libxml2 in use is one whose stacks
	                           keep_open() knows */

	/* A tiny cache from libxml2's interned namespace URIs to ours. */
	const xmlChar *ns_uri[8];
	Namespace ns_class[8];
	guint ns_next;

	gboolean text_suspect; /* libxml2 reported an error: check text */
	guint n_problems;
	GError *error; /* the first fatal error, or NULL */
	gboolean finished;
	FeedXmlQuiet quiet;       /* the thread's handler while libxml2 reads */
	gboolean encoding_failed; /* libxml2 stopped at bytes not in the
	                             declared encoding */
	gboolean encoding_known;  /* libxml2 has read the XML declaration */
	gboolean repair_input;    /* and reads the bytes as UTF-8 */
	gboolean input_repaired;  /* some were not allowed (utf8-input.c) */
	gsize handed;             /* bytes handed to libxml2 so far */
	gboolean start_checked;   /* what precedes <?xml has been looked at */
	int skipped_lines;        /* newlines in what was skipped; 0 none */
};

/* elements.c: which element means what. */
G_GNUC_INTERNAL
Namespace
feed_parser_classify_namespace(const xmlChar *uri, const xmlChar *prefix);

G_GNUC_INTERNAL
Role
feed_parser_root_role(FeedParser *parser, Namespace ns, const xmlChar *uri,
                      const char *name);

G_GNUC_INTERNAL
Role
feed_parser_role(FeedParser *parser, Role parent, Namespace ns,
                 const char *name);

G_GNUC_INTERNAL
gboolean
feed_parser_role_wants_text(Role role);

/* elements-attributes.c */
G_GNUC_INTERNAL
void
feed_parser_start_role(FeedParser *parser, Role role, const Frame *frame,
                       const Attributes *attrs);

/* elements-text.c */
G_GNUC_INTERNAL
void
feed_parser_end_role(FeedParser *parser, Role role, const Frame *frame,
                     const char *text);

/* elements-fallbacks.c */
G_GNUC_INTERNAL
void
feed_parser_finish_channel(FeedParser *parser);

G_GNUC_INTERNAL
void
feed_parser_clear_scratch(FeedParser *parser);

/* parser.c */
G_GNUC_INTERNAL
char *
feed_parser_dup_attribute(FeedParser *parser, const Attributes *attrs,
                          Namespace ns, const char *name);

G_GNUC_INTERNAL
void
feed_parser_add_problem(FeedParser *parser, const char *format, ...)
        G_GNUC_PRINTF(2, 3);

#endif
