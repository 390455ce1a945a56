#!/usr/bin/env python3
"""mpd-bridge's listening tracker end to end.

A private MPD that plays in real time (a null output with sync), a loopback
HTTP server of our own that serves a feed and WAV and MP3 episodes and
answers range requests (without them MPD cannot seek a stream), and the
daemon. Episodes are played, sought, paused and stopped through MPD's
protocol, as any client would; the test then looks at what `mpd-bridge
episodes --json` says.

Prints TAP. Standard library only. Needs mpd (Debian's package) and
MPD_BRIDGE, the built mpd-bridge; without them every test fails.

Positions are checked with a tolerance; nothing is timed tighter than the
behaviour promises (a resume "within about 1 s" is given 2 s). With
LISTEN_TEST_KEEP=1 the temporary directory (MPD's and the daemon's logs,
the state file) is kept and named at the end.
"""
import email.utils
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "support"))
from mpdtest import Channel, Mpd, quote, wait_until  # noqa: E402
import media  # noqa: E402

BRIDGE = os.environ.get("MPD_BRIDGE")

# Episodes are this long: long enough that 35 s of real-time playing (the
# checkpoint test) is far from the end, where an episode counts as listened
# (its last 5 %, or its last minute when that is under a tenth of it).
DURATION = 120
RATE = 8000
FEED = "Listen Test"
GUID = "urn:listen-test:"   # then ep1, ep2, …: absolute, kept as they are
TOLERANCE = 2.0   # seconds between a saved position and MPD's elapsed


# guid, title, served path; the feed's enclosure URL is made per port.
EPISODES = [
    ("ep1", "First episode", "/ep1.wav"),
    ("ep2", "Second episode", "/ep2.wav"),
    # An MP3: MPD 0.24 decodes it with mpg123, 0.23 with mad.
    ("ep3", "Third episode", "/ep3.mp3"),
    # Its enclosure carries a Chartable tracking prefix; MPD is given the
    # plain URL.
    ("ep4", "Fourth episode", "/ep4.wav"),
    # An MP3 served without range support: MPD cannot seek it. (MPD 0.24
    # decodes WAV with FFmpeg, which seeks such a stream forward by
    # reading it; neither MPD seeks an MP3 that way.)
    ("ep5", "Fifth episode", "/noseek/ep5.mp3"),
]


def enclosure(port, guid, path):
    if guid == "ep4":
        return f"https://chtbl.com/track/T3ST/127.0.0.1:{port}{path}"
    return f"http://127.0.0.1:{port}{path}"


def media_type(path):
    return "audio/mpeg" if path.endswith(".mp3") else "audio/wav"


def make_feed(port, size, tag=""):
    items = []
    for k, (guid, title, path) in enumerate(EPISODES):
        items.append(
            f"<item><title>{title}</title><guid>{GUID}{guid}{tag}</guid>"
            f"<pubDate>{email.utils.formatdate(1793613600 + k * 86400)}"
            "</pubDate>"
            f"<itunes:duration>{DURATION}</itunes:duration>"
            f'<enclosure url="{enclosure(port, guid, path)}" '
            f'length="{size}" type="{media_type(path)}"/></item>')
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<rss version="2.0" '
            'xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">'
            f"<channel><title>{FEED}</title>"
            "<link>http://127.0.0.1/</link><description>d</description>"
            + "".join(reversed(items)) + "</channel></rss>\n").encode()


class Handler(media.Handler):
    """The feed, episodes with range requests, and a tracking redirect.

    /feed.xml                 the feed
    /epN.wav                  an episode; 206 to a Range request
    /epN.mp3                  an MP3 of silence as long; 206 to a Range
                              request
    /noseek/epN.mp3           another, ignoring Range, no Accept-Ranges
                              (as python's http.server)
    /redirect.mp3/HOST/PATH   a 302 to http://HOST/PATH, as a podtrac-like
                              measurement prefix does
    """

    def do_GET(self):
        path = self.route
        if path == "/feed.xml":
            self.reply(200, make_feed(self.server.port, len(self.server.wav),
                                      self.server.guid_tag),
                       "application/rss+xml")
        elif path.startswith("/redirect.mp3/"):
            target = "http://" + path[len("/redirect.mp3/"):]
            self.reply(302, headers=[("Location", target)])
        elif path in {p for _, _, p in EPISODES if "/noseek/" in p}:
            self.reply(200, self.server.mp3, "audio/mpeg")
        else:
            self.serve_file()


