#!/usr/bin/python3
"""Tags that mpd-bridge writes into downloaded episodes, as MPD shows them.

A copy of each fixture of tests/data/tags (half a second of silence with a
title, an artist and a cover picture of its own) goes into a private MPD's
music directory, some under a name that does not match their content, and
tags-tool (mpd-bridge/downloads/tags.c) tags it with a title full of control
characters. Then:

- python3-mutagen finds the file's cover picture, byte for byte;
- MPD, after `update`, shows Title, Album, Artist, Date, Genre, Track and
  Comment, with no control character in any value;
- a web page, a missing file and a read-only file (tried as the user
  nobody when the test runs as root) are refused with the path in the
  message, and the read-only file stays as it was.

Prints TAP. Needs TAGS_TOOL, TAGS_DATA, mpd, python3-mutagen and, as root,
setpriv (util-linux). TAGS_FULL_DATE=1 when TagLib writes whole dates
(TagLib 2); else only the year. A missing mpd or mutagen fails the test.
"""
import base64
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from mpdtest import Mpd, wait_until  # noqa: E402

TOOL = os.environ["TAGS_TOOL"]
DATA = os.environ["TAGS_DATA"]
FULL_DATE = os.environ.get("TAGS_FULL_DATE") == "1"

# (fixture, name in the music directory, what mutagen reads it as)
FILES = [
    ("silence.mp3", "episode-1.mp3", "id3"),
    ("silence.m4a", "episode-2.m4a", "mp4"),
    ("silence.ogg", "episode-3.ogg", "ogg"),
    ("silence.opus", "episode-4.opus", "ogg"),
    ("silence.flac", "episode-5.flac", "flac"),
    # Named after a MIME type or URL that lied.
    ("silence.opus", "episode-6.ogg", "ogg"),
    ("silence.m4a", "episode-7.mp3", "mp4"),
]

ALBUM = "The Podcast"
ARTIST = "Host Name"
DATE = "2024-05-01"
GENRE = "Podcast"


def raw_title(n):
    """A title as a hostile feed has it."""
    return (f"Episode {n}:\nline\r\nbreak\ttab\x1b[31mred\x7f"
            "\u0085nel\u2028sep\u009b end")


def clean_title(n):
    return f"Episode {n}: line break tab[31mred nel sep end"


def comment(n):
    return f"urn:uuid:episode-{n}"


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, description, problems):
        self.n += 1
        if problems:
            self.failed += 1
            print(f"not ok {self.n} - {description}")
            for problem in problems:
                for line in str(problem).splitlines() or [""]:
                    print("# " + line)
        else:
            print(f"ok {self.n} - {description}")
        sys.stdout.flush()


def tag(path, n, user=None, tool=TOOL, env=None):
    argv = [tool, path, "--title", raw_title(n), "--album", ALBUM,
            "--artist", ARTIST, "--date", DATE, "--genre", GENRE,
            "--track", str(n), "--comment", comment(n)]
    if user is not None:
        argv = ["setpriv", f"--reuid={user.pw_uid}",
                f"--regid={user.pw_gid}", "--clear-groups", "--"] + argv
    # Bytes, not text: the title's control characters go as they are.
    return subprocess.run([a.encode() for a in argv], capture_output=True,
                          env=env, timeout=60)


def covers(path, kind):
    """The cover pictures' data that mutagen finds in @path."""
    from mutagen import flac, id3, mp4, oggopus, oggvorbis
    if kind == "id3":
        return [frame.data for frame in id3.ID3(path).getall("APIC")]
    if kind == "mp4":
        return [bytes(c) for c in mp4.MP4(path).tags.get("covr", [])]
    if kind == "flac":
        return [p.data for p in flac.FLAC(path).pictures]
    with open(path, "rb") as f:
        opus = b"OpusHead" in f.read(64)
    tags = (oggopus.OggOpus if opus else oggvorbis.OggVorbis)(path).tags
    return [flac.Picture(base64.b64decode(value)).data
            for value in tags.get("metadata_block_picture", [])]


def songs(mpd):
    """lsinfo of the music directory: {file: {tag: [values]}}."""
    out = {}
    current = None
    for line in mpd.command('lsinfo ""'):
        key, value = line.split(": ", 1)
        if key == "file":
            current = out.setdefault(value, {})
        elif current is not None:
            current.setdefault(key, []).append(value)
    return out


def control_characters(text):
    return [c for c in text
            if ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0 or c in "\u2028\u2029"]


