/*
 * The [sync] settings: what a bad value says, and that the password read
 * from password_file never shows in a message.
 */
#include "core/config.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PASSWORD "s3cret-Pa55"

/* Writes @text as the settings file, and the password file beside it. */
static char *
write_settings(const char *text, int password_mode)
{
	g_autofree char *folder =
	        g_build_filename(g_get_user_config_dir(), "mpd-bridge", NULL);
	g_autofree char *password =
	        g_build_filename(folder, "sync-password", NULL);
	char *path = g_build_filename(folder, "config", NULL);
	g_autoptr(GError) error = NULL;

	g_assert_cmpint(g_mkdir_with_parents(folder, 0700), ==, 0);
	g_assert_true(g_file_set_contents_full(password, PASSWORD "\n", -1,
	                                       G_FILE_SET_CONTENTS_NONE,
	                                       password_mode, &error));
	g_assert_no_error(error);
	/* The mode is asked for, not left to the umask. */
	g_assert_cmpint(chmod(password, password_mode), ==, 0);
	g_assert_true(g_file_set_contents(path, text, -1, &error));
	g_assert_no_error(error);
	return path;
}

static BridgeConfig *
load(const char *text, int password_mode, GError **error)
{
	g_autofree char *path = write_settings(text, password_mode);

	return bridge_config_load(path, error);
}

/* Loading @text fails with a message holding each of @parts, no password. */
static void
assert_refused(const char *text, int password_mode, const char *const *parts)
{
	g_autoptr(GError) error = NULL;
	BridgeConfig *config = load(text, password_mode, &error);

	g_assert_null(config);
	g_assert_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE);
	g_test_message("%s", error->message);
	g_assert_true(strstr(error->message, "/mpd-bridge/config: ") != NULL);
	for (guint i = 0; parts[i] != NULL; i++)
		g_assert_true(strstr(error->message, parts[i]) != NULL);
	g_assert_null(strstr(error->message, PASSWORD));
}

static void
test_off(void)
{
	g_autoptr(GError) error = NULL;
	BridgeConfig *config = load("[sync]\nuser = someone\n", 0600, &error);

	g_test_summary("Without [sync] server syncing is off, and the other "
	               "keys are not checked");
	g_assert_no_error(error);
	g_assert_null(config->gpodder.server);
	g_assert_null(config->gpodder.user);
	g_assert_null(config->gpodder.password);
	bridge_config_free(config);
}

static void
test_good(void)
{
	g_autoptr(GError) error = NULL;
	BridgeConfig *config =
	        load("[sync]\nserver = https://gpodder.example.org/\n"
	             "kind = gpodder\nuser = someone\n"
	             "password_file = sync-password\n",
	             0600, &error);
	const char *device;

	g_test_summary("A relative password_file is beside the settings; the "
	               "password loses its line break; the device is made "
	               "from the host name with gpodder.net's characters");
	g_assert_no_error(error);
	g_assert_cmpstr(config->gpodder.server, ==,
	                "https://gpodder.example.org");
	g_assert_cmpint(config->gpodder.kind, ==, BRIDGE_GPODDER_KIND_GPODDER);
	g_assert_cmpstr(config->gpodder.user, ==, "someone");
	g_assert_cmpstr(config->gpodder.password, ==, PASSWORD);
	g_assert_true(g_path_is_absolute(config->gpodder.password_file));
	g_assert_cmpuint(config->gpodder.interval_minutes, ==, 10);
	g_assert_false(config->gpodder.insecure);
	device = config->gpodder.device;
	g_assert_true(g_str_has_prefix(device, "mpd-bridge-"));
	g_assert_cmpuint(strlen(device), <=, 64);
	g_assert_true(g_regex_match_simple("^[A-Za-z0-9_.-]+$", device, 0, 0));
	bridge_config_free(config);
}

static void
test_nextcloud_loopback(void)
{
	g_autoptr(GError) error = NULL;
	BridgeConfig *config =
	        load("[sync]\nserver = http://127.0.0.1:8080/cloud\nkind = "
	             "nextcloud\n"
	             "user = someone\npassword_file = sync-password\n"
	             "device = living-room.pi\ninterval = 1440\n",
	             0400, &error);

	g_test_summary("Plain http is fine to this machine");
	g_assert_no_error(error);
	g_assert_cmpint(config->gpodder.kind, ==,
	                BRIDGE_GPODDER_KIND_NEXTCLOUD);
	g_assert_cmpstr(config->gpodder.device, ==, "living-room.pi");
	g_assert_cmpuint(config->gpodder.interval_minutes, ==, 1440);
	bridge_config_free(config);
}

