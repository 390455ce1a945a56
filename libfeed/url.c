/* URLs in feeds: resolving against xml:base and normalizing enclosures. */
#include "text-private.h"
#include "url-private.h"

#include <string.h>

/* RFC 3986: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" */
static gsize
scheme_len(const char *url)
{
	const char *p = url;

	if (!g_ascii_isalpha(*p))
		return 0;
	while (g_ascii_isalnum(*p) || *p == '+' || *p == '-' || *p == '.')
		p++;
	return *p == ':' ? (gsize)(p - url) : 0;
}

/*
 * GUri does the RFC 3986 work. G_URI_FLAGS_ENCODED keeps existing %XX
 * escapes as they are, but GUri still normalizes what it rebuilds: %XX of
 * unreserved characters are decoded, the hex digits of the others are
 * upper-cased, and spaces and non-ASCII bytes are percent-encoded. So an
 * absolute @ref, the common case, is returned without passing through it.
 * G_URI_FLAGS_PARSE_RELAXED is avoided: GLib 2.74 hits a critical on
 * "//host;x/path" with it.
 */
static char *
resolve(const char *base, const char *ref)
{
	g_autoptr(GUri) base_uri = NULL;
	g_autoptr(GUri) uri = NULL;
	g_autofree char *path = NULL;
	const char *host;

	base_uri = g_uri_parse(base, G_URI_FLAGS_ENCODED, NULL);
	if (base_uri == NULL)
		return NULL;
	uri = g_uri_parse_relative(base_uri, ref, G_URI_FLAGS_ENCODED, NULL);
	if (uri == NULL)
		return NULL;
	host = g_uri_get_host(uri);
	path = g_strdup(g_uri_get_path(uri));
	/*
	 * g_uri_to_string() hits a critical on a path that cannot be written
	 * down as it is ("file:x" and ".//y" give the path "//y" without a
	 * host); RFC 3986 5.2.4 and WHATWG write it as "/.//y".
	 */
	if (host == NULL && path[0] == '/' && path[1] == '/') {
		char *fixed = g_strconcat("/.", path, NULL);

		g_free(path);
		path = fixed;
	} else if (host != NULL && path[0] != '\0' && path[0] != '/') {
		char *fixed = g_strconcat("/", path, NULL);

		g_free(path);
		path = fixed;
	}
	return g_uri_join(G_URI_FLAGS_ENCODED, g_uri_get_scheme(uri),
	                  g_uri_get_userinfo(uri), host, g_uri_get_port(uri),
	                  path, g_uri_get_query(uri), g_uri_get_fragment(uri));
}

char *
feed_url_resolve(const char *base, const char *ref)
{
	g_autofree char *trimmed_ref = NULL;
	g_autofree char *trimmed_base = NULL;
	char *resolved;

	if (ref == NULL)
		return NULL;
	trimmed_ref = feed_text_trim(ref, strlen(ref));
	if (*trimmed_ref == '\0')
		return NULL;
	if (base == NULL || scheme_len(trimmed_ref) > 0)
		return g_steal_pointer(&trimmed_ref);
	trimmed_base = feed_text_trim(base, strlen(base));
	if (*trimmed_base == '\0')
		return g_steal_pointer(&trimmed_ref);
	resolved = resolve(trimmed_base, trimmed_ref);
	if (resolved == NULL)
		return g_steal_pointer(&trimmed_ref);
	return resolved;
}

/* Length in characters, as Python's len(); robust to invalid UTF-8. */
static gsize
count_chars(const char *p)
{
	gsize n = 0;

	for (; *p != '\0'; p++) {
		if (((guchar)*p & 0xC0) != 0x80)
			n++;
	}
	return n;
}

/*
 * Python's str.lower(), which is locale-independent: the simple lower-case
 * mapping, plus the one unconditional special case, U+0130 -> "i\u0307".
 * (Python also writes a final capital sigma as U+03C2; this does not.)
 */
static void
append_lower(GString *out, const char *p, gsize length)
{
	const char *end = p + length;

	while (p < end) {
		gunichar c = g_utf8_get_char_validated(p, end - p);

		if (c == (gunichar)-1 || c == (gunichar)-2) {
			g_string_append_c(out, *p++);
			continue;
		}
		if (c == 0x130)
			g_string_append(out, "i\xcc\x87");
		else
			g_string_append_unichar(out, g_unichar_tolower(c));
		p = g_utf8_next_char(p);
	}
}

