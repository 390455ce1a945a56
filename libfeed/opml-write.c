/* Writing OPML 2.0 through xmlTextWriter, which does the escaping. */
#include "opml-private.h"

#include <libxml/xmlwriter.h>
#include <string.h>

/*
 * A level of the category tree: its items in the order they first
 * appeared, each a subcategory or a subscription.
 */
typedef struct Category Category;

typedef struct {
	Category *category;                   /* NULL for a subscription */
	const FeedSubscription *subscription; /* NULL for a category */
} Item;

struct Category {
	const char *name;     /* borrowed; NULL for the body */
	GArray *items;        /* of Item */
	GHashTable *children; /* name -> Category, owned */
};

static void
category_free(gpointer data)
{
	Category *category = data;

	g_array_unref(category->items);
	g_hash_table_unref(category->children);
	g_free(category);
}

static Category *
category_new(const char *name)
{
	Category *category = g_new0(Category, 1);

	category->name = name;
	category->items = g_array_new(FALSE, FALSE, sizeof(Item));
	category->children = g_hash_table_new_full(g_str_hash, g_str_equal,
	                                           NULL, category_free);
	return category;
}

static Category *
build_tree(const FeedOpml *opml)
{
	Category *body = category_new(NULL);

	for (guint i = 0; i < opml->subscriptions->len; i++) {
		const FeedSubscription *subscription =
		        opml->subscriptions->pdata[i];
		Category *at = body;
		Item item = { NULL, subscription };

		for (char **name = subscription->category; *name != NULL;
		     name++) {
			Category *child =
			        g_hash_table_lookup(at->children, *name);

			if (child == NULL) {
				Item sub = { child = category_new(*name),
					     NULL };

				g_hash_table_insert(at->children, *name, child);
				g_array_append_val(at->items, sub);
			}
			at = child;
		}
		g_array_append_val(at->items, item);
	}
	return body;
}

/*
 * A memory buffer fails only when memory does, which aborts: the writer's
 * return values need no checking.
 */
static void
write_subscription(xmlTextWriterPtr writer,
                   const FeedSubscription *subscription)
{
	xmlTextWriterStartElement(writer, BAD_CAST "outline");
	xmlTextWriterWriteAttribute(writer, BAD_CAST "type", BAD_CAST "rss");
	xmlTextWriterWriteAttribute(writer, BAD_CAST "text",
	                            BAD_CAST subscription->title);
	xmlTextWriterWriteAttribute(writer, BAD_CAST "title",
	                            BAD_CAST subscription->title);
	xmlTextWriterWriteAttribute(writer, BAD_CAST "xmlUrl",
	                            BAD_CAST subscription->url);
	if (subscription->html_url != NULL)
		xmlTextWriterWriteAttribute(writer, BAD_CAST "htmlUrl",
		                            BAD_CAST subscription->html_url);
	xmlTextWriterEndElement(writer);
}

static void
write_items(xmlTextWriterPtr writer, const Category *category)
{
	for (guint i = 0; i < category->items->len; i++) {
		const Item *item = &g_array_index(category->items, Item, i);

		if (item->subscription != NULL) {
			write_subscription(writer, item->subscription);
			continue;
		}
		xmlTextWriterStartElement(writer, BAD_CAST "outline");
		xmlTextWriterWriteAttribute(writer, BAD_CAST "text",
		                            BAD_CAST item->category->name);
		write_items(writer, item->category);
		xmlTextWriterEndElement(writer);
	}
}

/* RFC 822 names, not the locale's. */
static char *
rfc822_now(void)
{
	static const char *const days[] = { "Mon", "Tue", "Wed", "Thu",
		                            "Fri", "Sat", "Sun" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr",
		                              "May", "Jun", "Jul", "Aug",
		                              "Sep", "Oct", "Nov", "Dec" };
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();

	return g_strdup_printf(
	        "%s, %02d %s %04d %02d:%02d:%02d +0000",
	        days[g_date_time_get_day_of_week(now) - 1],
	        g_date_time_get_day_of_month(now),
	        months[g_date_time_get_month(now) - 1],
	        g_date_time_get_year(now), g_date_time_get_hour(now),
	        g_date_time_get_minute(now), g_date_time_get_second(now));
}

char *
feed_opml_to_string(const FeedOpml *opml)
{
	g_autofree char *date = NULL;
	xmlBufferPtr buffer;
	xmlTextWriterPtr writer;
	Category *body;
	char *result;

	g_return_val_if_fail(opml != NULL, NULL);

	date = rfc822_now();
	body = build_tree(opml);
	buffer = xmlBufferCreate();
	writer = xmlNewTextWriterMemory(buffer, 0);
	g_assert(buffer != NULL && writer != NULL);
	xmlTextWriterSetIndent(writer, 1);
	xmlTextWriterSetIndentString(writer, BAD_CAST "  ");
	xmlTextWriterStartDocument(writer, "1.0", "UTF-8", NULL);
	xmlTextWriterStartElement(writer, BAD_CAST "opml");
	xmlTextWriterWriteAttribute(writer, BAD_CAST "version", BAD_CAST "2.0");
	xmlTextWriterStartElement(writer, BAD_CAST "head");
	xmlTextWriterWriteElement(writer, BAD_CAST "title",
	                          BAD_CAST opml->title);
	xmlTextWriterWriteElement(writer, BAD_CAST "dateCreated",
	                          BAD_CAST date);
	xmlTextWriterEndElement(writer);
	xmlTextWriterStartElement(writer, BAD_CAST "body");
	write_items(writer, body);
	xmlTextWriterEndDocument(writer);
	xmlFreeTextWriter(writer);
	category_free(body);
	result = g_strndup((const char *)xmlBufferContent(buffer),
	                   xmlBufferLength(buffer));
	xmlBufferFree(buffer);
	return result;
}
