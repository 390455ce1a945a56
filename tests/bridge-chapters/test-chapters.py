#!/usr/bin/env python3
"""Chapters and skip rules end to end: a private MPD playing in real time
(null output, sync), a loopback server of the test's own serving WAV
episodes with Range support, a feed with Podlove chapters and a
Podcasting 2.0 JSON chapters document, and the daemon.

Positions are MPD's own elapsed, asserted within a second of where a
chapter starts. Prints TAP. Needs mpd; MPD_BRIDGE names the binary.
"""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from mpdtest import Channel, quote, wait_until  # noqa: E402
import bridgeworld  # noqa: E402
from bridgeworld import check, run_tap  # noqa: E402
import media  # noqa: E402

SHOW = "Chaptered"
AUDIO = {"/chap.wav": media.silent_wav(60),
         "/short.wav": media.silent_wav(12)}
LIVE = media.silent_mp3(60)

CHAPTERS_JSON = json.dumps({"version": "1.2.0", "chapters": [
    {"startTime": 30, "title": "Part two"},
    {"startTime": 0, "title": "Intro"},
    {"startTime": 10, "title": "Part one"},
    {"startTime": 20, "title": "Sponsor: a mattress"},
    {"startTime": 25, "title": "Behind the scenes", "toc": False},
    {"startTime": 45, "title": "Outro"},
]})


def feed(base):
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
     xmlns:psc="http://podlove.org/simple-chapters"
     xmlns:podcast="https://podcastindex.org/namespace/1.0">
<channel><title>{SHOW}</title>
<item><guid isPermaLink="false">chap</guid><title>With chapters</title>
  <pubDate>Sun, 22 Nov 2026 06:00:00 +0000</pubDate>
  <itunes:duration>60</itunes:duration>
  <enclosure url="{base}/chap.wav" type="audio/wav" length="{len(AUDIO['/chap.wav'])}"/>
  <psc:chapters version="1.2">
    <psc:chapter start="00:00:00" title="Intro"/>
    <psc:chapter start="00:00:10" title="Part one"/>
    <psc:chapter start="00:00:20" title="Sponsor: a mattress"/>
    <psc:chapter start="00:00:30" title="Part two"/>
    <psc:chapter start="00:00:45" title="Outro"/>
  </psc:chapters>
  <podcast:chapters url="{base}/chapters.json" type="application/json+chapters"/>
</item>
<item><guid isPermaLink="false">short</guid><title>Short one</title>
  <pubDate>Sat, 21 Nov 2026 06:00:00 +0000</pubDate>
  <itunes:duration>12</itunes:duration>
  <enclosure url="{base}/short.wav" type="audio/wav" length="1"/>
</item>
<item><guid isPermaLink="false">live</guid><title>Cannot seek</title>
  <pubDate>Fri, 20 Nov 2026 06:00:00 +0000</pubDate>
  <enclosure url="{base}/live.mp3" type="audio/mpeg" length="1"/>
  <psc:chapters version="1.2">
    <psc:chapter start="00:00:00" title="Start"/>
    <psc:chapter start="00:00:30" title="Later"/>
  </psc:chapters>
