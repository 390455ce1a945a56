/*
 * Chapter lists: Podcasting 2.0 JSON chapters read with json-glib, an
 * episode's Podlove chapters, AntennaPod's merge of the two, and the JSON
 * written back.
 */
#include "feed/chapters.h"
#include "episode-private.h"
#include "feed/error.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/*
 * json-glib parses recursively: a document of a few hundred thousand
 * brackets overflows the stack, so nesting is counted before it parses.
 * Chapters need three levels; 32 leaves room for extensions.
 */
#define MAX_DEPTH 32

/* 10^10 seconds, over three centuries: beyond it a start is nonsense. */
#define MAX_SECONDS 1e10

/* Starts this close (milliseconds) are the same chapter to the merge. */
#define MERGE_WINDOW 1000

struct FeedChapterList {
	gatomicrefcount ref;
	GPtrArray *chapters; /* of FeedChapter, sorted by start */
	GArray *jumps;       /* of guint: indexes of the toc chapters */
	gboolean from_json;  /* read from a JSON document (or merged with) */
};

static FeedChapterList *
list_new(void)
{
	FeedChapterList *list = g_new0(FeedChapterList, 1);

	g_atomic_ref_count_init(&list->ref);
	list->chapters = g_ptr_array_new_with_free_func(
	        (GDestroyNotify)feed_chapter_free);
	list->jumps = g_array_new(FALSE, FALSE, sizeof(guint));
	return list;
}

