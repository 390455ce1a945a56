#!/usr/bin/env python3
"""MPD killed and restarted again and again while an episode plays.

A private MPD that plays in real time, a loopback server of a feed and
WAV episodes (with Range, so MPD can seek), and the daemon. Before the
loop some state is set through the channel: an episode listened, one
starred, one on play-later, one on a named list, the feed renamed. Then,
FAULTS_MPD_KILLS times (100 by default): MPD plays the long episode, is
killed (SIGKILL, one time in four SIGTERM) and started again; the test
measures how long after MPD answers again the daemon is back on its
channel, and what the daemon kept of the position.

Asserted:
- each reconnection takes at most 2 s from MPD's return (the figure: max
  and median, and from the kill);
- at each loss the daemon keeps the position MPD had (within 1.5 s), and
  the position never goes back by more than the 5 s a resume rewinds
  (plus 1.5 s), even when MPD comes back paused at a stale position
  from the state file it wrote when it last stopped cleanly;
- every tenth round the episode is queued afresh and started from the
  top, and the daemon resumes it 5 s before the kept position;
- the state set before the loop is there all along (asked every tenth
  round), in the state file once the daemon stops, and in MPD's stored
  playlists.

After the loop: a restart while the daemon checks a resume it made
(t_resume_check_restart), and a stale restore played on
(t_stale_restore).

Prints TAP. Standard library only. Needs mpd and MPD_BRIDGE. With
FAULTS_KEEP=1 the temporary directory (logs, state) is kept.
"""
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
import faults  # noqa: E402
from mpdtest import Mpd, quote, wait_until  # noqa: E402

BRIDGE = os.environ.get("MPD_BRIDGE")
KILLS = faults.scale("FAULTS_MPD_KILLS", 100)
RECONNECT_LIMIT = 2.0   # seconds from MPD's return to the daemon's
TOLERANCE = 1.5         # seconds between a kept position and MPD's
RESUME_BEFORE = 5       # seconds a resume goes back (tracker.c)
START_AT = 200          # where the long episode is first sought to
RESUME_CHECK = 1.7      # seconds: the daemon checks a resume after 1.5 s
# Seconds to wait for a resume to show in MPD's elapsed: the daemon seeks
# 0.4 s after the start, on MPD 0.24 again 1.5 s after a start that
# failed to seek, and a stream takes its time to start on a busy
# machine. Only the daemon gets MPD there: from the top it plays on at
# 1 s a second, far below the kept position.
RESUME_WAIT = 15
FEED = "Restart Test"
NAME = "Renamed Show"
LIST = "Road trip"
EPISODES = [("ep1", "The long one", 900), ("ep2", "Second", 20),
            ("ep3", "Third", 20), ("ep4", "Fourth", 20), ("ep5", "Fifth", 20)]


