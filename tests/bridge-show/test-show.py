#!/usr/bin/env python3
"""mpd-bridge show end to end: a private MPD, a loopback HTTP server of
its own (a feed with rich show notes, and audio MPD can play), with and
without the daemon.

Prints TAP. Needs mpd (Debian's package); without it every test fails.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "support"))
from mpdtest import Channel, Mpd, wait_until  # noqa: E402
from bridgeworld import run_tap  # noqa: E402
import media  # noqa: E402

BRIDGE = os.environ.get("MPD_BRIDGE")

FEED = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
     xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
     xmlns:psc="http://podlove.org/simple-chapters"
     xmlns:podcast="https://podcastindex.org/namespace/1.0">
<channel>
<title>Show Notes Weekly</title>
<link>http://example.invalid/</link>
<description>A podcast with notes</description>
<podcast:funding url="https://example.invalid/donate">Buy us a coffee</podcast:funding>
<item>
  <guid isPermaLink="false">ep-rich</guid>
  <title>Rich notes</title>
  <link>https://example.invalid/rich</link>
  <pubDate>Sun, 04 Aug 2024 01:47:46 +0000</pubDate>
  <itunes:duration>16:33</itunes:duration>
  <enclosure url="BASE/rich.wav" type="audio/wav" length="1"/>
  <content:encoded><![CDATA[<p>We talk about <b>compilers</b> &amp; ranks.
See the <a href="https://example.invalid/design">design doc</a>.</p>
<ul><li>first point</li><li>second point</li></ul>
<p>PR at <a href="https://github.com/example/repo/pull/1">https://github.com/example/repo/pull/1</a></p>]]></content:encoded>
  <psc:chapters version="1.2">
    <psc:chapter start="00:00:00" title="Intro"/>
    <psc:chapter start="00:05:30" title="The main part"/>
  </psc:chapters>
  <podcast:chapters url="https://example.invalid/rich/chapters.json" type="application/json+chapters"/>
  <podcast:transcript url="https://example.invalid/rich.vtt" type="text/vtt" language="en"/>
</item>
<item>
  <guid isPermaLink="false">ep-plain</guid>
  <title>Plain notes</title>
  <pubDate>Sun, 28 Jul 2024 01:00:00 +0000</pubDate>
  <enclosure url="BASE/plain.wav" type="audio/wav" length="1"/>
  <description>Just text, no markup.

A second paragraph.</description>
</item>
</channel>
</rss>
"""


class Site:
    """Serves /feed.xml (ETag "v1", 304 when it matches) and audio, with
    ranges."""

    def __init__(self):
        self.requests = []
        site = self

        class Handler(media.Handler):
            def do_GET(self):
                site.requests.append(
                    (self.path, self.headers.get("If-None-Match")))
                if self.path != "/feed.xml":
                    self.serve_file()
                elif self.headers.get("If-None-Match") == '"v1"':
                    self.reply(304, ctype=None, headers=[("ETag", '"v1"')])
                else:
                    self.reply(200, FEED.replace("BASE", site.base).encode(),
                               "application/rss+xml", [("ETag", '"v1"')])

        audio = media.silent_wav(30)
        self.server = media.Server(Handler, {"/rich.wav": audio,
                                             "/plain.wav": audio})
        self.base = self.server.base

    def close(self):
        self.server.close()


