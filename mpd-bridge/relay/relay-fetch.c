/*
 * The relay's side towards the hosts: each episode MPD streams is fetched
 * into its cache file at the host's speed, from where MPD asked, to the
 * end, and then what is missing before it. When the host cuts, stalls or
 * refuses, it is asked again from the byte the file has, with Range and
 * If-Range, after a back-off; a host that ignores ranges sends the file
 * from its start again, and the bytes the file has are written over.
 */
#include "relay/relay-private.h"

#include <string.h>
#include <unistd.h>

/* A fetch under way that brings a byte this close goes on for it. */
#define AHEAD (1024 * 1024)
/* Back-off between tries: the first at once, then doubling to the cap. */
#define RETRY_FIRST_MS 250
#define RETRY_MAX_MS   (30 * 1000)
/* A host given up gets another chance from a new request after this. */
#define GONE_RETRY_US (10 * G_USEC_PER_SEC)

/* One request to the host; outlives its entry when the entry goes. */
struct RelayFetch {
	RelayEntry *entry;         /* NULL once the entry let go of it */
	GCancellable *cancellable; /* cancels the request */
	gboolean skip;             /* stopped at bytes the file has: go on
	                              at the next missing byte */
};

static void
start_fetch(RelayEntry *entry, guint64 offset);

static char *
host_of(const char *url)
{
	g_autoptr(GUri) uri = g_uri_parse(url, G_URI_FLAGS_NONE, NULL);
	const char *host = uri != NULL ? g_uri_get_host(uri) : NULL;

	return g_strdup(host != NULL ? host : "the host");
}

RelayEntry *
bridge_relay_entry(BridgeRelay *relay, const char *id,
                   const RelayEpisode *episode)
{
	RelayEntry *entry = g_hash_table_lookup(relay->entries, id);

	if (entry != NULL) {
		if (strcmp(entry->url, episode->url) == 0)
			return entry;
		/* The feed moved the episode: a file of its own. */
		g_hash_table_remove(relay->entries, id);
	}
	entry = g_new0(RelayEntry, 1);
	entry->relay = relay;
	entry->id = g_strdup(id);
	entry->url = g_strdup(episode->url);
	entry->title = g_strdup(episode->title);
	entry->type = g_strdup(episode->type);
	entry->path = g_build_filename(relay->directory, id, NULL);
	entry->fd = -1;
	entry->ranges = bridge_ranges_new();
	bridge_relay_cache_load(entry);
	if (!bridge_relay_cache_open(entry)) {
		bridge_relay_entry_free(entry);
		return NULL;
	}
	g_hash_table_insert(relay->entries, entry->id, entry);
	return entry;
}

static void
let_go(RelayEntry *entry)
{
	RelayFetch *fetch = g_steal_pointer(&entry->fetch);

	if (fetch == NULL)
		return;
	fetch->entry = NULL;
	g_cancellable_cancel(fetch->cancellable);
}

void
bridge_relay_entry_rest(RelayEntry *entry)
{
	let_go(entry);
	g_clear_pointer(&entry->retry, bridge_relay_source_clear);
	bridge_relay_cache_record(entry, FALSE);
}

void
bridge_relay_entry_free(RelayEntry *entry)
{
	bridge_relay_replies_cut(entry);
	bridge_relay_entry_rest(entry);
	if (entry->fd >= 0)
		close(entry->fd);
	bridge_ranges_free(entry->ranges);
	g_free(entry->id);
	g_free(entry->url);
	g_free(entry->title);
	g_free(entry->path);
	g_free(entry->validator);
	g_free(entry->type);
	g_free(entry->gone);
	g_free(entry);
}

static guint64
bytes_there(const RelayEntry *entry)
{
	return bridge_ranges_bytes(entry->ranges);
}

/* Where the newest reply waits, or the first byte missing. */
static guint64
wanted(const RelayEntry *entry)
{
	if (entry->replies != NULL) {
		const RelayReply *reply = entry->replies->data;

		if (reply->answered && reply->next < reply->end)
			return bridge_ranges_next_missing(
			        entry->ranges, reply->next, entry->total);
	}
	return bridge_ranges_next_missing(entry->ranges, 0, entry->total);
}

static gboolean
is_whole(const RelayEntry *entry)
{
	if (entry->total > 0)
		return bridge_ranges_is_whole(entry->ranges, entry->total);
	return entry->ended &&
	       bridge_ranges_end_from(entry->ranges, 0) == entry->fetch_at;
}