class World:
    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="bridge-faults-mpd-")
        self.server = faults.Server(FEED, EPISODES)
        self.mpd = Mpd(os.path.join(self.root, "mpd"))
        self.mpd.start()
        self.env = faults.daemon_env(self.root, self.mpd.socket)
        self.log_path = os.path.join(self.root, "daemon.log")
        self.daemon = subprocess.Popen(
            [BRIDGE, "run"], env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=open(self.log_path, "a"))
        self.client = None
        self.connect_client(10)

    def connect_client(self, timeout):
        """A new channel client, once the daemon is on its channel."""
        if self.client is not None:
            self.client.close()
            self.client = None

        def ready():
            try:
                self.client = faults.Client(self.mpd.socket, "faults-replies")
            except OSError:
                return False
            if self.client.subscribed("mpd-bridge"):
                return True
            self.client.close()
            self.client = None
            return False
        wait_until(ready, timeout, "the daemon on MPD's channel", step=0.005)

    def ask(self, command):
        answer = self.client.request(command, 10)
        check(answer is not None, f"no answer to {command!r}")
        return answer

    def episodes(self, *args):
        answer = self.ask(" ".join(("episodes",) + args + ("--json",)))
        check(answer.startswith("ok "), f"episodes: {answer}")
        # Answers are one line: the daemon turned newlines into ';'.
        return {e["guid"][len(faults.GUID):]: e for e in
                json.loads(answer[3:].replace(";", "\n"))}

    def url(self, guid):
        return self.server.url(f"/{guid}.wav")

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def restart_mpd(self, sig):
        """Kills MPD with @sig and starts it again; returns the monotonic
        times of the kill and of MPD's first answer."""
        killed = time.monotonic()
        self.mpd.process.send_signal(sig)
        self.mpd.process.wait(20)
        self.mpd.process = subprocess.Popen(
            [shutil.which("mpd"), "--no-daemon", "--stderr", self.mpd.conf],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.mpd.log, "a"))
        wait_until(self.mpd.alive, 10, "MPD to start again", step=0.005)
        return killed, time.monotonic()

    def close(self):
        try:
            if self.client is not None:
                self.client.close()
            if self.daemon.poll() is None:
                faults.stop(self.daemon)
        finally:
            try:
                self.mpd.stop()
            finally:
                self.server.close()
                if os.environ.get("FAULTS_KEEP"):
                    print(f"# kept {self.root}")
                else:
                    shutil.rmtree(self.root, ignore_errors=True)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def playing(w):
    s = w.mpd.status()
    return s.get("state") == "play" and "elapsed" in s and s


def set_up(w):
    answer = w.ask(f"subscribe {w.server.url('/feed.xml')}")
    check(answer.startswith("ok"), f"subscribe: {answer}")
    wait_until(lambda: len(w.episodes()) == len(EPISODES), 20,
               f"the {len(EPISODES)} episodes of {FEED}")
    g = faults.GUID
    for command in (f"mark listened {g}ep2", f"star {g}ep3",
                    f"later add {g}ep4", f"list-add {quote(LIST)} {g}ep5",
                    f"set {quote(FEED)} name {quote(NAME)}"):
        answer = w.ask(command)
        check(answer.startswith("ok"), f"{command}: {answer}")
    expect_kept(w, w.episodes())
    w.mpd.command("clear")
    song = w.mpd.values(f"addid {quote(w.url('ep1'))}", "Id")[0]
    w.mpd.command(f"playid {song}")
    wait_until(lambda: playing(w), 15, "MPD to play ep1")
    w.mpd.command(f"seekid {song} {START_AT}")
    wait_until(lambda: float(playing(w).get("elapsed", 0)) >= START_AT, 10,
               f"MPD to seek ep1 to {START_AT} s")


def expect_kept(w, episodes):
    """What set_up() set, as the daemon has it."""
    e = episodes
    check(e["ep2"]["state"] == "listened", f"ep2 is {e['ep2']['state']}")
    check(e["ep3"]["starred"], "ep3 lost its star")
    later = w.episodes("--state", "later")
    check(list(later) == ["ep4"], f"play-later holds {list(later)}")
    lists = w.ask("lists")
    check(f"{LIST}: 1 episode" in lists and "Fifth" in lists,
          f"lists: {lists}")
    feeds = w.ask("list")
    check(NAME in feeds, f"the feed is no longer named {NAME}: {feeds}")


def resume_afresh(w, kept):
    """Queues ep1 again and starts it from the top: the daemon must seek
    it to @kept less RESUME_BEFORE. Returns MPD's status after."""
    w.mpd.command("stop", "clear")
    song = w.mpd.values(f"addid {quote(w.url('ep1'))}", "Id")[0]
    w.mpd.command(f"playid {song}")
    target = kept - RESUME_BEFORE
    try:
        return wait_until(
            lambda: (s := playing(w)) and
            float(s["elapsed"]) >= target - TOLERANCE and s, RESUME_WAIT,
            f"the daemon to resume ep1 at {target} s", step=0.05)
    except AssertionError:
        raise AssertionError(f"ep1 kept at {kept} s and started from the "
                             f"top; MPD: {w.mpd.status()}") from None


