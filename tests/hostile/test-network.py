#!/usr/bin/env python3
"""Hostile servers on loopback, through libfeed's fetcher and feedtool.

Each row of CASES is what the server does and the outcome it must have.
The server is tests/integration/feed-server.py, run in this process with
the hostile paths below added; nothing it serves is stored: the gzip bomb
is one compressed block repeated, the 100 MB feed is written to a temporary
directory and removed afterwards. feed-probe reports the exact FeedError
code; peak memory is each process's own.

Already pinned by tests/integration/test-fetch.c, not repeated here:
/fetch/redirect/loop (a -> b -> a), /fetch/redirect/too-many (11 distinct
redirects), /fetch/redirect/to-file and /fetch/redirect/to-ftp,
/fetch/scheme/file and /fetch/scheme/ftp (asked for directly),
/fetch/gzip/bomb (200 MiB inflated against a 1 MiB cap),
/fetch/size/plain, /fetch/transfer/truncated (a Content-Length a little
larger than the body).
"""
import json
import os
import re
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile  # noqa: E402
from hostile import (FEEDTOOL, GiB, MiB, Case, check,  # noqa
                     expect_error, item, measured, probe, rss, tool_env)

# Schemes a redirect might lead to; none may be followed. javascript: and
# data: are not even URLs curl knows.
SCHEMES = ["gopher", "gophers", "dict", "telnet", "ldap", "smb", "tftp",
           "scp", "sftp", "imap", "pop3", "smtp", "rtsp", "mqtt", "ws",
           "FILE", "File"]


class World:
    def __init__(self):
        self.dir = hostile.TempDir("hostile-network-")
        self.baseline = hostile.baseline_rss(self.dir.join("tiny.xml"))
        self.listener = hostile.Listener()
        # A port nobody listens on: bound, never listening, so it refuses.
        self.refused = socket.socket()
        self.refused.bind(("127.0.0.1", 0))
        self.refused_port = self.refused.getsockname()[1]
        self.bomb = hostile.GzipBomb(10 * GiB)
        self.big = None
        routes = {
            "/hostile/bomb": self.serve_bomb,
            "/hostile/big": self.serve_big,
            "/hostile/length-lie": self.length_lie,
            "/hostile/endless": self.endless,
            "/hostile/self": lambda h: h.redirect(302, "/hostile/self"),
            "/hostile/to-data": lambda h: h.redirect(
                302, "data:application/rss+xml,<rss/>"),
            "/hostile/to-javascript": lambda h: h.redirect(
                302, "javascript:alert(1)"),
            "/hostile/relative": self.relative_feed,
            "/hostile/deep-page": self.deep_page,
            "/hostile/huge-header": self.huge_header,
        }
        for scheme in SCHEMES:
            routes[f"/hostile/to-{scheme}"] = self.to_scheme(scheme)
        for k in range(100):
            routes[f"/hostile/hop/{k}"] = self.hop(k)
        self.server = hostile.Server(routes)

    def close(self):
        self.server.close()
        self.listener.socket.close()
        self.refused.close()
        self.dir.close()

    def url(self, path):
        return self.server.url(path)

    def to_scheme(self, scheme):
        target = f"{scheme}://127.0.0.1:{self.listener.port}/feed.xml"
        if scheme.lower() == "file":
            target = f"{scheme}:///etc/passwd"
        return lambda handler: handler.redirect(302, target)

    def hop(self, k):
        # Each redirect to a new URL, so that only the count can stop it.
        return lambda handler: handler.redirect(302,
                                                f"/hostile/hop/{k + 1}")

    def serve_bomb(self, handler):
        hostile.stream(handler, self.bomb.chunks(), self.bomb.length,
                       [("Content-Encoding", "gzip")])

    def serve_big(self, handler):
        def chunks():
            with open(self.big, "rb") as f:
                while True:
                    chunk = f.read(MiB)
                    if not chunk:
                        return
                    yield chunk
        hostile.stream(handler, chunks(), os.path.getsize(self.big))

    def length_lie(self, handler):
        # A whole small feed, announced as 1 GiB, then the connection
        # closes.
        body = rss([item("lie", "http://e.invalid/1.mp3", "g1")])
        handler.send_response(200)
        handler.send_header("Content-Type", "application/rss+xml")
        handler.send_header("Content-Length", str(GiB))
        handler.end_headers()
        handler.wfile.write(body)
        handler.close_connection = True

    def endless(self, handler):
        # 1 GiB announced, and whitespace inside <channel> until the client
        # hangs up.
        head = rss([]).rsplit(b"</channel>", 1)[0]
        padding = b" " * MiB
        hostile.stream(handler, [head] + [padding] * 1024, GiB)

    def relative_feed(self, handler):
        body = rss([item("relative", "media/1.mp3", "r1"),
                    item("root", "/media/2.mp3", "r2"),
                    item("parent", "../3.mp3", "r3"),
                    item("scheme-relative", "//e.invalid/4.mp3", "r4"),
                    item("javascript", "javascript:alert(1)", "r5"),
                    item("file", "file:///etc/passwd", "r6")])
        handler.send_body(200, body)

    def deep_page(self, handler):
        levels = 100000
        body = (b"<!DOCTYPE html><html><head><title>deep</title></head>"
                b"<body>" + b"<div>" * levels + b"</div>" * levels +
                b'<link rel="alternate" type="application/rss+xml" '
                b'href="/feed/found"></body></html>')
        handler.send_body(200, body, "text/html")

    def huge_header(self, handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "application/rss+xml")
        handler.send_header("X-Padding", "x" * (4 * MiB))
        handler.end_headers()
        handler.wfile.write(rss([]))
        handler.close_connection = True


