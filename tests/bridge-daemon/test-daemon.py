#!/usr/bin/env python3
"""mpd-bridge end to end: a private MPD, a loopback feed server, the daemon.

Prints TAP. Needs mpd (Debian's package); without it every test fails.
The feed server is tests/integration/feed-server.py (FEED_TEST_SERVER).
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "support"))
from mpdtest import Channel, wait_until  # noqa: E402
from bridgeworld import (BRIDGE, Site, World, by_guid, check,  # noqa: E402
                         playlist, playlists, rss, run_tap,
                         saved_episodes)
import media  # noqa: E402
from statecache import cached_episode, read_cache  # noqa: E402


def t_subscribe_without_daemon(w):
    """subscribe with no daemon edits the state, fetching the feed"""
    r = w.bridge("subscribe", w.url("feed/alone"))
    check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
    r = w.bridge("list", "--json")
    feeds = json.loads(r.stdout)
    check(len(feeds) == 1 and feeds[0]["episodes"] == 3,
          f"list says {r.stdout}")
    check(feeds[0]["title"] == "Feed alone", feeds[0])
    r = w.bridge("unsubscribe", "Feed alone")
    check(r.returncode == 0, r.stderr)


def t_playlist_appears(w):
    """with the daemon running, subscribe makes the podcast's playlist"""
    w.start_daemon()
    r = w.bridge("subscribe", w.url("feed/b"))
    check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
    wait_until(lambda: "Podcast: Feed b" in playlists(w), 20,
               "the playlist in MPD")
    files = playlist(w, "Podcast: Feed b")
    check(files == [f"http://example.invalid/b/{k}.mp3" for k in (3, 2, 1)],
          f"playlist holds {files}")
    wait_until(lambda: "Podcasts: New" in playlists(w), 20,
               "the playlist of new episodes")
    m3u = os.path.join(w.music, "Podcast: Feed b.m3u")
    wait_until(lambda: os.path.exists(m3u), 20, "the M3U file")
    with open(m3u) as f:
        lines = f.read().splitlines()
    check(lines[0] == "#EXTM3U" and "#EXTINF:-1,b episode 3" in lines and
          "http://example.invalid/b/3.mp3" in lines,
          f"the M3U for browsing clients holds {lines}")


def t_queue_latest(w):
    """queue latest FEED puts a titled entry in MPD's queue"""
    r = w.bridge("queue", "latest", "Feed b")
    check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
    info = w.mpd.command("playlistinfo")
    check("Title: b episode 3" in info, f"queue is {info}")
    check("Album: Feed b" in info and "Genre: Podcast" in info,
          f"queue is {info}")


def t_new_episode_auto_queued(w):
    """a new episode appears after a refresh, and auto-queue adds it"""
    r = w.bridge("set", "Feed b", "auto-queue", "yes")
    check(r.returncode == 0, r.stderr)
    w.get("_bump/b")
    r = w.bridge("refresh", "Feed b")
    check(r.returncode == 0, r.stderr)
    wait_until(lambda: playlist(w, "Podcast: Feed b")[:1] ==
               ["http://example.invalid/b/4.mp3"], 20, "the new episode")
    titles = wait_until(
        lambda: [t for t in w.mpd.values("playlistinfo", "Title")
                 if t == "b episode 4"], 20, "the episode to be queued")
    check(titles == ["b episode 4"], titles)


