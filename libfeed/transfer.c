/*
 * What every transfer of the fetcher shares, a feed's or a download's:
 * the curl settings that carry its rules (schemes, no redirect followed by
 * curl, timeouts, the CA bundle), credentials, and reading headers.
 */
#include "fetcher-private.h"

#include <string.h>

#define USER_AGENT "libfeed/" FEED_VERSION

char *
feed_transfer_host_of(const char *url)
{
	g_autoptr(GUri) uri = g_uri_parse(url, G_URI_FLAGS_ENCODED, NULL);
	const char *host = uri != NULL ? g_uri_get_host(uri) : NULL;

	if (host == NULL)
		return g_strdup(url);
	return g_strdup_printf("%s:%d", host, g_uri_get_port(uri));
}

void
feed_transfer_credentials(const char *url, const char *username,
                          const char *password, char **user_out,
                          char **password_out)
{
	g_autoptr(GUri) uri = NULL;

	*user_out = g_strdup(username);
	*password_out = g_strdup(password);
	if (username != NULL)
		return;
	/* Credentials in the URL count as given for its host alone. */
	uri = g_uri_parse(url, G_URI_FLAGS_HAS_PASSWORD | G_URI_FLAGS_ENCODED,
	                  NULL);
	if (uri == NULL || g_uri_get_user(uri) == NULL)
		return;
	*user_out = g_uri_unescape_string(g_uri_get_user(uri), NULL);
	g_free(*password_out);
	*password_out =
	        g_uri_get_password(uri) != NULL
	                ? g_uri_unescape_string(g_uri_get_password(uri), NULL)
	                : NULL;
}

CURL *
feed_transfer_new_easy(FeedFetcher *fetcher, Job *job, const char *url,
                       gboolean file, char *error_buffer)
{
	const char *ca_bundle = g_getenv("CURL_CA_BUNDLE");
	CURL *easy = curl_easy_init();

	error_buffer[0] = '\0';
	curl_easy_setopt(easy, CURLOPT_URL, url);
	curl_easy_setopt(easy, CURLOPT_PRIVATE, job);
	curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buffer);
	curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR,
	                 file ? "file" : "http,https");
	curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(easy, CURLOPT_USERAGENT, USER_AGENT);
	/*
	 * Debian's libcurl has its CA bundle built in; like the curl tool,
	 * libfeed lets CURL_CA_BUNDLE name another (a private CA, a test's).
	 */
	if (ca_bundle != NULL && *ca_bundle != '\0')
		curl_easy_setopt(easy, CURLOPT_CAINFO, ca_bundle);
	curl_easy_setopt(easy, CURLOPT_HTTP_VERSION,
	                 (long)CURL_HTTP_VERSION_2TLS);
	curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
	curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT,
	                 (long)fetcher->connect_timeout);
	curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME,
	                 (long)fetcher->stall_timeout);
	return easy;
}

struct curl_slist *
feed_transfer_add_header(struct curl_slist *headers, const char *name,
                         const char *value)
{
	g_autofree char *line = g_strdup_printf("%s: %s", name, value);

	/* A validator with a line break could smuggle a header in. */
	if (strpbrk(value, "\r\n") != NULL)
		return headers;
	return curl_slist_append(headers, line);
}

gboolean
feed_transfer_status_line(const char *data, gsize length, guint *status,
                          char **reason)
{
	g_autofree char *line = NULL;
	g_auto(GStrv) parts = NULL;

	if (length <= 5 || strncmp(data, "HTTP/", 5) != 0)
		return FALSE;
	line = g_strstrip(g_strndup(data, length));
	parts = g_strsplit(line, " ", 3);
	*status = 0;
	g_clear_pointer(reason, g_free);
	if (parts[0] != NULL && parts[1] != NULL)
		*status = (guint)g_ascii_strtoull(parts[1], NULL, 10);
	if (parts[0] != NULL && parts[1] != NULL && parts[2] != NULL)
		*reason = g_strdup(parts[2]);
	return TRUE;
}

gboolean
feed_transfer_take_header(const char *line, gsize length, const char *name,
                          char **field)
{
	gsize name_length = strlen(name);

	if (length <= name_length || line[name_length] != ':' ||
	    g_ascii_strncasecmp(line, name, name_length) != 0)
		return FALSE;
	g_free(*field);
	*field = g_strstrip(
	        g_strndup(line + name_length + 1, length - name_length - 1));
	return TRUE;
}

gboolean
feed_transfer_is_html_type(const char *content_type)
{
	return content_type != NULL &&
	       (g_ascii_strncasecmp(content_type, "text/html", 9) == 0 ||
	        g_ascii_strncasecmp(content_type, "application/xhtml+xml",
	                            21) == 0);
}
