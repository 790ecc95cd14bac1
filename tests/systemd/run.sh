#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End-to-end test of fpusoakd under a real systemd (issue 6).
#
#   tests/systemd/run.sh [--standin] [REPO]        (root; REPO defaults to this checkout)
#
# 1. On the host, no root needed: `systemd-analyze verify` on the units, the
#    `systemd-analyze security` exposure figure, and fpusoakd.conf against
#    `fpusoakd --help`.
# 2. As root: build a Debian 12 rootfs once (mkrootfs.sh, cached in
#    tests/systemd/cache/), lay a fresh overlay over it, boot it with
#    `systemd-nspawn -b`, install the package there (`apt-get install
#    ./fpusoakd_*.deb`, from `make deb`: neither enabled nor started) and
#    check, inside: `systemctl start fpusoakd` → active (running), HTTP,
#    journal priorities, STATUS=, watchdog pings, SIGKILL → restart + run
#    marked crash, SIGSTOP → watchdog restart, reload, stop → exit 0 and no
#    process left, socket activation, an upgrade (reinstall) restarts it only
#    if it was running, and `apt-get purge` leaves nothing but the database.
#
# The container runs in cgroups this script creates (memory and pids limits),
# commands reach it with nsenter (this host has no systemd-machined, so no
# `systemd-run -M`), and an EXIT trap powers it off and removes everything,
# whatever happened.  --standin installs tests/systemd/standin.c instead of
# the daemon, to test the harness itself; the checks that need HTTP or the DB
# are then skipped.  Output: PASS:/FAIL:/SKIP: lines (tests/lib.sh), plus
# TIME: lines with what each phase took.
#
# Env: FPUSOAK_NSPAWN_CGROUP=unified|legacy|host  cgroup layout inside the
#      container (default unified, as on a Debian 12 guest; host: what nspawn
#      picks for this host, hybrid here); FPUSOAK_SYSTEMD_CACHE (rootfs
#      cache dir); FPUSOAK_MIRROR (apt mirror for debootstrap);
#      FPUSOAK_SYSTEMD_BUDGET (seconds for the whole test after the cache
#      exists, default 300); FPUSOAK_KEEP_LOGS=DIR copies console and journal there;
#      FPUSOAK_DEB (the fpusoakd_*.deb to install; default $BUILD/deb/, built with
#      `make deb` when missing or older than $BUILD/fpusoakd or debian/).
set -u

here=$(cd "$(dirname "$0")" && pwd)
standin=0
[ "${1:-}" = --standin ] && { standin=1; shift; }
repo=$(cd "${1:-$here/../..}" && pwd)
T_NAME=${T_NAME:-systemd}
# shellcheck source=../lib.sh
. "$here/../lib.sh"

t0=$(date +%s.%N)
budget=${FPUSOAK_SYSTEMD_BUDGET:-300}
cache=${FPUSOAK_SYSTEMD_CACHE:-$here/cache}
machine=fpusoak-test-$$
cgname=fpusoak-systemd-$$
port=8089
work='' root='' nspawn_pid='' leader='' mounted_nspawn_tmpfs=0
cg_dirs=() cg_home=()

elapsed() { echo "$(date +%s.%N) $1" | awk '{ printf "%.1f", $1 - $2 }'; }
timing() { echo "TIME: $T_NAME: $*"; }
note() { echo "      $*"; }
# Print a command's captured output under a failure, indented and bounded.
show() { sed -n '1,40p' "$1" | sed 's/^/      | /'; }
expired() { [ "$(elapsed "$t0" | cut -d. -f1)" -ge "$budget" ]; }

# ---------------------------------------------------------------- host checks

# A copy of the units that systemd-analyze can check on this host: ExecStart
# points at the binary built in this checkout (or /bin/true when there is
# none yet, said so).  man: links are checked against man/ in the checkout
# by this script, not by systemd-analyze, whose check runs man(1): a minimal
# system has no man viewer, and the page is what matters, not the viewer.
host_checks() {
	local t bin out exposure doc f bad=""
	if ! command -v systemd-analyze >/dev/null; then
		skip "host unit checks (verify, security, man: links, config): systemd-analyze not installed (Debian: systemd; as root this test installs it)"
		return
	fi
	t=$(mktemp -d) || return
	bin=$repo/build/fpusoakd
	if [ ! -x "$bin" ]; then
		note "build/fpusoakd not built: host verify uses ExecStart=/bin/true"
		bin=/bin/true
	fi
	sed "s#^ExecStart=/usr/local/sbin/fpusoakd#ExecStart=$bin#" "$repo/fpusoakd.service" >"$t/fpusoakd.service"
	cp "$repo/fpusoakd.socket" "$t/fpusoakd.socket" 2>/dev/null
	if systemd-analyze verify --man=no "$t/fpusoakd.service" "$t/fpusoakd.socket" >"$t/verify" 2>&1 &&
		[ ! -s "$t/verify" ]; then
		pass "systemd-analyze verify --man=no fpusoakd.service fpusoakd.socket is clean (host, ExecStart=$bin)"
	else
		fail "systemd-analyze verify reports problems (host)"
		show "$t/verify"
	fi
	for doc in $(sed -n 's/^Documentation=//p' "$repo/fpusoakd.service" "$repo/fpusoakd.socket" | tr ' ' '\n' |
		sed -n 's/^man:\([^(]*\)(\([0-9]\))$/\1.\2/p' | sort -u); do
		f=$repo/man/$doc
		[ -f "$f" ] && grep -qi "^\.TH ${doc%.*} ${doc##*.} " "$f" || bad="$bad $doc"
	done
	[ -n "$doc" ] && [ -z "$bad" ] && pass "every Documentation=man: link of the units names a page in man/ ($doc, .TH matches)" ||
		fail "Documentation=man: links without a page in man/:${bad:- none found}"
	# --offline=yes rates the file alone, as a reader of the unit would.
	out=$(systemd-analyze security --offline=yes "$repo/fpusoakd.service" 2>&1)
	exposure=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for fpusoakd.service: \([0-9.]*\).*/\1/p')
	if [ -n "$exposure" ]; then
		timing "security exposure (systemd-analyze security --offline=yes) $exposure"
		if awk -v e="$exposure" 'BEGIN { exit !(e <= 2.5) }'; then
			pass "security exposure $exposure <= 2.5"
		else
			fail "security exposure $exposure > 2.5"
			printf '%s\n' "$out" | grep '✗' | sed 's/^/      | /'
		fi
	else
		fail "systemd-analyze security gave no exposure figure"
		printf '%s\n' "$out" | sed -n '1,10p' | sed 's/^/      | /'
	fi
	# Every unset protection carries a reason: "# X= not set: why".
	local missing=""
	for d in $(printf '%s\n' "$out" | sed -n 's/^✗ \([A-Za-z]*\)=.*/\1/p' | sort -u); do
		case $d in
		SystemCallFilter) grep -q '^# SystemCallFilter=~@[a-z-]* not set:' "$repo/fpusoakd.service" || missing="$missing $d" ;;
		RestrictAddressFamilies) grep -q '^RestrictAddressFamilies=' "$repo/fpusoakd.service" || missing="$missing $d" ;;
		CapabilityBoundingSet) grep -q '^# CAP_[A-Z_]*:' "$repo/fpusoakd.service" || missing="$missing $d" ;;
		Delegate|DeviceAllow) grep -q "^$d=" "$repo/fpusoakd.service" || missing="$missing $d" ;;
		*) grep -q "^# $d=.* not set:\|^# .*$d=.*not set:" "$repo/fpusoakd.service" || missing="$missing $d" ;;
		esac
	done
	if [ -z "$missing" ]; then
		pass "every protection left off in fpusoakd.service has a reason in a comment"
	else
		fail "protections left off without a '# X= not set: why' comment:$missing"
	fi
	# The commented default config names every option the daemon has.
	if [ -x "$repo/build/fpusoakd" ]; then
		local opts absent=""
		opts=$("$repo/build/fpusoakd" --help 2>/dev/null | sed -n 's/^ *--\([a-z-]*\) [A-Z:]*.*/\1/p')
		for o in $opts; do
			case $o in config | help | version) continue ;; esac
			grep -q "^#$o = \|^#$o =\$" "$repo/fpusoakd.conf" || absent="$absent $o"
		done
		if [ -n "$opts" ] && [ -z "$absent" ]; then
			pass "fpusoakd.conf has a commented default for every option in --help ($(echo $opts | wc -w))"
		else
			fail "fpusoakd.conf lacks options from fpusoakd --help:${absent:- (no options parsed from --help)}"
		fi
	else
		skip "fpusoakd.conf against --help: build/fpusoakd not built"
	fi
	rm -rf "$t"
}

