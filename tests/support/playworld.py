"""A world for the daemon tests that play episodes in real time: a
private MPD with a null output in sync and a software mixer (so that it
has a volume), a loopback site serving a feed of silent WAV episodes with
ranges, as podcast hosts answer them, and mpd-bridge subscribed to it
with its daemon running. test-sleep, test-alarm and test-speed share it.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile

from mpdtest import Mpd, wait_until
import media

BRIDGE = os.environ.get("MPD_BRIDGE")


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def feed(title, base, episodes):
    items = "".join(
        f'<item><guid isPermaLink="false">{guid}</guid><title>{name}'
        f"</title><pubDate>Sun, 0{k + 1} Sep 2024 10:00:00 +0000</pubDate>"
        f'<enclosure url="{base}/{guid}.wav" type="audio/wav" '
        'length="1"/></item>'
        for k, (guid, name, _) in enumerate(episodes))
    return ('<?xml version="1.0" encoding="UTF-8"?><rss version="2.0">'
            f"<channel><title>{title}</title><link>http://x.invalid/"
            f"</link><description>d</description>{items}</channel></rss>")


class Site:
    """The feed and its episodes (guid, title, seconds), served with
    ranges: MPD 0.24 reads a WAV stream's header by seeking."""

    def __init__(self, title, episodes, extra=None):
        site = self

        class Handler(media.Handler):
            def do_GET(self):
                if self.path == "/feed.xml":
                    self.reply(200, feed(title, site.base, episodes).encode(),
                               "application/rss+xml")
                else:
                    self.serve_file()

        files = {f"/{g}.wav": media.silent_wav(s) for g, _, s in episodes}
        files.update(extra or {})
        self.server = media.Server(Handler, files)
        self.base = self.server.base

    def close(self):
        self.server.close()


class PlayWorld:
    """@settings: the [bridge] lines of mpd-bridge's config, a dict;
    @extra: more files the site serves, path -> bytes; @mixer: give MPD's
    null output a software mixer; @groups: the config's other groups,
    name -> dict of lines; @fatal: what G_DEBUG makes fatal in the daemon
    ("fatal-criticals" for a test in which it loses MPD, which it warns
    of); @site: a site of the test's own instead (its base, /feed.xml and
    close()), for which @title, @episodes and @extra are not used;
    @relay: MPD streams episodes through the daemon's relay. The tests of
    other concerns play the hosts' URLs straight from MPD and act on what
    plays at once: the relay, which takes such a song's place as it
    starts, would race them; so it is off unless a test asks."""

    def __init__(self, name, title, episodes, settings, extra=None,
                 mixer=True, groups=None, fatal="fatal-warnings", site=None,
                 relay=False):
        self.relay = relay
        self.root = tempfile.mkdtemp(prefix=f"bridge-{name}-")
        self.groups = dict(groups or {})
        self.log_variable = f"{name.upper()}_TEST_LOG"
        self.mpd = Mpd(os.path.join(self.root, "mpd"))
        # The null output has no mixer of its own: MPD's software one
        # gives it a volume to fade.
        if mixer:
            with open(self.mpd.conf) as f:
                conf = f.read()
            with open(self.mpd.conf, "w") as f:
                f.write(conf.replace(
                    '\tsync "yes"\n',
                    '\tsync "yes"\n\tmixer_type "software"\n'))
        self.mpd.start()
        self.site = site or Site(title, episodes, extra)
        self.feed = self.site.base + "/feed.xml"
        self.env = dict(os.environ)
        self.env.update({
            "XDG_CONFIG_HOME": os.path.join(self.root, "config"),
            "XDG_STATE_HOME": os.path.join(self.root, "state"),
            "XDG_CACHE_HOME": os.path.join(self.root, "cache"),
            "MPD_HOST": self.mpd.socket,
            "G_DEBUG": fatal,
        })
        self.env.pop("MPD_PORT", None)
        self.daemon = None
        self.daemon_log = os.path.join(self.root, "daemon.log")
        self.configure(**settings)
        r = self.bridge("subscribe", self.feed)
        check(r.returncode == 0, r.stderr)
        self.start_daemon()

    def configure(self, **settings):
        directory = os.path.join(self.root, "config", "mpd-bridge")
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "config"), "w") as f:
            bridge = dict(settings)
            bridge.setdefault("relay", "auto" if self.relay else "no")
            for group, lines in [("bridge", bridge),
                                 *self.groups.items()]:
                f.write(f"[{group}]\n" + "".join(
                    f"{key}={value}\n" for key, value in lines.items()))

    def url(self, guid):
        return f"{self.site.base}/{guid}.wav"

    def names(self, uri, guid):
        """Whether MPD's @uri is episode @guid: its host's URL, or the
        relay's, which names the episode's id."""
        return uri == self.url(guid) or (
            uri.startswith("http://127.0.0.1:") and
            f"/episode/{self.episode(guid)['id']}." in uri)

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

    def episode(self, guid):
        for e in json.loads(self.ok("episodes", "--json")):
            if e["guid"] == guid:
                return e
        raise AssertionError(f"no episode {guid}")

    def close(self):
        if os.environ.get(self.log_variable):
            print("\n".join("# " + line for line in self.log().splitlines()))
        try:
            self.stop_daemon()
        finally:
            self.mpd.stop()
            self.site.close()
            shutil.rmtree(self.root, ignore_errors=True)
