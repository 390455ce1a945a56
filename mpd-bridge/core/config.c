#include "core/config.h"

#include "core/secret-file.h"
#include "core/speed.h"
#include "state/keyfile.h"

#include <gio/gio.h>

#include <string.h>

#define GROUP_MPD    "mpd"
#define GROUP_BRIDGE "bridge"
#define GROUP_LISTEN "listening"
#define GROUP_SEARCH "search"
#define GROUP_SYNC   "sync"

/* gpodder.net's rule for a device id. */
#define DEVICE_MAX_LENGTH 64

static gboolean
read_string(GKeyFile *file, const char *group, const char *key, char **value,
            GError **error)
{
	g_autoptr(GError) local = NULL;
	char *read = bridge_key_file_get_string(file, group, key, &local);

	if (read == NULL) {
		if (g_error_matches(local, G_KEY_FILE_ERROR,
		                    G_KEY_FILE_ERROR_KEY_NOT_FOUND) ||
		    g_error_matches(local, G_KEY_FILE_ERROR,
		                    G_KEY_FILE_ERROR_GROUP_NOT_FOUND))
			return TRUE;
		g_propagate_error(error, g_steal_pointer(&local));
		return FALSE;
	}
	g_free(*value);
	*value = read;
	return TRUE;
}

/* [listening] rewind_after_pause: "1m:3 1h:10 1d:20", or none. */
static gboolean
read_rewind(GKeyFile *file, BridgeRewind *rewind, GError **error)
{
	g_autofree char *text = NULL;

	if (!read_string(file, GROUP_LISTEN, "rewind_after_pause", &text,
	                 error))
		return FALSE;
	if (text == NULL || bridge_rewind_parse(text, rewind))
		return TRUE;
	g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
	            "[listening] rewind_after_pause is steps PAUSE:SECONDS, "
	            "the pauses rising (\"1m:3 1h:10 1d:20\": a pause with "
	            "s, m, h or d, up to 366d; up to %u seconds back), or "
	            "none, not '%s'",
	            BRIDGE_REWIND_MAX_BACK, text);
	return FALSE;
}

/* [bridge] speed: 0.5 to 3.0, as `set FEED speed` takes it. */
static gboolean
read_speed(GKeyFile *file, guint *speed, GError **error)
{
	g_autofree char *text = NULL;

	if (!read_string(file, GROUP_BRIDGE, "speed", &text, error))
		return FALSE;
	if (text == NULL)
		return TRUE;
	if (!bridge_speed_parse(text, speed)) {
		g_set_error(
		        error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		        "[bridge] speed is from 0.5 to 3.0, not '%s'", text);
		return FALSE;
	}
	return TRUE;
}

static gboolean
read_uint(GKeyFile *file, const char *group, const char *key, guint minimum,
          guint maximum, guint *value, GError **error)
{
	g_autofree char *text = NULL;
	guint64 number;

	if (!read_string(file, group, key, &text, error))
		return FALSE;
	if (text == NULL)
		return TRUE;
	if (!g_ascii_string_to_unsigned(g_strstrip(text), 10, minimum, maximum,
	                                &number, NULL)) {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "[%s] %s must be a whole number from %u to %u, not "
		            "'%s'",
		            group, key, minimum, maximum, text);
		return FALSE;
	}
	*value = (guint)number;
	return TRUE;
}

static gboolean
read_bool(GKeyFile *file, const char *group, const char *key, gboolean *value,
          GError **error)
{
	g_autofree char *text = NULL;

	if (!read_string(file, group, key, &text, error))
		return FALSE;
	if (text == NULL)
		return TRUE;
	g_strstrip(text);
	if (g_ascii_strcasecmp(text, "true") == 0 ||
	    g_ascii_strcasecmp(text, "yes") == 0)
		*value = TRUE;
	else if (g_ascii_strcasecmp(text, "false") == 0 ||
	         g_ascii_strcasecmp(text, "no") == 0)
		*value = FALSE;
	else {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "[%s] %s must be true or false, not '%s'", group,
		            key, text);
		return FALSE;
	}
	return TRUE;
}

