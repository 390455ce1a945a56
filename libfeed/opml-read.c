/*
 * Reading OPML: libxml2's tree of a document parsed from memory (lists are
 * small, and capped), its outlines walked for feeds and categories.
 */
#include "feed/error.h"
#include "opml-private.h"
#include "text-private.h"
#include "xml-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_CHUNK (64 * 1024)

typedef struct {
	FeedOpml *opml;
	GPtrArray *path; /* names of the enclosing categories, borrowed */
	int error_code;  /* of the first error libxml2 reported; 0 for none */
	int error_line;  /* its line */
	char *error;     /* its message; NULL when there was none */
} Reader;

static gboolean
is_element(const xmlNode *node, const char *name)
{
	return node->type == XML_ELEMENT_NODE &&
	       g_ascii_strcasecmp((const char *)node->name, name) == 0;
}

/* Exports differ in the case of attribute names: any case matches. */
static char *
dup_attribute(const xmlNode *node, const char *name)
{
	for (const xmlAttr *attr = node->properties; attr != NULL;
	     attr = attr->next) {
		xmlChar *value;
		char *copy;

		if (attr->ns != NULL ||
		    g_ascii_strcasecmp((const char *)attr->name, name) != 0)
			continue;
		value = xmlNodeListGetString(node->doc, attr->children, 1);
		if (value == NULL)
			continue;
		copy = g_strdup((const char *)value);
		xmlFree(value);
		return copy;
	}
	return NULL;
}

static char *
outline_url(const xmlNode *node)
{
	g_autofree char *xml_url = dup_attribute(node, "xmlUrl");
	g_autofree char *type = NULL;
	g_autofree char *url = NULL;
	char *clean = feed_opml_clean_url(xml_url);

	if (clean != NULL)
		return clean;
	type = dup_attribute(node, "type");
	if (type == NULL)
		return NULL;
	g_strstrip(type);
	if (g_ascii_strcasecmp(type, "rss") != 0 &&
	    g_ascii_strcasecmp(type, "link") != 0)
		return NULL;
	url = dup_attribute(node, "url");
	return feed_opml_clean_url(url);
}

/* `title`, else `text`, squashed; "" when neither has any. */
static char *
outline_title(const xmlNode *node)
{
	g_autofree char *title = dup_attribute(node, "title");
	g_autofree char *text = NULL;
	char *clean = feed_opml_clean_text(title);

	if (*clean != '\0')
		return clean;
	g_free(clean);
	text = dup_attribute(node, "text");
	return feed_opml_clean_text(text);
}

static void
read_children(Reader *reader, const xmlNode *parent);

static void
read_outline(Reader *reader, const xmlNode *node)
{
	char *url = outline_url(node);
	g_autofree char *title = outline_title(node);
	g_autofree char *html_url = NULL;

	if (url != NULL) {
		html_url = dup_attribute(node, "htmlUrl");
		/* A second outline of a URL is dropped: the first stays. */
		feed_opml_add_clean(reader->opml, url, title,
		                    (const char *const *)reader->path->pdata,
		                    reader->path->len, html_url);
		read_children(reader, node);
		return;
	}
	if (*title == '\0') {
		read_children(reader, node);
		return;
	}
	g_ptr_array_add(reader->path, title);
	read_children(reader, node);
	g_ptr_array_set_size(reader->path, reader->path->len - 1);
}

/* Outlines anywhere but in `head`: some exports misplace `body`. */
static void
read_children(Reader *reader, const xmlNode *parent)
{
	for (const xmlNode *node = parent->children; node != NULL;
	     node = node->next) {
		if (is_element(node, "outline"))
			read_outline(reader, node);
		else if (node->type == XML_ELEMENT_NODE &&
		         !is_element(node, "head"))
			read_children(reader, node);
	}
}

static char *
read_title(const xmlNode *root)
{
	for (const xmlNode *head = root->children; head != NULL;
	     head = head->next) {
		if (!is_element(head, "head"))
			continue;
		for (const xmlNode *node = head->children; node != NULL;
		     node = node->next) {
			xmlChar *content;
			char *title;

			if (!is_element(node, "title"))
				continue;
			content = xmlNodeGetContent(node);
			title = feed_opml_clean_text((const char *)content);
			xmlFree(content);
			return title;
		}
	}
	return g_strdup("");
}

