#!/usr/bin/env python3
"""Pauses end to end: MPD's own, which must not count as listening, and
the listener's, after which an episode plays on a little before where it
paused.

A private MPD playing in real time (a null output with sync), a loopback
site of silent WAV episodes, and the daemon (tests/support/playworld.py).
MPD's hang on a dropped connection (0.23) is played by freezing MPD with
SIGSTOP; the daemon learns that MPD is gone when a request of its own
times out, and the sleep timer makes one at a set time. The pauses after
which an episode goes back are a setting: here a step of 2 s stands for
AntennaPod's minute, and a time since an episode last played is made
days long by editing the state while the daemon is stopped.

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
            ("frozen", "Frozen episode", 16),
            ("talk", "Long talk", 120)]
TIMEOUT = 2      # [mpd] timeout: seconds before the daemon gives MPD up
TAIL = 50        # [listening] tail_percent: the frozen one's last 8 s
# [listening] rewind_after_pause: 3 s back after a pause of over 2 s, …
REWIND = "2s:3 1h:10 1d:20"
STEP, BACK, LAST_BACK = 2, 3, 20


class World(PlayWorld):
    def __init__(self):
        super().__init__(
            "pauses", "Pauses Test", EPISODES, {"sleep_fade": 0},
            mixer=False, fatal="fatal-criticals",
            groups={"mpd": {"timeout": TIMEOUT},
                    "listening": {"tail_percent": TAIL,
                                  "rewind_after_pause": REWIND}})

    def play(self, guid):
        """Plays @guid alone from its start; returns once MPD is on it."""
        self.mpd.command("stop", "clear", f'add "{self.url(guid)}"',
                         "play 0")
        wait_until(lambda: self.mpd.status().get("state") == "play", 10,
                   f"MPD to play {guid}")

    def set_last_played(self, guid, when):
        """Sets an episode's last_played in the state file; the daemon is
        stopped."""
        check(self.daemon is None, "the daemon runs")
        path = os.path.join(self.root, "state", "mpd-bridge", "state")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        start = text.index(f"[episode {self.episode(guid)['id']}]\n")
        end = text.find("\n[", start)
        end = len(text) if end < 0 else end
        group, n = re.subn(r"^last_played=\d+$", f"last_played={when}",
                           text[start:end], flags=re.M)
        check(n == 1, f"no single last_played in {text[start:end]!r}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text[:start] + group + text[end:])

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


def went_back(w, paused_at, back, what):
    """After MPD plays on from @paused_at: waits for it to be @back s
    earlier, and returns where it was then."""
    trace = []

    def behind():
        trace.append(w.mpd.elapsed())
        return trace[-1] < paused_at - 1 and trace[-1]
    try:
        at = wait_until(behind, 3, what)
    except AssertionError:
        raise AssertionError(f"{what}: paused at {paused_at:.1f} s, MPD "
                             f"then at {trace[:2]} … {trace[-2:]}") from None
    check(paused_at - back - 0.6 <= at <= paused_at - back + 0.8,
          f"paused at {paused_at:.1f} s, MPD went back to {at:.1f} s, "
          f"not {back} s earlier")
    return at


def pass_step(paused):
    """Waits out a pause longer than the step in whole seconds, as the
    daemon counts it (last_played is in whole seconds)."""
    wait_until(lambda: time.monotonic() - paused > STEP + 1.5, STEP + 5,
               "the pause to pass the step", step=0.1)


def pause(w):
    """Pauses MPD; returns its elapsed time then."""
    w.mpd.command("pause 1")
    return w.mpd.elapsed()


def t_back_after_pause(w):
    """MPD paused for longer than the first step (2 s here) plays on 3 s
    before where it paused; after a shorter pause it plays on where it
    was"""
    w.play("talk")
    wait_until(lambda: w.mpd.elapsed() >= 0.5, 10, "MPD to play")
    # Before the tail (its last 60 s), where a pause would make it
    # listened.
    w.mpd.command("seekcur 40")
    wait_until(lambda: w.mpd.elapsed() >= 41, 10, "MPD to play from 40 s")
    mark = len(w.log().splitlines())
    at = pause(w)
    time.sleep(0.3)   # a pause under the step
    w.mpd.command("pause 0")
    # Had it gone back 3 s, MPD would take 4 s to get 1 s past the pause.
    trace = []
    wait_until(lambda: trace.append(w.mpd.elapsed()) or trace[-1] >= at + 1,
               2.5, f"MPD to play on from {at:.1f} s after a short pause")
    check(min(trace) >= at - 0.5,
          f"after a pause of 0.3 s MPD went from {at:.1f} back to "
          f"{min(trace):.1f} s")
    at = pause(w)
    pass_step(time.monotonic())
    w.mpd.command("pause 0")
    went_back(w, at, BACK, "MPD to go back after the pause")
    w.wait_log(mark, rf"back {BACK} s after a pause of \d+ s: Long talk", 5,
               "the log to say it went back")


def t_back_after_restart(w):
    """paused, the daemon restarted, then played on: the pause counts from
    when the episode last played, which the daemon's stop leaves as it was
    at the pause"""
    at = pause(w)
    paused = time.monotonic()
    wait_until(lambda: abs(w.episode("talk")["position"] - at) <= 1.5, 6,
               "the position saved on the pause")
    pass_step(paused)
    w.stop_daemon()
    mark = len(w.log().splitlines())
    w.start_daemon()
    w.mpd.command("pause 0")
    went_back(w, at, BACK, "MPD to go back after the pause and the restart")
    w.wait_log(mark, rf"back {BACK} s after a pause of \d+ s: Long talk", 5,
               "the log to say it went back")


def t_back_on_resume(w):
    """an episode resumed days after it last played starts the last step
    (20 s here) before the usual 5 s before its position"""
    at = float(w.mpd.status("stop")["elapsed"])
    saved = wait_until(
        lambda: abs((e := w.episode("talk"))["position"] - at) <= 1.5 and e,
        6, "the position saved on stop")["position"]
    w.stop_daemon()
    w.set_last_played("talk", int(time.time()) - 3 * 86400)
    w.start_daemon()
    mark = len(w.log().splitlines())
    target = saved - 5 - LAST_BACK
    # What `mpc play` sends: play the current song, from its start.
    w.mpd.command("play")
    try:
        got = wait_until(lambda: (e := w.mpd.elapsed()) >= target - 1.5 and e,
                         5, f"MPD to resume near {target} s")
    finally:
        w.mpd.command("stop")
    check(got <= target + 2,
          f"saved at {saved} s, played 3 days ago: resumed at {got:.1f} s, "
          f"not {target} s")
    w.wait_log(mark, rf"back {LAST_BACK} s after a pause of 3 days: "
               "Long talk", 5, "the log to say it went back")


def main():
    return run_tap([t_played_to_its_end, t_frozen_mpd, t_back_after_pause,
                    t_back_after_restart, t_back_on_resume], World)


if __name__ == "__main__":
    sys.exit(main())
