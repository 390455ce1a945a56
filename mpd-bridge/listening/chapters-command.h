/*
 * chapters, next-chapter, previous-chapter and chapter N, from any MPD
 * client.
 */
#ifndef BRIDGE_LISTENING_CHAPTERS_COMMAND_H
#define BRIDGE_LISTENING_CHAPTERS_COMMAND_H

#include "core/bridge.h"
#include "core/call.h"

/* chapters [EPISODE]: the list, with start times, the current marked. */
void
bridge_chapters_start_list(Bridge *bridge, char **args, BridgeCall *call);

/* next-chapter, previous-chapter and chapter N, in what plays. */
void
bridge_chapters_start_next(Bridge *bridge, char **args, BridgeCall *call);
void
bridge_chapters_start_previous(Bridge *bridge, char **args, BridgeCall *call);
void
bridge_chapters_start_goto(Bridge *bridge, char **args, BridgeCall *call);

#endif