class World:
    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="bridge-show-")
        self.mpd = Mpd(os.path.join(self.root, "mpd"))
        self.mpd.start()
        self.site = Site()
        self.env = dict(os.environ)
        self.env.update({
            "XDG_CONFIG_HOME": os.path.join(self.root, "config"),
            "XDG_STATE_HOME": os.path.join(self.root, "state"),
            "XDG_CACHE_HOME": os.path.join(self.root, "cache"),
            "MPD_HOST": self.mpd.socket,
            "G_DEBUG": "fatal-warnings",
            "COLUMNS": "60",
        })
        self.env.pop("MPD_PORT", None)
        self.cache = os.path.join(self.root, "cache", "mpd-bridge", "feeds")
        self.daemon = None
        self.daemon_log = os.path.join(self.root, "daemon.log")
        self.feed = self.site.base + "/feed.xml"

    def bridge(self, *args):
        return subprocess.run([BRIDGE, *args], capture_output=True,
                              text=True, env=self.env, timeout=60)

    def start_daemon(self):
        self.daemon = subprocess.Popen(
            [BRIDGE, "run"], env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=open(self.daemon_log, "a"))
        wait_until(lambda: self.bridge("ping").returncode == 0, 20,
                   "the daemon to answer")

    def stop_daemon(self):
        if self.daemon is not None:
            self.daemon.send_signal(signal.SIGTERM)
            code = self.daemon.wait(20)
            self.daemon = None
            check(code == 0, f"the daemon exited with {code}")

    def log(self):
        try:
            with open(self.daemon_log) as f:
                return f.read()
        except OSError:
            return ""

    def close(self):
        try:
            self.stop_daemon()
        finally:
            self.mpd.stop()
            self.site.close()
            shutil.rmtree(self.root, ignore_errors=True)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def show(w, *args):
    r = w.bridge("show", *args)
    check(r.returncode == 0, f"show {args}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def playing(w):
    """MPD plays, its decoder under way: a pause now finds it playing.
    ("play" alone comes before the stream is open, and a stream that
    fails to start stops MPD after it.)"""
    status = w.mpd.status()
    return status.get("state") == "play" and \
        float(status.get("elapsed", 0)) > 0


def check_rich(text):
    lines = text.splitlines()
    check(lines[0] == "Show Notes Weekly" and lines[1] == "Rich notes",
          text)
    check(lines[2].startswith("2024-08-04 · 17 min · new"), lines[2])
    check("We talk about compilers & ranks. See the design doc [1]." in
          " ".join(lines), text)
    check("• first point" in lines and "• second point" in lines, text)
    check("PR at [2]" in lines, text)
    check("[1] https://example.invalid/design" in lines, text)
    check("[2] https://github.com/example/repo/pull/1" in lines, text)
    check(text.count("github.com/example/repo/pull/1") == 1, text)
    check(max(len(line) for line in lines
              if not line.startswith("[")) <= 60, "not wrapped to 60")
    check("Chapters: https://example.invalid/rich/chapters.json" in lines,
          text)
    check(any(l.split() == ["0:00", "Intro"] for l in lines), text)
    check(any(l.split() == ["5:30", "The", "main", "part"] for l in lines),
          text)
    check("  https://example.invalid/rich.vtt (text/vtt, en)" in lines, text)
    check(any("https://example.invalid/donate" in l and "Buy us a coffee"
              in l for l in lines), text)


def t_by_number(w):
    """show 1 without a daemon: the page, notes wrapped, links as refs"""
    r = w.bridge("subscribe", w.feed)
    check(r.returncode == 0, r.stderr)
    check(len(os.listdir(w.cache)) == 1, os.listdir(w.cache))
    check_rich(show(w, "1"))


def t_by_guid(w):
    """show GUID: plain-text notes keep their paragraphs"""
    text = show(w, "ep-plain")
    check(text.splitlines()[1] == "Plain notes", text)
    check("Just text, no markup.\n\nA second paragraph." in text, text)


def t_latest(w):
    """show latest FEED"""
    check(show(w, "latest", "Show Notes Weekly").splitlines()[1] ==
          "Rich notes", "not the latest")


def t_json(w):
    """show --json: every field"""
    page = json.loads(show(w, "1", "--json"))
    for key in ("number", "id", "guid", "feed", "podcast", "title", "url",
                "link", "published", "duration", "state", "position",
                "starred", "current", "in_feed", "notes", "references",
                "chapters_url", "chapters", "transcripts", "funding"):
        check(key in page, f"no {key} in {page}")
    check(page["number"] == 1 and page["guid"] == "ep-rich", page)
    check(page["podcast"] == "Show Notes Weekly", page)
    check(page["state"] == "new" and page["duration"] == 993, page)
    check(page["references"] == ["https://example.invalid/design",
                                 "https://github.com/example/repo/pull/1"],
          page)
    check("design doc [1]" in page["notes"] and "\n" in page["notes"], page)
    check(page["chapters"] == [
        {"start": 0, "title": "Intro", "url": None},
        {"start": 330, "title": "The main part", "url": None}], page)
    check(page["transcripts"] == [{"url": "https://example.invalid/rich.vtt",
                                   "type": "text/vtt", "language": "en",
                                   "rel": None}], page)
    check(page["funding"] == [{"url": "https://example.invalid/donate",
                               "text": "Buy us a coffee"}], page)


def t_unknown(w):
    """an unknown episode: a clear error, exit 1"""
    r = w.bridge("show", "no-such-guid")
    check(r.returncode == 1, f"exit {r.returncode}")
    check("no episode is 'no-such-guid'" in r.stderr, r.stderr)


def t_cache_missing(w):
    """a missing cache: says how to get it; refresh fetches it whole"""
    for name in os.listdir(w.cache):
        os.remove(os.path.join(w.cache, name))
    r = w.bridge("show", "1")
    check(r.returncode == 1, f"exit {r.returncode}")
    check("not fetched yet" in r.stderr and "mpd-bridge refresh" in
          r.stderr, r.stderr)
    r = w.bridge("refresh", "Show Notes Weekly")
    check(r.returncode == 0, r.stderr)
    # The feed has validators, but without notes it is fetched whole.
    check(w.site.requests[-1] == ("/feed.xml", None), w.site.requests[-1])
    check_rich(show(w, "1"))
    r = w.bridge("refresh", "Show Notes Weekly")
    check(w.site.requests[-1] == ("/feed.xml", '"v1"'), w.site.requests[-1])
    check_rich(show(w, "1"))


def t_current(w):
    """show alone: the episode MPD is on, paused, with its position"""
    w.mpd.command(f"add {w.site.base}/rich.wav", "play")
    wait_until(lambda: playing(w), 20, "MPD to play rich.wav")
    w.mpd.command("pause 1")
    text = show(w)
    check(text.splitlines()[1] == "Rich notes", text)
    check(" · paused" in text.splitlines()[2], text)
    page = json.loads(show(w, "--json"))
    check(page["current"] and page["guid"] == "ep-rich", page)
    w.mpd.command("clear")
    r = w.bridge("show")
    check(r.returncode == 1 and "no current song" in r.stderr, r.stderr)


def t_daemon(w):
    """with the daemon: the command line, and one line over MPD"""
    w.start_daemon()
    check_rich(show(w, "1"))
    check(show(w, "ep-plain").splitlines()[1] == "Plain notes", "plain")
    w.mpd.command(f"add {w.site.base}/plain.wav", "play")
    wait_until(lambda: playing(w), 20, "MPD to play plain.wav")
    w.mpd.command("pause 1")
    check(show(w).splitlines()[1] == "Plain notes", "not the current")
    with Channel(w.mpd, "show-test") as channel:
        answer = channel.send("show 1")[0]
        check(answer.startswith("ok Show Notes Weekly;Rich notes;"), answer)
        check("design doc [1]." in answer and
              "[2] https://github.com/example/repo/pull/1" in answer, answer)
        answer = channel.send("show")[0]
        check(answer.startswith("ok Show Notes Weekly;Plain notes;"),
              answer)
        answer = channel.send("show 1 --json")[0]
        check(answer.startswith("ok "), answer)
        page = json.loads(answer[3:])
        check(page["guid"] == "ep-rich" and len(page["references"]) == 2,
              page)
        answer = channel.send("show nope")[0]
        check(answer.startswith("error no episode is 'nope'"), answer)
    w.mpd.command("clear")
    r = w.bridge("unsubscribe", "Show Notes Weekly")
    check(r.returncode == 0, r.stderr)
    check(os.listdir(w.cache) == [], f"left {os.listdir(w.cache)}")


TESTS = [t_by_number, t_by_guid, t_latest, t_json, t_unknown,
         t_cache_missing, t_current, t_daemon]


if __name__ == "__main__":
    sys.exit(run_tap(TESTS, World))
