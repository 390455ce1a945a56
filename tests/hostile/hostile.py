"""Shared by the hostile-input tests: a table of cases, each with the
outcome it must have, run as TAP; processes measured for time and peak
memory; the loopback feed server with hostile paths; a listener that
counts who connects.

Standard library only. A test adds this directory to sys.path and imports
it.
"""
import importlib.util
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zlib

FEEDTOOL = os.environ.get("FEEDTOOL", "")
PROBE = os.environ.get("FEED_PROBE", "")
BRIDGE = os.environ.get("MPD_BRIDGE", "")
SERVER = os.environ.get("FEED_TEST_SERVER", "")

MiB = 1 << 20
GiB = 1 << 30


class Failed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failed(message)


class Case:
    """One row of a table: what is thrown, and what must come of it."""

    def __init__(self, name, expected, run):
        self.name = name
        self.expected = expected
        self.run = run


def run_table(cases, setup=None, teardown=None):
    """Runs @cases as TAP; returns the exit status. Each line names the
    case and its expected outcome; a failure adds what was observed."""
    print(f"1..{len(cases)}", flush=True)
    world = None
    failed = 0
    try:
        world = setup() if setup else None
    except Exception as e:  # noqa: BLE001 - reported as TAP
        for i, case in enumerate(cases, 1):
            print(f"not ok {i} - {case.name} -> {case.expected}\n# setup: "
                  f"{e}")
        return 1
    try:
        for i, case in enumerate(cases, 1):
            start = time.monotonic()
            try:
                observed = case.run(world) if world is not None \
                    else case.run()
                status = "ok"
            except Exception as e:  # noqa: BLE001 - reported as TAP
                observed = None
                status = "not ok"
                failed += 1
                detail = str(e) if isinstance(e, Failed) \
                    else traceback.format_exc()
            print(f"{status} {i} - {case.name} -> {case.expected}")
            if status == "ok":
                if observed:
                    print(f"# observed: {observed}")
            else:
                for line in detail.splitlines()[:40]:
                    print(f"# {line}")
            print(f"# {time.monotonic() - start:.2f} s", flush=True)
    finally:
        if teardown is not None and world is not None:
            teardown(world)
    return 1 if failed else 0


class Outcome:
    def __init__(self, returncode, stdout, stderr, seconds, max_rss):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.seconds = seconds
        self.max_rss = max_rss  # bytes
        self.received = None  # bytes a fetch received, when it says

    def text(self):
        return (self.stdout + self.stderr).decode("utf-8", "replace")

    def describe(self):
        return (f"exit {self.returncode}, {self.seconds:.2f} s, peak RSS "
                f"{self.max_rss / MiB:.1f} MiB")


