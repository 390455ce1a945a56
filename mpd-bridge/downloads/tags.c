#include "downloads/tags.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <tag_c.h>
#include <unistd.h>

/* As mpd/mpd-queue.c cuts the tags it sends: well within one MPD line. */
#define MAX_TAG_BYTES 1024
/* Enough of the file after its ID3v2 tags to tell the format. */
#define HEAD_BYTES 512
/* ID3v2 tags before the audio, at most; more are not an MP3 we write. */
#define MAX_ID3V2_TAGS 4

typedef enum {
	FORMAT_NONE,
	FORMAT_MPEG,
	FORMAT_MP4,
	FORMAT_VORBIS,
	FORMAT_OPUS,
	FORMAT_FLAC,
} Format;

static const char *const format_names[] = {
	[FORMAT_NONE] = "none", [FORMAT_MPEG] = "MP3",
	[FORMAT_MP4] = "MP4",   [FORMAT_VORBIS] = "Ogg Vorbis",
	[FORMAT_OPUS] = "Opus", [FORMAT_FLAC] = "FLAC",
};

/*
 * The C API's string list is one for the process and unlocked: with it
 * off, calls from several threads share nothing. Nothing else in the
 * program uses TagLib.
 */
static gpointer
setup_taglib_once(gpointer data)
{
	taglib_set_strings_unicode(TRUE);
	taglib_set_string_management_enabled(FALSE);
	return NULL;
}

static void
setup_taglib(void)
{
	static GOnce once = G_ONCE_INIT;

	g_once(&once, setup_taglib_once, NULL);
}

static void
set_errno_error(GError **error, int saved, const char *path)
{
	g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved),
	            "cannot write tags to %s: %s", path, g_strerror(saved));
}

/* Reads up to @size bytes at @offset; -1 with errno on failure. */
static gssize
read_at(int fd, guint8 *buffer, gsize size, off_t offset)
{
	gsize done = 0;

	while (done < size) {
		ssize_t n = pread(fd, buffer + done, size - done,
		                  offset + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += (gsize)n;
	}
	return (gssize)done;
}

/*
 * An MPEG audio frame header (layer I, II or III): what an MP3 starts with
 * once its tags are skipped.
 */
static gboolean
is_mpeg_header(const guint8 *b)
{
	return b[0] == 0xff && (b[1] & 0xe0) == 0xe0 &&
	       ((b[1] >> 3) & 3) != 1 && ((b[1] >> 1) & 3) != 0 &&
	       (b[2] >> 4) != 0xf && ((b[2] >> 2) & 3) != 3;
}

/*
 * The size of the ID3v2 tag at @b (10 bytes read), header and footer
 * included; 0 when @b is none.
 */
static off_t
id3v2_size(const guint8 *b)
{
	if (memcmp(b, "ID3", 3) != 0 || b[3] == 0xff || b[4] == 0xff ||
	    ((b[6] | b[7] | b[8] | b[9]) & 0x80) != 0)
		return 0;
	return 10 +
	       ((off_t)b[6] << 21 | (off_t)b[7] << 14 | (off_t)b[8] << 7 |
	        (off_t)b[9]) +
	       ((b[5] & 0x10) != 0 ? 10 : 0);
}

/*
 * The format by the file's content, not its name: a download is named
 * after its MIME type or URL, which may be wrong, and TagLib would write
 * an ID3v2 tag into an MP4 file named .mp3.
 */
static gboolean
sniff(int fd, const char *path, Format *format, GError **error)
{
	guint8 head[HEAD_BYTES];
	off_t offset = 0;
	gssize n;
	gsize at = 0;

	*format = FORMAT_NONE;
	for (int i = 0; i < MAX_ID3V2_TAGS; i++) {
		off_t size;

		n = read_at(fd, head, 10, offset);
		if (n < 0) {
			set_errno_error(error, errno, path);
			return FALSE;
		}
		size = n == 10 ? id3v2_size(head) : 0;
		if (size == 0)
			break;
		offset += size;
	}
	n = read_at(fd, head, sizeof(head), offset);
	if (n < 0) {
		set_errno_error(error, errno, path);
		return FALSE;
	}
	/* Some encoders pad past the size their ID3v2 tag gives. */
	while (offset > 0 && at < (gsize)n && head[at] == 0)
		at++;
	if (n - (gssize)at >= 4 && memcmp(head + at, "fLaC", 4) == 0) {
		*format = FORMAT_FLAC;
	} else if (n - (gssize)at >= 4 && is_mpeg_header(head + at)) {
		*format = FORMAT_MPEG;
	} else if (offset > 0) {
		/* ID3v2 before anything but MPEG audio or FLAC: raw AAC,
		 * or not audio at all. */
	} else if (n >= 8 && memcmp(head + 4, "ftyp", 4) == 0) {
		*format = FORMAT_MP4;
	} else if (n >= 27 && memcmp(head, "OggS", 4) == 0) {
		/* The first page holds the codec's first packet. */
		gsize packet = 27 + (gsize)head[26];

		if ((gsize)n >= packet + 8 &&
		    memcmp(head + packet, "OpusHead", 8) == 0)
			*format = FORMAT_OPUS;
		else if ((gsize)n >= packet + 7 &&
		         memcmp(head + packet, "\001vorbis", 7) == 0)
			*format = FORMAT_VORBIS;
	}
	if (*format == FORMAT_NONE) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
		            "cannot write tags to %s: not an MP3, MP4, Ogg "
		            "Vorbis, Opus or FLAC file",
		            path);
		return FALSE;
	}
	return TRUE;
}