class Server(media.Server):
    def __init__(self):
        self.wav = media.square_wav(DURATION, RATE)
        self.mp3 = media.silent_mp3(DURATION)
        files = {p: media.silent_mp3(DURATION, stereo=True)
                 if p.endswith(".mp3") else self.wav
                 for _, _, p in EPISODES if "/noseek/" not in p}
        super().__init__(Handler, files)
        self.guid_tag = ""   # appended to every guid of the feed


def mpd_log_tail(w, n=3):
    try:
        with open(w.mpd.log) as f:
            return " | ".join(f.read().splitlines()[-n:])
    except OSError:
        return "?"


class World:
    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="bridge-listen-")
        self.server = Server()
        self.port = self.server.port
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
        os.makedirs(os.path.join(self.root, "config", "mpd-bridge"))
        # Songs are added by the hosts' URLs and played by id, and the
        # playlists are compared with those URLs: without the relay.
        with open(os.path.join(self.root, "config", "mpd-bridge",
                               "config"), "w") as f:
            f.write("[bridge]\nrelay=no\n")
        self.daemon = None
        self.daemon_log = os.path.join(self.root, "daemon.log")

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def bridge(self, *args, timeout=60):
        return subprocess.run([BRIDGE, *args], capture_output=True,
                              text=True, env=self.env, timeout=timeout)

    def start_daemon(self):
        self.daemon = subprocess.Popen(
            [BRIDGE, "run"], env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=open(self.daemon_log, "a"))
        wait_until(lambda: self.bridge("ping").returncode == 0, 30,
                   "the daemon to answer ping")

    def stop_daemon(self):
        if self.daemon is not None:
            self.daemon.send_signal(signal.SIGTERM)
            code = self.daemon.wait(20)
            self.daemon = None
            check(code == 0, f"the daemon exited with {code} on SIGTERM")

    def kill_daemon(self):
        self.daemon.kill()
        self.daemon.wait(10)
        self.daemon = None

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
        finally:
            try:
                self.mpd.stop()
            finally:
                self.server.close()
                if os.environ.get("LISTEN_TEST_KEEP"):
                    print(f"# kept {self.root}")
                else:
                    shutil.rmtree(self.root, ignore_errors=True)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def episodes(w, *args):
    r = w.bridge("episodes", *args, "--json")
    check(r.returncode == 0,
          f"episodes {' '.join(args)} --json: exit {r.returncode}: "
          f"{r.stderr.strip()}")
    return json.loads(r.stdout)


def episode(w, guid):
    found = [e for e in episodes(w) if e["guid"] == GUID + guid]
    check(len(found) == 1, f"episodes --json has no single {guid}")
    return found[0]


def url_of(w, guid):
    return w.url(dict((g, p) for g, _, p in EPISODES)[guid])


def new_playlist(w):
    return w.mpd.values(f"listplaylist {quote('Podcasts: New')}", "file")


def queue(w, *uris):
    """Empties MPD's queue, then queues @uris; returns their song ids."""
    w.mpd.command("stop", "clear")
    return [w.mpd.values(f"addid {quote(uri)}", "Id")[0] for uri in uris]


def play(w, song_id):
    """playid, then waits until MPD has played half a second of that song:
    MPD 0.24 may refuse a seek that comes as its decoder starts ("Decoder
    is dead") and stop, and the tests seek right after this."""
    w.mpd.command(f"playid {song_id}")

    def playing():
        s = w.mpd.status()
        return s.get("state") == "play" and s.get("songid") == song_id and \
            float(s.get("elapsed", "0")) >= 0.5
    wait_until(playing, 15, f"MPD to play song {song_id}")


def play_until(w, seconds, timeout):
    return wait_until(lambda: w.mpd.elapsed() >= seconds, timeout,
                      f"MPD's elapsed to reach {seconds} s", step=0.2)


def stop_at(w):
    """Stops MPD; returns the elapsed time read just before."""
    return float(w.mpd.status("stop")["elapsed"])