static gboolean
read_url(GKeyFile *file, const char *group, const char *key, char **value,
         GError **error)
{
	g_autofree char *text = NULL;
	g_autoptr(GUri) uri = NULL;
	const char *scheme;

	if (!read_string(file, group, key, &text, error))
		return FALSE;
	if (text == NULL)
		return TRUE;
	g_strstrip(text);
	uri = g_uri_parse(text, G_URI_FLAGS_NONE, NULL);
	scheme = uri != NULL ? g_uri_get_scheme(uri) : NULL;
	if (scheme == NULL ||
	    (g_ascii_strcasecmp(scheme, "http") != 0 &&
	     g_ascii_strcasecmp(scheme, "https") != 0) ||
	    g_uri_get_host(uri) == NULL || *g_uri_get_host(uri) == '\0') {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "[%s] %s must be an http or https URL, not '%s'",
		            group, key, text);
		return FALSE;
	}
	g_free(*value);
	*value = g_steal_pointer(&text);
	return TRUE;
}

/*
 * An empty value is none, as if the key were not there. Anything else goes
 * into an HTTP header as it is: one word of printable ASCII.
 */
static gboolean
check_word(char **value, const char *key, GError **error)
{
	if (*value != NULL && *g_strstrip(*value) == '\0')
		g_clear_pointer(value, g_free);
	for (const char *p = *value; p != NULL && *p != '\0'; p++) {
		if ((guchar)*p <= ' ' || (guchar)*p >= 0x7f) {
			g_set_error(
			        error, G_KEY_FILE_ERROR,
			        G_KEY_FILE_ERROR_INVALID_VALUE,
			        "[search] %s must be one word of letters, "
			        "digits and punctuation, as podcastindex.org "
			        "gave it",
			        key);
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
read_search(BridgeSearchSettings *search, GKeyFile *file, GError **error)
{
	if (!read_url(file, GROUP_SEARCH, "itunes_url", &search->itunes_url,
	              error) ||
	    !read_url(file, GROUP_SEARCH, "podcastindex_url",
	              &search->podcastindex_url, error) ||
	    !read_string(file, GROUP_SEARCH, "podcastindex_key",
	                 &search->podcastindex_key, error) ||
	    !read_string(file, GROUP_SEARCH, "podcastindex_secret",
	                 &search->podcastindex_secret, error) ||
	    !read_uint(file, GROUP_SEARCH, "timeout", 1, 600,
	               &search->timeout_seconds, error) ||
	    !check_word(&search->podcastindex_key, "podcastindex_key", error) ||
	    !check_word(&search->podcastindex_secret, "podcastindex_secret",
	                error))
		return FALSE;
	if ((search->podcastindex_key == NULL) !=
	    (search->podcastindex_secret == NULL)) {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "[search] podcastindex_key and podcastindex_secret "
		            "go together: set both (from podcastindex.org), "
		            "or neither to search iTunes");
		return FALSE;
	}
	return TRUE;
}

static gboolean
read_relay(BridgeRelaySettings *relay, GKeyFile *file, GError **error)
{
	g_autofree char *mode = NULL;

	if (!read_string(file, GROUP_BRIDGE, "relay", &mode, error) ||
	    !read_uint(file, GROUP_BRIDGE, "relay_port", 0, 65535, &relay->port,
	               error) ||
	    !read_uint(file, GROUP_BRIDGE, "relay_give_up", 1, 24 * 3600,
	               &relay->give_up, error))
		return FALSE;
	if (mode == NULL || g_strcmp0(g_strstrip(mode), "auto") == 0)
		relay->mode = BRIDGE_RELAY_AUTO;
	else if (g_strcmp0(mode, "yes") == 0)
		relay->mode = BRIDGE_RELAY_YES;
	else if (g_strcmp0(mode, "no") == 0)
		relay->mode = BRIDGE_RELAY_NO;
	else {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "[bridge] relay must be auto (when MPD is on this "
		            "machine), yes or no, not '%s'",
		            mode);
		return FALSE;
	}
	return TRUE;
}

static gboolean
is_loopback_host(const char *host)
{
	g_autoptr(GInetAddress) address = g_inet_address_new_from_string(host);

	if (address != NULL)
		return g_inet_address_get_is_loopback(address);
	return g_ascii_strcasecmp(host, "localhost") == 0 ||
	       g_str_has_suffix(host, ".localhost");
}

/*
 * The server's base URL, checked: the password goes to it in every
 * request, so plain http only to this machine unless insecure is set.
 */
static gboolean
check_server(BridgeGpodderSettings *sync, GError **error)
{
	g_autoptr(GUri) uri = g_uri_parse(sync->server, G_URI_FLAGS_NONE, NULL);
	const char *scheme = uri != NULL ? g_uri_get_scheme(uri) : NULL;
	const char *host = uri != NULL ? g_uri_get_host(uri) : NULL;
	gsize length;

	if (scheme == NULL ||
	    (g_ascii_strcasecmp(scheme, "http") != 0 &&
	     g_ascii_strcasecmp(scheme, "https") != 0) ||
	    host == NULL || *host == '\0') {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "[sync] server must be an http or https URL, not "
		            "'%s'",
		            sync->server);
		return FALSE;
	}
	if (g_uri_get_userinfo(uri) != NULL) {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "[sync] server must not hold a user or password: "
		            "set [sync] user and password_file instead");
		return FALSE;
	}
	if (g_uri_get_query(uri) != NULL || g_uri_get_fragment(uri) != NULL) {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "[sync] server must be a base URL with no '?' or "
		            "'#', not '%s'",
		            sync->server);
		return FALSE;
	}
	if (g_ascii_strcasecmp(scheme, "http") == 0 && !sync->insecure &&
	    !is_loopback_host(host)) {
		g_set_error(
		        error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		        "[sync] server '%s' is plain http, which would send "
		        "the password readable to anyone on the way: use "
		        "https, or set [sync] insecure = true on a network "
		        "you trust",
		        sync->server);
		return FALSE;
	}
	length = strlen(sync->server);
	while (length > 0 && sync->server[length - 1] == '/')
		sync->server[--length] = '\0';
	return TRUE;
}

