/* `feedtool playlist`: a feed's episodes as M3U, XSPF or PLS. */
#ifndef FEEDTOOL_PLAYLIST_COMMAND_H
#define FEEDTOOL_PLAYLIST_COMMAND_H

#include <feed/feed.h>

/* Runs the command; returns the process's exit status. */
int
playlist_command(int argc, char **argv);

#endif
