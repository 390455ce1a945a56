#!/usr/bin/python3
"""A loopback HTTP(S) server for libfeed's integration tests.

Standard library only. Binds 127.0.0.1 on a free port, prints the port as
the first line of standard output, and serves until it is killed or its
standard input closes (so a test that crashes never leaves it running).

    feed-server.py [--https CERT KEY] [--no-stdin] [--address ADDR]...

--address (repeatable) binds those addresses instead of 127.0.0.1, all on
the one port printed (127.0.0.2 to 127.0.0.8 make distinct hosts on Linux
loopback), and they share one log and one set of counts.

What a path does (NAME is [A-Za-z0-9_-]+):

  /feed/NAME            RSS feed with ETag and Last-Modified; 304 to a
                        matching If-None-Match or If-Modified-Since
  /noval/NAME           the same feed without validators
  /atom/NAME            the same episodes as an Atom feed
  /gzip/NAME            the /noval feed, gzip-encoded when Accept-Encoding
                        allows it
  /bomb                 always gzip: inflates to 200 MiB of spaces inside
                        <rss><channel>
  /redirect/CODE/N/REST N redirects with status CODE, ending at /REST
  /mixed/REST           a 301, then a 302 to /REST
  /loop/a, /loop/b      302s to each other
  /toscheme/file        a 302 to file:///etc/passwd
  /toscheme/ftp         a 302 to ftp://127.0.0.1:PORT/feed.xml
  /tohost/HOST/REST     a 302 to the same port on HOST, path /REST
  /authredirect/HOST/REST
                        like /tohost, but only with Basic user:secret
  /status/CODE[/NAME]   that status with a short HTML body
  /slow                 a feed dribbled over about 2 seconds
  /bytes/N              N bytes of JSON (a chapters document padded with
                        spaces), N up to 64 MiB

Faults (the optional NAME only makes URLs distinct and names the feed):

  /stall[/NAME]         headers and half a feed, then silence until the
                        client goes away
  /hang[/NAME]          reads the request, then silence until the client
                        goes away: no status line, no headers
  /truncate[/NAME]      Content-Length larger than the body, then close:
                        two whole items and half of a third
  /truncate-chunked[/NAME]
                        the same cut in a chunked body: close without the
                        last chunk
  /reset[/NAME]         closes the connection without answering (RST)
  /reset-body[/NAME]    headers and half a feed, then RST
  /page/rss/NAME        HTML linking /feed/NAME (rel=alternate, RSS)
  /page/atom/NAME       HTML linking only /atom/NAME
  /page/none            HTML linking no feed
  /paged/N              RFC 5005 page N of 3 (absolute rel="next" links)
  /paged-rel/N          the same with relative links
  /paged-loop/N         page 1 -> page 2 -> page 1 -> ...
  /auth/NAME            /feed/NAME behind Basic auth user:secret
  /html-as-feed         an RSS feed served as text/html
  /data/FILE            a file of the data/ directory beside this script
                        (application/json for *.json)

Query parameters on any of those: delay=MS waits before answering, n=K
gives a feed K base episodes (default 3), newurl=1 adds
itunes:new-feed-url, bare304=1 leaves the validators out of a 304.

Control paths (not logged, not counted):

  /_log                 requests seen, one JSON object a line
  /_find?path=P&header=H
                        requests whose path starts with P, one a line:
                        PATH TAB HOST TAB (=VALUE of header H | !)
  /_stats               "key value" lines: max_active, max_connections,
                        and max_active_host HOST N / max_connections_host
                        HOST N, the most requests in progress and
                        connections open at once since the last reset
  /_bump/NAME           changes NAME's feed (one more episode, new
                        validators)
  /_reset               clears the log, the counts and the bumps
"""

import argparse
import base64
import email.utils
import gzip
import hashlib
import io
import json
import os
import select
import socket
import ssl
import struct
import sys
import threading
import time
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from xml.sax.saxutils import escape, quoteattr

LOGGED_HEADERS = ("If-None-Match", "If-Modified-Since", "Accept-Encoding",
                  "Authorization", "User-Agent")
BASE_TIME = 1735689600  # 2025-01-01T00:00:00Z
CREDENTIALS = "Basic " + base64.b64encode(b"user:secret").decode()
BOMB_SIZE = 200 << 20


