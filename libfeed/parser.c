/*
 * The push parser's plumbing: libxml2's SAX2 push interface, the stack of
 * open elements with their xml:base, text capture, entities and errors.
 * What each element means is in elements.c and elements-*.c.
 */
#include "feed/error.h"
#include "parser-private.h"
#include "text-private.h"
#include "url-private.h"
#include "utf8-input-private.h"

#include <libxml/HTMLparser.h>
#include <libxml/SAX2.h>
#include <libxml/entities.h>
#include <libxml/parserInternals.h>
#include <stdlib.h>
#include <string.h>

/* More problems than this are counted, not listed. */
#define MAX_PROBLEMS 100

/* Bytes before the XML declaration that are looked through at most. */
#define MAX_JUNK 4096

/* Text may be this many times the document, plus 1 MiB. */
#define MAX_EXPANSION 4

/*
 * Elements open at once. libxml2 2.9 enforces its own limit (256) only
 * when it builds a tree; without one, each level costs it and us about
 * 60 bytes, so a document of nothing but start tags would take twenty
 * times its size in memory.
 */
#define MAX_DEPTH 256

static FeedParser *
parser_of(void *ctx)
{
	return ((xmlParserCtxtPtr)ctx)->_private;
}

static Frame *
top_frame(FeedParser *parser)
{
	return &g_array_index(parser->frames, Frame, parser->frames->len - 1);
}

void
feed_parser_add_problem(FeedParser *parser, const char *format, ...)
{
	GPtrArray *errors = parser->channel->errors;
	va_list args;

	parser->n_problems++;
	if (parser->n_problems > MAX_PROBLEMS)
		return;
	va_start(args, format);
	g_ptr_array_add(errors, feed_text_take_valid_utf8(
	                                g_strdup_vprintf(format, args)));
	va_end(args);
}

/*
 * Mostly called from libxml2's callbacks, whose arguments (attribute
 * values among them) point into the input buffer that xmlStopParser()
 * frees. So libxml2 is only told to call nothing more and read no further
 * here; push() stops it once xmlParseChunk() has returned.
 */
static void
set_fatal(FeedParser *parser, FeedError code, const char *message)
{
	if (parser->error == NULL)
		parser->error = g_error_new_literal(FEED_ERROR, code, message);
	if (parser->ctxt != NULL) {
		parser->ctxt->disableSAX = 1;
		parser->ctxt->instate = XML_PARSER_EOF;
	}
}

/*
 * Whether the end tag @name (as libxml2 reports it: a QName, or only the
 * local name when the open element has a prefix) closes none of the
 * elements open in @ctxt.
 */
static gboolean
closes_nothing(xmlParserCtxtPtr ctxt, const char *name)
{
	const char *colon;
	const char *local;

	if (name == NULL)
		return TRUE;
	colon = strrchr(name, ':');
	local = colon != NULL ? colon + 1 : name;
	for (int i = 0; i < ctxt->nameNr; i++) {
		const char *open = (const char *)ctxt->nameTab[i];

		if (open != NULL &&
		    (strcmp(open, name) == 0 || strcmp(open, local) == 0))
			return FALSE;
	}
	return TRUE;
}

static void
on_error(void *ctx, xmlErrorPtr error)
{
	FeedParser *parser = parser_of(ctx);
	g_autofree char *message = NULL;

	/*
	 * xmlCreatePushParserCtxt() reports a bad encoding in the first bytes
	 * before the context can point back here; parsing reports it again.
	 */
	if (parser == NULL)
		return;
	message = g_strchomp(g_strdup(error->message));

	switch (error->code) {
	case XML_ERR_ENTITY_LOOP:
		set_fatal(parser, FEED_ERROR_ENTITY_LIMIT,
		          "entity expansion is too large or loops; "
		          "the document is refused");
		return;
	case XML_ERR_TAG_NAME_MISMATCH:
		parser->stray_end_tag = closes_nothing(ctx, error->str2);
		break;
	default:
		break;
	}
	if (error->level == XML_ERR_WARNING)
		return;
	parser->text_suspect = TRUE;
	feed_parser_add_problem(parser, "line %d: %s", error->line, message);
}

/*
 * libxml2 hands out valid UTF-8 without control characters until it
 * reports an error: after an encoding error it reads on byte by byte. Only
 * then does text need checking, which spares the common case a pass.
 */
static char *
checked(FeedParser *parser, char *text)
{
	return parser->text_suspect ? feed_text_take_valid_utf8(text) : text;
}

