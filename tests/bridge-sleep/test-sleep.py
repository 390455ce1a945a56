#!/usr/bin/env python3
"""mpd-bridge's sleep timer end to end.

A private MPD that plays in real time (a null output with sync, and a
software mixer so that it has a volume), a loopback HTTP server of silent
WAV episodes, and the daemon. Each second here is a second of CI: the
timers are a few seconds long, and the checks poll.

Prints TAP. Needs mpd (Debian's package) and MPD_BRIDGE; without them
every test fails. With SLEEP_TEST_LOG=1 the daemon's log is printed at
the end, as TAP comments.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "support"))
from mpdtest import Channel, Mpd, wait_until  # noqa: E402
from bridgeworld import run_tap  # noqa: E402
import media  # noqa: E402

BRIDGE = os.environ.get("MPD_BRIDGE")
TOLERANCE = 1.0  # seconds between a timer's time and its pause

# guid, title, seconds
EPISODES = [
    ("long-1", "Long one", 60),
    ("long-2", "Long two", 60),
    ("short", "Short one", 3),
    ("after", "After the short one", 60),
]


def feed(base):
    items = "".join(
        f'<item><guid isPermaLink="false">{guid}</guid><title>{title}'
        f"</title><pubDate>Sun, 0{k + 1} Sep 2024 10:00:00 +0000</pubDate>"
        f'<enclosure url="{base}/{guid}.wav" type="audio/wav" '
        'length="1"/></item>'
        for k, (guid, title, _) in enumerate(EPISODES))
    return ('<?xml version="1.0" encoding="UTF-8"?><rss version="2.0">'
            "<channel><title>Sleep Test</title><link>http://x.invalid/"
            f"</link><description>d</description>{items}</channel></rss>")


class Site:
    """The feed and its episodes, served with ranges, as podcast hosts
    answer them: MPD 0.24 reads a WAV stream's header by seeking."""

    def __init__(self):
        site = self

        class Handler(media.Handler):
            def do_GET(self):
                if self.path == "/feed.xml":
                    self.reply(200, feed(site.base).encode(),
                               "application/rss+xml")
                else:
                    self.serve_file()

        self.server = media.Server(Handler, {
            f"/{g}.wav": media.silent_wav(s) for g, _, s in EPISODES})
        self.base = self.server.base

    def close(self):
        self.server.close()


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class World:
    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="bridge-sleep-")
        self.mpd = Mpd(os.path.join(self.root, "mpd"))
        # The null output has no mixer of its own: MPD's software one
        # gives it a volume to fade.
        with open(self.mpd.conf) as f:
            conf = f.read()
        with open(self.mpd.conf, "w") as f:
            f.write(conf.replace('\tsync "yes"\n',
                                 '\tsync "yes"\n\tmixer_type "software"\n'))
        self.mpd.start()
        self.site = Site()
        self.env = dict(os.environ)
        self.env.update({
            "XDG_CONFIG_HOME": os.path.join(self.root, "config"),
            "XDG_STATE_HOME": os.path.join(self.root, "state"),
            "XDG_CACHE_HOME": os.path.join(self.root, "cache"),
            "MPD_HOST": self.mpd.socket,
            "G_DEBUG": "fatal-warnings",
        })
        self.env.pop("MPD_PORT", None)
        self.daemon = None
        self.daemon_log = os.path.join(self.root, "daemon.log")
        self.configure(fade=0)
        r = self.bridge("subscribe", self.site.base + "/feed.xml")
        check(r.returncode == 0, r.stderr)
        self.start_daemon()
        self.errors = []  # each timer's pause, less its time: seconds

    def configure(self, fade):
        directory = os.path.join(self.root, "config", "mpd-bridge")
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "config"), "w") as f:
            f.write(f"[bridge]\nsleep_fade={fade}\n")

    def url(self, guid):
        return f"{self.site.base}/{guid}.wav"

    def bridge(self, *args):
        return subprocess.run([BRIDGE, *args], capture_output=True,
                              text=True, env=self.env, timeout=60)

    def ok(self, *args):
        r = self.bridge(*args)
        check(r.returncode == 0,
              f"{' '.join(args)}: exit {r.returncode}: {r.stderr}")
        return r.stdout.strip()

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

    def play(self, *guids):
        self.mpd.command("clear", *(f'add "{self.url(g)}"' for g in guids),
                         "play 0")
        wait_until(lambda: self.state() == "play"
                   and float(self.mpd.status().get("elapsed", 0)) > 0,
                   10, "MPD to play")

    def state(self):
        return self.mpd.status().get("state")

    def episode(self, guid):
        for e in json.loads(self.ok("episodes", "--json")):
            if e["guid"] == guid:
                return e
        raise AssertionError(f"no episode {guid}")

    def close(self):
        if self.errors:
            print("# pause time less the timer's: " + ", ".join(
                f"{e:+.2f} s" for e in self.errors))
        if os.environ.get("SLEEP_TEST_LOG"):
            print("\n".join("# " + line for line in self.log().splitlines()))
        try:
            self.stop_daemon()
        finally:
            self.mpd.stop()
            self.site.close()
            shutil.rmtree(self.root, ignore_errors=True)


