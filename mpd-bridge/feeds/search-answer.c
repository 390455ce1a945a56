/*
 * Reading a directory's answer. The shapes are the directories'
 * documented ones: iTunes' {"results": [...]} with collectionName,
 * artistName, trackCount and feedUrl; Podcast Index's {"status": "true",
 * "feeds": [...]} with title, author, episodeCount and url.
 */
#include "feeds/search.h"

#include <json-glib/json-glib.h>
#include <string.h>

/*
 * json-glib's parser recurses once a level of nesting: a few hundred
 * thousand '[' exhaust the stack. No directory answer nests this deep.
 */
#define MAX_DEPTH 32

static gboolean
bad_answer(GError **error, BridgeSearchDirectory directory, const char *format,
           ...) G_GNUC_PRINTF(3, 4);

static gboolean
bad_answer(GError **error, BridgeSearchDirectory directory, const char *format,
           ...)
{
	g_autofree char *what = NULL;
	va_list args;

	va_start(args, format);
	what = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error(error, BRIDGE_SEARCH_ERROR, BRIDGE_SEARCH_ERROR_BAD_ANSWER,
	            "the directory's answer is not %s search JSON: %s",
	            bridge_search_directory_name(directory), what);
	return FALSE;
}

char *
bridge_search_clean_text(const char *text)
{
	g_autofree char *valid = g_utf8_make_valid(text, -1);
	g_autoptr(GString) out = g_string_new(NULL);

	for (const char *p = valid; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		/* Also U+2028 and U+2029, which end a line in some terminals.
		 */
		if (g_unichar_isspace(c)) {
			if (out->len > 0 && out->str[out->len - 1] != ' ')
				g_string_append_c(out, ' ');
		} else if (!g_unichar_iscntrl(c)) {
			g_string_append_unichar(out, c);
		}
	}
	if (out->len > 0 && out->str[out->len - 1] == ' ')
		g_string_truncate(out, out->len - 1);
	return out->len > 0 ? g_string_free(g_steal_pointer(&out), FALSE)
	                    : NULL;
}

gboolean
bridge_search_is_feed_url(const char *url)
{
	g_autoptr(GUri) uri = NULL;
	const char *scheme;

	for (const char *p = url; *p != '\0'; p++)
		if ((guchar)*p <= ' ' || *p == 0x7f)
			return FALSE;
	uri = g_uri_parse(url, G_URI_FLAGS_NONE, NULL);
	scheme = uri != NULL ? g_uri_get_scheme(uri) : NULL;
	return scheme != NULL &&
	       (g_ascii_strcasecmp(scheme, "http") == 0 ||
	        g_ascii_strcasecmp(scheme, "https") == 0) &&
	       g_uri_get_host(uri) != NULL && *g_uri_get_host(uri) != '\0';
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

/*
 * The string member @name of @object into *@value: NULL when absent or
 * null, an error when it is something else.
 */
static gboolean
get_string(JsonObject *object, const char *name, guint index,
           BridgeSearchDirectory directory, const char **value, GError **error)
{
	JsonNode *node = json_object_get_member(object, name);

	*value = NULL;
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	if (json_node_get_value_type(node) != G_TYPE_STRING)
		return bad_answer(error, directory,
		                  "%s of result %u is not a string", name,
		                  index + 1);
	*value = json_node_get_string(node);
	return TRUE;
}

/* The count member @name of @object: -1 when absent, null or negative. */
static gboolean
get_count(JsonObject *object, const char *name, guint index,
          BridgeSearchDirectory directory, gint64 *value, GError **error)
{
	JsonNode *node = json_object_get_member(object, name);
	GType type = node != NULL && JSON_NODE_HOLDS_VALUE(node)
	                     ? json_node_get_value_type(node)
	                     : G_TYPE_INVALID;
	double number;

	*value = -1;
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	if (type == G_TYPE_INT64) {
		*value = MAX(json_node_get_int(node), -1);
		return TRUE;
	}
	if (type != G_TYPE_DOUBLE)
		return bad_answer(error, directory,
		                  "%s of result %u is not a number", name,
		                  index + 1);
	number = json_node_get_double(node);
	if (number >= 0 && number < 1e15)
		*value = (gint64)number;
	return TRUE;
}

/* The members each directory names its fields with. */
typedef struct {
	const char *list;      /* the array of results, in the root object */
	const char *title;     /* a string */
	const char *title_alt; /* read when title is missing; NULL for none */
	const char *author;    /* a string */
	const char *episodes;  /* a number */
	const char *feed_url;  /* a string */
} Shape;

static const Shape itunes_shape = {
	"results",    "collectionName", "trackName",
	"artistName", "trackCount",     "feedUrl",
};

static const Shape podcastindex_shape = {
	"feeds", "title", NULL, "author", "episodeCount", "url",
};

static BridgeSearchResult *
read_result(JsonNode *node, guint index, BridgeSearchDirectory directory,
            GError **error)
{
	const Shape *shape = directory == BRIDGE_SEARCH_PODCASTINDEX
	                             ? &podcastindex_shape
	                             : &itunes_shape;
	g_autoptr(BridgeSearchResult) result = g_new0(BridgeSearchResult, 1);
	JsonObject *object;
	const char *title = NULL;
	const char *author = NULL;
	const char *url = NULL;

	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		bad_answer(error, directory, "result %u is not an object",
		           index + 1);
		return NULL;
	}
	object = json_node_get_object(node);
	if (!get_string(object, shape->title, index, directory, &title,
	                error) ||
	    (title == NULL && shape->title_alt != NULL &&
	     !get_string(object, shape->title_alt, index, directory, &title,
	                 error)) ||
	    !get_string(object, shape->author, index, directory, &author,
	                error) ||
	    !get_string(object, shape->feed_url, index, directory, &url,
	                error) ||
	    !get_count(object, shape->episodes, index, directory,
	               &result->episodes, error))
		return NULL;
	result->title = title != NULL ? bridge_search_clean_text(title) : NULL;
	result->author =
	        author != NULL ? bridge_search_clean_text(author) : NULL;
	result->feed_url = url != NULL ? g_strstrip(g_strdup(url)) : NULL;
	return g_steal_pointer(&result);
}

