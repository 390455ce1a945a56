/*
 * Show notes for people: the HTML read into blocks once (libxml2's HTML
 * parser builds the tree, with its error recovery), then wrapped to
 * whatever width is asked.
 *
 * Inside a block's text, a line feed is a forced break and NBSP_MARK a
 * space that no line breaks at (between a link's text and its mark).
 * Neither can come from the notes: control characters are dropped before
 * any text is kept.
 */
#include "feed/notes.h"

#include <libxml/HTMLparser.h>
#include <string.h>

#define NBSP_MARK '\x01'
/* Below this many columns for the words, a deep list would not wrap. */
#define MIN_COLUMNS 20

typedef struct {
	char *first;    /* prefix of its first line */
	char *rest;     /* prefix of its other lines */
	char *text;     /* words, line feeds and NBSP_MARK */
	gboolean pre;   /* its lines as they are, never wrapped */
	gboolean tight; /* no blank line before it (a list item) */
} Block;

struct FeedNotes {
	GPtrArray *blocks; /* of Block, in order */
	GPtrArray *links;  /* of char *, reference N at N - 1 */
};

static void
block_free(gpointer data)
{
	Block *block = data;

	g_free(block->first);
	g_free(block->rest);
	g_free(block->text);
	g_free(block);
}

static FeedNotes *
notes_new(void)
{
	FeedNotes *notes = g_new0(FeedNotes, 1);

	notes->blocks = g_ptr_array_new_with_free_func(block_free);
	notes->links = g_ptr_array_new_with_free_func(g_free);
	return notes;
}

void
feed_notes_free(FeedNotes *notes)
{
	if (notes == NULL)
		return;
	g_ptr_array_unref(notes->blocks);
	g_ptr_array_unref(notes->links);
	g_free(notes);
}

static gboolean
is_space(gunichar c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v' || c == 0x2028 || c == 0x2029;
}

/* C0, DEL and C1: never shown, never kept. */
static gboolean
is_control(gunichar c)
{
	return c < 0x20 || (c >= 0x7f && c < 0xa0);
}

/* Where a list stands: its kind and the number of its next item. */
typedef struct {
	gboolean ordered;
	long next;
} List;

typedef struct {
	FeedNotes *notes;
	GString *text;   /* of the block being built */
	GString *indent; /* prefix of every line at this depth */
	char *bullet;    /* marker for the next block's first line; NULL */
	GArray *lists;   /* of List, the innermost last */
	gboolean last_in_list; /* the last block was a list's */
	guint pre;             /* depth of <pre> */
	GHashTable *numbers;   /* URL -> GUINT_TO_POINTER(reference) */
} Walk;

static void
add_block(Walk *walk, const char *text, gboolean pre)
{
	Block *block = g_new0(Block, 1);
	gboolean in_list = walk->lists->len > 0;

	/* The item's indent, which its bullet takes on the first line. */
	if (walk->bullet != NULL) {
		gsize pad = (gsize)g_utf8_strlen(walk->bullet, -1);
		g_autofree char *outer = g_strndup(
		        walk->indent->str,
		        walk->indent->len - MIN(pad, walk->indent->len));

		block->first = g_strconcat(outer, walk->bullet, NULL);
		block->rest = g_strdup(walk->indent->str);
		g_clear_pointer(&walk->bullet, g_free);
	} else {
		block->first = g_strdup(walk->indent->str);
		block->rest = g_strdup(walk->indent->str);
	}
	block->text = g_strdup(text);
	block->pre = pre;
	block->tight = in_list && walk->last_in_list;
	walk->last_in_list = in_list;
	g_ptr_array_add(walk->notes->blocks, block);
}

/* Ends the block being built; an empty one leaves no trace. */
static void
flush(Walk *walk)
{
	GString *text = walk->text;
	gsize start = 0;

	if (walk->pre > 0) {
		/* A <pre>'s first line feed belongs to its markup. */
		if (text->len > 0 && text->str[0] == '\n')
			start = 1;
		while (text->len > start && (text->str[text->len - 1] == '\n' ||
		                             text->str[text->len - 1] == ' '))
			g_string_truncate(text, text->len - 1);
		if (text->len > start)
			add_block(walk, text->str + start, TRUE);
		g_string_truncate(text, 0);
		return;
	}
	while (start < text->len &&
	       (text->str[start] == ' ' || text->str[start] == '\n'))
		start++;
	while (text->len > start && (text->str[text->len - 1] == ' ' ||
	                             text->str[text->len - 1] == '\n'))
		g_string_truncate(text, text->len - 1);
	if (text->len > start)
		add_block(walk, text->str + start, FALSE);
	g_string_truncate(text, 0);
}

