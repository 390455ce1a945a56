#include "listing.h"

#include <string.h>

struct Listing {
	GPtrArray *lines; /* of char *: one an episode, without newline */
};

Listing *
listing_new(void)
{
	Listing *listing = g_new0(Listing, 1);

	listing->lines = g_ptr_array_new_with_free_func(g_free);
	return listing;
}

void
listing_free(Listing *listing)
{
	if (listing == NULL)
		return;
	g_ptr_array_unref(listing->lines);
	g_free(listing);
}

char *
listing_sanitize(const char *text)
{
	GString *out = g_string_sized_new(strlen(text));

	for (const char *p = text; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (c < 0x20 || (c >= 0x7f && c < 0xa0))
			g_string_append_c(out, ' ');
		else
			g_string_append_len(out, p, g_utf8_next_char(p) - p);
	}
	return g_string_free(out, FALSE);
}

static char *
format_date(gint64 published)
{
	g_autoptr(GDateTime) utc = NULL;
	g_autoptr(GDateTime) local = NULL;

	if (published == 0)
		return g_strdup("          ");
	utc = g_date_time_new_from_unix_utc(published);
	if (utc == NULL)
		return g_strdup("          ");
	local = g_date_time_to_local(utc);
	return g_date_time_format(local, "%Y-%m-%d");
}

static char *
format_duration(gint64 seconds)
{
	if (seconds <= 0)
		return g_strdup("      -");
	return g_strdup_printf("%" G_GINT64_FORMAT ":%02d:%02d", seconds / 3600,
	                       (int)(seconds / 60 % 60), (int)(seconds % 60));
}

void
listing_add_episode(FeedEpisode *episode, gpointer data)
{
	Listing *listing = data;
	const char *title = feed_episode_get_title(episode);
	g_autofree char *date =
	        format_date(feed_episode_get_published(episode));
	g_autofree char *duration =
	        format_duration(feed_episode_get_total_time(episode));
	g_autofree char *clean = listing_sanitize(
	        title != NULL && *title != '\0' ? title : "(untitled)");

	g_ptr_array_add(listing->lines,
	                g_strdup_printf("%s  %8s  %s", date, duration, clean));
}

void
listing_print(Listing *listing, const FeedChannel *channel, FILE *out)
{
	const char *title = feed_channel_get_title(channel);
	const char *author = feed_channel_get_author(channel);
	g_autofree char *clean_title =
	        listing_sanitize(*title != '\0' ? title : "(untitled feed)");
	guint n = listing->lines->len;

	fprintf(out, "%s\n", clean_title);
	if (author != NULL && *author != '\0') {
		g_autofree char *clean_author = listing_sanitize(author);

		fprintf(out, "by %s\n", clean_author);
	}
	fputc('\n', out);
	for (guint i = 0; i < n; i++)
		fprintf(out, "%s\n", (char *)listing->lines->pdata[i]);
	if (n > 0)
		fputc('\n', out);
	fprintf(out, "%u episode%s\n", n, n == 1 ? "" : "s");
}