static void
became_whole(RelayEntry *entry)
{
	entry->whole = TRUE;
	bridge_relay_replies_wake(entry);
	if (entry->fd >= 0)
		fdatasync(entry->fd);
	entry->synced = bytes_there(entry);
	bridge_relay_cache_record(entry, TRUE);
	g_message("relay: %s is whole in the cache (%" G_GUINT64_FORMAT
	          " bytes)",
	          entry->title, bytes_there(entry));
	bridge_relay_tell(entry, BRIDGE_NEWS_RELAY_WHOLE);
}

/* The file has every byte up to where the host's body ended, or
 * one part is done: fetch what is still missing, while MPD wants it. */
static void
go_on(RelayEntry *entry)
{
	guint64 next;

	if (is_whole(entry)) {
		if (!entry->whole)
			became_whole(entry);
		bridge_relay_replies_wake(entry);
		return;
	}
	bridge_relay_replies_wake(entry);
	if (entry->fetch != NULL || entry->retry != NULL ||
	    bridge_relay_is_stopping(entry->relay))
		return;
	next = wanted(entry);
	if (entry->total > 0 && next >= entry->total)
		return;
	start_fetch(entry, next);
}

/*
 * The part of @entry's file MPD can play before its bytes run out: up
 * to the first byte missing after where the answer MPD streams now (the
 * newest) has got to.
 */
static double
share_for_mpd(const RelayEntry *entry)
{
	guint64 from = 0;

	if (entry->total == 0)
		return 0;
	if (entry->replies != NULL) {
		const RelayReply *reply = entry->replies->data;

		from = reply->next;
	}
	return (double)MIN(bridge_ranges_end_from(entry->ranges, from),
	                   entry->total) /
	       (double)entry->total;
}

/*
 * The host of @entry is given up for now: MPD gets the end of what it
 * streams (relay-reply.c). @status is the host's HTTP status, which MPD
 * gets when nothing came before it; 0: none.
 */
static void
give_up(RelayEntry *entry, guint status, const char *reason)
{
	g_autofree char *host = host_of(entry->url);

	g_clear_pointer(&entry->retry, bridge_relay_source_clear);
	let_go(entry);
	g_free(entry->gone);
	entry->gone = g_strdup(reason);
	entry->gone_at = g_get_monotonic_time();
	entry->gone_status = status;
	/* Nothing came: MPD gets the host's answer and skips, as without
	 * the relay. Mid-way, an episode MPD was playing ends early. */
	if (entry->head_known)
		g_warning("relay: %s gave up %s at byte %" G_GUINT64_FORMAT
		          " of %" G_GUINT64_FORMAT ": %s; MPD plays what came, "
		          "and the episode stays where it was",
		          host, entry->title,
		          bridge_ranges_end_from(entry->ranges, 0),
		          entry->total, reason);
	else
		g_message("relay: %s gave up %s before its first byte: %s",
		          host, entry->title, reason);
	bridge_relay_note_gone(entry, host, reason);
	if (entry->head_known)
		bridge_relay_note_share(entry, share_for_mpd(entry));
	bridge_relay_tell(entry, BRIDGE_NEWS_RELAY_HOST);
	bridge_relay_cache_record(entry, TRUE);
	bridge_relay_replies_wake(entry);
}

void
bridge_relay_fetch_retry_gone(RelayEntry *entry)
{
	if (entry->gone == NULL ||
	    g_get_monotonic_time() - entry->gone_at < GONE_RETRY_US)
		return;
	g_clear_pointer(&entry->gone, g_free);
	bridge_relay_note_share(entry, 0);
	entry->failures = 0;
	entry->failing_since = 0;
}

static gboolean
on_retry(gpointer data)
{
	RelayEntry *entry = data;

	g_clear_pointer(&entry->retry, g_source_unref);
	go_on(entry);
	return G_SOURCE_REMOVE;
}

static guint
backoff_ms(guint failures)
{
	guint ms = RETRY_FIRST_MS;

	for (guint i = 1; i < failures && ms < RETRY_MAX_MS; i++)
		ms *= 2;
	return MIN(ms, RETRY_MAX_MS);
}

/* Whether @n is a try worth a line in the log: the first, then fewer. */
static gboolean
worth_a_line(guint n)
{
	return (n & (n - 1)) == 0;
}