static gboolean
ends_in_space(const GString *text)
{
	return text->len == 0 || text->str[text->len - 1] == ' ' ||
	       text->str[text->len - 1] == '\n';
}

/* Spaces to the next multiple of 8 columns of the line under way. */
static void
append_tab(GString *text)
{
	const char *line = strrchr(text->str, '\n');
	glong column;

	line = line != NULL ? line + 1 : text->str;
	column = g_utf8_strlen(line, -1);
	do
		g_string_append_c(text, ' ');
	while (++column % 8 != 0);
}

/*
 * Appends text as HTML renders it: runs of white space are one space,
 * except inside <pre>, where only control characters go (a tab becomes
 * spaces to the next multiple of 8).
 */
static void
append_text(Walk *walk, const char *text)
{
	for (const char *p = text; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (walk->pre > 0 && (c == '\n' || c == '\t')) {
			if (c == '\n') {
				g_string_append_c(walk->text, '\n');
				continue;
			}
			append_tab(walk->text);
			continue;
		}
		if (is_space(c)) {
			if (walk->pre > 0)
				g_string_append_c(walk->text, ' ');
			else if (!ends_in_space(walk->text))
				g_string_append_c(walk->text, ' ');
			continue;
		}
		if (is_control(c))
			continue;
		g_string_append_unichar(walk->text, c);
	}
}

static gboolean
name_is(const xmlNode *node, const char *name)
{
	return g_ascii_strcasecmp((const char *)node->name, name) == 0;
}

static gboolean
name_in(const xmlNode *node, const char *const *names)
{
	for (; *names != NULL; names++)
		if (name_is(node, *names))
			return TRUE;
	return FALSE;
}

static char *
attribute(const xmlNode *node, const char *name)
{
	xmlChar *value = xmlGetProp(node, (const xmlChar *)name);
	char *copy = NULL;

	if (value != NULL) {
		copy = g_strstrip(g_strdup((const char *)value));
		xmlFree(value);
	}
	return copy;
}

/* An absolute URL worth listing, with no control characters; or NULL. */
static char *
link_target(const char *href)
{
	g_autofree char *scheme = NULL;
	GString *clean;

	if (href == NULL)
		return NULL;
	scheme = g_uri_parse_scheme(href);
	if (scheme == NULL || g_ascii_strcasecmp(scheme, "javascript") == 0 ||
	    g_ascii_strcasecmp(scheme, "data") == 0)
		return NULL;
	clean = g_string_new(NULL);
	for (const char *p = href; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (!is_control(c) && !is_space(c))
			g_string_append_unichar(clean, c);
	}
	return g_string_free(clean, FALSE);
}

/* The URL as a person would write it: no scheme, no trailing slash. */
static char *
bare_url(const char *url)
{
	const char *rest = url;
	gsize length;

	if (g_ascii_strncasecmp(rest, "mailto:", 7) == 0)
		rest += 7;
	else if (strstr(rest, "://") != NULL)
		rest = strstr(rest, "://") + 3;
	length = strlen(rest);
	while (length > 0 && rest[length - 1] == '/')
		length--;
	return g_ascii_strdown(rest, (gssize)length);
}

static guint
reference(Walk *walk, const char *url)
{
	guint number =
	        GPOINTER_TO_UINT(g_hash_table_lookup(walk->numbers, url));

	if (number == 0) {
		g_ptr_array_add(walk->notes->links, g_strdup(url));
		number = walk->notes->links->len;
		g_hash_table_insert(walk->numbers, g_strdup(url),
		                    GUINT_TO_POINTER(number));
	}
	return number;
}

static void
walk_children(Walk *walk, const xmlNode *node);