def timed_pause(w, seconds, sample=None):
    """Sets `sleep Ns` and waits for MPD's pause; returns its error.
    @sample(status) runs at each poll."""
    answer = w.ok("sleep", f"{seconds}s")
    start = time.monotonic()
    check(answer.startswith(f"sleeping in {seconds} s (at "), answer)
    while True:
        status = w.mpd.status()
        if sample is not None:
            sample(status)
        if status.get("state") != "play":
            break
        check(time.monotonic() - start < seconds + 3, "no pause came")
        time.sleep(0.05)
    error = time.monotonic() - start - seconds
    w.errors.append(error)
    check(status.get("state") == "pause", status)
    check(abs(error) <= TOLERANCE, f"paused {error:+.2f} s off its time")
    return status


def t_bad_input(w):
    """sleep -1, 25h, x: a usage error, exit 2; the same on the channel"""
    for arg, says in (("-1", "sleep takes minutes"), ("25h", "1 s to 24 h"),
                      ("x", "sleep takes minutes")):
        r = w.bridge("sleep", arg)
        check(r.returncode == 2 and says in r.stderr,
              f"sleep {arg}: exit {r.returncode}: {r.stderr}")
    with Channel(w.mpd, "sleep-test-bad") as channel:
        answer = channel.send("sleep 0")
        check(answer[0].startswith("error a sleep timer runs from 1 s"),
              answer)


def t_nothing_set(w):
    """sleep alone, with no timer: says so"""
    check(w.ok("sleep") == "no sleep timer", "not none")


def t_pause(w):
    """sleep 3s pauses within 1 s of its time; the position is saved and
    the episode not listened"""
    w.play("long-1")
    status = timed_pause(w, 3)
    elapsed = float(status["elapsed"])

    def saved():
        e = w.episode("long-1")
        return e if e["position"] > 0 else None
    e = wait_until(saved, 5, "the position to be saved")
    check(abs(e["position"] - elapsed) <= 1.5,
          f"saved {e['position']} s, MPD paused at {elapsed} s")
    check(e["state"] == "in-progress", e)
    check(w.ok("sleep") == "no sleep timer", "a timer is left")
    check("the sleep timer paused Long one" in w.log(), "not logged")


def t_channel_and_off(w):
    """through the channel; sleep alone says how long is left; sleep off
    cancels and nothing pauses"""
    w.play("long-2")
    with Channel(w.mpd, "sleep-test-reply") as channel:
        answer = channel.send("sleep 20")
        check(answer[0].startswith("ok sleeping in 20 min (at "), answer)
        left = w.ok("sleep")
        check(left.startswith("sleeping in 19:5") or
              left.startswith("sleeping in 20:00"), left)
        answer = channel.send("sleep 2s")
        check(answer[0].startswith("ok sleeping in 2 s (at "), answer)
    check(w.ok("sleep", "off") == "sleep timer off", "not off")
    check(w.ok("sleep") == "no sleep timer", "still set")
    time.sleep(2.5)
    check(w.state() == "play", "paused after all")


def t_single_off(w):
    """sleep end, then a client turns single mode off: the timer is off"""
    answer = w.ok("sleep", "end")
    check(answer == "sleeping at the end of Long two", answer)
    check(w.mpd.status().get("single") == "oneshot", "no single oneshot")
    w.mpd.command("single 0")
    wait_until(lambda: w.ok("sleep") == "no sleep timer", 5,
               "the timer to go off")
    check("single mode was turned off in a client" in w.log(), w.log())


def t_end(w):
    """sleep end stops after a 3 s episode and MPD does not play the
    next"""
    w.play("short", "after")
    # Set while paused: MPD may take a while to answer as a stream starts,
    # and a oneshot that comes after the song's end is for the next one.
    w.mpd.command("pause 1")
    check(w.ok("sleep", "end") == "sleeping at the end of Short one",
          "not the short one")
    w.mpd.command("pause 0")
    wait_until(lambda: w.state() != "play", 20, "the end of the episode")
    # The daemon's part comes after MPD's: wait for it to be done, not
    # for a fixed time that a busy machine may not give it.
    wait_until(lambda: "Short one ended: sleep timer done" in w.log(), 20,
               "the daemon to end the timer")
    status = w.mpd.status()
    check(status.get("state") in ("pause", "stop"), status)
    check(float(status.get("elapsed", 0)) < 0.5, status)
    check(status.get("single") == "0", status)
    check(w.ok("sleep") == "no sleep timer", "still set")
    check("Short one ended: sleep timer done" in w.log(), w.log())


def t_fade(w):
    """with sleep_fade=2 the volume goes down before the pause and is
    restored after it"""
    w.stop_daemon()
    w.configure(fade=2)
    w.start_daemon()
    w.mpd.command("setvol 80")
    w.play("long-1")
    volumes = []

    def sample(status):
        if status.get("state") == "play":
            volumes.append(int(status["volume"]))
    timed_pause(w, 3, sample)
    check(min(volumes) <= 40 and volumes[0] == 80,
          f"volumes while playing: {volumes}")
    wait_until(lambda: w.mpd.status().get("volume") == "80", 3,
               "the volume to be restored")


def main():
    return run_tap([t_bad_input, t_nothing_set, t_pause, t_channel_and_off,
                    t_single_off, t_end, t_fade], World,
                   bad_log=("CRITICAL", "WARNING"))


if __name__ == "__main__":
    sys.exit(main())