/* Letters, digits, '_', '.' and '-': what gpodder.net takes as an id. */
static gboolean
is_device_char(char c)
{
	return g_ascii_isalnum(c) || c == '_' || c == '.' || c == '-';
}

static char *
default_device(void)
{
	g_autofree char *device =
	        g_strconcat("mpd-bridge-", g_get_host_name(), NULL);

	for (char *p = device; *p != '\0'; p++) {
		if (!is_device_char(*p))
			*p = '-';
	}
	if (strlen(device) > DEVICE_MAX_LENGTH)
		device[DEVICE_MAX_LENGTH] = '\0';
	return g_steal_pointer(&device);
}

static gboolean
check_device(const char *device, GError **error)
{
	gsize length = strlen(device);

	for (const char *p = device; *p != '\0'; p++) {
		if (!is_device_char(*p))
			length = 0;
	}
	if (length == 0 || length > DEVICE_MAX_LENGTH) {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "[sync] device must be 1 to %d letters, digits, "
		            "'_', '.' or '-', not '%s'",
		            DEVICE_MAX_LENGTH, device);
		return FALSE;
	}
	return TRUE;
}

/* A relative password_file is relative to the settings file's folder. */
static char *
settings_path(const char *config_path, const char *value)
{
	g_autofree char *folder = NULL;

	if (g_str_has_prefix(value, "~/"))
		return g_build_filename(g_get_home_dir(), value + 2, NULL);
	if (g_path_is_absolute(value))
		return g_strdup(value);
	folder = g_path_get_dirname(config_path);
	return g_build_filename(folder, value, NULL);
}

