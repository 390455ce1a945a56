#!/usr/bin/env python3
"""Playback speed per podcast end to end.

A private MPD that plays in real time (a null output with sync), a
loopback HTTP server of silent WAV episodes, and the daemon. The outputs
`mpd-bridge speed-setup` prints are included from MPD's configuration
when MPD is 0.24 or later (its ffmpeg filter plugin plays 1.5 s of an
episode in 1 s); MPD 0.23 has no such plugin, and there the bridge must
say so instead. Either way every test asserts something.

Prints TAP. Needs mpd (Debian's package) and MPD_BRIDGE. With
SPEED_TEST_LOG=1 the daemon's log is printed at the end, as TAP comments.
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "support"))
from mpdtest import wait_until  # noqa: E402
from bridgeworld import run_tap  # noqa: E402
from playworld import PlayWorld, check  # noqa: E402
import media  # noqa: E402

SPEED = 1.5
WALL = 6.0  # seconds of wall time measured
TOLERANCE = 1.0  # seconds of the episode

# guid, title, seconds
EPISODES = [("talk", "Long talk", 300)]
MUSIC = "/music.wav"  # served, but in no feed


def mpd_version():
    out = subprocess.run(["mpd", "--version"], capture_output=True,
                         text=True).stdout
    found = re.search(r"Music Player Daemon (\d+)\.(\d+)", out)
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


class World(PlayWorld):
    def __init__(self):
        super().__init__("speed", "Speed Test", EPISODES, {},
                         extra={MUSIC: media.silent_wav(120)}, mixer=False)
        self.has_filter = mpd_version() >= (0, 24)

    def play(self, url):
        self.mpd.command("clear", f'add "{url}"', "play 0")
        wait_until(lambda: self.mpd.status().get("state") == "play"
                   and float(self.mpd.status().get("elapsed", 0)) > 0,
                   10, "MPD to play")

    def outputs(self):
        """{name: enabled} of MPD's outputs."""
        found, name = {}, None
        for line in self.mpd.command("outputs"):
            key, _, value = line.partition(": ")
            if key == "outputname":
                name = value
            elif key == "outputenabled":
                found[name] = value == "1"
        return found

    def enabled(self):
        return sorted(n for n, on in self.outputs().items() if on)


def t_bad_values(w):
    """set FEED speed 4, x, 0.4: a usage error that names the range"""
    for value in ("4", "x", "0.4", "1.255"):
        r = w.bridge("set", w.feed, "speed", value)
        check(r.returncode == 2 and "0.5 to 3.0" in r.stderr,
              f"speed {value}: exit {r.returncode}: {r.stderr}")


def t_setup(w):
    """speed-setup prints a filter and a disabled copy of MPD's output for
    each speed; on MPD 0.24 MPD starts with it included and lists them"""
    snippet = w.ok("speed-setup")
    for speed in ("1.25", "1.5", "1.75", "2"):
        check(f'    name "mpd-bridge-speed-{speed}"\n    graph "atempo={speed}"'
              in snippet, f"no filter for {speed}: {snippet}")
        check(f'    type "null"\n    name "null at {speed}×"\n'
              f'    filters "mpd-bridge-speed-{speed}"\n    enabled "no"\n'
              in snippet, f"no output for {speed}: {snippet}")
    check("include" in snippet and "0.24" in snippet, snippet)
    check(w.ok("speed-setup", "null") == snippet, "named: another text")
    r = w.bridge("speed-setup", "nothing such")
    check(r.returncode != 0 and "no output named 'nothing such'"
          in r.stderr, r.stderr)
    if not w.has_filter:
        return
    part = os.path.join(w.mpd.root, "speed.conf")
    with open(part, "w") as f:
        f.write(snippet + "\n")
    with open(w.mpd.conf, "a") as f:
        f.write(f'include "{part}"\n')
    # The daemon warns when MPD goes away: it stops meanwhile.
    w.stop_daemon()
    w.mpd.stop()
    w.mpd.start()
    outputs = w.outputs()
    check(outputs.get("null") is True and outputs.get("null at 1.5×")
          is False, outputs)
    w.start_daemon()


