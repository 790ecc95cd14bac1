#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The fragmenting load (--fragment) on real processes.  Everything runs inside a memory- and
# pids-limited test cgroup (rlib.sh: 256 MiB, 400 tasks), inside which the daemon makes the
# workers' group with its own limits; every daemon run is bounded by --duration and a timeout, and
# only PIDs this script started are ever signalled.
#   A  heavy load alone (--workers 0) under a 64 MiB workers' limit: it lives in the workers' group,
#      at oom_score_adj 500, without capabilities; the group's memory peak stays within the recipe's
#      bound; what it says it holds moves with its own page tables (VmPTE) and anonymous memory
#      (RssAnon); SIGTERM: it frees everything and the group is empty.
#   B  SIGKILL of the daemon: PDEATHSIG takes the load and the spawner within 5 s.
#   C  OOM in the workers' group (24 MiB, 12 workers of 2 MiB and a heavy load): the kills happen in
#      the workers' group, the daemon samples on, and workers (1000) go before the load (500).
#   D  a capacity probe (a fill to OOM in a 128 MiB group, ~2 s) pauses the load, and it goes on after.
#   E  --fragment junk is refused (exit 64); "fragment = light" in a config file is recorded.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../reliability/rlib.sh"
if [ "$(id -u)" != 0 ]; then skip "needs root for cgroups"; t_done; fi
command -v sqlite3 >/dev/null || { skip "needs sqlite3"; t_done; }
r_init frag
r_cgroup 256M 400 || { skip "cannot create a memory+pids cgroup for the test"; t_done; }
COMMON="--listen none --kmsg none --switch-probe-interval 0 --sample-interval 500ms"

# The load: the daemon's child running with --internal-fragment.
load_of() {
	local p
	for p in $(pgrep -P "$1"); do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- '--internal-fragment' && echo "$p"
	done
}
# The memory cgroup directory of a process (v1 memory hierarchy or the v2 group).
mem_dir() {
	local rel mnt
	rel=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' "/proc/$1/cgroup")
	if [ -n "$rel" ]; then
		mnt=$(awk '$9=="cgroup" && $NF ~ /(^|,)memory(,|$)/ {print $5; exit}' /proc/self/mountinfo)
	else
		rel=$(awk -F: '$1=="0" {print $3}' "/proc/$1/cgroup")
		mnt=$(awk '$9=="cgroup2" {print $5; exit}' /proc/self/mountinfo)
	fi
	echo "$mnt$rel"
}
peak_kb() { # the group's memory peak since creation, in KiB
	local f
	for f in memory.max_usage_in_bytes memory.peak; do
		[ -r "$1/$f" ] && { echo $(($(cat "$1/$f") / 1024)); return; }
	done
	echo ""
}
wait_log() { # wait_log FILE REGEX [tenths]
	local i
	for i in $(seq "${3:-300}"); do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}
held_kb() { # held_kb LOG CYCLE KIND: KiB of KIND the load reported holding at the end of CYCLE
	sed -n "s/.*fragment: cycle $2 done; .*[ (]$3 \([0-9]*\).*/\1/p" "$1" | tail -1
}
kernel_kb() { # kernel_kb LOG CYCLE FIELD: the load's own /proc/self/status FIELD at the end of CYCLE
	sed -n "s/.*fragment: cycle $2 done; .*the kernel: .*$3 \([0-9]*\) KiB.*/\1/p" "$1" | tail -1
}

# ---- A: bounded, confined, accounted, clean stop -----------------------------------------------
R_DB=$R_TMP/a.db
r_start "$R_TMP/a.log" --db "$R_DB" $COMMON --workers 0 --probe-interval 0 --fragment heavy \
	--cgroup-memory-max 64M --cgroup-pids-max 50 --duration 90s
pid=$R_PID
if ! wait_log "$R_TMP/a.log" 'fragment: heavy load, at most' 100; then
	fail "A: the load did not start: $(tail -3 "$R_TMP/a.log")"
	t_done
