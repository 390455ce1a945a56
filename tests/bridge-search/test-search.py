#!/usr/bin/env python3
"""mpd-bridge search: a loopback directory, without a daemon and through one.

Prints TAP. The directory is an HTTP server on 127.0.0.1 in this process
that answers with the saved answers of answers/ (iTunes' and Podcast
Index's documented shapes; @BASE@ becomes the server's own URL), or with a
fault, chosen by the words searched for. It serves the feeds those answers
name, too, so that `subscribe N` succeeds. The daemon part runs
`mpd-bridge run` against a private MPD (tests/support/mpdtest.py).
"""
import hashlib
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from mpdtest import Channel, Mpd, wait_until  # noqa: E402
from bridgeworld import run_tap  # noqa: E402

BRIDGE = os.environ.get("MPD_BRIDGE")
ANSWERS = os.path.join(HERE, "answers")
KEY = "UXKCGDSYGUUEVQJSYDZH"
SECRET = "yzJe2eE7XV-3eY576dyRZ6wXyAbndh6LUrCZ8KN|"
CAP = 4 * 1024 * 1024

RSS = ('<?xml version="1.0" encoding="UTF-8"?>\n'
       '<rss version="2.0"><channel><title>{title}</title>'
       '<item><title>{title} one</title><guid>{name}-1</guid>'
       '<enclosure url="http://example.invalid/{name}/1.mp3" '
       'type="audio/mpeg" length="1"/></item></channel></rss>\n')


class Directory(http.server.ThreadingHTTPServer):
    """iTunes at /itunes/search, Podcast Index at /pi/search/byterm, the
    feeds at /feed/NAME.xml. What is asked for is kept in .requests."""

    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server_address[1]}"
        self.requests = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.serve_forever,
                                       daemon=True)
        self.thread.start()

    def handle_error(self, request, client_address):
        # A client that stops reading a body past its cap is expected.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    def close(self):
        self.stopping.set()
        self.shutdown()
        self.server_close()


