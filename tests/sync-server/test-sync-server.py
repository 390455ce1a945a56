#!/usr/bin/python3
"""The sync test double itself: tests/support/gpodder-server.py keeps each
server's rules, tests/support/phone.py keeps AntennaPod's, and gPodder's
own client library (python3-mygpoclient) syncs through /api/2 as gPodder on
a desktop does.

Prints TAP. Needs python3-mygpoclient (Debian); without it the last tests
fail, they do not skip.
"""
import base64
import http.client
import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
SUPPORT = os.path.join(HERE, "..", "support")
sys.path.insert(0, SUPPORT)
from bridgeworld import check, run_tap  # noqa: E402
from phone import Phone  # noqa: E402

SERVER = os.environ.get("GPODDER_TEST_SERVER",
                        os.path.join(SUPPORT, "gpodder-server.py"))
FEED = "http://feeds.example.org/show.xml"
OTHER = "http://feeds.example.org/other.xml"
NC = "/index.php/apps/gpoddersync/"
T0 = 1764093851  # 2025-11-25T18:04:11Z


def stamp(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))


def play(episode, t, position, guid=None, **more):
    a = {"podcast": FEED, "episode": episode, "action": "play",
         "timestamp": stamp(t), "started": 0, "position": position,
         "total": 1800}
    if guid is not None:
        a["guid"] = guid
    a.update(more)
    return a


class Reply:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        return json.loads(self.body)


