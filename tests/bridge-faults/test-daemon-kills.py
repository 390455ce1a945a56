#!/usr/bin/env python3
"""The daemon SIGKILLed again and again, at random moments, mostly while
it saves.

A private MPD (the daemon's channel) and a state of many episodes (20,000
by default), so that a save takes tens of milliseconds. Each round starts
the daemon, sends it changes through the channel one after another
(mark listened/unlistened, star/unstar, later add/remove, list-add and
list-remove, set FEED name), each of one to three episodes, and SIGKILLs
it at a random moment: one round in ten while it starts (reading the
state), the others 0 to 250 ms into the changes. The daemon saves before
it answers, so an "ok" is an acknowledged change.

Asserted after every kill:
- the state file loads: the next round's daemon starts on it, and every
  25th round `mpd-bridge list` exits 0 on it;
- it holds every acknowledged change (and, for a change whose answer did
  not come, either the old or the new value);
- at the end `mpd-bridge episodes --json` and `mpd-bridge lists` agree
  with the file as this test reads it.

A kill while the daemon writes its temporary file (STATE.saving-XXXXXX,
or STATE.journal.saving-XXXXXX as a save keeps the journal's newest
lines) leaves that file behind: the test counts them (the kills that landed
inside a save) and checks that the next daemon removed them as it took
the lock.

Prints TAP. Standard library only. Needs mpd and MPD_BRIDGE.
Usage: test-daemon-kills.py [--kills N] [--episodes N] [--seed N]
The number of kills defaults to FAULTS_DAEMON_KILLS, else 1000. With
FAULTS_KEEP=1 the temporary directory is kept.
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
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
FEEDS = 20
LIST = "Fault list"
STARTUP_KILLS = 0.1   # the share of rounds killed while starting
WINDOW = 0.25         # seconds of changes before the kill, at most
POOL = 40             # episodes for each kind of change


class Model:
    """What the state must hold: key -> value, where a key is
    ("listened"|"starred"|"later"|"list", guid) or ("name", feed url).
    An unanswered change leaves its keys open: either value will do, and
    the file then says which."""

    def __init__(self, layout):
        self.expected = {}
        self.open = {}   # key -> (old, new)
        self.acked = 0
        self.unanswered = 0
        self.checked = 0
        self.episodes = sum(len(guids) for guids in layout.values())
        # POOL episodes for each kind of change, spread over the feeds.
        # Pools never meet: marking an episode listened takes it off
        # play-later. Episodes for the lists are among the unlistened.
        self.pools = {"listened": [], "starred": [], "later": [], "list": []}
        self.eid = {}
        self.initial = {}
        for n in range(POOL):
            for kind, e in (("listened", 2 * n), ("starred", 2 * n + 1),
                            ("later", -2), ("list", -1)):
                fid = list(layout)[n % len(layout)]
                guids = layout[fid]
                guid = guids[e if e >= 0 else len(guids) + e - 2 * (
                    n // len(layout))]
                self.pools[kind].append(guid)
                self.eid[guid] = faults.short_hash(f"{fid}\n{guid}")
                listened = guids.index(guid) < len(guids) - 20
                self.initial[(kind, guid)] = \
                    listened if kind == "listened" else False
        for f in range(FEEDS):
            self.initial[("name", faults.feed_url(f))] = None

    def keys(self):
        return self.initial.keys()

    def change(self, rng, serial):
        """A random change: (command, {key: new value})."""
        kind = rng.choice(["listened", "starred", "later", "list", "name"])
        if kind == "name":
            f = rng.randrange(FEEDS)
            name = f"Name {serial}"
            return (f"set {quote(faults.feed_url(f))} name {quote(name)}",
                    {("name", faults.feed_url(f)): name})
        guids = rng.sample(self.pools[kind], rng.randint(1, 3))
        on = rng.random() < 0.5
        words = {"listened": ("mark listened", "mark unlistened"),
                 "starred": ("star", "unstar"),
                 "later": ("later add", "later remove"),
                 "list": (f"list-add {quote(LIST)}",
                          f"list-remove {quote(LIST)}")}[kind]
        command = (words[0] if on else words[1]) + " " + " ".join(guids)
        return command, {(kind, g): on for g in guids}


def read_file(path, model):
    """The values of the model's keys in the state file at @path and the
    episode caches beside it."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    groups = {}
    for chunk in text.split("\n["):
        end = chunk.find("]\n")
        if end >= 0:
            groups[chunk[:end]] = chunk[end + 2:]
    for name in [g for g in groups if g.startswith("feed ")]:
        for eid in faults.read_cache(path, name[5:]) or {}:
            groups.setdefault("episode " + eid, "")
        feed = dict(line.split("=", 1) for line in groups[name].splitlines()
                    if "=" in line and not line.startswith("#"))
        for eid in faults.heard_records(feed):
            groups["episode " + eid] = "listened=true\n"
    n = sum(1 for name in groups if name.startswith("episode "))
    check(n == model.episodes, f"the file and its caches have {n} "
          f"episodes, not {model.episodes}")

    def fields(name):
        body = groups.get(name)
        check(body is not None, f"[{name}] is gone")
        return dict(line.split("=", 1) for line in body.splitlines()
                    if "=" in line and not line.startswith("#"))
    lists = {}
    for name in groups:
        if name == "list later":
            lists["later"] = set(faults.list_entries(fields(name)))
        elif name.startswith("list ") and \
                faults.unescape(fields(name).get("name", "")) == LIST:
            lists["list"] = set(faults.list_entries(fields(name)))
    state = {}
    for kind, key in model.keys():
        if kind == "name":
            name = fields(f"feed {faults.short_hash(key)}").get("name")
            state[(kind, key)] = faults.unescape(name) if name else None
        elif kind in ("listened", "starred"):
            value = fields(f"episode {model.eid[key]}").get(kind)
            state[(kind, key)] = value == "true"
        else:
            state[(kind, key)] = model.eid[key] in lists.get(kind, ())
    return state