static void
failed(RelayEntry *entry, guint status, const GError *error)
{
	gint64 now = g_get_monotonic_time();
	guint give_up_after = entry->relay->rules.give_up;
	g_autofree char *reason = NULL;
	g_autofree char *host = NULL;

	if (status == 404 || status == 410 ||
	    g_error_matches(error, FEED_ERROR, FEED_ERROR_GONE)) {
		reason = g_strdup_printf("HTTP %u, the file is gone",
		                         status != 0 ? status : 410);
		give_up(entry, status != 0 ? status : 410, reason);
		return;
	}
	if (g_error_matches(error, FEED_ERROR, FEED_ERROR_TOO_LARGE) ||
	    g_error_matches(error, FEED_ERROR, FEED_ERROR_IO)) {
		give_up(entry, 0, error->message);
		return;
	}
	if (status == 416) {
		if (entry->total > 0 && entry->fetch_at >= entry->total) {
			go_on(entry);
			return;
		}
		/* Shorter than it was: another file, asked for whole. */
		g_message("relay: the host changed %s: what MPD streams of it "
		          "ends, and the file starts again",
		          entry->title);
		bridge_relay_replies_stale(entry);
		bridge_relay_cache_reset(entry);
		start_fetch(entry, 0);
		return;
	}
	if (entry->failing_since == 0)
		entry->failing_since = now;
	entry->failures++;
	if (now - entry->failing_since >=
	    (gint64)give_up_after * G_USEC_PER_SEC) {
		reason = g_strdup_printf("failing for %u s: %s", give_up_after,
		                         error->message);
		give_up(entry, status, reason);
		return;
	}
	/* No reply needs it: the next request starts it again. */
	if (entry->replies == NULL)
		return;
	entry->cuts++;
	/* A host that cuts every few seconds would fill the log. */
	if (worth_a_line(entry->failures) &&
	    (entry->failures > 1 || worth_a_line(entry->cuts))) {
		host = host_of(entry->url);
		g_message("relay: %s failed %s at byte %" G_GUINT64_FORMAT
		          " (try %u, cut %u): %s; again in %.1f s",
		          host, entry->title, entry->fetch_at, entry->failures,
		          entry->cuts, error->message,
		          backoff_ms(entry->failures) / 1000.0);
	}
	entry->retry = bridge_relay_timeout(
	        entry->relay, backoff_ms(entry->failures), on_retry, entry);
}

static gboolean
same_file(const RelayEntry *entry, const FeedStreamHead *head)
{
	guint64 total = feed_stream_head_get_total(head);

	/* CDNs give one file other validators at other nodes: its size
	 * says more. */
	return entry->total == 0 || total == 0 || total == entry->total;
}

static gboolean
on_head(const FeedStreamHead *head, gpointer data)
{
	RelayFetch *fetch = data;
	RelayEntry *entry = fetch->entry;
	const char *validator, *type;
	gboolean known = entry != NULL && entry->head_known;
	guint64 total = entry != NULL ? entry->total : 0;
	g_autofree char *before = NULL;

	if (entry == NULL)
		return FALSE;
	before = g_strdup(entry->validator);
	if (entry->head_known && !same_file(entry, head)) {
		g_message("relay: the host changed %s (%" G_GUINT64_FORMAT
		          " bytes, then %" G_GUINT64_FORMAT
		          "): what MPD streams of it ends, and the file "
		          "starts again",
		          entry->title, entry->total,
		          feed_stream_head_get_total(head));
		bridge_relay_replies_stale(entry);
		bridge_relay_cache_reset(entry);
		entry->whole = FALSE;
	}
	/* A later answer without a length does not make it unknown. */
	if (feed_stream_head_get_total(head) > 0)
		entry->total = feed_stream_head_get_total(head);
	validator = feed_stream_head_get_validator(head);
	if (validator != NULL) {
		g_free(entry->validator);
		entry->validator = g_strdup(validator);
	}
	type = feed_stream_head_get_content_type(head);
	if (type != NULL) {
		g_free(entry->type);
		entry->type = g_strdup(type);
	}
	entry->host_ranges = feed_stream_head_get_ranges(head);
	entry->fetch_at = feed_stream_head_get_offset(head);
	entry->head_known = TRUE;
	/* MPD first: the record waits for the disk. A host that cuts every
	 * few seconds says the same each time: no record for that. */
	bridge_relay_replies_wake(entry);
	if (!known || total != entry->total ||
	    g_strcmp0(before, entry->validator) != 0)
		bridge_relay_cache_record(entry, TRUE);
	return TRUE;
}