/* Marks the link whose text starts at byte @start of the block. */
static void
end_link(Walk *walk, const xmlNode *node, gsize start, guint n_blocks)
{
	g_autofree char *href = attribute(node, "href");
	g_autofree char *url = link_target(href);
	g_autofree char *text = NULL;
	g_autofree char *bare_text = NULL;
	g_autofree char *bare_target = NULL;
	guint number;

	if (url == NULL)
		return;
	number = reference(walk, url);
	/* A block inside the link: the mark goes after what is left. */
	if (n_blocks != walk->notes->blocks->len) {
		g_string_append_printf(walk->text, "%s[%u]",
		                       ends_in_space(walk->text) ? "" : " ",
		                       number);
		return;
	}
	text = g_strstrip(g_strdup(walk->text->str + start));
	bare_text = bare_url(text);
	bare_target = bare_url(url);
	/* Its text is its URL: the reference says it once, below. */
	if (*text == '\0' || strcmp(bare_text, bare_target) == 0) {
		g_string_truncate(walk->text, start);
		g_string_append_printf(walk->text, "[%u]", number);
		return;
	}
	while (walk->text->len > 0 &&
	       walk->text->str[walk->text->len - 1] == ' ')
		g_string_truncate(walk->text, walk->text->len - 1);
	g_string_append_printf(walk->text, "%c[%u]", NBSP_MARK, number);
}

static void
start_item(Walk *walk)
{
	List *list;

	flush(walk);
	g_free(walk->bullet);
	if (walk->lists->len == 0) {
		walk->bullet = g_strdup("• ");
		return;
	}
	list = &g_array_index(walk->lists, List, walk->lists->len - 1);
	if (list->ordered)
		walk->bullet = g_strdup_printf("%ld. ", list->next++);
	else
		walk->bullet =
		        g_strdup(walk->lists->len % 2 == 1 ? "• " : "◦ ");
}

static void
walk_item(Walk *walk, const xmlNode *node)
{
	gsize depth = walk->indent->len;

	start_item(walk);
	/* The lines after the first line up under the item's text. */
	for (glong i = g_utf8_strlen(walk->bullet, -1); i > 0; i--)
		g_string_append_c(walk->indent, ' ');
	walk_children(walk, node);
	flush(walk);
	g_clear_pointer(&walk->bullet, g_free);
	g_string_truncate(walk->indent, depth);
}

static void
walk_list(Walk *walk, const xmlNode *node)
{
	List list = { name_is(node, "ol"), 1 };
	g_autofree char *start = attribute(node, "start");

	if (start != NULL)
		list.next =
		        CLAMP(g_ascii_strtoll(start, NULL, 10), -99999, 99999);
	flush(walk);
	/* A list stands apart from what is before and after it. */
	if (walk->lists->len == 0)
		walk->last_in_list = FALSE;
	g_array_append_val(walk->lists, list);
	walk_children(walk, node);
	flush(walk);
	g_array_set_size(walk->lists, walk->lists->len - 1);
	if (walk->lists->len == 0)
		walk->last_in_list = FALSE;
}

/* Blocks that start and end a paragraph of their own. */
static const char *const blocks[] = {
	"p",        "div",     "section", "article", "header",     "footer",
	"main",     "aside",   "nav",     "figure",  "figcaption", "address",
	"center",   "dl",      "dt",      "h1",      "h2",         "h3",
	"h4",       "h5",      "h6",      "table",   "tr",         "form",
	"fieldset", "details", "summary", "caption", "body",       NULL,
};

/* What readers never see. */
static const char *const hidden[] = {
	"head", "script", "style",  "noscript", "template", "iframe", "object",
	"svg",  "math",   "select", "button",   "textarea", NULL,
};

