#!/usr/bin/env python3
"""The faulty host itself (tests/support/faulty.py): each fault does what
it says, as http.client sees it, for the relay's tests trust it to.

Prints TAP. Standard library only; each test has a host of its own. Its
times are a second at most, and their bounds loose: it runs under
valgrind in CI too.
"""
import email.utils
import hashlib
import http.client
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faulty  # noqa: E402


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def blob(name, size):
    """Bytes that differ at every offset: a body cut or shifted by any
    number of bytes is not a prefix of another's by chance."""
    return hashlib.shake_256(name.encode()).digest(size)


class Answer:
    """What a client got: status (None: no answer), headers, body, error
    (None: the whole body; "short": fewer bytes than Content-Length; or
    the exception that ended it), and arrivals, (seconds since the
    request, bytes so far) at each read."""

    def __init__(self):
        self.status, self.headers, self.body = None, {}, b""
        self.error, self.arrivals = None, []
        self.start = self.end = time.monotonic()

    def __str__(self):
        return (f"{self.status} {dict(self.headers)} {len(self.body)} bytes"
                f" error={self.error!r} in {self.end - self.start:.2f} s")


def fetch(host, path, headers=None, method="GET"):
    a = Answer()
    body = bytearray()
    c = http.client.HTTPConnection("127.0.0.1", host.port, timeout=10)
    try:
        c.request(method, path, headers=headers or {})
        r = c.getresponse()
        a.status, a.headers = r.status, r.headers
        while chunk := r.read1(65536):
            body += chunk
            a.arrivals.append((time.monotonic() - a.start, len(body)))
        length = r.headers.get("Content-Length")
        if method == "GET" and length and len(body) < int(length):
            a.error = "short"
    except (ConnectionError, http.client.HTTPException) as e:
        a.error = e
    finally:
        c.close()
    a.body, a.end = bytes(body), time.monotonic()
    return a


def expect(a, status, body, error=None):
    check(a.status == status and a.body == body and a.error == error,
          f"wanted {status}, {len(body)} bytes, error={error!r}; got {a}")


def later(seconds, function, *args, **kwargs):
    """Calls @function in @seconds, in a thread: a test's change of a
    fault during an answer."""
    t = threading.Timer(seconds, function, args, kwargs)
    t.daemon = True
    t.start()


def bytes_by(a, seconds):
    return max((n for t, n in a.arrivals if t <= seconds), default=0)


def test_range(host):
    """a Range gets 206 with its Content-Range, past the end a 416"""
    data = blob("range", 1000)
    host.add("/range.mp3", data)
    a = fetch(host, "/range.mp3")
    expect(a, 200, data)
    check(a.headers["Content-Length"] == "1000"
          and a.headers["Accept-Ranges"] == "bytes", str(a))
    check(a.headers["ETag"].startswith('"')
          and email.utils.parsedate_to_datetime(a.headers["Last-Modified"]),
          f"validators: {a}")
    a = fetch(host, "/range.mp3", {"Range": "bytes=100-199"})
    expect(a, 206, data[100:200])
    check(a.headers["Content-Range"] == "bytes 100-199/1000"
          and a.headers["Content-Length"] == "100", str(a))
    a = fetch(host, "/range.mp3", {"Range": "bytes=1000-"})
    expect(a, 416, b"")
    check(a.headers["Content-Range"] == "bytes */1000", str(a))


def test_if_range(host):
    """If-Range: the ETag or date gets the range, another the whole file"""
    data = blob("if-range", 1000)
    host.add("/if.mp3", data)
    a = fetch(host, "/if.mp3", method="HEAD")
    etag, date = a.headers["ETag"], a.headers["Last-Modified"]
    other_date = email.utils.formatdate(faulty.BASE_TIME + 1, usegmt=True)
    for condition, status in [(etag, 206), (date, 206),
                              ('"other"', 200), ("W/" + etag, 200),
                              (other_date, 200)]:
        a = fetch(host, "/if.mp3",
                  {"Range": "bytes=10-19", "If-Range": condition})
        expect(a, status, data[10:20] if status == 206 else data)


def test_rate(host):
    """rate: about the rate, as a steady stream, not a burst a second"""
    data = blob("rate", 20000)
    host.add("/rate.mp3", data, rate=20000)
    a = fetch(host, "/rate.mp3")
    expect(a, 200, data)
    took = a.arrivals[-1][0]
    check(0.8 <= took <= 2.0, f"20000 bytes at 20000 B/s took {took:.2f} s")
    half = bytes_by(a, 0.5)
    check(5000 <= half <= 15000, f"{half} bytes in the first half second")
    check(len(a.arrivals) >= 10, f"in {len(a.arrivals)} pieces")