/* The value of the SAX2 attribute at @a, entities decoded; NULL on error. */
static char *
decode_attribute(FeedParser *parser, const xmlChar **a)
{
	const char *value = (const char *)a[3];
	int length = (int)(a[4] - a[3]);
	xmlChar *decoded;
	char *copy;

	if (memchr(value, '&', length) == NULL)
		return checked(parser, feed_text_dup(value, length));
	/*
	 * Without XML_PARSE_NOENT, libxml2 leaves entity references in SAX2
	 * attribute values (and writes &amp; as &#38;): decode them as its
	 * tree builder would.
	 */
	decoded = xmlStringLenDecodeEntities(parser->ctxt, a[3], length,
	                                     XML_SUBSTITUTE_REF, 0, 0, 0);
	if (decoded == NULL)
		return NULL;
	copy = g_strdup((const char *)decoded);
	xmlFree(decoded);
	return checked(parser, copy);
}

char *
feed_parser_dup_attribute(FeedParser *parser, const Attributes *attrs,
                          Namespace ns, const char *name)
{
	for (int i = 0; i < attrs->n; i++) {
		const xmlChar **a = attrs->values + 5 * i;

		if (strcmp((const char *)a[0], name) != 0)
			continue;
		if (feed_parser_classify_namespace(a[2], a[1]) != ns)
			continue;
		return decode_attribute(parser, a);
	}
	return NULL;
}

/*
 * Undeclared HTML entities (&nbsp;, &eacute;) are common in feeds. libxml2
 * asks getEntity for any name it does not know; answering with a
 * predefined-type entity makes it insert the character as text, in
 * content and in attributes alike.
 */
static void
free_entity(gpointer data)
{
	xmlEntityPtr entity = data;

	g_free((char *)entity->name);
	g_free(entity->content);
	g_free(entity);
}

static xmlEntityPtr
html_entity(FeedParser *parser, const xmlChar *name)
{
	const htmlEntityDesc *desc = htmlEntityLookup(name);
	xmlEntityPtr entity;
	char utf8[8];
	int length;

	if (desc == NULL)
		return NULL;
	if (parser->html_entities == NULL)
		parser->html_entities = g_hash_table_new_full(
		        g_str_hash, g_str_equal, NULL, free_entity);
	entity = g_hash_table_lookup(parser->html_entities, name);
	if (entity != NULL)
		return entity;
	length = g_unichar_to_utf8(desc->value, utf8);
	entity = g_new0(xmlEntity, 1);
	entity->type = XML_ENTITY_DECL;
	entity->etype = XML_INTERNAL_GENERAL_ENTITY;
	entity->name = (const xmlChar *)g_strdup((const char *)name);
	entity->content = (xmlChar *)g_strndup(utf8, length);
	entity->length = length;
	g_hash_table_insert(parser->html_entities, (char *)entity->name,
	                    entity);
	return entity;
}

/*
 * The guard that makes recovery lose nothing. libxml2 2.9.14 clears
 * ctxt->wellFormed at its first error, and from then on
 * xmlParseReference() returns before it hands on any entity reference:
 * &amp;, &apos;, &nbsp; and the document's own entities all vanish from
 * the text, while character references stay. Little else that the push
 * parser does without validation or a tree depends on the flag: it picks
 * xmlParseChunk()'s return value, which note_encoding_failure() reads only
 * once libxml2 has stopped, and whether a declared entity's text parsed
 * cleanly, which after this is judged by the errors after its last
 * reference (an entity whose text is judged bad is emptied; keeping it
 * loses less). So the flag is given back here:
 * create_context() sets XML_PARSE_OLDSAX, under which xmlParseEntityRef()
 * asks getEntity for every name, the predefined ones too, just before
 * xmlParseReference() looks at the flag. The error itself was listed by
 * on_error() already. The entity limits still hold: libxml2 checks
 * amplification whatever the flag, and within_expansion_limit() counts.
 */
static xmlEntityPtr
on_get_entity(void *ctx, const xmlChar *name)
{
	xmlParserCtxtPtr ctxt = ctx;
	xmlEntityPtr entity;

	/* Once the document is refused, nothing is to be expanded. */
	if (parser_of(ctx)->error == NULL)
		ctxt->wellFormed = 1;
	entity = xmlSAX2GetEntity(ctx, name);
	/*
	 * Without OLDSAX, libxml2 counts only references to entities that
	 * are not predefined; its amplification checks compare that count
	 * with the input, so a predefined one is not counted here either.
	 */
	if (entity != NULL && ctxt->inSubset == 0 &&
	    entity->etype == XML_INTERNAL_PREDEFINED_ENTITY &&
	    ctxt->nbentities > 0)
		ctxt->nbentities--;
	return entity != NULL ? entity : html_entity(parser_of(ctx), name);
}

