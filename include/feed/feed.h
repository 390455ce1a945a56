/*
 * libfeed: podcast feeds read exactly and safely.
 *
 * libfeed keeps no global state. Objects are not locked: use a FeedParser
 * from one thread at a time; distinct objects may be used concurrently; a
 * returned FeedChannel is immutable and may be read from any thread. Call
 * curl_global_init() and xmlInitParser() once from main() before starting
 * threads; libfeed never calls them for you.
 */
#ifndef FEED_FEED_H
#define FEED_FEED_H

#include <feed/channel.h>
#include <feed/chapter.h>
#include <feed/chapters.h>
#include <feed/download.h>
#include <feed/enclosure.h>
#include <feed/episode.h>
#include <feed/error.h>
#include <feed/fetcher.h>
#include <feed/funding.h>
#include <feed/notes.h>
#include <feed/opml.h>
#include <feed/parser.h>
#include <feed/person.h>
#include <feed/playlist.h>
#include <feed/stream.h>
#include <feed/transcript.h>
#include <feed/version.h>

#endif