def test_set_during(host):
    """set() reaches an answer under way: a throttle lifted speeds it up"""
    data = blob("set", 40000)
    host.add("/set.mp3", data, rate=10000)
    later(0.3, host.set, "/set.mp3", rate=None)
    a = fetch(host, "/set.mp3")
    expect(a, 200, data)
    check(bytes_by(a, 0.2) <= 4000, f"not throttled at first: {a.arrivals}")
    check(a.end - a.start < 1.5, f"not sped up: {a}")


def test_cut_bytes(host):
    """cut_after_bytes: N bytes of the body, then an end; cuts counts"""
    data = blob("cut", 20000)
    host.add("/cut.mp3", data, cut_after_bytes=5000, cuts=1)
    a = fetch(host, "/cut.mp3")
    expect(a, 200, data[:5000], "short")
    check(a.headers["Content-Length"] == "20000", str(a))
    r = host.log_of("/cut.mp3")[-1]
    check(r.cut and r.sent == 5000, f"logged {r}")
    # One cut only: the next answer is whole.
    expect(fetch(host, "/cut.mp3"), 200, data)
    host.set("/cut.mp3", cuts=None)
    for _ in range(2):
        a = fetch(host, "/cut.mp3", {"Range": "bytes=5000-"})
        expect(a, 206, data[5000:10000], "short")


def test_cut_reset(host):
    """cut_reset: N bytes of the body, then a TCP reset"""
    data = blob("reset", 20000)
    host.add("/reset.mp3", data, cut_after_bytes=5000, cut_reset=True)
    a = fetch(host, "/reset.mp3")
    check(a.status == 200 and type(a.error) is ConnectionResetError
          and data.startswith(a.body) and len(a.body) <= 5000, str(a))
    check(host.log_of("/reset.mp3")[-1].sent == 5000,
          f"logged {host.log_of('/reset.mp3')}")


def test_cut_seconds(host):
    """cut_after_seconds: a throttled answer ends that long after it began"""
    data = blob("seconds", 40000)
    host.add("/seconds.mp3", data, rate=20000, cut_after_seconds=0.5)
    a = fetch(host, "/seconds.mp3")
    check(a.status == 200 and a.error == "short"
          and data.startswith(a.body), str(a))
    check(0.4 <= a.end - a.start <= 1.2 and 5000 <= len(a.body) <= 14000,
          str(a))


def test_stall(host):
    """stall_at: the answer stops at that byte a while, then goes on"""
    data = blob("stall", 8000)
    host.add("/stall.mp3", data, rate=40000, stall_at=4000,
             stall_seconds=0.4, stalls=2)
    for first in (0, 3000):
        a = fetch(host, "/stall.mp3", {"Range": f"bytes={first}-"})
        expect(a, 206, data[first:])
        stop = [t for t, n in a.arrivals if n == 4000 - first]
        after = [t for t, n in a.arrivals if n > 4000 - first]
        check(stop and stop[0] < 0.3 and after[0] - stop[0] >= 0.35,
              f"no stall at byte 4000: {a.arrivals}")
        # The rest at the rate still, 2000 bytes a slice: no burst to
        # make up for the stall.
        check(bytes_by(a, after[0] + 0.03) <= 6000 - first,
              f"a burst after the stall: {a.arrivals}")
    check(not any(r.cut for r in host.log_of("/stall.mp3")), "cut")
    # stalls=2: the next answer goes through.
    a = fetch(host, "/stall.mp3")
    expect(a, 200, data)
    check(a.end - a.start < 0.35, f"stalled again: {a}")


def test_stall_then_cut(host):
    """stall_then="cut": the stalled answer ends at the stall's end"""
    data = blob("stall-cut", 20000)
    host.add("/stallcut.mp3", data, stall_at=5000, stall_seconds=0.4,
             stall_then="cut")
    a = fetch(host, "/stallcut.mp3")
    expect(a, 200, data[:5000], "short")
    check(a.end - a.start >= 0.35, f"cut before the stall's end: {a}")


