#!/usr/bin/env python3
"""Write the fetch benchmark's feeds: N distinct podcast feeds of ~100 KB.

Each feed is built from tests/bench/gen-feed.py's pieces (its header and its
items, with their CDATA show notes, entities, non-ASCII text and namespaces)
but with its own seed, title, site (so its own links and GUIDs) and dates,
and 35 to 43 episodes, so no two feeds share their bytes and 1000 of them
come to about 100 MB.  The same N always gives the same files.

Writes DIR/feed-0001.xml ... DIR/feed-NNNN.xml and DIR/manifest.tsv, one line
per feed: file name, episodes, bytes.

Usage: gen-feeds.py [--feeds N] DIR
"""

import argparse
import datetime
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GEN_FEED = os.path.join(HERE, "..", "bench", "gen-feed.py")


def load_gen_feed():
    spec = importlib.util.spec_from_file_location("gen_feed", GEN_FEED)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def episodes_of(i):
    """35..43 episodes (~2.5 KB each), varying from feed to feed."""
    return 35 + (i * 7) % 9


def feed_text(g, i):
    """Feed number i (1-based) as one string."""
    rng = g.Rng(g.SEED ^ (i * 0x9E3779B97F4A7C15))
    n_items = episodes_of(i)
    # gen-feed.py reads its SITE and CDN when it writes: each show gets its
    # own, and so its own links, enclosures and GUIDs (readers such as
    # newsboat take a GUID for the same episode whatever the feed).
    g.SITE = "https://show%d.example" % i
    g.CDN = "https://cdn%d.example" % i
    head = g.header()
    head = head.replace("<title>Bench Radio &#8212;",
                        "<title>Bench Radio %d &#8212;" % i, 1)
    newest = (datetime.datetime(2024, 6, 28, 17, 30, 0) -
              datetime.timedelta(hours=rng.below(24 * 90),
                                 minutes=rng.below(60)))
    parts = [head]
    for k in range(n_items):
        n = n_items - k
        when = newest - datetime.timedelta(days=7 * k, seconds=k % 60)
        parts.append(g.item(rng, n, when))
    parts.append("  </channel>\n</rss>\n")
    return "".join(parts), n_items


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--feeds", type=int, default=1000,
                    help="number of feeds (default 1000)")
    ap.add_argument("dir", help="directory to write (created if missing)")
    args = ap.parse_args()
    if not 1 <= args.feeds <= 9999:
        ap.error("--feeds must be between 1 and 9999")

    g = load_gen_feed()
    os.makedirs(args.dir, exist_ok=True)
    manifest = []
    for i in range(1, args.feeds + 1):
        text, n_items = feed_text(g, i)
        data = text.encode("utf-8")
        name = "feed-%04d.xml" % i
        with open(os.path.join(args.dir, name), "wb") as f:
            f.write(data)
        manifest.append("%s\t%d\t%d\n" % (name, n_items, len(data)))
    with open(os.path.join(args.dir, "manifest.tsv"), "w",
              encoding="utf-8", newline="\n") as f:
        f.write("".join(manifest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