static void
walk_element(Walk *walk, const xmlNode *node)
{
	gsize depth = walk->indent->len;

	if (name_in(node, hidden))
		return;
	if (name_is(node, "br")) {
		while (walk->text->len > 0 &&
		       walk->text->str[walk->text->len - 1] == ' ')
			g_string_truncate(walk->text, walk->text->len - 1);
		g_string_append_c(walk->text, '\n');
	} else if (name_is(node, "a")) {
		gsize start = walk->text->len;
		guint n_blocks = walk->notes->blocks->len;

		walk_children(walk, node);
		end_link(walk, node, start, n_blocks);
	} else if (name_is(node, "li")) {
		walk_item(walk, node);
	} else if (name_is(node, "ul") || name_is(node, "ol") ||
	           name_is(node, "menu")) {
		walk_list(walk, node);
	} else if (name_is(node, "blockquote") || name_is(node, "dd")) {
		flush(walk);
		g_string_append(walk->indent,
		                name_is(node, "dd") ? "    " : "> ");
		walk_children(walk, node);
		flush(walk);
		g_string_truncate(walk->indent, depth);
	} else if (name_is(node, "pre")) {
		flush(walk);
		walk->pre++;
		walk_children(walk, node);
		flush(walk);
		walk->pre--;
	} else if (name_is(node, "hr")) {
		flush(walk);
		add_block(walk, "* * *", FALSE);
	} else if (name_is(node, "td") || name_is(node, "th")) {
		if (!ends_in_space(walk->text))
			g_string_append_c(walk->text, ' ');
		walk_children(walk, node);
		if (!ends_in_space(walk->text))
			g_string_append_c(walk->text, ' ');
	} else if (name_in(node, blocks)) {
		flush(walk);
		walk_children(walk, node);
		flush(walk);
	} else {
		walk_children(walk, node);
	}
}

static void
walk_children(Walk *walk, const xmlNode *node)
{
	for (const xmlNode *child = node->children; child != NULL;
	     child = child->next) {
		if (child->type == XML_ELEMENT_NODE)
			walk_element(walk, child);
		else if (child->type == XML_TEXT_NODE ||
		         child->type == XML_CDATA_SECTION_NODE)
			append_text(walk, (const char *)child->content);
	}
}

FeedNotes *
feed_notes_new_from_html(const char *html, gssize length)
{
	FeedNotes *notes;
	g_autofree char *valid = NULL;
	htmlDocPtr doc;
	Walk walk = { 0 };

	g_return_val_if_fail(html != NULL || length == 0, NULL);
	notes = notes_new();
	valid = g_utf8_make_valid(html != NULL ? html : "", length);
	if (*valid == '\0')
		return notes;
	doc = htmlReadMemory(
	        valid, (int)MIN(strlen(valid), (gsize)G_MAXINT), NULL, "UTF-8",
	        HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
	                HTML_PARSE_RECOVER | HTML_PARSE_NODEFDTD);
	if (doc == NULL)
		return notes;
	walk.notes = notes;
	walk.text = g_string_new(NULL);
	walk.indent = g_string_new(NULL);
	walk.lists = g_array_new(FALSE, FALSE, sizeof(List));
	walk.numbers =
	        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	for (const xmlNode *node = doc->children; node != NULL;
	     node = node->next)
		if (node->type == XML_ELEMENT_NODE)
			walk_element(&walk, node);
	flush(&walk);
	g_string_free(walk.text, TRUE);
	g_string_free(walk.indent, TRUE);
	g_free(walk.bullet);
	g_array_unref(walk.lists);
	g_hash_table_unref(walk.numbers);
	xmlFreeDoc(doc);
	return notes;
}

FeedNotes *
feed_notes_new_from_text(const char *text, gssize length)
{
	FeedNotes *notes;
	g_autofree char *valid = NULL;
	g_auto(GStrv) lines = NULL;
	Walk walk = { 0 };

	g_return_val_if_fail(text != NULL || length == 0, NULL);
	notes = notes_new();
	valid = g_utf8_make_valid(text != NULL ? text : "", length);
	walk.notes = notes;
	walk.indent = g_string_new(NULL);
	walk.lists = g_array_new(FALSE, FALSE, sizeof(List));
	walk.text = g_string_new(NULL);
	g_strdelimit(valid, "\r", '\n');
	lines = g_strsplit(valid, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		/* A line with nothing on it ends the paragraph. */
		if (*g_strstrip(lines[i]) == '\0') {
			flush(&walk);
			continue;
		}
		if (walk.text->len > 0)
			g_string_append_c(walk.text, '\n');
		append_text(&walk, lines[i]);
	}
	flush(&walk);
	g_string_free(walk.text, TRUE);
	g_string_free(walk.indent, TRUE);
	g_array_unref(walk.lists);
	return notes;
}