# ------------------------------------------------------------------ cgroups

# Put this script (and so nspawn, the container and every nsenter'd command)
# into new cgroups: memory and pids limits so a runaway soak cannot hurt the
# host, and nspawn's own payload/supervisor groups under ours instead of the
# hierarchy roots.  Returns 1 when memory cannot be limited: then we must
# not boot anything.
cg_enter() {
	local fs h own dir limited=0
	fs=$(stat -fc %T /sys/fs/cgroup 2>/dev/null)
	if [ "$fs" = cgroup2fs ]; then
		own=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
		dir=/sys/fs/cgroup${own%/}/$cgname
		mkdir "$dir" || return 1
		cg_dirs+=("$dir") cg_home+=("/sys/fs/cgroup$own")
		[ -f "$dir/memory.max" ] && echo 2G >"$dir/memory.max" && limited=1
		[ -f "$dir/pids.max" ] && echo 4096 >"$dir/pids.max"
		echo $$ >"$dir/cgroup.procs" || return 1
		[ $limited = 1 ]
		return
	fi
	for h in memory pids systemd unified; do
		[ -d /sys/fs/cgroup/$h ] || continue
		case $h in
		systemd) own=$(awk -F: '$2 == "name=systemd" { print $3 }' /proc/self/cgroup) ;;
		unified) own=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup) ;;
		*) own=$(awk -F: -v h=$h '$2 == h { print $3 }' /proc/self/cgroup) ;;
		esac
		dir=/sys/fs/cgroup/$h${own%/}/$cgname
		mkdir "$dir" || continue
		cg_dirs+=("$dir") cg_home+=("/sys/fs/cgroup/$h$own")
		case $h in
		memory) echo 2G >"$dir/memory.limit_in_bytes" && limited=1 ;;
		pids) echo 4096 >"$dir/pids.max" ;;
		esac
		echo $$ >"$dir/cgroup.procs" || return 1
	done
	[ $limited = 1 ]
}

# Leave our cgroups, kill whatever is still in them (everything there was
# started by this script), and remove them, deepest first.
cg_leave() {
	local i d p n
	for i in "${!cg_dirs[@]}"; do
		echo $$ >"${cg_home[$i]}/cgroup.procs" 2>/dev/null
	done
	for d in "${cg_dirs[@]}"; do
		[ -d "$d" ] || continue
		for n in 1 2 3 4 5; do
			p=$(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null)
			[ -n "$p" ] || break
			[ $n = 1 ] && note "cleanup: killing leftover processes in $d: $(echo $p)"
			# shellcheck disable=SC2086
			kill -KILL $p 2>/dev/null
			sleep 0.3
		done
		find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
		[ -d "$d" ] && note "cleanup: could not remove $d"
	done
	cg_dirs=()
}

# ---------------------------------------------------------------- container

# Run a command inside the container, as if logged in there, bounded in time.
# nsenter keeps this host's cgroup (ours), which is what we want.  -r -w: the
# container init's root and cwd; entering its mount namespace alone gives the
# namespace's root mount, which is the host's / when this test runs in a chroot.
ct() {
	local secs=$1
	shift
	timeout -k 5 "$secs" nsenter -t "$leader" -a -r -w -- /usr/bin/env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		SYSTEMD_COLORS=0 SYSTEMD_PAGER= LC_ALL=C.UTF-8 "$@"
}

prop() { ct 10 systemctl show -P "$1" "${2:-fpusoakd.service}" 2>/dev/null; }

# wait_until SECS command...: poll every 0.3 s; 0 once it succeeds.
wait_until() {
	local end=$(($(date +%s) + $1))
	shift
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		[ "$(date +%s)" -ge $end ] && return 1
		sleep 0.3
	done
}

# MainPID, only when it names a real process (never 0 or 1: `kill 0` would
# signal our own process group).
main_pid() { local p; p=$(prop MainPID); [ "${p:-0}" -gt 1 ] 2>/dev/null && echo "$p"; }
# What each process of the unit is doing and which signals it blocks.
describe_unit_pids() {
	local p
	for p in $(unit_pids); do
		note "pid $p: $(ct 5 sh -c "tr '\\0' ' ' </proc/$p/cmdline; grep -E '^(State|SigBlk):' /proc/$p/status | tr '\\n\\t' '  '")"
	done
}

is_running() { [ "$(prop ActiveState)/$(prop SubState)" = active/running ]; }
main_pid_is_new() { local p; p=$(prop MainPID); [ -n "$p" ] && [ "$p" != 0 ] && [ "$p" != "$1" ] && is_running; }

prepare_root() {
	local lower=$1
	work=$(mktemp -d /var/tmp/fpusoak-systemd.XXXXXX) || return 1
	root=$work/root
	mkdir -p "$work/upper" "$work/ovl" "$root"
	if ! mount -t overlay overlay -o "lowerdir=$lower,upperdir=$work/upper,workdir=$work/ovl" "$root" 2>"$work/mount.err"; then
		note "overlayfs unavailable ($(cat "$work/mount.err")): copying the rootfs"
		cp -a "$lower/." "$root/" || return 1
	fi
}

