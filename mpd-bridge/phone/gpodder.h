/*
 * A client of the servers that podcast apps on phones sync with:
 * gpodder.net's API v2 (mygpo, opodsync and others) and Nextcloud's
 * gpoddersync app, as [sync] kind says. Subscriptions and episode actions
 * both ways, device registration, and Nextcloud's Login Flow v2 for an
 * app password.
 *
 * Each function blocks, with HTTP Basic authentication on every request
 * and a timeout on each, so that it can run on a worker thread: it reads
 * only the settings it is given (pass a copy) and touches no Bridge or
 * shared state, once main() has called curl_global_init(). Errors are in
 * the BRIDGE_GPODDER_ERROR domain; their messages name the server and
 * never hold the password.
 *
 * Times are Unix seconds (UTC). A "since" value is what the server
 * answered last time, 0 for everything.
 */
#ifndef BRIDGE_GPODDER_H
#define BRIDGE_GPODDER_H

#include "core/config.h"

#define BRIDGE_GPODDER_ERROR (bridge_gpodder_error_quark())

typedef enum {
	BRIDGE_GPODDER_ERROR_UNREACHABLE, /* no connection, or the transfer
	                                     failed */
	BRIDGE_GPODDER_ERROR_TIMEOUT,     /* no whole answer in time */
	BRIDGE_GPODDER_ERROR_HTTP,        /* an HTTP status other than 2xx,
	                                     401 and 403: see
	                                     bridge_gpodder_error_get_status() */
	BRIDGE_GPODDER_ERROR_AUTH,        /* 401 or 403: user or password */
	BRIDGE_GPODDER_ERROR_BAD_ANSWER,  /* not JSON, or not of the API's
	                                     shape; the message names the
	                                     field */
	BRIDGE_GPODDER_ERROR_TOO_LARGE,   /* an answer past the size cap */
	BRIDGE_GPODDER_ERROR_INVALID,     /* a request this client refuses
	                                     to send */
} BridgeGpodderError;

GQuark
bridge_gpodder_error_quark(void);

/*
 * The HTTP status of a BRIDGE_GPODDER_ERROR_HTTP or _AUTH error, e.g. to
 * back off longer on 429 or 5xx; 0 for other errors.
 */
long
bridge_gpodder_error_get_status(const GError *error);

/* What an episode action says happened. */
typedef enum {
	BRIDGE_GPODDER_ACTION_NEW,      /* "new": marked new */
	BRIDGE_GPODDER_ACTION_DOWNLOAD, /* "download" */
	BRIDGE_GPODDER_ACTION_PLAY,     /* "play": with a position */
	BRIDGE_GPODDER_ACTION_DELETE,   /* "delete": the file removed */
} BridgeGpodderActionKind;

/* An episode action, as the API carries it. */
typedef struct {
	char *podcast;                  /* the feed URL as subscribed */
	char *episode;                  /* the enclosure URL as the feed
	                                   gives it */
	char *guid;                     /* the feed's raw guid; NULL for
	                                   none */
	BridgeGpodderActionKind action; /* play, new, download or delete */
	gint64 timestamp;               /* when, Unix seconds UTC */
	gint64 started;                 /* play: seconds; -1 when absent */
	gint64 position;                /* play: seconds; -1 when absent */
	gint64 total;                   /* play: seconds; -1 when absent */
	char *device;                   /* the device id that did it; NULL
	                                   when unknown (on upload: this
	                                   device) */
} BridgeGpodderAction;

/* The changes to the subscriptions since a time. */
typedef struct {
	GPtrArray *add;    /* of char *: feed URLs subscribed to */
	GPtrArray *remove; /* of char *: feed URLs unsubscribed from */
	gint64 timestamp;  /* the since value for next time */
} BridgeGpodderSubscriptions;

/* A URL the server rewrote (mygpo cleans feed URLs up). */
typedef struct {
	char *old_url; /* as sent */
	char *new_url; /* as the server keeps it: use it from now on */
} BridgeGpodderUrlUpdate;

/* What the server answered an upload. */
typedef struct {
	gint64 timestamp;       /* the server's time of the change */
	GPtrArray *update_urls; /* of BridgeGpodderUrlUpdate; empty for
	                           none, and always from Nextcloud */
} BridgeGpodderUploaded;

/* A Nextcloud Login Flow v2 that was started. */
typedef struct {
	char *login_url;     /* for the user to open in a browser */
	char *poll_endpoint; /* where to ask for the result */
	char *token;         /* what to ask it with; secret */
} BridgeGpodderLogin;

/* What an approved Login Flow v2 gives. */
typedef struct {
	char *server;       /* the Nextcloud's URL, as it says */
	char *login_name;   /* for [sync] user */
	char *app_password; /* for [sync] password_file; secret */
} BridgeGpodderCredentials;

BridgeGpodderSettings *
bridge_gpodder_settings_copy(const BridgeGpodderSettings *settings);

/* Frees @settings, and wipes the password first. */
void
bridge_gpodder_settings_free(BridgeGpodderSettings *settings);

/* A new action with @podcast and @episode, no guid, times unset (-1). */
BridgeGpodderAction *
bridge_gpodder_action_new(const char *podcast, const char *episode,
                          BridgeGpodderActionKind action, gint64 timestamp);

BridgeGpodderAction *
bridge_gpodder_action_copy(const BridgeGpodderAction *action);

void
bridge_gpodder_action_free(BridgeGpodderAction *action);

