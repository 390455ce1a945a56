#include "download-command.h"

#include <errno.h>
#include <feed/feed.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Bytes of a file name: well under NAME_MAX, with room for ".part.info". */
#define NAME_MAX_BYTES 200

typedef struct {
	gboolean live;  /* a progress line on the terminal */
	gboolean shown; /* the line is on the screen */
	gint64 started; /* monotonic microseconds of the first report */
	guint64 first;  /* bytes at the first report: resumed ones */
} Progress;

static int
usage_error(const char *message)
{
	fprintf(stderr, "feedtool download: %s\n", message);
	fprintf(stderr, "Try 'feedtool download --help'.\n");
	return 2;
}

char *
download_name_for(const char *url)
{
	g_autoptr(GUri) uri = g_uri_parse(url, G_URI_FLAGS_ENCODED, NULL);
	const char *path = uri != NULL ? g_uri_get_path(uri) : "";
	const char *segment = strrchr(path, '/');
	g_autofree char *decoded = NULL;
	g_autofree char *name = NULL;
	const char *start;
	gsize length;

	segment = segment != NULL ? segment + 1 : path;
	/* NULL for a %00: the segment as it is then. */
	decoded = g_uri_unescape_string(segment, NULL);
	name = g_utf8_make_valid(decoded != NULL ? decoded : segment, -1);
	for (char *p = name; *p != '\0'; p++)
		if (*p == '/' || (guchar)*p < 0x20 || *p == 0x7f)
			*p = '_';
	/* No hidden file, and no "." or "..". */
	start = name;
	while (*start == '.')
		start++;
	length = strlen(start);
	if (length > NAME_MAX_BYTES) {
		length = NAME_MAX_BYTES;
		while (length > 0 && ((guchar)start[length] & 0xC0) == 0x80)
			length--;
	}
	return length > 0 ? g_strndup(start, length) : g_strdup("download");
}

static void
clear_line(Progress *progress)
{
	if (progress->shown)
		fputs("\r\033[K", stderr);
	progress->shown = FALSE;
}

static void
on_progress(guint64 received, guint64 total, gpointer data)
{
	Progress *progress = data;
	gint64 now = g_get_monotonic_time();
	g_autofree char *got = g_format_size(received);
	g_autofree char *whole = NULL;
	g_autofree char *rate = NULL;
	double seconds;

	if (!progress->live)
		return;
	if (progress->started == 0) {
		progress->started = now;
		progress->first = received;
	}
	seconds = (double)(now - progress->started) / G_USEC_PER_SEC;
	/* The rate of this run: resumed bytes came before it. */
	if (seconds >= 0.2) {
		g_autofree char *speed = g_format_size(
		        (guint64)((double)(received - progress->first) /
		                  seconds));

		rate = g_strdup_printf("  %s/s", speed);
	}
	fputs("\r\033[K", stderr);
	if (total > 0) {
		whole = g_format_size(total);
		fprintf(stderr, "%3u%%  %s of %s%s",
		        (guint)(received * 100 / total), got, whole,
		        rate != NULL ? rate : "");
	} else {
		fprintf(stderr, "%s%s", got, rate != NULL ? rate : "");
	}
	fflush(stderr);
	progress->shown = TRUE;
}

int
download_command(int argc, char **argv)
{
	g_autofree char *output = NULL;
	GOptionEntry entries[] = {
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
		  "Write to FILE (default: the URL's file name, here)",
		  "FILE" },
		G_OPTION_ENTRY_NULL
	};
	g_autoptr(GOptionContext) context =
	        g_option_context_new("URL - download an episode's file");
	g_autoptr(FeedDownloadRequest) request = NULL;
	g_autoptr(FeedDownloadResult) result = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree char *path = NULL;
	Progress progress = { 0 };

	g_option_context_add_main_entries(context, entries, NULL);
	g_option_context_set_summary(
	        context,
	        "Downloads URL to FILE, or to the URL's file name in the "
	        "current directory,\nthrough FILE.part: a download that was "
	        "cut resumes where it stopped\nwhen run again. A web page or "
	        "a short text instead of audio is refused.");
	if (!g_option_context_parse(context, &argc, &argv, &error))
		return usage_error(error->message);
	if (argc != 2)
		return usage_error("give exactly one URL");
	if (output != NULL && *output == '\0')
		return usage_error("-o needs a file name");
	path = output != NULL ? g_strdup(output) : download_name_for(argv[1]);

	progress.live = isatty(STDERR_FILENO);
	request = feed_download_request_new(argv[1], path);
	/* A file: URL too: the user named it. */
	feed_download_request_set_flags(request, FEED_FETCH_ALLOW_FILE);
	feed_download_request_set_progress_func(request, on_progress, &progress,
	                                        NULL);
	result = feed_download_sync(request, NULL, &error);
	clear_line(&progress);
	if (result == NULL) {
		/* The library's messages name the URL themselves. */
		fprintf(stderr, "feedtool: %s\n", error->message);
		return 1;
	}
	printf("saved %s (%" G_GUINT64_FORMAT " bytes)\n", path,
	       feed_download_result_get_size(result));
	if (fflush(stdout) != 0) {
		fprintf(stderr, "feedtool: cannot write the output: %s\n",
		        g_strerror(errno));
		return 1;
	}
	return 0;
}
