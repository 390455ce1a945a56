#!/usr/bin/env python3
"""A full disk and a read-only state directory, on real file systems.

The test runs in a mount namespace of its own (it starts itself again
under `unshare --mount`), so that it can mount a 64 KiB tmpfs for the
state directory (a full disk: a file fills the rest) and bind it read-only
(a read-only directory), and nothing of it outlives the test. It needs
root for that, as the test suite runs here. Root ignores a directory's
mode 0500, so a directory that is only not writable is tried as the user
nobody (setpriv).

Asserted, for the command line with no daemon (it edits the state
itself): it exits 1 with a message that names the state file, says why
and what to do; the old state file is byte for byte what it was, and no
temporary file is left. For the daemon: a change through the channel is
answered with such an error (an "ok" would claim it saved), the daemon
keeps running with the change in memory, and saves it by itself once the
disk has room or the directory is writable again; stopped while it
cannot save, it says so and exits 1, the old file intact.

Prints TAP. Standard library only. Needs mpd, MPD_BRIDGE, unshare and
setpriv (util-linux), and root. With FAULTS_KEEP=1 the temporary
directory is kept.
"""
import errno
import hashlib
import json
import os
import pwd
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
from mpdtest import Mpd, wait_until  # noqa: E402

BRIDGE = os.environ.get("MPD_BRIDGE")
RETRY = 10          # seconds between the daemon's tries to save
TMPFS_SIZE = "64k"


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def run(*argv, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, timeout=60,
                          **kwargs)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class World:
    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="bridge-faults-disk-")
        os.chmod(self.root, 0o755)   # for the user nobody
        self.mpd = Mpd(os.path.join(self.root, "mpd"))
        self.mpd.start()
        self.env = faults.daemon_env(self.root, self.mpd.socket)
        self.state = faults.state_path(self.root)
        self.dir = os.path.dirname(self.state)
        os.makedirs(self.dir)
        for d in ("state", "config", os.path.join("config", "mpd-bridge")):
            os.chmod(os.path.join(self.root, d), 0o755)
        self.mounts = []
        self.daemon = None
        self.log_path = os.path.join(self.root, "daemon.log")
        self.layout = None

    def mount(self, *args):
        r = run("mount", *args)
        check(r.returncode == 0, f"mount {' '.join(args)}: {r.stderr}")
        if "remount" not in " ".join(args):
            self.mounts.append(args[-1])

    def umount(self, path):
        r = run("umount", path)
        check(r.returncode == 0, f"umount {path}: {r.stderr}")
        self.mounts.remove(path)

    def fresh_state(self):
        """A small state in a fresh 64 KiB tmpfs; returns its digest."""
        while self.mounts:
            self.umount(self.mounts[-1])
        for name in os.listdir(self.dir):
            path = os.path.join(self.dir, name)
            if os.path.isdir(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        self.mount("-t", "tmpfs", "-o", f"size={TMPFS_SIZE},mode=0700",
                   "tmpfs", self.dir)
        self.layout = faults.write_state(self.state, 2, 20)
        os.chmod(self.state, 0o600)
        return digest(self.state)

    def guid(self, f, e):
        return self.layout[list(self.layout)[f]][e]

    def fill(self):
        """Fills the tmpfs; returns the filler's path."""
        filler = os.path.join(self.dir, "filler")
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            while os.write(fd, b"\0" * 1024) > 0:
                pass
        except OSError as e:
            check(e.errno == errno.ENOSPC, f"filling {filler}: {e}")
        finally:
            os.close(fd)
        return filler

    def read_only(self):
        """Binds the state directory read-only over itself."""
        self.mount("--bind", self.dir, self.dir)
        self.mount("-o", "remount,bind,ro", self.dir)

    def bridge(self, *args, user=None):
        argv = [BRIDGE, *args]
        env = self.env
        if user is not None:
            # The build may sit where the user cannot read it (a clone in
            # a mode-0700 mktemp directory): run copies from our root.
            argv[0], env = self.readable_bridge()
            argv = ["setpriv", f"--reuid={user}", f"--regid={user_gid(user)}",
                    "--clear-groups", "--"] + argv
        return run(*argv, env=env)

    def readable_bridge(self):
        bin_dir = os.path.join(self.root, "bin")
        if not os.path.isdir(bin_dir):
            os.mkdir(bin_dir, 0o755)
            shutil.copy(BRIDGE, bin_dir)
            for d in self.env.get("LD_LIBRARY_PATH", "").split(":"):
                for name in os.listdir(d) if os.path.isdir(d) else []:
                    if name.startswith("libfeed.so") and \
                            not name.endswith(".p"):
                        shutil.copy(os.path.join(d, name), bin_dir)
        env = dict(self.env, LD_LIBRARY_PATH=bin_dir)
        return os.path.join(bin_dir, os.path.basename(BRIDGE)), env

    def leftovers(self):
        """What a save cut short left: files beside the state, and in
        its directory of caches, that are none of the state's own."""
        base = os.path.basename(self.state) + "."
        caches = self.state + ".cache"
        own = (base + "lock", base + "cache", base + "v1")
        return [n for n in os.listdir(self.dir) if n.startswith(base) and
                n not in own] + \
            [n for n in (os.listdir(caches) if os.path.isdir(caches)
                         else []) if "." in n]

    def start_daemon(self):
        self.daemon = subprocess.Popen(
            [BRIDGE, "run"], env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=open(self.log_path, "a"))
        self.client = faults.Client(self.mpd.socket, "disk-replies")
        wait_until(lambda: self.client.subscribed("mpd-bridge"), 20,
                   "the daemon on its channel", step=0.01)

    def ask(self, command):
        answer = self.client.request(command, 20)
        check(answer is not None, f"no answer to {command!r}")
        return answer

    def stop_daemon(self):
        code = faults.stop(self.daemon)
        self.daemon = None
        self.client.close()
        return code

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def close(self):
        try:
            if self.daemon is not None:
                self.daemon.kill()
                self.daemon.wait(10)
            self.mpd.stop()
        finally:
            while self.mounts:
                run("umount", self.mounts.pop())
            if os.environ.get("FAULTS_KEEP"):
                print(f"# kept {self.root}")
            else:
                shutil.rmtree(self.root, ignore_errors=True)


def user_gid(user):
    return pwd.getpwnam(user).pw_gid


def expect_refused(w, r, before, words, what):
    """A command line that could not save: exit 1, a message naming the
    state file with @words, the file as it was, nothing left over."""
    print(f"# {what}: exit {r.returncode}: {r.stderr.strip()}")
    check(r.returncode == 1, f"{what}: exit {r.returncode}, not 1: "
          f"{r.stdout} {r.stderr}")
    check(w.state in r.stderr, f"{what}: the message does not name "
          f"{w.state}: {r.stderr}")
    for word in words:
        check(word in r.stderr, f"{what}: no {word!r} in {r.stderr!r}")
    check(digest(w.state) == before, f"{what}: the state file changed")
    check(not w.leftovers(), f"{what}: left {w.leftovers()}")


def t_read_only_cli(w):
    """read-only state directory (a read-only bind mount, which binds root
    too): the command line exits 1, says so and what to do; the old file
    is intact"""
    before = w.fresh_state()
    w.read_only()
    r = w.bridge("star", w.guid(0, 1))
    expect_refused(w, r, before, ["Read-only file system", "make it "
                                  "writable", "state_file"], "star")


def t_not_writable_cli(w):
    """a directory of mode 0500 (as the user nobody: root ignores it):
    exits 1 with "make DIR writable for user nobody", whether the lock
    file is there or not; the old file is intact"""
    before = w.fresh_state()
    # Premise: root writes in a 0500 directory; nobody cannot.
    os.chmod(w.dir, 0o500)
    probe = os.path.join(w.dir, "probe")
    open(probe, "w").close()
    os.unlink(probe)
    for name in (w.state, w.dir, os.path.dirname(w.dir)):
        os.chown(name, pwd.getpwnam("nobody").pw_uid, user_gid("nobody"))
    words = ["Permission denied", f"make {w.dir} writable for user nobody"]
    # No lock file: the lock cannot be taken.
    r = w.bridge("star", w.guid(0, 1), user="nobody")
    expect_refused(w, r, before, words, "star, no lock file")
    # The lock file is there: the save is what fails.
    os.chmod(w.dir, 0o700)
    lock = w.state + ".lock"
    open(lock, "w").close()
    os.chown(lock, pwd.getpwnam("nobody").pw_uid, user_gid("nobody"))
    os.chmod(w.dir, 0o500)
    r = w.bridge("star", w.guid(0, 1), user="nobody")
    expect_refused(w, r, before, words + ["cannot save"], "star, locked")
    os.chmod(w.dir, 0o700)


def t_full_cli(w):
    """full disk (a 64 KiB tmpfs filled up): the command line exits 1,
    says so and what to do; the old file is intact"""
    before = w.fresh_state()
    w.fill()
    r = w.bridge("later", "add", w.guid(1, 9))
    expect_refused(w, r, before, ["No space left on device",
                                  "free some space"], "later add")


def wait_saved(w, predicate, what):
    """Waits up to two retries for the file to hold @predicate."""
    def holds():
        try:
            return predicate(faults.read_state(w.state))
        except (OSError, UnicodeDecodeError):
            return False
    wait_until(holds, 2 * RETRY + 5, what, step=0.25)


def episode_group(groups, guid):
    return next(g for name, g in groups.items()
                if name.startswith("episode ") and g.get("guid") == guid)


def expect_unsaved(w, command, before, words):
    answer = w.ask(command)
    print(f"# {command}: {answer}")
    check(answer.startswith("error ") and w.state in answer and
          all(word in answer for word in words),
          f"{command}: answered {answer!r}")
    check(w.daemon.poll() is None, "the daemon exited")
    check(digest(w.state) == before, "the state file changed")
    check(not w.leftovers(), f"left {w.leftovers()}")


def in_memory(w, guid):
    answer = w.ask("episodes --state starred --json")
    check(answer.startswith("ok "), f"episodes: {answer}")
    return next(e for e in json.loads(answer[3:].replace(";", "\n"))
                if e["guid"] == guid)


def t_full_daemon(w):
    """full disk under the daemon: changes are answered with the error,
    kept in memory, and saved by the daemon once there is room"""
    before = w.fresh_state()
    filler = w.fill()
    w.start_daemon()
    starred, later = w.guid(0, 2), w.guid(1, 8)
    expect_unsaved(w, f"star {starred}", before,
                   ["No space left on device", "free some space",
                    "not saved yet"])
    expect_unsaved(w, f"later add {later}", before,
                   ["No space left on device"])
    # Through the command line too: it goes to the daemon.
    r = w.bridge("star", w.guid(0, 3))
    check(r.returncode == 1 and "No space left on device" in r.stderr,
          f"star through the daemon: exit {r.returncode}: {r.stderr}")
    check(in_memory(w, starred)["starred"],
          "the daemon forgot the star it could not save")
    check(w.ask("ping").startswith("ok"), "ping fails while the disk is full")
    time.sleep(RETRY + 1)
    check(w.daemon.poll() is None, "the daemon exited")
    check(digest(w.state) == before, "the state file changed while full")
    os.unlink(filler)
    began = time.monotonic()

    def saved(groups):
        return episode_group(groups, starred).get("starred") == "true" and \
            episode_group(groups, w.guid(0, 3)).get("starred") == "true" \
            and any(name == "list later" for name in groups)
    wait_saved(w, saved, "the daemon to save once there is room")
    print(f"# saved {time.monotonic() - began:.1f} s after the disk had "
          "room again")
    check("after all" in w.log(), "the daemon did not say it saved")
    answer = w.ask(f"star {w.guid(1, 7)}")
    check(answer.startswith("ok"), f"with room again: {answer}")
    check(w.stop_daemon() == 0, "the daemon did not stop cleanly")


def t_read_only_daemon(w):
    """the state directory turns read-only under the daemon: the change
    is answered with the error, and saved once it is writable again"""
    w.fresh_state()
    w.start_daemon()
    guid = w.guid(1, 9)
    w.read_only()
    before = digest(w.state)
    expect_unsaved(w, f"later add {guid}", before,
                   ["Read-only file system", "make it writable"])
    w.umount(w.dir)   # the read-only bind; the tmpfs is writable

    def saved(groups):
        ids = [faults.list_entries(g) for name, g in groups.items()
               if name == "list later"]
        return ids and len(ids[0]) == 1
    wait_saved(w, saved, "the daemon to save once it can")
    check(w.stop_daemon() == 0, "the daemon did not stop cleanly")


def t_stop_while_full(w):
    """stopped (SIGTERM) while it cannot save: the daemon says so, names
    the file and exits 1; the old file is intact"""
    w.fresh_state()
    w.start_daemon()
    w.fill()
    before = digest(w.state)
    answer = w.ask(f"star {w.guid(0, 4)}")
    check(answer.startswith("error"), f"star: {answer}")
    mark = len(w.log())
    code = w.stop_daemon()
    said = w.log()[mark:]
    check(code == 1, f"the daemon exited with {code}, not 1")
    check(w.state in said and "No space left on device" in said,
          f"the daemon's last words: {said[-400:]!r}")
    check(digest(w.state) == before, "the state file changed")
    check(not w.leftovers(), f"left {w.leftovers()}")


TESTS = [t_read_only_cli, t_not_writable_cli, t_full_cli, t_full_daemon,
         t_read_only_daemon, t_stop_while_full]


def main():
    print(f"1..{len(TESTS)}")
    sys.stdout.flush()
    if not BRIDGE:
        for n, t in enumerate(TESTS, 1):
            print(f"not ok {n} - {t.__doc__.split(chr(10))[0]} # MPD_BRIDGE"
                  " is not set")
        return 1
    w = None
    failed = 0
    try:
        w = World()
        for n, t in enumerate(TESTS, 1):
            name = " ".join(t.__doc__.split())
            try:
                t(w)
                print(f"ok {n} - {name}")
            except Exception as e:  # noqa: BLE001 - reported as TAP
                failed += 1
                print(f"not ok {n} - {name}")
                for line in (str(e) or type(e).__name__).splitlines():
                    print(f"# {line}")
                if w.daemon is not None:
                    w.daemon.kill()
                    w.daemon.wait(10)
                    w.daemon = None
                    w.client.close()
                    for line in w.log().splitlines()[-8:]:
                        print(f"# daemon: {line}")
            sys.stdout.flush()
        if "CRITICAL" in w.log():
            failed += 1
            print("# the daemon logged a critical")
    except (AssertionError, OSError) as e:
        print(f"# {e}")
        failed += 1
    finally:
        if w is not None:
            w.close()
    return 1 if failed else 0


def in_own_namespace():
    """Starts this test again in a mount namespace of its own."""
    if os.environ.get("FAULTS_UNSHARED"):
        return None
    unshare = shutil.which("unshare")
    env = dict(os.environ, FAULTS_UNSHARED="1")
    if unshare is None:
        return "unshare is missing (util-linux)"
    sys.stdout.flush()
    r = subprocess.run([unshare, "--mount", "--propagation", "private",
                        sys.executable, os.path.abspath(__file__)], env=env)
    return r.returncode


if __name__ == "__main__":
    code = in_own_namespace()
    if isinstance(code, str):
        print(f"1..{len(TESTS)}")
        for n, t in enumerate(TESTS, 1):
            print(f"not ok {n} - {t.__doc__.split(chr(10))[0]} # {code}")
        sys.exit(1)
    sys.exit(main() if code is None else code)