class World:
    def __init__(self, episodes):
        self.root = tempfile.mkdtemp(prefix="bridge-faults-kill-")
        self.mpd = Mpd(os.path.join(self.root, "mpd"))
        self.mpd.start()
        self.env = faults.daemon_env(self.root, self.mpd.socket)
        # Under ASan, the slow unwinder on each malloc makes reading this
        # state 14 times slower (10 s). The daemon here always dies by
        # SIGKILL, so LeakSanitizer never runs in it; in the command line
        # it still does, with stacks of the fast unwinder.
        if "ASAN_OPTIONS" in self.env:
            self.env["ASAN_OPTIONS"] += ":fast_unwind_on_malloc=1"
        self.state = faults.state_path(self.root)
        self.layout = faults.write_state(self.state, FEEDS, episodes)
        self.log_path = os.path.join(self.root, "daemon.log")
        self.client = faults.Client(self.mpd.socket, "kill-replies")
        self.daemon = None

    def start_daemon(self):
        self.daemon = subprocess.Popen(
            [BRIDGE, "run"], env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=open(self.log_path, "a"))

    def kill_daemon(self):
        self.daemon.send_signal(signal.SIGKILL)
        self.daemon.wait(20)
        self.daemon = None

    def wait_channel(self, timeout=60):
        """Until the daemon is on its channel; raises if it exits."""
        deadline = time.monotonic() + timeout
        while not self.client.subscribed("mpd-bridge"):
            code = self.daemon.poll()
            if code is not None:
                raise AssertionError(
                    f"the daemon exited with {code} before it was on its "
                    f"channel: {self.log_tail()}")
            if time.monotonic() > deadline:
                raise AssertionError("the daemon is not on its channel "
                                     f"after {timeout} s")
            time.sleep(0.002)

    def bridge(self, *args):
        return subprocess.run([BRIDGE, *args], capture_output=True,
                              text=True, env=self.env, timeout=120)

    def log_tail(self, n=5):
        with open(self.log_path, errors="replace") as f:
            return " | ".join(f.read().splitlines()[-n:])

    def leftovers(self):
        """Temporary files of saves that a kill interrupted."""
        directory = os.path.dirname(self.state)
        base = os.path.basename(self.state)
        return [os.path.join(directory, name)
                for name in os.listdir(directory)
                if re.fullmatch(re.escape(base) +
                                r"(\.journal)?\.saving-[A-Za-z0-9]{6}",
                                name)]

    def close(self):
        try:
            if self.daemon is not None and self.daemon.poll() is None:
                self.kill_daemon()
            self.client.close()
        finally:
            self.mpd.stop()
            if os.environ.get("FAULTS_KEEP"):
                print(f"# kept {self.root}")
            else:
                shutil.rmtree(self.root, ignore_errors=True)


