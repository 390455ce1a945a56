/*
 * Autodiscovery: the feed links of an HTML page, read with libxml2's HTML
 * push parser through a SAX handler that builds no tree.
 *
 * libxml2 2.9 gets UTF-8 only. Its own switch to the charset of a <meta>
 * prints to stderr through the global error handler, which no parser
 * option silences, at the first byte that charset lacks (0x81 in
 * windows-1252, or U+201D in a UTF-8 page labelled so), and then reads no
 * further. So the page is decoded here, as browsers do: by its byte order
 * mark, else by a <meta> in its first 1024 bytes, else as UTF-8. libxml2
 * also gets its chunks cut where the text says (see feed()), and a new
 * parser for what follows </html> (see renew()).
 */
#include "discover-private.h"
#include "text-private.h"
#include "url-private.h"

#include <errno.h>
#include <libxml/HTMLparser.h>
#include <string.h>

enum {
	/* Links kept; the best ones, as the result orders them. */
	MAX_LINKS = 32,
	/* Longer hrefs (data: URLs) are no feed, and would cost memory. */
	MAX_HREF = 8192,
	/* Bytes scanned for a <meta> charset, as in the WHATWG prescan. */
	SNIFF_SIZE = 1024,
	/* Text given to libxml2 at a time: at least, and at most. */
	BLOCK = 8 * 1024,
	MAX_HELD = 64 * 1024,
};

/* Groups of the result, in its order. */
typedef enum {
	KIND_RSS,
	KIND_ATOM,
	KIND_OTHER,
} Kind;

typedef struct {
	/* As the page writes it, valid UTF-8: a late <base> resolves it again.
	 */
	char *href;
	/* Resolved; http or https. */
	char *url;
	Kind kind;
	/* Position among the page's feed links, from 0. */
	guint order;
} Link;

struct FeedDiscover {
	/* NULL when unknown. */
	char *page_url;
	/* The first <base href>, resolved; NULL until there is one. */
	char *base;
	/* Whether a <base> with an href was seen: only the first counts. */
	gboolean base_seen;
	/* The first bytes, held until the charset is known; NULL after. */
	GByteArray *head;
	/* Whether the charset is known: a BOM or a usable <meta> was found. */
	gboolean charset_known;
	/* From the page's charset to UTF-8; NULL for UTF-8. */
	GIConv conv;
	/* The start of a character cut off by the end of a chunk. */
	GByteArray *pending;
	/* Decoded text not yet given to libxml2. */
	GString *held;
	/* Bytes of @held known to hold no '<' after BLOCK; 0 for none. */
	gsize scanned;
	/* NULL before the charset is known and after the end. */
	htmlParserCtxtPtr ctxt;
	/* Link *, at most MAX_LINKS, in no order until sorted. */
	GPtrArray *links;
	/* Feed links seen so far, kept or not: the next Link.order. */
	guint n_seen;
	/* Whether feed_discover_finish() has ended the page. */
	gboolean finished;
};

static void
link_free(gpointer data)
{
	Link *link = data;

	g_free(link->href);
	g_free(link->url);
	g_free(link);
}

