/*
 * XSPF version 1 (https://xspf.org/spec), written with libxml2's
 * xmlTextWriter so that escaping is libxml2's, not ours. Elements follow
 * the order the specification lists them in, so that readers which expect
 * that order (as a sequence in a schema would) read them all.
 */
#include "playlist-private.h"

#include <libxml/xmlwriter.h>
#include <string.h>

#define XSPF_NS "http://xspf.org/ns/0/"

/*
 * A memory writer fails only when libxml2 cannot allocate. GLib's policy,
 * and libfeed's, is to abort then, as g_malloc() does.
 */
static void
must(int rc)
{
	if (rc < 0)
		g_abort();
}

/*
 * Returns @text as XML 1.0 can carry it. XML 1.0 has no way to write C0
 * controls other than TAB, LF and CR, nor U+FFFE and U+FFFF, not even as
 * character references: a reader must reject such a document. DEL and C1
 * controls are legal but no text means them, so they go too. With
 * @multiline, line breaks stay, as LF (a CR would come out as "&#13;");
 * other text has been through feed_playlist_one_line() already and has
 * none.
 */
static char *
xml_text(const char *text, gboolean multiline)
{
	g_autofree char *valid = g_utf8_make_valid(text ? text : "", -1);
	GString *out = g_string_sized_new(strlen(valid));

	for (const char *p = valid; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (c == '\r') {
			if (multiline && p[1] != '\n')
				g_string_append_c(out, '\n');
		} else if (c == '\n' || c == '\t') {
			if (multiline)
				g_string_append_c(out, (char)c);
		} else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) ||
		           c == 0xfffe || c == 0xffff) {
			continue;
		} else {
			g_string_append_unichar(out, c);
		}
	}
	return g_string_free(out, FALSE);
}

/* Writes <@name>@text</@name> unless @text is empty once made one line. */
static void
write_line(xmlTextWriter *writer, const char *name, const char *text)
{
	g_autofree char *line = feed_playlist_one_line(text);
	g_autofree char *value = xml_text(line, FALSE);

	if (*value != '\0')
		must(xmlTextWriterWriteElement(writer, BAD_CAST name,
		                               BAD_CAST value));
}

static void
write_track(xmlTextWriter *writer, const FeedPlaylistEntry *entry)
{
	g_autofree char *annotation = xml_text(entry->description, TRUE);

	must(xmlTextWriterStartElement(writer, BAD_CAST "track"));
	must(xmlTextWriterWriteElement(writer, BAD_CAST "location",
	                               BAD_CAST entry->url));
	write_line(writer, "identifier", entry->guid);
	write_line(writer, "title", entry->title);
	write_line(writer, "creator", entry->artist);
	if (*annotation != '\0')
		must(xmlTextWriterWriteElement(writer, BAD_CAST "annotation",
		                               BAD_CAST annotation));
	if (feed_playlist_url_is_safe(entry->image))
		must(xmlTextWriterWriteElement(writer, BAD_CAST "image",
		                               BAD_CAST entry->image));
	write_line(writer, "album", entry->album);
	if (entry->number > 0)
		must(xmlTextWriterWriteFormatElement(
		        writer, BAD_CAST "trackNum", "%" G_GINT64_FORMAT,
		        entry->number));
	/* Milliseconds; a length past gint64 in them is no real one. */
	if (entry->duration > 0 && entry->duration <= G_MAXINT64 / 1000)
		must(xmlTextWriterWriteFormatElement(
		        writer, BAD_CAST "duration", "%" G_GINT64_FORMAT,
		        entry->duration * 1000));
	must(xmlTextWriterEndElement(writer));
}

char *
feed_xspf_write(const FeedPlaylist *playlist)
{
	xmlBuffer *buffer = xmlBufferCreate();
	xmlTextWriter *writer = NULL;
	char *document;

	if (buffer == NULL)
		g_abort();
	writer = xmlNewTextWriterMemory(buffer, 0);
	if (writer == NULL)
		g_abort();
	must(xmlTextWriterSetIndent(writer, 1));
	must(xmlTextWriterSetIndentString(writer, BAD_CAST "  "));
	must(xmlTextWriterStartDocument(writer, NULL, "UTF-8", NULL));
	must(xmlTextWriterStartElement(writer, BAD_CAST "playlist"));
	must(xmlTextWriterWriteAttribute(writer, BAD_CAST "version",
	                                 BAD_CAST "1"));
	must(xmlTextWriterWriteAttribute(writer, BAD_CAST "xmlns",
	                                 BAD_CAST XSPF_NS));
	write_line(writer, "title", playlist->title);
	must(xmlTextWriterStartElement(writer, BAD_CAST "trackList"));
	for (guint i = 0; i < playlist->entries->len; i++) {
		const FeedPlaylistEntry *entry = playlist->entries->pdata[i];

		if (feed_playlist_url_is_safe(entry->url))
			write_track(writer, entry);
	}
	must(xmlTextWriterEndElement(writer));
	must(xmlTextWriterEndElement(writer));
	must(xmlTextWriterEndDocument(writer));
	xmlFreeTextWriter(writer);
	document = g_strndup((const char *)xmlBufferContent(buffer),
	                     (gsize)xmlBufferLength(buffer));
	xmlBufferFree(buffer);
	return document;
}
