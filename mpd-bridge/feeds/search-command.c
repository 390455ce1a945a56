/*
 * The search command: its output, and the last search kept in the cache
 * directory, which `subscribe N` reads.
 */
#include "feeds/search-command.h"

#include "core/answer.h"
#include "core/call.h"
#include "feeds/search.h"

#include <errno.h>
#include <string.h>

#define LAST_SEARCH "last-search.json"

/* What --json writes, and the last search's file holds. */
static char *
to_json(BridgeSearchDirectory directory, const char *terms,
        const GPtrArray *results, gboolean pretty)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonGenerator) generator = json_generator_new();
	g_autoptr(JsonNode) root = NULL;

	json_builder_begin_object(builder);
	bridge_json_member_string(builder, "directory",
	                          bridge_search_directory_name(directory));
	bridge_json_member_string(builder, "terms", terms);
	json_builder_set_member_name(builder, "results");
	json_builder_begin_array(builder);
	for (guint i = 0; i < results->len; i++) {
		const BridgeSearchResult *result = results->pdata[i];

		json_builder_begin_object(builder);
		json_builder_set_member_name(builder, "number");
		json_builder_add_int_value(builder, i + 1);
		bridge_json_member_string(builder, "title", result->title);
		bridge_json_member_string(builder, "author", result->author);
		json_builder_set_member_name(builder, "episodes");
		if (result->episodes >= 0)
			json_builder_add_int_value(builder, result->episodes);
		else
			json_builder_add_null_value(builder);
		bridge_json_member_string(builder, "feed_url",
		                          result->feed_url);
		json_builder_end_object(builder);
	}
	json_builder_end_array(builder);
	json_builder_end_object(builder);
	root = json_builder_get_root(builder);
	json_generator_set_root(generator, root);
	json_generator_set_pretty(generator, pretty);
	return json_generator_to_data(generator, NULL);
}

/* The terms as one line of text, for messages and the last search. */
static char *
join_terms(const char *const *terms)
{
	g_autofree char *joined = g_strjoinv(" ", (char **)terms);
	char *clean = bridge_search_clean_text(joined);

	return clean != NULL ? clean : g_strdup("");
}

gboolean
bridge_search_save(const char *cache_directory, BridgeSearchDirectory directory,
                   const char *const *terms, const GPtrArray *results,
                   GError **error)
{
	g_autofree char *path =
	        g_build_filename(cache_directory, LAST_SEARCH, NULL);
	g_autofree char *joined = join_terms(terms);
	g_autofree char *text = to_json(directory, joined, results, TRUE);
	g_autoptr(GError) local = NULL;

	if (g_mkdir_with_parents(cache_directory, 0700) != 0) {
		int saved = errno;

		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_CACHE,
		            "cannot keep the results for subscribe N: cannot "
		            "make %s: %s",
		            cache_directory, g_strerror(saved));
		return FALSE;
	}
	if (!g_file_set_contents_full(path, text, -1,
	                              G_FILE_SET_CONTENTS_CONSISTENT, 0600,
	                              &local)) {
		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_CACHE,
		            "cannot keep the results for subscribe N: %s",
		            local->message);
		return FALSE;
	}
	return TRUE;
}

gboolean
bridge_search_is_number(const char *text)
{
	gsize length = strspn(text, "0123456789");

	return length > 0 && length <= 9 && text[length] == '\0';
}

