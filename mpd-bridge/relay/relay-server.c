/*
 * The relay's server, on the relay's thread. The server is libsoup's: it
 * parses requests and writes answers, so the relay only decides what to
 * send. It gets its connections from a GSocketService of ours rather
 * than listening itself, so that each is checked (a loopback peer) and
 * counted (a bound on how many MPD's side may hold) before libsoup sees
 * a byte of it.
 */
#include "relay/relay-private.h"

#include <netinet/in.h>
#include <netinet/tcp.h>

/* Connections held at once; MPD needs one or two. */
#define MAX_CONNECTIONS 32
/* A connection that asks nothing for this long is closed. */
#define IDLE_CONNECTION_US (30 * G_USEC_PER_SEC)
/* An entry no reply needed for this long stops fetching, and goes. */
#define IDLE_ENTRY_US (60 * G_USEC_PER_SEC)
/* How often the two above are looked at, in milliseconds. */
#define SWEEP_MS 5000

/*
 * One connection MPD's side opened, as long as libsoup holds it: a weak
 * reference says when libsoup let go of it. A connection handed to
 * libsoup as a stream has no socket in libsoup's eyes
 * (soup_server_message_get_socket() gives NULL): its messages are known
 * by their peer's port, which is the table's key.
 */
typedef struct {
	BridgeRelay *relay;
	GSocketConnection *connection; /* weak */
	GSocket *socket;               /* its socket */
	guint port;                    /* the peer's, the table's key */
	gint64 since;                  /* monotonic µs of the last request's
	                                  end, or of the accept */
	guint requests;                /* under way on it */
} RelayConnection;

static void
on_connection_gone(gpointer data, GObject *where_it_was)
{
	RelayConnection *c = data;

	c->connection = NULL;
	g_hash_table_remove(c->relay->sockets, GUINT_TO_POINTER(c->port));
}

static void
connection_free(gpointer data)
{
	RelayConnection *c = data;

	if (c->connection != NULL)
		g_object_weak_unref(G_OBJECT(c->connection), on_connection_gone,
		                    c);
	g_free(c);
}

void
bridge_relay_hang_up(GSocket *socket)
{
	g_socket_shutdown(socket, TRUE, TRUE, NULL);
}

static GSocket *
socket_of(GSocketConnection *connection)
{
	return g_socket_connection_get_socket(connection);
}

static guint
port_of(GSocketAddress *address)
{
	return G_IS_INET_SOCKET_ADDRESS(address)
	               ? g_inet_socket_address_get_port(
	                         G_INET_SOCKET_ADDRESS(address))
	               : 0;
}

static gboolean
is_loopback(GSocketAddress *address)
{
	return G_IS_INET_SOCKET_ADDRESS(address) &&
	       g_inet_address_get_is_loopback(g_inet_socket_address_get_address(
	               G_INET_SOCKET_ADDRESS(address)));
}

static gboolean
on_incoming(GSocketService *service, GSocketConnection *connection,
            GObject *source, gpointer data)
{
	BridgeRelay *relay = data;
	g_autoptr(GSocketAddress) local = NULL;
	g_autoptr(GSocketAddress) remote = NULL;
	g_autoptr(GError) error = NULL;
	RelayConnection *c;

	local = g_socket_connection_get_local_address(connection, NULL);
	remote = g_socket_connection_get_remote_address(connection, NULL);
	/* Bound to loopback, so only a peer on this machine gets here. */
	if (remote == NULL || !is_loopback(remote) ||
	    bridge_relay_is_stopping(relay)) {
		bridge_relay_hang_up(socket_of(connection));
		return TRUE;
	}
	if (g_hash_table_size(relay->sockets) >= MAX_CONNECTIONS) {
		if (relay->refused++ % 100 == 0)
			g_warning("relay: more than %d connections at once; "
			          "refusing the others (%u so far)",
			          MAX_CONNECTIONS, relay->refused);
		bridge_relay_hang_up(socket_of(connection));
		return TRUE;
	}
	/* What libsoup does for connections it accepts itself: the body
	 * goes out as it is written, without Nagle's wait. */
	g_socket_set_option(socket_of(connection), IPPROTO_TCP, TCP_NODELAY,
	                    TRUE, NULL);
	c = g_new0(RelayConnection, 1);
	c->relay = relay;
	c->connection = connection;
	c->socket = socket_of(connection);
	c->port = port_of(remote);
	c->since = g_get_monotonic_time();
	g_object_weak_ref(G_OBJECT(connection), on_connection_gone, c);
	g_hash_table_insert(relay->sockets, GUINT_TO_POINTER(c->port), c);
	/* Known before libsoup sees it: the first request may come at
	 * once. */
	if (!soup_server_accept_iostream(relay->server, G_IO_STREAM(connection),
	                                 local, remote, &error)) {
		g_message("relay: cannot take a connection: %s",
		          error->message);
		g_hash_table_remove(relay->sockets, GUINT_TO_POINTER(c->port));
		return TRUE;
	}
	return TRUE;
}

static RelayConnection *
connection_of(BridgeRelay *relay, SoupServerMessage *msg)
{
	GSocketAddress *remote = soup_server_message_get_remote_address(msg);

	return remote != NULL
	               ? g_hash_table_lookup(relay->sockets,
	                                     GUINT_TO_POINTER(port_of(remote)))
	               : NULL;
}