def answer(name, base):
    with open(os.path.join(ANSWERS, name), encoding="utf-8") as f:
        return f.read().replace("@BASE@", base).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, kind="application/json", length=True):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        self.server.requests.append({"path": url.path, "query": query,
                                     "raw_query": url.query,
                                     "headers": dict(self.headers)})
        base = self.server.base
        if url.path.startswith("/feed/"):
            name = url.path[len("/feed/"):].removesuffix(".xml")
            self.send(200, RSS.format(title=f"Feed {name}", name=name)
                      .encode(), "application/rss+xml")
        elif url.path == "/itunes/search":
            self.itunes(" ".join(query.get("term", [""])), base)
        elif url.path == "/pi/search/byterm":
            if not self.authorized():
                self.send(401, b'{"status":"false","description":'
                          b'"Authorization header is invalid"}')
                return
            term = " ".join(query.get("q", [""]))
            if term == "pytorch":
                self.send(200, answer("podcastindex-pytorch.json", base))
            elif term == "short":
                self.send(200, answer("podcastindex-status-false.json",
                                      base))
            else:
                self.send(200, b'{"status":"true","feeds":[],"count":0}')
        else:
            self.send(404, b"<html><body>Not Found</body></html>",
                      "text/html")

    def authorized(self):
        key = self.headers.get("X-Auth-Key")
        date = self.headers.get("X-Auth-Date", "")
        given = self.headers.get("Authorization")
        if key != KEY or not date.isdigit() or \
                abs(int(date) - time.time()) > 300:
            return False
        return given == hashlib.sha1(
            (KEY + SECRET + date).encode()).hexdigest()

    def itunes(self, term, base):
        if term in ("pytorch", "pytorch dev"):
            self.send(200, answer("itunes-pytorch.json", base))
        elif term == "boom":
            self.send(500, b"<html><body><h1>500 Internal Server Error"
                      b"</h1></body></html>", "text/html")
        elif term == "truncated":
            self.send(200, answer("itunes-pytorch.json", base)[:300])
        elif term == "notarray":
            self.send(200, answer("itunes-not-array.json", base))
        elif term == "feednumber":
            self.send(200, answer("itunes-feedurl-number.json", base))
        elif term == "deep":
            self.send(200, b"[" * 200000 + b"]" * 200000)
        elif term == "huge":
            self.send(200, b'{"results": [' + b" " * (CAP + 1024) + b"]}")
        elif term == "hugechunked":
            # No Content-Length: the cap must hold while the body comes.
            self.send(200, b'{"results": [' + b" " * (CAP + 1024) + b"]}",
                      length=False)
        elif term == "slow":
            self.server.stopping.wait(5)
        elif term == "moved":
            self.send_response(302)
            self.send_header("Location", f"{base}/itunes/search?term="
                             "pytorch&media=podcast&entity=podcast")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif term == "tofile":
            self.send_response(302)
            self.send_header("Location", "file:///etc/passwd")
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.send(200, answer("itunes-empty.json", base))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class World:
    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="bridge-search-")
        self.directory = Directory()
        self.env = dict(os.environ)
        self.env.update({
            "XDG_CONFIG_HOME": os.path.join(self.root, "config"),
            "XDG_STATE_HOME": os.path.join(self.root, "state"),
            "XDG_CACHE_HOME": os.path.join(self.root, "cache"),
            "MPD_HOST": os.path.join(self.root, "no-mpd.socket"),
            "G_DEBUG": "fatal-criticals",
        })
        for name in ("MPD_PORT", "http_proxy", "https_proxy", "HTTP_PROXY",
                     "HTTPS_PROXY", "ALL_PROXY", "all_proxy"):
            self.env.pop(name, None)
        self.cache = os.path.join(self.root, "cache", "mpd-bridge")
        self.mpd = None
        self.daemon = None
        self.daemon_log = os.path.join(self.root, "daemon.log")
        self.write_config("config", timeout=2)

    def write_config(self, name, text=None, timeout=None, pi=False,
                     extra=""):
        """A settings file whose [search] points at the loopback
        directory; @name "config" is the default one."""
        if text is None:
            base = self.directory.base
            text = (f"[search]\nitunes_url={base}/itunes/search\n"
                    f"podcastindex_url={base}/pi/search/byterm\n")
            if timeout is not None:
                text += f"timeout={timeout}\n"
            if pi:
                text += (f"podcastindex_key={KEY}\n"
                         f"podcastindex_secret={SECRET}\n")
            text += extra
        path = os.path.join(self.root, "config", "mpd-bridge", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def bridge(self, *args, timeout=60):
        return subprocess.run([BRIDGE, *args], capture_output=True,
                              text=True, env=self.env, timeout=timeout)

    def start_daemon(self):
        self.mpd = Mpd(os.path.join(self.root, "mpd"))
        self.mpd.start()
        self.env["MPD_HOST"] = self.mpd.socket
        # The daemon's cache is not the command line's.
        config = self.write_config(
            "daemon", timeout=2,
            extra=f"[bridge]\ncache_directory={self.root}/daemon-cache\n")
        self.daemon = subprocess.Popen(
            [BRIDGE, "--config", config, "run"], env=self.env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.daemon_log, "a"))
        wait_until(lambda: self.bridge("ping").returncode == 0, 20,
                   "the daemon to answer")

    def log(self):
        try:
            with open(self.daemon_log) as f:
                return f.read()
        except OSError:
            return ""

    def close(self):
        try:
            if self.daemon is not None:
                self.daemon.send_signal(signal.SIGTERM)
                code = self.daemon.wait(20)
                self.daemon = None
                check(code == 0, f"the daemon exited with {code}")
        finally:
            if self.mpd is not None:
                self.mpd.stop()
            self.directory.close()
            shutil.rmtree(self.root, ignore_errors=True)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def search(w, *args, code=0):
    r = w.bridge("search", *args)
    check(r.returncode == code,
          f"search {args}: exit {r.returncode}, expected {code}: "
          f"{r.stdout}{r.stderr}")
    return r


def feeds(w):
    r = w.bridge("list", "--json")
    check(r.returncode == 0, r.stderr)
    return [f["url"] for f in json.loads(r.stdout)]


def last_request(w):
    return w.directory.requests[-1]


