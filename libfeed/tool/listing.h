/* The readable listing of `feedtool parse`. */
#ifndef FEEDTOOL_LISTING_H
#define FEEDTOOL_LISTING_H

#include <feed/feed.h>
#include <stdio.h>

typedef struct Listing Listing;

Listing *
listing_new(void);

/* Keeps one line for @episode; a FeedEpisodeFunc. */
void
listing_add_episode(FeedEpisode *episode, gpointer listing);

/* Prints the show's title and author, the episode lines and the count. */
void
listing_print(Listing *listing, const FeedChannel *channel, FILE *out);

void
listing_free(Listing *listing);

/*
 * Returns a copy of @text safe for a terminal: C0 and C1 control
 * characters (escape sequences among them) become spaces.
 */
char *
listing_sanitize(const char *text);

#endif
