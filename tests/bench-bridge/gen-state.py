#!/usr/bin/env python3
"""Write mpd-bridge's state file for the daemon benchmark.

The file is in the store's own format (mpd-bridge/store.c, format 1): a
[bridge] group, then a [feed ID] group per subscription, each followed by
an [episode ID] group per episode, ids made as the store makes them (the
first 16 hex digits of SHA-256 of the feed's URL, and of "FEED_ID\\nGUID").

By default: 500 subscriptions and 50,000 episodes. The first subscription,
"big", has --big episodes (default 1,000) and keep=--big, so its playlist
has that many entries; the others share the rest of the episodes evenly.
Every feed was last refreshed shortly before --now and is next due
--due-days after it (default 30), so nothing is due while the benchmark
runs; no URL is ever fetched (they are on .example hosts). Titles are
distinct, so every subscription gets a playlist of its own. About three in
four episodes are listened to, a few are half-played.

The same arguments always give the same bytes, on any Python 3: the
pseudo-random numbers come from our own generator.

Prints one line to stdout: the big feed's id, its playlist's title, the
number of feeds and of episodes.

Usage: gen-state.py [--feeds N] [--episodes N] [--big N] [--now T]
                    [--due-days D] OUTPUT
"""

import argparse
import hashlib
import sys

SEED = 0x6D70642D62726964  # "mpd-brid"
MASK64 = (1 << 64) - 1
ID_LENGTH = 16
WEEK = 7 * 24 * 3600


class Rng:
    """splitmix64: small, fast enough, and the same everywhere."""

    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n

    def pick(self, seq):
        return seq[self.below(len(seq))]

    def chance(self, percent):
        return self.below(100) < percent


# Non-ASCII as escapes, so this file reads the same in any locale.
WORDS = [
    "History", "Science", "Music", "Garden", "Kitchen", "Travel", "Library",
    "Network", "Compiler", "Radio", "Money", "Football", "Chess", "Cinema",
    "Philosophy", "Climate", "Startup", "Language", "Poetry", "Medicine",
    "Caf\u00e9", "Na\u00efve", "\u00dcber", "M\u00fcnchen", "Stra\u00dfe",
    "Se\u00f1or", "\u65e5\u672c\u8a9e", "\u041c\u043e\u0441\u043a\u0432\u0430",
    "Weekly", "Daily", "Late", "Night", "Morning", "Deep", "Dive", "Open",
    "Source", "Hidden", "Brain", "Story", "Table", "Corner", "Signal",
]
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
EPISODE_FORMS = [
    "Episode {n}: {a} and {b}",
    "{a} live from {b}",
    "#{n} \u2014 {a}, {b} & friends",
    "{a} mit {b} (\u00fcberarbeitet)",
    "\u65e5\u672c\u8a9e\u306e\u56de {n}: {a}",
    "{a} {b} \U0001F3A7 bonus",
    "Q&A {n}: \u201c{a}\u201d vs \u201c{b}\u201d",
    "{n}. {a} {b}",
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
HOSTS_BY_NAME = ["Alex", "Sam", "Kim", "Jo", "Ren\u00e9e", "Bj\u00f6rn",
                 "Mar\u00eda", "Chen"]


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--feeds", type=int, default=500)
    ap.add_argument("--episodes", type=int, default=50000)
    ap.add_argument("--big", type=int, default=1000)
    ap.add_argument("--now", type=int, default=1750000000)
    ap.add_argument("--due-days", type=int, default=30)
    ap.add_argument("output")
    args = ap.parse_args()
    if args.feeds < 1 or args.big < 1 or args.episodes < args.big:
        ap.error("need --feeds >= 1 and --episodes >= --big >= 1")
    if args.feeds == 1 and args.episodes != args.big:
        ap.error("with one feed, --episodes must equal --big")

    rng = Rng(SEED)
    now = args.now
    rest = args.episodes - args.big
    others = args.feeds - 1
    counts = [args.big] + [rest // others + (1 if i < rest % others else 0)
                           for i in range(others)] if others else [args.big]

    feed_ids, episode_ids, titles = set(), set(), set()
    out = []
    w = out.append
    w("# mpd-bridge's state: written by tests/bench-bridge/gen-state.py.\n")
    w("\n[bridge]\nversion=1\nsaved=%d\n" % now)
    big = None
    for f, count in enumerate(counts):
        while True:
            title = rng.pick(SHOW_FORMS).format(a=rng.pick(WORDS),
                                                b=rng.pick(WORDS))
            if f == 0:
                title = "Big " + title
            title = "%s (%d)" % (title, f) if title in titles else title
            if title not in titles:
                titles.add(title)
                break
        host = rng.pick(HOSTS)
        url = "https://%s/%s/feed.xml" % (host, slug(title) + "-%d" % f)
        fid = new_id(feed_ids, url)
        cdn = rng.pick(CDNS) + slug(title) + "-%d/" % f
        added = now - 400 * 24 * 3600 + rng.below(300 * 24 * 3600)
        last = now - rng.below(3600)
        w("\n[feed %s]\n" % fid)
        w("url=%s\n" % url)
        w("title=%s\n" % title)
        w("auto_queue=%s\n" % ("true" if rng.chance(10) else "false"))
        w("keep=%d\n" % (args.big if f == 0 else 0))
        w("min_duration=0\nserial=%s\ncomplete=false\nttl=%d\n"
          % ("true" if rng.chance(5) else "false", rng.pick([0, 0, 60, 1440])))
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
        author = "%s and %s" % (rng.pick(HOSTS_BY_NAME),
                                rng.pick(HOSTS_BY_NAME))
        # Document order: newest first, one a week or so.
        newest = last - rng.below(WEEK)
        for e in range(count):
            n = count - e
            guid = ("%s-episode-%d-%08x" % (slug(title), n, rng.next() >> 32)
                    if rng.chance(50) else
                    "%08x-%04x-4%03x-a%03x-%012x"
                    % (rng.next() >> 32, rng.below(1 << 16),
                       rng.below(1 << 12), rng.below(1 << 12),
                       rng.next() >> 16))
            eid = new_id(episode_ids, "%s\n%s" % (fid, guid))
            published = newest - e * WEEK + rng.below(3600)
            etitle = rng.pick(EPISODE_FORMS).format(
                n=n, a=rng.pick(WORDS), b=rng.pick(WORDS))
            duration = 600 + rng.below(6600)
            listened = e >= count // 4 and rng.chance(90)
            position = (rng.below(duration) if not listened and rng.chance(10)
                        else 0)
            w("\n[episode %s]\n" % eid)
            w("feed_id=%s\nguid=%s\n" % (fid, guid))
            w("url=%sep%04d-%08x.mp3?source=rss&aid=%d\n"
              % (cdn, n, rng.next() >> 32, rng.below(100000)))
            w("title=%s\nauthor=%s\n" % (etitle, author))
            w("published=%d\nduration=%d\nnumber=%d\n"
              % (published, duration, n))
            w("first_seen=%d\n" % max(added, published + rng.below(7200)))
            w("listened=%s\nposition=%d\nlast_played=%d\n"
              % ("true" if listened else "false", position,
                 published + rng.below(WEEK) if listened or position else 0))
    with open(args.output, "w", encoding="utf-8") as f:
        f.write("".join(out))
    print("%s\t%s\t%d\t%d" % (big[0], big[1], len(counts), sum(counts)))


if __name__ == "__main__":
    sys.exit(main())
