#!/usr/bin/python3
"""A loopback sync server for phone-sync tests: gpodder.net API v2 and
Nextcloud gpoddersync, both at once, each with its own server's rules.

Standard library only. Binds 127.0.0.1 on a free port, prints the port as
the first line of standard output, and serves until it is killed or its
standard input closes (so a test that crashes never leaves it running).

    gpodder-server.py [--user NAME:PASSWORD]... [--no-stdin]

Without --user there is one user, user:secret. The two families keep
separate data: a user's subscriptions and actions on /api/2 are not seen
under /index.php and the other way round, as with two real servers.

gpodder.net API v2, mygpo's rules (USER must be the user authenticated):

  POST /api/2/auth/USER/login.json   Basic; sets a sessionid cookie that
                                     authenticates later requests (any
                                     request authenticated by Basic sets
                                     one too, as Django's login does)
  POST /api/2/auth/USER/logout.json  forgets the cookie
  POST /api/2/devices/USER/ID.json   {"caption","type"}; type desktop,
                                     laptop, mobile, server or other; ID
                                     [\\w.-]+, at most 64 characters; else
                                     400. Answers an empty 200
  GET  /api/2/devices/USER.json      [{"id","caption","type",
                                     "subscriptions"}]
  GET  /api/2/subscriptions/USER/DEVICE.json?since=N
                                     {"add","remove","timestamp"}: URLs
                                     whose last change is at or after N
  POST /api/2/subscriptions/USER/DEVICE.json {"add":[],"remove":[]}
                                     400 when a URL is in both; answers
                                     {"timestamp","update_urls":[[old,new]]}
  GET  /api/2/episodes/USER.json?since=N[&podcast=URL][&device=ID]
                                     [&aggregated=true]
                                     {"actions","timestamp"}: actions whose
                                     own timestamp is >= N, oldest first,
                                     at most episode_cap of them; timestamp
                                     is the last one's (now when none)
  POST /api/2/episodes/USER.json     a JSON array of actions; an action
                                     equal to a stored one on (episode,
                                     device, action, started, position)
                                     is dropped, whatever its timestamp;
                                     answers {"timestamp","update_urls"}
  GET/PUT /subscriptions/USER/DEVICE.json
                                     the simple API: the list of URLs

  Devices are made on first use (type "other"). mygpo keeps a list of
  subscriptions per device and syncs the devices of a user only when told
  to; this server keeps one list per user, so a change made from one
  device is seen by every other, which is what a user who synchronised
  their devices gets.

Nextcloud gpoddersync's rules (Basic user:password or user:app-password on
every request, no cookie):

  GET  /index.php/apps/gpoddersync/subscriptions?since=N
                                     {"add","remove","timestamp"}: changes
                                     after N (> N)
  POST /index.php/apps/gpoddersync/subscription_change/create
                                     {"add","remove"} -> {"timestamp"}
  GET  /index.php/apps/gpoddersync/episode_action?since=N
                                     {"actions","timestamp"}: rows whose
                                     action time is > N, action names in
                                     upper case (PLAY)
  POST /index.php/apps/gpoddersync/episode_action/create
                                     a JSON array of actions; one row per
                                     (user, guid), else (user, episode URL):
                                     the last upload replaces the row
                                     whatever its timestamp; only play is
                                     kept -> {"timestamp"}
  POST /index.php/login/v2           Login Flow v2: {"poll":{"token",
                                     "endpoint"},"login":URL}
  POST /index.php/login/v2/poll      form body token=T: 404 until the flow
                                     is approved (POST /_approve), then
                                     once 200 {"server","loginName",
                                     "appPassword"}, then 404 again
  GET  /index.php/login/v2/flow/ID   a page saying what to do

Both families: wrong or missing credentials answer 401 with
WWW-Authenticate: Basic realm="...". Timestamps of actions are read in
three forms (2009-12-12T09:00:00, with Z, with +00:00; fractions of a
second too) and written in the form time_format says; "timestamp" in
replies is always an integer (Unix seconds, the server's clock). A
malformed JSON body answers 400. A POST without a JSON Content-Type is
served, and marked "content_type": null (or the type) in the log.

Switches (POST /_switch with a JSON object of names and values; /_reset
sets them back to these defaults):

  time_format     "naive" (default), "z" or "offset": how action times
                  are written (2009-12-12T09:00:00, ...Z, ...+00:00)
  episode_cap     1000: most actions in one /api/2 episodes reply
  api2_rules      "mygpo" (default) or "opodsync": opodsync keeps every
                  action (no dropping of equal ones, no cap) and subscribes
                  the user to any podcast URL of an uploaded action that
                  the user has not seen
  dedupe          true: /api/2 drops actions equal to a stored one
  sanitize_urls   true: /api/2 strips spaces around uploaded URLs and
                  reports each changed one in update_urls ([" u ", "u"]);
                  a URL that is not http(s) is reported as [url, ""] and
                  not kept
  rewrite_urls    {}: {old: new}: /api/2 stores new for old and reports
                  [old, new] in update_urls
  play_only       true: Nextcloud keeps only play actions
  upper_case      true: Nextcloud answers PLAY, not play
  require_json    false: when true, a POST without a JSON Content-Type
                  answers 415
  fail_next       0: the next N client requests answer fail_status
  fail_status     503
  stall_next      0: the next N client requests wait stall_seconds first
  stall_seconds   5
  close_next      0: the next N client requests are read, then the
                  connection is closed with no answer
  down            false: when true, every client request answers
                  fail_status until it is switched back
  fault_path      "": the fault switches count and hit only requests whose
                  path starts with this ("" is every request)

Control paths (no authentication; not logged as client requests):

  POST /_switch   {name: value, ...}; answers every switch's value; 400 for
                  an unknown name
  GET  /_state    {"switches", "now", "users": {NAME: {"api2":
                  {"subscriptions", "devices", "actions"}, "nextcloud":
                  {"subscriptions", "actions"}, "app_passwords"}},
                  "requests": {"total", "by_status", "by_family"}}
  GET  /_log      [{"method","path","family","user","status",
                  "content_type"}] in order
  POST /_reset    forgets subscriptions, actions, devices, sessions, login
                  flows, app passwords, the log, the clock and switches
  POST /_approve  approves the oldest pending login flow for {"user": NAME}
                  (the first user when the body is empty); answers
                  {"token","loginName","appPassword"}; 404 with none pending
  POST /_clock    {"now": N} fixes the server's clock at N, {"offset": S}
                  runs it S seconds from real time, {"now": null} (or {})
                  gives real time back; answers {"now": N}
"""

