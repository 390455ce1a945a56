/*
 * `mpd-bridge sync login` (mpd-bridge/phone/login.c) against the Login
 * Flow v2 of tests/support/gpodder-server.py on loopback: approved,
 * never approved, refused for a gpodder server, and no server at all.
 */
#include "phone/gpodder.h"
#include "phone/login.h"

#include "sync-server.h"

#include <curl/curl.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/stat.h>

#define POLL_PATH "/index.php/login/v2/poll"

static SyncServer server;

/* The requests of the log whose method and path start as given. */
static guint
count_requests(const char *method, const char *path_prefix)
{
	g_autoptr(JsonNode) log = sync_server_control(&server, "/_log", NULL);
	JsonArray *entries = json_node_get_array(log);
	guint n = 0;

	for (guint i = 0; i < json_array_get_length(entries); i++) {
		JsonObject *entry = json_array_get_object_element(entries, i);

		if (g_strcmp0(json_object_get_string_member(entry, "method"),
		              method) == 0 &&
		    g_str_has_prefix(
		            json_object_get_string_member(entry, "path"),
		            path_prefix))
			n++;
	}
	return n;
}

/*
 * The person with the browser: approves once the box has asked at least
 * once, and returns the app password the server gave.
 */
static gpointer
approve_after_first_poll(gpointer data)
{
	g_autoptr(JsonNode) approved = NULL;

	while (count_requests("POST", POLL_PATH) == 0)
		g_usleep(20 * 1000);
	approved = sync_server_control(&server, "/_approve",
	                               "{\"user\": \"user\"}");
	return g_strdup(json_object_get_string_member(
	        json_node_get_object(approved), "appPassword"));
}

/* Writes @sync as the [sync] group of a settings file, and loads it. */
static BridgeConfig *
load_settings(const char *sync)
{
	g_autofree char *folder =
	        g_build_filename(g_get_user_config_dir(), "mpd-bridge", NULL);
	g_autofree char *path = g_build_filename(folder, "config", NULL);
	g_autofree char *text = g_strconcat("[sync]\n", sync, NULL);
	g_autoptr(GError) error = NULL;
	BridgeConfig *config;

	g_assert_cmpint(g_mkdir_with_parents(folder, 0700), ==, 0);
	g_assert_true(g_file_set_contents(path, text, -1, &error));
	g_assert_no_error(error);
	config =
	        bridge_config_load_full(path, BRIDGE_CONFIG_NO_SECRETS, &error);
	g_assert_no_error(error);
	g_assert_nonnull(config);
	return config;
}

static char *
read_all(FILE *file)
{
	GString *text = g_string_new(NULL);
	char buffer[512];
	size_t n;

	rewind(file);
	while ((n = fread(buffer, 1, sizeof(buffer), file)) > 0)
		g_string_append_len(text, buffer, (gssize)n);
	return g_string_free(text, FALSE);
}

static void
test_approved(void)
{
	g_autofree char *sync = g_strdup_printf(
	        "server = %s\nkind = nextcloud\nuser = someone\n"
	        "password_file = secrets/sync-password\n",
	        server.base);
	BridgeConfig *config = NULL;
	BridgeSyncLoginOptions options = { .poll_ms = 50, .limit_seconds = 30 };
	g_autoptr(GError) error = NULL;
	g_autofree char *app_password = NULL;
	g_autofree char *written = NULL;
	g_autofree char *printed = NULL;
	g_autofree char *folder = NULL;
	g_autofree char *expected = NULL;
	GThread *approver;
	FILE *out = tmpfile();
	struct stat st;
	gboolean ok;

	g_test_summary("Approved after the first poll: the app password is "
	               "in the password file (0600, its new folder 0700), "
	               "never in what is printed, which gives the URL and "
	               "the user line to change");
	sync_server_control_post(&server, "/_reset", "{}");
	config = load_settings(sync);
	folder = g_path_get_dirname(config->gpodder.password_file);
	approver = g_thread_new("approver", approve_after_first_poll, NULL);
	ok = bridge_sync_login_run(config, &options, out, &error);
	app_password = g_thread_join(approver);
	g_assert_no_error(error);
	g_assert_true(ok);

	g_assert_true(g_file_get_contents(config->gpodder.password_file,
	                                  &written, NULL, &error));
	g_assert_no_error(error);
	expected = g_strconcat(app_password, "\n", NULL);
	g_assert_cmpstr(written, ==, expected);
	g_assert_cmpint(stat(config->gpodder.password_file, &st), ==, 0);
	g_assert_cmpint(st.st_mode & 0777, ==, 0600);
	g_assert_cmpint(stat(folder, &st), ==, 0);
	g_assert_cmpint(st.st_mode & 0777, ==, 0700);

	printed = read_all(out);
	g_test_message("%s", printed);
	g_free(expected);
	expected = g_strconcat("Open this address in a browser and log in: ",
	                       server.base, "/index.php/login/v2/flow/", NULL);
	g_assert_nonnull(strstr(printed, expected));
	g_assert_nonnull(strstr(printed, "\n[sync]\nuser = user\n"));
	g_assert_nonnull(strstr(printed, config->gpodder.password_file));
	g_assert_null(strstr(printed, "But "));
	g_assert_null(strstr(printed, app_password));
	/* Asked while pending, then once more for the answer. */
	g_assert_cmpuint(count_requests("POST", POLL_PATH), >=, 2);
	/* The app password was tried once, as the login name. */
	g_assert_cmpuint(count_requests("GET", "/index.php/apps/gpoddersync/"
	                                       "subscriptions"),
	                 ==, 1);
	fclose(out);
	bridge_config_free(config);
}

