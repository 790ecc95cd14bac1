#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# 31_churn_caps: live churn workers hold no capability and cannot gain one, and (when bound at
# load) do not inherit the daemon's libraries.
#
# The spawner starts with the daemon's capabilities and drops all of them once it has set itself
# up, so workers inherit none (a worker whose spawner could not drop them drops its own:
# worker/worker.c).  Read from the kernel (/proc/PID/status) for the spawner and the live workers of
#   1. the engine alone (build/tests/churn_bench --spawner none: the spawner runs in its forked
#      copy, its own sandbox cgroup; run with LD_BIND_NOW=1), and
#   2. the daemon ($FPUSOAKD, which execs the static fpusoakd-spawner beside it) in a 64 MB /
#      1000-PID sandbox cgroup (where no cgroup v1 memory hierarchy is writable: without one,
#      unconfined, as the daemon runs there: at most 64 workers, 8 here),
# and compared with the process that started the spawner, which must hold capabilities (else the
# check proves nothing and is skipped).  Libraries: /proc/PID/maps of the spawner and of each live
# worker may name no file but the executable, libc, libm and ld.so (the forked copy unmaps the
# rest from itself: spawner/spawner_fork.c, spawner_fork_shed; the static spawner maps only itself), while
# the process that started them maps more; checked only where the executable is bound at load
# (-z now or LD_BIND_NOW), else skipped with the reason.
# Bounded by timeouts; only PIDs started here are signalled; groups are removed.  Without
# cgroups (a chroot, a container) part 1 is skipped with the reason: churn_bench refuses to run
# outside its sandbox.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
BUILD=${BUILD:-$(pwd)/build}
need pgrep:procps readelf:binutils
nocg=$(no_cgroup_reason)

if [ "$(id -u)" != 0 ]; then
	skip "needs root (cgroups, and capabilities to drop)"
	t_done
fi
bench=$(churn_bench_path) || { fail "build churn_bench"; t_done; }

status_field() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$2/status" 2>/dev/null; }

# check_workers WHAT SPAWNER OWNER: every live child of SPAWNER has no capability and no_new_privs set.
check_workers() {
	local what=$1 sp=$2 owner_pid=$3 kids="" i p bad=0 n=0 eff
	for i in $(seq 100); do
		kids=$(pgrep -P "$sp" | tr '\n' ' ')
		[ "$(wc -w <<<"$kids")" -ge 4 ] && break
		sleep 0.1
	done
	eff=$(status_field CapEff "$owner_pid")
	if [ -z "$eff" ] || [ "$eff" = 0000000000000000 ]; then
		skip "$what: the process that started the spawner holds no capability (CapEff ${eff:-?}): nothing to drop"
		return
	fi
	pass "$what: the process that started the spawner holds capabilities (CapEff $eff)"
	check "$what: the spawner dropped every capability and set NoNewPrivs (CapEff $(status_field CapEff "$sp") CapPrm $(status_field CapPrm "$sp") NoNewPrivs $(status_field NoNewPrivs "$sp"))" \
		test "$(status_field CapEff "$sp")$(status_field CapPrm "$sp")$(status_field CapAmb "$sp")$(status_field NoNewPrivs "$sp")" = 0000000000000000000000000000000000000000000000001
	for p in $kids; do
		local e pr ih am nnp
		e=$(status_field CapEff "$p"); pr=$(status_field CapPrm "$p"); ih=$(status_field CapInh "$p")
		am=$(status_field CapAmb "$p"); nnp=$(status_field NoNewPrivs "$p")
		[ -z "$e" ] && continue        # exited in between
		n=$((n + 1))
		if [ "$e$pr$ih$am" != 0000000000000000000000000000000000000000000000000000000000000000 ] || [ "$nnp" != 1 ]; then
			bad=$((bad + 1))
			echo "  worker $p: CapEff=$e CapPrm=$pr CapInh=$ih CapAmb=$am NoNewPrivs=$nnp"
		fi
	done
	check "$what: live workers found ($n)" test "$n" -ge 4
	check "$what: every live worker has CapEff/CapPrm/CapInh/CapAmb 0000000000000000 and NoNewPrivs 1 ($bad of $n not)" \
		test "$n" -ge 1 -a "$bad" = 0
	check_libraries "$what" "$sp" "$kids" "$owner_pid"
}

