#!/usr/bin/env python3
"""feedtool playlist against a real MPD: the M3U it writes, put in MPD's
playlist_directory, lists and loads with the feed's titles and lengths in
the playlist's order, and a hostile title adds no entry. The PLS and XSPF
it writes load too. Starts its own MPD on a Unix socket in a temporary
directory. Writes TAP.

A missing mpd fails the test, it does not skip: install Debian's mpd
package (./build.sh test does).
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

FIXTURE = "mpd-playlist.xml"
HOST = "Fixture Host"

# The fixture's episodes, newest first: (file, name as #EXTINF gives it to
# MPD, seconds or 0 when unknown, title, artist, episode number).
EPISODES = [
    ("http://127.0.0.1:1/ep5.mp3", HOST + " - Fifth: the finale", 2700,
     "Fifth: the finale", HOST, 5),
    # Line breaks, TAB, NEL and U+2028 become single spaces, the C1 CSI too.
    ("http://127.0.0.1:1/ep4.mp3",
     HOST + " - Fourth #EXTINF:1,Injected http://127.0.0.1:1/injected.mp3"
     " tab nel [31m end", 240,
     "Fourth #EXTINF:1,Injected http://127.0.0.1:1/injected.mp3"
     " tab nel [31m end", HOST, 4),
    ("http://127.0.0.1:1/ep3.mp3",
     "Guest Speaker - Third, with a comma & an ampersand", 3661,
     "Third, with a comma & an ampersand", "Guest Speaker", 3),
    ("http://127.0.0.1:1/ep2.mp3", HOST + " - Second, of unknown length", 0,
     "Second, of unknown length", HOST, 2),
    ("http://127.0.0.1:1/ep1.mp3", HOST + " - First episode", 90,
     "First episode", HOST, 1),
]

MPD_CONF = """\
music_directory    "{d}/music"
playlist_directory "{d}/playlists"
db_file            "{d}/database"
state_file         "{d}/state"
sticker_file       "{d}/sticker.sql"
bind_to_address    "{d}/socket"
auto_update        "no"
zeroconf_enabled   "no"
input {{
	plugin "curl"
}}
audio_output {{
	type "null"
	name "null"
}}
"""


class Tap:
    def __init__(self, planned):
        self.n = 0
        self.failed = 0
        print("1..%d" % planned, flush=True)

    def check(self, description, problems):
        """ok when @problems is empty, else not ok with each as a note."""
        self.n += 1
        if problems:
            self.failed += 1
            print("not ok %d - %s" % (self.n, description))
            for problem in problems:
                for line in str(problem).splitlines() or [""]:
                    print("# " + line)
        else:
            print("ok %d - %s" % (self.n, description))
        sys.stdout.flush()


def bail_out(message):
    print("Bail out! " + message, flush=True)
    sys.exit(1)


class Mpd:
    """A private MPD, and one connection to it."""

    def __init__(self, directory):
        self.directory = directory
        self.socket_path = os.path.join(directory, "socket")
        for sub in ("music", "playlists"):
            os.mkdir(os.path.join(directory, sub))
        conf = os.path.join(directory, "mpd.conf")
        with open(conf, "w", encoding="utf-8") as f:
            f.write(MPD_CONF.format(d=directory))
        self.log_path = os.path.join(directory, "mpd.log")
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            ["mpd", "--no-daemon", "--stderr", conf],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        self.file = None
        self._connect()

    def _connect(self):
        deadline = time.monotonic() + 15
        last = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("mpd exited with status %d:\n%s" %
                                   (self.process.returncode, self.log_text()))
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.settimeout(10)
                sock.connect(self.socket_path)
                self.file = sock.makefile("rwb")
                sock.close()  # the file keeps the descriptor
                greeting = self.file.readline().decode("utf-8")
                if not greeting.startswith("OK MPD "):
                    raise RuntimeError("unexpected greeting %r" % greeting)
                return
            except (FileNotFoundError, ConnectionRefusedError) as e:
                last = e
                time.sleep(0.05)
        raise RuntimeError("mpd did not answer on %s within 15 s (%s):\n%s" %
                           (self.socket_path, last, self.log_text()))

    def log_text(self):
        self.log.flush()
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def command(self, *words):
        """Returns the response's (key, value) pairs; raises on ACK."""
        line = " ".join(quote(w) for w in words)
        self.file.write(line.encode("utf-8") + b"\n")
        self.file.flush()
        pairs = []
        while True:
            raw = self.file.readline()
            if not raw:
                raise RuntimeError("mpd closed the connection after %r" %
                                   line)
            text = raw.decode("utf-8").rstrip("\n")
            if text == "OK":
                return pairs
            if text.startswith("ACK "):
                raise RuntimeError("%s: %s" % (line, text))
            key, _, value = text.partition(": ")
            pairs.append((key, value))

    def songs(self, *words):
        """The response as one dict a song, each starting at "file"."""
        result = []
        for key, value in self.command(*words):
            if key == "file":
                result.append({})
            if result:
                result[-1].setdefault(key, value)
        return result

    def stop(self):
        if self.file is not None:
            try:
                self.file.close()
            except OSError:
                pass
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def quote(word):
    if word and all(c.isalnum() or c in "_-" for c in word):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def feedtool(*args):
    """feedtool playlist ARGS FIXTURE: (exit status, stdout, stderr)."""
    fixture = os.path.join(os.environ["FEED_TEST_INTEGRATION_DATA"], FIXTURE)
    run = subprocess.run([os.environ["FEEDTOOL"], "playlist", *args, fixture],
                         stdin=subprocess.DEVNULL, capture_output=True,
                         timeout=60)
    return (run.returncode, run.stdout.decode("utf-8", "replace"),
            run.stderr.decode("utf-8", "replace"))


