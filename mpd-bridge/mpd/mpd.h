/*
 * The connection to MPD: the only module that calls libmpdclient (mpd.c,
 * the daemon's connection; mpd-queue.c, mpd-player.c, mpd-playlists.c,
 * mpd-database.c and mpd-messages.c, its requests to each of MPD's
 * subsystems; mpd-request.c, the command line's round trip;
 * mpd-protocol.c, what they share). It connects as mpc does, sits in idle
 * mode with MPD's socket watched by the GLib main loop, and reconnects
 * with back-off when MPD goes away.
 *
 * Everything here runs on the thread of the default GMainContext, except
 * bridge_mpd_request(), bridge_mpd_safe_playlist_name() and the address
 * functions, which touch no shared state.
 *
 * Errors are in the G_IO_ERROR domain. A command that MPD refuses (an
 * "ACK") reports MPD's own message and leaves the connection usable:
 * G_IO_ERROR_NOT_FOUND for MPD's "No such ..." and "nobody is subscribed",
 * G_IO_ERROR_INVALID_ARGUMENT, G_IO_ERROR_PERMISSION_DENIED,
 * G_IO_ERROR_EXISTS, else G_IO_ERROR_FAILED. A command while MPD is away
 * fails with G_IO_ERROR_NOT_CONNECTED; one that loses the connection with
 * G_IO_ERROR_CONNECTION_CLOSED or G_IO_ERROR_TIMED_OUT, and then the
 * connection is dropped and reconnection starts.
 *
 * libmpdclient writes without MSG_NOSIGNAL, so writing to an MPD that has
 * just gone away raises SIGPIPE: bridge_mpd_new() and bridge_mpd_request()
 * set SIGPIPE to be ignored if it still has its default action (which
 * would kill the process).
 */
#ifndef BRIDGE_MPD_H
#define BRIDGE_MPD_H

#include <glib.h>

typedef struct BridgeMpd BridgeMpd;

/* Where MPD is: from MPD_HOST/MPD_PORT as mpc reads them, or the config. */
typedef struct {
	char *host;       /* a host name, an address, a Unix socket path or
	                     "@name" for a Linux abstract socket; NULL means
	                     libmpdclient's default (which reads MPD_HOST) */
	guint port;       /* TCP port; 0 means libmpdclient's default */
	char *password;   /* sent with "password"; NULL for none */
	guint timeout_ms; /* for connecting and for each command; 0: 30 s */
} BridgeMpdAddress;

/*
 * Sets host, port and password of @address, which must hold none (zero it
 * first), from the environment as mpc reads it: MPD_HOST is "host",
 * "password@host", "/socket/path", "password@/socket/path" or "@abstract"
 * (a leading '@' is an abstract socket, not an empty password); MPD_PORT is
 * a number from 1 to 65535. Unset, empty or invalid values leave NULL or 0.
 * timeout_ms is left alone. A host that itself contains '@' after the
 * password cannot be expressed (libmpdclient splits it too).
 */
void
bridge_mpd_address_from_env(BridgeMpdAddress *address);

/* Frees the strings of @address and zeroes it; NULL does nothing. */
void
bridge_mpd_address_clear(BridgeMpdAddress *address);

/*
 * Tags a queued stream gets with addtagid. NULL or empty fields are left
 * out. Control characters in the values become spaces, and invalid UTF-8
 * is repaired.
 */
typedef struct {
	const char *title;
	const char *album;
	const char *artist;
	const char *date;  /* YYYY-MM-DD */
	const char *track; /* the episode number */
	const char *genre; /* "Podcast" */
} BridgeTags;

/* A message that arrived on the bridge's channel; @text is borrowed. */
typedef void (*BridgeMpdMessageFunc)(const char *text, gpointer user_data);

/*
 * MPD came (TRUE, after each connection, subscribed and ready for
 * commands) or went (FALSE, once after each TRUE).
 */
typedef void (*BridgeMpdStateFunc)(gboolean connected, gpointer user_data);

/*
 * MPD reported idle events (a mask of enum mpd_idle: MPD_IDLE_PLAYER,
 * MPD_IDLE_QUEUE, MPD_IDLE_STORED_PLAYLIST, MPD_IDLE_OPTIONS or
 * MPD_IDLE_MESSAGE); for the
 * listening tracker of a later issue. Our own commands cause events too.
 */