class World:
    def __init__(self):
        self.server = subprocess.Popen(
            ["/usr/bin/python3", SERVER, "--user", "alice:alice-pw",
             "--user", "bob:bob-pw"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True)
        self.port = int(self.server.stdout.readline())
        self.url = f"http://127.0.0.1:{self.port}"

    def request(self, method, path, body=None, user="alice",
                password=None, ctype="application/json", headers=None,
                timeout=10):
        """One request on a new connection; @body a JSON value, or bytes
        sent as they are; @user None sends no credentials."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port,
                                          timeout=timeout)
        h = dict(headers or {})
        if user is not None:
            pair = f"{user}:{password or user + '-pw'}".encode()
            h["Authorization"] = "Basic " + base64.b64encode(pair).decode()
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else \
                json.dumps(body).encode()
            if ctype is not None:
                h["Content-Type"] = ctype
        try:
            conn.request(method, path, body=data, headers=h)
            r = conn.getresponse()
            return Reply(r.status, r.headers, r.read())
        finally:
            conn.close()

    def ok(self, method, path, body=None, **kw):
        r = self.request(method, path, body, **kw)
        check(r.status == 200, f"{method} {path}: {r.status} {r.body!r}")
        return r.json() if r.body.strip() else None

    def control(self, path, body=None):
        return self.ok("POST" if body is not None else "GET", path, body,
                       user=None)

    def switch(self, **values):
        return self.control("/_switch", values)

    def reset(self):
        self.control("/_reset", {})

    def requests(self):
        return self.control("/_log")

    def log(self):
        try:
            return "\n".join(f"{e['method']} {e['path']} {e['user']} "
                             f"{e['status']}" for e in self.requests())
        except OSError:
            return ""

    def phone(self, kind, user="alice", device="phone", **kw):
        return Phone(self.url, kind, user, user + "-pw", device, **kw)

    def close(self):
        self.server.stdin.close()
        self.server.wait(10)


def test_challenge(w):
    """wrong or missing credentials: 401 with a Basic challenge"""
    w.reset()
    path = "/api/2/subscriptions/alice/desk.json"
    for user, password in ((None, None), ("alice", "wrong"),
                           ("nobody", "x"), ("bob", None)):
        r = w.request("GET", path, user=user, password=password)
        check(r.status == 401, f"{user}: {r.status}")
        check(r.headers["WWW-Authenticate"].startswith('Basic realm="'),
              r.headers["WWW-Authenticate"])
    r = w.request("GET", NC + "subscriptions", user=None)
    check(r.status == 401 and "Basic realm=" in
          r.headers["WWW-Authenticate"], f"{r.status} {r.headers}")
    check(w.request("GET", NC + "subscriptions", user="bob").status == 200,
          "bob's own password on Nextcloud")
    check(w.request("GET", path).status == 200, "alice's own path")


def test_session(w):
    """login.json sets a sessionid cookie that authenticates alone"""
    w.reset()
    r = w.request("POST", "/api/2/auth/alice/login.json")
    check(r.status == 200, r.status)
    cookie = r.headers["Set-Cookie"].split(";")[0]
    check(cookie.startswith("sessionid="), cookie)
    path = "/api/2/subscriptions/alice/desk.json?since=0"
    r = w.request("GET", path, user=None, headers={"Cookie": cookie})
    check(r.status == 200, f"with the cookie: {r.status}")
    r = w.request("GET", path, user=None,
                  headers={"Cookie": "sessionid=forged"})
    check(r.status == 401, f"with a forged cookie: {r.status}")
    r = w.request("POST", "/api/2/auth/alice/login.json", password="bad")
    check(r.status == 401, f"login with a bad password: {r.status}")


def test_devices(w):
    """devices: type and id are checked, and a device is made on first use"""
    w.reset()
    check(w.ok("POST", "/api/2/devices/alice/my-phone_2.json",
               {"caption": "Phone", "type": "mobile"}) is None,
          "an empty answer")
    for device, body in (("desk", {"type": "toaster"}),
                         ("bad%20id", {"type": "desktop"}),
                         ("x" * 65, {"type": "desktop"}),
                         ("desk", b"{nope")):
        r = w.request("POST", f"/api/2/devices/alice/{device}.json", body)
        check(r.status == 400, f"{device} {body!r}: {r.status}")
    check(w.request("POST", f"/api/2/devices/alice/{'x' * 64}.json",
                    {"type": "server"}).status == 200, "64 characters")
    w.ok("GET", "/api/2/subscriptions/alice/laptop.json?since=0")
    devices = {d["id"]: d for d in w.ok("GET", "/api/2/devices/alice.json")}
    check(devices["my-phone_2"]["type"] == "mobile" and
          devices["my-phone_2"]["caption"] == "Phone", devices)
    check(devices["laptop"]["type"] == "other", devices)


def test_api2_subscriptions(w):
    """/api/2 subscriptions: since is >=, one list for every device,
    400 for a URL in both lists, update_urls"""
    w.reset()
    path = "/api/2/subscriptions/alice/{}.json"
    r = w.request("POST", path.format("desk"),
                  {"add": [FEED], "remove": [FEED]})
    check(r.status == 400, f"a URL in both: {r.status}")
    w.control("/_clock", {"now": T0})
    up = w.ok("POST", path.format("desk"), {"add": [FEED, OTHER]})
    check(up == {"timestamp": T0, "update_urls": []}, up)
    w.control("/_clock", {"now": T0 + 10})
    w.ok("POST", path.format("phone"), {"remove": [OTHER]})
    got = w.ok("GET", path.format("desk") + "?since=0")
    check(got == {"add": [FEED], "remove": [OTHER],
                  "timestamp": T0 + 10}, got)
    got = w.ok("GET", path.format("phone") + f"?since={T0 + 10}")
    check(got["add"] == [] and got["remove"] == [OTHER],
          f"a change at since itself is sent: {got}")
    got = w.ok("GET", path.format("phone") + f"?since={T0 + 11}")
    check(got["add"] == [] == got["remove"], got)
    spaced = "  http://feeds.example.org/spaced.xml "
    w.switch(rewrite_urls={"http://old.example.org/f":
                           "http://new.example.org/f"})
    up = w.ok("POST", path.format("desk"),
              {"add": [spaced, "http://old.example.org/f", "file:///x"]})
    check(up["update_urls"] == [
        [spaced, spaced.strip()],
        ["http://old.example.org/f", "http://new.example.org/f"],
        ["file:///x", ""]], up)
    subs = w.control("/_state")["users"]["alice"]["api2"]["subscriptions"]
    check(subs == sorted([FEED, spaced.strip(), "http://new.example.org/f"]),
          subs)
    w.switch(sanitize_urls=False, rewrite_urls={})
    up = w.ok("POST", path.format("desk"), {"add": [spaced]})
    check(up["update_urls"] == [], up)
    r = w.request("GET", path.format("desk") + "?since=yesterday")
    check(r.status == 400, f"a bad since: {r.status}")
    check(w.request("PUT", "/subscriptions/alice/desk.json",
                    [FEED]).status == 200, "simple API PUT")
    check(w.ok("GET", "/subscriptions/alice/desk.json") == [FEED],
          "simple API GET")


def test_api2_actions(w):
    """/api/2 episode actions: since on the action's own time (>=), oldest
    first, reply timestamp the last one's, equal actions dropped"""
    w.reset()
    path = "/api/2/episodes/alice.json"
    w.control("/_clock", {"now": T0 + 1000})
    up = w.ok("POST", path, [play("http://e/2", T0 + 20, 200),
                             play("http://e/1", T0 + 10, 100,
                                  device="desk"),
                             {"podcast": FEED, "episode": "http://e/3",
                              "action": "download",
                              "timestamp": stamp(T0 + 30)}])
    check(up == {"timestamp": T0 + 1000, "update_urls": []}, up)
    got = w.ok("GET", path + "?since=0")
    check([a["episode"] for a in got["actions"]] ==
          ["http://e/1", "http://e/2", "http://e/3"], got)
    check(got["timestamp"] == T0 + 30, got)
    got = w.ok("GET", path + f"?since={T0 + 20}")
    check([a["episode"] for a in got["actions"]] ==
          ["http://e/2", "http://e/3"], got)
    got = w.ok("GET", path + f"?since={T0 + 31}")
    check(got == {"actions": [], "timestamp": T0 + 1000}, got)
    # Same episode, device, action, started and position: dropped even
    # though newer; another position is kept.
    w.ok("POST", path, [play("http://e/1", T0 + 500, 100, device="desk"),
                        play("http://e/1", T0 + 600, 150, device="desk")])
    actions = w.control("/_state")["users"]["alice"]["api2"]["actions"]
    check([(a["episode"], a["position"]) for a in actions
           if a["action"] == "play"] ==
          [("http://e/2", 200), ("http://e/1", 100), ("http://e/1", 150)],
          actions)
    got = w.ok("GET", path + "?since=0&device=desk")
    check(len(got["actions"]) == 2, got)
    got = w.ok("GET", path + "?since=0&aggregated=true")
    check([a.get("position") for a in got["actions"]] == [200, None, 150],
          got)
    check(w.ok("GET", path + "?since=0&podcast=http://x")["actions"] == [],
          "a podcast filter")
    for bad in (b"[{", {"not": "a list"}, [{"podcast": FEED}],
                [play("http://e/9", T0, 5, action="listen")],
                [play("http://e/9", T0, 5, timestamp="yesterday")],
                [{"podcast": FEED, "episode": "e", "action": "new",
                  "position": 5}]):
        r = w.request("POST", path, bad)
        check(r.status == 400, f"{bad!r}: {r.status}")


def test_api2_cap(w):
    """/api/2: at most episode_cap actions a reply; paging with the reply's
    timestamp reaches every action"""
    w.reset()
    path = "/api/2/episodes/alice.json"
    w.ok("POST", path, [play(f"http://e/{k}", T0 + k, 60)
                        for k in range(12)])
    w.switch(episode_cap=5)
    seen, since, pages = set(), 0, 0
    while True:
        got = w.ok("GET", path + f"?since={since}")
        pages += 1
        check(len(got["actions"]) <= 5, got)
        new = {a["episode"] for a in got["actions"]} - seen
        seen |= new
        if not new:
            break
        since = got["timestamp"]
    check(len(seen) == 12 and pages == 4, f"{len(seen)} in {pages} pages")
    w.switch(episode_cap=1000)
    check(len(w.ok("GET", path)["actions"]) == 12, "the default cap")


def test_time_forms(w):
    """action times: three forms read, each written when switched"""
    w.reset()
    path = "/api/2/episodes/alice.json"
    w.ok("POST", path, [
        play("http://e/a", 0, 1, timestamp="2009-12-12T09:00:00"),
        play("http://e/b", 0, 2, timestamp="2009-12-12T09:00:00Z"),
        play("http://e/c", 0, 3, timestamp="2009-12-12T09:00:00+00:00"),
        play("http://e/d", 0, 4, timestamp="2009-12-12T10:00:00+01:00")])
    stored = w.control("/_state")["users"]["alice"]["api2"]["actions"]
    check({a["timestamp"] for a in stored} == {1260608400}, stored)
    for form, text in (("naive", "2009-12-12T09:00:00"),
                       ("z", "2009-12-12T09:00:00Z"),
                       ("offset", "2009-12-12T09:00:00+00:00")):
        w.switch(time_format=form)
        for get in (path, NC + "episode_action"):
            if get != path:
                w.ok("POST", NC + "episode_action/create",
                     [play("http://e/a", 1260608400, 1)])
            got = w.ok("GET", get + "?since=0")["actions"]
            check(got and all(a["timestamp"] == text for a in got),
                  f"{form} on {get}: {got}")


def test_bodies(w):
    """malformed JSON is 400; a missing Content-Type is served and logged,
    or 415 when require_json is on"""
    w.reset()
    for path in ("/api/2/episodes/alice.json",
                 "/api/2/subscriptions/alice/desk.json",
                 NC + "episode_action/create",
                 NC + "subscription_change/create"):
        r = w.request("POST", path, b'{"add": [')
        check(r.status == 400, f"{path}: {r.status}")
    body = json.dumps({"add": [FEED]}).encode()
    path = NC + "subscription_change/create"
    check(w.request("POST", path, body, ctype=None).status == 200,
          "no Content-Type")
    check(w.requests()[-1]["content_type"] is None, w.requests()[-1])
    w.switch(require_json=True)
    check(w.request("POST", path, body, ctype=None).status == 415,
          "require_json")
    check(w.request("POST", path, body).status == 200, "with a JSON type")


def test_nextcloud(w):
    """Nextcloud: one row per guid or URL, last upload wins, > since,
    only play kept, PLAY in upper case"""
    w.reset()
    w.control("/_clock", {"now": T0 + 100})
    up = w.ok("POST", NC + "subscription_change/create",
              {"add": [FEED, OTHER], "remove": []})
    check(up == {"timestamp": T0 + 100}, up)
    w.control("/_clock", {"now": T0 + 200})
    w.ok("POST", NC + "subscription_change/create", {"remove": [OTHER]})
    got = w.ok("GET", NC + f"subscriptions?since={T0 + 100}")
    check(got == {"add": [], "remove": [OTHER], "timestamp": T0 + 200}, got)
    got = w.ok("GET", NC + "subscriptions?since=0")
    check(got["add"] == [FEED] and got["remove"] == [OTHER], got)
    check(w.ok("GET", NC + f"subscriptions?since={T0 + 200}")["remove"] ==
          [], "since is >")

    create = NC + "episode_action/create"
    w.ok("POST", create, [play("http://e/1", T0 + 50, 100, guid="g1"),
                          play("http://e/2", T0 + 60, 200)])
    # An older action uploaded later still replaces the row.
    w.ok("POST", create, [play("http://e/1-moved", T0 + 10, 30, guid="g1")])
    # No guid: the row of that URL. A guid no row has: the URL's row.
    w.ok("POST", create, [play("http://e/2", T0 + 70, 250)])
    w.ok("POST", create, [
        {"podcast": FEED, "episode": "http://e/3", "action": "download",
         "timestamp": stamp(T0 + 80)}])
    rows = w.control("/_state")["users"]["alice"]["nextcloud"]["actions"]
    check([(r.get("guid"), r["episode"], r["position"]) for r in rows] ==
          [("g1", "http://e/1-moved", 30), (None, "http://e/2", 250)], rows)
    got = w.ok("GET", NC + "episode_action?since=0")
    check({a["action"] for a in got["actions"]} == {"PLAY"}, got)
    check(got["timestamp"] == T0 + 200, got)
    got = w.ok("GET", NC + f"episode_action?since={T0 + 10}")
    check([a["episode"] for a in got["actions"]] == ["http://e/2"],
          f"since is >: {got}")
    w.ok("POST", create, [play("http://e/2", T0 + 90, 260, guid="g2")])
    rows = w.control("/_state")["users"]["alice"]["nextcloud"]["actions"]
    check(len(rows) == 2 and rows[1]["guid"] == "g2", rows)
    w.switch(play_only=False, upper_case=False)
    w.ok("POST", create, [
        {"podcast": FEED, "episode": "http://e/3", "action": "download",
         "timestamp": stamp(T0 + 80)}])
    got = w.ok("GET", NC + "episode_action?since=0")
    check(sorted(a["action"] for a in got["actions"]) ==
          ["download", "play", "play"], got)


def test_login_flow(w):
    """Login Flow v2: 404 until approved, the app password once, and it
    authenticates"""
    w.reset()
    check(w.request("POST", "/_approve", {}, user=None).status == 404,
          "nothing to approve")
    start = w.ok("POST", "/index.php/login/v2", user=None)
    poll = start["poll"]
    check(start["login"].startswith(w.url) and
          poll["endpoint"].startswith(w.url), start)
    endpoint = urllib.parse.urlsplit(poll["endpoint"]).path
    form = urllib.parse.urlencode({"token": poll["token"]}).encode()
    wwwform = "application/x-www-form-urlencoded"
    r = w.request("POST", endpoint, form, user=None, ctype=wwwform)
    check(r.status == 404, f"before approval: {r.status}")
    check(w.request("GET", urllib.parse.urlsplit(start["login"]).path,
                    user=None).status == 200, "the login page")
    approved = w.control("/_approve", {"user": "bob"})
    r = w.request("POST", endpoint, form, user=None, ctype=wwwform)
    check(r.status == 200, f"after approval: {r.status}")
    got = r.json()
    check(got == {"server": w.url, "loginName": "bob",
                  "appPassword": approved["appPassword"]}, got)
    r = w.request("POST", endpoint, form, user=None, ctype=wwwform)
    check(r.status == 404, f"a second time: {r.status}")
    r = w.request("GET", NC + "subscriptions", user="bob",
                  password=got["appPassword"])
    check(r.status == 200, f"the app password: {r.status}")
    state = w.control("/_state")
    check(state["users"]["bob"]["app_passwords"] == [got["appPassword"]],
          state["users"]["bob"])


def test_faults(w):
    """faults: the next N fail, stall or close; down until switched back;
    fault_path picks the requests; control paths are not logged"""
    w.reset()
    path = NC + "subscriptions"
    w.switch(fail_next=2)
    check([w.request("GET", path).status for _ in range(3)] ==
          [503, 503, 200], "fail_next")
    w.switch(fail_next=1, fail_status=500)
    check(w.request("GET", path).status == 500, "fail_status")
    w.switch(close_next=1)
    try:
        w.request("GET", path)
        check(False, "an answer to a closed connection")
    except (http.client.RemoteDisconnected, ConnectionError):
        pass
    w.switch(stall_next=1, stall_seconds=1)
    begin = time.monotonic()
    try:
        w.request("GET", path, timeout=0.3)
        check(False, "an answer before the stall ended")
    except socket.timeout:
        pass
    check(time.monotonic() - begin < 1, "the client gave up")
    w.switch(stall_next=1, stall_seconds=0.3)
    begin = time.monotonic()
    check(w.request("GET", path).status == 200, "a stalled answer")
    check(time.monotonic() - begin >= 0.3, "it stalled")
    w.switch(down=True, fail_status=503)
    check(w.request("GET", path).status == 503 and
          w.request("GET", "/api/2/devices/alice.json").status == 503,
          "down")
    w.switch(down=False)
    check(w.request("GET", path).status == 200, "up again")
    w.switch(fail_next=1, fault_path="/api/2/")
    check(w.request("GET", path).status == 200, "not under fault_path")
    check(w.request("GET", "/api/2/devices/alice.json").status == 503,
          "under fault_path")
    log = w.requests()
    check(all(not e["path"].startswith("/_") for e in log), log)
    check(log[0]["status"] == 503 and log[4]["status"] == "closed" and
          log[0]["user"] is None and log[2]["user"] == "alice", log[:5])
    counts = w.control("/_state")["requests"]
    check(counts["total"] == len(log) and counts["by_status"]["503"] == 5,
          counts)
    r = w.request("POST", "/_switch", {"no_such": 1}, user=None)
    check(r.status == 400, f"an unknown switch: {r.status}")
    r = w.request("POST", "/_switch", {"fail_next": "two"}, user=None)
    check(r.status == 400, f"a bad value: {r.status}")


def test_clock_reset(w):
    """the server's clock stamps replies and undated actions; reset
    forgets everything but the users"""
    w.reset()
    w.control("/_clock", {"now": T0})
    got = w.ok("POST", "/api/2/episodes/alice.json",
               [{"podcast": FEED, "episode": "http://e/n", "action": "new"}])
    check(got["timestamp"] == T0, got)
    got = w.ok("GET", "/api/2/episodes/alice.json")
    check(got["actions"][0]["timestamp"] == stamp(T0), got)
    now = w.control("/_clock", {"offset": -3600})["now"]
    check(abs(now - (time.time() - 3600)) < 5, now)
    now = w.control("/_clock", {})["now"]
    check(abs(now - time.time()) < 5, now)
    w.switch(episode_cap=3)
    w.reset()
    state = w.control("/_state")
    check(state["switches"]["episode_cap"] == 1000 and
          state["requests"]["total"] == 0 and
          state["users"]["alice"]["api2"]["actions"] == [] and
          sorted(state["users"]) == ["alice", "bob"], state)


def test_opodsync(w):
    """api2_rules opodsync: every action kept, unseen podcasts subscribed"""
    w.reset()
    w.switch(api2_rules="opodsync")
    path = "/api/2/episodes/alice.json"
    w.ok("POST", path, [play("http://e/1", T0, 100, podcast=OTHER),
                        play("http://e/1", T0 + 5, 100, podcast=OTHER)])
    state = w.control("/_state")["users"]["alice"]["api2"]
    check(len(state["actions"]) == 2, state)
    check(state["subscriptions"] == [OTHER], state)


def test_phone_gpodder(w):
    """phone, gpodder kind: positions travel between two phones by
    AntennaPod's rules"""
    w.reset()
    w.control("/_clock", {"now": T0})
    a = w.phone("gpodder", device="phone-a")
    b = w.phone("gpodder", device="phone-b")
    for p in (a, b):
        p.add_episode(FEED, "g1", "http://e/1.mp3", 1800)
        p.add_episode(FEED, "g2", "http://e/2.mp3", 1800)
        p.add_episode(FEED, None, "http://e/3.mp3", 1800)
    a.subscribe(FEED)
    a.pause("g1", 600)
    a.pause("http://e/3.mp3", 300)
    a.sync()
    b.sync()
    check(b.subscriptions() == [FEED], b.subscriptions())
    check(b.position("g1") == 600 and not b.played("g1"), b.position("g1"))
    check(b.position("http://e/3.mp3") == 300, "matched by URL")
    a.pause("g2", 1775)
    check(a.played("g2"), "30 s from the end is played locally")
    a.finish("g1")
    a.sync()
    b.sync()
    check(b.played("g2") and b.position("g2") == 1775, "almost ended")
    check(b.played("g1") and b.position("g1") == 1800, "finished")
    a.unsubscribe(FEED)
    a.sync()
    b.sync()
    check(b.subscriptions() == [], b.subscriptions())
    devices = {d["id"]: d["type"]
               for d in w.ok("GET", "/api/2/devices/alice.json")}
    check(devices == {"phone-a": "mobile", "phone-b": "mobile"}, devices)


def test_phone_rules(w):
    """phone: play only, usable positions only, guid alone, newest remote
    unless its own is newer, unknown episodes dropped, 30 an upload"""
    w.reset()
    p = w.phone("gpodder")
    p.add_episode(FEED, "g1", "http://e/1.mp3", 1800)
    p.add_episode(FEED, "g2", "http://e/2.mp3", 1800)
    p.add_episode(FEED, " g3", "http://e/3.mp3", 1800)
    p.add_episode(FEED, None, "http://e/4.mp3", 1800)
    # The server's clock stays at T0, behind every action: since never
    # passes one here.
    w.control("/_clock", {"now": T0})
    path = "/api/2/episodes/alice.json"
    w.ok("POST", path, [
        # Newest of two for g1 wins.
        play("http://e/1.mp3", T0 + 50, 400, guid="g1"),
        play("http://e/1.mp3", T0 + 40, 100, guid="g1"),
        # Position 0, or total 0, or started < 0: nothing.
        play("http://e/2.mp3", T0 + 30, 0, guid="g2"),
        play("http://e/2.mp3", T0 + 31, 500, guid="g2", total=0),
        play("http://e/2.mp3", T0 + 32, 500, guid="g2", started=-1),
        # A guid that matches nothing: no fallback to the URL, dropped;
        # the raw guid " g3" is not "g3".
        play("http://e/4.mp3", T0 + 20, 700, guid="other"),
        play("http://e/3.mp3", T0 + 20, 700, guid="g3"),
        # Not play: ignored.
        {"podcast": FEED, "episode": "http://e/4.mp3", "action": "delete",
         "timestamp": stamp(T0 + 10)},
        # An episode it does not have.
        play("http://e/9.mp3", T0 + 10, 900, guid="g9")])
    p.sync()
    check(p.position("g1") == 400, p.position("g1"))
    check(p.position("g2") == 0, p.position("g2"))
    check(p.position(" g3") == 0 and p.position("http://e/4.mp3") == 0,
          "no fallback to the URL")
    check(sorted(a.get("guid") for a in p.dropped) ==
          ["g3", "g9", "other"], p.dropped)
    # Its own queued action is newer than the remote one: kept.
    w.ok("POST", path, [play("http://e/1.mp3", T0 + 100, 1000, guid="g1")])
    p.clock = lambda: T0 + 105
    p.pause("g1", 450)
    p.sync()
    check(p.position("g1") == 450, p.position("g1"))
    # But a newer remote one is taken.
    w.ok("POST", path, [play("http://e/1.mp3", T0 + 200, 1200, guid="g1")])
    p.clock = lambda: T0 + 150
    p.pause("g1", 460)
    p.sync()
    check(p.position("g1") == 1200, p.position("g1"))
    w.reset()
    p = w.phone("gpodder")
    p.add_episode(FEED, "g1", "http://e/1.mp3", 7200)
    for k in range(65):
        p.pause("g1", 10 * (k + 1))
    p.sync()
    posts = [e for e in w.requests()
             if e["method"] == "POST" and e["path"] == path]
    check(len(posts) == 3, f"{len(posts)} uploads for 65 actions")
    stored = w.control("/_state")["users"]["alice"]["api2"]["actions"]
    check(len(stored) == 65, len(stored))


def test_phone_nextcloud(w):
    """phone, nextcloud kind: PLAY read, subscriptions and positions shared,
    a failing server leaves the queue for the next sync"""
    w.reset()
    w.control("/_clock", {"now": T0})
    a = w.phone("nextcloud", device="a", clock=lambda: T0 + 10)
    b = w.phone("nextcloud", device="b", clock=lambda: T0 + 20)
    for p in (a, b):
        p.add_episode(FEED, "g1", "http://e/1.mp3", 1800)
    a.subscribe(FEED)
    a.subscribe(OTHER)
    a.pause("g1", 900)
    a.sync()
    check(w.ok("GET", NC + "episode_action")["actions"][0]["action"] ==
          "PLAY", "upper case on the wire")
    b.sync()
    check(sorted(b.subscriptions()) == sorted([FEED, OTHER]),
          b.subscriptions())
    check(b.position("g1") == 900, b.position("g1"))
    b.pause("g1", 1000)
    w.switch(fail_next=3)
    try:
        b.sync()
        check(False, "a sync through 503")
    except OSError as e:
        check(getattr(e, "code", None) == 503, e)
    check(len(b.queue) == 1, b.queue)
    w.switch(fail_next=0)
    b.sync()
    a.sync()
    check(a.position("g1") == 1000 and not b.queue, a.position("g1"))


def mygpo(w, user="alice"):
    from mygpoclient import api
    return api.MygPodderClient(user, user + "-pw", w.url)


def test_mygpoclient_subscriptions(w):
    """mygpoclient: a Basic challenge first, then devices and
    subscriptions both ways"""
    w.reset()
    client = mygpo(w)
    check(client.update_device_settings("desktop", "gPodder", "desktop"),
          "device settings")
    log = w.requests()
    check([e["status"] for e in log] == [401, 200],
          f"it answers the challenge: {log}")
    result = client.update_subscriptions("desktop", [FEED, " " + OTHER],
                                         [])
    check(result.update_urls == [(" " + OTHER, OTHER)],
          result.update_urls)
    check(isinstance(result.since, int), result.since)
    changes = client.pull_subscriptions("desktop", 0)
    check(sorted(changes.add) == sorted([FEED, OTHER]) and
          changes.remove == [], (changes.add, changes.remove))
    phone = w.phone("gpodder")
    phone.sync()
    check(sorted(phone.subscriptions()) == sorted([FEED, OTHER]),
          phone.subscriptions())
    phone.unsubscribe(OTHER)
    phone.sync()
    changes = client.pull_subscriptions("desktop", result.since)
    check(changes.remove == [OTHER], changes.remove)
    devices = {d.device_id: d.type for d in client.get_devices()}
    check(devices == {"desktop": "desktop", "phone": "mobile"}, devices)


def test_mygpoclient_actions(w):
    """mygpoclient: episode actions both ways with a phone; it cannot read
    +00:00 times"""
    w.reset()
    from mygpoclient import api
    client = mygpo(w)
    phone = w.phone("gpodder")
    phone.add_episode(FEED, "g1", "http://e/1.mp3", 1800)
    phone.add_episode(FEED, "g2", "http://e/2.mp3", 1800)
    # gPodder sends no guid: the phone matches by the enclosure URL.
    since = client.upload_episode_actions([
        api.EpisodeAction(FEED, "http://e/1.mp3", "play", "desktop",
                          stamp(int(time.time()) - 60), 0, 420, 1800),
        api.EpisodeAction(FEED, "http://e/2.mp3", "download", "desktop",
                          stamp(int(time.time()) - 60))])
    check(isinstance(since, int), since)
    phone.sync()
    check(phone.position("g1") == 420, phone.position("g1"))
    phone.pause("g2", 77)
    phone.sync()
    changes = client.download_episode_actions(0)
    got = [(a.episode, a.action, a.position) for a in changes.actions]
    check(got == [("http://e/1.mp3", "play", 420),
                  ("http://e/2.mp3", "download", None),
                  ("http://e/2.mp3", "play", 77)], got)
    check(changes.actions[0].device == "desktop", changes.actions[0].device)
    later = client.download_episode_actions(changes.since)
    check([a.position for a in later.actions] == [77],
          "the last one again, as >= gives it")
    w.switch(time_format="z")
    check(len(client.download_episode_actions(0).actions) == 3, "Z")
    w.switch(time_format="offset")
    try:
        client.download_episode_actions(0)
        check(False, "mygpoclient read +00:00")
    except ValueError:
        pass


TESTS = [test_challenge, test_session, test_devices,
         test_api2_subscriptions, test_api2_actions, test_api2_cap,
         test_time_forms, test_bodies, test_nextcloud, test_login_flow,
         test_faults, test_clock_reset, test_opodsync, test_phone_gpodder,
         test_phone_rules, test_phone_nextcloud,
         test_mygpoclient_subscriptions, test_mygpoclient_actions]

if __name__ == "__main__":
    sys.exit(run_tap(TESTS, World, need=()))