# other_files PID EXE: the files PID maps besides EXE, libc, libm and ld.so, one per line.
other_files() {
	# /dev/zero: the spawner's PID table, a shared anonymous mapping (spawner/spawner_tab.c, spawner_tab_alloc).
	awk -v exe="$2" '$6 ~ /^\// && $6 != exe && $6 != "/dev/zero" && $6 !~ /\/lib[cm]\.so[.0-9]*$/ && $6 !~ /\/ld-linux[^\/]*\.so[.0-9]*$/ { print $6 }' \
		"/proc/$1/maps" 2>/dev/null | sort -u
}

# check_libraries WHAT SPAWNER KIDS OWNER: the spawner and its live workers map no file but the
# executable, libc, libm and ld.so, while OWNER (which forked the spawner) maps more.
check_libraries() {
	local what=$1 sp=$2 kids=$3 owner_pid=$4 exe p extra n=0 bad=0 olibs
	exe=$(readlink "/proc/$sp/exe")
	if ! grep -q '^LD_BIND_NOW=.' "/proc/$sp/environ" 2>/dev/null && ! readelf -d "$exe" 2>/dev/null | grep -qE 'BIND_NOW|Flags:.* NOW'; then
		skip "$what: $exe not bound at load (no -z now, no LD_BIND_NOW): workers inherit every library by design"
		return
	fi
	olibs=$(other_files "$owner_pid" "$exe" | wc -l)
	check "$what: the process that started the spawner maps other libraries ($olibs), so there is something to shed" \
		test "$olibs" -gt 0
	extra=$(other_files "$sp" "$exe")
	check "$what: the spawner unmapped every library but libc, libm and ld.so (left: ${extra:-none})" test -z "$extra"
	for p in $kids; do
		[ -r "/proc/$p/maps" ] || continue
		extra=$(other_files "$p" "$exe")
		n=$((n + 1))
		[ -n "$extra" ] && { bad=$((bad + 1)); echo "  worker $p maps:" $extra; }
	done
	check "$what: no live worker maps a library beyond the executable, libc, libm and ld.so ($bad of $n do)" \
		test "$n" -ge 1 -a "$bad" = 0
}

# ---- 1. the engine alone ------------------------------------------------------------------------
log=$(mktemp)
if [ -n "$nocg" ]; then
	skip "engine: churn_bench runs only inside a sandbox cgroup: $nocg"
else
(LD_BIND_NOW=1 exec timeout -k 5 60 "$bench" --spawner none --workers 8 --rate max --lifetime 60s --dist fixed --hold --cg-memory 64M >"$log" 2>&1) &
owner_job=$!
for i in $(seq 100); do grep -q '^ready ' "$log" && break; sleep 0.1; done
owner=$(sed -n 's/^pid=//p' "$log")
spawner=$(sed -n 's/^ready spawner=//p' "$log")
if [ -z "$owner" ] || [ -z "$spawner" ]; then
	fail "churn_bench --hold did not start: $(tr '\n' ' ' <"$log")"
else
	check_workers "engine" "$spawner" "$owner"
	# SIGTERM: churn_bench is not waiting for it, so use the test's own kill path (30_churn.sh, part 2).
	kill -KILL "$owner"
fi
wait "$owner_job" 2>/dev/null
# Children first: a sandbox cannot go while the workers' group inside it exists.
for k in workers_group pids_group sandbox sandbox_pids; do
	d=$(sed -n "s/^$k=//p" "$log")
	for i in $(seq 50); do [ -n "$d" ] && [ -d "$d" ] || break; rmdir "$d" 2>/dev/null && break; sleep 0.1; done
	[ -n "$d" ] && [ -d "$d" ] && fail "engine: cannot remove $d"
