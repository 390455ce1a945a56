#!/usr/bin/env python3
"""mpd-bridge's phone sync end to end, for both API families.

For each family (gpodder.net API v2, Nextcloud gpoddersync) one world:
a private MPD playing in real time to a null output, a loopback HTTP
server of our own serving feeds whose episodes are 90 s WAV files MPD can
play and seek (it answers range requests), the sync test server
(tests/support/gpodder-server.py), a phone that syncs by AntennaPod's rules
(tests/support/phone.py), and the daemon with [sync] set (push_delay 1 s,
trust_clock yes). The speaker is driven through MPD's protocol, as any MPD
client would; the phone through its own calls.

The issue's times are scaled down to 90 s episodes: "the phone stops at
12:00" is the phone pausing at 40 s, and the speaker resuming at 35 s (the
bridge resumes 5 s before a saved position); an episode is listened from
60 s (its duration less 30 s).

Prints TAP. Standard library only. Needs mpd (Debian's package) and
MPD_BRIDGE, the built mpd-bridge; GPODDER_TEST_SERVER names the sync test
server (by default the one next to this directory). With SYNC_TEST_KEEP=1
the temporary directories (logs, state, config) are kept and named.
"""
import base64
import email.utils
import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from mpdtest import Channel, Mpd, quote, wait_until  # noqa: E402
from bridgeworld import check, playlists, run_tap  # noqa: E402
import phone as phonelib  # noqa: E402
import media  # noqa: E402

BRIDGE = os.environ.get("MPD_BRIDGE")
SYNC_SERVER = os.environ.get("GPODDER_TEST_SERVER") or os.path.join(
    HERE, "..", "support", "gpodder-server.py")

USER = "listener"
# Distinctive, so that any trace of it in an output is found.
PASSWORD = "Pw-7f3kq-NeverPrinted-91zx"
DEVICE = "mpd-bridge-test"
PUSH_DELAY = 1
DURATION = 90          # every episode, in seconds
RATE = 8000
TOLERANCE = 2.0        # seconds between positions said to be the same
RESUME_BEFORE = 5      # the bridge resumes this long before a position
SHOW = "Sync Show"
GUID = "urn:sync-test:"

# Feeds, by path: title and episode names. Each scenario has episodes of
# its own, so that one failing leaves the others' premises intact.
FEEDS = {
    "/show.xml": (SHOW, ["ep1", "ep2", "ep3", "ep4", "ep5", "ep6", "ep7",
                         "ep8", "ep9", "ep10"]),
    "/other.xml": ("Phone Side Show", ["o1", "o2"]),
    "/boxside.xml": ("Box Side Show", ["b1"]),
    "/down.xml": ("While Down Show", ["d1"]),
    "/kept.xml": ("Kept Elsewhere Show", ["k1"]),
    "/moving.xml": ("Moving Show", ["m1"]),
    "/late.xml": ("Late Item Show", ["l1", "l2"]),
}


WAV = media.square_wav(DURATION, RATE)


class FeedHandler(media.Handler):
    """/NAME.xml: a feed of FEEDS (or of the server's aliases, or a 301 to
    where it moved); /a/NAME.wav: an episode, with ranges."""

    def do_GET(self):
        path = self.route
        moved = self.server.moved.get(path)
        path = self.server.aliases.get(path, path)
        if moved is not None:
            self.reply(301, b"moved\n", "text/plain",
                       [("Location", self.server.url(moved))])
        elif path in FEEDS:
            self.reply(200, self.server.feed(path), "application/rss+xml")
        elif re.fullmatch(r"/a/[\w-]+\.wav", path):
            self.reply_ranged(WAV, "audio/wav")
        else:
            self.reply(404, b"not here\n")


class FeedServer(media.Server):
    def __init__(self):
        self.guid_tags = {}   # episode name -> appended to its guid
        self.aliases = {}     # path -> the path of FEEDS served there too
        self.moved = {}       # path -> the path it answers 301 to
        self.hidden = set()   # episode names no feed lists yet
        super().__init__(FeedHandler)

    def guid(self, name):
        return GUID + name + self.guid_tags.get(name, "")

    def feed(self, path):
        title, names = FEEDS[path]
        items = []
        for k, name in enumerate(names):
            if name in self.hidden:
                continue
            items.append(
                f"<item><title>{title} {name}</title>"
                f'<guid isPermaLink="false">{self.guid(name)}</guid>'
                f"<pubDate>{email.utils.formatdate(1793613600 + k * 86400)}"
                "</pubDate>"
                f"<itunes:duration>{DURATION}</itunes:duration>"
                f'<enclosure url="{self.url("/a/" + name + ".wav")}" '
                f'length="{len(WAV)}" type="audio/wav"/></item>')
        return ('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<rss version="2.0" xmlns:itunes='
                '"http://www.itunes.com/dtds/podcast-1.0.dtd">'
                f"<channel><title>{title}</title>"
                "<link>http://127.0.0.1/</link><description>d</description>"
                + "".join(reversed(items)) + "</channel></rss>\n").encode()


