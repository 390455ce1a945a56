"""Shared by the tests of titled playlists and queue entries: a loopback
site serving feeds and episodes, the feeds themselves, a state file with
titles no feed parser would let through, and mpd-bridge's daemon, run as
the test's own user or as another one.

Standard library only. A test adds this directory, ../support and
../bridge-faults to sys.path and imports it.
"""
import email.utils
import hashlib
import os
import pwd
import shutil
import subprocess
import sys
import time
import urllib.parse
import xml.sax.saxutils

import faults
import media
from mpdtest import wait_until

BRIDGE = os.environ.get("MPD_BRIDGE")

DAY = 86400
# 2024-01-01 00:00 UTC: the first episode of the show; one a day after it.
SHOW_EPOCH = 1704067200
# 2010-01-01: the big feed is older, so Podcasts: New stays the show's.
BIG_EPOCH = 1262304000


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Episode:
    """One item of a feed as the test wrote it, and what MPD should show."""

    def __init__(self, guid, title, url, published, seconds, number):
        self.guid = guid
        self.title = title
        self.url = url
        self.published = published
        self.seconds = seconds
        self.number = number
        # The title as the feed writes it, when not just escaped.
        self.xml_title = None

    @property
    def date(self):
        return time.strftime("%Y-%m-%d", time.gmtime(self.published))

    @property
    def clock(self):
        """As ncmpcpp shows a duration: M:SS, or H:MM:SS."""
        h, rest = divmod(self.seconds, 3600)
        m, s = divmod(rest, 60)
        return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Feed:
    """A podcast: @title by @author, its episodes oldest first."""

    def __init__(self, path, title, author, episodes):
        self.path = path
        self.title = title
        self.author = author
        self.episodes = episodes

    def newest_first(self):
        return sorted(self.episodes, key=lambda e: -e.published)

    def by_number(self, number):
        return next(e for e in self.episodes if e.number == number)

    def rss(self):
        esc = xml.sax.saxutils.escape
        items = "".join(
            f"<item><title>{e.xml_title or esc(e.title)}</title>"
            f'<guid isPermaLink="false">{esc(e.guid)}</guid>'
            f"<pubDate>{email.utils.formatdate(e.published)}</pubDate>"
            f"<itunes:author>{esc(self.author)}</itunes:author>"
            f"<itunes:duration>{e.seconds}</itunes:duration>"
            f"<itunes:episode>{e.number}</itunes:episode>"
            f'<enclosure url="{esc(e.url)}" length="1000" '
            f'type="{media.media_type(e.url)}"/></item>'
            for e in self.episodes)
        return ('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" '
                'xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">'
                f"<channel><title>{esc(self.title)}</title>"
                "<link>http://127.0.0.1/</link><description>d</description>"
                f"<itunes:author>{esc(self.author)}</itunes:author>"
                f"{items}</channel></rss>\n").encode()


# Distinct words, so that no two titles are alike.
WORDS = ["compilers", "autograd", "tensors", "dispatch", "kernels",
         "tracing", "quantization", "sparsity", "vmap", "codegen", "mobile",
         "distributed"]


# What the newest episode's file says of itself.
STREAM_TITLE = "The stream's own title"
STREAM_ARTIST = "The stream's own artist"


def show(site, path="show.xml", count=83, title="The Loopback Show",
         author="Ada Lovelace and Grace Hopper"):
    """A feed of @count episodes like a real one: titles, durations of
    10 to 40 minutes (the fourth newest lasts 993 s, shown 16:33), a day
    apart, numbered. The newest is a 6 s trailer that plays: an MP3
    whose own tags say STREAM_TITLE and STREAM_ARTIST."""
    stem = path.rsplit(".", 1)[0]
    episodes = []
    for k in range(count):
        number = k + 1
        seconds = 993 if number == count - 3 else 600 + (k * 97) % 1800
        name = f"Episode {number}: {WORDS[k % len(WORDS)]}, part " \
            f"{k // 12 + 1}"
        suffix = "wav"
        if number == count:
            seconds, name, suffix = 6, f"Episode {number}: the trailer", "mp3"
        episodes.append(Episode(
            f"urn:titles:{stem}:{number}", name,
            site.url(f"/{stem}/ep{number:04d}.{suffix}"),
            SHOW_EPOCH + k * DAY, seconds, number))
    site.serve(episodes[-1], media.tagged_mp3(6, STREAM_TITLE, STREAM_ARTIST))
    return site.add(Feed(path, title, author, episodes))


def big(site, count=1000):
    """A feed of @count episodes, older than the show's."""
    episodes = [Episode(f"urn:titles:big:{k + 1}",
                        f"Archive {k + 1}: {WORDS[k % len(WORDS)]}",
                        site.url(f"/big/a{k + 1:05d}.wav"),
                        BIG_EPOCH + k * 3600, 1200 + k % 600, k + 1)
                for k in range(count)]
    return site.add(Feed("big.xml", "The Big Archive", "Archivists",
                         episodes))


class Handler(faults.Handler):
    """/PATH.xml, a feed of the site; any other path one of its files,
    with 206 answers to Range requests."""

    def do_GET(self):
        feed = self.server.feeds.get(self.route)
        if feed is None:
            return super().do_GET()
        return self.reply(200, feed.rss(), "application/rss+xml")


class Site(media.Server):
    """Feeds and episode files on 127.0.0.1."""

    def __init__(self):
        super().__init__(Handler)
        self.feeds = {}

    def add(self, feed):
        self.feeds["/" + feed.path] = feed
        return feed

    def serve(self, episode, data):
        """Serves @data at @episode's URL."""
        self.files[urllib.parse.urlsplit(episode.url).path] = data