done
fi
rm -f "$log"

# ---- 2. the daemon ------------------------------------------------------------------------------
if [ -z "${FPUSOAKD:-}" ] || ! "$FPUSOAKD" --help 2>/dev/null | grep -q -- '--workers'; then
	skip "no daemon with churn flags (\$FPUSOAKD): daemon check not run"
	t_done
fi
mem_self=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
pids_self=$(awk -F: '$2 ~ /(^|,)pids(,|$)/ {print $3}' /proc/self/cgroup)
SBM='' SBP=''
if [ -n "$mem_self" ] && [ -w /sys/fs/cgroup/memory ] && [ -w /sys/fs/cgroup/pids ]; then
	SBM=/sys/fs/cgroup/memory${mem_self%/}/fpusoak-it31-$$
	SBP=/sys/fs/cgroup/pids${pids_self%/}/fpusoak-it31-$$
	mkdir "$SBM" "$SBP" || { fail "create the daemon sandbox"; t_done; }
	echo 64M >"$SBM/memory.limit_in_bytes"
	[ -f "$SBM/memory.memsw.limit_in_bytes" ] && echo 64M >"$SBM/memory.memsw.limit_in_bytes"
	echo 1000 >"$SBP/pids.max"
elif [ -z "$nocg" ]; then
	skip "daemon sandbox: no writable cgroup v1 memory and pids hierarchy; the daemon confines its own workers"
else
	skip "daemon sandbox: $nocg; the daemon runs unconfined (at most 64 workers; 8 here)"
fi
tmp=$(mktemp -d)
bash -c '[ -z "$1" ] || { echo $$ >"$1/cgroup.procs" && echo $$ >"$2/cgroup.procs"; } && shift 2 && exec "$@"' _ "$SBM" "$SBP" \
	"$FPUSOAKD" --db "$tmp/db" --listen none --kmsg none --duration 30s --workers 8 --spawn-rate max \
	--lifetime 60s --lifetime-dist fixed --cgroup-memory-max 48M --cgroup-pids-max 100 ${nocg:+--allow-unconfined} --probe-interval 0 \
	--switch-probe-interval 0 >"$tmp/log" 2>&1 &
dpid=$!
for i in $(seq 100); do sp=$(pgrep -P "$dpid" | head -1); [ -n "$sp" ] && break; sleep 0.1; done
if [ -z "$sp" ]; then
	fail "daemon: no spawner appeared: $(tail -3 "$tmp/log" | tr '\n' ' ')"
else
	check_workers "daemon" "$sp" "$dpid"
	spexe=$(readlink "/proc/$sp/exe")
	check "daemon: the spawner is the static fpusoakd-spawner beside the daemon ($spexe)" \
		test "$spexe" = "$(dirname "$(readlink -f "$FPUSOAKD")")/fpusoakd-spawner"
	check "daemon: the static spawner maps no file but itself and its table ($(awk '$6 ~ /^\// { print $6 }' "/proc/$sp/maps" | sort -u | tr '\n' ' '))" \
		test -z "$(awk -v e="$spexe" '$6 ~ /^\// && $6 != e && $6 != "/dev/zero"' "/proc/$sp/maps")"
fi
kill -TERM "$dpid" 2>/dev/null
for i in $(seq 150); do kill -0 "$dpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$dpid" 2>/dev/null && kill -KILL "$dpid"
wait "$dpid" 2>/dev/null
check "daemon: workers' accounting balanced at stop (no 'does not balance' warning)" \
	bash -c "! grep -q 'does not balance' '$tmp/log'"
if [ -n "$SBM" ]; then
	for d in "$SBM"/fpusoakd-workers-* "$SBP"/fpusoakd-workers-* "$SBM" "$SBP"; do
		for i in $(seq 50); do [ -d "$d" ] || break; rmdir "$d" 2>/dev/null && break; sleep 0.1; done
	done
	check "daemon sandbox removed" test ! -d "$SBM" -a ! -d "$SBP"
fi
rm -rf "$tmp"
t_done