fi
bound=$(sed -n 's/.*fragment: heavy load, at most \([0-9]*\) KiB (of \([0-9]*\) KiB).*/\1 \2/p' "$R_TMP/a.log")
read -r cap base <<<"$bound"
check "A: heavy's bound is a quarter of the 64 MiB workers' limit (at most $cap KiB of $base KiB)" \
	test "$base" = 65536 -a "$cap" -le 16384
lp=$(load_of "$pid")
if [ -z "$lp" ]; then
	fail "A: no process with --internal-fragment under the daemon"
else
	g=$(mem_dir "$lp")
	check "A: the load ($lp) is in the workers' group ($g)" grep -qx "$lp" "$g/cgroup.procs"
	check "A: it runs at oom_score_adj 500 (after workers, before anything else)" test "$(cat "/proc/$lp/oom_score_adj")" = 500
	check "A: it holds no capability ($(grep CapEff "/proc/$lp/status" | tr -d '\t'))" grep -q 'CapEff:[[:space:]]*0000000000000000' "/proc/$lp/status"
	check "A: it is named fpusoakd-frag" test "$(cat "/proc/$lp/comm")" = fpusoakd-frag
	# Two consecutive cycle ends: between them the long-lived set grew by one cycle's survivors,
	# and the load's own page tables and anonymous memory must have grown by what it reports.  The
	# kernel's figures are the load's /proc/self/status read in the same instant as its report (the
	# cycle-end record): read from here, after the log line, they raced the next cycle's fill and
	# missed by 100 KiB under a loaded make test (issue 34).
	if wait_log "$R_TMP/a.log" 'fragment: cycle 2 done' 600; then
		pte2=$(kernel_kb "$R_TMP/a.log" 2 VmPTE) anon2=$(kernel_kb "$R_TMP/a.log" 2 RssAnon)
		wait_log "$R_TMP/a.log" 'fragment: cycle 3 done' 600
		pte3=$(kernel_kb "$R_TMP/a.log" 3 VmPTE) anon3=$(kernel_kb "$R_TMP/a.log" 3 RssAnon)
		dpt=$(( $(held_kb "$R_TMP/a.log" 3 pgtable) - $(held_kb "$R_TMP/a.log" 2 pgtable) ))
		dan=$(( $(held_kb "$R_TMP/a.log" 3 anon) - $(held_kb "$R_TMP/a.log" 2 anon) ))
		# Page tables are exact to a page or two (a PMD table may come or go); anon to a few pages.
		check "A: VmPTE grew by what it reports in page tables (+$((pte3 - pte2)) KiB vs +$dpt KiB)" \
			test $((pte3 - pte2 - dpt)) -ge -8 -a $((pte3 - pte2 - dpt)) -le 8
		# A pgtable unit reads one page of its read-only slot: where the kernel maps its zero page there
		# that costs nothing, but a kernel may allocate a page instead (this project's 6.18 VM does: +4 KiB
		# of RssAnon per read, measured), so RssAnon may also grow by one page per PTE page added.
		check "A: RssAnon grew by what it reports in anon pages (+$((anon3 - anon2)) KiB vs +$dan KiB, + up to $dpt KiB of pgtable units' read pages)" \
			test $((anon3 - anon2 - dan)) -ge -16 -a $((anon3 - anon2 - dan - dpt)) -le 16
	else
		fail "A: fewer than 2 cycles in 60 s: $(grep fragment "$R_TMP/a.log" | tail -2)"
	fi
	pk=$(peak_kb "$g")
	# The group holds the spawner too; both processes' own images and bookkeeping are ~2 MiB.
	check "A: the workers' group peaked at $pk KiB, within the bound $cap KiB + 4 MiB" test "${pk:-999999}" -le $((cap + 4096))
	kill -TERM "$pid"; wait "$pid"; rc=$?
	check "A: SIGTERM: the daemon exits 0 (rc $rc)" test "$rc" = 0
	# What the load said it held, tick by tick (v_fragment), against its recipe (v_fragment_runs).
	rows=$(q "SELECT count(*) FROM v_fragment WHERE level = 'heavy'")
	over=$(q "SELECT count(*) FROM v_fragment f JOIN v_fragment_runs r USING (run_id)
		WHERE f.held_bytes + f.files * 1024 > r.cap_bytes OR f.kept_bytes > r.keep_cap_bytes")
	check "A: v_fragment has a row a tick while the load ran ($rows), none above the bound or the long-lived bound ($over)" \
		test "$rows" -ge 40 -a "$over" = 0
	check "A: the recipe is stored with the run (v_fragment_runs: $(q "SELECT level || ' cap ' || cap_bytes FROM v_fragment_runs"))" \
		test "$(q "SELECT cap_bytes * 4 = base_bytes AND instr(recipe, 'keep_every=') > 0 FROM v_fragment_runs")" = 1
	check "A: its states are the cycle's (filling, holding, freeing, resting: $(q "SELECT group_concat(DISTINCT state) FROM v_fragment"))" \
		test "$(q "SELECT count(DISTINCT state) FROM v_fragment WHERE state IN ('filling','holding','freeing','resting')")" = 4
	check "A: the summary names the load" bash -c "'$FPUSOAKD' summary --db '$R_DB' --run 1 | grep -q 'fragmenting load: heavy, bound 16.0 MiB of 64.0 MiB'"
	! r_alive "$lp" && pass "A: ... the load is gone" || fail "A: the load ($lp) outlived the daemon's stop"
	check "A: ... the workers' group is empty" test -z "$(cat "$g/cgroup.procs" 2>/dev/null)"
	check "A: ... no warning about the load or leftovers" bash -c "! grep -E 'fragment: the load (was killed|exited)|outlived' '$R_TMP/a.log'"
fi

# ---- B: SIGKILL of the daemon takes the load with it --------------------------------------------
R_DB=$R_TMP/b.db
r_start "$R_TMP/b.log" --db "$R_DB" $COMMON --workers 4 --spawn-rate 50 --lifetime 2s --probe-interval 0 \
	--fragment light --cgroup-memory-max 64M --cgroup-pids-max 50 --duration 60s
pid=$R_PID
wait_log "$R_TMP/b.log" 'fragment: light load' 100 || fail "B: the load did not start"
lp=$(load_of "$pid") sp=$(r_spawner_of "$pid")
kill -KILL "$pid"; wait "$pid" 2>/dev/null
for i in $(seq 50); do
	r_alive "$lp" || r_alive "$sp" || break
	sleep 0.1
done
if [ -n "$lp" ] && ! r_alive "$lp" && ! r_alive "$sp"; then
	pass "B: SIGKILL of the daemon: the load ($lp) and the spawner ($sp) are gone within $((i * 100)) ms"
else
	fail "B: load '$lp' or spawner '$sp' outlived the daemon by 5 s"
fi

# ---- C: OOM in the workers' group never takes the daemon, and takes workers before the load ------
R_DB=$R_TMP/c.db
r_start "$R_TMP/c.log" --db "$R_DB" $COMMON --workers 12 --spawn-rate 100 --lifetime 3s --worker-memory 2M \
	--probe-interval 0 --fragment heavy --cgroup-memory-max 24M --cgroup-pids-max 100 --duration 90s
pid=$R_PID
wait_log "$R_TMP/c.log" 'fragment: heavy load' 100 || fail "C: the load did not start: $(tail -2 "$R_TMP/c.log")"
lp=$(load_of "$pid")
# Until the first OOM kill (workers at nice 19 fill the group slowly beside a loaded make test: none
# in 25 s once), then 10 s more of them.
t0=$(date +%s)
r_wait "SELECT coalesce(sum(oom_killed), 0) > 0 FROM v_churn" 1 600 || echo "note: no OOM kill within 60 s"
sleep 10
r_alive "$pid" && pass "C: the daemon lives through $(( $(date +%s) - t0 )) s of OOM in the workers' group" || fail "C: the daemon died"
ooms=$(q "SELECT coalesce(sum(oom_killed), 0) FROM v_churn")
check "C: the OOM killer acted in the workers' group ($ooms kills counted)" test "${ooms:-0}" -gt 0
n1=$(q "SELECT count(*) FROM v_samples"); sleep 2; n2=$(q "SELECT count(*) FROM v_samples")
check "C: ... and sampling goes on ($n1 -> $n2 samples in 2 s)" test "$n2" -gt "$n1"
r_alive "$lp" && pass "C: the load (oom_score_adj 500) outlived $ooms worker OOM kills" \
	|| fail "C: the load was killed while workers (1000) were there to take: $(grep fragment "$R_TMP/c.log" | tail -2)"
kill -TERM "$pid"; wait "$pid"; rc=$?
check "C: the daemon ends the run cleanly (rc $rc)" test "$rc" = 0

# ---- D: a capacity probe pauses the load; it goes on after ----------------------------------------
R_DB=$R_TMP/d.db
r_start "$R_TMP/d.log" --db "$R_DB" --listen none --kmsg none --switch-probe-interval 0 --sample-interval 250ms \
	--workers 4 --spawn-rate 50 --lifetime 1s --probe-interval 0 --probe-limit 1000 --fragment heavy \
	--cgroup-memory-max 128M --cgroup-pids-max 1100 --duration 150s
pid=$R_PID
wait_log "$R_TMP/d.log" 'fragment: heavy load' 100 || fail "D: the load did not start"
# The daemon asks for the probe only once the load said it paused, and logs that; a tick sees the
# paused state only if one falls inside the probe (a probe stopped at the pids limit takes ~150 ms),
# so the rows are checked for what they hold when there are any.
kill -USR1 "$pid"
# 120 s: the pause (up to 10 s), then up to 1000 forks; a make test under a loaded host once took
# longer than the 60 s this had (the run's 80 s ended first, and a probe cut short leaves no row).
if r_wait "SELECT count(*) FROM v_probes WHERE kind = 'capacity'" 1 1200; then
	pl=$(grep -n 'fragment: paused for the capacity probe' "$R_TMP/d.log" | head -n 1 | cut -d: -f1)
	dl=$(grep -n 'capacity probe: [0-9]* workers' "$R_TMP/d.log" | head -n 1 | cut -d: -f1)
	check "D: the load paused before the probe filled (log lines ${pl:-none} < ${dl:-none})" \
		test -n "$pl" -a -n "$dl" -a "${pl:-0}" -lt "${dl:-0}"
	np=$(q "SELECT count(*) FROM v_fragment WHERE state = 'paused'")
	nh=$(q "SELECT count(DISTINCT anon_bytes + pipe_bytes) FROM v_fragment WHERE state = 'paused'")
	check "D: while paused the load held still ($np paused rows, $nh distinct holdings)" test "$nh" -le 2
	n=$(grep -c 'fragment: cycle [0-9]* done' "$R_TMP/d.log")
	wait_log "$R_TMP/d.log" "fragment: cycle $((n + 1)) done" 400 && pass "D: ... and completed another cycle after it" \
		|| fail "D: no cycle after the probe: $(grep fragment "$R_TMP/d.log" | tail -2)"
else
	fail "D: no probe result in 120 s: $(grep -E 'fragment|probe' "$R_TMP/d.log" | tail -n 4 | tr '\n' '|')"
fi
kill -TERM "$pid"; wait "$pid"

# ---- E: configuration ------------------------------------------------------------------------------
"$FPUSOAKD" --fragment sometimes --db "$R_TMP/e.db" >"$R_TMP/e.log" 2>&1; rc=$?
check "E: --fragment sometimes exits 64 ($(head -1 "$R_TMP/e.log"))" bash -c "[ $rc = 64 ] && grep -q 'fragment' '$R_TMP/e.log'"
printf '[fpusoakd]\nfragment = light\n' >"$R_TMP/e.conf"
R_DB=$R_TMP/e.db
r_run timeout 20 "$FPUSOAKD" -c "$R_TMP/e.conf" --db "$R_DB" $COMMON --workers 0 --probe-interval 0 \
	--cgroup-memory-max 64M --cgroup-pids-max 50 --duration 2s >"$R_TMP/e2.log" 2>&1
check "E: fragment = light from the config file is recorded with the run" \
	test "$(q "SELECT instr(config, 'fragment=light') > 0 FROM v_runs")" = 1
check "E: ... and the light load ran" grep -q 'fragment: light load' "$R_TMP/e2.log"
echo "took $(r_elapsed) s"
t_done