class Phone(phonelib.Phone):
    """The phone, remembering every play it queued: what on the server is
    not the phone's is the box's."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.sent = set()

    def queue_play(self, e, started, position):
        super().queue_play(e, started, position)
        a = self.queue[-1]
        self.sent.add((a["episode"], a["position"],
                       phonelib.parse_time(a["timestamp"])))


class SyncWorld:
    """MPD, the feed server, the sync server, the phone and the daemon,
    for one API family (@kind: "gpodder" or "nextcloud")."""

    def __init__(self, kind):
        began = time.monotonic()
        self.kind = kind
        self.root = tempfile.mkdtemp(prefix=f"bridge-sync-{kind}-")
        self.feeds = None
        self.mpd = None
        self.sync = None
        self.daemon = None
        self.daemon_log = os.path.join(self.root, "daemon.log")
        try:
            self.start(began)
        except BaseException:
            self.close()
            raise

    def start(self, began):
        self.feeds = FeedServer()
        self.sync = subprocess.Popen(
            ["/usr/bin/python3", SYNC_SERVER, "--user",
             f"{USER}:{PASSWORD}"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True)
        self.sync_port = int(self.sync.stdout.readline())
        self.sync_url = f"http://127.0.0.1:{self.sync_port}"
        self.mpd = Mpd(os.path.join(self.root, "mpd"))
        self.mpd.start()
        self.env = dict(os.environ)
        self.env.update({
            "XDG_CONFIG_HOME": os.path.join(self.root, "config"),
            "XDG_STATE_HOME": os.path.join(self.root, "state"),
            "XDG_CACHE_HOME": os.path.join(self.root, "cache"),
            "MPD_HOST": self.mpd.socket,
            "G_DEBUG": "fatal-criticals",
        })
        self.env.pop("MPD_PORT", None)
        self.env.pop("G_MESSAGES_DEBUG", None)
        self.state_file = os.path.join(self.root, "state", "mpd-bridge",
                                       "state")
        config_dir = os.path.join(self.root, "config", "mpd-bridge")
        os.makedirs(config_dir)
        self.config = os.path.join(config_dir, "config")
        self.password_file = os.path.join(config_dir, "sync-password")
        fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(PASSWORD + "\n")
        self.write_config()
        self.phone = Phone(self.sync_url, self.kind, USER, PASSWORD, "phone")
        self.start_daemon()
        r = self.bridge("subscribe", self.show)
        check(r.returncode == 0,
              f"subscribe {self.show}: exit {r.returncode}: {r.stderr}")
        self.phone.subscribe(self.show)
        for name in FEEDS["/show.xml"][1]:
            self.phone.add_episode(self.show, self.feeds.guid(name),
                                   self.audio(name), DURATION)
        self.started_in = time.monotonic() - began

    # The world's parts

    @property
    def show(self):
        return self.feeds.url("/show.xml")

    def audio(self, name):
        return self.feeds.url(f"/a/{name}.wav")

    def write_config(self, trust_clock="yes"):
        with open(self.config, "w") as f:
            f.write(f"[bridge]\nmusic_directory={self.mpd.root}/music\n\n"
                    "[sync]\n"
                    f"server={self.sync_url}\n"
                    f"kind={self.kind}\n"
                    f"user={USER}\n"
                    f"password_file={self.password_file}\n"
                    f"device={DEVICE}\n"
                    "interval=10\n"
                    f"trust_clock={trust_clock}\n"
                    f"push_delay={PUSH_DELAY}\n")

    def bridge(self, *args, timeout=60):
        return subprocess.run([BRIDGE, *args], capture_output=True,
                              text=True, env=self.env, timeout=timeout)

    def start_daemon(self):
        self.daemon = subprocess.Popen(
            [BRIDGE, "run"], env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=open(self.daemon_log, "a"))
        try:
            wait_until(lambda: self.daemon.poll() is not None or
                       self.bridge("ping").returncode == 0, 30,
                       "the daemon to answer ping")
        except AssertionError:
            raise AssertionError("the daemon does not answer ping; its log "
                                 "ends: " + self.log()[-400:]) from None
        check(self.daemon.poll() is None,
              f"the daemon exited with {self.daemon.returncode} at start: "
              + self.log()[-600:])

    def stop_daemon(self):
        if self.daemon is not None:
            self.daemon.send_signal(signal.SIGTERM)
            code = self.daemon.wait(20)
            self.daemon = None
            check(code == 0, f"the daemon exited with {code} on SIGTERM")

    def restart_daemon(self):
        self.stop_daemon()
        self.start_daemon()

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
                try:
                    self.daemon.wait(20)
                except subprocess.TimeoutExpired:
                    self.daemon.kill()
                    self.daemon.wait(10)
                self.daemon = None
        finally:
            if self.mpd is not None:
                self.mpd.stop()
            if self.sync is not None:
                self.sync.stdin.close()
                self.sync.wait(10)
                self.sync.stdout.close()
            if self.feeds is not None:
                self.feeds.close()
            if os.environ.get("SYNC_TEST_KEEP"):
                print(f"# kept {self.root}")
            else:
                shutil.rmtree(self.root, ignore_errors=True)

    # The sync server

    def control(self, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.sync_url + path, data=data,
                                     method="GET" if data is None else "POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def switch(self, **switches):
        return self.control("/_switch", switches)

    def server_log(self):
        return self.control("/_log")

    def account(self):
        family = "api2" if self.kind == "gpodder" else "nextcloud"
        return self.control("/_state")["users"][USER][family]

    def server_subscriptions(self):
        return self.account()["subscriptions"]

    def box_actions(self, name=None):
        """The actions on the server that the phone did not send; those of
        episode @name only if given."""
        out = []
        for a in self.account()["actions"]:
            if (a["episode"], a.get("position"),
                    a["timestamp"]) in self.phone.sent:
                continue
            if name is None or a["episode"] == self.audio(name):
                out.append(a)
        return out

    def action_uploads(self, since=0):
        """The client uploads of episode actions the server took, from
        entry @since of its log."""
        path = ("/api/2/episodes/" if self.kind == "gpodder"
                else "/index.php/apps/gpoddersync/episode_action/create")
        return [e for e in self.server_log()[since:]
                if e["method"] == "POST" and e["path"].startswith(path) and
                e["status"] == 200]

    # The box

    def sync_now(self, what=""):
        r = self.bridge("sync", "now")
        check(r.returncode == 0,
              f"`mpd-bridge sync now`{what}: exit {r.returncode}: "
              f"{one_line(r.stderr or r.stdout)}")
        return r

    def sync_state(self):
        """What `mpd-bridge sync` says, on one line, for messages."""
        r = self.bridge("sync")
        if r.returncode != 0:
            text = one_line(r.stderr or r.stdout)
        else:
            text = " | ".join(r.stdout.strip().splitlines())[:300]
        return f"`mpd-bridge sync` (exit {r.returncode}): {text}"

    def episodes(self, feed=SHOW):
        r = self.bridge("episodes", feed, "--json")
        check(r.returncode == 0, f"episodes {feed} --json: exit "
              f"{r.returncode}: {r.stderr.strip()}")
        return json.loads(r.stdout)

    def episode(self, name, feed=SHOW):
        guid = self.feeds.guid(name)
        found = [e for e in self.episodes(feed) if e["guid"] == guid]
        check(len(found) == 1, f"the box has no single episode {guid}: "
              f"{[e['guid'] for e in self.episodes(feed)]}")
        return found[0]

    def subscriptions(self):
        r = self.bridge("list", "--json")
        check(r.returncode == 0, f"list --json: {r.stderr}")
        return [f["url"] for f in json.loads(r.stdout)]


class Worlds:
    """One world at a time: a family's tests run on its world, made when
    the first of them runs; the other family's is closed then."""

    def __init__(self):
        self.current = None
        self.past_logs = ""
        self.failed = {}   # kind -> why its world did not start

    def get(self, kind):
        if kind in self.failed:
            raise AssertionError(f"the {kind} world did not start: "
                                 f"{self.failed[kind]}")
        if self.current is not None and self.current.kind != kind:
            self.past_logs += self.current.log()
            self.current.close()
            self.current = None
        if self.current is None:
            try:
                self.current = SyncWorld(kind)
            except Exception as e:  # noqa: BLE001 - reported by each test
                self.failed[kind] = str(e)
                raise
            print(f"# {kind}: the world (MPD, feeds, sync server, phone, "
                  f"daemon) started in {self.current.started_in:.1f} s")
        return self.current

    def log(self):
        return self.past_logs + (self.current.log() if self.current else "")

    def close(self):
        if self.current is not None:
            self.current.close()
            self.current = None


