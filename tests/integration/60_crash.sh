#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Crash consistency: SIGKILL the daemon at random moments (seeded; the seed
# is printed, SEED=N replays it) while it samples every 100 ms, churns 8
# workers in a 64 MB / 300-pid cgroup, runs capacity probes (SIGUSR1) and
# retention passes over an aged run; restart after every kill and check:
#   - PRAGMA integrity_check is ok;
#   - every sample a reader saw committed right before the kill is still
#     there (count and sum of ts_ms up to the last one seen), each with its
#     buddyinfo rows (a tick is never half-written);
#   - ticks are committed in groups of at most 5 s (STORE_GROUP_MS, README
#     "Crash safety"): the kill lost at most one group, i.e. the last tick
#     stored is at most 5 s + BOUND_SLACK_MS older than the kill (the slack:
#     the last tick's interval and lateness on a loaded machine), except
#     while the daemon held its writes for a guest-scope fill (by design);
#   - the killed run is marked 'crash' by the next start;
#   - no spawner or worker survives (zombies count as dead: PID 1 here does
#     not reap), and nothing is left in the workers' cgroup;
#   - retention deleted whole slices of the aged run (no buddy row without
#     its sample) and never touched rollups or the test's own runs.
# N=10 kills (SOAK=1: 50).  Everything runs in a 512 MB / 1000-pid cgroup; where none can be
# made (a chroot, a container without cgroup access) the daemon runs unconfined (at most 64
# workers and probe workers) and its workers are found as the spawner's children instead.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../reliability/rlib.sh"
if [ "$(id -u)" != 0 ]; then skip "needs root for cgroups"; t_done; fi
need sqlite3:sqlite3 python3:python3 pgrep:procps
r_init crash
r_confine 512M 1000
# Where the daemon cannot make its workers' cgroup either, its explicit limits would stop it at
# start: there it runs unconfined, allowed to.
nocg=$(no_cgroup_reason)
N=${N:-$([ "${SOAK:-0}" = 1 ] && echo 50 || echo 10)}
SEED=${SEED:-$(( $(date +%s) % 100000 ))}
RANDOM=$SEED
echo "seed $SEED (replay: SEED=$SEED N=$N bash $0)"
R_DB=$R_TMP/crash.db
here=$(dirname "$0")
# Each option once (a flag given twice is refused): the churn settings are added per use.
SMALL=(--db "$R_DB" --listen none --kmsg none --sample-interval 100ms --spawn-rate 100
	--lifetime 1s --cgroup-memory-max 64M --cgroup-pids-max 300 ${nocg:+--allow-unconfined} --probe-interval 0 --probe-limit 400
	--switch-threads 4 --retain-raw 1h --queue-max 1M)
CHURN=(--workers 8 --switch-probe-interval 1h)
# The daemon names its workers' group after its DB (cgroup/cgroup.h: fpusoakd-workers-<hash> on v1,
# workers-<hash> on v2); it is the only group the daemon makes in the test cgroup.  None without
# a test cgroup.
workers_dir() { [ -z "$R_CGROUP_MEM" ] || ls -d "$R_CGROUP_MEM"/fpusoakd-workers-* "$R_CGROUP_MEM"/workers-* 2>/dev/null | head -1; }
# The workers of spawner $1: its cgroup's members, or its children where there is no cgroup.
workers_of() { if [ -n "$R_CGROUP_MEM" ]; then cat "$(workers_dir)/cgroup.procs" 2>/dev/null; else [ -z "$1" ] || pgrep -P "$1"; fi; }
# Something still in the workers' cgroup (never, without one).
cg_busy() { [ -n "$R_CGROUP_MEM" ] && [ -n "$(grep -l . "$(workers_dir)/cgroup.procs" 2>/dev/null)" ]; }

# An aged run for retention: 3 s at 20 ms, moved 2 days back and spread over
# ~100 minutes (10 retention slices of 10 min).  --retain-raw 1h makes only
# it eligible, so retention can never race the committed-sample check below.
r_run "$FPUSOAKD" --db "$R_DB" --listen none --kmsg none --sample-interval 20ms --duration 3s --workers 0 \
	--probe-interval 0 --switch-probe-interval 0 >"$R_TMP/old.log" 2>&1
read -r old_n old_first old_last < <(python3 "$here/../reliability/age_run.py" "$R_DB" 1 2 2000)
old_rollups=$(q "SELECT count(*) FROM buddy_rollup WHERE run_id = 1")
[ "${old_n:-0}" -ge 100 ] && [ "$old_rollups" -gt 0 ] && pass "aged run prepared: $old_n samples over $(( (old_last - old_first) / 60000 )) min, 2 days old, $old_rollups rollup rows" \
	|| fail "could not prepare the aged run ($old_n samples, $old_rollups rollups): $(tail -3 "$R_TMP/old.log")"