def t_itunes_list(w):
    """search lists iTunes' podcasts, numbered, cleaned, without repeats"""
    r = search(w, "pytorch", "dev")
    base = w.directory.base
    lines = r.stdout.splitlines()
    check(lines[0] == "  1  PyTorch Developer Podcast — PyTorch, Edward "
          "Yang, and Team PyTorch (83 episodes)", lines)
    check(lines[1] == f"     {base}/feed/pytorch.xml", lines)
    check(lines[2] == "  2  Café Über-Tensor — 深層学習 🎧 — Zoë Ångström "
          "(episodes unknown)", lines)
    check(lines[3] == f"     {base}/feed/cafe.xml", lines)
    check(lines[4].startswith("  3  Red[31m Alert Torch") and
          lines[4].endswith(" — Bell Ringer (1 episode)"), lines)
    check(lines[5] == f"     {base}/feed/alert.xml", lines)
    check(lines[6] == "subscribe to one with: mpd-bridge subscribe N" and
          len(lines) == 7, lines)
    check(not any(ord(c) < 32 for c in r.stdout.replace("\n", "")),
          f"control characters reach the terminal: {r.stdout!r}")
    check("Hosted By Apple" not in r.stdout and "passwd" not in r.stdout
          and "ftp:" not in r.stdout and "twice" not in r.stdout, r.stdout)
    request = last_request(w)
    check(request["query"].get("term") == ["pytorch dev"] and
          "term=pytorch+dev" in request["raw_query"] and
          request["query"].get("media") == ["podcast"] and
          request["query"].get("entity") == ["podcast"], request)
    agent = request["headers"].get("User-Agent", "")
    check(agent.startswith("mpd-bridge/"), f"User-Agent is {agent!r}")
    check(not any(h.startswith("X-Auth") for h in request["headers"]),
          "iTunes was sent Podcast Index's headers")


def t_json(w):
    """search --json gives the same list for scripts"""
    r = search(w, "--json", "pytorch")
    data = json.loads(r.stdout)
    check(data["directory"] == "iTunes" and data["terms"] == "pytorch",
          data)
    results = data["results"]
    check([x["number"] for x in results] == [1, 2, 3], results)
    check(results[0]["episodes"] == 83 and results[1]["episodes"] is None
          and results[0]["feed_url"] == w.directory.base +
          "/feed/pytorch.xml", results)
    check(results[1]["author"] == "Zoë Ångström", results)


def t_empty(w):
    """a search that finds nothing says so and exits 0"""
    r = search(w, "nothing", "at", "all")
    check(r.stdout == "no podcast in iTunes matches 'nothing at all'\n",
          r.stdout)
    r = search(w, "--json", "nothing")
    check(json.loads(r.stdout)["results"] == [], r.stdout)
    r = w.bridge("subscribe", "1")
    check(r.returncode == 1 and
          "the last search found no podcasts" in r.stderr, r)


def t_subscribe_number(w):
    """subscribe N subscribes to result N of the last search"""
    search(w, "pytorch")
    r = w.bridge("subscribe", "2")
    check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
    check(feeds(w) == [w.directory.base + "/feed/cafe.xml"], feeds(w))
    r = w.bridge("subscribe", "99")
    check(r.returncode == 1 and "the last search found 3 podcasts" in
          r.stderr, r)
    r = w.bridge("subscribe", "0")
    check(r.returncode == 1 and "the last search found 3 podcasts" in
          r.stderr, r)
    r = w.bridge("unsubscribe", w.directory.base + "/feed/cafe.xml")
    check(r.returncode == 0, r.stderr)


def t_no_search_yet(w):
    """subscribe N before any search says what to run"""
    shutil.rmtree(w.cache, ignore_errors=True)
    r = w.bridge("subscribe", "1")
    check(r.returncode == 1 and "no search yet: run mpd-bridge search "
          "TERMS" in r.stderr, r)


def t_last_search_is_atomic(w):
    """the last search is replaced whole, and is the only file there"""
    search(w, "pytorch")
    check(os.listdir(w.cache) == ["last-search.json"], os.listdir(w.cache))
    mode = os.stat(os.path.join(w.cache, "last-search.json")).st_mode
    check(mode & 0o077 == 0, f"mode {oct(mode)}")


