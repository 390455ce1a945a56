/*
 * Playlist entries: one per episode, from its best usable enclosure,
 * chosen and ordered by the caller's options. The writers are in m3u.c,
 * xspf.c and pls.c.
 */
#include "playlist-private.h"

#include <string.h>

struct FeedPlaylistOptions {
	FeedPlaylistOrder order;
	guint limit;         /* 0 means none */
	gint64 since;        /* Unix seconds; 0 means no bound */
	GRegex *match;       /* NULL means any title */
	GRegex *exclude;     /* NULL means none left out */
	gint64 min_duration; /* seconds; 0 means any */
	FeedMediaKind media;
	FeedEpisodePredicate predicate; /* NULL means none */
	gpointer predicate_data;
};

FeedPlaylistOptions *
feed_playlist_options_new(void)
{
	return g_new0(FeedPlaylistOptions, 1);
}

void
feed_playlist_options_free(FeedPlaylistOptions *options)
{
	if (options == NULL)
		return;
	g_clear_pointer(&options->match, g_regex_unref);
	g_clear_pointer(&options->exclude, g_regex_unref);
	g_free(options);
}

void
feed_playlist_options_set_order(FeedPlaylistOptions *options,
                                FeedPlaylistOrder order)
{
	g_return_if_fail(options != NULL);
	options->order = order;
}

void
feed_playlist_options_set_limit(FeedPlaylistOptions *options, guint limit)
{
	g_return_if_fail(options != NULL);
	options->limit = limit;
}

void
feed_playlist_options_set_since(FeedPlaylistOptions *options, gint64 since)
{
	g_return_if_fail(options != NULL);
	options->since = since;
}

static gboolean
set_regex(GRegex **field, const char *pattern, GError **error)
{
	GRegex *regex = NULL;

	/*
	 * No G_REGEX_OPTIMIZE: PCRE2's JIT saves a few microseconds a title,
	 * and memory checkers cannot follow the code it generates.
	 */
	if (pattern != NULL) {
		regex = g_regex_new(pattern, G_REGEX_CASELESS, 0, error);
		if (regex == NULL)
			return FALSE;
	}
	g_clear_pointer(field, g_regex_unref);
	*field = regex;
	return TRUE;
}

gboolean
feed_playlist_options_set_match(FeedPlaylistOptions *options,
                                const char *pattern, GError **error)
{
	g_return_val_if_fail(options != NULL, FALSE);
	return set_regex(&options->match, pattern, error);
}

gboolean
feed_playlist_options_set_exclude(FeedPlaylistOptions *options,
                                  const char *pattern, GError **error)
{
	g_return_val_if_fail(options != NULL, FALSE);
	return set_regex(&options->exclude, pattern, error);
}

void
feed_playlist_options_set_min_duration(FeedPlaylistOptions *options,
                                       gint64 seconds)
{
	g_return_if_fail(options != NULL);
	options->min_duration = MAX(seconds, 0);
}

void
feed_playlist_options_set_media(FeedPlaylistOptions *options,
                                FeedMediaKind kind)
{
	g_return_if_fail(options != NULL);
	options->media = kind;
}

void
feed_playlist_options_set_predicate(FeedPlaylistOptions *options,
                                    FeedEpisodePredicate predicate,
                                    gpointer user_data)
{
	g_return_if_fail(options != NULL);
	options->predicate = predicate;
	options->predicate_data = user_data;
}

typedef enum {
	KIND_OTHER, /* neither said nor guessable */
	KIND_AUDIO,
	KIND_VIDEO,
} Kind;

