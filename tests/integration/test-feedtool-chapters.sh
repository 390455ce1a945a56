#!/bin/bash
# feedtool chapters on a feed with Podlove and JSON chapters served over
# loopback: the two kinds merged, toc:false marked, --json, --no-fetch, and
# a chapters document that cannot be fetched or read named on stderr while
# the Podlove chapters still show. Writes TAP.
set -u

: "${FEEDTOOL:?FEEDTOOL is not set (run through meson test)}"
: "${FEED_TEST_SERVER:?FEED_TEST_SERVER is not set}"
: "${FEED_TEST_INTEGRATION_DATA:?FEED_TEST_INTEGRATION_DATA is not set}"

tmp=$(mktemp -d)
# The server exits by itself when this shell dies and its stdin closes.
coproc SERVER { exec /usr/bin/python3 "$FEED_TEST_SERVER"; }
server_pid=$SERVER_PID
trap 'kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
if ! read -r -t 30 port <&"${SERVER[0]}" || [ -z "$port" ]; then
	echo "Bail out! feed-server.py did not start"
	exit 1
fi
base="http://127.0.0.1:$port"
feed="$base/data/chapters.xml"
fixture="$FEED_TEST_INTEGRATION_DATA/chapters.xml"

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	shift
	for f in "$@"; do
		[ -s "$f" ] && sed 's/^/# /' "$f"
	done
}

# Runs feedtool; stdout, stderr and the exit status go to $tmp/NAME.*.
run() {
	local name=$1
	shift
	"$FEEDTOOL" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}

# Whether run NAME exited with STATUS and printed exactly the lines given.
expect() {
	local name=$1 status=$2
	shift 2
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@" >"$tmp/$name.want"
	else
		: >"$tmp/$name.want"
	fi
	[ "$(cat "$tmp/$name.rc")" = "$status" ] &&
		cmp -s "$tmp/$name.want" "$tmp/$name.out"
}

# The server's count of requests for PATH.
requests() {
	/usr/bin/python3 -c 'import sys, urllib.request
print(len(urllib.request.urlopen(sys.argv[1]).read().splitlines()))' \
		"$base/_find?path=$1&header=Host"
}

echo "1..8"

run merged chapters "$feed" both
if expect merged 0 "0:00:00  Welcome" "0:01:00  Headlines" \
	"1:02:05  Goodbye  (hidden)" && [ ! -s "$tmp/merged.err" ]; then
	ok "Podlove and JSON chapters are merged, toc:false marked"
else
	not_ok "Podlove and JSON chapters are merged, toc:false marked" \
		"$tmp/merged.out" "$tmp/merged.err"
fi

run json chapters --json "$feed" 1
if [ "$(cat "$tmp/json.rc")" = 0 ] &&
	grep -q '"startTime": 0, "title": "Welcome", "img": "https://example.invalid/welcome.jpg", "url": "https://example.invalid/hello"' "$tmp/json.out" &&
	grep -q '"startTime": 60.25, "title": "Headlines", "url": "https://example.invalid/news"' "$tmp/json.out" &&
	grep -q '"startTime": 3725.2, "title": "Goodbye", "endTime": 3780, "toc": false' "$tmp/json.out" &&
	/usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/json.out"; then
	ok "--json writes the merged list as a JSON chapters document"
else
	not_ok "--json writes the merged list as a JSON chapters document" \
		"$tmp/json.out" "$tmp/json.err"
fi

before=$(requests /data/chapters.json)
run nofetch chapters --no-fetch "$feed" both
after=$(requests /data/chapters.json)
if expect nofetch 0 "0:00:00  Hello" "0:01:00  Headlines" "1:02:05  Bye" &&
	[ "$before" = "$after" ]; then
	ok "--no-fetch shows the Podlove chapters and fetches nothing"
else
	echo "# requests for chapters.json: $before before, $after after"
	not_ok "--no-fetch shows the Podlove chapters and fetches nothing" \
		"$tmp/nofetch.out" "$tmp/nofetch.err"
fi

run file chapters "$fixture" both
if expect file 0 "0:00:00  Hello" "0:01:00  Headlines" "1:02:05  Bye" &&
	grep -q 'cannot fetch or read the JSON chapters.*only http and https' \
		"$tmp/file.err"; then
	ok "from a file, the JSON chapters are not fetched, and it says so"
else
	not_ok "from a file, the JSON chapters are not fetched, and it says so" \
		"$tmp/file.out" "$tmp/file.err"
fi

run broken chapters "$feed" broken
if expect broken 0 &&
	grep -q "$base/data/chapters-bad.json: .*chapter 3 has no startTime" \
		"$tmp/broken.err"; then
	ok "a bad JSON document is named on stderr, exit status 0"
else
	not_ok "a bad JSON document is named on stderr, exit status 0" \
		"$tmp/broken.out" "$tmp/broken.err"
fi

run latest chapters --no-fetch "$fixture" latest
run number chapters --no-fetch "$fixture" 2
if expect latest 0 && expect number 0 "0:00:00  Start" "0:07:48  Middle"; then
	ok "EPISODE is latest, a number or a GUID"
else
	not_ok "EPISODE is latest, a number or a GUID" "$tmp/latest.out" \
		"$tmp/number.out" "$tmp/number.err"
fi

run missing chapters "$fixture" 4
if [ "$(cat "$tmp/missing.rc")" = 1 ] &&
	grep -q "no episode '4'" "$tmp/missing.err"; then
	ok "an unknown episode exits 1"
else
	not_ok "an unknown episode exits 1" "$tmp/missing.err"
fi

run usage chapters "$fixture"
if [ "$(cat "$tmp/usage.rc")" = 2 ]; then
	ok "a missing EPISODE is a usage error"
else
	not_ok "a missing EPISODE is a usage error" "$tmp/usage.err"
fi