def wait_position(w, guid, expected, what, timeout=6.0, state="in-progress"):
    """Waits for the saved position to be within TOLERANCE of @expected."""
    seen = []

    def near():
        e = episode(w, guid)
        seen.append((e["state"], e["position"]))
        return e["state"] == state and \
            abs(e["position"] - expected) <= TOLERANCE
    try:
        wait_until(near, timeout, what, step=0.25)
        print(f"# {what}: MPD {expected:.1f} s, saved {seen[-1][1]} s")
    except AssertionError:
        last = seen[-1] if seen else None
        raise AssertionError(
            f"{what}: expected state {state!r} and position "
            f"{expected:.1f} ± {TOLERANCE:g} s within {timeout:g} s; "
            f"episodes --json said (state, position) = {last}"
            f" (first {seen[0] if seen else None})") from None


# The tests, in order: each leaves MPD stopped and the daemon running.

def t_stop_keeps_position(w):
    """(1) played to ~40 % and stopped: started, at MPD's elapsed"""
    check(episode(w, "ep1")["state"] == "new", episode(w, "ep1"))
    (song,) = queue(w, url_of(w, "ep1"))
    play(w, song)
    w.mpd.command("seekcur 45")
    time.sleep(3)
    at = stop_at(w)
    check(44 <= at <= 52, f"MPD stopped at {at} s, not after 45 + 3 s")
    wait_position(w, "ep1", at, "the position saved on stop")


def t_stopped_position_kept(w):
    """a stopped episode keeps its position when MPD then plays another"""
    (song,) = queue(w, url_of(w, "ep1"))
    play(w, song)
    w.mpd.command("seekcur 40")
    time.sleep(3.5)   # so that the position saved on the seek is not it
    at = stop_at(w)
    wait_position(w, "ep1", at, "ep1's position saved on stop")
    (other,) = queue(w, url_of(w, "ep2"))
    play(w, other)
    time.sleep(3)
    w.mpd.command("stop")
    time.sleep(3)
    e = episode(w, "ep1")
    check(e["state"] == "in-progress" and abs(e["position"] - at) <= TOLERANCE,
          f"ep1 stopped at {at:.1f} s (and saved so); once ep2 played, "
          f"ep1 is {e['state']} at {e['position']} s")


def t_resume_on_play(w):
    """(2) stopped, then started again with a plain play (as mpc play):
    MPD jumps to the saved position less 5 s within 1 s"""
    (song,) = queue(w, url_of(w, "ep1"))
    play(w, song)
    w.mpd.command("seekcur 45")
    time.sleep(3.5)
    at = stop_at(w)
    wait_position(w, "ep1", at, "ep1's position saved on stop")
    # The target is where MPD stopped less 5 s; the state keeps seconds.
    low, high = at - 5 - 1.5, at - 5 + 1.5
    # What `mpc play` sends: play the current song, from its start.
    w.mpd.command("play")
    start = time.monotonic()
    trace = []
    while time.monotonic() - start < 2.0:
        s = w.mpd.status()
        if s.get("songid") == song and "elapsed" in s:
            trace.append((round(time.monotonic() - start, 2),
                          round(float(s["elapsed"]), 2)))
            if trace[-1][1] >= low:
                break
        time.sleep(0.05)
    after = episode(w, "ep1")
    check(trace and trace[-1][1] >= low,
          f"stopped at {at:.1f} s; MPD's (time, elapsed) in the 2 s after "
          f"play: {trace[:3]} … {trace[-3:]} (no jump to ≥ {low:.1f}); "
          f"the state now says ep1 is {after['state']} at "
          f"{after['position']} s")
    check(trace[-1][1] <= high,
          f"stopped at {at:.1f} s, resumed at {trace[-1][1]} s "
          f"({trace[-1][0]} s after play): not 5 s before")
    # The figure the README quotes: how long after play MPD was there.
    print(f"# resume: stopped at {at:.1f} s, at {trace[-1][1]} s "
          f"{trace[-1][0]} s after play")
    check(trace[-1][0] <= 1.0,
          f"the jump took {trace[-1][0]} s after play, not ≤ 1 s")
    w.mpd.command("stop")