GSocket *
bridge_relay_socket_of(BridgeRelay *relay, SoupServerMessage *msg)
{
	RelayConnection *c = connection_of(relay, msg);

	return c != NULL ? c->socket : NULL;
}

static void
on_request_ended(SoupServerMessage *msg, gpointer data)
{
	RelayConnection *c = connection_of(data, msg);

	if (c != NULL && c->requests > 0) {
		c->requests--;
		c->since = g_get_monotonic_time();
	}
}

/*
 * A request came whole on @msg's connection: it is busy until the answer
 * ends. (libsoup's own request-started comes as soon as a connection is
 * open, before any byte of a request: a peer that never sends one would
 * look busy.)
 */
void
bridge_relay_request_began(BridgeRelay *relay, SoupServerMessage *msg)
{
	RelayConnection *c = connection_of(relay, msg);

	if (c == NULL)
		return;
	c->requests++;
	g_signal_connect(msg, "finished", G_CALLBACK(on_request_ended), relay);
}

/*
 * Connections that ask nothing (an idle keep-alive, or a peer that never
 * sends a request) are closed. Entries no reply needed for a while stop
 * fetching and go.
 */
static gboolean
on_sweep(gpointer data)
{
	BridgeRelay *relay = data;
	gint64 now = g_get_monotonic_time();
	GHashTableIter iter;
	gpointer key, value;

	g_hash_table_iter_init(&iter, relay->sockets);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		RelayConnection *c = value;

		if (c->requests == 0 && now - c->since > IDLE_CONNECTION_US)
			bridge_relay_hang_up(c->socket);
	}
	g_hash_table_iter_init(&iter, relay->entries);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		RelayEntry *entry = value;

		if (entry->replies == NULL && entry->idle_since != 0 &&
		    now - entry->idle_since > IDLE_ENTRY_US)
			g_hash_table_iter_remove(&iter);
	}
	return G_SOURCE_CONTINUE;
}

/* The fetcher of the relay: a stall is a cut, found in seconds. */
static FeedFetcher *
new_fetcher(GMainContext *context)
{
	FeedFetcher *fetcher = feed_fetcher_new(context);

	feed_fetcher_set_max_transfers(fetcher, 8);
	feed_fetcher_set_max_per_host(fetcher, 4);
	feed_fetcher_set_timeouts(fetcher, 10, 0, 10);
	return fetcher;
}

gboolean
bridge_relay_server_start(BridgeRelay *relay, GError **error)
{
	g_autoptr(GInetAddress) loopback =
	        g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) address = NULL;
	g_autoptr(GSocketAddress) bound = NULL;

	relay->entries =
	        g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
	                              (GDestroyNotify)bridge_relay_entry_free);
	relay->sockets =
	        g_hash_table_new_full(NULL, NULL, NULL, connection_free);
	relay->server = soup_server_new("server-header", NULL, NULL);
	soup_server_add_handler(relay->server, NULL, bridge_relay_on_request,
	                        relay, NULL);
	relay->service = g_socket_service_new();
	g_signal_connect(relay->service, "incoming", G_CALLBACK(on_incoming),
	                 relay);
	address = g_inet_socket_address_new(loopback, relay->port);
	if (!g_socket_listener_add_address(G_SOCKET_LISTENER(relay->service),
	                                   address, G_SOCKET_TYPE_STREAM,
	                                   G_SOCKET_PROTOCOL_TCP, NULL, &bound,
	                                   error))
		return FALSE;
	relay->port =
	        g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
	relay->fetcher = new_fetcher(relay->context);
	g_socket_service_start(relay->service);
	relay->sweep = bridge_relay_timeout(relay, SWEEP_MS, on_sweep, relay);
	return TRUE;
}

void
bridge_relay_server_close(BridgeRelay *relay)
{
	if (relay->service == NULL)
		return;
	g_socket_service_stop(relay->service);
	g_socket_listener_close(G_SOCKET_LISTENER(relay->service));
}

gboolean
bridge_relay_server_busy(BridgeRelay *relay, gboolean *drains)
{
	GHashTableIter iter;
	gpointer value;
	gboolean busy = FALSE;

	*drains = TRUE;
	if (relay->entries == NULL)
		return FALSE;
	g_hash_table_iter_init(&iter, relay->entries);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		const RelayEntry *entry = value;

		for (const GList *l = entry->replies; l != NULL; l = l->next) {
			const RelayReply *reply = l->data;

			busy = TRUE;
			if (!reply->answered || reply->end == G_MAXUINT64 ||
			    bridge_ranges_end_from(entry->ranges, reply->next) <
			            reply->end)
				*drains = FALSE;
		}
	}
	return busy;
}

void
bridge_relay_server_free(BridgeRelay *relay)
{
	GHashTableIter iter;
	gpointer value;

	g_clear_pointer(&relay->sweep, bridge_relay_source_clear);
	/* The entries end their replies, and let go of their messages. */
	g_clear_pointer(&relay->entries, g_hash_table_destroy);
	if (relay->sockets != NULL) {
		g_hash_table_iter_init(&iter, relay->sockets);
		while (g_hash_table_iter_next(&iter, NULL, &value))
			bridge_relay_hang_up(
			        ((RelayConnection *)value)->socket);
	}
	bridge_relay_server_close(relay);
	g_clear_object(&relay->server);
	g_clear_pointer(&relay->sockets, g_hash_table_destroy);
	g_clear_object(&relay->service);
	g_clear_pointer(&relay->fetcher, feed_fetcher_free);
}
