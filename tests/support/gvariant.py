"""A reader of GVariant's serialised form, for the tests that look into
mpd-bridge's episode caches without GLib: the types s, b, u, x, tuples
and arrays, in the machine's byte order, as GLib's documentation of the
format lays them out. Standard library only."""
import struct

FIXED = {"b": (1, 1, "?"), "u": (4, 4, "=I"), "x": (8, 8, "=q")}


def _split(signature):
    """The first complete type of @signature, and the rest."""
    if signature[0] in "sbux":
        return signature[0], signature[1:]
    if signature[0] == "a":
        inner, rest = _split(signature[1:])
        return "a" + inner, rest
    if signature[0] == "(":
        depth = 0
        for i, c in enumerate(signature):
            depth += {"(": 1, ")": -1}.get(c, 0)
            if depth == 0:
                return signature[:i + 1], signature[i + 1:]
    raise ValueError(f"unsupported type {signature}")


def _members(signature):
    inner = signature[1:-1]
    out = []
    while inner:
        member, inner = _split(inner)
        out.append(member)
    return out


def _alignment(signature):
    if signature in FIXED:
        return FIXED[signature][0]
    if signature == "s":
        return 1
    if signature[0] == "a":
        return _alignment(signature[1:])
    return max([_alignment(m) for m in _members(signature)] or [1])


def _fixed_size(signature):
    """The size of a fixed-size type; None for a variable one."""
    if signature in FIXED:
        return FIXED[signature][1]
    if signature == "s" or signature[0] == "a":
        return None
    end = 0
    for member in _members(signature):
        size = _fixed_size(member)
        if size is None:
            return None
        end = _align(end, _alignment(member)) + size
    return max(_align(end, _alignment(signature)), 1)


def _align(offset, alignment):
    return (offset + alignment - 1) // alignment * alignment


def _offset_size(length):
    """Framing offsets are as wide as a container's size needs."""
    for size, limit in ((0, 0), (1, 0xff), (2, 0xffff), (4, 0xffffffff)):
        if length <= limit:
            return size
    return 8


def _read_offset(data, at, size):
    """Framing offsets are little-endian on every machine."""
    return int.from_bytes(data[at:at + size], "little")


def decode(signature, data):
    """The value of @data (bytes) read as @signature: str, bool, int,
    tuple, list. Fixed-size numbers are in the machine's order."""
    if signature in FIXED:
        return struct.unpack(FIXED[signature][2], data)[0]
    if signature == "s":
        if not data or data[-1] != 0:
            raise ValueError("a string without its NUL")
        return data[:-1].decode("utf-8")
    if signature[0] == "a":
        element = signature[1:]
        size = _fixed_size(element)
        if size is not None:
            return [decode(element, data[i:i + size])
                    for i in range(0, len(data), size)]
        osize = _offset_size(len(data))
        if not data:
            return []
        last = _read_offset(data, len(data) - osize, osize)
        count = (len(data) - last) // osize
        out, start = [], 0
        for i in range(count):
            end = _read_offset(data, last + i * osize, osize)
            start = _align(start, _alignment(element))
            out.append(decode(element, data[start:end]))
            start = end
        return out
    members = _members(signature)
    osize = _offset_size(len(data))
    frames = len(data)
    out, start = [], 0
    for i, member in enumerate(members):
        start = _align(start, _alignment(member))
        size = _fixed_size(member)
        if size is not None:
            end = start + size
        elif i == len(members) - 1:
            end = frames
        else:
            frames -= osize
            end = _read_offset(data, frames, osize)
        out.append(decode(member, data[start:end]))
        start = end
    return tuple(out)