def t_retag_on_play(w):
    """tags MPD replaces as a stream starts playing are set again"""
    site = media.Server(files={"/tone.wav": media.square_wav(4)})
    try:
        site.files["/feed.xml"] = (
            '<rss version="2.0"><channel><title>Tones</title>'
            '<item><title>A tone</title><guid>tone</guid>'
            f'<enclosure url="{site.url("/tone.wav")}" '
            'type="audio/wav"/></item></channel></rss>').encode()
        r = w.bridge("subscribe", site.url("/feed.xml"))
        check(r.returncode == 0, r.stderr)
        wait_until(lambda: "Podcast: Tones" in playlists(w), 20, "Tones")
        r = w.bridge("queue", "latest", "Tones")
        check(r.returncode == 0, r.stderr)
        ids = [l.split(": ")[1] for l in w.mpd.command("playlistinfo")
               if l.startswith("Id: ")]
        song = ids[-1]
        # What MPD does to a stream's tags when it starts playing it.
        w.mpd.command(f"cleartagid {song}",
                      f'addtagid {song} Title "stream title"',
                      f"playid {song}")

        def ours():
            info = w.mpd.command(f"playlistid {song}")
            return "Title: A tone" in info and "Album: Tones" in info
        wait_until(ours, 20, "the tags to be set again")
    finally:
        w.mpd.command("stop")
        site.close()


def t_mpd_restart(w):
    """MPD killed and restarted: the bridge reconnects and resyncs"""
    w.mpd.stop()
    for name in os.listdir(w.mpd.playlists):
        os.unlink(os.path.join(w.mpd.playlists, name))
    w.mpd.start()
    wait_until(lambda: "Podcast: Feed b" in playlists(w), 30,
               "the playlist after MPD came back")
    r = w.bridge("ping")
    check(r.returncode == 0, f"the daemon does not answer: {r.stderr}")