# The speaker, as any MPD client drives it

def queue_only(w, name):
    """Empties MPD's queue and queues episode @name; its song id."""
    w.mpd.command("stop", "clear")
    return w.mpd.values(f"addid {quote(w.audio(name))}", "Id")[0]


def box_play(w, name, seek):
    """Plays @name from MPD (add, play), lets a resume of the bridge's
    happen if it has a position to resume, seeks to @seek and plays half a
    second from there."""
    resumes = w.episode(name)["position"] >= 10
    song = queue_only(w, name)
    w.mpd.command("play")

    # The relay takes the song's place (a new id) as it starts: the one
    # song of the queue is the episode, whatever its id.
    def playing():
        s = w.mpd.status()
        return s.get("state") == "play" and song and \
            s.get("playlistlength") == "1" and \
            float(s.get("elapsed", "0")) >= 0.5
    wait_until(playing, 15, f"MPD to play {name}")
    if resumes:
        # The pull on start waits about 1 s, the resume 0.4 s more.
        time.sleep(1.8)
    w.mpd.command(f"seekcur {seek}")
    wait_until(lambda: w.mpd.elapsed() >= seek + 0.5, 10,
               f"MPD to play {name} on from {seek} s", step=0.1)


def box_pause(w):
    """Pauses MPD; the elapsed time read just before, and the time."""
    return float(w.mpd.status("pause 1")["elapsed"]), time.time()


def box_stop(w):
    """Stops MPD; the elapsed time read just before, and the time."""
    return float(w.mpd.status("stop")["elapsed"]), time.time()


def not_before(moment):
    """Waits until the wall clock has passed @moment: action times are
    whole seconds, and newest-wins needs two that differ."""
    while time.time() < moment:
        time.sleep(0.05)


def one_line(text, limit=240):
    """The first line of @text (a usage message is long), cut at @limit."""
    lines = text.strip().splitlines()
    return (lines[0] if lines else "")[:limit]


def near(a, b, tolerance=TOLERANCE):
    return a is not None and b is not None and abs(a - b) <= tolerance


def wait_box_action(w, name, position, what, timeout=PUSH_DELAY + 8,
                    test=None):
    """Waits for the server to hold a play of the box's for @name at
    @position (or one passing @test); returns it."""
    seen = []

    def found():
        got = w.box_actions(name)
        seen[:] = got
        for a in got:
            if (test(a) if test else near(a.get("position"), position)):
                return a
        return None
    try:
        return wait_until(found, timeout, what, step=0.2)
    except AssertionError:
        raise AssertionError(
            f"{what}: no play of the box's for {name} at {position} s on "
            f"the server within {timeout} s; the box's plays of it there: "
            f"{seen}; {w.sync_state()}") from None


def resume_trace(w, song, low, seconds=3.0):
    """MPD's (time since now, elapsed) for @song, the queue's one song
    (the relay takes its place with a new id), until elapsed reaches
    @low, for at most @seconds."""
    start = time.monotonic()
    trace = []
    while time.monotonic() - start < seconds:
        s = w.mpd.status()
        if song and s.get("playlistlength") == "1" and "elapsed" in s:
            trace.append((round(time.monotonic() - start, 2),
                          round(float(s["elapsed"]), 2)))
            if trace[-1][1] >= low:
                break
        time.sleep(0.05)
    return trace


# The scenarios: each gets its family's world, leaves MPD stopped, the
# server's switches at their defaults and the daemon running.

