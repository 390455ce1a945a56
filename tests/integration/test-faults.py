#!/usr/bin/env python3
"""feedtool refresh over 200 feeds on eight loopback hosts, a quarter of
them faulty: servers that stall mid-body or never answer, reset the
connection before or after the headers, cut the body short of its
Content-Length or its last chunk, or answer 500, 502 or 503. Exactly the
faulty feeds fail, each with a reason naming its fault; every other feed
refreshes with all its episodes; every feed is requested once; and the
run ends in bounded time. Writes TAP.

The faults come from feed-server.py; which feeds are faulty is chosen by a
fixed seed, so a failure reproduces.
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.request

SEED = 7
FEEDS = 200
FAULTY = 50
HOSTS = [f"127.0.0.{i}" for i in range(1, 9)]
# Short limits, so that a stalled feed fails in seconds: --timeout caps a
# body that stops halfway, --stall-timeout a server that never answers.
TIMEOUT = 5
STALL_TIMEOUT = 2
# What the run may take: the stalls hold at most two transfers per host
# for TIMEOUT seconds each, and there are a few of them on each host.
BOUND = 25

# Fault -> the server path's first part, and what the reason must say.
FAULTS = {
    "stall": ("/stall", "timed out"),
    "hang": ("/hang", "timed out"),
    "reset": ("/reset", "connection reset"),
    "reset-body": ("/reset-body", "connection reset"),
    "truncate": ("/truncate", "truncated"),
    "truncate-chunked": ("/truncate-chunked", "truncated"),
    "500": ("/status/500", "http 500"),
    "502": ("/status/502", "http 502"),
    "503": ("/status/503", "http 503"),
}
GOOD_KINDS = ["feed", "noval", "gzip", "atom"]


class Tap:
    def __init__(self, planned):
        self.n = 0
        self.failed = 0
        print("1..%d" % planned, flush=True)

    def check(self, description, problems):
        """ok when @problems is empty, else not ok with each as a note."""
        self.n += 1
        if problems:
            self.failed += 1
            print("not ok %d - %s" % (self.n, description))
            for problem in problems[:20]:
                for line in str(problem).splitlines() or [""]:
                    print("# " + line)
            if len(problems) > 20:
                print("# ... and %d more" % (len(problems) - 20))
        else:
            print("ok %d - %s" % (self.n, description))
        sys.stdout.flush()

    def note(self, text):
        for line in text.splitlines():
            print("# " + line)
        sys.stdout.flush()


def plan_feeds(port):
    """[(url, path, fault or None, episodes)], a fixed random mix."""
    rng = random.Random(SEED)
    faulty = rng.sample(range(FEEDS), FAULTY)
    kinds = [list(FAULTS)[i % len(FAULTS)] for i in range(FAULTY)]
    rng.shuffle(kinds)
    fault_of = dict(zip(faulty, kinds))
    feeds = []
    for i in range(FEEDS):
        host = HOSTS[i % len(HOSTS)]
        name = "f%03d" % i
        fault = fault_of.get(i)
        if fault is not None:
            path = f"{FAULTS[fault][0]}/{name}"
            episodes = None
        else:
            episodes = rng.randint(1, 40)
            path = f"/{rng.choice(GOOD_KINDS)}/{name}?n={episodes}"
        feeds.append((f"http://{host}:{port}{path}", path, fault, episodes))
    return feeds


def start_server():
    script = os.environ["FEED_TEST_SERVER"]
    argv = ["/usr/bin/python3", script]
    for host in HOSTS:
        argv += ["--address", host]
    # The server exits when its standard input closes, so never outlives
    # this test.
    server = subprocess.Popen(argv, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    port = server.stdout.readline().strip()
    if not port.isdigit():
        print("Bail out! feed-server.py did not start")
        sys.exit(1)
    return server, int(port)


def server_log(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_log",
                                timeout=10) as response:
        return [json.loads(line) for line in response.read().splitlines()]


def main():
    feedtool = os.environ["FEEDTOOL"]
    tap = Tap(6 + len(FAULTS))
    server, port = start_server()
    feeds = plan_feeds(port)
    by_url = {url: (path, fault, n) for url, path, fault, n in feeds}

    with tempfile.TemporaryDirectory() as tmp:
        urls_file = os.path.join(tmp, "urls")
        with open(urls_file, "w") as f:
            f.write("".join(url + "\n" for url, _, _, _ in feeds))
        started = time.monotonic()
        try:
            run = subprocess.run(
                [feedtool, "refresh", "--json", "--jobs", "16",
                 "--timeout", str(TIMEOUT),
                 "--stall-timeout", str(STALL_TIMEOUT),
                 "--urls", urls_file],
                capture_output=True, text=True, timeout=4 * BOUND)
        except subprocess.TimeoutExpired:
            print("Bail out! feedtool refresh ran for %d s" % (4 * BOUND))
            sys.exit(1)
        seconds = time.monotonic() - started

    tap.note("feedtool refresh: %.1f s, exit status %d" %
             (seconds, run.returncode))
    problems = []
    if seconds > BOUND:
        problems.append("took %.1f s, more than %d s" % (seconds, BOUND))
    if run.returncode != 1:
        problems.append("exit status %d, not 1" % run.returncode)
        problems.append(run.stderr)
    tap.check("the run ends in bounded time, exit status 1", problems)

    results = {}
    problems = []
    for line in run.stdout.splitlines():
        try:
            result = json.loads(line)
        except ValueError:
            problems.append("not JSON: %r" % line)
            continue
        url = result.get("url")
        if url not in by_url:
            problems.append("a result for an unknown URL: %r" % line)
        elif url in results:
            problems.append("two results for %s" % url)
        results[url] = result
    missing = [url for url in by_url if url not in results]
    problems += ["no result for %s" % url for url in missing]
    tap.check("one JSON result per feed", problems)

    failed = {url for url, r in results.items() if r.get("status") == "failed"}
    faulty = {url for url, (_, fault, _) in by_url.items() if fault}
    problems = ["failed, but served well: %s: %s" %
                (url, results[url].get("error")) for url in failed - faulty]
    problems += ["faulty, but not failed: %s: %s" %
                 (url, results.get(url)) for url in faulty - failed]
    tap.check("exactly the %d faulty feeds fail" % len(faulty), problems)

    table = []
    for fault, (_, reason) in FAULTS.items():
        problems = []
        urls = [u for u, (_, f, _) in by_url.items() if f == fault]
        for url in urls:
            result = results.get(url, {})
            error = result.get("error") or ""
            if not error.startswith(url + ": "):
                problems.append("%s: the error does not name the URL: %r"
                                % (url, error))
            if reason not in error.lower():
                problems.append("%s: %r does not say %r" %
                                (url, error, reason))
            if fault.isdigit() and result.get("http_status") != int(fault):
                problems.append("%s: http_status %r" %
                                (url, result.get("http_status")))
        sample = (results.get(urls[0], {}).get("error") or "")[len(urls[0]):]
        table.append("%-16s %2d  %s" % (fault, len(urls), sample[2:]))
        tap.check("%d %s feeds fail saying %r" % (len(urls), fault, reason),
                  problems)
    tap.note("fault            n  reason reported (first of each)\n" +
             "\n".join(table))

    problems = []
    for url, (path, fault, episodes) in by_url.items():
        result = results.get(url)
        if fault or result is None:
            continue
        if result.get("status") != "updated" or \
                result.get("episodes") != episodes or \
                result.get("http_status") != 200 or "error" in result:
            problems.append("%s: expected updated with %d episodes, got %s"
                            % (url, episodes, json.dumps(result)))
    tap.check("the %d other feeds refresh with all their episodes" %
              (FEEDS - len(faulty)), problems)

    # Each feed really reached its server: none failed unasked, and none
    # was tried again, but for curl's own retries (at most 5) of a request
    # whose reused keep-alive connection was reset before any answer.
    log = server_log(port)
    server.stdin.close()
    server.wait(timeout=10)
    seen = {}
    for entry in log:
        key = (entry["host"], entry["path"])
        seen[key] = seen.get(key, 0) + 1
    problems = []
    for url, (path, fault, _) in by_url.items():
        host = url.split("//")[1].split(":")[0]
        count = seen.get((host, path), 0)
        if count != 1 and not (fault == "reset" and 1 <= count <= 6):
            problems.append("%s requested %d times" % (url, count))
    tap.check("every feed is requested once (one reset before any answer "
              "at most 6 times)", problems)

    hosts = {url.split("//")[1].split(":")[0] for url in failed}
    tap.check("the failures are spread over every host",
              [] if hosts == set(HOSTS) else
              ["failures only on %s" % sorted(hosts)])

    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
