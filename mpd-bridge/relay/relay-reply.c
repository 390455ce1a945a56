/*
 * The relay's answers to MPD: which requests it serves (GET and HEAD of
 * an episode the store knows, at 127.0.0.1), the status and headers of
 * the answer (one range, a length and Accept-Ranges whenever the host
 * gave a length), and its body, from the cache file as the bytes get
 * there. libsoup writes what is handed to it; a reply hands over a chunk
 * or two at a time, so memory stays flat however large the episode.
 */
#include "relay/relay-private.h"

#include "core/relay-url.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

/* Chunks handed to libsoup and not yet written, at most. */
#define QUEUED_MAX 2

/* What a host gone for good leaves of an answer that said its length:
 * zeros, which decoders skip, so that MPD sees a whole answer end
 * (MPD 0.23 hangs on a cut). */
static const guint8 zeros[RELAY_CHUNK];

static void
on_wrote_chunk(SoupServerMessage *msg, gpointer data);

static void
on_finished(SoupServerMessage *msg, gpointer data);

static void
pump(RelayReply *reply);

static void
stop_watching(RelayReply *reply)
{
	if (reply->hangup == NULL)
		return;
	g_source_destroy(reply->hangup);
	g_clear_pointer(&reply->hangup, g_source_unref);
}

static void
reply_free(RelayReply *reply)
{
	RelayEntry *entry = reply->entry;

	stop_watching(reply);
	if (reply->msg != NULL)
		g_signal_handlers_disconnect_by_data(reply->msg, reply);
	entry->replies = g_list_remove(entry->replies, reply);
	if (entry->replies == NULL)
		entry->idle_since = g_get_monotonic_time();
	g_free(reply);
}

static void
on_finished(SoupServerMessage *msg, gpointer data)
{
	RelayReply *reply = data;

	reply_free(reply);
}

static void
on_wrote_chunk(SoupServerMessage *msg, gpointer data)
{
	RelayReply *reply = data;

	if (reply->queued > 0)
		reply->queued--;
	pump(reply);
}

static void
finish_with(SoupServerMessage *msg, guint status, const char *text)
{
	SoupMessageHeaders *headers =
	        soup_server_message_get_response_headers(msg);

	soup_message_headers_replace(headers, "Cache-Control", "no-store");
	soup_server_message_set_status(msg, status, NULL);
	if (text != NULL)
		soup_server_message_set_response(msg, "text/plain",
		                                 SOUP_MEMORY_COPY, text,
		                                 strlen(text));
}

/*
 * MPD closed its side while the reply waits for the host: libsoup does
 * not look at a paused connection, so the relay does, and ends it.
 */
static gboolean
on_hangup(GSocket *socket, GIOCondition condition, gpointer data)
{
	RelayReply *reply = data;
	char byte;
	ssize_t got = recv(g_socket_get_fd(socket), &byte, 1,
	                   MSG_PEEK | MSG_DONTWAIT);

	if (got > 0 || (got < 0 && (errno == EAGAIN || errno == EINTR)))
		return G_SOURCE_CONTINUE;
	g_clear_pointer(&reply->hangup, g_source_unref);
	g_socket_shutdown(socket, TRUE, TRUE, NULL);
	/* A byte to write makes libsoup find the end, and finish. */
	soup_message_body_append(
	        soup_server_message_get_response_body(reply->msg),
	        SOUP_MEMORY_STATIC, zeros, 1);
	soup_server_message_unpause(reply->msg);
	return G_SOURCE_REMOVE;
}

static void
watch_hangup(RelayReply *reply)
{
	GSocket *socket =
	        bridge_relay_socket_of(reply->entry->relay, reply->msg);

	if (reply->hangup != NULL || socket == NULL)
		return;
	reply->hangup = g_socket_create_source(
	        socket, G_IO_IN | G_IO_HUP | G_IO_ERR, NULL);
	g_source_set_callback(reply->hangup, G_SOURCE_FUNC(on_hangup), reply,
	                      NULL);
	g_source_attach(reply->hangup, reply->entry->relay->context);
}

/* The file's size as far as it is known now; 0 while it is not. */
static guint64
size_of(const RelayEntry *entry)
{
	if (entry->total > 0)
		return entry->total;
	if (entry->ended)
		return bridge_ranges_end_from(entry->ranges, 0);
	return 0;
}

/*
 * Hands libsoup what comes next: bytes from the file, or zeros after the
 * host was given up; waits for the host when the bytes are not there.
 */