static void
test_insecure(void)
{
	g_autoptr(GError) error = NULL;
	BridgeConfig *config =
	        load("[sync]\nserver = http://nas.lan/\nkind = nextcloud\n"
	             "user = someone\npassword_file = sync-password\n"
	             "insecure = true\n",
	             0600, &error);

	g_test_summary("insecure = true allows plain http to another host");
	g_assert_no_error(error);
	g_assert_true(config->gpodder.insecure);
	bridge_config_free(config);
}

static void
test_http_remote(void)
{
	g_test_summary("Plain http to another host is refused, with the way "
	               "out");
	assert_refused("[sync]\nserver = http://gpodder.example.org\n"
	               "kind = gpodder\nuser = someone\n"
	               "password_file = sync-password\n",
	               0600,
	               (const char *const[]){
	                       "[sync] server", "http://gpodder.example.org",
	                       "use https", "insecure = true", NULL });
}

static void
test_world_readable(void)
{
	g_test_summary("A password file that others can read is refused, with "
	               "the chmod to run");
	assert_refused("[sync]\nserver = https://gpodder.example.org\n"
	               "kind = gpodder\nuser = someone\n"
	               "password_file = sync-password\n",
	               0644,
	               (const char *const[]){ "[sync] password_file",
	                                      "sync-password", "mode 644",
	                                      "chmod 600", NULL });
	assert_refused("[sync]\nserver = https://gpodder.example.org\n"
	               "kind = gpodder\nuser = someone\n"
	               "password_file = sync-password\n",
	               0620,
	               (const char *const[]){ "[sync] password_file",
	                                      "chmod 600", NULL });
}

static void
test_other_owner(void)
{
	g_autofree char *path = NULL;
	g_autofree char *password = NULL;
	g_autoptr(GError) error = NULL;
	BridgeConfig *config;

	g_test_summary("A password file of another user's is refused");
	if (geteuid() != 0) {
		g_test_skip("giving a file away needs root");
		return;
	}
	path = write_settings("[sync]\nserver = https://gpodder.example.org\n"
	                      "kind = gpodder\nuser = someone\n"
	                      "password_file = sync-password\n",
	                      0600);
	password = g_build_filename(g_get_user_config_dir(), "mpd-bridge",
	                            "sync-password", NULL);
	g_assert_cmpint(chown(password, 65534, 65534), ==, 0);
	config = bridge_config_load(path, &error);
	g_assert_null(config);
	g_assert_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE);
	g_assert_true(strstr(error->message, "another user") != NULL);
	g_assert_true(strstr(error->message, "chown") != NULL);
}

static void
test_missing_file(void)
{
	g_autoptr(GError) error = NULL;
	BridgeConfig *config =
	        load("[sync]\nserver = https://gpodder.example.org\n"
	             "kind = gpodder\nuser = someone\n"
	             "password_file = /nonexistent/password\n",
	             0600, &error);

	g_test_summary("A password file that is not there yet (sync login "
	               "writes it) leaves the password unset; none named is "
	               "refused");
	g_assert_no_error(error);
	g_assert_cmpstr(config->gpodder.password_file, ==,
	                "/nonexistent/password");
	g_assert_null(config->gpodder.password);
	bridge_config_free(config);
	assert_refused("[sync]\nserver = https://gpodder.example.org\n"
	               "kind = gpodder\nuser = someone\n",
	               0600,
	               (const char *const[]){ "[sync] password_file", NULL });
}

static void
test_no_secrets(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *path =
	        write_settings("[sync]\nserver = https://cloud.example.org\n"
	                       "kind = nextcloud\nuser = someone\n"
	                       "password_file = /nonexistent/password\n",
	                       0600);
	BridgeConfig *config;

	g_test_summary("Without secrets, a password file that is not there "
	               "is no error, and nothing is read; the rest is "
	               "checked as always");
	config =
	        bridge_config_load_full(path, BRIDGE_CONFIG_NO_SECRETS, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(config->gpodder.server, ==,
	                "https://cloud.example.org");
	g_assert_cmpint(config->gpodder.kind, ==,
	                BRIDGE_GPODDER_KIND_NEXTCLOUD);
	g_assert_cmpstr(config->gpodder.password_file, ==,
	                "/nonexistent/password");
	g_assert_null(config->gpodder.password);
	bridge_config_free(config);

	g_free(path);
	path = write_settings("[sync]\nserver = https://cloud.example.org\n"
	                      "kind = nextcloud\nuser = someone\n",
	                      0600);
	config =
	        bridge_config_load_full(path, BRIDGE_CONFIG_NO_SECRETS, &error);
	g_assert_null(config);
	g_assert_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE);
	g_assert_nonnull(strstr(error->message, "[sync] password_file"));
}

