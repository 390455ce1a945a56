#!/usr/bin/python3
"""The house stays one-way: each folder of mpd-bridge includes only itself
and the folders below it, only mpd/ calls libmpdclient, and libfeed knows
nothing of MPD or the daemon.

    test-includes.py SOURCE_ROOT

Reads every #include line of mpd-bridge/ and libfeed/ and fails, naming
the file and line, when one goes up or sideways. The order is written
once, here; docs/architecture.md draws the same.
"""
import os
import re
import sys

# mpd-bridge's folders from the bottom up. A folder may include itself
# and any folder of a layer below its own, never one of its own layer or
# above; main.c, at the root, may include everything.
LAYERS = [
    ["mpd", "state"],
    ["core"],
    ["relay"],
    ["downloads"],
    ["playlists"],
    ["listening"],
    ["feeds"],
    ["phone"],
    ["commands"],
]
LEVEL = {folder: i for i, layer in enumerate(LAYERS) for folder in layer}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def includes(path):
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1), m.group(2)


def check_bridge(root):
    problems = []
    top = os.path.join(root, "mpd-bridge")
    seen = 0
    for folder, _, names in os.walk(top):
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, top)
            here = relative.split(os.sep)[0] if os.sep in relative else None
            if here is not None and here not in LEVEL:
                problems.append(f"mpd-bridge/{relative}: folder {here}/ "
                                "is in no layer of tests/house/"
                                "test-includes.py")
                continue
            seen += 1
            for number, kind, target in includes(path):
                # Only mpd/ talks to libmpdclient; others may read the
                # names of MPD's events.
                if (kind == "<" and target.startswith("mpd/")
                        and target != "mpd/idle.h" and here != "mpd"):
                    problems.append(
                        f"mpd-bridge/{relative}:{number}: <{target}>: "
                        "only mpd/ calls libmpdclient")
                if kind != '"':
                    continue
                if "/" not in target:
                    problems.append(
                        f"mpd-bridge/{relative}:{number}: "
                        f'"{target}" does not name its folder')
                    continue
                there = target.split("/")[0]
                if there not in LEVEL:
                    problems.append(f"mpd-bridge/{relative}:{number}: "
                                    f'"{target}" is in no known folder')
                    continue
                if here is None or there == here:
                    continue
                if LEVEL[there] >= LEVEL[here]:
                    way = ("its own layer" if LEVEL[there] == LEVEL[here]
                           else "a layer above")
                    problems.append(
                        f"mpd-bridge/{relative}:{number}: {here}/ includes "
                        f'"{target}", {way}; say it with news '
                        "(core/news.h), or move the code down")
    return seen, problems


def check_libfeed(root):
    problems = []
    seen = 0
    for top in ("libfeed", os.path.join("include", "feed")):
        for folder, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith((".c", ".h", ".h.in")):
                    continue
                path = os.path.join(folder, name)
                seen += 1
                for number, _, target in includes(path):
                    if target.startswith("mpd/") or "bridge" in target:
                        problems.append(
                            f"{os.path.relpath(path, root)}:{number}: "
                            f'libfeed includes "{target}"')
    return seen, problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    bridge_files, bridge_problems = check_bridge(root)
    feed_files, feed_problems = check_libfeed(root)
    print(f"1..2")
    for i, (what, files, problems) in enumerate(
            [("mpd-bridge's folders include one way", bridge_files,
              bridge_problems),
             ("libfeed knows nothing of MPD", feed_files, feed_problems)],
            1):
        # A tree with nothing to read would pass without checking.
        if files < 10:
            problems = problems + [f"only {files} files found under {root}"]
        for p in problems:
            print(f"# {p}")
        print(f"{'not ok' if problems else 'ok'} {i} - {what} "
              f"({files} files)")
    return 1 if bridge_problems or feed_problems else 0


if __name__ == "__main__":
    sys.exit(main())
