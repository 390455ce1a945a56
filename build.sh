#!/usr/bin/env bash
# Sets up what libfeed needs on Debian 12, builds it, and runs it or tests it.
#
#   ./build.sh run    install what is missing, build, and run the demo: a
#                     private MPD, a demo podcast served on loopback, and
#                     mpd-bridge subscribing and queueing, as mpc shows it
#   ./build.sh test   install what is missing, build with warnings as errors,
#                     run every test, the unit tests again under valgrind,
#                     then every test again under ASan and UBSan
set -euo pipefail
cd "$(dirname "$0")"

build_packages=(meson ninja-build pkg-config gcc libglib2.0-dev libxml2-dev
	libcurl4-openssl-dev libxxhash-dev libjson-glib-dev libmpdclient-dev)
demo_packages=(mpd mpc python3)
test_packages=(libjson-glib-dev libxml2-utils python3 python3-podcastparser
	clang-format doxygen openssl mpd valgrind systemd man-db mpc ncmpcpp
	tmux)

say() { printf '==> %s\n' "$*"; }

install_missing() {
	local missing=() pkg
	for pkg in "$@"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$pkg")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	say "installing ${missing[*]}"
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || {
			echo "build.sh: need root (or sudo) to install: ${missing[*]}" >&2
			exit 1
		}
		sudo=(sudo)
	fi
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# meson setup once, reconfigure when the directory exists.
setup() {
	local dir=$1; shift
	if [ -f "$dir/build.ninja" ]; then
		meson setup --reconfigure "$dir" "$@" >/dev/null
	else
		meson setup "$dir" "$@" >/dev/null
	fi
	ninja -C "$dir" >/dev/null
}

# The totals of a meson test run (its JSON log), as one plain line.
summary() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
results = [json.loads(line)["result"] for line in open(sys.argv[1])]
ok = sum(r in ("OK", "EXPECTEDFAIL") for r in results)
skipped = sum(r == "SKIP" for r in results)
print(f"{sys.argv[2]}: {ok} passed, {len(results) - ok - skipped} failed, {skipped} skipped")
PY
}

# run_tests DIR [meson test options]. With wrapper=COMMAND set, COMMAND
# runs each test, and meson names its log after COMMAND's program.
run_tests() {
	local dir=$1 wrapper=${wrapper:-}
	shift
	local log=testlog label=$dir output=$dir/test-output.txt
	if [ -n "$wrapper" ]; then
		log=testlog-$(basename "${wrapper%% *}")
		label="$dir (${log#testlog-})"
		output=$dir/$log-output.txt
		set -- --wrapper "$wrapper" "$@"
	fi
	say "testing in $label"
	meson test -C "$dir" --print-errorlogs "$@" >"$output" 2>&1 || {
		cat "$output"
		summary "$dir/meson-logs/$log.json" "$label"
		exit 1
	}
	grep -E '^(Ok|Fail|Skipped|Timeout):' "$output" | tr '\n' ' '
	echo
	summary "$dir/meson-logs/$log.json" "$label"
}

# Definite and indirect leaks are errors; GLib's own caches are not
# (glib.supp, and tests/valgrind.supp for what GTest keeps).
valgrind_wrapper="valgrind --quiet --error-exitcode=1 --leak-check=full \
	--errors-for-leak-kinds=definite,indirect \
	--show-leak-kinds=definite,indirect --track-fds=no \
	--suppressions=/usr/share/glib-2.0/valgrind/glib.supp \
	--suppressions=$PWD/tests/valgrind.supp"

check_format() {
	say "checking formatting (clang-format)"
	git ls-files '*.c' '*.h' '*.h.in' | grep -v '\.in$' |
		xargs clang-format --dry-run --Werror
}

case "${1:-}" in
run)
	install_missing "${build_packages[@]}" "${demo_packages[@]}"
	say "building in build/"
	setup build -Dtests=false --buildtype=release
	say "the demo: a private MPD, a demo podcast on loopback, mpd-bridge"
	contrib/demo/run-demo build
	;;
test)
	install_missing "${build_packages[@]}" "${test_packages[@]}"
	check_format
	say "building in build-test/ with warnings as errors"
	setup build-test -Dwerror=true -Ddocs=true
	run_tests build-test
	# The unit tests once more, under valgrind: no new build. GLib 2.74
	# still has its slice allocator, which hides leaks unless it is off;
	# FEED_TEST_VALGRIND makes the slowest tests smaller.
	G_SLICE=always-malloc FEED_TEST_VALGRIND=1 wrapper=$valgrind_wrapper \
		run_tests build-test --suite unit --timeout-multiplier 10
	say "building in build-asan/ with AddressSanitizer and UBSan"
	setup build-asan -Dwerror=true -Db_sanitize=address,undefined \
		-Db_lundef=false
	ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
	LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		run_tests build-asan
	;;
*)
	echo "usage: ./build.sh run|test" >&2
	exit 2
	;;
esac
