#!/bin/bash
# feedtool download URL [-o FILE] against tests/support/media-server.py:
# the file where asked, or under the URL's own name in the current
# directory, never outside it whatever the URL's path says; a failure
# exits 1 with "feedtool: URL: message". Writes TAP.
set -u

: "${FEEDTOOL:?FEEDTOOL is not set (run through meson test)}"
: "${FEED_MEDIA_SERVER:?FEED_MEDIA_SERVER is not set}"

tmp=$(mktemp -d)
# The server exits by itself when this shell dies and its stdin closes.
coproc SERVER { exec /usr/bin/python3 "$FEED_MEDIA_SERVER"; }
server_pid=$SERVER_PID
trap 'kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
if ! read -r -t 30 port <&"${SERVER[0]}" || [ -z "$port" ]; then
	echo "Bail out! media-server.py did not start"
	exit 1
fi
base="http://127.0.0.1:$port"

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	shift
	for f in "$@"; do
		[ -s "$f" ] && sed 's/^/# /' "$f"
	done
}

# Runs feedtool in $tmp/NAME/work (made fresh, the current directory);
# stdout, stderr and the exit status go to $tmp/NAME.*.
run() {
	local name=$1
	shift
	rm -rf "$tmp/$name"
	mkdir -p "$tmp/$name/work"
	(cd "$tmp/$name/work" && "$FEEDTOOL" "$@") \
		>"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}

# The server's copy of a file, without faults.
source_of() {
	/usr/bin/python3 -c '
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1]) as r, open(sys.argv[2], "wb") as f:
    f.write(r.read())
' "$base/raw/$1?size=$2" "$tmp/source"
}

# What is in the run's directory (not below work/ too): one name a line.
listing() {
	(cd "$tmp/$1" && find . -mindepth 1 | sort)
}

echo "1..8"

source_of ep 300000
run output download -o ep-copy.mp3 "$base/media/ep.mp3?size=300000"
if [ "$(cat "$tmp/output.rc")" = 0 ] &&
	cmp -s "$tmp/source" "$tmp/output/work/ep-copy.mp3" &&
	[ "$(cat "$tmp/output.out")" = "saved ep-copy.mp3 (300000 bytes)" ] &&
	[ ! -s "$tmp/output.err" ] &&
	[ "$(listing output)" = "$(printf './work\n./work/ep-copy.mp3')" ]; then
	ok "-o FILE: the file, byte for byte, and one line to say so"
else
	echo "# exit status $(cat "$tmp/output.rc")"
	listing output >"$tmp/listing"
	not_ok "-o FILE: the file, byte for byte, and one line to say so" \
		"$tmp/output.out" "$tmp/output.err" "$tmp/listing"
fi

run default download "$base/media/ep.mp3?size=300000"
if [ "$(cat "$tmp/default.rc")" = 0 ] &&
	cmp -s "$tmp/source" "$tmp/default/work/ep.mp3" &&
	[ "$(cat "$tmp/default.out")" = "saved ep.mp3 (300000 bytes)" ]; then
	ok "without -o: the URL's file name, without its query, here"
else
	echo "# exit status $(cat "$tmp/default.rc")"
	not_ok "without -o: the URL's file name, without its query, here" \
		"$tmp/default.out" "$tmp/default.err"
fi

# curl removes the dot segments; the name must not bring them back.
run hostile download "$base/../../x.mp3?y=1"
run encoded download "$base/a/..%2F..%2F.hidden%2Fevil.mp3?y=1"
run dots download "$base/a/..%2F.."
if [ "$(cat "$tmp/hostile.rc")" = 0 ] &&
	[ "$(listing hostile)" = "$(printf './work\n./work/x.mp3')" ] &&
	[ "$(cat "$tmp/encoded.rc")" = 0 ] &&
	[ "$(listing encoded)" = \
		"$(printf './work\n./work/_.._.hidden_evil.mp3')" ] &&
	[ "$(cat "$tmp/dots.rc")" = 0 ] &&
	[ "$(listing dots)" = "$(printf './work\n./work/_..')" ]; then
	ok "a hostile URL path gives a file in the current directory"
