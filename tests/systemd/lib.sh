# SPDX-License-Identifier: GPL-2.0-only
# The booted-systemd test's harness (bash; sourced by tests/systemd/run.sh, which sets repo, here,
# budget, t0, cgname, machine, port and the container's state: work, root, nspawn_pid, leader).
#
#   elapsed T0 / timing TEXT / note TEXT / show FILE / expired    time, and lines for the log
#   cg_enter / cg_leave             the memory+pids cgroups everything the test starts runs in
#   ct SECS CMD... / prop KEY [UNIT] a command inside the booted container; a unit's property
#   wait_until SECS CMD...          poll until CMD succeeds
#   main_pid, is_running, main_pid_is_new OLD, describe_unit_pids, unit_cg, unit_pids
#                                   the service as systemd sees it, and its processes
#   prepare_root LOWER / install_standin / find_leader / boot / poweroff / cleanup
#                                   the container's root, its boot and its end (cleanup is the EXIT trap)
#   run_ok TEXT SECS CMD... / run_reasons / runs_at_least N / has_status
#                                   checks' helpers: a command's PASS/FAIL, the runs in the container's DB
#
# The scenarios (tests/systemd/scenarios/*.sh) define the checks; run.sh runs them in order.

elapsed() { echo "$(date +%s.%N) $1" | awk '{ printf "%.1f", $1 - $2 }'; }
timing() { echo "TIME: $T_NAME: $*"; }
note() { echo "      $*"; }
# Print a command's captured output under a failure, indented and bounded.
show() { sed -n '1,40p' "$1" | sed 's/^/      | /'; }
expired() { [ "$(elapsed "$t0" | cut -d. -f1)" -ge "$budget" ]; }


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