import argparse
import base64
import copy
import json
import os
import re
import secrets
import sys
import threading
import time
import urllib.parse
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULTS = {
    "time_format": "naive",
    "episode_cap": 1000,
    "api2_rules": "mygpo",
    "dedupe": True,
    "sanitize_urls": True,
    "rewrite_urls": {},
    "play_only": True,
    "upper_case": True,
    "require_json": False,
    "fail_next": 0,
    "fail_status": 503,
    "stall_next": 0,
    "stall_seconds": 5,
    "close_next": 0,
    "down": False,
    "fault_path": "",
}
SWITCH_CHECKS = {
    "time_format": lambda v: v in ("naive", "z", "offset"),
    "api2_rules": lambda v: v in ("mygpo", "opodsync"),
    "rewrite_urls": lambda v: isinstance(v, dict) and all(
        isinstance(k, str) and isinstance(x, str) for k, x in v.items()),
    "fault_path": lambda v: isinstance(v, str),
    "fail_status": lambda v: isinstance(v, int) and 100 <= v <= 599,
    "stall_seconds": lambda v: isinstance(v, (int, float)) and v >= 0,
}
DEVICE_TYPES = ("desktop", "laptop", "mobile", "server", "other")
ACTIONS = ("download", "play", "delete", "new", "flattr")
DEVICE_ID = re.compile(r"[\w.-]{1,64}", re.ASCII)
API2 = "/api/2/"
NEXTCLOUD = "/index.php/apps/gpoddersync/"
LOGIN_FLOW = "/index.php/login/v2"


class BadRequest(Exception):
    pass


