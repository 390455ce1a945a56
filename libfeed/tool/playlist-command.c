#include "playlist-command.h"
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* YYYY-MM-DD, or a full ISO 8601 date and time; FALSE when neither. */
static gboolean
parse_since(const char *text, gint64 *since)
{
	g_autoptr(GTimeZone) utc = g_time_zone_new_utc();
	g_autoptr(GDateTime) date = NULL;
	g_autofree char *full = NULL;

	date = g_date_time_new_from_iso8601(text, utc);
	if (date == NULL) {
		full = g_strconcat(text, "T00:00:00", NULL);
		date = g_date_time_new_from_iso8601(full, utc);
	}
	if (date == NULL)
		return FALSE;
	*since = g_date_time_to_unix(date);
	return TRUE;
}

static gboolean
parse_format(const char *name, FeedPlaylistFormat *format)
{
	if (name == NULL || strcmp(name, "m3u") == 0)
		*format = FEED_PLAYLIST_FORMAT_M3U;
	else if (strcmp(name, "xspf") == 0)
		*format = FEED_PLAYLIST_FORMAT_XSPF;
	else if (strcmp(name, "pls") == 0)
		*format = FEED_PLAYLIST_FORMAT_PLS;
	else
		return FALSE;
	return TRUE;
}

static gboolean
parse_media(const char *name, FeedMediaKind *media)
{
	if (name == NULL || strcmp(name, "audio") == 0)
		*media = FEED_MEDIA_AUDIO;
	else if (strcmp(name, "video") == 0)
		*media = FEED_MEDIA_VIDEO;
	else if (strcmp(name, "any") == 0)
		*media = FEED_MEDIA_ANY;
	else
		return FALSE;
	return TRUE;
}

static int
usage_error(const char *message)
{
	fprintf(stderr, "feedtool playlist: %s\n", message);
	fprintf(stderr, "Try 'feedtool playlist --help'.\n");
	return 2;
}

/* The options as given, checked into @options; an exit status or -1. */
static int
apply_options(FeedPlaylistOptions *options, int newest, gboolean oldest,
              const char *since, const char *match, const char *exclude,
              int min_duration, const char *media_name)
{
	g_autoptr(GError) error = NULL;
	FeedMediaKind media;
	gint64 since_unix = 0;

	if (newest < 0 || min_duration < 0)
		return usage_error("--newest and --min-duration take a count");
	if (newest > 0 && oldest)
		return usage_error("--newest and --oldest-first exclude each "
		                   "other");
	if (since != NULL && !parse_since(since, &since_unix))
		return usage_error("--since takes a date such as 2024-05-31");
	if (!parse_media(media_name, &media))
		return usage_error("--media takes audio, video or any");
	if (!feed_playlist_options_set_match(options, match, &error) ||
	    !feed_playlist_options_set_exclude(options, exclude, &error))
		return usage_error(error->message);
	if (newest > 0) {
		feed_playlist_options_set_order(
		        options, FEED_PLAYLIST_ORDER_NEWEST_FIRST);
		feed_playlist_options_set_limit(options, (guint)newest);
	}
	if (oldest)
		feed_playlist_options_set_order(
		        options, FEED_PLAYLIST_ORDER_OLDEST_FIRST);
	feed_playlist_options_set_since(options, since_unix);
	feed_playlist_options_set_min_duration(options, min_duration);
	feed_playlist_options_set_media(options, media);
	return -1;
}

int
playlist_command(int argc, char **argv)
{
	g_autofree char *format_name = NULL;
	g_autofree char *since = NULL;
	g_autofree char *match = NULL;
	g_autofree char *exclude = NULL;
	g_autofree char *media = NULL;
	g_autofree char *output = NULL;
	int newest = 0;
	int min_duration = 0;
	gboolean oldest = FALSE;
	GOptionEntry entries[] = {
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
		  "m3u (default), xspf or pls", "FORMAT" },
		{ "newest", 'n', 0, G_OPTION_ARG_INT, &newest,
		  "Only the N newest episodes, newest first", "N" },
		{ "oldest-first", 0, 0, G_OPTION_ARG_NONE, &oldest,
		  "Oldest first (the default for serial shows)", NULL },
		{ "since", 0, 0, G_OPTION_ARG_STRING, &since,
		  "Only episodes published on or after DATE (2024-05-31)",
		  "DATE" },
		{ "match", 0, 0, G_OPTION_ARG_STRING, &match,
		  "Only titles matching RE (case-insensitive)", "RE" },
		{ "exclude", 0, 0, G_OPTION_ARG_STRING, &exclude,
		  "Leave out titles matching RE", "RE" },
		{ "min-duration", 0, 0, G_OPTION_ARG_INT, &min_duration,
		  "Leave out episodes shorter than SECONDS", "SECONDS" },
		{ "media", 0, 0, G_OPTION_ARG_STRING, &media,
		  "audio (default), video or any", "KIND" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
		  "Write to FILE instead of standard output", "FILE" },
		G_OPTION_ENTRY_NULL
	};
	g_autoptr(GOptionContext) context =
	        g_option_context_new("FEED - a feed's episodes as a playlist");
	g_autoptr(FeedPlaylistOptions) options = feed_playlist_options_new();
	g_autoptr(FeedChannel) channel = NULL;
	g_autoptr(FeedPlaylist) playlist = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree char *document = NULL;
	FeedPlaylistFormat format;
	int status;

	g_option_context_add_main_entries(context, entries, NULL);
	g_option_context_set_summary(
	        context, "Writes the episodes of FEED (a file, a URL or - for "
	                 "standard input) as an\nM3U, XSPF or PLS playlist: "
	                 "one entry an episode, with its title,\nnewest first "
	                 "unless the show is serial.");
	if (!g_option_context_parse(context, &argc, &argv, &error))
		return usage_error(error->message);
	if (argc != 2)
		return usage_error("give exactly one FEED");
	if (!parse_format(format_name, &format))
		return usage_error("--format takes m3u, xspf or pls");
	status = apply_options(options, newest, oldest, since, match, exclude,
	                       min_duration, media);
	if (status >= 0)
		return status;

	channel = source_load_channel(argv[1], &error);
	if (channel == NULL) {
		fprintf(stderr, "feedtool: %s: %s\n", argv[1], error->message);
		return 1;
	}
	playlist = feed_playlist_new(channel, options);
	document = feed_playlist_to_string(playlist, format);
	if (output == NULL) {
		fputs(document, stdout);
		if (fflush(stdout) != 0) {
			fprintf(stderr,
			        "feedtool: cannot write the playlist: %s\n",
			        g_strerror(errno));
			return 1;
		}
		return 0;
	}
	/* Written whole or not at all: a player may be reading the file. */
	if (!g_file_set_contents_full(output, document, -1,
	                              G_FILE_SET_CONTENTS_CONSISTENT, 0644,
	                              &error)) {
		fprintf(stderr, "feedtool: %s\n", error->message);
		return 1;
	}
	return 0;
}