/* External entities and DTDs are never loaded, whatever the document says. */
static xmlParserInputPtr
on_resolve_entity(void *ctx, const xmlChar *public_id, const xmlChar *system_id)
{
	return NULL;
}

static Namespace
classify_cached(FeedParser *parser, const xmlChar *uri, const xmlChar *prefix)
{
	Namespace ns;
	guint slot;

	/* libxml2 interns namespace URIs, so a pointer identifies one. */
	if (uri != NULL) {
		for (guint i = 0; i < G_N_ELEMENTS(parser->ns_uri); i++)
			if (parser->ns_uri[i] == uri)
				return parser->ns_class[i];
	}
	ns = feed_parser_classify_namespace(uri, prefix);
	if (uri == NULL)
		return ns;
	if (ns == NS_OTHER && parser->root_ns != NULL &&
	    strcmp((const char *)uri, parser->root_ns) == 0)
		ns = NS_CORE;
	slot = parser->ns_next++ % G_N_ELEMENTS(parser->ns_uri);
	parser->ns_uri[slot] = uri;
	parser->ns_class[slot] = ns;
	return ns;
}

static const char *
xml_base(FeedParser *parser, const Attributes *attrs, char **own)
{
	const char *base = parser->frames->len > 0 ? top_frame(parser)->base
	                                           : parser->base_url;
	g_autofree char *value =
	        feed_parser_dup_attribute(parser, attrs, NS_XML, "base");

	*own = NULL;
	if (value == NULL)
		return base;
	*own = feed_url_resolve(base, value);
	return *own != NULL ? *own : base;
}

/*
 * Text can outgrow its document only through entities declared in the
 * document. libxml2 2.9's own amplification check misses a large entity
 * referenced many times when no tree is built, so libfeed counts.
 */
static gboolean
within_expansion_limit(FeedParser *parser, gsize length)
{
	parser->text_bytes += length;
	if (parser->text_bytes <= MAX_EXPANSION * parser->fed + (1 << 20))
		return TRUE;
	set_fatal(parser, FEED_ERROR_ENTITY_LIMIT,
	          "entity expansion is too large or loops; "
	          "the document is refused");
	return FALSE;
}

/* Appends the @length bytes at @text to @out, escaped as HTML text. */
static void
append_escaped(GString *out, const char *text, gsize length,
               gboolean in_attribute)
{
	const char *end = text + length;
	const char *run = text;

	for (const char *p = text; p < end; p++) {
		const char *entity;

		switch (*p) {
		case '&':
			entity = "&amp;";
			break;
		case '<':
			entity = "&lt;";
			break;
		case '>':
			entity = "&gt;";
			break;
		case '"':
			if (!in_attribute)
				continue;
			entity = "&quot;";
			break;
		default:
			continue;
		}
		g_string_append_len(out, run, p - run);
		g_string_append(out, entity);
		run = p + 1;
	}
	g_string_append_len(out, run, end - run);
}

/* HTML elements that have no end tag. */
static gboolean
is_void_element(const char *name)
{
	static const char *const names[] = {
		"area",  "base", "br",   "col",   "embed",  "hr",    "img",
		"input", "link", "meta", "param", "source", "track", "wbr",
	};

	for (gsize i = 0; i < G_N_ELEMENTS(names); i++)
		if (strcmp(name, names[i]) == 0)
			return TRUE;
	return FALSE;
}

/*
 * The capturing element's text so far was taken as text; from its first
 * child element on it is markup, so what came before is escaped.
 */
static void
begin_markup(FeedParser *parser)
{
	GString *text = parser->text;
	g_autofree char *plain = NULL;
	gsize length = text->len;

	parser->markup = TRUE;
	if (length == 0)
		return;
	plain = feed_text_dup(text->str, length);
	g_string_truncate(text, 0);
	append_escaped(text, plain, length, FALSE);
}

/*
 * Serializes the start tag of an element inside the capturing one. Only
 * its local name is written: in XHTML content that is the HTML name.
 */
