#include "config.h"

#include "keyfile.h"

#include <string.h>

#define GROUP_MPD    "mpd"
#define GROUP_BRIDGE "bridge"
#define GROUP_LISTEN "listening"
#define GROUP_SEARCH "search"

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
read_file(BridgeConfig *config, GKeyFile *file, GError **error)
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
	    !read_string(file, GROUP_BRIDGE, "list_prefix",
	                 &config->list_prefix, error) ||
	    !read_uint(file, GROUP_BRIDGE, "retention", 1, 100 * 365,
	               &config->retention_days, error) ||
	    !read_uint(file, GROUP_LISTEN, "tail_percent", 0, 50,
	               &config->listened_percent, error) ||
	    !read_uint(file, GROUP_LISTEN, "tail_seconds", 0, 3600,
	               &config->listened_seconds, error) ||
	    !read_search(&config->search, file, error))
		return FALSE;
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
	config->jobs = 8;
	config->fetch_timeout = 120;
	config->later_playlist = g_strdup("Podcasts: Play later");
	config->starred_playlist = g_strdup("Podcasts: Starred");
	config->list_prefix = g_strdup("Podcast list: ");
	config->retention_days = 180;
	config->listened_percent = 5;
	config->listened_seconds = 60;
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
	if (!read_file(config, file, &local)) {
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
	g_free(config->list_prefix);
	g_free(config->music_directory);
	g_free(config->playlist_directory);
	g_free(config->config_path);
	g_free(config->state_path);
	g_free(config->cache_directory);
	g_free(config->search.itunes_url);
	g_free(config->search.podcastindex_url);
	g_free(config->search.podcastindex_key);
	g_free(config->search.podcastindex_secret);
	g_free(config);
}
