/* `feedtool chapters`: an episode's chapters, Podlove and JSON merged. */
#ifndef FEEDTOOL_CHAPTERS_COMMAND_H
#define FEEDTOOL_CHAPTERS_COMMAND_H

#include <feed/feed.h>

/* Runs the command; returns the process's exit status. */
int
chapters_command(int argc, char **argv);

#endif
