"""A phone that syncs by AntennaPod's rules, for tests of mpd-bridge's sync.

Standard library only. A test adds this directory to sys.path and imports
it. The phone talks to a gpodder.net API v2 server (kind "gpodder") or a
Nextcloud gpoddersync app (kind "nextcloud") the way AntennaPod does:

- it reads only play actions (in any case: PLAY is play); new, download
  and delete are ignored;
- it uses a position only when started >= 0, position > 0 and total > 0;
- it marks an episode played when the position is at least its own
  duration - 30 s;
- it matches an action to an episode by the raw guid alone when the action
  has one (no fallback to the URL, no check of the podcast), else by the
  exact enclosure URL, and applies it to the first episode that matches;
- of the remote plays for one episode it keeps the newest, and skips it when
  its own queued action for that episode is newer; actions for episodes it
  does not have are dropped (and listed in dropped);
- it queues a play on pause and at the end of an episode and uploads them on
  sync(), at most 30 an upload; it sends credentials with every request.

What AntennaPod does on timers (upload about 20 s after a change, sync on
start and after a refresh) is the test's to do: call sync().

    phone = Phone(url, "gpodder", "user", "secret", "phone")
    phone.subscribe(feed)
    phone.add_episode(feed, "guid-1", "http://host/1.mp3", 1800)
    phone.pause("guid-1", 600)
    phone.sync()
"""
import base64
import json
import time
import urllib.parse
import urllib.request
from datetime import datetime, timezone

MAX_UPLOAD = 30
ALMOST_ENDED = 30


def parse_time(text):
    """Unix seconds of 2009-12-12T09:00:00, with Z, or with +00:00."""
    value = text.strip()
    if value.endswith("Z"):
        value = value[:-1] + "+00:00"
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp())


def format_time(seconds):
    # The form AntennaPod sends: UTC, no zone.
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))


class Episode:
    def __init__(self, podcast, guid, url, duration):
        self.podcast = podcast
        self.guid = guid  # None when the feed gives none
        self.url = url
        self.duration = duration  # seconds
        self.position = 0  # seconds; 0 means from the start
        self.played = False