GROUP_MS=5000 BOUND_SLACK_MS=${BOUND_SLACK_MS:-2000}
bad_integrity=0 bad_bound=0 bounded=0 worst_lost=0 bad_kept=0 bad_crash=0 bad_workers=0 bad_tick=0 bad_start=0 bad_stop=0
in_probe=0 with_probe=0 kills=0 after_first=0 retained_runs=0 killed_runs=()
prev_old=$old_n
for i in $(seq "$N"); do
	delay=$(( 50 + RANDOM % 12950 ))       # ms after exec: from inside store_open to past the 5 s status/retention timer and two groups
	probe_at=-1
	[ $(( RANDOM % 2 )) = 0 ] && probe_at=$(( delay - 100 - RANDOM % 600 ))
	r_start "$R_TMP/run$i.log" "${SMALL[@]}" "${CHURN[@]}"
	pid=$R_PID t0=$(date +%s%N)
	if [ "$probe_at" -ge 200 ]; then
		while [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt "$probe_at" ]; do sleep 0.02; done
		kill -USR1 "$pid" 2>/dev/null && with_probe=$((with_probe + 1))
	fi
	while [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt "$delay" ]; do sleep 0.02; done
	# What a reader sees committed right now, then the kill at once.
	run=$(q "SELECT run_id FROM runs WHERE pid = $pid AND ended_ms IS NULL ORDER BY run_id DESC LIMIT 1")
	before=$( [ -n "$run" ] && q "SELECT count(*) || ' ' || coalesce(max(ts_ms), 0) || ' ' || coalesce(sum(ts_ms), 0) FROM samples WHERE run_id = $run")
	sp=$(r_spawner_of "$pid")
	procs=$(workers_of "$sp" | tr '\n' ' ')
	probing=$(grep -c 'capacity probe requested' "$R_TMP/run$i.log"; grep -c 'capacity probe:' "$R_TMP/run$i.log")
	kill_ms=$(date +%s%3N)
	kill -KILL "$pid"; wait "$pid" 2>/dev/null
	kills=$((kills + 1))
	[ "$(echo $probing)" = "1 0" ] && in_probe=$((in_probe + 1))
	read -r b_n b_max b_sum <<<"${before:-0 0 0}"
	[ -n "$run" ] && killed_runs+=("$run") && [ "$b_n" -gt 0 ] && after_first=$((after_first + 1))
	# No process the daemon started may outlive it.
	left=""
	for k in $(seq 30); do
		left=""; for p in $sp $procs; do r_alive "$p" && left="$left $p"; done
		[ -z "$left" ] && ! cg_busy && break
		sleep 0.1
	done
	if [ -n "$left" ] || cg_busy; then
		bad_workers=$((bad_workers + 1))
		echo "kill $i: survivors:$left; in the workers' cgroup: $(cat "$(workers_dir)/cgroup.procs" 2>/dev/null | tr '\n' ' ')"
	fi
	echo "kill $i at ${delay} ms (probe $([ "$probe_at" -ge 200 ] && echo "at $probe_at ms" || echo none)): run ${run:-none}, $b_n samples committed, spawner ${sp:-none}, $(echo $procs | wc -w) workers"

	# Restart: it must accept the DB (quick_check), mark the crash and sample again.
	r_start "$R_TMP/check$i.log" "${SMALL[@]}" --workers 0 --switch-probe-interval 0
	cpid=$R_PID
	if ! r_wait "SELECT count(*) > 0 FROM samples WHERE run_id = (SELECT run_id FROM runs WHERE pid = $cpid AND ended_ms IS NULL)" 1 100; then
		bad_start=$((bad_start + 1)); echo "kill $i: restart failed: $(tail -3 "$R_TMP/check$i.log")"
	fi
	ic=$(q "PRAGMA integrity_check")
	[ "$ic" = ok ] || { bad_integrity=$((bad_integrity + 1)); echo "kill $i: integrity_check: $ic"; }
	if [ -n "$run" ]; then
		after=$(q "SELECT count(*) || ' ' || coalesce(sum(ts_ms), 0) FROM samples WHERE run_id = $run AND ts_ms <= $b_max")
		[ "$after" = "$b_n $b_sum" ] || { bad_kept=$((bad_kept + 1)); echo "kill $i: run $run had '$b_n $b_sum' committed, now '$after'"; }
		# At most one group lost: the last stored tick is no older than a group (and the slack) before the kill.
		last=$(q "SELECT coalesce(max(ts_ms), 0) FROM samples WHERE run_id = $run")
		if [ "$b_n" -gt 0 ] && ! grep -q 'stepping aside' "$R_TMP/run$i.log"; then
			lost=$(( kill_ms - last )); bounded=$((bounded + 1))
			[ "$lost" -gt "$worst_lost" ] && worst_lost=$lost
			[ "$lost" -le $(( GROUP_MS + BOUND_SLACK_MS )) ] ||
				{ bad_bound=$((bad_bound + 1)); echo "kill $i: the last tick stored is $lost ms older than the kill"; }
		fi
		er=$(q "SELECT end_reason FROM runs WHERE run_id = $run")
		[ "$er" = crash ] || { bad_crash=$((bad_crash + 1)); echo "kill $i: run $run end_reason '$er'"; }
		# Zone rows are stored on change (schema 6): a tick's buddyinfo is the row in force (buddy_at),
		# and a zone row never outlives its tick's sample row (same transaction).
		torn=$(q "SELECT (SELECT count(*) FROM samples s WHERE run_id = $run AND NOT EXISTS
			(SELECT 1 FROM buddy_at b WHERE b.run_id = s.run_id AND b.ts_ms = s.ts_ms))
			+ (SELECT count(*) FROM buddy b WHERE run_id = $run AND NOT EXISTS
			(SELECT 1 FROM samples s WHERE s.run_id = b.run_id AND s.ts_ms = b.ts_ms))")
		[ "$torn" = 0 ] || { bad_tick=$((bad_tick + 1)); echo "kill $i: $torn samples of run $run without buddyinfo, or zone rows without their sample"; }
	fi
	now_old=$(q "SELECT count(*) FROM samples WHERE run_id = 1")
	[ "$now_old" -lt "$prev_old" ] && retained_runs=$((retained_runs + 1))
	prev_old=$now_old
	kill -TERM "$cpid"; wait "$cpid"; rc=$?
	[ $rc = 0 ] || { bad_stop=$((bad_stop + 1)); echo "kill $i: the restarted daemon exited $rc on SIGTERM: $(tail -3 "$R_TMP/check$i.log")"; }