/* From the MIME type, else from the file name: feeds often say neither. */
static Kind
kind_of(const char *url, const char *mime_type)
{
	static const char *const audio[] = { ".mp3", ".m4a",  ".aac",  ".ogg",
		                             ".oga", ".opus", ".flac", ".wav",
		                             ".mka", NULL };
	static const char *const video[] = { ".mp4", ".m4v", ".mov", ".webm",
		                             ".mkv", ".ogv", NULL };
	g_autofree char *path = NULL;
	const char *end;

	if (mime_type != NULL && g_str_has_prefix(mime_type, "audio/"))
		return KIND_AUDIO;
	if (mime_type != NULL && g_str_has_prefix(mime_type, "video/"))
		return KIND_VIDEO;
	end = strpbrk(url, "?#");
	path = g_ascii_strdown(url, end != NULL ? end - url : -1);
	for (guint i = 0; audio[i] != NULL; i++)
		if (g_str_has_suffix(path, audio[i]))
			return KIND_AUDIO;
	for (guint i = 0; video[i] != NULL; i++)
		if (g_str_has_suffix(path, video[i]))
			return KIND_VIDEO;
	return KIND_OTHER;
}

/*
 * Whether the authority of an http(s) URL names a host, with a port of
 * digits if any. Enclosure URLs are normalized as podcastparser does,
 * which puts "http://" before anything without "://": "javascript:x" and
 * "data:audio/mpeg,x" come out as http URLs whose port is not a number.
 */
static gboolean
has_host(const char *url)
{
	const char *start = strstr(url, "://") + 3;
	const char *end = start + strcspn(start, "/?#");
	const char *host = start;
	const char *port;
	guint64 value = 0;

	for (const char *p = start; p < end; p++)
		if (*p == '@')
			host = p + 1;
	if (*host == '[') {
		const char *close = memchr(host, ']', end - host);

		if (close == NULL || close == host + 1)
			return FALSE;
		port = close + 1;
		if (port < end && *port != ':')
			return FALSE;
	} else {
		port = memchr(host, ':', end - host);
		if (port == NULL)
			port = end;
		if (port == host)
			return FALSE;
	}
	if (port == end)
		return TRUE;
	for (const char *p = port + 1; p < end; p++) {
		if (!g_ascii_isdigit(*p))
			return FALSE;
		value = value * 10 + (guint64)(*p - '0');
		if (value > 65535)
			return FALSE;
	}
	return TRUE;
}

/*
 * Only http(s) URLs with a host and without control characters, spaces or
 * line separators ever reach a player: entries go to MPD as they are, not
 * only through the writers.
 */
static gboolean
usable_url(const char *url)
{
	if (url == NULL ||
	    !(g_str_has_prefix(url, "http://") ||
	      g_str_has_prefix(url, "https://")) ||
	    strlen(url) <= strlen("https://"))
		return FALSE;
	return feed_playlist_url_is_safe(url) && has_host(url);
}

/* How well a kind fits what was asked; 0 means not at all. */
static int
fitness(Kind kind, FeedMediaKind wanted)
{
	switch (wanted) {
	case FEED_MEDIA_VIDEO:
		return kind == KIND_VIDEO ? 2 : 0;
	case FEED_MEDIA_ANY:
		return kind == KIND_AUDIO ? 3 : kind == KIND_VIDEO ? 2 : 1;
	default:
		/* Most podcasts label nothing and are audio: keep those. */
		return kind == KIND_AUDIO ? 2 : kind == KIND_OTHER ? 1 : 0;
	}
}

typedef struct {
	const char *url;
	const char *mime_type;
	int fit;            /* from fitness(); higher is better */
	gboolean preferred; /* the publisher's default rendition */
	double bitrate;     /* bits per second; 0 means unknown */
} Candidate;

/* Whether @a is a better choice than @b. */
static gboolean
better(const Candidate *a, const Candidate *b)
{
	if (a->fit != b->fit)
		return a->fit > b->fit;
	if (a->preferred != b->preferred)
		return a->preferred;
	return a->bitrate > b->bitrate;
}

static void
consider(Candidate *best, const char *url, const char *mime_type,
         gboolean preferred, double bitrate, FeedMediaKind wanted)
{
	Candidate candidate = { url, mime_type, 0, preferred, bitrate };

	if (!usable_url(url))
		return;
	candidate.fit = fitness(kind_of(url, mime_type), wanted);
	if (candidate.fit > 0 &&
	    (best->url == NULL || better(&candidate, best)))
		*best = candidate;
}

/*
 * The enclosures in document order, the publisher's own first choice
 * winning ties; then the podcast:alternateEnclosure renditions, of which
 * a default one or a higher bit rate wins, but only over a worse fit.
 */
