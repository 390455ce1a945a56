/* The layout of a subscription list, shared by reading and writing. */
#ifndef FEED_OPML_PRIVATE_H
#define FEED_OPML_PRIVATE_H

#include "feed/opml.h"

struct FeedSubscription {
	char *url;       /* never empty */
	char *title;     /* "" when none */
	char *html_url;  /* NULL when not given */
	char **category; /* NULL-terminated, empty at the top level */
};

struct FeedOpml {
	char *title;              /* "" when none */
	GPtrArray *subscriptions; /* of FeedSubscription, owned */
	GHashTable *urls;         /* the subscriptions' URLs, borrowed */
};

/*
 * Adds a subscription whose URL is already clean (taken); copies and
 * cleans the rest. FALSE when the URL is already listed.
 */
G_GNUC_INTERNAL
gboolean
feed_opml_add_clean(FeedOpml *opml, char *url, const char *title,
                    const char *const *category, guint n_category,
                    const char *html_url);

/* A URL trimmed, without tabs and line breaks; NULL when empty. */
G_GNUC_INTERNAL
char *
feed_opml_clean_url(const char *url);

/* Text with its whitespace squashed, valid UTF-8; "" for NULL. */
G_GNUC_INTERNAL
char *
feed_opml_clean_text(const char *text);

#endif
