/* `feedtool refresh`: many feeds at once, only what changed. */
#ifndef FEEDTOOL_REFRESH_H
#define FEEDTOOL_REFRESH_H

/* Runs the command; returns the process's exit status. */
int
refresh_command(int argc, char **argv);

#endif
