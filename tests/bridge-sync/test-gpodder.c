/*
 * The sync client against tests/support/gpodder-server.py on loopback:
 * gpodder.net's API v2 with mygpo's rules and Nextcloud's gpoddersync
 * with its own, faults, and the Login Flow v2. One server for the whole
 * program, reset before each test.
 */
#include "phone/gpodder-private.h"

#include "sync-server.h"

#include <curl/curl.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#define PASSWORD "secret-Pa55word"

static SyncServer server;

static JsonObject *
state_user(JsonNode *state, const char *family)
{
	JsonObject *users = json_object_get_object_member(
	        json_node_get_object(state), "users");
	JsonObject *user = json_object_get_object_member(users, "user");

	return json_object_get_object_member(user, family);
}

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

typedef struct {
	BridgeGpodderSettings settings;
} Fixture;

static void
fixture_set_up(Fixture *f, gconstpointer data)
{
	const BridgeGpodderKind *kind = data;

	sync_server_control_post(&server, "/_reset", "{}");
	/* A POST of JSON without saying so fails with 415. */
	sync_server_control_post(&server, "/_switch",
	                         "{\"require_json\": true}");
	memset(f, 0, sizeof(*f));
	f->settings.server = g_strdup(server.base);
	f->settings.kind = kind != NULL ? *kind : BRIDGE_GPODDER_KIND_GPODDER;
	f->settings.user = g_strdup("user");
	f->settings.password = g_strdup(PASSWORD);
	f->settings.device = g_strdup("test-box");
	f->settings.interval_minutes = 10;
	f->settings.timeout_seconds = 10;
}

static void
fixture_tear_down(Fixture *f, gconstpointer data)
{
	g_free(f->settings.server);
	g_free(f->settings.user);
	g_free(f->settings.password);
	g_free(f->settings.device);
}

static const BridgeGpodderKind gpodder = BRIDGE_GPODDER_KIND_GPODDER;
static const BridgeGpodderKind nextcloud = BRIDGE_GPODDER_KIND_NEXTCLOUD;

static gboolean
has_url(GPtrArray *urls, const char *url)
{
	for (guint i = 0; i < urls->len; i++) {
		if (strcmp(g_ptr_array_index(urls, i), url) == 0)
			return TRUE;
	}
	return FALSE;
}

static void
test_device(Fixture *f, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) state = NULL;
	JsonObject *devices;
	JsonObject *device;
	g_autofree char *caption =
	        g_strconcat("mpd-bridge on ", g_get_host_name(), NULL);

	g_test_summary("The device is registered as a server with its "
	               "caption; Nextcloud has no devices and gets no "
	               "request");
	g_assert_true(bridge_gpodder_register_device(&f->settings, &error));
	g_assert_no_error(error);
	state = sync_server_control(&server, "/_state", NULL);
	devices = json_object_get_object_member(state_user(state, "api2"),
	                                        "devices");
	device = json_object_get_object_member(devices, "test-box");
	g_assert_nonnull(device);
	g_assert_cmpstr(json_object_get_string_member(device, "type"), ==,
	                "server");
	g_assert_cmpstr(json_object_get_string_member(device, "caption"), ==,
	                caption);
	g_assert_cmpuint(count_requests("POST", "/api/2/devices/user/"
	                                        "test-box.json"),
	                 ==, 1);

	f->settings.kind = BRIDGE_GPODDER_KIND_NEXTCLOUD;
	g_assert_true(bridge_gpodder_register_device(&f->settings, &error));
	g_assert_no_error(error);
	g_assert_cmpuint(count_requests("POST", "/"), ==, 1);
}

