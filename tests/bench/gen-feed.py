#!/usr/bin/env python3
"""Write the parser benchmark's podcast feed.

The output is an RSS 2.0 feed of N episodes (default 20000, about 2.5 KB
each, so about 50 MB) that exercises what real feeds contain: CDATA HTML
show notes, entities, non-ASCII text, every pubDate and itunes:duration form
the library reads, and the itunes, content, podcast, atom, media and psc
namespaces.  The same N always gives the same bytes, on any Python 3: the
pseudo-random numbers come from our own generator, not from the random
module, whose algorithms may change between versions.

Usage: gen-feed.py [--episodes N] OUTPUT
"""

import argparse
import datetime
import sys

SEED = 0x6C6962666565640A  # "libfeed\n"
MASK64 = (1 << 64) - 1

ITUNES = "http://www.itunes.com/dtds/podcast-1.0.dtd"
CONTENT = "http://purl.org/rss/1.0/modules/content/"
PODCAST = ("https://github.com/Podcastindex-org/podcast-namespace/"
           "blob/main/docs/1.0.md")
ATOM = "http://www.w3.org/2005/Atom"
MEDIA = "http://search.yahoo.com/mrss/"
PSC = "http://podlove.org/simple-chapters"

SITE = "https://show.example"
CDN = "https://cdn.example"


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


# Non-ASCII is written as escapes so this file reads the same whatever the
# locale of the Python that runs it.
WORDS = [
    "podcast", "episode", "interview", "listener", "microphone", "studio",
    "question", "answer", "history", "science", "music", "garden", "kitchen",
    "travel", "library", "network", "compiler", "parser", "stream", "radio",
    "caf\u00e9", "na\u00efve", "r\u00e9sum\u00e9", "\u00fcber", "M\u00fcnchen",
    "Stra\u00dfe", "se\u00f1or", "\u00e5ngstr\u00f6m", "\u65e5\u672c\u8a9e",
    "\u6771\u4eac", "\u041c\u043e\u0441\u043a\u0432\u0430",
    "\u03b1\u03bb\u03c6\u03b1", "\U0001F3A7", "\U0001F399\uFE0F",
    "\U0001F389", "and", "the", "of", "with", "about", "from", "into",
    "without", "between", "during", "before", "after", "weekly", "daily",
]

TITLE_FORMS = [
    "Episode {n}: {a} &amp; {b}",
    "{a} &lt;live&gt; from {b}",
    "Don&#8217;t miss {a}: {b} edition",
    "#{n} \u2014 {a}, {b} &amp; friends",
    "{a} und {b} (\u00fcberarbeitet)",
    "\u65e5\u672c\u8a9e\u306e\u56de {n}: {a}",
    "{a} {b} \U0001F3A7 bonus",
    "Caf\u00e9 talk {n}: &quot;{a}&quot; vs &apos;{b}&apos;",
]

PERSONS = [
    ("Ana Garc\u00eda", "host"), ("J\u00fcrgen M\u00fcller", "guest"),
    ("\u5c71\u7530\u592a\u90ce", "guest"), ("Chlo\u00eb O&#8217;Brien", "host"),
    ("Sam Lee", "producer"), ("Zo\u00eb Kr\u00e4mer", "editor"),
]

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
          "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
# Named zones and their offsets in minutes, which the printed time must use
# so the instant stays the same whatever the form.
NAMED_ZONES = [("GMT", 0), ("UT", 0), ("EST", -300), ("EDT", -240),
               ("CST", -360), ("PDT", -420), ("PST", -480), ("MDT", -360)]
NUMERIC_ZONES = [0, 60, 120, -300, 330, 540, -600, 345]


def words(rng, n):
    return " ".join(rng.pick(WORDS) for _ in range(n))


