/*
 * tests/support/gpodder-server.py for the C tests of syncing (see
 * sync-server.h).
 */
#include "sync-server.h"

#include <curl/curl.h>

void
sync_server_start(SyncServer *server, const char *const *users)
{
	const char *script = g_getenv("GPODDER_TEST_SERVER");
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	g_autoptr(GDataInputStream) out = NULL;
	g_autofree char *line = NULL;

	g_assert_nonnull(script);
	g_ptr_array_add(argv, (char *)"python3");
	g_ptr_array_add(argv, (char *)script);
	for (guint i = 0; users[i] != NULL; i++) {
		g_ptr_array_add(argv, (char *)"--user");
		g_ptr_array_add(argv, (char *)users[i]);
	}
	g_ptr_array_add(argv, NULL);
	server->process = g_subprocess_newv(
	        (const char *const *)argv->pdata,
	        G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
	        &error);
	g_assert_no_error(error);
	out = g_data_input_stream_new(
	        g_subprocess_get_stdout_pipe(server->process));
	line = g_data_input_stream_read_line(out, NULL, NULL, &error);
	g_assert_no_error(error);
	g_assert_nonnull(line);
	server->base = g_strdup_printf("http://127.0.0.1:%s", g_strstrip(line));
}

void
sync_server_stop(SyncServer *server)
{
	/* The server leaves when its standard input closes. */
	g_output_stream_close(g_subprocess_get_stdin_pipe(server->process),
	                      NULL, NULL);
	g_subprocess_wait(server->process, NULL, NULL);
	g_clear_object(&server->process);
	g_clear_pointer(&server->base, g_free);
}

static size_t
collect(char *data, size_t size, size_t n, void *user_data)
{
	g_string_append_len(user_data, data, (gssize)(size * n));
	return size * n;
}

JsonNode *
sync_server_control(const SyncServer *server, const char *path,
                    const char *body)
{
	g_autofree char *url = g_strconcat(server->base, path, NULL);
	g_autoptr(GString) answer = g_string_new(NULL);
	g_autoptr(JsonParser) parser = json_parser_new();
	g_autoptr(GError) error = NULL;
	CURL *easy = curl_easy_init();
	long status = 0;

	curl_easy_setopt(easy, CURLOPT_URL, url);
	curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(easy, CURLOPT_WRITEDATA, answer);
	if (body != NULL)
		curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body);
	g_assert_cmpint(curl_easy_perform(easy), ==, CURLE_OK);
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(easy);
	g_assert_cmpint(status, ==, 200);
	json_parser_load_from_data(parser, answer->str, -1, &error);
	g_assert_no_error(error);
	return json_node_copy(json_parser_get_root(parser));
}

void
sync_server_control_post(const SyncServer *server, const char *path,
                         const char *body)
{
	g_autoptr(JsonNode) answer = sync_server_control(server, path, body);
}
