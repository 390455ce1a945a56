/* Show notes: HTML to plain text. */
#ifndef FEED_HTML_PRIVATE_H
#define FEED_HTML_PRIVATE_H

#include <glib.h>

/*
 * Strips the tags from show-note HTML as podcastparser's remove_html_tags
 * does: `<br>`, `<ul>`, `</ul>` and `</li>` become "\n", `<li>` becomes
 * "\n * ", `<p>` becomes "\n\n", other tags go; `&#NNN;`, `&#xHH;` and named
 * entities are decoded; the contents of `<script>` and `<style>` are
 * dropped; runs of three or more newlines shrink to two; the result is
 * trimmed. html.c lists the few deliberate differences from podcastparser.
 * A reference to 0, a surrogate or a value above U+10FFFF gives U+FFFD, and
 * an unknown entity name is deleted, as in podcastparser. When @html is
 * valid UTF-8, so is the result; invalid bytes pass through. Returns a new
 * string, or NULL for NULL. Linear time.
 */
G_GNUC_INTERNAL
char *
feed_html_to_text(const char *html);

#endif
