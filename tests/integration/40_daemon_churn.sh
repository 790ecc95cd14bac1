#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The daemon's churn end to end, on real processes, inside the memory- and pids-limited cgroup
# the daemon makes for its workers, bounded in time, killing only PIDs it started.  Where no
# cgroup can be made (a chroot, a container without cgroup access) the daemon runs unconfined
# (at most 64 workers, probes stop at 64): that is checked, and the checks that need its
# cgroup's limits (C, G) are skipped with the reason.
. "$(dirname "$0")/../lib.sh"
FPUSOAKD=${FPUSOAKD:-build/fpusoakd}
if [ "$(id -u)" != 0 ]; then skip "needs root for cgroups"; t_done; fi
need pgrep:procps sqlite3:sqlite3 python3:python3
nocg=$(no_cgroup_reason)
tmp=$(mktemp -d /tmp/fpusoak-churn-XXXXXX); pid=
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
q() { sqlite3 -batch -noheader "$db" "$1"; }
wait_for() { for i in $(seq ${3:-100}); do [ "$(q "$1" 2>/dev/null)" = "$2" ] && return 0; sleep 0.1; done; return 1; }
spawner_of() { pgrep -P "$1" | head -1; }
# Zombies count as dead: PID 1 in some sandboxes never reaps what it inherits.
alive() { [ -r /proc/$1/status ] && ! grep -q "^State:.*Z" /proc/$1/status 2>/dev/null; }
# Without a cgroup the explicit limits would stop the daemon at start: there it is allowed to run
# unconfined, as an operator would run it there, and the checks below test that.
UNCONF=${nocg:+--allow-unconfined}
SAFE="--cgroup-memory-max 64M --cgroup-pids-max 300 $UNCONF --listen none --kmsg none --switch-probe-interval 0"

# A: population, invariant, provoked deaths, clean stop.
db=$tmp/a.db
# Fixed 5 s lifetimes: the two victims picked right after start cannot exit before the test kills them.
"$FPUSOAKD" --db "$db" $SAFE --sample-interval 200ms --workers 24 --spawn-rate 200 --lifetime 5s \
	--lifetime-dist fixed --probe-interval 0 >"$tmp/a.log" 2>&1 & pid=$!
wait_for "SELECT max(population) FROM v_churn" 24 && pass "population reaches the target 24" || fail "population $(q "SELECT max(population) FROM v_churn")"
if [ -n "$nocg" ]; then
	check "no cgroup here: the daemon says it runs unconfined, at most 64 workers ($(grep -m1 -o 'cannot confine.*' "$tmp/a.log" | cut -c1-100))" \
		grep -q 'churn: cannot confine workers in a cgroup (.*); running unconfined: at most 64 workers' "$tmp/a.log"
else
	check "cgroups here: the daemon confines its workers (no 'cannot confine' warning)" bash -c "! grep -q 'cannot confine workers' '$tmp/a.log'"
