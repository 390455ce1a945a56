"""Episodes for the tests to play, and a loopback HTTP server that serves
them as podcast hosts do: Accept-Ranges, 206 answers to a Range request,
Content-Length on every answer.

MPD needs ranges to seek a stream, and MPD 0.24 (Debian 13) reads a WAV
stream's header by seeking: from a server that ignores Range it may not
start a WAV at all, or stop it right after it starts
(docs/mpd-versions.md).

Standard library only. A test adds this directory to sys.path and
imports it:

    site = media.Server()                    # 127.0.0.1, a free port
    site.files["/ep1.wav"] = media.square_wav(60)
    site.url("/ep1.wav")                     # http://127.0.0.1:PORT/ep1.wav
    site.close()

A test that serves more (a feed, redirects) subclasses Handler, answers
what it knows in do_GET with reply() and reply_ranged(), and leaves the
rest to serve_file(). A HEAD request gets the same answer, without the
body.
"""
import http.server
import io
import re
import struct
import sys
import threading
import urllib.parse
import wave


def silent_wav(seconds, rate=8000):
    """@seconds of silence, @rate Hz mono 8 bit: @rate bytes a second."""
    out = io.BytesIO()
    with wave.open(out, "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(1)
        f.setframerate(rate)
        f.writeframes(b"\x80" * rate * seconds)
    return out.getvalue()


def square_wav(seconds, rate=8000):
    """A square wave of @rate / 16 Hz (500 Hz at 8 kHz), @rate Hz mono
    16 bit: 2 * @rate bytes a second."""
    period = struct.pack("<16h", *([3000] * 8 + [-3000] * 8))
    out = io.BytesIO()
    with wave.open(out, "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(period * (rate * seconds // 16))
    return out.getvalue()


def silent_mp3(seconds, stereo=False):
    """Silence as MPEG-1 Layer III at 32 kbit/s, no Xing header: frames of
    1152 samples whose side information (all zero) gives each granule no
    bits, which any decoder plays as silence. MPD takes its length from
    its size: 4 kB a second. Mono is 32 kHz (144-byte frames); stereo is
    48 kHz (96-byte frames), whose decoded sound is three times as big:
    MPD's 4 MiB buffer then holds only some 20 s of it."""
    if stereo:
        frame, rate = b"\xff\xfb\x14\x00" + bytes(92), 48000
    else:
        frame, rate = b"\xff\xfb\x18\xc0" + bytes(140), 32000
    return frame * -(-seconds * rate // 1152)


def tagged_mp3(seconds, title, artist):
    """@seconds of silence as MP3 (MPEG-1 layer III frames, 128 kbit/s,
    44.1 kHz mono, whose all-zero side information decodes to silence)
    behind an ID3v2.4 tag with a title and an artist of its own: the tags
    that MPD puts in place of a queue entry's as the stream starts
    playing (it does not for a WAV)."""
    def syncsafe(n):
        return bytes([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f,
                      n & 0x7f])

    def frame(name, text):
        body = b"\x03" + text.encode()    # UTF-8
        return name + syncsafe(len(body)) + b"\0\0" + body
    tags = frame(b"TIT2", title) + frame(b"TPE1", artist)
    header = b"ID3\x04\x00\x00" + syncsafe(len(tags))
    # 1,152 samples a frame; 144 * 128000 / 44100 bytes, rounded down.
    mpeg = b"\xff\xfb\x90\xc0" + b"\0" * (417 - 4)
    return header + tags + mpeg * (seconds * 44100 // 1152)


def media_type(path):
    """The Content-Type of a file (an episode, a feed), by its name."""
    path = urllib.parse.urlsplit(path).path
    if path.endswith(".mp3"):
        return "audio/mpeg"
    if path.endswith(".wav"):
        return "audio/wav"
    if path.endswith(".xml"):
        return "application/rss+xml"
    return "application/octet-stream"


# A Range header asks for more than the file has.
UNSATISFIABLE = "unsatisfiable"


def byte_range(header, total):
    """The bytes a Range header asks of a file of @total bytes: (first,
    last), both included; None when there is no header or it is not one
    range of bytes (the whole file is the answer, as RFC 9110 allows);
    UNSATISFIABLE when it starts past the end (a 416)."""
    if header is None:
        return None
    m = re.fullmatch(r"\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*", header)
    if m is None or (m.group(1) == "" and m.group(2) == ""):
        return None
    if m.group(1) == "":
        # bytes=-N: the last N bytes.
        suffix = int(m.group(2))
        if suffix == 0 or total == 0:
            return UNSATISFIABLE
        return max(total - suffix, 0), total - 1
    first = int(m.group(1))
    last = int(m.group(2)) if m.group(2) else None
    if last is not None and last < first:
        return None
    if first >= total:
        return UNSATISFIABLE
    return first, total - 1 if last is None else min(last, total - 1)


class Handler(http.server.BaseHTTPRequestHandler):
    """Serves the server's files (Server.files); a subclass answers more
    in do_GET and calls serve_file() for the rest."""
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: with Nagle's algorithm the
    # body would wait 40 ms for the client's delayed ACK.
    disable_nagle_algorithm = True

    def log_message(self, format, *args):  # noqa: A002 - the base's name
        pass

    def do_GET(self):
        self.serve_file()

    def do_HEAD(self):
        self.do_GET()

    @property
    def route(self):
        """The request's path, without its query."""
        return urllib.parse.urlsplit(self.path).path

    def serve_file(self):
        """The file at this path, with ranges; 404 when there is none."""
        found = self.server.files.get(self.route)
        if found is None:
            self.reply(404, b"not here\n")
            return
        self.reply_ranged(found, media_type(self.route))

    def reply(self, status, body=b"", ctype="text/plain", headers=()):
        """An answer of @status with @body (not sent to a HEAD)."""
        self.server.note(self, status)
        self.send_response(status)
        if ctype is not None:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.write(body)

    def reply_ranged(self, data, ctype, headers=()):
        """@data as a host serves a file: the bytes a Range asks for (206),
        all of it (200), or a 416 when the range is past its end."""
        total = len(data)
        accept = [("Accept-Ranges", "bytes")] + list(headers)
        span = byte_range(self.headers.get("Range"), total)
        if span is None:
            self.reply(200, data, ctype, accept)
        elif span == UNSATISFIABLE:
            self.reply(416, b"", "text/plain",
                       accept + [("Content-Range", f"bytes */{total}")])
        else:
            first, last = span
            self.reply(206, memoryview(data)[first:last + 1], ctype,
                       accept + [("Content-Range",
                                  f"bytes {first}-{last}/{total}")])

    def write(self, body):
        """Writes @body; a client that hangs up (MPD seeks, stops or is
        killed) ends the connection, and is no error."""
        try:
            view = memoryview(body)
            for start in range(0, len(view), 65536):
                self.wfile.write(view[start:start + 65536])
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class Server(http.server.ThreadingHTTPServer):
    """A loopback HTTP server on 127.0.0.1 and a free port, serving in a
    thread of its own from the moment it is made.

    files       path -> bytes, served with ranges (by default Handler)
    requests    (method, path, Range or None, status) of each answer
    """
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, handler=Handler, files=None):
        super().__init__(("127.0.0.1", 0), handler)
        self.port = self.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.files = dict(files or {})
        self.requests = []
        self.thread = threading.Thread(target=self.serve_forever,
                                       daemon=True)
        self.thread.start()

    def url(self, path):
        return self.base + path

    def note(self, handler, status):
        self.requests.append((handler.command, handler.path,
                              handler.headers.get("Range"), status))

    def handle_error(self, request, client_address):
        # MPD drops connections when it seeks, stops or is killed.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)

    def close(self):
        self.shutdown()
        self.server_close()
