/* The commands of downloads: download, delete, downloads, set … download. */
#ifndef BRIDGE_DOWNLOADS_COMMAND_H
#define BRIDGE_DOWNLOADS_COMMAND_H

#include "core/bridge.h"
#include "core/call.h"

/*
 * download EPISODE…: in the daemon it answers at once and the files come
 * (see `downloads`); run here, it answers once every file is in place.
 */
void
bridge_downloads_start_command(Bridge *bridge, char **args, BridgeCall *call);

/* delete EPISODE…: their files go, and they are not downloaded again. */
gboolean
bridge_downloads_run_delete(Bridge *bridge, char **args, GString *out,
                            GError **error);

/* downloads [--json]: on disk, under way, waiting, failed. */
gboolean
bridge_downloads_run_list(Bridge *bridge, char **args, GString *out,
                          GError **error);

/* set FEED download N: its newest N on disk; 0 none, "default". */
gboolean
bridge_downloads_set_feed(Bridge *bridge, BridgeFeed *feed, const char *value,
                          GError **error);

#endif