fi
sp=$(spawner_of $pid)
victims=($(pgrep -P "$sp" | head -2))
if [ ${#victims[@]} -eq 2 ]; then
	kill -KILL "${victims[0]}"; kill -SEGV "${victims[1]}"
	wait_for "SELECT sum(killed_sigkill) >= 1 AND sum(killed_sigsegv) >= 1 FROM v_churn" 1 \
		&& pass "worker killed by the test with SIGKILL and SIGSEGV counted as such" \
		|| fail "provoked deaths: $(q "SELECT sum(killed_sigkill), sum(killed_sigsegv) FROM v_churn")"
else
	fail "no workers found under spawner $sp"
fi
wait_for "SELECT sum(exited) > 24 FROM v_churn" 1 120 && pass "workers exit at the end of their lifetime and are replaced" \
	|| fail "no natural exits: $(q "SELECT sum(exited) FROM v_churn")"
kids=$(pgrep -P "$sp" | tr '\n' ' ')
# Invariant at every stored row: spawned so far = exited + killed so far + alive now.
bad=$(q "SELECT count(*) FROM (SELECT ts_ms, population,
	sum(spawned) OVER w AS s, sum(exited + killed_sigkill + killed_sigsegv + killed_sigill + killed_other) OVER w AS e
	FROM v_churn WINDOW w AS (ORDER BY ts_ms)) WHERE s != e + population")
rows=$(q "SELECT count(*) FROM v_churn")
[ "$bad" = 0 ] && [ "$rows" -gt 10 ] && pass "spawned = exited + killed + alive on all $rows rows" || fail "invariant broken on $bad of $rows rows"
check "no spawn failures without a cause" test "$(q "SELECT sum(spawn_failed_eagain + spawn_failed_enomem + spawn_failed_other) FROM v_churn")" = 0
check "FPU kind recorded (auto resolved)" test -n "$(q "SELECT fpu_kind FROM v_runs WHERE fpu_kind IN ('x87','sse','avx','avx512','amx')")"
kill -TERM $pid; wait $pid; rc=$?; pid=
[ $rc = 0 ] && pass "SIGTERM with churn: exit 0" || fail "SIGTERM with churn: exit $rc"
sleep 0.5
left=0; for k in $sp $kids; do alive "$k" && left=$((left + 1)); done
[ $left = 0 ] && pass "after SIGTERM no spawner or worker survives" || fail "$left processes survive SIGTERM"

# B: SIGKILL of the daemon: PDEATHSIG takes the spawner and every worker with it.
db=$tmp/b.db
"$FPUSOAKD" --db "$db" $SAFE --sample-interval 200ms --workers 16 --spawn-rate 200 --lifetime 30s \
	--probe-interval 0 >"$tmp/b.log" 2>&1 & pid=$!
wait_for "SELECT max(population) FROM v_churn" 16 || fail "B: population never reached 16"
sp=$(spawner_of $pid); kids=$(pgrep -P "$sp" | tr '\n' ' ')
kill -KILL $pid; wait $pid 2>/dev/null; pid=
# PDEATHSIG is immediate, but a worker inside its cgroup.procs write (uninterruptible, serialised on
# cgroup v1) takes the SIGKILL only when that write returns: allow 5 s, not a fixed 1 s.
for i in $(seq 50); do
	left=0; for k in $sp $kids; do alive "$k" && left=$((left + 1)); done
	[ $left = 0 ] && break
	sleep 0.1
done
[ $left = 0 ] && [ -n "$kids" ] && pass "after SIGKILL of the daemon no spawner or worker survives ($(echo $kids | wc -w) workers, gone within $((i * 100)) ms)" \
	|| fail "$left processes survive SIGKILL of the daemon by 5 s: $(for k in $sp $kids; do alive "$k" && grep -E '^(Name|State)' /proc/$k/status | tr '\n' ' '; done)"

# C: a pids limit below the target provokes EAGAIN, counted as such.
if [ -n "$nocg" ]; then
	skip "C: pids limit 8 of the workers' cgroup: $nocg"
else
db=$tmp/c.db
"$FPUSOAKD" --db "$db" --cgroup-memory-max 64M --cgroup-pids-max 8 --listen none --kmsg none --switch-probe-interval 0 \
	--sample-interval 200ms --workers 16 --spawn-rate 100 --lifetime 30s --probe-interval 0 --duration 3s >"$tmp/c.log" 2>&1
check "pids limit 8 with 16 workers: spawn failures counted as EAGAIN" test "$(q "SELECT sum(spawn_failed_eagain) > 0 FROM v_churn")" = 1
check "pids limit holds the population at 8 or under" test "$(q "SELECT max(population) <= 8 FROM v_churn")" = 1
fi

# U: unconfined (no cgroup here), the population is capped at 64 whatever --workers says.
if [ -n "$nocg" ]; then
	db=$tmp/u.db
	"$FPUSOAKD" --db "$db" $SAFE --sample-interval 200ms --workers 100 --spawn-rate max --lifetime 30s \
		--probe-interval 0 --duration 4s >"$tmp/u.log" 2>&1
	check "unconfined: --workers 100 holds at the cap of 64 (max population $(q "SELECT max(population) FROM v_churn"))" \
		test "$(q "SELECT max(population) FROM v_churn")" = 64
fi

# D: a capacity probe (SIGUSR1) in a 48 MB cgroup: positive count, a stop reason, churn resumes.
db=$tmp/d.db
"$FPUSOAKD" --db "$db" --cgroup-memory-max 48M --cgroup-pids-max 2000 $UNCONF --listen none --kmsg none --switch-probe-interval 0 \
	--sample-interval 200ms --workers 4 --spawn-rate 50 --lifetime 1s --probe-interval 0 --probe-limit 1500 \
	--worker-memory 256K >"$tmp/d.log" 2>&1 & pid=$!
wait_for "SELECT max(population) FROM v_churn" 4 || fail "D: churn did not start"
kill -USR1 $pid
if wait_for "SELECT count(*) FROM v_probes WHERE kind='capacity'" 1 600; then
	r=$(q "SELECT result || '|' || stop_reason || '|' || duration_ms FROM v_probes WHERE kind='capacity'")
	n=${r%%|*}
	python3 -c "import sys; sys.exit(0 if float('$n') > 0 else 1)" && pass "capacity probe in ${nocg:+no cgroup (unconfined, stops at 64), not }48 MB: $r" || fail "capacity probe result: $r"
	check "probe stop reason recorded" test -n "$(q "SELECT stop_reason FROM v_probes WHERE kind='capacity' AND stop_reason != ''")"
	check "buddyinfo before the probe recorded" test "$(q "SELECT buddyinfo_before LIKE 'Node 0, zone%' FROM v_probes WHERE kind='capacity'")" = 1
	# Where and under which limits it ran: columns since schema 015 (v_probe_capacity), and v_probes.detail
	# the spawner's key=value text made of them, every field in its place.
	c=$(q "SELECT scope || ' ' || probe_limit || ' ' || worker_memory || ' ' || cgroup || ' ' || mem_limit || ' ' ||
		mem_limit_lifted || ' ' || (spawned >= ready) || ' ' || (ready >= workers) FROM v_probe_capacity")
	if [ -n "$nocg" ]; then want="cgroup 1500 262144 none 0 0 1 1"; else want="cgroup 1500 262144 v[12]:[a-z-]*-[0-9a-f]\{12\} 50331648 0 1 1"; fi
	check "D: the probe's conditions as columns ($c)" sh -c "echo '$c' | grep -qx '$want'"
	d=$(q "SELECT detail FROM v_probes WHERE kind='capacity'")
	if [ -n "$nocg" ]; then chg=none; else chg="group|outside"; fi
	re="^scope=cgroup limit=1500 spawned=[0-9]+ ready=[0-9]+ oom_kills=[0-9]+ worker_memory=262144 fpu=[a-z0-9]+"
	re="$re mem_limit=[0-9]+ mem_peak=[0-9]+ retire_ms=-?[0-9]+ release_ms=-?[0-9]+ fork_charge=($chg) cgroup=[^ ]+"
	re="$re mem_limit_lifted=0 pids_limit=[0-9]+ gfp_mode=off gfp_failed=0 time_limit_ms=300000( timeout=(fill|step))?\$"
	check "D: v_probes.detail is the spawner's key=value text, every field in its place ($d)" sh -c "echo '$d' | grep -Eq '$re'"
	check "D: ... made of the probe's columns" test "$(q "SELECT count(*) FROM v_probes p JOIN v_probe_capacity c USING (run_id, ts_ms)
		WHERE p.detail LIKE '% mem_limit=' || c.mem_limit || ' mem_peak=' || c.mem_peak || ' %'
		AND p.detail LIKE '% cgroup=' || c.cgroup || ' %'")" = 1
	check "D: and no text is stored" test "$(q "SELECT count(*) FROM probes WHERE detail IS NOT NULL")" = 0
	t=$(q "SELECT ts_ms + duration_ms FROM v_probes WHERE kind='capacity'")
	wait_for "SELECT count(*) > 0 FROM v_churn WHERE ts_ms > $t + 1000 AND population > 0" 1 \
		&& pass "churn resumes after the probe" || fail "churn did not resume"
	alive $pid && pass "daemon survived the probe" || fail "daemon died during the probe"
else
	fail "no capacity probe result within 60 s: $(tail -5 "$tmp/d.log")"
fi
kill -TERM $pid; wait $pid; pid=

# E: workers that fail their own setup are named in the log once, not only counted.  RLIMIT_AS of
# 400 MB (inherited by every worker) makes each worker's 1 GB mapping fail: exit code 15, "memory".
db=$tmp/e.db
(ulimit -v 400000; exec "$FPUSOAKD" --db "$db" $SAFE --probe-interval 0 --workers 4 --spawn-rate 20 --lifetime 5s \
	--worker-memory 1G --duration 3s) >"$tmp/e.log" 2>&1
rc=$?
check "setup failures: the daemon ran to its --duration and exited 0 (rc $rc)" test "$rc" = 0
check "setup failures: one warning names the cause ($(grep -m1 'exit during setup' "$tmp/e.log"))" \
	test "$(grep -c 'workers exit during setup (exit code 15: memory' "$tmp/e.log")" = 1
check "setup failures: counted as exits with an error in the DB ($(q "SELECT sum(exited_error) FROM v_churn"))" \
	test "$(q "SELECT sum(exited_error) > 0 FROM v_churn")" = 1

# G: a tiny workers' limit (2 MiB) at the highest rate: the spawner must outlive it (under 32 MiB it
# stays out of the v1 memory group; inside, the OOM killer took it once no worker was left alive).
if [ -n "$nocg" ]; then
	skip "G: a 2 MiB workers' cgroup at the highest rate: $nocg"
else
db=$tmp/g.db
"$FPUSOAKD" --db "$db" --cgroup-memory-max 2M --cgroup-pids-max 300 --listen none --kmsg none \
	--switch-probe-interval 0 --probe-interval 0 --workers 32 --spawn-rate max --lifetime 0 --duration 5s >"$tmp/g.log" 2>&1
rc=$?
check "tiny limit: the spawner outlived 5 s of max churn in 2 MiB (rc $rc; $(grep -c 'spawner is gone' "$tmp/g.log") 'gone' lines)" \
	bash -c "[ $rc = 0 ] && ! grep -q 'spawner is gone' '$tmp/g.log'"
check "tiny limit: ... and churned ($(q "SELECT sum(spawned) FROM v_churn") spawned)" test "$(q "SELECT sum(spawned) > 100 FROM v_churn")" = 1
fi

# F: which spawner runs.  The build's daemon execs the static fpusoakd-spawner beside it; a copy of
# the daemon without one, or beside a helper that dies without a word (one from another build
# refuses the config), runs the spawner in its forked copy and still churns.
spawner_case() { # spawner_case NAME HELPER(none|broken): runs a copy of the daemon 3 s in $tmp/NAME
	local d=$tmp/$1
	mkdir -p "$d"; cp "$FPUSOAKD" "$d/fpusoakd"
	[ "$2" = broken ] && printf '#!/bin/sh\necho "fpusoakd-spawner: refusing (test)" >&2\nexit 70\n' >"$d/fpusoakd-spawner" &&
		chmod +x "$d/fpusoakd-spawner"
	db=$d/db
	"$d/fpusoakd" --db "$db" $SAFE --probe-interval 0 --workers 4 --spawn-rate 100 --lifetime 1s --duration 3s >"$d/log" 2>&1
}
check "spawner: the build's daemon names the static spawner it execs" \
	grep -q "spawner $(dirname "$(readlink -f "$FPUSOAKD")")/fpusoakd-spawner\$" "$tmp/e.log"
spawner_case alone none; rc=$?
check "spawner: a daemon without the helper exits 0 (rc $rc) and says the forked copy spawns" \
	bash -c "[ $rc = 0 ] && grep -q \"spawner in the daemon's forked copy\" '$tmp/alone/log'"
check "spawner: ... and churns ($(q "SELECT sum(spawned) FROM v_churn") spawned)" test "$(q "SELECT sum(spawned) >= 4 FROM v_churn")" = 1
spawner_case broken broken; rc=$?
check "spawner: a helper that dies before its HELLO is named in a warning ($(grep -m1 'did not start' "$tmp/broken/log" | cut -c1-120))" \
	grep -q "fpusoakd-spawner did not start (.*); the daemon's forked copy runs the spawner instead" "$tmp/broken/log"
check "spawner: ... and the run goes on with the forked copy (rc $rc, $(q "SELECT sum(spawned) FROM v_churn") spawned)" \
	bash -c "[ $rc = 0 ] && grep -q \"spawner in the daemon's forked copy\" '$tmp/broken/log' && [ \"\$(sqlite3 '$db' 'SELECT sum(spawned) >= 4 FROM v_churn')\" = 1 ]"
# H: a stop during a capacity probe: the probe ends "stopped" (a lower bound) and its row is stored by
# the daemon's last tick, not lost with the spawner.  2048 workers of 256 KiB under a 1 GiB, 2100-pid
# limit take ~1 s to start on this host; SIGTERM goes as soon as more than 50 of them run.
db=$tmp/h.db
"$FPUSOAKD" --db "$db" --cgroup-memory-max 1G --cgroup-pids-max 2100 $UNCONF --listen none --kmsg none \
	--switch-probe-interval 0 --sample-interval 100ms --workers 2 --spawn-rate 20 --lifetime 1s --probe-interval 0 \
	--probe-limit 2048 --worker-memory 256K >"$tmp/h.log" 2>&1 & pid=$!
wait_for "SELECT max(population) > 0 FROM v_churn" 1 || fail "H: churn did not start"
kill -USR1 $pid
# The probe is seen filling in /proc, not in the DB: ticks are committed in groups of up to 5 s, and
# the 2048 workers were all in (stop reason 'limit') before a group showed the probe running.
filling=0
for _ in $(seq 300); do
	sp=$(pgrep -P "$pid" -x fpusoakd-spawne | head -n 1)
	[ -n "$sp" ] && [ "$(pgrep -c -P "$sp")" -gt 50 ] && { filling=1; break; }
	sleep 0.1
done
[ "$filling" = 1 ] || fail "H: the probe's workers did not appear in 30 s"
done_before=$(grep -c 'capacity probe: [0-9]* workers' "$tmp/h.log")
kill -TERM $pid; wait $pid; rc=$?; pid=
check "H: SIGTERM during a probe: the daemon exits 0 (rc $rc)" test "$rc" = 0
r=$(q "SELECT result || '|' || stop_reason FROM v_probes WHERE kind = 'capacity'")
check "H: the probe's row is stored ($r)" test "$(q "SELECT count(*) FROM v_probes WHERE kind = 'capacity'")" = 1
if [ "$done_before" = 0 ]; then
	check "H: ... ended by the stop, a lower bound ($r)" test "${r#*|}" = stopped
	check "H: ... after the run's last tick before the stop (the run's last tick holds it: $(q "SELECT max(ts_ms) - (SELECT ts_ms FROM v_probes WHERE kind = 'capacity') FROM v_samples") ms after its start)" \
		test "$(q "SELECT (SELECT max(ts_ms) FROM v_samples) >= ts_ms FROM v_probes WHERE kind = 'capacity'")" = 1
else
	skip "H: the probe ended before the SIGTERM reached the daemon (host too fast or too slow); the 'stopped' row is not checked"
fi
check "H: no worker outlived the stop" bash -c "! grep -q 'outlived the spawner' '$tmp/h.log'"
t_done
