/*
 * bridge_tags_write() from the command line, for test-tags-mpd.py:
 *
 *   tags-tool FILE [--title T] [--album A] [--artist A] [--date D]
 *             [--genre G] [--track N] [--comment C]
 *
 * A value may hold any byte but NUL, as it is (no locale conversion). Exits 0
 * when the tags are written; else prints the error's message and exits 1 (2 for
 * a bad command line).
 */
#include "downloads/tags.h"

#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	g_autofree char *title = NULL;
	g_autofree char *album = NULL;
	g_autofree char *artist = NULL;
	g_autofree char *date = NULL;
	g_autofree char *genre = NULL;
	g_autofree char *comment = NULL;
	gint track = 0;
	const GOptionEntry entries[] = {
		{ "title", 0, 0, G_OPTION_ARG_FILENAME, &title, NULL, NULL },
		{ "album", 0, 0, G_OPTION_ARG_FILENAME, &album, NULL, NULL },
		{ "artist", 0, 0, G_OPTION_ARG_FILENAME, &artist, NULL, NULL },
		{ "date", 0, 0, G_OPTION_ARG_FILENAME, &date, NULL, NULL },
		{ "genre", 0, 0, G_OPTION_ARG_FILENAME, &genre, NULL, NULL },
		{ "track", 0, 0, G_OPTION_ARG_INT, &track, NULL, NULL },
		{ "comment", 0, 0, G_OPTION_ARG_FILENAME, &comment, NULL,
		  NULL },
		G_OPTION_ENTRY_NULL,
	};
	g_autoptr(GOptionContext) context = g_option_context_new("FILE");
	g_autoptr(GError) error = NULL;
	BridgeFileTags tags = { 0 };

	g_option_context_add_main_entries(context, entries, NULL);
	if (!g_option_context_parse(context, &argc, &argv, &error) ||
	    argc != 2 || track < 0) {
		fprintf(stderr, "usage: tags-tool FILE [--title T] [--album A] "
		                "[--artist A] [--date D] [--genre G] "
		                "[--track N] [--comment C]\n");
		return 2;
	}
	tags.title = title;
	tags.album = album;
	tags.artist = artist;
	tags.date = date;
	tags.genre = genre;
	tags.track = (guint)track;
	tags.comment = comment;
	if (!bridge_tags_write(argv[1], &tags, &error)) {
		fprintf(stderr, "%s\n", error->message);
		return 1;
	}
	return 0;
}
