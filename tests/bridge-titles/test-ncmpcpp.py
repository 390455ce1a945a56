#!/usr/bin/env python3
"""What a person sees in a real MPD client: Debian's ncmpcpp, driven in
tmux (send-keys, capture-pane), against a private MPD set up as Debian
sets up its own. MPD's playlist directory belongs to another user than
the one running the test (mpd, as on Debian; else nobody), mode 0755, and
mpd-bridge runs as that user, from a copy it can read, with no
[bridge] playlist_directory: it finds the directory as it would on a
Debian box, through MPD's configuration ($XDG_CONFIG_HOME/mpd/mpd.conf,
the very file this MPD reads; MPD 0.24 also says it through `config`).

Asserted on the screen: the playlist editor (key 5) lists a podcast's
episodes and those of Podcasts: New by title, with durations (16:33),
newest first; after `mpc load` of the podcast's playlist the queue (key
1) shows titles, the podcast as album and durations; an episode that
plays keeps its title and album there, although its file brings tags of
its own (an MP3 with an ID3 tag: MPD puts those in place of the queue
entry's as it starts playing, which it does not do with a WAV's).

Prints TAP. Standard library only. Needs mpd, mpc, ncmpcpp, tmux,
setpriv, MPD_BRIDGE and root (to run mpd-bridge as another user).
"""
import os
import pwd
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "support"))
sys.path.insert(0, os.path.join(HERE, "..", "bridge-faults"))
import titles  # noqa: E402
from mpdtest import Mpd, wait_until  # noqa: E402
from titles import check, entries  # noqa: E402

SESSION = "titles"
PODCAST = "Podcast: The Loopback Show"
# Visible rows checked on each screen: the newest this many episodes.
ROWS = 20


def owner():
    """MPD's own user on Debian, else nobody."""
    for user in ("mpd", "nobody"):
        try:
            return pwd.getpwnam(user)
        except KeyError:
            pass
    raise AssertionError("neither user mpd nor nobody exists")


def chown_tree(path, user):
    for top, dirs, files in os.walk(path):
        for name in [top] + [os.path.join(top, n) for n in dirs + files]:
            os.chown(name, user.pw_uid, user.pw_gid)


class World:
    """MPD, its playlist directory owned by another user, mpd-bridge
    running as that user, ncmpcpp in a private tmux server. MPD itself
    runs as the test's user (on Debian it is mpd too): it reads any file,
    and what is tried is that mpd-bridge finds and writes the directory
    as its owner."""

    def __init__(self, root, site):
        self.root = root
        self.site = site
        self.user = owner()
        self.mpd = Mpd(os.path.join(root, "mpd"))
        # As Debian's: the directory belongs to MPD's user, mode 0755.
        os.chmod(self.mpd.playlists, 0o755)
        os.chown(self.mpd.playlists, self.user.pw_uid, self.user.pw_gid)
        # mpd-bridge's home; its MPD configuration is the file MPD reads.
        self.home = os.path.join(root, "bridge-home")
        conf_dir = os.path.join(self.home, ".config", "mpd")
        os.makedirs(conf_dir)
        shutil.copy(self.mpd.conf, os.path.join(conf_dir, "mpd.conf"))
        self.mpd.conf = os.path.join(conf_dir, "mpd.conf")
        os.makedirs(os.path.join(self.home, ".local", "state"))
        chown_tree(self.home, self.user)
        env = dict(os.environ)
        env.update({
            "HOME": self.home,
            "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
            "XDG_STATE_HOME": os.path.join(self.home, ".local", "state"),
            "XDG_CACHE_HOME": os.path.join(self.home, ".cache"),
            "MPD_HOST": self.mpd.socket,
            "G_DEBUG": "fatal-warnings",
            "LC_ALL": "C.UTF-8",
        })
        for name in ("MPD_PORT", "G_MESSAGES_DEBUG"):
            env.pop(name, None)
        self.daemon = titles.Daemon(root, env, user=self.user.pw_name)
        self.tmux_socket = os.path.join(root, "tmux.socket")
        self.tmux_started = False

    def start(self):
        self.mpd.start()
        self.daemon.start()

    def mpc(self, *args):
        r = subprocess.run(["mpc", *args], capture_output=True, text=True,
                           env=dict(os.environ, MPD_HOST=self.mpd.socket),
                           timeout=30)
        check(r.returncode == 0, f"mpc {' '.join(args)}: {r.stderr}")
        return r.stdout

    def tmux(self, *args):
        r = subprocess.run(["tmux", "-S", self.tmux_socket, *args],
                           capture_output=True, text=True, timeout=30)
        check(r.returncode == 0, f"tmux {' '.join(args)}: {r.stderr}")
        return r.stdout

    def start_ncmpcpp(self):
        nc_dir = os.path.join(self.root, "ncmpcpp")
        os.makedirs(nc_dir)
        conf = os.path.join(nc_dir, "config")
        with open(conf, "w") as f:
            f.write(f'ncmpcpp_directory = "{nc_dir}"\n'
                    f'lyrics_directory = "{nc_dir}/lyrics"\n'
                    'playlist_display_mode = "columns"\n'
                    'song_columns_list_format = "(60)[]{t|f:Title} '
                    '(40)[]{b:Album} (9f)[]{l:Time}"\n'
                    'startup_screen = "playlist"\n'
                    'colors_enabled = "no"\n'
                    'mouse_support = "no"\n'
                    'enable_window_title = "no"\n'
                    'message_delay_time = "1"\n')
        command = shlex.join(["env", f"HOME={nc_dir}",
                              f"MPD_HOST={self.mpd.socket}", "TERM=screen",
                              "LC_ALL=C.UTF-8", "ncmpcpp", "-c", conf])
        self.tmux("new-session", "-d", "-s", SESSION, "-x", "200", "-y",
                  "50", command)
        self.tmux_started = True
        wait_until(lambda: "Playlist" in self.screen() or
                   "Title" in self.screen(), 10, "ncmpcpp to draw")

    def keys(self, *keys):
        self.tmux("send-keys", "-t", SESSION, *keys)

    def screen(self):
        return self.tmux("capture-pane", "-t", SESSION, "-p")

    def close(self):
        try:
            if self.tmux_started:
                subprocess.run(["tmux", "-S", self.tmux_socket,
                                "kill-server"], capture_output=True,
                               timeout=30)
            code = self.daemon.stop()
            check(code in (0, None), f"the daemon exited with {code}")
        finally:
            self.mpd.stop()


