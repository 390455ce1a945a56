#!/usr/bin/env python3
"""The relay with a three-hour episode of 173 MB: larger than the 128 MiB
that MPD reads whole into memory, so MPD streams it as it plays and asks
the relay for a range at each seek, as with any long episode.

The host sends 2 MB a second and cuts the answer that reaches the
middle of the file. MPD plays through the cut; a seek back into what
the relay fetched is answered from its cache, one beyond it makes the
relay ask the host from there; a resume lands where the episode was
left; a 30 s pause while the host cuts and goes down ends with MPD
playing on from where it was; and a daemon that stops while MPD streams what the cache cannot
finish moves it to the host's URL, where it was.

Prints TAP. Needs mpd and MPD_BRIDGE. With RELAY_TEST_LOG=1 the daemon's
log is printed at the end.
"""
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relayworld import Probe, RelayWorld, check, wait_until  # noqa: E402
from bridgeworld import run_tap  # noqa: E402

SECONDS = 3 * 60 * 60
RATE = 16000  # bytes a second: 8 kHz, 16 bit, mono
HEADER = 44
MIDDLE = HEADER + SECONDS // 2 * RATE


def silent_wav():
    """Three hours of silence as a WAV, which MPD seeks in by asking for
    a range (its MP3 decoder would read its way forward instead)."""
    size = SECONDS * RATE
    header = (b"RIFF" + struct.pack("<I", 36 + size) + b"WAVEfmt " +
              struct.pack("<IHHIIHH", 16, 1, 1, 8000, RATE, 2, 16) +
              b"data" + struct.pack("<I", size))
    return header + bytes(size)


def byte_of(seconds):
    return HEADER + int(seconds) * RATE


def start_of(request):
    """Where a request's Range starts; 0 without one."""
    if not request.range:
        return 0
    return int(request.range.split("=")[1].split("-")[0])


def elapsed(w):
    return float(w.mpd.status().get("elapsed", 0))


def t_cut_in_the_middle(w):
    """Played from 1:29:50, the episode goes on through the host's cut at
    1:30:00 to 1:30:04, with no other song and MPD answering"""
    ids = w.queue("long")
    w.mpd.command("play 0")
    wait_until(lambda: elapsed(w) > 0.2, 20, "MPD to play")
    probe = Probe(w.mpd)
    try:
        w.mpd.command("seekcur 5390")
        wait_until(lambda: elapsed(w) >= 5404, 30, "MPD to reach 1:30:04")
    finally:
        probe.stop()
    probe.check_answers()
    check(all(s.get("songid") == ids[0] for _, _, s in probe.samples
              if s), "another song played")
    log = w.log_of("long")
    cut = [r for r in log if r.cut]
    check(cut, f"the host cut no answer: {log}")
    after = [r for r in log if r.start > cut[0].start]
    check(after and start_of(after[0]) >= MIDDLE - 1024 * 1024 and
          after[0].if_range and after[0].status == 206,
          "the relay did not go on from the cut: "
          f"{[(r.range, r.if_range, r.status) for r in after]}")


def t_seek_back(w):
    """A seek back into what the relay fetched asks the host nothing"""
    asked = len(w.log_of("long"))
    w.mpd.command("seekcur 5392")
    wait_until(lambda: 5392 <= elapsed(w) < 5400, 10, "MPD to seek back")
    time.sleep(1.0)
    check(elapsed(w) > 5392.5, "MPD does not play on after the seek")
    news = [r.range for r in w.log_of("long")[asked:]]
    check(all(start_of_text(r) >= byte_of(5400) for r in news),
          f"the host was asked again for fetched bytes: {news}")


def start_of_text(text):
    return int(text.split("=")[1].split("-")[0]) if text else 0


def t_seek_beyond(w):
    """A seek beyond what the relay fetched makes it ask the host from
    there, and MPD plays on from there"""
    asked = len(w.log_of("long"))
    w.mpd.command("seekcur 9600")
    wait_until(lambda: elapsed(w) >= 9601, 15, "MPD to play at 2:40:01")
    news = [start_of(r) for r in w.log_of("long")[asked:]]
    check(any(abs(start - byte_of(9600)) < 4 * 1024 * 1024
              for start in news),
          f"no request near 2:40:00 ({byte_of(9600)}): {news}")