/* The text of a string member of @object, cleaned; NULL when none. */
static char *
dup_clean_string(JsonObject *object, const char *name)
{
	JsonNode *node = json_object_get_member(object, name);

	if (node == NULL || !JSON_NODE_HOLDS_VALUE(node) ||
	    json_node_get_value_type(node) != G_TYPE_STRING)
		return NULL;
	return bridge_search_clean_text(json_node_get_string(node));
}

/* Podcast Index says "status": "true", or "false" with a description. */
static gboolean
check_status(JsonObject *root, GError **error)
{
	JsonNode *status = json_object_get_member(root, "status");
	g_autofree char *description = NULL;
	gboolean failed = FALSE;

	if (status != NULL && JSON_NODE_HOLDS_VALUE(status)) {
		GType type = json_node_get_value_type(status);

		if (type == G_TYPE_STRING)
			failed =
			        g_ascii_strcasecmp(json_node_get_string(status),
			                           "false") == 0;
		else if (type == G_TYPE_BOOLEAN)
			failed = !json_node_get_boolean(status);
	}
	if (!failed)
		return TRUE;
	description = dup_clean_string(root, "description");
	g_set_error(error, BRIDGE_SEARCH_ERROR, BRIDGE_SEARCH_ERROR_BAD_ANSWER,
	            "the directory answered with status false%s%s",
	            description != NULL ? ": " : "",
	            description != NULL ? description : "");
	return FALSE;
}

GPtrArray *
bridge_search_parse(BridgeSearchDirectory directory, const char *data,
                    gsize length, GError **error)
{
	const char *list = directory == BRIDGE_SEARCH_PODCASTINDEX
	                           ? podcastindex_shape.list
	                           : itunes_shape.list;
	g_autoptr(JsonParser) parser = json_parser_new_immutable();
	g_autoptr(GError) local = NULL;
	g_autoptr(GPtrArray) results = g_ptr_array_new_with_free_func(
	        (GDestroyNotify)bridge_search_result_free);
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	JsonNode *root;
	JsonNode *items;
	JsonArray *array;

	g_return_val_if_fail(data != NULL || length == 0, NULL);

	if (length > G_MAXSSIZE || !is_shallow(data, length) ||
	    !json_parser_load_from_data(parser, data, (gssize)length, &local)) {
		/* json-glib's message may quote the bad character. */
		g_autofree char *why =
		        local != NULL ? bridge_search_clean_text(local->message)
		                      : NULL;

		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_BAD_ANSWER,
		            "the directory's answer is not JSON (%s)",
		            why != NULL     ? why
		            : local != NULL ? "unreadable"
		                            : "nested too deep");
		return NULL;
	}
	root = json_parser_get_root(parser);
	if (root == NULL) {
		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_BAD_ANSWER,
		            "the directory's answer is not JSON (it is empty)");
		return NULL;
	}
	if (!JSON_NODE_HOLDS_OBJECT(root)) {
		bad_answer(error, directory, "it is not an object");
		return NULL;
	}
	if (directory == BRIDGE_SEARCH_PODCASTINDEX &&
	    !check_status(json_node_get_object(root), error))
		return NULL;
	items = json_object_get_member(json_node_get_object(root), list);
	if (items == NULL || !JSON_NODE_HOLDS_ARRAY(items)) {
		bad_answer(error, directory, "%s is %s", list,
		           items == NULL ? "missing" : "not an array");
		return NULL;
	}
	array = json_node_get_array(items);
	for (guint i = 0; i < json_array_get_length(array); i++) {
		BridgeSearchResult *result = read_result(
		        json_array_get_element(array, i), i, directory, error);

		if (result == NULL)
			return NULL;
		/* Apple hosts some podcasts itself: no feed to subscribe to. */
		if (result->feed_url == NULL ||
		    !bridge_search_is_feed_url(result->feed_url) ||
		    g_hash_table_contains(seen, result->feed_url)) {
			bridge_search_result_free(result);
			continue;
		}
		g_hash_table_add(seen, result->feed_url);
		g_ptr_array_add(results, result);
	}
	return g_steal_pointer(&results);
}
