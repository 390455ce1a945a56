#!/usr/bin/env bash
# Sets up what libfeed needs on Debian 12, builds it, and runs it or tests it.
#
#   ./build.sh run    install what is missing, build, and run the demo: a
#                     private MPD, a demo podcast served on loopback, and
#                     mpd-bridge subscribing and queueing, as mpc shows it
#   ./build.sh test   install what is missing, build with warnings as errors,
#                     run every test (and meanwhile the unit tests again
#                     under valgrind, and the ASan build), then every test
#                     again under ASan and UBSan; and, meanwhile, all of it
#                     but valgrind and the sanitizers on Debian 13 (MPD
#                     0.24), in a root made with debootstrap, where the
#                     Debian packages are then built, installed, run and
#                     purged
#   ./build.sh test-debian13
#                     only the Debian 13 part
#   ./build.sh deb    install what is missing, build the Debian packages
#                     (libfeed0, libfeed-dev, feedtool, mpd-bridge) into
#                     build-deb/, and check them with lintian
set -euo pipefail
cd "$(dirname "$0")"

# libtagc0-dev: TagLib's C API, 1.13 on Debian 12; on Debian 13 it is the
# transitional name of libtag-c-dev (TagLib 2), so one name serves both.
build_packages=(meson ninja-build pkg-config gcc libglib2.0-dev libxml2-dev
	libcurl4-openssl-dev libxxhash-dev libjson-glib-dev libmpdclient-dev
	libtagc0-dev libsoup-3.0-dev)
demo_packages=(mpd mpc python3)
test_packages=(libjson-glib-dev libxml2-utils python3 python3-podcastparser
	clang-format doxygen openssl mpd valgrind systemd man-db mpc ncmpcpp
	tmux python3-mygpoclient python3-mutagen graphviz)
# What building the Debian packages needs beyond debian/control's
# Build-Depends, which apt-get build-dep installs.
deb_packages=(dpkg-dev debhelper lintian)

# Debian 13 runs in a root of its own, kept between runs under build-deb13/
# (ignored by git) and made again when it is missing or half made.
deb13_suite=trixie
deb13_root=$PWD/build-deb13/root
# What the Debian 12 summaries say: this machine's system.
host_system=$(. /etc/os-release && echo "${NAME%% *} ${VERSION_ID:-}")

# Tests at a time in each run of the suites (meson's own default is one
# per processor). The slowest tests spend their time waiting for MPD,
# which plays in real time, not on the processor: on two processors six
# at a time make a run about as long as its longest test (test-listen,
# some 140 s) where one after the other took over ten minutes, and the
# processors are still idle most of that time.
test_jobs=6

# The prefix of the commands that keep the processor busy (builds,
# valgrind, lintian): empty, or "${nice_batch[@]}" where tests that play
# in real time run beside them, so that those tests get the processor
# first and their timing stays close to what it is on an idle machine.
niced=()
nice_batch=(nice -n 19)

# One run of the suites at a time plays in real time: Debian 13's waits
# for Debian 12's (and the other way round), so that no more than
# $test_jobs tests that time MPD share the processors. The unit tests
# under valgrind need no MPD and do not wait.
realtime_lock=$PWD/build-test/realtime.lock

say() { printf '==> %s\n' "$*"; }