</item>
</channel></rss>"""


class Media:
    def __init__(self):
        self.requests = []
        site = self

        class Handler(media.Handler):
            def do_GET(self):
                site.requests.append(self.path)
                if self.path == "/feed.xml":
                    self.reply(200, feed(site.base).encode(),
                               "application/rss+xml")
                elif self.path == "/chapters.json":
                    self.reply(200, CHAPTERS_JSON.encode(),
                               "application/json+chapters")
                elif self.path == "/live.mp3":
                    self.live()
                else:
                    self.serve_file()

            def live(self):
                # A stream of unknown length without ranges, as a radio
                # sends it: MPD cannot seek it.
                self.send_response(200)
                self.send_header("Content-Type", "audio/mpeg")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                try:
                    for i in range(0, len(LIVE), 4000):
                        self.wfile.write(LIVE[i:i + 4000])
                        self.wfile.flush()
                        time.sleep(0.5)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = media.Server(Handler, AUDIO)
        self.base = self.server.base

    def close(self):
        self.server.close()


class World(bridgeworld.World):
    def __init__(self):
        # Songs are added by the hosts' URLs and played by id.
        super().__init__(relay=False)
        self.media = Media()

    def close(self):
        try:
            super().close()
        finally:
            self.media.close()


def ok(w, *args):
    r = w.bridge(*args)
    check(r.returncode == 0,
          f"mpd-bridge {' '.join(args)}: {r.returncode}\n{r.stderr}")
    return r.stdout


def episode(w, guid):
    return {e["guid"]: e for e in
            json.loads(ok(w, "episodes", "--json"))}[guid]


def play(w, guid, at=None):
    """Plays @guid's stream from its start (or from @at seconds, sought
    once MPD's decoder runs: a seek as a stream opens may find it not
    started yet)."""
    w.mpd.command("stop", "clear")
    name = "live.mp3" if guid == "live" else guid + ".wav"
    song = w.mpd.command(
        f"addid {quote(w.media.base + '/' + name)}")[0].split(": ")[1]
    w.mpd.command(f"playid {song}")
    def started():
        status = w.mpd.status()
        return (status.get("state") == "play" and
                float(status.get("elapsed", 0)) > 0)
    wait_until(started, 10, "MPD to play")
    if at is not None:
        w.mpd.command(f"seekid {song} {at}")
        wait_until(lambda: w.mpd.elapsed() >= at, 5, f"MPD at {at} s")
    return song


def near(w, seconds, what, timeout=5):
    wait_until(lambda: abs(w.mpd.elapsed() - seconds) <= 1.0, timeout,
               f"MPD at {seconds} s ({what}); it is at {w.mpd.elapsed()}")


def t_list(w):
    """chapters lists the merged chapters with their starts, the hidden one
    marked, the current one marked, and the JSON is fetched once"""
    w.start_daemon()
    ok(w, "subscribe", w.media.base + "/feed.xml")
    play(w, "chap", 11)
    out = ""
    for _ in range(50):
        r = w.bridge("chapters")
        out = r.stdout
        if r.returncode == 0 and "Part one" in out:
            break
        time.sleep(0.1)
    lines = out.splitlines()
    check(lines[0] == f"{SHOW} — With chapters: 5 chapters", out)
    check(">  2  0:00:10  Part one" in lines, out)
    check("   4  0:00:30  Part two" in lines, out)
    check(any("(hidden) Behind the scenes" in line for line in lines), out)
    ok(w, "chapters")
    check(w.media.requests.count("/chapters.json") == 1,
          f"chapters.json fetched {w.media.requests.count('/chapters.json')}"
          " times")


def t_jumps(w):
    """next-chapter, chapter N and previous-chapter land within a second of
    the chapters' starts, from the command line and through the channel;
    the song's title names the chapter"""
    out = ok(w, "next-chapter")
    check("chapter 3 of 5" in out and "Sponsor" in out, out)
    near(w, 20, "next-chapter")
    out = ok(w, "chapter", "4")
    check("Part two" in out, out)
    near(w, 30, "chapter 4")
    # Clients show the chapter in the title of what plays.
    wait_until(lambda: w.mpd.status("currentsong").get("Title") ==
               "With chapters · Part two", 3, "the chapter in the title")
    out = ok(w, "status")
    check("chapter 4 of 5: Part two" in out, out)
    # Within three seconds of a start: to the chapter before.
    ok(w, "previous-chapter")
    near(w, 20, "previous-chapter")
    time.sleep(3.2)
    with Channel(w.mpd, "chapters-test") as channel:
        answer = channel.send("previous-chapter")
        check(answer and answer[0].startswith("ok"), f"answer {answer}")
    near(w, 20, "previous-chapter later on")
    r = w.bridge("chapter", "9")
    check(r.returncode != 0 and "has 5 chapters" in r.stderr, r.stderr)


def t_skip_chapters(w):
    """skip-chapters jumps over a matching chapter as playback reaches it,
    and a listener's seek into it is respected"""
    ok(w, "set", SHOW, "skip-chapters", "^sponsor")
    play(w, "chap", 18)
    wait_until(lambda: w.mpd.elapsed() >= 29, 6, "the sponsor skipped")
    near(w, 30, "the sponsor skipped")
    check("skipped the chapter" in w.log(), "the skip was not logged")
    # The listener goes back into the sponsor read: it plays.
    song = w.mpd.status().get("songid")
    w.mpd.command(f"seekid {song} 22")
    time.sleep(2.5)
    check(23.5 <= w.mpd.elapsed() <= 26, f"at {w.mpd.elapsed()}")
    ok(w, "set", SHOW, "skip-chapters", "")


def t_skip_intro(w):
    """skip-intro skips from the beginning only, not on a resume"""
    ok(w, "set", SHOW, "skip-intro", "5")
    w.mpd.command("stop")
    ok(w, "mark", "new", episode(w, "chap")["id"])
    song = play(w, "chap")
    near(w, 5, "the intro skipped", timeout=3)
    # Left at 0:31, then played from the top: it resumes at 0:26.
    w.mpd.command(f"seekid {song} 31")
    wait_until(lambda: w.mpd.elapsed() >= 31.5, 5, "0:31")
    w.mpd.command("stop")
    wait_until(lambda: episode(w, "chap")["position"] >= 30, 5,
               "the position")
    play(w, "chap")
    wait_until(lambda: w.mpd.elapsed() >= 25, 5, "the resume")
    check("skipped the first 5 s" in w.log(), "the skip was not logged")
    ok(w, "set", SHOW, "skip-intro", "0")
    w.mpd.command("stop")


def t_skip_outro(w):
    """skip-outro marks the episode listened and moves on before its end"""
    ok(w, "set", SHOW, "skip-outro", "4")
    play(w, "short", 6)
    wait_until(lambda: episode(w, "short")["state"] == "listened", 5,
               "listened")
    check(w.mpd.status().get("state") == "stop", "MPD did not move on")
    check("skipped the last 4 s" in w.log(), "the skip was not logged")
    ok(w, "set", SHOW, "skip-outro", "0")


def t_cannot_seek(w):
    """a stream that cannot seek gives a clear answer and plays on"""
    song = play(w, "live")
    time.sleep(1)
    r = w.bridge("next-chapter")
    check(r.returncode != 0 and "cannot jump" in r.stderr and
          "download" in r.stderr, r.stderr)
    time.sleep(1)
    status = w.mpd.status()
    check(status.get("state") == "play" and status.get("songid") == song,
          f"MPD after the refused jump: {status}")
    w.mpd.command("stop")


TESTS = [t_list, t_jumps, t_skip_chapters, t_skip_intro, t_skip_outro,
         t_cannot_seek]

if __name__ == "__main__":
    sys.exit(run_tap(TESTS, World, need=("MPD_BRIDGE", "FEED_TEST_SERVER")))