# The stand-in (--standin) is copied in the way `make install` would lay it out.
install_standin() {
	local log=$work/install.log
	mkdir -p "$root/usr/local/sbin" "$root/lib/systemd/system" "$root/etc/fpusoakd"
	${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -I"$repo" -o "$root/usr/local/sbin/fpusoakd" \
		"$here/standin.c" "$repo/daemon/notify.c" "$repo/common/log.c" "$repo/common/unixdg.c" \
		"$repo/common/num.c" >"$log" 2>&1 &&
		install -m 0644 "$repo/fpusoakd.service" "$repo/fpusoakd.socket" "$root/lib/systemd/system/" &&
		install -m 0644 "$repo/fpusoakd.conf" "$root/etc/fpusoakd/fpusoakd.conf" || { show "$log"; return 1; }
}

# Where `make install` (PREFIX=/usr/local) puts things for the unit to work, the web process
# included: installed into a scratch DESTDIR on the host (the container gets the package).
check_layout() {
	local f missing="" dest=$work/make-install log=$work/make-install.log
	if ! make -C "$repo" --no-print-directory install DESTDIR="$dest" BUILD="${BUILD:-$repo/build}" >"$log" 2>&1; then
		fail "make install DESTDIR=$dest"
		show "$log"
		return 1
	fi
	for f in usr/local/sbin/fpusoakd lib/systemd/system/fpusoakd.service lib/systemd/system/fpusoakd.socket \
		etc/fpusoakd/fpusoakd.conf usr/local/share/man/man8/fpusoakd.8 usr/local/libexec/fpusoakd/fpusoakd-spawner \
		usr/local/libexec/fpusoakd/fpusoakd-web; do
		[ -e "$dest/$f" ] || missing="$missing /$f"
	done
	[ -z "$missing" ] && pass "make install laid out binary, static spawner, web process, units, config and man page" ||
		fail "make install did not install:$missing"
	rm -rf "$dest"
}

# The package to install: $FPUSOAK_DEB, or $BUILD/deb/fpusoakd_*_amd64.deb, rebuilt
# with `make deb` when it is missing or older than the build's binary or debian/.
find_deb() {
	local b=${BUILD:-$repo/build} deb f stale=0
	if [ -n "${FPUSOAK_DEB:-}" ]; then
		echo "$FPUSOAK_DEB"
		return
	fi
	deb=$(ls "$b"/deb/fpusoakd_*_amd64.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || stale=1
	for f in "$b/fpusoakd" "$b/fpusoakd-spawner" "$b/fpusoakd-web" "$repo"/debian/* "$repo/fpusoakd.service" "$repo/fpusoakd.conf"; do
		[ -n "$deb" ] && [ -e "$f" ] && [ "$f" -nt "$deb" ] && stale=1
	done
	if [ $stale = 1 ]; then
		note "building the package: make deb (DEB_BUILD_OPTIONS=nocheck)" >&2
		DEB_BUILD_OPTIONS=nocheck make -C "$repo" --no-print-directory deb BUILD="$b" >"$work/deb.log" 2>&1 ||
			{ show "$work/deb.log" >&2; return 1; }
		deb=$(ls "$b"/deb/fpusoakd_*_amd64.deb 2>/dev/null | head -n 1)
	fi
	[ -n "$deb" ] && echo "$deb"
}

# What the container must not have before the package: the test starts from a bare system.
pkg_files() { ct 10 dpkg -L fpusoakd 2>/dev/null; }

# apt-get install ./fpusoakd_*.deb in the booted container (offline: the rootfs has every
# dependency), then: installed but neither enabled nor started, files where the unit wants them.
install_deb() {
	local d=/var/tmp/$(basename "$deb") st f missing=""
	cp "$deb" "$root$d" || return 1
	if ct 120 env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$d" >"$work/apt.log" 2>&1; then
		pass "apt-get install ./$(basename "$deb") in the booted container"
	else
		fail "apt-get install ./$(basename "$deb")"
		show "$work/apt.log"
		return 1
	fi
	st=$(ct 10 systemctl is-enabled fpusoakd.service fpusoakd.socket | tr '\n' ' ')
	[ "$st" = "disabled disabled " ] && pass "after install fpusoakd.service and .socket are disabled (is-enabled: $st)" ||
		fail "after install is-enabled says '$st', want 'disabled disabled'"
	st=$(ct 10 systemctl is-active fpusoakd.service fpusoakd.socket | tr '\n' ' ')
	[ "$st" = "inactive inactive " ] && [ -z "$(unit_pids)" ] &&
		pass "after install nothing runs (is-active: $st, no process in the unit's cgroup)" ||
		fail "after install is-active says '$st' (processes: $(unit_pids | tr '\n' ' ')): install must not start anything"
	for f in /usr/sbin/fpusoakd /usr/libexec/fpusoakd/fpusoakd-spawner /usr/libexec/fpusoakd/fpusoakd-web \
		/lib/systemd/system/fpusoakd.service /lib/systemd/system/fpusoakd.socket /etc/fpusoakd/fpusoakd.conf /usr/share/man/man8/fpusoakd.8.gz; do
		pkg_files | grep -qx "$f" && ct 5 test -e "$f" || missing="$missing $f"
	done
	[ -z "$missing" ] && pass "the package installed binary, static spawner, web process, units, config and man page" ||
		fail "the package did not install:$missing"
	missing=$(ct 10 ldd /usr/sbin/fpusoakd /usr/libexec/fpusoakd/fpusoakd-web 2>&1 | grep 'not found')
	[ -z "$missing" ] && pass "every library fpusoakd and fpusoakd-web link is in the container" ||
		fail "libraries missing in the container: $(echo $missing)"
	[ "$(ct 10 dpkg-query -W -f '${Conffiles}' fpusoakd | awk '{ print $1 }')" = /etc/fpusoakd/fpusoakd.conf ] &&
		pass "dpkg lists /etc/fpusoakd/fpusoakd.conf as a conffile" || fail "fpusoakd.conf is not a conffile"
}

# The container's init: the child of nspawn that is PID 1 in its own PID
# namespace ("NSpid: <host pid> 1").  nspawn's first child is a short-lived
# helper, so the PID namespace is what tells them apart.
find_leader() {
	local c
	for c in $(cat /proc/"$nspawn_pid"/task/*/children 2>/dev/null); do
		awk '/^NSpid:/ { exit !(NF == 3 && $3 == 1) }' /proc/"$c"/status 2>/dev/null && { echo "$c"; return; }
	done
}

boot() {
	local args=(-b -D "$root" --machine="$machine" --register=no --keep-unit
		--private-network --console=read-only --capability=CAP_SYSLOG)
	# The daemon reads the kernel log; a container has no /dev/kmsg of its own.
	[ -c /dev/kmsg ] && args+=(--bind-ro=/dev/kmsg)
	case ${FPUSOAK_NSPAWN_CGROUP:-unified} in
	unified) export SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1 ;;
	legacy) export SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=0 ;;
	*) unset SYSTEMD_NSPAWN_UNIFIED_HIERARCHY ;;   # nspawn follows the host
	esac
	# nspawn wants /run/systemd/nspawn on a tmpfs; this host's /run is not one.
	if ! mountpoint -q /run/systemd/nspawn; then
		mkdir -p /run/systemd/nspawn &&
			mount -t tmpfs -o mode=0755,size=16m fpusoak-nspawn /run/systemd/nspawn &&
			mounted_nspawn_tmpfs=1
	fi
	systemd-nspawn "${args[@]}" >"$work/console.log" 2>&1 </dev/null &
	nspawn_pid=$!
	local end=$(($(date +%s) + 60)) st=
	while [ "$(date +%s)" -lt $end ]; do
		kill -0 "$nspawn_pid" 2>/dev/null || break
		[ -n "$leader" ] || leader=$(find_leader)
		if [ -n "$leader" ]; then
			st=$(ct 5 systemctl is-system-running 2>/dev/null)
			case $st in running | degraded) return 0 ;; esac
		fi
		sleep 0.2
	done
	note "container did not come up (state '${st:-none}')"
	sed -n '1,30p' "$work/console.log" | sed 's/^/      | /'
	return 1
}

