/*
 * How a command answers, whichever door it came in by (the command line
 * or a message on MPD's channel): text for the person who asked, or an
 * error of the command domain. The concerns include this to answer;
 * only commands/ knows the table that calls them, and no concern
 * includes it.
 */
#ifndef BRIDGE_CORE_CALL_H
#define BRIDGE_CORE_CALL_H

#include <glib.h>

/*
 * A command under way. Most answer at once; a few (subscribe, which
 * fetches the feed first) answer from the main loop, later.
 */
typedef struct BridgeCall BridgeCall;

/* Called once when a call ends: @error is NULL on success. */
typedef void (*BridgeCallEnd)(const char *answer, const GError *error,
                              gpointer user_data);

/* A call that @end hears the end of, once. */
BridgeCall *
bridge_call_new(BridgeCallEnd end, gpointer user_data);

/* Where a started command writes what it has to say. */
GString *
bridge_call_get_out(BridgeCall *call);

/* Ends @call, successfully when @error is NULL; takes @error. */
void
bridge_call_return(BridgeCall *call, GError *error);

/* The error domain of commands: bad input a person should fix. */
#define BRIDGE_COMMAND_ERROR (bridge_command_error_quark())

typedef enum {
	BRIDGE_COMMAND_ERROR_FAILED, /* the command could not be done */
	BRIDGE_COMMAND_ERROR_USAGE,  /* unknown command, wrong arguments */
} BridgeCommandError;

GQuark
bridge_command_error_quark(void);

/* Sets @error to a BRIDGE_COMMAND_ERROR of @code, printf-style; FALSE. */
gboolean
bridge_command_fail(GError **error, BridgeCommandError code, const char *format,
                    ...) G_GNUC_PRINTF(3, 4);

#endif