def t_world(w):
    """the world starts: MPD plays and seeks an episode served on loopback,
    the phone syncs with the server, the daemon runs with [sync] set and
    has the show's episodes"""
    check(w.bridge("ping").returncode == 0, "the daemon does not answer")
    wait_until(lambda: len(w.episodes()) == len(FEEDS["/show.xml"][1]), 20,
               f"the {len(FEEDS['/show.xml'][1])} episodes of {SHOW}")
    # A file of the feed server that no feed names: the bridge leaves it
    # alone.
    w.mpd.command("stop", "clear")
    song = w.mpd.values(f"addid {quote(w.feeds.url('/a/probe.wav'))}",
                        "Id")[0]
    w.mpd.command(f"playid {song}")
    wait_until(lambda: w.mpd.elapsed() >= 0.5, 15, "MPD to play the probe")
    w.mpd.command("seekcur 70")
    wait_until(lambda: w.mpd.elapsed() >= 70.5, 10,
               "MPD to play on from 70 s")
    duration = float(w.mpd.status().get("duration", "0"))
    w.mpd.command("stop", "clear")
    check(near(duration, DURATION, 0.5),
          f"MPD says the episodes last {duration} s, not {DURATION}")
    w.phone.sync()
    subs = w.server_subscriptions()
    check(w.show in subs, f"the phone's subscription is not on the "
          f"server: {subs}")


def t_resume_from_phone(w):
    """(1) the phone pauses at 40 s and syncs; the speaker, started by any
    MPD client (add, play), resumes at 35 s"""
    w.phone.pause(w.feeds.guid("ep1"), 40)
    w.phone.sync()
    song = queue_only(w, "ep1")
    low, high = 40 - RESUME_BEFORE - 1.5, 40 - RESUME_BEFORE + 1.5
    w.mpd.command("play")
    trace = resume_trace(w, song, low)
    w.mpd.command("stop")
    check(trace and trace[-1][1] >= low,
          f"the phone paused ep1 at 40 s and synced; MPD's (time, elapsed) "
          f"in the 3 s after play: {trace[:3]} … {trace[-3:]} (no jump to "
          f"≥ {low} s); the box has ep1 {w.episode('ep1')['state']} at "
          f"{w.episode('ep1')['position']} s; {w.sync_state()}")
    check(trace[-1][1] <= high,
          f"resumed at {trace[-1][1]} s, not 5 s before the phone's 40 s")
    check(trace[-1][0] <= 2.5,
          f"the resume came {trace[-1][0]} s after play (the pull waits at "
          "most about 1 s)")
    e = w.episode("ep1")
    check(e["state"] == "in-progress",
          f"after the resume the box has ep1 {e['state']}")


def t_pause_to_phone(w):
    """(2) the speaker pauses at Q: after the box's push and the phone's
    next sync, the phone has Q"""
    box_play(w, "ep2", 45)
    at, _ = box_pause(w)
    try:
        action = wait_box_action(w, "ep2", at, "the push of the pause")
    finally:
        w.mpd.command("stop")
    check(action.get("guid") == w.feeds.guid("ep2") and
          action["podcast"] == w.show and action.get("total") == DURATION and
          action.get("started", -1) >= 0,
          f"the box's play of ep2 on the server: {action}")
    w.phone.sync()
    got = w.phone.position(w.feeds.guid("ep2"))
    check(near(got, at),
          f"the speaker paused ep2 at {at:.1f} s; after its push and a "
          f"sync the phone has {got} s (server: {action})")
    check(not w.phone.played(w.feeds.guid("ep2")), "the phone marks ep2 "
          "played")


def t_finish_to_phone(w):
    """(3) played to its end on the speaker: played on the phone"""
    box_play(w, "ep3", DURATION - 4)
    wait_until(lambda: w.mpd.status().get("state") == "stop", 15,
               "MPD to play ep3 to its end")
    wait_until(lambda: w.episode("ep3")["state"] == "listened", 5,
               "the box to have ep3 listened")
    action = wait_box_action(
        w, "ep3", DURATION, "the push of the end",
        test=lambda a: a.get("position") == a.get("total") ==
        a.get("started") and near(a.get("total"), DURATION, 1))
    w.phone.sync()
    guid = w.feeds.guid("ep3")
    check(w.phone.played(guid),
          f"the phone does not have ep3 played (at {w.phone.position(guid)} "
          f"s) after the box's {action}")


def t_subscriptions(w):
    """(4) subscribe and unsubscribe on each side: the other side follows,
    and MPD has a new subscription's playlist after its first refresh"""
    other = w.feeds.url("/other.xml")
    boxside = w.feeds.url("/boxside.xml")
    other_list = f"Podcast: {FEEDS['/other.xml'][0]}"
    # The phone subscribes.
    w.phone.subscribe(other)
    w.phone.sync()
    w.sync_now(" after the phone subscribed")
    wait_until(lambda: other in w.subscriptions(), 10,
               f"the box to subscribe to {other}")
    wait_until(lambda: other_list in playlists(w), 20,
               f"MPD's playlist {other_list!r}")
    check(w.show in w.phone.subscriptions(),
          f"the phone lacks the box's {w.show}: {w.phone.subscriptions()}")
    # The box subscribes (a second later: Nextcloud gives changes after
    # the phone's last sync, to the second).
    not_before(time.time() + 1.1)
    r = w.bridge("subscribe", boxside)
    check(r.returncode == 0, f"subscribe {boxside}: {r.stderr}")

    def phone_has(url, wanted):
        w.phone.sync()
        return (url in w.phone.subscriptions()) == wanted

    def pushed(url, wanted):
        """Waits for the box's push, then for the next second: a phone
        that synced in the second of the change would never see it
        (Nextcloud gives changes after the phone's last sync, to the
        second), as AntennaPod would not."""
        wait_until(lambda: (url in w.server_subscriptions()) == wanted,
                   PUSH_DELAY + 8, f"the box's push of {url}")
        not_before(time.time() + 1.1)
    pushed(boxside, True)
    try:
        wait_until(lambda: phone_has(boxside, True), PUSH_DELAY + 8,
                   "the phone to see the box's subscription", step=0.5)
    except AssertionError as e:
        raise AssertionError(f"{e}: server {w.server_subscriptions()}; "
                             f"{w.sync_state()}") from None
    # The phone unsubscribes.
    w.phone.unsubscribe(other)
    w.phone.sync()
    w.sync_now(" after the phone unsubscribed")
    wait_until(lambda: other not in w.subscriptions(), 10,
               f"the box to unsubscribe from {other}")
    wait_until(lambda: other_list not in playlists(w), 20,
               f"MPD's playlist {other_list!r} to go")
    # The box unsubscribes.
    not_before(time.time() + 1.1)
    r = w.bridge("unsubscribe", boxside)
    check(r.returncode == 0, f"unsubscribe {boxside}: {r.stderr}")
    pushed(boxside, False)
    wait_until(lambda: phone_has(boxside, False), PUSH_DELAY + 8,
               "the phone to see the box's unsubscription", step=0.5)
    check(boxside not in w.server_subscriptions() and
          other not in w.server_subscriptions(),
          f"the server still has {w.server_subscriptions()}")