def t_resume(w):
    """An episode left at 1:30:20 resumes there from the relay's cache"""
    w.mpd.command("seekcur 5420")
    wait_until(lambda: elapsed(w) >= 5421, 10, "MPD to play at 1:30:21")
    w.mpd.command("stop")
    wait_until(lambda: w.episode("long")["position"] >= 5420, 10,
               "the position to be kept")
    asked = len(w.log_of("long"))
    w.mpd.command("play 0")
    wait_until(lambda: elapsed(w) >= 5410, 10, "the resume")
    # MPD may read on from the start before the resume's seek: only the
    # bytes around the resume are known to be in the cache.
    news = [r.range for r in w.log_of("long")[asked:]]
    check(not any(byte_of(5390) <= start_of_text(r) < byte_of(5440)
                  for r in news),
          f"the host was asked for what the cache has: {news}")


def t_pause(w):
    """Paused for 30 s while the host cuts every answer and is down for a
    while, the episode plays on from where it was"""
    w.mpd.command("seekcur 6000")
    wait_until(lambda: elapsed(w) >= 6001, 15, "MPD to play at 1:40:01")
    w.mpd.command("pause 1")
    at = elapsed(w)
    streams = w.streams()
    check(streams, "MPD holds no connection to the relay")
    w.host.set(w.path("long"), cut_after_seconds=1.0)
    time.sleep(10)
    w.host.hold()
    time.sleep(4)
    w.host.release()
    time.sleep(16)
    w.host.set(w.path("long"), cut_after_seconds=None)
    cut = [r for r in w.log_of("long") if r.cut]
    check(len(cut) >= 3, f"the host cut {len(cut)} answers in the pause")
    probe = Probe(w.mpd)
    try:
        w.mpd.command("pause 0")
        wait_until(lambda: elapsed(w) >= at + 3, 10, "MPD to play on")
    finally:
        probe.stop()
    probe.check_answers()
    check(w.mpd.status().get("state") == "play" and
          all(float(s.get("elapsed", at)) >= at - 0.5
              for _, _, s in probe.samples if s),
          "MPD did not play on from where it was paused")
    # Past the relay's 30 s for a connection that asks nothing: one that
    # streams is not one of those.
    time.sleep(8)
    check(streams <= w.streams(),
          f"MPD's connections to the relay went: {streams}, then "
          f"{w.streams()}")


def t_memory(w):
    """Memory stays flat: after 173 MB went through the relay and into its
    cache, the daemon's peak is a few MB"""
    if os.environ.get("BRIDGE_SANITIZE", "none") != "none":
        print("# not measured under a sanitizer, whose allocator keeps "
              "what was freed")
        return
    with open(f"/proc/{w.daemon.pid}/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    peak_kb = int(fields["VmHWM"].split()[0])
    print(f"# the daemon's peak: {peak_kb / 1024:.1f} MB")
    check(peak_kb < 48 * 1024, f"the daemon's peak is {peak_kb} kB")


def t_stop(w):
    """The daemon stops while MPD streams what the cache cannot finish:
    the episode moves to the host's URL where it was, and plays on"""
    w.host.set(w.path("long"), rate=200_000)
    w.mpd.command("seekcur 3600")
    wait_until(lambda: elapsed(w) >= 3601, 15, "MPD to play at 1:00:01")
    w.stop_daemon()
    status = w.mpd.status()
    files = [line.split(": ", 1)[1] for line in w.mpd.command("currentsong")
             if line.startswith("file: ")]
    check(files == [w.url("long")], f"MPD plays {files}")
    at = float(status.get("elapsed", 0))
    check(3595 <= at <= 3610, f"it moved to {at} s")
    wait_until(lambda: elapsed(w) > at + 1.0, 20,
               "MPD to play on from the host")
    check(w.mpd.status().get("state") == "play", w.mpd.status())
    w.mpd.command("stop")
    w.start_daemon()


def main():
    episodes = [("long", "Three hours", silent_wav(),
                 {"rate": 2_000_000, "stall_at": MIDDLE, "stall_seconds": 1,
                  "stall_then": "cut", "stalls": 1})]
    return run_tap([t_cut_in_the_middle, t_seek_back, t_seek_beyond,
                    t_resume, t_pause, t_memory, t_stop],
                   lambda: RelayWorld("relay-long", episodes))


if __name__ == "__main__":
    sys.exit(main())