static void
open_tag(FeedParser *parser, const xmlChar *localname, const Attributes *attrs)
{
	GString *text = parser->text;
	const char *name = (const char *)localname;

	if (!parser->markup)
		begin_markup(parser);
	if (parser->frames->len == parser->capture && !parser->child_seen) {
		parser->child_seen = TRUE;
		/* Atom's XHTML content comes wrapped in a div of its own. */
		if (parser->strip_wrapper && strcmp(name, "div") == 0) {
			parser->wrapper_depth = parser->frames->len + 1;
			return;
		}
	}
	g_string_append_c(text, '<');
	g_string_append(text, name);
	for (int i = 0; i < attrs->n; i++) {
		const xmlChar **a = attrs->values + 5 * i;
		g_autofree char *value = decode_attribute(parser, a);

		if (value == NULL)
			continue;
		if (!within_expansion_limit(parser, strlen(value)))
			return;
		g_string_append_c(text, ' ');
		if (a[1] != NULL) {
			g_string_append(text, (const char *)a[1]);
			g_string_append_c(text, ':');
		}
		g_string_append(text, (const char *)a[0]);
		g_string_append(text, "=\"");
		append_escaped(text, value, strlen(value), TRUE);
		g_string_append_c(text, '"');
	}
	g_string_append_c(text, '>');
}

/* The end tag of an element that open_tag() serialized. */
static void
close_tag(FeedParser *parser, const xmlChar *localname)
{
	const char *name = (const char *)localname;

	if (parser->frames->len == parser->wrapper_depth) {
		parser->wrapper_depth = 0;
		return;
	}
	if (is_void_element(name))
		return;
	g_string_append(parser->text, "</");
	g_string_append(parser->text, name);
	g_string_append_c(parser->text, '>');
}

static void
on_start_element(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                 const xmlChar *uri, int nb_namespaces,
                 const xmlChar **namespaces, int nb_attributes,
                 int nb_defaulted, const xmlChar **attributes)
{
	FeedParser *parser = parser_of(ctx);
	Attributes attrs = { attributes, nb_attributes };
	Role parent =
	        parser->frames->len > 0 ? top_frame(parser)->role : ROLE_SKIP;
	Frame frame = { ROLE_SKIP, NULL, NULL, localname, 2 * nb_namespaces };

	parser->cdata_cr = FALSE;
	if (parser->error != NULL)
		return;
	if (parser->frames->len >= MAX_DEPTH) {
		g_autofree char *message = g_strdup_printf(
		        "line %d: elements nested more than %d deep; the "
		        "document is refused",
		        xmlSAX2GetLineNumber(ctx), MAX_DEPTH);

		set_fatal(parser, FEED_ERROR_PARSE, message);
		return;
	}
	/* Inside a skipped or capturing element nothing has a meaning. */
	if ((parent == ROLE_SKIP && parser->frames->len > 0) ||
	    parser->capture != 0) {
		if (parser->capture != 0 && parser->markup_mode != MARKUP_NONE)
			open_tag(parser, localname, &attrs);
		frame.base = top_frame(parser)->base;
		g_array_append_val(parser->frames, frame);
		return;
	}
	if (parser->frames->len == 0)
		frame.role = feed_parser_root_role(
		        parser, classify_cached(parser, uri, prefix), uri,
		        (const char *)localname);
	else
		frame.role = feed_parser_role(
		        parser, parent, classify_cached(parser, uri, prefix),
		        (const char *)localname);
	if (parser->error != NULL)
		return;
	frame.base = xml_base(parser, &attrs, &frame.own_base);
	g_array_append_val(parser->frames, frame);
	if (frame.role == ROLE_SKIP)
		return;
	if (feed_parser_role_wants_text(frame.role)) {
		g_string_truncate(parser->text, 0);
		parser->capture = parser->frames->len;
		parser->markup_mode = MARKUP_NONE;
		parser->markup = FALSE;
		parser->strip_wrapper = FALSE;
		parser->child_seen = FALSE;
		parser->wrapper_depth = 0;
	}
	feed_parser_start_role(parser, frame.role, top_frame(parser), &attrs);
	if (parser->capture == parser->frames->len &&
	    parser->markup_mode == MARKUP_ALWAYS)
		parser->markup = TRUE;
}

static void
end_frame(FeedParser *parser)
{
	Frame *frame = top_frame(parser);

	if (parser->capture == parser->frames->len) {
		/* Lent, not copied: the rules copy only what they keep. */
		g_autofree char *repaired = NULL;
		const char *text = parser->text->str;

		parser->capture = 0;
		if (parser->text_suspect)
			text = repaired = feed_text_take_valid_utf8(
			        feed_text_dup(text, parser->text->len));
		feed_parser_end_role(parser, frame->role, frame, text);
	} else if (frame->role != ROLE_SKIP) {
		feed_parser_end_role(parser, frame->role, frame, NULL);
	}
	g_free(frame->own_base);
	g_array_set_size(parser->frames, parser->frames->len - 1);
}