def t_server_down(w):
    """(5) the server down for a while: changes made meanwhile (a play, a
    subscription) wait, survive a restart, and arrive once"""
    down = w.feeds.url("/down.xml")
    if w.kind == "gpodder":
        w.switch(dedupe=False)   # so that a second upload would be seen
    mark = len(w.server_log())
    w.switch(down=True)
    try:
        box_play(w, "ep4", 45)
        at, _ = box_stop(w)
        r = w.bridge("subscribe", down)
        check(r.returncode == 0, f"subscribe {down}: {r.stderr}")
        # The push comes PUSH_DELAY after the change: poll for it, with
        # room for a busy machine.
        def tried():
            return [e for e in w.server_log()[mark:] if e["status"] == 503]
        try:
            wait_until(tried, PUSH_DELAY + 20, "a request while down",
                       step=0.1)
        except AssertionError:
            pass
        check(tried(), "the box made no request to the server while it "
              f"was down, {PUSH_DELAY + 20} s after a change; "
              f"{w.sync_state()}")
        r = w.bridge("sync", "now")
        check(r.returncode == 1 and r.stderr.strip(),
              f"`mpd-bridge sync now` with the server down: exit "
              f"{r.returncode}, stderr {r.stderr!r}")
        w.restart_daemon()
        print(f"# {w.kind}: while down, after a restart: {w.sync_state()}")
    finally:
        w.switch(down=False)
    up = len(w.server_log())
    w.sync_now(" once the server is back")
    got = w.box_actions("ep4")
    check(len(got) == 1 and near(got[0].get("position"), at),
          f"the box stopped ep4 at {at:.1f} s while the server was down; "
          f"once it is back the server has {got}")
    check(down in w.server_subscriptions(),
          f"the subscription made while down is not on the server: "
          f"{w.server_subscriptions()}")
    uploads = len(w.action_uploads(up))
    w.sync_now(" a second time")
    time.sleep(PUSH_DELAY + 0.5)
    again = w.action_uploads(up)
    check(len(again) == uploads and len(w.box_actions("ep4")) == 1,
          f"uploaded again: {uploads} action uploads then "
          f"{len(again)}; the box's plays of ep4: {w.box_actions('ep4')}")
    w.phone.sync()
    check(down in w.phone.subscriptions(),
          f"the phone lacks {down}: {w.phone.subscriptions()}")
    if w.kind == "gpodder":
        w.switch(dedupe=True)


def t_conflict(w):
    """(6) conflicting plays: the newer wins on both sides, whichever side
    made it"""
    guid = w.feeds.guid("ep5")
    # The phone's is newer.
    box_play(w, "ep5", 45)
    first, when = box_stop(w)
    wait_box_action(w, "ep5", first, "the push of the box's play")
    not_before(when + 2)
    w.phone.pause(guid, 20)
    w.phone.sync()
    w.sync_now(" after the phone's newer play")
    e = w.episode("ep5")
    check(near(e["position"], 20, 1),
          f"the box played ep5 to {first:.1f} s, then the phone paused it "
          f"at 20 s: the box has {e['position']} s")
    w.phone.sync()
    check(w.phone.position(guid) == 20,
          f"the phone's newer 20 s became {w.phone.position(guid)} s")
    # The box's is newer: the phone's older one is still queued.
    w.phone.pause(guid, 30)
    not_before(time.time() + 2)
    box_play(w, "ep5", 50)
    second, _ = box_stop(w)
    wait_box_action(w, "ep5", second, "the push of the box's newer play")
    w.phone.sync()
    w.sync_now(" after the phone's older play")
    e = w.episode("ep5")
    check(near(e["position"], second),
          f"the phone paused ep5 at 30 s, then the box at {second:.1f} s: "
          f"the box has {e['position']} s")
    w.phone.sync()
    check(near(w.phone.position(guid), second),
          f"the box's newer {second:.1f} s is {w.phone.position(guid)} s "
          "on the phone")


def t_clock(w):
    """(7) the clock unsynchronised (trust_clock=no): the box uploads no
    action and applies none; once trusted, the phone's play applies"""
    w.write_config(trust_clock="no")
    w.restart_daemon()
    try:
        mark = len(w.server_log())
        box_play(w, "ep6", 45)
        box_stop(w)
        time.sleep(PUSH_DELAY + 1.5)
        r = w.bridge("sync", "now")
        check("unknown command" not in r.stderr,
              f"`mpd-bridge sync now`: {one_line(r.stderr)}")
        print(f"# {w.kind}: sync now, clock not trusted: exit "
              f"{r.returncode}: {one_line(r.stderr or r.stdout)}")
        check(w.box_actions("ep6") == [] and w.action_uploads(mark) == [],
              f"with the clock not trusted the box uploaded "
              f"{w.action_uploads(mark)}: {w.box_actions('ep6')}")
        guid = w.feeds.guid("ep7")
        w.phone.pause(guid, 40)
        w.phone.sync()
        w.bridge("sync", "now")
        e = w.episode("ep7")
        check(e["state"] == "new" and e["position"] == 0,
              f"with the clock not trusted the box applied the phone's "
              f"40 s: ep7 is {e['state']} at {e['position']} s")
        check(any(e["method"] == "GET" for e in w.server_log()[mark:]),
              f"the box did not even pull; {w.sync_state()}")
    finally:
        w.write_config(trust_clock="yes")
        w.restart_daemon()
    w.sync_now(" with the clock trusted again")
    e = w.episode("ep7")
    check(near(e["position"], 40, 1),
          f"once the clock is trusted the phone's 40 s on ep7 (kept while "
          f"it was not) is not applied: {e['state']} at {e['position']} s")