static gboolean
read_sync(BridgeGpodderSettings *sync, GKeyFile *file, const char *config_path,
          BridgeConfigFlags flags, GError **error)
{
	g_autofree char *kind = NULL;
	g_autofree char *password_file = NULL;
	g_autofree char *trust = NULL;

	if (!read_string(file, GROUP_SYNC, "server", &sync->server, error) ||
	    !read_string(file, GROUP_SYNC, "kind", &kind, error) ||
	    !read_string(file, GROUP_SYNC, "user", &sync->user, error) ||
	    !read_string(file, GROUP_SYNC, "password_file", &password_file,
	                 error) ||
	    !read_string(file, GROUP_SYNC, "device", &sync->device, error) ||
	    !read_uint(file, GROUP_SYNC, "interval", 1, 24 * 60,
	               &sync->interval_minutes, error) ||
	    !read_bool(file, GROUP_SYNC, "insecure", &sync->insecure, error) ||
	    !read_string(file, GROUP_SYNC, "trust_clock", &trust, error) ||
	    !read_uint(file, GROUP_SYNC, "push_delay", 1, 3600,
	               &sync->push_delay_seconds, error))
		return FALSE;
	if (trust == NULL || g_strcmp0(g_strstrip(trust), "auto") == 0)
		sync->trust_clock = BRIDGE_CLOCK_TRUST_AUTO;
	else if (g_strcmp0(trust, "yes") == 0)
		sync->trust_clock = BRIDGE_CLOCK_TRUST_YES;
	else if (g_strcmp0(trust, "no") == 0)
		sync->trust_clock = BRIDGE_CLOCK_TRUST_NO;
	else {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "[sync] trust_clock must be auto (when the system "
		            "says its clock is synchronised), yes or no, not "
		            "'%s'",
		            trust);
		return FALSE;
	}
	if (sync->server != NULL && *g_strstrip(sync->server) == '\0')
		g_clear_pointer(&sync->server, g_free);
	if (sync->server == NULL)
		return TRUE;
	if (!check_server(sync, error))
		return FALSE;
	if (kind != NULL && g_strcmp0(g_strstrip(kind), "gpodder") == 0)
		sync->kind = BRIDGE_GPODDER_KIND_GPODDER;
	else if (kind != NULL && g_strcmp0(kind, "nextcloud") == 0)
		sync->kind = BRIDGE_GPODDER_KIND_NEXTCLOUD;
	else {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "[sync] kind must be gpodder (gpodder.net, "
		            "opodsync and others) or nextcloud (Nextcloud's "
		            "gpoddersync app), not '%s'",
		            kind != NULL ? kind : "");
		return FALSE;
	}
	if (sync->user == NULL || *g_strstrip(sync->user) == '\0') {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "[sync] user must be set with [sync] server: the "
		            "account's name on the server");
		return FALSE;
	}
	if (password_file == NULL || *g_strstrip(password_file) == '\0') {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "[sync] password_file must be set with [sync] "
		            "server: a file that only you can read, holding "
		            "the password (or Nextcloud app password)");
		return FALSE;
	}
	sync->password_file = settings_path(config_path, password_file);
	if (sync->device == NULL)
		sync->device = default_device();
	else if (!check_device(g_strstrip(sync->device), error))
		return FALSE;
	/* Not there yet: sync login writes it; syncing waits for it. */
	if ((flags & BRIDGE_CONFIG_NO_SECRETS) != 0 ||
	    !g_file_test(sync->password_file, G_FILE_TEST_EXISTS))
		return TRUE;
	sync->password = bridge_secret_file_read(sync->password_file, error);
	if (sync->password == NULL) {
		g_prefix_error(error, "[sync] password_file ");
		return FALSE;
	}
	return TRUE;
}

