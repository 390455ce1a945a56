/*
 * Finding podcasts by name in a public directory: Apple's iTunes Search
 * API, or Podcast Index when its key and secret are set ([search]).
 * search.c asks, search-answer.c reads the answer.
 *
 * Nothing here touches the Bridge or any shared state: each function may
 * run on any thread, once main() has called curl_global_init(). Errors
 * are in the BRIDGE_SEARCH_ERROR domain.
 */
#ifndef BRIDGE_SEARCH_H
#define BRIDGE_SEARCH_H

#include "core/config.h"

/* A podcast that a directory found. */
typedef struct {
	char *title;     /* without control characters; NULL when none */
	char *author;    /* the same; NULL when none */
	char *feed_url;  /* an http or https URL; never NULL */
	gint64 episodes; /* the directory's count; -1 when unknown */
} BridgeSearchResult;

typedef enum {
	BRIDGE_SEARCH_ITUNES,       /* Apple's iTunes Search API */
	BRIDGE_SEARCH_PODCASTINDEX, /* podcastindex.org's search by term */
} BridgeSearchDirectory;

#define BRIDGE_SEARCH_ERROR (bridge_search_error_quark())

typedef enum {
	BRIDGE_SEARCH_ERROR_UNREACHABLE, /* no connection, or the transfer
	                                    failed */
	BRIDGE_SEARCH_ERROR_TIMEOUT,     /* no whole answer in time */
	BRIDGE_SEARCH_ERROR_HTTP,        /* an HTTP status other than 2xx */
	BRIDGE_SEARCH_ERROR_TOO_LARGE,   /* an answer past the size cap */
	BRIDGE_SEARCH_ERROR_BAD_ANSWER,  /* not JSON, or not of the
	                                    directory's documented shape */
	BRIDGE_SEARCH_ERROR_NO_RESULT,   /* no last search, or no such number
	                                    in it */
	BRIDGE_SEARCH_ERROR_CACHE,       /* the last search cannot be kept or
	                                    read */
} BridgeSearchError;

GQuark
bridge_search_error_quark(void);

void
bridge_search_result_free(BridgeSearchResult *result);

/* A copy of @settings that the caller owns, for a search on another thread. */
BridgeSearchSettings *
bridge_search_settings_copy(const BridgeSearchSettings *settings);

void
bridge_search_settings_free(BridgeSearchSettings *settings);

/* Podcast Index when @settings has its key and secret, else iTunes. */
BridgeSearchDirectory
bridge_search_settings_get_directory(const BridgeSearchSettings *settings);

/* "iTunes" or "Podcast Index", for messages. */
const char *
bridge_search_directory_name(BridgeSearchDirectory directory);

/*
 * Asks the directory of @settings for podcasts matching @terms (words; a
 * term may hold several). Blocks for up to the settings' timeout. Returns
 * a new array of BridgeSearchResult (empty when nothing matched), or NULL
 * with @error naming the directory, its URL and what went wrong.
 */
GPtrArray *
bridge_search_query(const BridgeSearchSettings *settings,
                    const char *const *terms, GError **error);

/*
 * Reads a directory's answer, @length bytes of @data (need not be
 * NUL-terminated). Results without an http or https feed URL are left
 * out, and so are repeats of a feed URL; titles and authors lose their
 * control characters. Returns a new array of BridgeSearchResult, or NULL
 * with @error set to BRIDGE_SEARCH_ERROR_BAD_ANSWER.
 */
GPtrArray *
bridge_search_parse(BridgeSearchDirectory directory, const char *data,
                    gsize length, GError **error);

/*
 * @text for a terminal or MPD's protocol: valid UTF-8, line breaks and
 * tabs as spaces, other control characters gone, runs of spaces as one,
 * none at either end. A new string, or NULL when nothing is left.
 */
char *
bridge_search_clean_text(const char *text);

/* Whether @url is http or https, with a host, and no space or control. */
gboolean
bridge_search_is_feed_url(const char *url);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(BridgeSearchResult, bridge_search_result_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(BridgeSearchSettings, bridge_search_settings_free)

#endif
