#!/usr/bin/env python3
"""Hostile feeds and names through mpd-bridge, against a real MPD.

A private MPD (tests/support/mpdtest.py), the loopback feed server with
hostile feeds added, and the daemon. Every byte a client sends to MPD (the
daemon and the command line alike) goes through a recording proxy, so the
check that no control character reaches the MPD protocol is made on the
protocol itself; what MPD then holds (stored playlists, their names and
entries, the queue's tags) is read back from MPD directly, and the
directories are walked for files written where they should not be.

Each row of CASES is what is thrown and the outcome it must have.
HOSTILE_KEEP=1 in the environment keeps the directory, MPD and the daemon
when the test ends, to look at what happened.
"""
import json
import os
import socket
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
import hostile  # noqa: E402
from hostile import BRIDGE, MiB, Case, check, item, rss  # noqa: E402
from mpdtest import Mpd, quote, wait_until  # noqa: E402

# No prefix: names from feeds become playlist names as they are cleaned,
# with nothing in front to make a leading ".." or "/" harmless.
PREFIX = ""
# The daemon's own playlists (new episodes, lists), not a feed's.
OWN = ("Podcasts: ", "Podcast list: ")
# What MPD (and the daemon, see bridge_mpd_safe_playlist_name()) allows a
# stored playlist's name.
MAX_NAME_BYTES = 200


