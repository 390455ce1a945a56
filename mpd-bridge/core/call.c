/*
 * The answer of a command, and the command domain's errors: what every
 * concern that answers a command shares.
 */
#include "core/call.h"

struct BridgeCall {
	GString *out;
	BridgeCallEnd end;
	gpointer user_data;
};

BridgeCall *
bridge_call_new(BridgeCallEnd end, gpointer user_data)
{
	BridgeCall *call = g_new0(BridgeCall, 1);

	call->out = g_string_new(NULL);
	call->end = end;
	call->user_data = user_data;
	return call;
}

GString *
bridge_call_get_out(BridgeCall *call)
{
	return call->out;
}

void
bridge_call_return(BridgeCall *call, GError *error)
{
	call->end(call->out->str, error, call->user_data);
	g_clear_error(&error);
	g_string_free(call->out, TRUE);
	g_free(call);
}

GQuark
bridge_command_error_quark(void)
{
	return g_quark_from_static_string("bridge-command-error-quark");
}

gboolean
bridge_command_fail(GError **error, BridgeCommandError code, const char *format,
                    ...)
{
	g_autofree char *message = NULL;
	va_list args;

	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error_literal(error, BRIDGE_COMMAND_ERROR, code, message);
	return FALSE;
}