def seen(w, wanted, what, timeout=10):
    """Waits until each of @wanted (tuples of strings) appears together on
    one line of the screen; returns that screen."""
    last = [""]

    def all_there():
        last[0] = w.screen()
        lines = last[0].splitlines()
        return all(any(all(part in line for part in row) for line in lines)
                   for row in wanted)
    try:
        wait_until(all_there, timeout, what, step=0.2)
    except AssertionError as e:
        missing = [row for row in wanted
                   if not any(all(part in line for part in row)
                              for line in last[0].splitlines())]
        raise AssertionError(f"{e}; missing {missing[:3]}; the screen:\n" +
                             last[0])
    if os.environ.get("TITLES_SCREENS"):
        for line in last[0].rstrip("\n").splitlines():
            print(f"# | {line.rstrip()}")
    return last[0]


def in_order(screen, texts):
    """Whether @texts appear on the screen's lines in this order."""
    lines = screen.splitlines()
    at = [next((k for k, line in enumerate(lines) if t in line), -1)
          for t in texts]
    return -1 not in at and at == sorted(at)


def show_playlist(w, name):
    """Opens the playlist editor on the playlist @name."""
    w.keys("5")
    wait_until(lambda: "Playlist editor" in w.screen(), 10,
               "the playlist editor")
    # Typed before the prompt is up, the name would be taken as commands.
    w.keys("/")
    wait_until(lambda: w.screen().rstrip().endswith("Find forward:"), 10,
               "ncmpcpp's find prompt")
    w.keys("-l", name)
    w.keys("Enter")


def t_editor_podcast(w):
    """the playlist editor (5) lists the podcast's playlist by episode
    title with durations (16:33), newest first"""
    show_playlist(w, PODCAST)
    newest = w.show.newest_first()[:ROWS]
    screen = seen(w, [(f"Content ({len(w.show.episodes)} items)",)] +
                  [(e.title, e.clock) for e in newest],
                  "titles and durations in the playlist editor")
    check(any("16:33" in line and newest[3].title in line
              for line in screen.splitlines()),
          f"no 16:33 beside {newest[3].title!r}:\n{screen}")
    check(in_order(screen, [e.title for e in newest]),
          f"not newest first:\n{screen}")
    check("ep00" not in screen, f"file names show:\n{screen}")


def t_editor_new(w):
    """the playlist editor shows Podcasts: New by title with durations,
    newest first"""
    show_playlist(w, "Podcasts: New")
    newest = w.show.newest_first()[:ROWS]
    screen = seen(w, [(f"Content ({len(w.show.episodes)} items)",)] +
                  [(e.title, e.clock) for e in newest],
                  "titles and durations of Podcasts: New")
    check(in_order(screen, [e.title for e in newest]),
          f"not newest first:\n{screen}")
    check("ep00" not in screen, f"file names show:\n{screen}")


