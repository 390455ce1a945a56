"""A loopback podcast host that misbehaves on purpose, for the tests of
mpd-bridge's relay: it throttles, cuts, stalls, refuses, ignores ranges,
changes a file between two requests, loses it, or goes down entirely, as
real hosts do. Its ranges, 206 and 416 answers are media.py's.

Standard library only. A test adds this directory to sys.path and
imports it:

    host = faulty.Host()                     # 127.0.0.1, a free port
    host.add("/ep.mp3", media.silent_mp3(60), rate=16000,
             cut_after_bytes=100000, cuts=1, refuse_seconds=2)
    host.url("/ep.mp3")                      # http://127.0.0.1:PORT/ep.mp3
    host.set("/ep.mp3", rate=None)           # at any time, from any thread
    [(r.status, r.range, r.sent, r.cut) for r in host.log_of("/ep.mp3")]
    host.hold()                              # down: nothing listens
    host.release()                           # back, on the same port
    host.close()

The faults of a file (File.FAULTS has their defaults: all off), all of
them combinable. Host.set() changes them at any time, answers under way
included: a stall or a throttled answer looks at them afresh at each
slice it sends.

    rate               bytes a second, in SLICES writes a second
    cut_after_bytes    the answer ends (the connection closes: the client
                       reads an end of file) after that many bytes of
                       its body
    cut_after_seconds  ... or that many seconds after it began
    cuts               how many answers these two cut; None: every one
    cut_reset          a cut is a TCP reset instead of a close
    stall_at           a byte of the file: an answer that reaches it stops
                       sending for stall_seconds, the connection open
    stall_seconds      how long (set it to 0 to end a stall under way)
    stalls             how many answers stall; None: every one
    stall_then         "resume" after the stall, or "cut"
    refuse_seconds     after a cut, the file's requests are refused for
                       that long: refuse="reset" drops the connection
                       without an answer, refuse=503 answers 503 with a
                       Retry-After
    ignore_ranges      a Range gets 200 and the whole file, without
                       Accept-Ranges (claim_ranges=True: with it, as
                       hosts that ignore what they claim)
    change_after       after that many requests of the file, it is
                       changed_to (other bytes, a later Last-Modified, a
                       new ETag): an If-Range of the old one gets a 200
                       of the new
    gone_after         after that many requests, gone_status (404, 410)
    no_length          no Content-Length and no Accept-Ranges: the whole
                       file, ranges or not, and a close ends the body
                       (a cut too: the client cannot tell)

Requests refused do not count for change_after and gone_after; the
first request after N counted ones is the first to see the change.

Each file has a strong ETag and a Last-Modified; If-Range with either
gets the range, anything else (a weak ETag too) the whole file, 200, as
RFC 9110 (13.1.5) says. Every answer has a Content-Length but no_length
ones.

Host.log has every request (a Request: method, path, range, if_range,
status, sent, cut, start, end) as it came, and is filled in as the
answer goes on; Host.log_of(path) copies a path's.
"""
import dataclasses
import email.utils
import hashlib
import math
import socket
import struct
import threading
import time

import media

# A throttled answer goes out in this many writes a second: a client
# sees a steady stream, as from a slow host, not a burst a second.
SLICES = 20

# Every file's Last-Modified; a changed file's is a day later.
BASE_TIME = 1725184800  # 2024-09-01T10:00:00Z

ACCEPT = ("Accept-Ranges", "bytes")


class Version:
    """A file's bytes and their validators. The ETag comes from the bytes
    and the date, as Apache's from the size and the time: a file changed
    to the same bytes gets a new one too."""

    def __init__(self, data, modified):
        self.data = bytes(data)
        self.modified = modified
        self.date = email.utils.formatdate(modified, usegmt=True)
        digest = hashlib.sha256(self.date.encode() + self.data).hexdigest()
        self.etag = f'"{digest[:20]}"'


