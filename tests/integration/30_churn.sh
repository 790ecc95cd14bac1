#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# 30_churn: the churn engine with real processes, checked from the outside.
#
# Everything runs inside a sandbox cgroup (64 MB memory, 1000 PIDs) and
# under timeouts; only PIDs this script started are signalled; every cgroup
# created here is removed.  The checks read the kernel's files (cgroup.procs,
# /proc) and recompute the accounting invariant with awk, independently of
# the engine's own check.
#   1. 10 s of churn: population reaches the target, invariant, clean stop.
#   2. SIGKILL of the process that owns the spawner: no worker survives.
#   3. The daemon ($FPUSOAKD), if it has churn: SIGTERM and SIGKILL leave no worker.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need pgrep:procps
BUILD=${BUILD:-$(pwd)/build}

if [ "$(id -u)" != 0 ]; then
	skip "needs root (cgroups)"
	t_done
fi
# Every check here counts processes in a cgroup (churn_bench refuses to run outside its sandbox);
# 40_daemon_churn.sh checks the unconfined daemon's stops where there is none.
nocg=$(no_cgroup_reason)
if [ -n "$nocg" ]; then
	skip "the engine's sandbox and the workers' cgroup: $nocg"
	t_done
fi
bench=$(churn_bench_path) || { fail "build churn_bench"; t_done; }

field() { # field NAME LINE: value of NAME=value in LINE
	sed -n "s/.*[ ^]$1=\([^ ]*\).*/\1/p" <<<" $2"
}

wait_empty() { # wait_empty DIR...: up to 5 s until every DIR/cgroup.procs is empty (or gone)
	local i d busy
	for i in $(seq 100); do
		busy=0
		for d in "$@"; do
			[ -n "$d" ] && [ -s "$d/cgroup.procs" ] && busy=1
		done
		[ $busy = 0 ] && return 0
		sleep 0.05
	done
	return 1
}

rmdirs() { # rmdirs DIR...: remove (empty) cgroups, children first, retrying while exits finish
	local d i
	for d in "$@"; do
		[ -n "$d" ] && [ -d "$d" ] || continue
		for i in $(seq 50); do rmdir "$d" 2>/dev/null && break; sleep 0.05; done
	done
}

# ---- 1. 10 s of churn in a 64 MB group ----------------------------------------------------------
out=$(timeout -k 5 90 "$bench" --workers 16 --rate 100 --lifetime 1s --seconds 10 --cg-memory 64M --cg-pids 200 -v 2>&1)
final=$(grep '^final ' <<<"$out")
check "10 s churn: engine reports invariant ok and a clean stop" grep -q 'invariant=ok close=clean' <<<"$out"
check "population reached the target of 16" grep -q 'churn 16/16 workers' <<<"$out"
sum=$(awk '/^final /{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	print v["spawned"] - (v["exited"] + v["killed_sigkill"] + v["killed_sigsegv"] + v["killed_sigill"] + v["killed_other"] + v["population"]) }' <<<"$out")
check "awk: spawned = exited + killed + alive (difference ${sum:-?})" test "${sum:-x}" = 0
spawned=$(field spawned "$final")
# More than two generations of 16 (1 s lives over 10 s: ~160 on an idle machine, 89 beside a loaded
# make test, where workers at nice 19 take their time to exit): churn happened, whatever the CPU.
check "workers churned (${spawned:-0} spawned in 10 s)" test "${spawned:-0}" -gt 32
check "no spawn failures or kills" test "$(field eagain "$final")$(field killed_sigkill "$final")$(field killed_other "$final")" = 000

# ---- 2. SIGKILL of the spawner's owner ----------------------------------------------------------
log=$(mktemp)
timeout -k 5 60 "$bench" --workers 16 --rate max --lifetime 60s --dist fixed --hold --cg-memory 64M >"$log" 2>&1 &
for i in $(seq 100); do grep -q '^ready ' "$log" && break; sleep 0.1; done
owner=$(sed -n 's/^pid=//p' "$log")
spawner=$(sed -n 's/^ready spawner=//p' "$log")
wdir=$(sed -n 's/^workers_group=//p' "$log")
pdir=$(sed -n 's/^pids_group=//p' "$log")
sbdir=$(sed -n 's/^sandbox=//p' "$log")
sbpdir=$(sed -n 's/^sandbox_pids=//p' "$log")
if [ -z "$owner" ] || [ -z "$spawner" ] || [ -z "$wdir" ]; then
	fail "churn_bench --hold did not start: $(tr '\n' ' ' <"$log")"
