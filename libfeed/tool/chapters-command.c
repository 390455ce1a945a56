#include "chapters-command.h"
#include "listing.h"
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int
usage_error(const char *message)
{
	fprintf(stderr, "feedtool chapters: %s\n", message);
	fprintf(stderr, "Try 'feedtool chapters --help'.\n");
	return 2;
}

/* The newest episode by date; the first in the document when none has one. */
static const FeedEpisode *
latest(const FeedChannel *channel)
{
	guint n = feed_channel_get_n_episodes(channel);
	const FeedEpisode *best = NULL;

	for (guint i = 0; i < n; i++) {
		const FeedEpisode *episode =
		        feed_channel_get_episode(channel, i);

		if (best == NULL || feed_episode_get_published(episode) >
		                            feed_episode_get_published(best))
			best = episode;
	}
	return best;
}

/* "latest", a GUID or a 1-based number in document order; NULL: none. */
static const FeedEpisode *
find_episode(const FeedChannel *channel, const char *which)
{
	guint n = feed_channel_get_n_episodes(channel);
	guint64 number;

	if (strcmp(which, "latest") == 0)
		return latest(channel);
	for (guint i = 0; i < n; i++) {
		const FeedEpisode *episode =
		        feed_channel_get_episode(channel, i);

		if (g_strcmp0(feed_episode_get_guid(episode), which) == 0)
			return episode;
	}
	if (g_ascii_string_to_unsigned(which, 10, 1, n, &number, NULL))
		return feed_channel_get_episode(channel, (guint)number - 1);
	return NULL;
}

/* The JSON chapters, or NULL with a word on standard error. */
static FeedChapterList *
fetch_json(const FeedEpisode *episode)
{
	const char *url = feed_episode_get_chapters_url(episode);
	g_autoptr(GError) error = NULL;
	FeedChapterList *list;

	if (url == NULL)
		return NULL;
	list = feed_chapters_fetch_sync(url, NULL, &error);
	if (list == NULL) {
		g_autofree char *clean = listing_sanitize(error->message);

		fprintf(stderr,
		        "feedtool: cannot fetch or read the JSON chapters, "
		        "showing only the feed's: %s\n",
		        clean);
	}
	return list;
}

static void
print_list(const FeedChapterList *list)
{
	for (guint i = 0; i < feed_chapter_list_get_n_chapters(list); i++) {
		const FeedChapter *chapter =
		        feed_chapter_list_get_chapter(list, i);
		gint64 start = feed_chapter_get_start(chapter);
		const char *title = feed_chapter_get_title(chapter);
		g_autofree char *clean =
		        listing_sanitize(*title != '\0' ? title : "(untitled)");

		printf("%" G_GINT64_FORMAT ":%02d:%02d  %s%s\n", start / 3600,
		       (int)(start / 60 % 60), (int)(start % 60), clean,
		       feed_chapter_is_toc(chapter) ? "" : "  (hidden)");
	}
}

int
chapters_command(int argc, char **argv)
{
	gboolean json = FALSE;
	gboolean no_fetch = FALSE;
	GOptionEntry entries[] = {
		{ "json", 0, 0, G_OPTION_ARG_NONE, &json,
		  "Write the chapters as a Podcasting 2.0 JSON chapters "
		  "document",
		  NULL },
		{ "no-fetch", 0, 0, G_OPTION_ARG_NONE, &no_fetch,
		  "Do not fetch the episode's JSON chapters", NULL },
		G_OPTION_ENTRY_NULL
	};
	g_autoptr(GOptionContext) context =
	        g_option_context_new("FEED EPISODE - an episode's chapters");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedChannel) channel = NULL;
	g_autoptr(FeedChapterList) podlove = NULL;
	g_autoptr(FeedChapterList) fetched = NULL;
	g_autoptr(FeedChapterList) merged = NULL;
	const FeedEpisode *episode;

	g_option_context_add_main_entries(context, entries, NULL);
	g_option_context_set_summary(
	        context,
	        "Lists the chapters of an episode of FEED (a file, a URL or - "
	        "for standard\ninput): its Podlove Simple Chapters merged with "
	        "the JSON chapters its\npodcast:chapters element names, "
	        "fetched over http or https. EPISODE is\na GUID, a number "
	        "counted from 1 in the feed's order, or \"latest\".\nChapters "
	        "that are not in the table of contents (toc: false) are "
	        "marked\n(hidden).");
	if (!g_option_context_parse(context, &argc, &argv, &error))
		return usage_error(error->message);
	if (argc != 3)
		return usage_error("give a FEED and an EPISODE");

	channel = source_load_channel(argv[1], &error);
	if (channel == NULL) {
		fprintf(stderr, "feedtool: %s: %s\n", argv[1], error->message);
		return 1;
	}
	episode = find_episode(channel, argv[2]);
	if (episode == NULL) {
		g_autofree char *clean = listing_sanitize(argv[2]);

		fprintf(stderr,
		        "feedtool: %s: no episode '%s' (give a GUID, a number "
		        "from 1 to %u, or latest)\n",
		        argv[1], clean, feed_channel_get_n_episodes(channel));
		return 1;
	}
	podlove = feed_chapter_list_new_from_episode(episode);
	if (!no_fetch)
		fetched = fetch_json(episode);
	merged = feed_chapter_list_merge(podlove, fetched);

	if (json) {
		g_autofree char *document = feed_chapter_list_to_json(merged);

		fputs(document, stdout);
	} else {
		print_list(merged);
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "feedtool: cannot write the chapters: %s\n",
		        g_strerror(errno));
		return 1;
	}
	return 0;
}