poweroff() {
	[ -n "$nspawn_pid" ] || return 0
	local n
	# nspawn turns SIGTERM into an orderly halt of the container's systemd.
	kill -TERM "$nspawn_pid" 2>/dev/null
	for n in $(seq 1 100); do
		kill -0 "$nspawn_pid" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$nspawn_pid" 2>/dev/null; then
		note "cleanup: container did not halt in 20 s, killing nspawn $nspawn_pid and init $leader"
		kill -KILL "$nspawn_pid" ${leader:+"$leader"} 2>/dev/null
	fi
	wait "$nspawn_pid" 2>/dev/null
	nspawn_pid=
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [ -n "${FPUSOAK_KEEP_LOGS:-}" ] && [ -n "$work" ]; then
		mkdir -p "$FPUSOAK_KEEP_LOGS"
		cp "$work"/*.log "$FPUSOAK_KEEP_LOGS/" 2>/dev/null
		[ -n "$leader" ] && [ -n "$nspawn_pid" ] && ct 20 journalctl -b --no-pager >"$FPUSOAK_KEEP_LOGS/journal.txt" 2>&1
	fi
	poweroff
	cg_leave
	if [ -n "$root" ] && mountpoint -q "$root"; then
		umount "$root" 2>/dev/null || umount -l "$root"
	fi
	# --one-file-system: never follow into a mount that is still there.
	[ -n "$work" ] && ! mountpoint -q "$root" && rm -rf --one-file-system "$work"
	if [ $mounted_nspawn_tmpfs = 1 ] && [ -z "$(ls -A /run/systemd/nspawn/propagate 2>/dev/null)" ]; then
		umount /run/systemd/nspawn 2>/dev/null
	fi
	timing "whole test $(elapsed "$t0")s"
	exit $rc
}

# ------------------------------------------------------------------- checks

# run_ok "description" SECS command...: PASS if it exits 0, else FAIL with its output.
run_ok() {
	local d=$1 secs=$2
	shift 2
	if ct "$secs" "$@" >"$work/out" 2>&1; then
		pass "$d"
	else
		fail "$d"
		show "$work/out"
	fi
}

# The end_reason of every run, oldest first, one per line (NULL prints empty).
run_reasons() { ct 10 sqlite3 -readonly /var/lib/fpusoakd/fpusoakd.db "SELECT coalesce(end_reason, '-') FROM v_runs ORDER BY run_id"; }
runs_at_least() { [ "$(ct 10 sqlite3 -readonly /var/lib/fpusoakd/fpusoakd.db 'SELECT count(*) FROM v_runs')" -ge "$1" ] 2>/dev/null; }
has_status() { [ -n "$(prop StatusText)" ]; }

# The service's cgroup directory inside the container, in the hierarchy
# systemd tracks processes with: /sys/fs/cgroup (v2), /sys/fs/cgroup/unified
# (hybrid) or /sys/fs/cgroup/systemd (legacy v1).
unit_cg() {
	local b
	for b in /sys/fs/cgroup /sys/fs/cgroup/unified /sys/fs/cgroup/systemd; do
		ct 5 test -d $b/system.slice && { echo $b/system.slice/fpusoakd.service; return; }
	done
	echo /nonexistent
}
# Processes in the service's cgroup subtree, one PID a line.
unit_pids() { ct 10 sh -c "[ -d $(unit_cg) ] && find $(unit_cg) -name cgroup.procs -exec cat {} + 2>/dev/null"; }

check_start() {
	local s
	ct 10 systemctl daemon-reload
	# Enabled, the unit stays loaded after a stop, so its exit status can be read.
	run_ok "systemctl enable fpusoakd" 30 systemctl enable fpusoakd.service
	if ct 90 systemctl start fpusoakd.service >"$work/out" 2>&1 && is_running; then
		pass "systemctl start fpusoakd: active (running)"
	else
		fail "systemctl start fpusoakd: $(prop ActiveState)/$(prop SubState), result $(prop Result)"
		show "$work/out"
		ct 10 journalctl -u fpusoakd -n 30 --no-pager >"$work/out" 2>&1
		show "$work/out"
		return 1
	fi
	[ "$(prop Type)/$(prop NotifyAccess)" = notify/main ] &&
		pass "Type=notify NotifyAccess=main: start waited for READY=1" ||
		fail "unit is $(prop Type)/$(prop NotifyAccess), expected notify/main"
	s=$(prop WatchdogUSec)
	[ "$s" = 6s ] && pass "test drop-in WatchdogSec=6s in effect" || fail "WatchdogUSec is '$s', expected 6s"
	s=$(ct 5 sh -c 'cat /proc/$(systemctl show -P MainPID fpusoakd)/oom_score_adj')
	# systemd needs CAP_SYS_RESOURCE to lower it, and ignores EPERM in containers.
	local capeff
	capeff=$(awk '/^CapEff:/ { print $2 }' /proc/"$leader"/status)
	if [ $(((0x${capeff:-0} >> 24) & 1)) = 0 ]; then
		skip "OOMScoreAdjust=-900: the container's systemd lacks CAP_SYS_RESOURCE on this host (oom_score_adj is $s)"
	elif [ -n "$s" ] && [ "$s" -lt 0 ]; then
		pass "daemon oom_score_adj is $s (negative)"
	else
		fail "daemon oom_score_adj is '$s', expected negative"
	fi
	run_ok "systemd-analyze verify --man=no on the installed units (real binary)" 30 \
		sh -c 'out=$(systemd-analyze verify --man=no /lib/systemd/system/fpusoakd.service /lib/systemd/system/fpusoakd.socket 2>&1); echo "$out"; [ -z "$out" ]'
	s=$(ct 30 systemd-analyze security fpusoakd.service 2>&1 | sed -n 's/.*Overall exposure level for fpusoakd.service: \([0-9.]*\).*/\1/p')
	timing "security exposure inside the container (loaded unit) ${s:-?}"
}