static gboolean
set_password(const char *path, const char *text)
{
	return g_file_set_contents_full(path, text, -1,
	                                G_FILE_SET_CONTENTS_NONE, 0600, NULL);
}

static void
test_password_lines(void)
{
	g_autofree char *password = g_build_filename(
	        g_get_user_config_dir(), "mpd-bridge", "sync-password", NULL);
	g_autofree char *path = NULL;
	g_autoptr(GError) error = NULL;
	BridgeConfig *config;
	static const char text[] =
	        "[sync]\nserver = https://gpodder.example.org\n"
	        "kind = gpodder\nuser = someone\n"
	        "password_file = sync-password\n";

	g_test_summary("A password file may end in CR LF; an empty one, or one "
	               "of two lines, is refused");
	path = write_settings(text, 0600);
	g_assert_true(set_password(password, PASSWORD "\r\n"));
	config = bridge_config_load(path, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(config->gpodder.password, ==, PASSWORD);
	bridge_config_free(config);

	g_assert_true(set_password(password, "\n"));
	config = bridge_config_load(path, &error);
	g_assert_null(config);
	g_assert_true(strstr(error->message, "on one line") != NULL);
	g_clear_error(&error);

	g_assert_true(set_password(password, PASSWORD "\nmore\n"));
	config = bridge_config_load(path, &error);
	g_assert_null(config);
	g_assert_true(strstr(error->message, "on one line") != NULL);
	g_assert_null(strstr(error->message, PASSWORD));
}

static void
test_bad_kind(void)
{
	g_test_summary("kind is gpodder or nextcloud, and must be set");
	assert_refused("[sync]\nserver = https://gpodder.example.org\n"
	               "kind = mygpo\nuser = someone\n"
	               "password_file = sync-password\n",
	               0600,
	               (const char *const[]){ "[sync] kind", "'mygpo'",
	                                      "nextcloud", NULL });
	assert_refused("[sync]\nserver = https://gpodder.example.org\n"
	               "user = someone\npassword_file = sync-password\n",
	               0600, (const char *const[]){ "[sync] kind", NULL });
}

static void
test_bad_values(void)
{
	g_test_summary("A bad server, device, interval or missing user is "
	               "named");
	assert_refused("[sync]\nserver = ftp://gpodder.example.org\n", 0600,
	               (const char *const[]){ "[sync] server", NULL });
	assert_refused(
	        "[sync]\nserver = https://me:pw@gpodder.example.org\n"
	        "kind = gpodder\n",
	        0600,
	        (const char *const[]){ "[sync] server", "[sync] user", NULL });
	assert_refused("[sync]\nserver = https://gpodder.example.org\n"
	               "kind = gpodder\npassword_file = sync-password\n",
	               0600, (const char *const[]){ "[sync] user", NULL });
	assert_refused(
	        "[sync]\nserver = https://gpodder.example.org\n"
	        "kind = gpodder\nuser = someone\n"
	        "password_file = sync-password\ndevice = my phone\n",
	        0600,
	        (const char *const[]){ "[sync] device", "'my phone'", NULL });
	assert_refused(
	        "[sync]\nserver = https://gpodder.example.org\n"
	        "kind = gpodder\nuser = someone\n"
	        "password_file = sync-password\ninterval = 0\n",
	        0600,
	        (const char *const[]){ "[sync] interval", "1 to 1440", NULL });
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	g_test_add_func("/sync-config/off", test_off);
	g_test_add_func("/sync-config/good", test_good);
	g_test_add_func("/sync-config/nextcloud-loopback",
	                test_nextcloud_loopback);
	g_test_add_func("/sync-config/insecure", test_insecure);
	g_test_add_func("/sync-config/http-remote", test_http_remote);
	g_test_add_func("/sync-config/world-readable", test_world_readable);
	g_test_add_func("/sync-config/other-owner", test_other_owner);
	g_test_add_func("/sync-config/missing-file", test_missing_file);
	g_test_add_func("/sync-config/no-secrets", test_no_secrets);
	g_test_add_func("/sync-config/password-lines", test_password_lines);
	g_test_add_func("/sync-config/bad-kind", test_bad_kind);
	g_test_add_func("/sync-config/bad-values", test_bad_values);
	return g_test_run();
}