else
	# On v1 the spawner sits in the memory group too (churn/cgroup.h): count the others.
	for i in $(seq 60); do [ "$(grep -cvx "$spawner" "$wdir/cgroup.procs")" -ge 16 ] && break; sleep 0.05; done
	workers=$(grep -v "^$spawner\$" "$wdir/cgroup.procs" | tr '\n' ' ')
	check "16 workers running before the kill" test "$(wc -w <<<"$workers")" -ge 16
	# Each PID with its start time: on a busy machine a PID freed by the kill may be another's by the
	# time it is looked at again.
	born=()
	for p in $workers $spawner; do born+=("$p:$(awk '{print $22}' "/proc/$p/stat" 2>/dev/null)"); done
	kill -KILL "$owner"
	wait 2>/dev/null
	check "after SIGKILL of the owner the workers' cgroup.procs empties" wait_empty "$wdir" "$pdir"
	# Gone, or a zombie waiting for init: either way not running.  A SIGKILLed task leaves cgroup.procs
	# as it starts to exit, and at nice 19 on a loaded machine its exit (freeing its memory) can take a
	# while: wait for that with a deadline of 10 s.
	for i in $(seq 100); do
		alive=0
		for pb in "${born[@]}"; do
			read -r st t <<<"$(awk '{print $3, $22}' "/proc/${pb%%:*}/stat" 2>/dev/null)"
			[ -n "$st" ] && [ "$st" != Z ] && [ "$t" = "${pb#*:}" ] && alive=$((alive + 1))
		done
		[ "$alive" = 0 ] && break
		sleep 0.1
	done
	check "no worker and no spawner still running ($alive left)" test $alive = 0
	rmdirs "$wdir" "$pdir" "$sbdir" "$sbpdir"
	check "leftover groups removed" test ! -d "$wdir" -a ! -d "$sbdir"
fi
rm -f "$log"

# ---- 3. the daemon ------------------------------------------------------------------------------
if [ -z "${FPUSOAKD:-}" ] || ! "$FPUSOAKD" --help 2>/dev/null | grep -q -- '--workers'; then
	skip "no daemon with churn flags (\$FPUSOAKD): daemon SIGTERM/SIGKILL checks not run"
	t_done
fi
sb_name=fpusoak-it30-$$
mem_self=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
pids_self=$(awk -F: '$2 ~ /(^|,)pids(,|$)/ {print $3}' /proc/self/cgroup)
if [ -z "$mem_self" ] || [ ! -d /sys/fs/cgroup/memory ]; then
	skip "daemon checks need a cgroup v1 memory hierarchy for their sandbox"
	t_done
fi
SBM=/sys/fs/cgroup/memory${mem_self%/}/$sb_name
SBP=/sys/fs/cgroup/pids${pids_self%/}/$sb_name
mkdir "$SBM" "$SBP" || { fail "create the daemon sandbox"; t_done; }
echo 64M >"$SBM/memory.limit_in_bytes"
[ -f "$SBM/memory.memsw.limit_in_bytes" ] && echo 64M >"$SBM/memory.memsw.limit_in_bytes"
echo 1000 >"$SBP/pids.max"
tmp=$(mktemp -d)

run_daemon() { # run_daemon LOG: start the daemon inside the sandbox; its PID in $dpid
	bash -c 'echo $$ >"$1/cgroup.procs" && echo $$ >"$2/cgroup.procs" && shift 2 && exec "$@"' _ "$SBM" "$SBP" \
		"$FPUSOAKD" --db "$tmp/db" --listen none --kmsg none --duration 60s --workers 16 --spawn-rate 100 \
		--lifetime 2s --cgroup-memory-max 48M --cgroup-pids-max 200 --probe-interval 0 \
		--switch-probe-interval 0 >"$1" 2>&1 &
	dpid=$!
}

for sig in TERM KILL; do
	run_daemon "$tmp/log.$sig"
	# The group is named after the DB (fpusoakd-workers-<hash>, churn/cgroup.h), the only one in the sandbox.
	for i in $(seq 50); do wd=$(ls -d "$SBM"/fpusoakd-workers-* 2>/dev/null | head -1); [ -n "$wd" ] && break; sleep 0.1; done
	wp=$SBP/${wd##*/}
	# Workers live 2 s: one that just exited may not be replaced yet, so look for 16 at some moment.
	seen=0
	for i in $(seq 100); do
		# Not the spawner (the daemon's child), which sits in the v1 memory group too.
		sp=$(pgrep -P "$dpid" | head -1)
		n=$(grep -cvx "${sp:-0}" "$wd/cgroup.procs" 2>/dev/null); n=${n:-0}
		[ "$n" -gt "$seen" ] && seen=$n
		[ "$seen" -ge 16 ] && break
		sleep 0.1
	done
	check "daemon: 16 workers in $wd (most seen: $seen)" test "$seen" -ge 16
	kill -"$sig" "$dpid"
	rc=0
	for i in $(seq 150); do kill -0 "$dpid" 2>/dev/null || break; sleep 0.1; done
	wait "$dpid" 2>/dev/null
	rc=$?
	if [ "$sig" = TERM ]; then
		check "daemon: SIGTERM stops it cleanly (exit $rc)" test "$rc" = 0
		check "daemon: SIGTERM removed the workers' group" test ! -d "$wd"
	fi
	check "daemon: after SIG$sig no worker is left" wait_empty "$wd" "$wp"
	rmdirs "$wd" "$wp"
done
rmdirs "$SBM" "$SBP"
check "daemon sandbox removed" test ! -d "$SBM" -a ! -d "$SBP"
rm -rf "$tmp"
t_done