static int
compare_links(gconstpointer a, gconstpointer b)
{
	const Link *x = *(Link *const *)a;
	const Link *y = *(Link *const *)b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Returns "" for an attribute without a value, NULL for a missing one. */
static const char *
attribute(const xmlChar **atts, const char *name)
{
	for (; atts[0] != NULL; atts += 2) {
		if (strcmp((const char *)atts[0], name) == 0)
			return atts[1] != NULL ? (const char *)atts[1] : "";
	}
	return NULL;
}

static gboolean
is_html_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* Whether the space-separated list @tokens holds @token, in any case. */
static gboolean
has_token(const char *tokens, const char *token)
{
	gsize length = strlen(token);

	while (*tokens != '\0') {
		gsize n = 0;

		while (is_html_space(*tokens))
			tokens++;
		while (tokens[n] != '\0' && !is_html_space(tokens[n]))
			n++;
		if (n == length && g_ascii_strncasecmp(tokens, token, n) == 0)
			return TRUE;
		tokens += n;
	}
	return FALSE;
}

/*
 * Returns the Kind of a media type, or -1 when libfeed cannot read it
 * (application/feed+json among others).
 */
static int
classify_type(const char *type)
{
	static const struct {
		const char *type;
		Kind kind;
	} types[] = {
		{ "application/rss+xml", KIND_RSS },
		{ "application/atom+xml", KIND_ATOM },
		{ "application/rdf+xml", KIND_OTHER },
		{ "application/xml", KIND_OTHER },
		{ "text/xml", KIND_OTHER },
	};
	gsize n;

	while (is_html_space(*type))
		type++;
	n = strcspn(type, ";");
	while (n > 0 && is_html_space(type[n - 1]))
		n--;
	for (gsize i = 0; i < G_N_ELEMENTS(types); i++) {
		if (strlen(types[i].type) == n &&
		    g_ascii_strncasecmp(type, types[i].type, n) == 0)
			return types[i].kind;
	}
	return -1;
}

/*
 * A URL without "//" after the scheme ("http:feed.xml") names no host, so
 * the fetcher could not get it either.
 */
static gboolean
is_web_url(const char *url)
{
	return g_ascii_strncasecmp(url, "http://", 7) == 0 ||
	       g_ascii_strncasecmp(url, "https://", 8) == 0;
}

static char *
resolve(const FeedDiscover *discover, const char *href)
{
	const char *base =
	        discover->base != NULL ? discover->base : discover->page_url;
	g_autofree char *url = feed_url_resolve(base, href);

	if (url == NULL || !is_web_url(url))
		return NULL;
	return g_steal_pointer(&url);
}

/* Looks for @url among the first @n links. */
static Link *
find_link(const FeedDiscover *discover, const char *url, guint n)
{
	for (guint i = 0; i < n; i++) {
		Link *link = g_ptr_array_index(discover->links, i);

		if (strcmp(link->url, url) == 0)
			return link;
	}
	return NULL;
}

static guint
worst_link(const FeedDiscover *discover)
{
	guint worst = 0;

	for (guint i = 1; i < discover->links->len; i++) {
		if (compare_links(&discover->links->pdata[i],
		                  &discover->links->pdata[worst]) > 0)
			worst = i;
	}
	return worst;
}

/*
 * Keeps the best MAX_LINKS links, which the result would list first, so
 * that a page of many Atom links still yields its one RSS link. A URL met
 * again keeps the better of its places, as if duplicates were dropped from
 * the sorted list.
 */
static void
add_link(FeedDiscover *discover, const xmlChar **atts)
{
	const char *rel = attribute(atts, "rel");
	const char *type = attribute(atts, "type");
	const char *href = attribute(atts, "href");
	g_autofree char *raw = NULL;
	g_autofree char *url = NULL;
	GPtrArray *links = discover->links;
	Link *link;
	guint order;
	int kind;

	if (rel == NULL || type == NULL || href == NULL)
		return;
	if (!has_token(rel, "alternate") && !has_token(rel, "feed"))
		return;
	kind = classify_type(type);
	if (kind < 0 || strlen(href) > MAX_HREF)
		return;
	order = discover->n_seen++;
	/* Each new link comes last in its group, so it loses any tie. */
	if (links->len == MAX_LINKS &&
	    (Kind)kind >= ((Link *)links->pdata[worst_link(discover)])->kind)
		return;
	raw = feed_text_take_valid_utf8(g_strdup(href));
	url = resolve(discover, raw);
	if (url == NULL)
		return;
	link = find_link(discover, url, links->len);
	if (link != NULL) {
		if ((Kind)kind < link->kind) {
			link->kind = kind;
			link->order = order;
			g_free(link->href);
			link->href = g_steal_pointer(&raw);
		}
		return;
	}
	if (links->len == MAX_LINKS)
		g_ptr_array_remove_index_fast(links, worst_link(discover));
	link = g_new0(Link, 1);
	link->href = g_steal_pointer(&raw);
	link->url = g_steal_pointer(&url);
	link->kind = kind;
	link->order = order;
	g_ptr_array_add(links, link);
}

/*
 * The first <base href> is the page's base for every link, as browsers
 * have it, even one before it; a valid page puts it first anyway. Links
 * already kept are resolved again; any the page URL had ruled out stay
 * out.
 */
static void
set_base(FeedDiscover *discover, const char *href)
{
	GPtrArray *links = discover->links;
	g_autofree char *raw = NULL;

	discover->base_seen = TRUE;
	if (strlen(href) > MAX_HREF)
		return;
	raw = feed_text_take_valid_utf8(g_strdup(href));
	/* An empty or blank href leaves the page URL as the base. */
	discover->base = feed_url_resolve(discover->page_url, raw);
	if (discover->base == NULL)
		return;
	g_ptr_array_sort(links, compare_links);
	for (guint i = 0; i < links->len;) {
		Link *link = g_ptr_array_index(links, i);
		char *url = resolve(discover, link->href);

		if (url == NULL || find_link(discover, url, i) != NULL) {
			g_free(url);
			g_ptr_array_remove_index(links, i);
			continue;
		}
		g_free(link->url);
		link->url = url;
		i++;
	}
}

static void
on_start_element(void *user_data, const xmlChar *name, const xmlChar **atts)
{
	FeedDiscover *discover = user_data;

	/* libxml2 lower-cases HTML element and attribute names. */
	if (atts == NULL)
		return;
	if (strcmp((const char *)name, "link") == 0) {
		add_link(discover, atts);
	} else if (strcmp((const char *)name, "base") == 0 &&
	           !discover->base_seen) {
		const char *href = attribute(atts, "href");

		if (href != NULL)
			set_base(discover, href);
	}
}

/* Broken HTML is the norm, not news; libfeed never prints. */
static void
on_error(void *user_data, xmlErrorPtr error)
{
	(void)user_data;
	(void)error;
}

/*
 * Opens a converter for a charset label, or returns FALSE when iconv does
 * not know it, so that the next <meta> is tried. As browsers read labels
 * (WHATWG Encoding), Latin-1 and ASCII mean windows-1252, a few others
 * their Windows supersets, and any UTF label UTF-8: a page that is read
 * as ASCII far enough to find its <meta> is not UTF-16.
 */
static gboolean
open_charset(FeedDiscover *discover, const char *label)
{
	static const struct {
		const char *label;
		const char *charset;
	} aliases[] = {
		{ "ascii", "WINDOWS-1252" },
		{ "us-ascii", "WINDOWS-1252" },
		{ "iso-8859-1", "WINDOWS-1252" },
		{ "iso8859-1", "WINDOWS-1252" },
		{ "iso_8859-1", "WINDOWS-1252" },
		{ "latin1", "WINDOWS-1252" },
		{ "l1", "WINDOWS-1252" },
		{ "iso-8859-9", "WINDOWS-1254" },
		{ "latin5", "WINDOWS-1254" },
		{ "tis-620", "WINDOWS-874" },
		{ "iso-8859-11", "WINDOWS-874" },
		{ "gb2312", "GBK" },
		{ "shift_jis", "WINDOWS-31J" },
		{ "sjis", "WINDOWS-31J" },
		{ "x-sjis", "WINDOWS-31J" },
		{ "euc-kr", "CP949" },
		{ "ks_c_5601-1987", "CP949" },
		{ "big5", "BIG5-HKSCS" },
	};
	g_autofree char *name = g_ascii_strdown(label, -1);
	const char *charset = name;
	GIConv conv;

	g_strstrip(name);
	/* Labels are short; keep anything else away from iconv_open(). */
	if (*name == '\0' || strlen(name) > 40 ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789._:-") !=
	            strlen(name))
		return FALSE;
	if (g_str_has_prefix(name, "utf-") || strcmp(name, "utf8") == 0) {
		discover->charset_known = TRUE;
		return TRUE;
	}
	for (gsize i = 0; i < G_N_ELEMENTS(aliases); i++) {
		if (strcmp(name, aliases[i].label) == 0)
			charset = aliases[i].charset;
	}
	conv = g_iconv_open("UTF-8", charset);
	if (conv == (GIConv)-1)
		return FALSE;
	discover->conv = conv;
	discover->charset_known = TRUE;
	return TRUE;
}

/* WHATWG's "extract a character encoding from a meta element". */
static char *
charset_from_content(const char *content)
{
	for (const char *p = content; *p != '\0'; p++) {
		const char *end;

		if (g_ascii_strncasecmp(p, "charset", 7) != 0)
			continue;
		p += 7;
		while (is_html_space(*p))
			p++;
		if (*p != '=') {
			p--;
			continue;
		}
		p++;
		while (is_html_space(*p))
			p++;
		if (*p == '"' || *p == '\'') {
			end = strchr(p + 1, *p);
			return end != NULL ? g_strndup(p + 1, end - p - 1)
			                   : NULL;
		}
		end = p;
		while (*end != '\0' && *end != ';' && !is_html_space(*end))
			end++;
		return end > p ? g_strndup(p, end - p) : NULL;
	}
	return NULL;
}

static void
on_sniff_element(void *user_data, const xmlChar *name, const xmlChar **atts)
{
	FeedDiscover *discover = user_data;
	const char *charset;
	const char *content;
	g_autofree char *http_equiv = NULL;
	g_autofree char *label = NULL;

	if (discover->charset_known || atts == NULL ||
	    strcmp((const char *)name, "meta") != 0)
		return;
	charset = attribute(atts, "charset");
	http_equiv = g_strdup(attribute(atts, "http-equiv"));
	content = attribute(atts, "content");
	if (charset != NULL)
		label = g_strdup(charset);
	else if (http_equiv != NULL && content != NULL &&
	         g_ascii_strcasecmp(g_strstrip(http_equiv), "content-type") ==
	                 0)
		label = charset_from_content(content);
	if (label != NULL)
		open_charset(discover, label);
}

static htmlParserCtxtPtr
create_parser(FeedDiscover *discover, startElementSAXFunc on_element)
{
	xmlSAXHandler sax;
	htmlParserCtxtPtr ctxt;

	memset(&sax, 0, sizeof(sax));
	/* The magic makes libxml2 report errors to serror, not to stderr. */
	sax.initialized = XML_SAX2_MAGIC;
	sax.startElement = on_element;
	sax.serror = on_error;
	ctxt = htmlCreatePushParserCtxt(&sax, discover, NULL, 0, NULL,
	                                XML_CHAR_ENCODING_UTF8);
	htmlCtxtUseOptions(ctxt, HTML_PARSE_NONET | HTML_PARSE_NOERROR |
	                                 HTML_PARSE_NOWARNING |
	                                 HTML_PARSE_RECOVER |
	                                 HTML_PARSE_IGNORE_ENC);
	return ctxt;
}

/*
 * libxml2 ends the document at the first thing after </html> other than a
 * comment, and ignores the rest, where browsers read on as if in the body.
 * So a new parser reads what the old one left. Each must make progress.
 */
static void
renew(FeedDiscover *discover, gboolean end)
{
	gsize last = G_MAXSIZE;

	while (discover->ctxt->instate == XML_PARSER_EOF) {
		const xmlParserInput *input = discover->ctxt->input;
		gsize left = (gsize)(input->end - input->cur);
		g_autofree char *rest = g_memdup2(input->cur, left);

		if (left >= last || (left == 0 && end))
			return;
		last = left;
		htmlFreeParserCtxt(discover->ctxt);
		discover->ctxt = create_parser(discover, on_start_element);
		if (left > 0)
			htmlParseChunk(discover->ctxt, rest, (int)left, 0);
		if (end && discover->ctxt->instate != XML_PARSER_EOF)
			htmlParseChunk(discover->ctxt, NULL, 0, 1);
	}
}

/* Parses @length bytes of text, or with @end, ends the page. */
static void
parse(FeedDiscover *discover, const char *data, gsize length, gboolean end)
{
	g_assert(length <= MAX_HELD);
	g_assert(!end || length == 0);
	if (length == 0 && !end)
		return;
	htmlParseChunk(discover->ctxt, data, (int)length, end);
	renew(discover, end);
}

/*
 * libxml2 2.9's HTML push parser reads a page differently depending on
 * where its chunks end: a "</script>" cut after "</scr" is taken for text,
 * and the rest of the page with it; a UTF-8 character cut in a script
 * makes it read on as Latin-1; "<!-->" ends a comment or not. So libxml2
 * is given chunks cut where the text alone says, however the page
 * arrived: before the first '<' after BLOCK bytes, where what it waits for
 * is whole, or, after MAX_HELD bytes without one, between characters.
 */
static void
feed(FeedDiscover *discover, const char *text, gsize length)
{
	GString *held = discover->held;

	g_string_append_len(held, text, (gssize)length);
	while (held->len > BLOCK) {
		gsize from = MAX(discover->scanned, BLOCK);
		gsize to = MIN(held->len, MAX_HELD);
		const char *lt = memchr(held->str + from, '<', to - from);
		gsize cut;

		if (lt != NULL) {
			cut = (gsize)(lt - held->str);
		} else if (held->len >= MAX_HELD) {
			cut = MAX_HELD;
			while (((guchar)held->str[cut] & 0xC0) == 0x80)
				cut--;
		} else {
			discover->scanned = to;
			return;
		}
		parse(discover, held->str, cut, FALSE);
		g_string_erase(held, 0, (gssize)cut);
		discover->scanned = 0;
	}
}

/*
 * Hands UTF-8 to the parser, with any byte that is not read as
 * windows-1252. feed_text_take_valid_utf8() stops at a NUL, so each stretch
 * between NULs goes on its own; HTML has no use for NUL.
 */
static void
parse_text(FeedDiscover *discover, const char *data, gsize length)
{
	while (length > 0) {
		const char *nul = memchr(data, '\0', length);
		gsize n = nul != NULL ? (gsize)(nul - data) : length;

		if (n > 0) {
			g_autofree char *text =
			        feed_text_take_valid_utf8(g_strndup(data, n));

			feed(discover, text, strlen(text));
		}
		if (nul != NULL)
			n++;
		data += n;
		length -= n;
	}
}

/* Length of the UTF-8 sequence cut off at the end of @data, if any. */
static gsize
cut_sequence(const char *data, gsize length)
{
	for (gsize back = 1; back <= MIN(length, 3); back++) {
		guchar c = (guchar)data[length - back];

		if ((c & 0xC0) == 0x80)
			continue;
		if (c >= 0xF0)
			return back < 4 ? back : 0;
		if (c >= 0xE0)
			return back < 3 ? back : 0;
		if (c >= 0xC0)
			return back < 2 ? back : 0;
		return 0;
	}
	return 0;
}

/* Returns how many bytes at the end of @data must wait for more. */
static gsize
convert(FeedDiscover *discover, const char *data, gsize length, gboolean end)
{
	gchar *in = (gchar *)data;
	gsize in_left = length;

	while (in_left > 0) {
		char out[4096];
		gchar *o = out;
		gsize o_left = sizeof(out);
		gsize result =
		        g_iconv(discover->conv, &in, &in_left, &o, &o_left);
		int saved = errno;

		parse_text(discover, out, (gsize)(o - out));
		if (result != (gsize)-1 || saved == E2BIG)
			continue;
		if (saved == EINVAL && !end)
			return in_left;
		/* Not in the charset, or cut off by the end of the page. */
		feed(discover, "\xEF\xBF\xBD", 3);
		in++;
		in_left--;
	}
	return 0;
}

/*
 * Decodes and parses @data, after the bytes held back last time. Holding
 * back a cut character is what makes the result the same however the page
 * is split into chunks.
 */
static void
decode(FeedDiscover *discover, const char *data, gsize length, gboolean end)
{
	g_autoptr(GByteArray) joined = NULL;
	gsize held;

	if (discover->pending->len > 0) {
		joined = g_steal_pointer(&discover->pending);
		discover->pending = g_byte_array_new();
		g_byte_array_append(joined, (const guint8 *)data, length);
		data = (const char *)joined->data;
		length = joined->len;
	}
	if (discover->conv != NULL) {
		held = convert(discover, data, length, end);
	} else {
		held = end ? 0 : cut_sequence(data, length);
		parse_text(discover, data, length - held);
	}
	g_byte_array_append(discover->pending,
	                    (const guint8 *)data + length - held, held);
}

/*
 * A byte order mark outranks a <meta>, which must be in the first
 * SNIFF_SIZE bytes. A throwaway parser finds it there, so that comments,
 * scripts and attribute quoting are read as the real parser reads them.
 */
static void
start(FeedDiscover *discover)
{
	g_autoptr(GByteArray) head = g_steal_pointer(&discover->head);
	const char *data = (const char *)head->data;
	gsize length = head->len;

	if (length >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
		data += 3;
		length -= 3;
	} else if (length >= 2 && (memcmp(data, "\xFE\xFF", 2) == 0 ||
	                           memcmp(data, "\xFF\xFE", 2) == 0)) {
		GIConv conv = g_iconv_open(
		        "UTF-8", data[0] == '\xFE' ? "UTF-16BE" : "UTF-16LE");

		if (conv != (GIConv)-1)
			discover->conv = conv;
		data += 2;
		length -= 2;
	} else {
		htmlParserCtxtPtr sniffer =
		        create_parser(discover, on_sniff_element);

		/* Unfinished: a <meta> cut off at the end does not count. */
		htmlParseChunk(sniffer, data, (int)length, 0);
		htmlFreeParserCtxt(sniffer);
	}
	discover->ctxt = create_parser(discover, on_start_element);
	decode(discover, data, length, FALSE);
}

FeedDiscover *
feed_discover_new(const char *page_url)
{
	FeedDiscover *discover = g_new0(FeedDiscover, 1);

	if (page_url != NULL && *page_url != '\0')
		discover->page_url = g_strdup(page_url);
	discover->head = g_byte_array_sized_new(SNIFF_SIZE);
	discover->pending = g_byte_array_new();
	discover->held = g_string_new(NULL);
	discover->links = g_ptr_array_new_with_free_func(link_free);
	return discover;
}

void
feed_discover_push(FeedDiscover *discover, const char *data, gsize length)
{
	g_return_if_fail(discover != NULL);
	g_return_if_fail(data != NULL || length == 0);
	g_return_if_fail(!discover->finished);

	if (discover->head != NULL) {
		gsize n = MIN(length, SNIFF_SIZE - discover->head->len);

		g_byte_array_append(discover->head, (const guint8 *)data, n);
		data += n;
		length -= n;
		if (discover->head->len < SNIFF_SIZE)
			return;
		start(discover);
	}
	decode(discover, data, length, FALSE);
}

char **
feed_discover_finish(FeedDiscover *discover)
{
	GPtrArray *result;

	g_return_val_if_fail(discover != NULL, NULL);

	if (!discover->finished) {
		if (discover->head != NULL)
			start(discover);
		decode(discover, NULL, 0, TRUE);
		/*
		 * Not with the last text: libxml2 reads what it is given with
		 * the end differently ("<!-->" opens a comment to the end).
		 */
		parse(discover, discover->held->str, discover->held->len,
		      FALSE);
		g_string_truncate(discover->held, 0);
		parse(discover, NULL, 0, TRUE);
		g_clear_pointer(&discover->ctxt, htmlFreeParserCtxt);
		discover->finished = TRUE;
	}
	g_ptr_array_sort(discover->links, compare_links);
	result = g_ptr_array_new();
	for (guint i = 0; i < discover->links->len; i++) {
		Link *link = g_ptr_array_index(discover->links, i);

		g_ptr_array_add(result, g_strdup(link->url));
	}
	g_ptr_array_add(result, NULL);
	return (char **)g_ptr_array_free(result, FALSE);
}

void
feed_discover_free(FeedDiscover *discover)
{
	if (discover == NULL)
		return;
	if (discover->ctxt != NULL)
		htmlFreeParserCtxt(discover->ctxt);
	if (discover->conv != NULL)
		g_iconv_close(discover->conv);
	if (discover->head != NULL)
		g_byte_array_unref(discover->head);
	g_byte_array_unref(discover->pending);
	g_string_free(discover->held, TRUE);
	g_ptr_array_unref(discover->links);
	g_free(discover->base);
	g_free(discover->page_url);
	g_free(discover);
}
