"""What the bench-bridge scripts that play episodes share: a podcast host
on loopback that answers as over a household line, and the time MPD
takes to play on past a seek, or from `play` to sound.

Standard library only. A script adds this directory and tests/support to
sys.path and imports it:

    host = household.Host(directory, rate=1250000, latency=0.05)
    host.url("episode.mp3")        # http://127.0.0.1:PORT/episode.mp3
    household.resume_time(mpd, host.url("episode.mp3"), 5400)
    host.close()
"""
import functools
import http.server
import os
import threading
import time

from mpdtest import quote, wait_until


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the files of its host's directory with single byte ranges,
    as podcast CDNs do, at the host's rate after its latency."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.translate_path(self.path)
        if not os.path.isfile(path):
            self.send_error(404)
            return
        rate, latency = self.server.rate, self.server.latency
        size = os.path.getsize(path)
        start, end = 0, size - 1
        time.sleep(latency)
        header = self.headers.get("Range", "")
        if header.startswith("bytes="):
            first, _, last = header[6:].partition("-")
            start = int(first) if first else 0
            end = int(last) if last else size - 1
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        else:
            self.send_response(200)
        self.send_header("Content-Type", "audio/mpeg")
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        with open(path, "rb") as f:
            f.seek(start)
            left = end - start + 1
            try:
                sent, began = 0, time.monotonic()
                while left > 0:
                    chunk = f.read(min(left, 1 << 14))
                    self.wfile.write(chunk)
                    left -= len(chunk)
                    sent += len(chunk)
                    if rate:
                        ahead = sent / rate - (time.monotonic() - began)
                        if ahead > 0:
                            time.sleep(ahead)
            except (BrokenPipeError, ConnectionResetError):
                pass


class Host(http.server.ThreadingHTTPServer):
    """Serves the files of @directory on 127.0.0.1 and a free port, in a
    thread of its own from the moment it is made: @rate bytes a second
    for each answer (0: as fast as it can), after @latency seconds."""
    daemon_threads = True

    def __init__(self, directory, rate=0, latency=0.0):
        handler = functools.partial(RangeHandler, directory=directory)
        super().__init__(("127.0.0.1", 0), handler)
        self.rate = rate
        self.latency = latency
        self.base = f"http://127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def url(self, name):
        return f"{self.base}/{name}"

    def close(self):
        self.shutdown()
        self.server_close()


def play_past(mpd, song, at):
    """Seconds from playing queued song @song and seeking it to @at at
    once, as mpd-bridge's resume does, until MPD's elapsed has reached
    the position and moves on: the silence a listener hears."""
    started = time.monotonic()
    mpd.command(f"playid {song}", f"seekid {song} {at}")

    def past():
        status = mpd.status()
        return (status.get("state") == "play" and
                float(status.get("elapsed", 0)) >= at + 0.2)
    wait_until(past, 300, f"MPD to play song {song} past {at} s", step=0.02)
    took = time.monotonic() - started
    mpd.command("stop")
    return took


def resume_time(mpd, uri, at):
    """play_past() of @uri, queued alone."""
    mpd.command("clear")
    song = mpd.command(f"addid {quote(uri)}")[0].split(": ")[1]
    return play_past(mpd, song, at)


def sound_time(mpd, song):
    """Seconds from playing queued song @song until MPD plays it: state
    play and elapsed above 0."""
    started = time.monotonic()
    mpd.command(f"playid {song}")

    def sounds():
        status = mpd.status()
        return (status.get("state") == "play" and
                float(status.get("elapsed", 0)) > 0)
    wait_until(sounds, 120, f"MPD to play song {song}", step=0.005)
    took = time.monotonic() - started
    mpd.command("stop")
    return took