static void
test_subscriptions(Fixture *f, gconstpointer data)
{
	const char *const add[] = { "https://a.example/feed.xml",
		                    "https://b.example/feed.xml",
		                    "https://old.example/feed.xml", NULL };
	const char *const remove[] = { "https://a.example/feed.xml", NULL };
	g_autoptr(GError) error = NULL;
	g_autoptr(BridgeGpodderUploaded) uploaded = NULL;
	g_autoptr(BridgeGpodderUploaded) removed = NULL;
	g_autoptr(BridgeGpodderSubscriptions) all = NULL;
	g_autoptr(BridgeGpodderSubscriptions) later = NULL;
	gboolean is_nextcloud = f->settings.kind == nextcloud;

	g_test_summary("Subscriptions go up and come down; gpodder.net's "
	               "update_urls are given back");
	sync_server_control_post(&server, "/_switch",
	                         "{\"rewrite_urls\": "
	                         "{\"https://old.example/feed.xml\": "
	                         "\"https://new.example/feed.xml\"}}");
	sync_server_control_post(&server, "/_clock", "{\"now\": 1700000000}");
	uploaded = bridge_gpodder_upload_subscriptions(&f->settings, add, NULL,
	                                               &error);
	g_assert_no_error(error);
	g_assert_cmpint(uploaded->timestamp, ==, 1700000000);
	if (is_nextcloud) {
		g_assert_cmpuint(uploaded->update_urls->len, ==, 0);
	} else {
		BridgeGpodderUrlUpdate *update;

		g_assert_cmpuint(uploaded->update_urls->len, ==, 1);
		update = g_ptr_array_index(uploaded->update_urls, 0);
		g_assert_cmpstr(update->old_url, ==,
		                "https://old.example/feed.xml");
		g_assert_cmpstr(update->new_url, ==,
		                "https://new.example/feed.xml");
	}

	all = bridge_gpodder_download_subscriptions(&f->settings, 0, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(all->add->len, ==, 3);
	g_assert_true(has_url(all->add, "https://b.example/feed.xml"));
	g_assert_true(has_url(all->add, is_nextcloud
	                                        ? "https://old.example/feed.xml"
	                                        : "https://new.example/"
	                                          "feed.xml"));
	g_assert_cmpuint(all->remove->len, ==, 0);
	g_assert_cmpint(all->timestamp, ==, 1700000000);

	sync_server_control_post(&server, "/_clock", "{\"now\": 1700000100}");
	removed = bridge_gpodder_upload_subscriptions(&f->settings, NULL,
	                                              remove, &error);
	g_assert_no_error(error);
	sync_server_control_post(&server, "/_clock", "{\"now\": 1700000200}");
	later = bridge_gpodder_download_subscriptions(
	        &f->settings, all->timestamp + 1, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(later->add->len, ==, 0);
	g_assert_cmpuint(later->remove->len, ==, 1);
	g_assert_cmpstr(g_ptr_array_index(later->remove, 0), ==,
	                "https://a.example/feed.xml");
	g_assert_cmpint(later->timestamp, >=, 1700000100);
}

static void
test_conflict(Fixture *f, gconstpointer data)
{
	const char *const add[] = { "https://a.example/feed.xml",
		                    "https://b.example/feed.xml", NULL };
	const char *const remove[] = { "https://b.example/feed.xml", NULL };
	g_autoptr(GError) error = NULL;
	g_autoptr(BridgeGpodderUploaded) uploaded = NULL;

	g_test_summary("A URL both added and removed is refused before "
	               "anything is sent");
	uploaded = bridge_gpodder_upload_subscriptions(&f->settings, add,
	                                               remove, &error);
	g_assert_null(uploaded);
	g_assert_error(error, BRIDGE_GPODDER_ERROR,
	               BRIDGE_GPODDER_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "https://b.example/feed.xml"));
	g_assert_cmpuint(count_requests("POST", "/"), ==, 0);
}

/* Action @i of a test's list, one second apart from 1700000000. */
static BridgeGpodderAction *
make_action(guint i, BridgeGpodderActionKind kind, gint64 timestamp)
{
	g_autofree char *episode =
	        g_strdup_printf("https://cdn.example/ep%u.mp3", i);
	BridgeGpodderAction *action = bridge_gpodder_action_new(
	        "https://a.example/feed.xml", episode, kind, timestamp);

	action->guid = g_strdup_printf("guid-%u", i);
	if (kind == BRIDGE_GPODDER_ACTION_PLAY) {
		action->started = 0;
		action->position = 10 + i;
		action->total = 1480;
	}
	return action;
}

static GPtrArray *
make_actions(guint n, gint64 first, gint64 step)
{
	GPtrArray *actions = g_ptr_array_new_with_free_func(
	        (GDestroyNotify)bridge_gpodder_action_free);

	for (guint i = 0; i < n; i++)
		g_ptr_array_add(actions,
		                make_action(i, BRIDGE_GPODDER_ACTION_PLAY,
		                            first + i * step));
	return actions;
}

static void
assert_same_action(const BridgeGpodderAction *got,
                   const BridgeGpodderAction *sent)
{
	g_assert_cmpstr(got->podcast, ==, sent->podcast);
	g_assert_cmpstr(got->episode, ==, sent->episode);
	g_assert_cmpstr(got->guid, ==, sent->guid);
	g_assert_cmpint(got->action, ==, sent->action);
	g_assert_cmpint(got->timestamp, ==, sent->timestamp);
	g_assert_cmpint(got->started, ==, sent->started);
	g_assert_cmpint(got->position, ==, sent->position);
	g_assert_cmpint(got->total, ==, sent->total);
}

static void
test_actions_paging(Fixture *f, gconstpointer data)
{
	static const char *const forms[] = { "naive", "z", "offset" };
	g_autoptr(GPtrArray) sent = make_actions(37, 1700000000, 1);
	g_autoptr(GError) error = NULL;
	g_autoptr(BridgeGpodderUploaded) uploaded = NULL;
	guint n_sent = 0;

	g_test_summary("37 actions go up in POSTs of 30 and 7, and come down "
	               "past a cap of 5 a reply, each once, in all three time "
	               "forms");
	sync_server_control_post(&server, "/_switch", "{\"episode_cap\": 5}");
	uploaded = bridge_gpodder_upload_actions(&f->settings, sent, &n_sent,
	                                         &error);
	g_assert_no_error(error);
	g_assert_nonnull(uploaded);
	g_assert_cmpuint(n_sent, ==, 37);
	g_assert_cmpuint(count_requests("POST", "/api/2/episodes/user.json"),
	                 ==, 2);

	for (guint form = 0; form < G_N_ELEMENTS(forms); form++) {
		g_autofree char *body = g_strdup_printf(
		        "{\"time_format\": \"%s\"}", forms[form]);
		g_autoptr(GPtrArray) got = NULL;
		gint64 since = -1;

		sync_server_control_post(&server, "/_switch", body);
		got = bridge_gpodder_download_actions(&f->settings, 0, &since,
		                                      &error);
		g_assert_no_error(error);
		g_assert_cmpuint(got->len, ==, 37);
		for (guint i = 0; i < got->len; i++) {
			BridgeGpodderAction *action = g_ptr_array_index(got, i);

			assert_same_action(action, g_ptr_array_index(sent, i));
			g_assert_cmpstr(action->device, ==, "test-box");
		}
		g_assert_cmpint(since, >=, 1700000036);
	}
}

static void
test_actions_same_time(Fixture *f, gconstpointer data)
{
	g_autoptr(GPtrArray) sent = make_actions(7, 1700000000, 0);
	g_autoptr(GPtrArray) got = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(BridgeGpodderUploaded) uploaded = NULL;
	gint64 since = 0;

	g_test_summary("More actions of one second than a reply holds: the "
	               "timestamp cannot move on, and paging stops rather than "
	               "asking forever");
	sync_server_control_post(&server, "/_switch", "{\"episode_cap\": 5}");
	uploaded =
	        bridge_gpodder_upload_actions(&f->settings, sent, NULL, &error);
	g_assert_no_error(error);
	got = bridge_gpodder_download_actions(&f->settings, 0, &since, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(got->len, ==, 5);
	g_assert_cmpint(since, ==, 1700000000);
	g_assert_cmpuint(count_requests("GET", "/api/2/episodes/"), ==, 2);
}

static void
test_actions_kinds(Fixture *f, gconstpointer data)
{
	g_autoptr(GPtrArray) sent = g_ptr_array_new_with_free_func(
	        (GDestroyNotify)bridge_gpodder_action_free);
	g_autoptr(GPtrArray) got = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(BridgeGpodderUploaded) uploaded = NULL;
	BridgeGpodderAction *action;
	gint64 since = 0;

	g_test_summary("new, download and delete go without positions; an "
	               "action of its own device keeps it; no guid is no "
	               "guid");
	g_ptr_array_add(sent,
	                make_action(0, BRIDGE_GPODDER_ACTION_NEW, 1700000000));
	g_ptr_array_add(sent, make_action(1, BRIDGE_GPODDER_ACTION_DOWNLOAD,
	                                  1700000001));
	action = make_action(2, BRIDGE_GPODDER_ACTION_DELETE, 1700000002);
	action->device = g_strdup("phone");
	g_ptr_array_add(sent, action);
	action = make_action(3, BRIDGE_GPODDER_ACTION_PLAY, 1700000003);
	g_clear_pointer(&action->guid, g_free);
	g_ptr_array_add(sent, action);
	uploaded =
	        bridge_gpodder_upload_actions(&f->settings, sent, NULL, &error);
	g_assert_no_error(error);
	got = bridge_gpodder_download_actions(&f->settings, 0, &since, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(got->len, ==, 4);
	for (guint i = 0; i < got->len; i++)
		assert_same_action(g_ptr_array_index(got, i),
		                   g_ptr_array_index(sent, i));
	action = g_ptr_array_index(got, 2);
	g_assert_cmpstr(action->device, ==, "phone");
	g_assert_cmpint(action->total, ==, -1);
}

static void
test_nextcloud_actions(Fixture *f, gconstpointer data)
{
	g_autoptr(GPtrArray) sent = make_actions(3, 1700000000, 60);
	g_autoptr(GPtrArray) got = NULL;
	g_autoptr(GPtrArray) again = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(BridgeGpodderUploaded) uploaded = NULL;
	g_autoptr(JsonNode) state = NULL;
	gint64 since = 0;

	g_test_summary("Nextcloud: actions go up, and come down as PLAY, "
	               "read without case; asking again from the new since "
	               "brings nothing");
	g_ptr_array_add(sent, make_action(9, BRIDGE_GPODDER_ACTION_DOWNLOAD,
	                                  1700000500));
	uploaded =
	        bridge_gpodder_upload_actions(&f->settings, sent, NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(uploaded->update_urls->len, ==, 0);
	g_assert_cmpuint(count_requests("POST", "/index.php/apps/gpoddersync/"
	                                        "episode_action/create"),
	                 ==, 1);
	state = sync_server_control(&server, "/_state", NULL);
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(
	                         state_user(state, "nextcloud"), "actions")),
	                 ==, 3);

	got = bridge_gpodder_download_actions(&f->settings, 0, &since, &error);
	g_assert_no_error(error);
	/* Since 2025-10 Nextcloud keeps play alone. */
	g_assert_cmpuint(got->len, ==, 3);
	for (guint i = 0; i < got->len; i++)
		assert_same_action(g_ptr_array_index(got, i),
		                   g_ptr_array_index(sent, i));
	g_assert_cmpint(since, >, 1700000000);

	again = bridge_gpodder_download_actions(&f->settings, since, &since,
	                                        &error);
	g_assert_no_error(error);
	g_assert_cmpuint(again->len, ==, 0);
}

static void
test_auth(Fixture *f, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(BridgeGpodderSubscriptions) subscriptions = NULL;

	g_test_summary("A wrong password is an AUTH error that says what to "
	               "check, and holds no password");
	g_free(f->settings.password);
	f->settings.password = g_strdup("wrong-" PASSWORD);
	subscriptions =
	        bridge_gpodder_download_subscriptions(&f->settings, 0, &error);
	g_assert_null(subscriptions);
	g_assert_error(error, BRIDGE_GPODDER_ERROR, BRIDGE_GPODDER_ERROR_AUTH);
	g_test_message("%s", error->message);
	g_assert_cmpint(bridge_gpodder_error_get_status(error), ==, 401);
	g_assert_nonnull(strstr(error->message, server.base));
	g_assert_nonnull(strstr(error->message, "'user'"));
	g_assert_nonnull(
	        strstr(error->message, "check [sync] user and password_file"));
	g_assert_null(strstr(error->message, PASSWORD));
}

static void
test_server_error(Fixture *f, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) actions = NULL;
	gint64 since = 0;

	g_test_summary("A 503 is an HTTP error with its status");
	sync_server_control_post(&server, "/_switch",
	                         "{\"fail_next\": 1, \"fail_status\": 503}");
	actions = bridge_gpodder_download_actions(&f->settings, 0, &since,
	                                          &error);
	g_assert_null(actions);
	g_assert_error(error, BRIDGE_GPODDER_ERROR, BRIDGE_GPODDER_ERROR_HTTP);
	g_test_message("%s", error->message);
	g_assert_cmpint(bridge_gpodder_error_get_status(error), ==, 503);
	g_assert_nonnull(strstr(error->message, "HTTP 503"));
	g_assert_nonnull(strstr(error->message, "try again later"));
	g_assert_null(strstr(error->message, PASSWORD));
}

static void
test_stall(Fixture *f, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(BridgeGpodderSubscriptions) subscriptions = NULL;
	gint64 start = g_get_monotonic_time();
	gint64 elapsed;

	g_test_summary("A server that says nothing is a TIMEOUT error in the "
	               "time given");
	f->settings.timeout_seconds = 2;
	sync_server_control_post(&server, "/_switch",
	                         "{\"stall_next\": 1, \"stall_seconds\": 8}");
	subscriptions =
	        bridge_gpodder_download_subscriptions(&f->settings, 0, &error);
	elapsed = g_get_monotonic_time() - start;
	g_assert_null(subscriptions);
	g_assert_error(error, BRIDGE_GPODDER_ERROR,
	               BRIDGE_GPODDER_ERROR_TIMEOUT);
	g_test_message("%s", error->message);
	g_assert_cmpint(elapsed, <, 5 * G_USEC_PER_SEC);
}

static void
test_closed(Fixture *f, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(BridgeGpodderUploaded) uploaded = NULL;
	g_autoptr(GPtrArray) sent = make_actions(45, 1700000000, 1);
	guint n_sent = 99;

	g_test_summary("A connection closed without an answer is UNREACHABLE, "
	               "and n_sent says nothing was taken");
	sync_server_control_post(
	        &server, "/_switch",
	        "{\"close_next\": 1, \"fault_path\": \"/api/2/episodes\"}");
	uploaded = bridge_gpodder_upload_actions(&f->settings, sent, &n_sent,
	                                         &error);
	g_assert_null(uploaded);
	g_assert_error(error, BRIDGE_GPODDER_ERROR,
	               BRIDGE_GPODDER_ERROR_UNREACHABLE);
	g_test_message("%s", error->message);
	g_assert_cmpuint(n_sent, ==, 0);
	g_clear_error(&error);

	/* Nothing was taken: all of it goes again. */
	uploaded = bridge_gpodder_upload_actions(&f->settings, sent, &n_sent,
	                                         &error);
	g_assert_no_error(error);
	g_assert_cmpuint(n_sent, ==, 45);
}

static void
test_unreachable(Fixture *f, gconstpointer data)
{
	g_autoptr(GSocketListener) listener = g_socket_listener_new();
	g_autoptr(GError) error = NULL;
	g_autoptr(BridgeGpodderSubscriptions) subscriptions = NULL;
	guint16 port;

	g_test_summary("Nothing listening is UNREACHABLE, naming the server");
	port = g_socket_listener_add_any_inet_port(listener, NULL, &error);
	g_assert_no_error(error);
	g_socket_listener_close(listener);
	g_free(f->settings.server);
	f->settings.server = g_strdup_printf("http://127.0.0.1:%u", port);
	subscriptions =
	        bridge_gpodder_download_subscriptions(&f->settings, 0, &error);
	g_assert_null(subscriptions);
	g_assert_error(error, BRIDGE_GPODDER_ERROR,
	               BRIDGE_GPODDER_ERROR_UNREACHABLE);
	g_test_message("%s", error->message);
	g_assert_nonnull(strstr(error->message, f->settings.server));
}

static void
test_login_flow(Fixture *f, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(BridgeGpodderLogin) login = NULL;
	g_autoptr(BridgeGpodderCredentials) credentials = NULL;
	g_autoptr(JsonNode) approved = NULL;
	g_autoptr(BridgeGpodderSubscriptions) subscriptions = NULL;

	g_test_summary("Login Flow v2: start, poll while pending, approve, "
	               "poll for an app password that works");
	g_clear_pointer(&f->settings.user, g_free);
	g_clear_pointer(&f->settings.password, g_free);
	login = bridge_gpodder_login_start(&f->settings, &error);
	g_assert_no_error(error);
	g_assert_true(g_str_has_prefix(login->login_url, server.base));
	g_assert_true(g_str_has_prefix(login->poll_endpoint, server.base));
	g_assert_cmpstr(login->token, !=, "");

	g_assert_true(bridge_gpodder_login_poll(&f->settings, login,
	                                        &credentials, &error));
	g_assert_no_error(error);
	g_assert_null(credentials);

	approved = sync_server_control(&server, "/_approve",
	                               "{\"user\": \"user\"}");
	g_assert_true(bridge_gpodder_login_poll(&f->settings, login,
	                                        &credentials, &error));
	g_assert_no_error(error);
	g_assert_nonnull(credentials);
	g_assert_cmpstr(credentials->login_name, ==, "user");
	g_assert_cmpstr(credentials->app_password, ==,
	                json_object_get_string_member(
	                        json_node_get_object(approved), "appPassword"));
	g_assert_cmpstr(credentials->server, ==, server.base);

	f->settings.user = g_strdup(credentials->login_name);
	f->settings.password = g_strdup(credentials->app_password);
	subscriptions =
	        bridge_gpodder_download_subscriptions(&f->settings, 0, &error);
	g_assert_no_error(error);
	g_assert_nonnull(subscriptions);
}

static void
test_time(void)
{
	gint64 seconds = 0;
	g_autofree char *text = bridge_gpodder_format_time(1260608400);

	g_test_summary("Times go as UTC with no zone, and are read naive, "
	               "with Z or with an offset");
	g_assert_cmpstr(text, ==, "2009-12-12T09:00:00");
	g_assert_true(
	        bridge_gpodder_parse_time("2009-12-12T09:00:00", &seconds));
	g_assert_cmpint(seconds, ==, 1260608400);
	g_assert_true(
	        bridge_gpodder_parse_time("2009-12-12T09:00:00Z", &seconds));
	g_assert_cmpint(seconds, ==, 1260608400);
	g_assert_true(bridge_gpodder_parse_time("2009-12-12T09:00:00+00:00",
	                                        &seconds));
	g_assert_cmpint(seconds, ==, 1260608400);
	g_assert_true(bridge_gpodder_parse_time("2009-12-12T10:00:00+01:00",
	                                        &seconds));
	g_assert_cmpint(seconds, ==, 1260608400);
	g_assert_true(
	        bridge_gpodder_parse_time("2009-12-12T09:00:00.25Z", &seconds));
	g_assert_cmpint(seconds, ==, 1260608400);
	g_assert_false(bridge_gpodder_parse_time("yesterday", &seconds));
	g_assert_false(bridge_gpodder_parse_time("", &seconds));
}

static void
test_bad_answers(void)
{
	static const struct {
		const char *json;
		const char *field;
	} cases[] = {
		{ "[]", "top level" },
		{ "{\"actions\": []}", "timestamp" },
		{ "{\"timestamp\": 1}", "actions" },
		{ "{\"timestamp\": 1, \"actions\": [7]}", "actions[0]" },
		{ "{\"timestamp\": 1, \"actions\": [{\"podcast\": \"p\", "
		  "\"episode\": \"e\", \"action\": \"play\", "
		  "\"timestamp\": \"soon\"}]}",
		  "actions[0].timestamp" },
		{ "{\"timestamp\": 1, \"actions\": [{\"podcast\": \"p\", "
		  "\"action\": \"play\", \"timestamp\": 5}]}",
		  "actions[0].episode" },
		{ "{\"timestamp\": 1, \"actions\": [{\"podcast\": \"p\", "
		  "\"episode\": \"e\", \"action\": \"play\", "
		  "\"timestamp\": 5, \"position\": \"12\"}]}",
		  "actions[0].position" },
		{ "not json", "not JSON" },
	};

	g_test_summary("An answer of the wrong shape is BAD_ANSWER naming the "
	               "field; an action of another kind is left out");
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		gint64 timestamp;
		GPtrArray *actions = bridge_gpodder_actions_from_json(
		        cases[i].json, strlen(cases[i].json), &timestamp,
		        &error);

		g_assert_null(actions);
		g_assert_error(error, BRIDGE_GPODDER_ERROR,
		               BRIDGE_GPODDER_ERROR_BAD_ANSWER);
		g_test_message("%s", error->message);
		g_assert_nonnull(strstr(error->message, cases[i].field));
	}
	{
		static const char flattr[] =
		        "{\"timestamp\": 9, \"actions\": [{\"podcast\": \"p\", "
		        "\"episode\": \"e\", \"action\": \"flattr\", "
		        "\"timestamp\": 5}, {\"podcast\": \"p\", \"episode\": "
		        "\"e\", \"action\": \"Delete\", \"timestamp\": 6}]}";
		g_autoptr(GError) error = NULL;
		gint64 timestamp = 0;
		g_autoptr(GPtrArray) actions = bridge_gpodder_actions_from_json(
		        flattr, strlen(flattr), &timestamp, &error);
		BridgeGpodderAction *action;

		g_assert_no_error(error);
		g_assert_cmpint(timestamp, ==, 9);
		g_assert_cmpuint(actions->len, ==, 1);
		action = g_ptr_array_index(actions, 0);
		g_assert_cmpint(action->action, ==,
		                BRIDGE_GPODDER_ACTION_DELETE);
		g_assert_cmpint(action->position, ==, -1);
	}
}

