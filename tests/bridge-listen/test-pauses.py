#!/usr/bin/env python3
"""Pauses end to end: MPD's own, which must not count as listening.

A private MPD playing in real time (a null output with sync), a loopback
site of silent WAV episodes, and the daemon (tests/support/playworld.py).
MPD's hang on a dropped connection (0.23) is played by freezing MPD with
SIGSTOP; the daemon learns that MPD is gone when a request of its own
times out, and the sleep timer makes one at a set time.

Prints TAP. Needs mpd (Debian's package) and MPD_BRIDGE. With
PAUSES_TEST_LOG=1 the daemon's log is printed at the end.
"""
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "support"))
from mpdtest import wait_until  # noqa: E402
from bridgeworld import run_tap  # noqa: E402
from playworld import PlayWorld, check  # noqa: E402

# guid, title, seconds
EPISODES = [("whole", "Whole episode", 6),
            ("frozen", "Frozen episode", 16)]
TIMEOUT = 2      # [mpd] timeout: seconds before the daemon gives MPD up
TAIL = 50        # [listening] tail_percent: the frozen one's last 8 s


class World(PlayWorld):
    def __init__(self):
        super().__init__(
            "pauses", "Pauses Test", EPISODES, {"sleep_fade": 0},
            mixer=False, fatal="fatal-criticals",
            groups={"mpd": {"timeout": TIMEOUT},
                    "listening": {"tail_percent": TAIL}})

    def play(self, guid):
        """Plays @guid alone from its start; returns once MPD is on it."""
        self.mpd.command("stop", "clear", f'add "{self.url(guid)}"',
                         "play 0")
        wait_until(lambda: self.mpd.status().get("state") == "play", 10,
                   f"MPD to play {guid}")

    def log_since(self, mark):
        return self.log().splitlines()[mark:]

    def wait_log(self, mark, pattern, timeout, what):
        return wait_until(
            lambda: [line for line in self.log_since(mark)
                     if re.search(pattern, line)], timeout, what)


def t_played_to_its_end(w):
    """an episode that MPD plays to its end by itself, with no event in
    its tail before, is listened"""
    check(w.episode("whole")["state"] == "new", w.episode("whole"))
    mark = len(w.log().splitlines())
    w.play("whole")
    wait_until(lambda: w.mpd.status().get("state") == "stop", 20,
               "MPD to play the whole episode to its end")
    wait_until(lambda: w.episode("whole")["state"] == "listened", 5,
               "the whole episode to be listened")
    w.wait_log(mark, r"listened to Whole episode", 5, "the log to say so")


def t_frozen_mpd(w):
    """MPD frozen (SIGSTOP) a few seconds into an episode, and kept so past
    its end, while the daemon loses MPD: the episode is not listened, and
    its position is where the reckoning got to, before the end"""
    duration = dict((g, s) for g, _, s in EPISODES)["frozen"]
    tail_from = duration - duration * TAIL // 100
    w.play("frozen")
    started = time.monotonic()
    at = wait_until(lambda: w.mpd.elapsed() >= 2 and w.mpd.elapsed(), 10,
                    "MPD to play 2 s")
    # The daemon's request at the sleep timer's end times out TIMEOUT s
    # later: then the reckoning is some 3 s into the tail.
    length = max(1, round(tail_from + 3 - TIMEOUT - at))
    mark = len(w.log().splitlines())
    answer = w.ok("sleep", f"{length}s")
    check(answer.startswith("sleeping in"), answer)
    os.kill(w.mpd.process.pid, signal.SIGSTOP)
    try:
        w.wait_log(mark, r"lost the connection.*[Tt]imeout", 30,
                   "the daemon to lose the frozen MPD")
        w.wait_log(mark, r"the sleep timer cannot pause", 5,
                   "the sleep timer's request to be what timed out")
        saved = wait_until(
            lambda: (e := w.episode("frozen"))["position"] > 0 and e, 10,
            "the position saved when MPD was lost")
        print(f"# frozen at {at:.1f} s; saved at {saved['position']} s "
              f"when MPD was lost, {time.monotonic() - started:.1f} s in")
        check(saved["state"] == "in-progress" and
              tail_from <= saved["position"] < duration,
              f"MPD frozen at {at:.1f} s, lost some "
              f"{length + TIMEOUT} s later: the state says "
              f"{saved['state']} at {saved['position']} s, not in progress "
              f"in the tail ({tail_from} to {duration} s)")
        # Past the episode's end, as MPD would be had it played on.
        wait_until(lambda: time.monotonic() - started > duration + 1,
                   duration + 5, "the episode's end to pass", step=0.2)
    finally:
        # Only a kill ends MPD 0.23's hang; it starts again empty.
        os.kill(w.mpd.process.pid, signal.SIGKILL)
        w.mpd.process.wait(10)
        w.mpd.start()
    w.wait_log(mark, r"reconnected to", 30, "the daemon to reconnect")
    e = w.episode("frozen")
    check(e["state"] == "in-progress" and e["position"] < duration,
          f"after MPD came back, the frozen episode is {e['state']} at "
          f"{e['position']} s (of {duration})")
    check(not [line for line in w.log_since(mark)
               if "listened to Frozen" in line],
          "the daemon logged the frozen episode as listened")


def main():
    return run_tap([t_played_to_its_end, t_frozen_mpd], World)


if __name__ == "__main__":
    sys.exit(main())