def short_hash(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def keyfile_escape(value):
    return (value.replace("\\", "\\\\").replace("\n", "\\n")
            .replace("\r", "\\r").replace("\t", "\\t"))


def write_state(path, feed, url, listened=True):
    """A state file holding @feed, subscribed from @url: as if a feed had
    given titles that the parser never lets through (line breaks), so
    that the playlist writer alone has to keep them on their lines.
    Nothing is due for a month: the feed is never fetched."""
    now = int(time.time())
    fid = short_hash(url)
    out = [f"[bridge]\nversion=1\nsaved={now}\n",
           f"\n[feed {fid}]\nurl={url}\ntitle={keyfile_escape(feed.title)}\n"
           f"auto_queue=false\nkeep=0\nmin_duration=0\nserial=false\n"
           f"complete=false\nttl=0\nlast_refresh={now - 60}\n"
           f"next_refresh={now + 30 * DAY}\nfailures=0\ngone=false\n"
           f"added={now - DAY}\n"]
    for e in feed.episodes:
        out.append(f"\n[episode {short_hash(fid + chr(10) + e.guid)}]\n"
                   f"feed_id={fid}\nguid={e.guid}\nurl={e.url}\n"
                   f"title={keyfile_escape(e.title)}\n"
                   f"author={keyfile_escape(feed.author)}\n"
                   f"published={e.published}\nduration={e.seconds}\n"
                   f"number={e.number}\nfirst_seen={e.published}\n"
                   f"listened={'true' if listened else 'false'}\n"
                   "position=0\nlast_played=0\n")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(out))


def entries(lines):
    """Song lists of MPD (playlistinfo, listplaylistinfo) as dicts, one a
    song; a tag given twice keeps both values, joined by " | "."""
    out = []
    for line in lines:
        key, _, value = line.partition(": ")
        if key == "file":
            out.append({})
        if out:
            song = out[-1]
            song[key] = song[key] + " | " + value if key in song else value
    return out


class Daemon:
    """mpd-bridge run in the background, as this user or as @user."""

    def __init__(self, root, env, user=None):
        self.root = root
        self.env = env
        self.user = user
        self.log_path = os.path.join(root, "daemon.log")
        self.process = None
        self.argv0 = BRIDGE
        if user is not None:
            self.argv0, self.env = readable_bridge(root, env)

    def argv(self, *args):
        argv = [self.argv0, *args]
        if self.user is None:
            return argv
        entry = pwd.getpwnam(self.user)
        return ["setpriv", f"--reuid={entry.pw_uid}",
                f"--regid={entry.pw_gid}", "--clear-groups", "--"] + argv

    def run(self, *args, timeout=60):
        return subprocess.run(self.argv(*args), capture_output=True,
                              text=True, env=self.env, timeout=timeout)

    def ok(self, *args):
        r = self.run(*args)
        check(r.returncode == 0,
              f"mpd-bridge {' '.join(args)}: exit {r.returncode}: "
              f"{r.stdout}{r.stderr}")
        return r.stdout

    def start(self):
        log = open(self.log_path, "a")
        self.process = subprocess.Popen(
            self.argv("run"), env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=log)
        log.close()
        wait_until(lambda: self.process.poll() is not None or
                   self.run("ping").returncode == 0, 20,
                   "the daemon to answer")
        check(self.process.poll() is None,
              f"the daemon exited: {self.log()[-600:]}")

    def stop(self):
        if self.process is None:
            return None
        code = faults.stop(self.process)
        self.process = None
        return code

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""


def readable_bridge(root, env):
    """A copy of mpd-bridge and libfeed in @root/bin, mode 0755: the build
    may sit where another user cannot read it (a clone in a mode-0700
    directory). Returns the copy's path and @env to run it with."""
    bin_dir = os.path.join(root, "bin")
    if not os.path.isdir(bin_dir):
        os.mkdir(bin_dir, 0o755)
        shutil.copy(BRIDGE, bin_dir)
        libs = [os.path.join(os.path.dirname(os.path.dirname(
            os.path.abspath(BRIDGE))), "libfeed")]
        libs += env.get("LD_LIBRARY_PATH", "").split(":")
        for d in libs:
            for name in os.listdir(d) if os.path.isdir(d) else []:
                if name.startswith("libfeed.so") and not name.endswith(".p"):
                    shutil.copy(os.path.join(d, name), bin_dir)
    return (os.path.join(bin_dir, os.path.basename(BRIDGE)),
            dict(env, LD_LIBRARY_PATH=bin_dir))


def run_cases(world, tests):
    """Runs each of @tests (functions of @world, their docstrings their
    names) and prints a TAP line for each; then one failure more if the
    daemon died or warned. Returns the number of failures."""
    failed = 0
    for n, t in enumerate(tests, 1):
        name = " ".join(t.__doc__.split())
        try:
            t(world)
            print(f"ok {n} - {name}")
        except Exception as e:  # noqa: BLE001 - reported as TAP
            failed += 1
            print(f"not ok {n} - {name}")
            for line in (str(e) or type(e).__name__).splitlines():
                print(f"# {line[:2000]}")
        sys.stdout.flush()
    log = world.daemon.log()
    if world.daemon.process.poll() is not None or "CRITICAL" in log or \
            "WARNING" in log:
        failed += 1
        print("# the daemon died or warned:")
        for line in log.splitlines()[-10:]:
            print(f"# daemon: {line}")
    return failed
