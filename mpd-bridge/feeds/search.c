/*
 * Asking a podcast directory for podcasts by name: one GET through
 * core/http.c, blocking, so that it can run on a worker thread.
 */
#include "feeds/search.h"

#include "core/http.h"

#include <string.h>

/* A page of 50 podcasts is about 150 KiB: anything past this is not one. */
#define MAX_ANSWER_BYTES (4 * 1024 * 1024)
#define MAX_RESULTS      50
#define CONNECT_SECONDS  10u

GQuark
bridge_search_error_quark(void)
{
	return g_quark_from_static_string("bridge-search-error-quark");
}

void
bridge_search_result_free(BridgeSearchResult *result)
{
	if (result == NULL)
		return;
	g_free(result->title);
	g_free(result->author);
	g_free(result->feed_url);
	g_free(result);
}

BridgeSearchSettings *
bridge_search_settings_copy(const BridgeSearchSettings *settings)
{
	BridgeSearchSettings *copy = g_new0(BridgeSearchSettings, 1);

	copy->itunes_url = g_strdup(settings->itunes_url);
	copy->podcastindex_url = g_strdup(settings->podcastindex_url);
	copy->podcastindex_key = g_strdup(settings->podcastindex_key);
	copy->podcastindex_secret = g_strdup(settings->podcastindex_secret);
	copy->timeout_seconds = settings->timeout_seconds;
	return copy;
}

void
bridge_search_settings_free(BridgeSearchSettings *settings)
{
	if (settings == NULL)
		return;
	g_free(settings->itunes_url);
	g_free(settings->podcastindex_url);
	g_free(settings->podcastindex_key);
	g_free(settings->podcastindex_secret);
	g_free(settings);
}

BridgeSearchDirectory
bridge_search_settings_get_directory(const BridgeSearchSettings *settings)
{
	return settings->podcastindex_key != NULL &&
	                       settings->podcastindex_secret != NULL
	               ? BRIDGE_SEARCH_PODCASTINDEX
	               : BRIDGE_SEARCH_ITUNES;
}

const char *
bridge_search_directory_name(BridgeSearchDirectory directory)
{
	return directory == BRIDGE_SEARCH_PODCASTINDEX ? "Podcast Index"
	                                               : "iTunes";
}

/* The words of @terms, each escaped, joined with '+' as a form would. */
static char *
query_terms(const char *const *terms)
{
	g_autofree char *joined = g_strjoinv(" ", (char **)terms);
	g_auto(GStrv) words = g_strsplit_set(joined, " \t\r\n", -1);
	g_autoptr(GString) query = g_string_new(NULL);

	for (guint i = 0; words[i] != NULL; i++) {
		g_autofree char *escaped = NULL;

		if (*words[i] == '\0')
			continue;
		escaped = g_uri_escape_string(words[i], NULL, FALSE);
		g_string_append_printf(query, "%s%s", query->len > 0 ? "+" : "",
		                       escaped);
	}
	return g_string_free(g_steal_pointer(&query), FALSE);
}

/* The directory's URL as set, without a fragment. */
static char *
base_url(const BridgeSearchSettings *settings, BridgeSearchDirectory directory)
{
	const char *url = directory == BRIDGE_SEARCH_PODCASTINDEX
	                          ? settings->podcastindex_url
	                          : settings->itunes_url;

	return g_strndup(url, strcspn(url, "#"));
}

static char *
query_url(const char *base, BridgeSearchDirectory directory, const char *terms)
{
	const char *join = strchr(base, '?') != NULL ? "&" : "?";

	if (directory == BRIDGE_SEARCH_PODCASTINDEX)
		return g_strdup_printf("%s%sq=%s&max=%d", base, join, terms,
		                       MAX_RESULTS);
	return g_strdup_printf("%s%smedia=podcast&entity=podcast&limit=%d&"
	                       "term=%s",
	                       base, join, MAX_RESULTS, terms);
}

/*
 * Podcast Index's authentication: the key, the time, and the SHA-1 of
 * key, secret and time, in lower-case hex. NULL for iTunes, which needs
 * none.
 */
static char **
auth_headers(const BridgeSearchSettings *settings,
             BridgeSearchDirectory directory)
{
	g_autofree char *date = NULL;
	g_autofree char *signed_text = NULL;
	g_autofree char *hash = NULL;
	char **headers;

	if (directory != BRIDGE_SEARCH_PODCASTINDEX)
		return NULL;
	date = g_strdup_printf("%" G_GINT64_FORMAT,
	                       g_get_real_time() / G_USEC_PER_SEC);
	signed_text = g_strconcat(settings->podcastindex_key,
	                          settings->podcastindex_secret, date, NULL);
	hash = g_compute_checksum_for_string(G_CHECKSUM_SHA1, signed_text, -1);
	headers = g_new0(char *, 4);
	headers[0] =
	        g_strconcat("X-Auth-Key: ", settings->podcastindex_key, NULL);
	headers[1] = g_strconcat("X-Auth-Date: ", date, NULL);
	headers[2] = g_strconcat("Authorization: ", hash, NULL);
	return headers;
}