/* "play", "new", "download" or "delete". */
const char *
bridge_gpodder_action_kind_to_string(BridgeGpodderActionKind action);

/* Reads @text in any case; FALSE when it is none of the four. */
gboolean
bridge_gpodder_action_kind_from_string(const char *text,
                                       BridgeGpodderActionKind *action);

void
bridge_gpodder_subscriptions_free(BridgeGpodderSubscriptions *subscriptions);

void
bridge_gpodder_url_update_free(BridgeGpodderUrlUpdate *update);

void
bridge_gpodder_uploaded_free(BridgeGpodderUploaded *uploaded);

void
bridge_gpodder_login_free(BridgeGpodderLogin *login);

/* Frees @credentials, and wipes the app password first. */
void
bridge_gpodder_credentials_free(BridgeGpodderCredentials *credentials);

/* @seconds as the API wants it: "YYYY-MM-DDTHH:MM:SS", UTC, no zone. */
char *
bridge_gpodder_format_time(gint64 seconds);

/*
 * Reads an ISO 8601 time as servers send it: naive (taken as UTC), with
 * "Z", or with an offset such as "+00:00". FALSE when @text is none.
 */
gboolean
bridge_gpodder_parse_time(const char *text, gint64 *seconds);

/*
 * gpodder family: makes @settings' device known to the server (type
 * "server", caption "mpd-bridge on HOSTNAME"), or updates it. Nextcloud
 * has no devices: returns TRUE without asking. FALSE with @error set.
 */
gboolean
bridge_gpodder_register_device(const BridgeGpodderSettings *settings,
                               GError **error);

/*
 * The feeds subscribed to and unsubscribed from since @since, on any
 * device of the account (gpodder: as seen by @settings' device). Returns
 * a new BridgeGpodderSubscriptions, or NULL with @error set.
 */
BridgeGpodderSubscriptions *
bridge_gpodder_download_subscriptions(const BridgeGpodderSettings *settings,
                                      gint64 since, GError **error);

/*
 * Tells the server of feeds subscribed to (@add) and unsubscribed from
 * (@remove), each NULL-terminated and nullable. A URL in both is refused
 * with BRIDGE_GPODDER_ERROR_INVALID before anything is sent (the servers
 * answer 400). Returns a new BridgeGpodderUploaded, or NULL with @error
 * set.
 */
BridgeGpodderUploaded *
bridge_gpodder_upload_subscriptions(const BridgeGpodderSettings *settings,
                                    const char *const *add,
                                    const char *const *remove, GError **error);

/*
 * Uploads @actions (of BridgeGpodderAction) in POSTs of at most 30 actions,
 * as AntennaPod does; an action without a device goes as @settings'
 * device. On failure, @n_sent (nullable) says how many of the first
 * actions the server took: the rest should go again later. Returns a new
 * BridgeGpodderUploaded (the last timestamp; all URL updates), or NULL
 * with @error set. An empty @actions sends nothing, and the timestamp is
 * then 0.
 */
BridgeGpodderUploaded *
bridge_gpodder_upload_actions(const BridgeGpodderSettings *settings,
                              GPtrArray *actions, guint *n_sent,
                              GError **error);

/*
 * Downloads the episode actions since @since, asking again from the
 * answer's timestamp until caught up: mygpo answers at most 1,000 at a
 * time. Stops when an answer brings no action not seen yet, or its
 * timestamp does not move on; an action answered twice (mygpo's since is
 * inclusive) is kept once. Actions of a kind other than the four are left
 * out. Returns a new array of BridgeGpodderAction, oldest first as the
 * server gave them, and sets @new_since to the since value for next time;
 * or NULL with @error set.
 */
GPtrArray *
bridge_gpodder_download_actions(const BridgeGpodderSettings *settings,
                                gint64 since, gint64 *new_since,
                                GError **error);

/*
 * Starts a Nextcloud Login Flow v2 on @settings' server (only server and
 * insecure are used). The user opens the login URL; then poll. Returns a
 * new BridgeGpodderLogin, or NULL with @error set.
 */
BridgeGpodderLogin *
bridge_gpodder_login_start(const BridgeGpodderSettings *settings,
                           GError **error);

/*
 * Asks once whether the user has approved @login. TRUE with @credentials
 * set to new credentials when approved, TRUE with @credentials NULL when
 * not yet (poll again a few seconds later; Nextcloud forgets a flow after
 * 20 minutes, which looks the same); FALSE with @error set.
 */
gboolean
bridge_gpodder_login_poll(const BridgeGpodderSettings *settings,
                          const BridgeGpodderLogin *login,
                          BridgeGpodderCredentials **credentials,
                          GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(BridgeGpodderSettings,
                              bridge_gpodder_settings_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(BridgeGpodderAction, bridge_gpodder_action_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(BridgeGpodderSubscriptions,
                              bridge_gpodder_subscriptions_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(BridgeGpodderUploaded,
                              bridge_gpodder_uploaded_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(BridgeGpodderLogin, bridge_gpodder_login_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(BridgeGpodderCredentials,
                              bridge_gpodder_credentials_free)

/*
 * @actions (of BridgeGpodderAction) as a JSON array, to keep them aside
 * (phone-sync.c keeps those it cannot apply yet in the state file); an
 * unknown device is written as "". Read back by
 * bridge_gpodder_actions_load(), which answers NULL with @error set when
 * @text is not such an array.
 */
char *
bridge_gpodder_actions_save(GPtrArray *actions);

GPtrArray *
bridge_gpodder_actions_load(const char *text, GError **error);

#endif