class Recorder:
    """A Unix socket in front of MPD's that passes everything through and
    keeps what clients send."""

    def __init__(self, upstream, path):
        self.upstream = upstream
        self.path = path
        self.lock = threading.Lock()
        self.sent = []
        self.socket = socket.socket(socket.AF_UNIX)
        self.socket.bind(path)
        self.socket.listen(64)
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                client, _ = self.socket.accept()
            except OSError:
                return
            server = socket.socket(socket.AF_UNIX)
            try:
                server.connect(self.upstream)
            except OSError:
                client.close()
                continue
            record = bytearray()
            with self.lock:
                self.sent.append(record)
            threading.Thread(target=self.pump, args=(client, server, record),
                             daemon=True).start()
            threading.Thread(target=self.pump, args=(server, client, None),
                             daemon=True).start()

    def pump(self, source, sink, record):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if record is not None:
                    with self.lock:
                        record.extend(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def lines(self):
        """Every command line clients sent, decoded."""
        with self.lock:
            streams = [bytes(r) for r in self.sent]
        out = []
        for data in streams:
            text = data.decode("utf-8")  # invalid UTF-8 raises
            out.extend(text.split("\n"))
        return out

    def close(self):
        self.socket.close()


class World:
    def __init__(self):
        self.dir = hostile.TempDir("hostile-bridge-")
        self.root = self.dir.path
        self.mpd = Mpd(self.dir.join("mpd"))
        self.recorder = None
        self.server = None
        self.daemon = None
        try:
            self.start()
        except BaseException:
            self.close()
            raise

    def start(self):
        self.mpd.start()
        self.recorder = Recorder(self.mpd.socket, self.dir.join("proxy"))
        self.music = self.dir.join("mpd", "music")
        self.env = hostile.tool_env(dict(
            G_DEBUG="fatal-criticals",
            XDG_CONFIG_HOME=self.dir.join("config"),
            XDG_STATE_HOME=self.dir.join("state"),
            XDG_CACHE_HOME=self.dir.join("cache"),
            MPD_HOST=self.recorder.path))
        self.env.pop("MPD_PORT", None)
        config = self.dir.join("config", "mpd-bridge")
        os.makedirs(config)
        with open(os.path.join(config, "config"), "w") as f:
            # The hosts' URLs, as the feeds give them, are what the
            # cases check reach MPD: without the relay, which would
            # give MPD its own (tests/hostile/test-relay.py is its).
            f.write(f"[bridge]\nmusic_directory={self.music}\n"
                    "playlist_prefix=\nrelay=no\n")
        self.routes = {}
        self.server = hostile.Server(self.routes)
        self.log = self.dir.join("daemon.log")
        self.before = self.files()
        self.start_daemon()

    def serve(self, path, body):
        self.routes[path] = lambda handler: handler.send_body(200, body)
        return self.server.url(path)

    def bridge(self, *args, env=None, timeout=60):
        return subprocess.run([BRIDGE, *args], capture_output=True,
                              env=env or self.env, timeout=timeout)

    def start_daemon(self):
        self.daemon = subprocess.Popen(
            [BRIDGE, "run"], env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=open(self.log, "ab"))
        wait_until(lambda: self.bridge("ping").returncode == 0, 20,
                   "the daemon to answer")

    def daemon_log(self):
        with open(self.log, errors="replace") as f:
            return f.read()

    def files(self):
        found = set()
        for top, dirs, names in os.walk(self.root):
            for name in names:
                found.add(os.path.join(top, name))
        return found

    def close(self):
        if os.environ.get("HOSTILE_KEEP"):
            print(f"# kept {self.root}")
            return
        if self.daemon is not None and self.daemon.poll() is None:
            self.daemon.terminate()
            self.daemon.wait(20)
        self.mpd.stop()
        if self.recorder is not None:
            self.recorder.close()
        if self.server is not None:
            self.server.close()
        self.dir.close()


def playlists(world):
    return world.mpd.values("listplaylists", "playlist")


def playlist(world, name):
    return world.mpd.values(f"listplaylist {quote(name)}", "file")


def subscribe(world, url):
    r = world.bridge("subscribe", url)
    check(r.returncode == 0, f"subscribe {url}: {r.stderr!r}")


def wait_playlist(world, name, timeout=20):
    wait_until(lambda: name in playlists(world), timeout,
               f"the playlist {name!r} in MPD")
    return name


def clean_protocol(world):
    """No line a client sent MPD holds a control character."""
    bad = [line for line in world.recorder.lines()
           if hostile.control_characters(line)]
    check(not bad, f"{len(bad)} protocol line(s) with control characters: "
          f"{[line[:120] for line in bad[:3]]}")


def daemon_alive(world):
    check(world.daemon.poll() is None,
          f"the daemon exited with {world.daemon.returncode}")
    r = world.bridge("ping")
    check(r.returncode == 0, f"the daemon does not answer: {r.stderr!r}")
    check("CRITICAL" not in world.daemon_log(), "the daemon logged a "
          "critical")


NASTY = (b"A\x01B\x1fC\x7fD\rE\nF\tG\xe2\x80\xa8H\xe2\x80\xa9I\xc2\x85J"
         b"\xc2\x9bK&#127;L&#x85;M&#13;&#10;N")
INVALID_UTF8 = b"P\xff\xfeQ\xc0\xafR\xed\xa0\x80S\x80T"


def nasty_text(world):
    items = [item(NASTY, "http://e.invalid/n/1.mp3", "n1",
                  b"<itunes:author>" + NASTY + b"</itunes:author>"),
             item(b"two\nlines\r\nthree", "http://e.invalid/n/2.mp3", "n2"),
             item(INVALID_UTF8, "http://e.invalid/n/3.mp3", "n3"),
             item(b"#EXTM3U\n#EXTINF:1,x\nhttp://e.invalid/injected.mp3",
                  "http://e.invalid/n/4.mp3", "n4")]
    url = world.serve("/b/nasty", rss(items, title=b"Nasty\nShow\x01" +
                                      INVALID_UTF8))
    subscribe(world, url)
    name = wait_until(
        lambda: [p for p in playlists(world) if p.startswith(PREFIX +
                                                             "Nasty")],
        20, "the nasty show's playlist")[0]
    check(not hostile.control_characters(name), f"playlist name {name!r}")
    entries = playlist(world, name)
    check(sorted(entries) == [f"http://e.invalid/n/{k}.mp3"
                              for k in (1, 2, 3, 4)],
          f"the stored playlist holds {entries}")
    # Queue all four and read the tags MPD holds.
    world.mpd.command("clear")
    for k in (1, 2, 3, 4):
        r = world.bridge("queue", f"http://e.invalid/n/{k}.mp3")
        check(r.returncode == 0, f"queue episode {k}: {r.stderr!r}")
    info = world.mpd.command("playlistinfo")
    files = [line for line in info if line.startswith("file: ")]
    check(len(files) == 4, f"the queue holds {len(files)} entries")
    for line in info:
        check(not hostile.control_characters(line), f"MPD holds {line!r}")
    titles = [line for line in info if line.startswith("Title: ")]
    check(len(titles) == 4, f"titles in the queue: {titles}")
    m3u = os.path.join(world.music, name + ".m3u")
    wait_until(lambda: os.path.exists(m3u), 20, "the M3U for browsing")
    with open(m3u, encoding="utf-8") as f:
        lines = f.read().split("\n")[:-1]
    for line in lines:
        check(not hostile.control_characters(line), f"the M3U has {line!r}")
    check(len([x for x in lines if not x.startswith("#")]) == 4,
          f"the M3U has {lines}")
    clean_protocol(world)
    world.mpd.command("clear")
    return ("4 entries in the stored playlist, the queue and the M3U; "
            "no control character in names, tags or protocol")


URLS = [
    ("file:///etc/passwd", None),
    ("javascript:alert(1)", None),
    ("data:audio/mpeg;base64,SUQz", None),
    ("ftp://e.invalid/u/ftp.mp3", None),
    ("/u/root.mp3", "/u/root.mp3"),
    ("rel.mp3", "/b/rel.mp3"),
    ("http://e.invalid/u/lf&#10;1.mp3", "http://e.invalid/u/lf1.mp3"),
    ("http://e.invalid/u/cr&#13;2.mp3", "http://e.invalid/u/cr2.mp3"),
    ("http://e.invalid/u/sp 3.mp3", "http://e.invalid/u/sp%203.mp3"),
    ("http://e.invalid/u/enc%0A%00.mp3", "http://e.invalid/u/enc%0A%00.mp3"),
    ("http://e.invalid/u/ls\u2028.mp3", None),
    ("http://e.invalid:99999/u/port.mp3", None),
    ("http:///u/nohost.mp3", None),
]


def enclosure_urls(world):
    items = [item(f"U{k}", url, f"u{k}") for k, (url, _) in enumerate(URLS)]
    url = world.serve("/b/urls", rss(items, title="Url Show"))
    base = world.server.url("")
    wanted = sorted(out if out.startswith("http") else base + out
                    for _, out in URLS if out is not None)
    subscribe(world, url)
    name = wait_playlist(world, PREFIX + "Url Show")
    entries = sorted(playlist(world, name))
    check(entries == wanted, f"the stored playlist holds {entries}, "
          f"wanted {wanted}")
    clean_protocol(world)
    return f"{len(entries)} of {len(URLS)} in MPD, as the table says"


NAMES = [
    ("slash", "AC/DC / Live"),
    ("dotdot", ".."),
    ("traversal", "../../../../tmp/evil"),
    ("hidden", ".hidden"),
    ("newline", "Line one\nline two"),
    ("separator", "Para\u2029graph"),
    ("long", "L" * 10000),
    ("backslash", "a\\b"),
]


def files_in_place(world):
    """New files only in MPD's playlist and music directories, the state,
    config and cache directories, and MPD's own files."""
    allowed = [world.mpd.playlists, world.music, world.dir.join("state"),
               world.dir.join("config"), world.dir.join("cache"),
               world.dir.join("import-state"), world.log,
               world.dir.join("10000.opml")]
    stray = []
    for path in world.files() - world.before:
        inside = any(os.path.commonpath([path, a]) == a for a in allowed)
        if not inside and os.path.dirname(path) != world.mpd.root:
            stray.append(path)
    check(not stray, f"files written elsewhere: {stray}")
    for directory in (world.mpd.playlists, world.music):
        for name in os.listdir(directory):
            check(len(name.encode()) <= 255 and "\n" not in name,
                  f"{directory} holds {name!r}")


def check_name(world, name, what):
    check("/" not in name and not hostile.control_characters(name) and
          not name.startswith(".") and
          len(name.encode()) <= MAX_NAME_BYTES,
          f"{what}: stored playlist name {name!r}")


def feed_titles(world):
    made = []
    for key, title in NAMES:
        url = world.serve(f"/b/name-{key}", rss(
            [item(f"{key} episode", f"http://e.invalid/{key}/1.mp3",
                  f"{key}-1")], title=title.replace("&", "&amp;")
            .replace("<", "&lt;")))
        subscribe(world, url)
        made.append((key, url))
    # Each subscription's playlist is there, holding its one episode.
    for key, url in made:
        entry = f"http://e.invalid/{key}/1.mp3"

        def holding():
            for name in playlists(world):
                if not name.startswith(OWN) and \
                        entry in playlist(world, name):
                    return name
            return None
        name = wait_until(holding, 20, f"the playlist of {key}")
        check_name(world, name, key)
    files_in_place(world)
    clean_protocol(world)
    return (f"{len(NAMES)} playlists under cleaned names; nothing written "
            "outside MPD's playlist and music directories")


def set_names(world):
    url = world.serve("/b/renamed", rss(
        [item("renamed episode", "http://e.invalid/renamed/1.mp3", "r1")],
        title="Renamed"))
    subscribe(world, url)
    wait_playlist(world, PREFIX + "Renamed")
    entry = "http://e.invalid/renamed/1.mp3"
    outcomes = []
    current = "Renamed"
    # Not the 10,000 characters: a command that long does not fit in one
    # MPD message, which mpd-bridge does not handle yet.
    for key, value in [(k, v) for k, v in NAMES if k != "long"]:
        r = world.bridge("set", current, "name", value)
        if r.returncode != 0:
            message = r.stderr.decode("utf-8", "replace").strip()
            check(message.startswith("mpd-bridge:") and "\n" not in message,
                  f"set name {key}: exit {r.returncode}: {message!r}")
            outcomes.append(f"{key}: refused ({message[:70]!r})")
            continue

        def holding():
            names = [n for n in playlists(world)
                     if entry in playlist(world, n) and
                     not n.startswith(OWN)]
            return names if len(names) == 1 else None
        name = wait_until(holding, 20, f"one playlist after set {key}")[0]
        check_name(world, name, f"set name {key}")
        outcomes.append(f"{key}: {name[:24]!r}")
        current = url
    files_in_place(world)
    clean_protocol(world)
    return "; ".join(outcomes)


def import_opml(world):
    n = 10000
    body = "".join(
        f'<outline type="rss" text="Feed {k}" '
        f'xmlUrl="http://127.0.0.1:9/opml/{k}"/>\n' for k in range(n))
    path = world.dir.join("10000.opml")
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?>\n<opml version="2.0"><body>\n'
                f"{body}</body></opml>\n")
    env = dict(world.env, XDG_STATE_HOME=world.dir.join("import-state"),
               MPD_HOST=world.dir.join("no-mpd.socket"))
    # Nothing listens on port 9: --force keeps the feeds it cannot read.
    outcome = hostile.measured([BRIDGE, "import-opml", "--force", path],
                               env=env, timeout=120)
    check(outcome.returncode == 0,
          f"import-opml: {outcome.describe()}: {outcome.stderr[-300:]!r}")
    listed = world.bridge("list", "--json", env=env)
    check(listed.returncode == 0, listed.stderr)
    urls = {f["url"] for f in json.loads(listed.stdout)}
    check(len(urls) == n, f"the state holds {len(urls)} subscriptions")
    check(outcome.seconds < 60, outcome.describe())
    return (f"{len(urls)} subscriptions in the state, in "
            f"{outcome.seconds:.2f} s, peak {outcome.max_rss / MiB:.1f} MiB")