/* Columns @text takes on a terminal. */
static guint
columns(const char *text, gsize length)
{
	guint width = 0;

	for (const char *p = text; p < text + length; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (g_unichar_iszerowidth(c))
			continue;
		width += g_unichar_iswide(c) ? 2 : 1;
	}
	return width;
}

/* Appends @length bytes of @text, NBSP_MARK as a space. */
static void
append_shown(GString *out, const char *text, gsize length)
{
	gsize at = out->len;

	g_string_append_len(out, text, (gssize)length);
	for (gsize i = at; i < out->len; i++)
		if (out->str[i] == NBSP_MARK)
			out->str[i] = ' ';
}

typedef struct {
	GString *out;
	const Block *block;
	guint limit;   /* columns for words; 0: no limit */
	guint used;    /* columns of words on the line so far */
	gboolean any;  /* the block has a line already */
	gboolean open; /* the line under way has a word */
} Lines;

static void
new_line(Lines *lines)
{
	const char *prefix =
	        lines->any ? lines->block->rest : lines->block->first;

	if (lines->any)
		g_string_append_c(lines->out, '\n');
	append_shown(lines->out, prefix, strlen(prefix));
	lines->any = TRUE;
	lines->open = FALSE;
	lines->used = 0;
}

static void
add_word(Lines *lines, const char *word, gsize length)
{
	guint width = columns(word, length);

	if (lines->open && lines->limit > 0 &&
	    lines->used + 1 + width > lines->limit)
		new_line(lines);
	if (lines->open) {
		g_string_append_c(lines->out, ' ');
		lines->used++;
	}
	lines->open = TRUE;
	if (lines->limit == 0 || width <= lines->limit - lines->used) {
		append_shown(lines->out, word, length);
		lines->used += width;
		return;
	}
	/* Longer than a whole line: it fills lines, cut where they end. */
	for (const char *p = word; p < word + length;) {
		const char *next = g_utf8_next_char(p);
		guint w = columns(p, (gsize)(next - p));

		if (lines->used > 0 && lines->used + w > lines->limit) {
			new_line(lines);
			lines->open = TRUE;
		}
		append_shown(lines->out, p, (gsize)(next - p));
		lines->used += w;
		p = next;
	}
}

static void
format_block(GString *out, const Block *block, guint width)
{
	Lines lines = { out, block, 0, 0, FALSE, FALSE };
	g_auto(GStrv) hard = g_strsplit(block->text, "\n", -1);

	guint prefix = columns(block->rest, strlen(block->rest));
	guint floor = MIN(width, MIN_COLUMNS);

	if (width > 0)
		lines.limit = width > prefix && width - prefix >= floor
		                      ? width - prefix
		                      : floor;
	for (guint i = 0; hard[i] != NULL; i++) {
		const char *p = hard[i];

		new_line(&lines);
		if (block->pre) {
			append_shown(out, p, strlen(p));
			continue;
		}
		while (*p != '\0') {
			const char *end = strchr(p, ' ');

			if (end == NULL)
				end = p + strlen(p);
			if (end > p)
				add_word(&lines, p, (gsize)(end - p));
			p = *end == ' ' ? end + 1 : end;
		}
	}
}

char *
feed_notes_format(const FeedNotes *notes, guint width)
{
	GString *out;

	g_return_val_if_fail(notes != NULL, NULL);
	out = g_string_new(NULL);
	for (guint i = 0; i < notes->blocks->len; i++) {
		const Block *block = notes->blocks->pdata[i];

		if (i > 0)
			g_string_append(out, block->tight ? "\n" : "\n\n");
		format_block(out, block, width);
	}
	return g_string_free(out, FALSE);
}

guint
feed_notes_get_n_links(const FeedNotes *notes)
{
	g_return_val_if_fail(notes != NULL, 0);
	return notes->links->len;
}

const char *
feed_notes_get_link(const FeedNotes *notes, guint index)
{
	g_return_val_if_fail(notes != NULL, NULL);
	g_return_val_if_fail(index < notes->links->len, NULL);
	return notes->links->pdata[index];
}
