"""Shared by the fault-injection tests of mpd-bridge: a state file written
in the store's format, a reader of it, and the daemon's world (a private
MPD, the daemon, a channel client that never waits long).

Standard library only. A test adds this directory and ../support to
sys.path and imports it.
"""
import email.utils
import hashlib
import os
import select
import signal
import socket
import subprocess
import time

import media
from statecache import read_cache  # noqa: F401 (for the tests)

ID_LENGTH = 16


def short_hash(text):
    """As the store makes ids: the first 16 hex digits of SHA-256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:ID_LENGTH]


def feed_url(f):
    return f"https://feeds.faults.example/show-{f}/feed.xml"


def write_state(path, feeds, episodes, now=None):
    """A state of @feeds subscriptions sharing @episodes episodes, in the
    store's format 1. Nothing is due for a month (no URL is ever fetched:
    they are on .example hosts); every episode is listened to but the
    newest 20 of each feed, so the New playlist stays small. Returns
    {feed id: [episode guid, ...]}."""
    now = int(time.time()) if now is None else now
    out = ["\n[bridge]\nversion=1\nsaved=%d\n" % now]
    layout = {}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    for f in range(feeds):
        url = feed_url(f)
        fid = short_hash(url)
        out.append(f"\n[feed {fid}]\nurl={url}\ntitle=Fault show {f}\n"
                   "auto_queue=false\nkeep=0\nmin_duration=0\n"
                   "serial=false\ncomplete=false\nttl=0\n"
                   f'etag="{f:016x}"\nlast_refresh={now - 60}\n'
                   f"next_refresh={now + 30 * 86400}\nfailures=0\n"
                   f"gone=false\nadded={now - 86400 * 400}\n")
        count = episodes // feeds + (1 if f < episodes % feeds else 0)
        guids = []
        for e in range(count):
            guid = f"urn:faults:{f}:{e}"
            guids.append(guid)
            eid = short_hash(f"{fid}\n{guid}")
            published = now - 86400 * (count - e)
            listened = "true" if e < count - 20 else "false"
            out.append(f"\n[episode {eid}]\nfeed_id={fid}\nguid={guid}\n"
                       f"url=https://cdn.faults.example/show-{f}/"
                       f"ep{e:05d}.mp3?source=rss\n"
                       f"title=Show {f}, episode {e}: a title of a "
                       "usual length\nauthor=Someone and Someone Else\n"
                       f"published={published}\nduration=3600\n"
                       f"number={e + 1}\nfirst_seen={published}\n"
                       f"listened={listened}\nposition=0\n"
                       f"last_played=0\n")
        layout[fid] = guids
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(out))
    return layout


def unescape(value):
    """GKeyFile's escapes in a value."""
    out = []
    i = 0
    while i < len(value):
        c = value[i]
        if c == "\\" and i + 1 < len(value):
            out.append({"s": " ", "n": "\n", "t": "\t", "r": "\r",
                        "\\": "\\"}.get(value[i + 1], value[i + 1]))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def read_state(path):
    """The groups of a state file: {group name: {key: raw value}}, with
    the episodes that only the feeds' caches hold as [episode ID] groups
    of what the feeds say."""
    groups = read_key_file(path)
    for name in list(groups):
        if not name.startswith("feed "):
            continue
        for eid, fields in (read_cache(path, name[5:]) or {}).items():
            groups.setdefault("episode " + eid, fields)
        for eid, heard in heard_records(groups[name]).items():
            groups.setdefault("episode " + eid, {}).update(heard)
    return groups


def heard_records(feed_group):
    """The episodes a feed's group says are listened and nothing more:
    {episode id: {key: raw value}}."""
    out = {}
    for record in feed_group.get("heard", "").split(";"):
        if record.strip():
            eid, listened_at, last_played = record.strip().split(":")
            out[eid] = {"listened": "true", "listened_at": listened_at,
                        "last_played": last_played}
    return out


def read_key_file(path):
    """The groups of the state's key file: {group name: {key: raw
    value}}."""
    groups = {}
    current = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("[") and line.endswith("]"):
                current = groups.setdefault(line[1:-1], {})
            elif current is not None and "=" in line and \
                    not line.startswith("#"):
                key, value = line.split("=", 1)
                current[key] = value
    return groups


def list_entries(group):
    """The episode ids of a [list ID] group."""
    raw = group.get("episodes", "")
    return [unescape(x) for x in raw.split(";") if x != ""]