/* The results array of the last search's file at @path. */
static JsonArray *
read_last(JsonParser *parser, const char *path, GError **error)
{
	g_autoptr(GError) local = NULL;
	JsonNode *root;
	JsonNode *results;

	if (!json_parser_load_from_mapped_file(parser, path, &local)) {
		if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
			g_set_error_literal(error, BRIDGE_SEARCH_ERROR,
			                    BRIDGE_SEARCH_ERROR_NO_RESULT,
			                    "no search yet: run mpd-bridge "
			                    "search TERMS");
		else
			g_set_error(error, BRIDGE_SEARCH_ERROR,
			            BRIDGE_SEARCH_ERROR_CACHE,
			            "cannot read the last search (%s): run "
			            "mpd-bridge search TERMS again",
			            local->message);
		return NULL;
	}
	root = json_parser_get_root(parser);
	results = root != NULL && JSON_NODE_HOLDS_OBJECT(root)
	                  ? json_object_get_member(json_node_get_object(root),
	                                           "results")
	                  : NULL;
	if (results == NULL || !JSON_NODE_HOLDS_ARRAY(results)) {
		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_CACHE,
		            "cannot read the last search (%s holds no "
		            "results): run mpd-bridge search TERMS again",
		            path);
		return NULL;
	}
	return json_node_get_array(results);
}

char *
bridge_search_resolve(const BridgeConfig *config, const char *number,
                      GError **error)
{
	g_autofree char *path =
	        g_build_filename(config->cache_directory, LAST_SEARCH, NULL);
	g_autoptr(JsonParser) parser = json_parser_new_immutable();
	JsonArray *results;
	JsonNode *chosen;
	JsonNode *url;
	guint64 n = 0;
	guint found;

	g_return_val_if_fail(config != NULL, NULL);
	g_return_val_if_fail(number != NULL, NULL);

	results = read_last(parser, path, error);
	if (results == NULL)
		return NULL;
	found = json_array_get_length(results);
	if (found == 0 || !bridge_search_is_number(number) ||
	    !g_ascii_string_to_unsigned(number, 10, 1, found, &n, NULL)) {
		if (found == 0)
			g_set_error_literal(
			        error, BRIDGE_SEARCH_ERROR,
			        BRIDGE_SEARCH_ERROR_NO_RESULT,
			        "the last search found no podcasts");
		else
			g_set_error(error, BRIDGE_SEARCH_ERROR,
			            BRIDGE_SEARCH_ERROR_NO_RESULT,
			            "the last search found %u podcast%s: "
			            "choose a number from 1 to %u",
			            found, found == 1 ? "" : "s", found);
		return NULL;
	}
	chosen = json_array_get_element(results, (guint)n - 1);
	url = JSON_NODE_HOLDS_OBJECT(chosen)
	              ? json_object_get_member(json_node_get_object(chosen),
	                                       "feed_url")
	              : NULL;
	if (url == NULL || !JSON_NODE_HOLDS_VALUE(url) ||
	    json_node_get_value_type(url) != G_TYPE_STRING ||
	    !bridge_search_is_feed_url(json_node_get_string(url))) {
		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_CACHE,
		            "cannot read the last search (%s has no feed URL "
		            "for %s): run mpd-bridge search TERMS again",
		            path, number);
		return NULL;
	}
	return g_strdup(json_node_get_string(url));
}

static void
append_text(GString *out, BridgeSearchDirectory directory, const char *terms,
            const GPtrArray *results)
{
	for (guint i = 0; i < results->len; i++) {
		const BridgeSearchResult *result = results->pdata[i];

		g_string_append_printf(out, "%3u  %s", i + 1,
		                       result->title != NULL ? result->title
		                                             : "(no title)");
		if (result->author != NULL)
			g_string_append_printf(out, " — %s", result->author);
		if (result->episodes >= 0)
			g_string_append_printf(
			        out, " (%" G_GINT64_FORMAT " episode%s)\n",
			        result->episodes,
			        result->episodes == 1 ? "" : "s");
		else
			g_string_append(out, " (episodes unknown)\n");
		g_string_append_printf(out, "     %s\n", result->feed_url);
	}
	if (results->len == 0)
		g_string_append_printf(out, "no podcast in %s matches '%s'\n",
		                       bridge_search_directory_name(directory),
		                       terms);
	else
		g_string_append(out, "subscribe to one with: mpd-bridge "
		                     "subscribe N\n");
}

