/* placeholder until the xspf writer lands */
#include "playlist-private.h"

char *
feed_xspf_write(const FeedPlaylist *playlist)
{
	return g_strdup("");
}