/* The format of the regular file at @path, which we may write. */
static gboolean
check_file(const char *path, Format *format, GError **error)
{
	struct stat st;
	gboolean ok;
	/* O_NONBLOCK: a FIFO in its place must not hang the caller. */
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0) {
		set_errno_error(error, errno, path);
		return FALSE;
	}
	if (fstat(fd, &st) != 0) {
		set_errno_error(error, errno, path);
		close(fd);
		return FALSE;
	}
	if (!S_ISREG(st.st_mode)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
		            "cannot write tags to %s: not a regular file",
		            path);
		close(fd);
		return FALSE;
	}
	ok = sniff(fd, path, format, error);
	close(fd);
	return ok;
}

#if !BRIDGE_TAGLIB_HAS_OPUS_TYPE
/*
 * TagLib 1.13's C API has no Opus type to ask for: it opens a file as
 * Opus by its name's extension alone. A link named *.opus in a private
 * temporary folder gives it that name, whatever the file is called; TagLib
 * writes in place, through the link. Sets *@link to the link to remove.
 * FALSE when the link cannot be made.
 */
static gboolean
open_opus(const char *path, TagLib_File **file, char **link, GError **error)
{
	g_autofree char *dir = NULL;
	g_autofree char *name = NULL;
	g_autofree char *target = NULL;
	g_autofree char *lower = g_ascii_strdown(path, -1);

	if (g_str_has_suffix(lower, ".opus")) {
		*file = taglib_file_new(path);
		return TRUE;
	}
	dir = g_dir_make_tmp("mpd-bridge-tags-XXXXXX", error);
	if (dir == NULL) {
		g_prefix_error(error, "cannot write tags to %s: ", path);
		return FALSE;
	}
	target = g_canonicalize_filename(path, NULL);
	name = g_build_filename(dir, "episode.opus", NULL);
	if (symlink(target, name) != 0) {
		set_errno_error(error, errno, path);
		g_rmdir(dir);
		return FALSE;
	}
	*link = g_steal_pointer(&name);
	*file = taglib_file_new(*link);
	return TRUE;
}
#endif

/*
 * Opens @path with TagLib as @format into *@file, NULL when TagLib cannot.
 * FALSE only when the link for Opus cannot be made.
 */
static gboolean
open_taglib(const char *path, Format format, TagLib_File **file, char **link,
            GError **error)
{
	TagLib_File_Type type = TagLib_File_MPEG;

	switch (format) {
	case FORMAT_MPEG:
		type = TagLib_File_MPEG;
		break;
	case FORMAT_MP4:
		type = TagLib_File_MP4;
		break;
	case FORMAT_VORBIS:
		type = TagLib_File_OggVorbis;
		break;
	case FORMAT_OPUS:
#if BRIDGE_TAGLIB_HAS_OPUS_TYPE
		type = TagLib_File_Opus;
		break;
#else
		return open_opus(path, file, link, error);
#endif
	case FORMAT_FLAC:
		type = TagLib_File_FLAC;
		break;
	case FORMAT_NONE:
		g_assert_not_reached();
	}
	*file = taglib_file_new_type(path, type);
	return TRUE;
}

static void
remove_link(const char *link)
{
	g_autofree char *dir = NULL;

	if (link == NULL)
		return;
	dir = g_path_get_dirname(link);
	g_unlink(link);
	g_rmdir(dir);
}

/*
 * @text made fit for a tag that MPD will show: no control characters (a
 * line break, tab or separator is a space), no runs of spaces, at most
 * MAX_TAG_BYTES. NULL when nothing is left.
 */