def t_guid_change(w):
    """(8) the feed changes an episode's guid: the box keeps its state, and
    then an action for the new guid applies to it"""
    box_play(w, "ep8", 45)
    at, when = box_stop(w)
    wait_until(lambda: near(w.episode("ep8")["position"], at), 10,
               "the box to save ep8's position")
    before = w.episode("ep8")
    old = w.feeds.guid("ep8")
    w.feeds.guid_tags["ep8"] = "-v2"
    new = w.feeds.guid("ep8")
    r = w.bridge("refresh", SHOW)
    check(r.returncode == 0, f"refresh: {r.stderr}")
    wait_until(lambda: any(e["guid"] == new for e in w.episodes()), 20,
               f"ep8's guid to become {new}")
    after = w.episode("ep8")
    check(after["id"] == before["id"] and near(after["position"], at),
          f"with its new guid ep8 is {after}; it was {before}")
    # The phone refreshes too: its episode has the new guid.
    w.phone.episode(old).guid = new
    not_before(when + 2)
    w.phone.pause(new, 25)
    w.phone.sync()
    w.sync_now(" after the phone's play of the new guid")
    e = w.episode("ep8")
    check(e["id"] == before["id"] and near(e["position"], 25, 1),
          f"the phone paused {new} at 25 s; the box has {e}")


def t_timing(w):
    """(9) how long a pause on one side takes to be right on the other, in
    both directions"""
    box_play(w, "ep9", 45)
    at, _ = box_pause(w)
    began = time.monotonic()
    try:
        wait_box_action(w, "ep9", at, "the push of the pause")
    finally:
        w.mpd.command("stop")
    w.phone.sync()
    box_to_phone = time.monotonic() - began
    check(near(w.phone.position(w.feeds.guid("ep9")), at),
          f"the phone has ep9 at {w.phone.position(w.feeds.guid('ep9'))} "
          f"s, the speaker paused at {at:.1f} s")
    print(f"# observed ({w.kind}): speaker pause → phone has the position: "
          f"{box_to_phone:.1f} s (push_delay {PUSH_DELAY} s, then one phone "
          "sync)")
    w.phone.pause(w.feeds.guid("ep10"), 40)
    song = queue_only(w, "ep10")
    began = time.monotonic()
    w.phone.sync()
    w.mpd.command("play")
    low = 40 - RESUME_BEFORE - 1.5
    trace = resume_trace(w, song, low, 5)
    phone_to_box = time.monotonic() - began
    w.mpd.command("stop")
    check(trace and trace[-1][1] >= low,
          f"the phone paused ep10 at 40 s; MPD's (time, elapsed) after "
          f"play: {trace[:3]} … {trace[-3:]}")
    print(f"# observed ({w.kind}): phone pause, sync → speaker started "
          f"resumes at {trace[-1][1]} s: {phone_to_box:.1f} s")
    check(box_to_phone <= PUSH_DELAY + 5 and phone_to_box <= 3.5,
          f"box → phone {box_to_phone:.1f} s, phone → box "
          f"{phone_to_box:.1f} s")


def t_uploads_well_formed(w):
    """every play the box uploaded names the podcast as subscribed, the
    enclosure URL and raw guid the feed gives, and has position and total
    above 0 (finished: started = position = total)"""
    actions = w.box_actions()
    check(len(actions) >= 4, f"only {len(actions)} plays of the box's on "
          f"the server: {actions}")
    urls = {w.audio(n): n for n in FEEDS["/show.xml"][1]}
    for a in actions:
        name = urls.get(a["episode"])
        check(name is not None and a["podcast"] == w.show,
              f"a play for no episode of {w.show} as the feed gives it: {a}")
        check(a["action"].lower() == "play", f"not a play: {a}")
        # The guid the feed gave when the play was made (ep8's changes).
        guids = {GUID + name, w.feeds.guid(name)}
        check(a.get("guid") in guids,
              f"not the raw guid ({' or '.join(sorted(guids))}): {a}")
        check(a.get("started", -1) >= 0 and a.get("position", 0) > 0 and
              a.get("total", 0) > 0 and a["position"] <= a["total"],
              f"started, position or total wrong: {a}")
        if a["position"] >= DURATION - 1:
            check(a["started"] == a["position"] == a["total"],
                  f"a finished play not started = position = total: {a}")
        check(abs(a["timestamp"] - time.time()) < 600,
              f"a timestamp far from now: {a}")


def waiting(w):
    """What `mpd-bridge sync` says waits: (subscription changes to push,
    actions waiting for their episode)."""
    r = w.bridge("sync")
    check(r.returncode == 0, f"`mpd-bridge sync`: exit {r.returncode}: "
          f"{one_line(r.stderr)}")
    subs = re.search(r"waiting to be pushed: (\d+) subscription", r.stdout)
    actions = re.search(r"waiting for their episode: (\d+) action",
                        r.stdout)
    check(subs and actions, f"`mpd-bridge sync` says: {r.stdout!r}")
    return int(subs.group(1)), int(actions.group(1))


def next_second(w):
    """Nextcloud gives the changes after a sync's timestamp, to the second:
    waits for the next second there, so that what follows is seen by the
    phone, as AntennaPod would see it."""
    if w.kind == "nextcloud":
        not_before(time.time() + 1.1)


def action_pulls(w, since):
    """The box's downloads of episode actions from entry @since of the
    server's log."""
    path = ("/api/2/episodes/" if w.kind == "gpodder"
            else "/index.php/apps/gpoddersync/episode_action")
    return [e for e in w.server_log()[since:]
            if e["method"] == "GET" and e["path"].startswith(path)]