static GError *
usage_error(const char *message)
{
	return g_error_new_literal(BRIDGE_COMMAND_ERROR,
	                           BRIDGE_COMMAND_ERROR_USAGE, message);
}

/* A search under way: asked in a thread, so the daemon's loop runs on. */
typedef struct {
	BridgeSearchSettings *settings;
	BridgeSearchDirectory directory;
	char **terms;
	char *joined;
	char *cache_directory;
	gboolean json;
	gboolean pretty;
	char *save_error; /* why the list was not kept; NULL */
	BridgeCall *call;
} Search;

static void
search_free(Search *search)
{
	bridge_search_settings_free(search->settings);
	g_strfreev(search->terms);
	g_free(search->joined);
	g_free(search->cache_directory);
	g_free(search->save_error);
	g_free(search);
}

/* In a worker thread: touches only the Search. */
static void
ask(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
	Search *search = data;
	GError *error = NULL;
	g_autoptr(GError) save_error = NULL;
	GPtrArray *results = bridge_search_query(
	        search->settings, (const char *const *)search->terms, &error);

	if (results == NULL) {
		g_task_return_error(task, error);
		return;
	}
	if (!bridge_search_save(search->cache_directory, search->directory,
	                        (const char *const *)search->terms, results,
	                        &save_error))
		search->save_error = g_strdup(save_error->message);
	g_task_return_pointer(task, results, (GDestroyNotify)g_ptr_array_unref);
}

static void
on_answer(GObject *source, GAsyncResult *result, gpointer data)
{
	Search *search = data;
	GError *error = NULL;
	g_autoptr(GPtrArray) results =
	        g_task_propagate_pointer(G_TASK(result), &error);
	GString *out = bridge_call_get_out(search->call);

	if (results == NULL) {
		bridge_call_return(search->call, error);
		return;
	}
	if (search->save_error != NULL)
		g_message("%s", search->save_error);
	if (search->json) {
		g_autofree char *text =
		        to_json(search->directory, search->joined, results,
		                search->pretty);

		g_string_append(out, text);
	} else {
		append_text(out, search->directory, search->joined, results);
		if (search->save_error != NULL)
			g_string_append_printf(out, "%s\n", search->save_error);
	}
	bridge_call_return(search->call, NULL);
}

void
bridge_search_start(Bridge *bridge, char **args, BridgeCall *call)
{
	g_autoptr(GPtrArray) terms = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GTask) task = NULL;
	gboolean json = FALSE;
	gboolean options = TRUE;
	Search *search;

	for (guint i = 0; args[i] != NULL; i++) {
		if (options && strcmp(args[i], "--json") == 0)
			json = TRUE;
		else if (options && strcmp(args[i], "--") == 0)
			options = FALSE;
		else if (options && args[i][0] == '-' && args[i][1] != '\0') {
			bridge_call_return(
			        call, usage_error("search takes --json and "
			                          "words to look for"));
			return;
		} else
			g_ptr_array_add(terms, g_strdup(args[i]));
	}
	g_ptr_array_add(terms, NULL);
	search = g_new0(Search, 1);
	search->settings = bridge_search_settings_copy(&bridge->config->search);
	search->directory =
	        bridge_search_settings_get_directory(search->settings);
	search->terms =
	        (char **)g_ptr_array_free(g_steal_pointer(&terms), FALSE);
	search->joined = join_terms((const char *const *)search->terms);
	search->cache_directory = g_strdup(bridge->config->cache_directory);
	search->json = json;
	/* Over MPD's channel an answer is one line. */
	search->pretty = !bridge->daemon;
	search->call = call;
	if (*search->joined == '\0') {
		search_free(search);
		bridge_call_return(
		        call, usage_error("search needs words to look for: "
		                          "mpd-bridge search TERMS…"));
		return;
	}
	task = g_task_new(NULL, NULL, on_answer, search);
	g_task_set_task_data(task, search, (GDestroyNotify)search_free);
	g_task_run_in_thread(task, ask);
}
