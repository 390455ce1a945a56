#!/bin/sh
# Makes the fixtures of this folder again: half a second of silence in each
# format, with a title, an artist and a cover picture of its own. Not run by
# the tests, which need none of these tools. On Debian 12:
#   apt-get install ffmpeg python3-mutagen
set -eu
cd "$(dirname "$0")"

# 16x16, one colour: about 80 bytes.
ffmpeg -loglevel error -y -f lavfi -i color=c=0x3366cc:s=16x16 \
	-frames:v 1 cover.png

silence() { # OUTPUT RATE ENCODER-OPTIONS...
	out=$1 rate=$2
	shift 2
	ffmpeg -loglevel error -y -f lavfi \
		-i "anullsrc=r=$rate:cl=mono" -t 0.5 \
		-map_metadata -1 -fflags +bitexact -flags:a +bitexact \
		"$@" "$out"
}
silence silence.mp3 22050 -c:a libmp3lame -b:a 32k -write_id3v2 0 \
	-write_xing 0
silence silence.m4a 22050 -c:a aac -b:a 24k
silence silence.ogg 22050 -c:a libvorbis -q:a 0
silence silence.opus 48000 -c:a libopus -b:a 12k
silence silence.flac 8000 -c:a flac

# The tags and pictures as a publisher's tools write them: ID3v2.3 with
# an APIC frame, an MP4 covr atom, a METADATA_BLOCK_PICTURE comment, a
# FLAC PICTURE block.
/usr/bin/python3 - <<'PY'
import base64
from mutagen import id3, mp4, flac, oggvorbis, oggopus

cover = open("cover.png", "rb").read()
title, artist = "Fixture title", "Fixture artist"

tags = id3.ID3()
tags.add(id3.TIT2(encoding=3, text=title))
tags.add(id3.TPE1(encoding=3, text=artist))
tags.add(id3.APIC(encoding=3, mime="image/png", type=3, desc="cover",
                  data=cover))
tags.save("silence.mp3", v2_version=3)

m = mp4.MP4("silence.m4a")
m["\xa9nam"] = [title]
m["\xa9ART"] = [artist]
m["covr"] = [mp4.MP4Cover(cover, imageformat=mp4.MP4Cover.FORMAT_PNG)]
m.save()

picture = flac.Picture()
picture.type = 3
picture.mime = "image/png"
picture.desc = "cover"
picture.width = picture.height = 16
picture.depth = 24
picture.data = cover

for kind, name in ((oggvorbis.OggVorbis, "silence.ogg"),
                   (oggopus.OggOpus, "silence.opus")):
    f = kind(name)
    f["title"] = [title]
    f["artist"] = [artist]
    f["metadata_block_picture"] = [
        base64.b64encode(picture.write()).decode("ascii")]
    f.save()

f = flac.FLAC("silence.flac")
f["title"] = [title]
f["artist"] = [artist]
f.add_picture(picture)
f.save(padding=lambda info: 256)
PY

# Not audio: a web page, as a captive portal answers.
printf '<!DOCTYPE html>\n<html><body>Sign in to the network</body></html>\n' \
	>not-audio.mp3