typedef void (*BridgeMpdIdleFunc)(unsigned events, gpointer user_data);

/*
 * A connection for the daemon: connects from the main loop, sends the
 * password, subscribes to @channel (when not NULL; MPD allows letters,
 * digits and "-_.:" in channel names), and keeps reconnecting while MPD is
 * away (after 100 ms, doubling up to 60 s); it does not wake up while
 * connected and idle. Never blocks the loop longer than one command's
 * timeout. Logs connections with g_message() and a lost connection with
 * g_warning().
 * Returns a new object; nothing happens until bridge_mpd_start().
 */
BridgeMpd *
bridge_mpd_new(const BridgeMpdAddress *address, const char *channel);

/*
 * Handlers (each may be NULL) run from the main loop, never from inside
 * another bridge_mpd_*() call. They may call the commands below; they must
 * not free @mpd.
 */
void
bridge_mpd_set_handlers(BridgeMpd *mpd, BridgeMpdStateFunc on_state,
                        BridgeMpdMessageFunc on_message,
                        BridgeMpdIdleFunc on_idle, gpointer user_data);

/* Starts connecting; handlers run from the main loop from then on. */
void
bridge_mpd_start(BridgeMpd *mpd);

/* Closes the connection and removes its sources; NULL does nothing. */
void
bridge_mpd_free(BridgeMpd *mpd);

/* TRUE between on_state(TRUE) and the loss of the connection. */
gboolean
bridge_mpd_is_connected(const BridgeMpd *mpd);

/*
 * Whether MPD's protocol version, as its greeting gave it, is at least
 * @major.@minor (MPD 0.23.12 says 0.23.5, MPD 0.24.4 says 0.24.0). FALSE
 * while not connected. Where MPD 0.23 and 0.24 differ for the bridge:
 * docs/mpd-versions.md.
 */
gboolean
bridge_mpd_protocol_at_least(const BridgeMpd *mpd, guint major, guint minor);

/*
 * Makes the stored playlist @name hold exactly @uris, in order: one command
 * list deletes it (when listplaylists shows it) and adds each URI with
 * playlistadd, so other clients never see it half made. Very long lists go
 * in several command lists of at most 512 KiB. Empty @uris (n_uris 0)
 * leaves no playlist @name: MPD stores no empty playlist without "save",
 * which would save the queue. If MPD refuses a URI, the playlist holds
 * the ones before it and @error says which. Names are used as given: make
 * them safe first with bridge_mpd_safe_playlist_name().
 */
gboolean
bridge_mpd_replace_playlist(BridgeMpd *mpd, const char *name,
                            const char *const *uris, guint n_uris,
                            GError **error);

/* Deletes the stored playlist @name; TRUE also when there was none. */
gboolean
bridge_mpd_delete_playlist(BridgeMpd *mpd, const char *name, GError **error);

/*
 * Appends @uri to the queue with @tags (may be NULL): addid, then one
 * command list of cleartagid and addtagid for each tag. Returns the song
 * id (MPD's ids start at 1), or 0 with @error set; a song whose tags MPD
 * refused is deleted again.
 */
guint
bridge_mpd_queue(BridgeMpd *mpd, const char *uri, const BridgeTags *tags,
                 GError **error);

/*
 * Sets @tags on the queued song @id (cleartagid of each, then addtagid of
 * those @tags has): MPD replaces a stream's tags with the stream's own
 * when it starts playing.
 */
gboolean
bridge_mpd_retag(BridgeMpd *mpd, guint id, const BridgeTags *tags,
                 GError **error);

/*
 * Sets @tags[i] on the queued song @ids[i], for each of the @n: as
 * bridge_mpd_retag(), in as few command lists as MPD takes.
 */
gboolean
bridge_mpd_retag_many(BridgeMpd *mpd, const guint *ids, const BridgeTags *tags,
                      guint n, GError **error);

/*
 * @tags as MPD keeps them once set: comparable with a queued song's
 * tags_key (a new string). Equal keys mean retagging would change nothing.
 */
char *
bridge_mpd_tags_key(const BridgeTags *tags);

/* A song in MPD's queue, as bridge_mpd_queue_changes() reports it. */
typedef struct {
	guint id;       /* its queue id */
	guint pos;      /* its place in the queue, from 0 */
	char *uri;      /* what MPD plays */
	char *tags_key; /* its tags, as bridge_mpd_tags_key() makes them */
} BridgeQueueSong;