check_http() {
	if [ $standin = 1 ]; then
		skip "HTTP /healthz and /: the stand-in serves no HTTP"
		return
	fi
	local code
	code=$(ct 10 curl -sS -o /tmp/healthz -w '%{http_code}' http://127.0.0.1:$port/healthz 2>&1)
	[ "$code" = 200 ] && pass "curl /healthz: 200" || fail "curl /healthz: '$code'"
	code=$(ct 20 curl -sS -o /tmp/index -w '%{http_code} %{size_download}' http://127.0.0.1:$port/ 2>&1)
	if [ "${code%% *}" = 200 ] && [ "${code#* }" -gt 0 ] 2>/dev/null; then
		pass "curl /: 200, ${code#* } bytes of report"
	else
		fail "curl /: '$code'"
	fi
}

check_journal() {
	local info
	info=$(ct 10 journalctl -u fpusoakd -t fpusoakd -p info..info -o cat --no-pager 2>/dev/null)
	if [ -n "$info" ]; then
		pass "journalctl -u fpusoakd has its log lines at priority info ($(printf '%s\n' "$info" | wc -l))"
	else
		fail "journalctl -u fpusoakd -p info..info shows nothing from fpusoakd"
	fi
	if ct 10 journalctl -u fpusoakd -t fpusoakd -o cat --no-pager | grep -q '^<[0-7]>'; then
		fail "journal messages still carry '<N>' prefixes: priorities were not parsed"
	else
		pass "journal messages carry no raw '<N>' prefix"
	fi
	# Issue 6 also asks for structured fields such as the run id.
	local field
	field=$(ct 10 journalctl -u fpusoakd -t fpusoakd -o verbose --no-pager | grep -m1 -oE '^ *(FPUSOAK_[A-Z_]*|RUN_ID)=' | tr -d ' =')
	if [ -n "$field" ]; then
		pass "journal entries carry structured field $field"
	else
		skip "structured journal fields: none (no FPUSOAK_*/RUN_ID field; stderr logging carries priority only)"
	fi
}

check_status_line() {
	local st
	if wait_until 20 has_status; then
		st=$(prop StatusText)
		pass "STATUS= reached systemd: \"$st\""
	else
		fail "no STATUS= within 20 s"
		return
	fi
	if ct 10 systemctl status fpusoakd --no-pager -n 0 | grep -q '^ *Status: "'; then
		pass "systemctl status shows the Status: line"
	else
		fail "systemctl status has no Status: line"
	fi
}

# What the sandbox must still allow: root-owned 0400 /proc files without
# CAP_DAC_*, and /dev/kmsg through PrivateDevices= with CAP_SYSLOG.
check_sandbox_reads() {
	[ $standin = 1 ] && return
	local v n
	for v in v_pagetypeinfo v_slabinfo; do
		n=$(ct 10 sqlite3 -readonly /var/lib/fpusoakd/fpusoakd.db "SELECT count(*) FROM $v WHERE run_id = (SELECT max(run_id) FROM v_runs)")
		[ "${n:-0}" -gt 0 ] 2>/dev/null && pass "sandboxed daemon read /proc/${v#v_} (0400 root): $n rows in $v" ||
			fail "no $v rows for the current run: /proc/${v#v_} unreadable under the unit's sandbox?"
	done
	if [ ! -c /dev/kmsg ]; then
		skip "/dev/kmsg in the sandbox: this host has no /dev/kmsg to lend the container"
	# By device (char 1:11), not by the link's text: the path shown for a file in the unit's
	# private mount namespace depends on where the reader's root is (a chroot moves it).
	elif ct 10 sh -c "for f in /proc/$(main_pid)/fd/*; do stat -L -c '%F %t:%T' \$f 2>/dev/null; done | grep -qx 'character special file 1:b'"; then
		pass "sandboxed daemon has /dev/kmsg open (PrivateDevices=yes + BindReadOnlyPaths=, CAP_SYSLOG; dmesg_restrict=$(cat /proc/sys/kernel/dmesg_restrict))"
	else
		fail "the daemon has no /dev/kmsg open under the unit's sandbox"
	fi
}

# WATCHDOG=1 refreshes WatchdogTimestampMonotonic.  With WatchdogSec=6s the
# daemon should ping every 3 s: over 8 s expect >= 2 pings and no gap > 4.5 s.
check_watchdog_pings() {
	local end=$(($(date +%s) + 8)) last='' v changes=0 maxgap=0 prev=''
	while [ "$(date +%s)" -lt $end ]; do
		v=$(prop WatchdogTimestampMonotonic)
		if [ -n "$v" ] && [ "$v" != 0 ] && [ "$v" != "$last" ]; then
			[ -n "$prev" ] && [ $(((v - prev) / 1000)) -gt $maxgap ] && maxgap=$(((v - prev) / 1000))
			[ -n "$last" ] && changes=$((changes + 1))
			prev=$v last=$v
		fi
		sleep 0.25
	done
	if [ $changes -ge 2 ] && [ $maxgap -le 4500 ]; then
		pass "WATCHDOG=1 pings: $changes in 8 s, longest gap ${maxgap} ms (WatchdogSec=6s → every 3 s)"
	else
		fail "WATCHDOG=1 pings: $changes in 8 s, longest gap ${maxgap} ms (want >= 2, <= 4500 ms)"
	fi
}

check_cgroup_layout() {
	local n
	n=$(unit_pids | wc -l)
	note "processes in fpusoakd.service's cgroup: $n"
	[ $standin = 1 ] && return
	local ctl jl
	# Under the unit's seccomp filter and capability bounding set: the installed static spawner
	# is exec'd, and workers get through their setup (capset included) and hold a population.
	jl=$(ct 10 journalctl -u fpusoakd -t fpusoakd -o cat --no-pager 2>/dev/null)
	if grep -q 'spawner /usr/libexec/fpusoakd/fpusoakd-spawner' <<<"$jl"; then
		pass "the daemon execs the installed static spawner"
	else
		fail "the daemon did not exec /usr/libexec/fpusoakd/fpusoakd-spawner: $(grep -m1 'churn:' <<<"$jl" | cut -c1-200)"
	fi
	# The web side is the core's child, in the unit's cgroup: `systemctl status` lists both.
	local web core
	core=$(prop MainPID)
	web=$(ct 10 sh -c "for p in \$(cat $(unit_cg)/cgroup.procs $(unit_cg)/*/cgroup.procs 2>/dev/null); do
		[ \"\$(cat /proc/\$p/comm 2>/dev/null)\" = fpusoakd-web ] && echo \$p; done" | head -1)
	# Its parent: the 4th field of /proc/PID/stat (its comm, fpusoakd-web, has no space in it).
	if [ -n "$web" ] && [ "$(ct 5 cut -d' ' -f4 /proc/$web/stat)" = "$core" ]; then
		pass "the web process (pid $web, the core's child) runs in fpusoakd.service's cgroup"
	else
		fail "no fpusoakd-web child of the core (pid $core) in fpusoakd.service's cgroup: $(unit_pids | tr '\n' ' ')"
	fi
	if ct 10 systemctl status fpusoakd --no-pager -n 0 | grep -q 'fpusoakd-web serve'; then
		pass "systemctl status fpusoakd lists the web process beside the core"
	else
		fail "systemctl status fpusoakd does not list fpusoakd-web"
	fi
	local st spawned failed
	st=$(prop StatusText)
	spawned=$(sed -n 's/.*spawned \([0-9]*\).*/\1/p' <<<"$st")
	failed=$(sed -n 's/.*failed \([0-9]*\).*/\1/p' <<<"$st")
	if [ "${spawned:-0}" -gt 0 ] && [ "${failed:-1}" = 0 ]; then
		pass "the spawner forks workers under the unit's seccomp filter (spawned $spawned, failed 0)"
	else
		fail "spawns fail under the unit (spawned ${spawned:-?}, failed ${failed:-?}): $st"
	fi
	if grep -q 'workers exit during setup' <<<"$jl"; then
		fail "workers fail their setup under the unit: $(grep -m1 'workers exit during setup' <<<"$jl" | cut -c1-200)"
	else
		pass "no worker fails its setup under the unit's sandboxing"
	fi
	ctl=$(ct 5 cat "$(unit_cg)/cgroup.controllers" 2>/dev/null)
	case " $ctl " in
	*" memory "*" pids "* | *" pids "*" memory "*) ;;
	*)
		# A hybrid (cgroup v1) host binds memory and pids to v1, so a container's
		# cgroup2 tree has neither and the daemon rightly runs without workers-<hash>/,
		# because the test's config allows it to (allow-unconfined), and says so.
		if ct 10 journalctl -u fpusoakd -t fpusoakd -o cat --no-pager | grep -q 'churn: confinement none: '; then
			pass "no controllers to delegate: the daemon runs unconfined as allowed, and logs why"
		else
			fail "no controllers to delegate, but the journal has no 'churn: confinement none:' line"
		fi
		skip "workers-<hash>/ cgroup: the container's delegated cgroup has no memory+pids controllers on this host (has '${ctl}'); daemon says: $(ct 10 journalctl -u fpusoakd -t fpusoakd -o cat --no-pager | grep -m1 -i 'cgroup' | cut -c1-160)"
		return
		;;
	esac
	# workers-<hash of the DB path> (cgroup/cgroup.h: a group per instance).
	if ct 5 sh -c "ls -d $(unit_cg)/workers-* >/dev/null 2>&1"; then
		pass "delegated cgroup has workers-<hash>/ ($(ct 5 sh -c "ls -d $(unit_cg)/workers-*" | head -1))"
	else
		fail "no workers-<hash>/ cgroup under fpusoakd.service (Delegate=yes)"
		ct 5 sh -c "cd $(unit_cg) && find . -type d" | show /dev/stdin
	fi
}

check_sigkill() {
	local old new r oldpids left
	old=$(main_pid) || { fail "SIGKILL test: no MainPID"; return 1; }
	oldpids=$(unit_pids)
	ct 5 kill -KILL "$old"
	if wait_until 30 main_pid_is_new "$old"; then
		new=$(prop MainPID)
		pass "SIGKILL of MainPID $old: systemd restarted it (MainPID $new, NRestarts $(prop NRestarts))"
	else
		fail "SIGKILL of MainPID $old: not restarted within 30 s ($(prop ActiveState)/$(prop SubState))"
		describe_unit_pids
		return 1
	fi
	# Every process of the old instance went with it (KillMode=control-group).
	left=$(printf '%s\n' "$oldpids" | grep -Fxf - <(unit_pids) | tr '\n' ' ')
	[ -z "$left" ] && pass "none of the old instance's $(echo $oldpids | wc -w) process(es) survived the restart" ||
		fail "processes of the killed instance still in the unit: $left"
	if [ $standin = 1 ]; then
		skip "crash marking in the DB: the stand-in has no DB"
		return 0
	fi
	wait_until 10 runs_at_least 2
	r=$(run_reasons | tr '\n' ' ')
	r=${r% }
	case $r in
	*"crash -") pass "v_runs after SIGKILL: $r(old run crash, new one live)" ;;
	*) fail "v_runs end_reason after SIGKILL: '$r', want '... crash -'" ;;
	esac
	if ct 10 journalctl -u fpusoakd -t fpusoakd -p notice..notice -o cat --no-pager | grep -q crash; then
		pass "the crash marking is logged at priority notice"
	else
		fail "no notice-priority journal line about the crashed run"
	fi
}

