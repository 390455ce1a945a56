"""Shared by mpd-bridge's end-to-end tests: a private MPD and small helpers.

Standard library only. A test adds this directory to sys.path and imports
it.
"""
import os
import shutil
import socket
import subprocess
import time


def wait_until(predicate, timeout=20.0, what="a condition", step=0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for "
                                 f"{what}")
        time.sleep(step)


class Mpd:
    """A private MPD on a Unix socket, playing in real time to nowhere."""

    def __init__(self, root):
        self.root = root
        self.socket = os.path.join(root, "mpd.socket")
        self.playlists = os.path.join(root, "playlists")
        os.makedirs(os.path.join(root, "music"), exist_ok=True)
        os.makedirs(self.playlists, exist_ok=True)
        self.conf = os.path.join(root, "mpd.conf")
        self.log = os.path.join(root, "mpd.log")
        with open(self.conf, "w") as f:
            f.write(f'music_directory "{root}/music"\n'
                    f'playlist_directory "{self.playlists}"\n'
                    f'db_file "{root}/db"\n'
                    f'state_file "{root}/state"\n'
                    f'sticker_file "{root}/sticker"\n'
                    f'bind_to_address "{self.socket}"\n'
                    'auto_update "no"\n'
                    'zeroconf_enabled "no"\n'
                    'restore_paused "yes"\n'
                    'input {\n\tplugin "curl"\n}\n'
                    'audio_output {\n\ttype "null"\n\tname "null"\n'
                    '\tsync "yes"\n}\n')
        self.process = None

    def start(self):
        mpd = shutil.which("mpd")
        if mpd is None:
            raise AssertionError("mpd is missing: apt-get install mpd")
        self.process = subprocess.Popen(
            [mpd, "--no-daemon", "--stderr", self.conf],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.log, "a"))
        wait_until(self.alive, 10, "MPD to start")

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(20)
        self.process = None

    def alive(self):
        try:
            self.command("ping")
            return True
        except OSError:
            return False

    def command(self, *lines):
        """Sends command lines on one connection; returns the answers'
        lines (an ACK raises RuntimeError)."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(10)
            s.connect(self.socket)
            f = s.makefile("rwb")
            greeting = f.readline()
            if not greeting.startswith(b"OK MPD"):
                raise OSError("not MPD")
            out = []
            for line in lines:
                f.write(line.encode() + b"\n")
                f.flush()
                while True:
                    answer = f.readline().decode().rstrip("\n")
                    if answer == "OK":
                        break
                    if answer.startswith("ACK"):
                        raise RuntimeError(f"{line}: {answer}")
                    if answer == "":
                        raise OSError("MPD closed the connection")
                    out.append(answer)
            return out

    def values(self, command, key):
        return [line.split(": ", 1)[1] for line in self.command(command)
                if line.startswith(key + ": ")]

    def status(self, *then):
        """MPD's status as a dict, then the commands @then on the same
        connection (so that elapsed is read just before them)."""
        lines = self.command("status", *then)
        return dict(line.split(": ", 1) for line in lines if ": " in line)

    def elapsed(self):
        return float(self.status().get("elapsed", "0"))


def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Channel:
    """A client that stays connected, as a channel's subscriptions are
    per connection: subscribe to @reply, send command lines to the bridge,
    read its answers."""

    def __init__(self, mpd, reply, bridge="mpd-bridge"):
        self.socket = socket.socket(socket.AF_UNIX)
        self.socket.settimeout(10)
        self.socket.connect(mpd.socket)
        self.file = self.socket.makefile("rwb")
        self.file.readline()
        self.reply = reply
        self.bridge = bridge
        self.ask(f"subscribe {reply}")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.file.close()
        self.socket.close()

    def ask(self, line):
        """One command; its lines (an ACK ends them too)."""
        self.file.write(line.encode() + b"\n")
        self.file.flush()
        out = []
        while True:
            answer = self.file.readline().decode().rstrip("\n")
            if answer == "OK" or answer.startswith("ACK") or answer == "":
                return out
            out.append(answer)

    def send(self, command):
        """Sends @command to the bridge, answering to our channel, and
        waits for the answer."""
        text = f"@{self.reply} {command}".replace("\\", "\\\\")
        self.ask('sendmessage %s "%s"' % (self.bridge,
                                           text.replace('"', '\\"')))

        def read():
            return [line.split(": ", 1)[1]
                    for line in self.ask("readmessages")
                    if line.startswith("message: ")]
        return wait_until(read, 10, "the bridge's answer")
