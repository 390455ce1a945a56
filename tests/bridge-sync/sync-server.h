/*
 * tests/support/gpodder-server.py for the C tests of syncing: started on
 * loopback for the program's run, and asked through its control paths.
 */
#ifndef TEST_SYNC_SERVER_H
#define TEST_SYNC_SERVER_H

#include <gio/gio.h>
#include <json-glib/json-glib.h>

typedef struct {
	GSubprocess *process;
	char *base; /* http://127.0.0.1:PORT */
} SyncServer;

/* Starts the server ($GPODDER_TEST_SERVER) with @users, "NAME:PASSWORD". */
void
sync_server_start(SyncServer *server, const char *const *users);

void
sync_server_stop(SyncServer *server);

/* A control request: POST @body (JSON), or GET when NULL; the answer. */
JsonNode *
sync_server_control(const SyncServer *server, const char *path,
                    const char *body);

/* The same, the answer dropped. */
void
sync_server_control_post(const SyncServer *server, const char *path,
                         const char *body);

#endif
