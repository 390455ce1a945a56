#!/usr/bin/env python3
"""mpd-bridge's wake-up alarm end to end.

A private MPD that plays in real time (a null output with sync, and a
software mixer so that it has a volume), a loopback HTTP server of silent
WAV episodes, and the daemon. Alarms take seconds (`alarm HH:MM:SS`), so
one set a few seconds ahead rings while the test polls.

Prints TAP. Needs mpd (Debian's package) and MPD_BRIDGE; without them
every test fails. With ALARM_TEST_LOG=1 the daemon's log is printed at
the end, as TAP comments.
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "support"))
from mpdtest import Channel, wait_until  # noqa: E402
from bridgeworld import run_tap  # noqa: E402
from playworld import PlayWorld, check  # noqa: E402


# guid, title, seconds
EPISODES = [
    ("older", "Older one", 60),
    ("newest", "Newest one", 60),
]


class World(PlayWorld):
    def __init__(self):
        super().__init__("alarm", "Alarm Test", EPISODES, {"alarm_fade": 4})

    def state_file(self):
        return os.path.join(self.root, "state", "mpd-bridge", "state")

    def queue(self):
        return self.mpd.values("playlistinfo", "file")

    def current(self):
        songs = self.mpd.values("currentsong", "file")
        return songs[0] if songs else None


def clock(seconds_ahead):
    """The local wall-clock time a few seconds from now, as HH:MM:SS,
    and when that is (time.time() seconds)."""
    at = int(time.time()) + seconds_ahead
    return time.strftime("%H:%M:%S", time.localtime(at)), at


def t_bad_input(w):
    """alarm 25:00, alarm off x, alarm 7:00 latest: a usage error, exit 2,
    before the daemon is asked; the same on the channel"""
    for args, says in ((("25:00",), "an alarm's time is HH:MM"),
                       (("off", "x"), "alarm off takes the number"),
                       (("7:00", "latest"), "latest needs a FEED")):
        r = w.bridge("alarm", *args)
        check(r.returncode == 2 and says in r.stderr,
              f"alarm {' '.join(args)}: exit {r.returncode}: {r.stderr}")
    with Channel(w.mpd, "alarm-test-bad") as channel:
        answer = channel.send("alarm 7:61")
        check(answer[0].startswith("error an alarm's time is HH:MM"),
              answer)
    r = w.bridge("alarm", "7:00", "latest", "No Such Feed")
    check(r.returncode == 1 and "No Such Feed" in r.stderr, r.stderr)
    check(w.ok("alarm") == "no alarms", "an alarm was set")


def t_list_and_off(w):
    """alarm sets one, alarm list shows it, status names it, alarm off 1
    removes it"""
    answer = w.ok("alarm", "07:00", "weekdays", "latest", "Alarm Test")
    check(answer.startswith(
        "alarm 1: 07:00 weekdays, latest Alarm Test; next "), answer)
    with Channel(w.mpd, "alarm-test-reply") as channel:
        answer = channel.send("alarm 6:30:15 once continue")
        check(answer[0].startswith(
            "ok alarm 2: 06:30:15 once, continue; next "), answer)
    listed = w.ok("alarm", "list").splitlines()
    check(len(listed) == 2, listed)
    check(listed[0].startswith("1: 07:00 weekdays, latest Alarm Test"),
          listed)
    check(listed[1].startswith("2: 06:30:15 once, continue"), listed)
    check(w.ok("alarm") == "\n".join(listed), "alarm alone is not list")
    check("; next alarm " in w.ok("status"), "status names no alarm")
    answer = w.ok("alarm", "off", "1")
    check(answer.startswith("alarm 1 off: 07:00 weekdays"), answer)
    check(w.ok("alarm").startswith("1: 06:30:15 once, continue"),
          "not renumbered")
    r = w.bridge("alarm", "off", "2")
    check(r.returncode == 1 and "there is no alarm 2" in r.stderr,
          r.stderr)
    w.ok("alarm", "off", "1")
    check(w.ok("alarm") == "no alarms", "still set")
    check("next alarm" not in w.ok("status"), "status names an alarm")


def t_rings(w):
    """an alarm 3 s ahead appends the newest episode to what is queued,
    plays it, and raises the volume from low to where it was; a once
    alarm is gone after"""
    w.mpd.command("clear", f'add "{w.url("older")}"', "setvol 80")
    check(w.mpd.status().get("volume") == "80", w.mpd.status())
    when, at = clock(3)
    # The daemon shows HH:MM when the seconds are 0, as they are once a
    # minute.
    shown = when[:-3] if when.endswith(":00") else when
    answer = w.ok("alarm", when, "once", "latest", "Alarm Test")
    check(answer.startswith(f"alarm 1: {shown} once, latest Alarm Test"),
          answer)
    volumes = []

    def playing():
        status = w.mpd.status()
        if status.get("state") == "play" and "volume" in status:
            volumes.append(int(status["volume"]))
        return status.get("state") == "play" and \
            w.names(w.current(), "newest")
    wait_until(playing, 20, "the alarm to play the newest episode")
    late = time.time() - at
    check(late > -0.5, f"it rang {-late:.1f} s early")
    queue = w.queue()
    check(len(queue) == 2 and w.names(queue[0], "older") and
          w.names(queue[1], "newest"), f"the queue: {queue}")
    wait_until(lambda: playing() and volumes[-1] == 80, 20,
               "the volume to rise to 80")
    check(min(volumes) <= 40, f"volumes while playing: {volumes}")
    check(volumes == sorted(volumes), f"not rising: {volumes}")
    check("the alarm at " + shown + " plays latest Alarm Test" in w.log(),
          w.log())
    check(w.ok("alarm") == "no alarms", "a once alarm is left")
    w.mpd.command("stop")


def set_next(w, seconds):
    """Sets the first alarm's next time in the state file."""
    with open(w.state_file()) as f:
        text = f.read()
    text, n = re.subn(r"^1=([^;\n]*);([a-z]*);[0-9]+;", lambda m:
                      f"1={m.group(1)};{m.group(2)};{seconds};", text,
                      flags=re.M)
    check(n == 1, f"no alarm 1 in the state: {text}")
    with open(w.state_file(), "w") as f:
        f.write(text)