def numeric_zone(minutes):
    sign = "+" if minutes >= 0 else "-"
    m = abs(minutes)
    return "%s%02d%02d" % (sign, m // 60, m % 60)


def pub_date(rng, when):
    """One instant in one of the forms feeds use."""
    form = rng.below(100)
    if form < 8:
        # ISO 8601, as some generators write it.
        off = rng.pick([0, 120, -300])
        t = when + datetime.timedelta(minutes=off)
        zone = "Z" if off == 0 else "%s:%s" % (numeric_zone(off)[:3],
                                               numeric_zone(off)[3:])
        return t.strftime("%Y-%m-%dT%H:%M:%S") + zone
    if form < 45:
        name, off = rng.pick(NAMED_ZONES)
        zone = name
    else:
        off = rng.pick(NUMERIC_ZONES)
        zone = numeric_zone(off)
    t = when + datetime.timedelta(minutes=off)
    # strftime's %a and %b follow the locale: spell them out ourselves.
    core = "%02d %s %04d %02d:%02d:%02d %s" % (
        t.day, MONTHS[t.month - 1], t.year, t.hour, t.minute, t.second, zone)
    if form % 3 == 0:
        return core
    return "%s, %s" % (DAYS[t.weekday()], core)


def duration(rng):
    secs = 300 + rng.below(3 * 3600)
    h, m, s = secs // 3600, secs // 60 % 60, secs % 60
    form = rng.below(4)
    if form == 0:
        return "%d:%02d:%02d" % (h, m, s)
    if form == 1:
        return "%d:%02d" % (secs // 60, s)
    if form == 2:
        return "%d" % secs
    if h:
        return "PT%dH%dM%dS" % (h, m, s)
    return "PT%dM%dS" % (m, s)


def show_notes(rng, n):
    """About 1.6 KB of HTML, as podcast hosts write show notes."""
    parts = ["<p><strong>%s</strong> %s.</p>" % (words(rng, 3),
                                                  words(rng, 18))]
    parts.append("<p>%s<br>%s<br/>%s &amp; more.</p>" % (
        words(rng, 14), words(rng, 12), words(rng, 6)))
    parts.append("<ul>")
    for i in range(5 + rng.below(2)):
        parts.append('<li><a href="%s/links/%d/%d?ref=feed&amp;s=%d">%s</a>'
                     " \u2013 %s</li>" % (SITE, n, i, rng.below(1000),
                                          words(rng, 3), words(rng, 6)))
    parts.append("</ul>")
    parts.append("<p>%s <a href=\"%s/support\">%s</a>. "
                 "\u00a9 2024 Bench Radio \U0001F399\uFE0F</p>" % (
                     words(rng, 16), SITE, words(rng, 2)))
    return "\n".join(parts)


def chapters(rng, total):
    out = ['<psc:chapters version="1.2">']
    start = 0
    for i in range(3 + rng.below(4)):
        out.append('<psc:chapter start="%02d:%02d:%02d" title="%s"/>' % (
            start // 3600, start // 60 % 60, start % 60, words(rng, 2)))
        start += 60 + rng.below(600)
    out.append("</psc:chapters>")
    return "\n".join(out)


def item(rng, n, when):
    a, b = words(rng, 2), words(rng, 2)
    title = rng.pick(TITLE_FORMS).format(n=n, a=a, b=b)
    out = ["<item>"]
    add = out.append
    add("<title>%s</title>" % title)
    add("<link>%s/episodes/%d</link>" % (SITE, n))
    if rng.chance(60):
        add('<guid isPermaLink="false">urn:uuid:%08x-%04x-4%03x-'
            '%04x-%012x</guid>' % (rng.next() >> 32, n & 0xFFFF,
                                   rng.below(0x1000),
                                   0x8000 | rng.below(0x4000),
                                   rng.next() >> 16))
    elif rng.chance(50):
        add("<guid>%s/episodes/%d</guid>" % (SITE, n))
    else:
        add('<guid isPermaLink="true">%s/e/%d</guid>' % (SITE, n))
    add("<pubDate>%s</pubDate>" % pub_date(rng, when))
    add("<description><![CDATA[%s]]></description>" % show_notes(rng, n))
    add("<content:encoded><![CDATA[<p>%s &amp; <em>%s</em>.</p>"
        "<p><a href=\"%s/episodes/%d#notes\">Full notes</a></p>]]>"
        "</content:encoded>" % (words(rng, 4), words(rng, 2), SITE, n))
    add('<enclosure url="%s/audio/bench-%05d.mp3" length="%d" '
        'type="audio/mpeg"/>' % (CDN, n, 5000000 + rng.below(90000000)))
    if rng.chance(10):
        add('<media:content url="%s/video/bench-%05d.mp4" '
            'fileSize="%d" type="video/mp4"/>' % (CDN, n,
                                                   rng.below(900000000)))
    total = duration(rng)
    add("<itunes:duration>%s</itunes:duration>" % total)
    add("<itunes:episode>%d</itunes:episode>" % n)
    add("<itunes:season>%d</itunes:season>" % (1 + n // 100))
    add("<itunes:episodeType>%s</itunes:episodeType>" % rng.pick(
        ["full", "full", "full", "full", "trailer", "bonus"]))
    add("<itunes:explicit>%s</itunes:explicit>" % rng.pick(
        ["false", "true", "no", "yes", "clean"]))
    if rng.chance(50):
        add("<itunes:author>%s</itunes:author>" % rng.pick(PERSONS)[0])
    if rng.chance(60):
        add('<itunes:image href="%s/art/%d.jpg"/>' % (CDN, n % 500))
    add("<itunes:summary>%s &amp; %s &#8212; %s</itunes:summary>" % (
        words(rng, 3), words(rng, 2), words(rng, 2)))
    if rng.chance(30):
        add('<podcast:transcript url="%s/transcripts/%d.vtt" '
            'type="text/vtt" language="en"/>' % (CDN, n))
    if rng.chance(40):
        name, role = rng.pick(PERSONS)
        add('<podcast:person role="%s" img="%s/people/%d.jpg" '
            'href="%s/people/%d">%s</podcast:person>' % (
                role, CDN, n % 7, SITE, n % 7, name))
    if rng.chance(25):
        add(chapters(rng, total))
    add("</item>")
    return "\n".join(out) + "\n"


def header():
    return """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="%s" xmlns:content="%s"
     xmlns:podcast="%s" xmlns:atom="%s" xmlns:media="%s" xmlns:psc="%s">
  <channel>
    <title>Bench Radio &#8212; caf\u00e9 &amp; \u65e5\u672c\u8a9e \U0001F3A7</title>
    <link>%s/</link>
    <atom:link href="%s/feed.xml" rel="self" type="application/rss+xml"/>
    <description>A synthetic feed for timing libfeed&#8217;s parser.</description>
    <language>en-us</language>
    <generator>libfeed tests/bench/gen-feed.py</generator>
    <image><url>%s/art/show.jpg</url><title>Bench Radio</title><link>%s/</link></image>
    <itunes:author>Bench Radio &amp; Friends</itunes:author>
    <itunes:owner><itunes:name>Ana Garc\u00eda</itunes:name><itunes:email>ana@show.example</itunes:email></itunes:owner>
    <itunes:image href="%s/art/show.jpg"/>
    <itunes:category text="Technology"><itunes:category text="Software How-To"/></itunes:category>
    <itunes:explicit>false</itunes:explicit>
    <itunes:type>episodic</itunes:type>
    <podcast:locked>no</podcast:locked>
    <podcast:funding url="%s/support">Support the show</podcast:funding>
""" % (ITUNES, CONTENT, PODCAST, ATOM, MEDIA, PSC, SITE, SITE, CDN, SITE,
       CDN, SITE)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--episodes", type=int, default=20000,
                    help="number of items (default 20000)")
    ap.add_argument("output", help="file to write")
    args = ap.parse_args()
    if args.episodes < 0:
        ap.error("--episodes must not be negative")

    rng = Rng(SEED)
    newest = datetime.datetime(2024, 6, 28, 17, 30, 0)
    with open(args.output, "w", encoding="utf-8", newline="\n") as f:
        f.write(header())
        chunk = []
        for i in range(args.episodes):
            n = args.episodes - i  # newest first, as feeds list them
            when = newest - datetime.timedelta(hours=7 * i, seconds=i % 60)
            chunk.append(item(rng, n, when))
            if len(chunk) == 256:
                f.write("".join(chunk))
                chunk = []
        f.write("".join(chunk))
        f.write("  </channel>\n</rss>\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