else
	for r in hostile encoded dots; do
		echo "# $r: exit status $(cat "$tmp/$r.rc")"
		listing "$r" | sed 's/^/# /'
	done
	not_ok "a hostile URL path gives a file in the current directory" \
		"$tmp/hostile.err" "$tmp/encoded.err" "$tmp/dots.err"
fi

run bare download "$base/"
run hidden download "$base/.profile"
if [ "$(cat "$tmp/bare.rc")" = 0 ] && [ -f "$tmp/bare/work/download" ] &&
	[ "$(cat "$tmp/hidden.rc")" = 0 ] &&
	[ "$(listing hidden)" = "$(printf './work\n./work/profile')" ]; then
	ok "no name gives 'download'; a leading dot goes"
else
	listing bare | sed 's/^/# /'
	listing hidden | sed 's/^/# /'
	not_ok "no name gives 'download'; a leading dot goes" \
		"$tmp/bare.err" "$tmp/hidden.err"
fi

missing="$base/status/404"
run missing download "$missing"
if [ "$(cat "$tmp/missing.rc")" = 1 ] &&
	[ "$(cat "$tmp/missing.err")" = "feedtool: $missing: HTTP 404 Not Found" ] &&
	[ ! -s "$tmp/missing.out" ] &&
	[ "$(listing missing)" = "./work" ]; then
	ok "an HTTP error exits 1 with 'feedtool: URL: message', no file"
else
	echo "# exit status $(cat "$tmp/missing.rc"), expected 1"
	not_ok "an HTTP error exits 1 with 'feedtool: URL: message', no file" \
		"$tmp/missing.err"
fi

page="$base/media/portal.mp3?html=1"
run page download "$page"
if [ "$(cat "$tmp/page.rc")" = 1 ] &&
	grep -qF "feedtool: $page: the server answered a web page" \
		"$tmp/page.err" &&
	[ "$(listing page)" = "./work" ]; then
	ok "a web page instead of audio exits 1, no file"
else
	echo "# exit status $(cat "$tmp/page.rc"), expected 1"
	not_ok "a web page instead of audio exits 1, no file" "$tmp/page.err"
fi

# Every response is cut after 50,000 bytes: the first run gets 200,000
# (three resumes), fails and keeps them; the second resumes from there
# and gets the rest.
source_of cut 400000
run cut download -o cut.mp3 "$base/media/cut.mp3?size=400000&cutevery=50000"
kept=$(listing cut | tr '\n' ' ')
(cd "$tmp/cut/work" && "$FEEDTOOL" download -o cut.mp3 \
	"$base/media/cut.mp3?size=400000&cutevery=50000") \
	>"$tmp/cut2.out" 2>"$tmp/cut2.err"
echo $? >"$tmp/cut2.rc"
if [ "$(cat "$tmp/cut.rc")" = 1 ] &&
	[ "$kept" = "./work ./work/cut.mp3.part ./work/cut.mp3.part.info " ] &&
	grep -qF "feedtool: $base/media/cut.mp3" "$tmp/cut.err" &&
	[ "$(cat "$tmp/cut2.rc")" = 0 ] &&
	cmp -s "$tmp/source" "$tmp/cut/work/cut.mp3" &&
	[ "$(listing cut)" = "$(printf './work\n./work/cut.mp3')" ]; then
	ok "a run that was cut is resumed by the next one"
else
	echo "# exit status $(cat "$tmp/cut.rc") then $(cat "$tmp/cut2.rc")"
	echo "# after the first run: $kept"
	listing cut | sed 's/^/# /'
	not_ok "a run that was cut is resumed by the next one" \
		"$tmp/cut.err" "$tmp/cut2.err"
fi

run usage download
run usage2 download -o x "$base/a.mp3" "$base/b.mp3"
if [ "$(cat "$tmp/usage.rc")" = 2 ] && [ "$(cat "$tmp/usage2.rc")" = 2 ] &&
	grep -q "give exactly one URL" "$tmp/usage.err"; then
	ok "without one URL: exit 2 and a usage message"
else
	not_ok "without one URL: exit 2 and a usage message" \
		"$tmp/usage.err" "$tmp/usage2.err"
fi

[ "$failed" = 0 ]