static void
test_replaces(void)
{
	g_autofree char *sync = NULL;
	g_autofree char *path = g_build_filename(g_get_user_config_dir(),
	                                         "sync-password", NULL);
	BridgeConfig *config = NULL;
	BridgeSyncLoginOptions options = { .poll_ms = 50, .limit_seconds = 30 };
	g_autoptr(GError) error = NULL;
	g_autofree char *app_password = NULL;
	g_autofree char *written = NULL;
	g_autofree char *printed = NULL;
	GThread *approver;
	FILE *out = tmpfile();
	struct stat st;

	g_test_summary("An old password file readable by others is replaced "
	               "by one only its owner can read; a user that is "
	               "right needs no change");
	sync_server_control_post(&server, "/_reset", "{}");
	g_assert_cmpint(g_mkdir_with_parents(g_get_user_config_dir(), 0700), ==,
	                0);
	g_assert_true(g_file_set_contents_full(
	        path, "old\n", -1, G_FILE_SET_CONTENTS_NONE, 0644, &error));
	g_assert_no_error(error);
	g_assert_cmpint(chmod(path, 0644), ==, 0);
	sync = g_strdup_printf("server = %s\nkind = nextcloud\nuser = user\n"
	                       "password_file = %s\n",
	                       server.base, path);
	config = load_settings(sync);
	approver = g_thread_new("approver", approve_after_first_poll, NULL);
	g_assert_true(bridge_sync_login_run(config, &options, out, &error));
	app_password = g_thread_join(approver);
	g_assert_no_error(error);

	g_assert_true(g_file_get_contents(path, &written, NULL, &error));
	g_assert_true(g_str_has_prefix(written, app_password));
	g_assert_cmpint(stat(path, &st), ==, 0);
	g_assert_cmpint(st.st_mode & 0777, ==, 0600);
	printed = read_all(out);
	g_assert_null(strstr(printed, "user = "));
	g_assert_null(strstr(printed, app_password));
	fclose(out);
	bridge_config_free(config);
}

static void
test_gpodder_kind(void)
{
	g_autofree char *sync =
	        g_strdup_printf("server = %s\nkind = gpodder\nuser = user\n"
	                        "password_file = /nonexistent/sync-password\n",
	                        server.base);
	BridgeConfig *config = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree char *printed = NULL;
	FILE *out = tmpfile();

	g_test_summary("A gpodder server takes the account's password: the "
	               "login is refused before asking anything, and the "
	               "message says what to put where");
	sync_server_control_post(&server, "/_reset", "{}");
	config = load_settings(sync);
	g_assert_false(bridge_sync_login_run(config, NULL, out, &error));
	g_assert_error(error, BRIDGE_SYNC_LOGIN_ERROR,
	               BRIDGE_SYNC_LOGIN_ERROR_KIND);
	g_test_message("%s", error->message);
	g_assert_nonnull(strstr(error->message, "/nonexistent/sync-password"));
	g_assert_nonnull(strstr(error->message, "chmod 600"));
	g_assert_cmpuint(count_requests("POST", "/index.php"), ==, 0);
	printed = read_all(out);
	g_assert_cmpstr(printed, ==, "");
	fclose(out);
	bridge_config_free(config);
}