def subscription_uploads(w, since):
    """The client uploads of subscription changes the server logged from
    entry @since of its log, whatever their answer."""
    path = ("/api/2/subscriptions/" if w.kind == "gpodder"
            else "/index.php/apps/gpoddersync/subscription_change/create")
    return [e for e in w.server_log()[since:]
            if e["method"] in ("POST", "PUT") and e["path"].startswith(path)]


def box_subscribes(w, url):
    """The box subscribes to @url and pushes it: waits until the server
    has it and the box has nothing left to push."""
    r = w.bridge("subscribe", url)
    check(r.returncode == 0, f"subscribe {url}: exit {r.returncode}: "
          f"{one_line(r.stderr)}")
    wait_until(lambda: url in w.server_subscriptions(), PUSH_DELAY + 8,
               f"the box's push of {url}")
    wait_until(lambda: waiting(w)[0] == 0, 5,
               f"the box to have pushed {url}")


def t_update_urls(w):
    """(10) the server keeps a subscription of the box's under another URL
    (gpodder update_urls): the box's subscription moves there, and the next
    sync uploads nothing for it; Nextcloud gives no update_urls, and the
    subscription stays as it is"""
    asked = w.feeds.url("/kept.xml")
    kept = w.feeds.url("/kept-elsewhere.xml")
    w.feeds.aliases["/kept-elsewhere.xml"] = "/kept.xml"
    expected = kept if w.kind == "gpodder" else asked
    next_second(w)
    if w.kind == "gpodder":
        w.switch(rewrite_urls={asked: kept})
    try:
        r = w.bridge("subscribe", asked)
        check(r.returncode == 0, f"subscribe {asked}: exit {r.returncode}: "
              f"{one_line(r.stderr)}")
        wait_until(lambda: expected in w.server_subscriptions(),
                   PUSH_DELAY + 8, f"the box's push of {asked}")
        try:
            wait_until(lambda: expected in w.subscriptions() and
                       (expected == asked or asked not in w.subscriptions()),
                       5, f"the box's subscription at {expected}")
        except AssertionError:
            raise AssertionError(
                f"the server keeps {asked} as {expected}; the box lists "
                f"{w.subscriptions()}; {w.sync_state()}") from None
        check(waiting(w)[0] == 0, f"after the push of {asked} the box has "
              f"subscription changes to push: {w.sync_state()}")
        # The next sync: nothing to upload for it.
        mark = len(w.server_log())
        w.sync_now(f" after the push of {asked}")
        time.sleep(PUSH_DELAY + 0.5)
        again = subscription_uploads(w, mark)
        check(again == [], f"the box uploaded subscription changes again "
              f"after the server kept {asked} as {expected}: {again}; "
              f"{w.sync_state()}")
        subs = w.server_subscriptions()
        check(expected in subs and
              (expected == asked or asked not in subs),
              f"the server's subscriptions: {subs}")
        check(w.subscriptions().count(expected) == 1,
              f"the box lists {w.subscriptions()}")
    finally:
        if w.kind == "gpodder":
            w.switch(rewrite_urls={})
    w.phone.sync()
    phone = w.phone.subscriptions()
    check(expected in phone and (expected == asked or asked not in phone),
          f"the phone has {phone}, not {expected}")


def t_moved_feed(w):
    """(11) a feed the box pushed moves (301): once the box refreshes it,
    its push removes the old URL and adds the new one on the server, and
    the phone follows"""
    old = w.feeds.url("/moving.xml")
    new = w.feeds.url("/moved.xml")
    title = FEEDS["/moving.xml"][0]
    box_subscribes(w, old)
    next_second(w)
    w.phone.sync()
    check(old in w.phone.subscriptions(),
          f"the phone lacks the box's {old}: {w.phone.subscriptions()}")
    next_second(w)
    w.feeds.aliases["/moved.xml"] = "/moving.xml"
    w.feeds.moved["/moving.xml"] = "/moved.xml"
    r = w.bridge("refresh", title)
    check(r.returncode == 0, f"refresh {title}: exit {r.returncode}: "
          f"{one_line(r.stderr)}")
    try:
        wait_until(lambda: new in w.subscriptions() and
                   old not in w.subscriptions(), 20,
                   f"the box's subscription to move to {new}")
    except AssertionError:
        raise AssertionError(f"{old} answers 301 to {new}; after a refresh "
                             f"the box lists {w.subscriptions()}") from None
    try:
        wait_until(lambda: new in w.server_subscriptions() and
                   old not in w.server_subscriptions(), PUSH_DELAY + 8,
                   "the box's push of the move")
    except AssertionError:
        raise AssertionError(f"{old} moved to {new}; the server has "
                             f"{w.server_subscriptions()}; "
                             f"{w.sync_state()}") from None
    next_second(w)
    w.phone.sync()
    phone = w.phone.subscriptions()
    check(new in phone and old not in phone,
          f"{old} moved to {new}; the phone has {phone}")
    # The box's own push, pulled back, changes nothing.
    w.sync_now(" after the move")
    check(new in w.subscriptions() and old not in w.subscriptions(),
          f"after a sync the box lists {w.subscriptions()}")
    check(len(w.episodes(title)) == 1, f"the moved feed's episodes: "
          f"{w.episodes(title)}")


