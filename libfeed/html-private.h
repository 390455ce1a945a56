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
 * trimmed. @html must be valid UTF-8; so is the result.
 */
G_GNUC_INTERNAL
char *
feed_html_to_text(const char *html);

#endif