/* What the rest of the daemon sees when [sync] has no server. */
static void
clear_sync(BridgeGpodderSettings *sync)
{
	g_clear_pointer(&sync->server, g_free);
	g_clear_pointer(&sync->user, g_free);
	g_clear_pointer(&sync->password_file, g_free);
	if (sync->password != NULL)
		memset(sync->password, 0, strlen(sync->password));
	g_clear_pointer(&sync->password, g_free);
	g_clear_pointer(&sync->device, g_free);
}

static gboolean
read_download(BridgeDownloadSettings *d, GKeyFile *file, GError **error)
{
	if (!read_uint(file, GROUP_BRIDGE, "download", 0, 10000, &d->episodes,
	               error) ||
	    !read_bool(file, GROUP_BRIDGE, "download_later", &d->later,
	               error) ||
	    !read_string(file, GROUP_BRIDGE, "download_directory",
	                 &d->directory, error) ||
	    !read_uint(file, GROUP_BRIDGE, "download_keep_days", 0, 100 * 365,
	               &d->keep_days, error) ||
	    !read_uint(file, GROUP_BRIDGE, "download_budget", 0, G_MAXINT,
	               &d->budget_mb, error) ||
	    !read_uint(file, GROUP_BRIDGE, "download_min_free", 0, G_MAXINT,
	               &d->min_free_mb, error) ||
	    !read_uint(file, GROUP_BRIDGE, "download_jobs", 1, 16, &d->jobs,
	               error) ||
	    !read_uint(file, GROUP_BRIDGE, "download_per_host", 1, 16,
	               &d->per_host, error) ||
	    !read_uint(file, GROUP_BRIDGE, "download_max_size", 1, 1 << 20,
	               &d->max_size_mb, error))
		return FALSE;
	if (d->directory != NULL && *d->directory == '\0')
		g_clear_pointer(&d->directory, g_free);
	if (d->directory != NULL && g_str_has_prefix(d->directory, "~/")) {
		char *home = g_build_filename(g_get_home_dir(),
		                              d->directory + 2, NULL);

		g_free(d->directory);
		d->directory = home;
	}
	if (d->directory != NULL && !g_path_is_absolute(d->directory)) {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "[bridge] download_directory must be an absolute "
		            "path inside MPD's music directory, not '%s'",
		            d->directory);
		return FALSE;
	}
	return TRUE;
}