def valid_name(name):
    return (0 < len(name) <= 64 and
            all(c.isascii() and (c.isalnum() or c in "-_") for c in name))


def http_date(seconds):
    return email.utils.formatdate(seconds, usegmt=True)


def description(name, k):
    # Repetitive on purpose: gzip should shrink the feed well.
    return escape(f"Episode {k} of {name}. " * 12)


def rss_feed(name, version=0, n=3, new_url=False, extra_channel="",
             title_prefix=None):
    prefix = name if title_prefix is None else title_prefix
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n',
        '<rss version="2.0" '
        'xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" '
        'xmlns:atom="http://www.w3.org/2005/Atom">\n',
        "<channel>\n",
        f"<title>Feed {escape(name)}</title>\n",
        f"<link>http://example.invalid/{escape(name)}</link>\n",
        f"<description>Test feed {escape(name)}</description>\n",
    ]
    if new_url:
        parts.append("<itunes:new-feed-url>http://example.invalid/"
                     f"{escape(name)}/new.xml</itunes:new-feed-url>\n")
    parts.append(extra_channel)
    for k in range(1, n + version + 1):
        parts.append(
            "<item>\n"
            f"<title>{escape(prefix)} episode {k}</title>\n"
            f'<guid isPermaLink="false">{escape(prefix)}-{k}</guid>\n'
            f"<pubDate>{http_date(BASE_TIME + 86400 * k)}</pubDate>\n"
            f'<enclosure url="http://example.invalid/{escape(prefix)}/'
            f'{k}.mp3" length="{1000 * k}" type="audio/mpeg"/>\n'
            f"<description>{description(prefix, k)}</description>\n"
            "</item>\n")
    parts.append("</channel>\n</rss>\n")
    return "".join(parts).encode()


def atom_feed(name, version=0, n=3):
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n',
        '<feed xmlns="http://www.w3.org/2005/Atom">\n',
        f"<title>Feed {escape(name)}</title>\n",
        f"<id>urn:feed-server:{escape(name)}</id>\n",
        f"<updated>2025-01-01T00:00:00Z</updated>\n",
    ]
    for k in range(1, n + version + 1):
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ",
                              time.gmtime(BASE_TIME + 86400 * k))
        parts.append(
            "<entry>\n"
            f"<title>{escape(name)} episode {k}</title>\n"
            f"<id>urn:feed-server:{escape(name)}:{k}</id>\n"
            f"<updated>{stamp}</updated>\n"
            f'<link rel="enclosure" type="audio/mpeg" length="{1000 * k}" '
            f'href="http://example.invalid/{escape(name)}/{k}.mp3"/>\n'
            "</entry>\n")
    parts.append("</feed>\n")
    return "".join(parts).encode()


def paged_feed(kind, page, base):
    links = []
    if kind == "paged-rel":
        link = lambda p: f"{p}"  # relative to /paged-rel/N
    else:
        link = lambda p: f"{base}/{kind}/{p}"
    links.append(f'<atom:link rel="self" href={quoteattr(link(page))}/>\n')
    links.append(f'<atom:link rel="first" href={quoteattr(link(1))}/>\n')
    if kind == "paged-loop":
        following = 2 if page == 1 else 1
        links.append('<atom:link rel="next" '
                     f"href={quoteattr(link(following))}/>\n")
    elif page < 3:
        links.append('<atom:link rel="next" '
                     f"href={quoteattr(link(page + 1))}/>\n")
    return rss_feed(f"{kind}", n=2, extra_channel="".join(links),
                    title_prefix=f"page {page}")


def padded_json(size):
    """A JSON chapters document of exactly @size bytes (at least 40)."""
    head = b'{"version": "1.2.0", "chapters": []'
    return head + b" " * max(size - len(head) - 1, 0) + b"}"


def html_page(name, kind):
    if kind == "rss":
        link = ('<link rel="alternate" type="application/rss+xml" '
                f'title="Podcast" href="/feed/{name}">\n')
    elif kind == "atom":
        link = ('<link rel="alternate" type="application/atom+xml" '
                f'title="Podcast" href="/atom/{name}">\n')
    else:
        link = ""
    return ("<!DOCTYPE html>\n<html lang=en>\n<head>\n"
            '<meta charset="utf-8">\n'
            f"<title>Page {escape(name)}</title>\n"
            '<link rel="stylesheet" href="/style.css">\n'
            '<link rel="alternate" hreflang="fr" href="/fr/">\n'
            f"{link}"
            "</head>\n<body>\n<p>Listen to our show<br>\n"
            "<a href=/episodes>episodes</a>\n</body>\n</html>\n").encode()


