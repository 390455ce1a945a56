#!/usr/bin/env python3
"""Write mpd-bridge's state file for the daemon benchmark, and its feeds.

The file is in the store's own format (mpd-bridge/state/store-fields.c, format 1): a
[bridge] group, then a [feed ID] group per subscription, each followed by
an [episode ID] group per episode, ids made as the store makes them (the
first 16 hex digits of SHA-256 of the feed's URL, and of "FEED_ID\\nGUID").

By default: 1,000 subscriptions and 100,000 episodes. The first
subscription, "big", has --big episodes (default 1,000) and keep=--big, so
its playlist has that many entries; the others share the rest of the
episodes evenly. Every feed was last refreshed shortly before --now and is
next due --due-days after it (default 30), so nothing is due while the
benchmark runs. Titles are distinct, so every subscription gets a playlist
of its own. About three in four episodes are listened to, a few are
half-played.

With --feed-dir DIR it also writes each subscription's feed, as its server
would send it now, to DIR/feed-NNNN.xml (RSS 2.0 with show notes, about
2 KB an episode), and the subscriptions' URLs point at them:
http://127.0.0.H:PORT/feed-NNNN.xml, feed i on host H = 1 + i mod --hosts,
so that one nginx on those loopback addresses serves them all. Each feed
lists one episode the state has not seen yet, newest, and every episode
the state has; the validators in the state match no server's, so a
refresh fetches every feed whole and finds one new episode in each.
Without --feed-dir the URLs are on .example hosts and never fetched.

Words, title forms, people and show notes come from tests/bench/gen-feed.py.
The same arguments always give the same bytes, on any Python 3: the
pseudo-random numbers come from its generator.

Prints one line to stdout: the big feed's id, its playlist's title, the
number of feeds and of episodes in the state.

Usage: gen-state.py [--feeds N] [--episodes N] [--big N] [--now T]
                    [--due-days D] [--feed-dir DIR --port P [--hosts H]]
                    OUTPUT
"""

import argparse
import email.utils
import hashlib
import html
import importlib.util
import os
import sys
from xml.sax.saxutils import escape, quoteattr

HERE = os.path.dirname(os.path.abspath(__file__))
GEN_FEED = os.path.join(HERE, "..", "bench", "gen-feed.py")


def load_gen_feed():
    spec = importlib.util.spec_from_file_location("gen_feed", GEN_FEED)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


g = load_gen_feed()
Rng = g.Rng

SEED = 0x6D70642D62726964  # "mpd-brid"
ID_LENGTH = 16
WEEK = 7 * 24 * 3600

# Non-ASCII as escapes, so this file reads the same in any locale.
SHOW_FORMS = [
    "The {a} {b} Show",
    "{a} & {b}",
    "{a} Talk",
    "This Week in {a}",
    "{a} {b} Hour",
    "Inside {a}",
    "{a}: the {b} Podcast",
    "Radio {a} \u2014 {b}",
]
HOSTS = [
    "feeds.simplecast.example", "feeds.megaphone.example",
    "anchor.example", "rss.art19.example", "feeds.buzzsprout.example",
    "podcasts.example.org", "feeds.libsyn.example", "feeds.acast.example",
]
CDNS = [
    "https://traffic.megaphone.example/",
    "https://dts.podtrac.example/redirect.mp3/cdn.simplecast.example/audio/",
    "https://media.blubrry.example/",
    "https://chtbl.example/track/ABC123/traffic.libsyn.example/secure/",
    "https://op3.example/e/cdn.acast.example/",
]
ITUNES = "http://www.itunes.com/dtds/podcast-1.0.dtd"


def short_hash(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:ID_LENGTH]


def new_id(taken, seed):
    """As the store's new_id(): hashed again, with a counter, while taken."""
    n = 0
    while True:
        i = short_hash(seed if n == 0 else "%s\n%u" % (seed, n))
        if i not in taken:
            taken.add(i)
            return i
        n += 1


def slug(text):
    out = "".join(c.lower() if c.isascii() and c.isalnum() else "-"
                  for c in text)
    return "-".join(p for p in out.split("-") if p) or "show"


def capital(word):
    return word[:1].upper() + word[1:]


