/*
 * Asking a podcast directory for podcasts by name: one GET with libcurl's
 * easy interface, blocking, so that it can run on a worker thread.
 */
#include "feeds/search.h"

#include <curl/curl.h>
#include <feed/version.h>
#include <string.h>

#define USER_AGENT "mpd-bridge/" FEED_VERSION
/* A page of 50 podcasts is about 150 KiB: anything past this is not one. */
#define MAX_ANSWER_BYTES (4 * 1024 * 1024)
#define MAX_RESULTS      50
#define MAX_REDIRECTS    5L
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
 * key, secret and time, in lower-case hex.
 */
static struct curl_slist *
request_headers(const BridgeSearchSettings *settings,
                BridgeSearchDirectory directory)
{
	struct curl_slist *headers =
	        curl_slist_append(NULL, "Accept: application/json");
	g_autofree char *date = NULL;
	g_autofree char *signed_text = NULL;
	g_autofree char *hash = NULL;
	g_autofree char *key = NULL;
	g_autofree char *date_header = NULL;
	g_autofree char *authorization = NULL;

	if (directory != BRIDGE_SEARCH_PODCASTINDEX)
		return headers;
	date = g_strdup_printf("%" G_GINT64_FORMAT,
	                       g_get_real_time() / G_USEC_PER_SEC);
	signed_text = g_strconcat(settings->podcastindex_key,
	                          settings->podcastindex_secret, date, NULL);
	hash = g_compute_checksum_for_string(G_CHECKSUM_SHA1, signed_text, -1);
	key = g_strconcat("X-Auth-Key: ", settings->podcastindex_key, NULL);
	date_header = g_strconcat("X-Auth-Date: ", date, NULL);
	authorization = g_strconcat("Authorization: ", hash, NULL);
	headers = curl_slist_append(headers, key);
	headers = curl_slist_append(headers, date_header);
	return curl_slist_append(headers, authorization);
}

typedef struct {
	GByteArray *body;
	gboolean too_large;
} Answer;

static size_t
on_data(char *data, size_t size, size_t n, void *user_data)
{
	Answer *answer = user_data;

	if (n > 0 && size > (MAX_ANSWER_BYTES - answer->body->len) / n) {
		answer->too_large = TRUE;
		return 0;
	}
	g_byte_array_append(answer->body, (const guint8 *)data, size * n);
	return size * n;
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

static void
transfer_error(CURLcode code, const char *message, const Answer *answer,
               const BridgeSearchSettings *settings, GError **error)
{
	if (code == CURLE_OPERATION_TIMEDOUT)
		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_TIMEOUT,
		            "the directory did not answer within %u s "
		            "([search] timeout)",
		            settings->timeout_seconds);
	else if (code == CURLE_FILESIZE_EXCEEDED ||
	         (code == CURLE_WRITE_ERROR && answer->too_large))
		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_TOO_LARGE,
		            "the directory's answer is larger than %d MiB",
		            MAX_ANSWER_BYTES / (1024 * 1024));
	/* The URL set is http or https: a redirect went elsewhere. */
	else if (code == CURLE_UNSUPPORTED_PROTOCOL)
		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_UNREACHABLE,
		            "the directory redirected to a URL that is not "
		            "http or https");
	else
		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_UNREACHABLE,
		            "cannot reach the directory (%s): check the "
		            "network, or the URL in [search]",
		            *message != '\0' ? message
		                             : curl_easy_strerror(code));
}

/* GETs @url into a new GBytes, or NULL with @error set. */
static GBytes *
fetch(const char *url, const BridgeSearchSettings *settings,
      BridgeSearchDirectory directory, GError **error)
{
	g_autoptr(GByteArray) body = g_byte_array_new();
	Answer answer = { body, FALSE };
	struct curl_slist *headers = request_headers(settings, directory);
	const char *ca_bundle = g_getenv("CURL_CA_BUNDLE");
	char message[CURL_ERROR_SIZE] = "";
	CURL *easy = curl_easy_init();
	CURLcode code;
	long status = 0;

	if (easy == NULL) {
		curl_slist_free_all(headers);
		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_UNREACHABLE,
		            "cannot start a transfer (libcurl)");
		return NULL;
	}
	curl_easy_setopt(easy, CURLOPT_URL, url);
	curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, message);
	curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(easy, CURLOPT_MAXREDIRS, MAX_REDIRECTS);
	curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT,
	                 (long)MIN(CONNECT_SECONDS, settings->timeout_seconds));
	curl_easy_setopt(easy, CURLOPT_TIMEOUT,
	                 (long)settings->timeout_seconds);
	curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE,
	                 (curl_off_t)MAX_ANSWER_BYTES);
	curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(easy, CURLOPT_USERAGENT, USER_AGENT);
	curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(easy, CURLOPT_WRITEDATA, &answer);
	/* As libfeed does: CURL_CA_BUNDLE names a CA of one's own. */
	if (ca_bundle != NULL && *ca_bundle != '\0')
		curl_easy_setopt(easy, CURLOPT_CAINFO, ca_bundle);
	code = curl_easy_perform(easy);
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(easy);
	curl_slist_free_all(headers);
	if (code != CURLE_OK) {
		transfer_error(code, message, &answer, settings, error);
		return NULL;
	}
	if (status < 200 || status > 299) {
		g_set_error(error, BRIDGE_SEARCH_ERROR,
		            BRIDGE_SEARCH_ERROR_HTTP,
		            "the directory answered HTTP %ld%s", status,
		            status_hint(status, directory));
		return NULL;
	}
	return g_byte_array_free_to_bytes(g_steal_pointer(&body));
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
