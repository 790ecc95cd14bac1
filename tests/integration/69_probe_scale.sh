#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test-timeout: 900
# test-alone: yes
# A capacity probe at scale costs memory, not CPU (issue 36).  The daemon runs confined, with its
# default 256 KiB workers and 32 churn workers; probes are started with SIGUSR1:
#   - probe 1 on a quiet machine, probe 2 beside two busy loops the test starts (one per core, as
#     `stress-ng --cpu 2` would);
#   - each fills >= 500 workers (a 192 MiB workers' limit), is ended by memory (an OOM kill, a death
#     or a failed spawn), not by its time bound or its count limit, and takes <= 60 s;
#   - during each probe (its start to the end of its release) the sampler keeps every tick: no gap
#     between samples over 1.5 s, >= 99.9 % of the ticks the span holds, every late tick in
#     v_tick_late; at most PROBE_RUNNABLE_MAX (6) of the daemon's processes (core, web, spawner,
#     workers) above nice 19 are runnable in any 100 ms sample of /proc.  Churn workers (nice 19)
#     queue as runnable behind any other load until they are retired (23 beside the busy loops, 28
#     beside the other work of a shared host) while taking no CPU anyone else wants: they are
#     counted and named, not held to the bound (on an idle machine the total stayed <= 6).
#     What the 6 is made of: the spawner, the retirement's batch of 4 (SIGTERMed workers are
#     runnable until they have exited) and the fill's worker on its way from "ready" to pause()
#     (the spawner forks the next once the last sleeps, a second beside it after 50 ms, never a
#     third: before that, 7 and 8 readied workers queued behind busy loops, stress-ng and a QEMU).
#     Seen after that: <= 5 beside stress-ng --cpu 2, the test's two loops and a kernel build, and
#     then 7 in a fresh root beside stress-ng: the release SIGTERMed its batch of 4 while 2 fill
#     workers were still settling (now they count against the batch), and the watcher's sweep of all
#     of /proc (tens of ms under load) saw a reaped worker and its successor both runnable (states
#     now come from a quick second pass over the daemon's tree).  After both: 0-6 in 12 probes.
#     Then 7 and 8 in two make tests beside the Xen guest, 6 of them with a SIGTERM pending: that pass
#     over ~570 workers, preempted under load, spanned several release batches of 4.  The runnable ones
#     are now read once more, back to back: 1-3 in 10 probes beside stress-ng and another daemon, and
#     a release of 64 at a time read as 30 and 10 in 2 of 4 runs (a 100 ms sample can miss a short flood).
# SOAK=1 (make soak) runs the issue's hour instead: `fpusoakd --duration 60m` at every default
# (512 MiB workers' limit, a probe every 10 minutes) and reports ticks lost (goal 0), the longest
# gap, each probe's count and duration; it checks >= 3,596 samples, every probe <= 60 s and ended
# by memory, and the probes' counts within 5 % of each other.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../reliability/rlib.sh"
if [ "$(id -u)" != 0 ]; then skip "needs root for cgroups"; t_done; fi
need sqlite3:sqlite3 python3:python3
r_init probescale
SOAK=${SOAK:-0}
if [ "$SOAK" = 1 ]; then outer_mem=800M; else outer_mem=400M; fi
if ! r_cgroup "$outer_mem" 6000; then
	why=$(no_cgroup_reason)
	skip "a probe at scale needs a memory+pids cgroup: ${why:-the cgroup of this process cannot hold one}"
	t_done
fi
R_DB=$R_TMP/scale.db
RUNNABLE_MAX=${PROBE_RUNNABLE_MAX:-6}

# runnable_watch PID OUT: until SIGTERM, the largest number of PID's processes in state R
# (tests/reliability/runnable_watch.py); its PID on stdout.
runnable_watch() {
	python3 "$(dirname "$0")/../reliability/runnable_watch.py" "$1" "$2" </dev/null >/dev/null 2>&1 &
	echo $!
}

