#!/usr/bin/env python3
"""Offline episodes end to end: a private MPD with a music directory whose
podcasts/ folder is a small tmpfs, a loopback HTTP server of the test's
own (a feed, silent MP3s, an HTML page where audio should be), and the
daemon downloading, tagging, swapping playlist and queue entries to the
files, resuming from disk, and deleting files again.

The test runs in a mount namespace of its own (it starts itself again
under `unshare --mount`), so that the tmpfs (a full disk, a read-only
folder) outlives nothing. It needs root for that, as the suite runs here.

Prints TAP. Needs mpd; MPD_BRIDGE names the binary.
"""
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from mpdtest import quote, wait_until  # noqa: E402
import bridgeworld  # noqa: E402
from bridgeworld import check, run_tap  # noqa: E402
import media as media_server  # noqa: E402

SHOW = "Loopback Show"
TMPFS = "8m"
DAY = 24 * 60 * 60


MP3 = media_server.silent_mp3(20)
PAGE = (b"<!DOCTYPE html><html><head><title>Sign in</title></head>"
        b"<body><form>Log in to the hotel's network</form></body></html>")


class Media:
    """The feed (rewritten by the test) and its enclosures."""

    def __init__(self):
        self.items = []     # dicts: guid, title, date, path
        self.title = SHOW
        self.requests = []
        site = self

        class Handler(media_server.Handler):
            def do_GET(self):
                site.requests.append(self.path)
                if self.path == "/feed.xml":
                    self.reply(200, site.feed().encode(),
                               "application/rss+xml")
                elif self.path.startswith("/portal"):
                    self.reply(200, PAGE, "text/html")
                elif self.path.startswith("/media/"):
                    self.reply_ranged(MP3, "audio/mpeg")
                else:
                    self.reply(404, b"not here\n")

        self.server = media_server.Server(Handler)
        self.port = self.server.port

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def add(self, guid, title, day, path=None):
        self.items.insert(0, {"guid": guid, "title": title,
                              "date": f"Sun, {day:02d} Nov 2026 06:00:00 "
                                      "+0000",
                              "path": path or f"/media/{guid}.mp3"})

    def feed(self):
        items = "".join(
            f"<item><title>{i['title']}</title>"
            f'<guid isPermaLink="false">{i["guid"]}</guid>'
            f"<pubDate>{i['date']}</pubDate>"
            f"<itunes:author>The Hosts</itunes:author>"
            f"<itunes:episode>{n}</itunes:episode>"
            f"<itunes:duration>20</itunes:duration>"
            f'<enclosure url="{self.url(i["path"])}" type="audio/mpeg" '
            f'length="1"/></item>'
            for n, i in zip(range(len(self.items), 0, -1), self.items))
        return ('<rss version="2.0" xmlns:itunes="http://www.itunes.com/'
                'dtds/podcast-1.0.dtd"><channel>'
                f"<title>{self.title}</title>{items}</channel></rss>")

    def close(self):
        self.server.close()


class World(bridgeworld.World):
    def __init__(self):
        # Files swap with the hosts' URLs, as the checks name them.
        super().__init__(relay=False)
        self.podcasts = os.path.join(self.music, "podcasts")
        os.makedirs(self.podcasts)
        mount("-t", "tmpfs", "-o", f"size={TMPFS},mode=0755", "tmpfs",
              self.podcasts)
        with open(os.path.join(self.root, "config", "mpd-bridge",
                               "config"), "a") as f:
            f.write("download_min_free=1\ndownload_keep_days=1\n")
        self.media = Media()
        for n in range(1, 6):
            self.media.add(f"ep{n}", f"Episode {n}: the {n}th", n)

    def close(self):
        try:
            super().close()
        finally:
            self.media.close()
            subprocess.run(["umount", "-l", self.podcasts],
                           capture_output=True)


def mount(*args):
    r = subprocess.run(["mount", *args], capture_output=True, text=True)
    check(r.returncode == 0, f"mount {' '.join(args)}: {r.stderr}")


def ok(w, *args):
    r = w.bridge(*args)
    check(r.returncode == 0,
          f"mpd-bridge {' '.join(args)}: {r.returncode}\n{r.stderr}")
    return r.stdout


def episodes(w):
    return {e["guid"]: e for e in json.loads(ok(w, "episodes", "--json"))}