# "N min S s" since SECONDS was $1.
took() {
	local s=$((SECONDS - $1))
	echo "$((s / 60)) min $((s % 60)) s"
}

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
	"${niced[@]}" ninja -C "$dir" >/dev/null
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
# runs each test, and meson names its log after COMMAND's program. With
# in_deb13=1, DIR is in the Debian 13 root's source tree and the tests
# run there.
run_tests() {
	local dir=$1 wrapper=${wrapper:-} in_deb13=${in_deb13:-}
	shift
	local log=testlog system=$host_system host_dir=$dir run=("${niced[@]}")
	local start lock_fd
	if [ -n "$in_deb13" ]; then
		system="Debian 13"
		host_dir=$deb13_root/src/$dir
		run=(in_deb13)
	fi
	local label="$system $dir" output=$host_dir/test-output.txt
	if [ -n "$wrapper" ]; then
		log=testlog-$(basename "${wrapper%% *}")
		label="$label (${log#testlog-})"
		output=$host_dir/$log-output.txt
		set -- --wrapper "$wrapper" "$@"
	fi
	mkdir -p "${realtime_lock%/*}"
	exec {lock_fd}>"$realtime_lock"
	[ -n "$wrapper" ] || flock "$lock_fd"
	start=$SECONDS
	say "testing in $label"
	# The tests' processes do not hold the lock ({lock_fd}>&-).
	"${run[@]}" meson test -C "$dir" --print-errorlogs "$@" >"$output" \
		2>&1 {lock_fd}>&- || {
		cat "$output"
		summary "$host_dir/meson-logs/$log.json" "$label"
		exit 1
	}
	grep -E '^(Ok|Fail|Skipped|Timeout):' "$output" | tr '\n' ' '
	echo
	summary "$host_dir/meson-logs/$log.json" "$label"
	say "testing in $label took $(took "$start")"
	exec {lock_fd}>&-
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

# Runs a command as root: itself when root, else through sudo.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

# Ends process $1 and all it started (TERM), children first.
stop_tree() {
	local child
	for child in $(cat "/proc/$1/task/"*/children 2>/dev/null); do
		stop_tree "$child"
	done
	kill "$1" 2>/dev/null || true
}

# Runs a command in the Debian 13 root, in its source tree, with a clean
# environment: nothing of this machine's (its PATH, a python3 of its own,
# PYTHONUNBUFFERED) leaks in. It runs in the background and is waited for,
# so that a signal to this script runs the trap, which ends it, at once.
in_deb13() {
	as_root chroot "$deb13_root" /usr/bin/env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive \
		sh -c 'cd /src 2>/dev/null || cd /; exec "$@"' sh "$@" &
	wait $!
}

# The mirror this machine's apt uses for its own release, so that the root
# comes from the same package source; Debian's own when apt says none.
deb13_mirror() {
	local codename uri
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	uri=$(apt-get indextargets --format '$(REPO_URI)' \
		"Release: $codename" 'Identifier: Packages' 2>/dev/null |
		head -n 1)
	echo "${uri:-http://deb.debian.org/debian/}"
}

# Ends what still runs in the root (a test's MPD after Ctrl-C) and takes
# down every mount in it, the root's own bind mount last. Also the trap on
# exit, failure and interruption included.
deb13_unmount() {
	local dir pid round found
	[ -d "$deb13_root" ] || return 0
	# Again until none is left: a process that forks while the list is
	# read is not in it, and would live on in the root without its /proc.
	for round in 1 2 3 4 5 6 7 8 9 10; do
		found=0
		for dir in /proc/[0-9]*; do
			[ "$(readlink "$dir/root" 2>/dev/null)" = "$deb13_root" ] ||
				continue
			pid=${dir#/proc/}
			as_root kill -KILL "$pid" 2>/dev/null || true
			found=1
		done
		[ "$found" -eq 0 ] && break
		sleep 0.2
	done
	if mountpoint -q "$deb13_root" ||
		grep -qF " $deb13_root/" /proc/self/mounts; then
		as_root umount -R "$deb13_root" 2>/dev/null ||
			as_root umount -R -l "$deb13_root"
	fi
}

# The root is a mount point of its own (a bind mount onto itself), so
# that "unshare --mount" works inside, as test-disk-faults needs; proc,
# /dev, /dev/pts and a /dev/shm of its own go on top.
deb13_mount() {
	deb13_unmount
	trap deb13_unmount EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	as_root mount --bind "$deb13_root" "$deb13_root"
	as_root mount -t proc proc "$deb13_root/proc"
	as_root mount --bind /dev "$deb13_root/dev"
	as_root mount --bind /dev/pts "$deb13_root/dev/pts"
	as_root mount -t tmpfs -o mode=1777,nosuid,nodev shm "$deb13_root/dev/shm"
}

# One ./build.sh at a time uses the Debian 13 root, and holds the lock
# until it exits. Another one's deb13_unmount would end this one's
# processes in the root and take its /proc away: without /proc the loader
# cannot resolve $ORIGIN, so feedtool (RUNPATH $ORIGIN/..) exits 127,
# "libfeed.so.0: cannot open shared object file", and the tests that run
# then fail at random.
deb13_lock() {
	mkdir -p build-deb13
	exec 9>build-deb13/lock
	if ! flock -n 9; then
		say "waiting for another ./build.sh that uses build-deb13/root"
		flock 9
	fi
}

# debootstrap once; a root that is missing its stamp was left half made
# and is made again. Then the packages of build_packages, test_packages
# and deb_packages that it lacks, with apt-get as on this machine.
deb13_prepare() {
	local stamp=$deb13_root.ok mirror missing pkg
	if [ ! -f "$stamp" ]; then
		deb13_unmount
		as_root rm -rf --one-file-system "$deb13_root"
		mkdir -p "$(dirname "$deb13_root")"
		mirror=$(deb13_mirror)
		say "making a Debian 13 root from $mirror (debootstrap)"
		as_root debootstrap --variant=minbase "$deb13_suite" \
			"$deb13_root" "$mirror" >"$deb13_root.log" 2>&1 || {
			cat "$deb13_root.log"
			exit 1
		}
		# Installing mpd must not start a system MPD in the root.
		printf '#!/bin/sh\nexit 101\n' |
			as_root tee "$deb13_root/usr/sbin/policy-rc.d" >/dev/null
		as_root chmod 755 "$deb13_root/usr/sbin/policy-rc.d"
		as_root touch "$stamp"
	fi
	deb13_mount
	as_root cp -L /etc/resolv.conf "$deb13_root/etc/resolv.conf"
	missing=()
	for pkg in $(printf '%s\n' "${build_packages[@]}" \
		"${test_packages[@]}" "${deb_packages[@]}" | sort -u); do
		in_deb13 dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$pkg")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		say "installing in Debian 13: ${missing[*]}"
		in_deb13 apt-get update -qq
		in_deb13 apt-get install -y -qq --no-install-recommends \
			"${missing[@]}" >/dev/null
		in_deb13 apt-get clean
	fi
}

# copy_tree DEST [COMMAND]: the tracked tree (and new files not yet added)
# as it is now, copied into DEST, made anew; COMMAND (as_root) runs what
# writes there.
copy_tree() {
	local dest=$1
	shift
	"$@" rm -rf --one-file-system "$dest"
	"$@" mkdir -p "$dest"
	git ls-files -z --cached --others --exclude-standard |
		tar --null -T - --ignore-failed-read -cf - 2>/dev/null |
		"$@" tar -xf - -C "$dest"
}

# Into the root: a bind mount would show the root inside itself.
deb13_copy_source() {
	copy_tree "$deb13_root/src" as_root
}

# deb_build DIR: the Debian packages built with dpkg-buildpackage from a
# copy of the tree in DIR/src, into DIR, and lintian on them: an error or
# a warning that debian/*.lintian-overrides does not override fails. With
# in_deb13=1, DIR is an absolute path in the Debian 13 root, and all of it
# happens there.
deb_build() {
	local dir=$1 in_deb13=${in_deb13:-} run=() root=() system=$host_system
	local host_dir=$1 jobs
	if [ -n "$in_deb13" ]; then
		run=(in_deb13)
		root=(in_deb13)
		system="Debian 13"
		host_dir=$deb13_root$dir
		copy_tree "$host_dir/src" as_root
	else
		root=(as_root env DEBIAN_FRONTEND=noninteractive)
		copy_tree "$host_dir/src"
	fi
	"${run[@]}" find "$dir" -maxdepth 1 -type f -delete
	"${run[@]}" sh -c 'cd "$1/src" && dpkg-checkbuilddeps' sh "$dir" \
		>/dev/null 2>&1 || {
		say "installing debian/control's Build-Depends ($system)"
		"${root[@]}" apt-get build-dep -y -qq --no-install-recommends \
			"$dir/src" >/dev/null
	}
	jobs=$(nproc)
	say "building the Debian packages in $system's $dir/"
	"${run[@]}" env DEB_BUILD_OPTIONS="parallel=$jobs" "${niced[@]}" sh -c \
		'cd "$1/src" && dpkg-buildpackage -us -uc -b' sh "$dir" \
		>"$host_dir/build.log" 2>&1 || {
		cat "$host_dir/build.log"
		exit 1
	}
	# Overridden tags are shown (O:, with the reason), and do not fail.
	say "checking them with lintian ($system)"
	"${run[@]}" "${niced[@]}" sh -c 'cd "$1" && lintian --fail-on none \
		--show-overrides \
		$(ls *.deb | grep -v -- -dbgsym_)' sh "$dir" \
		>"$host_dir/lintian.txt" 2>&1
	grep -v '^running with root privileges' "$host_dir/lintian.txt" || true
	if grep -qE '^[EW]: ' "$host_dir/lintian.txt"; then
		echo "build.sh: lintian has errors or warnings not overridden" >&2
		exit 1
	fi
	say "the packages, in $dir/:"
	(cd "$host_dir" && ls -- *.deb)
}

# The Debian packages built in the root and installed there on top of
# Debian's mpd, run as systemd would run them, and purged again
# (tests/package/test-install.sh, which leaves the root as it was).
deb13_packages() {
	local start=$SECONDS tap=$deb13_root/build-deb/install-test.txt
	in_deb13=1 deb_build /build-deb
	say "installing them in Debian 13 (tests/package/test-install.sh)"
	in_deb13 tests/package/test-install.sh /build-deb >"$tap" 2>&1 || {
		cat "$tap"
		echo "Debian 13 packages: $(tail -n 1 "$tap" | sed 's/^# //')"
		exit 1
	}
	grep -E '^not ok' "$tap" || true
	echo "Debian 13 packages: $(tail -n 1 "$tap" | sed 's/^# //')"
	say "the packages in Debian 13 took $((SECONDS - start)) s"
}

# Every test again on Debian 13 (MPD 0.24, GLib 2.84, curl 8.14), warnings
# as errors; no valgrind or sanitizer passes. Then the Debian packages.
# Its builds are niced: under ./build.sh test they run beside Debian 12's
# tests.
test_deb13() {
	local start=$SECONDS niced=("${nice_batch[@]}")
	install_missing debootstrap
	deb13_prepare
	deb13_copy_source
	say "building in Debian 13's build-test/ with warnings as errors"
	in_deb13 meson setup build-test -Dwerror=true -Ddocs=true >/dev/null
	in_deb13 "${niced[@]}" ninja -C build-test >/dev/null
	in_deb13=1 run_tests build-test --num-processes "$test_jobs"
	deb13_packages
	deb13_unmount
	trap - EXIT INT TERM
	say "the Debian 13 part took $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
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
	install_missing "${build_packages[@]}" "${test_packages[@]}" debootstrap
	check_format
	deb13_lock
	# Debian 13 beside Debian 12: most of each part waits on the network
	# or on tests that play in real time, not on the processor.
	mkdir -p build-deb13
	deb13_log=$PWD/build-deb13/test.log
	say "testing on Debian 13 meanwhile (its output: $deb13_log)"
	(test_deb13) >"$deb13_log" 2>&1 </dev/null &
	deb13_pid=$!
	trap 'kill "$deb13_pid" 2>/dev/null; wait "$deb13_pid"; deb13_unmount' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	say "building in build-test/ with warnings as errors"
	setup build-test -Dwerror=true -Ddocs=true
	# Beside the plain tests, which mostly wait on MPD's real time, what
	# keeps the processor busy, niced: the unit tests once more under
	# valgrind (no new build), then the ASan build. GLib 2.74 still has
	# its slice allocator, which hides leaks unless it is off;
	# FEED_TEST_VALGRIND makes the slowest tests smaller. --no-rebuild:
	# build-test is built, and one ninja at a time works in it.
	side_log=$PWD/build-test/meanwhile.txt
	say "meanwhile: the unit tests under valgrind, then the ASan build" \
		"(their output: $side_log)"
	(
		niced=("${nice_batch[@]}")
		G_SLICE=always-malloc FEED_TEST_VALGRIND=1 \
		wrapper=$valgrind_wrapper run_tests build-test --suite unit \
			--timeout-multiplier 10 --no-rebuild
		start=$SECONDS
		say "building in build-asan/ with AddressSanitizer and UBSan"
		setup build-asan -Dwerror=true -Db_sanitize=address,undefined \
			-Db_lundef=false
		say "building build-asan/ took $(took "$start")"
	) >"$side_log" 2>&1 </dev/null &
	side_pid=$!
	trap '[ -z "$side_pid" ] || stop_tree "$side_pid"
		kill "$deb13_pid" 2>/dev/null; wait "$deb13_pid"
		deb13_unmount' EXIT
	run_tests build-test --num-processes "$test_jobs"
	side_status=0
	wait "$side_pid" || side_status=$?
	side_pid=
	cat "$side_log"
	[ "$side_status" -eq 0 ] || exit 1
	# The slow unwinder walks every allocation's stack (so that the
	# suppressions of GLib's caches match): malloc-heavy tests run 10 to
	# 20 times slower than without it, and need more than their limits.
	ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
	LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		run_tests build-asan --num-processes "$test_jobs" \
		--timeout-multiplier 3
	say "waiting for the Debian 13 part"
	deb13_status=0
	wait "$deb13_pid" || deb13_status=$?
	trap - EXIT INT TERM
	if [ "$deb13_status" -ne 0 ]; then
		cat "$deb13_log"
		exit 1
	fi
	grep -E '^(==>|Ok:|Fail:|Debian 13)' "$deb13_log" || true
	say "./build.sh test took $((SECONDS / 60)) min $((SECONDS % 60)) s"
	;;
test-debian13)
	deb13_lock
	test_deb13
	;;
deb)
	install_missing "${build_packages[@]}" "${deb_packages[@]}"
	deb_build build-deb
	;;
*)
	echo "usage: ./build.sh run|test|test-debian13|deb" >&2
	exit 2
	;;
esac
