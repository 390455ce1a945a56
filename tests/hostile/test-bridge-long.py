#!/usr/bin/env python3
"""Values longer than one MPD command can carry, through mpd-bridge.

libmpdclient 2.20 builds each command in a 4 KiB buffer: a longer one
fails before anything is sent ("Not enough buffer space for message").
A feed can hold a 1 MiB title or a 100 KiB enclosure URL, a user can
type a 10,000-character name, and an answer that names a long feed twice
does not fit one message either. The world (private MPD, recording proxy,
loopback feeds, daemon) is test-bridge.py's; each case restarts the
daemon, so that one that wedges it does not fail the next.
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hostile  # noqa: E402
from hostile import MiB, Case, check, item, rss  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "bridge", os.path.join(HERE, "test-bridge.py"))
bridge = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bridge)


def restart_daemon(world):
    """Each case with a daemon of its own: one case that wedges it must not
    fail the next."""
    world.daemon.terminate()
    try:
        world.daemon.wait(20)
    except Exception:  # noqa: BLE001 - a wedged daemon is killed
        world.daemon.kill()
        world.daemon.wait()
    world.start_daemon()


def long_fields(world):
    restart_daemon(world)
    title = "T" * MiB
    long_url = "http://e.invalid/long/" + "u" * (100 * 1024) + ".mp3"
    url = world.serve("/b/long", rss(
        [item(title, long_url, "l1"),
         item("normal", "http://e.invalid/long/2.mp3", "l2")],
        title="Long"))
    bridge.subscribe(world, url)
    name = bridge.wait_playlist(world, "Long")
    entries = bridge.playlist(world, name)
    check(entries == ["http://e.invalid/long/2.mp3"],
          f"the stored playlist holds {[e[:60] for e in entries]}")
    bridge.daemon_alive(world)
    return "the playlist holds the episode that fits; the daemon answers"


def long_title_queued(world):
    restart_daemon(world)
    url = world.serve("/b/long-title", rss(
        [item("T" * MiB, "http://e.invalid/long-title/1.mp3", "t1")],
        title="Long title"))
    bridge.subscribe(world, url)
    bridge.wait_playlist(world, "Long title")
    world.mpd.command("clear")
    r = world.bridge("queue", "http://e.invalid/long-title/1.mp3")
    check(r.returncode == 0, f"queue: {r.stderr!r}")
    info = world.mpd.command("playlistinfo")
    titles = [line for line in info if line.startswith("Title: ")]
    check(len(titles) == 1 and len(titles[0]) < 4096,
          f"the queue's titles: {[t[:40] for t in titles]}")
    bridge.daemon_alive(world)
    world.mpd.command("clear")
    return f"queued with its title cut to {len(titles[0]) - 7} bytes"


def long_name(world):
    restart_daemon(world)
    url = world.serve("/b/long-name", rss(
        [item("episode", "http://e.invalid/long-name/1.mp3", "n1")],
        title="Short"))
    bridge.subscribe(world, url)
    bridge.wait_playlist(world, "Short")
    r = world.bridge("set", "Short", "name", "L" * 10000)
    if r.returncode != 0:
        message = r.stderr.decode("utf-8", "replace").strip()
        check("buffer" not in message and "long" in message,
              f"not a clear error: {message!r}")
        outcome = f"refused: {message!r}"
    else:
        bridge.wait_playlist(world, "L" * bridge.MAX_NAME_BYTES)
        outcome = "renamed to the first 200 bytes"
    bridge.daemon_alive(world)
    return outcome


def long_reply(world):
    restart_daemon(world)
    url = world.serve("/b/long-reply", rss(
        [item("episode", "http://e.invalid/long-reply/1.mp3", "r1")],
        title="Replied"))
    bridge.subscribe(world, url)
    bridge.wait_playlist(world, "Replied")
    # Fits one message; the answer, which names the feed twice, does not.
    r = world.bridge("set", "Replied", "name", "R" * 2500, timeout=60)
    check(r.returncode == 0, f"exit {r.returncode}: {r.stderr!r}")
    bridge.wait_playlist(world, "R" * bridge.MAX_NAME_BYTES)
    bridge.daemon_alive(world)
    return f"answered: {r.stdout[:60]!r}"


CASES = [
    Case("mpd-bridge set FEED name with 10,000 characters",
         "renamed under the 200-byte cut, or a clear error saying the "
         "command is too long", long_name),
    Case("mpd-bridge set FEED name with 2,500 characters, whose answer "
         "does not fit one MPD message",
         "renamed, and the answer reaches the command line (cut to fit), "
         "not a 30 s wait for a daemon that did answer", long_reply),
    Case("queueing an episode with a 1 MiB title",
         "queued, its title tag cut to fit; the daemon keeps answering",
         long_title_queued),
    # Last: once wedged, the daemon wedges again at each start, as it
    # pushes the playlists of the state.
    Case("a 1 MiB title and a 100 KiB enclosure URL in a feed",
         "the episode that fits reaches its stored playlist, the other is "
         "left out; the daemon keeps answering", long_fields),
]


if __name__ == "__main__":
    sys.exit(hostile.main(CASES, setup=bridge.World,
                          teardown=bridge.World.close))
