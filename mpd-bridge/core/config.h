/* The daemon's settings: a GKeyFile where every key is optional. */
#ifndef BRIDGE_CONFIG_H
#define BRIDGE_CONFIG_H

#include "core/rewind.h"
#include "mpd/mpd.h"

#include <glib.h>

/* Where `mpd-bridge search` looks for podcasts ([search]). */
typedef struct {
	char *itunes_url;          /* itunes_url: Apple's iTunes Search API,
	                              "https://itunes.apple.com/search" */
	char *podcastindex_url;    /* podcastindex_url: Podcast Index's search
	                              by term, "https://api.podcastindex.org/
	                              api/1.0/search/byterm" */
	char *podcastindex_key;    /* podcastindex_key: NULL for none; with
	                              the secret, searches go to Podcast Index
	                              instead of iTunes */
	char *podcastindex_secret; /* podcastindex_secret: NULL for none; set
	                              exactly when the key is */
	guint timeout_seconds;     /* timeout: 20 s for a whole search */
} BridgeSearchSettings;

/* Which API a sync server speaks ([sync] kind). */
typedef enum {
	BRIDGE_GPODDER_KIND_GPODDER,   /* gpodder.net's API v2 (mygpo,
	                                  opodsync and others) */
	BRIDGE_GPODDER_KIND_NEXTCLOUD, /* Nextcloud's gpoddersync app */
} BridgeGpodderKind;

/* Whether episode actions may be stamped with the clock ([sync]). */
typedef enum {
	BRIDGE_CLOCK_TRUST_AUTO, /* when the kernel says it is synchronised */
	BRIDGE_CLOCK_TRUST_YES,
	BRIDGE_CLOCK_TRUST_NO,
} BridgeClockTrust;

/*
 * Syncing subscriptions and episode actions with podcast apps on phones
 * through a gpodder-API server ([sync]; see gpodder.h). Parsed and checked
 * here so that a bad value fails at start; phone-sync.c uses them.
 */
typedef struct {
	char *server;           /* server: the base URL, without a trailing
	                           slash, credentials, query or fragment;
	                           NULL: syncing is off (then the other
	                           fields are unset) */
	BridgeGpodderKind kind; /* kind: gpodder or nextcloud; required
	                           with server */
	char *user;             /* user: required with server */
	char *password_file;    /* password_file: absolute path; required
	                           with server */
	char *password;         /* what password_file holds, less a
	                           trailing line break; never logged;
	                           NULL while the file does not exist,
	                           or when loaded with
	                           BRIDGE_CONFIG_NO_SECRETS */
	char *device;           /* device: [A-Za-z0-9_.-]{1,64};
	                           "mpd-bridge-HOSTNAME" */
	guint interval_minutes; /* interval: 10 minutes between syncs */
	gboolean insecure;      /* insecure: false; http:// is refused
	                           unless to a loopback host */
	BridgeClockTrust trust_clock; /* trust_clock: auto */
	guint push_delay_seconds;     /* push_delay: 20 s after a change */
	guint timeout_seconds;        /* not a key: 60 s a request may take */
} BridgeGpodderSettings;

/* Whether MPD streams episodes through the relay ([bridge] relay). */
typedef enum {
	BRIDGE_RELAY_AUTO, /* when MPD is on this machine */
	BRIDGE_RELAY_YES,  /* whatever the address of MPD says */
	BRIDGE_RELAY_NO,
} BridgeRelayMode;

/* The relay between MPD and the hosts ([bridge] relay…; relay/relay.h). */
typedef struct {
	BridgeRelayMode mode; /* relay: auto */
	guint port;           /* relay_port: 0, the port of the last run
	                         when it is free, else any */
	guint give_up;        /* relay_give_up: 600 s a host may fail in a
	                         row before what MPD streams from it ends */
} BridgeRelaySettings;

/* Episodes kept on disk ([bridge] download…; see downloads.h). */
typedef struct {
	guint episodes;    /* download: 0 newest episodes of a podcast;
	                      `set FEED download N` overrides it */
	gboolean later;    /* download_later: false; also play-later's */
	char *directory;   /* download_directory: absolute, inside MPD's
	                      music directory; NULL: "podcasts" there */
	guint keep_days;   /* download_keep_days: 7 days a listened
	                      episode's file is kept */
	guint budget_mb;   /* download_budget: 0 (none) MB all files may
	                      take */
	guint min_free_mb; /* download_min_free: 1024 MB left free on the
	                      disk */
	guint jobs;        /* download_jobs: 2 transfers at once */
	guint per_host;    /* download_per_host: 1 transfer to a host */
	guint max_size_mb; /* download_max_size: 2048 MB a file may be */
} BridgeDownloadSettings;