static gboolean
on_data(guint64 offset, const guint8 *data, gsize length, gpointer user_data)
{
	RelayFetch *fetch = user_data;
	RelayEntry *entry = fetch->entry;

	if (entry == NULL)
		return FALSE;
	/* More than the host said its file has: its end is the end. */
	if (entry->total > 0 && offset + length > entry->total) {
		if (offset >= entry->total) {
			fetch->skip = TRUE;
			return FALSE;
		}
		length = entry->total - offset;
	}
	if (!bridge_relay_cache_write(entry, offset, data, length))
		return FALSE;
	bridge_ranges_add(entry->ranges, offset, offset + length);
	entry->fetch_at = offset + length;
	if (entry->failures > 1) {
		g_autofree char *host = host_of(entry->url);

		g_message("relay: %s is back for %s after %u failed tries",
		          host, entry->title, entry->failures);
	}
	if (entry->failures > 0)
		bridge_relay_tell(entry, BRIDGE_NEWS_RELAY_HOST);
	entry->failures = 0;
	entry->failing_since = 0;
	bridge_relay_cache_record(entry, FALSE);
	bridge_relay_replies_wake(entry);
	/* A long run of bytes ahead is there already: skip it. */
	if (entry->fetch == fetch && entry->total > 0 &&
	    bridge_ranges_end_from(entry->ranges, entry->fetch_at) >
	            entry->fetch_at + AHEAD) {
		fetch->skip = TRUE;
		return FALSE;
	}
	return TRUE;
}

static void
on_done(const FeedStreamHead *head, const GError *error, gpointer data)
{
	RelayFetch *fetch = data;
	RelayEntry *entry = fetch->entry;
	gboolean skip = fetch->skip;
	guint status =
	        head != NULL ? feed_stream_head_get_http_status(head) : 0;

	g_object_unref(fetch->cancellable);
	g_free(fetch);
	if (entry == NULL)
		return;
	entry->fetch = NULL;
	if (error == NULL) {
		if (entry->total == 0)
			entry->ended = TRUE;
		go_on(entry);
	} else if (skip) {
		go_on(entry);
	} else if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
		/* A write to the file failed; it said why. */
		give_up(entry, 0, "the cache file cannot be written");
	} else {
		failed(entry, status, error);
	}
}

static void
start_fetch(RelayEntry *entry, guint64 offset)
{
	g_autoptr(FeedStreamRequest) request =
	        feed_stream_request_new(entry->url);
	RelayFetch *fetch = g_new0(RelayFetch, 1);

	fetch->entry = entry;
	fetch->cancellable = g_cancellable_new();
	feed_stream_request_set_offset(request, offset);
	if (offset > 0 && entry->validator != NULL)
		feed_stream_request_set_validator(request, entry->validator);
	feed_stream_request_set_max_size(request, entry->relay->rules.max_size);
	feed_stream_request_set_funcs(request, on_head, on_data, fetch, NULL);
	entry->fetch = fetch;
	entry->fetch_from = offset;
	entry->fetch_at = offset;
	feed_fetcher_stream(entry->relay->fetcher, request, fetch->cancellable,
	                    on_done, fetch);
}

void
bridge_relay_fetch_want(RelayEntry *entry, guint64 offset, gboolean lead)
{
	guint64 missing;

	if (entry->whole || entry->gone != NULL ||
	    bridge_relay_is_stopping(entry->relay))
		return;
	missing =
	        bridge_ranges_next_missing(entry->ranges, offset, entry->total);
	if (entry->total > 0 && missing >= entry->total)
		return;
	if (entry->fetch != NULL) {
		if (!lead || (entry->fetch_at <= missing &&
		              missing < entry->fetch_at + AHEAD))
			return;
		/* A host without ranges sends it all again from the start. */
		if (entry->head_known && !entry->host_ranges &&
		    entry->fetch_at <= missing)
			return;
		let_go(entry);
	}
	/* A back-off under way ends at the wanted byte. */
	if (entry->retry != NULL)
		return;
	start_fetch(entry, missing);
}