def bounded(world, outcome, extra, what):
    limit = world.baseline + extra
    check(outcome.max_rss <= limit,
          f"{what}: peak RSS {outcome.max_rss / MiB:.1f} MiB, more than "
          f"{limit / MiB:.1f} MiB (baseline {world.baseline / MiB:.1f})")


def cap_message(text):
    return re.search(r"larger than the 64\.0\sMiB cap", text) is not None


def gzip_bomb(world):
    url = world.url("/hostile/bomb")
    fields, outcome = probe("fetch", url)
    expect_error(fields, "TOO_LARGE")
    check(cap_message(fields[2]) and url in fields[2],
          f"message: {fields[2]}")
    check(outcome.seconds < 20, outcome.describe())
    bounded(world, outcome, 32 * MiB, "feed-probe")
    check(outcome.received < MiB,
          f"feed-probe read {outcome.received} bytes of the bomb")
    tool = measured([FEEDTOOL, "parse", url], env=tool_env())
    message = tool.stderr.decode("utf-8", "replace")
    check(tool.returncode == 1 and cap_message(message),
          f"feedtool parse URL: {tool.describe()}: {message!r}")
    return (f"FEED_ERROR_TOO_LARGE in {outcome.seconds:.2f} s, peak "
            f"{outcome.max_rss / MiB:.1f} MiB, {outcome.received >> 10} KiB "
            f"of the {world.bomb.length / MiB:.1f} MiB bomb read; feedtool "
            "parse URL exits 1 naming the cap")


def big_fetch(world):
    world.big = world.dir.join("big.xml")
    episodes = hostile.write_big_feed(world.big, 100 * MiB)
    try:
        url = world.url("/hostile/big")
        fields, outcome = probe("fetch", url)
        expect_error(fields, "TOO_LARGE")
        check(cap_message(fields[2]), f"message: {fields[2]}")
        bounded(world, outcome, 32 * MiB, "feed-probe")
        raised, raised_outcome = probe("fetch", url, str(256 * MiB))
        check(raised == ["ok", str(episodes)], " ".join(raised))
        bounded(world, raised_outcome, 32 * MiB, "feed-probe, cap raised")
        tool = measured([FEEDTOOL, "parse", url], env=tool_env())
        check(tool.returncode == 1 and
              cap_message(tool.stderr.decode("utf-8", "replace")),
              f"feedtool parse URL: {tool.describe()}")
    finally:
        os.unlink(world.big)
    return (f"default cap: FEED_ERROR_TOO_LARGE, peak "
            f"{outcome.max_rss / MiB:.1f} MiB; cap raised to 256 MiB: "
            f"{episodes} episodes streamed in {raised_outcome.seconds:.2f} "
            f"s, peak {raised_outcome.max_rss / MiB:.1f} MiB")


def length_lie(world):
    fields, outcome = probe("fetch", world.url("/hostile/length-lie"))
    expect_error(fields, "NETWORK")
    check("truncated" in fields[2] or "before the whole feed" in fields[2],
          f"message: {fields[2]}")
    check(outcome.seconds < 5, outcome.describe())
    bounded(world, outcome, 16 * MiB, "feed-probe")
    return f"FEED_ERROR_NETWORK in {outcome.seconds:.2f} s: {fields[2]}"


def endless(world):
    fields, outcome = probe("fetch", world.url("/hostile/endless"))
    expect_error(fields, "TOO_LARGE")
    bounded(world, outcome, 32 * MiB, "feed-probe")
    return (f"FEED_ERROR_TOO_LARGE in {outcome.seconds:.2f} s, peak "
            f"{outcome.max_rss / MiB:.1f} MiB")


