/*
 * What MPD shows of an episode: its title, the podcast as album, the
 * author as artist, its date, its number as track and the genre Podcast.
 */
#ifndef BRIDGE_CORE_EPISODE_TAGS_H
#define BRIDGE_CORE_EPISODE_TAGS_H

#include "core/bridge.h"

/*
 * The tags an episode gets in MPD's queue (and in its file, once
 * downloaded); *@date and *@track hold two of them, for the caller to
 * free.
 */
void
bridge_episode_tags(const Bridge *bridge, const BridgeEpisode *episode,
                    BridgeTags *tags, char **date, char **track);

#endif