class FeedWriter:
    """One subscription's RSS document, as its server sends it."""

    def __init__(self, title, site, author, serial, ttl):
        self.parts = [
            '<?xml version="1.0" encoding="UTF-8"?>\n',
            '<rss version="2.0" xmlns:itunes="%s">\n<channel>\n' % ITUNES,
            "<title>%s</title>\n" % escape(title),
            "<link>%s</link>\n" % escape(site),
            "<description>%s</description>\n" % escape(
                "Every week: " + title),
            "<language>en</language>\n",
            "<itunes:author>%s</itunes:author>\n" % author,
            "<itunes:type>%s</itunes:type>\n"
            % ("serial" if serial else "episodic"),
        ]
        if ttl:
            self.parts.append("<ttl>%d</ttl>\n" % ttl)

    def item(self, notes_rng, n, title, guid, url, published, duration,
             author):
        self.parts.append(
            "<item>\n<title>%s</title>\n"
            '<guid isPermaLink="false">%s</guid>\n'
            "<pubDate>%s</pubDate>\n"
            "<description><![CDATA[%s]]></description>\n"
            '<enclosure url=%s length="%d" type="audio/mpeg"/>\n'
            "<itunes:duration>%d</itunes:duration>\n"
            "<itunes:episode>%d</itunes:episode>\n"
            "<itunes:author>%s</itunes:author>\n</item>\n"
            % (title, escape(guid),
               email.utils.formatdate(published, usegmt=True),
               g.show_notes(notes_rng, n), quoteattr(url),
               duration * 16000, duration, n, author))

    def text(self):
        return "".join(self.parts) + "</channel>\n</rss>\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--feeds", type=int, default=1000)
    ap.add_argument("--episodes", type=int, default=100000)
    ap.add_argument("--big", type=int, default=1000)
    ap.add_argument("--now", type=int, default=1750000000)
    ap.add_argument("--due-days", type=int, default=30)
    ap.add_argument("--feed-dir")
    ap.add_argument("--port", type=int)
    ap.add_argument("--hosts", type=int, default=8)
    ap.add_argument("output")
    args = ap.parse_args()
    if args.feeds < 1 or args.big < 1 or args.episodes < args.big:
        ap.error("need --feeds >= 1 and --episodes >= --big >= 1")
    if args.feeds == 1 and args.episodes != args.big:
        ap.error("with one feed, --episodes must equal --big")
    if args.feed_dir is not None and not (args.port and
                                          1 <= args.hosts <= 254):
        ap.error("--feed-dir needs --port, and --hosts from 1 to 254")
    if args.feed_dir is not None and args.feeds > 9999:
        ap.error("--feed-dir: at most 9999 feeds")

    rng = Rng(SEED)
    now = args.now
    rest = args.episodes - args.big
    others = args.feeds - 1
    counts = [args.big] + [rest // others + (1 if i < rest % others else 0)
                           for i in range(others)] if others else [args.big]
    if args.feed_dir is not None:
        os.makedirs(args.feed_dir, exist_ok=True)

    feed_ids, episode_ids, titles = set(), set(), set()
    out = []
    w = out.append
    w("# mpd-bridge's state: written by tests/bench-bridge/gen-state.py.\n")
    w("\n[bridge]\nversion=1\nsaved=%d\n" % now)
    big = None
    for f, count in enumerate(counts):
        while True:
            title = rng.pick(SHOW_FORMS).format(
                a=capital(rng.pick(g.WORDS)), b=capital(rng.pick(g.WORDS)))
            if f == 0:
                title = "Big " + title
            title = "%s (%d)" % (title, f) if title in titles else title
            if title not in titles:
                titles.add(title)
                break
        host = rng.pick(HOSTS)
        name = "feed-%04d.xml" % (f + 1)
        if args.feed_dir is not None:
            url = "http://127.0.0.%d:%d/%s" % (1 + f % args.hosts,
                                               args.port, name)
        else:
            url = "https://%s/%s/feed.xml" % (host, slug(title) + "-%d" % f)
        fid = new_id(feed_ids, url)
        cdn = rng.pick(CDNS) + slug(title) + "-%d/" % f
        added = now - 400 * 24 * 3600 + rng.below(300 * 24 * 3600)
        last = now - rng.below(3600)
        serial = rng.chance(5)
        ttl = rng.pick([0, 0, 60, 1440])
        w("\n[feed %s]\n" % fid)
        w("url=%s\n" % url)
        w("title=%s\n" % title)
        w("auto_queue=%s\n" % ("true" if rng.chance(10) else "false"))
        w("keep=%d\n" % (args.big if f == 0 else 0))
        w("min_duration=0\nserial=%s\ncomplete=false\nttl=%d\n"
          % ("true" if serial else "false", ttl))
        w('etag="%016x"\n' % rng.next())
        w("last_modified=Mon, 02 Jun 2025 %02d:%02d:%02d GMT\n"
          % (rng.below(24), rng.below(60), rng.below(60)))
        w("content_hash=%016x%016x\n" % (rng.next(), rng.next()))
        w("last_refresh=%d\n" % last)
        w("next_refresh=%d\n" % (now + args.due_days * 24 * 3600
                                 + rng.below(24 * 3600)))
        w("failures=0\ngone=false\nadded=%d\n" % added)
        if f == 0:
            big = (fid, title)
        # XML text, as gen-feed.py's lists hold it; the state holds it plain.
        author_xml = "%s and %s" % (rng.pick(g.PERSONS)[0],
                                    rng.pick(g.PERSONS)[0])
        author = html.unescape(author_xml)
        feed = (FeedWriter(title, "https://%s/%s" % (host, slug(title)),
                           author_xml, serial, ttl)
                if args.feed_dir is not None else None)
        notes_rng = Rng(SEED ^ ((f + 1) * 0x9E3779B97F4A7C15))
        g.SITE = "https://%s/%s" % (host, slug(title))
        # Document order: newest first, one a week or so. Episode 0 is the
        # one the feed has and the state has not seen yet.
        newest = last + 600 - rng.below(WEEK)
        for e in range(count + 1):
            n = count + 1 - e
            guid = ("%s-episode-%d-%08x" % (slug(title), n, rng.next() >> 32)
                    if rng.chance(50) else
                    "%08x-%04x-4%03x-a%03x-%012x"
                    % (rng.next() >> 32, rng.below(1 << 16),
                       rng.below(1 << 12), rng.below(1 << 12),
                       rng.next() >> 16))
            published = min(newest - e * WEEK + rng.below(3600), last)
            title_xml = rng.pick(g.TITLE_FORMS).format(
                n=n, a=g.words(rng, 2), b=g.words(rng, 2))
            duration = 600 + rng.below(6600)
            listened = e > count // 4 and rng.chance(90)
            position = (rng.below(duration) if not listened and rng.chance(10)
                        else 0)
            ep_url = "%sep%04d-%08x.mp3?source=rss&aid=%d" % (
                cdn, n, rng.next() >> 32, rng.below(100000))
            first_seen = max(added, published + rng.below(7200))
            last_played = (published + rng.below(WEEK)
                           if listened or position else 0)
            if feed is not None:
                feed.item(notes_rng, n, title_xml, guid, ep_url, published,
                          duration, author_xml)
            if e == 0:
                continue
            eid = new_id(episode_ids, "%s\n%s" % (fid, guid))
            w("\n[episode %s]\n" % eid)
            w("feed_id=%s\nguid=%s\n" % (fid, guid))
            w("url=%s\n" % ep_url)
            w("title=%s\nauthor=%s\n" % (html.unescape(title_xml), author))
            w("published=%d\nduration=%d\nnumber=%d\n"
              % (published, duration, n))
            w("first_seen=%d\n" % first_seen)
            w("listened=%s\nposition=%d\nlast_played=%d\n"
              % ("true" if listened else "false", position, last_played))
        if feed is not None:
            with open(os.path.join(args.feed_dir, name), "w",
                      encoding="utf-8", newline="\n") as fp:
                fp.write(feed.text())
    with open(args.output, "w", encoding="utf-8") as fp:
        fp.write("".join(out))
    print("%s\t%s\t%d\t%d" % (big[0], big[1], len(counts), sum(counts)))


if __name__ == "__main__":
    sys.exit(main())