def t_action_before_episode(w):
    """(12) the phone plays an episode of a feed whose item the box has not
    seen yet: the action waits (`mpd-bridge sync` counts it), and applies
    once a refresh brings the episode"""
    late = w.feeds.url("/late.xml")
    title = FEEDS["/late.xml"][0]
    guid = w.feeds.guid("l2")
    w.feeds.hidden.add("l2")
    r = w.bridge("subscribe", late)
    check(r.returncode == 0, f"subscribe {late}: {one_line(r.stderr)}")
    wait_until(lambda: len(w.episodes(title)) == 1, 20,
               f"the box to have {title}'s first episode")
    before = waiting(w)[1]
    w.phone.add_episode(late, guid, w.audio("l2"), DURATION)
    w.phone.pause(guid, 30)
    w.phone.sync()
    w.sync_now(" after the phone's play of an episode the box lacks")
    during = waiting(w)[1]
    check(during >= before + 1,
          f"the phone paused {guid}, which the box does not know yet, at "
          f"30 s: `mpd-bridge sync` counts {during} actions waiting for "
          f"their episode (before: {before}); {w.sync_state()}")
    w.feeds.hidden.discard("l2")
    mark = len(w.server_log())
    r = w.bridge("refresh", title)
    check(r.returncode == 0, f"refresh {title}: {one_line(r.stderr)}")

    def l2():
        found = [e for e in w.episodes(title) if e["guid"] == guid]
        return found[0] if found else None
    wait_until(l2, 20, f"the box to have {guid}")
    try:
        wait_until(lambda: near(l2()["position"], 30, 1), 5,
                   f"the phone's 30 s on {guid}")
    except AssertionError:
        e = l2()
        raise AssertionError(
            f"the phone paused {guid} at 30 s before the box knew it; once "
            f"a refresh brought it the box has it {e['state']} at "
            f"{e['position']} s; {w.sync_state()}") from None
    # A pull (every 10 s, or at an episode's start) applies what waits too;
    # with none since the refresh, the refresh applied it.
    pulls = action_pulls(w, mark)
    if pulls:
        print(f"# {w.kind}: {len(pulls)} pull(s) of actions came between "
              "the refresh and the phone's position on the episode")
    after = waiting(w)[1]
    check(after <= during - 1, f"the action applied, yet `mpd-bridge sync` "
          f"counts {after} actions waiting for their episode (was "
          f"{during})")


def t_no_credentials(w):
    """the password (and the Basic header) never appears in the daemon's
    log, list, export-opml, sync, the state or answers on MPD's channel"""
    # An error that names the server.
    w.switch(fail_next=1, fail_status=401)
    r = w.bridge("sync", "now")
    w.switch(fail_next=0, fail_status=503)
    check(r.returncode == 1, f"`mpd-bridge sync now` answered by a 401: "
          f"exit {r.returncode}: {one_line(r.stderr)}")
    secrets = {PASSWORD,
               base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode(),
               urllib.parse.quote(PASSWORD)}
    seen = {"sync now (401)": r.stdout + r.stderr}
    for args in (("list",), ("list", "--json"), ("export-opml",), ("sync",),
                 ("status",)):
        r = w.bridge(*args)
        check(r.returncode == 0, f"{' '.join(args)}: exit {r.returncode}: "
              f"{one_line(r.stderr)}")
        seen[" ".join(args)] = r.stdout + r.stderr
    with Channel(w.mpd, "sync-test-replies") as channel:
        for command in ("sync", "sync now", "list", "export-opml"):
            seen[f"channel {command}"] = "\n".join(channel.send(command))
    check(seen["channel sync"].startswith("ok"),
          f"`sync` on MPD's channel: {seen['channel sync'][:200]}")
    w.stop_daemon()
    try:
        seen["daemon log"] = w.log()
        with open(w.state_file, errors="replace") as f:
            seen["state"] = f.read()
    finally:
        w.start_daemon()
    leaks = [where for where, text in seen.items()
             if any(s in text for s in secrets)]
    check(not leaks, f"the password is in: {', '.join(leaks)}")
    check("CRITICAL" not in seen["daemon log"], "the daemon logged a "
          "critical")


def t_checkpoint_journal(w):
    """a pause on the speaker, stamped for the phone and pushed, is one
    line in the state's journal, with the stamp, and no whole save"""
    box_play(w, "ep10", 20)
    # What the start asked to save is saved 2 s after it.
    time.sleep(2.5)
    before = os.stat(w.state_file)
    at, _ = box_pause(w)
    try:
        wait_box_action(w, "ep10", at, "the push of the pause")
    finally:
        w.mpd.command("stop")
    e = w.episode("ep10")
    with open(w.state_file + ".journal", "rb") as f:
        lines = f.read().split(b"\0")[0].decode().splitlines()
    mine = [line.split() for line in lines
            if line.startswith(f"episode {e['id']} ")]
    check(mine and len(mine[-1]) == 8 and near(int(mine[-1][2]), at, 1.5)
          and int(mine[-1][6]) > 0,
          f"paused at {at:.1f} s, the journal's lines of ep10 are {mine} "
          f"(want: episode ID SECONDS LAST-PLAYED LISTENED LISTENED-AT "
          f"STAMP UNSENT)")
    after = os.stat(w.state_file)
    check((after.st_ino, after.st_mtime_ns) ==
          (before.st_ino, before.st_mtime_ns),
          "the state file was saved whole after the pause and its push")


SCENARIOS = [t_world, t_resume_from_phone, t_pause_to_phone,
             t_finish_to_phone, t_subscriptions, t_server_down, t_conflict,
             t_clock, t_guid_change, t_timing, t_uploads_well_formed,
             t_update_urls, t_moved_feed, t_action_before_episode,
             t_no_credentials, t_checkpoint_journal]


def for_family(test, kind):
    """@test on @kind's world, leaving MPD stopped and the switches off."""
    @functools.wraps(test)
    def run(worlds):
        w = worlds.get(kind)
        try:
            test(w)
        finally:
            try:
                w.mpd.command("stop", "clear")
                w.switch(down=False, fail_next=0, fail_status=503,
                         dedupe=True, rewrite_urls={})
            except (OSError, RuntimeError):
                pass
    run.__doc__ = f"{kind}: {' '.join(test.__doc__.split())}"
    return run


TESTS = [for_family(t, kind) for kind in ("gpodder", "nextcloud")
         for t in SCENARIOS]


if __name__ == "__main__":
    began = time.monotonic()
    status = run_tap(TESTS, Worlds, need=("MPD_BRIDGE",))
    print(f"# the whole run took {time.monotonic() - began:.0f} s")
    sys.exit(status)
