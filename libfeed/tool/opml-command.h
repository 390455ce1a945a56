/* `feedtool opml`: list the feeds of an OPML file, or make one from URLs. */
#ifndef FEEDTOOL_OPML_COMMAND_H
#define FEEDTOOL_OPML_COMMAND_H

/* Runs `opml list` or `opml make`; returns the process's exit status. */
int
opml_command(int argc, char **argv);

#endif
