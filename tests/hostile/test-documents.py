#!/usr/bin/env python3
"""Hostile documents on disk, through feedtool and libfeed's parser.

Each row of CASES is what is thrown and the outcome it must have; the TAP
line of a case says both. Every document is generated here, in a temporary
directory that is removed afterwards. feed-probe reports the exact FeedError
code; feedtool parse, parse --json and playlist (M3U, PLS, XSPF) are what a
user sees. Peak memory is each process's own, from wait4(), compared with
what the same build needs for a tiny feed.

Already pinned elsewhere, not repeated here: tests/unit/test-parser.c
/parser/hostile/* (external general and parameter entities, network DTDs,
billion laughs and quadratic blow-up through feed_channel_new_from_data),
tests/integration/test-mpd-playlist.py (a title with line breaks adds no
entry to MPD's copy of a feedtool M3U).
"""
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile  # noqa: E402
from hostile import (FEEDTOOL, MiB, Case, check, expect_error, item,  # noqa
                     measured, probe, rss, tool_env)

SECRET = "HOSTILE-SECRET-7f3a9c"
PASSWD_MARKER = "root:x:0:0"


class World:
    def __init__(self):
        self.dir = hostile.TempDir("hostile-documents-")
        self.secret = self.dir.join("secret.txt")
        with open(self.secret, "w") as f:
            f.write(SECRET + "\n")
        # An external DTD whose entity, if loaded, would carry the secret.
        self.secret_dtd = self.dir.join("secret.dtd")
        with open(self.secret_dtd, "w") as f:
            f.write(f'<!ENTITY leak "{SECRET}">\n')
        self.baseline = hostile.baseline_rss(self.dir.join("tiny.xml"))
        self.listener = hostile.Listener()

    def path(self, name):
        return self.dir.join(name)

    def write(self, name, data):
        path = self.dir.join(name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def close(self):
        self.listener.socket.close()
        self.dir.close()


def bounded(world, outcome, extra, what):
    """Peak RSS within @extra bytes of the build's baseline."""
    limit = world.baseline + extra
    check(outcome.max_rss <= limit,
          f"{what}: peak RSS {outcome.max_rss / MiB:.1f} MiB, more than "
          f"{limit / MiB:.1f} MiB (baseline {world.baseline / MiB:.1f})")


def every_output(world, path):
    """feedtool's outputs for @path: parse, parse --json and the three
    playlist formats, as one text, and the playlists by format."""
    texts = []
    playlists = {}
    for args in (["parse", path], ["parse", "--json", path]):
        outcome = measured([FEEDTOOL, *args], env=tool_env())
        texts.append(outcome.text())
    for fmt in ("m3u", "pls", "xspf"):
        outcome = measured([FEEDTOOL, "playlist", "--format", fmt, path],
                           env=tool_env())
        check(outcome.returncode == 0,
              f"playlist --format {fmt}: {outcome.describe()}: "
              f"{outcome.stderr[-500:]!r}")
        playlists[fmt] = outcome.stdout.decode("utf-8")
        texts.append(outcome.text())
    return "\n".join(texts), playlists


def no_secret(world, name, document, also_absent=()):
    path = world.write(name, document)
    fields, outcome = probe("parse", path)
    check(fields[0] == "ok", f"feed-probe: {' '.join(fields)}")
    text, _ = every_output(world, path)
    for marker in (SECRET, PASSWD_MARKER, *also_absent):
        check(marker not in text, f"{marker!r} reached feedtool's output")
    return f"parsed, {fields[1]} episode(s), no secret in 5 outputs"


# External entities, DTDs and inclusions

def external_general(world):
    head = ("<!DOCTYPE rss [\n"
            '<!ENTITY passwd SYSTEM "file:///etc/passwd">\n'
            f'<!ENTITY secret SYSTEM "file://{world.secret}">\n]>\n')
    doc = rss([item("episode &secret; &passwd;", "http://e.invalid/1.mp3",
                    "g1", "<description>&passwd; &secret;</description>"
                    "<itunes:author>&secret;</itunes:author>"),
               item("in an attribute", "http://e.invalid/&secret;.mp3", "g2")],
              title="show &passwd;&secret;", head=head)
    return no_secret(world, "external-general.xml", doc)


def external_parameter(world):
    head = ("<!DOCTYPE rss [\n"
            f'<!ENTITY % pe SYSTEM "file://{world.secret_dtd}">\n'
            "%pe;\n"
            '<!ENTITY % pw SYSTEM "file:///etc/passwd">\n'
            '<!ENTITY % wrap "<!ENTITY from-pw \'%pw;\'>">\n'
            "%wrap;\n]>\n")
    doc = rss([item("a &leak; b &from-pw;", "http://e.invalid/1.mp3", "g1")],
              title="&leak;", head=head)
    return no_secret(world, "external-parameter.xml", doc)


def external_dtd_file(world):
    head = f'<!DOCTYPE rss SYSTEM "file://{world.secret_dtd}">\n'
    doc = rss([item("x &leak; y", "http://e.invalid/1.mp3", "g1")],
              title="t &leak;", head=head)
    return no_secret(world, "external-dtd.xml", doc)


def loopback_dtd(world):
    port = world.listener.port
    head = (f'<!DOCTYPE rss PUBLIC "-//X//Y" "http://127.0.0.1:{port}/a.dtd"'
            f' [\n<!ENTITY net SYSTEM "http://127.0.0.1:{port}/e.xml">\n'
            f'<!ENTITY % pnet SYSTEM "http://127.0.0.1:{port}/p.dtd">\n'
            "%pnet;\n]>\n")
    doc = rss([item("x &net; y", f"http://127.0.0.1:{port}/&net;.mp3", "g1")],
              title="loopback", head=head)
    result = no_secret(world, "loopback-dtd.xml", doc)
    check(world.listener.count() == 0,
          f"the listener saw {world.listener.count()} connection(s)")
    return result + "; the listener saw no connection"


def xinclude(world):
    doc = rss([item("<xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\""
                    f' href="file://{world.secret}" parse="text"/>',
                    "http://e.invalid/1.mp3", "g1")], title="xinclude")
    return no_secret(world, "xinclude.xml", doc)


# Entity expansion

def laughs(depth, where):
    decls = '<!ENTITY l0 "lol">\n' + "".join(
        f'<!ENTITY l{i} "{("&l%d;" % (i - 1)) * 10}">\n'
        for i in range(1, depth + 1))
    head = f"<!DOCTYPE rss [\n{decls}]>\n"
    ref = f"&l{depth};"
    if where == "text":
        return rss([item(ref, "http://e.invalid/1.mp3", "g1")], head=head)
    return rss([item("t", "http://e.invalid/" + ref, "g1",
                     f'<itunes:image href="{ref}"/>')], head=head)


def quadratic(where):
    head = '<!DOCTYPE rss [<!ENTITY big "' + "x" * 50000 + '">]>\n'
    refs = "&big;" * 50000
    if where == "text":
        return rss([item(refs, "http://e.invalid/1.mp3", "g1")], head=head)
    # Another attribute follows the one that blows up: once read after
    # libxml2 had freed its input.
    return rss([b'<item><title>t</title><enclosure url="http://e.invalid/' +
                refs.encode() + b'" type="audio/mpeg" length="1"/></item>'],
               head=head)


def refused_quickly(document, name, code="ENTITY_LIMIT", seconds=5,
                    memory=32 * MiB):
    def run(world):
        path = world.write(name, document)
        fields, outcome = probe("parse", path)
        expect_error(fields, code)
        check(outcome.seconds < seconds, f"took {outcome.describe()}")
        bounded(world, outcome, memory, "feed-probe")
        tool = measured([FEEDTOOL, "parse", path], env=tool_env())
        check(tool.returncode == 1, f"feedtool parse: {tool.describe()}")
        message = tool.stderr.decode("utf-8", "replace")
        check(message.startswith(f"feedtool: {path}: "),
              f"feedtool parse said {message!r}")
        bounded(world, tool, memory, "feedtool parse")
        return (f"FEED_ERROR_{code} in {outcome.seconds:.2f} s, peak RSS "
                f"{outcome.max_rss / MiB:.1f} MiB; feedtool: "
                f"{message.strip()[:90]}")
    return run


# Size and shape

def deep(levels, close):
    body = b"<a>" * levels + (b"</a>" * levels if close else b"")
    return rss([b"<item><title>before</title></item>\n", body,
                b"<item><title>after</title></item>\n"])


def big_feed(world):
    """100 MB of ordinary episodes: feedtool parse reads a file of any
    size in flat memory; the library's default cap (64 MiB) refuses it
    when nobody raises it."""
    path = world.path("big.xml")
    episodes = hostile.write_big_feed(path, 100 * MiB)
    try:
        fields, outcome = probe("parse", path)
        expect_error(fields, "TOO_LARGE")
        # GLib writes sizes with a no-break space.
        check(re.search(r"64\.0\sMiB cap", fields[2]),
              f"message: {fields[2]}")
        bounded(world, outcome, 64 * MiB, "feed-probe")
        listing = measured([FEEDTOOL, "parse", path], env=tool_env())
        check(listing.returncode == 0,
              f"feedtool parse: {listing.describe()}: "
              f"{listing.stderr[-300:]!r}")
        check(listing.stdout.endswith(f"{episodes} episodes\n".encode()),
              f"feedtool parse ends {listing.stdout[-80:]!r}")
        bounded(world, listing, 48 * MiB, "feedtool parse")
        as_json = measured([FEEDTOOL, "parse", "--json", path],
                           env=tool_env())
        check(as_json.returncode == 0, f"parse --json: {as_json.describe()}")
        check(json.loads(as_json.stdout)["episodes"][-1]["title"] ==
              f"Episode {episodes}", "the last episode is not the last")
        bounded(world, as_json, 48 * MiB, "feedtool parse --json")
    finally:
        os.unlink(path)
    return (f"feed-probe (default cap): FEED_ERROR_TOO_LARGE, peak "
            f"{outcome.max_rss / MiB:.1f} MiB; feedtool parse: "
            f"{episodes} episodes in {listing.seconds:.2f} s, peak "
            f"{listing.max_rss / MiB:.1f} MiB; --json peak "
            f"{as_json.max_rss / MiB:.1f} MiB")


def huge_title(world):
    title = "A" * (1 << 20)
    path = world.write("huge-title.xml", rss(
        [item(title, "http://e.invalid/1.mp3", "g1"),
         item("next", "http://e.invalid/2.mp3", "g2")]))
    as_json = measured([FEEDTOOL, "parse", "--json", path], env=tool_env())
    check(as_json.returncode == 0, as_json.describe())
    titles = [e["title"] for e in json.loads(as_json.stdout)["episodes"]]
    check(titles == [title, "next"], "the titles changed")
    bounded(world, as_json, 32 * MiB, "feedtool parse --json")
    _, playlists = every_output(world, path)
    lines = playlists["m3u"].splitlines()
    check(len(lines) == 6 and len(lines[2]) > (1 << 20),
          f"the M3U has {len(lines)} lines")
    return (f"kept whole in JSON and on one M3U line, peak "
            f"{as_json.max_rss / MiB:.1f} MiB")


def huge_attribute(world):
    """libxml2 takes an attribute of up to 10 MB (XML_MAX_TEXT_LENGTH);
    the few copies made on the way to an enclosure cost about 8 times its
    size, so the bound is 128 MiB. A longer one stops libxml2 there: the
    episodes before it are kept, and the error is reported."""
    url = "http://e.invalid/" + "a" * (8 << 20) + ".mp3"
    path = world.write("huge-attribute.xml", rss(
        [item("long", url, "g1"), item("short", "http://e.invalid/2.mp3",
                                       "g2")]))
    fields, outcome = probe("parse", path)
    check(fields == ["ok", "2"], " ".join(fields))
    bounded(world, outcome, 128 * MiB, "feed-probe")
    m3u = measured([FEEDTOOL, "playlist", path], env=tool_env())
    check(m3u.returncode == 0, m3u.describe())
    lines = m3u.stdout.decode().splitlines()
    check(len(lines) == 6 and lines[3] == url,
          f"the M3U has {len(lines)} lines")
    longer = "http://e.invalid/" + "a" * (32 << 20) + ".mp3"
    path = world.write("huger-attribute.xml", rss(
        [item("short", "http://e.invalid/2.mp3", "g2"),
         item("longer", longer, "g1")]))
    fields, huger = probe("parse", path)
    check(fields[0] == "ok", " ".join(fields))
    bounded(world, huger, 128 * MiB, "feed-probe, 32 MiB")
    m3u = measured([FEEDTOOL, "playlist", path], env=tool_env())
    entries = [line for line in m3u.stdout.decode().splitlines()
               if not line.startswith("#")]
    check(entries == ["http://e.invalid/2.mp3"], f"the M3U holds {entries}")
    listing = measured([FEEDTOOL, "parse", path], env=tool_env())
    problem = listing.stderr.decode("utf-8", "replace").strip()
    check(listing.returncode == 0 and "Huge input lookup" in problem,
          f"feedtool parse: {listing.describe()}: {problem!r}")
    return (f"8 MiB: parsed in {outcome.seconds:.2f} s, peak "
            f"{outcome.max_rss / MiB:.1f} MiB, the URL whole on one line; "
            f"32 MiB: the episode before it kept, {problem[-40:]!r}, peak "
            f"{huger.max_rss / MiB:.1f} MiB")


def many_attributes(world):
    attrs = " ".join(f'a{i}="v"' for i in range(20000))
    path = world.write("many-attributes.xml", rss(
        [f"<item {attrs}><title>x</title></item>"]))
    fields, outcome = probe("parse", path)
    check(fields == ["ok", "1"], " ".join(fields))
    check(outcome.seconds < 5, outcome.describe())
    return f"parsed in {outcome.seconds:.2f} s"


# What reaches a playlist

# Text with every kind of character that could end or fake a line.
NASTY = (b"A\x01B\x1fC\x7fD\rE\nF\tG\xe2\x80\xa8H\xe2\x80\xa9I\xc2\x85J"
         b"\xc2\x9bK&#127;L&#x85;M&#13;&#10;N\xef\xbf\xbeO")
INVALID_UTF8 = b"P\xff\xfeQ\xc0\xafR\xed\xa0\x80S\xf8\x88\x80\x80\x80T\x80U"


def playlist_lines(world):
    items = [item(NASTY, "http://e.invalid/1.mp3", "g1",
                  b"<itunes:author>" + NASTY + b"</itunes:author>"),
             item(b"#EXTINF:1,Fake\nhttp://e.invalid/injected.mp3\nFile9="
                  b"http://e.invalid/injected.mp3\n[playlist]",
                  "http://e.invalid/2.mp3", "g2"),
             item(INVALID_UTF8, "http://e.invalid/3.mp3", "g3"),
             item(b"</title><location>http://e.invalid/injected.mp3"
                  b"</location>".replace(b"<", b"&lt;"),
                  "http://e.invalid/4.mp3", "g4")]
    path = world.write("nasty-text.xml", rss(
        items, title=b"Show" + NASTY,
        channel_extra=b"<itunes:author>" + INVALID_UTF8 +
        b"</itunes:author>\n"))
    wanted = [f"http://e.invalid/{k}.mp3" for k in (1, 2, 3, 4)]
    _, playlists = every_output(world, path)
    check_m3u(playlists["m3u"], wanted)
    check_pls(playlists["pls"], wanted)
    check_xspf(playlists["xspf"], wanted)
    listing = measured([FEEDTOOL, "parse", path], env=tool_env())
    bad = [(i, line) for i, line in
           enumerate(listing.stdout.decode().splitlines())
           if hostile.control_characters(line)]
    check(not bad, f"feedtool parse printed control characters: {bad}")
    return "4 entries in each format, no control character on any line"


def check_m3u(text, urls):
    lines = text.split("\n")
    check(lines[-1] == "", "the M3U does not end with a newline")
    lines = lines[:-1]
    for line in lines:
        check(not hostile.control_characters(line),
              f"M3U line {line!r} holds control characters")
    entries = [line for line in lines if not line.startswith("#")]
    check(entries == urls, f"M3U entries {entries}, wanted {urls}")
    check(sum(line.startswith("#EXTINF:") for line in lines) == len(urls),
          "not one #EXTINF per entry")


def check_pls(text, urls):
    lines = text.split("\n")[:-1]
    for line in lines:
        check(not hostile.control_characters(line),
              f"PLS line {line!r} holds control characters")
        check(line == "[playlist]" or "=" in line, f"PLS line {line!r}")
    files = [line.split("=", 1)[1] for line in lines
             if line.startswith("File")]
    check(files == urls, f"PLS files {files}, wanted {urls}")
    check(f"NumberOfEntries={len(urls)}" in lines, "NumberOfEntries")
    check(sum(line.startswith("[") for line in lines) == 1,
          "more than one PLS section")


def check_xspf(text, urls):
    ns = {"x": "http://xspf.org/ns/0/"}
    root = ET.fromstring(text.encode())
    locations = [e.text for e in root.findall(".//x:location", ns)]
    check(locations == urls, f"XSPF locations {locations}, wanted {urls}")
    for element in root.iter():
        text = element.text or "" if len(element) == 0 else ""
        for value in [text, *element.attrib.values()]:
            check(not hostile.control_characters(value),
                  f"XSPF <{element.tag}> holds {value!r}")


# Enclosure URLs: (as the feed writes it, as a playlist must hold it, or
# None when it must be in no playlist). Relative references resolve
# against the document's URL, here its file:// URL, so they are in no
# playlist (test-network.py has them against an http feed URL). Each URL
# is distinct after cleaning, as a playlist holds a URL once.
URLS = [
    ("file:///etc/passwd", None),
    ("FILE:///etc/passwd", None),
    ("javascript:alert(1)", None),
    ("JavaScript:alert(document.cookie)//.mp3", None),
    ("data:audio/mpeg;base64,SUQzBAAAAAAA", None),
    ("ftp://e.invalid/x.mp3", None),
    ("gopher://e.invalid/x.mp3", None),
    ("/absolute/path.mp3", None),
    ("../up.mp3", None),
    ("http:///no-host.mp3", None),
    ("http://e.invalid:99999/bad-port.mp3", None),
    ("http://e.invalid:port/bad-port.mp3", None),
    ("https://", None),
    ("http://e.invalid/lf&#10;1.mp3", "http://e.invalid/lf1.mp3"),
    ("http://e.invalid/crlf&#13;&#10;2.mp3", "http://e.invalid/crlf2.mp3"),
    ("http://e.invalid/tab&#9;3.mp3", "http://e.invalid/tab3.mp3"),
    ("http://e.invalid/a b.mp3", "http://e.invalid/a%20b.mp3"),
    ("  http://e.invalid/padded.mp3\t", "http://e.invalid/padded.mp3"),
    ("http://e.invalid/a%0Ab.mp3", "http://e.invalid/a%0Ab.mp3"),
    ("http://e.invalid/a%0D%0Ab.mp3", "http://e.invalid/a%0D%0Ab.mp3"),
    ("http://e.invalid/a%00b.mp3", "http://e.invalid/a%00b.mp3"),
    ("http://e.invalid/a\u2028b.mp3", None),
    ("http://e.invalid/a\u0085b.mp3", None),
    ("HTTPS://E.INVALID/Case.mp3", "https://e.invalid/Case.mp3"),
    ("//e.invalid/scheme-relative.mp3", None),
    ("e.invalid/no-scheme.mp3", None),
    ("http://user:pw@e.invalid/auth.mp3", "http://user:pw@e.invalid/auth.mp3"),
    ("http://[::1]:8080/v6.mp3", "http://[::1]:8080/v6.mp3"),
    ("http://e.invalid/q.mp3?a=1&amp;b=2", "http://e.invalid/q.mp3?a=1&b=2"),
]


def enclosure_urls(world):
    items = [item(f"U{k}", url.replace("<", "&lt;")
                  .replace('"', "&quot;"), f"u{k}")
             for k, (url, _) in enumerate(URLS)]
    path = world.write("urls.xml", rss(items))
    wanted = [out for _, out in URLS if out is not None]
    _, playlists = every_output(world, path)
    observed = {}
    for fmt in ("m3u", "pls", "xspf"):
        try:
            {"m3u": check_m3u, "pls": check_pls,
             "xspf": check_xspf}[fmt](playlists[fmt], wanted)
        except hostile.Failed as e:
            observed[fmt] = str(e)
    check(not observed, "\n".join(f"{fmt}: {e}" for fmt, e in
                                  observed.items()))
    return (f"{len(wanted)} of {len(URLS)} kept, as the table says, in "
            "M3U, PLS and XSPF")


# OPML

def opml_10000(world):
    n = 10000
    body = "".join(
        f'<outline type="rss" text="Feed {k}" '
        f'xmlUrl="http://127.0.0.1:1/feed/{k}"/>\n' for k in range(n))
    path = world.write("10000.opml", (
        '<?xml version="1.0"?>\n<opml version="2.0"><head><title>many'
        f"</title></head><body>\n{body}</body></opml>\n").encode())
    listed = measured([FEEDTOOL, "opml", "list", path], env=tool_env())
    check(listed.returncode == 0, listed.describe())
    urls = listed.stdout.decode().splitlines()
    check(urls == [f"http://127.0.0.1:1/feed/{k}" for k in range(n)],
          f"{len(urls)} URLs listed")
    check(listed.seconds < 10, listed.describe())
    as_json = measured([FEEDTOOL, "opml", "list", "--json", path],
                       env=tool_env())
    check(len(json.loads(as_json.stdout)) == n, "--json lists fewer")
    return f"{len(urls)} listed in {listed.seconds:.2f} s"


def opml_nasty(world):
    outlines = [
        '<outline text="A&#10;B" xmlUrl="http://e.invalid/1&#10;x"/>',
        '<outline text="C" xmlUrl="http://e.invalid/2\u2028y"/>',
        '<outline text="D" xmlUrl="http://e.invalid/3&#13;z"/>',
        '<outline text="E" xmlUrl="http://e.invalid/4"/>',
    ]
    path = world.write("nasty.opml", (
        '<?xml version="1.0"?>\n<opml version="2.0"><body>' +
        "".join(outlines) + "</body></opml>\n").encode())
    listed = measured([FEEDTOOL, "opml", "list", path], env=tool_env())
    lines = listed.stdout.decode().split("\n")[:-1]
    for line in lines:
        check(not hostile.control_characters(line),
              f"opml list printed {line!r}")
    check("http://e.invalid/4" in lines and len(lines) <= 4,
          f"opml list printed {lines}")
    return f"{len(lines)} URL(s), one a line, no control characters"


def opml_deep(world):
    levels = 100000
    path = world.write("deep.opml", (
        '<?xml version="1.0"?>\n<opml version="2.0"><body>'
        '<outline xmlUrl="http://e.invalid/before"/>' +
        '<outline text="x">' * levels + "</outline>" * levels +
        '<outline xmlUrl="http://e.invalid/after"/></body></opml>\n')
        .encode())
    listed = measured([FEEDTOOL, "opml", "list", path], env=tool_env())
    check(listed.returncode == 0, listed.describe())
    urls = listed.stdout.decode().splitlines()
    check(urls[:1] == ["http://e.invalid/before"], f"listed {urls}")
    bounded(world, listed, 64 * MiB, "feedtool opml list")
    return (f"listed {urls} (libxml2 stops at depth 256), peak "
            f"{listed.max_rss / MiB:.1f} MiB")


CASES = [
    Case("external general entities: file:///etc/passwd and a secret file,"
         " in text and attributes",
         "parsed without them; no secret in any output", external_general),
    Case("external parameter entities: a DTD file defining an entity, "
         "/etc/passwd through a nested declaration",
         "parsed without them; no secret in any output", external_parameter),
    Case("DOCTYPE SYSTEM pointing at a file DTD that defines an entity",
         "parsed without it; no secret in any output", external_dtd_file),
    Case("external DTD, entity and parameter entity on a loopback listener",
         "parsed without them; the listener sees no connection",
         loopback_dtd),
    Case("XInclude of a secret file", "not included", xinclude),
    Case("billion laughs in text (10^9 expansions)",
         "FEED_ERROR_ENTITY_LIMIT under 5 s, memory bounded",
         lambda w: refused_quickly(laughs(9, "text"), "laughs.xml")(w)),
    Case("billion laughs in attributes",
         "FEED_ERROR_ENTITY_LIMIT under 5 s, memory bounded",
         lambda w: refused_quickly(laughs(9, "attr"), "laughs-attr.xml")(w)),
    Case("quadratic blow-up in text (50,000 x 50 kB entity)",
         "FEED_ERROR_ENTITY_LIMIT under 5 s, memory bounded",
         lambda w: refused_quickly(quadratic("text"), "quadratic.xml")(w)),
    Case("quadratic blow-up in an attribute, more attributes after it",
         "FEED_ERROR_ENTITY_LIMIT under 5 s, memory bounded, no crash",
         lambda w: refused_quickly(quadratic("attr"),
                                   "quadratic-attr.xml")(w)),
    Case("100,000 nested elements, closed",
         "FEED_ERROR_PARSE naming the depth, at once, no stack growth",
         lambda w: refused_quickly(deep(100000, True), "deep.xml",
                                   "PARSE")(w)),
    Case("5,000,000 start tags never closed (15 MB)",
         "FEED_ERROR_PARSE, memory bounded",
         lambda w: refused_quickly(deep(5000000, False), "deep-open.xml",
                                   "PARSE")(w)),
    Case("a 100 MB feed of 29,000 ordinary episodes",
         "feedtool parse reads it all in flat memory; the library's "
         "default 64 MiB cap refuses it with FEED_ERROR_TOO_LARGE",
         big_feed),
    Case("a 1 MiB title", "kept whole, one playlist line, memory bounded",
         huge_title),
    Case("enclosure URL attributes of 8 and 32 MiB",
         "8 MiB: parsed, one playlist line; 32 MiB: past libxml2's 10 MB "
         "limit, the feed ends there with the error reported; memory "
         "bounded", huge_attribute),
    Case("20,000 attributes on one element", "parsed under 5 s",
         many_attributes),
    Case("C0, DEL, C1, U+2028/9, CR/LF (raw and as references), invalid "
         "UTF-8 and fake playlist syntax in titles and authors",
         "M3U/PLS/XSPF: exactly the 4 entries, no control character on any "
         "line; feedtool parse prints none", playlist_lines),
    Case(f"{len(URLS)} enclosure URLs: file, javascript, data, ftp, gopher,"
         " relative, no host, bad port, newline/CR/tab/space, %0A/%00, "
         "U+2028, NEL",
         "only http(s) URLs with a host reach M3U/PLS/XSPF, as the table "
         "says", enclosure_urls),
    Case("an OPML of 10,000 feeds", "opml list lists all 10,000 in order",
         opml_10000),
    Case("OPML URLs and titles with newlines, CR, U+2028",
         "one URL a line, no control character", opml_nasty),
    Case("an OPML nested 100,000 deep",
         "no crash; the feeds before the depth limit listed, memory "
         "bounded", opml_deep),
]


if __name__ == "__main__":
    sys.exit(hostile.main(CASES, setup=World, teardown=World.close))