def downloads(w):
    return json.loads(ok(w, "downloads", "--json"))


def folder(w, name=SHOW):
    return os.path.join(w.podcasts, name)


def all_files(w, name=SHOW):
    try:
        return sorted(os.listdir(folder(w, name)))
    except FileNotFoundError:
        return []


def files(w, name=SHOW):
    """The files in place: not those still hidden while being tagged."""
    return [n for n in all_files(w, name) if not n.startswith(".")]


def file_of(w, guid):
    return episodes(w)[guid]["file"]


def in_db(w, path):
    try:
        return bool(w.mpd.command(f"lsinfo {quote(path)}"))
    except RuntimeError:
        return False


def song(w, path):
    lines = w.mpd.command(f"lsinfo {quote(path)}")
    return dict(line.split(": ", 1) for line in lines if ": " in line)


def show_playlist(w):
    return bridgeworld.playlist(w, f"Podcast: {SHOW}")


def queue_files(w):
    return w.mpd.values("playlistinfo", "file")


def t_newest_three(w):
    """set FEED download 3 puts the three newest into the podcast's folder,
    tagged, and MPD's playlist and queue name the files"""
    w.start_daemon()
    ok(w, "subscribe", w.media.url("/feed.xml"))
    # A client queued the newest's stream before it was downloaded.
    w.mpd.command(f"add {quote(w.media.url('/media/ep5.mp3'))}")
    ok(w, "set", SHOW, "download", "3")
    wait_until(lambda: len(files(w)) == 3, 20, "three files")
    names = files(w)
    check(names == ["2026-11-03 Episode 3 the 3th.mp3",
                    "2026-11-04 Episode 4 the 4th.mp3",
                    "2026-11-05 Episode 5 the 5th.mp3"], f"files: {names}")
    path = f"podcasts/{SHOW}/2026-11-05 Episode 5 the 5th.mp3"
    wait_until(lambda: in_db(w, path), 20, "MPD to have the newest")
    tags = song(w, path)
    for key, value in (("Title", "Episode 5: the 5th"), ("Album", SHOW),
                       ("Artist", "The Hosts"), ("Genre", "Podcast"),
                       ("Track", "5")):
        check(tags.get(key) == value, f"{key} of {path}: {tags}")
    check(tags.get("Date", "").startswith("2026"), f"Date: {tags}")
    check(tags.get("Time") == "20", f"Time: {tags}")
    wait_until(lambda: sum(not e.startswith("http")
                           for e in show_playlist(w)) == 3, 20,
               "the playlist to name three files")
    entries = show_playlist(w)
    check(entries[0] == path and entries[3].startswith("http"),
          f"playlist: {entries}")
    wait_until(lambda: queue_files(w) == [path], 10,
               "the queued stream to become the file")
    listing = downloads(w)
    check(len(listing["files"]) == 3 and not listing["failed"],
          f"downloads: {listing}")
    check(episodes(w)["ep1"]["file"] is None, "ep1 was downloaded")


def t_resume_from_disk(w):
    """a downloaded episode plays from disk, and resumes at once where it
    was left"""
    path = file_of(w, "ep5")
    song_id = w.mpd.values("playlistinfo", "Id")[0]
    # A listener's seek to 0:15, then a stop there. The seek waits for
    # the song to play: MPD 0.23 answers "Not seekable" to a seek that
    # comes while its decoder is still starting (a busy machine).
    w.mpd.command(f"playid {song_id}")
    wait_until(lambda: w.mpd.status().get("state") == "play" and
               float(w.mpd.status().get("elapsed", "0")) > 0, 10,
               "the file to play")
    w.mpd.command(f"seekid {song_id} 15")
    wait_until(lambda: w.mpd.elapsed() >= 15.5, 10, "playing from 0:15")
    w.mpd.command("stop")
    wait_until(lambda: episodes(w)["ep5"]["position"] >= 15, 10,
               "the position saved")
    # Played from its start, it goes back to 5 s before where it was.
    started = time.monotonic()
    w.mpd.command(f"playid {song_id}")
    wait_until(lambda: w.mpd.elapsed() >= 9.5, 10, "the resume")
    took = time.monotonic() - started
    status = w.mpd.status("currentsong")
    check(status.get("file") == path, f"plays {status.get('file')}")
    check(took < 2, f"the resume took {took:.1f} s")
    w.mpd.command("stop")