def parse_time(text):
    """Unix seconds of an action's timestamp, in any of the forms servers
    and apps write; BadRequest for anything else."""
    if not isinstance(text, str):
        raise BadRequest(f"timestamp is not a string: {text!r}")
    value = text.strip()
    if value.endswith("Z"):
        value = value[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise BadRequest(f"bad timestamp {text!r}") from None
    if "T" not in value:
        raise BadRequest(f"bad timestamp {text!r}")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp())


def format_time(seconds, form):
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    return text + {"naive": "", "z": "Z", "offset": "+00:00"}[form]


def whole(value, name):
    # JSON has no integers of its own: 12.0 is accepted, 12.5 is not.
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            value != int(value):
        raise BadRequest(f"{name} is not a whole number: {value!r}")
    return int(value)


class Account:
    """One user's data on both families."""

    def __init__(self, password):
        self.password = password
        self.app_passwords = []
        # url -> [subscribed, unix seconds of the last change, device]
        self.api2_subs = {}
        self.devices = {}
        self.api2_actions = []
        self.nc_subs = {}
        self.nc_actions = []

    def clear(self):
        self.__init__(self.password)


class State:
    """Everything the server keeps, shared by every handler thread."""

    def __init__(self, users):
        self.lock = threading.Lock()
        self.initial_users = dict(users)
        self.reset()

    def reset(self):
        self.accounts = {name: Account(pw)
                         for name, pw in self.initial_users.items()}
        self.switches = copy.deepcopy(DEFAULTS)
        self.sessions = {}
        self.flows = {}
        self.log = []
        self.fixed_now = None
        self.offset = 0

    def now(self):
        if self.fixed_now is not None:
            return self.fixed_now
        return int(time.time()) + self.offset

    def check(self, user, password):
        account = self.accounts.get(user)
        return account is not None and (
            password == account.password or
            password in account.app_passwords)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def __init__(self, address, state):
        super().__init__(address, Handler)
        self.state = state

    def handle_error(self, request, client_address):
        # Clients that give up on a stalled answer are part of the tests.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "gpodder-server/1"

    def log_message(self, fmt, *args):
        if os.environ.get("GPODDER_SERVER_VERBOSE"):
            sys.stderr.write("gpodder-server: " + (fmt % args) + "\n")

    def do_GET(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def do_PUT(self):
        self.dispatch()

    def do_DELETE(self):
        self.dispatch()

    # Plumbing

    def dispatch(self):
        url = urllib.parse.urlsplit(self.path)
        self.query = dict(urllib.parse.parse_qsl(url.query))
        length = int(self.headers.get("Content-Length") or 0)
        self.body = self.rfile.read(length) if length > 0 else b""
        state = self.server.state
        # One handler serves every request of a connection.
        self.entry = None
        self.extra_headers = []
        if url.path.startswith("/_"):
            self.control(url.path)
            return
        if url.path.startswith(API2) or url.path.startswith("/subscriptions/"):
            family = "api2"
        elif url.path.startswith("/index.php/"):
            family = "nextcloud"
        else:
            family = None
        ctype = self.headers.get("Content-Type")
        self.entry = {"method": self.command, "path": self.path,
                      "family": family, "user": None, "status": None,
                      "content_type": ctype}
        with state.lock:
            state.log.append(self.entry)
        if self.fault(url.path):
            return
        if self.command in ("POST", "PUT") and self.body and \
                not (ctype or "").startswith("application/json") and \
                not url.path.startswith(LOGIN_FLOW):
            with state.lock:
                strict = state.switches["require_json"]
            if strict:
                self.send_json(415, {"error": "not JSON"})
                return
        try:
            if family == "api2":
                self.api2(url.path)
            elif family == "nextcloud":
                self.nextcloud(url.path)
            else:
                self.send_json(404, {"error": "not found"})
        except BadRequest as e:
            self.send_json(400, {"error": str(e)})

    def fault(self, path):
        """Answers the request with the fault a switch asks for, if any."""
        state = self.server.state
        with state.lock:
            s = state.switches
            hit = path.startswith(s["fault_path"])
            status = s["fail_status"]
            if s["down"]:
                kind = "fail"
            elif hit and s["close_next"] > 0:
                s["close_next"] -= 1
                kind = "close"
            elif hit and s["stall_next"] > 0:
                s["stall_next"] -= 1
                kind = "stall"
            elif hit and s["fail_next"] > 0:
                s["fail_next"] -= 1
                kind = "fail"
            else:
                return False
            stall = s["stall_seconds"]
        if kind == "close":
            self.entry["status"] = "closed"
            self.close_connection = True
            return True
        if kind == "stall":
            time.sleep(stall)
            return False
        self.send_json(status, {"error": "server error"},
                       [("Retry-After", "1")] if status == 503 else [])
        return True

    def send_json(self, status, value, headers=(), raw=None,
                  ctype="application/json"):
        body = raw if raw is not None else \
            (json.dumps(value) + "\n").encode()
        if self.entry is not None:
            self.entry["status"] = status
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for name, value in list(headers) + self.extra_headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def json_body(self):
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise BadRequest("malformed JSON body") from None

    def basic_user(self):
        """The user whose Basic credentials came, or None."""
        value = self.headers.get("Authorization", "")
        if not value.lower().startswith("basic "):
            return None
        try:
            pair = base64.b64decode(value[6:].strip(),
                                    validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return None
        user, sep, password = pair.partition(":")
        with self.server.state.lock:
            ok = sep and self.server.state.check(user, password)
        return user if ok else None

    def session_user(self):
        cookies = self.headers.get("Cookie", "")
        for part in cookies.split(";"):
            name, _, value = part.strip().partition("=")
            if name == "sessionid":
                with self.server.state.lock:
                    return self.server.state.sessions.get(value)
        return None

    def challenge(self, realm):
        self.send_json(401, {"error": "unauthorized"},
                       [("WWW-Authenticate", f'Basic realm="{realm}"')])

    def since(self):
        text = self.query.get("since", "0") or "0"
        try:
            return int(text)
        except ValueError:
            raise BadRequest(f"since is not a number: {text!r}") from None

    def url_lists(self, value):
        if not isinstance(value, dict):
            raise BadRequest("not a JSON object")
        add, remove = value.get("add", []), value.get("remove", [])
        for name, urls in (("add", add), ("remove", remove)):
            if not isinstance(urls, list) or \
                    not all(isinstance(u, str) for u in urls):
                raise BadRequest(f"{name} is not a list of strings")
        return add, remove

    # gpodder.net API v2

    def api2(self, path):
        parts = path.strip("/").split("/")
        if parts[0] == "subscriptions":
            parts = ["api", "2"] + parts
            simple = True
        else:
            simple = False
        parts = parts[2:]
        if not parts or not parts[-1].endswith(".json"):
            self.send_json(404, {"error": "not found"})
            return
        parts[-1] = parts[-1][:-5]
        what, args = parts[0], parts[1:]
        if not args:
            self.send_json(404, {"error": "not found"})
            return
        user = args[0]
        if what == "auth" and len(args) == 2 and self.command == "POST":
            self.api2_auth(user, args[1])
            return
        authed = self.session_user()
        fresh = authed is None
        if fresh:
            authed = self.basic_user()
        self.entry["user"] = authed
        if authed is None or authed != user:
            self.challenge("gpodder.net")
            return
        if fresh:
            # Like mygpo (Django), Basic logs the client in: gPodder's
            # mygpoclient answers only three challenges in its life and
            # relies on the cookie afterwards.
            self.extra_headers.append(self.new_session(authed))
        account = self.server.state.accounts[user]
        if simple and len(args) == 2:
            self.api2_simple(account, args[1])
        elif what == "devices" and len(args) == 2 and \
                self.command == "POST":
            self.api2_device(account, args[1])
        elif what == "devices" and len(args) == 1 and self.command == "GET":
            self.api2_devices(account)
        elif what == "subscriptions" and len(args) == 2 and \
                self.command in ("GET", "POST"):
            self.api2_subscriptions(account, args[1])
        elif what == "episodes" and len(args) == 1 and \
                self.command in ("GET", "POST"):
            if self.command == "GET":
                self.api2_download(account)
            else:
                self.api2_upload(account)
        else:
            self.send_json(404, {"error": "not found"})

    def api2_auth(self, user, verb):
        state = self.server.state
        authed = self.basic_user()
        if verb == "logout":
            cookie = self.session_user()
            with state.lock:
                for sid, who in list(state.sessions.items()):
                    if who == cookie == user:
                        del state.sessions[sid]
            self.send_json(200, {})
            return
        if verb != "login":
            self.send_json(404, {"error": "not found"})
            return
        self.entry["user"] = authed
        if authed is None or authed != user:
            self.challenge("gpodder.net")
            return
        self.send_json(200, {}, [self.new_session(user)])

    def new_session(self, user):
        """A Set-Cookie header with a new session of @user."""
        sid = secrets.token_hex(16)
        with self.server.state.lock:
            self.server.state.sessions[sid] = user
        return ("Set-Cookie", f"sessionid={sid}; HttpOnly; Path=/")

    @staticmethod
    def device_id(name):
        if not DEVICE_ID.fullmatch(name):
            raise BadRequest(f"invalid device id {name!r}")
        return name

    def touch_device(self, account, device):
        # Caller holds the lock. mygpo makes a device on first use.
        account.devices.setdefault(device, {"caption": "", "type": "other"})

    def api2_device(self, account, device):
        device = self.device_id(device)
        data = self.json_body()
        if not isinstance(data, dict):
            raise BadRequest("not a JSON object")
        kind = data.get("type")
        if kind is not None and kind not in DEVICE_TYPES:
            raise BadRequest(f"invalid device type {kind!r}")
        caption = data.get("caption")
        if caption is not None and not isinstance(caption, str):
            raise BadRequest("caption is not a string")
        with self.server.state.lock:
            self.touch_device(account, device)
            if kind is not None:
                account.devices[device]["type"] = kind
            if caption is not None:
                account.devices[device]["caption"] = caption
        self.send_json(200, None, raw=b"")

    def api2_devices(self, account):
        with self.server.state.lock:
            n = sum(1 for s in account.api2_subs.values() if s[0])
            devices = [{"id": d, "caption": v["caption"], "type": v["type"],
                        "subscriptions": n}
                       for d, v in account.devices.items()]
        self.send_json(200, devices)

    def sanitize(self, url, switches):
        """The URL mygpo would keep for @url: "" when it keeps none."""
        new = url
        if switches["sanitize_urls"]:
            new = new.strip()
            if not re.match(r"https?://[^/\s]", new):
                new = ""
        return switches["rewrite_urls"].get(new, new)

    def api2_subscriptions(self, account, device):
        device = self.device_id(device)
        state = self.server.state
        if self.command == "GET":
            since = self.since()
            with state.lock:
                self.touch_device(account, device)
                changes = self.changes(account.api2_subs,
                                       lambda t: t >= since)
                now = state.now()
            self.send_json(200, dict(changes, timestamp=now))
            return
        add, remove = self.url_lists(self.json_body())
        both = set(add) & set(remove)
        if both:
            raise BadRequest(f"in add and remove: {sorted(both)[0]}")
        with state.lock:
            self.touch_device(account, device)
            now = state.now()
            updates = []
            for urls, subscribed in ((add, True), (remove, False)):
                for url in urls:
                    new = self.sanitize(url, state.switches)
                    if new != url:
                        updates.append([url, new])
                    if new:
                        account.api2_subs[new] = [subscribed, now, device]
        self.send_json(200, {"timestamp": now, "update_urls": updates})

    @staticmethod
    def changes(subs, wanted):
        add = [u for u, (on, t, _) in subs.items() if on and wanted(t)]
        remove = [u for u, (on, t, _) in subs.items()
                  if not on and wanted(t)]
        return {"add": add, "remove": remove}

    def api2_simple(self, account, device):
        device = self.device_id(device)
        state = self.server.state
        if self.command == "GET":
            with state.lock:
                if device not in account.devices:
                    self.send_json(404, {"error": "no such device"})
                    return
                urls = [u for u, s in account.api2_subs.items() if s[0]]
            self.send_json(200, urls)
        elif self.command == "PUT":
            urls = self.json_body()
            if not isinstance(urls, list) or \
                    not all(isinstance(u, str) for u in urls):
                raise BadRequest("not a list of URLs")
            with state.lock:
                self.touch_device(account, device)
                now = state.now()
                wanted = {self.sanitize(u, state.switches) for u in urls}
                wanted.discard("")
                for url, s in account.api2_subs.items():
                    if s[0] and url not in wanted:
                        account.api2_subs[url] = [False, now, device]
                for url in wanted:
                    if not account.api2_subs.get(url, [False])[0]:
                        account.api2_subs[url] = [True, now, device]
            self.send_json(200, None, raw=b"")
        else:
            self.send_json(405, {"error": "method not allowed"})

    def read_action(self, item, now):
        """An uploaded action as stored: BadRequest when it is not one."""
        if not isinstance(item, dict):
            raise BadRequest("an action is not a JSON object")
        for key in ("podcast", "episode", "action"):
            if not isinstance(item.get(key), str) or not item[key]:
                raise BadRequest(f"an action has no {key}")
        action = item["action"].lower()
        if action not in ACTIONS:
            raise BadRequest(f"unknown action {item['action']!r}")
        stored = {"podcast": item["podcast"], "episode": item["episode"],
                  "action": action}
        for key in ("guid", "device"):
            if item.get(key) is not None:
                if not isinstance(item[key], str):
                    raise BadRequest(f"{key} is not a string")
                stored[key] = item[key]
        if "device" in stored:
            self.device_id(stored["device"])
        stored["timestamp"] = parse_time(item["timestamp"]) \
            if item.get("timestamp") is not None else now
        for key in ("started", "position", "total"):
            if item.get(key) is not None:
                if action != "play":
                    raise BadRequest(f"{key} in a {action} action")
                stored[key] = whole(item[key], key)
        return stored

    def written(self, action, form, upper=False):
        out = dict(action)
        out["timestamp"] = format_time(action["timestamp"], form)
        if upper:
            out["action"] = action["action"].upper()
        return out

    def api2_upload(self, account):
        actions = self.json_body()
        if not isinstance(actions, list):
            raise BadRequest("not a JSON array")
        state = self.server.state
        with state.lock:
            now = state.now()
            stored = [self.read_action(a, now) for a in actions]
            s = state.switches
            opodsync = s["api2_rules"] == "opodsync"
            updates = []
            for a in stored:
                for key in ("podcast", "episode"):
                    new = self.sanitize(a[key], s)
                    if new != a[key]:
                        updates.append([a[key], new])
                        a[key] = new or a[key]
                if "device" in a:
                    self.touch_device(account, a["device"])
                if opodsync and a["podcast"] not in account.api2_subs:
                    account.api2_subs[a["podcast"]] = [True, now, None]
                key = self.same_key(a)
                if s["dedupe"] and not opodsync and any(
                        self.same_key(b) == key
                        for b in account.api2_actions):
                    continue
                account.api2_actions.append(a)
        self.send_json(200, {"timestamp": now, "update_urls": updates})

    @staticmethod
    def same_key(a):
        return (a["episode"], a.get("device"), a["action"],
                a.get("started"), a.get("position"))

    def api2_download(self, account):
        since = self.since()
        podcast = self.query.get("podcast")
        device = self.query.get("device")
        aggregated = self.query.get("aggregated", "").lower() == "true"
        state = self.server.state
        with state.lock:
            s = state.switches
            found = [a for a in account.api2_actions
                     if a["timestamp"] >= since and
                     (podcast is None or a["podcast"] == podcast) and
                     (device is None or a.get("device") == device)]
            found.sort(key=lambda a: a["timestamp"])
            if aggregated:
                last = {}
                for a in found:
                    last[(a["podcast"], a["episode"])] = a
                found = sorted(last.values(), key=lambda a: a["timestamp"])
            if s["api2_rules"] == "mygpo":
                found = found[:s["episode_cap"]]
            stamp = found[-1]["timestamp"] if found else state.now()
            out = [self.written(a, s["time_format"]) for a in found]
        self.send_json(200, {"actions": out, "timestamp": stamp})

    # Nextcloud

    def nextcloud(self, path):
        if path == LOGIN_FLOW and self.command == "POST":
            self.flow_start()
            return
        if path == LOGIN_FLOW + "/poll" and self.command == "POST":
            self.flow_poll()
            return
        if path.startswith(LOGIN_FLOW + "/flow/") and self.command == "GET":
            self.send_json(200, None, raw=b"<!DOCTYPE html>\n<p>Log in and "
                           b"grant access: POST /_approve on this server."
                           b"</p>\n", ctype="text/html; charset=utf-8")
            return
        if not path.startswith(NEXTCLOUD):
            self.send_json(404, {"error": "not found"})
            return
        user = self.basic_user()
        self.entry["user"] = user
        if user is None:
            self.challenge("Nextcloud")
            return
        account = self.server.state.accounts[user]
        route = (self.command, path[len(NEXTCLOUD):].rstrip("/"))
        if route == ("GET", "subscriptions"):
            self.nc_subscriptions(account)
        elif route == ("POST", "subscription_change/create"):
            self.nc_subscription_change(account)
        elif route == ("GET", "episode_action"):
            self.nc_download(account)
        elif route == ("POST", "episode_action/create"):
            self.nc_upload(account)
        else:
            self.send_json(404, {"error": "not found"})

    def nc_subscriptions(self, account):
        since = self.since()
        state = self.server.state
        with state.lock:
            changes = self.changes(account.nc_subs, lambda t: t > since)
            now = state.now()
        self.send_json(200, dict(changes, timestamp=now))

    def nc_subscription_change(self, account):
        add, remove = self.url_lists(self.json_body())
        state = self.server.state
        with state.lock:
            now = state.now()
            for urls, subscribed in ((add, True), (remove, False)):
                for url in urls:
                    account.nc_subs[url] = [subscribed, now, None]
        self.send_json(200, {"timestamp": now})

    def nc_upload(self, account):
        actions = self.json_body()
        if not isinstance(actions, list):
            raise BadRequest("not a JSON array")
        state = self.server.state
        with state.lock:
            now = state.now()
            stored = [self.read_action(a, now) for a in actions]
            for a in stored:
                if state.switches["play_only"] and a["action"] != "play":
                    continue
                a.pop("device", None)
                row = None
                if a.get("guid"):
                    row = next((i for i, b in enumerate(account.nc_actions)
                                if b.get("guid") == a["guid"]), None)
                if row is None:
                    row = next((i for i, b in enumerate(account.nc_actions)
                                if b["episode"] == a["episode"]), None)
                if row is None:
                    account.nc_actions.append(a)
                else:
                    account.nc_actions[row] = a
        self.send_json(200, {"timestamp": now})

    def nc_download(self, account):
        since = self.since()
        state = self.server.state
        with state.lock:
            s = state.switches
            out = [self.written(a, s["time_format"], s["upper_case"])
                   for a in account.nc_actions if a["timestamp"] > since]
            now = state.now()
        self.send_json(200, {"actions": out, "timestamp": now})

    def base(self):
        return f"http://{self.headers.get('Host', '127.0.0.1')}"

    def flow_start(self):
        token = secrets.token_urlsafe(32)
        flow = secrets.token_urlsafe(16)
        with self.server.state.lock:
            self.server.state.flows[token] = {"id": flow, "user": None,
                                              "password": None}
        self.send_json(200, {
            "poll": {"token": token,
                     "endpoint": self.base() + LOGIN_FLOW + "/poll"},
            "login": self.base() + LOGIN_FLOW + "/flow/" + flow})

    def flow_poll(self):
        form = dict(urllib.parse.parse_qsl(self.body.decode("utf-8",
                                                            "replace")))
        token = form.get("token")
        state = self.server.state
        with state.lock:
            flow = state.flows.get(token)
            if flow is None or flow["user"] is None:
                flow = None
            else:
                del state.flows[token]
        if flow is None:
            self.send_json(404, [])
            return
        self.send_json(200, {"server": self.base(), "loginName": flow["user"],
                             "appPassword": flow["password"]})

    # Control

    def control(self, path):
        state = self.server.state
        route = (self.command, path)
        if route == ("POST", "/_switch"):
            self.switch()
        elif route == ("GET", "/_state"):
            self.send_json(200, self.snapshot())
        elif route == ("GET", "/_log"):
            with state.lock:
                self.send_json(200, [dict(e) for e in state.log])
        elif route == ("POST", "/_reset"):
            with state.lock:
                state.reset()
            self.send_json(200, {"reset": True})
        elif route == ("POST", "/_approve"):
            self.approve()
        elif route == ("POST", "/_clock"):
            self.clock()
        else:
            self.send_json(404, {"error": "not found"})

    def control_body(self):
        if not self.body.strip():
            return {}
        try:
            value = json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            value = None
        if not isinstance(value, dict):
            self.send_json(400, {"error": "want a JSON object"})
            return None
        return value

    def switch(self):
        changes = self.control_body()
        if changes is None:
            return
        state = self.server.state
        for name, value in changes.items():
            if name not in DEFAULTS:
                self.send_json(400, {"error": f"no switch {name!r}"})
                return
            check = SWITCH_CHECKS.get(name)
            if check is None:
                kind = type(DEFAULTS[name])
                ok = isinstance(value, kind) and \
                    (kind is bool or not isinstance(value, bool)) and \
                    (kind is not int or value >= 0)
            else:
                ok = check(value)
            if not ok:
                self.send_json(400, {"error": f"bad value for {name}"})
                return
        with state.lock:
            state.switches.update(copy.deepcopy(changes))
            now = copy.deepcopy(state.switches)
        self.send_json(200, now)

    def snapshot(self):
        state = self.server.state
        with state.lock:
            users = {}
            for name, a in state.accounts.items():
                users[name] = {
                    "api2": {
                        "subscriptions": sorted(
                            u for u, s in a.api2_subs.items() if s[0]),
                        "devices": copy.deepcopy(a.devices),
                        "actions": copy.deepcopy(a.api2_actions)},
                    "nextcloud": {
                        "subscriptions": sorted(
                            u for u, s in a.nc_subs.items() if s[0]),
                        "actions": copy.deepcopy(a.nc_actions)},
                    "app_passwords": list(a.app_passwords)}
            by_status, by_family = {}, {}
            for e in state.log:
                by_status[str(e["status"])] = \
                    by_status.get(str(e["status"]), 0) + 1
                by_family[str(e["family"])] = \
                    by_family.get(str(e["family"]), 0) + 1
            return {"switches": copy.deepcopy(state.switches),
                    "now": state.now(), "users": users,
                    "requests": {"total": len(state.log),
                                 "by_status": by_status,
                                 "by_family": by_family}}

    def approve(self):
        body = self.control_body()
        if body is None:
            return
        state = self.server.state
        with state.lock:
            user = body.get("user") or next(iter(state.accounts))
            if user not in state.accounts:
                self.send_json(400, {"error": f"no user {user!r}"})
                return
            pending = [t for t, f in state.flows.items() if f["user"] is None]
            if not pending:
                self.send_json(404, {"error": "no login flow pending"})
                return
            password = secrets.token_urlsafe(24)
            flow = state.flows[pending[0]]
            flow["user"], flow["password"] = user, password
            state.accounts[user].app_passwords.append(password)
        self.send_json(200, {"token": pending[0], "loginName": user,
                             "appPassword": password})

    def clock(self):
        body = self.control_body()
        if body is None:
            return
        state = self.server.state
        now, offset = body.get("now"), body.get("offset")
        for value in (now, offset):
            if value is not None and (isinstance(value, bool) or
                                      not isinstance(value, int)):
                self.send_json(400, {"error": "want whole seconds"})
                return
        with state.lock:
            state.fixed_now = now
            state.offset = offset or 0
            self.send_json(200, {"now": state.now()})


def watch_stdin():
    try:
        while os.read(sys.stdin.fileno(), 4096):
            pass
    except OSError:
        pass
    os._exit(0)


def user_pair(text):
    name, sep, password = text.partition(":")
    if not sep or not name or not password:
        raise argparse.ArgumentTypeError("want NAME:PASSWORD")
    return name, password


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--user", action="append", type=user_pair,
                        metavar="NAME:PASSWORD",
                        help="a user (repeatable; default user:secret)")
    parser.add_argument("--no-stdin", action="store_true",
                        help="do not exit when standard input closes")
    args = parser.parse_args()
    server = Server(("127.0.0.1", 0),
                    State(dict(args.user or [("user", "secret")])))
    print(server.server_address[1], flush=True)
    if not args.no_stdin:
        threading.Thread(target=watch_stdin, daemon=True).start()
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
