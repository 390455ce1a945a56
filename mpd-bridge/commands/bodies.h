/*
 * The command bodies that span concerns, for the table (commands.c);
 * each concern's own commands are beside it.
 */
#ifndef BRIDGE_COMMANDS_BODIES_H
#define BRIDGE_COMMANDS_BODIES_H

#include "core/bridge.h"
#include "core/call.h"

/* unsubscribe FEED */
gboolean
bridge_run_unsubscribe(Bridge *bridge, char **args, GString *out,
                       GError **error);

/* refresh [FEED] */
gboolean
bridge_run_refresh(Bridge *bridge, char **args, GString *out, GError **error);

/* set FEED KEY VALUE */
gboolean
bridge_run_set(Bridge *bridge, char **args, GString *out, GError **error);

/* list [--json] */
gboolean
bridge_run_list(Bridge *bridge, char **args, GString *out, GError **error);

/* export-opml */
gboolean
bridge_run_export_opml(Bridge *bridge, char **args, GString *out,
                       GError **error);

/* queue EPISODE… */
gboolean
bridge_run_queue(Bridge *bridge, char **args, GString *out, GError **error);

/* mark listened|unlistened|new EPISODE… */
gboolean
bridge_run_mark(Bridge *bridge, char **args, GString *out, GError **error);

/* status */
gboolean
bridge_run_status(Bridge *bridge, char **args, GString *out, GError **error);

/* episodes [FEED] [--state STATE] [--json] */
gboolean
bridge_run_episodes(Bridge *bridge, char **args, GString *out, GError **error);

#endif