def run_loop(w, out):
    rng = random.Random(20240607)
    kept_before = None
    how = "set-up"
    for i in range(KILLS):
        # Play on for a moment: MPD must be playing when it is killed.
        time.sleep(rng.uniform(0.1, 0.4))
        s = playing(w)
        check(s and s.get("songid"), f"round {i}: MPD does not play: "
              f"{w.mpd.status()}")
        elapsed = float(s["elapsed"])
        sig = signal.SIGTERM if rng.random() < 0.25 else signal.SIGKILL
        killed, back = w.restart_mpd(sig)
        w.connect_client(30)
        connected = time.monotonic()
        out["reconnect"].append(connected - back)
        out["total"].append(connected - killed)
        kept = w.episodes("--state", "in-progress")
        check("ep1" in kept, f"round {i}: ep1 is no longer in progress: "
              f"{w.episodes()['ep1']}")
        kept = kept["ep1"]["position"]
        s = w.mpd.status()
        out["positions"].append((i, sig.name, round(elapsed, 1), kept,
                                 how))
        # MPD comes back paused where its state file says, which it
        # writes on SIGTERM only; the daemon may take that for where the
        # listener is (t_stale_restore, a known fault). Until that is
        # fixed, it is counted apart.
        stale = s.get("state") == "pause" and \
            abs(kept - float(s["elapsed"])) <= TOLERANCE
        if abs(kept - elapsed) > TOLERANCE:
            if stale:
                out["stale"].append(i)
            else:
                out["lost"].append(
                    f"round {i} ({sig.name}): MPD was at {elapsed:.1f} s, "
                    f"the daemon kept {kept} s; rounds (n, signal, MPD, "
                    f"kept, started by): {out['positions'][-4:]}")
        if kept_before is not None and not stale and \
                kept < kept_before - RESUME_BEFORE - TOLERANCE:
            out["backwards"].append(f"round {i}: kept {kept} s after "
                                    f"{kept_before} s")
        kept_before = kept
        if i % 10 == 9:
            expect_kept(w, w.episodes())
        how = f"{s.get('state')} at {s.get('elapsed')}, "
        if i % 10 == 0 or not s.get("songid"):
            how += "afresh"
            resume_afresh(w, kept)
            # The daemon checks a resume 1.5 s on; a restart before then
            # is the case of t_resume_check_restart.
            time.sleep(RESUME_CHECK)
        else:
            # MPD restored its queue, paused: go on, as `mpc play` would.
            how += "play"
            w.mpd.command("play")
            wait_until(lambda: playing(w), 10, "MPD to play on")


def kept_position(w):
    kept = w.episodes("--state", "in-progress")
    check("ep1" in kept, f"ep1 is no longer in progress: "
          f"{w.episodes()['ep1']}")
    return kept["ep1"]["position"]


def t_resume_check_restart(w):
    """MPD restarted while the daemon checks a resume it made: the
    episode is not taken for one that cannot seek, and resumes after"""
    mark = len(w.log().splitlines())
    resume_afresh(w, kept_position(w))
    time.sleep(0.3)
    w.restart_mpd(signal.SIGKILL)
    w.connect_client(30)
    time.sleep(RESUME_CHECK)
    wrong = [line for line in w.log().splitlines()[mark:]
             if "cannot resume" in line]
    kept = kept_position(w)
    try:
        resume_afresh(w, kept)
    except AssertionError as e:
        wrong.append(str(e))
    check(not wrong, "; ".join(wrong))


