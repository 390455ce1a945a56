#!/usr/bin/env python3
"""The relay end to end: episodes play to their end through what a host
does to their connection, MPD answers its clients throughout, and a host
gone for good ends the episode cleanly, in progress.

A private MPD in real time, a loopback host that misbehaves on purpose
(tests/support/faulty.py) and the daemon (relayworld.py). The episodes
are short and the host sends at three times their bitrate, so that its
faults land while MPD plays.

Prints TAP. Needs mpd and MPD_BRIDGE. With RELAY_TEST_LOG=1 the daemon's
log is printed at the end.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relayworld import (BYTES_A_SECOND, Probe, RelayWorld,  # noqa: E402
                        check, silent, wait_until)
from bridgeworld import run_tap  # noqa: E402

RATE = 3 * BYTES_A_SECOND

EPISODES = [
    # Cut a second into every answer.
    ("cuts", "Cut often", silent(10),
     {"rate": RATE, "cut_after_seconds": 1.0}),
    ("after", "The next one", silent(60), {}),
    # Ranges ignored: each new answer starts again from the first byte.
    ("noranges", "No ranges", silent(8),
     {"rate": RATE, "ignore_ranges": True, "cut_after_bytes": 14000,
      "cuts": 2}),
    # Cut once after 2 s, then 404 for good.
    ("gone", "Gone mid-way", silent(20),
     {"rate": RATE, "cut_after_seconds": 2.0, "cuts": 1, "gone_after": 1}),
    # Cut once after 2 s, then 503 for ever: given up after 6 s.
    ("down", "Down for good", silent(20),
     {"rate": RATE, "cut_after_seconds": 2.0, "cuts": 1,
      "refuse_seconds": 3600, "refuse": 503}),
    # Fetched whole by the relay, then downloaded.
    ("keep", "Kept on disk", silent(6), {}),
    # Cut once, and a longer file from then on.
    ("changed", "Changed under us", silent(20),
     {"rate": RATE, "cut_after_seconds": 1.5, "cuts": 1, "change_after": 1,
      "changed_to": silent(26)}),
]


def songs_of(w):
    return [line.split(": ", 1)[1] for line in w.mpd.command("playlistinfo")
            if line.startswith("file: ")]


def play_through(w, guid):
    """Queues @guid and the next one, plays, and waits for the next one
    to start; returns the probe and how far MPD got into @guid."""
    ids = w.queue(guid, "after")
    probe = Probe(w.mpd)
    try:
        w.play_until(ids[1], 0.3, 40)
    finally:
        probe.stop()
    w.mpd.command("stop")
    return probe, probe.last_elapsed(ids[0])


def t_relay_urls(w):
    """MPD is given the relay's URLs: status says where it listens, and a
    host's URL added by a client is swapped for the relay's"""
    check("; relay on 127.0.0.1:" in w.ok("status"), w.ok("status"))
    w.mpd.command("clear", f'add "{w.url("after")}"')
    wait_until(lambda: all("/episode/" in f for f in songs_of(w)), 10,
               "the host's URL to be swapped for the relay's")
    w.mpd.command("clear")


def t_cuts(w):
    """An episode whose host cuts every answer a second in plays to its
    end, and only then the next one, while MPD answers status all
    along"""
    probe, reached = play_through(w, "cuts")
    probe.check_answers()
    check(reached >= 9.0, f"MPD moved on at {reached:.1f} s of 10 s")
    log = w.log_of("cuts")
    cut = [r for r in log if r.cut]
    check(len(cut) >= 2, f"the host cut {len(cut)} answers")
    resumed = [r for r in log[1:] if r.range and r.if_range]
    check(resumed and all(r.status == 206 for r in resumed),
          f"no resumes with Range and If-Range: {log}")
    check(w.episode("cuts")["state"] == "listened", w.episode("cuts"))


def t_no_ranges(w):
    """A host that ignores ranges and cuts is asked again from the start,
    and the episode still plays to its end"""
    probe, reached = play_through(w, "noranges")
    probe.check_answers()
    check(reached >= 7.0, f"MPD moved on at {reached:.1f} s of 8 s")
    log = w.log_of("noranges")
    check(len(log) >= 3 and all(r.status == 200 for r in log),
          f"the host's answers: {[(r.status, r.range) for r in log]}")


def check_ended_in_progress(w, guid, reached, reason):
    check(1.0 < reached < 12.0, f"MPD played {reached:.1f} s of {guid}")
    episode = w.episode(guid)
    check(episode["state"] == "in-progress" and
          0 < episode["position"] <= reached + 1,
          f"{guid} after its host went: {episode}")
    status = w.ok("status")
    check("gave up" in status and reason in status, status)


def t_gone(w):
    """A host that answers 404 mid-way: MPD plays what came and moves on,
    answering throughout; the episode stays in progress, and status
    names the host and why"""
    probe, reached = play_through(w, "gone")
    probe.check_answers()
    check(any(r.status == 404 for r in w.log_of("gone")),
          "the host never answered 404")
    check_ended_in_progress(w, "gone", reached, "HTTP 404")


def t_down(w):
    """A host that refuses past relay_give_up: the same"""
    start = time.monotonic()
    probe, reached = play_through(w, "down")
    # MPD plays all it has, then waits on a stream that sends nothing
    # while the relay asks the host again.
    probe.check_answers()
    check(time.monotonic() - start < 30, "it took the relay too long")
    check_ended_in_progress(w, "down", reached, "failing for 6 s")


def t_changed(w):
    """A file that changed under the relay (another length): what MPD
    streams of it ends cleanly, and the episode stays in progress"""
    probe, reached = play_through(w, "changed")
    probe.check_answers()
    check(1.0 < reached < 12.0, f"MPD played {reached:.1f} s of it")
    check(w.episode("changed")["state"] == "in-progress",
          w.episode("changed"))
    check("the host changed Changed under us" in w.log(),
          "the log does not say the file changed")


def t_stop(w):
    """The daemon stops cleanly mid-episode: MPD plays on, and the next
    daemon streams it from the relay again"""
    ids = w.queue("after")
    before = songs_of(w)
    w.play_until(ids[0], 1.0, 10)
    w.stop_daemon()
    at = w.mpd.elapsed()
    time.sleep(1.5)
    status = w.mpd.status()
    check(status.get("state") == "play" and
          float(status.get("elapsed", 0)) > at + 1.0,
          f"MPD after the daemon stopped: {status}")
    w.start_daemon()
    w.mpd.command("stop")
    check(songs_of(w) == before, f"{songs_of(w)}, not {before}: the relay "
          "did not listen on the port of its last run")
    check("; relay on 127.0.0.1:" in w.ok("status"), w.ok("status"))


def t_whole_to_download(w):
    """An episode the relay fetched whole becomes its download without
    asking the host again"""
    music = os.path.join(w.mpd.root, "music")
    w.stop_daemon()
    w.configure(relay_give_up=6, music_directory=music)
    w.start_daemon()
    ids = w.queue("keep")
    w.mpd.command("play 0")
    wait_until(lambda: "Kept on disk is whole in the cache" in w.log(), 20,
               "the relay to have it whole")
    w.mpd.command("stop")
    asked = len(w.log_of("keep"))
    w.ok("download", "keep")
    folder = os.path.join(music, "podcasts", "Relay Show")
    wait_until(lambda: os.path.isdir(folder) and [
        n for n in os.listdir(folder) if n.endswith(".mp3") and
        not n.startswith(".")], 20, "the file")
    check(len(w.log_of("keep")) == asked,
          f"the host was asked again: {w.log_of('keep')[asked:]}")
    check("downloading Kept on disk from the relay's cache" in w.log(),
          "the log does not say where it came from")
    check(ids, "nothing was queued")


def main():
    return run_tap([t_relay_urls, t_cuts, t_no_ranges, t_gone, t_down,
                    t_changed, t_stop, t_whole_to_download],
                   lambda: RelayWorld("relay", EPISODES))


if __name__ == "__main__":
    sys.exit(main())
