/* A parsed feed as the JSON of feed-json.md (`feedtool parse --json`). */
#ifndef FEEDTOOL_FEED_JSON_H
#define FEEDTOOL_FEED_JSON_H

#include "json-writer.h"

#include <feed/feed.h>

/* Writes one episode object. */
void
feedtool_json_episode(JsonOut *json, const FeedEpisode *episode);

/* Writes the members of the feed object other than `episodes`. */
void
feedtool_json_channel_members(JsonOut *json, const FeedChannel *channel);

#endif
