/*
 * An episode's page: what the state knows of it (title, date, duration,
 * how far it was heard) and what only its feed says (the notes, chapters,
 * transcripts, funding), read from the feed's cached body when asked.
 */
#include "commands/show.h"

#include "core/call.h"
#include "core/identity.h"
#include "core/notes-cache.h"

#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define DEFAULT_WIDTH 80

/* The episode's page, gathered before it is written out. */
typedef struct {
	const BridgeEpisode *episode;
	const BridgeFeed *feed;
	guint number;              /* in `episodes`; 0 when not there */
	gboolean current;          /* MPD is on it */
	BridgePlayerState playing; /* when current */
	gint64 position;           /* seconds heard, MPD's when current */
	FeedChannel *channel;      /* of the cached body; NULL: none */
	FeedEpisode *item;         /* the feed's item; NULL: not listed */
	FeedNotes *notes;          /* NULL without item */
} Page;

static void
page_clear(Page *page)
{
	g_clear_pointer(&page->channel, feed_channel_unref);
	g_clear_pointer(&page->item, feed_episode_unref);
	g_clear_pointer(&page->notes, feed_notes_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Page, page_clear)

/* Columns for the notes: 0 (no wrapping) in the daemon. */
static guint
text_width(const Bridge *bridge)
{
	const char *env = g_getenv("COLUMNS");
	guint64 columns;
	struct winsize size;

	if (bridge->daemon)
		return 0;
	if (env != NULL &&
	    g_ascii_string_to_unsigned(env, 10, 20, 1000, &columns, NULL))
		return (guint)columns;
	if (isatty(STDOUT_FILENO) &&
	    ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20)
		return size.ws_col;
	return DEFAULT_WIDTH;
}

/* The episode MPD is on, with where it is in it. */
static gboolean
find_current(Bridge *bridge, Page *page, GError **error)
{
	g_auto(BridgePlayerStatus) status = { 0 };
	gboolean ok;

	if (bridge->mpd != NULL)
		ok = bridge_mpd_player_status(bridge->mpd, &status, error);
	else
		ok = bridge_mpd_request_player_status(&bridge->config->mpd,
		                                      &status, error);
	if (!ok)
		return FALSE;
	if (status.uri == NULL)
		return bridge_command_fail(
		        error, BRIDGE_COMMAND_ERROR_FAILED,
		        "MPD has no current song: name an EPISODE (see "
		        "mpd-bridge episodes)");
	page->episode = bridge_identity_find_by_url(bridge, status.uri);
	if (page->episode == NULL)
		return bridge_command_fail(
		        error, BRIDGE_COMMAND_ERROR_FAILED,
		        "MPD is on %s, which is no podcast episode",
		        status.uri);
	page->current = TRUE;
	page->playing = status.state;
	page->position = status.elapsed_ms / 1000;
	return TRUE;
}

static gboolean
find_episode(Bridge *bridge, char **args, Page *page, GError **error)
{
	g_autoptr(GPtrArray) chosen = NULL;
	g_autoptr(GPtrArray) all = NULL;

	if (args[0] == NULL) {
		if (!find_current(bridge, page, error))
			return FALSE;
	} else {
		chosen = bridge_identity_find_episodes(bridge, args, error);
		if (chosen == NULL)
			return FALSE;
		if (chosen->len != 1)
			return bridge_command_fail(error,
			                           BRIDGE_COMMAND_ERROR_USAGE,
			                           "show takes one EPISODE");
		page->episode = chosen->pdata[0];
		page->position = page->episode->position;
	}
	page->feed =
	        bridge_store_find_feed(bridge->store, page->episode->feed_id);
	all = bridge_store_list_episodes(bridge->store, NULL);
	for (guint i = 0; i < all->len; i++)
		if (all->pdata[i] == page->episode)
			page->number = i + 1;
	return page->feed != NULL;
}

/* The notes of the feed's item: HTML when the feed has it. */
static gboolean
read_notes(Bridge *bridge, Page *page, GError **error)
{
	g_autoptr(GError) local = NULL;
	const char *html;

	page->item =
	        bridge_notes_cache_find(bridge, page->feed, page->episode->guid,
	                                &page->channel, &local);
	if (local != NULL &&
	    g_error_matches(local, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
		return bridge_command_fail(
		        error, BRIDGE_COMMAND_ERROR_FAILED,
		        "the show notes of %s are not fetched yet: run "
		        "mpd-bridge refresh '%s' to get them",
		        bridge_feed_get_name(page->feed), page->feed->id);
	if (local != NULL)
		return bridge_command_fail(
		        error, BRIDGE_COMMAND_ERROR_FAILED,
		        "%s; mpd-bridge refresh '%s' fetches it again",
		        local->message, page->feed->id);
	if (page->item == NULL)
		return TRUE;
	html = feed_episode_get_description_html(page->item);
	page->notes =
	        html != NULL
	                ? feed_notes_new_from_html(html, -1)
	                : feed_notes_new_from_text(
	                          feed_episode_get_description(page->item), -1);
	return TRUE;
}

static const char *
state_text(const Page *page)
{
	if (page->current && page->playing == BRIDGE_PLAYER_PLAY)
		return "playing";
	if (page->current && page->playing == BRIDGE_PLAYER_PAUSE)
		return "paused";
	return bridge_episode_get_state(page->episode);
}

/* "1:02:03" or "2:03". */
static char *
clock_text(gint64 seconds)
{
	if (seconds >= 3600)
		return g_strdup_printf("%d:%02d:%02d", (int)(seconds / 3600),
		                       (int)(seconds / 60 % 60),
		                       (int)(seconds % 60));
	return g_strdup_printf("%d:%02d", (int)(seconds / 60),
	                       (int)(seconds % 60));
}

/* "45 s", "16 min", "1 h 05 min". */
static char *
length_text(gint64 seconds)
{
	gint64 minutes = (seconds + 30) / 60;

	if (seconds < 60)
		return g_strdup_printf("%d s", (int)seconds);
	if (minutes >= 60)
		return g_strdup_printf("%d h %02d min", (int)(minutes / 60),
		                       (int)(minutes % 60));
	return g_strdup_printf("%d min", (int)MAX(minutes, 1));
}

/* The line under the title: date · length · state, position. */
static void
append_facts(const Page *page, GString *out)
{
	const BridgeEpisode *e = page->episode;
	g_autoptr(GDateTime) utc = NULL;
	g_autoptr(GDateTime) local = NULL;
	const char *state = state_text(page);
	const char *sep = "";

	if (e->published > 0)
		utc = g_date_time_new_from_unix_utc(e->published);
	local = utc != NULL ? g_date_time_to_local(utc) : NULL;
	if (local != NULL) {
		g_autofree char *day = g_date_time_format(local, "%Y-%m-%d");

		g_string_append(out, day);
		sep = " · ";
	}
	if (e->duration > 0) {
		g_autofree char *length = length_text(e->duration);

		g_string_append_printf(out, "%s%s", sep, length);
		sep = " · ";
	}
	g_string_append_printf(out, "%s%s", sep, state);
	if (page->position > 0 && !e->listened) {
		g_autofree char *at = clock_text(page->position);
		g_autofree char *of =
		        e->duration > 0 ? clock_text(e->duration) : NULL;

		g_string_append_printf(out, ", %s%s%s", at,
		                       of != NULL ? " of " : "",
		                       of != NULL ? of : "");
	}
	g_string_append_c(out, '\n');
}

static void
append_funding(const Page *page, GString *out, const char *gap)
{
	const char *payment = feed_episode_get_payment_url(page->item);
	guint n = feed_channel_get_n_funding(page->channel);

	if (n == 0 && payment == NULL)
		return;
	g_string_append_printf(out, "%sSupport the show:\n", gap);
	for (guint i = 0; i < n; i++) {
		const FeedFunding *f =
		        feed_channel_get_funding(page->channel, i);
		const char *text = feed_funding_get_text(f);

		g_string_append_printf(out, "  %s%s%s\n",
		                       feed_funding_get_url(f),
		                       *text != '\0' ? "  " : "", text);
	}
	if (payment != NULL)
		g_string_append_printf(out, "  %s\n", payment);
}

static void
append_extras(const Page *page, GString *out, const char *gap)
{
	const FeedEpisode *item = page->item;
	guint n_chapters = feed_episode_get_n_chapters(item);
	guint n_transcripts = feed_episode_get_n_transcripts(item);
	const char *chapters_url = feed_episode_get_chapters_url(item);

	if (n_chapters > 0 || chapters_url != NULL)
		g_string_append_printf(out, "%sChapters:%s%s\n", gap,
		                       chapters_url != NULL ? " " : "",
		                       chapters_url != NULL ? chapters_url
		                                            : "");
	for (guint i = 0; i < n_chapters; i++) {
		const FeedChapter *c = feed_episode_get_chapter(item, i);
		const FeedChapter *last =
		        feed_episode_get_chapter(item, n_chapters - 1);
		g_autofree char *at = clock_text(feed_chapter_get_start(c));
		g_autofree char *widest =
		        clock_text(feed_chapter_get_start(last));

		g_string_append_printf(out, "  %*s  %s\n", (int)strlen(widest),
		                       at, feed_chapter_get_title(c));
	}
	if (n_transcripts > 0)
		g_string_append_printf(out, "%sTranscript:\n", gap);
	for (guint i = 0; i < n_transcripts; i++) {
		const FeedTranscript *t = feed_episode_get_transcript(item, i);
		const char *type = feed_transcript_get_mime_type(t);
		const char *language = feed_transcript_get_language(t);

		g_string_append_printf(out, "  %s", feed_transcript_get_url(t));
		if (type != NULL || language != NULL)
			g_string_append_printf(
			        out, " (%s%s%s)", type != NULL ? type : "",
			        type != NULL && language != NULL ? ", " : "",
			        language != NULL ? language : "");
		g_string_append_c(out, '\n');
	}
	append_funding(page, out, gap);
}

/*
 * The page as text. In the daemon the answer becomes one line, each line
 * feed a ';': no blank lines there, and nothing wraps.
 */
static void
write_text(const Bridge *bridge, const Page *page, GString *out)
{
	const char *gap = bridge->daemon ? "" : "\n";
	g_autofree char *text = NULL;
	guint n_links;

	g_string_append_printf(out, "%s\n%s\n",
	                       bridge_feed_get_name(page->feed),
	                       page->episode->title);
	append_facts(page, out);
	if (page->item == NULL) {
		g_string_append_printf(out,
		                       "%sThe feed no longer lists this "
		                       "episode: its show notes are gone.\n",
		                       gap);
		return;
	}
	text = feed_notes_format(page->notes, text_width(bridge));
	if (bridge->daemon)
		g_strdelimit(text, "\n", ' ');
	if (*text != '\0')
		g_string_append_printf(out, "%s%s\n", gap, text);
	n_links = feed_notes_get_n_links(page->notes);
	if (n_links > 0)
		g_string_append(out, gap);
	for (guint i = 0; i < n_links; i++)
		g_string_append_printf(out, "[%u] %s\n", i + 1,
		                       feed_notes_get_link(page->notes, i));
	append_extras(page, out, gap);
}

static void
set_string(JsonObject *object, const char *name, const char *value)
{
	if (value != NULL)
		json_object_set_string_member(object, name, value);
	else
		json_object_set_null_member(object, name);
}

static JsonArray *
chapters_json(const FeedEpisode *item)
{
	JsonArray *array = json_array_new();

	for (guint i = 0; i < feed_episode_get_n_chapters(item); i++) {
		const FeedChapter *c = feed_episode_get_chapter(item, i);
		JsonObject *o = json_object_new();

		json_object_set_int_member(o, "start",
		                           feed_chapter_get_start(c));
		set_string(o, "title", feed_chapter_get_title(c));
		set_string(o, "url", feed_chapter_get_href(c));
		json_array_add_object_element(array, o);
	}
	return array;
}

static JsonArray *
transcripts_json(const FeedEpisode *item)
{
	JsonArray *array = json_array_new();

	for (guint i = 0; i < feed_episode_get_n_transcripts(item); i++) {
		const FeedTranscript *t = feed_episode_get_transcript(item, i);
		JsonObject *o = json_object_new();

		set_string(o, "url", feed_transcript_get_url(t));
		set_string(o, "type", feed_transcript_get_mime_type(t));
		set_string(o, "language", feed_transcript_get_language(t));
		set_string(o, "rel", feed_transcript_get_rel(t));
		json_array_add_object_element(array, o);
	}
	return array;
}

static JsonArray *
funding_json(const Page *page)
{
	JsonArray *array = json_array_new();
	const char *payment = feed_episode_get_payment_url(page->item);

	for (guint i = 0; i < feed_channel_get_n_funding(page->channel); i++) {
		const FeedFunding *f =
		        feed_channel_get_funding(page->channel, i);
		JsonObject *o = json_object_new();

		set_string(o, "url", feed_funding_get_url(f));
		set_string(o, "text", feed_funding_get_text(f));
		json_array_add_object_element(array, o);
	}
	if (payment != NULL) {
		JsonObject *o = json_object_new();

		set_string(o, "url", payment);
		set_string(o, "text", "");
		json_array_add_object_element(array, o);
	}
	return array;
}

static void
write_json(const Bridge *bridge, const Page *page, GString *out)
{
	const BridgeEpisode *e = page->episode;
	g_autoptr(JsonObject) o = json_object_new();
	g_autoptr(JsonNode) root = json_node_new(JSON_NODE_OBJECT);
	g_autoptr(JsonGenerator) generator = json_generator_new();
	g_autofree char *text = NULL;
	JsonArray *references = json_array_new();

	if (page->number > 0)
		json_object_set_int_member(o, "number", page->number);
	else
		json_object_set_null_member(o, "number");
	set_string(o, "id", e->id);
	set_string(o, "guid", e->guid);
	set_string(o, "feed", e->feed_id);
	set_string(o, "podcast", bridge_feed_get_name(page->feed));
	set_string(o, "title", e->title);
	set_string(o, "url", e->url);
	set_string(o, "link",
	           page->item != NULL ? feed_episode_get_link(page->item)
	                              : NULL);
	json_object_set_int_member(o, "published", e->published);
	json_object_set_int_member(o, "duration", e->duration);
	set_string(o, "state", bridge_episode_get_state(e));
	json_object_set_int_member(o, "position", page->position);
	json_object_set_boolean_member(o, "starred", e->starred);
	json_object_set_boolean_member(o, "current", page->current);
	json_object_set_boolean_member(o, "in_feed", page->item != NULL);
	if (page->notes != NULL) {
		g_autofree char *notes = feed_notes_format(page->notes, 0);

		set_string(o, "notes", notes);
		for (guint i = 0; i < feed_notes_get_n_links(page->notes); i++)
			json_array_add_string_element(
			        references,
			        feed_notes_get_link(page->notes, i));
	} else {
		json_object_set_null_member(o, "notes");
	}
	json_object_set_array_member(o, "references", references);
	set_string(o, "chapters_url",
	           page->item != NULL
	                   ? feed_episode_get_chapters_url(page->item)
	                   : NULL);
	json_object_set_array_member(o, "chapters",
	                             page->item != NULL
	                                     ? chapters_json(page->item)
	                                     : json_array_new());
	json_object_set_array_member(o, "transcripts",
	                             page->item != NULL
	                                     ? transcripts_json(page->item)
	                                     : json_array_new());
	json_object_set_array_member(o, "funding",
	                             page->item != NULL ? funding_json(page)
	                                                : json_array_new());
	json_node_set_object(root, o);
	json_generator_set_root(generator, root);
	/* The daemon's answer is one line: JSON with no line feeds. */
	json_generator_set_pretty(generator, !bridge->daemon);
	text = json_generator_to_data(generator, NULL);
	g_string_append(out, text);
}

gboolean
bridge_show_run(Bridge *bridge, char **args, GString *out, GError **error)
{
	g_autoptr(GPtrArray) rest = g_ptr_array_new();
	g_auto(Page) page = { 0 };
	gboolean json = FALSE;

	for (guint i = 0; args[i] != NULL; i++) {
		if (strcmp(args[i], "--json") == 0)
			json = TRUE;
		else
			g_ptr_array_add(rest, args[i]);
	}
	g_ptr_array_add(rest, NULL);
	if (!find_episode(bridge, (char **)rest->pdata, &page, error) ||
	    !read_notes(bridge, &page, error))
		return FALSE;
	if (json)
		write_json(bridge, &page, out);
	else
		write_text(bridge, &page, out);
	return TRUE;
}