static void
on_error(void *ctx, xmlErrorPtr error)
{
	Reader *reader = ((xmlParserCtxtPtr)ctx)->_private;

	if (error->level == XML_ERR_WARNING || reader->error != NULL)
		return;
	/* libxml2 quotes names as they are, UTF-8 or not. */
	reader->error =
	        feed_text_take_valid_utf8(g_strchomp(g_strdup(error->message)));
	reader->error_code = error->code;
	reader->error_line = error->line;
}

/* Declared entities are not expanded, so none can blow up. */
static void
on_entity_decl(void *ctx, const xmlChar *name, int type,
               const xmlChar *public_id, const xmlChar *system_id,
               xmlChar *content)
{
}

static xmlParserInputPtr
on_resolve_entity(void *ctx, const xmlChar *public_id, const xmlChar *system_id)
{
	return NULL;
}

static void
on_external_subset(void *ctx, const xmlChar *name, const xmlChar *external_id,
                   const xmlChar *system_id)
{
}

static xmlDocPtr
parse_tree(Reader *reader, const char *data, gsize length, const char *encoding)
{
	xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
	int options = XML_PARSE_NONET | XML_PARSE_RECOVER | XML_PARSE_BIG_LINES;
	FeedXmlQuiet quiet;
	xmlDocPtr doc;

	/* Out of memory: GLib's policy is to abort. */
	g_assert(ctxt != NULL);
	ctxt->_private = reader;
	ctxt->sax->serror = on_error;
	ctxt->sax->entityDecl = on_entity_decl;
	ctxt->sax->resolveEntity = on_resolve_entity;
	ctxt->sax->externalSubset = on_external_subset;
	if (encoding != NULL)
		options |= XML_PARSE_IGNORE_ENC;
	feed_xml_quiet_begin(&quiet);
	doc = xmlCtxtReadMemory(ctxt, data, (int)length, NULL, encoding,
	                        options);
	feed_xml_quiet_end(&quiet);
	xmlFreeParserCtxt(ctxt);
	return doc;
}

/*
 * An encoding libxml2 does not know stops it at the declaration; apps
 * write UTF-8 whatever they declare, so the document is read as that, and
 * bytes that are not are repaired.
 */
static xmlDocPtr
parse(Reader *reader, const char *data, gsize length)
{
	xmlDocPtr doc = parse_tree(reader, data, length, NULL);

	if (doc != NULL && xmlDocGetRootElement(doc) != NULL)
		return doc;
	if (reader->error_code != XML_ERR_UNSUPPORTED_ENCODING)
		return doc;
	g_debug("%s; reading as UTF-8", reader->error);
	xmlFreeDoc(doc);
	g_clear_pointer(&reader->error, g_free);
	reader->error_code = 0;
	return parse_tree(reader, data, length, "UTF-8");
}

static gboolean
is_control(guchar c)
{
	return c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\0';
}

/*
 * A raw control character in an attribute makes libxml2 drop the whole
 * outline, and exports written with Python's minidom carry them over from
 * feed titles: they are dropped first. Only in documents without a NUL
 * byte, which UTF-16 and UTF-32 ones always have (in `<`), so that no
 * byte is taken out of a wider character.
 */
static char *
without_controls(const char *data, gsize *length)
{
	const guchar *in = (const guchar *)data;
	char *copy;
	gsize n = 0;
	gboolean found = FALSE;

	for (gsize i = 0; i < *length; i++) {
		if (in[i] == '\0')
			return NULL;
		found = found || is_control(in[i]);
	}
	if (!found)
		return NULL;
	copy = g_malloc(*length);
	for (gsize i = 0; i < *length; i++)
		if (!is_control(in[i]))
			copy[n++] = (char)in[i];
	*length = n;
	return copy;
}

static void
set_not_xml(GError **error, const Reader *reader)
{
	g_autofree char *message = NULL;

	if (reader->error == NULL) {
		g_set_error_literal(error, FEED_ERROR, FEED_ERROR_PARSE,
		                    "not an xml document");
		return;
	}
	message = g_strdup(reader->error);
	message[0] = g_ascii_tolower(message[0]);
	g_set_error(error, FEED_ERROR, FEED_ERROR_PARSE,
	            "not an xml document: line %d: %s", reader->error_line,
	            message);
}