/* What a person can do about @status. */
static const char *
status_hint(long status, BridgeSearchDirectory directory)
{
	if ((status == 401 || status == 403) &&
	    directory == BRIDGE_SEARCH_PODCASTINDEX)
		return ": check [search] podcastindex_key and "
		       "podcastindex_secret";
	if (status == 403 || status == 429 || status >= 500)
		return ": try again later";
	if (status >= 400)
		return directory == BRIDGE_SEARCH_PODCASTINDEX
		               ? ": check [search] podcastindex_url"
		               : ": check [search] itunes_url";
	return "";
}

/* @failed (BRIDGE_HTTP_ERROR) in the words of a search. */
static void
http_error(const GError *failed, long status,
           const BridgeSearchSettings *settings,
           BridgeSearchDirectory directory, GError **error)
{
	switch ((BridgeHttpError)failed->code) {
	case BRIDGE_HTTP_ERROR_START:
		g_set_error_literal(error, BRIDGE_SEARCH_ERROR,
		                    BRIDGE_SEARCH_ERROR_UNREACHABLE,
		                    failed->message);
		return;
	case BRIDGE_HTTP_ERROR_TIMEOUT:
		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_TIMEOUT,
		            "the directory did not answer within %u s "
		            "([search] timeout)",
		            settings->timeout_seconds);
		return;
	case BRIDGE_HTTP_ERROR_TOO_LARGE:
		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_TOO_LARGE,
		            "the directory's answer is larger than %d MiB",
		            MAX_ANSWER_BYTES / (1024 * 1024));
		return;
	/* The URL set is http or https: a redirect went elsewhere. */
	case BRIDGE_HTTP_ERROR_PROTOCOL:
		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_UNREACHABLE,
		            "the directory redirected to a URL that is not "
		            "http or https");
		return;
	case BRIDGE_HTTP_ERROR_STATUS:
		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_HTTP,
		            "the directory answered HTTP %ld%s", status,
		            status_hint(status, directory));
		return;
	case BRIDGE_HTTP_ERROR_UNREACHABLE:
		break;
	}
	g_set_error(error, BRIDGE_SEARCH_ERROR, BRIDGE_SEARCH_ERROR_UNREACHABLE,
	            "cannot reach the directory (%s): check the network, or "
	            "the URL in [search]",
	            failed->message);
}

/* GETs @url into a new GBytes, or NULL with @error set. */
static GBytes *
fetch(const char *url, const BridgeSearchSettings *settings,
      BridgeSearchDirectory directory, GError **error)
{
	g_auto(GStrv) headers = auth_headers(settings, directory);
	const BridgeHttpRequest request = {
		.url = url,
		.headers = (const char *const *)headers,
		.timeout_seconds = settings->timeout_seconds,
		.connect_seconds = CONNECT_SECONDS,
		.max_bytes = MAX_ANSWER_BYTES,
	};
	g_autoptr(GError) failed = NULL;
	CURL *easy = bridge_http_easy_new(&failed);
	GBytes *body = NULL;
	long status = 0;

	if (easy != NULL) {
		body = bridge_http_perform(easy, &request, &status, &failed);
		curl_easy_cleanup(easy);
	}
	if (body == NULL)
		http_error(failed, status, settings, directory, error);
	return body;
}

GPtrArray *
bridge_search_query(const BridgeSearchSettings *settings,
                    const char *const *terms, GError **error)
{
	BridgeSearchDirectory directory;
	g_autofree char *base = NULL;
	g_autofree char *words = NULL;
	g_autofree char *url = NULL;
	g_autoptr(GBytes) body = NULL;
	GPtrArray *results = NULL;
	const char *data;
	gsize length;

	g_return_val_if_fail(settings != NULL, NULL);
	g_return_val_if_fail(terms != NULL, NULL);

	directory = bridge_search_settings_get_directory(settings);
	base = base_url(settings, directory);
	words = query_terms(terms);
	url = query_url(base, directory, words);
	g_debug("searching %s: %s", bridge_search_directory_name(directory),
	        url);
	body = fetch(url, settings, directory, error);
	if (body != NULL) {
		data = g_bytes_get_data(body, &length);
		results = bridge_search_parse(
		        directory, data != NULL ? data : "", length, error);
	}
	if (results == NULL)
		g_prefix_error(error, "cannot search %s at %s: ",
		               bridge_search_directory_name(directory), base);
	return results;
}