def t_restart_and_missed(w):
    """an alarm survives a restart; one an hour late when the daemon
    starts is logged and skipped, not played"""
    w.mpd.command("clear")
    answer = w.ok("alarm", "5:00", "daily", "new")
    check(answer.startswith("alarm 1: 05:00 daily, new; next "), answer)
    w.stop_daemon()
    w.start_daemon()
    check(w.ok("alarm").startswith("1: 05:00 daily, new; next "),
          "lost in a restart")
    w.stop_daemon()
    set_next(w, int(time.time()) - 3600)
    w.start_daemon()
    wait_until(lambda: "the alarm at 05:00 (new) was missed by 60 min"
               in w.log(), 20, "the missed alarm to be logged")
    check(w.mpd.status().get("state") == "stop", w.mpd.status())
    check(w.queue() == [], f"queued: {w.queue()}")
    listed = w.ok("alarm")
    check(listed.startswith("1: 05:00 daily, new; next "), listed)

    def moved_on():
        # The daemon saves shortly after a change, not at once.
        with open(w.state_file()) as f:
            nexts = re.findall(r"^1=05:00;daily;([0-9]+);new;?$",
                               f.read(), flags=re.M)
        return len(nexts) == 1 and int(nexts[0]) > time.time()
    wait_until(moved_on, 20, "the next time to be saved")
    w.ok("alarm", "off", "1")


def main():
    return run_tap([t_bad_input, t_list_and_off, t_rings,
                    t_restart_and_missed], World,
                   bad_log=("CRITICAL", "WARNING"))


if __name__ == "__main__":
    sys.exit(main())
