/*
 * The OPML reader, and the writer behind it: whatever the bytes, a list of
 * valid UTF-8 subscriptions or a FeedError; and the list written out reads
 * back as the same subscriptions.
 */
#include "fuzz.h"

#include <feed/feed.h>
#include <libxml/parser.h>

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init_log();
	xmlInitParser();
	return 0;
}

static void
check_subscription(const FeedSubscription *s)
{
	const char *url = feed_subscription_get_url(s);
	const char *title = feed_subscription_get_title(s);
	const char *const *category = feed_subscription_get_category(s);

	fuzz_check(url != NULL && *url != '\0', "a subscription has no URL");
	fuzz_check_utf8("url", url);
	fuzz_check(title != NULL, "title is NULL");
	fuzz_check_utf8("title", title);
	fuzz_check_utf8("html url", feed_subscription_get_html_url(s));
	fuzz_check(category != NULL, "category is NULL");
	for (guint i = 0; category[i] != NULL; i++)
		fuzz_check_utf8("category", category[i]);
}

static gboolean
same_category(const char *const *a, const char *const *b)
{
	guint i;

	for (i = 0; a[i] != NULL && b[i] != NULL; i++)
		if (strcmp(a[i], b[i]) != 0)
			return FALSE;
	return a[i] == NULL && b[i] == NULL;
}

/* The list written and read again: the same subscriptions, by URL. */
static void
check_round_trip(const FeedOpml *opml)
{
	g_autofree char *text = feed_opml_to_string(opml);
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedOpml) again = NULL;
	g_autoptr(GHashTable) by_url =
	        g_hash_table_new(g_str_hash, g_str_equal);
	guint n = feed_opml_get_n_subscriptions(opml);

	fuzz_check(g_utf8_validate(text, -1, NULL),
	           "written OPML is not UTF-8");
	again = feed_opml_new_from_data(text, strlen(text), &error);
	fuzz_check(again != NULL, "written OPML does not read: %s\n%s",
	           error->message, text);
	fuzz_check(strcmp(feed_opml_get_title(opml),
	                  feed_opml_get_title(again)) == 0,
	           "title '%s' reads back as '%s'", feed_opml_get_title(opml),
	           feed_opml_get_title(again));
	fuzz_check(feed_opml_get_n_subscriptions(again) == n,
	           "%u subscriptions read back as %u\n%s", n,
	           feed_opml_get_n_subscriptions(again), text);
	for (guint i = 0; i < n; i++) {
		const FeedSubscription *s =
		        feed_opml_get_subscription(again, i);

		g_hash_table_insert(by_url,
		                    (gpointer)feed_subscription_get_url(s),
		                    (gpointer)s);
	}
	for (guint i = 0; i < n; i++) {
		const FeedSubscription *s = feed_opml_get_subscription(opml, i);
		const char *url = feed_subscription_get_url(s);
		const FeedSubscription *t = g_hash_table_lookup(by_url, url);

		fuzz_check(t != NULL, "'%s' is lost when written\n%s", url,
		           text);
		fuzz_check(strcmp(feed_subscription_get_title(s),
		                  feed_subscription_get_title(t)) == 0,
		           "title '%s' reads back as '%s'",
		           feed_subscription_get_title(s),
		           feed_subscription_get_title(t));
		fuzz_check(g_strcmp0(feed_subscription_get_html_url(s),
		                     feed_subscription_get_html_url(t)) == 0,
		           "html url of '%s' changes when written", url);
		fuzz_check(same_category(feed_subscription_get_category(s),
		                         feed_subscription_get_category(t)),
		           "category of '%s' changes when written\n%s", url,
		           text);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedOpml) opml =
	        feed_opml_new_from_data((const char *)data, size, &error);

	if (opml == NULL) {
		fuzz_check(error != NULL && error->domain == FEED_ERROR,
		           "failed without a FeedError");
		fuzz_check_utf8("error message", error->message);
		return 0;
	}
	fuzz_check(error == NULL, "error set on success");
	fuzz_check_utf8("list title", feed_opml_get_title(opml));
	for (guint i = 0; i < feed_opml_get_n_subscriptions(opml); i++)
		check_subscription(feed_opml_get_subscription(opml, i));
	check_round_trip(opml);
	return 0;
}