def t_pause_and_song_change(w):
    """pause, and a change of song, save the position"""
    ids = queue(w, url_of(w, "ep1"), url_of(w, "ep2"))
    play(w, ids[0])
    time.sleep(1.5)   # the resume seek, if any, is done
    w.mpd.command("seekcur 60")
    time.sleep(3)
    paused = float(w.mpd.status("pause 1")["elapsed"])
    wait_position(w, "ep1", paused, "the position saved on pause")
    w.mpd.command("pause 0")
    time.sleep(3)
    left = float(w.mpd.status(f"playid {ids[1]}")["elapsed"])
    check(left - paused >= 2.5, f"MPD went from {paused} to {left} s only")
    wait_position(w, "ep1", left, "ep1's position saved on a song change")
    w.mpd.command("stop")


def t_listened_at_end(w):
    """(3) played to its end: listened, and out of Podcasts: New"""
    url = url_of(w, "ep2")
    wait_until(lambda: url in new_playlist(w), 20,
               f"{url} in Podcasts: New before it is played")
    (song,) = queue(w, url)
    play(w, song)
    w.mpd.command(f"seekcur {DURATION - 6}")
    # Past the 2 s a whole save waits, for what the start changed.
    state = os.path.join(w.root, "state", "mpd-bridge", "state")
    time.sleep(2.5)
    before = os.stat(state)
    wait_until(lambda: w.mpd.status().get("state") == "stop", 20,
               "MPD to play ep2 to its end")
    try:
        wait_until(lambda: episode(w, "ep2")["state"] == "listened", 5,
                   "ep2 to be listened")
    except AssertionError:
        raise AssertionError(f"played to the end, ep2 is "
                             f"{episode(w, 'ep2')}") from None
    # Its end is a line in the journal, not the whole file again.
    ep2 = episode(w, "ep2")["id"]
    with open(state + ".journal", "rb") as f:
        lines = f.read().split(b"\0")[0].decode().splitlines()
    ends = [line.split() for line in lines
            if line.startswith(f"episode {ep2} ")]
    check(ends and ends[-1][4] == "1" and int(ends[-1][5]) > 0,
          f"the journal's lines of ep2, listened: {ends}")
    after = os.stat(state)
    check((after.st_ino, after.st_mtime_ns) ==
          (before.st_ino, before.st_mtime_ns),
          "the state file was saved whole as ep2 ended")
    wait_until(lambda: url not in new_playlist(w), 10,
               "ep2 to leave Podcasts: New")
    check(url_of(w, "ep1") in new_playlist(w),
          f"the started ep1 left Podcasts: New too: {new_playlist(w)}")


def t_checkpoint_survives_kill(w):
    """(4) daemon killed -9 after 35 s of play: the 30 s checkpoint kept
    the position, and a restarted daemon keeps it"""
    e = episode(w, "ep3")
    check(e["position"] < 10, f"ep3 is not fresh: {e}")
    (song,) = queue(w, url_of(w, "ep3"))
    play(w, song)
    play_until(w, 35, 60)
    played = w.mpd.elapsed()
    state = os.path.join(w.root, "state", "mpd-bridge", "state")
    # The checkpoint is a line in the journal, not the whole file again.
    journal = open(state + ".journal").read() \
        if os.path.exists(state + ".journal") else ""
    check(f"episode {e['id']} " in journal,
          f"after 35 s of play the journal has no position of ep3: "
          f"{journal!r}")
    w.kill_daemon()
    w.mpd.command("stop")
    e = episode(w, "ep3")   # no daemon: read from the state file
    check(e["state"] == "in-progress" and e["position"] >= played - 31,
          f"killed at {played:.1f} s of play, the state says {e['state']} "
          f"at {e['position']} s (expected ≥ {played - 31:.1f})")
    kept = e["position"]
    print(f"# killed -9 at {played:.1f} s of play: {kept} s kept, "
          f"{played - kept:.1f} s lost")
    w.start_daemon()
    time.sleep(3)
    e = episode(w, "ep3")
    check(e["state"] == "in-progress" and e["position"] >= kept,
          f"after the restart ep3 is {e['state']} at {e['position']} s, "
          f"was {kept} s")
    # The restarted daemon folds the journal into the state file.
    wait_until(lambda: not os.path.exists(state + ".journal"), 15,
               "the journal to be folded into the state file")