def survived(world):
    daemon_alive(world)
    clean_protocol(world)
    files_in_place(world)
    world.daemon.terminate()
    code = world.daemon.wait(20)
    check(code == 0, f"the daemon exited with {code}")
    check("Sanitizer" not in world.daemon_log(),
          "a sanitizer reported in the daemon's log")
    return (f"{len(world.recorder.lines())} protocol lines checked; the "
            "daemon stopped cleanly")


CASES = [
    Case("C0, DEL, C1, U+2028/9, CR/LF and invalid UTF-8 in episode titles,"
         " authors and the show's title",
         "4 entries in MPD's stored playlist, queue and M3U; no control "
         "character in any name, tag or protocol line", nasty_text),
    Case(f"{len(URLS)} enclosure URLs: file, javascript, data, ftp, root, "
         "relative, newline, CR, space, %0A%00, U+2028, bad port, no host",
         "only http(s) URLs with a host reach MPD, relative ones resolved "
         "against the feed", enclosure_urls),
    Case("feed titles with '/', '..', '../../..', a leading dot, a newline,"
         " U+2029, 10,000 characters, a backslash",
         "a stored playlist under a cleaned name (no '/', no control "
         "character, at most 200 bytes); nothing written outside MPD's "
         "directories", feed_titles),
    Case("mpd-bridge set FEED name with the same names, but the long one",
         "the playlist follows under a cleaned name, or a one-line error",
         set_names),
    Case("import-opml of 10,000 feeds with no daemon",
         "10,000 subscriptions in the state, under a minute", import_opml),
    Case("after all of it", "the daemon still answers, no critical, "
         "no control character sent to MPD, no stray file; it stops with "
         "status 0", survived),
]


if __name__ == "__main__":
    sys.exit(hostile.main(CASES, setup=World, teardown=World.close))