check_sigstop() {
	local old new
	old=$(main_pid) || { fail "SIGSTOP test: no MainPID"; return 1; }
	ct 5 kill -STOP "$old"
	# 6 s without a ping, SIGABRT (+SIGCONT), RestartSec=2s.
	if wait_until 30 main_pid_is_new "$old"; then
		new=$(prop MainPID)
		pass "SIGSTOP of MainPID $old: watchdog fired, restarted as $new"
	else
		fail "SIGSTOP of MainPID $old: no restart within 30 s ($(prop ActiveState)/$(prop SubState))"
		describe_unit_pids
		ct 5 kill -CONT "$old"
		return 1
	fi
	if ct 10 journalctl -u fpusoakd --no-pager -o cat | grep -q 'Watchdog timeout'; then
		pass "journal: systemd logged 'Watchdog timeout'"
	else
		fail "journal has no 'Watchdog timeout' line from systemd"
	fi
	if [ $standin = 0 ]; then
		local r
		r=$(run_reasons | tr '\n' ' ')
		r=${r% }
		case $r in
		*"crash crash -") pass "v_runs after watchdog kill: $r" ;;
		*) fail "v_runs end_reason after watchdog kill: '$r', want '... crash crash -'" ;;
		esac
	fi
}

check_reload() {
	local old
	old=$(main_pid)
	if ct 30 systemctl reload fpusoakd && sleep 1 && [ "$(prop MainPID)" = "$old" ] && is_running; then
		pass "systemctl reload (SIGHUP): same MainPID $old, still running"
	else
		fail "systemctl reload: MainPID $old → $(prop MainPID), $(prop ActiveState)/$(prop SubState)"
	fi
}