static char *
clean_text(const char *text)
{
	g_autofree char *valid = NULL;
	g_autoptr(GString) out = NULL;
	gboolean space = FALSE;

	if (text == NULL)
		return NULL;
	valid = g_utf8_make_valid(text, -1);
	out = g_string_sized_new(strlen(valid));
	for (const char *p = valid; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);
		gsize width = (gsize)(g_utf8_next_char(p) - p);

		if (g_unichar_isspace(c) || c == 0x0b || c == 0x85) {
			space = out->len > 0;
			continue;
		}
		if (g_unichar_iscntrl(c))
			continue;
		if (out->len + (space ? 1 : 0) + width > MAX_TAG_BYTES)
			break;
		if (space)
			g_string_append_c(out, ' ');
		g_string_append_len(out, p, (gssize)width);
		space = FALSE;
	}
	return out->len > 0 ? g_string_free(g_steal_pointer(&out), FALSE)
	                    : NULL;
}

static gboolean
is_digits(const char *s, gsize n)
{
	for (gsize i = 0; i < n; i++)
		if (!g_ascii_isdigit(s[i]))
			return FALSE;
	return TRUE;
}

/* "YYYY", "YYYY-MM" or "YYYY-MM-DD"; its year, or 0 when it is none. */
static guint
date_year(const char *date)
{
	gsize len = strlen(date);
	guint year, month, day;

	if ((len != 4 && len != 7 && len != 10) || !is_digits(date, 4))
		return 0;
	year = (guint)g_ascii_strtoull(date, NULL, 10);
	if (year == 0)
		return 0;
	if (len == 4)
		return year;
	if (date[4] != '-' || !is_digits(date + 5, 2))
		return 0;
	month = (guint)g_ascii_strtoull(date + 5, NULL, 10);
	if (month < 1 || month > 12)
		return 0;
	if (len == 7)
		return year;
	if (date[7] != '-' || !is_digits(date + 8, 2))
		return 0;
	day = (guint)g_ascii_strtoull(date + 8, NULL, 10);
	return g_date_valid_dmy((GDateDay)day, (GDateMonth)month,
	                        (GDateYear)year)
	               ? year
	               : 0;
}

static void
set_text(TagLib_Tag *tag, void (*set)(TagLib_Tag *, const char *),
         const char *text)
{
	g_autofree char *clean = clean_text(text);

	if (clean != NULL)
		set(tag, clean);
}

static gboolean
write_tags(const char *path, const BridgeFileTags *tags, GError **error)
{
	g_autofree char *link = NULL;
	TagLib_File *file = NULL;
	TagLib_Tag *tag;
	Format format;
	gboolean saved;

	if (!check_file(path, &format, error))
		return FALSE;
	if (!open_taglib(path, format, &file, &link, error))
		return FALSE;
	tag = file != NULL && taglib_file_is_valid(file) ? taglib_file_tag(file)
	                                                 : NULL;
	if (tag == NULL) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
		            "cannot write tags to %s: TagLib cannot read it as "
		            "%s",
		            path, format_names[format]);
		if (file != NULL)
			taglib_file_free(file);
		remove_link(link);
		return FALSE;
	}
	set_text(tag, taglib_tag_set_title, tags->title);
	set_text(tag, taglib_tag_set_album, tags->album);
	set_text(tag, taglib_tag_set_artist, tags->artist);
	set_text(tag, taglib_tag_set_genre, tags->genre);
	set_text(tag, taglib_tag_set_comment, tags->comment);
	if (tags->track > 0)
		taglib_tag_set_track(tag, tags->track);
	if (tags->date != NULL) {
#if BRIDGE_TAGLIB_HAS_PROPERTIES
		taglib_property_set(file, "DATE", tags->date);
#else
		taglib_tag_set_year(tag, date_year(tags->date));
#endif
	}
	saved = taglib_file_save(file);
	taglib_file_free(file);
	remove_link(link);
	if (!saved) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
		            "cannot write tags to %s: TagLib could not save "
		            "them",
		            path);
		return FALSE;
	}
	return TRUE;
}

gboolean
bridge_tags_write(const char *path, const BridgeFileTags *tags, GError **error)
{
	/*
	 * One file at a time, whatever thread asks: TagLib keeps state of
	 * its own for the process (frame factories, string handlers, the C
	 * API's settings), and TagLib 2.0.2 crashed once with distinct files
	 * tagged from several threads at once. Tagging is not on a hot path.
	 */
	static GMutex taglib_lock;
	g_autoptr(GMutexLocker) locker = NULL;

	g_return_val_if_fail(path != NULL, FALSE);
	g_return_val_if_fail(tags != NULL, FALSE);
	g_return_val_if_fail(tags->date == NULL || date_year(tags->date) > 0,
	                     FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	setup_taglib();
	locker = g_mutex_locker_new(&taglib_lock);
	return write_tags(path, tags, error);
}
