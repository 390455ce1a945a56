#!/bin/bash
# feedtool parse URL: for an http URL, the same listing and JSON as for the
# same document on disk; a failed fetch exits 1 and names the URL. Writes TAP.
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
fixture="$FEED_TEST_INTEGRATION_DATA/feedtool.xml"

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

# Runs feedtool; stdout, stderr and the exit status go to $tmp/NAME.*.
run() {
	local name=$1
	shift
	"$FEEDTOOL" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}

echo "1..6"

url="$base/data/feedtool.xml"
run url-listing parse "$url"
run file-listing parse --base-url "$url" "$fixture"
if [ "$(cat "$tmp/url-listing.rc")" = 0 ] &&
	grep -q 'Fixture episode one' "$tmp/url-listing.out" &&
	cmp -s "$tmp/url-listing.out" "$tmp/file-listing.out"; then
	ok "parse URL lists the feed as parse FILE does"
else
	echo "# exit status $(cat "$tmp/url-listing.rc")"
	diff "$tmp/file-listing.out" "$tmp/url-listing.out" >"$tmp/diff" 2>&1
	not_ok "parse URL lists the feed as parse FILE does" \
		"$tmp/url-listing.err" "$tmp/diff"
fi

run url-json parse --json "$url"
run file-json parse --json --base-url "$url" "$fixture"
if [ "$(cat "$tmp/url-json.rc")" = 0 ] &&
	grep -q 'Fixture episode two' "$tmp/url-json.out" &&
	cmp -s "$tmp/url-json.out" "$tmp/file-json.out"; then
	ok "parse --json URL writes the JSON of parse --json FILE"
else
	echo "# exit status $(cat "$tmp/url-json.rc")"
	diff "$tmp/file-json.out" "$tmp/url-json.out" >"$tmp/diff" 2>&1
	not_ok "parse --json URL writes the JSON of parse --json FILE" \
		"$tmp/url-json.err" "$tmp/diff"
fi

# The relative enclosure resolves against the URL the feed came from.
if grep -q "$base/data/audio/one.mp3" "$tmp/url-json.out"; then
	ok "relative links resolve against the URL"
else
	not_ok "relative links resolve against the URL" "$tmp/url-json.out"
fi

run redirect parse "$base/redirect/302/2/data/feedtool.xml"
if [ "$(cat "$tmp/redirect.rc")" = 0 ] &&
	grep -q 'Fixture episode two' "$tmp/redirect.out"; then
	ok "parse URL follows redirects"
else
	echo "# exit status $(cat "$tmp/redirect.rc")"
	not_ok "parse URL follows redirects" "$tmp/redirect.err"
fi

missing="$base/status/404"
run missing parse "$missing"
if [ "$(cat "$tmp/missing.rc")" = 1 ] &&
	grep -qF "$missing" "$tmp/missing.err"; then
	ok "a 404 exits 1 with a message naming the URL"
else
	echo "# exit status $(cat "$tmp/missing.rc"), expected 1"
	not_ok "a 404 exits 1 with a message naming the URL" \
		"$tmp/missing.err"
fi

missing_json="$base/status/404"
run missing-json parse --json "$missing_json"
if [ "$(cat "$tmp/missing-json.rc")" = 1 ] &&
	grep -qF "$missing_json" "$tmp/missing-json.err"; then
	ok "a 404 with --json exits 1 with a message naming the URL"
else
	echo "# exit status $(cat "$tmp/missing-json.rc"), expected 1"
	not_ok "a 404 with --json exits 1 with a message naming the URL" \
		"$tmp/missing-json.err"
fi

[ "$failed" = 0 ]