check_stop() {
	local before after
	before=$(unit_pids | wc -l)
	local s e
	s=$(date +%s.%N)
	if ct 60 systemctl stop fpusoakd; then
		e=$(elapsed "$s")
		# The daemon promises to exit within 2 s; anything near TimeoutStopSec means
		# some process ignored SIGTERM and was SIGKILLed.
		if awk -v e="$e" 'BEGIN { exit !(e < 10) }'; then
			pass "systemctl stop fpusoakd returned in ${e}s"
		else
			fail "systemctl stop fpusoakd took ${e}s (something ignored SIGTERM)"
		fi
	else
		fail "systemctl stop fpusoakd failed"
		describe_unit_pids
	fi
	[ "$(prop ExecMainCode)/$(prop ExecMainStatus)" = 1/0 ] &&
		pass "SIGTERM: main process exited with status 0" ||
		fail "SIGTERM: ExecMainCode/Status $(prop ExecMainCode)/$(prop ExecMainStatus), want exited/0"
	[ "$(prop Result)" = success ] && pass "unit result: success" || fail "unit result: $(prop Result)"
	after=$(unit_pids | wc -l)
	if [ "$after" = 0 ]; then
		pass "no process left in fpusoakd.service's cgroup after stop (had $before)"
	else
		fail "$after process(es) left after stop: $(unit_pids | tr '\n' ' ')"
	fi
	if [ $standin = 0 ]; then
		local r
		r=$(run_reasons | tail -n1)
		[ "$r" = stopped ] && pass "last run end_reason after stop: stopped" ||
			fail "last run end_reason after stop: '$r', want stopped"
	fi
}