class Client:
    """One connection to MPD that never waits longer than asked: for
    channel requests to a daemon that may die at any moment."""

    def __init__(self, socket_path, reply, bridge="mpd-bridge", timeout=10):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(timeout)
        self.sock.connect(socket_path)
        self.buffer = b""
        if not self.line().startswith("OK MPD"):
            raise OSError("not MPD")
        self.reply = reply
        self.bridge = bridge
        self.ask(f"subscribe {reply}")

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def line(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise OSError("MPD closed the connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode("utf-8", "replace")

    def ask(self, line):
        """One command; its lines. An ACK raises RuntimeError."""
        self.sock.sendall(line.encode() + b"\n")
        out = []
        while True:
            answer = self.line()
            if answer == "OK":
                return out
            if answer.startswith("ACK"):
                raise RuntimeError(f"{line}: {answer}")
            out.append(answer)

    def send(self, command):
        """Sends @command to the bridge, the answer to come on our
        channel. RuntimeError when nobody listens."""
        text = f"@{self.reply} {command}".replace("\\", "\\\\")
        self.ask('sendmessage %s "%s"' % (self.bridge,
                                           text.replace('"', '\\"')))

    def messages(self):
        return [line.split(": ", 1)[1] for line in self.ask("readmessages")
                if line.startswith("message: ")]

    def wait_messages(self, timeout):
        """Waits up to @timeout seconds for messages on our channel;
        returns them (maybe none)."""
        got = self.messages()
        if got or timeout <= 0:
            return got
        self.sock.sendall(b"idle message\n")
        ready, _, _ = select.select([self.sock], [], [], timeout) \
            if not self.buffer else ([self.sock], [], [])
        if not ready:
            self.sock.sendall(b"noidle\n")
        while True:
            answer = self.line()
            if answer == "OK":
                break
            if answer.startswith("ACK"):
                raise RuntimeError(f"idle: {answer}")
        return self.messages()

    def request(self, command, timeout=10.0):
        """Sends @command and waits for the answer; None when none came
        within @timeout seconds."""
        self.send(command)
        deadline = time.monotonic() + timeout
        while True:
            got = self.wait_messages(deadline - time.monotonic())
            if got:
                return got[0]
            if time.monotonic() >= deadline:
                return None

    def subscribed(self, channel):
        return channel in [line.split(": ", 1)[1]
                           for line in self.ask("channels")
                           if line.startswith("channel: ")]


def daemon_env(root, mpd_socket):
    """The environment of the daemon and the command line under @root."""
    env = dict(os.environ)
    env.update({
        "XDG_CONFIG_HOME": os.path.join(root, "config"),
        "XDG_STATE_HOME": os.path.join(root, "state"),
        "XDG_CACHE_HOME": os.path.join(root, "cache"),
        "MPD_HOST": mpd_socket,
        "G_DEBUG": "fatal-criticals",
        "LC_ALL": "C.UTF-8",
    })
    env.pop("MPD_PORT", None)
    env.pop("G_MESSAGES_DEBUG", None)
    os.makedirs(os.path.join(root, "config", "mpd-bridge"), exist_ok=True)
    return env


def state_path(root):
    return os.path.join(root, "state", "mpd-bridge", "state")


def stop(process, timeout=20):
    """SIGTERM, then the exit status; SIGKILL after @timeout seconds."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
            return None
    return process.returncode


def scale(name, default):
    """A count a test may be asked to shrink (for slow sanitizer builds):
    the environment variable @name, else @default."""
    value = os.environ.get(name)
    return int(value) if value else default


class Handler(media.Handler):
    """/feed.xml, the server's feed; /NAME.wav, its episodes, with 206
    answers to Range requests (without them MPD cannot seek)."""

    def do_GET(self):
        if self.route == "/feed.xml":
            self.reply(200, self.server.feed(), "application/rss+xml")
        else:
            self.serve_file()


GUID = "urn:faults:"   # then the episode's name


class Server(media.Server):
    """A feed of @episodes (name, title, seconds) on 127.0.0.1: each
    episode is /NAME.wav, its guid GUID + NAME."""

    def __init__(self, title, episodes, handler=Handler):
        self.title = title
        self.episodes = episodes
        super().__init__(handler, {f"/{name}.wav": media.square_wav(seconds)
                                   for name, _, seconds in episodes})

    def feed(self):
        items = "".join(
            f"<item><title>{title}</title><guid>{GUID}{name}</guid>"
            f"<pubDate>{email.utils.formatdate(1793613600 + k * 86400)}"
            f"</pubDate><itunes:duration>{seconds}</itunes:duration>"
            f'<enclosure url="{self.url("/" + name + ".wav")}" '
            f'length="{len(self.files["/" + name + ".wav"])}" '
            'type="audio/wav"/></item>'
            for k, (name, title, seconds) in enumerate(self.episodes))
        return ('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" '
                'xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">'
                f"<channel><title>{self.title}</title>"
                "<link>http://127.0.0.1/</link><description>d</description>"
                f"{items}</channel></rss>\n").encode()