static void
test_unset(void)
{
	BridgeConfig *config = load_settings("");
	g_autoptr(GError) error = NULL;
	FILE *out = tmpfile();

	g_test_summary("Without [sync] server there is nothing to log in to");
	g_assert_false(bridge_sync_login_run(config, NULL, out, &error));
	g_assert_error(error, BRIDGE_SYNC_LOGIN_ERROR,
	               BRIDGE_SYNC_LOGIN_ERROR_UNSET);
	fclose(out);
	bridge_config_free(config);
}

static void
test_expired(void)
{
	g_autofree char *sync =
	        g_strdup_printf("server = %s\nkind = nextcloud\nuser = user\n"
	                        "password_file = sync-password\n",
	                        server.base);
	BridgeConfig *config = NULL;
	BridgeSyncLoginOptions options = { .poll_ms = 200, .limit_seconds = 1 };
	g_autoptr(GError) error = NULL;
	g_autofree char *printed = NULL;
	FILE *out = tmpfile();
	gint64 start;
	gint64 took;

	g_test_summary("Nobody approves: after the limit, an error that "
	               "says to run it again, and no password file");
	sync_server_control_post(&server, "/_reset", "{}");
	config = load_settings(sync);
	start = g_get_monotonic_time();
	g_assert_false(bridge_sync_login_run(config, &options, out, &error));
	took = g_get_monotonic_time() - start;
	g_assert_error(error, BRIDGE_SYNC_LOGIN_ERROR,
	               BRIDGE_SYNC_LOGIN_ERROR_EXPIRED);
	g_test_message("%s", error->message);
	g_assert_nonnull(strstr(error->message, "1 second"));
	g_assert_nonnull(strstr(error->message, "sync login again"));
	g_assert_cmpint(took, >=, G_USEC_PER_SEC);
	g_assert_cmpint(took, <, 10 * G_USEC_PER_SEC);
	g_assert_cmpuint(count_requests("POST", POLL_PATH), >=, 3);
	g_assert_false(
	        g_file_test(config->gpodder.password_file, G_FILE_TEST_EXISTS));
	printed = read_all(out);
	g_assert_nonnull(strstr(printed, "Open this address"));
	fclose(out);
	bridge_config_free(config);
}

/* A loopback port nothing listens on, as a base URL. */
static char *
closed_server(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocket) socket =
	        g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
	                     G_SOCKET_PROTOCOL_TCP, &error);
	g_autoptr(GInetAddress) loopback =
	        g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) any = g_inet_socket_address_new(loopback, 0);
	g_autoptr(GSocketAddress) bound = NULL;

	g_assert_no_error(error);
	g_assert_true(g_socket_bind(socket, any, FALSE, &error));
	g_assert_no_error(error);
	bound = g_socket_get_local_address(socket, &error);
	g_assert_no_error(error);
	/* Bound but not listening: a connection is refused. */
	return g_strdup_printf(
	        "http://127.0.0.1:%u",
	        g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound)));
}

static void
test_unreachable(void)
{
	g_autofree char *base = closed_server();
	g_autofree char *sync =
	        g_strdup_printf("server = %s\nkind = nextcloud\nuser = user\n"
	                        "password_file = sync-password\n",
	                        base);
	BridgeConfig *config = load_settings(sync);
	g_autoptr(GError) error = NULL;
	g_autofree char *printed = NULL;
	FILE *out = tmpfile();

	g_test_summary("No server: an error naming it, before anything is "
	               "printed");
	g_assert_false(bridge_sync_login_run(config, NULL, out, &error));
	g_assert_error(error, BRIDGE_GPODDER_ERROR,
	               BRIDGE_GPODDER_ERROR_UNREACHABLE);
	g_test_message("%s", error->message);
	g_assert_nonnull(strstr(error->message, base));
	printed = read_all(out);
	g_assert_cmpstr(printed, ==, "");
	g_assert_false(
	        g_file_test(config->gpodder.password_file, G_FILE_TEST_EXISTS));
	fclose(out);
	bridge_config_free(config);
}

int
main(int argc, char **argv)
{
	int status;

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	curl_global_init(CURL_GLOBAL_ALL);
	g_test_add_func("/sync-login/approved", test_approved);
	g_test_add_func("/sync-login/replaces", test_replaces);
	g_test_add_func("/sync-login/gpodder-kind", test_gpodder_kind);
	g_test_add_func("/sync-login/unset", test_unset);
	g_test_add_func("/sync-login/expired", test_expired);
	g_test_add_func("/sync-login/unreachable", test_unreachable);
	sync_server_start(&server, (const char *const[]){
	                                   "user:account-password", NULL });
	status = g_test_run();
	sync_server_stop(&server);
	curl_global_cleanup();
	return status;
}