static Candidate
best_enclosure(const FeedEpisode *episode, FeedMediaKind wanted)
{
	Candidate best = { NULL, NULL, 0, FALSE, 0 };
	guint n = feed_episode_get_n_enclosures(episode);
	guint n_alternates = feed_episode_get_n_alternate_enclosures(episode);

	for (guint i = 0; i < n; i++) {
		const FeedEnclosure *e = feed_episode_get_enclosure(episode, i);

		consider(&best, feed_enclosure_get_url(e),
		         feed_enclosure_get_mime_type(e), i == 0, 0, wanted);
	}
	for (guint i = 0; i < n_alternates; i++) {
		const FeedAlternateEnclosure *a =
		        feed_episode_get_alternate_enclosure(episode, i);

		for (guint s = 0; s < feed_alternate_enclosure_get_n_sources(a);
		     s++)
			consider(&best,
			         feed_alternate_enclosure_get_source(a, s),
			         feed_alternate_enclosure_get_mime_type(a),
			         feed_alternate_enclosure_is_default(a),
			         feed_alternate_enclosure_get_bitrate(a),
			         wanted);
	}
	return best;
}

static gboolean
matches(GRegex *regex, const char *title)
{
	return g_regex_match(regex, title, 0, NULL);
}

static gboolean
wanted(const FeedEpisode *episode, const FeedPlaylistOptions *options)
{
	const char *title = feed_episode_get_title(episode);
	gint64 published = feed_episode_get_published(episode);
	gint64 duration = feed_episode_get_total_time(episode);

	if (title == NULL || *title == '\0')
		return FALSE;
	if (options->since != 0 &&
	    (published == 0 || published < options->since))
		return FALSE;
	if (options->match != NULL && !matches(options->match, title))
		return FALSE;
	if (options->exclude != NULL && matches(options->exclude, title))
		return FALSE;
	if (options->min_duration > 0 && duration > 0 &&
	    duration < options->min_duration)
		return FALSE;
	if (options->predicate != NULL &&
	    !options->predicate(episode, options->predicate_data))
		return FALSE;
	return TRUE;
}

static void
entry_free(gpointer data)
{
	FeedPlaylistEntry *entry = data;

	g_free(entry->url);
	g_free(entry->mime_type);
	g_free(entry->title);
	g_free(entry->album);
	g_free(entry->artist);
	g_free(entry->guid);
	g_free(entry->image);
	g_free(entry->description);
	g_free(entry);
}

static FeedPlaylistEntry *
entry_new(const FeedChannel *channel, const FeedEpisode *episode,
          const Candidate *enclosure)
{
	FeedPlaylistEntry *entry = g_new0(FeedPlaylistEntry, 1);
	const char *artist = feed_episode_get_itunes_author(episode);
	const char *image = feed_episode_get_image_url(episode);
	const char *guid = feed_episode_get_guid(episode);

	if (artist == NULL || *artist == '\0')
		artist = feed_channel_get_author(channel);
	if (image == NULL)
		image = feed_channel_get_image_url(channel);
	entry->url = g_strdup(enclosure->url);
	entry->mime_type = g_strdup(enclosure->mime_type);
	entry->title = g_strdup(feed_episode_get_title(episode));
	entry->album = g_strdup(feed_channel_get_title(channel));
	entry->artist =
	        artist != NULL && *artist != '\0' ? g_strdup(artist) : NULL;
	entry->guid = g_strdup(guid != NULL ? guid : enclosure->url);
	entry->image = g_strdup(image);
	entry->description = g_strdup(feed_episode_get_description(episode));
	entry->date = feed_episode_get_published(episode);
	entry->duration = feed_episode_get_total_time(episode);
	entry->number = feed_episode_get_number(episode);
	entry->season = feed_episode_get_season(episode);
	return entry;
}

typedef struct {
	FeedPlaylistEntry *entry;
	guint position; /* in the document, to keep ties stable */
} Ranked;