def t_stale_restore(w):
    """MPD back from a state file written before the last minute of play
    (it writes it on SIGTERM, not on SIGKILL): playing on does not throw
    the kept position away"""
    w.restart_mpd(signal.SIGTERM)
    w.connect_client(30)
    s = w.mpd.status()
    check(s.get("state") == "pause", f"MPD did not restore ep1 paused: {s}")
    stale = float(s["elapsed"])
    w.mpd.command("play")

    # Right after play MPD may not know yet that the stream can seek.
    def seek():
        try:
            w.mpd.command(f"seekcur {stale + 60:.0f}")
            return True
        except Exception:  # noqa: BLE001 - MPD's ACK, tried again
            return False
    wait_until(seek, 10, f"MPD to take a seek to {stale + 60:.0f} s")
    wait_until(lambda: float(playing(w).get("elapsed", 0)) >= stale + 60,
               10, f"MPD to seek ep1 to {stale + 60:.0f} s")
    time.sleep(1)
    elapsed = float(playing(w)["elapsed"])
    w.restart_mpd(signal.SIGKILL)
    w.connect_client(30)
    kept = kept_position(w)
    check(abs(kept - elapsed) <= TOLERANCE,
          f"MPD was at {elapsed:.1f} s, the daemon kept {kept} s")
    s = w.mpd.status()
    w.mpd.command("play")
    # MPD plays on from its stale restore; the daemon resumes 1.4 s on.
    # A stop before the daemon has seen its resume land would test
    # nothing but the machine's speed: wait for MPD to play half a second
    # past the resume's target, or give up after RESUME_WAIT (with no
    # resume). What is kept is checked the same either way.
    try:
        wait_until(lambda: (p := playing(w)) and float(p["elapsed"]) >=
                   kept - RESUME_BEFORE + 0.5, RESUME_WAIT,
                   "the daemon to resume ep1", step=0.05)
    except AssertionError:
        pass
    s2 = w.mpd.status("stop")
    after = kept_position(w)
    check(after >= kept - RESUME_BEFORE - TOLERANCE,
          f"killed at {elapsed:.1f} s, MPD came back {s.get('state')} at "
          f"{s.get('elapsed')} s (its state file of {stale:.1f} s); played "
          f"on to {s2.get('elapsed')} s, the kept position fell from "
          f"{kept} s to {after} s")


# Cases run after the loop, each a test of its own.
AFTER = [t_resume_check_restart, t_stale_restore]


