/*
 * Importing an OPML file's subscriptions: every feed checked as
 * subscribe checks it, many at once, one bad feed stopping none of the
 * others, and a summary at the end.
 */
#ifndef BRIDGE_IMPORT_H
#define BRIDGE_IMPORT_H

#include "core/bridge.h"
#include "core/call.h"

/* `import-opml [--force] FILE` with no daemon: the state is edited here. */
void
bridge_import_start(Bridge *bridge, char **args, BridgeCall *call);

/*
 * `import-opml [--force] FILE` with a daemon running: the file is read
 * here, by whoever runs the command, and each feed goes to the daemon as
 * a subscribe, [bridge] jobs of them at a time. The daemon never opens a
 * file that a message names: any MPD client can send one. The summary
 * goes to @out; FALSE when a feed failed, or the file cannot be read.
 */
gboolean
bridge_import_through_daemon(const BridgeConfig *config, char **args,
                             GString *out, GError **error);

#endif