void
bridge_queue_song_free(BridgeQueueSong *song);

/*
 * The songs of MPD's queue that changed since the queue's version
 * @since (0: every song), and the version now (*@version). *@songs is a
 * new array of BridgeQueueSong. A version above MPD's (after MPD
 * restarted) counts as 0.
 */
gboolean
bridge_mpd_queue_changes(BridgeMpd *mpd, guint since, guint *version,
                         GPtrArray **songs, GError **error);

/*
 * Puts @uri in the place of the song @id that plays, at @ms into it:
 * addid after it, tagged with @tags when not NULL (a stream), seekid
 * there (paused again when @paused), then deleteid. Returns the new
 * song's id, or 0 with @error set.
 */
guint
bridge_mpd_swap_current(BridgeMpd *mpd, guint id, guint pos, const char *uri,
                        const BridgeTags *tags, gint64 ms, gboolean paused,
                        GError **error);

/*
 * Puts @uri in the place of the queued song @id (addid at its position,
 * then deleteid), tagged with @tags when not NULL (a stream). Returns
 * the new song's id, or 0 with @error set.
 */
guint
bridge_mpd_replace_song(BridgeMpd *mpd, guint id, guint pos, const char *uri,
                        const BridgeTags *tags, GError **error);

/*
 * Asks MPD to read @path (a file or folder of its music directory) into
 * its database again (update); MPD answers at once and reports the end
 * with a "database" event when anything changed.
 */
gboolean
bridge_mpd_update(BridgeMpd *mpd, const char *path, GError **error);

/*
 * The songs of MPD's database under the folder @path (listall): a new
 * set of their URIs, empty when MPD has no such folder.
 */
gboolean
bridge_mpd_list_songs(BridgeMpd *mpd, const char *path, GHashTable **songs,
                      GError **error);

/* Appends the stored playlist @name to the queue (load). */
gboolean
bridge_mpd_load_playlist(BridgeMpd *mpd, const char *name, GError **error);

/* The number of entries of the stored playlist @name (listplaylist). */
gboolean
bridge_mpd_playlist_length(BridgeMpd *mpd, const char *name, guint *length,
                           GError **error);

/*
 * A value that MPD's "config" command gives (MPD answers it only on a
 * local socket; playlist_directory since MPD 0.24), or NULL when MPD
 * gives none.
 */
char *
bridge_mpd_config_value(BridgeMpd *mpd, const char *name);

/*
 * Whether @address is this machine: a Unix socket, localhost or a
 * loopback address (also libmpdclient's default, with no host).
 */
gboolean
bridge_mpd_address_is_local(const BridgeMpdAddress *address);

typedef enum {
	BRIDGE_PLAYER_STOP,
	BRIDGE_PLAYER_PLAY,
	BRIDGE_PLAYER_PAUSE,
} BridgePlayerState;

/* What MPD's player is doing. */
typedef struct {
	BridgePlayerState state;
	guint song_id;     /* 0 when there is no current song */
	guint pos;         /* its place in the queue, from 0 */
	char *uri;         /* of the current song; NULL when none */
	guint elapsed_ms;  /* into the current song */
	guint duration_ms; /* 0 when unknown */
	char *error;       /* MPD's player error ("Decoder failed to seek"),
	                      until a command clears it; NULL when none */
} BridgePlayerStatus;

/* Asks MPD what it plays (status and currentsong). */
gboolean
bridge_mpd_player_status(BridgeMpd *mpd, BridgePlayerStatus *status,
                         GError **error);

void
bridge_player_status_clear(BridgePlayerStatus *status);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(BridgePlayerStatus, bridge_player_status_clear)

/* Plays the queued song @song_id from its start (playid). */
gboolean
bridge_mpd_play_id(BridgeMpd *mpd, guint song_id, GError **error);

/* Seeks the queued song @song_id to @seconds (seekid). */
gboolean
bridge_mpd_seek(BridgeMpd *mpd, guint song_id, guint seconds, GError **error);

/* Seeks the queued song @song_id to @ms milliseconds (seekid). */
gboolean
bridge_mpd_seek_ms(BridgeMpd *mpd, guint song_id, gint64 ms, GError **error);