static gint
newest_first(gconstpointer a, gconstpointer b)
{
	const Ranked *x = a;
	const Ranked *y = b;

	if (x->entry->date != y->entry->date)
		return x->entry->date > y->entry->date ? -1 : 1;
	return x->position < y->position ? -1 : 1;
}

static gint
oldest_first(gconstpointer a, gconstpointer b)
{
	const Ranked *x = a;
	const Ranked *y = b;

	if (x->entry->date != y->entry->date)
		return x->entry->date < y->entry->date ? -1 : 1;
	return x->position < y->position ? -1 : 1;
}

FeedPlaylist *
feed_playlist_new(const FeedChannel *channel,
                  const FeedPlaylistOptions *options)
{
	g_autoptr(FeedPlaylistOptions) defaults = NULL;
	g_autoptr(GArray) ranked = g_array_new(FALSE, FALSE, sizeof(Ranked));
	g_autoptr(GHashTable) urls = g_hash_table_new(g_str_hash, g_str_equal);
	FeedPlaylist *playlist;
	FeedPlaylistOrder order;
	guint n;

	g_return_val_if_fail(channel != NULL, NULL);
	if (options == NULL)
		options = defaults = feed_playlist_options_new();

	for (guint i = 0; i < feed_channel_get_n_episodes(channel); i++) {
		const FeedEpisode *episode =
		        feed_channel_get_episode(channel, i);
		Candidate enclosure;
		Ranked item;

		if (!wanted(episode, options))
			continue;
		enclosure = best_enclosure(episode, options->media);
		/* A feed that repeats an item must not play it twice. */
		if (enclosure.url == NULL ||
		    g_hash_table_contains(urls, enclosure.url))
			continue;
		g_hash_table_add(urls, (char *)enclosure.url);
		item.entry = entry_new(channel, episode, &enclosure);
		item.position = i;
		g_array_append_val(ranked, item);
	}

	order = options->order;
	if (order == FEED_PLAYLIST_ORDER_DEFAULT)
		order = feed_channel_get_show_type(channel) ==
		                        FEED_SHOW_TYPE_SERIAL
		                ? FEED_PLAYLIST_ORDER_OLDEST_FIRST
		                : FEED_PLAYLIST_ORDER_NEWEST_FIRST;
	g_array_sort(ranked, order == FEED_PLAYLIST_ORDER_OLDEST_FIRST
	                             ? oldest_first
	                             : newest_first);

	playlist = g_new0(FeedPlaylist, 1);
	g_atomic_ref_count_init(&playlist->ref);
	playlist->title = g_strdup(feed_channel_get_title(channel));
	playlist->entries = g_ptr_array_new_with_free_func(entry_free);
	n = options->limit != 0 ? MIN(options->limit, ranked->len)
	                        : ranked->len;
	for (guint i = 0; i < ranked->len; i++) {
		FeedPlaylistEntry *entry =
		        g_array_index(ranked, Ranked, i).entry;

		if (i < n)
			g_ptr_array_add(playlist->entries, entry);
		else
			entry_free(entry);
	}
	return playlist;
}

FeedPlaylist *
feed_playlist_ref(FeedPlaylist *playlist)
{
	g_return_val_if_fail(playlist != NULL, NULL);
	g_atomic_ref_count_inc(&playlist->ref);
	return playlist;
}

void
feed_playlist_unref(FeedPlaylist *playlist)
{
	if (playlist == NULL || !g_atomic_ref_count_dec(&playlist->ref))
		return;
	g_free(playlist->title);
	g_ptr_array_unref(playlist->entries);
	g_free(playlist);
}

const char *
feed_playlist_get_title(const FeedPlaylist *playlist)
{
	g_return_val_if_fail(playlist != NULL, NULL);
	return playlist->title;
}

guint
feed_playlist_get_n_entries(const FeedPlaylist *playlist)
{
	g_return_val_if_fail(playlist != NULL, 0);
	return playlist->entries->len;
}

const FeedPlaylistEntry *
feed_playlist_get_entry(const FeedPlaylist *playlist, guint index)
{
	g_return_val_if_fail(playlist != NULL, NULL);
	g_return_val_if_fail(index < playlist->entries->len, NULL);
	return g_ptr_array_index(playlist->entries, index);
}