# Linux keeps a process's peak RSS across exec, and a child started from
# this (large) interpreter would inherit its peak. So each program is
# started by a small fresh interpreter that forks it and writes its
# wait4() figures to the file descriptor it is given.
LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    try:
        os.execv(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
os.write(int(sys.argv[1]),
         b"%d %d" % (os.waitstatus_to_exitcode(status), usage.ru_maxrss))
"""


def measured(args, stdin=None, env=None, timeout=120, cwd=None):
    """Runs @args; its output, exit status (negative for a signal), wall
    time and peak RSS (of that process alone)."""
    start = time.monotonic()
    read_end, write_end = os.pipe()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            process = subprocess.Popen(
                [sys.executable, "-S", "-c", LAUNCHER, str(write_end),
                 *args],
                stdin=stdin if stdin is not None else subprocess.DEVNULL,
                stdout=out, stderr=err, env=env, cwd=cwd,
                pass_fds=(write_end,), start_new_session=True)
        finally:
            os.close(write_end)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()
            os.close(read_end)
            raise Failed(f"{args[:2]} took more than {timeout} s")
        with os.fdopen(read_end, "rb") as f:
            report = f.read().split()
        seconds = time.monotonic() - start
        check(len(report) == 2, f"{args[:2]} could not be started")
        out.seek(0)
        err.seek(0)
        return Outcome(int(report[0]), out.read(), err.read(), seconds,
                       int(report[1]) * 1024)


def sanitized():
    """Whether the programs under test run under AddressSanitizer, whose
    shadow memory and quarantine make their RSS larger."""
    return os.environ.get("HOSTILE_SANITIZE", "none") not in ("", "none")


def tool_env(extra=None):
    """The environment of the programs under test. Under ASan two options
    change. The quarantine of freed memory (256 MiB by default) is made
    4 MiB, so that peak RSS measures what the program holds rather than
    what ASan keeps; a use after free is then caught while the block is
    among the last 4 MiB freed. And allocations are recorded with the
    fast frame-pointer unwinder: the slow one CI asks for
    (fast_unwind_on_malloc=0, for readable leak reports) makes parsing
    100 MB take minutes instead of seconds."""
    env = dict(os.environ)
    if sanitized():
        options = env.get("ASAN_OPTIONS", "")
        env["ASAN_OPTIONS"] = (options + ":" if options else "") + \
            "quarantine_size_mb=4:fast_unwind_on_malloc=1"
    if extra:
        env.update(extra)
    return env


def baseline_rss(path):
    """Peak RSS of feed-probe on a tiny feed in this build: what the code
    and libraries cost before any document."""
    with open(path, "wb") as f:
        f.write(b'<rss version="2.0"><channel><title>t</title><item>'
                b"<title>e</title></item></channel></rss>")
    return measured([PROBE, "parse", path], env=tool_env()).max_rss


def probe(*args, timeout=120):
    """feed-probe's first line as ["ok", EPISODES] or ["error", CODE,
    MESSAGE], with the Outcome; after a fetch, Outcome.received is the
    bytes it received."""
    outcome = measured([PROBE, *args], env=tool_env(), timeout=timeout)
    lines = outcome.stdout.decode("utf-8", "replace").splitlines()
    fields = lines[0].split(" ", 2) if lines else []
    check(fields and fields[0] in ("ok", "error"),
          f"feed-probe said {lines!r}: {outcome.stderr[-2000:]!r}")
    if len(lines) > 1 and lines[1].startswith("received "):
        outcome.received = int(lines[1].split()[1])
    return fields, outcome


def expect_error(fields, code):
    check(fields[0] == "error" and fields[1] == code,
          f"expected FEED_ERROR_{code}, got {' '.join(fields)}")


# Control characters that must never reach a playlist line or MPD: C0
# but tab (which becomes a space too), DEL, C1, and the Unicode line and
# paragraph separators.
def control_characters(text):
    return [c for c in text
            if ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f or
            c in "\u2028\u2029"]


def load_feed_server():
    spec = importlib.util.spec_from_file_location("feed_server", SERVER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def crc32_combine(crc1, crc2, len2):
    """zlib's crc32_combine(): the CRC of A+B from those of A and B."""
    def times(mat, vec):
        total = 0
        i = 0
        while vec:
            if vec & 1:
                total ^= mat[i]
            vec >>= 1
            i += 1
        return total

    def square(mat):
        return [times(mat, mat[n]) for n in range(32)]

    if len2 <= 0:
        return crc1
    odd = [0xEDB88320] + [1 << n for n in range(31)]
    even = square(odd)
    odd = square(even)
    while True:
        even = square(odd)
        if len2 & 1:
            crc1 = times(even, crc1)
        len2 >>= 1
        if not len2:
            break
        odd = square(even)
        if len2 & 1:
            crc1 = times(odd, crc1)
        len2 >>= 1
        if not len2:
            break
    return crc1 ^ crc2


