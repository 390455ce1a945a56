#!/bin/bash
# test-install.sh DIR: the Debian packages in DIR, installed the Debian way
# and taken out again, on a Debian system where systemd does not run (the
# Debian 13 root of ./build.sh test), as root. Prints TAP and a summary.
#
#   - apt-get install of libfeed0, libfeed-dev, feedtool and mpd-bridge on
#     top of Debian's mpd: the system unit enabled, the user unit not, the
#     settings a conffile with every key commented out;
#   - systemd-analyze verify on the installed units;
#   - MPD run as mpd.service and mpd.socket would run it (/etc/mpd.conf,
#     its socket /run/mpd/socket), and mpd-bridge beside it as its system
#     unit would (its User=, Group=, Environment=, UMask=, state and cache
#     folders, ExecStart=);
#   - `mpd-bridge subscribe` of a feed served on loopback, from another
#     user, through MPD's socket: the titled playlist appears in MPD's
#     playlist folder;
#   - apt-get purge: what mpd-bridge owns goes, MPD's files stay.
#
# It leaves the system as it found it: the packages purged, the processes
# it started ended, the playlist it made removed. A run that was cut short
# is cleaned up by the next one.
set -u
export LC_ALL=C

dir=${1:?usage: test-install.sh DIR}
packages=(libfeed0 libfeed-dev feedtool mpd-bridge)
work=/tmp/mpd-bridge-install-test
feed_title="Loopback Radio"
playlist="/var/lib/mpd/playlists/Podcast: $feed_title.m3u"
other_title="Loopback Radio at Home"
other_playlist="/var/lib/mpd/playlists/Podcast: $other_title.m3u"
# The other user who runs commands: not MPD's, not root.
other=nobody

tests=0 failures=0
ok() {
	tests=$((tests + 1))
	echo "ok $tests - $1"
}
not_ok() {
	tests=$((tests + 1))
	failures=$((failures + 1))
	echo "not ok $tests - $1"
}
# check DESCRIPTION COMMAND…: one TAP line for COMMAND's success.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}
# Shows a file as TAP comments.
show() {
	[ -f "$1" ] && sed 's/^/# /' "$1"
	return 0
}
# wait_for SECONDS COMMAND…: until COMMAND succeeds, or SECONDS pass.
wait_for() {
	local tenths=$(($1 * 10))
	shift
	while ! "$@" >/dev/null 2>&1; do
		tenths=$((tenths - 1))
		[ "$tenths" -gt 0 ] || return 1
		sleep 0.1
	done
}