/* One of MPD's audio outputs, as its "outputs" command lists it. */
typedef struct {
	guint id;
	char *name;
	char *plugin; /* "alsa", "pulse", "null"…; NULL: MPD did not say */
	gboolean enabled;
} BridgeMpdOutput;

void
bridge_mpd_output_free(BridgeMpdOutput *output);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(BridgeMpdOutput, bridge_mpd_output_free)

/*
 * MPD's audio outputs (outputs), in MPD's order. Returns a new array
 * that frees its BridgeMpdOutput items, or NULL with @error set.
 */
GPtrArray *
bridge_mpd_outputs(BridgeMpd *mpd, GError **error);

/* Enables the output @id (enableoutput). */
gboolean
bridge_mpd_enable_output(BridgeMpd *mpd, guint id, GError **error);

/* Disables the output @id (disableoutput). */
gboolean
bridge_mpd_disable_output(BridgeMpd *mpd, guint id, GError **error);

/* Plays the next song of the queue (next); MPD stops after the last. */
gboolean
bridge_mpd_next(BridgeMpd *mpd, GError **error);
/* Pauses playback (pause 1). */
gboolean
bridge_mpd_pause(BridgeMpd *mpd, GError **error);

/* MPD's single mode ("single"; oneshot since MPD 0.21). */
typedef enum {
	BRIDGE_SINGLE_OFF,
	BRIDGE_SINGLE_ON,      /* stops after each song */
	BRIDGE_SINGLE_ONESHOT, /* stops after the current song, then off */
} BridgeSingleMode;

/* Asks MPD for its single mode (status). */
gboolean
bridge_mpd_get_single(BridgeMpd *mpd, BridgeSingleMode *mode, GError **error);

/* Sets MPD's single mode; oneshot needs MPD 0.21. */
gboolean
bridge_mpd_set_single(BridgeMpd *mpd, BridgeSingleMode mode, GError **error);

/* Asks MPD for its volume (status): 0 to 100, or -1 with no mixer. */
gboolean
bridge_mpd_get_volume(BridgeMpd *mpd, int *volume, GError **error);

/* Sets MPD's volume (setvol), 0 to 100. */
gboolean
bridge_mpd_set_volume(BridgeMpd *mpd, guint volume, GError **error);

/*
 * Sends @text (control characters become spaces) to @channel
 * (sendmessage); G_IO_ERROR_NOT_FOUND when nobody is subscribed.
 */
gboolean
bridge_mpd_send_message(BridgeMpd *mpd, const char *channel, const char *text,
                        GError **error);

/*
 * A name MPD accepts for a stored playlist: invalid UTF-8 repaired, '/'
 * becomes '_', control characters become spaces, surrounding spaces are
 * trimmed, a leading '.' becomes '_', at most 200 bytes of UTF-8 (cut on a
 * character boundary), and "unnamed" for what is left empty. Returns a new
 * string.
 */
char *
bridge_mpd_safe_playlist_name(const char *name);

/*
 * For the command line: connects once (blocking, with the address's
 * timeout), sends the password, subscribes to @reply_channel, sends
 * "@REPLY_CHANNEL TEXT" to @channel and waits up to @timeout_ms for one
 * message on @reply_channel, whose text it returns (transfer full). NULL
 * with @error set otherwise: G_IO_ERROR_NOT_FOUND means nobody is
 * subscribed to @channel (no daemon runs), G_IO_ERROR_CONNECTION_REFUSED
 * that MPD could not be reached, G_IO_ERROR_TIMED_OUT that no answer came.
 * Blocks the calling thread; uses no main loop.
 */
char *
bridge_mpd_request(const BridgeMpdAddress *address, const char *channel,
                   const char *text, const char *reply_channel,
                   guint timeout_ms, GError **error);

/*
 * For the command line: connects once (blocking, with the address's
 * timeout), sends the password, and asks what MPD plays, as
 * bridge_mpd_player_status() does. G_IO_ERROR_CONNECTION_REFUSED when MPD
 * could not be reached. Uses no main loop.
 */
gboolean
bridge_mpd_request_player_status(const BridgeMpdAddress *address,
                                 BridgePlayerStatus *status, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(BridgeMpd, bridge_mpd_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(BridgeQueueSong, bridge_queue_song_free)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(BridgeMpdAddress, bridge_mpd_address_clear)

#endif