/*
 * Keeps the element that a stray end tag would close open, in libxml2 as
 * here. libxml2 2.9 to 2.11 in recover mode end the current element at
 * any end tag: a </stray> early in an Atom feed or an RSS 1.0 channel
 * closed the root, and with it the rest of the document was lost. It
 * calls endElementNs between reporting the mismatch and popping its
 * stacks of names, xml:space values and namespaces (in that order, one
 * entry, one entry, and the entries of the element's namespace
 * declarations), so each gets a copy of its top here for the pop to take.
 * Only in the push parser's own context, only when its stack and the
 * frames agree, and only when no stack would have to grow.
 */
static gboolean
keep_open(FeedParser *parser, xmlParserCtxtPtr ctxt)
{
	const Frame *top = top_frame(parser);
	int ns = top->ns_entries;

	if (!parser->can_keep_open || ctxt != parser->ctxt ||
	    ctxt->nameNr != (int)parser->frames->len ||
	    ctxt->name != top->name || ctxt->nameNr >= ctxt->nameMax ||
	    ctxt->spaceNr < 1 || ctxt->spaceNr >= ctxt->spaceMax ||
	    ctxt->nsNr < ns || ctxt->nsNr + ns > ctxt->nsMax)
		return FALSE;
	ctxt->nameTab[ctxt->nameNr] = ctxt->nameTab[ctxt->nameNr - 1];
	ctxt->nameNr++;
	ctxt->spaceTab[ctxt->spaceNr] = ctxt->spaceTab[ctxt->spaceNr - 1];
	ctxt->spaceNr++;
	if (ns > 0)
		memcpy(&ctxt->nsTab[ctxt->nsNr], &ctxt->nsTab[ctxt->nsNr - ns],
		       ns * sizeof(ctxt->nsTab[0]));
	ctxt->nsNr += ns;
	return TRUE;
}

static void
on_end_element(void *ctx, const xmlChar *localname, const xmlChar *prefix,
               const xmlChar *uri)
{
	FeedParser *parser = parser_of(ctx);
	gboolean stray = parser->stray_end_tag;

	parser->cdata_cr = FALSE;
	parser->stray_end_tag = FALSE;
	if (parser->error != NULL || parser->frames->len == 0)
		return;
	/* A stray end tag is left out, as lenient readers do. */
	if (stray && keep_open(parser, ctx))
		return;
	if (parser->markup && parser->capture != 0 &&
	    parser->frames->len > parser->capture)
		close_tag(parser, localname);
	end_frame(parser);
}

static void
take_text(FeedParser *parser, const char *text, gsize length)
{
	if (!within_expansion_limit(parser, length))
		return;
	if (parser->capture == 0)
		return;
	if (parser->markup)
		append_escaped(parser->text, text, length, FALSE);
	else
		g_string_append_len(parser->text, text, length);
}

static void
on_characters(void *ctx, const xmlChar *text, int length)
{
	FeedParser *parser = parser_of(ctx);

	parser->cdata_cr = FALSE;
	take_text(parser, (const char *)text, length);
}

/*
 * XML ends every line with LF, a CR LF or lone CR in the document included
 * (a character reference &#13; is a CR and stays one), but libxml2's push
 * parser hands on CDATA sections as they are. A long section comes in
 * pieces, so a CR that ends one piece and an LF that starts the next are
 * one line end.
 */
static void
on_cdata(void *ctx, const xmlChar *data, int length)
{
	FeedParser *parser = parser_of(ctx);
	const char *text = (const char *)data;
	g_autofree char *copy = NULL;

	if (parser->cdata_cr && length > 0 && *text == '\n') {
		text++;
		length--;
	}
	parser->cdata_cr = length > 0 && text[length - 1] == '\r';
	if (memchr(text, '\r', length) == NULL) {
		take_text(parser, text, length);
		return;
	}
	copy = feed_text_dup(text, length);
	take_text(parser, copy, feed_text_normalize_line_ends(copy, length));
}

FeedParser *
feed_parser_new(const char *base_url, FeedEpisodeFunc func, gpointer user_data)
{
	FeedParser *parser = g_new0(FeedParser, 1);

	parser->base_url = base_url != NULL && *base_url != '\0'
	                           ? g_strdup(base_url)
	                           : NULL;
	parser->func = func;
	parser->user_data = user_data;
	parser->max_size = FEED_PARSER_DEFAULT_MAX_SIZE;
	parser->head = g_byte_array_new();
	parser->channel = feed_channel_new();
	parser->frames = g_array_sized_new(FALSE, FALSE, sizeof(Frame), 32);
	parser->text = g_string_sized_new(4096);

	/* See keep_open(): the libxml2 built against and the one in use. */
	parser->can_keep_open =
	        LIBXML_VERSION < 21200 && atoi(xmlParserVersion) < 21200;
	xmlSAXVersion(&parser->sax, 2);
	/* Only what builds no tree: libfeed reads events, not documents. */
	parser->sax.startElementNs = on_start_element;
	parser->sax.endElementNs = on_end_element;
	parser->sax.characters = on_characters;
	parser->sax.cdataBlock = on_cdata;
	parser->sax.ignorableWhitespace = on_characters;
	parser->sax.getEntity = on_get_entity;
	parser->sax.resolveEntity = on_resolve_entity;
	parser->sax.externalSubset = NULL;
	parser->sax.reference = NULL;
	parser->sax.processingInstruction = NULL;
	parser->sax.comment = NULL;
	parser->sax.setDocumentLocator = NULL;
	parser->sax.serror = on_error;
	parser->sax.error = NULL;
	parser->sax.warning = NULL;
	return parser;
}