class File:
    """A file the host serves, its faults, and what they have done so far
    (requests, cuts_done, stalls_done). Changed under Host.lock only."""

    FAULTS = {
        "rate": None,
        "cut_after_bytes": None,
        "cut_after_seconds": None,
        "cuts": None,
        "cut_reset": False,
        "stall_at": None,
        "stall_seconds": 0,
        "stalls": None,
        "stall_then": "resume",
        "refuse_seconds": 0,
        "refuse": "reset",
        "ignore_ranges": False,
        "claim_ranges": False,
        "change_after": None,
        "changed_to": None,
        "gone_after": None,
        "gone_status": 404,
        "no_length": False,
    }

    def __init__(self, data, faults):
        self.old = Version(data, BASE_TIME)
        self.new = None
        self.requests = 0     # counted ones: refusals aside
        self.cuts_done = 0    # by cut_after_bytes and cut_after_seconds
        self.stalls_done = 0
        self.refused_until = 0.0
        self.__dict__.update(self.FAULTS)
        self.set(faults)

    def set(self, faults):
        unknown = set(faults) - set(self.FAULTS)
        if unknown:
            raise TypeError(f"no such fault: {', '.join(sorted(unknown))}")
        changed_to = faults.get("changed_to", self.changed_to)
        if faults.get("change_after", self.change_after) is not None \
                and changed_to is None:
            raise ValueError("change_after needs changed_to")
        self.__dict__.update(faults)
        if "changed_to" in faults:
            self.new = (None if changed_to is None
                        else Version(changed_to, BASE_TIME + 86400))

    def may_cut(self):
        return self.cuts is None or self.cuts_done < self.cuts

    def may_stall(self):
        return self.stalls is None or self.stalls_done < self.stalls


@dataclasses.dataclass
class Request:
    """A request as the host saw it, and what became of it."""
    method: str
    path: str                   # without the query
    range: str | None           # the Range header
    if_range: str | None        # the If-Range header
    start: float                # time.monotonic() as it came
    status: int | None = None   # None: dropped without an answer
    sent: int = 0               # bytes of the body written
    cut: bool = False           # by a fault, or by hold()
    end: float | None = None    # None while the answer goes on


class Handler(media.Handler):
    """Answers the host's files with their faults; the body goes out in
    write(), slice by slice."""

    def do_GET(self):
        self.record = Request(self.command, self.route,
                              self.headers.get("Range"),
                              self.headers.get("If-Range"), time.monotonic())
        self.file = None   # set once the body is the file's
        self.offset = 0    # the body's first byte in the file
        with self.server.lock:
            self.server.log.append(self.record)
        try:
            self.answer()
        finally:
            self.record.end = time.monotonic()

    def answer(self):
        host = self.server
        with host.lock:
            f = host.files.get(self.route)
            refusal, left = None, 0
            if host.down:
                # A connection kept alive from before hold().
                refusal = "reset"
            elif f is not None:
                left = f.refused_until - time.monotonic()
                if left > 0:
                    refusal = f.refuse
                else:
                    f.requests += 1
                    gone = (f.gone_after is not None
                            and f.requests > f.gone_after)
                    changed = (f.change_after is not None
                               and f.requests > f.change_after)
                    version = f.new if changed else f.old
                    ignore, claim = f.ignore_ranges, f.claim_ranges
                    unbounded = f.no_length
        if refusal == "reset":
            self.reset()
        elif refusal is not None:
            self.reply(refusal, b"come back later\n",
                       headers=[("Retry-After", str(math.ceil(left)))])
        elif f is None:
            self.reply(404, b"not here\n")
        elif gone:
            self.reply(f.gone_status, b"gone\n")
        else:
            self.file = f
            self.serve_version(version, ignore, claim, unbounded)

    def serve_version(self, version, ignore, claim, unbounded):
        data, ctype = version.data, media.media_type(self.route)
        validators = [("ETag", version.etag), ("Last-Modified", version.date)]
        if unbounded:
            self.reply_unbounded(data, ctype, validators)
        elif ignore:
            self.reply(200, data, ctype,
                       validators + ([ACCEPT] if claim else []))
        elif not self.if_range_holds(version):
            self.reply(200, data, ctype, [ACCEPT] + validators)
        else:
            span = media.byte_range(self.headers.get("Range"), len(data))
            if isinstance(span, tuple):
                self.offset = span[0]
            self.reply_ranged(data, ctype, validators)

    def if_range_holds(self, version):
        """RFC 9110, 13.1.5: the Range counts only when If-Range names the
        version served, by its ETag (strongly: never a weak one) or by
        its Last-Modified, exactly."""
        condition = self.headers.get("If-Range")
        if condition is None:
            return True
        condition = condition.strip()
        if condition.startswith(('"', "W/")):
            return condition == version.etag
        try:
            date = email.utils.parsedate_to_datetime(condition)
        except (TypeError, ValueError):
            return False
        return date.tzinfo is not None and date.timestamp() == version.modified

    def reply_unbounded(self, data, ctype, headers):
        """@data whole and without a length: the body ends when the
        connection closes, as HTTP/1.0 allows."""
        self.server.note(self, 200)
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        if self.command != "HEAD":
            self.write(data)

    def write(self, body):
        if self.file is None:
            super().write(body)     # a short answer: 404, 503, gone
            return
        try:
            self.send_faulty(memoryview(body))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def send_faulty(self, body):
        """Writes @body as the file's faults say. Each turn decides under
        the lock, where it waits too (Host.set() and hold() wake it), and
        writes outside it."""
        host, f, record = self.server, self.file, self.record
        start = pace = time.monotonic()
        stall_began = None   # the time of a stall under way
        stalled = False      # an answer stalls once at most
        while record.sent < len(body):
            with host.lock:
                now = time.monotonic()
                offset = self.offset + record.sent
                cut_time = math.inf
                if f.may_cut() and f.cut_after_seconds is not None:
                    cut_time = start + f.cut_after_seconds
                if host.down:
                    self.cut(f, refuse=False)
                    return
                if now >= cut_time or (f.may_cut()
                                       and f.cut_after_bytes is not None
                                       and record.sent >= f.cut_after_bytes):
                    f.cuts_done += 1
                    self.cut(f)
                    return
                if (not stalled and offset == f.stall_at
                        and f.may_stall()):
                    f.stalls_done += 1
                    stalled, stall_began = True, now
                if stall_began is not None:
                    if now < stall_began + f.stall_seconds:
                        host.changed.wait(
                            min(stall_began + f.stall_seconds, cut_time)
                            - now)
                        continue
                    stall_began = None
                    if f.stall_then == "cut":
                        self.cut(f)
                        return
                if f.rate and now < pace:
                    host.changed.wait(min(pace, cut_time) - now)
                    continue
                size = len(body) - record.sent
                size = min(size, max(1, int(f.rate / SLICES))
                           if f.rate else 65536)
                if f.may_cut() and f.cut_after_bytes is not None:
                    size = min(size, f.cut_after_bytes - record.sent)
                if not stalled and f.stall_at is not None \
                        and f.stall_at > offset:
                    size = min(size, f.stall_at - offset)
                if f.rate:
                    # From the later of the schedule and now: no burst to
                    # catch up after a stall.
                    pace = max(pace, now) + size / f.rate
            self.wfile.write(body[record.sent:record.sent + size])
            record.sent += size

    def cut(self, f, refuse=True):
        """Ends the answer in the middle of its body; called under the
        lock. @refuse: the file's refusal begins (not when the whole host
        goes down)."""
        self.record.cut = True
        if refuse and f.refuse_seconds:
            f.refused_until = time.monotonic() + f.refuse_seconds
        if f.cut_reset:
            self.reset()
            return
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def reset(self):
        """Drops the connection with a TCP reset: SO_LINGER of 0, and the
        socket closes once the request's file is (in finish())."""
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                   struct.pack("ii", 1, 0))
        self.connection.close()


