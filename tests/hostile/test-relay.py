#!/usr/bin/env python3
"""Hostile requests to mpd-bridge's relay, the HTTP server on 127.0.0.1
that MPD streams episodes from.

A private MPD, a loopback host and the daemon (tests/bridge-relay's
world). Each case is sent on a connection of its own, raw, so that
nothing in between mends it, and must be refused or bounded; after
them all the daemon still answers, and an episode still plays through
the relay.
"""
import os
import re
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bridge-relay"))
from relayworld import RelayWorld, check, silent, wait_until  # noqa: E402
from bridgeworld import run_tap  # noqa: E402


def port_of(w):
    m = re.search(r"relay on 127\.0\.0\.1:(\d+)", w.ok("status"))
    check(m, f"status names no relay: {w.ok('status')}")
    return int(m.group(1))


def ask(w, head, timeout=10):
    """Sends @head (request line and headers, no end) on a connection of
    its own; the status and the whole answer."""
    port = port_of(w)
    with socket.create_connection(("127.0.0.1", port), timeout) as s:
        s.sendall(head.replace("PORT", str(port)).encode() + b"\r\n\r\n")
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            data += chunk
    m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    return (int(m.group(1)) if m else None), data


def get(w, path, *headers, method="GET"):
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1:PORT",
             "Connection: close", *headers]
    return ask(w, "\r\n".join(lines))


def relay_path(w, guid):
    """The path of @guid's relay URL, as MPD gets it."""
    w.mpd.command("clear")
    w.ok("queue", guid)
    uri = [line.split(": ", 1)[1] for line in w.mpd.command("playlistinfo")
           if line.startswith("file: ")][0]
    w.mpd.command("clear")
    return "/" + uri.split("/", 3)[3]


def t_unknown(w):
    """Paths the relay does not know get 404, an episode it was never
    told of too, and nothing else is served"""
    for path in ["/", "/state", "/episode/", "/episode/x",
                 "/episode/0123456789abcdef.mp3", "/episode/ep.mp3",
                 "/port", "/.record"]:
        status, data = get(w, path)
        check(status == 404, f"{path}: {status} {data[:80]}")


def t_escapes(w):
    """Paths that climb out get nothing: 404 or 400, never a file"""
    known = relay_path(w, "ep")
    directory = known.rsplit("/", 1)[0]
    for path in [f"{directory}/../../../../etc/passwd",
                 f"{directory}/..%2f..%2f..%2fetc%2fpasswd",
                 f"{directory}/%2e%2e/%2e%2e/state",
                 f"{known}/../../port", f"{known}%00.txt",
                 f"{known}?x=1", "//etc/passwd", "/episode/../port"]:
        status, data = get(w, path)
        check(status in (400, 404) and b"root:" not in data,
              f"{path}: {status} {data[:80]}")


def t_methods(w):
    """Only GET and HEAD: others get 405; HEAD gets the headers alone"""
    path = relay_path(w, "ep")
    for method in ["POST", "PUT", "DELETE", "OPTIONS"]:
        status, _ = get(w, path, "Content-Length: 0", method=method)
        check(status == 405, f"{method}: {status}")
    status, data = get(w, path, method="HEAD")
    head, _, body = data.partition(b"\r\n\r\n")
    check(status == 200 and b"Accept-Ranges: bytes" in head and
          b"Content-Length: " in head and body == b"",
          f"HEAD: {data[:300]}")


def t_hosts(w):
    """A request that names another host (DNS rebinding) gets 403"""
    path = relay_path(w, "ep")
    for host in ["evil.example", "evil.example:PORT", "127.0.0.1",
                 "127.0.0.2:PORT", ""]:
        status, _ = ask(w, "\r\n".join([f"GET {path} HTTP/1.1",
                                         f"Host: {host}",
                                         "Connection: close"]))
        check(status in (400, 403), f"Host {host!r}: {status}")


def t_ranges(w):
    """Absurd ranges: past the end 416, backwards or many at once the
    whole file; one in it exactly those bytes"""
    path = relay_path(w, "ep")
    total = len(silent(10))
    status, data = get(w, path, "Range: bytes=99999999999999999999-")
    check(status == 416 and b"Content-Range: bytes */" in data,
          f"past the end: {data[:200]}")
    for spec in ["bytes=9-3", "bytes=" + ",".join(
            f"{i}-{i}" for i in range(0, 2000, 2)), "chars=0-9"]:
        status, data = get(w, path, f"Range: {spec}")
        check(status == 200 and
              f"Content-Length: {total}".encode() in data,
              f"{spec[:40]}: {data[:200]}")
    status, data = get(w, path, "Range: bytes=10-19")
    head, _, body = data.partition(b"\r\n\r\n")
    check(status == 206 and
          f"Content-Range: bytes 10-19/{total}".encode() in head
          and body == silent(10)[10:20], f"bytes=10-19: {data[:300]}")


def t_many_connections(w):
    """Three hundred connections at once: those past the bound are closed
    at once, and the daemon answers meanwhile"""
    port = port_of(w)
    sockets = []
    try:
        for _ in range(300):
            s = socket.socket()
            s.settimeout(5)
            s.connect(("127.0.0.1", port))
            sockets.append(s)
        start = time.monotonic()
        check(w.bridge("ping").returncode == 0, "the daemon does not answer")
        check(time.monotonic() - start < 5, "the daemon took long")
        closed = 0
        for s in sockets:
            s.setblocking(False)
        time.sleep(0.5)
        for s in sockets:
            try:
                closed += s.recv(1) == b""
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
        check(closed >= 250, f"only {closed} of 300 were closed")
    finally:
        for s in sockets:
            s.close()
    check("refusing the others" in w.log(), "the log does not say so")


def t_loopback_only(w):
    """The relay listens on 127.0.0.1 alone"""
    port = port_of(w)
    with open("/proc/net/tcp") as f:
        rows = [line.split() for line in f.readlines()[1:]]
    listening = [r[1] for r in rows if r[3] == "0A" and
                 int(r[1].split(":")[1], 16) == port]
    check(listening == [f"0100007F:{port:04X}"],
          f"listening on {listening}")
    addresses = subprocess.run(["hostname", "-I"], capture_output=True,
                               text=True).stdout.split()
    for address in addresses:
        if ":" in address:
            continue
        s = socket.socket()
        s.settimeout(3)
        try:
            check(s.connect_ex((address, port)) != 0,
                  f"{address}:{port} takes connections")
        finally:
            s.close()


def t_unharmed(w):
    """After all that, an episode plays through the relay"""
    ids = w.queue("ep")
    w.mpd.command("play 0")
    wait_until(lambda: w.mpd.status().get("songid") == ids[0] and
               float(w.mpd.status().get("elapsed", 0)) > 1.0, 15,
               "MPD to play from the relay")
    w.mpd.command("stop")
    check("relay on" in w.ok("status"), w.ok("status"))


def main():
    episodes = [("ep", "An episode", silent(10), {})]
    return run_tap([t_unknown, t_escapes, t_methods, t_hosts, t_ranges,
                    t_many_connections, t_loopback_only, t_unharmed],
                   lambda: RelayWorld("hostile-relay", episodes))


if __name__ == "__main__":
    sys.exit(main())