# Fault paths and the Handler methods that answer them.
FAULTS = {
    "stall": "stall",
    "hang": "hang",
    "truncate": "truncate",
    "truncate-chunked": "truncate_chunked",
    "reset": "reset",
    "reset-body": "reset_body",
}


class State:
    """What the server has seen, shared by every handler thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.log = []
        self.versions = {}
        self.active = 0
        self.active_host = {}
        self.connections = 0
        self.connections_host = {}
        self.max_active = 0
        self.max_active_host = {}
        self.max_connections = 0
        self.max_connections_host = {}
        self.bomb = None

    def reset(self):
        # Connections of a previous test's fetcher may take a moment to
        # be seen closing: wait for them so they do not count here.
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            with self.lock:
                if self.connections == 0 and self.active == 0:
                    break
            time.sleep(0.01)
        with self.lock:
            self.log.clear()
            self.versions.clear()
            self.max_active = self.active
            self.max_active_host = dict(self.active_host)
            self.max_connections = self.connections
            self.max_connections_host = dict(self.connections_host)

    def request_started(self, host):
        with self.lock:
            self.active += 1
            self.active_host[host] = self.active_host.get(host, 0) + 1
            self.max_active = max(self.max_active, self.active)
            self.max_active_host[host] = max(
                self.max_active_host.get(host, 0), self.active_host[host])

    def request_ended(self, host):
        with self.lock:
            self.active -= 1
            self.active_host[host] -= 1

    def connection_opened(self, host):
        with self.lock:
            self.connections += 1
            self.connections_host[host] = (
                self.connections_host.get(host, 0) + 1)
            self.max_connections = max(self.max_connections,
                                       self.connections)
            self.max_connections_host[host] = max(
                self.max_connections_host.get(host, 0),
                self.connections_host[host])

    def connection_closed(self, host):
        with self.lock:
            self.connections -= 1
            self.connections_host[host] -= 1

    def version(self, name):
        with self.lock:
            return self.versions.get(name, 0)

    def bump(self, name):
        with self.lock:
            self.versions[name] = self.versions.get(name, 0) + 1

    def bomb_body(self):
        with self.lock:
            if self.bomb is None:
                z = zlib.compressobj(9, zlib.DEFLATED, 31)
                out = [z.compress(b'<?xml version="1.0"?>\n<rss '
                                  b'version="2.0"><channel><title>bomb'
                                  b"</title>")]
                chunk = b" " * (1 << 20)
                for _ in range(BOMB_SIZE // len(chunk)):
                    out.append(z.compress(chunk))
                out.append(z.compress(b"</channel></rss>\n"))
                out.append(z.flush())
                self.bomb = b"".join(out)
            return self.bomb


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, address, scheme, state=None):
        super().__init__(address, Handler)
        self.scheme = scheme
        # Servers on several addresses share one State.
        self.state = state if state is not None else State()
        self.aborted = set()
        self.aborted_lock = threading.Lock()

    def shutdown_request(self, request):
        # An aborted connection must not send FIN first: close it at once
        # (SO_LINGER 0 makes that a RST).
        with self.aborted_lock:
            aborted = request in self.aborted
            self.aborted.discard(request)
        if aborted:
            self.close_request(request)
        else:
            super().shutdown_request(request)

    def handle_error(self, request, client_address):
        # Clients that hang up early are part of the tests.
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, ssl.SSLError, TimeoutError,
                            BrokenPipeError)):
            return
        super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "feed-server/1"

    def log_message(self, fmt, *args):
        if os.environ.get("FEED_SERVER_VERBOSE"):
            sys.stderr.write("feed-server: " + (fmt % args) + "\n")

    # Connections are counted from their first request, by its Host.
    def handle(self):
        self.conn_host = None
        try:
            super().handle()
        except (ConnectionError, ssl.SSLError, TimeoutError):
            pass
        finally:
            if self.conn_host:
                self.server.state.connection_closed(self.conn_host)

    def host(self):
        value = self.headers.get("Host", "")
        if value.startswith("["):
            return value[:value.find("]") + 1]
        return value.rsplit(":", 1)[0] if ":" in value else value

    def base(self):
        return f"{self.server.scheme}://{self.headers.get('Host', '')}"

    def do_HEAD(self):
        self.head_only = True
        self.dispatch()

    def do_GET(self):
        self.head_only = False
        self.dispatch()

    def dispatch(self):
        url = urllib.parse.urlsplit(self.path)
        self.query = dict(urllib.parse.parse_qsl(url.query))
        path = url.path
        state = self.server.state
        if path.startswith("/_"):
            if self.conn_host is None:
                self.conn_host = ""
            self.control(path)
            return
        host = self.host()
        if self.conn_host is None:
            self.conn_host = host
            state.connection_opened(host)
        entry = {"method": self.command, "path": self.path, "host": host}
        for name in LOGGED_HEADERS:
            entry[name] = self.headers.get(name)
        with state.lock:
            state.log.append(entry)
        state.request_started(host)
        try:
            delay = int(self.query.get("delay", "0"))
            if delay > 0:
                time.sleep(delay / 1000)
            self.route(path)
        finally:
            state.request_ended(host)

    # Answers

    def send_body(self, status, body, content_type="application/rss+xml",
                  headers=()):
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
        for key, value in headers:
            self.send_header(key, value)
        self.end_headers()
        if body is not None and not self.head_only:
            self.wfile.write(body)

    def not_found(self):
        self.send_body(404, b"<html><body>not found</body></html>\n",
                       "text/html")

    def redirect(self, code, location):
        self.send_body(code, b"<html><body>moved</body></html>\n",
                       "text/html", [("Location", location)])

    def authorized(self):
        if self.headers.get("Authorization") == CREDENTIALS:
            return True
        self.send_body(401, b"<html><body>who are you</body></html>\n",
                       "text/html",
                       [("WWW-Authenticate", 'Basic realm="feeds"')])
        return False

    def feed_args(self, name):
        return dict(version=self.server.state.version(name),
                    n=int(self.query.get("n", "3")),
                    new_url=self.query.get("newurl") == "1")

    def conditional_feed(self, name):
        version = self.server.state.version(name)
        body = rss_feed(name, **self.feed_args(name))
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        modified = BASE_TIME + 60 * version
        headers = [("ETag", etag), ("Last-Modified", http_date(modified)),
                   ("Cache-Control", "no-cache")]
        inm = self.headers.get("If-None-Match")
        ims = self.headers.get("If-Modified-Since")
        fresh = False
        if inm is not None:
            tags = [t.strip() for t in inm.split(",")]
            tags = [t[2:] if t.startswith("W/") else t for t in tags]
            fresh = "*" in tags or etag in tags
        elif ims is not None:
            try:
                since = email.utils.parsedate_to_datetime(ims).timestamp()
                fresh = modified <= since
            except (TypeError, ValueError):
                fresh = False
        if fresh:
            self.send_response(304)
            for key, value in headers:
                if self.query.get("bare304") == "1" and \
                        key in ("ETag", "Last-Modified"):
                    continue
                self.send_header(key, value)
            self.end_headers()
        else:
            self.send_body(200, body, headers=headers)

    def accepts_gzip(self):
        for part in self.headers.get("Accept-Encoding", "").split(","):
            fields = [f.strip() for f in part.split(";")]
            if fields[0].lower() not in ("gzip", "x-gzip", "*"):
                continue
            q = 1.0
            for f in fields[1:]:
                if f.startswith("q="):
                    try:
                        q = float(f[2:])
                    except ValueError:
                        q = 0.0
            if q > 0:
                return True
        return False

    def route(self, path):
        parts = path.split("/")[1:]
        head = parts[0] if parts else ""
        rest = parts[1:]
        name = rest[0] if rest else ""
        one = len(rest) == 1 and valid_name(name)

        if head == "feed" and one:
            self.conditional_feed(name)
        elif head == "noval" and one:
            self.send_body(200, rss_feed(name, **self.feed_args(name)))
        elif head == "atom" and one:
            args = self.feed_args(name)
            del args["new_url"]
            self.send_body(200, atom_feed(name, **args),
                           "application/atom+xml")
        elif head == "gzip" and one:
            body = rss_feed(name, **self.feed_args(name))
            headers = [("Vary", "Accept-Encoding")]
            if self.accepts_gzip():
                body = gzip.compress(body, mtime=0)
                headers.append(("Content-Encoding", "gzip"))
            self.send_body(200, body, headers=headers)
        elif path == "/bomb":
            self.send_body(200, self.server.state.bomb_body(),
                           headers=[("Content-Encoding", "gzip")])
        elif head == "redirect" and len(rest) >= 3:
            self.redirect_chain(rest)
        elif head == "mixed" and rest:
            self.redirect(301, "/mixed2/" + "/".join(rest))
        elif head == "mixed2" and rest:
            self.redirect(302, "/" + "/".join(rest))
        elif path == "/loop/a":
            self.redirect(302, "/loop/b")
        elif path == "/loop/b":
            self.redirect(302, "/loop/a")
        elif path == "/toscheme/file":
            self.redirect(302, "file:///etc/passwd")
        elif path == "/toscheme/ftp":
            port = self.server.server_address[1]
            self.redirect(302, f"ftp://127.0.0.1:{port}/feed.xml")
        elif head == "tohost" and len(rest) >= 2:
            self.to_host(rest)
        elif head == "authredirect" and len(rest) >= 2:
            if self.authorized():
                self.to_host(rest)
        elif head == "status" and len(rest) in (1, 2) and \
                rest[0].isdigit() and \
                (len(rest) == 1 or valid_name(rest[1])):
            code = int(rest[0])
            headers = [("Retry-After", "120")] if code == 503 else []
            self.send_body(code, f"<html><body>status {code}</body></html>\n"
                           .encode(), "text/html", headers)
        elif path == "/slow":
            self.slow()
        elif head == "bytes" and len(rest) == 1 and rest[0].isdigit() and \
                int(rest[0]) <= 64 << 20:
            self.send_body(200, padded_json(int(rest[0])),
                           "application/json")
        elif head in FAULTS and (not rest or one):
            getattr(self, FAULTS[head])(name or head)
        elif head == "page" and len(rest) == 2 and rest[0] in ("rss", "atom") \
                and valid_name(rest[1]):
            self.send_body(200, html_page(rest[1], rest[0]),
                           "text/html; charset=utf-8")
        elif path == "/page/none":
            self.send_body(200, html_page("none", "none"),
                           "text/html; charset=utf-8")
        elif head in ("paged", "paged-rel", "paged-loop") and \
                len(rest) == 1 and rest[0] in ("1", "2", "3"):
            self.send_body(200, paged_feed(head, int(rest[0]), self.base()))
        elif head == "auth" and one:
            if self.authorized():
                self.conditional_feed(name)
        elif path == "/html-as-feed":
            self.send_body(200, rss_feed("htmlfeed"),
                           "text/html; charset=utf-8")
        elif head == "data" and len(rest) == 1 and \
                valid_name(rest[0].replace(".", "_")) and \
                not rest[0].startswith("."):
            self.data_file(rest[0])
        else:
            self.not_found()

    def redirect_chain(self, rest):
        code, count = rest[0], rest[1]
        if code not in ("301", "302", "303", "307", "308") or \
                not count.isdigit():
            self.not_found()
            return
        count = int(count)
        target = "/" + "/".join(rest[2:])
        if count > 1:
            target = f"/redirect/{code}/{count - 1}" + target
        self.redirect(int(code), target)

    def to_host(self, rest):
        port = self.server.server_address[1]
        self.redirect(302, f"{self.server.scheme}://{rest[0]}:{port}/" +
                      "/".join(rest[1:]))

    def data_file(self, name):
        directory = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 "data")
        try:
            with open(os.path.join(directory, name), "rb") as f:
                body = f.read()
        except OSError:
            self.not_found()
            return
        self.send_body(200, body, "application/json"
                       if name.endswith(".json") else "application/xml")

    def slow(self):
        body = rss_feed("slow")
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        pieces = 10
        size = (len(body) + pieces - 1) // pieces
        for i in range(pieces):
            self.wfile.write(body[i * size:(i + 1) * size])
            self.wfile.flush()
            if i < pieces - 1:
                time.sleep(0.2)

    def half_feed(self, name):
        """Headers and the first half of feed @name's body, sent now."""
        body = rss_feed(name)
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[:len(body) // 2])
        self.wfile.flush()

    def stall(self, name):
        self.half_feed(name)
        self.wait_for_hangup()

    def hang(self, name):
        self.wait_for_hangup()

    def wait_for_hangup(self):
        # Silence until the client hangs up (or five minutes pass).
        sock = self.connection
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            readable, _, _ = select.select([sock], [], [], 0.2)
            if readable:
                try:
                    if not sock.recv(4096):
                        break
                except (OSError, ssl.SSLError):
                    break
        self.close_connection = True

    @staticmethod
    def truncated_feed(name):
        """Feed @name of four items, and where it is cut: in the third."""
        body = rss_feed(name, n=4)
        third = body.index(b"<item>", body.index(b"<item>",
                           body.index(b"<item>") + 1) + 1)
        return body, third + 40

    def truncate(self, name):
        body, cut = self.truncated_feed(name)
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[:cut])
        self.wfile.flush()
        self.close_connection = True

    def truncate_chunked(self, name):
        body, cut = self.truncated_feed(name)
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for start in range(0, cut, 512):
            chunk = body[start:min(start + 512, cut)]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        self.wfile.flush()
        self.close_connection = True

    def reset_body(self, name):
        self.half_feed(name)
        # Let the client read what was sent: a RST can overtake it.
        time.sleep(0.2)
        self.reset(name)

    def reset(self, name):
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                   struct.pack("ii", 1, 0))
        with self.server.aborted_lock:
            self.server.aborted.add(self.connection)
        self.close_connection = True

    # Control

    def control(self, path):
        state = self.server.state
        if path == "/_log":
            with state.lock:
                lines = [json.dumps(e) + "\n" for e in state.log]
            self.send_body(200, "".join(lines).encode(),
                           "application/x-ndjson")
        elif path == "/_find":
            prefix = self.query.get("path", "/")
            header = self.query.get("header", "")
            out = io.StringIO()
            with state.lock:
                entries = list(state.log)
            for e in entries:
                if not e["path"].startswith(prefix):
                    continue
                value = e.get(header)
                out.write(f"{e['path']}\t{e['host']}\t")
                out.write("!" if value is None else "=" + value)
                out.write("\n")
            self.send_body(200, out.getvalue().encode(), "text/plain")
        elif path == "/_stats":
            with state.lock:
                lines = [f"max_active {state.max_active}",
                         f"max_connections {state.max_connections}"]
                for h, n in sorted(state.max_active_host.items()):
                    lines.append(f"max_active_host {h} {n}")
                for h, n in sorted(state.max_connections_host.items()):
                    lines.append(f"max_connections_host {h} {n}")
            self.send_body(200, ("\n".join(lines) + "\n").encode(),
                           "text/plain")
        elif path.startswith("/_bump/") and valid_name(path[7:]):
            state.bump(path[7:])
            self.send_body(200, b"bumped\n", "text/plain")
        elif path == "/_reset":
            state.reset()
            self.send_body(200, b"reset\n", "text/plain")
        else:
            self.not_found()