class Phone:
    def __init__(self, server_url, kind, user, password, device="phone",
                 clock=None):
        """@server_url: the server's root (http://127.0.0.1:PORT); @kind:
        "gpodder" or "nextcloud"; @clock: a function giving the phone's
        Unix time (time.time by default), to play a phone whose clock is
        wrong."""
        if kind not in ("gpodder", "nextcloud"):
            raise ValueError(f"unknown kind {kind!r}")
        self.server = server_url.rstrip("/")
        self.kind = kind
        self.user = user
        self.password = password
        self.device = device
        self.clock = clock or time.time
        self.subs = []
        self.queued_subs = {}  # url -> True (add) or False (remove)
        self.episodes = []
        self.queue = []  # play actions not yet uploaded
        self.subs_since = 0
        self.actions_since = 0
        self.registered = False
        self.dropped = []  # remote plays that matched no episode
        self.applied = []  # remote plays applied, as received
        self.requests = 0

    # Local life

    def subscribe(self, url):
        if url not in self.subs:
            self.subs.append(url)
        self.queued_subs[url] = True

    def unsubscribe(self, url):
        if url in self.subs:
            self.subs.remove(url)
        self.queued_subs[url] = False

    def subscriptions(self):
        return list(self.subs)

    def add_episode(self, podcast, guid, url, duration):
        """An episode of a feed refresh; @guid None when it has none."""
        self.episodes.append(Episode(podcast, guid, url, duration))

    def episode(self, key):
        """The episode whose guid, else whose enclosure URL, is @key."""
        for e in self.episodes:
            if e.guid is not None and e.guid == key:
                return e
        for e in self.episodes:
            if e.url == key:
                return e
        raise KeyError(key)

    def pause(self, key, position):
        e = self.episode(key)
        started = e.position
        e.position = position
        if e.duration and position >= e.duration - ALMOST_ENDED:
            e.played = True
        self.queue_play(e, started, position)

    def finish(self, key):
        e = self.episode(key)
        started = e.position
        e.position = e.duration
        e.played = True
        self.queue_play(e, started, e.duration)

    def queue_play(self, e, started, position):
        action = {"podcast": e.podcast, "episode": e.url, "action": "play",
                  "timestamp": format_time(self.clock()),
                  "started": started, "position": position,
                  "total": e.duration}
        if e.guid is not None:
            action["guid"] = e.guid
        self.queue.append(action)

    def position(self, key):
        return self.episode(key).position

    def played(self, key):
        return self.episode(key).played

    # Talking to the server

    def request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.server + path, data=data,
                                     method=method)
        pair = f"{self.user}:{self.password}".encode()
        req.add_header("Authorization",
                       "Basic " + base64.b64encode(pair).decode())
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        self.requests += 1
        with urllib.request.urlopen(req, timeout=10) as r:
            text = r.read()
        return json.loads(text) if text.strip() else None

    def paths(self):
        if self.kind == "gpodder":
            user = urllib.parse.quote(self.user)
            subs = f"/api/2/subscriptions/{user}/{self.device}.json"
            return {"subs_get": subs, "subs_post": subs,
                    "actions_get": f"/api/2/episodes/{user}.json",
                    "actions_post": f"/api/2/episodes/{user}.json"}
        base = "/index.php/apps/gpoddersync/"
        return {"subs_get": base + "subscriptions",
                "subs_post": base + "subscription_change/create",
                "actions_get": base + "episode_action",
                "actions_post": base + "episode_action/create"}

    def sync(self):
        """Subscriptions, then episode actions, as AntennaPod's sync does.
        Raises urllib.error.URLError (HTTPError) or OSError when the
        server fails; what was queued stays queued."""
        paths = self.paths()
        if self.kind == "gpodder" and not self.registered:
            self.request("POST", f"/api/2/devices/"
                         f"{urllib.parse.quote(self.user)}/"
                         f"{self.device}.json",
                         {"caption": "Phone", "type": "mobile"})
            self.registered = True
        self.sync_subscriptions(paths)
        self.sync_actions(paths)

    def sync_subscriptions(self, paths):
        changes = self.request("GET", paths["subs_get"] +
                               f"?since={self.subs_since}")
        for url in changes["add"]:
            if url not in self.subs and self.queued_subs.get(url) is not False:
                self.subs.append(url)
        for url in changes["remove"]:
            if url in self.subs and self.queued_subs.get(url) is not True:
                self.subs.remove(url)
        since = changes["timestamp"]
        if self.queued_subs:
            add = [u for u, on in self.queued_subs.items() if on]
            remove = [u for u, on in self.queued_subs.items() if not on]
            answer = self.request("POST", paths["subs_post"],
                                  {"add": add, "remove": remove})
            self.queued_subs = {}
            for old, new in answer.get("update_urls", []):
                if old in self.subs:
                    i = self.subs.index(old)
                    if new:
                        self.subs[i] = new
                    else:
                        del self.subs[i]
            since = answer["timestamp"]
        self.subs_since = since

    def sync_actions(self, paths):
        answer = self.request("GET", paths["actions_get"] +
                              f"?since={self.actions_since}")
        self.apply(answer["actions"])
        since = answer["timestamp"]
        while self.queue:
            batch = self.queue[:MAX_UPLOAD]
            reply = self.request("POST", paths["actions_post"], batch)
            del self.queue[:len(batch)]
            since = reply["timestamp"]
        self.actions_since = since

    def apply(self, actions):
        newest = {}
        for a in actions:
            if str(a.get("action", "")).lower() != "play":
                continue
            key = ("guid", a["guid"]) if a.get("guid") else \
                ("url", a.get("episode"))
            stamp = parse_time(a["timestamp"])
            if key not in newest or stamp >= newest[key][0]:
                newest[key] = (stamp, a)
        for (how, value), (stamp, a) in newest.items():
            local = [q for q in self.queue
                     if (q.get("guid") == value if how == "guid"
                         else q["episode"] == value)]
            if any(parse_time(q["timestamp"]) > stamp for q in local):
                continue
            e = self.match(how, value)
            if e is None:
                self.dropped.append(a)
                continue
            started = a.get("started", -1)
            position = a.get("position", 0)
            total = a.get("total", 0)
            if started is None or position is None or total is None or \
                    started < 0 or position <= 0 or total <= 0:
                continue
            e.position = position
            if e.duration and position >= e.duration - ALMOST_ENDED:
                e.played = True
            self.applied.append(a)

    def match(self, how, value):
        for e in self.episodes:
            if how == "guid" and e.guid == value:
                return e
            if how == "url" and e.url == value:
                return e
        return None