def t_podcastindex(w):
    """with a key and secret, Podcast Index is asked, signed"""
    config = w.write_config("pi", pi=True)
    r = w.bridge("--config", config, "search", "pytorch")
    check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
    base = w.directory.base
    check(r.stdout.splitlines() == [
        "  1  PyTorch Developer Podcast — PyTorch, Edward Yang, and Team "
        "PyTorch (83 episodes)",
        f"     {base}/feed/index-pytorch.xml",
        "  2  Torch Songs (episodes unknown)",
        f"     {base}/feed/index-torch-songs.xml",
        "subscribe to one with: mpd-bridge subscribe N"], r.stdout)
    request = last_request(w)
    check(request["path"] == "/pi/search/byterm" and
          request["query"].get("q") == ["pytorch"], request)
    r = w.bridge("--config", config, "subscribe", "1")
    check(r.returncode == 0, r.stderr)
    check(base + "/feed/index-pytorch.xml" in feeds(w), feeds(w))
    r = w.bridge("--config", config, "search", "short")
    check(r.returncode == 1 and "Podcast Index" in r.stderr and
          "status false: Search term is too short" in r.stderr, r)


def t_podcastindex_bad_key(w):
    """a wrong secret: the directory's 401 and what to check"""
    config = w.write_config(
        "pi-bad", extra=f"podcastindex_key={KEY}\n"
        "podcastindex_secret=wrong\n")
    r = w.bridge("--config", config, "search", "pytorch")
    check(r.returncode == 1, r)
    check(f"cannot search Podcast Index at {w.directory.base}/pi/search/"
          "byterm: the directory answered HTTP 401" in r.stderr and
          "podcastindex_key and podcastindex_secret" in r.stderr, r.stderr)


def t_half_a_key(w):
    """a key without its secret, or the reverse, is a settings error"""
    for extra in (f"podcastindex_key={KEY}\n",
                  f"podcastindex_secret={SECRET}\n"):
        config = w.write_config("half", extra=extra)
        r = w.bridge("--config", config, "search", "pytorch")
        check(r.returncode == 1 and "podcastindex_key" in r.stderr and
              "podcastindex_secret" in r.stderr and config in r.stderr, r)
    config = w.write_config("ftp", text="[search]\nitunes_url=ftp://x/\n")
    r = w.bridge("--config", config, "search", "pytorch")
    check(r.returncode == 1 and "[search] itunes_url must be an http or "
          "https URL" in r.stderr, r)


def t_bad_answers(w):
    """HTTP errors and answers that are not the directory's JSON"""
    base = w.directory.base
    prefix = f"cannot search iTunes at {base}/itunes/search: "
    cases = [
        ("boom", "the directory answered HTTP 500: try again later"),
        ("truncated", "the directory's answer is not JSON"),
        ("notarray", "the directory's answer is not iTunes search JSON: "
         "results is not an array"),
        ("feednumber", "the directory's answer is not iTunes search "
         "JSON: feedUrl of result 1 is not a string"),
        ("deep", "the directory's answer is not JSON"),
        ("huge", "the directory's answer is larger than 4 MiB"),
        ("hugechunked", "the directory's answer is larger than 4 MiB"),
        ("tofile", "the directory redirected to a URL that is not http "
         "or https"),
    ]
    search(w, "pytorch")
    with open(os.path.join(w.cache, "last-search.json")) as f:
        before = f.read()
    for term, message in cases:
        r = search(w, term, code=1)
        check(r.stderr.startswith("mpd-bridge: " + prefix + message) and
              r.stderr.count("\n") == 1, f"{term}: {r.stderr}")
        check(r.stdout == "", f"{term}: {r.stdout}")
    with open(os.path.join(w.cache, "last-search.json")) as f:
        check(f.read() == before, "a failed search replaced the last one")


def t_redirect(w):
    """a redirect to another http URL is followed"""
    r = search(w, "moved")
    check("PyTorch Developer Podcast" in r.stdout, r.stdout)


def t_timeout(w):
    """a directory that never answers: a timeout, in [search] timeout"""
    config = w.write_config("fast", timeout=1)
    start = time.monotonic()
    r = w.bridge("--config", config, "search", "slow")
    took = time.monotonic() - start
    check(r.returncode == 1 and "did not answer within 1 s" in r.stderr and
          "iTunes" in r.stderr, r)
    check(took < 4, f"it took {took:.1f} s")