static gboolean
read_file(BridgeConfig *config, GKeyFile *file, BridgeConfigFlags flags,
          GError **error)
{
	guint port = config->mpd.port;
	guint timeout = config->mpd.timeout_ms / 1000;

	if (!read_string(file, GROUP_MPD, "host", &config->mpd.host, error) ||
	    !read_uint(file, GROUP_MPD, "port", 1, 65535, &port, error) ||
	    !read_string(file, GROUP_MPD, "password", &config->mpd.password,
	                 error) ||
	    !read_uint(file, GROUP_MPD, "timeout", 1, 600, &timeout, error) ||
	    !read_string(file, GROUP_BRIDGE, "channel", &config->channel,
	                 error) ||
	    !read_string(file, GROUP_BRIDGE, "playlist_prefix",
	                 &config->playlist_prefix, error) ||
	    !read_string(file, GROUP_BRIDGE, "new_playlist",
	                 &config->new_playlist, error) ||
	    !read_string(file, GROUP_BRIDGE, "music_directory",
	                 &config->music_directory, error) ||
	    !read_string(file, GROUP_BRIDGE, "playlist_directory",
	                 &config->playlist_directory, error) ||
	    !read_string(file, GROUP_BRIDGE, "state_file", &config->state_path,
	                 error) ||
	    !read_string(file, GROUP_BRIDGE, "cache_directory",
	                 &config->cache_directory, error) ||
	    !read_uint(file, GROUP_BRIDGE, "refresh_interval", 5, 7 * 24 * 60,
	               &config->refresh_minutes, error) ||
	    !read_uint(file, GROUP_BRIDGE, "keep", 1, 100000, &config->keep,
	               error) ||
	    !read_uint(file, GROUP_BRIDGE, "new_limit", 0, 100000,
	               &config->new_limit, error) ||
	    !read_uint(file, GROUP_BRIDGE, "continue_limit", 1, 100000,
	               &config->continue_limit, error) ||
	    !read_bool(file, GROUP_BRIDGE, "auto_queue", &config->auto_queue,
	               error) ||
	    !read_uint(file, GROUP_BRIDGE, "jobs", 1, 64, &config->jobs,
	               error) ||
	    !read_uint(file, GROUP_BRIDGE, "fetch_timeout", 1, 3600,
	               &config->fetch_timeout, error) ||
	    !read_string(file, GROUP_BRIDGE, "later_playlist",
	                 &config->later_playlist, error) ||
	    !read_string(file, GROUP_BRIDGE, "starred_playlist",
	                 &config->starred_playlist, error) ||
	    !read_string(file, GROUP_BRIDGE, "continue_playlist",
	                 &config->continue_playlist, error) ||
	    !read_string(file, GROUP_BRIDGE, "list_prefix",
	                 &config->list_prefix, error) ||
	    !read_bool(file, GROUP_BRIDGE, "fetch_chapters",
	               &config->fetch_chapters, error) ||
	    !read_bool(file, GROUP_BRIDGE, "chapter_titles",
	               &config->chapter_titles, error) ||
	    !read_uint(file, GROUP_BRIDGE, "retention", 1, 100 * 365,
	               &config->retention_days, error) ||
	    !read_uint(file, GROUP_BRIDGE, "sleep_fade", 0, 600,
	               &config->sleep_fade_seconds, error) ||
	    !read_uint(file, GROUP_BRIDGE, "alarm_fade", 0, 600,
	               &config->alarm_fade_seconds, error) ||
	    !read_speed(file, &config->speed, error) ||
	    !read_uint(file, GROUP_LISTEN, "tail_percent", 0, 50,
	               &config->listened_percent, error) ||
	    !read_uint(file, GROUP_LISTEN, "tail_seconds", 0, 3600,
	               &config->listened_seconds, error) ||
	    !read_rewind(file, &config->rewind, error) ||
	    !read_download(&config->download, file, error) ||
	    !read_relay(&config->relay, file, error) ||
	    !read_search(&config->search, file, error) ||
	    !read_sync(&config->gpodder, file, config->config_path, flags,
	               error))
		return FALSE;
	if (config->gpodder.server == NULL)
		clear_sync(&config->gpodder);
	config->mpd.port = port;
	config->mpd.timeout_ms = timeout * 1000;
	if (config->channel == NULL || *config->channel == '\0' ||
	    strpbrk(config->channel, " \t\r\n\"") != NULL) {
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "[bridge] channel must be one word");
		return FALSE;
	}
	return TRUE;
}

BridgeConfig *
bridge_config_load(const char *path, GError **error)
{
	return bridge_config_load_full(path, BRIDGE_CONFIG_NONE, error);
}