static void
pump(RelayReply *reply)
{
	RelayEntry *entry = reply->entry;
	SoupMessageBody *body;
	gboolean handed = FALSE;

	if (reply->msg == NULL || !reply->answered || reply->head)
		return;
	body = soup_server_message_get_response_body(reply->msg);
	while (reply->queued < QUEUED_MAX && reply->next < reply->end) {
		guint64 there =
		        bridge_ranges_end_from(entry->ranges, reply->next);
		guint64 size = size_of(entry);
		g_autoptr(GBytes) bytes = NULL;
		gsize n;

		if (reply->stale)
			there = reply->next;
		if (there > reply->next) {
			n = MIN(MIN(there, reply->end) - reply->next,
			        RELAY_CHUNK);
			bytes = bridge_relay_cache_read(entry, reply->next, n);
			if (bytes == NULL) {
				reply->stale = TRUE;
				continue;
			}
			soup_message_body_append_bytes(body, bytes);
		} else if (entry->gone != NULL || reply->stale) {
			if (reply->end == G_MAXUINT64) {
				reply->end = reply->next;
				break;
			}
			n = MIN(reply->end - reply->next, RELAY_CHUNK);
			soup_message_body_append(body, SOUP_MEMORY_STATIC,
			                         zeros, n);
		} else if (reply->end == G_MAXUINT64 && size > 0 &&
		           reply->next >= size) {
			reply->end = reply->next;
			break;
		} else {
			bridge_relay_fetch_want(entry, reply->next,
			                        entry->replies != NULL &&
			                                entry->replies->data ==
			                                        reply);
			watch_hangup(reply);
			break;
		}
		reply->next += n;
		reply->queued++;
		handed = TRUE;
	}
	if (reply->next >= reply->end && !reply->completed) {
		soup_message_body_complete(body);
		reply->completed = TRUE;
		handed = TRUE;
	}
	if (handed) {
		stop_watching(reply);
		soup_server_message_unpause(reply->msg);
	}
}

/* bytes=-N: the last N bytes, all of a file shorter than that. */
static gboolean
is_suffix(const char *range)
{
	const char *p = strchr(range, '=');

	if (p == NULL)
		return FALSE;
	for (p++; *p == ' ' || *p == '\t'; p++)
		;
	return *p == '-';
}

/*
 * The range asked for in a file of @size bytes; FALSE when none is. A
 * start past any file's end (libsoup reads one past 2^63 as negative)
 * comes back as past @size: not satisfiable.
 */
static gboolean
asked_range(SoupServerMessage *msg, guint64 size, guint64 *start, guint64 *end)
{
	SoupMessageHeaders *request =
	        soup_server_message_get_request_headers(msg);
	const char *header = soup_message_headers_get_one(request, "Range");
	SoupRange *ranges = NULL;
	int n = 0;
	gboolean one;

	if (!soup_message_headers_get_ranges(request, (goffset)size, &ranges,
	                                     &n))
		return FALSE;
	/* Several ranges get the whole file, as HTTP allows. */
	one = n == 1;
	if (one) {
		if (ranges[0].start >= 0)
			*start = (guint64)ranges[0].start;
		else
			*start = is_suffix(header) ? 0 : G_MAXUINT64;
		*end = ranges[0].end < 0 || (guint64)ranges[0].end >= size
		               ? size
		               : (guint64)ranges[0].end + 1;
	}
	soup_message_headers_free_ranges(request, ranges);
	return one;
}

/* Status and headers, now that the host said what the file is. */
static void
answer(RelayReply *reply)
{
	RelayEntry *entry = reply->entry;
	SoupServerMessage *msg = reply->msg;
	SoupMessageHeaders *headers =
	        soup_server_message_get_response_headers(msg);
	guint64 size = size_of(entry);
	guint64 start = 0, end = size;
	guint status = SOUP_STATUS_OK;

	reply->answered = TRUE;
	if (!entry->head_known && !entry->whole) {
		g_autofree char *text = g_strdup_printf(
		        "the host of %s is given up: %s\n", entry->title,
		        entry->gone != NULL ? entry->gone : "no answer");

		/* The host's own answer, as MPD would have had it. */
		finish_with(msg,
		            entry->gone_status >= 400 &&
		                            entry->gone_status < 600
		                    ? entry->gone_status
		                    : SOUP_STATUS_BAD_GATEWAY,
		            text);
		soup_server_message_unpause(msg);
		return;
	}
	if (size > 0) {
		soup_message_headers_replace(headers, "Accept-Ranges", "bytes");
		if (asked_range(msg, size, &start, &end)) {
			if (start >= size || start >= end) {
				g_autofree char *range = g_strdup_printf(
				        "bytes */%" G_GUINT64_FORMAT, size);

				soup_message_headers_replace(
				        headers, "Content-Range", range);
				finish_with(
				        msg,
				        SOUP_STATUS_REQUESTED_RANGE_NOT_SATISFIABLE,
				        NULL);
				soup_server_message_unpause(msg);
				return;
			}
			status = SOUP_STATUS_PARTIAL_CONTENT;
			soup_message_headers_set_content_range(
			        headers, (goffset)start, (goffset)end - 1,
			        (goffset)size);
		}
		soup_message_headers_set_content_length(headers,
		                                        (goffset)(end - start));
	} else {
		/* No length: MPD reads to the end, and cannot seek. */
		soup_message_headers_set_encoding(headers,
		                                  SOUP_ENCODING_CHUNKED);
		end = G_MAXUINT64;
	}
	soup_message_headers_replace(headers, "Content-Type",
	                             entry->type != NULL ? entry->type
	                                                 : "audio/mpeg");
	soup_message_headers_replace(headers, "Cache-Control", "no-store");
	soup_server_message_set_status(msg, status, NULL);
	reply->start = reply->next = start;
	reply->end = end;
	if (reply->head) {
		soup_message_body_complete(
		        soup_server_message_get_response_body(msg));
		soup_server_message_unpause(msg);
		return;
	}
	pump(reply);
}