def t_shutdown_saves(w):
    """the daemon stopped (SIGTERM) while an episode plays saves it"""
    (song,) = queue(w, url_of(w, "ep3"))
    play(w, song)
    time.sleep(1.5)
    w.mpd.command("seekcur 70")
    time.sleep(3)
    at = w.mpd.elapsed()
    w.stop_daemon()
    try:
        e = episode(w, "ep3")
        check(e["state"] == "in-progress" and abs(e["position"] - at) <= TOLERANCE,
              f"stopped by SIGTERM while MPD was at {at:.1f} s; the state "
              f"says {e['state']} at {e['position']} s")
    finally:
        w.mpd.command("stop")
        w.start_daemon()


def t_mpd_restart(w):
    """(5) MPD stopped mid-episode: the position is saved on disconnect
    and survives MPD's restart"""
    (song,) = queue(w, url_of(w, "ep1"))
    play(w, song)
    time.sleep(1.5)
    w.mpd.command("seekcur 50")
    time.sleep(3.5)
    at = w.mpd.elapsed()
    w.mpd.stop()
    try:
        wait_position(w, "ep1", at, "the position saved when MPD went away",
                      timeout=8)
    finally:
        w.mpd.start()
    wait_until(lambda: w.bridge("ping").returncode == 0, 30,
               "the daemon to reconnect")
    time.sleep(2)
    try:
        e = episode(w, "ep1")
        check(e["state"] == "in-progress" and
              abs(e["position"] - at) <= TOLERANCE,
              f"MPD left at {at:.1f} s; after its restart ep1 is "
              f"{e['state']} at {e['position']} s; MPD: "
              f"{w.mpd.status().get('state')} at "
              f"{w.mpd.status().get('elapsed')}")
    finally:
        w.mpd.command("stop")


def t_redirect_prefix(w):
    """a URL behind a measurement redirect (HOST/redirect.mp3/HOST/PATH,
    answered with a 302) is the episode"""
    url = w.url(f"/redirect.mp3/127.0.0.1:{w.port}/ep1.wav")
    before = len(w.server.requests)
    (song,) = queue(w, url)
    try:
        play(w, song)
        wait_until(lambda: [r for r in w.server.requests[before:]
                            if r[1] == "/ep1.wav"], 10,
                   "MPD to follow the 302 to /ep1.wav")
    except AssertionError as e:
        raise AssertionError(
            f"{e}: requests {w.server.requests[before:]}; "
            f"MPD: {w.mpd.status()}") from None
    time.sleep(1.5)
    w.mpd.command("seekcur 25")
    time.sleep(3)
    at = stop_at(w)
    wait_position(w, "ep1", at, "ep1's position, played through the redirect")


def t_feed_prefix(w):
    """an enclosure behind https://chtbl.com/track/ID/HOST/PATH is the
    episode MPD plays as http://HOST/PATH"""
    e = episode(w, "ep4")
    check(e["url"].startswith("https://chtbl.com/track/T3ST/"), e)
    (song,) = queue(w, url_of(w, "ep4"))
    play(w, song)
    time.sleep(1.5)
    w.mpd.command("seekcur 30")
    time.sleep(3)
    at = stop_at(w)
    wait_position(w, "ep4", at, "ep4's position, its feed URL tracked")


