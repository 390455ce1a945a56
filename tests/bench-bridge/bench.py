#!/usr/bin/env python3
"""The mpd-bridge daemon benchmark: tests/bench-bridge/run calls this.

Standard library only. See tests/bench-bridge/run for what it measures;
every process it starts is stopped on any way out, and its pid is written
to TMP/pids so that the shell around it can stop them too.
"""

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

RSS_TARGET_MB, PUSH_TARGET_S, WAKEUP_TARGET = 10.0, 0.100, 0
MB = 1e6
CHANNEL = "mpd-bridge"
REPLY = "bench-bridge-reply"
PREFIX = "Podcast: "
NEW_PLAYLIST = "Podcasts: New"
START_TIMEOUT = 300.0
JOBS = 8  # the daemon's default [bridge] jobs, and feedtool's and curl's

ap = argparse.ArgumentParser()
for name in ("runs", "pushes", "syncs", "idle", "feeds", "episodes", "big",
             "hosts"):
    ap.add_argument("--" + name, type=int, required=True)
for name in ("bridge", "feedtool", "mpd", "nginx", "curl", "strace",
             "gen-state", "tmp", "buildtype"):
    ap.add_argument("--" + name, required=True)
A = ap.parse_args()
strace = None if A.strace == "-" else A.strace
tmp = A.tmp


def note(msg):
    sys.stderr.write("bench-bridge: %s\n" % msg)
    sys.stderr.flush()


def fail(msg):
    note(msg)
    stop_all()
    sys.exit(1)


# Every process we start, stopped on any way out.
children = []


def started(p):
    children.append(p)
    with open(os.path.join(tmp, "pids"), "a") as f:
        f.write("%d\n" % p.pid)
    return p


def stop(p, timeout=60):
    if p.poll() is None:
        try:
            p.terminate()
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        except OSError:
            pass


def stop_all():
    for p in reversed(children):
        stop(p, 10)


def on_signal(signum, frame):
    for p in children:
        if p.poll() is None:
            try:
                p.kill()
            except OSError:
                pass
    os._exit(128 + signum)


for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(signum, on_signal)


def quote(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


class MpdClient:
    """One connection to MPD, in the plain text protocol."""

    def __init__(self, path, timeout=120):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.f = self.sock.makefile("rwb")
        if not self.f.readline().startswith(b"OK MPD"):
            raise OSError("not MPD")

    def close(self):
        self.f.close()
        self.sock.close()

    def send(self, text):
        self.f.write(text.encode("utf-8"))
        self.f.flush()

    def answer(self):
        """The lines of one answer; RuntimeError on ACK."""
        out = []
        while True:
            line = self.f.readline()
            if not line:
                raise OSError("MPD closed the connection")
            line = line.decode("utf-8", "replace").rstrip("\n")
            if line == "OK":
                return out
            if line.startswith("ACK"):
                raise RuntimeError(line)
            out.append(line)

    def command(self, text):
        self.send(text + "\n")
        return self.answer()

    def values(self, text, key):
        return [line.split(": ", 1)[1] for line in self.command(text)
                if line.startswith(key + ": ")]

    def message(self):
        """Waits for the next message on the channels we subscribed to."""
        while True:
            got = self.values("readmessages", "message")
            if got:
                return got[0]
            self.command("idle message")


class Mpd:
    def __init__(self, root):
        self.root = root
        self.socket = os.path.join(root, "socket")
        self.playlists = os.path.join(root, "playlists")
        os.makedirs(os.path.join(root, "music"))
        os.makedirs(self.playlists)
        self.conf = os.path.join(root, "mpd.conf")
        with open(self.conf, "w") as f:
            f.write('music_directory "%s/music"\n' % root)
            f.write('playlist_directory "%s"\n' % self.playlists)
            f.write('db_file "%s/db"\n' % root)
            f.write('state_file "%s/state"\n' % root)
            f.write('sticker_file "%s/sticker"\n' % root)
            f.write('bind_to_address "%s"\n' % self.socket)
            f.write('auto_update "no"\n')
            f.write('zeroconf_enabled "no"\n')
            # Our own connections sit unused for minutes at a time.
            f.write('connection_timeout "3600"\n')
            f.write('input {\n\tplugin "curl"\n}\n')
            f.write('audio_output {\n\ttype "null"\n\tname "null"\n}\n')
        self.log = os.path.join(root, "mpd.log")
        self.process = None

    def start(self):
        """Starts MPD; returns (exec time, time it first answered)."""
        t_exec = time.monotonic()
        self.process = started(subprocess.Popen(
            [A.mpd, "--no-daemon", "--stderr", self.conf],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.log, "a"), start_new_session=True))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                c = MpdClient(self.socket, 5)
                c.command("ping")
                c.close()
                return t_exec, time.monotonic()
            except (OSError, RuntimeError):
                time.sleep(0.01)
        with open(self.log, errors="replace") as f:
            fail("MPD did not start:\n" + f.read()[-2000:])

    def stop(self):
        stop(self.process, 30)
        if self.process.returncode not in (0, -signal.SIGTERM):
            fail("MPD exited with status %s" % self.process.returncode)