def main():
    tests = ["set-up: subscribed; listened, starred, play-later, a list "
             "and a name set through the channel",
             f"{KILLS} MPD restarts during playback: the daemon is back "
             f"within {RECONNECT_LIMIT:g} s of MPD every time",
             "at each loss the daemon keeps MPD's position (± "
             f"{TOLERANCE:g} s), never going back more than a resume's "
             f"{RESUME_BEFORE} s",
             "what was set before the loop is kept: by the daemon, in the "
             "state file after it stops, in MPD's stored playlists"]
    tests += [" ".join(t.__doc__.split()) for t in AFTER]
    print(f"1..{len(tests)}")
    if not BRIDGE:
        for n, name in enumerate(tests, 1):
            print(f"not ok {n} - {name} # MPD_BRIDGE is not set")
        return 1
    results = []
    out = {"reconnect": [], "total": [], "positions": [], "lost": [],
           "backwards": [], "stale": []}
    w = None
    after = []
    try:
        w = World()
        set_up(w)
        results.append((True, []))
        loop_error = None
        try:
            run_loop(w, out)
        except (AssertionError, OSError, RuntimeError) as e:
            loop_error = f"the loop stopped after {len(out['total'])} " \
                f"restarts: {e}"
        slow = [f"restart {n}: {t:.3f} s" for n, t in
                enumerate(out["reconnect"]) if t > RECONNECT_LIMIT]
        notes = []
        if out["reconnect"]:
            r, t = out["reconnect"], out["total"]
            notes.append(f"{len(r)} restarts ({sum(1 for p in out['positions'] if p[1] == 'SIGTERM')} "
                         f"by SIGTERM); from MPD's return: max "
                         f"{max(r):.3f} s, median {statistics.median(r):.3f}"
                         f" s; from the kill: max {max(t):.3f} s, median "
                         f"{statistics.median(t):.3f} s")
        if loop_error:
            slow.append(loop_error)
        results.append((not slow and len(out["reconnect"]) == KILLS,
                        slow + notes))
        bad = out["lost"] + out["backwards"]
        if loop_error:
            bad.append(loop_error)
        first, last = (out["positions"][0], out["positions"][-1]) \
            if out["positions"] else (None, None)
        notes = [f"positions kept: first {first}, last {last}"]
        if out["stale"]:
            bad.append(f"in rounds {out['stale']} the daemon kept MPD's "
                       "stale restored position")
        results.append((not bad, bad + notes))
        final = final_check
        for t in AFTER:
            try:
                t(w)
                after.append((True, []))
            except (AssertionError, OSError, RuntimeError) as e:
                after.append((False, str(e).splitlines()))
            if not playing(w):
                resume_afresh(w, kept_position(w))
                time.sleep(RESUME_CHECK)
        results.append(final(w))
        results += after
    except (AssertionError, OSError, RuntimeError) as e:
        results += [(False, [str(e)])] * (len(tests) - len(results))
    finally:
        if w is not None:
            log = w.log()
            if "CRITICAL" in log:
                results.append((False, [line for line in log.splitlines()
                                        if "CRITICAL" in line]))
                tests.append("the daemon logged no critical")
            w.close()
    failed = 0
    for n, (name, (ok, notes)) in enumerate(zip(tests, results), 1):
        print(f"{'ok' if ok else 'not ok'} {n} - {name}")
        for note in notes[:20]:
            print(f"# {note}")
        failed += not ok
    return 1 if failed else 0


def final_check(w):
    """After the loop: the daemon stops (SIGTERM), and the file holds it."""
    try:
        w.mpd.command("stop")
        expect_kept(w, w.episodes())
        w.client.close()
        w.client = None
        code = faults.stop(w.daemon)
        check(code == 0, f"the daemon exited with {code} on SIGTERM")
        groups = faults.read_state(faults.state_path(w.root))
        by_guid = {g["guid"][len(faults.GUID):]: (name.split(" ", 1)[1], g)
                   for name, g in groups.items()
                   if name.startswith("episode ")}
        check(by_guid["ep2"][1].get("listened") == "true",
              f"ep2 in the file: {by_guid['ep2'][1]}")
        check(by_guid["ep3"][1].get("starred") == "true",
              f"ep3 in the file: {by_guid['ep3'][1]}")
        later = [faults.list_entries(g) for name, g in groups.items()
                 if name == "list later"]
        check(later == [[by_guid["ep4"][0]]], f"play-later: {later}")
        named = [faults.list_entries(g) for name, g in groups.items()
                 if name.startswith("list ") and
                 faults.unescape(g.get("name", "")) == LIST]
        check(named == [[by_guid["ep5"][0]]], f"{LIST}: {named}")
        names = [faults.unescape(g.get("name", "")) for name, g in
                 groups.items() if name.startswith("feed ")]
        check(names == [NAME], f"feed names: {names}")
        for playlist, guid in (("Podcasts: Starred", "ep3"),
                               ("Podcasts: Play later", "ep4"),
                               (f"Podcast list: {LIST}", "ep5")):
            files = w.mpd.values(f"listplaylist {quote(playlist)}", "file")
            check(files == [w.url(guid)], f"{playlist}: {files}")
        check(w.mpd.values(f"listplaylist {quote('Podcast: ' + NAME)}",
                           "file"), f"no playlist Podcast: {NAME}")
        return True, []
    except (AssertionError, OSError, RuntimeError, KeyError) as e:
        return False, [f"{type(e).__name__}: {e}"]


if __name__ == "__main__":
    sys.exit(main())