/* `\Av[a-fA-F0-9]+\..+\Z` */
static gboolean
is_ipvfuture(const char *host, gsize length)
{
	gsize i = 1;

	if (length < 1 || host[0] != 'v')
		return FALSE;
	while (i < length && g_ascii_isxdigit(host[i]))
		i++;
	return i > 1 && i < length && host[i] == '.' && i + 1 < length;
}

/*
 * The checks with which Python's urlsplit() raises ValueError ("Invalid
 * IPv6 URL") on a netloc with brackets; podcastparser would then fail the
 * whole feed. Here the URL is rejected instead.
 */
static gboolean
brackets_ok(const char *netloc, gsize length)
{
	const char *end = netloc + length;
	const char *open = memchr(netloc, '[', length);
	const char *close = memchr(netloc, ']', length);
	const char *host;
	const char *at;
	const char *p;
	g_autofree char *address = NULL;

	if (open == NULL && close == NULL)
		return TRUE;
	if (open == NULL || close == NULL)
		return FALSE;
	host = netloc;
	for (at = netloc; at < end; at++) {
		if (*at == '@')
			host = at + 1;
	}
	open = memchr(host, '[', end - host);
	if (open == NULL) {
		p = memchr(host, ':', end - host);
		return is_ipvfuture(host, (p != NULL ? p : end) - host);
	}
	if (open != host)
		return FALSE;
	close = memchr(open, ']', end - open);
	p = close != NULL ? close : end;
	if (close != NULL && close + 1 < end && close[1] != ':')
		return FALSE;
	if (p - (open + 1) >= 1 && open[1] == 'v')
		return is_ipvfuture(open + 1, p - (open + 1));
	address = g_strndup(open + 1, p - (open + 1));
	/* ipaddress.ip_address(); an IPv4 address in brackets is an error. */
	return g_hostname_is_ip_address(address) &&
	       strchr(address, ':') != NULL;
}

/*
 * Python's urlsplit() raises ValueError when the NFKC form of a non-ASCII
 * netloc grows a delimiter, as U+2100 "a/c" does.
 */
static gboolean
nfkc_ok(const char *netloc, gsize length)
{
	GString *stripped;
	g_autofree char *normalized = NULL;
	gboolean ok = TRUE;
	gsize i;

	for (i = 0; i < length; i++) {
		if ((guchar)netloc[i] >= 0x80)
			break;
	}
	if (i == length)
		return TRUE;
	stripped = g_string_sized_new(length);
	for (i = 0; i < length; i++) {
		if (netloc[i] != '@' && netloc[i] != ':')
			g_string_append_c(stripped, netloc[i]);
	}
	normalized = g_utf8_normalize(stripped->str, stripped->len,
	                              G_NORMALIZE_NFKC);
	if (normalized != NULL && strcmp(normalized, stripped->str) != 0)
		ok = strpbrk(normalized, "/?#@:") == NULL;
	g_string_free(stripped, TRUE);
	return ok;
}

/* Python's _WHATWG_C0_CONTROL_OR_SPACE, which urlsplit() left-strips. */
static gboolean
is_c0_or_space(char c)
{
	return (guchar)c <= 0x20 && c != '\0';
}

/*
 * podcastparser's normalize_feed_url(), step by step, with Python's
 * urlsplit() and urlunsplit() spelled out, then the [ext] rule for spaces.
 */