def t_queue_after_load(w):
    """after `mpc load` of the podcast's playlist, the queue (1) shows each
    episode's title, the podcast as album, and its duration"""
    w.mpc("clear")
    w.mpc("load", PODCAST)
    w.keys("1")
    newest = w.show.newest_first()[:ROWS]
    screen = seen(w, [(e.title, w.show.title, e.clock) for e in newest],
                  "titles and album in the queue")
    check(in_order(screen, [e.title for e in newest]),
          f"not in the playlist's order:\n{screen}")
    check("ep00" not in screen, f"file names show:\n{screen}")
    songs = entries(w.mpd.command("playlistinfo"))
    check(len(songs) == 83 and all(s.get("Title") for s in songs),
          f"{sum(1 for s in songs if s.get('Title'))} of {len(songs)} "
          "queue entries have a title")


def playing(w, seconds):
    """Whether MPD plays, @seconds or more into the song."""
    status = w.mpd.status()
    return status.get("state") == "play" and \
        float(status.get("elapsed", "0")) >= seconds


def current(w):
    songs = entries(w.mpd.command("currentsong"))
    return songs[0] if songs else {}


def t_played_keeps_title(w):
    """the newest episode, played from the queue, keeps its title and
    album in the queue and in the status line, although its file brings
    a title and artist of its own (which MPD shows for a stream that is
    no episode)"""
    trailer = w.show.newest_first()[0]
    # The premise: playing, MPD puts the file's own tags in place.
    w.mpc("clear")
    w.mpc("add", trailer.url + "?not-an-episode")
    w.mpc("play")
    wait_until(lambda: current(w).get("Title") == titles.STREAM_TITLE, 10,
               "MPD to show the stream's own title")
    w.mpc("stop")
    w.mpc("clear")
    w.mpc("load", PODCAST)
    # Titled before it plays: a look at what playback does, not at what
    # a load does while something starts playing (test-titles does that).
    wait_until(lambda: all(s.get("Title") for s in entries(
        w.mpd.command("playlistinfo"))), 10, "the queue to be titled")
    w.mpc("play")
    wait_until(lambda: playing(w, 1.0), 10, "the trailer to play for 1 s")
    screen = seen(w, [(trailer.title, w.show.title),
                      ("Playing:", trailer.title)],
                  "the playing episode's title and album")
    check(titles.STREAM_TITLE not in screen,
          f"the stream's title shows:\n{screen}")
    song = current(w)
    check(song.get("Title") == trailer.title and
          song.get("Album") == w.show.title and
          song.get("Artist") == w.show.author, f"MPD plays {song}")
    status = w.mpd.status()
    check(status.get("state") == "play", f"no longer playing: {status}")
    print(f"# checked {float(status.get('elapsed', 0)):.1f} s into the "
          "trailer")
    w.mpc("stop")


TESTS = [t_editor_podcast, t_editor_new, t_queue_after_load,
         t_played_keeps_title]


def main():
    print(f"1..{len(TESTS)}")
    sys.stdout.flush()
    missing = [p for p in ("mpd", "mpc", "ncmpcpp", "tmux", "setpriv")
               if shutil.which(p) is None]
    why = "MPD_BRIDGE is not set" if not titles.BRIDGE else \
        f"missing {', '.join(missing)}" if missing else \
        "not root: mpd-bridge cannot run as another user" \
        if os.geteuid() != 0 else None
    if why:
        for n, t in enumerate(TESTS, 1):
            print(f"not ok {n} - {t.__doc__.split(chr(10))[0]} # {why}")
        return 1
    root = tempfile.mkdtemp(prefix="bridge-ncmpcpp-")
    os.chmod(root, 0o755)   # for mpd-bridge's user
    site = titles.Site()
    w = None
    failed = 0
    try:
        w = World(root, site)
        version = subprocess.run(["mpd", "--version"], capture_output=True,
                                 text=True).stdout.splitlines()[0]
        print(f"# mpd-bridge runs as {w.user.pw_name}; {version}")
        w.show = titles.show(site)
        w.start()
        w.daemon.ok("subscribe", site.url("/show.xml"))
        path = os.path.join(w.mpd.playlists, PODCAST + ".m3u")
        wait_until(lambda: os.path.exists(path), 20, path)
        check(os.stat(path).st_uid == w.user.pw_uid,
              f"{path} is not {w.user.pw_name}'s")
        w.start_ncmpcpp()
        failed += titles.run_cases(w, TESTS)
    except (AssertionError, OSError) as e:
        print(f"# {e}")
        failed += 1
    finally:
        if w is not None:
            w.close()
        site.close()
        if os.environ.get("TITLES_KEEP"):
            print(f"# kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
