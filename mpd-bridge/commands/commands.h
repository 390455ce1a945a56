/*
 * The commands, once for both doors: the command line and messages on the
 * MPD channel. A command writes what it has to say to @out; failing, it
 * sets @error.
 */
#ifndef BRIDGE_COMMANDS_COMMANDS_H
#define BRIDGE_COMMANDS_COMMANDS_H

#include "core/bridge.h"
#include "core/call.h"

typedef struct {
	const char *name;
	const char *args;    /* for usage lines */
	const char *summary; /* one line of help */
	guint min_args;
	guint max_args;       /* G_MAXUINT for no limit */
	gboolean changes;     /* it changes the state: the daemon runs it */
	gboolean daemon_only; /* it means nothing without a daemon */
	gboolean (*run)(Bridge *bridge, char **args, GString *out,
	                GError **error);
	/* Instead of run, for a command that answers later: it ends the
	 * call with bridge_call_return(), perhaps before it returns. */
	void (*start)(Bridge *bridge, char **args, BridgeCall *call);
	/* NULL, or checks the arguments on the command line before they
	 * go to the daemon, so that bad ones are a usage error there too. */
	gboolean (*check)(char **args, GError **error);
} BridgeCommand;

/* Called once when a call ends: @error is NULL on success. */
typedef void (*BridgeCallDone)(Bridge *bridge, const BridgeCommand *command,
                               const char *answer, const GError *error,
                               gpointer user_data);

/* The command table, NULL-name terminated. */
const BridgeCommand *
bridge_commands(void);

const BridgeCommand *
bridge_command_lookup(const char *name);

/*
 * Runs @argv (argv[0] is the command's name, NULL-terminated), checking
 * the argument count. Unknown commands and bad counts are errors that say
 * what is known or expected.
 */
gboolean
bridge_command_run(Bridge *bridge, char **argv, GString *out, GError **error);

/*
 * Starts @argv as bridge_command_run() runs it, for commands that answer
 * later too; @done gets the answer, perhaps before this returns. The
 * command is NULL in @done when the name is unknown.
 */
void
bridge_command_start(Bridge *bridge, char **argv, BridgeCallDone done,
                     gpointer user_data);

/*
 * Splits a channel message, "[@REPLY] COMMAND [ARG…]", into the channel
 * to answer on (*@reply_channel, NULL when the message names none) and
 * the command's argv, quoted as a shell would. A message that does not
 * split (an open quote, no command) is a usage error.
 */
gboolean
bridge_command_parse_message(const char *text, char **reply_channel,
                             char ***argv, GError **error);

#endif