char *
feed_url_normalize(const char *url)
{
	g_autofree char *trimmed = NULL;
	g_autoptr(GString) clean = NULL;
	g_autoptr(GString) out = NULL;
	const char *p;
	const char *rest;
	const char *netloc = NULL;
	gsize netloc_len = 0;
	const char *path;
	gsize path_len;
	const char *query = NULL;
	gsize query_len = 0;
	const char *fragment = NULL;
	gsize fragment_len = 0;
	const char *hash;
	const char *qmark;
	g_autofree char *scheme = NULL;
	gsize n;

	if (url == NULL)
		return NULL;
	trimmed = feed_text_trim(url, strlen(url));
	if (count_chars(trimmed) < 8)
		return NULL;

	clean = g_string_sized_new(strlen(trimmed) + 8);
	if (strstr(trimmed, "://") == NULL)
		g_string_append(clean, "http://");
	p = trimmed;
	if (clean->len == 0) {
		while (is_c0_or_space(*p))
			p++;
	}
	/* urlsplit() removes tabs and newlines anywhere. */
	for (; *p != '\0'; p++) {
		if (*p != '\t' && *p != '\r' && *p != '\n')
			g_string_append_c(clean, *p);
	}

	rest = clean->str;
	/* Python's scheme is that of RFC 3986, before the first ':'. */
	n = scheme_len(rest);
	if (n > 0) {
		scheme = g_ascii_strdown(rest, n);
		rest += n + 1;
	} else {
		scheme = g_strdup("");
	}
	if (rest[0] == '/' && rest[1] == '/') {
		netloc = rest + 2;
		netloc_len = strcspn(netloc, "/?#");
		rest = netloc + netloc_len;
		if (!brackets_ok(netloc, netloc_len) ||
		    !nfkc_ok(netloc, netloc_len))
			return NULL;
	}
	path = rest;
	path_len = strlen(rest);
	hash = memchr(path, '#', path_len);
	if (hash != NULL) {
		fragment = hash + 1;
		fragment_len = path + path_len - fragment;
		path_len = hash - path;
	}
	qmark = memchr(path, '?', path_len);
	if (qmark != NULL) {
		query = qmark + 1;
		query_len = path + path_len - query;
		path_len = qmark - path;
	}

	if (strcmp(scheme, "feed") == 0 || strcmp(scheme, "itpc") == 0 ||
	    strcmp(scheme, "itms") == 0) {
		g_free(scheme);
		scheme = g_strdup("http");
	}
	if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0 &&
	    strcmp(scheme, "ftp") != 0 && strcmp(scheme, "file") != 0)
		return NULL;
	if (path_len == 0) {
		path = "/";
		path_len = 1;
	}

	/* urlunsplit(); all four schemes are in uses_netloc. */
	out = g_string_sized_new(clean->len + 16);
	g_string_append(out, scheme);
	g_string_append_c(out, ':');
	if (netloc_len > 0 || path_len < 2 || path[0] != '/' ||
	    path[1] != '/') {
		g_string_append(out, "//");
		append_lower(out, netloc != NULL ? netloc : "", netloc_len);
		if (path[0] != '/')
			g_string_append_c(out, '/');
	}
	g_string_append_len(out, path, path_len);
	if (query_len > 0) {
		g_string_append_c(out, '?');
		g_string_append_len(out, query, query_len);
	}
	if (fragment_len > 0) {
		g_string_append_c(out, '#');
		g_string_append_len(out, fragment, fragment_len);
	}

	/* [ext] Inner spaces become %20; nothing else is escaped. */
	if (strchr(out->str, ' ') != NULL) {
		GString *escaped = g_string_sized_new(out->len + 16);

		for (n = 0; n < out->len; n++) {
			if (out->str[n] == ' ')
				g_string_append(escaped, "%20");
			else
				g_string_append_c(escaped, out->str[n]);
		}
		g_string_free(out, TRUE);
		out = escaped;
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

static int
hex_value(char c)
{
	return g_ascii_xdigit_value(c);
}

/*
 * podcastparser takes os.path.basename() of the whole URL and splits off the
 * extension as os.path.splitext() does; here the query and fragment go
 * first, a host alone is no name, and the name is percent-decoded.
 */
char *
feed_url_basename_no_extension(const char *url)
{
	const char *p;
	const char *end;
	const char *name;
	const char *slash;
	GString *decoded;
	char *dot;
	gsize n;

	if (url == NULL)
		return NULL;
	p = url;
	end = p + strcspn(p, "?#");
	n = scheme_len(p);
	if (n > 0)
		p += n + 1;
	if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
		p += 2;
		while (p < end && *p != '/')
			p++;
	}
	name = p;
	for (slash = p; slash < end; slash++) {
		if (*slash == '/')
			name = slash + 1;
	}

	decoded = g_string_sized_new(end - name);
	for (p = name; p < end; p++) {
		char c = *p;

		if (c == '%' && end - p >= 3 && hex_value(p[1]) >= 0 &&
		    hex_value(p[2]) >= 0) {
			c = (char)(hex_value(p[1]) * 16 + hex_value(p[2]));
			p += 2;
		}
		if (c != '\0')
			g_string_append_c(decoded, c);
	}

	/* splitext(): the last '.', unless only dots come before it. */
	dot = strrchr(decoded->str, '.');
	if (dot != NULL) {
		const char *q;

		for (q = decoded->str; q < dot && *q == '.'; q++)
			;
		if (q < dot)
			g_string_truncate(decoded, dot - decoded->str);
	}
	if (decoded->len == 0) {
		g_string_free(decoded, TRUE);
		return NULL;
	}
	return feed_text_take_valid_utf8(g_string_free(decoded, FALSE));
}
