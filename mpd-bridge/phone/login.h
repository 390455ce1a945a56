/*
 * `mpd-bridge sync login`: an app password for a box with no browser,
 * through Nextcloud's Login Flow v2. The box prints a URL; a person opens
 * it anywhere and approves; the box writes the app password to [sync]
 * password_file.
 */
#ifndef BRIDGE_SYNC_LOGIN_H
#define BRIDGE_SYNC_LOGIN_H

#include "core/config.h"

#include <stdio.h>

#define BRIDGE_SYNC_LOGIN_ERROR (bridge_sync_login_error_quark())

typedef enum {
	BRIDGE_SYNC_LOGIN_ERROR_UNSET,   /* [sync] server is not set */
	BRIDGE_SYNC_LOGIN_ERROR_KIND,    /* [sync] kind is not nextcloud:
	                                    the password is the account's
	                                    own, and there is no flow */
	BRIDGE_SYNC_LOGIN_ERROR_EXPIRED, /* nobody approved in time */
} BridgeSyncLoginError;

GQuark
bridge_sync_login_error_quark(void);

/* How long to wait, for tests; the command line passes NULL. */
typedef struct {
	guint poll_ms;       /* between two questions to the server; 0
	                        means 2000 */
	guint limit_seconds; /* how long to wait for the approval; 0 means
	                        1200, Nextcloud's own limit */
} BridgeSyncLoginOptions;

/*
 * Runs the whole login, blocking: starts a flow on @config's [sync]
 * server, writes "Open this address in a browser and log in: URL" to
 * @out, asks the server every poll_ms whether it was approved, and when
 * it was, writes the app password, with a line break, to [sync]
 * password_file: mode 0600, through a temporary file renamed over it,
 * its folder made (0700) if missing. Then tells on @out where it went and,
 * when Nextcloud's login name differs from [sync] user, the exact lines
 * to change in the settings file; and checks that the gpoddersync app
 * answers, saying so on @out if not (not an error: the password is
 * saved). Each line is flushed as it is written. Neither @out nor an
 * error ever holds the app password or the flow's token.
 *
 * For the command line only: it blocks for up to 20 minutes, so the
 * daemon and the MPD channel must refuse it. Load @config with
 * BRIDGE_CONFIG_NO_SECRETS, since the password file need not exist yet;
 * curl_global_init() must have been called.
 *
 * @param config the settings; only [sync] is read
 * @param options (nullable) waits shortened for tests; NULL for the
 *        defaults
 * @param out where to write what the person should do, e.g. stdout
 * @param error return location for a GError, or NULL
 * @return TRUE once the password file is written; FALSE with @error set
 *         to BRIDGE_SYNC_LOGIN_ERROR_UNSET, _KIND (kind = gpodder: the
 *         message says to put the account's password in the file
 *         instead) or _EXPIRED; to a BRIDGE_GPODDER_ERROR when the
 *         server cannot be reached or answers wrongly (the message names
 *         the server); or to a G_FILE_ERROR when the file cannot be
 *         written (the message names it)
 */
gboolean
bridge_sync_login_run(const BridgeConfig *config,
                      const BridgeSyncLoginOptions *options, FILE *out,
                      GError **error);

#endif