class GzipBomb:
    """A gzip member of @size bytes: an RSS head, then spaces. Made of one
    compressed 1 MiB block repeated (a full flush makes each block stand
    alone), so it streams in constant memory and costs no time to make.
    The trailer's CRC is computed without inflating anything."""

    BLOCK = MiB

    def __init__(self, size):
        head = (b'<?xml version="1.0"?>\n<rss version="2.0"><channel>'
                b"<title>bomb</title>")
        tail = b"</channel></rss>\n"
        z = zlib.compressobj(9, zlib.DEFLATED, -15)
        self.head = (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" +
                     z.compress(head) + z.flush(zlib.Z_FULL_FLUSH))
        padding = b" " * self.BLOCK
        self.block = z.compress(padding) + z.flush(zlib.Z_FULL_FLUSH)
        again = z.compress(padding) + z.flush(zlib.Z_FULL_FLUSH)
        assert again == self.block
        self.count = max(0, (size - len(head) - len(tail)) // self.BLOCK)
        inflated = len(head) + self.count * self.BLOCK + len(tail)
        crc = zlib.crc32(head)
        block_crc = zlib.crc32(padding)
        # CRC of the padding, by doubling: count blocks of BLOCK bytes.
        run_crc, run_len, n = 0, 0, self.count
        unit_crc, unit_len = block_crc, self.BLOCK
        while n:
            if n & 1:
                run_crc = crc32_combine(run_crc, unit_crc, unit_len) \
                    if run_len else unit_crc
                run_len += unit_len
            unit_crc = crc32_combine(unit_crc, unit_crc, unit_len)
            unit_len *= 2
            n >>= 1
        crc = crc32_combine(crc, run_crc, run_len) if run_len else crc
        crc = crc32_combine(crc, zlib.crc32(tail), len(tail))
        self.tail = (z.compress(tail) + z.flush() +
                     crc.to_bytes(4, "little") +
                     (inflated & 0xFFFFFFFF).to_bytes(4, "little"))
        self.inflated = inflated
        self.length = len(self.head) + self.count * len(self.block) + \
            len(self.tail)

    def chunks(self):
        yield self.head
        group = self.block * 64
        n = self.count
        while n >= 64:
            yield group
            n -= 64
        if n:
            yield self.block * n
        yield self.tail


class Listener:
    """A loopback TCP port that counts the connections it is offered, for
    the schemes and entities that must never connect anywhere."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(16)
        self.port = self.socket.getsockname()[1]
        self.connections = 0
        self.lock = threading.Lock()
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                conn, _ = self.socket.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
            conn.close()

    def count(self):
        with self.lock:
            return self.connections


class Server:
    """feed-server.py's server in this process, with the hostile paths of
    @routes (path -> function(handler)) before its own."""

    def __init__(self, routes):
        module = load_feed_server()

        class Handler(module.Handler):
            def route(self, path):
                action = routes.get(path)
                if action is None:
                    return super().route(path)
                return action(self)

        self.module = module
        self.httpd = module.Server(("127.0.0.1", 0), "http")
        self.httpd.RequestHandlerClass = Handler
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.1},
            daemon=True)
        self.thread.start()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def stream(handler, chunks, length, headers=()):
    """Answers 200 with @chunks, announcing @length bytes; a client that
    hangs up early ends it."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/rss+xml")
    handler.send_header("Content-Length", str(length))
    for key, value in headers:
        handler.send_header(key, value)
    handler.end_headers()
    try:
        for chunk in chunks:
            handler.wfile.write(chunk)
    except (ConnectionError, BrokenPipeError):
        pass
    handler.close_connection = True


class TempDir:
    def __init__(self, prefix):
        self.path = tempfile.mkdtemp(prefix=prefix)

    def join(self, *names):
        return os.path.join(self.path, *names)

    def close(self):
        shutil.rmtree(self.path, ignore_errors=True)


def rss(items, title="Hostile", head="", channel_extra=""):
    """An RSS 2.0 document as bytes; @items are byte strings."""
    parts = [b'<?xml version="1.0" encoding="UTF-8"?>\n', _b(head),
             b'<rss version="2.0" '
             b'xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">'
             b"\n<channel>\n<title>", _b(title), b"</title>\n",
             _b(channel_extra)]
    parts.extend(_b(i) for i in items)
    parts.append(b"</channel>\n</rss>\n")
    return b"".join(parts)


def item(title, url, guid, extra=""):
    return (b"<item><title>" + _b(title) + b"</title><guid>" + _b(guid) +
            b'</guid><enclosure url="' + _b(url) +
            b'" type="audio/mpeg" length="1000"/>' + _b(extra) +
            b"</item>\n")


def _b(text):
    return text if isinstance(text, bytes) else text.encode()


def write_big_feed(path, size):
    """An RSS feed of at least @size bytes of ordinary episodes, written
    as it is made; returns how many episodes it has."""
    notes = ("<p>Show notes that go on &amp; on, with a "
             '<a href="https://example.org/">link</a>.</p>' * 40)
    n = 0
    written = 0
    with open(path, "wb") as f:
        head = rss([], title="Big").rsplit(b"</channel>", 1)[0]
        f.write(head)
        written += len(head)
        while written < size:
            n += 1
            chunk = (f"<item><title>Episode {n}</title><guid>big-{n}</guid>"
                     f'<enclosure url="http://e.invalid/{n}.mp3" '
                     'type="audio/mpeg" length="1000"/>'
                     f"<description><![CDATA[{notes}]]></description>"
                     "</item>\n").encode()
            f.write(chunk)
            written += len(chunk)
        f.write(b"</channel>\n</rss>\n")
    return n


def main(cases, setup=None, teardown=None):
    missing = [name for name, value in
               (("FEEDTOOL", FEEDTOOL), ("FEED_PROBE", PROBE),
                ("MPD_BRIDGE", BRIDGE), ("FEED_TEST_SERVER", SERVER))
               if not value]
    if missing:
        print(f"1..{len(cases)}")
        for i, case in enumerate(cases, 1):
            print(f"not ok {i} - {case.name} # {', '.join(missing)} not set"
                  " (run through meson test)")
        return 1
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return run_table(cases, setup, teardown)


if __name__ == "__main__":
    sys.exit("a module for the hostile tests, not a test")
