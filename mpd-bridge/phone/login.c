#include "phone/login.h"

#include "core/secret-file.h"
#include "phone/gpodder.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_POLL_MS       2000
#define DEFAULT_LIMIT_SECONDS (20 * 60)

/*
 * A flaky network should not throw away a login someone is approving:
 * this many failed questions in a row end the wait.
 */
#define MAX_FAILED_POLLS 3

GQuark
bridge_sync_login_error_quark(void)
{
	return g_quark_from_static_string("bridge-sync-login-error-quark");
}

static void
say(FILE *out, const char *format, ...) G_GNUC_PRINTF(2, 3);

static void
say(FILE *out, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vfprintf(out, format, args);
	va_end(args);
	fflush(out);
}

static gboolean
check_settings(const BridgeGpodderSettings *sync, GError **error)
{
	if (sync->server == NULL) {
		g_set_error(error, BRIDGE_SYNC_LOGIN_ERROR,
		            BRIDGE_SYNC_LOGIN_ERROR_UNSET,
		            "[sync] server is not set: set server, kind = "
		            "nextcloud, user and password_file first");
		return FALSE;
	}
	if (sync->kind != BRIDGE_GPODDER_KIND_NEXTCLOUD) {
		g_set_error(
		        error, BRIDGE_SYNC_LOGIN_ERROR,
		        BRIDGE_SYNC_LOGIN_ERROR_KIND,
		        "[sync] kind is gpodder: gpodder.net and compatible "
		        "servers (mygpo, opodsync) take the account's own "
		        "password, so there is no login to do; put the "
		        "password alone in %s and run chmod 600 %s",
		        sync->password_file, sync->password_file);
		return FALSE;
	}
	return TRUE;
}

/* Worth asking again: the network or the server may be back soon. */
static gboolean
is_transient(const GError *error)
{
	long status = bridge_gpodder_error_get_status(error);

	return g_error_matches(error, BRIDGE_GPODDER_ERROR,
	                       BRIDGE_GPODDER_ERROR_UNREACHABLE) ||
	       g_error_matches(error, BRIDGE_GPODDER_ERROR,
	                       BRIDGE_GPODDER_ERROR_TIMEOUT) ||
	       (g_error_matches(error, BRIDGE_GPODDER_ERROR,
	                        BRIDGE_GPODDER_ERROR_HTTP) &&
	        (status == 429 || status >= 500));
}

static char *
describe_limit(guint seconds)
{
	if (seconds % 60 == 0)
		return g_strdup_printf("%u minute%s", seconds / 60,
		                       seconds == 60 ? "" : "s");
	return g_strdup_printf("%u second%s", seconds, seconds == 1 ? "" : "s");
}

static BridgeGpodderCredentials *
wait_for_approval(const BridgeGpodderSettings *sync,
                  const BridgeGpodderLogin *login, guint poll_ms,
                  guint limit_seconds, GError **error)
{
	gint64 deadline =
	        g_get_monotonic_time() + (gint64)limit_seconds * G_USEC_PER_SEC;
	guint failed = 0;

	for (;;) {
		BridgeGpodderCredentials *credentials = NULL;
		g_autoptr(GError) local = NULL;
		gint64 left;

		if (bridge_gpodder_login_poll(sync, login, &credentials,
		                              &local)) {
			failed = 0;
			if (credentials != NULL)
				return credentials;
		} else if (!is_transient(local) ||
		           ++failed >= MAX_FAILED_POLLS) {
			g_propagate_error(error, g_steal_pointer(&local));
			return NULL;
		}
		left = deadline - g_get_monotonic_time();
		if (left <= 0) {
			g_autofree char *limit = describe_limit(limit_seconds);

			g_set_error(error, BRIDGE_SYNC_LOGIN_ERROR,
			            BRIDGE_SYNC_LOGIN_ERROR_EXPIRED,
			            "the login at %s was not approved within "
			            "%s: run mpd-bridge sync login again",
			            sync->server, limit);
			return NULL;
		}
		/* One last question right at the deadline. */
		g_usleep((gulong)MIN(left, (gint64)poll_ms * 1000));
	}
}

/*
 * Through a temporary file renamed over the old one, so that the daemon
 * never reads half a password; read back as the daemon will, so that a
 * file it would refuse is found now.
 */
/*
 * Writes @text to @path through a temporary file of mode 0600, renamed
 * over it. Not g_file_set_contents_full(): since GLib 2.84 it keeps the
 * mode of the file it replaces, and an old password file may have been
 * readable by others.
 */
static gboolean
write_private(const char *path, const char *text, GError **error)
{
	g_autofree char *temp = g_strconcat(path, ".XXXXXX", NULL);
	gsize length = strlen(text);
	gsize done = 0;
	int fd = g_mkstemp_full(temp, O_WRONLY | O_CLOEXEC, 0600);
	int saved = 0;

	if (fd < 0) {
		saved = errno;
		goto failed;
	}
	while (done < length) {
		ssize_t n = write(fd, text + done, length - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			saved = errno;
			break;
		}
		done += (gsize)n;
	}
	if (saved == 0 && fsync(fd) != 0)
		saved = errno;
	if (close(fd) != 0 && saved == 0)
		saved = errno;
	if (saved == 0 && rename(temp, path) != 0)
		saved = errno;
	if (saved == 0)
		return TRUE;
	g_unlink(temp);
failed:
	g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved),
	            "cannot write %s: %s", path, g_strerror(saved));
	return FALSE;
}