def refresh_for(w, key):
    """Refreshes the show and waits for episode KEY: a refresh answers as
    it starts, and the feed is read after."""
    ok(w, "refresh", SHOW)
    wait_until(lambda: key in episodes(w), 20, f"{key} in the episodes")


def t_newer_pushes_out(w):
    """a newer episode is downloaded and pushes the oldest download out;
    its playlist entry names the stream again"""
    old = file_of(w, "ep3")
    w.media.add("ep6", "Episode 6: the 6th", 6)
    ok(w, "refresh", SHOW)
    wait_until(lambda: episodes(w)["ep6"]["file"] is not None, 20,
               "ep6 downloaded")
    wait_until(lambda: episodes(w)["ep3"]["file"] is None, 20,
               "ep3's file deleted")
    check(not os.path.exists(os.path.join(w.music, old)), f"{old} is left")
    wait_until(lambda: not in_db(w, old), 20, "MPD to forget ep3's file")
    wait_until(lambda: w.media.url("/media/ep3.mp3") in show_playlist(w),
               20, "ep3's stream in the playlist again")
    check("deleted" in w.log() and "no longer among" in w.log(),
          "the deletion was not logged")


def t_listened_goes_after_days(w):
    """a listened episode's file goes once its days are over, and is not
    downloaded again"""
    ok(w, "mark", "listened", episodes(w)["ep4"]["id"])
    time.sleep(0.5)
    check(file_of(w, "ep4") is not None, "ep4's file went at once")
    w.stop_daemon()
    with open(w.state) as f:
        text = f.read()
    stamp = episodes(w)["ep4"]["listened_at"]
    check(f"listened_at={stamp}" in text, "no listened_at in the state")
    with open(w.state, "w") as f:
        f.write(text.replace(f"listened_at={stamp}",
                             f"listened_at={stamp - 2 * DAY}"))
    w.start_daemon()
    wait_until(lambda: file_of(w, "ep4") is None, 20, "ep4's file deleted")
    time.sleep(1)
    check(file_of(w, "ep4") is None and len(files(w)) == 2,
          f"files: {files(w)}")


def t_by_hand(w):
    """download EPISODE fetches an old one, which stays; delete EPISODE
    removes a file for good"""
    ep1 = episodes(w)["ep1"]["id"]
    out = ok(w, "download", ep1)
    check("downloading Episode 1" in out, out)
    wait_until(lambda: file_of(w, "ep1") is not None, 20, "ep1 downloaded")
    ep6 = episodes(w)["ep6"]
    path = ep6["file"]
    out = ok(w, "delete", ep6["id"])
    check(f"deleted {path}" in out, out)
    check(not os.path.exists(os.path.join(w.music, path)), "ep6 is left")
    ok(w, "refresh", SHOW)
    time.sleep(1)
    now = episodes(w)
    check(now["ep6"]["file"] is None, "ep6 was downloaded again")
    check(now["ep1"]["file"] is not None, "ep1 went")


def t_hostile_names(w):
    """a hostile title and a hostile enclosure URL stay inside the
    podcast's folder"""
    w.media.add("evil", "../../../../tmp/evil\x01name", 7,
                "/media/..%2F..%2F..%2Fescape.mp3?x=/../../y")
    refresh_for(w, "evil")
    evil = episodes(w)["evil"]
    ok(w, "download", evil["id"])
    wait_until(lambda: file_of(w, "evil") is not None, 20, "evil on disk")
    path = file_of(w, "evil")
    check(path.startswith(f"podcasts/{SHOW}/") and path.count("/") == 2,
          f"the file is at {path}")
    check(".." not in os.path.basename(path).split(" ", 1)[0],
          f"name {path}")
    for top, dirs, names in os.walk(w.music):
        for name in names:
            full = os.path.join(top, name)
            check(full.startswith(w.podcasts + "/") or
                  full.endswith(".m3u"), f"a file outside: {full}")
    check(not os.path.exists("/tmp/evil"), "/tmp/evil exists")