def one_round(w, model, rng, serial, stats):
    """Starts the daemon, changes things, kills it; returns the changes
    sent as (command, keys, answer or None)."""
    sent = []
    w.start_daemon()
    if rng.random() < STARTUP_KILLS:
        time.sleep(rng.uniform(0, stats.get("startup", 0.3)))
        w.kill_daemon()
        stats["startup kills"] += 1
        return sent
    began = time.monotonic()
    w.wait_channel()
    stats["startup"] = max(stats.get("startup", 0),
                           time.monotonic() - began)
    # The daemon holds the lock now: what killed saves left is gone.
    stats["left behind"] += len(w.leftovers())
    # A few changes' time: slower builds get a longer window.
    latency = stats["latency"]
    window = max(WINDOW, 4 * sorted(latency)[len(latency) // 2]
                 if len(latency) >= 5 else WINDOW)
    deadline = time.monotonic() + rng.uniform(0, window)
    pending = None
    while True:
        if pending is None:
            command, keys = model.change(rng, f"{serial}.{len(sent)}")
            pending = [command, keys, None]
            sent.append(pending)
            w.client.send(command)
            sent_at = time.monotonic()
        left = deadline - time.monotonic()
        if left <= 0:
            break
        got = w.client.wait_messages(left)
        if got:
            check(len(got) == 1, f"answers {got} to one request")
            pending[2] = got[0]
            pending = None
            latency.append(time.monotonic() - sent_at)
            del latency[:-50]
    w.kill_daemon()
    # Answers sent before the kill are in MPD: acknowledged too.
    got = w.client.messages()
    if got and pending is not None:
        pending[2] = got.pop(0)
    check(not got, f"answers to nothing: {got}")
    return sent


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def verify(w, model, sent, before):
    """The file against the model, after a round's changes @sent."""
    state = read_file(w.state, model)
    problems = []
    for command, keys, answer in sent:
        if answer is not None:
            check(answer.startswith("ok"), f"{command}: {answer}")
            model.acked += 1
            for key, value in keys.items():
                model.expected[key] = value
                model.open.pop(key, None)
        else:
            model.unanswered += 1
            for key, value in keys.items():
                model.open[key] = (model.expected.get(key, before[key]),
                                   value)
    for key, value in model.expected.items():
        if key in model.open:
            continue
        model.checked += 1
        if state[key] != value:
            problems.append(f"{key}: acknowledged {value!r}, the file has "
                            f"{state[key]!r}")
    for key, (old, new) in model.open.items():
        if state[key] not in (old, new):
            problems.append(f"{key}: {old!r} or {new!r} (unanswered), the "
                            f"file has {state[key]!r}")
        model.expected[key] = state[key]
    model.open.clear()
    return state, problems


def cross_check(w, model, state):
    """The command line reads the file as this test does."""
    r = w.bridge("episodes", "--json")
    check(r.returncode == 0, f"episodes --json: {r.returncode} {r.stderr}")
    by_guid = {e["guid"]: e for e in json.loads(r.stdout)}
    for (kind, guid), value in state.items():
        if kind == "listened":
            check((by_guid[guid]["state"] == "listened") == value,
                  f"{guid}: the file says listened={value}, episodes "
                  f"--json {by_guid[guid]['state']}")
        elif kind == "starred":
            check(by_guid[guid]["starred"] == value,
                  f"{guid}: starred={value} in the file, not in episodes")
    r = w.bridge("episodes", "--state", "later", "--json")
    check(r.returncode == 0, f"episodes --state later: {r.stderr}")
    later = {e["guid"] for e in json.loads(r.stdout)}
    want = {guid for (kind, guid), v in state.items()
            if kind == "later" and v}
    check(later == want, f"play-later: episodes says {sorted(later)}, the "
          f"file {sorted(want)}")
    r = w.bridge("list", "--json")
    check(r.returncode == 0, f"list --json: {r.stderr}")
    names = {f["url"]: f.get("name") for f in json.loads(r.stdout)}
    for (kind, url), value in state.items():
        if kind == "name":
            check(names.get(url) == value, f"{url}: named {names.get(url)!r}"
                  f" by list --json, {value!r} in the file")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kills", type=int,
                    default=faults.scale("FAULTS_DAEMON_KILLS", 1000))
    ap.add_argument("--episodes", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1000)
    args = ap.parse_args()
    tests = [f"{args.kills} SIGKILLs: the state file loads after each",
             "it holds every acknowledged change after each kill",
             "the command line reads the last file as the test does"]
    print(f"1..{len(tests)}")
    if not BRIDGE:
        for n, name in enumerate(tests, 1):
            print(f"not ok {n} - {name} # MPD_BRIDGE is not set")
        return 1
    rng = random.Random(args.seed)
    stats = {"startup kills": 0, "mid-save": 0, "left behind": 0,
             "loads": 0, "latency": []}
    results = [(False, []), (False, []), (False, [])]
    w = None
    began = time.monotonic()
    kills = 0
    try:
        w = World(args.episodes)
        model = Model(w.layout)
        # An episode of no pool keeps the named list there.
        anchor = w.layout[list(w.layout)[0]][-5]
        r = w.bridge("list-add", LIST, anchor)
        check(r.returncode == 0, f"list-add: {r.stderr}")
        state = read_file(w.state, model)
        save_ms = []
        problems = []
        for serial in range(args.kills):
            sent = one_round(w, model, rng, serial, stats)
            kills += 1
            left = w.leftovers()
            if left:
                stats["mid-save"] += 1
            state, found = verify(w, model, sent, state)
            problems += [f"kill {serial}: {p}" for p in found]
            if serial % 25 == 24 or serial == args.kills - 1:
                r = w.bridge("list")
                check(r.returncode == 0, f"kill {serial}: list exits "
                      f"{r.returncode}: {r.stderr.strip()}")
                stats["loads"] += 1
            if len(problems) > 20:
                break
        # The next daemon would start on it: that is the last load.
        w.start_daemon()
        w.wait_channel()
        w.kill_daemon()
        if stats["left behind"]:
            problems.append(f"{stats['left behind']} temporary files of "
                            "killed saves were still there once a daemon "
                            "had started")
        results[0] = (kills == args.kills, [
            f"{kills} kills in {time.monotonic() - began:.0f} s: "
            f"{stats['startup kills']} while starting, "
            f"{stats['mid-save']} left a temporary file (killed inside a "
            f"save); every start loaded the file, and {stats['loads']} "
            f"runs of mpd-bridge list did", f"slowest start on the "
            f"channel: {stats.get('startup', 0):.3f} s"])
        results[1] = (not problems, problems[:20] + [
            f"{model.acked} changes acknowledged, {model.unanswered} "
            f"unanswered; {model.checked} checks of an acknowledged value"])
        try:
            cross_check(w, model, state)
            results[2] = (True, [])
        except (AssertionError, KeyError) as e:
            results[2] = (False, [str(e)])
    except (AssertionError, OSError, RuntimeError) as e:
        results = [(False, [f"after {kills} kills: {e}"])] * len(tests)
    finally:
        if w is not None:
            w.close()
    failed = 0
    for n, (name, (ok, notes)) in enumerate(zip(tests, results), 1):
        print(f"{'ok' if ok else 'not ok'} {n} - {name}")
        for note in notes:
            for line in str(note).splitlines():
                print(f"# {line}")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