static gboolean
save_password(const char *path, const char *password, GError **error)
{
	g_autofree char *folder = g_path_get_dirname(path);
	g_autofree char *text = NULL;
	char *read_back;
	gboolean ok;
	int saved;

	if (*password == '\0' || strpbrk(password, "\r\n") != NULL) {
		g_set_error(error, BRIDGE_GPODDER_ERROR,
		            BRIDGE_GPODDER_ERROR_BAD_ANSWER,
		            "the app password the server gave is not one line");
		return FALSE;
	}
	if (g_mkdir_with_parents(folder, 0700) != 0) {
		saved = errno;
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved),
		            "cannot make the folder %s: %s", folder,
		            g_strerror(saved));
		return FALSE;
	}
	text = g_strconcat(password, "\n", NULL);
	ok = write_private(path, text, error);
	memset(text, 0, strlen(text));
	if (!ok) {
		g_prefix_error(error, "cannot save the app password: ");
		return FALSE;
	}
	read_back = bridge_secret_file_read(path, error);
	if (read_back == NULL) {
		g_prefix_error(error, "saved the app password, but ");
		return FALSE;
	}
	memset(read_back, 0, strlen(read_back));
	g_free(read_back);
	return TRUE;
}

/*
 * The password is saved whatever this finds: it only tells the person
 * early what the daemon would otherwise log at its first sync.
 */
static void
check_app(const BridgeGpodderSettings *sync,
          const BridgeGpodderCredentials *credentials, FILE *out)
{
	g_autoptr(BridgeGpodderSettings) tried =
	        bridge_gpodder_settings_copy(sync);
	g_autoptr(BridgeGpodderSubscriptions) subscriptions = NULL;
	g_autoptr(GError) error = NULL;
	gint64 now = g_get_real_time() / G_USEC_PER_SEC;

	g_free(tried->user);
	tried->user = g_strdup(credentials->login_name);
	g_free(tried->password);
	tried->password = g_strdup(credentials->app_password);
	subscriptions =
	        bridge_gpodder_download_subscriptions(tried, now, &error);
	if (subscriptions != NULL)
		return;
	if (bridge_gpodder_error_get_status(error) == 404)
		say(out,
		    "But %s does not answer for the gpoddersync app: install "
		    "it in Nextcloud (Apps, search for \"GPodder Sync\").\n",
		    sync->server);
	else
		say(out, "But the first try to use it failed: %s\n",
		    error->message);
}

gboolean
bridge_sync_login_run(const BridgeConfig *config,
                      const BridgeSyncLoginOptions *options, FILE *out,
                      GError **error)
{
	const BridgeGpodderSettings *sync;
	g_autoptr(BridgeGpodderLogin) login = NULL;
	g_autoptr(BridgeGpodderCredentials) credentials = NULL;
	g_autofree char *limit = NULL;
	guint poll_ms = DEFAULT_POLL_MS;
	guint limit_seconds = DEFAULT_LIMIT_SECONDS;

	g_return_val_if_fail(config != NULL, FALSE);
	g_return_val_if_fail(out != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
	sync = &config->gpodder;
	if (options != NULL && options->poll_ms > 0)
		poll_ms = options->poll_ms;
	if (options != NULL && options->limit_seconds > 0)
		limit_seconds = options->limit_seconds;
	if (!check_settings(sync, error))
		return FALSE;

	login = bridge_gpodder_login_start(sync, error);
	if (login == NULL)
		return FALSE;
	limit = describe_limit(limit_seconds);
	say(out, "Open this address in a browser and log in: %s\n",
	    login->login_url);
	say(out, "Waiting for the login to be approved (at most %s)...\n",
	    limit);
	credentials =
	        wait_for_approval(sync, login, poll_ms, limit_seconds, error);
	if (credentials == NULL)
		return FALSE;
	if (!save_password(sync->password_file, credentials->app_password,
	                   error))
		return FALSE;

	say(out, "Logged in as %s; the app password is in %s.\n",
	    credentials->login_name, sync->password_file);
	if (g_strcmp0(credentials->login_name, sync->user) != 0)
		say(out,
		    "Nextcloud knows this account as %s, not %s: in %s, "
		    "change the line in [sync] to\n"
		    "\n"
		    "[sync]\n"
		    "user = %s\n"
		    "\n",
		    credentials->login_name, sync->user, config->config_path,
		    credentials->login_name);
	check_app(sync, credentials, out);
	say(out, "Restart a running mpd-bridge so that it reads the "
	         "password.\n");
	return TRUE;
}
