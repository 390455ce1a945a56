"""The world of mpd-bridge's end-to-end tests: a private MPD, the loopback
feed server of the integration tests (FEED_TEST_SERVER), a directory served
over HTTP for feeds a test writes, and the bridge (MPD_BRIDGE) with its own
XDG directories, run as a command line or as the daemon.
"""
import json
import os
import shutil
import signal
import sys
import subprocess
import tempfile
import urllib.request

from mpdtest import Mpd, quote, wait_until

BRIDGE = os.environ.get("MPD_BRIDGE")
SERVER = os.environ.get("FEED_TEST_SERVER")


class World:
    """@relay: MPD streams episodes through the daemon's relay, as by
    default. A test of another concern that adds the hosts' URLs to MPD
    and then plays or seeks them by id turns it off: the relay swaps such
    songs for its own, with new ids."""

    def __init__(self, relay=True):
        self.root = tempfile.mkdtemp(prefix="bridge-test-")
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
        self.state = os.path.join(self.root, "state", "mpd-bridge", "state")
        self.music = os.path.join(self.root, "mpd", "music")
        config_dir = os.path.join(self.root, "config", "mpd-bridge")
        os.makedirs(config_dir)
        with open(os.path.join(config_dir, "config"), "w") as f:
            f.write(f"[bridge]\nmusic_directory={self.music}\n"
                    f"relay={'auto' if relay else 'no'}\n")
        self.server = subprocess.Popen(
            ["/usr/bin/python3", SERVER], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True)
        self.port = int(self.server.stdout.readline())
        self.daemon = None
        self.daemon_log = os.path.join(self.root, "daemon.log")

    def url(self, path):
        return f"http://127.0.0.1:{self.port}/{path}"

    def get(self, path):
        with urllib.request.urlopen(self.url(path), timeout=10) as r:
            return r.read()

    def bridge(self, *args, env=None, timeout=60):
        return subprocess.run([BRIDGE, *args], capture_output=True,
                              text=True, env=env or self.env,
                              timeout=timeout)

    def start_daemon(self):
        self.daemon = subprocess.Popen(
            [BRIDGE, "run"], env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=open(self.daemon_log, "a"))
        # It answers on its channel once it is up.
        wait_until(lambda: self.bridge("ping").returncode == 0, 20,
                   "the daemon to answer")

    def stop_daemon(self):
        if self.daemon is not None:
            self.daemon.send_signal(signal.SIGTERM)
            code = self.daemon.wait(20)
            self.daemon = None
            assert code == 0, f"the daemon exited with {code}"

    def log(self):
        try:
            with open(self.daemon_log) as f:
                return f.read()
        except OSError:
            return ""

    def close(self):
        try:
            self.stop_daemon()
        finally:
            self.mpd.stop()
            self.server.stdin.close()
            self.server.wait(10)
            shutil.rmtree(self.root, ignore_errors=True)


def playlist(world, name):
    return world.mpd.values(f"listplaylist {quote(name)}", "file")


def playlists(world):
    return world.mpd.values("listplaylists", "playlist")


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Site:
    """A directory served over loopback HTTP: feeds the test rewrites."""

    def __init__(self, w, name):
        self.dir = os.path.join(w.root, name)
        os.makedirs(self.dir)
        self.server = subprocess.Popen(
            ["/usr/bin/python3", "-u", "-m", "http.server", "--bind",
             "127.0.0.1", "0"], cwd=self.dir, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True)
        line = self.server.stdout.readline()
        self.port = int(line.split(" port ")[1].split()[0])

    def url(self, path):
        return f"http://127.0.0.1:{self.port}/{path}"

    def write(self, path, text):
        with open(os.path.join(self.dir, path), "w") as f:
            f.write(text)

    def close(self):
        self.server.terminate()
        self.server.wait(10)


def rss(title, items):
    """items: (guid, url, title, pubDate, seconds) tuples."""
    body = "".join(
        f'<item><title>{t}</title><guid isPermaLink="false">{g}</guid>'
        f"<pubDate>{d}</pubDate>"
        f"<itunes:duration>{s}</itunes:duration>"
        f'<enclosure url="{u}" type="audio/mpeg" length="1"/></item>'
        for g, u, t, d, s in items)
    return ('<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/'
            f'podcast-1.0.dtd"><channel><title>{title}</title>{body}'
            "</channel></rss>")


def by_guid(w, feed):
    r = w.bridge("episodes", feed, "--json")
    check(r.returncode == 0, r.stderr)
    return {e["guid"]: e for e in json.loads(r.stdout)}


def saved_episodes(w, feed, n):
    """The episodes of @feed once the daemon has saved all @n of them."""
    def ready():
        r = w.bridge("episodes", feed, "--json")
        return r.returncode == 0 and len(json.loads(r.stdout)) == n
    wait_until(ready, 20, f"{n} episodes of {feed} in the state")
    return by_guid(w, feed)




def tap_name(test):
    """A test's docstring on one TAP line."""
    return " ".join(test.__doc__.split())


def run_tap(tests, make_world, need=("MPD_BRIDGE",), bad_log=("CRITICAL",)):
    """Runs @tests (functions of a world, their docstrings their names) in
    order on one world that @make_world makes, printing TAP; a test fails
    by raising. Any of @bad_log in the daemon's log (World.log()) fails
    the run. Returns the exit status."""
    print(f"1..{len(tests)}")
    missing = [name for name in need if not os.environ.get(name)]
    if missing:
        for i, t in enumerate(tests, 1):
            print(f"not ok {i} - {tap_name(t)} # {' and '.join(missing)} "
                  "not set")
        return 1
    try:
        world = make_world()
    except Exception as e:  # noqa: BLE001 - reported as TAP
        for i, t in enumerate(tests, 1):
            print(f"not ok {i} - {tap_name(t)}\n# {e}")
        return 1
    failed = 0
    try:
        for i, t in enumerate(tests, 1):
            try:
                t(world)
                print(f"ok {i} - {tap_name(t)}")
            except Exception as e:  # noqa: BLE001 - reported as TAP
                failed += 1
                print(f"not ok {i} - {tap_name(t)}")
                for line in str(e).splitlines():
                    print(f"# {line}")
                for line in world.log().splitlines()[-15:]:
                    print(f"# daemon: {line}")
            sys.stdout.flush()
        log = world.log()
        if any(word in log for word in bad_log):
            print(f"# the daemon logged a {' or a '.join(bad_log).lower()}:")
            print("\n".join("# " + line for line in log.splitlines()))
            failed += 1
    finally:
        world.close()
    return 1 if failed else 0