def main():
    tap = Tap()
    print("1..5")
    root = tempfile.mkdtemp(prefix="test-tags-mpd-")
    mpd = Mpd(os.path.join(root, "mpd"))
    music = os.path.join(root, "mpd", "music")
    with open(os.path.join(DATA, "cover.png"), "rb") as f:
        cover = f.read()
    try:
        problems = []
        for n, (fixture, name, kind) in enumerate(FILES, 1):
            path = os.path.join(music, name)
            shutil.copy(os.path.join(DATA, fixture), path)
            r = tag(path, n)
            if r.returncode != 0:
                problems.append(f"{name}: tags-tool exited "
                                f"{r.returncode}: {r.stderr.decode()}")
        tap.check("each fixture is tagged", problems)

        problems = []
        for fixture, name, kind in FILES:
            found = covers(os.path.join(music, name), kind)
            if found != [cover]:
                problems.append(f"{name}: {len(found)} pictures, "
                                f"{sum(p == cover for p in found)} the "
                                "fixture's cover")
        tap.check("the cover art is still there (mutagen)", problems)

        # Comment reaches clients only when MPD's config asks for it.
        with open(mpd.conf, "a") as f:
            f.write('metadata_to_use "+comment"\n')
        mpd.start()
        mpd.command("update")
        wait_until(lambda: "updating_db" not in mpd.status(), 20,
                   "MPD's update")
        listed = songs(mpd)
        problems = []
        for n, (fixture, name, kind) in enumerate(FILES, 1):
            want = {
                "Title": [clean_title(n)],
                "Album": [ALBUM],
                "Artist": [ARTIST],
                "Date": [DATE if FULL_DATE else DATE[:4]],
                "Genre": [GENRE],
                "Track": [str(n)],
                "Comment": [comment(n)],
            }
            got = listed.get(name)
            if got is None:
                problems.append(f"{name}: not in MPD's database")
                continue
            for key, values in want.items():
                if got.get(key) != values:
                    problems.append(f"{name}: {key} is {got.get(key)!r}, "
                                    f"not {values!r}")
        tap.check("MPD shows Title, Album, Artist, Date, Genre, Track and "
                  "Comment", problems)

        problems = []
        for name, got in listed.items():
            for key, values in got.items():
                for value in values:
                    if control_characters(value):
                        problems.append(f"{name}: {key} {value!r}")
        tap.check("no control character reaches MPD", problems)

        problems = []
        page = os.path.join(music, "page.mp3")
        shutil.copy(os.path.join(DATA, "not-audio.mp3"), page)
        missing = os.path.join(music, "missing.mp3")
        read_only, user, tool, env = read_only_setup(root)
        with open(read_only, "rb") as f:
            before = f.read()
        for path, who, program, environ in ((page, None, TOOL, None),
                                            (missing, None, TOOL, None),
                                            (read_only, user, tool, env)):
            r = tag(path, 9, who, program, environ)
            message = r.stderr.decode()
            print("# " + message.strip())
            if r.returncode != 1 or path not in message:
                problems.append(f"{path}: exit {r.returncode}, {message!r}")
        with open(read_only, "rb") as f:
            if f.read() != before:
                problems.append(f"{read_only} changed")
        tap.check("a web page, a missing file and a read-only file are "
                  "refused, naming the file", problems)
    finally:
        mpd.stop()
        shutil.rmtree(root, ignore_errors=True)
    return 1 if tap.failed else 0


def read_only_setup(root):
    """A read-only copy of the MP3 fixture; the user to try it as (nobody
    when we are root, who may write anything), a copy of tags-tool that
    user can run (the build may sit in a directory only we can read), and
    the environment to run it in."""
    shared = os.path.join(root, "shared")
    os.mkdir(shared)
    os.chmod(root, 0o755)
    os.chmod(shared, 0o755)
    path = os.path.join(shared, "read-only.mp3")
    shutil.copy(os.path.join(DATA, "silence.mp3"), path)
    os.chmod(path, 0o444)
    if os.geteuid() != 0:
        return path, None, TOOL, None
    tool = os.path.join(shared, "tags-tool")
    shutil.copy(TOOL, tool)
    os.chmod(tool, 0o755)
    for d in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
        for name in os.listdir(d) if os.path.isdir(d) else []:
            if name.startswith("libfeed.so") and not name.endswith(".p"):
                shutil.copy(os.path.join(d, name), shared)
    env = dict(os.environ, LD_LIBRARY_PATH=shared)
    return path, pwd.getpwnam("nobody"), tool, env


if __name__ == "__main__":
    sys.exit(main())