FeedOpml *
feed_opml_new_from_data(const char *data, gsize length, GError **error)
{
	g_autoptr(FeedOpml) opml = NULL;
	Reader reader = { 0 };
	g_autofree char *cleaned = NULL;
	xmlDocPtr doc;
	const xmlNode *root;

	g_return_val_if_fail(data != NULL || length == 0, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	if (length > FEED_OPML_MAX_SIZE) {
		g_set_error(error, FEED_ERROR, FEED_ERROR_TOO_LARGE,
		            "the document is larger than %u MiB",
		            (guint)(FEED_OPML_MAX_SIZE >> 20));
		return NULL;
	}
	if (length == 0) {
		g_set_error_literal(error, FEED_ERROR, FEED_ERROR_PARSE,
		                    "the document is empty");
		return NULL;
	}
	cleaned = without_controls(data, &length);
	doc = parse(&reader, cleaned != NULL ? cleaned : data, length);
	root = doc != NULL ? xmlDocGetRootElement(doc) : NULL;
	if (root == NULL) {
		set_not_xml(error, &reader);
	} else if (!is_element(root, "opml")) {
		/* Recovering, libxml2 keeps names that are not UTF-8. */
		g_autofree char *name = feed_text_take_valid_utf8(
		        g_strdup((const char *)root->name));

		g_set_error(error, FEED_ERROR, FEED_ERROR_UNSUPPORTED,
		            "not an opml document: the root element is <%s>",
		            name);
	} else {
		g_autofree char *title = read_title(root);

		opml = feed_opml_new(title);
		reader.opml = opml;
		reader.path = g_ptr_array_new();
		read_children(&reader, root);
		g_ptr_array_unref(reader.path);
		if (reader.error != NULL)
			g_debug("line %d: %s", reader.error_line, reader.error);
	}
	xmlFreeDoc(doc);
	g_free(reader.error);
	return g_steal_pointer(&opml);
}

/* Reads @fd whole, refusing more than FEED_OPML_MAX_SIZE bytes. */
static GByteArray *
read_capped(int fd, GError **error)
{
	g_autoptr(GByteArray) bytes = g_byte_array_new();
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (guint64)st.st_size > FEED_OPML_MAX_SIZE)
		goto too_large;
	for (;;) {
		guint at = bytes->len;
		gssize n;

		g_byte_array_set_size(bytes, at + READ_CHUNK);
		n = read(fd, bytes->data + at, READ_CHUNK);
		if (n < 0 && errno == EINTR) {
			g_byte_array_set_size(bytes, at);
			continue;
		}
		if (n < 0) {
			int saved = errno;

			g_set_error(error, FEED_ERROR, FEED_ERROR_IO,
			            "cannot read: %s", g_strerror(saved));
			return NULL;
		}
		g_byte_array_set_size(bytes, at + n);
		if (n == 0)
			return g_steal_pointer(&bytes);
		if (bytes->len > FEED_OPML_MAX_SIZE)
			goto too_large;
	}
too_large:
	g_set_error(error, FEED_ERROR, FEED_ERROR_TOO_LARGE,
	            "the document is larger than %u MiB",
	            (guint)(FEED_OPML_MAX_SIZE >> 20));
	return NULL;
}

FeedOpml *
feed_opml_new_from_file(const char *path, GError **error)
{
	g_autofree char *name = NULL;
	g_autoptr(GByteArray) bytes = NULL;
	FeedOpml *opml;
	int fd;

	g_return_val_if_fail(path != NULL, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	name = g_filename_display_name(path);
	fd = g_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0) {
		int saved = errno;

		g_set_error(error, FEED_ERROR, FEED_ERROR_IO,
		            "%s: cannot open: %s", name, g_strerror(saved));
		return NULL;
	}
	bytes = read_capped(fd, error);
	close(fd);
	if (bytes == NULL) {
		g_prefix_error(error, "%s: ", name);
		return NULL;
	}
	opml = feed_opml_new_from_data((const char *)bytes->data, bytes->len,
	                               error);
	if (opml == NULL)
		g_prefix_error(error, "%s: ", name);
	return opml;
}