def t_unreachable(w):
    """nothing listens: the error names the directory and its URL"""
    port = free_port()
    config = w.write_config(
        "closed", text=f"[search]\nitunes_url=http://127.0.0.1:{port}/s\n")
    r = w.bridge("--config", config, "search", "pytorch")
    check(r.returncode == 1 and r.stderr.startswith(
        f"mpd-bridge: cannot search iTunes at http://127.0.0.1:{port}/s: "
        "cannot reach the directory"), r)


def t_usage(w):
    """no words, or an unknown option, is a usage error"""
    r = w.bridge("search")
    check(r.returncode != 0 and "usage: search" in r.stderr, r)
    r = w.bridge("search", "  ")
    check(r.returncode == 2 and "search needs words" in r.stderr, r)
    r = w.bridge("search", "--limit", "pytorch")
    check(r.returncode == 2 and "--json" in r.stderr, r)
    r = search(w, "--", "-pytorch")
    check(last_request(w)["query"].get("term") == ["-pytorch"],
          last_request(w))


def t_daemon_command_line(w):
    """with the daemon running: search here, subscribe N sent resolved"""
    w.start_daemon()
    search(w, "pytorch")
    r = w.bridge("subscribe", "1")
    check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
    url = w.directory.base + "/feed/pytorch.xml"
    wait_until(lambda: url in feeds(w), 20, "the subscription")
    check(not os.path.exists(os.path.join(w.root, "daemon-cache",
                                          "last-search.json")),
          "the daemon searched: the command line should have")
    r = w.bridge("subscribe", "99")
    check(r.returncode == 1 and "the last search found 3 podcasts" in
          r.stderr, r)


def t_daemon_channel(w):
    """over MPD's channel the daemon searches, and keeps its own list"""
    with Channel(w.mpd, "search-replies") as channel:
        answer = channel.send("search pytorch")
        check(answer[0].startswith("ok ") and
              "1  PyTorch Developer Podcast" in answer[0] and
              "/feed/cafe.xml" in answer[0], answer)
        check(os.path.exists(os.path.join(w.root, "daemon-cache",
                                          "last-search.json")),
              "the daemon kept no last search")
        answer = channel.send("subscribe 3")
        check(answer[0].startswith("ok subscribed to") and
              answer[0].endswith("/feed/alert.xml)"), answer)
        answer = channel.send("subscribe 99")
        check(answer == ["error the last search found 3 podcasts: choose "
                         "a number from 1 to 3"], answer)
        answer = channel.send("search --json nothing")
        check(answer[0].startswith("ok {"), answer)
        check(json.loads(answer[0][3:])["results"] == [], answer)
        answer = channel.send("search boom")
        check(answer[0].startswith("error cannot search iTunes at ") and
              "HTTP 500" in answer[0], answer)
        answer = channel.send("search feednumber")
        check(answer[0].startswith("error cannot search iTunes") and
              "feedUrl of result 1 is not a string" in answer[0], answer)
        # A slow directory holds up no other command: the daemon asks it
        # in a thread. The ping sent after the search is answered first.
        with Channel(w.mpd, "search-late") as late:
            late.ask('sendmessage mpd-bridge "@search-late search slow"')
            started = time.monotonic()
            check(channel.send("ping") == ["ok pong"], "the daemon is gone")
            check(time.monotonic() - started < 1.5,
                  "the ping waited for the search")
            answer = channel.send("search slow")
            check("did not answer within 2 s" in answer[0], answer)
    wait_until(lambda: w.directory.base + "/feed/alert.xml" in feeds(w),
               20, "the subscription made over the channel")


TESTS = [t_itunes_list, t_json, t_empty, t_subscribe_number, t_no_search_yet,
         t_last_search_is_atomic, t_podcastindex, t_podcastindex_bad_key,
         t_half_a_key, t_bad_answers, t_redirect, t_timeout, t_unreachable,
         t_usage, t_daemon_command_line, t_daemon_channel]


if __name__ == "__main__":
    sys.exit(run_tap(TESTS, World, bad_log=("CRITICAL", "WARNING")))
