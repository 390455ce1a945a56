/*
 * A private MPD for tests: `mpd --no-daemon` with a config, a Unix socket,
 * playlists and state in a temporary directory of its own, and a `null`
 * audio output. Debian's mpd package must be installed; without it
 * private_mpd_new() fails with a message that says so (tests fail, they do
 * not skip).
 */
#ifndef PRIVATE_MPD_H
#define PRIVATE_MPD_H

#include <glib.h>
#include <mpd/client.h>

typedef struct PrivateMpd PrivateMpd;

/* Makes the directory and config, and starts MPD (see private_mpd_start). */
PrivateMpd *
private_mpd_new(GError **error);

/*
 * Starts MPD and waits (up to 5 s) until its socket answers. Starting it
 * again after private_mpd_stop() reuses the socket path and state file.
 */
gboolean
private_mpd_start(PrivateMpd *mpd, GError **error);

/* Ends MPD with SIGTERM and waits for it; does nothing when not running. */
void
private_mpd_stop(PrivateMpd *mpd);

/* The Unix socket path, for MPD_HOST or BridgeMpdAddress.host. */
const char *
private_mpd_get_socket(const PrivateMpd *mpd);

/* The temporary directory, for other files a test needs. */
const char *
private_mpd_get_dir(const PrivateMpd *mpd);

/* A new blocking libmpdclient connection; aborts the test on failure. */
struct mpd_connection *
private_mpd_connect(const PrivateMpd *mpd);

/* Stops MPD and deletes the directory; NULL does nothing. */
void
private_mpd_free(PrivateMpd *mpd);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrivateMpd, private_mpd_free)

#endif