done

[ "$bad_integrity" = 0 ] && pass "integrity_check ok after all $kills kills" || fail "integrity_check failed after $bad_integrity of $kills kills"
[ "$bad_start" = 0 ] && pass "the daemon restarted on the killed DB $kills times" || fail "$bad_start restarts failed"
[ "$bad_stop" = 0 ] && pass "each restarted daemon stopped cleanly on SIGTERM (exit 0)" || fail "$bad_stop restarted daemons did not exit 0"
[ "$bad_kept" = 0 ] && pass "every sample seen committed before a kill is still there ($after_first kills after the first sample)" \
	|| fail "committed samples lost after $bad_kept kills"
[ "$bad_bound" = 0 ] && [ "$bounded" -gt 0 ] && pass "at most one group lost: the last tick stored at most $worst_lost ms before the kill (bound ${GROUP_MS} + ${BOUND_SLACK_MS} ms; $bounded kills)" \
	|| fail "more than one group lost after $bad_bound of $bounded kills (worst $worst_lost ms; bound ${GROUP_MS} + ${BOUND_SLACK_MS} ms)"
[ "$bad_tick" = 0 ] && pass "no tick half-written: every stored sample has its buddyinfo rows" || fail "torn ticks after $bad_tick kills"
[ "$bad_crash" = 0 ] && [ ${#killed_runs[@]} -gt 0 ] && pass "all ${#killed_runs[@]} killed runs marked 'crash'" || fail "$bad_crash killed runs not marked 'crash'"
[ "$bad_workers" = 0 ] && pass "no spawner or worker survived any of the $kills kills" || fail "processes survived $bad_workers kills"
# Retention: whole slices deleted, rollups kept, and it made progress over the kills.
# Retention keeps each zone's row in force at the cutoff (older than every remaining sample); any other
# zone row without its sample, or a sample without buddyinfo, is an orphan.
orphans=$(q "SELECT (SELECT count(*) FROM buddy b WHERE run_id = 1 AND b.ts_ms >= (SELECT min(ts_ms) FROM samples WHERE run_id = 1)
	AND NOT EXISTS (SELECT 1 FROM samples s WHERE s.run_id = 1 AND s.ts_ms = b.ts_ms))
	+ (SELECT count(*) FROM samples s WHERE run_id = 1 AND NOT EXISTS (SELECT 1 FROM buddy_at b WHERE b.run_id = 1 AND b.ts_ms = s.ts_ms))")
[ "$orphans" = 0 ] && pass "aged run: raw rows deleted a whole tick at a time (no orphan rows)" || fail "aged run: $orphans orphan rows after retention under kills"
check "aged run: rollups untouched by retention ($old_rollups rows)" test "$(q "SELECT count(*) FROM buddy_rollup WHERE run_id = 1")" = "$old_rollups"
if [ "$retained_runs" -gt 0 ]; then
	pass "retention ran in $retained_runs of $kills daemon lifetimes: aged run $old_n -> $prev_old samples"
else
	skip "no retention pass completed before any kill (kills before the 5 s status timer); aged run still $prev_old samples"
fi
# Where the kills landed; honest about what random timing hit.
echo "kills: $kills; with a probe requested: $with_probe; landed while a probe ran: $in_probe; after the first sample: $after_first"
if [ "$in_probe" -gt 0 ]; then
	pass "$in_probe kill(s) landed while a capacity probe ran ($with_probe requested)"
else
	skip "no kill landed during a capacity probe with this seed ($with_probe requested)"
fi
test_runs=$(q "SELECT count(*) FROM runs WHERE run_id > 1")
check "every test run ended (crash or stopped): $test_runs runs" test "$(q "SELECT count(*) FROM runs WHERE ended_ms IS NULL")" = 0
echo "took $(r_elapsed) s"
t_done
