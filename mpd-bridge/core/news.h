/*
 * News: what a concern says when it changed something that others care
 * about, instead of calling them. main.c sets one listener, beside MPD's
 * idle events, for the daemon and the command line alike; it hears each
 * piece at once, before bridge_tell() returns, and calls the concerns
 * that care. So a concern never calls one above it, and a new concern
 * that cares about a change is wired in one place.
 */
#ifndef BRIDGE_CORE_NEWS_H
#define BRIDGE_CORE_NEWS_H

#include "state/store.h"

typedef struct Bridge Bridge;

typedef enum {
	/* Episodes' files came into MPD's database or went from it. */
	BRIDGE_NEWS_FILES,
	/* @feed is a new subscription, read once. */
	BRIDGE_NEWS_FEED_ADDED,
	/* @feed moved to another URL (a permanent redirect, new-feed-url). */
	BRIDGE_NEWS_FEED_MOVED,
	/* @feed is about to be removed: it is still whole. */
	BRIDGE_NEWS_FEED_REMOVED,
	/* A refresh of @feed (NULL when it went) ended, well or not. */
	BRIDGE_NEWS_REFRESHED,
	/* Playing moved @episode's position or made it listened. */
	BRIDGE_NEWS_PLAYED,
	/* @episode was played to its end (or its outro skipped). */
	BRIDGE_NEWS_LISTENED,
	/* @episode started playing. */
	BRIDGE_NEWS_STARTED,
	/* The chapters of what plays were read. */
	BRIDGE_NEWS_CHAPTERS,
	/* Another chapter of what plays started (or none is current). */
	BRIDGE_NEWS_CHAPTER,
	/* The relay started or is stopping: MPD's URLs of episodes change. */
	BRIDGE_NEWS_RELAY,
	/* The relay has all of @episode in its cache file. */
	BRIDGE_NEWS_RELAY_WHOLE,
	/*
	 * The host of @episode came back after failing, or was given up:
	 * MPD may have waited for it, its elapsed time standing still.
	 */
	BRIDGE_NEWS_RELAY_HOST,
} BridgeNewsKind;

typedef struct {
	BridgeNewsKind kind;
	BridgeFeed *feed;       /* the subscription it is about, or NULL */
	BridgeEpisode *episode; /* the episode it is about, or NULL */
} BridgeNews;

/* Hears every piece of news; set once, in main(). */
typedef void (*BridgeNewsListener)(Bridge *bridge, const BridgeNews *news);

/* Tells the listener, if one is set, that @kind happened. */
void
bridge_tell(Bridge *bridge, BridgeNewsKind kind);

/* The same, of @feed. */
void
bridge_tell_feed(Bridge *bridge, BridgeNewsKind kind, BridgeFeed *feed);

/* The same, of @episode. */
void
bridge_tell_episode(Bridge *bridge, BridgeNewsKind kind,
                    BridgeEpisode *episode);

#endif
