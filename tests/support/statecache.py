"""The episode caches beside mpd-bridge's state file, as the tests read
them: one GVariant file per feed in STATE.cache (see
mpd-bridge/state/store-cache.c). Standard library only."""
import os

import gvariant

CACHE_TYPE = "(susuba(ssssssxxxxx))"
# Caches read, by file: a test that reads the state after each of 120
# kills decodes each cache once, as the daemon seldom rewrites one.
_decoded = {}
CACHE_FIELDS = ("guid", "url", "title", "author", "type", "published",
                "duration", "number", "first_seen", "gone")


def read_cache(path, feed_id):
    """The episodes of a feed's cache beside the state file at @path:
    {episode id: {key: raw value}} as the key file would say them; None
    when it is missing or damaged. The daemon reads a partial cache, or
    one of another number than the key file's, as this does, and fetches
    its feed whole."""
    try:
        with open(os.path.join(path + ".cache", feed_id), "rb") as f:
            st = os.fstat(f.fileno())
            stamp = (f.name, st.st_ino, st.st_size, st.st_mtime_ns)
            if stamp not in _decoded:
                _decoded[stamp] = gvariant.decode(CACHE_TYPE, f.read())
        magic, version, fid, number, complete, entries = _decoded[stamp]
    except (OSError, ValueError, IndexError, UnicodeDecodeError):
        return None
    if magic != "mpd-bridge episode cache" or fid != feed_id:
        return None
    out = {}
    for entry in entries:
        fields = {"feed_id": feed_id}
        for key, value in zip(CACHE_FIELDS, entry[1:]):
            if value != "":
                fields[key] = str(value)
        out[entry[0]] = fields
    return out


def cached_episode(path, episode_id):
    """What the caches beside the state at @path say of one episode, as
    read_cache() does; None when none has it."""
    for feed_id in sorted(os.listdir(path + ".cache")):
        episode = (read_cache(path, feed_id) or {}).get(episode_id)
        if episode is not None:
            return episode
    return None