def watch_stdin():
    try:
        while os.read(sys.stdin.fileno(), 4096):
            pass
    except OSError:
        pass
    os._exit(0)


def bind_all(addresses, scheme):
    """A Server on each of @addresses, all on one free port."""
    state = State()
    for _ in range(50):
        servers = [Server((addresses[0], 0), scheme, state)]
        port = servers[0].server_address[1]
        try:
            for address in addresses[1:]:
                servers.append(Server((address, port), scheme, state))
            return servers
        except OSError:
            # That port is taken on another address: try another.
            for server in servers:
                server.server_close()
    sys.exit("feed-server.py: no port free on every address")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--https", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--no-stdin", action="store_true",
                        help="do not exit when standard input closes")
    parser.add_argument("--address", action="append", metavar="ADDR",
                        help="listen on ADDR (repeatable; default "
                        "127.0.0.1), every one on the same port")
    args = parser.parse_args()

    servers = bind_all(args.address or ["127.0.0.1"],
                       "https" if args.https else "http")
    if args.https:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.https[0], args.https[1])
        # The handshake happens in the handler's thread, on first read.
        for server in servers:
            server.socket = context.wrap_socket(
                server.socket, server_side=True,
                do_handshake_on_connect=False)
    print(servers[0].server_address[1], flush=True)
    if not args.no_stdin:
        threading.Thread(target=watch_stdin, daemon=True).start()
    for server in servers[1:]:
        threading.Thread(target=server.serve_forever, args=(0.1,),
                         daemon=True).start()
    try:
        servers[0].serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
