#!/usr/bin/env python3
"""mpd-bridge through many refresh cycles: memory stays flat, nothing leaks.

Standard library only. Starts a private MPD (real-time null output), a
loopback feed server of its own (in this process) and `mpd-bridge run`
(MPD_BRIDGE), subscribes the daemon to --feeds feeds, and then runs
--cycles cycles. A cycle:

  1. changes some feeds on the server (a fast-forwarded schedule): each
     feed's content moves on with a chance of one in three, so that
     episodes appear and leave, titles and enclosure URLs change, some
     feeds give their episodes new guids, one feed moves back and forth
     between two URLs by permanent redirects, one answers without
     validators, a few fail for a cycle with HTTP 500;
  2. sends `refresh` over MPD's channel, as `mpd-bridge refresh` does,
     and waits until the daemon's debug line says no refresh is under way
     (G_MESSAGES_DEBUG=mpd-bridge);
  3. every fourth cycle, one step of what a listener does with another
     MPD client, at least 0.25 s apart: play the latest episode of the
     "tones" feed (a WAV served by the same server, which MPD plays in
     real time and the daemon resumes where it was left), pause, play
     on, seek, play into its last seconds (listened), stop, play again,
     queue an episode through the daemon;
  4. every third cycle a command over the channel: star, unstar,
     play-later, a named list, mark listened or new; every twelfth, set
     keep; every 50th, unsubscribe a feed and subscribe again;
  5. every --restart-every cycles, stops MPD (playback stopped, the
     state saved) and starts it again: the daemon reconnects and pushes
     every playlist again, and must not save its state for that.

Every 50 cycles the "Podcasts: New" playlist in MPD must hold only
episodes the feeds list, as last fetched (the daemon syncs it once a
refresh of all is over), and MPD must hold one playlist for each feed,
named after the title it had then, none under an old title, and an M3U
file of each in the music directory, none other.

The feeds are bounded: each has a window of 6 episodes out of 10 that
come round again, so the state stops growing once every episode has been
seen; what grows after that is the daemon's own doing. The daemon's VmRSS
is read after --warmup cycles and at the end (each time right after a
ping, so no refresh is under way); the growth between them must stay under
--max-growth percent (default 10). With --valgrind COMMAND the daemon runs
under that command (e.g. "valgrind --leak-check=full ..."), and its exit
status must be 0 after SIGTERM: give valgrind --error-exitcode. The
daemon runs with G_DEBUG=fatal-criticals (the failing feeds warn on
purpose); its exit status after SIGTERM must be 0, so leaks that
LeakSanitizer finds fail the run too.

Prints a report; the exit status is 0 when every check passed.
"""

import argparse
import collections
import hashlib
import os
import re
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from xml.sax.saxutils import escape, quoteattr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "support"))
from mpdtest import Mpd, quote  # noqa: E402
import media  # noqa: E402

WINDOW = 6        # episodes a feed lists
POOL = 10         # episodes that come round again
TONE_SECONDS = 40  # long enough to be resumed (the daemon skips < 10 s)
TONE_RATE = 8000
MOVER = "mover"
TONES = "tones"
NOVAL = "noval"


def log(msg):
    sys.stdout.write("soak: %s\n" % msg)
    sys.stdout.flush()


class Failure(Exception):
    pass


# What the driver sent to MPD, with the time: ROOT/driver.log.
TRACE = None
# MPD commands of the driver that took longer than STALL_S: (command,
# seconds). MPD 0.23 now and then stalls its main thread for 10 to 15 s
# around a pause or a seek while the daemon asks for the status; the
# daemon then times out, drops the connection and reconnects.
STALLS = []
STALL_S = 3.0


def check(condition, message):
    if not condition:
        raise Failure(message)


