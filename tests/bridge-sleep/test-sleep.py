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
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "support"))
from mpdtest import Channel, wait_until  # noqa: E402
from bridgeworld import run_tap  # noqa: E402
from playworld import PlayWorld, check  # noqa: E402

TOLERANCE = 1.0  # seconds between a timer's time and its pause

# guid, title, seconds
EPISODES = [
    ("long-1", "Long one", 60),
    ("long-2", "Long two", 60),
    ("short", "Short one", 3),
    ("after", "After the short one", 60),
]


class World(PlayWorld):
    def __init__(self):
        super().__init__("sleep", "Sleep Test", EPISODES, {"sleep_fade": 0})
        self.errors = []  # each timer's pause, less its time: seconds

    def play(self, *guids):
        self.mpd.command("clear", *(f'add "{self.url(g)}"' for g in guids),
                         "play 0")
        wait_until(lambda: self.state() == "play"
                   and float(self.mpd.status().get("elapsed", 0)) > 0,
                   10, "MPD to play")

    def state(self):
        return self.mpd.status().get("state")

    def close(self):
        if self.errors:
            print("# pause time less the timer's: " + ", ".join(
                f"{e:+.2f} s" for e in self.errors))
        super().close()


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
    # Set while paused: MPD may take a while to answer as a stream starts,
    # and a oneshot that comes after the song's end is for the next one.
    # Paused in the same command list as the play: waiting to see it play
    # first took MPD past the 3 s episode on a busy machine (Debian 13's
    # run), and the timer was set for the next one.
    w.mpd.command("clear", f'add "{w.url("short")}"',
                  f'add "{w.url("after")}"', "play 0", "pause 1")
    wait_until(lambda: w.state() == "pause", 10, "MPD to pause the short one")
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
    w.configure(sleep_fade=2)
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