# hogs N SECONDS: N busy loops (the test's own processes, killed at exit), PIDs on stdout.
hogs() {
	local i
	for i in $(seq "$1"); do
		# The loop is the tracked process itself (a `timeout` in front would leave it behind when killed).
		bash -c "while [ \$SECONDS -lt $2 ]; do :; done" </dev/null >/dev/null 2>&1 &
		echo $!
	done
}

# probe_check I LABEL: checks of capacity probe I (1-based, in time order) and its sampler window.
probe_check() {
	local i=$1 label=$2 row n reason dur detail ts rel w_end gaps ticks want late
	row=$(q "SELECT cast(result AS int) || '|' || stop_reason || '|' || duration_ms || '|' || ts_ms || '|' || detail
		 FROM v_probes WHERE kind = 'capacity' ORDER BY ts_ms LIMIT 1 OFFSET $((i - 1))")
	IFS='|' read -r n reason dur ts detail <<<"$row"
	rel=$(sed -n 's/.*release_ms=\([0-9]*\).*/\1/p' <<<"$detail")
	echo "probe $i ($label): $n workers, stopped by $reason, fill ${dur} ms, release ${rel:-?} ms"
	case "$reason" in
	oom_kill | worker_died:* | spawn_failed:ENOMEM | spawn_failed:EAGAIN) pass "probe $i ($label) ended by memory: $reason" ;;
	*) fail "probe $i ($label) ended by '$reason', not by memory ($detail)" ;;
	esac
	[ "${n:-0}" -ge "$MIN_WORKERS" ] && pass "probe $i ($label) held $n workers (>= $MIN_WORKERS)" \
		|| fail "probe $i ($label) held ${n:-no} workers, want >= $MIN_WORKERS"
	[ "${dur:-999999}" -le 60000 ] && pass "probe $i ($label) filled in ${dur} ms (<= 60 s)" \
		|| fail "probe $i ($label) took ${dur:-?} ms, want <= 60 s"
	# The sampler across the probe: from its start to the end of its release, plus one period each side.
	w_end=$((ts + dur + ${rel:-0} + 1000))
	read -r gaps ticks <<<"$(q "SELECT coalesce(max(d), 0), count(*) FROM (SELECT ts_ms - lag(ts_ms) OVER (ORDER BY ts_ms) AS d
		 FROM v_samples WHERE ts_ms BETWEEN $ts - 1000 AND $w_end)" | tr '|' ' ')"
	want=$(( (w_end - ts + 1000) / 1000 ))
	late=$(q "SELECT count(*) || ' late, ' || coalesce(sum(missed), 0) || ' missed, max ' || coalesce(max(late_ms), 0) || ' ms'
		  FROM v_tick_late WHERE ts_ms BETWEEN $ts - 1000 AND $w_end")
	[ "${gaps:-99999}" -le 1500 ] && pass "probe $i ($label): longest gap between samples ${gaps} ms (<= 1.5 s; v_tick_late: $late)" \
		|| fail "probe $i ($label): a gap of ${gaps:-?} ms between samples (v_tick_late: $late)"
	# >= 99.9 % of the window's ticks: with windows of tens of seconds, that is all of them but rounding.
	[ $((ticks * 1000)) -ge $((want * 999 - 1000)) ] && pass "probe $i ($label): $ticks samples in a ${want} s window" \
		|| fail "probe $i ($label): $ticks samples in a ${want} s window"
}

