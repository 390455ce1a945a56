/* Layouts of playlists and their entries, shared with the writers. */
#ifndef FEED_PLAYLIST_PRIVATE_H
#define FEED_PLAYLIST_PRIVATE_H

#include "feed/playlist.h"

struct FeedPlaylistEntry {
	char *url;         /* http(s), never NULL */
	char *mime_type;   /* never NULL */
	char *title;       /* never NULL or empty */
	char *album;       /* the podcast's title; never NULL */
	char *artist;      /* NULL when unknown */
	char *guid;        /* never NULL */
	char *image;       /* NULL when none */
	char *description; /* plain text; never NULL */
	gint64 date;       /* Unix seconds; 0 means unknown */
	gint64 duration;   /* seconds; 0 means unknown */
	gint64 number;     /* 0 means unknown */
	gint64 season;     /* -1 means unknown */
};

struct FeedPlaylist {
	gatomicrefcount ref;
	char *title;        /* never NULL */
	GPtrArray *entries; /* of FeedPlaylistEntry; never NULL */
};

/* The writers, one per format: each returns a new UTF-8 document. */
G_GNUC_INTERNAL
char *
feed_m3u_write(const FeedPlaylist *playlist);

G_GNUC_INTERNAL
char *
feed_xspf_write(const FeedPlaylist *playlist);

G_GNUC_INTERNAL
char *
feed_pls_write(const FeedPlaylist *playlist);

/*
 * Returns @text fit for one line of a line-based format: every control
 * character (C0, DEL, C1, and U+2028/U+2029) becomes a space, runs of
 * spaces shrink to one, and the ends are trimmed. NULL gives "".
 */
G_GNUC_INTERNAL
char *
feed_playlist_one_line(const char *text);

/*
 * Whether @url may stand as a line of a line-based format, or as an XSPF
 * location: valid UTF-8 without spaces, control characters, Unicode line
 * separators or the non-characters XML cannot carry. An entry whose URL is
 * not is left out rather than repaired: a feed must not write lines of
 * its own.
 */
G_GNUC_INTERNAL
gboolean
feed_playlist_url_is_safe(const char *url);

/* "Artist - Title" on one line, or whichever of the two is not empty. */
G_GNUC_INTERNAL
char *
feed_playlist_entry_display_name(const FeedPlaylistEntry *entry);

#endif