void
bridge_relay_replies_wake(RelayEntry *entry)
{
	g_autoptr(GList) replies = g_list_copy(entry->replies);

	/* A reply may finish, and go, as it is woken. */
	for (GList *l = replies; l != NULL; l = l->next) {
		RelayReply *reply = l->data;

		if (g_list_find(entry->replies, reply) == NULL ||
		    reply->msg == NULL)
			continue;
		if (!reply->answered) {
			if (entry->head_known || entry->whole ||
			    entry->gone != NULL)
				answer(reply);
		} else {
			pump(reply);
		}
	}
}

void
bridge_relay_replies_stale(RelayEntry *entry)
{
	for (GList *l = entry->replies; l != NULL; l = l->next) {
		RelayReply *reply = l->data;

		if (reply->answered)
			reply->stale = TRUE;
	}
}

void
bridge_relay_replies_cut(RelayEntry *entry)
{
	while (entry->replies != NULL) {
		RelayReply *reply = entry->replies->data;
		GSocket *socket =
		        bridge_relay_socket_of(entry->relay, reply->msg);

		if (socket != NULL)
			g_socket_shutdown(socket, TRUE, TRUE, NULL);
		reply_free(reply);
	}
}

/* The Host a request names is the relay's own: a page elsewhere that
 * sends a browser here with another name (DNS rebinding) gets nothing. */
static gboolean
is_own_host(const BridgeRelay *relay, SoupServerMessage *msg)
{
	const char *host = soup_message_headers_get_one(
	        soup_server_message_get_request_headers(msg), "Host");
	g_autofree char *ip = g_strdup_printf("127.0.0.1:%u", relay->port);
	g_autofree char *name = g_strdup_printf("localhost:%u", relay->port);

	return host != NULL && (g_ascii_strcasecmp(host, ip) == 0 ||
	                        g_ascii_strcasecmp(host, name) == 0);
}

/* Where a first request starts, before the file's size is known. */
static guint64
first_byte_asked(SoupServerMessage *msg)
{
	guint64 start = 0, end = 0;

	return asked_range(msg, 0, &start, &end) ? start : 0;
}

void
bridge_relay_on_request(SoupServer *server, SoupServerMessage *msg,
                        const char *path, GHashTable *query, gpointer user_data)
{
	BridgeRelay *relay = user_data;
	const char *method = soup_server_message_get_method(msg);
	g_autofree char *id = NULL;
	RelayEpisode episode = { NULL };
	RelayEntry *entry;
	RelayReply *reply;

	bridge_relay_request_began(relay, msg);
	if (bridge_relay_is_stopping(relay)) {
		finish_with(msg, SOUP_STATUS_SERVICE_UNAVAILABLE, NULL);
		return;
	}
	if (method != SOUP_METHOD_GET && method != SOUP_METHOD_HEAD) {
		soup_message_headers_replace(
		        soup_server_message_get_response_headers(msg), "Allow",
		        "GET, HEAD");
		finish_with(msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
		return;
	}
	if (!is_own_host(relay, msg)) {
		finish_with(msg, SOUP_STATUS_FORBIDDEN, NULL);
		return;
	}
	if (query == NULL)
		id = bridge_relay_url_episode(path, TRUE);
	/* Only an episode whose URL the daemon handed to MPD. */
	if (id == NULL || !bridge_relay_lookup(relay, id, &episode)) {
		finish_with(msg, SOUP_STATUS_NOT_FOUND, NULL);
		return;
	}
	entry = bridge_relay_entry(relay, id, &episode);
	bridge_relay_episode_clear(&episode);
	if (entry == NULL) {
		finish_with(msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, NULL);
		return;
	}
	reply = g_new0(RelayReply, 1);
	reply->entry = entry;
	reply->msg = msg;
	reply->head = method == SOUP_METHOD_HEAD;
	soup_message_body_set_accumulate(
	        soup_server_message_get_response_body(msg), FALSE);
	g_signal_connect(msg, "wrote-chunk", G_CALLBACK(on_wrote_chunk), reply);
	g_signal_connect(msg, "finished", G_CALLBACK(on_finished), reply);
	entry->replies = g_list_prepend(entry->replies, reply);
	entry->idle_since = 0;
	soup_server_message_pause(msg);
	bridge_relay_fetch_retry_gone(entry);
	if (entry->head_known || entry->whole || entry->gone != NULL)
		answer(reply);
	else
		bridge_relay_fetch_want(entry, first_byte_asked(msg), TRUE);
}