def test_stall_ended(host):
    """set(stall_seconds=0) ends a stall under way"""
    data = blob("stall-end", 20000)
    host.add("/stallend.mp3", data, stall_at=5000, stall_seconds=60)
    later(0.3, host.set, "/stallend.mp3", stall_seconds=0)
    a = fetch(host, "/stallend.mp3")
    expect(a, 200, data)
    check(0.25 <= a.end - a.start < 2, str(a))


def test_refuse_reset(host):
    """refuse_seconds: after a cut, resets for a while, then answers"""
    data = blob("refuse", 10000)
    host.add("/refuse.mp3", data, cut_after_bytes=1000, cuts=1,
             refuse_seconds=0.6)
    a = fetch(host, "/refuse.mp3")
    expect(a, 200, data[:1000], "short")
    b = fetch(host, "/refuse.mp3")
    check(b.status is None and isinstance(b.error, ConnectionResetError),
          f"not reset: {b}")
    time.sleep(max(0, a.end + 0.7 - time.monotonic()))
    expect(fetch(host, "/refuse.mp3"), 200, data)
    statuses = [r.status for r in host.log_of("/refuse.mp3")]
    check(statuses == [200, None, 200], f"logged {statuses}")
    check(host.files["/refuse.mp3"].requests == 2,
          "a refusal counted as a request")


def test_refuse_503(host):
    """refuse=503: after a cut, 503 with a Retry-After, then answers"""
    data = blob("busy", 10000)
    host.add("/busy.mp3", data, cut_after_bytes=1000, cuts=1,
             refuse_seconds=0.6, refuse=503)
    a = fetch(host, "/busy.mp3")
    expect(a, 200, data[:1000], "short")
    b = fetch(host, "/busy.mp3")
    check(b.status == 503 and b.headers["Retry-After"] == "1", str(b))
    time.sleep(max(0, a.end + 0.7 - time.monotonic()))
    expect(fetch(host, "/busy.mp3"), 200, data)


def test_ignore_ranges(host):
    """ignore_ranges: a Range gets 200 and all, Accept-Ranges or not"""
    data = blob("ignore", 5000)
    host.add("/ignore.mp3", data, ignore_ranges=True)
    a = fetch(host, "/ignore.mp3", {"Range": "bytes=100-199"})
    expect(a, 200, data)
    check("Accept-Ranges" not in a.headers and "Content-Range" not in
          a.headers and a.headers["Content-Length"] == "5000", str(a))
    host.set("/ignore.mp3", claim_ranges=True)
    a = fetch(host, "/ignore.mp3", {"Range": "bytes=100-199"})
    expect(a, 200, data)
    check(a.headers["Accept-Ranges"] == "bytes", str(a))


def test_change_after(host):
    """change_after: the old ETag's If-Range gets 200 of the new file"""
    old, new = blob("old", 10000), blob("new", 12000)
    host.add("/change.mp3", old, change_after=1, changed_to=new)
    a = fetch(host, "/change.mp3")
    expect(a, 200, old)
    b = fetch(host, "/change.mp3",
              {"Range": "bytes=5000-", "If-Range": a.headers["ETag"]})
    expect(b, 200, new)
    check(b.headers["ETag"] != a.headers["ETag"]
          and email.utils.parsedate_to_datetime(b.headers["Last-Modified"])
          > email.utils.parsedate_to_datetime(a.headers["Last-Modified"]),
          f"validators: {a.headers} then {b.headers}")
    c = fetch(host, "/change.mp3",
              {"Range": "bytes=5000-", "If-Range": b.headers["ETag"]})
    expect(c, 206, new[5000:])
    check(c.headers["Content-Range"] == "bytes 5000-11999/12000", str(c))


def test_gone_after(host):
    """gone_after: after N requests, gone_status from then on"""
    data = blob("gone", 1000)
    host.add("/gone.mp3", data, gone_after=2, gone_status=410)
    statuses = [fetch(host, "/gone.mp3").status for _ in range(4)]
    check(statuses == [200, 200, 410, 410], f"answers {statuses}")
    host.set("/gone.mp3", gone_status=404)
    check(fetch(host, "/gone.mp3").status == 404, "not 404")


def test_no_length(host):
    """no_length: no Content-Length, no ranges, a close ends the body"""
    data = blob("nolength", 20000)
    host.add("/nolength.mp3", data, no_length=True)
    a = fetch(host, "/nolength.mp3", {"Range": "bytes=100-"})
    expect(a, 200, data)
    check("Content-Length" not in a.headers and "Accept-Ranges" not in
          a.headers and a.headers["Connection"] == "close", str(a))
    # A cut looks like the end: the client cannot tell.
    host.set("/nolength.mp3", cut_after_bytes=5000)
    expect(fetch(host, "/nolength.mp3"), 200, data[:5000])


