#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fill to OOM: capacity probes (SIGUSR1) fill the workers' 64 MB memory
# cgroup until the OOM killer fires, 3 times (SOAK=1: 20).  After each:
#   - the daemon and its spawner are alive (same PIDs as at the start);
#   - the probe's result is recorded in v_probes: a count of workers in
#     1..256 (64 MiB / 256 KiB each: hand arithmetic) and a stop reason;
#   - churn resumes (population back at the target after the probe);
#   - the OOM kills happened in the workers' group, never in the test's
#     outer group that holds the daemon (its oom_kill counter stays 0).
# pids are not the limit (2000): memory is what runs out.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../reliability/rlib.sh"
if [ "$(id -u)" != 0 ]; then skip "needs root for cgroups"; t_done; fi
command -v sqlite3 >/dev/null || { skip "needs sqlite3"; t_done; }
r_init oom
if ! r_cgroup 512M 2500; then
	why=$(no_cgroup_reason)
	skip "fills to OOM need a memory+pids cgroup: ${why:-the cgroup of this process cannot hold one (cgroup2 without memory and pids delegated here)}"
	t_done
fi
P=${P:-$([ "${SOAK:-0}" = 1 ] && echo 20 || echo 3)}
R_DB=$R_TMP/oom.db
r_start "$R_TMP/d.log" --db "$R_DB" --listen none --kmsg none --sample-interval 200ms --workers 8 --spawn-rate 100 \
	--lifetime 2s --worker-memory 256K --cgroup-memory-max 64M --cgroup-pids-max 2000 --probe-interval 0 \
	--probe-limit 1500 --switch-probe-interval 0
pid=$R_PID
r_wait "SELECT max(population) FROM v_churn" 8 100 || fail "churn did not reach 8 workers: $(tail -3 "$R_TMP/d.log")"
sp=$(r_spawner_of "$pid")
oom_events() { # oom_kill count of a memory cgroup (v1 memory.oom_control, v2 memory.events.local)
	{ cat "$1/memory.oom_control" 2>/dev/null || cat "$1/memory.events.local" 2>/dev/null; } | awk '$1 == "oom_kill" {print $2}'
}
wdir=$(ls -d "$R_CGROUP_MEM"/*/ 2>/dev/null | head -1)
outer0=$(oom_events "$R_CGROUP_MEM")
bad_alive=0 bad_result=0 bad_resume=0 results=()
for i in $(seq "$P"); do
	before=$(q "SELECT count(*) FROM v_probes WHERE kind = 'capacity'")
	t0=$(date +%s%N)
	kill -USR1 "$pid"
	if ! r_wait "SELECT count(*) FROM v_probes WHERE kind = 'capacity'" $((before + 1)) 600; then
		fail "probe $i: no result in 60 s: $(tail -3 "$R_TMP/d.log")"; bad_result=$((bad_result + 1)); break
	fi
	row=$(q "SELECT result || '|' || stop_reason || '|' || duration_ms || '|' || ts_ms FROM v_probes WHERE kind = 'capacity' ORDER BY ts_ms DESC LIMIT 1")
	IFS='|' read -r res reason dur ts <<<"$row"
	n=${res%.*}
	results+=("$n")
	echo "probe $i: $n workers, stopped by $reason, ${dur} ms (round trip $(( ($(date +%s%N) - t0) / 1000000 )) ms)"
	{ [ "$n" -ge 1 ] && [ "$n" -le 256 ] && [ -n "$reason" ]; } || { bad_result=$((bad_result + 1)); echo "probe $i: bad result '$row'"; }
	{ r_alive "$pid" && r_alive "$sp"; } || { bad_alive=$((bad_alive + 1)); echo "probe $i: daemon or spawner gone"; break; }
	if ! r_wait "SELECT count(*) > 0 FROM v_churn WHERE ts_ms > $ts + $dur AND population = 8" 1 100; then
		bad_resume=$((bad_resume + 1)); echo "probe $i: churn did not come back to 8 workers within 10 s"
	fi
done
[ "$bad_alive" = 0 ] && pass "daemon (pid $pid) and spawner (pid $sp) survived $P fills to OOM" || fail "daemon or spawner died during the probes"
[ "$bad_result" = 0 ] && pass "$P capacity results recorded in v_probes, each 1..256 workers: ${results[*]}" || fail "$bad_result probes without a sane result"
[ "$bad_resume" = 0 ] && pass "churn resumed at 8 workers after each of the $P probes" || fail "churn did not resume after $bad_resume probes"
wk=$(oom_events "${wdir%/}")
[ -n "$wk" ] && [ "$wk" -ge 1 ] && pass "the OOM killer acted in the workers' group ($wk kills in ${wdir%/})" \
	|| echo "note: workers' group oom_kill counter '$wk' (probes may stop at a failed spawn before the OOM killer)"
outer1=$(oom_events "$R_CGROUP_MEM")
[ "${outer1:-0}" = "${outer0:-0}" ] && pass "no OOM kill outside the workers' group (test group oom_kill ${outer1:-0})" \
	|| fail "OOM kills in the group holding the daemon: ${outer0:-0} -> $outer1"
reasons=$(q "SELECT group_concat(stop_reason, ', ') FROM (SELECT DISTINCT stop_reason FROM v_probes WHERE kind = 'capacity')")
echo "stop reasons: $reasons"
# The invariant holds through OOM kills: spawned = exited + killed + alive on every row.
bad=$(q "SELECT count(*) FROM (SELECT population, sum(spawned) OVER w AS s,
	sum(exited + killed_sigkill + killed_sigsegv + killed_sigill + killed_other) OVER w AS e
	FROM v_churn WINDOW w AS (ORDER BY ts_ms)) WHERE s != e + population")
check "churn accounting (spawned = exited + killed + alive) holds on every row through the OOM kills" test "$bad" = 0
kill -TERM "$pid"; wait "$pid"; rc=$?
[ $rc = 0 ] && pass "clean stop after the probes (exit 0)" || fail "exit $rc: $(tail -3 "$R_TMP/d.log")"
check "integrity_check ok" test "$(q "PRAGMA integrity_check")" = ok
echo "took $(r_elapsed) s"
t_done