def control_characters(text):
    """The characters that could end a line or drive a terminal."""
    return [c for c in text
            if ord(c) < 0x20 and c != "\n" or 0x7f <= ord(c) <= 0x9f
            or c in "\u2028\u2029"]


def compare(what, got, expected):
    if got == expected:
        return []
    lines = ["%s differ:" % what]
    for i in range(max(len(got), len(expected))):
        g = got[i] if i < len(got) else "(none)"
        e = expected[i] if i < len(expected) else "(none)"
        mark = "  " if g == e else "! "
        lines.append("%s%d: got %r, expected %r" % (mark, i, g, e))
    return ["\n".join(lines)]


def check_m3u_songs(songs, episodes):
    """Problems with @songs, as MPD read them from our M3U, if any."""
    problems = []
    problems += compare("files", [s.get("file") for s in songs],
                        [e[0] for e in episodes])
    problems += compare("names", [s.get("Name") for s in songs],
                        [e[1] for e in episodes])
    # MPD reads #EXTINF:-1 as length 0 (measured with 0.23.12).
    problems += compare("lengths", [s.get("Time") for s in songs],
                        [str(e[2]) for e in episodes])
    return problems


def write_playlist(mpd, name, text):
    path = os.path.join(mpd.directory, "playlists", name + ".m3u")
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def main():
    for variable in ("FEEDTOOL", "FEED_TEST_INTEGRATION_DATA"):
        if variable not in os.environ:
            bail_out("%s is not set (run through meson test)" % variable)
    if shutil.which("mpd") is None:
        bail_out("mpd is not installed: install the Debian package 'mpd' "
                 "(apt-get install mpd)")

    tap = Tap(8)
    directory = tempfile.mkdtemp(prefix="mpd-playlist-")
    mpd = None
    try:
        status, m3u, err = feedtool()
        problems = []
        if status != 0:
            problems.append("feedtool playlist exited %d:\n%s" %
                            (status, err))
        if not m3u.startswith("#EXTM3U\n"):
            problems.append("no #EXTM3U header:\n" + m3u)
        extinf = [line for line in m3u.split("\n")
                  if line.startswith("#EXTINF:")]
        if len(extinf) != len(EPISODES):
            problems.append("%d #EXTINF lines, expected %d:\n%s" %
                            (len(extinf), len(EPISODES), m3u))
        if control_characters(m3u):
            problems.append("control characters %r in:\n%s" %
                            (control_characters(m3u), m3u))
        tap.check("feedtool playlist writes an M3U, one #EXTINF an episode",
                  problems)

        try:
            mpd = Mpd(directory)
            tap.check("a private MPD starts and answers", [])
        except (OSError, RuntimeError) as e:
            tap.check("a private MPD starts and answers", [e])
            bail_out("no MPD to test against")

        write_playlist(mpd, "feed", m3u)
        try:
            listed = mpd.songs("listplaylistinfo", "feed")
            problems = check_m3u_songs(listed, EPISODES)
        except RuntimeError as e:
            listed, problems = [], [e]
        tap.check("listplaylistinfo shows the episodes' names and lengths "
                  "from #EXTINF, newest first", problems)

        try:
            mpd.command("clear")
            mpd.command("load", "feed")
            queued = mpd.songs("playlistinfo")
            problems = check_m3u_songs(queued, EPISODES)
            problems += compare("positions", [s.get("Pos") for s in queued],
                                [str(i) for i in range(len(EPISODES))])
        except RuntimeError as e:
            queued, problems = [], [e]
        tap.check("load + playlistinfo queues the episodes in the "
                  "playlist's order with their names and lengths", problems)

        problems = []
        files = [s.get("file") for s in listed + queued]
        if any("injected" in (f or "") for f in files):
            problems.append("the hostile title added an entry: %r" % files)
        hostile = [s for s in listed if s.get("file") == EPISODES[1][0]]
        if len(hostile) != 1:
            problems.append("%d entries for the hostile episode, expected 1"
                            % len(hostile))
        elif control_characters(hostile[0].get("Name", "")):
            problems.append("control characters in its name: %r" %
                            hostile[0].get("Name"))
        if len(listed) != len(EPISODES):
            problems.append("%d entries, expected %d" %
                            (len(listed), len(EPISODES)))
        tap.check("a title with line breaks and control characters adds no "
                  "entry", problems)

        status, oldest, err = feedtool("--oldest-first")
        problems = []
        if status != 0:
            problems.append("feedtool playlist --oldest-first exited %d:\n%s"
                            % (status, err))
        else:
            write_playlist(mpd, "feed-oldest", oldest)
            try:
                problems = check_m3u_songs(
                    mpd.songs("listplaylistinfo", "feed-oldest"),
                    list(reversed(EPISODES)))
            except RuntimeError as e:
                problems = [e]
        tap.check("--oldest-first reaches MPD in that order", problems)

        # PLS and XSPF load by file:// URL, which MPD allows to clients on
        # its Unix socket; it reads the title (as Title, not Name) and, in
        # PLS, the length (no Time when it is -1).
        status, pls, err = feedtool("--format", "pls")
        problems = []
        if status != 0:
            problems.append("feedtool playlist --format pls exited %d:\n%s"
                            % (status, err))
        else:
            path = os.path.join(directory, "feed.pls")
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(pls)
            try:
                mpd.command("clear")
                mpd.command("load", "file://" + path)
                songs = mpd.songs("playlistinfo")
                problems += compare("files", [s.get("file") for s in songs],
                                    [e[0] for e in EPISODES])
                problems += compare("titles",
                                    [s.get("Title") for s in songs],
                                    [e[1] for e in EPISODES])
                problems += compare("lengths", [s.get("Time") for s in songs],
                                    [str(e[2]) if e[2] else None
                                     for e in EPISODES])
            except RuntimeError as e:
                problems.append(e)
        tap.check("the PLS loads with titles and lengths", problems)

        status, xspf, err = feedtool("--format", "xspf")
        problems = []
        if status != 0:
            problems.append("feedtool playlist --format xspf exited %d:\n%s"
                            % (status, err))
        else:
            path = os.path.join(directory, "feed.xspf")
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(xspf)
            try:
                mpd.command("clear")
                mpd.command("load", "file://" + path)
                songs = mpd.songs("playlistinfo")
                problems += compare("files", [s.get("file") for s in songs],
                                    [e[0] for e in EPISODES])
                problems += compare("titles",
                                    [s.get("Title") for s in songs],
                                    [e[3] for e in EPISODES])
                problems += compare("artists",
                                    [s.get("Artist") for s in songs],
                                    [e[4] for e in EPISODES])
                problems += compare("albums",
                                    [s.get("Album") for s in songs],
                                    ["MPD Playlist Fixture"] * len(EPISODES))
                problems += compare("tracks",
                                    [s.get("Track") for s in songs],
                                    [str(e[5]) for e in EPISODES])
            except RuntimeError as e:
                problems.append(e)
        tap.check("the XSPF loads with titles, artists, album and track "
                  "numbers", problems)
    finally:
        if mpd is not None:
            mpd.stop()
            if tap.failed:
                print("# mpd's log:")
                for line in mpd.log_text().splitlines():
                    print("# " + line)
        shutil.rmtree(directory, ignore_errors=True)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
