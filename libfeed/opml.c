/*
 * OPML subscription lists: the list itself. Reading is in opml-read.c,
 * writing in opml-write.c.
 */
#include "opml-private.h"
#include "text-private.h"

#include <string.h>

static void
subscription_free(gpointer data)
{
	FeedSubscription *subscription = data;

	g_free(subscription->url);
	g_free(subscription->title);
	g_free(subscription->html_url);
	g_strfreev(subscription->category);
	g_free(subscription);
}

/* Characters no URL holds as they are, that could end a line. */
static gboolean
is_line_breaking(gunichar c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 ||
	       c == 0x2029;
}

/*
 * Trimmed, and without the tabs and line breaks that WHATWG URL parsing
 * drops wherever they are; other control characters and the Unicode line
 * and paragraph separators are percent-encoded, as WHATWG does in a path,
 * so that a URL is always one line. NULL when nothing is left.
 */
char *
feed_opml_clean_url(const char *url)
{
	g_autofree char *valid = NULL;
	g_autofree char *trimmed = NULL;
	GString *out;
	char *end;

	if (url == NULL)
		return NULL;
	valid = feed_text_take_valid_utf8(g_strdup(url));
	end = valid;
	for (const char *in = valid; *in != '\0'; in++)
		if (*in != '\t' && *in != '\n' && *in != '\r')
			*end++ = *in;
	*end = '\0';
	trimmed = feed_text_trim(valid, strlen(valid));
	if (*trimmed == '\0')
		return NULL;
	out = g_string_sized_new(strlen(trimmed));
	for (const char *p = trimmed; *p != '\0'; p = g_utf8_next_char(p)) {
		const char *next = g_utf8_next_char(p);

		if (!is_line_breaking(g_utf8_get_char(p))) {
			g_string_append_len(out, p, next - p);
			continue;
		}
		for (const char *byte = p; byte < next; byte++)
			g_string_append_printf(out, "%%%02X", (guchar)*byte);
	}
	return g_string_free(out, FALSE);
}

char *
feed_opml_clean_text(const char *text)
{
	g_autofree char *valid = NULL;

	if (text == NULL)
		return g_strdup("");
	valid = feed_text_take_valid_utf8(g_strdup(text));
	return feed_text_squash(valid, strlen(valid));
}

FeedOpml *
feed_opml_new(const char *title)
{
	FeedOpml *opml = g_new0(FeedOpml, 1);

	opml->title = feed_opml_clean_text(title);
	opml->subscriptions = g_ptr_array_new_with_free_func(subscription_free);
	opml->urls = g_hash_table_new(g_str_hash, g_str_equal);
	return opml;
}

void
feed_opml_free(FeedOpml *opml)
{
	if (opml == NULL)
		return;
	g_hash_table_unref(opml->urls);
	g_ptr_array_unref(opml->subscriptions);
	g_free(opml->title);
	g_free(opml);
}

/* Takes @url, already clean; copies the rest, cleaning it. */
gboolean
feed_opml_add_clean(FeedOpml *opml, char *url, const char *title,
                    const char *const *category, guint n_category,
                    const char *html_url)
{
	FeedSubscription *subscription;
	GPtrArray *names;

	if (g_hash_table_contains(opml->urls, url)) {
		g_free(url);
		return FALSE;
	}
	names = g_ptr_array_new();
	for (guint i = 0; i < n_category; i++) {
		char *name = feed_opml_clean_text(category[i]);

		if (*name != '\0')
			g_ptr_array_add(names, name);
		else
			g_free(name);
	}
	g_ptr_array_add(names, NULL);
	subscription = g_new0(FeedSubscription, 1);
	subscription->url = url;
	subscription->title = feed_opml_clean_text(title);
	subscription->html_url = feed_opml_clean_url(html_url);
	subscription->category = (char **)g_ptr_array_free(names, FALSE);
	g_ptr_array_add(opml->subscriptions, subscription);
	g_hash_table_add(opml->urls, subscription->url);
	return TRUE;
}

gboolean
feed_opml_add(FeedOpml *opml, const char *url, const char *title,
              const char *const *category, const char *html_url)
{
	char *clean;

	g_return_val_if_fail(opml != NULL, FALSE);
	g_return_val_if_fail(url != NULL, FALSE);
	clean = feed_opml_clean_url(url);
	g_return_val_if_fail(clean != NULL, FALSE);
	return feed_opml_add_clean(
	        opml, clean, title, category,
	        category != NULL ? g_strv_length((char **)category) : 0,
	        html_url);
}

const char *
feed_opml_get_title(const FeedOpml *opml)
{
	g_return_val_if_fail(opml != NULL, NULL);
	return opml->title;
}

guint
feed_opml_get_n_subscriptions(const FeedOpml *opml)
{
	g_return_val_if_fail(opml != NULL, 0);
	return opml->subscriptions->len;
}

const FeedSubscription *
feed_opml_get_subscription(const FeedOpml *opml, guint index)
{
	g_return_val_if_fail(opml != NULL, NULL);
	g_return_val_if_fail(index < opml->subscriptions->len, NULL);
	return opml->subscriptions->pdata[index];
}

const char *
feed_subscription_get_url(const FeedSubscription *subscription)
{
	g_return_val_if_fail(subscription != NULL, NULL);
	return subscription->url;
}

const char *
feed_subscription_get_title(const FeedSubscription *subscription)
{
	g_return_val_if_fail(subscription != NULL, NULL);
	return subscription->title;
}

const char *
feed_subscription_get_html_url(const FeedSubscription *subscription)
{
	g_return_val_if_fail(subscription != NULL, NULL);
	return subscription->html_url;
}

const char *const *
feed_subscription_get_category(const FeedSubscription *subscription)
{
	g_return_val_if_fail(subscription != NULL, NULL);
	return (const char *const *)subscription->category;
}

/* Reading */