LOG_LINE = re.compile(r"(?:Message|DEBUG): (\d\d):(\d\d):(\d\d)\.(\d{3}): "
                      r"(.*)$")
REFRESHED = re.compile(r"refreshed (\S+): (.*); (\d+) under way$")


class Daemon:
    """`mpd-bridge run`, its stderr read as it comes, each line stamped."""

    def __init__(self, env, log_path):
        self.env = env
        self.log_path = log_path
        self.lines = []  # (monotonic seconds at receipt, text)
        self.cond = threading.Condition()

    def start(self):
        self.t0 = time.monotonic()
        self.process = started(subprocess.Popen(
            [A.bridge, "run"], env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True))
        self.pid = self.process.pid
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        # GLib writes debug lines to stdout, messages to stderr: one pipe.
        with open(self.log_path, "a", encoding="utf-8") as log:
            for raw in self.process.stdout:
                t = time.monotonic()
                line = raw.decode("utf-8", "replace").rstrip("\n")
                log.write(line + "\n")
                with self.cond:
                    self.lines.append((t, line))
                    self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def wait_line(self, pattern, start=0, timeout=START_TIMEOUT, count=1):
        """The index of the count-th line from start that matches."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                seen = 0
                for i in range(start, len(self.lines)):
                    if rx.search(self.lines[i][1]):
                        seen += 1
                        if seen == count:
                            return i
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    self.fail("no line like /%s/ (%d of %d seen)"
                              % (pattern, seen, count))
                self.cond.wait(min(left, 0.5))

    def matching(self, pattern, start, end=None):
        rx = re.compile(pattern)
        with self.cond:
            return [i for i in range(start, end or len(self.lines))
                    if rx.search(self.lines[i][1])]

    def stamp(self, i):
        """The daemon's own clock of line i, in seconds of the day."""
        m = LOG_LINE.search(self.lines[i][1])
        if not m:
            self.fail("a log line without a time: %s" % self.lines[i][1])
        h, mi, s, ms = (int(x) for x in m.groups()[:4])
        return h * 3600 + mi * 60 + s + ms / 1000.0

    def fail(self, msg):
        tail = "\n".join(line for _, line in self.lines[-15:])
        fail("the daemon: %s; its last lines:\n%s" % (msg, tail))

    def stop(self):
        stop(self.process, 120)
        self.reader.join(10)
        if self.process.returncode not in (0, -signal.SIGTERM):
            self.fail("exited with status %s" % self.process.returncode)


def status_path(path):
    out = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.partition(":")
            out[key] = value.strip()
    return out


