/* `feedtool download`: an episode's file to disk, resumably. */
#ifndef FEEDTOOL_DOWNLOAD_COMMAND_H
#define FEEDTOOL_DOWNLOAD_COMMAND_H

#include <glib.h>

/* Runs the command; returns the process's exit status. */
int
download_command(int argc, char **argv);

/*
 * A file name for @url: its last path segment, percent-decoded, without
 * query or fragment; a '/' or a control character in it becomes '_',
 * leading dots go, and it is cut to 200 bytes; "download" when nothing is
 * left.
 */
char *
download_name_for(const char *url);

#endif