def t_concurrent_writers(w):
    """commands at once through the daemon: none is lost"""
    names = [f"c{k}" for k in range(6)]
    procs = [subprocess.Popen([BRIDGE, "subscribe", w.url(f"feed/{n}")],
                              env=w.env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
             for n in names]
    for p in procs:
        out, err = p.communicate(60)
        check(p.returncode == 0, f"exit {p.returncode}: {err}")
    feeds = json.loads(w.bridge("list", "--json").stdout)
    urls = {f["url"] for f in feeds}
    for n in names:
        check(w.url(f"feed/{n}") in urls, f"{n} is missing: {urls}")


def t_channel_command(w):
    """any MPD client: a channel command runs, an unknown one is refused"""
    with Channel(w.mpd, "test-replies") as channel:
        check(channel.send("ping") == ["ok pong"], "no pong")
        answer = channel.send("frobnicate")
        check(answer[0].startswith("error unknown command 'frobnicate'"),
              answer)
        answer = channel.send("unsubscribe nothing")
        check(answer[0].startswith("error no subscription"), answer)


def t_import_opml(w):
    """import-opml with the daemon running reads the file on the command
    line and checks each feed; over the channel it is refused, never
    opening a file"""
    path = os.path.join(w.root, "subs.opml")
    with open(path, "w") as f:
        f.write('<opml version="2.0"><body>'
                f'<outline type="rss" text="o1" xmlUrl="{w.url("feed/o1")}"/>'
                f'<outline type="rss" text="o2" xmlUrl="{w.url("feed/o2")}"/>'
                f'<outline type="rss" text="b" xmlUrl="{w.url("feed/b")}"/>'
                f'<outline type="rss" text="gone" '
                f'xmlUrl="{w.url("status/404/o3")}"/>'
                '<outline type="rss" text="local" xmlUrl="file:///etc/passwd"/>'
                '<outline type="rss" text="number" xmlUrl="3"/>'
                "</body></opml>")
    r = w.bridge("import-opml", path)
    check(r.returncode == 1 and
          f"imported {path}: 2 subscribed, 1 already subscribed, 3 failed"
          in r.stdout, r)
    # Not result 3 of a search: an OPML file holds URLs.
    check("'3' is not an http" in r.stdout, r.stdout)
    check(f"{w.url('status/404/o3')}: HTTP 404" in r.stdout and
          "'file:///etc/passwd' is not an http" in r.stdout, r.stdout)
    check("3 of the 6 feeds" in r.stderr, r.stderr)
    urls = {f["url"] for f in json.loads(w.bridge("list", "--json").stdout)}
    check({w.url("feed/o1"), w.url("feed/o2")} <= urls, urls)
    check(w.url("status/404/o3") not in urls, urls)
    with Channel(w.mpd, "test-replies") as channel:
        answer = channel.send(f"import-opml {path}")
        check(answer[0].startswith("error import-opml reads a file"),
              answer)


def t_bad_input(w):
    """bad input gets a clear message and a non-zero exit"""
    r = w.bridge("unsubscribe", "no such feed")
    check(r.returncode == 1 and "no subscription" in r.stderr, r)
    r = w.bridge("subscribe", "not a url")
    check(r.returncode == 1 and "not an http" in r.stderr, r)
    r = w.bridge("frobnicate")
    check(r.returncode == 2 and "unknown command" in r.stderr, r)


def t_corrupt_state(w):
    """a corrupt state file is refused and left untouched"""
    w.stop_daemon()
    with open(w.state, "wb") as f:
        f.write(b"this is not [a key file\x00\xff")
    with open(w.state, "rb") as f:
        before = f.read()
    r = w.bridge("list")
    check(r.returncode == 1 and w.state in r.stderr, r)
    r = w.bridge("run", timeout=10)
    check(r.returncode == 1, r)
    with open(w.state, "rb") as f:
        check(f.read() == before, "the state file was changed")


def t_cache_lost(w):
    """an episode cache lost while the daemon is stopped: it says so once,
    fetches the feed whole at its start (its validators would bring a
    304), and has every episode again, with what the listener did"""
    site = Site(w, "lost-site")
    try:
        site.write("feed.xml", rss("Losing", [
            (f"l{i}", site.url(f"{i}.mp3"), f"Lost {i}",
             f"Mon, 0{i} Jan 2024 10:00:00 +0000", 600)
            for i in range(1, 4)]))
        r = w.bridge("subscribe", site.url("feed.xml"))
        check(r.returncode == 0, r.stderr)
        r = w.bridge("star", "l2")
        check(r.returncode == 0, r.stderr)
        saved_episodes(w, "Losing", 3)
        w.stop_daemon()
        caches = w.state + ".cache"
        lost = [n for n in os.listdir(caches)
                if "l1" in str(read_cache(w.state, n))]
        check(len(lost) == 1, f"the feed's cache among {os.listdir(caches)}")
        os.unlink(os.path.join(caches, lost[0]))
        e = by_guid(w, "Losing")
        check(sorted(e) == ["l2"], f"without the cache: {sorted(e)}")
        w.start_daemon()
        wait_until(lambda: len(by_guid(w, "Losing")) == 3, 20,
                   "the three episodes back")
        check(by_guid(w, "Losing")["l2"]["starred"], "l2 lost its star")
        said = w.log().count("is missing: the feed's next refresh")
        check(said == 1, f"the daemon said it {said} times")
        check(os.path.exists(os.path.join(caches, lost[0])),
              "the cache is not written again")
    finally:
        site.close()


def t_unreachable_mpd(w):
    """no MPD: queue says so, naming where it looked"""
    os.unlink(w.state)
    env = dict(w.env, MPD_HOST=os.path.join(w.root, "nowhere.socket"))
    r = w.bridge("subscribe", w.url("feed/d"), env=env)
    check(r.returncode == 0, r.stderr)
    r = w.bridge("queue", "latest", "Feed d", env=env)
    check(r.returncode == 1 and "cannot reach MPD" in r.stderr, r)


def t_lists(w):
    """star, play-later and named lists: state and MPD playlists follow"""
    ok = lambda *a: check(w.bridge(*a).returncode == 0, f"{a} failed")
    r = w.bridge("subscribe", w.url("feed/lists?n=5"))
    check(r.returncode == 0, r.stderr)
    wait_until(lambda: "Podcast: Feed lists" in playlists(w), 20, "Feed lists")
    e = saved_episodes(w, "Feed lists", 5)
    guid = {int(k.rsplit("-", 1)[-1]): k for k in e} if all(
        k.rsplit("-", 1)[-1].isdigit() for k in e) else None
    check(guid is not None and len(guid) == 5, f"episodes are {list(e)}")
    url = {n: e[guid[n]]["url"] for n in guid}
    ok("star", guid[2], guid[4])
    ok("later", "add", guid[1], guid[3], guid[5])
    ok("later", "move", guid[5], "1")
    ok("list-add", "Road trip", guid[3], guid[1])
    wait_until(lambda: playlist(w, "Podcasts: Play later") ==
               [url[5], url[1], url[3]], 20, "Podcasts: Play later in order")
    wait_until(lambda: playlist(w, "Podcasts: Starred") == [url[4], url[2]],
               20, "Podcasts: Starred, newest first")
    wait_until(lambda: playlist(w, "Podcast list: Road trip") ==
               [url[3], url[1]], 20, "the named list")
    got = [x["guid"] for x in json.loads(
        w.bridge("episodes", "--state", "starred", "--json").stdout)]
    check(got == [guid[4], guid[2]], f"--state starred gives {got}")
    # Listened leaves play-later and Podcasts: New, not a named list.
    ok("mark", "listened", guid[1])
    wait_until(lambda: playlist(w, "Podcasts: Play later") ==
               [url[5], url[3]], 20, "a listened episode off play-later")
    check(url[1] not in playlist(w, "Podcasts: New"), "still in New")
    check(playlist(w, "Podcast list: Road trip") == [url[3], url[1]],
          "the named list changed")
    r = w.bridge("lists")
    check(r.returncode == 0 and "Road trip: 2 episodes" in r.stdout and
          "play-later: 2 episodes" in r.stdout and
          "starred: 2 episodes" in r.stdout, r.stdout)
    ok("unstar", guid[4])
    wait_until(lambda: playlist(w, "Podcasts: Starred") == [url[2]], 20,
               "unstar")
    ok("list-remove", "road trip", guid[3])
    wait_until(lambda: playlist(w, "Podcast list: Road trip") == [url[1]],
               20, "list-remove")
    ok("list-remove", "Road trip")
    wait_until(lambda: "Podcast list: Road trip" not in playlists(w), 20,
               "the removed list's playlist to go")
    for bad in ("a/b", "x" * 201, ""):
        r = w.bridge("list-add", bad, guid[2])
        check(r.returncode != 0 and "list" in r.stderr,
              f"list name {bad[:20]!r}: {r}")
    r = w.bridge("later", "move", guid[2], "1")
    check(r.returncode == 1 and "not on play-later" in r.stderr, r)
    r = w.bridge("later", "shuffle")
    check(r.returncode != 0, r)
    m3u = os.path.join(w.music, "Podcast: Feed lists.m3u")
    wait_until(lambda: os.path.exists(m3u), 20, "the feed's M3U file")
    ok("unsubscribe", "Feed lists")
    wait_until(lambda: not os.path.exists(m3u), 20,
               "the M3U file to go with the feed")
    # MPD keeps no empty stored playlist: emptied, it is gone.
    wait_until(lambda: "Podcasts: Play later" not in playlists(w), 20,
               "play-later emptied by unsubscribe")


def t_identity(w):
    """guid changes, tracking prefixes and re-publishing keep the state"""
    site = Site(w, "identity")
    try:
        m = site.url("m")
        days = ["Mon, 02 Nov 2026 10:00:00 +0000",
                "Tue, 03 Nov 2026 10:00:00 +0000",
                "Wed, 04 Nov 2026 10:00:00 +0000",
                "Thu, 05 Nov 2026 10:00:00 +0000"]
        site.write("feed.xml", rss("Shifty", [
            ("g1", f"{m}/1.mp3", "One", days[0], 600),
            ("g2", f"{m}/2.mp3", "Two", days[1], 600),
            ("g3", f"{m}/3.mp3", "Three", days[2], 600),
            ("g4", f"{m}/4.mp3", "Four", days[3], 600)]))
        r = w.bridge("subscribe", site.url("feed.xml"))
        check(r.returncode == 0, r.stderr)
        wait_until(lambda: "Podcast: Shifty" in playlists(w), 20, "Shifty")
        saved_episodes(w, "Shifty", 4)
        for args in (("mark", "listened", "g1"), ("star", "g2"),
                     ("later", "add", "g3"), ("list-add", "Keep", "g2")):
            r = w.bridge(*args)
            check(r.returncode == 0, f"{args}: {r.stderr}")
        ids = {g: e["id"] for g, e in by_guid(w, "Shifty").items()}
        # New guids: g1 keeps its URL, g2 gains a podtrac prefix, g3 moves
        # to another URL but keeps title and date; g4 is gone.
        site.write("feed.xml", rss("Shifty", [
            ("n1", f"{m}/1.mp3", "One", days[0], 600),
            ("n2", "https://dts.podtrac.com/redirect.mp3/"
             f"127.0.0.1:{site.port}/m/2.mp3", "Two", days[1], 600),
            ("n3", f"{m}/v2/three.mp3", "three ", days[2], 610)]))
        r = w.bridge("refresh", "Shifty")
        check(r.returncode == 0, r.stderr)
        e = wait_until(lambda: (lambda x: x if "n3" in x else None)(
            by_guid(w, "Shifty")), 20, "the refresh")
        check(set(e) == {"n1", "n2", "n3", "g4"}, f"episodes: {list(e)}")
        check(e["n1"]["state"] == "listened" and e["n1"]["id"] == ids["g1"],
              f"n1: {e['n1']}")
        check(e["n2"]["starred"] and e["n2"]["id"] == ids["g2"],
              f"n2: {e['n2']}")
        check(e["n3"]["id"] == ids["g3"], f"n3: {e['n3']}")
        wait_until(lambda: playlist(w, "Podcasts: Play later") ==
                   [f"{m}/v2/three.mp3"], 20, "play-later with n3's URL")
        wait_until(lambda: playlist(w, "Podcast: Shifty") == [
            f"{m}/v2/three.mp3", e["n2"]["url"], f"{m}/1.mp3"], 20,
            "Shifty without the gone g4")
        # Retention: g4 has been gone for a year; a refresh forgets it.
        w.stop_daemon()
        g4 = cached_episode(w.state, ids["g4"])
        check(g4 is not None and g4.get("gone", "0") != "0",
              f"g4 is not marked gone in its feed's cache: {g4}")
        # Gone a year: a group in the key file wins over the cache.
        g4["gone"] = "1700000000"
        with open(w.state, "a") as f:
            f.write(f"\n[episode {ids['g4']}]\n" +
                    "".join(f"{k}={v}\n" for k, v in g4.items()))
        w.start_daemon()
        r = w.bridge("refresh", "Shifty")
        check(r.returncode == 0, r.stderr)
        wait_until(lambda: "g4" not in by_guid(w, "Shifty"), 20,
                   "g4 to be forgotten")
        check(by_guid(w, "Shifty")["n2"]["starred"], "n2 lost its star")
    finally:
        site.close()


def subscribe_checks(w, site):
    """The three answers of subscribe: read, refused with the reason, or
    kept anyway with --force. Returns the URLs it subscribed to."""
    bad = [("status/404/nope", "HTTP 404"),
           ("page/none", "a web page that links to no feed")]
    for path, reason in bad:
        r = w.bridge("subscribe", w.url(path))
        check(r.returncode == 1 and reason in r.stderr and
              w.url(path) in r.stderr and r.stdout == "", r)
    r = w.bridge("subscribe", site.url("notes.txt"))
    check(r.returncode == 1 and "not a feed" in r.stderr, r)
    urls = {f["url"] for f in json.loads(w.bridge("list", "--json").stdout)}
    failed = {w.url(p) for p, _ in bad} | {site.url("notes.txt")}
    check(not urls & failed, f"a feed that failed is subscribed: {urls}")
    # A web page that links to its feed: the feed is what is kept.
    r = w.bridge("subscribe", w.url("page/rss/checked"))
    check(r.returncode == 0 and r.stdout ==
          f"subscribed to Feed checked: 3 episodes ({w.url('feed/checked')})"
          "\n", r)
    r = w.bridge("subscribe", w.url("feed/checked"))
    check(r.returncode == 1 and "already subscribed to Feed checked" in
          r.stderr, r)
    # The page again: its feed is known by the feed's own URL.
    r = w.bridge("subscribe", w.url("page/rss/checked"))
    check(r.returncode == 1 and "already subscribed to Feed checked "
          f"({w.url('feed/checked')}), the feed of "
          f"{w.url('page/rss/checked')}" in r.stderr, r)
    feeds = json.loads(w.bridge("list", "--json").stdout)
    check([f["url"] for f in feeds].count(w.url("feed/checked")) == 1 and
          w.url("page/rss/checked") not in [f["url"] for f in feeds], feeds)
    if w.daemon is not None:
        check("Podcast: Feed checked" in playlists(w),
              "the playlist went with the second subscription")
    r = w.bridge("subscribe", "--force", w.url("status/503/later"))
    check(r.returncode == 0 and "cannot be read now" in r.stdout and
          "HTTP 503" in r.stdout, r)
    feeds = {f["url"]: f for f in
             json.loads(w.bridge("list", "--json").stdout)}
    check(feeds[w.url("feed/checked")]["episodes"] == 3, feeds)
    check("HTTP 503" in feeds[w.url("status/503/later")]["last_error"],
          feeds)
    for url in (w.url("feed/checked"), w.url("status/503/later")):
        r = w.bridge("unsubscribe", url)
        check(r.returncode == 0, r)


def t_subscribe_checks_without_daemon(w):
    """with no daemon, subscribe reads the feed first: a 404, a page with
    no feed and a text file are refused, nothing subscribed"""
    site = Site(w, "checks-alone")
    try:
        site.write("notes.txt", "not a feed at all\n")
        subscribe_checks(w, site)
    finally:
        site.close()
    path = os.path.join(w.root, "alone.opml")
    with open(path, "w") as f:
        f.write('<opml version="2.0"><body>'
                f'<outline type="rss" xmlUrl="{w.url("feed/i1")}"/>'
                f'<outline type="rss" xmlUrl="{w.url("status/404/i2")}"/>'
                f'<outline type="rss" xmlUrl="{w.url("feed/i0")}"/>'
                "</body></opml>")
    check(w.bridge("subscribe", w.url("feed/i0")).returncode == 0, "i0")
    r = w.bridge("import-opml", path)
    check(r.returncode == 1 and
          f"imported {path}: 1 subscribed, 1 already subscribed, 1 failed"
          f"\n  {w.url('status/404/i2')}: HTTP 404" in r.stdout, r)
    for name in ("Feed i0", "Feed i1"):
        r = w.bridge("unsubscribe", name)
        check(r.returncode == 0, r)
    config = os.path.join(w.root, "config", "mpd-bridge", "config")
    quick = os.path.join(w.root, "quick.conf")
    with open(config) as f, open(quick, "w") as g:
        g.write(f.read() + "fetch_timeout=2\n")
    r = w.bridge("--config", quick, "subscribe", w.url("hang/t"))
    check(r.returncode == 1 and "not subscribed" in r.stderr and
          "timed out" in r.stderr, r)


def t_subscribe_checks_daemon(w):
    """through the daemon, subscribe gives the same three answers"""
    site = Site(w, "checks-daemon")
    try:
        site.write("notes.txt", "not a feed at all\n")
        subscribe_checks(w, site)
        with Channel(w.mpd, "test-replies") as channel:
            answer = channel.send(f"subscribe {w.url('status/404/chan')}")
            check(answer[0].startswith("error not subscribed: ") and
                  "HTTP 404" in answer[0], answer)
    finally:
        site.close()


def t_read_your_writes(w):
    """a command sees what the one before it did, with no pause between:
    subscribe then list, mark then episodes, a channel command then the
    command line"""
    for k in range(8):
        url = w.url(f"feed/ryw{k}?n={k + 1}")
        r = w.bridge("subscribe", url)
        check(r.returncode == 0, r)
        feeds = {f["url"]: f for f in
                 json.loads(w.bridge("list", "--json").stdout)}
        check(url in feeds and feeds[url]["episodes"] == k + 1,
              f"round {k}: list says {feeds.get(url)}")
        r = w.bridge("episodes", f"Feed ryw{k}", "--json")
        check(len(json.loads(r.stdout)) == k + 1, f"round {k}: {r.stdout}")
    for k in range(8):
        how = "listened" if k % 2 == 0 else "unlistened"
        r = w.bridge("mark", how, "latest", "Feed ryw7")
        check(r.returncode == 0, r)
        r = w.bridge("episodes", "Feed ryw7", "--state", "listened",
                     "--json")
        listened = [e["guid"] for e in json.loads(r.stdout)]
        check(listened == (["ryw7-8"] if how == "listened" else []),
              f"round {k}: after mark {how}, listened is {listened}")
    # A state big enough that saving it takes longer than a command line
    # takes to start and read it.
    r = w.bridge("subscribe", w.url("feed/rywbig?n=2000"))
    check(r.returncode == 0, r)
    for k in range(12):
        how = "listened" if k % 2 == 0 else "unlistened"
        # As mpc sendmessage does it: MPD takes it, nobody waits.
        w.mpd.command(f'sendmessage mpd-bridge "mark {how} latest '
                      f"'Feed rywbig'\"")
        r = w.bridge("episodes", "Feed rywbig", "--state", "listened",
                     "--json")
        listened = [e["guid"] for e in json.loads(r.stdout)]
        check(listened == (["rywbig-2000"] if how == "listened" else []),
              f"round {k}: after the message mark {how}, listened is "
              f"{listened}")
    for k in [*range(8), "big"]:
        r = w.bridge("unsubscribe", f"Feed ryw{k}")
        check(r.returncode == 0, r)


def t_other_user(w):
    """a user with no state of their own reaches the running daemon, as on
    a box whose system service keeps a state nobody else may read"""
    other = os.path.join(w.root, "other-user")
    env = dict(w.env, XDG_STATE_HOME=os.path.join(other, "state"),
               XDG_CONFIG_HOME=os.path.join(other, "config"),
               XDG_CACHE_HOME=os.path.join(other, "cache"))
    r = w.bridge("subscribe", w.url("feed/o"), env=env)
    check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
    wait_until(lambda: "Podcast: Feed o" in playlists(w), 20,
               "the daemon's playlist of the other user's subscription")
    r = w.bridge("list", "--json", env=env)
    check(r.returncode == 0, r.stderr)
    check("Feed o" in [f["title"] for f in json.loads(r.stdout)],
          f"the other user's list says {r.stdout}")
    r = w.bridge("list", "--json")
    check("Feed o" in [f["title"] for f in json.loads(r.stdout)],
          f"the daemon's own state lacks it: {r.stdout}")
    check(not os.path.exists(os.path.join(other, "state")),
          "the other user got a state of their own")
    r = w.bridge("unsubscribe", "Feed o", env=env)
    check(r.returncode == 0, r.stderr)


TESTS = [t_subscribe_without_daemon, t_subscribe_checks_without_daemon,
         t_playlist_appears, t_queue_latest, t_new_episode_auto_queued,
         t_retag_on_play, t_mpd_restart, t_concurrent_writers,
         t_channel_command, t_subscribe_checks_daemon, t_read_your_writes,
         t_other_user,
         t_lists, t_identity, t_import_opml, t_bad_input, t_cache_lost,
         t_corrupt_state, t_unreachable_mpd]


if __name__ == "__main__":
    # The playlists are compared with the hosts' URLs: without the relay.
    sys.exit(run_tap(TESTS, lambda: World(relay=False),
                     need=("MPD_BRIDGE", "FEED_TEST_SERVER")))