def memory(pid):
    s = status_path("/proc/%d/status" % pid)
    kb = {k: int(s.get(k, "0 kB").split()[0])
          for k in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem")}
    return {k: v * 1024 for k, v in kb.items()}


def file_rss(pid, top=6):
    """The largest file-backed parts of the RSS: [(name, bytes)]."""
    per = {}
    name = None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            parts = line.split()
            if re.match(r"^[0-9a-f]+-[0-9a-f]+$", parts[0]):
                name = parts[5] if len(parts) >= 6 and \
                    parts[5].startswith("/") else None
            elif parts[0] == "Rss:" and name is not None:
                per[name] = per.get(name, 0) + int(parts[1]) * 1024
    ranked = sorted(per.items(), key=lambda kv: -kv[1])
    return [(os.path.basename(n), b) for n, b in ranked[:top]], len(per)


def switches(pid):
    """(voluntary, involuntary) per thread, and CPU ticks of the process."""
    per = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            s = status_path("/proc/%d/task/%s/status" % (pid, tid))
        except OSError:
            continue
        per[tid] = (s["Name"], int(s["voluntary_ctxt_switches"]),
                    int(s["nonvoluntary_ctxt_switches"]))
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return per, int(fields[11]) + int(fields[12])


def wait_quiet(pid, quiet=3.0, limit=60.0):
    """Until the daemon has not been scheduled for `quiet` seconds."""
    deadline = time.monotonic() + limit
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        per, ticks = switches(pid)
        now = (sum(v + n for _, v, n in per.values()), ticks)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return True
        time.sleep(0.25)
    return False


class Watcher:
    """Notes when MPD reports each change to its stored playlists."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.buf = b""
        self.times = []
        if not self.line().startswith(b"OK MPD"):
            raise OSError("not MPD")
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def line(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise OSError("closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def run(self):
        try:
            while True:
                self.sock.sendall(b"idle stored_playlist\n")
                while True:
                    line = self.line()
                    if line == b"OK":
                        break
                    if line.startswith(b"changed: "):
                        self.times.append(time.monotonic())
        except OSError:
            pass

    def stop(self):
        """The times seen; closing the socket ends the thread."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.thread.join(10)
        self.sock.close()
        return self.times


class Requester:
    """Sends commands as the command line does: "@REPLY COMMAND"."""

    def __init__(self, path):
        self.client = MpdClient(path)
        self.client.command("subscribe %s" % REPLY)

    def send(self, command, wait_subscribed=False, deadline=None):
        text = "@%s %s" % (REPLY, command)
        while True:
            try:
                self.client.command("sendmessage %s %s"
                                    % (CHANNEL, quote(text)))
                return
            except RuntimeError as e:
                # [50@0] {sendmessage} nobody is subscribed...
                if not wait_subscribed or time.monotonic() > deadline:
                    raise
                if "subscribed" not in str(e):
                    raise
                time.sleep(0.005)

    def reply(self):
        return self.client.message()

    def ask(self, command):
        """Sends, waits for the answer; (answer, seconds)."""
        t = time.monotonic()
        self.send(command, wait_subscribed=True,
                  deadline=time.monotonic() + START_TIMEOUT)
        answer = self.reply()
        return answer, time.monotonic() - t


# The feeds' server: nginx on 127.0.0.1 to 127.0.0.H, as
# tests/bench-fetch/run serves its feeds (ETags, gzip, keepalive).
def free_port(hosts):
    for _ in range(50):
        first = socket.socket()
        first.bind(("127.0.0.1", 0))
        port = first.getsockname()[1]
        taken = [first]
        try:
            for h in range(2, hosts + 1):
                s = socket.socket()
                taken.append(s)
                s.bind(("127.0.0.%d" % h, port))
        except OSError:
            continue
        finally:
            for s in taken:
                s.close()
        return port
    fail("no port is free on all of 127.0.0.1-%d" % hosts)


def nginx_conf(d, port, root, hosts):
    os.makedirs(os.path.join(d, "temp"), exist_ok=True)
    listen = "".join("\t\tlisten 127.0.0.%d:%d;\n" % (h, port)
                     for h in range(1, hosts + 1))
    # Workers of a root master would drop to nobody, who may not read tmp.
    user = "user root;\n" if os.geteuid() == 0 else ""
    temp = os.path.join(d, "temp")
    with open(os.path.join(d, "nginx.conf"), "w") as f:
        f.write("""%sworker_processes 2;
pid %s/nginx.pid;
error_log %s/error.log warn;
events {
	worker_connections 1024;
}
http {
	access_log off;
	client_body_temp_path %s/client_body;
	proxy_temp_path %s/proxy;
	fastcgi_temp_path %s/fastcgi;
	uwsgi_temp_path %s/uwsgi;
	scgi_temp_path %s/scgi;
	types {
		application/rss+xml xml;
	}
	default_type application/rss+xml;
	sendfile on;
	tcp_nopush on;
	keepalive_timeout 65;
	keepalive_requests 100000;
	etag on;
	gzip on;
	gzip_types application/rss+xml application/xml text/xml;
	gzip_min_length 1000;
	gzip_vary on;
	server {
%s		root %s;
		location / {
		}
	}
}
""" % (user, d, d, temp, temp, temp, temp, temp, listen, root))


def start_nginx(root, hosts):
    """nginx, our child with daemon off; retried if its port is taken."""
    d = os.path.join(tmp, "nginx")
    for _ in range(5):
        port = free_port(hosts)
        nginx_conf(d, port, root, hosts)
        p = started(subprocess.Popen(
            [A.nginx, "-e", os.path.join(d, "error.log"), "-c",
             os.path.join(d, "nginx.conf"), "-p", d, "-g", "daemon off;"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, start_new_session=True))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and p.poll() is None:
            try:
                c = http.client.HTTPConnection("127.0.0.%d" % hosts, port,
                                               timeout=1)
                c.request("GET", "/")
                c.getresponse().read()
                c.close()
                return p, port
            except OSError:
                time.sleep(0.05)
        stop(p)
    fail("could not start nginx on 127.0.0.1-%d" % hosts)


# (0) The world: nginx, the state and its feeds, MPD.
feed_dir = os.path.join(tmp, "feeds")
os.makedirs(feed_dir)
nginx, port = start_nginx(feed_dir, A.hosts)
nginx_version = subprocess.run([A.nginx, "-v"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, check=False)
nginx_version = nginx_version.stdout.decode().strip().split("/")[-1]

mpd_server = Mpd(os.path.join(tmp, "mpd"))
env = dict(os.environ)
for key in ("MPD_PORT", "G_DEBUG", "http_proxy", "HTTP_PROXY", "all_proxy",
            "ALL_PROXY"):
    env.pop(key, None)
# The per-feed "refreshed" lines mark the end of a refresh of all.
env["G_MESSAGES_DEBUG"] = "mpd-bridge"
env["XDG_CONFIG_HOME"] = os.path.join(tmp, "config")
env["XDG_STATE_HOME"] = os.path.join(tmp, "xdg-state")
env["MPD_HOST"] = mpd_server.socket
os.makedirs(env["XDG_CONFIG_HOME"])
state_path = os.path.join(env["XDG_STATE_HOME"], "mpd-bridge", "state")
os.makedirs(os.path.dirname(state_path))
empty_env = dict(env)
empty_env["XDG_STATE_HOME"] = os.path.join(tmp, "xdg-state-empty")

# The state, made now, so that "nothing is due" holds today.
pristine = os.path.join(tmp, "state.pristine")
t = time.monotonic()
gen = subprocess.run([sys.executable, A.gen_state, "--feeds", str(A.feeds),
                      "--episodes", str(A.episodes), "--big", str(A.big),
                      "--now", str(int(time.time())), "--feed-dir", feed_dir,
                      "--port", str(port), "--hosts", str(A.hosts),
                      pristine], stdout=subprocess.PIPE, check=False)
if gen.returncode != 0:
    fail("gen-state.py failed")
big_id, big_title, got_feeds, got_episodes = \
    gen.stdout.decode("utf-8").rstrip("\n").split("\t")
state_size = os.path.getsize(pristine)
feed_files = sorted(os.listdir(feed_dir))
feed_bytes = sum(os.path.getsize(os.path.join(feed_dir, n))
                 for n in feed_files)
if len(feed_files) != A.feeds:
    fail("gen-state.py wrote %d feeds, not %d" % (len(feed_files), A.feeds))
urls = ["http://127.0.0.%d:%d/%s" % (1 + i % A.hosts, port, name)
        for i, name in enumerate(feed_files)]
url_list = os.path.join(tmp, "urls.txt")
with open(url_list, "w") as f:
    f.write("".join(u + "\n" for u in urls))
note("wrote a state of %s feeds, %s episodes, %.1f MB, and its feeds, "
     "%.1f MB, in %.1f s" % (got_feeds, got_episodes, state_size / MB,
                             feed_bytes / MB, time.monotonic() - t))
big_playlist = PREFIX + big_title

mpd_server.start()
mpd_version = subprocess.run([A.mpd, "--version"], stdout=subprocess.PIPE,
                             check=False).stdout.decode().split("\n")[0]
mpd_version = re.sub(r"^Music Player Daemon\s*", "", mpd_version)
mpd_version = re.sub(r"\s*\(.*\)$", "", mpd_version) or "?"
requester = Requester(mpd_server.socket)
probe = MpdClient(mpd_server.socket)


def start_up(environment, log_name, feeds_expected):
    """Starts a daemon; returns it and its milestones (seconds from exec)."""
    d = Daemon(environment, os.path.join(tmp, log_name))
    watcher = Watcher(mpd_server.socket)
    d.start()
    i_run = d.wait_line(r"running: state in ")
    path = d.lines[i_run][1].split("running: state in ", 1)[1]
    want = os.path.join(environment["XDG_STATE_HOME"], "mpd-bridge", "state")
    if not path.startswith(want + ","):
        d.fail("it uses the state %s, not %s" % (path, want))
    i_conn = d.wait_line(r"(connected|reconnected) to ", i_run)
    answer, _ = requester.ask("ping")
    t_ping = time.monotonic()
    changes = [t for t in watcher.stop() if t <= t_ping]
    if answer != "ok pong":
        d.fail("it answered ping with %r" % answer)
    i_cmd = d.wait_line(r"command from MPD: (@\S+ )?'?ping", i_conn)
    wrote = d.matching(r"wrote the playlist ", i_conn, i_cmd)
    if len(wrote) != feeds_expected:
        d.fail("it wrote %d playlists before answering, not %d"
               % (len(wrote), feeds_expected))
    if feeds_expected and not changes:
        fail("MPD reported no change to its stored playlists")
    ms = {
        "loaded": d.lines[i_run][0] - d.t0,
        "connected": d.lines[i_conn][0] - d.t0,
        "ping": t_ping - d.t0,
    }
    if feeds_expected:
        # The last feed's playlist, then the New one, the last MPD saw.
        ms["feeds"] = d.lines[wrote[-1]][0] - d.t0
        ms["pushed"] = changes[-1] - d.t0
    return d, ms


def check_playlists(big_entries=A.big):
    # Continue comes and goes with the episodes in progress.
    names = [n for n in probe.values("listplaylists", "playlist")
             if n != "Podcasts: Continue"]
    if len(names) != A.feeds + 1 or NEW_PLAYLIST not in names:
        fail("MPD holds %d stored playlists, not %d (the %d feeds and %s); "
             "the first not of a feed: %s"
             % (len(names), A.feeds + 1, A.feeds, NEW_PLAYLIST,
                sorted(n for n in names if not n.startswith("Podcast: "))))
    if big_playlist not in names:
        fail("MPD has no playlist %r" % big_playlist)
    uris = probe.values("listplaylist %s" % quote(big_playlist), "file")
    if len(uris) != big_entries:
        fail("%r has %d entries, not %d"
             % (big_playlist, len(uris), big_entries))
    return uris


def refresh_all(d, want):
    """`refresh` of every feed: its times, the playlists it wrote."""
    wait_quiet(d.pid, quiet=1.0, limit=60)
    mark = len(d.lines)
    t = time.monotonic()
    answer, _ = requester.ask("refresh")
    if answer != "ok refreshing %d feeds" % A.feeds:
        d.fail("it answered refresh with %r" % answer)
    i_done = d.wait_line(r"; 0 under way$", mark)
    merged = d.lines[i_done][0] - t
    done = d.matching(REFRESHED.pattern, mark, i_done + 1)
    outcomes = {}
    for i in done:
        what = REFRESHED.search(d.lines[i][1]).group(2)
        outcomes[what] = outcomes.get(what, 0) + 1
    if outcomes != {want: A.feeds}:
        d.fail("a refresh of all: %s, not %d %s" % (outcomes, A.feeds, want))
    wrote = len(d.matching(r"wrote the playlist ", mark, i_done + 1))
    # The answer comes once the state is saved.
    answer, _ = requester.ask("ping")
    saved = time.monotonic() - t
    if answer != "ok pong":
        d.fail("it answered ping with %r" % answer)
    return merged, saved, wrote, memory(d.pid)


def timed(argv, out=subprocess.DEVNULL):
    t = time.monotonic()
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out,
                       stderr=subprocess.PIPE, check=False)
    secs = time.monotonic() - t
    if p.returncode != 0:
        fail("%s failed (%d): %s" % (argv[0], p.returncode,
                                      p.stderr.decode(errors="replace")[-500:]))
    return secs


def curl_cold():
    cfg = os.path.join(tmp, "curl.cfg")
    if not os.path.exists(cfg):
        with open(cfg, "w") as f:
            for i, u in enumerate(urls):
                if i:
                    f.write("next\n")
                f.write('url = %s\noutput = "/dev/null"\ncompressed\n'
                        'write-out = "%%{http_code}\\n"\n' % quote(u))
    out = os.path.join(tmp, "curl.out")
    with open(out, "w") as f:
        secs = timed([A.curl, "--parallel", "--parallel-max", str(JOBS),
                      "-s", "-S", "-K", cfg], out=f)
    with open(out) as f:
        codes = f.read().split()
    if codes != ["200"] * A.feeds:
        fail("curl: %d answers, %d of them 200"
             % (len(codes), codes.count("200")))
    return secs


def feedtool_refresh(cache, want):
    out = os.path.join(tmp, "feedtool.json")
    with open(out, "w") as f:
        secs = timed([A.feedtool, "refresh", "--jobs", str(JOBS), "--cache",
                      cache, "--json", "--urls", url_list], out=f)
    seen = {}
    with open(out) as f:
        for line in f:
            obj = json.loads(line)
            if isinstance(obj, dict) and "url" in obj:
                seen[obj["url"]] = obj.get("status")
    if set(seen) != set(urls) or set(seen.values()) != {want}:
        fail("feedtool refresh: %d feeds, statuses %s, not %d %s"
             % (len(seen), sorted(set(seen.values())), A.feeds, want))
    return secs


# (1) The floor: a daemon with no subscriptions at all.
empty = []
for r in range(3):
    d, ms = start_up(empty_env, "daemon-empty.log", 0)
    empty.append((ms, memory(d.pid)))
    d.stop()

# (2) Start-ups and refreshes of all: one untimed round (MPD gets the
# playlists, caches warm up), then the timed ones, each from the same
# state file, with MPD already holding the playlists, as on a restart.
# In each, after the start-up: a refresh of all, every feed fetched whole
# with one new episode, then one more, every feed not modified. Between
# them, the references on the same URLs: curl (download only) and
# feedtool refresh (download and parse), cold, and feedtool warm.
startups, cold, warm = [], [], []
ref = {"curl": [], "ft-cold": [], "ft-warm": []}


def restore_state():
    """The pristine state, with the episode caches beside it if any."""
    shutil.copyfile(pristine, state_path)
    shutil.rmtree(state_path + ".cache", ignore_errors=True)
    if os.path.isdir(pristine + ".cache"):
        shutil.copytree(pristine + ".cache", state_path + ".cache")


# gen-state.py writes the state of format 1, which a daemon converts at
# its first start: converted once here, so that the rounds time a restart.
restore_state()
d, _ = start_up(env, "daemon-convert.log", A.feeds)
d.stop()
shutil.copyfile(state_path, pristine)
if os.path.isdir(state_path + ".cache"):
    shutil.copytree(state_path + ".cache", pristine + ".cache")
cache_bytes = sum(os.path.getsize(os.path.join(pristine + ".cache", n))
                  for n in (os.listdir(pristine + ".cache")
                            if os.path.isdir(pristine + ".cache") else []))
note("converted by the daemon: a key file of %.1f MB and episode caches of "
     "%.1f MB" % (os.path.getsize(pristine) / MB, cache_bytes / MB))
for r in range(A.runs + 1):
    restore_state()
    probe.command("clear")
    d, ms = start_up(env, "daemon.log", A.feeds)
    check_playlists()
    mem = memory(d.pid)
    c = refresh_all(d, "updated")
    check_playlists()
    w = refresh_all(d, "not modified")
    if c[2] != A.feeds or w[2] != 0:
        d.fail("it wrote %d playlists in the first refresh (not %d) and %d "
               "in the second (not 0)" % (c[2], A.feeds, w[2]))
    cache = os.path.join(tmp, "feedtool-cache")
    shutil.rmtree(cache, ignore_errors=True)
    os.makedirs(cache)
    wait_quiet(d.pid, quiet=1.0, limit=60)
    refs = (curl_cold(), feedtool_refresh(cache, "updated"),
            feedtool_refresh(cache, "not-modified"))
    if r > 0:
        startups.append((ms, mem))
        cold.append(c)
        warm.append(w)
        for key, secs in zip(("curl", "ft-cold", "ft-warm"), refs):
            ref[key].append(secs)
    note("round %s: loaded %.3f s, all pushed %.3f s, VmRSS %.1f MB; "
         "refresh of all %.3f s (saved %.3f s), VmRSS %.1f MB; again, "
         "not modified, %.3f s; curl %.3f s, feedtool %.3f s, %.3f s"
         % ("(untimed)" if r == 0 else "%d/%d" % (r, A.runs), ms["loaded"],
            ms["pushed"], mem["VmRSS"] / MB, c[0], c[1], c[3]["VmRSS"] / MB,
            w[0], refs[0], refs[1], refs[2]))
    if r < A.runs:
        d.stop()
daemon = d

# The command line's own cost, for the notes: it loads the state first.
t = time.monotonic()
cli = subprocess.run([A.bridge, "ping"], env=env, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, check=False)
cli_ping = time.monotonic() - t
if cli.returncode != 0 or cli.stdout.decode().strip() != "pong":
    fail("mpd-bridge ping failed: %s" % cli.stderr.decode(errors="replace"))

# (3) Pushes of the big playlist: set FEED keep N forces its rewrite. The
# refresh added an episode: the playlist still has --big entries.
push_times, round_trips = [], []
for r in range(A.pushes + 1):
    wait_quiet(daemon.pid, quiet=0.5, limit=30)
    mark = len(daemon.lines)
    t = time.monotonic()
    requester.send("set %s keep %d" % (big_id, A.big))
    answer = requester.reply()
    rt = time.monotonic() - t
    if not answer.startswith("ok "):
        daemon.fail("it answered set with %r" % answer)
    i_cmd = daemon.wait_line(r"command from MPD: (@\S+ )?'?set", mark)
    i_wrote = daemon.wait_line(r"wrote the playlist %s \(%d episodes\)"
                               % (re.escape(big_playlist), A.big), i_cmd)
    secs = daemon.stamp(i_wrote) - daemon.stamp(i_cmd)
    if secs < 0:
        secs += 24 * 3600
    if r > 0:
        push_times.append(secs)
        round_trips.append(rt)
uris = check_playlists()


def push_list(client, name, entries, delete=True):
    """One command list as the daemon sends it: rm, then playlistadd."""
    text = ["command_list_begin\n"]
    if delete:
        text.append("rm %s\n" % quote(name))
    text += ["playlistadd %s %s\n" % (quote(name), quote(u))
             for u in entries]
    text.append("command_list_end\n")
    client.send("".join(text))
    client.answer()


# The floor: the same command list as the daemon sends, from a bare client.
floor = []
for r in range(A.pushes + 1):
    t = time.monotonic()
    push_list(probe, big_playlist, uris)
    if r > 0:
        floor.append(time.monotonic() - t)
    time.sleep(0.1)
check_playlists()

# (4) MPD restarts: MPD stops and starts again, with its stored playlists
# (as after an upgrade) or without them (a new playlist directory); the
# daemon reconnects and pushes every playlist again. Timed from the
# daemon's "reconnected" line to its answer to a ping sent then, which
# it reads once the pushes are done; the reconnection itself, from MPD
# answering again to that line, is the daemon's back-off. The floor: every
# playlist, as MPD holds it, pushed by a bare client, in the same command
# lists, with and without the rm.
contents = {}
for name in probe.values("listplaylists", "playlist"):
    contents[name] = probe.values("listplaylist %s" % quote(name), "file")
n_entries = sum(len(v) for v in contents.values())
resync = {"kept": [], "lost": []}
resync_floor = {"kept": [], "lost": []}
for r in range(A.syncs + 1):
    for kind in ("kept", "lost"):
        wait_quiet(daemon.pid, quiet=1.0, limit=60)
        requester.client.close()
        probe.close()
        mark = len(daemon.lines)
        mpd_server.stop()
        if kind == "lost":
            for name in os.listdir(mpd_server.playlists):
                os.unlink(os.path.join(mpd_server.playlists, name))
        t_exec, t_up = mpd_server.start()
        requester = Requester(mpd_server.socket)
        probe = MpdClient(mpd_server.socket)
        i_conn = daemon.wait_line(r"reconnected to ", mark, timeout=120)
        answer, _ = requester.ask("ping")
        t_ping = time.monotonic()
        if answer != "ok pong":
            daemon.fail("it answered ping with %r" % answer)
        t_conn = daemon.lines[i_conn][0]
        wrote = daemon.matching(r"wrote the playlist ", i_conn)
        if len(wrote) != A.feeds:
            daemon.fail("it wrote %d playlists after reconnecting, not %d"
                        % (len(wrote), A.feeds))
        t_feeds = daemon.lines[wrote[-1]][0]
        check_playlists()
        if r > 0:
            resync[kind].append((t_conn - t_exec, t_feeds - t_conn,
                                 t_ping - t_conn, t_up - t_exec))
        # The floor, on an MPD in the same state.
        wait_quiet(daemon.pid, quiet=1.0, limit=60)
        if kind == "lost":
            for name in contents:
                probe.command("rm %s" % quote(name))
        t = time.monotonic()
        for name, entries in contents.items():
            push_list(probe, name, entries, delete=(kind == "kept"))
        if r > 0:
            resync_floor[kind].append(time.monotonic() - t)
        check_playlists()
    if r > 0:
        note("MPD restart %d/%d: all pushed in %.3f s with its playlists, "
             "%.3f s without; floor %.3f s, %.3f s; reconnected %.3f s "
             "after MPD's exec" % (r, A.syncs, resync["kept"][-1][2],
                                   resync["lost"][-1][2],
                                   resync_floor["kept"][-1],
                                   resync_floor["lost"][-1],
                                   resync["lost"][-1][0]))

# (5) Idle: nothing is due; the daemon should not run at all.
if not wait_quiet(daemon.pid, quiet=3.0, limit=60):
    note("the daemon did not go quiet within a minute; measuring anyway")
before, ticks_before = switches(daemon.pid)
time.sleep(A.idle)
after, ticks_after = switches(daemon.pid)
mem_idle = memory(daemon.pid)
libs, n_files = file_rss(daemon.pid)
wakeups = 0
involuntary = 0
threads = []
for tid, (name, vol, inv) in after.items():
    _, vol0, inv0 = before.get(tid, (name, 0, 0))
    wakeups += vol - vol0
    involuntary += inv - inv0
    threads.append("%s %d" % (name, vol - vol0))
cpu_ticks = ticks_after - ticks_before
per_minute = wakeups * 60.0 / A.idle

strace_result = None
if strace is not None:
    out = os.path.join(tmp, "strace.txt")
    p = started(subprocess.Popen(
        [strace, "-f", "-qq", "-c", "-o", out, "-p", str(daemon.pid)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, start_new_session=True))
    time.sleep(A.idle)
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    calls = {}
    try:
        with open(out) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 5 and parts[-1] != "total" and \
                        re.match(r"^[\d.]+$", parts[0]):
                    calls[parts[-1]] = int(parts[3])
    except OSError:
        pass
    if p.returncode not in (0, -signal.SIGINT, 130) and not calls:
        strace_result = ("n/a", err.decode(errors="replace").strip()[:200])
    else:
        # Attaching interrupts the poll each thread sleeps in; the kernel
        # restarts it: that is strace's doing, not a wake-up.
        calls.pop("restart_syscall", None)
        strace_result = (sum(calls.values()), ", ".join(
            "%s %d" % kv for kv in sorted(calls.items(),
                                          key=lambda kv: -kv[1])))

daemon.stop()
requester.client.close()
probe.close()
stop_all()


def med(values):
    return statistics.median(values)


def mark(ok):
    return "PASS" if ok else "MISS"


def spread(values, scale=1.0, fmt="%.3f"):
    return (fmt + "-" + fmt) % (min(values) * scale, max(values) * scale)


def row(label, values, ref_values=None, ref_label=None):
    line = "    %-46s %7.3f   %s" % (label, med(values), spread(values))
    if ref_values:
        line += "   %5.2f x %s" % (med(values) / med(ref_values), ref_label)
    print(line)


print("mpd-bridge daemon benchmark (%s build)" % A.buildtype)
print("  state     %s subscriptions, %s episodes, %.1f MB state file; "
      "nothing due" % (got_feeds, got_episodes, state_size / MB))
print("            for a month; %r has %d episodes, keep=%d"
      % (big_playlist, A.big, A.big))
print("  feeds     %.1f MB of RSS (%.0f KB each on average), one new "
      "episode in each," % (feed_bytes / MB, feed_bytes / A.feeds / 1e3))
print("            from nginx %s on 127.0.0.1-%d (ETag, gzip); %d fetched "
      "at once" % (nginx_version, A.hosts, JOBS))
print("  MPD       %s, private, on a Unix socket; %d stored playlists, %d "
      "entries" % (mpd_version, A.feeds + 1, n_entries))
print("  runs      %d rounds (start-up, refresh of all, again) after an "
      "untimed one;" % A.runs)
print("            %d pushes and %d MPD restarts of each kind after an "
      "untimed one;" % (A.pushes, A.syncs))
print("            medians shown, min-max beside them")
print()
print("  start-up, from the exec of mpd-bridge run             s     min-max")
for key, label in (("loaded", "state loaded (\"running\" logged)"),
                   ("connected", "connected to MPD"),
                   ("feeds", "%d feeds' playlists written (log)" % A.feeds),
                   ("pushed", "all %d pushed (MPD's last change)"
                    % (A.feeds + 1)),
                   ("ping", "answers ping")):
    row(label, [ms[key] for ms, _ in startups])
row("answers ping, no subscriptions", [ms["ping"] for ms, _ in empty])
print()
print("  refresh of all %d feeds, from the command            s     min-max"
      % A.feeds)
row("whole, one new episode each: all merged", [c[0] for c in cold],
    ref["ft-cold"], "feedtool")
row("  and the state saved (ping answered)", [c[1] for c in cold])
row("not modified (304): all merged", [w[0] for w in warm],
    ref["ft-warm"], "feedtool")
row("  and the state saved (ping answered)", [w[1] for w in warm])
row("reference: feedtool refresh, cold", ref["ft-cold"], ref["curl"],
    "curl")
row("reference: feedtool refresh, all 304", ref["ft-warm"])
row("floor: curl --parallel-max %d, download only" % JOBS, ref["curl"])
print()
print("  memory, MB                                     VmRSS   VmHWM  "
      "RssAnon  RssFile")


def mem_row(label, mems):
    print("    %-42s %7.1f %7.1f %8.1f %8.1f" % (
        label, med([m["VmRSS"] for m in mems]) / MB,
        med([m["VmHWM"] for m in mems]) / MB,
        med([m["RssAnon"] for m in mems]) / MB,
        med([m["RssFile"] for m in mems]) / MB))


mem_row("after start-up (ping answered)", [m for _, m in startups])
mem_row("after a refresh of all", [c[3] for c in cold])
mem_row("after another, not modified", [w[3] for w in warm])
mem_row("idle, at the end, after %d s" % A.idle, [mem_idle])
mem_row("no subscriptions (the floor)", [m for _, m in empty])
anon = med([m["RssAnon"] for _, m in startups]) - \
    med([m["RssAnon"] for _, m in empty])
print("    RssAnon over the floor, a stored episode: %.0f bytes"
      % (anon / int(got_episodes)))
print("    RssFile, idle, by file (%d files):" % n_files)
line = "     "
for name, size in libs:
    item = " %s %.1f," % (name, size / MB)
    if len(line) + len(item) > 76:
        print(line)
        line = "     "
    line += item
print(line.rstrip(","))
print()
print("  MPD sync: every playlist pushed again                     s     min-max")
print("    at start-up, MPD holding them; from \"connected\"")
row("  %d feeds' playlists written (log)" % A.feeds,
    [ms["feeds"] - ms["connected"] for ms, _ in startups])
row("  all %d pushed (MPD's last change)" % (A.feeds + 1),
    [ms["pushed"] - ms["connected"] for ms, _ in startups])
for kind, label in (("kept", "MPD restarted with its playlists; from "
                             "\"reconnected\""),
                    ("lost", "MPD restarted without them; from "
                             "\"reconnected\"")):
    print("    %s" % label)
    row("  %d feeds' playlists written (log)" % A.feeds,
        [x[1] for x in resync[kind]])
    row("  all %d pushed (ping answered)" % (A.feeds + 1),
        [x[2] for x in resync[kind]], resync_floor[kind], "floor")
    row("  floor: same command lists, bare client", resync_floor[kind])
both = resync["kept"] + resync["lost"]
row("reconnection: MPD's exec -> \"reconnected\"", [x[0] for x in both])
row("  of which MPD's own start, until it answers", [x[3] for x in both])
print()
print("  push of the %d-entry playlist                    ms       min-max"
      % A.big)
print("    %-44s %7.1f   %s" % ("daemon: set received -> playlist written",
                                med(push_times) * 1e3,
                                spread(push_times, 1e3, "%.0f")))
print("    %-44s %7.1f   %s" % ("floor: the same command list, bare client",
                                med(floor) * 1e3, spread(floor, 1e3, "%.1f")))
print("    %-44s %7.1f   %s" % ("set's answer (the daemon saves first)",
                                med(round_trips) * 1e3,
                                spread(round_trips, 1e3, "%.0f")))
print()
print("  idle, nothing due, %d s" % A.idle)
print("    wake-ups (voluntary context switches)     %d  (by thread: %s)"
      % (wakeups, ", ".join(sorted(threads))))
print("    involuntary switches; CPU time            %d; %d ticks"
      % (involuntary, cpu_ticks))
if strace_result is not None:
    n, what = strace_result
    print("    system calls, strace -f, another %d s %s%s"
          % (A.idle, " " * max(0, 7 - len(str(A.idle))) + str(n),
             "  (%s)" % what if what else ""))
print()
rss = mem_idle["VmRSS"] / MB
push = med(push_times)
print("  RSS, idle           %7.1f MB   target <= %.0f MB    %s"
      % (rss, RSS_TARGET_MB, mark(rss <= RSS_TARGET_MB)))
print("  push, %5d entries %7.1f ms   target <= %.0f ms   %s"
      % (A.big, push * 1e3, PUSH_TARGET_S * 1e3, mark(push <= PUSH_TARGET_S)))
print("  wake-ups, idle      %7.1f /min target %d          %s"
      % (per_minute, WAKEUP_TARGET, mark(wakeups <= WAKEUP_TARGET)))
print()
print("  1 MB = 10^6 bytes. Times are from sending the command (or the exec)")
print("  to the receipt of the daemon's log lines and of its answers on MPD's")
print("  channel; the push is timed by the daemon's own log clock (1 ms")
print("  steps). A refresh of all is over at the daemon's debug line")
print("  \"refreshed URL: ...; 0 under way\" (G_MESSAGES_DEBUG=mpd-bridge). The")
print("  references run between the daemon's refreshes, on the same URLs,")
print("  %d at once; feedtool's warm run keeps validators in a cache. The" % JOBS)
print("  command line itself (mpd-bridge ping) took %.3f s, as it loads the"
      % cli_ping)
print("  whole state before asking the daemon. strace's count leaves out the")
print("  restart of the poll that attaching interrupts.")