def test_hold(host):
    """hold() cuts answers and refuses connections; release() reopens"""
    data = blob("hold", 20000)
    host.add("/hold.mp3", data, rate=20000)
    port = host.port
    answers = []
    t = threading.Thread(
        target=lambda: answers.append(fetch(host, "/hold.mp3")))
    t.start()
    time.sleep(0.3)
    host.hold()
    t.join(5)
    a = answers[0]
    check(a.status == 200 and a.error == "short"
          and 0 < len(a.body) < 15000, f"not cut: {a}")
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        check(False, "a connection while held")
    except ConnectionRefusedError:
        pass
    host.release()
    host.set("/hold.mp3", rate=None)
    check(host.server_address[1] == port, "another port")
    expect(fetch(host, "/hold.mp3"), 200, data)


def test_log(host):
    """the log: method, path, Range, If-Range, status, sent, cut, times"""
    data = blob("log", 3000)
    host.add("/log.mp3", data, cut_after_bytes=1000)
    etag = fetch(host, "/log.mp3", method="HEAD").headers["ETag"]
    fetch(host, "/log.mp3?x=1", {"Range": "bytes=500-", "If-Range": etag})
    fetch(host, "/nothing.mp3")
    head, get = host.log_of("/log.mp3")
    check((head.method, head.status, head.sent, head.cut)
          == ("HEAD", 200, 0, False), f"logged {head}")
    check((get.method, get.path, get.range, get.if_range, get.status,
           get.sent, get.cut) == ("GET", "/log.mp3", "bytes=500-", etag, 206,
                                  1000, True), f"logged {get}")
    # The host ends a record after the client has its answer: the HEAD's
    # may end only after the GET was sent, and after the log is read here.
    deadline = time.monotonic() + 5
    while (head.end is None or get.end is None) and \
            time.monotonic() < deadline:
        time.sleep(0.01)
    check(head.end is not None and get.end is not None,
          f"records not ended: {head}, {get}")
    check(head.start <= head.end and head.start <= get.start <= get.end,
          "times")
    check([r.status for r in host.log_of("/nothing.mp3")] == [404],
          "a missing file")


def test_resume(host):
    """faults at once: a client resuming as the relay will gets it all"""
    data = blob("all", 40000)
    host.add("/all.mp3", data, rate=100000, cut_after_bytes=7000, cuts=3,
             refuse_seconds=0.2, refuse=503, stall_at=20000,
             stall_seconds=0.2, stalls=1)
    got, etag = b"", None
    for _ in range(40):
        headers = {}
        if got:
            headers = {"Range": f"bytes={len(got)}-", "If-Range": etag}
        a = fetch(host, "/all.mp3", headers)
        if a.status == 503:
            time.sleep(0.05)
            continue
        check(a.status == (206 if got else 200), str(a))
        etag = a.headers["ETag"]
        got += a.body
        if a.error is None:
            break
    check(got == data, f"{len(got)} bytes, not the file's")
    log = host.log_of("/all.mp3")
    check(sum(r.cut for r in log) == 3
          and any(r.status == 503 for r in log), f"logged {log}")


TESTS = [test_range, test_if_range, test_rate, test_set_during,
         test_cut_bytes, test_cut_reset, test_cut_seconds, test_stall,
         test_stall_then_cut, test_stall_ended, test_refuse_reset,
         test_refuse_503, test_ignore_ranges, test_change_after,
         test_gone_after, test_no_length, test_hold, test_log, test_resume]


def main():
    began = time.monotonic()
    print(f"1..{len(TESTS)}")
    failed = 0
    for i, test in enumerate(TESTS, 1):
        host = faulty.Host()
        try:
            test(host)
            print(f"ok {i} - {test.__doc__}")
        except Exception as e:  # noqa: BLE001 - reported as TAP
            failed += 1
            print(f"not ok {i} - {test.__doc__}")
            for line in str(e).splitlines():
                print(f"# {line}")
            for r in host.log:
                print(f"# host: {r}")
        finally:
            host.close()
        sys.stdout.flush()
    print(f"# {time.monotonic() - began:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
