"""The world of the relay's tests: a private MPD playing in real time, a
podcast host on loopback that misbehaves on purpose (faulty.py) serving
a feed of silent MP3 episodes, and mpd-bridge's daemon, whose relay
stands between them.

A probe asks MPD for its status ten times a second from a thread of its
own, as a client would, and keeps how long each answer took and what
MPD played: MPD must answer throughout, whatever the host does, and an
episode must play to its end before the next song starts.
"""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "support"))
import faulty  # noqa: E402
import media  # noqa: E402
from mpdtest import wait_until  # noqa: E402
from playworld import PlayWorld, check  # noqa: E402

BYTES_A_SECOND = 4000  # media.silent_mp3's 32 kbit/s
TYPES = {"mp3": "audio/mpeg", "wav": "audio/wav"}


def feed(title, base, episodes):
    items = "".join(
        f'<item><guid isPermaLink="false">{guid}</guid><title>{name}'
        f"</title><pubDate>Sun, {k + 1:02d} Sep 2024 10:00:00 +0000"
        f'</pubDate><enclosure url="{base}/{guid}.{kind}" '
        f'type="{TYPES[kind]}" length="1"/></item>'
        for k, (guid, name, kind) in enumerate(episodes))
    return ('<?xml version="1.0" encoding="UTF-8"?><rss version="2.0">'
            f"<channel><title>{title}</title><link>http://x.invalid/"
            f"</link><description>d</description>{items}</channel>"
            "</rss>").encode()


class Site:
    """A faulty host with a feed of @episodes: (guid, title, bytes,
    faults) each, served at /GUID.mp3, or /GUID.wav for a WAV."""

    def __init__(self, title, episodes):
        self.host = faulty.Host()
        self.base = self.host.base
        self.kinds = {}
        for guid, _, data, faults in episodes:
            self.kinds[guid] = "wav" if data[:4] == b"RIFF" else "mp3"
            self.host.add(f"/{guid}.{self.kinds[guid]}", data, **faults)
        self.host.add("/feed.xml", feed(
            title, self.base,
            [(g, t, self.kinds[g]) for g, t, _, _ in episodes]))

    def close(self):
        self.host.close()


class Probe:
    """Asks MPD for its status every @step seconds until stopped."""

    def __init__(self, mpd, step=0.1):
        self.mpd = mpd
        self.step = step
        self.samples = []  # (monotonic time, latency, status dict)
        self.errors = []
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while self.running:
            start = time.monotonic()
            try:
                status = self.mpd.status()
            except (OSError, RuntimeError) as e:
                self.errors.append(str(e))
                status = {}
            self.samples.append((start, time.monotonic() - start, status))
            time.sleep(self.step)

    def stop(self):
        self.running = False
        self.thread.join(15)
        return self

    def slowest(self):
        return max((latency for _, latency, _ in self.samples), default=0)

    # What must not come back is MPD not answering for minutes, as MPD
    # 0.23 does on a cut stream without the relay. A slow answer once in
    # a while has been seen too, near a song's end or when MPD has played
    # all it has of one: 0.67-2.5 s for one status, on MPD 0.23 in about
    # one full run of the suite in eight, and on MPD 0.24 in about one run
    # of test-relay-play in three in Debian 13's root (before the journal
    # and Continue changes as after them). Its cause is not known yet;
    # with MPD --verbose it did not come in three runs.
    def check_answers(self, limit=3.0):
        check(not self.errors, f"MPD did not answer: {self.errors[:3]}")
        # When, on the daemon's clock, so that its log says what else
        # happened then.
        slow = [time.strftime("%H:%M:%S", time.localtime(
                    time.time() - (time.monotonic() - start))) +
                f" ({latency:.2f} s, song {status.get('songid')} at "
                f"{status.get('elapsed')})"
                for start, latency, status in self.samples
                if latency > limit]
        check(not slow, f"MPD took {self.slowest():.2f} s to answer "
              f"status: {', '.join(slow)}")

    def last_elapsed(self, songid):
        """The last elapsed MPD gave while song @songid was current."""
        values = [float(s.get("elapsed", 0)) for _, _, s in self.samples
                  if s.get("songid") == songid]
        return max(values, default=0.0)


class RelayWorld(PlayWorld):
    def __init__(self, name, episodes, settings=None):
        site = Site("Relay Show", episodes)
        self.host = site.host
        self.kinds = site.kinds
        config = {"relay_give_up": 6}
        config.update(settings or {})
        super().__init__(name, "Relay Show", [], config, mixer=False,
                         fatal="fatal-criticals", site=site, relay=True)

    def path(self, guid):
        return f"/{guid}.{self.kinds[guid]}"

    def url(self, guid):
        return self.host.url(self.path(guid))

    def log_of(self, guid):
        return self.host.log_of(self.path(guid))

    def queue(self, *guids):
        """Clears MPD's queue and queues @guids through the daemon, so
        that MPD streams them from the relay; their song ids."""
        self.mpd.command("clear")
        for guid in guids:
            self.ok("queue", guid)
        songs = self.mpd.command("playlistinfo")
        files = [line.split(": ", 1)[1] for line in songs
                 if line.startswith("file: ")]
        check(len(files) == len(guids) and all(
            f.startswith("http://127.0.0.1:") and "/episode/" in f
            for f in files), f"MPD streams {files}, not from the relay")
        return [line.split(": ", 1)[1] for line in songs
                if line.startswith("Id: ")]

    def relay_port(self):
        status = self.ok("status")
        check("relay on 127.0.0.1:" in status, status)
        return int(status.split("relay on 127.0.0.1:")[1].split(";")[0])

    def streams(self):
        """MPD's ports of the connections the relay holds open to it,
        from the kernel's table (/proc/net/tcp): the relay's side, whose
        end MPD may not see while it reads nothing (paused)."""
        port = f"{self.relay_port():04X}"
        with open("/proc/net/tcp") as f:
            rows = [line.split() for line in f.readlines()[1:]]
        # ESTABLISHED (01), from the relay's port.
        return {r[2].split(":")[1] for r in rows
                if r[3] == "01" and r[1].split(":")[1] == port}

    def play_until(self, songid, elapsed, timeout):
        self.mpd.command("play 0")
        wait_until(lambda: self.mpd.status().get("songid") == songid and
                   float(self.mpd.status().get("elapsed", 0)) >= elapsed,
                   timeout, f"MPD to play song {songid} to {elapsed} s")


def silent(seconds):
    return media.silent_mp3(seconds)