def t_unseekable_logged_once(w):
    """a started episode whose stream cannot seek plays on from the top
    when started again, and the failed resume is logged once"""
    ep5, ep2 = queue(w, url_of(w, "ep5"), url_of(w, "ep2"))
    play(w, ep5)
    play_until(w, 15, 40)
    # Another song while it plays: saved as it was left.
    left = float(w.mpd.status(f"playid {ep2}")["elapsed"])
    wait_position(w, "ep5", left, "ep5's position on a song change")
    def about_ep5(lines):
        return [line for line in lines if "Fifth episode" in line and
                re.search(r"seek|resum", line, re.I)]
    logged = []
    for attempt in (1, 2):
        mark = len(w.log().splitlines())
        w.mpd.command(f"playid {ep5}")
        time.sleep(3)
        s = w.mpd.status()
        check(s.get("state") == "play" and s.get("songid") == ep5 and
              float(s.get("elapsed", "0")) < 8,
              f"start {attempt} of ep5 (saved at {left:.0f} s, its stream "
              f"cannot seek): 3 s later MPD is {s.get('state')}, song "
              f"{s.get('songid')} (ep5 is {ep5}), elapsed "
              f"{s.get('elapsed')}; MPD log: {mpd_log_tail(w)}")
        # Saved where it got to from the top, not where the seek aimed.
        heard = float(w.mpd.status(f"playid {ep2}")["elapsed"])
        wait_position(w, "ep5", heard, f"ep5's position after start {attempt}")
        time.sleep(1)
        logged.append(about_ep5(w.log().splitlines()[mark:]))
    w.mpd.command("stop")
    check(w.bridge("ping").returncode == 0, "the daemon does not answer")
    failures = [line for line in logged[0] + logged[1]
                if re.search(r"cannot|can't|fail|unseekable|not seek", line,
                             re.I)]
    check(len(failures) == 1,
          f"two starts of ep5 from the top logged {len(failures)} failures "
          f"to seek it, not 1: {logged}")
    check(logged[1] == [],
          f"the second start of ep5 tried to seek it again: {logged[1]}")
    # The premise: MPD really cannot seek this stream. It refuses the seek
    # ("Not seekable"), or takes it and plays on from the top.
    w.mpd.command(f"playid {ep5}")
    time.sleep(1)
    try:
        w.mpd.command("seekcur 60")
    except RuntimeError:
        pass
    time.sleep(2)
    s = w.mpd.status()
    w.mpd.command("stop")
    check(float(s.get("elapsed", "0")) < 50,
          f"MPD sought the stream served without ranges: {s}")


def t_failed_seek_put_back(w):
    """a seek that MPD's decoder fails, which MPD answers by playing the
    next song (MPD 0.24.4 with a seek back in a remote MP3), leaves the
    episode playing on from where it was"""
    # From the top, with no resume of the daemon's: the seek to 60 s is
    # forward.
    r = w.bridge("mark", "new", GUID + "ep3")
    check(r.returncode == 0, f"mark new ep3: {r.stderr}")
    ep3, ep1 = queue(w, url_of(w, "ep3"), url_of(w, "ep1"))
    play(w, ep3)
    time.sleep(1)
    w.mpd.command("seekcur 60")
    play_until(w, 62, 10)
    # MPD's decoder is still in the song then, some 20 s ahead of play.
    try:
        w.mpd.command("seekcur 30")
        refused = None
    except RuntimeError as e:
        refused = str(e)
    time.sleep(3)
    s = w.mpd.status()
    w.mpd.command("stop")
    print(f"# the seek back from 62 s to 30 s: {refused or 'done'}; 3 s "
          f"later MPD is at {s.get('elapsed')} s of song "
          f"{s.get('songid')} (ep3 is {ep3})")
    check(s.get("state") == "play" and s.get("songid") == ep3,
          f"3 s after the seek back ({refused or 'done'}), MPD is "
          f"{s.get('state')}, song {s.get('songid')} (ep3 is {ep3}, then "
          f"ep1 {ep1}); MPD log: {mpd_log_tail(w)}")
    if refused:
        check(float(s.get("elapsed", "0")) >= 50,
              f"after the refused seek back, ep3 plays again at "
              f"{s.get('elapsed')} s, not where it was (62 s)")


def t_status(w):
    """(6) status names what plays: podcast, episode, position of
    duration"""
    (song,) = queue(w, url_of(w, "ep3"))
    play(w, song)
    time.sleep(1.5)
    r = w.bridge("status")
    elapsed = w.mpd.elapsed()
    w.mpd.command("stop")
    check(r.returncode == 0, f"status: exit {r.returncode}: {r.stderr}")
    out = r.stdout
    check("Third episode" in out and FEED in out,
          f"status does not name {FEED} / Third episode: {out!r}")
    clocks = re.findall(r"(\d+):(\d\d):(\d\d)", out)
    check(len(clocks) >= 2, f"status gives no position of duration: {out!r}")
    at, of = [int(h) * 3600 + int(m) * 60 + int(s) for h, m, s in clocks[:2]]
    check(abs(at - elapsed) <= 2.5 and of == DURATION,
          f"status says {at} s of {of} s; MPD was at {elapsed:.1f} of "
          f"{DURATION}: {out!r}")


