/*
 * The push parser's state, shared by the SAX plumbing (parser.c) and the
 * rules that give each element its meaning (elements.c).
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
	NS_RDF,
	NS_ENC,
	NS_XML,
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
	ROLE_CH_LINK,
	ROLE_CH_DESCRIPTION,
	ROLE_CH_SUMMARY,
	ROLE_CH_ITUNES_AUTHOR,
	ROLE_CH_MANAGING_EDITOR,
	ROLE_CH_DC_CREATOR,
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
	ROLE_CH_ATOM_LINK,
	ROLE_OWNER_NAME,
	ROLE_OWNER_EMAIL,
	ROLE_IMAGE_URL,
	ROLE_NEW_LOCATION,
	ROLE_AUTHOR_NAME,
	ROLE_PERSON, /* channel or item */

	/* item */
	ROLE_IT_TITLE,
	ROLE_IT_LINK,
	ROLE_IT_GUID,
	ROLE_IT_ATOM_ID,
	ROLE_IT_DESCRIPTION,
	ROLE_IT_SUMMARY,
	ROLE_IT_MEDIA_DESCRIPTION,
	ROLE_IT_CONTENT_ENCODED,
	ROLE_IT_ATOM_CONTENT,
	ROLE_IT_ATOM_SUMMARY,
	ROLE_IT_PUBDATE,
	ROLE_IT_ATOM_PUBLISHED,
	ROLE_IT_ATOM_UPDATED,
	ROLE_IT_DC_DATE,
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
	ROLE_IT_MEDIA_THUMBNAIL,
	ROLE_IT_PODCAST_CHAPTERS,
	ROLE_IT_TRANSCRIPT,
	ROLE_CHAPTER,
	ROLE_ALTERNATE_SOURCE,
} Role;

/* One open element. */
typedef struct {
	Role role;
	const char *base; /* in-scope xml:base; NULL means none */
	char *own_base;   /* set when this element carries xml:base */
} Frame;

/* The attributes of one element as SAX2 delivers them. */
typedef struct {
	const xmlChar **values; /* 5 pointers an attribute */
	int n;
} Attributes;

/* Scratch that lives from an item's start to its end. */
typedef struct {
	gboolean guid_is_permalink;
	gint64 updated; /* Atom updated/modified; 0 means absent */
	gint64 dc_date; /* 0 means absent */
} ItemScratch;

/* Attribute values a text element keeps until its end. */
typedef struct {
	char *a; /* role-dependent, see elements.c */
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

	GArray *frames; /* of Frame */
	GString *text;  /* text of the capturing element */
	guint capture;  /* depth of the capturing element + 1; 0 when none */
	Pending pending;

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
};

/* elements.c */
G_GNUC_INTERNAL
Namespace
feed_parser_classify_namespace(const xmlChar *uri, const xmlChar *prefix);

G_GNUC_INTERNAL
Role
feed_parser_role(FeedParser *parser, Role parent, Namespace ns,
                 const char *name);

G_GNUC_INTERNAL
gboolean
feed_parser_role_wants_text(Role role);

G_GNUC_INTERNAL
void
feed_parser_start_role(FeedParser *parser, Role role, const Frame *frame,
                       const Attributes *attrs);

G_GNUC_INTERNAL
void
feed_parser_end_role(FeedParser *parser, Role role, const Frame *frame,
                     const char *text);

G_GNUC_INTERNAL
void
feed_parser_finish_channel(FeedParser *parser);

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