void
feed_parser_free(FeedParser *parser)
{
	if (parser == NULL)
		return;
	if (parser->ctxt != NULL) {
		if (parser->ctxt->myDoc != NULL)
			xmlFreeDoc(parser->ctxt->myDoc);
		xmlFreeParserCtxt(parser->ctxt);
	}
	while (parser->frames->len > 0) {
		g_free(top_frame(parser)->own_base);
		g_array_set_size(parser->frames, parser->frames->len - 1);
	}
	g_array_unref(parser->frames);
	g_string_free(parser->text, TRUE);
	g_byte_array_unref(parser->head);
	g_clear_pointer(&parser->html_entities, g_hash_table_unref);
	g_clear_pointer(&parser->episode, feed_episode_unref);
	g_clear_pointer(&parser->alternate, feed_alternate_enclosure_free);
	g_free(parser->pending.a);
	g_free(parser->pending.b);
	g_free(parser->pending.c);
	g_free(parser->pending.d);
	feed_parser_clear_scratch(parser);
	g_free(parser->root_ns);
	feed_channel_unref(parser->channel);
	g_clear_error(&parser->error);
	g_free(parser->base_url);
	g_free(parser);
}

void
feed_parser_set_max_size(FeedParser *parser, gsize max_size)
{
	g_return_if_fail(parser != NULL);
	parser->max_size =
	        max_size != 0 ? max_size : FEED_PARSER_DEFAULT_MAX_SIZE;
}

static gboolean
take_error(FeedParser *parser, GError **error)
{
	if (parser->error == NULL)
		return TRUE;
	g_propagate_error(error, g_error_copy(parser->error));
	return FALSE;
}

/*
 * libxml2 detects UTF-16 and UTF-32 from the first four bytes only when
 * they come with the context, so those are held back until they are there.
 */
static void
create_context(FeedParser *parser, const char *data, int length)
{
	const char *name = parser->base_url != NULL ? parser->base_url : NULL;

	feed_xml_quiet_begin(&parser->quiet);
	parser->ctxt =
	        xmlCreatePushParserCtxt(&parser->sax, NULL, data, length, name);
	feed_xml_quiet_end(&parser->quiet);
	parser->ctxt->_private = parser;
	/* Errors name lines of the document as it came. */
	if (parser->ctxt->input != NULL)
		parser->ctxt->input->line += parser->skipped_lines;
	/* OLDSAX: see on_get_entity(). */
	xmlCtxtUseOptions(parser->ctxt, XML_PARSE_RECOVER | XML_PARSE_NONET |
	                                        XML_PARSE_OLDSAX);
	/* xmlCtxtUseOptions puts back libxml2's default DTD loading hooks. */
	parser->ctxt->sax->resolveEntity = on_resolve_entity;
	parser->ctxt->sax->externalSubset = NULL;
}

/* A failure that libxml2 only prints (see xml-private.h). */
static void
note_encoding_failure(FeedParser *parser, int status)
{
	xmlParserCtxtPtr ctxt = parser->ctxt;

	if (status != XML_ERR_INVALID_ENCODING || parser->encoding_failed ||
	    ctxt->instate != XML_PARSER_EOF)
		return;
	parser->encoding_failed = TRUE;
	feed_parser_add_problem(parser,
	                        "line %d: bytes that are not in the declared "
	                        "encoding; the rest is not read",
	                        ctxt->input != NULL ? ctxt->input->line : 0);
}

static gboolean
push(FeedParser *parser, const char *data, gsize length, gboolean terminate)
{
	while (length > 0 || terminate) {
		int chunk = (int)MIN(length, (gsize)1 << 20);
		int status;

		feed_xml_quiet_begin(&parser->quiet);
		status = xmlParseChunk(parser->ctxt, data, chunk,
		                       terminate && (gsize)chunk == length);
		feed_xml_quiet_end(&parser->quiet);
		note_encoding_failure(parser, status);
		if (parser->error != NULL) {
			xmlStopParser(parser->ctxt);
			return FALSE;
		}
		length -= chunk;
		if (length == 0)
			break;
		/* The last push may have no data: NULL + 0 is undefined. */
		data += chunk;
	}
	return TRUE;
}