static void
add_test(const char *path, const BridgeGpodderKind *kind,
         void (*test)(Fixture *, gconstpointer))
{
	g_test_add(path, Fixture, kind, fixture_set_up, test,
	           fixture_tear_down);
}

int
main(int argc, char **argv)
{
	int status;

	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	curl_global_init(CURL_GLOBAL_ALL);
	g_test_add_func("/gpodder/time", test_time);
	g_test_add_func("/gpodder/bad-answers", test_bad_answers);
	add_test("/gpodder/gpodder/device", &gpodder, test_device);
	add_test("/gpodder/gpodder/subscriptions", &gpodder,
	         test_subscriptions);
	add_test("/gpodder/nextcloud/subscriptions", &nextcloud,
	         test_subscriptions);
	add_test("/gpodder/gpodder/conflict", &gpodder, test_conflict);
	add_test("/gpodder/gpodder/actions/paging", &gpodder,
	         test_actions_paging);
	add_test("/gpodder/gpodder/actions/same-time", &gpodder,
	         test_actions_same_time);
	add_test("/gpodder/gpodder/actions/kinds", &gpodder,
	         test_actions_kinds);
	add_test("/gpodder/nextcloud/actions", &nextcloud,
	         test_nextcloud_actions);
	add_test("/gpodder/gpodder/auth", &gpodder, test_auth);
	add_test("/gpodder/nextcloud/auth", &nextcloud, test_auth);
	add_test("/gpodder/fault/server-error", &gpodder, test_server_error);
	add_test("/gpodder/fault/stall", &nextcloud, test_stall);
	add_test("/gpodder/fault/closed", &gpodder, test_closed);
	add_test("/gpodder/fault/unreachable", &gpodder, test_unreachable);
	add_test("/gpodder/nextcloud/login-flow", &nextcloud, test_login_flow);
	sync_server_start(
	        &server, (const char *const[]){ "user:" PASSWORD,
	                                        "other:other-password", NULL });
	status = g_test_run();
	sync_server_stop(&server);
	curl_global_cleanup();
	return status;
}