# Ends what this run started (the processes whose pid files are in $work)
# and takes out what this or an earlier run that was cut short left: the
# packages, the test's playlists. An earlier run's processes are not
# ended by their pid files, which may name others' by now: build.sh ends
# whatever runs in the root when it is done with it.
clean_up() {
	local pidfile pid
	for pidfile in "$work"/*.pid; do
		[ -f "$pidfile" ] || continue
		pid=$(cat "$pidfile")
		rm -f "$pidfile"
		[ "${1:-}" = earlier ] && continue
		kill "$pid" 2>/dev/null || continue
		wait_for 5 sh -c "! kill -0 $pid" || kill -KILL "$pid" 2>/dev/null
	done
	if dpkg-query -W -f='${Status}\n' "${packages[@]}" 2>/dev/null |
		grep -q 'installed\|config-files'; then
		apt-get purge -y -qq "${packages[@]}" >/dev/null 2>&1
	fi
	rm -f "$playlist" "$other_playlist" /run/mpd/socket
	# What the PulseAudio client in MPD makes, looking for an output.
	find /tmp -maxdepth 1 -name 'pulse-*' -user mpd -exec rm -rf {} +
	rm -rf "$work"
}

# The value of KEY in a unit file (the last one), or every value with
# all=1, one a line.
unit_value() {
	local file=$1 key=$2
	if [ -n "${all:-}" ]; then
		sed -n "s/^$key=//p" "$file"
	else
		sed -n "s/^$key=//p" "$file" | tail -n 1
	fi
}

# systemd-analyze verify on an installed unit, as the system or user
# manager reads it: a complaint about mpd-bridge fails, warnings too
# (verify exits 0 on an unknown key).
verify_unit() {
	local mode=$1 unit=$2 output status=0
	output=$(env HOME="$work/home" XDG_RUNTIME_DIR="$work/runtime" \
		SYSTEMD_LOG_COLOR=0 SYSTEMD_PAGER= \
		systemd-analyze "--$mode" --man=yes verify "$unit" 2>&1) ||
		status=$?
	[ -n "$output" ] && printf '%s\n' "$output" | sed 's/^/# /'
	[ "$status" -eq 0 ] && ! printf '%s\n' "$output" | grep -q mpd-bridge
}

# What MPD writes while it runs: its database, state and sticker files,
# and the PulseAudio client's folder, which it makes looking for an output.
mpd_runtime=(/var/lib/mpd/tag_cache /var/lib/mpd/state
	/var/lib/mpd/sticker.sql /var/lib/mpd/.config)

# MPD's files, which purge must leave: their names, sizes, modes and
# owners, and /etc/mpd.conf's content; what MPD writes while it runs
# aside.
mpd_files() {
	local file aside=()
	for file in "${mpd_runtime[@]}"; do
		aside+=(-e "^${file}[ /]")
	done
	find /etc/mpd.conf /etc/default/mpd /var/lib/mpd \
		-printf '%p %s %m %u:%g\n' | grep -v "${aside[@]}" | sort
	sha256sum /etc/mpd.conf
}

echo "# installing from $dir"
clean_up earlier
# Also when it stops early: nothing of it is left running or installed.
trap clean_up EXIT
mkdir -p "$work/home" "$work/feed"
install -d -m 0700 "$work/runtime"
chmod 0755 "$work" "$work/feed"
chown "$other" "$work/home"
mpd_before=$(mpd_files)
playlists_before=$(ls -A /var/lib/mpd/playlists)
# What MPD writes while it runs is removed at the end when it was not there.
mpd_made=()
for file in "${mpd_runtime[@]}"; do
	[ -e "$file" ] || mpd_made+=("$file")
done

# --- Installing --------------------------------------------------------
debs=()
for pkg in "${packages[@]}"; do
	debs+=("$(ls "$dir/${pkg}"_*.deb)")
done
if apt-get install -y -qq --no-install-recommends "${debs[@]}" \
	>"$work/install.log" 2>&1; then
	ok "apt-get install ${packages[*]}"
else
	not_ok "apt-get install ${packages[*]}"
	show "$work/install.log"
	echo "Bail out! the packages did not install"
	exit 1
fi
check "mpd is installed beside them" \
	sh -c "dpkg-query -W -f='\${Status}' mpd | grep -q 'install ok installed'"

system_unit=$(dpkg -L mpd-bridge 2>/dev/null |
	grep -E '^(/usr)?/lib/systemd/system/mpd-bridge\.service$')
user_unit=$(dpkg -L mpd-bridge 2>/dev/null |
	grep -E '^/usr/lib/systemd/user/mpd-bridge\.service$')
check "the system unit is installed (${system_unit:-none})" \
	test -n "$system_unit" -a -f "$system_unit"
check "the system unit is enabled (multi-user.target wants it)" \
	test -L /etc/systemd/system/multi-user.target.wants/mpd-bridge.service
check "the user unit is installed, and not enabled for every user" \
	sh -c "test -f '$user_unit' &&
		! test -e /etc/systemd/user/default.target.wants/mpd-bridge.service"
check "/etc/mpd-bridge.conf is a conffile" \
	sh -c "dpkg-query -W -f='\${Conffiles}' mpd-bridge |
		grep -q '^ /etc/mpd-bridge.conf '"
check "/etc/mpd-bridge.conf has every key commented out" \
	sh -c "test -f /etc/mpd-bridge.conf &&
		! grep -Eq '^[[:space:]]*[a-z_]+[[:space:]]*=' /etc/mpd-bridge.conf"
check "the system unit runs as MPD's user, after mpd.service" \
	sh -c "grep -qx 'User=mpd' '$system_unit' &&
		grep -Eq '^After=.*mpd\.service' '$system_unit'"
check "systemd-analyze verify: the system unit" \
	verify_unit system "$system_unit"
check "systemd-analyze verify: the user unit" verify_unit user "$user_unit"

# --- MPD, as mpd.service and mpd.socket run it -------------------------
# mpd.service: ExecStart=/usr/bin/mpd --systemd $MPDCONF, with MPDCONF from
# /etc/default/mpd; it runs as root and MPD takes /etc/mpd.conf's user.
# mpd.socket listens on %t/mpd/socket (and 6600, left out here: the host's
# loopback is shared) and passes it on, which systemd-socket-activate does
# as it would; the socket gets mpd.socket's mode (SocketMode=, 0666 by
# default), which systemd-socket-activate does not give it.
mpd_unit=/usr/lib/systemd/system/mpd.service
[ -f "$mpd_unit" ] || mpd_unit=/lib/systemd/system/mpd.service
mpd_exec=$(unit_value "$mpd_unit" ExecStart)
MPDCONF=/etc/mpd.conf
# shellcheck disable=SC1091
[ -f /etc/default/mpd ] && . /etc/default/mpd
mpd_exec=${mpd_exec//\$MPDCONF/$MPDCONF}
mpd_socket_unit=${mpd_unit%.service}.socket
mpd_socket=$(all=1 unit_value "$mpd_socket_unit" ListenStream |
	sed -n 's|^%t/|/run/|p' | head -n 1)
mpd_socket_mode=$(unit_value "$mpd_socket_unit" SocketMode)
check "mpd.socket listens on /run/mpd/socket" \
	test "$mpd_socket" = /run/mpd/socket
install -d -m 0755 /run/mpd
# shellcheck disable=SC2086
systemd-socket-activate -l /run/mpd/socket $mpd_exec >"$work/mpd.log" 2>&1 &
echo $! >"$work/mpd.pid"
wait_for 10 test -S /run/mpd/socket &&
	chmod "${mpd_socket_mode:-0666}" /run/mpd/socket
# The socket listens at once; MPD starts on the first connection.
if wait_for 20 mpc -h /run/mpd/socket status; then
	ok "MPD runs from $MPDCONF on /run/mpd/socket ($mpd_exec)"
else
	not_ok "MPD runs from $MPDCONF on /run/mpd/socket ($mpd_exec)"
	show "$work/mpd.log"
fi

# --- mpd-bridge, as its system unit runs it ----------------------------
user=$(unit_value "$system_unit" User)
group=$(unit_value "$system_unit" Group)
umask_value=$(unit_value "$system_unit" UMask)
exec_start=$(unit_value "$system_unit" ExecStart)
home=$(getent passwd "$user" | cut -d: -f6)
# StateDirectory= and CacheDirectory=: made by systemd, owned by the
# unit's user, with their modes.
for kind in State:/var/lib Cache:/var/cache; do
	name=$(unit_value "$system_unit" "${kind%%:*}Directory")
	mode=$(unit_value "$system_unit" "${kind%%:*}DirectoryMode")
	[ -n "$name" ] || continue
	install -d -m "${mode:-0755}" -o "$user" -g "$group" "${kind#*:}/$name"
done
environment=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin
	HOME="$home" USER="$user" LOGNAME="$user" SHELL=/usr/sbin/nologin
	LANG=C.UTF-8)
while IFS= read -r line; do
	[ -n "$line" ] && environment+=("$line")
done < <(all=1 unit_value "$system_unit" Environment)
echo "# as $user:$group, umask ${umask_value:-0022}: ${environment[*]} $exec_start"
(
	umask "${umask_value:-0022}"
	# shellcheck disable=SC2086
	exec setpriv --reuid="$user" --regid="$group" --init-groups \
		env -i "${environment[@]}" $exec_start >"$work/bridge.log" 2>&1
) &
echo $! >"$work/bridge.pid"

# Commands from another user, with that user's own environment and no
# settings: MPD found as mpc finds it (libmpdclient's default,
# /run/mpd/socket), the daemon through MPD. nobody's home does not exist,
# so that the command cannot keep a state of its own and asks the daemon;
# as_other_home gives it a home ($work/home), as a user logged in has.
as_other() {
	runuser -u "$other" -- env -i PATH=/usr/bin:/bin LANG=C.UTF-8 \
		HOME="$(getent passwd "$other" | cut -d: -f6)" "$@"
}
as_other_home() {
	runuser -u "$other" -- env -i PATH=/usr/bin:/bin LANG=C.UTF-8 \
		HOME="$work/home" "$@"
}
if wait_for 20 as_other mpd-bridge status; then
	ok "mpd-bridge runs as $user and answers $other through MPD"
else
	not_ok "mpd-bridge runs as $user and answers $other through MPD"
	as_other mpd-bridge status 2>&1 | sed 's/^/# /'
	show "$work/bridge.log"
fi

# --- A feed on loopback, subscribed from another user ------------------
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$work/feed" \
	>"$work/http.log" 2>&1 &
echo $! >"$work/http.pid"
wait_for 10 grep -q 'port [0-9]' "$work/http.log"
port=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$work/http.log" | head -n 1)
base=http://127.0.0.1:$port
write_feed() {
	local file=$1 title=$2
	cat >"$work/feed/$file" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
<channel>
<title>$title</title>
<link>$base/</link>
<description>Two short episodes, served on loopback.</description>
<item>
<title>The Second Hour</title>
<guid isPermaLink="false">$file-2</guid>
<pubDate>Tue, 02 Jun 2026 08:00:00 +0000</pubDate>
<itunes:duration>00:12:00</itunes:duration>
<enclosure url="$base/episode-2.mp3" length="1000" type="audio/mpeg"/>
</item>
<item>
<title>The First Hour</title>
<guid isPermaLink="false">$file-1</guid>
<pubDate>Mon, 01 Jun 2026 08:00:00 +0000</pubDate>
<itunes:duration>00:10:00</itunes:duration>
<enclosure url="$base/episode-1.mp3" length="1000" type="audio/mpeg"/>
</item>
</channel>
</rss>
EOF
}
write_feed feed.xml "$feed_title"
write_feed other.xml "$other_title"
if as_other mpd-bridge subscribe "$base/feed.xml" >"$work/subscribe.log" 2>&1
then
	ok "$other: mpd-bridge subscribe $base/feed.xml"
else
	not_ok "$other: mpd-bridge subscribe $base/feed.xml"
fi
show "$work/subscribe.log"
check "through the daemon: $other has no state of their own" \
	test ! -e "$work/home/.local/state/mpd-bridge"
if wait_for 20 grep -q 'The First Hour' "$playlist"; then
	ok "the titled playlist is in MPD's playlist folder"
else
	not_ok "the titled playlist is in MPD's playlist folder"
	find /var/lib/mpd/playlists -mindepth 1 | sed 's/^/# /'
	show "$work/bridge.log"
fi
show "$playlist"
check "MPD lists it" \
	sh -c "mpc -h /run/mpd/socket lsplaylists | grep -qx 'Podcast: $feed_title'"
# A user with a home of their own and no state there: the command goes
# to the daemon that holds MPD's podcasts, not into a state of that home.
as_other_home mpd-bridge subscribe "$base/other.xml" >"$work/other.log" 2>&1
if wait_for 20 test -f "$other_playlist"; then
	ok "$other with a home: mpd-bridge subscribe goes to the daemon"
else
	not_ok "$other with a home: mpd-bridge subscribe goes to the daemon"
	show "$work/other.log"
fi
check "the state is in /var/lib/mpd-bridge, $user's, 0600" \
	sh -c "test \"\$(stat -c '%U %a' /var/lib/mpd-bridge/state)\" = '$user 600'"

# --- Stopping, and purging ---------------------------------------------
for name in bridge mpd http; do
	pid=$(cat "$work/$name.pid")
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rm -f "$work/$name.pid"
done
if apt-get purge -y -qq "${packages[@]}" >"$work/purge.log" 2>&1; then
	ok "apt-get purge ${packages[*]}"
else
	not_ok "apt-get purge ${packages[*]}"
	show "$work/purge.log"
fi
check "no package is left, not even its settings" \
	sh -c "! dpkg-query -W -f='\${Status}\n' ${packages[*]} 2>/dev/null |
		grep -q 'installed\|config-files'"
check "mpd-bridge's state, cache and settings are gone" \
	sh -c '! test -e /var/lib/mpd-bridge -o -e /var/cache/mpd-bridge -o \
		-e /etc/mpd-bridge.conf'
check "the unit is no longer enabled" \
	sh -c '! test -L /etc/systemd/system/multi-user.target.wants/mpd-bridge.service'
# Every file of MPD's that was there before is there still, as it was;
# the playlists mpd-bridge wrote are new ones.
same_mpd_files() {
	local gone
	gone=$(comm -23 <(printf '%s\n' "$mpd_before") <(mpd_files))
	[ -z "$gone" ] && return 0
	printf '%s\n' "$gone" | sed 's/^/# changed or gone: /'
	return 1
}
check "MPD's files are as they were" same_mpd_files
check "mpd is still installed" \
	sh -c "dpkg-query -W -f='\${Status}' mpd | grep -q 'install ok installed'"
check "the playlist mpd-bridge wrote stays: it is MPD's" test -f "$playlist"

clean_up
rm -rf "${mpd_made[@]}"
# The playlists mpd-bridge wrote.
comm -13 <(printf '%s\n' "$playlists_before") <(ls -A /var/lib/mpd/playlists) |
	while IFS= read -r name; do
		rm -f "/var/lib/mpd/playlists/$name"
	done
echo "1..$tests"
echo "# $((tests - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