def t_state_filter(w):
    """(6) episodes --state filters by state"""
    (song,) = queue(w, url_of(w, "ep4"))
    play(w, song)
    w.mpd.command("seekcur 30")
    time.sleep(1)
    at = stop_at(w)
    wait_position(w, "ep4", at, "ep4's position on stop")
    every = episodes(w)
    states = {e["guid"][len(GUID):]: e["state"] for e in every}
    check(set(states.values()) <= {"new", "in-progress", "listened"}, states)
    check(states.get("ep2") == "listened" and states.get("ep4") == "in-progress",
          f"states so far: {states}")
    for state in ("new", "in-progress", "listened"):
        got = [e["guid"] for e in episodes(w, "--state", state)]
        want = [e["guid"] for e in every if e["state"] == state]
        check(got == want, f"--state {state} gives {got}, not {want}")
    got = [e["guid"] for e in episodes(w, FEED, "--state", "in-progress")]
    check(got == [e["guid"] for e in every if e["state"] == "in-progress"],
          f"{FEED} --state started gives {got}")
    r = w.bridge("episodes", "--state", "halfway")
    check(r.returncode != 0, f"--state halfway accepted: {r.stdout}")


def continue_playlist(w):
    return w.mpd.values(f"listplaylist {quote('Podcasts: Continue')}",
                        "file")


def t_continue(w):
    """Podcasts: Continue holds the episodes in progress, most recently
    played first, kept current as they play; loading it and playing one
    resumes it where it was"""
    def expected():
        going = [e for e in episodes(w) if e["state"] == "in-progress"]
        going.sort(key=lambda e: (-e["last_played"], e["id"]))
        return [e["url"] for e in going]
    want = expected()
    check(len(want) >= 2, f"two episodes should be in progress: {want}")
    # Changes of position rewrite it at most once a minute.
    try:
        wait_until(lambda: continue_playlist(w) == expected(), 75,
                   "Podcasts: Continue to follow the episodes in progress",
                   step=0.5)
    except AssertionError:
        raise AssertionError(f"Podcasts: Continue holds "
                             f"{continue_playlist(w)}, not {expected()}") \
            from None
    # ep3 plays from this server and seeks (ep4's stored URL is behind a
    # tracking host this machine cannot reach; ep1 failed a seek when MPD
    # restarted, and the daemon no longer tries to resume it).
    ep3 = episode(w, "ep3")
    check(ep3["state"] == "in-progress" and ep3["position"] >= 15, ep3)
    index = continue_playlist(w).index(ep3["url"])
    w.mpd.command("stop", "clear", f"load {quote('Podcasts: Continue')}",
                  f"play {index}")
    low, high = ep3["position"] - 5 - 1.5, ep3["position"] - 5 + 2.5
    wait_until(lambda: low <= w.mpd.elapsed() <= high, 5,
               f"MPD to resume ep3 near {ep3['position'] - 5} s")
    at = stop_at(w)
    wait_position(w, "ep3", at, "ep3's position after playing from Continue")


def t_mark(w):
    """(6) mark listened / unlistened / new change the state, from the
    command line and the MPD channel"""
    url = url_of(w, "ep1")
    number = str(episode(w, "ep1")["number"])
    r = w.bridge("mark", "listened", number)
    check(r.returncode == 0, f"mark listened {number}: {r.stderr}")
    check(episode(w, "ep1")["state"] == "listened", episode(w, "ep1"))
    wait_until(lambda: url not in new_playlist(w), 10,
               "ep1 to leave Podcasts: New once marked listened")
    r = w.bridge("mark", "unlistened", GUID + "ep1")
    check(r.returncode == 0, f"mark unlistened ep1: {r.stderr}")
    check(episode(w, "ep1")["state"] != "listened", episode(w, "ep1"))
    wait_until(lambda: url in new_playlist(w), 10,
               "ep1 back in Podcasts: New once unlistened")
    r = w.bridge("mark", "new", GUID + "ep1")
    check(r.returncode == 0, f"mark new ep1: {r.stderr}")
    e = episode(w, "ep1")
    check(e["state"] == "new" and e["position"] == 0, e)
    r = w.bridge("mark", "listened", "latest", FEED)
    check(r.returncode == 0, f"mark listened latest: {r.stderr}")
    check(episode(w, "ep5")["state"] == "listened", episode(w, "ep5"))
    r = w.bridge("mark", "halfway", GUID + "ep1")
    check(r.returncode != 0, f"mark halfway accepted: {r.stdout}")
    # Any MPD client.
    with Channel(w.mpd, "listen-replies") as channel:
        answer = channel.send(f"mark listened {GUID}ep3")
        check(answer[0].startswith("ok"), answer)
    check(episode(w, "ep3")["state"] == "listened", episode(w, "ep3"))