# The feeds' server. Each feed's content is a function of its version,
# which the driver moves on; the server only answers.
class Feed:
    def __init__(self, name, index):
        self.name = name
        self.index = index
        self.version = 0
        self.failing = False
        self.fetched = None  # the version the daemon last fetched whole
        # Every third ordinary feed gives an episode a new guid each
        # time the episode comes round again: the daemon must recognise
        # it by its URL and keep its state.
        self.guid_churn = index % 3 == 1
        self.validators = name != NOVAL

    def title(self, version=None):
        # A rename now and then: its playlist gets the new name.
        version = self.version if version is None else version
        return "Soak %s%s" % (self.name, " (reruns)"
                              if (version // 25) % 2 else "")

    def episodes(self, base, version=None):
        version = self.version if version is None else version
        out = []
        for j in range(WINDOW):
            k = version + WINDOW - 1 - j  # newest first
            slot, lap = k % POOL, k // POOL
            guid = ("%s-%d-%d" % (self.name, slot, lap % 2)
                    if self.guid_churn else "%s-%d" % (self.name, slot))
            if self.name == TONES:
                url = "%s/media/tone-%d.wav" % (base, slot % 3)
                kind = "audio/wav"
                duration = TONE_SECONDS
            else:
                # The URL changes when the episode comes round again,
                # except where the guid does: that episode is known by it.
                url = "http://example.invalid/%s/%d.mp3%s" % (
                    self.name, slot,
                    "" if self.guid_churn else "?lap=%d" % (lap % 2))
                kind = "audio/mpeg"
                duration = 600 + 60 * slot
            out.append({
                "guid": guid,
                "title": "%s episode %d, take %d" % (self.name, slot,
                                                     lap % 3),
                "url": url,
                "type": kind,
                "date": 1735689600 + k * 86400,
                "duration": duration,
                "number": k + 1,
            })
        return out

    def body(self, base):
        parts = ['<?xml version="1.0" encoding="UTF-8"?>\n'
                 '<rss version="2.0" xmlns:itunes='
                 '"http://www.itunes.com/dtds/podcast-1.0.dtd">\n'
                 "<channel>\n<title>%s</title>\n"
                 "<link>http://example.invalid/%s</link>\n"
                 "<description>A feed that keeps changing.</description>\n"
                 "<itunes:author>The soak test</itunes:author>\n"
                 % (escape(self.title()), self.name)]
        for e in self.episodes(base):
            parts.append(
                "<item>\n<title>%s</title>\n"
                '<guid isPermaLink="false">%s</guid>\n'
                "<pubDate>%s</pubDate>\n"
                "<description>%s</description>\n"
                '<enclosure url=%s length="%d" type="%s"/>\n'
                "<itunes:duration>%d</itunes:duration>\n"
                "<itunes:episode>%d</itunes:episode>\n</item>\n"
                % (escape(e["title"]), escape(e["guid"]),
                   time.strftime("%a, %d %b %Y %H:%M:%S +0000",
                                 time.gmtime(e["date"])),
                   escape("Show notes of %s. " % e["title"]) * 8,
                   quoteattr(e["url"]), e["duration"] * 16000, e["type"],
                   e["duration"], e["number"]))
        parts.append("</channel>\n</rss>\n")
        return "".join(parts).encode()


class Server(media.Server):
    def __init__(self, feeds):
        self.feeds = {f.name: f for f in feeds}
        self.lock = threading.Lock()
        self.wav = media.square_wav(TONE_SECONDS, TONE_RATE)
        self.hits = collections.Counter()  # by first path element
        super().__init__(Handler)

    def note(self, handler, status):
        # Thousands of requests: counted in hits, not kept one by one.
        pass


class Handler(media.Handler):
    def do_GET(self):
        srv = self.server
        parts = self.route.strip("/").split("/")
        with srv.lock:
            srv.hits[parts[0]] += 1
        if parts[0] == "media" and len(parts) == 2:
            return self.media()
        if parts[0] != "feed" or len(parts) != 2:
            return self.reply(404)
        name = parts[1]
        with srv.lock:
            # The mover: "mover" and "mover-b" take turns to be its
            # address, the other one redirecting to it for good.
            if name in (MOVER, MOVER + "-b"):
                feed = srv.feeds[MOVER]
                home = MOVER if (feed.version // 7) % 2 == 0 else MOVER + "-b"
                if name != home:
                    return self.reply(301, ctype=None, headers=[
                        ("Location", "%s/feed/%s" % (srv.base, home))])
            else:
                feed = srv.feeds.get(name)
            if feed is None:
                return self.reply(404)
            if feed.failing:
                return self.reply(500, b"soak: failing on purpose\n")
            body = feed.body(srv.base)
        headers = []
        if feed.validators:
            etag = '"%s"' % hashlib.sha256(body).hexdigest()[:16]
            headers.append(("ETag", etag))
            if self.headers.get("If-None-Match") == etag:
                return self.reply(304, ctype=None, headers=headers)
        return self.reply(200, body, "application/rss+xml", headers)

    def media(self):
        if TRACE is not None:
            TRACE.write("%.3f server: GET %s Range %s\n"
                        % (time.time(), self.path, self.headers.get("Range")))
        return self.reply_ranged(self.server.wav, "audio/wav")


class Daemon:
    """`mpd-bridge run`; its output read as it comes, for its debug lines."""

    ZERO = re.compile(r"refreshed \S+: .*; 0 under way$")
    COUNTED = {
        "refreshed": re.compile(r"refreshed \S+: "),
        "failed": re.compile(r"refreshed \S+: .*HTTP 500"),
        "updated": re.compile(r"refreshed \S+: updated;"),
        "not modified": re.compile(r"refreshed \S+: not modified;"),
        "unchanged": re.compile(r"refreshed \S+: unchanged;"),
        "playlists written": re.compile(r"wrote the playlist "),
        "new guids recognised": re.compile(r" is now guid "),
        "moves followed": re.compile(r" moved to "),
        "episodes queued": re.compile(r"command from MPD: (@\S+ )?queue "),
        "resumed": re.compile(r"resumed .* at \d+ s"),
        "listened to": re.compile(r"listened to "),
        "reconnections": re.compile(r"reconnected to "),
        "connections lost": re.compile(r"lost the connection to "),
        "warnings": re.compile(r"-WARNING \*\*"),
        "criticals": re.compile(r"CRITICAL \*\*"),
    }

    def __init__(self, argv, env, log_path):
        self.log_path = log_path
        self.cond = threading.Condition()
        self.count = 0          # lines read
        self.zeros = 0          # "0 under way" lines
        self.tail = collections.deque(maxlen=40)
        self.odd = []  # warnings other than the failures we cause
        self.counts = collections.Counter()
        self.process = subprocess.Popen(
            argv, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True)
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        # GLib writes debug lines to stdout, the rest to stderr: one pipe.
        with open(self.log_path, "w", encoding="utf-8") as f:
            for raw in self.process.stdout:
                line = raw.decode("utf-8", "replace").rstrip("\n")
                f.write(line + "\n")
                with self.cond:
                    self.count += 1
                    self.tail.append(line)
                    if self.ZERO.search(line):
                        self.zeros += 1
                    for key, rx in self.COUNTED.items():
                        if rx.search(line):
                            self.counts[key] += 1
                    if "-WARNING **" in line and "HTTP 500" not in line \
                            and len(self.odd) < 20:
                        self.odd.append(line)
                    self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def wait_zeros(self, n, timeout):
        """Until the n-th "0 under way" line."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.zeros < n:
                left = deadline - time.monotonic()
                if self.process.poll() is not None and \
                        not self.reader.is_alive():
                    raise Failure("the daemon exited (%s) while refreshing"
                                  % self.process.returncode)
                if left <= 0:
                    raise Failure("no end of the refresh after %g s"
                                  % timeout)
                self.cond.wait(min(left, 0.5))

    def last_lines(self):
        with self.cond:
            return "\n".join(self.tail)

    def rss_kb(self):
        with open("/proc/%d/status" % self.process.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise Failure("no VmRSS for the daemon")

    def stop(self, timeout):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise Failure("the daemon did not stop within %g s of SIGTERM"
                          % timeout)
        self.reader.join(30)
        return code


class Client:
    """One MPD connection that stays, reconnecting after MPD restarts."""

    def __init__(self, mpd, timeout):
        self.mpd = mpd
        self.timeout = timeout
        self.sock = None
        self.subscribed = set()

    def connect(self):
        self.close()
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.mpd.socket)
        self.file = self.sock.makefile("rwb")
        if not self.file.readline().startswith(b"OK MPD"):
            raise OSError("not MPD")
        for channel in self.subscribed:
            self.lines("subscribe %s" % channel)

    def close(self):
        if self.sock is not None:
            self.file.close()
            self.sock.close()
            self.sock = None

    def lines(self, command):
        """The lines of the answer; RuntimeError on ACK."""
        if self.sock is None:
            self.connect()
        if TRACE is not None:
            TRACE.write("%.3f %s\n" % (time.time(), command))
        t = time.monotonic()
        self.file.write(command.encode() + b"\n")
        self.file.flush()
        out = []
        while True:
            line = self.file.readline().decode("utf-8", "replace")
            if not line:
                self.close()
                raise OSError("MPD closed the connection")
            line = line.rstrip("\n")
            if line in ("OK",) or line.startswith("ACK"):
                took = time.monotonic() - t
                if took > STALL_S and not command.startswith("idle"):
                    STALLS.append((command, took))
            if line == "OK":
                return out
            if line.startswith("ACK"):
                raise RuntimeError("%s: %s" % (command, line))
            out.append(line)

    def values(self, command, key):
        return [line.split(": ", 1)[1] for line in self.lines(command)
                if line.startswith(key + ": ")]

    def subscribe(self, channel):
        if self.sock is None:
            self.connect()
        self.lines("subscribe %s" % channel)
        self.subscribed.add(channel)


class Bridge:
    """Commands to the daemon over MPD's channel, as the command line."""

    REPLY = "soak-replies"

    def __init__(self, mpd, timeout):
        self.client = Client(mpd, timeout)
        self.client.subscribe(self.REPLY)
        self.timeout = timeout

    def send(self, command):
        text = "@%s %s" % (self.REPLY, command)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                self.client.lines("sendmessage mpd-bridge %s" % quote(text))
                break
            except RuntimeError as e:
                # Not subscribed yet: the daemon is (re)connecting.
                if "subscribed" not in str(e) or \
                        time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        while True:
            got = self.client.values("readmessages", "message")
            if got:
                check(len(got) == 1, "two answers at once: %s" % got)
                return got[0]
            if time.monotonic() > deadline:
                raise Failure("no answer to %r within %g s"
                              % (command, self.timeout))
            self.client.lines("idle message")

    def ok(self, command):
        answer = self.send(command)
        check(answer.startswith("ok"), "%r answered %r" % (command, answer))
        return answer


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cycles", type=int, default=10000)
    ap.add_argument("--warmup", type=int, default=None,
                    help="cycles before the first reading (default: a "
                    "tenth, at least 50)")
    ap.add_argument("--feeds", type=int, default=20,
                    help="ordinary feeds, besides the mover, the one "
                    "without validators and the tones (default 20)")
    ap.add_argument("--restart-every", type=int, default=1000,
                    help="cycles between MPD restarts (0: never)")
    ap.add_argument("--max-growth", type=float, default=10.0)
    ap.add_argument("--sample-every", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds for one refresh or command")
    ap.add_argument("--valgrind", metavar="COMMAND",
                    help="run the daemon under COMMAND (split as a shell "
                    "would)")
    ap.add_argument("--bridge", default=os.environ.get("MPD_BRIDGE"))
    ap.add_argument("--asan-quarantine-mb", type=int,
                    help="an AddressSanitizer build: hold back at most "
                    "this much freed memory, which would count as growth")
    ap.add_argument("--mpd-verbose", action="store_true",
                    help="MPD logs verbosely to ROOT/mpd/mpd.log")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary directory")
    args = ap.parse_args()
    if not args.bridge:
        ap.error("no mpd-bridge: --bridge or MPD_BRIDGE")
    if args.warmup is None:
        args.warmup = max(50, args.cycles // 10)
    if not 0 < args.warmup < args.cycles:
        ap.error("--warmup must be between 0 and --cycles")
    return args


class Soak:
    def __init__(self, args, root):
        self.args = args
        self.root = root
        names = ["f%02d" % i for i in range(args.feeds)]
        names += [MOVER, NOVAL, TONES]
        self.feeds = [Feed(n, i) for i, n in enumerate(names)]
        self.ordinary = [f for f in self.feeds
                         if f.name not in (MOVER, NOVAL, TONES)]
        self.server = Server(self.feeds)
        self.mpd = Mpd(os.path.join(root, "mpd"))
        if args.mpd_verbose:
            with open(self.mpd.conf, "a") as f:
                f.write('log_level "verbose"\n')
        self.mpd.start()
        self.env = dict(os.environ)
        for key in ("MPD_PORT", "http_proxy", "HTTP_PROXY", "all_proxy",
                    "ALL_PROXY"):
            self.env.pop(key, None)
        self.env.update({
            "XDG_CONFIG_HOME": os.path.join(root, "config"),
            "XDG_STATE_HOME": os.path.join(root, "state"),
            "XDG_CACHE_HOME": os.path.join(root, "cache"),
            "MPD_HOST": self.mpd.socket,
            "G_MESSAGES_DEBUG": "mpd-bridge",
            # Failing feeds warn on purpose; a critical is a bug.
            "G_DEBUG": "fatal-criticals",
        })
        if args.asan_quarantine_mb is not None:
            # Later options win: the caller's stay, but this one.
            self.env["ASAN_OPTIONS"] = ":".join(
                o for o in (self.env.get("ASAN_OPTIONS", ""),
                            "quarantine_size_mb=%d" % args.asan_quarantine_mb)
                if o)
        os.makedirs(os.path.join(root, "config", "mpd-bridge"))
        # The daemon writes an M3U file of each feed's playlist there.
        self.music = os.path.join(root, "mpd", "music")
        with open(os.path.join(root, "config", "mpd-bridge", "config"),
                  "w") as f:
            # Playlists are checked against the feeds' URLs: without
            # the relay, which would name its own.
            f.write("[bridge]\nmusic_directory=%s\nrelay=no\n" %
                    self.music)
        self.player = Client(self.mpd, args.timeout)
        self.events = collections.Counter()
        self.cycle_times = []
        self.player_free = 0.0
        self.samples = []
        self.zeros = 0

    def url(self, feed):
        return "%s/feed/%s" % (self.server.base, feed.name)

    def start_daemon(self):
        argv = [self.args.bridge, "run"]
        if self.args.valgrind:
            argv = shlex.split(self.args.valgrind) + argv
            self.env["G_SLICE"] = "always-malloc"
        self.daemon = Daemon(argv, self.env,
                             os.path.join(self.root, "daemon.log"))
        self.bridge = Bridge(self.mpd, self.args.timeout)
        self.bridge.ok("ping")

    def refresh_all(self):
        self.zeros = self.daemon.zeros
        answer = self.bridge.ok("refresh")
        check(answer == "ok refreshing %d feeds" % len(self.feeds),
              "refresh answered %r" % answer)
        self.daemon.wait_zeros(self.zeros + 1, self.args.timeout)

    def subscribe_all(self):
        for feed in self.feeds:
            n = self.daemon.zeros
            self.bridge.ok("subscribe %s" % self.url(feed))
            self.daemon.wait_zeros(n + 1, self.args.timeout)
        self.bridge.ok("set %s auto-queue yes" % self.url(self.ordinary[0]))

    def move_on(self, rng_value):
        """The server's side of a cycle: which feeds change, which fail."""
        for i, feed in enumerate(self.feeds):
            h = hashlib.sha256(b"%d:%d" % (rng_value, i)).digest()
            feed.failing = feed.name != TONES and h[0] < 13  # about 5 %
            if feed.name == TONES:
                # Rarely: what plays should not vanish from under MPD.
                if h[1] < 8:
                    feed.version += 1
            elif h[1] < 85:  # about a third
                feed.version += 1
            if not feed.failing:
                feed.fetched = feed.version

    def tone_song(self):
        """The id of a tones episode in MPD's queue, queued if need be."""
        for line in self.player.lines("playlistinfo"):
            if line.startswith("file: ") and "/media/tone-" in line:
                break
        else:
            self.bridge.ok("queue latest %s" % self.url(self.feeds[-1]))
            self.events["queued a tone"] += 1
        info = self.player.lines("playlistinfo")
        ids, files = [], []
        for line in info:
            if line.startswith("file: "):
                files.append(line[6:])
            elif line.startswith("Id: "):
                ids.append(line[4:])
        tones = [i for f, i in zip(files, ids) if "/media/tone-" in f]
        check(tones, "no tone in MPD's queue: %s" % info)
        return tones[-1]

    def play(self, command, event, then=0.25):
        """A player command; MPD may refuse it in the state it is in.

        Commands come at least 0.25 s apart (@then after this one), as
        from a person: MPD 0.23 can stall its main thread for seconds
        when a pause and an unpause come within milliseconds while
        another client asks for the status.
        """
        wait = self.player_free - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        try:
            self.player.lines(command)
            self.events[event] += 1
        except RuntimeError:
            self.events["refused by MPD"] += 1
        self.player_free = time.monotonic() + then

    def mpd_event(self, cycle):
        """What a listener does between refreshes: every fourth cycle one
        step of a round of 12."""
        if cycle % 4:
            return
        step = (cycle // 4) % 12
        if step == 0:
            # From the top: 0.4 s in, the daemon seeks to where it was
            # left.
            self.play("clear", "clear", 0)
            self.play("playid %s" % self.tone_song(), "play", 0.6)
        elif step in (3, 6):
            self.play("pause 1", "pause")
        elif step in (4, 7):
            self.play("pause 0", "resume")
        elif step == 5:
            self.play("seekcur %d" % (12 + cycle % 20), "seek")
        elif step == 8:
            # Another episode, queued through the daemon with its tags.
            self.bridge.ok("queue latest %s" % self.url(
                self.ordinary[cycle % len(self.ordinary)]))
            self.events["queued"] += 1
        elif step == 9:
            if (cycle // 4) % 48 == 9:
                # Played into its tail: listened.
                self.play("seekid %s %d" % (self.tone_song(),
                                            TONE_SECONDS - 2),
                          "seek to the end")
            else:
                self.play("seekcur %d" % (15 + cycle % 17), "seek")
        elif step == 10:
            self.play("stop", "stop")
        elif step == 11:
            self.play("play", "play", 0.6)

    def command(self, cycle):
        """A command a user sends between refreshes, every third cycle."""
        if cycle % 3 == 0:
            feed = self.ordinary[cycle % len(self.ordinary)]
            # An episode its feed lists now, by its guid.
            guid = feed.episodes(self.server.base)[cycle % WINDOW]["guid"]
            text = [
                "star %s", "unstar %s", "later add %s", "later remove %s",
                "list-add Soak %s", "list-remove Soak", "mark listened %s",
                "mark new %s",
            ][(cycle // 3) % 8]
            text = text % guid if "%s" in text else text
            # A feed that failed this cycle has not seen the episode yet,
            # and the list may be gone: those are refused, fine.
            answer = self.bridge.send(text)
            check(answer.startswith(("ok", "error")),
                  "%r answered %r" % (text, answer))
            self.events["commands ok" if answer.startswith("ok")
                        else "commands refused"] += 1
        if cycle % 12 == 9:
            feed = self.ordinary[cycle % len(self.ordinary)]
            self.bridge.ok("set %s keep %d" % (self.url(feed),
                                               3 + cycle % 4))
            self.events["set keep"] += 1
        if cycle % 50 == 25:
            victim = self.ordinary[(cycle // 50) % len(self.ordinary)]
            self.bridge.ok("unsubscribe %s" % self.url(victim))
            victim.fetched = None if victim.failing else victim.version
            n = self.daemon.zeros
            self.bridge.ok("subscribe %s" % self.url(victim))
            self.daemon.wait_zeros(n + 1, self.args.timeout)
            self.events["unsubscribed and subscribed again"] += 1

    def check_playlists(self, cycle):
        """The playlists were synced when the refreshes ended: New holds
        only episodes the feeds list now, as last fetched, and each feed
        has one playlist, under its title."""
        try:
            new = self.player.values('listplaylist "Podcasts: New"', "file")
        except RuntimeError:
            new = []
        listed = set()
        for feed in self.feeds:
            if feed.fetched is not None:
                listed.update(e["url"] for e in
                              feed.episodes(self.server.base, feed.fetched))
        stale = [u for u in new if u not in listed]
        check(new, "cycle %d: the New playlist is empty" % cycle)
        check(not stale, "cycle %d: the New playlist holds %d episodes the "
              "feeds no longer list, such as %s" % (cycle, len(stale),
                                                   stale[0] if stale else ""))
        # One playlist a feed, named after its title as last fetched:
        # none left behind under an old title.
        names = self.player.values("listplaylists", "playlist")
        got = sorted(n for n in names if n.startswith("Podcast: "))
        want = sorted("Podcast: " + f.title(f.fetched) for f in self.feeds
                      if f.fetched is not None)
        check(got == want, "cycle %d: MPD holds the playlists %s, not %s"
              % (cycle, sorted(set(got) - set(want)),
                 sorted(set(want) - set(got))))
        m3u = sorted(n[:-4] for n in os.listdir(self.music)
                     if n.endswith(".m3u"))
        check(m3u == want, "cycle %d: the music directory holds the M3U "
              "files %s, not %s" % (cycle, sorted(set(m3u) - set(want)),
                                    sorted(set(want) - set(m3u))))
        self.events["playlists checked"] += 1

    def state_stamp(self):
        st = os.stat(os.path.join(self.root, "state", "mpd-bridge", "state"))
        return st.st_ino, st.st_mtime_ns, st.st_size

    def restart_mpd(self):
        # Stopped, and whatever was pending saved, so that nothing changes
        # while MPD is away. A ping saves first; the daemon saves 2 s
        # after a change. MPD's events come to it in order, but when it
        # is slow to read them, the stop and the ping's message come in
        # one answer and the message goes first: the stop's change
        # comes after that ping. So two pings, the second once the first
        # is answered, rather than a sleep that a busy machine outlasts.
        self.play("stop", "stop", 0)
        self.bridge.ok("ping")
        self.bridge.ok("ping")
        before = self.state_stamp()
        self.player.close()
        self.bridge.client.close()
        self.mpd.stop()
        self.mpd.start()
        self.events["MPD restarts"] += 1
        # The daemon answers once it has reconnected and pushed it all.
        self.bridge.ok("ping")
        # Pushing the same playlists again is no change to save: with
        # 100,000 episodes a save takes a fifth of a second.
        check(self.state_stamp() == before,
              "the daemon saved its state again after reconnecting to MPD, "
              "though nothing had changed")

    def sample(self, cycle):
        self.bridge.ok("ping")
        kb = self.daemon.rss_kb()
        self.samples.append((cycle, kb))
        return kb

    def run(self):
        args = self.args
        self.start_daemon()
        self.subscribe_all()
        log("daemon %d, %d feeds, MPD %s; %d cycles, the first %d warm-up"
            % (self.daemon.process.pid, len(self.feeds), self.mpd.socket,
               args.cycles, args.warmup))
        start = time.monotonic()
        rss_warm = None
        for cycle in range(1, args.cycles + 1):
            t = time.monotonic()
            self.move_on(cycle)
            self.refresh_all()
            if cycle % 50 == 1:
                self.check_playlists(cycle)
            self.mpd_event(cycle)
            self.command(cycle)
            if args.restart_every and cycle % args.restart_every == 0 and \
                    cycle < args.cycles:
                self.restart_mpd()
            self.cycle_times.append(time.monotonic() - t)
            if cycle == args.warmup:
                rss_warm = self.sample(cycle)
                log("cycle %d: VmRSS %d kB after warm-up" % (cycle, rss_warm))
            elif cycle % args.sample_every == 0 or cycle == args.cycles:
                kb = self.sample(cycle)
                if cycle % (args.sample_every * 10) == 0 or \
                        cycle == args.cycles:
                    log("cycle %d: VmRSS %d kB (%+.1f %% since warm-up), "
                        "%.0f s so far" % (cycle, kb, 100.0 * (kb - rss_warm)
                                           / rss_warm if rss_warm else 0,
                                           time.monotonic() - start))
        self.wall = time.monotonic() - start
        self.rss_warm = rss_warm
        self.rss_end = self.samples[-1][1]
        self.player.lines("stop")
        code = self.daemon.stop(600 if args.valgrind else 60)
        check(code == 0, "the daemon exited with status %s after SIGTERM"
              % code)

    def report(self):
        args = self.args
        growth = 100.0 * (self.rss_end - self.rss_warm) / self.rss_warm
        after = [kb for c, kb in self.samples if c >= args.warmup]
        print("mpd-bridge soak: %d cycles in %.0f s (median %.0f ms a cycle)"
              % (args.cycles, self.wall,
                 1000 * statistics.median(self.cycle_times)))
        print("  %d feeds: %d ordinary, a mover, one without validators, "
              "the tones" % (len(self.feeds), len(self.ordinary)))
        print("  VmRSS after %d cycles of warm-up  %8d kB"
              % (args.warmup, self.rss_warm))
        print("  VmRSS at the end                  %8d kB" % self.rss_end)
        print("  growth                            %+8.2f %%   (limit %g %%)"
              % (growth, args.max_growth))
        print("  after warm-up, min/max of %d readings: %d / %d kB"
              % (len(after), min(after), max(after)))
        line = "  VmRSS, kB, by cycle:"
        for c, kb in self.samples:
            item = " %d: %d," % (c, kb)
            if len(line) + len(item) > 78:
                print(line)
                line = "   "
            line += item
        print(line.rstrip(","))
        print("  daemon:  %s" % ", ".join(
            "%s %d" % kv for kv in sorted(self.daemon.counts.items())))
        print("  driver:  %s" % ", ".join(
            "%s %d" % kv for kv in sorted(self.events.items())))
        if STALLS:
            print("  MPD stalled %d times (a command of ours took over "
                  "%g s): %s" % (len(STALLS), STALL_S, ", ".join(
                      "%s %.1f s" % st for st in STALLS[:5])))
        for line in self.daemon.odd:
            print("  warning: %s" % line)
        print("  server:  %s" % ", ".join(
            "%s %d" % kv for kv in sorted(self.server.hits.items())))
        return growth

    def verify(self, growth):
        c = self.daemon.counts
        check(growth < self.args.max_growth,
              "VmRSS grew %.2f %% after warm-up (limit %g %%)"
              % (growth, self.args.max_growth))
        check(c["criticals"] == 0, "the daemon logged criticals")
        check(c["connections lost"] <= self.events["MPD restarts"] +
              len(STALLS),
              "the daemon lost MPD %d times, but MPD restarted %d times "
              "and stalled %d times"
              % (c["connections lost"], self.events["MPD restarts"],
                 len(STALLS)))
        # The cycles did what they are for.
        for key in ("updated", "not modified", "unchanged", "failed",
                    "playlists written", "new guids recognised",
                    "moves followed"):
            check(c[key] > 0, "no %s in %d cycles" % (key, self.args.cycles))
        check(self.server.hits["media"] > 0, "MPD never played a tone")
        check(self.events["commands ok"] > self.events["commands refused"],
              "most commands were refused")


def main():
    args = parse_args()
    global TRACE
    root = tempfile.mkdtemp(prefix="soak-", dir="/tmp")
    TRACE = open(os.path.join(root, "driver.log"), "w", buffering=1)
    soak = None
    status = 1
    try:
        soak = Soak(args, root)
        soak.run()
        growth = soak.report()
        soak.verify(growth)
        status = 0
    except (Failure, OSError, RuntimeError) as e:
        log("FAILED: %s" % e)
        if soak is not None and getattr(soak, "daemon", None) is not None:
            log("the daemon's last lines:\n%s" % soak.daemon.last_lines())
    finally:
        if soak is not None:
            if getattr(soak, "daemon", None) is not None and \
                    soak.daemon.process.poll() is None:
                soak.daemon.process.kill()
                soak.daemon.process.wait()
            soak.mpd.stop()
            soak.server.close()
        if args.keep or status != 0:
            log("kept %s" % root)
        else:
            import shutil
            shutil.rmtree(root, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