typedef struct {
	BridgeMpdAddress mpd;     /* [mpd] host, port, password, timeout */
	char *channel;            /* [bridge] channel: "mpd-bridge" */
	char *playlist_prefix;    /* [bridge] playlist_prefix: "Podcast: " */
	char *new_playlist;       /* [bridge] new_playlist: "Podcasts: New";
	                             "" for none */
	char *later_playlist;     /* [bridge] later_playlist:
	                             "Podcasts: Play later"; "" for none */
	char *continue_playlist;  /* [bridge] continue_playlist:
	                             "Podcasts: Continue"; "" for none */
	char *starred_playlist;   /* [bridge] starred_playlist:
	                             "Podcasts: Starred"; "" for none */
	char *list_prefix;        /* [bridge] list_prefix: "Podcast list: " */
	char *music_directory;    /* [bridge] music_directory: NULL for none */
	char *playlist_directory; /* [bridge] playlist_directory: where MPD
	                             reads playlists; NULL: from MPD's own
	                             configuration, when MPD is local */
	guint refresh_minutes;    /* [bridge] refresh_interval: 60 */
	guint keep;               /* [bridge] keep: 100 episodes a playlist */
	guint new_limit;          /* [bridge] new_limit: 100 */
	guint continue_limit;     /* [bridge] continue_limit: 100 */
	gboolean auto_queue;      /* [bridge] auto_queue: false */
	guint jobs;               /* [bridge] jobs: 8 feeds fetched at once */
	guint fetch_timeout;      /* [bridge] fetch_timeout: 120 seconds a
	                             fetch may take, all in all */
	gboolean fetch_chapters;  /* [bridge] fetch_chapters: true; whether
	                             episodes' JSON chapters are fetched */
	gboolean chapter_titles;  /* [bridge] chapter_titles: true; the
	                             chapter in the title of a stream that
	                             plays */
	guint retention_days;     /* [bridge] retention: 180 days that the state
	                             of an episode gone from its feed is kept */
	guint sleep_fade_seconds; /* [bridge] sleep_fade: 10 s of fading the
	                             volume before the sleep timer pauses;
	                             0 for none */
	guint alarm_fade_seconds; /* [bridge] alarm_fade: 60 s of raising the
	                             volume after an alarm starts playing;
	                             0 for none */
	guint speed;              /* [bridge] speed: 1 (100); playback speed of
	                             podcasts without their own, in
	                             hundredths (listening/speed.c) */
	guint listened_percent;   /* [listening] tail_percent: 5 */
	guint listened_seconds;   /* [listening] tail_seconds: 60 */
	BridgeRewind rewind;      /* [listening] rewind_after_pause:
	                             "1m:3 1h:10 1d:20" */
	char *config_path;        /* where the settings came from, or would */
	char *state_path;         /* [bridge] state_file: XDG_STATE_HOME/... */
	char *cache_directory;    /* [bridge] cache_directory: what can be
	                             fetched again (feed bodies, the last
	                             search); XDG_CACHE_HOME/mpd-bridge */
	BridgeDownloadSettings download; /* [bridge] download… */
	BridgeRelaySettings relay;       /* [bridge] relay… */
	BridgeSearchSettings search;     /* [search] */
	BridgeGpodderSettings gpodder;   /* [sync] */
} BridgeConfig;

/*
 * Reads the settings from @path, or from
 * $XDG_CONFIG_HOME/mpd-bridge/config when NULL. A missing file gives the
 * defaults; MPD_HOST and MPD_PORT apply unless [mpd] says otherwise. A
 * file that does not parse, or a key with a bad value, is an error that
 * names the file, the key and what it should be.
 */
BridgeConfig *
bridge_config_load(const char *path, GError **error);

/* How bridge_config_load_full() reads the settings. */
typedef enum {
	BRIDGE_CONFIG_NONE = 0,
	BRIDGE_CONFIG_NO_SECRETS = 1 << 0, /* leave [sync] password_file
	                                      unread (it need not exist):
	                                      for `sync login`, which
	                                      writes it */
} BridgeConfigFlags;

/*
 * bridge_config_load(), with @flags; every other check is the same.
 */
BridgeConfig *
bridge_config_load_full(const char *path, BridgeConfigFlags flags,
                        GError **error);

void
bridge_config_free(BridgeConfig *config);

#endif