/*
 * Whether libxml2 reads the document's bytes as UTF-8 as they are, rather
 * than converting them from the encoding the document declares (which
 * gives it valid UTF-8). Known once the XML declaration has been read.
 */
static gboolean
reads_bytes_as_utf8(xmlParserCtxtPtr ctxt)
{
	return ctxt->charset == XML_CHAR_ENCODING_UTF8 &&
	       (ctxt->input == NULL || ctxt->input->buf == NULL ||
	        ctxt->input->buf->encoder == NULL);
}

/* Hands on @length bytes of UTF-8 input, repaired (see utf8-input.c). */
static gsize
push_repaired(FeedParser *parser, const char *data, gsize length,
              gboolean at_end)
{
	GString *repaired = NULL;
	gsize first = 0;
	gsize n =
	        feed_utf8_input_repair(data, length, at_end, &repaired, &first);

	if (repaired == NULL) {
		push(parser, data, n, FALSE);
		return n;
	}
	if (!parser->input_repaired) {
		parser->input_repaired = TRUE;
		feed_parser_add_problem(parser,
		                        "byte %" G_GSIZE_FORMAT
		                        ": not UTF-8 or not allowed in XML; "
		                        "such bytes are read as windows-1252, "
		                        "control characters left out",
		                        parser->handed + first + 1);
	}
	push(parser, repaired->str, repaired->len, FALSE);
	g_string_free(repaired, TRUE);
	return n;
}

/*
 * The part of hand_over() after what comes before the XML declaration.
 */
static gsize
hand_over_rest(FeedParser *parser, const char *data, gsize length,
               gboolean at_end)
{
	gsize given = 0;

	if (parser->ctxt == NULL) {
		if (length < 4 && !at_end)
			return 0;
		given = MIN(length, 4);
		create_context(parser, data, (int)given);
	}
	if (!parser->encoding_known) {
		const char *gt = length > given ? memchr(data + given, '>',
		                                         length - given)
		                                : NULL;
		gsize end = gt != NULL ? (gsize)(gt + 1 - data) : length;

		/* A declaration is short: waiting longer would not help. */
		if (gt == NULL && length < 4096 && !at_end) {
			parser->handed += given;
			return given;
		}
		if (end > given)
			push(parser, data + given, end - given, FALSE);
		given = end;
		parser->encoding_known = TRUE;
		parser->repair_input = reads_bytes_as_utf8(parser->ctxt);
	}
	parser->handed += given;
	if (given < length && parser->error == NULL) {
		gsize n = length - given;

		if (parser->repair_input)
			n = push_repaired(parser, data + given, n, at_end);
		else
			push(parser, data + given, n, FALSE);
		parser->handed += n;
		given += n;
	}
	return given;
}

/*
 * Whether the @length bytes at @data (the text before an XML declaration)
 * hold something that shows they are the document itself: markup other
 * than plain tags (a comment, CDATA, a DOCTYPE, a processing instruction),
 * a feed's root element, or a NUL byte, which UTF-16 and UTF-32 have.
 */
static gboolean
looks_like_document(const char *data, gsize length)
{
	static const char *const roots[] = { "rss", "feed", "rdf" };

	if (memchr(data, '\0', length) != NULL)
		return TRUE;
	for (const char *p = memchr(data, '<', length); p != NULL;
	     p = memchr(p + 1, '<', data + length - p - 1)) {
		gsize left = data + length - p - 1;

		if (left > 0 && (p[1] == '?' || p[1] == '!'))
			return TRUE;
		for (gsize i = 0; i < G_N_ELEMENTS(roots); i++) {
			gsize n = strlen(roots[i]);

			if (left >= n &&
			    g_ascii_strncasecmp(p + 1, roots[i], n) == 0)
				return TRUE;
		}
	}
	return FALSE;
}

/*
 * How many bytes at the start come before the XML declaration and are to
 * be skipped, or -1 when that is not known yet. Lenient readers skip
 * whitespace, a byte order mark, or a stray line (a server's warning) in
 * front of <?xml; libxml2 would instead read the declaration as a
 * processing instruction, and so ignore the encoding it declares.
 */