# probe_now LABEL: SIGUSR1, watch the runnable count until the probe's row is there, check it.
probe_now() {
	local label=$1 before w mx above ns who who_above
	before=$(q "SELECT count(*) FROM v_probes WHERE kind = 'capacity'")
	w=$(runnable_watch "$pid" "$R_TMP/runnable.$before")
	r_track "$w"
	kill -USR1 "$pid"
	if ! r_wait "SELECT count(*) FROM v_probes WHERE kind = 'capacity'" $((before + 1)) 1200; then
		fail "probe $((before + 1)) ($label): no result within 120 s: $(tail -3 "$R_TMP/d.log")"
		return 1
	fi
	kill -TERM "$w"
	for _ in $(seq 50); do [ -s "$R_TMP/runnable.$before" ] && break; sleep 0.1; done
	read -r mx above ns who who_above <"$R_TMP/runnable.$before"
	probe_check $((before + 1)) "$label"
	[ "${above:-99}" -le "$RUNNABLE_MAX" ] && pass "probe $((before + 1)) ($label): at most $above of the daemon's processes above nice 19 runnable ($ns samples of /proc; all priorities: $mx)" \
		|| fail "probe $((before + 1)) ($label): $above of the daemon's processes above nice 19 runnable at once (want <= $RUNNABLE_MAX; $ns samples): $who_above"
	echo "probe $((before + 1)) ($label): at most $mx of any priority runnable: $who"
	echo "probe $((before + 1)) ($label): at most $above above nice 19 runnable: $who_above"
}

if [ "$SOAK" = 1 ]; then
	# The issue's hour, at every default but the DB and the port.
	MIN_WORKERS=500
	r_start "$R_TMP/d.log" --db "$R_DB" --listen none --duration 60m
	pid=$R_PID
	while r_alive "$pid"; do sleep 10; done
	n=$(q "SELECT count(*) FROM v_samples")
	span=$(q "SELECT (max(ts_ms) - min(ts_ms)) / 1000 FROM v_samples")
	gap=$(q "SELECT max(d) FROM (SELECT ts_ms - lag(ts_ms) OVER (ORDER BY ts_ms) AS d FROM v_samples)")
	late=$(q "SELECT count(*) || ' late ticks, ' || coalesce(sum(missed), 0) || ' missed periods' FROM v_tick_late")
	echo "hour: $n samples over ${span} s, longest gap ${gap} ms; $late"
	[ "$n" -ge 3596 ] && pass "the hour kept $n samples (>= 3,596; $late)" || fail "the hour kept $n samples (< 3,596; $late)"
	np=$(q "SELECT count(*) FROM v_probes WHERE kind = 'capacity'")
	for i in $(seq "$np"); do probe_check "$i" "hour, probe $i"; done
	spread=$(q "SELECT min(result) || ' ' || max(result) FROM v_probes WHERE kind = 'capacity' AND stop_reason NOT IN ('stopped', 'timeout', 'limit')")
	read -r lo hi <<<"$spread"
	python3 -c "import sys; lo, hi = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if lo > 0 and hi / lo <= 1.05 else 1)" "${lo:-0}" "${hi:-0}" \
		&& pass "the hour's probes within 5 % of each other ($lo .. $hi)" || fail "the hour's probes spread $lo .. $hi (> 5 %)"
	echo "closing: took $(r_elapsed) s"
	t_done
fi

# make test: two probes of >= 500 workers, one beside two busy loops.
MIN_WORKERS=500
r_start "$R_TMP/d.log" --db "$R_DB" --listen none --kmsg none --cgroup-memory-max 192M --cgroup-pids-max 4096 \
	--probe-interval 0 --switch-probe-interval 0
pid=$R_PID
r_wait "SELECT max(population) >= 32 FROM v_churn" 1 300 || fail "churn did not reach 32 workers: $(tail -3 "$R_TMP/d.log")"
probe_now "quiet machine"
r_wait "SELECT population FROM v_churn ORDER BY ts_ms DESC LIMIT 1" 32 300 || echo "note: churn not back at 32 within 30 s"
for h in $(hogs 2 150); do r_track "$h"; done
probe_now "beside two busy loops"
gap=$(q "SELECT max(d) FROM (SELECT ts_ms - lag(ts_ms) OVER (ORDER BY ts_ms) AS d FROM v_samples)")
echo "whole run: $(q "SELECT count(*) FROM v_samples") samples, longest gap ${gap} ms, $(q "SELECT count(*) FROM v_tick_late") late ticks"
r_alive "$pid" && pass "daemon alive after both probes" || fail "daemon gone: $(tail -3 "$R_TMP/d.log")"
echo "closing: took $(r_elapsed) s"
t_done
