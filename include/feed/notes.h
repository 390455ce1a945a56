/* Show notes laid out as readable text, with their links as references. */
#ifndef FEED_NOTES_H
#define FEED_NOTES_H

#include <feed/version.h>
#include <glib.h>

G_BEGIN_DECLS

/**
 * An episode's show notes, read once and laid out on demand: paragraphs,
 * line breaks, lists (bullets and numbers), headings, quotes and
 * preformatted text, with each link's target collected as a numbered
 * reference ("the text [1]") instead of inline. Immutable once made.
 *
 * This is for people reading the notes. The plain text of
 * feed_episode_get_description() follows podcastparser's rules instead,
 * for programs that compare with it.
 */
typedef struct FeedNotes FeedNotes;

/**
 * Reads show notes given as HTML, with libxml2's HTML parser: never
 * over the network, with no external entity or DTD loaded. Entities are
 * decoded; `<script>`, `<style>` and the document's head are left out;
 * control characters go; invalid UTF-8 is repaired. A link to an absolute
 * URL (other than `javascript:` and `data:`) becomes a reference, one
 * number per distinct URL; when its text is the URL itself, the text
 * becomes just the reference mark, so that the URL is not there twice.
 *
 * @param html the HTML, a fragment or a document
 * @param length bytes of @p html, or -1 when it is NUL-terminated
 * @return (transfer full) the notes; free with feed_notes_free()
 * @since 0.1
 */
FEED_PUBLIC
FeedNotes *
feed_notes_new_from_html(const char *html, gssize length);

/**
 * Reads show notes given as plain text: blank lines separate paragraphs,
 * other line breaks stay. Control characters go; invalid UTF-8 is
 * repaired. Plain text has no links to collect.
 *
 * @param text the text
 * @param length bytes of @p text, or -1 when it is NUL-terminated
 * @return (transfer full) the notes; free with feed_notes_free()
 * @since 0.1
 */
FEED_PUBLIC
FeedNotes *
feed_notes_new_from_text(const char *text, gssize length);

/**
 * Frees notes.
 *
 * @param notes (nullable) notes, or NULL to do nothing
 * @since 0.1
 */
FEED_PUBLIC
void
feed_notes_free(FeedNotes *notes);

/**
 * Lays the notes out as lines of at most @p width columns, breaking
 * between words: a word longer than a line is cut. Columns are counted per
 * character, wide (East Asian) characters as two and combining ones as
 * none. Blocks are separated by a blank line, list items by a line break.
 * Preformatted text keeps its lines and is never wrapped. The text has no
 * control characters other than line feeds, and no line feed at its end.
 *
 * @param notes notes
 * @param width columns per line; 0 wraps nothing: each paragraph is one
 *        line (as a program reading the text wants it)
 * @return (transfer full) the text, `""` when the notes are empty
 * @since 0.1
 */
FEED_PUBLIC
char *
feed_notes_format(const FeedNotes *notes, guint width);

/**
 * Returns how many references the notes have.
 *
 * @param notes notes
 * @return the number of distinct link targets
 * @since 0.1
 */
FEED_PUBLIC
guint
feed_notes_get_n_links(const FeedNotes *notes);

/**
 * Returns the target of a reference: index 0 is the one marked `[1]` in
 * the text.
 *
 * @param notes notes
 * @param index from 0 to feed_notes_get_n_links() - 1
 * @return (transfer none) the URL, with no control characters
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_notes_get_link(const FeedNotes *notes, guint index);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(FeedNotes, feed_notes_free)

G_END_DECLS

#endif