static gssize
junk_before_declaration(const char *data, gsize length, gboolean at_end)
{
	gsize limit = MIN(length, MAX_JUNK + 6);
	const char *decl;
	gsize at;

	if (length == 0)
		return at_end ? 0 : -1;
	decl = memmem(data, limit, "<?xml", 5);
	if (decl == NULL) {
		if (at_end || length >= MAX_JUNK + 6)
			return 0;
		/* The declaration may be cut, "<?" and all. */
		for (gsize n = MIN(length, 4); n > 0; n--)
			if (memcmp(data + length - n, "<?xml", n) == 0)
				return -1;
		return looks_like_document(data, length) ? 0 : -1;
	}
	at = decl - data;
	if (at + 5 == length && !at_end)
		return -1;
	/* <?xml-stylesheet is not a declaration. */
	if (at + 5 == length || !(g_ascii_isspace(decl[5]) || decl[5] == '?'))
		return 0;
	/* libxml2 knows a byte order mark of its own. */
	if (at == 0 || (at == 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0))
		return 0;
	return looks_like_document(data, at) ? 0 : (gssize)at;
}

/*
 * Gives libxml2 what it can take of the @length bytes at @data and returns
 * how many it took; with @at_end, all. Up to the first '>', which ends the
 * XML declaration when there is one, the bytes go as they are: after it,
 * libxml2 knows the encoding, and UTF-8 is repaired from then on.
 */
static gsize
hand_over(FeedParser *parser, const char *data, gsize length, gboolean at_end)
{
	gssize junk = 0;

	if (!parser->start_checked) {
		junk = junk_before_declaration(data, length, at_end);
		if (junk < 0)
			return 0;
		parser->start_checked = TRUE;
		if (junk > 0) {
			for (gssize i = 0; i < junk; i++)
				parser->skipped_lines += data[i] == '\n';
			feed_parser_add_problem(parser,
			                        "line 1: %" G_GSSIZE_FORMAT
			                        " byte%s before "
			                        "the XML declaration, skipped",
			                        junk, junk == 1 ? "" : "s");
			parser->handed += junk;
		}
	}
	if (junk == 0)
		return hand_over_rest(parser, data, length, at_end);
	return junk +
	       hand_over_rest(parser, data + junk, length - junk, at_end);
}

gboolean
feed_parser_feed(FeedParser *parser, const char *data, gsize length,
                 GError **error)
{
	gsize taken;

	g_return_val_if_fail(parser != NULL, FALSE);
	g_return_val_if_fail(data != NULL || length == 0, FALSE);
	g_return_val_if_fail(!parser->finished, FALSE);

	if (parser->error != NULL)
		return take_error(parser, error);
	parser->fed += length;
	if (parser->fed > parser->max_size) {
		g_autofree char *cap = g_format_size_full(
		        parser->max_size, G_FORMAT_SIZE_IEC_UNITS);
		g_autofree char *message = g_strdup_printf(
		        "the document is larger than the %s cap", cap);
		set_fatal(parser, FEED_ERROR_TOO_LARGE, message);
		return take_error(parser, error);
	}
	if (parser->head->len > 0) {
		g_byte_array_append(parser->head, (const guint8 *)data, length);
		data = (const char *)parser->head->data;
		length = parser->head->len;
	}
	taken = hand_over(parser, data, length, FALSE);
	if (parser->head->len > 0)
		g_byte_array_remove_range(parser->head, 0, taken);
	else if (taken < length)
		g_byte_array_append(parser->head, (const guint8 *)data + taken,
		                    length - taken);
	return take_error(parser, error);
}

FeedChannel *
feed_parser_finish(FeedParser *parser, GError **error)
{
	FeedChannel *channel;

	g_return_val_if_fail(parser != NULL, NULL);
	g_return_val_if_fail(!parser->finished, NULL);

	parser->finished = TRUE;
	if (parser->error == NULL) {
		hand_over(parser, (const char *)parser->head->data,
		          parser->head->len, TRUE);
		g_byte_array_set_size(parser->head, 0);
		if (parser->error == NULL)
			push(parser, "", 0, TRUE);
	}
	if (parser->error == NULL && !parser->root_seen)
		set_fatal(parser, FEED_ERROR_PARSE,
		          parser->fed == 0
		                  ? "not a feed: the document is empty"
		                  : "not a feed: no XML element found");
	if (!take_error(parser, error))
		return NULL;
	/* A truncated document leaves elements open: close them in order. */
	while (parser->frames->len > 0)
		end_frame(parser);
	feed_parser_finish_channel(parser);
	if (parser->n_problems > MAX_PROBLEMS)
		feed_parser_add_problem(parser, "%u more problems not listed",
		                        parser->n_problems - MAX_PROBLEMS);
	channel = g_steal_pointer(&parser->channel);
	parser->channel = feed_channel_new();
	return channel;
}
