/*
 * The state file is a GKeyFile: a [bridge] group, then a [feed ID] group
 * per subscription, each followed by an [episode ID] group per episode
 * with a state of its own (format 1: every episode), then a [list ID]
 * group per list. GKeyFile names cannot hold every URL
 * or GUID, so the ids are hashes and the raw values are keys.
 *
 * Here are the keys of those groups and the struct members they fill,
 * apart so that reading (store-groups.c), writing (store-write.c) and
 * freeing (store.c) go by the same lists.
 */
#include "state/store-private.h"

#include <stddef.h>

/* The key and where its value lives: a key is the field's name. */
#define FEED_FIELD(name)    #name, offsetof(BridgeFeed, name)
#define EPISODE_FIELD(name) #name, offsetof(BridgeEpisode, name)

const Field bridge_store_feed_fields[] = {
	{ FEED_FIELD(url), FIELD_STRING, TRUE },
	{ FEED_FIELD(title), FIELD_STRING, FALSE },
	{ FEED_FIELD(name), FIELD_STRING, FALSE },
	{ FEED_FIELD(auto_queue), FIELD_BOOLEAN, FALSE },
	{ FEED_FIELD(keep), FIELD_UINT, FALSE },
	{ FEED_FIELD(match), FIELD_STRING, FALSE },
	{ FEED_FIELD(exclude), FIELD_STRING, FALSE },
	{ FEED_FIELD(min_duration), FIELD_INT64, FALSE },
	{ FEED_FIELD(serial), FIELD_BOOLEAN, FALSE },
	{ FEED_FIELD(complete), FIELD_BOOLEAN, FALSE },
	{ FEED_FIELD(ttl), FIELD_INT64, FALSE },
	{ FEED_FIELD(etag), FIELD_STRING, FALSE },
	{ FEED_FIELD(last_modified), FIELD_STRING, FALSE },
	{ FEED_FIELD(content_hash), FIELD_STRING, FALSE },
	{ FEED_FIELD(last_refresh), FIELD_INT64, FALSE },
	{ FEED_FIELD(next_refresh), FIELD_INT64, FALSE },
	{ FEED_FIELD(last_error), FIELD_STRING, FALSE },
	{ FEED_FIELD(failures), FIELD_UINT, FALSE },
	{ FEED_FIELD(gone), FIELD_BOOLEAN, FALSE },
	{ FEED_FIELD(pushed), FIELD_STRING, FALSE },
	{ FEED_FIELD(added), FIELD_INT64, FALSE },
	{ FEED_FIELD(synced_url), FIELD_STRING, FALSE },
	{ FEED_FIELD(skip_intro), FIELD_INT64, FALSE, TRUE },
	{ FEED_FIELD(skip_outro), FIELD_INT64, FALSE, TRUE },
	{ FEED_FIELD(skip_chapters), FIELD_STRING, FALSE },
	{ FEED_FIELD(no_chapter_fetch), FIELD_BOOLEAN, FALSE, TRUE },
	{ FEED_FIELD(download), FIELD_INT64, FALSE, TRUE },
	{ FEED_FIELD(speed), FIELD_INT64, FALSE, TRUE },
	{ FEED_FIELD(cached), FIELD_UINT, FALSE },
};

const Field bridge_store_episode_fields[] = {
	{ EPISODE_FIELD(feed_id), FIELD_STRING, TRUE },
	{ EPISODE_FIELD(guid), FIELD_STRING, TRUE },
	{ EPISODE_FIELD(url), FIELD_STRING, TRUE },
	{ EPISODE_FIELD(title), FIELD_STRING, TRUE },
	{ EPISODE_FIELD(author), FIELD_STRING, FALSE },
	{ EPISODE_FIELD(published), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(duration), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(number), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(first_seen), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(listened), FIELD_BOOLEAN, FALSE },
	{ EPISODE_FIELD(listened_at), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(position), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(last_played), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(starred), FIELD_BOOLEAN, FALSE },
	{ EPISODE_FIELD(gone), FIELD_INT64, FALSE },
	{ EPISODE_FIELD(sync_changed), FIELD_INT64, FALSE, TRUE },
	{ EPISODE_FIELD(sync_from), FIELD_STRING, FALSE, TRUE },
	{ EPISODE_FIELD(sync_unsent), FIELD_BOOLEAN, FALSE, TRUE },
	{ EPISODE_FIELD(type), FIELD_STRING, FALSE, TRUE },
	{ EPISODE_FIELD(file), FIELD_STRING, FALSE, TRUE },
	{ EPISODE_FIELD(downloaded), FIELD_INT64, FALSE, TRUE },
	{ EPISODE_FIELD(download), FIELD_INT64, FALSE, TRUE },
	{ EPISODE_FIELD(download_error), FIELD_STRING, FALSE, TRUE },
	{ EPISODE_FIELD(download_failures), FIELD_INT64, FALSE, TRUE },
	{ EPISODE_FIELD(download_retry), FIELD_INT64, FALSE, TRUE },
};

/* A list's group: its episodes are a GKeyFile list, read by hand. */
#define LIST_FIELD(name) #name, offsetof(BridgeList, name)

const Field bridge_store_list_fields[] = {
	{ LIST_FIELD(name), FIELD_STRING, FALSE },
	{ "episodes", 0, FIELD_STRING, FALSE },
};

const gsize bridge_store_n_feed_fields = G_N_ELEMENTS(bridge_store_feed_fields);
const gsize bridge_store_n_episode_fields =
        G_N_ELEMENTS(bridge_store_episode_fields);
const gsize bridge_store_n_list_fields = G_N_ELEMENTS(bridge_store_list_fields);