# fpusoakd.socket: systemd owns 127.0.0.1:8089 and hands it over (LISTEN_FDS).
check_socket() {
	if [ $standin = 1 ]; then
		skip "socket activation: the stand-in serves no HTTP"
		return
	fi
	if ! ct 30 systemctl start fpusoakd.socket; then
		fail "systemctl start fpusoakd.socket"
		return
	fi
	if ct 90 systemctl start fpusoakd.service && is_running; then
		pass "with fpusoakd.socket active the service starts"
	else
		fail "with fpusoakd.socket active the service fails to start ($(prop Result)): does it take LISTEN_FDS?"
		ct 10 journalctl -u fpusoakd -n 10 --no-pager -o cat | show /dev/stdin
		ct 30 systemctl stop fpusoakd.socket
		return
	fi
	local code
	code=$(ct 10 curl -sS -o /dev/null -w '%{http_code}' http://127.0.0.1:$port/healthz 2>&1)
	[ "$code" = 200 ] && pass "socket-activated /healthz: 200" || fail "socket-activated /healthz: '$code'"
	# The daemon serves on the inherited socket, not one of its own: the only
	# listener on the port is the one PID 1 also holds.
	local pid mine ours
	pid=$(main_pid)
	mine=$(ct 10 sh -c "for f in /proc/$pid/fd/*; do readlink \$f; done" | sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p' | sort -u)
	ours=$(ct 10 sh -c "for f in /proc/1/fd/*; do readlink \$f; done" | sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p' | sort -u)
	local listen
	listen=$(ct 10 awk -v p="$(printf ':%04X' $port)" '$2 ~ p"$" && $4 == "0A" { print $10 }' /proc/net/tcp /proc/net/tcp6)
	if [ "$(echo "$listen" | grep -c .)" = 1 ] && echo "$mine" | grep -qx "$listen" && echo "$ours" | grep -qx "$listen"; then
		pass "the daemon serves on the socket systemd passed (one listener, inode $listen, held by PID 1 and the daemon)"
	else
		fail "socket activation: listeners on :$port '$(echo $listen)', daemon sockets '$(echo $mine | head -c 80)'"
	fi
	ct 60 systemctl stop fpusoakd.service fpusoakd.socket
}

# An upgrade (here the same package again: dpkg runs prerm upgrade and postinst configure
# <old version> as for any upgrade) restarts the service only if it was running, and keeps
# the changed conffile.
reinstall() { ct 120 env DEBIAN_FRONTEND=noninteractive apt-get install -y --reinstall "/var/tmp/$(basename "$deb")" >"$work/apt.log" 2>&1; }
check_upgrade() {
	local old r n
	ct 60 systemctl stop fpusoakd.service fpusoakd.socket
	if reinstall; then
		sleep 1
		[ "$(prop ActiveState)" = inactive ] && [ -z "$(unit_pids)" ] &&
			pass "upgrade of a stopped (but enabled) service leaves it stopped" ||
			fail "upgrade started a stopped service: $(prop ActiveState)/$(prop SubState)"
	else
		fail "apt-get install --reinstall (stopped service)"
		show "$work/apt.log"
	fi
	grep -q '^workers = ' "$root/etc/fpusoakd/fpusoakd.conf" &&
		pass "upgrade kept the changed conffile /etc/fpusoakd/fpusoakd.conf" ||
		fail "upgrade replaced the changed /etc/fpusoakd/fpusoakd.conf"
	if ! ct 90 systemctl start fpusoakd.service || ! is_running; then
		fail "systemctl start fpusoakd before the upgrade"
		return
	fi
	old=$(main_pid)
	n=$(ct 10 sqlite3 -readonly /var/lib/fpusoakd/fpusoakd.db 'SELECT count(*) FROM v_runs')
	if reinstall && wait_until 30 main_pid_is_new "$old"; then
		pass "upgrade of the running service restarted it (MainPID $old → $(prop MainPID))"
	else
		fail "upgrade of the running service: MainPID $old → $(prop MainPID), $(prop ActiveState)/$(prop SubState)"
		show "$work/apt.log"
	fi
	wait_until 10 runs_at_least $((n + 1))
	r=$(run_reasons | tail -n 2 | tr '\n' ' ')
	[ "$r" = "stopped - " ] && pass "the upgrade ended the old run 'stopped' and began a new one" ||
		fail "runs after the upgrade restart end '$r', want 'stopped -'"
}

# apt-get purge of the running service: it is stopped, and what is left is the database,
# intact, whose place purge names.  The test's own drop-in goes first: it is not the package's.
check_purge() {
	local runs out left st
	rm -rf "$root/etc/systemd/system/fpusoakd.service.d"
	ct 10 systemctl daemon-reload
	is_running || ct 90 systemctl start fpusoakd.service
	runs=$(ct 10 sqlite3 -readonly /var/lib/fpusoakd/fpusoakd.db 'SELECT count(*) FROM v_runs')
	out=$(ct 120 env DEBIAN_FRONTEND=noninteractive apt-get purge -y fpusoakd 2>&1)
	if [ $? = 0 ]; then
		pass "apt-get purge fpusoakd (service running)"
	else
		fail "apt-get purge fpusoakd"
		printf '%s\n' "$out" | show /dev/stdin
	fi
	[ -z "$(unit_pids)" ] && pass "purge stopped the service: no process left in its cgroup" ||
		fail "processes left after purge: $(unit_pids | tr '\n' ' ')"
	st=$(prop LoadState)
	[ "$st" = not-found ] && pass "systemd no longer knows fpusoakd.service (LoadState=$st)" ||
		fail "fpusoakd.service LoadState after purge: '$st', want not-found"
	if grep -q 'fpusoakd: purge keeps your database in /var/lib/fpusoakd: fpusoakd.db' <<<"$out"; then
		pass "purge says where the database is kept: $(grep -m1 'purge keeps' <<<"$out")"
	else
		fail "purge did not say where the database is: $(grep -m3 'fpusoakd' <<<"$out" | tr '\n' ' ')"
	fi
	st=$(ct 10 dpkg-query -W -f '${db:Status-Abbrev}' fpusoakd 2>/dev/null)
	[ -z "$st" ] || [ "${st:1:1}" = n ] && pass "dpkg: fpusoakd not installed, no config-files state ('$st')" ||
		fail "dpkg status after purge: '$st'"
	# Everything on the container's disk with fpusoakd in its name, but the test's copy of the .deb.
	left=$(ct 30 find / -xdev -name '*fpusoakd*' ! -path "/var/tmp/$(basename "$deb")" 2>/dev/null | sort | tr '\n' ' ')
	[ "$left" = "/var/lib/fpusoakd /var/lib/fpusoakd/fpusoakd.db " ] &&
		pass "after purge only the database is left: $left" ||
		fail "after purge, left on disk: '$left' (want /var/lib/fpusoakd/fpusoakd.db only)"
	out=$(ct 10 sqlite3 -readonly /var/lib/fpusoakd/fpusoakd.db 'PRAGMA quick_check; SELECT count(*) FROM v_runs; SELECT end_reason FROM v_runs ORDER BY run_id DESC LIMIT 1' | tr '\n' ' ')
	[ "$out" = "ok $runs stopped " ] && pass "the kept database is intact: quick_check, every run ($runs), the last one 'stopped' by the purge" ||
		fail "the kept database: '$out', want 'ok $runs stopped'"
}

# --------------------------------------------------------------------- main

# As root, the tools first: systemd-container brings systemd (systemd-analyze) along.
if [ "$(id -u)" = 0 ]; then
for t in debootstrap systemd-nspawn nsenter systemd-analyze; do
	command -v $t >/dev/null && continue
	note "installing debootstrap systemd-container"
	s=$(date +%s.%N)
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap systemd-container >/dev/null 2>&1 ||
		{ DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap systemd-container >/dev/null 2>&1; }
	timing "apt-get install debootstrap systemd-container $(elapsed "$s")s"
	break
done
fi

host_checks

if [ "$(id -u)" != 0 ]; then
	skip "booted-systemd test: needs root (debootstrap, nspawn, cgroups)"
	t_done
fi
if ! command -v debootstrap >/dev/null || ! command -v systemd-nspawn >/dev/null; then
	skip "booted-systemd test: debootstrap/systemd-nspawn not installable here"
	t_done
fi

# systemd-nspawn makes / a slave mount first: in a plain chroot / is no mount point
# (/proc/self/mountinfo lists none there) and that fails with EINVAL.
if ! awk '$5 == "/" { found = 1 } END { exit !found }' /proc/self/mountinfo; then
	skip "booted-systemd test: / is not a mount point here (a plain chroot), which systemd-nspawn needs; bind-mount the root onto itself first"
	t_done
fi

trap cleanup EXIT
trap 'fail "interrupted"; exit 1' INT TERM

if ! cg_enter; then
	why=$(no_cgroup_reason)
	skip "booted-systemd test: cannot put the container under a memory limit here${why:+: $why}"
	t_done
fi

s=$(date +%s.%N)
lower=$("$here/mkrootfs.sh" "$cache") || { fail "building the Debian 12 rootfs (mkrootfs.sh)"; t_done; }
timing "rootfs (debootstrap, or cache hit) $(elapsed "$s")s"
t0=$(date +%s.%N)    # the time budget starts once the cache exists

s=$(date +%s.%N)
prepare_root "$lower" || { fail "preparing a fresh root"; t_done; }
if [ $standin = 1 ]; then
	if install_standin; then
		pass "stand-in installed into the container root"
	else
		fail "stand-in install"
		t_done
	fi
else
	check_layout
	deb=$(find_deb) || { fail "no fpusoakd_*.deb: make deb failed"; t_done; }
	note "package: $deb"
fi
# The container's journal keeps to the container: no copy of the host's kernel log.
mkdir -p "$root/etc/systemd/journald.conf.d"
printf '[Journal]\nReadKMsg=no\n' >"$root/etc/systemd/journald.conf.d/50-test.conf"
# The test's one change to the shipped unit: a short watchdog.
mkdir -p "$root/etc/systemd/system/fpusoakd.service.d"
printf '[Service]\nWatchdogSec=6s\n' >"$root/etc/systemd/system/fpusoakd.service.d/50-test.conf"
timing "prepare root $(elapsed "$s")s"

s=$(date +%s.%N)
if boot; then
	timing "container boot $(elapsed "$s")s (nspawn start to system running)"
	pass "container booted: systemd $(ct 5 systemctl --version | sed -n '1s/systemd \([0-9]*\).*/\1/p') is-system-running=$(ct 5 systemctl is-system-running)"
else
	fail "container boot"
	t_done
fi
if [ $standin = 0 ]; then
	s=$(date +%s.%N)
	install_deb || t_done
	timing "apt-get install of the package $(elapsed "$s")s"
fi
# Run with the shipped config, every default uncommented: the daemon must
# accept each key and value as written there, or the start check fails.  (A
# changed conffile, too: the upgrade check below sees dpkg keep it.)
sed 's/^#\([a-z-]* = \)/\1/; s/^#\([a-z-]*\) =$/\1 =/' "$repo/fpusoakd.conf" >"$root/etc/fpusoakd/fpusoakd.conf"
# Uncommented, the cgroup limits are asked for explicitly, and a daemon that cannot apply them does
# not start.  A hybrid host binds memory and pids to cgroup v1, so a container's cgroup2 tree has
# neither: there the run is allowed unconfined (the one value changed), and check_cgroup_layout checks that
# the daemon says so.
hostctl=$(cat /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null || cat /sys/fs/cgroup/cgroup.controllers 2>/dev/null)
case " $hostctl " in
*" memory "*" pids "* | *" pids "*" memory "*) ;;
*) sed -i 's/^allow-unconfined = no$/allow-unconfined = yes/' "$root/etc/fpusoakd/fpusoakd.conf" ;;
esac

if check_start; then
	check_http
	check_journal
	check_status_line
	check_sandbox_reads
	check_watchdog_pings
	check_cgroup_layout
	expired || check_sigkill
	expired || check_sigstop
	expired || check_reload
	expired || check_stop
	expired || check_socket
	if [ $standin = 0 ]; then
		expired || check_upgrade
		expired || check_purge
	fi
	expired && fail "time budget of ${budget}s used up; remaining checks not run"
fi
t_done