def t_set(w):
    """set FEED speed 1.5 is stored; on MPD 0.23 the answer says that it
    needs MPD 0.24's ffmpeg filter plugin"""
    answer = w.ok("set", w.feed, "speed", "1.5")
    check(answer.startswith("Speed Test: speed is now '1.5'"), answer)
    if w.has_filter:
        check("MPD" not in answer, answer)
    else:
        check("older than 0.24" in answer and "ffmpeg filter plugin"
              in answer and "Debian 13" in answer, answer)


def t_rate(w):
    """an episode of a 1.5× podcast: on MPD 0.24 its speed's output plays
    it, 6 s of wall time move elapsed 9 ± 1 s, and status says 1.5×; on
    MPD 0.23 it plays at 1× and status says why"""
    w.play(w.url("talk"))
    if not w.has_filter:
        wait_until(lambda: "1.5× wanted" in w.ok("status"), 10,
                   "status to say 1.5× is wanted")
        check(w.enabled() == ["null"], w.outputs())
        return
    wait_until(lambda: w.enabled() == ["null at 1.5×"], 10,
               "the 1.5× output alone to be on")
    # Past the output's switch: the rate is the steady one.
    time.sleep(1)
    start_elapsed, start = w.mpd.elapsed(), time.monotonic()
    wait_until(lambda: time.monotonic() - start >= WALL, WALL + 5,
               "the wall time to pass", step=0.2)
    played = w.mpd.elapsed() - start_elapsed
    wall = time.monotonic() - start
    print(f"# {wall:.2f} s of wall time played {played:.2f} s "
          f"({played / wall:.3f}×)")
    check(abs(played - SPEED * wall) <= TOLERANCE,
          f"{wall:.2f} s played {played:.2f} s, not {SPEED * wall:.2f}")
    status = w.ok("status")
    check("; at 1.5×" in status, status)


def t_saved(w):
    """the position the daemon saves as it stops, long after the last
    event, is where MPD is: the wall time counts at 1.5×"""
    if not w.has_filter:
        check(w.ok("set", w.feed, "speed", "default").startswith(
            "Speed Test: speed is now 'default'"), "not cleared")
        return
    w.stop_daemon()
    elapsed = w.mpd.elapsed()
    saved = w.episode("talk")["position"]
    print(f"# MPD at {elapsed:.1f} s, saved {saved} s")
    check(abs(saved - elapsed) <= 1.5,
          f"saved {saved} s, MPD at {elapsed:.1f} s")
    w.saved = saved
    w.start_daemon()


def t_resume(w):
    """played again from the top, the episode resumes a little before the
    saved position, on its speed's output"""
    if not w.has_filter:
        w.play(w.url("talk"))
        check("; at" not in w.ok("status"), "a speed after default")
        return
    w.mpd.command("stop")
    w.play(w.url("talk"))
    wait_until(lambda: w.mpd.elapsed() >= w.saved - 6, 15, "the resume")
    elapsed = w.mpd.elapsed()
    check(elapsed <= w.saved + 5, f"resumed at {elapsed}, saved {w.saved}")
    check(w.enabled() == ["null at 1.5×"], w.outputs())


def t_music(w):
    """what is no episode plays on the plain output"""
    w.play(w.site.base + MUSIC)
    wait_until(lambda: w.enabled() == ["null"], 10, "the plain output")
    check("; at" not in w.ok("status"), "a speed for music")


def main():
    return run_tap([t_bad_values, t_setup, t_set, t_rate, t_saved,
                    t_resume, t_music], World,
                   bad_log=("CRITICAL", "WARNING"))


if __name__ == "__main__":
    sys.exit(main())