static gint
compare_start(gconstpointer a, gconstpointer b)
{
	const FeedChapter *x = *(const FeedChapter *const *)a;
	const FeedChapter *y = *(const FeedChapter *const *)b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Sorts the chapters (stably: GLib's sort is a merge sort) and indexes
 * the jump points. */
static FeedChapterList *
list_finish(FeedChapterList *list)
{
	g_ptr_array_sort(list->chapters, compare_start);
	for (guint i = 0; i < list->chapters->len; i++) {
		const FeedChapter *chapter = list->chapters->pdata[i];

		if (chapter->toc)
			g_array_append_val(list->jumps, i);
	}
	return list;
}

FeedChapterList *
feed_chapter_list_ref(FeedChapterList *list)
{
	g_return_val_if_fail(list != NULL, NULL);
	g_atomic_ref_count_inc(&list->ref);
	return list;
}

void
feed_chapter_list_unref(FeedChapterList *list)
{
	if (list == NULL || !g_atomic_ref_count_dec(&list->ref))
		return;
	g_ptr_array_unref(list->chapters);
	g_array_unref(list->jumps);
	g_free(list);
}

guint
feed_chapter_list_get_n_chapters(const FeedChapterList *list)
{
	g_return_val_if_fail(list != NULL, 0);
	return list->chapters->len;
}

const FeedChapter *
feed_chapter_list_get_chapter(const FeedChapterList *list, guint index)
{
	g_return_val_if_fail(list != NULL, NULL);
	g_return_val_if_fail(index < list->chapters->len, NULL);
	return list->chapters->pdata[index];
}

guint
feed_chapter_list_get_n_jumps(const FeedChapterList *list)
{
	g_return_val_if_fail(list != NULL, 0);
	return list->jumps->len;
}

const FeedChapter *
feed_chapter_list_get_jump(const FeedChapterList *list, guint index)
{
	g_return_val_if_fail(list != NULL, NULL);
	g_return_val_if_fail(index < list->jumps->len, NULL);
	return list->chapters->pdata[g_array_index(list->jumps, guint, index)];
}

gint
feed_chapter_list_find_jump(const FeedChapterList *list, gint64 position_ms)
{
	guint low = 0;
	guint high;

	g_return_val_if_fail(list != NULL, -1);
	/* The first jump point that starts after the position, in [low, high].
	 */
	high = list->jumps->len;
	while (low < high) {
		guint middle = low + (high - low) / 2;

		if (feed_chapter_list_get_jump(list, middle)->start <=
		    position_ms)
			low = middle + 1;
		else
			high = middle;
	}
	return (gint)low - 1;
}

FeedChapterList *
feed_chapter_list_new_from_episode(const FeedEpisode *episode)
{
	FeedChapterList *list;
	guint n;

	g_return_val_if_fail(episode != NULL, NULL);
	list = list_new();
	n = feed_episode_get_n_chapters(episode);
	for (guint i = 0; i < n; i++)
		g_ptr_array_add(list->chapters,
		                feed_chapter_copy(
		                        feed_episode_get_chapter(episode, i)));
	return list_finish(list);
}

/* Reading JSON */

static gboolean
bad(GError **error, const char *format, ...) G_GNUC_PRINTF(2, 3);

static gboolean
bad(GError **error, const char *format, ...)
{
	g_autofree char *what = NULL;
	va_list args;

	va_start(args, format);
	what = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error(error, FEED_ERROR, FEED_ERROR_PARSE,
	            "not a JSON chapters document: %s", what);
	return FALSE;
}

/* Whether the JSON in @data nests no deeper than MAX_DEPTH. */
static gboolean
is_shallow(const char *data, gsize length)
{
	gboolean in_string = FALSE;
	guint depth = 0;

	for (gsize i = 0; i < length; i++) {
		char c = data[i];

		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = FALSE;
		} else if (c == '"') {
			in_string = TRUE;
		} else if (c == '[' || c == '{') {
			if (++depth > MAX_DEPTH)
				return FALSE;
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
	}
	return TRUE;
}

/* The member @name of chapter @number, or NULL when absent or null. */
static JsonNode *
get_member(JsonObject *object, const char *name)
{
	JsonNode *node = json_object_get_member(object, name);

	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return NULL;
	return node;
}

static gboolean
is_number(JsonNode *node)
{
	GType type;

	if (!JSON_NODE_HOLDS_VALUE(node))
		return FALSE;
	type = json_node_get_value_type(node);
	return type == G_TYPE_INT64 || type == G_TYPE_DOUBLE;
}

/* Seconds in @node as milliseconds; FALSE when out of range. */
static gboolean
get_ms(JsonNode *node, gint64 *ms)
{
	double seconds = json_node_get_double(node);

	if (!isfinite(seconds) || seconds < 0 || seconds > MAX_SECONDS)
		return FALSE;
	/* Non-negative, so adding a half rounds to the nearest. */
	*ms = (gint64)(seconds * 1000.0 + 0.5);
	return TRUE;
}

static gboolean
get_string(JsonObject *object, const char *name, guint number,
           const char **value, GError **error)
{
	JsonNode *node = get_member(object, name);

	*value = NULL;
	if (node == NULL)
		return TRUE;
	if (!JSON_NODE_HOLDS_VALUE(node) ||
	    json_node_get_value_type(node) != G_TYPE_STRING)
		return bad(error, "%s of chapter %u is not a string", name,
		           number);
	*value = json_node_get_string(node);
	return TRUE;
}

/* @url when it is an http or https URL with a host, else NULL. */
static char *
web_url(const char *url)
{
	g_autofree char *scheme = NULL;
	g_autofree char *clean = NULL;
	g_autoptr(GUri) uri = NULL;

	if (url == NULL || !g_utf8_validate(url, -1, NULL))
		return NULL;
	clean = g_strstrip(g_strdup(url));
	scheme = g_uri_parse_scheme(clean);
	if (scheme == NULL || (g_ascii_strcasecmp(scheme, "http") != 0 &&
	                       g_ascii_strcasecmp(scheme, "https") != 0))
		return NULL;
	uri = g_uri_parse(clean, G_URI_FLAGS_ENCODED, NULL);
	if (uri == NULL || g_uri_get_host(uri) == NULL ||
	    *g_uri_get_host(uri) == '\0')
		return NULL;
	return g_steal_pointer(&clean);
}

static FeedChapter *
read_chapter(JsonNode *node, guint number, GError **error)
{
	JsonObject *object;
	JsonNode *member;
	const char *title;
	const char *img;
	const char *url;
	FeedChapter *chapter;
	gint64 start;
	gint64 end = -1;
	gboolean toc = TRUE;

	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		bad(error, "chapter %u is not an object", number);
		return NULL;
	}
	object = json_node_get_object(node);
	member = get_member(object, "startTime");
	if (member == NULL) {
		bad(error, "chapter %u has no startTime", number);
		return NULL;
	}
	if (!is_number(member)) {
		bad(error, "startTime of chapter %u is not a number", number);
		return NULL;
	}
	if (!get_ms(member, &start)) {
		bad(error,
		    "startTime of chapter %u is negative or beyond %.0e "
		    "seconds",
		    number, MAX_SECONDS);
		return NULL;
	}
	member = get_member(object, "endTime");
	if (member != NULL && !is_number(member)) {
		bad(error, "endTime of chapter %u is not a number", number);
		return NULL;
	}
	if (member != NULL && !get_ms(member, &end)) {
		bad(error,
		    "endTime of chapter %u is negative or beyond %.0e seconds",
		    number, MAX_SECONDS);
		return NULL;
	}
	member = get_member(object, "toc");
	if (member != NULL) {
		if (!JSON_NODE_HOLDS_VALUE(member) ||
		    json_node_get_value_type(member) != G_TYPE_BOOLEAN) {
			bad(error, "toc of chapter %u is not true or false",
			    number);
			return NULL;
		}
		toc = json_node_get_boolean(member);
	}
	if (!get_string(object, "title", number, &title, error) ||
	    !get_string(object, "img", number, &img, error) ||
	    !get_string(object, "url", number, &url, error))
		return NULL;

	chapter = g_new0(FeedChapter, 1);
	chapter->start = start;
	chapter->end = end >= start ? end : -1;
	/* json-glib turns a lone surrogate escape into invalid UTF-8. */
	chapter->title =
	        g_strstrip(g_utf8_make_valid(title != NULL ? title : "", -1));
	chapter->image = web_url(img);
	chapter->href = web_url(url);
	chapter->toc = toc;
	return chapter;
}

FeedChapterList *
feed_chapter_list_new_from_json(const char *data, gsize length, GError **error)
{
	g_autoptr(JsonParser) parser = NULL;
	g_autoptr(GError) local = NULL;
	g_autoptr(FeedChapterList) list = NULL;
	const char *invalid = NULL;
	JsonObject *root;
	JsonNode *node;
	JsonArray *chapters;
	guint n;

	g_return_val_if_fail(data != NULL || length == 0, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	if (data == NULL)
		data = "";
	if (length > FEED_CHAPTERS_MAX_SIZE) {
		g_set_error(error, FEED_ERROR, FEED_ERROR_TOO_LARGE,
		            "the JSON chapters document is larger than the "
		            "4 MiB cap");
		return NULL;
	}
	/* json-glib would stop at a NUL and accept what came before it. */
	if (!g_utf8_validate(data, (gssize)length, &invalid)) {
		bad(error, "not valid UTF-8 at byte %" G_GSIZE_FORMAT,
		    (gsize)(invalid - data));
		return NULL;
	}
	if (!is_shallow(data, length)) {
		bad(error, "nested deeper than %d levels", MAX_DEPTH);
		return NULL;
	}
	parser = json_parser_new_immutable();
	if (!json_parser_load_from_data(parser, data, (gssize)length, &local)) {
		/* It may quote a string it decoded into invalid UTF-8. */
		g_autofree char *message =
		        g_utf8_make_valid(local->message, -1);

		bad(error, "%s", message);
		return NULL;
	}
	node = json_parser_get_root(parser);
	if (node == NULL || !JSON_NODE_HOLDS_OBJECT(node)) {
		bad(error, "the document is not a JSON object");
		return NULL;
	}
	root = json_node_get_object(node);
	node = get_member(root, "version");
	if (node == NULL) {
		bad(error, "it has no version");
		return NULL;
	}
	if (!JSON_NODE_HOLDS_VALUE(node) ||
	    json_node_get_value_type(node) != G_TYPE_STRING) {
		bad(error, "its version is not a string");
		return NULL;
	}
	node = get_member(root, "chapters");
	if (node == NULL) {
		bad(error, "it has no chapters array");
		return NULL;
	}
	if (!JSON_NODE_HOLDS_ARRAY(node)) {
		bad(error, "its chapters are not an array");
		return NULL;
	}
	chapters = json_node_get_array(node);
	n = json_array_get_length(chapters);
	if (n > FEED_CHAPTERS_MAX_CHAPTERS) {
		bad(error, "%u chapters, more than the %d allowed", n,
		    FEED_CHAPTERS_MAX_CHAPTERS);
		return NULL;
	}
	list = list_new();
	list->from_json = TRUE;
	for (guint i = 0; i < n; i++) {
		FeedChapter *chapter = read_chapter(
		        json_array_get_element(chapters, i), i + 1, error);

		if (chapter == NULL)
			return NULL;
		g_ptr_array_add(list->chapters, chapter);
	}
	return list_finish(g_steal_pointer(&list));
}

/* Merging */

/* AntennaPod's measure of a list it cannot merge: what its chapters say. */
static guint
score(const FeedChapterList *list)
{
	guint total = 0;

	for (guint i = 0; i < list->chapters->len; i++) {
		const FeedChapter *chapter = list->chapters->pdata[i];

		total += (*chapter->title != '\0') + (chapter->href != NULL) +
		         (chapter->image != NULL);
	}
	return total;
}

static FeedChapterList *
list_ref_const(const FeedChapterList *list)
{
	/* Immutable: another reference is as good as a copy. */
	return feed_chapter_list_ref((FeedChapterList *)list);
}

FeedChapterList *
feed_chapter_list_merge(const FeedChapterList *a, const FeedChapterList *b)
{
	const FeedChapterList *preferred;
	const FeedChapterList *other;
	FeedChapterList *merged;
	guint n;

	if (a == NULL && b == NULL)
		return list_finish(list_new());
	if (a == NULL)
		return list_ref_const(b);
	if (b == NULL)
		return list_ref_const(a);
	if (a->chapters->len != b->chapters->len)
		return list_ref_const(a->chapters->len > b->chapters->len ? a
		                                                          : b);
	preferred = a->from_json && !b->from_json ? a : b;
	other = preferred == a ? b : a;
	n = preferred->chapters->len;
	for (guint i = 0; i < n; i++) {
		const FeedChapter *x = preferred->chapters->pdata[i];
		const FeedChapter *y = other->chapters->pdata[i];

		if (ABS(x->start - y->start) > MERGE_WINDOW)
			return list_ref_const(score(other) > score(preferred)
			                              ? other
			                              : preferred);
	}
	merged = list_new();
	merged->from_json = a->from_json || b->from_json;
	for (guint i = 0; i < n; i++) {
		const FeedChapter *y = other->chapters->pdata[i];
		FeedChapter *x =
		        feed_chapter_copy(preferred->chapters->pdata[i]);

		if (*x->title == '\0') {
			g_free(x->title);
			x->title = g_strdup(y->title);
		}
		if (x->href == NULL)
			x->href = g_strdup(y->href);
		if (x->image == NULL)
			x->image = g_strdup(y->image);
		if (x->end < 0 && y->end >= x->start)
			x->end = y->end;
		g_ptr_array_add(merged->chapters, x);
	}
	return list_finish(merged);
}

/* Writing JSON */

static void
append_string(GString *out, const char *text)
{
	g_string_append_c(out, '"');
	for (const char *p = text; *p != '\0'; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '"' || c == '\\')
			g_string_append_printf(out, "\\%c", c);
		else if (c < 0x20)
			g_string_append_printf(out, "\\u%04x", c);
		else
			g_string_append_c(out, (char)c);
	}
	g_string_append_c(out, '"');
}

/* Milliseconds as seconds, exactly: 12, 12.5, 12.025. */
static void
append_seconds(GString *out, gint64 ms)
{
	g_string_append_printf(out, "%" G_GINT64_FORMAT, ms / 1000);
	if (ms % 1000 != 0) {
		char fraction[8];

		g_snprintf(fraction, sizeof(fraction), ".%03d",
		           (int)(ms % 1000));
		for (gsize end = strlen(fraction); fraction[end - 1] == '0';
		     end--)
			fraction[end - 1] = '\0';
		g_string_append(out, fraction);
	}
}

char *
feed_chapter_list_to_json(const FeedChapterList *list)
{
	GString *out;

	g_return_val_if_fail(list != NULL, NULL);
	out = g_string_new("{\n  \"version\": \"1.2.0\",\n  \"chapters\": [");
	for (guint i = 0; i < list->chapters->len; i++) {
		const FeedChapter *chapter = list->chapters->pdata[i];
		g_autofree char *image = web_url(chapter->image);
		g_autofree char *href = web_url(chapter->href);

		g_string_append(out, i == 0 ? "\n    " : ",\n    ");
		g_string_append(out, "{\"startTime\": ");
		append_seconds(out, chapter->start);
		if (*chapter->title != '\0') {
			g_string_append(out, ", \"title\": ");
			append_string(out, chapter->title);
		}
		/* As the reader would drop them: a Podlove link may be any
		 * URL. */
		if (image != NULL) {
			g_string_append(out, ", \"img\": ");
			append_string(out, image);
		}
		if (href != NULL) {
			g_string_append(out, ", \"url\": ");
			append_string(out, href);
		}
		if (chapter->end >= 0) {
			g_string_append(out, ", \"endTime\": ");
			append_seconds(out, chapter->end);
		}
		if (!chapter->toc)
			g_string_append(out, ", \"toc\": false");
		g_string_append_c(out, '}');
	}
	g_string_append(out, list->chapters->len > 0 ? "\n  ]\n}\n" : "]\n}\n");
	return g_string_free(out, FALSE);
}
