/*
 * Tags in a downloaded episode's file. MPD shows a file's own tags and
 * addtagid cannot change them, so the episode's title, podcast and date
 * go into the file itself, with TagLib's C API.
 */
#ifndef BRIDGE_TAGS_H
#define BRIDGE_TAGS_H

#include <glib.h>

/*
 * What to write. Each text is UTF-8 (invalid sequences are repaired);
 * line breaks, tabs and line or paragraph separators become spaces, other
 * control characters are taken out, runs of white space become one space,
 * and a value is cut at 1024 bytes, at a character. A
 * NULL text, one that is empty once cleaned, or a track of 0 leaves what
 * the file already has for that tag. A date of another form is a bug of
 * the caller's (g_return_val_if_fail).
 */
typedef struct {
	const char *title;   /* episode title; nullable */
	const char *album;   /* the podcast's title; nullable */
	const char *artist;  /* the author; nullable */
	const char *date;    /* "YYYY-MM-DD" (or "YYYY", "YYYY-MM"), or NULL */
	const char *genre;   /* "Podcast"; nullable */
	guint track;         /* episode number, 0 = none */
	const char *comment; /* e.g. the episode's guid; nullable */
} BridgeFileTags;

/*
 * Writes @tags into the file at @path, in place, keeping what else the
 * file has (its cover art above all). The format is read from the file's
 * first bytes, whatever its name: MP3 (ID3v2.4, and ID3v1 as TagLib
 * adds), MP4 audio (M4A, M4B, AAC in MP4), Ogg Vorbis, Ogg Opus and FLAC.
 * With TagLib 2 the whole date is written; TagLib 1.13's C API can write
 * only its year.
 *
 * TagLib may move the audio to make room, and a failure half way (a full
 * disk) may leave the file damaged: tag a download before MPD sees it (its
 * NAME.part, before the rename).
 *
 * Returns FALSE with @error, whose message names @path, when the file
 * cannot be opened for writing (G_IO_ERROR_NOT_FOUND,
 * G_IO_ERROR_PERMISSION_DENIED, G_IO_ERROR_READ_ONLY,
 * G_IO_ERROR_IS_DIRECTORY, …), is not a regular file
 * (G_IO_ERROR_NOT_REGULAR_FILE), is in none of those formats
 * (G_IO_ERROR_NOT_SUPPORTED), or TagLib cannot read it
 * (G_IO_ERROR_INVALID_DATA) or save it (G_IO_ERROR_FAILED).
 *
 * Safe to call from any thread: calls take turns, since TagLib keeps
 * state of its own for the process.
 */
gboolean
bridge_tags_write(const char *path, const BridgeFileTags *tags, GError **error);

#endif