def redirect_schemes(world):
    refused = []
    for path in [f"/hostile/to-{s}" for s in SCHEMES] + \
            ["/hostile/to-data", "/hostile/to-javascript"]:
        fields, outcome = probe("fetch", world.url(path))
        check(fields[0] == "error" and fields[1] == "SCHEME",
              f"{path}: {' '.join(fields)}")
        check(outcome.seconds < 5, f"{path}: {outcome.describe()}")
        refused.append(path.rsplit("-", 1)[1])
    check(world.listener.count() == 0,
          f"the listener saw {world.listener.count()} connection(s)")
    return (f"{len(refused)} refused with FEED_ERROR_SCHEME; the listener "
            "saw no connection")


def redirect_self(world):
    fields, _ = probe("fetch", world.url("/hostile/self"))
    expect_error(fields, "REDIRECT")
    return " ".join(fields[1:])


def redirect_endless(world):
    fields, outcome = probe("fetch", world.url("/hostile/hop/0"))
    expect_error(fields, "REDIRECT")
    check(outcome.seconds < 5, outcome.describe())
    return " ".join(fields[1:])


def relative_enclosures(world):
    url = world.url("/hostile/relative")
    out = measured([FEEDTOOL, "playlist", url], env=tool_env())
    check(out.returncode == 0, f"{out.describe()}: {out.stderr!r}")
    entries = [line for line in out.stdout.decode().splitlines()
               if not line.startswith("#")]
    base = world.url("")
    wanted = [f"{base}/hostile/media/1.mp3", f"{base}/media/2.mp3",
              f"{base}/3.mp3", "http://e.invalid/4.mp3"]
    check(sorted(entries) == sorted(wanted),
          f"playlist entries {entries}, wanted {wanted}")
    return f"{len(entries)} entries, resolved against the feed's URL"


def deep_page(world):
    fields, outcome = probe("fetch", world.url("/hostile/deep-page"))
    check(fields == ["ok", "3"], " ".join(fields))
    bounded(world, outcome, 32 * MiB, "feed-probe")
    return (f"{' '.join(fields)[:80]} in {outcome.seconds:.2f} s, peak "
            f"{outcome.max_rss / MiB:.1f} MiB")


def huge_header(world):
    fields, outcome = probe("fetch", world.url("/hostile/huge-header"))
    expect_error(fields, "NETWORK")
    bounded(world, outcome, 16 * MiB, "feed-probe")
    return f"FEED_ERROR_NETWORK: {fields[2][:80]}"


def many_on_one_host(world):
    n = 10000
    path = world.dir.join("urls.txt")
    with open(path, "w") as f:
        for k in range(n):
            f.write(f"http://127.0.0.1:{world.refused_port}/many/{k}\n")
    out = measured([FEEDTOOL, "refresh", "--json", "--urls", path],
                   env=tool_env(), timeout=120)
    check(out.returncode == 1, out.describe())
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    failed = {line["url"] for line in lines if line["status"] == "failed"}
    check(len(lines) == n and len(failed) == n,
          f"{len(lines)} lines, {len(failed)} distinct failures")
    check(out.seconds < 30, out.describe())
    return f"{n} reported failed in {out.seconds:.2f} s"


CASES = [
    Case("a gzip bomb: 10 GiB of XML padding in 10.6 MB, "
         "Content-Encoding: gzip",
         "FEED_ERROR_TOO_LARGE at the default 64 MiB cap, quickly, memory "
         "bounded, little of the bomb read", gzip_bomb),
    Case("a 100 MB feed over HTTP",
         "FEED_ERROR_TOO_LARGE at the default cap; with the cap raised, "
         "every episode streams in flat memory", big_fetch),
    Case("Content-Length: 1 GiB before a small whole feed, then close",
         "FEED_ERROR_NETWORK (truncated) at once, no allocation for 1 GiB",
         length_lie),
    Case("Content-Length: 1 GiB of whitespace, streamed",
         "FEED_ERROR_TOO_LARGE at the cap, memory bounded", endless),
    Case(f"redirects to {', '.join(SCHEMES)}, data: and javascript:",
         "FEED_ERROR_SCHEME each; the listener they name sees no "
         "connection", redirect_schemes),
    Case("a redirect to itself", "FEED_ERROR_REDIRECT", redirect_self),
    Case("redirects to ever new URLs", "FEED_ERROR_REDIRECT after 10",
         redirect_endless),
    Case("relative, root, parent and scheme-relative enclosures, and "
         "javascript:/file: ones, in a feed fetched over http",
         "feedtool playlist URL: the relative ones resolved against the "
         "feed's URL, the others left out", relative_enclosures),
    Case("an HTML page with 100,000 nested elements before its feed link",
         "the feed found and read, memory bounded", deep_page),
    Case("a 4 MiB response header", "FEED_ERROR_NETWORK, memory bounded",
         huge_header),
    Case("10,000 feeds on one host that refuses connections, through "
         "feedtool refresh",
         "each reported failed, in seconds (each finished transfer used to "
         "walk the whole queue of waiting ones)", many_on_one_host),
]


if __name__ == "__main__":
    sys.exit(hostile.main(CASES, setup=World, teardown=World.close))
