/*
 * The tags of an episode, for MPD's queue and for its file: apart from
 * both, since titling the queue and tagging downloads share them.
 */
#include "core/episode-tags.h"

void
bridge_episode_tags(const Bridge *bridge, const BridgeEpisode *episode,
                    BridgeTags *tags, char **date, char **track)
{
	const BridgeFeed *feed =
	        bridge_store_find_feed(bridge->store, episode->feed_id);

	*date = NULL;
	*track = NULL;
	if (episode->published > 0) {
		g_autoptr(GDateTime) when =
		        g_date_time_new_from_unix_utc(episode->published);

		*date = when != NULL ? g_date_time_format(when, "%Y-%m-%d")
		                     : NULL;
	}
	if (episode->number > 0)
		*track = g_strdup_printf("%" G_GINT64_FORMAT, episode->number);
	*tags = (BridgeTags){ 0 };
	tags->title = episode->title;
	tags->album = feed != NULL ? bridge_feed_get_name(feed) : NULL;
	tags->artist = episode->author;
	tags->date = *date;
	tags->track = *track;
	tags->genre = "Podcast";
}