def t_guid_change(w):
    """(6) the feed changes an in-progress episode's guid, and back: its
    position and state stay"""
    before = episode(w, "ep4")
    check(before["state"] == "in-progress" and before["position"] > 0,
          f"ep4 should be in progress by now: {before}")
    for tag in ("-v2", ""):
        w.server.guid_tag = tag
        r = w.bridge("refresh", FEED)
        check(r.returncode == 0, r.stderr)
        after = wait_until(
            lambda: [e for e in episodes(w)
                     if e["guid"] == f"{GUID}ep4{tag}"], 20,
            f"ep4's guid to become {GUID}ep4{tag}")[0]
        check(after["id"] == before["id"] and
              after["state"] == "in-progress" and
              after["position"] == before["position"],
              f"with guid {after['guid']}: {after}, was {before}")
        check(len(episodes(w)) == len(EPISODES),
              f"episodes now: {[e['guid'] for e in episodes(w)]}")


TESTS = [t_stop_keeps_position, t_stopped_position_kept, t_resume_on_play,
         t_pause_and_song_change, t_listened_at_end, t_checkpoint_survives_kill, t_shutdown_saves,
         t_mpd_restart, t_redirect_prefix, t_feed_prefix,
         t_unseekable_logged_once, t_failed_seek_put_back, t_status,
         t_state_filter, t_continue, t_mark,
         t_guid_change]


def setup(w):
    w.start_daemon()
    r = w.bridge("subscribe", w.url("/feed.xml"))
    check(r.returncode == 0, f"subscribe: exit {r.returncode}: {r.stderr}")
    wait_until(lambda: len(episodes(w)) == len(EPISODES), 20,
               f"the {len(EPISODES)} episodes of {FEED}")


def main():
    print(f"1..{len(TESTS)}")
    sys.stdout.flush()
    if not BRIDGE:
        for i, t in enumerate(TESTS, 1):
            print(f"not ok {i} - {t.__doc__.split(chr(10))[0]} # MPD_BRIDGE "
                  "is not set")
        return 1
    world = None
    try:
        world = World()
        setup(world)
    except Exception as e:  # noqa: BLE001 - reported as TAP
        for i, t in enumerate(TESTS, 1):
            print(f"not ok {i} - {' '.join(t.__doc__.split())}\n# {e}")
        if world is not None:
            for line in world.log().splitlines()[-15:]:
                print(f"# daemon: {line}")
            world.close()
        return 1
    failed = 0
    try:
        for i, t in enumerate(TESTS, 1):
            name = " ".join(t.__doc__.split())
            mark = len(world.log().splitlines())
            began = time.monotonic()
            try:
                if not world.mpd.alive():
                    world.mpd.stop()
                    world.mpd.start()
                if world.daemon is None:
                    world.start_daemon()
                t(world)
                print(f"ok {i} - {name} ({time.monotonic() - began:.1f} s)")
            except Exception as e:  # noqa: BLE001 - reported as TAP
                failed += 1
                print(f"not ok {i} - {name}")
                for line in str(e).splitlines():
                    print(f"# {line}")
                # With nothing logged since the test began, what came
                # just before tells where the daemon was.
                lines = world.log().splitlines()
                for line in lines[max(mark - 10, 0):][-25:]:
                    print(f"# daemon: {line}")
                try:
                    print(f"# MPD: {world.mpd.status()}")
                except (OSError, RuntimeError) as error:
                    print(f"# MPD does not answer: {error}")
                try:
                    world.mpd.command("stop")
                except (OSError, RuntimeError):
                    pass
            sys.stdout.flush()
        log = world.log()
        if "CRITICAL" in log:
            print("# the daemon logged a critical:")
            print("\n".join("# " + l for l in log.splitlines()
                            if "CRITICAL" in l))
            failed += 1
    finally:
        world.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