class Host(media.Server):
    """The faulty host on 127.0.0.1 and a free port, serving in a thread
    of its own from the moment it is made.

    files   path -> File: add() them, set() their faults
    log     every Request, in order of arrival
    """

    def __init__(self, files=None):
        self.lock = threading.Lock()
        # Wakes the answers that wait (a stall, a throttle) when a test
        # changes a fault or the host goes down.
        self.changed = threading.Condition(self.lock)
        self.down = False
        self.log = []
        super().__init__(Handler)
        for path, data in (files or {}).items():
            self.add(path, data)

    def serve_forever(self, poll_interval=0.05):
        # hold() and close() wait for the loop to see them: a twentieth
        # of a second rather than half.
        super().serve_forever(poll_interval)

    def add(self, path, data, **faults):
        """Serves @data at @path (anew, if it was there) with @faults."""
        f = File(data, faults)
        with self.lock:
            self.files[path] = f
            self.changed.notify_all()

    def set(self, path, **faults):
        """Changes faults of the file at @path, answers under way too."""
        with self.lock:
            self.files[path].set(faults)
            self.changed.notify_all()

    def log_of(self, path):
        with self.lock:
            return [r for r in self.log if r.path == path]

    def note(self, handler, status):
        handler.record.status = status
        super().note(handler, status)

    def go_down(self):
        with self.lock:
            self.down = True
            self.changed.notify_all()

    def hold(self):
        """The host goes down: its answers under way are cut, and nothing
        listens on its port (a connection is refused) until release()."""
        self.go_down()
        self.shutdown()
        self.socket.close()

    def release(self):
        """The host comes back on the same port. Another program may take
        the port meanwhile; on loopback, in a test, none does."""
        self.socket = socket.socket(self.address_family, self.socket_type)
        self.server_bind()
        self.server_activate()
        with self.lock:
            self.down = False
        self.thread = threading.Thread(target=self.serve_forever,
                                       daemon=True)
        self.thread.start()

    def close(self):
        # Stalled and throttled answers end too.
        self.go_down()
        super().close()