def t_web_page(w):
    """a server that answers a web page instead of audio gives a clear
    failure, tried again later, and no file"""
    w.media.add("portal", "Behind a portal", 8, "/portal.mp3")
    refresh_for(w, "portal")
    ok(w, "download", episodes(w)["portal"]["id"])
    wait_until(lambda: downloads(w)["failed"], 20, "the failure")
    failed = downloads(w)["failed"][0]
    check("web page" in failed["error"], f"error: {failed['error']}")
    check(failed["retry"] > time.time(), "no retry is due")
    check(not any(n.startswith(".") or "portal" in n.lower()
                  for n in all_files(w)), f"files: {all_files(w)}")
    text = ok(w, "downloads")
    check("failed: 1" in text and "tried again in" in text, text)


def t_no_room(w):
    """a disk without room stops downloading with a message, and it goes on
    once there is room"""
    filler = os.path.join(w.podcasts, "filler")
    free = shutil.disk_usage(w.podcasts).free
    with open(filler, "wb") as f:
        f.write(bytes(free - 1024 * 1024 // 2))
    ep2 = episodes(w)["ep2"]["id"]
    ok(w, "download", ep2)
    wait_until(lambda: downloads(w)["stopped"], 10, "the stop")
    stopped = downloads(w)["stopped"]
    check("download_min_free" in stopped and w.podcasts in stopped,
          stopped)
    check(file_of(w, "ep2") is None, "ep2 was downloaded")
    os.unlink(filler)
    ok(w, "refresh", SHOW)
    wait_until(lambda: file_of(w, "ep2") is not None, 20, "ep2 downloaded")
    check(downloads(w)["stopped"] is None, "still stopped")


def t_read_only(w):
    """a read-only folder gives a clear failure naming it"""
    ep2 = episodes(w)["ep2"]
    ok(w, "delete", ep2["id"])
    mount("-o", "remount,ro", w.podcasts)
    try:
        ok(w, "download", ep2["id"])
        wait_until(lambda: downloads(w)["failed"] and any(
            e["id"] == ep2["id"] for e in downloads(w)["failed"]), 10,
            "the failure")
        error = [e for e in downloads(w)["failed"]
                 if e["id"] == ep2["id"]][0]["error"]
        check("Read-only file system" in error and w.podcasts in error,
              error)
    finally:
        mount("-o", "remount,rw", w.podcasts)


def t_partial_and_command_line(w):
    """partial files of an earlier run go at start; with no daemon,
    download answers once the file is in place"""
    w.stop_daemon()
    partial = os.path.join(folder(w), ".2026-11-02 Episode 2.mp3.part")
    with open(partial, "wb") as f:
        f.write(b"\xff" * 100)
    r = w.bridge("download", episodes(w)["ep2"]["id"])
    check(r.returncode == 0, r.stderr)
    check("downloaded Episode 2: the 2th: podcasts/" in r.stdout, r.stdout)
    check(file_of(w, "ep2") is not None, "no file in the state")
    w.start_daemon()
    wait_until(lambda: not os.path.exists(partial), 10, "the partial gone")


TESTS = [t_newest_three, t_resume_from_disk, t_newer_pushes_out,
         t_listened_goes_after_days, t_by_hand, t_hostile_names, t_web_page,
         t_no_room, t_read_only, t_partial_and_command_line]


def in_own_namespace():
    """None inside the namespace; else the exit status of the run inside,
    or why it cannot run."""
    if os.environ.get("DOWNLOADS_UNSHARED") == "1":
        return None
    if os.geteuid() != 0:
        return "needs root, for a tmpfs in a mount namespace"
    unshare = shutil.which("unshare")
    if unshare is None:
        return "unshare is missing (util-linux)"
    sys.stdout.flush()
    r = subprocess.run([unshare, "--mount", "--propagation", "private",
                        sys.executable, os.path.abspath(__file__)],
                       env=dict(os.environ, DOWNLOADS_UNSHARED="1"))
    return r.returncode


if __name__ == "__main__":
    code = in_own_namespace()
    if isinstance(code, str):
        print(f"1..{len(TESTS)}")
        for n, t in enumerate(TESTS, 1):
            print(f"not ok {n} - {bridgeworld.tap_name(t)} # {code}")
        sys.exit(1)
    if code is not None:
        sys.exit(code)
    sys.exit(run_tap(TESTS, World, need=("MPD_BRIDGE", "FEED_TEST_SERVER")))