char *
feed_playlist_to_string(const FeedPlaylist *playlist, FeedPlaylistFormat format)
{
	g_return_val_if_fail(playlist != NULL, NULL);
	switch (format) {
	case FEED_PLAYLIST_FORMAT_XSPF:
		return feed_xspf_write(playlist);
	case FEED_PLAYLIST_FORMAT_PLS:
		return feed_pls_write(playlist);
	default:
		return feed_m3u_write(playlist);
	}
}

char *
feed_playlist_one_line(const char *text)
{
	GString *out;
	gboolean space = FALSE;

	if (text == NULL)
		return g_strdup("");
	out = g_string_sized_new(strlen(text));
	for (const char *p = text; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (c <= 0x20 || (c >= 0x7f && c <= 0xa0) || c == 0x2028 ||
		    c == 0x2029) {
			space = out->len > 0;
			continue;
		}
		if (space)
			g_string_append_c(out, ' ');
		space = FALSE;
		g_string_append_len(out, p, g_utf8_next_char(p) - p);
	}
	return g_string_free(out, FALSE);
}

gboolean
feed_playlist_url_is_safe(const char *url)
{
	if (url == NULL || *url == '\0' || !g_utf8_validate(url, -1, NULL))
		return FALSE;
	for (const char *p = url; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (c <= 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 ||
		    c == 0x2029 || c == 0xfffe || c == 0xffff)
			return FALSE;
	}
	return TRUE;
}

char *
feed_playlist_entry_display_name(const FeedPlaylistEntry *entry)
{
	g_autofree char *artist = feed_playlist_one_line(entry->artist);
	g_autofree char *title = feed_playlist_one_line(entry->title);

	if (*artist == '\0')
		return g_steal_pointer(&title);
	if (*title == '\0')
		return g_steal_pointer(&artist);
	return g_strconcat(artist, " - ", title, NULL);
}

const char *
feed_playlist_entry_get_url(const FeedPlaylistEntry *entry)
{
	g_return_val_if_fail(entry != NULL, NULL);
	return entry->url;
}

const char *
feed_playlist_entry_get_mime_type(const FeedPlaylistEntry *entry)
{
	g_return_val_if_fail(entry != NULL, NULL);
	return entry->mime_type;
}

const char *
feed_playlist_entry_get_title(const FeedPlaylistEntry *entry)
{
	g_return_val_if_fail(entry != NULL, NULL);
	return entry->title;
}

const char *
feed_playlist_entry_get_album(const FeedPlaylistEntry *entry)
{
	g_return_val_if_fail(entry != NULL, NULL);
	return entry->album;
}

const char *
feed_playlist_entry_get_artist(const FeedPlaylistEntry *entry)
{
	g_return_val_if_fail(entry != NULL, NULL);
	return entry->artist;
}

gint64
feed_playlist_entry_get_date(const FeedPlaylistEntry *entry)
{
	g_return_val_if_fail(entry != NULL, 0);
	return entry->date;
}

gint64
feed_playlist_entry_get_duration(const FeedPlaylistEntry *entry)
{
	g_return_val_if_fail(entry != NULL, 0);
	return entry->duration;
}

gint64
feed_playlist_entry_get_number(const FeedPlaylistEntry *entry)
{
	g_return_val_if_fail(entry != NULL, 0);
	return entry->number;
}

gint64
feed_playlist_entry_get_season(const FeedPlaylistEntry *entry)
{
	g_return_val_if_fail(entry != NULL, -1);
	return entry->season;
}

const char *
feed_playlist_entry_get_guid(const FeedPlaylistEntry *entry)
{
	g_return_val_if_fail(entry != NULL, NULL);
	return entry->guid;
}

const char *
feed_playlist_entry_get_image(const FeedPlaylistEntry *entry)
{
	g_return_val_if_fail(entry != NULL, NULL);
	return entry->image;
}

const char *
feed_playlist_entry_get_description(const FeedPlaylistEntry *entry)
{
	g_return_val_if_fail(entry != NULL, NULL);
	return entry->description;
}