BridgeConfig *
bridge_config_load_full(const char *path, BridgeConfigFlags flags,
                        GError **error)
{
	BridgeConfig *config = g_new0(BridgeConfig, 1);
	g_autoptr(GKeyFile) file = g_key_file_new();
	g_autoptr(GError) local = NULL;

	bridge_mpd_address_from_env(&config->mpd);
	if (config->mpd.timeout_ms == 0)
		config->mpd.timeout_ms = 30000;
	config->channel = g_strdup("mpd-bridge");
	config->playlist_prefix = g_strdup("Podcast: ");
	config->new_playlist = g_strdup("Podcasts: New");
	config->refresh_minutes = 60;
	config->keep = 100;
	config->new_limit = 100;
	config->continue_limit = 100;
	config->jobs = 8;
	config->fetch_timeout = 120;
	config->later_playlist = g_strdup("Podcasts: Play later");
	config->starred_playlist = g_strdup("Podcasts: Starred");
	config->continue_playlist = g_strdup("Podcasts: Continue");
	config->list_prefix = g_strdup("Podcast list: ");
	config->retention_days = 180;
	config->fetch_chapters = TRUE;
	config->chapter_titles = TRUE;
	config->sleep_fade_seconds = 10;
	config->alarm_fade_seconds = 60;
	config->speed = BRIDGE_SPEED_NORMAL;
	config->listened_percent = 5;
	config->listened_seconds = 60;
	bridge_rewind_init_default(&config->rewind);
	config->config_path =
	        path != NULL ? g_strdup(path)
	                     : g_build_filename(g_get_user_config_dir(),
	                                        "mpd-bridge", "config", NULL);
	config->state_path = g_build_filename(g_get_user_state_dir(),
	                                      "mpd-bridge", "state", NULL);
	config->cache_directory =
	        g_build_filename(g_get_user_cache_dir(), "mpd-bridge", NULL);
	config->search.itunes_url = g_strdup("https://itunes.apple.com/search");
	config->search.podcastindex_url =
	        g_strdup("https://api.podcastindex.org/api/1.0/search/byterm");
	config->search.timeout_seconds = 20;
	config->download.keep_days = 7;
	config->download.min_free_mb = 1024;
	config->download.jobs = 2;
	config->download.per_host = 1;
	config->download.max_size_mb = 2048;
	config->relay.give_up = 600;
	config->gpodder.interval_minutes = 10;
	config->gpodder.push_delay_seconds = 20;
	config->gpodder.timeout_seconds = 60;

	if (!g_key_file_load_from_file(file, config->config_path,
	                               G_KEY_FILE_NONE, &local)) {
		if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
			return config;
		g_set_error(error, local->domain, local->code,
		            "cannot read the settings in %s: %s",
		            config->config_path, local->message);
		bridge_config_free(config);
		return NULL;
	}
	if (!read_file(config, file, flags, &local)) {
		g_set_error(error, local->domain, local->code, "%s: %s",
		            config->config_path, local->message);
		bridge_config_free(config);
		return NULL;
	}
	if (config->music_directory != NULL && *config->music_directory == '\0')
		g_clear_pointer(&config->music_directory, g_free);
	if (config->playlist_directory != NULL &&
	    *config->playlist_directory == '\0')
		g_clear_pointer(&config->playlist_directory, g_free);
	if (config->playlist_directory != NULL &&
	    g_str_has_prefix(config->playlist_directory, "~/")) {
		char *home = g_build_filename(
		        g_get_home_dir(), config->playlist_directory + 2, NULL);

		g_free(config->playlist_directory);
		config->playlist_directory = home;
	}
	return config;
}

void
bridge_config_free(BridgeConfig *config)
{
	if (config == NULL)
		return;
	bridge_mpd_address_clear(&config->mpd);
	g_free(config->channel);
	g_free(config->playlist_prefix);
	g_free(config->new_playlist);
	g_free(config->later_playlist);
	g_free(config->starred_playlist);
	g_free(config->continue_playlist);
	g_free(config->list_prefix);
	g_free(config->music_directory);
	g_free(config->playlist_directory);
	g_free(config->config_path);
	g_free(config->state_path);
	g_free(config->cache_directory);
	g_free(config->download.directory);
	g_free(config->search.itunes_url);
	g_free(config->search.podcastindex_url);
	g_free(config->search.podcastindex_key);
	g_free(config->search.podcastindex_secret);
	clear_sync(&config->gpodder);
	g_free(config);
}
