#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test-timeout: 900
# 42_verdict: the scene of issue 16, end to end, and its control.  Everything runs inside one
# 768 MB / 3000-PID test cgroup, each daemon for a bounded time (--duration), every child reaped
# by the daemons (and by rlib's trap if a test step fails).
#
#   Scene.  Run A: another process holds A's workers' group (a second instance holding resources),
#   A asked for --cgroup-memory-max 32M but is allowed to run unconfined (--allow-unconfined); its
#   capacity probes stop at --probe-limit 120 (censored: a floor, not a capacity).  Run B: the same
#   settings, confined (32 MB), its probes stop when the memory cgroup is full.  No surface (summary,
#   saved report, /compare, /api/v1/compare) may say "significant" for capacity, and each names the
#   reason (A ran unconfined) in the line's word and its caveats.
#   Control.  Runs C and D: both confined, equal settings: capacity gets a real verdict
#   (significant or no significant difference), "comparable": true.
#   Deaths.  In B, C and D the probes end in memory-cgroup OOM kills of probe workers: each is
#   counted once, in the probe workers' set (v_churn probe_oom_killed), and the run's figures
#   (summary, run page, API) carry them; the probe workers' identity spawned = exited + deaths holds.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../reliability/rlib.sh"
if [ "$(id -u)" != 0 ]; then skip "needs root for cgroups"; t_done; fi
command -v sqlite3 >/dev/null || { skip "needs sqlite3"; t_done; }
command -v curl >/dev/null || { skip "needs curl"; t_done; }
command -v python3 >/dev/null || { skip "needs python3"; t_done; }
r_init verdict
r_cgroup 768M 3000 || { skip "the scene compares confined runs, which need a memory+pids cgroup for the test: $(r_cgroup_why)"; t_done; }
R_DB=$R_TMP/v.db
# Each scene run lasts until it has its probes (4 of the kind its checks count; 14 s had 2 beside a
# loaded make test), at most CAP seconds: --duration is only the bound, SIGTERM ends it.
CAP=${CAP:-150}
DUR=${CAP}s
COMMON=(--db "$R_DB" --kmsg none --sample-interval 200ms --workers 4 --spawn-rate 20 --lifetime 1s
	--worker-memory 512K --cgroup-pids-max 1000 --switch-probe-interval 0 --probe-limit 120)
PROBES=(--probe-interval 2s)
confinement() { sed -n 's/.*churn: confinement //p' "$1" | head -1; }
group_of() { confinement "$1" | awk '$1 == "v1" || $1 == "v2" {print $2}'; }
last_run() { q "SELECT max(run_id) FROM runs"; }
# until_probes PID WHERE: wait until the run started after run $prev has 4 capacity probes matching
# WHERE (or CAP seconds), then SIGTERM PID and wait; its exit status in $rc.
until_probes() {
	local i
	for i in $(seq $((CAP * 10))); do
		[ "$(qq "SELECT count(*) >= 4 FROM v_probes WHERE run_id = $((prev + 1)) AND kind = 'capacity' AND $2")" = 1 ] && break
		r_alive "$1" || break
		sleep 0.1
	done
	kill -TERM "$1" 2>/dev/null
	wait "$1"; rc=$?
}
# capacity's line of a surface's text: "capacity: ..." up to the next line that starts a comparison
cap_line() { awk '/^capacity:/ {p = 1; printf "%s", $0; next} p && /^  / {printf " %s", substr($0, 3); next} p {exit}' "$1"; }
cap_json() { # cap_json FILE FIELD: the capacity comparison's FIELD (JSON), from /api/v1/compare's body
	python3 -c 'import json,sys
d = json.loads(open(sys.argv[1]).read().split("\n\n", 1)[-1])
c = [x for x in d["comparisons"] if x["label"] == "capacity"][0]
v = d if sys.argv[2].startswith("pair.") else c
print(json.dumps(v[sys.argv[2].split(".")[-1]]))' "$1" "$2"
}

# ---- learn the DB's group: a 1 s run ----------------------------------------------------------------
r_start "$R_TMP/g.log" "${COMMON[@]}" --listen none --probe-interval 0 --cgroup-memory-max 32M --duration 1s
wait "$R_PID"
grp=$(group_of "$R_TMP/g.log")
[ -n "$grp" ] || { fail "the daemon did not say where its group is: $(tail -3 "$R_TMP/g.log")"; t_done; }

# ---- run A: the group is held by another process; allowed to run unconfined -------------------------
mkdir -p "$grp"
( echo "$BASHPID" >"$grp/cgroup.procs" && exec sleep 600 ) & squat=$!
r_track "$squat"
for i in $(seq 50); do grep -qx "$squat" "$grp/cgroup.procs" 2>/dev/null && break; sleep 0.1; done
prev=$(last_run)
r_start "$R_TMP/a.log" "${COMMON[@]}" --listen none "${PROBES[@]}" --label scene-A --cgroup-memory-max 32M --allow-unconfined --duration "$DUR"
until_probes "$R_PID" "stop_reason = 'limit'"
A=$(last_run)
check "A: ran unconfined, allowed (exit $rc; $(confinement "$R_TMP/a.log" | cut -c1-100))" \
	bash -c "[ $rc = 0 ] && grep -q 'churn: confinement none: cgroup $grp exists and has processes' '$R_TMP/a.log'"
kill -9 "$squat"; wait "$squat" 2>/dev/null
for i in $(seq 50); do [ -s "$grp/cgroup.procs" ] || break; sleep 0.1; done
rmdir "$grp" 2>/dev/null

# ---- run B: confined, same settings -------------------------------------------------------------------
portb=$(r_port)
prev=$(last_run)
r_start "$R_TMP/b.log" "${COMMON[@]}" --listen "127.0.0.1:$portb" "${PROBES[@]}" --label scene-B --cgroup-memory-max 32M \
	--duration "$DUR"
pb=$R_PID
# /metrics of the live daemon once two probes have ended (their fills end in OOM kills of probe workers)
for i in $(seq 150); do
	[ "$(qq "SELECT count(*) >= 2 FROM v_probes WHERE run_id = $((A + 1)) AND kind = 'capacity'")" = 1 ] && break
	sleep 0.1
done
# The DB first, then /metrics: counts only grow, so the later read must be at least the earlier
# (the other order raced an OOM kill stored in between: metrics 1, DB then 2, under load).
live=$(qq "SELECT coalesce(sum(probe_oom_killed), 0) FROM v_churn WHERE run_id = $((A + 1))")
curl -fs "http://127.0.0.1:$portb/metrics" >"$R_TMP/metrics-b.txt"
until_probes "$pb" "stop_reason NOT IN ('limit', 'timeout', 'stopped')"
B=$(last_run)
check "B: ran confined (exit $rc; $(confinement "$R_TMP/b.log" | cut -c1-100))" \
	bash -c "[ $rc = 0 ] && grep -q 'churn: confinement v[12] ' '$R_TMP/b.log'"
echo "A: $(q "SELECT group_concat(result || ':' || stop_reason, ' ') FROM v_probes WHERE run_id = $A AND kind = 'capacity'")"
echo "B: $(q "SELECT group_concat(result || ':' || stop_reason, ' ') FROM v_probes WHERE run_id = $B AND kind = 'capacity'")"
na=$(q "SELECT count(*) FROM v_probes WHERE run_id = $A AND kind = 'capacity' AND stop_reason = 'limit'")
nb=$(q "SELECT count(*) FROM v_probes WHERE run_id = $B AND kind = 'capacity' AND stop_reason NOT IN ('limit', 'timeout')")
check "A: >= 4 capacity probes stopped by the probe limit ($na)" test "$na" -ge 4
check "B: >= 4 capacity probes stopped by something else than a limit ($nb)" test "$nb" -ge 4
check "v_runs: A recorded unconfined with why, B with its group and limits read back" test \
	"$(q "SELECT cgroup || '|' || (unconfined_reason LIKE '%has processes%') || '|' || (cgroup_memory_max IS NULL) FROM v_runs WHERE run_id = $A")/$(q "SELECT (cgroup_group = '$grp') || '|' || cgroup_memory_max || '|' || confinement_exact FROM v_runs WHERE run_id = $B")" \
	= "none|1|1/1|$((32 << 20))|1"

# ---- runs C and D: both confined, equal settings --------------------------------------------------------
for side in C D; do
	prev=$(last_run)
	r_start "$R_TMP/$side.log" "${COMMON[@]}" --listen none "${PROBES[@]}" --label "control-$side" --cgroup-memory-max 32M --duration "$DUR"
	until_probes "$R_PID" "stop_reason NOT IN ('limit', 'timeout', 'stopped')"
	[ "$rc" = 0 ] || fail "$side: exit $rc: $(tail -2 "$R_TMP/$side.log")"
done
D=$(last_run); C=$((D - 1))
for r in $C $D; do
	echo "run $r: $(q "SELECT group_concat(result || ':' || stop_reason, ' ') FROM v_probes WHERE run_id = $r AND kind = 'capacity'")"
done

# ---- the surfaces ---------------------------------------------------------------------------------
"$FPUSOAKD" summary --db "$R_DB" --compare "$A" "$B" >"$R_TMP/sum-ab.txt" 2>&1
"$FPUSOAKD" summary --db "$R_DB" --compare "$C" "$D" >"$R_TMP/sum-cd.txt" 2>&1
"$FPUSOAKD" report --db "$R_DB" --compare "$A" "$B" --out "$R_TMP/rep-ab.html" 2>"$R_TMP/rep.err"
"$FPUSOAKD" summary --db "$R_DB" --run "$B" >"$R_TMP/sum-b.txt" 2>&1
port=$(r_port)
r_start "$R_TMP/w.log" --db "$R_DB" --listen "127.0.0.1:$port" --kmsg none --workers 0 --duration 60s
web=$R_PID
for i in $(seq 100); do curl -fs "http://127.0.0.1:$port/api/v1/status" >/dev/null 2>&1 && break; sleep 0.1; done
get() { curl -s -i "http://127.0.0.1:$port$1" | tr -d '\r' >"$2"; }
get "/compare?a=$A&b=$B" "$R_TMP/page-ab.html"
get "/api/v1/compare?a=$A&b=$B" "$R_TMP/api-ab.json"
get "/api/v1/compare?a=$C&b=$D" "$R_TMP/api-cd.json"
get "/runs/$B" "$R_TMP/run-b.html"
get "/api/v1/runs/$B/churn?max_points=5" "$R_TMP/churn-b.json"
kill -TERM "$web"; wait "$web"

# Scene: capacity never "significant", the reason named.
has() { grep -Eq -- "$2" <<<"$1"; }      # has TEXT ERE
hasnt() { ! grep -Eq -- "$2" <<<"$1"; }
flat() { tr -s ' \n' ' ' <"$1"; }          # a wrapped text as one line
ls=$(cap_line "$R_TMP/sum-ab.txt" | tr -s ' ')
echo "summary A/B: $ls"
check "scene, summary: capacity is not comparable, A unconfined named" has "$ls" '^capacity: not comparable: run A ran unconfined'
check "scene, summary: capacity never ends in 'significant'" hasnt "$ls" ': significant( caveat: .*)?( B vs A: .*)?$'
check "scene, summary: the censored probes are said in the line's caveats" \
	has "$ls" 'caveat: all [0-9]+ capacity probes of run A stopped by limit: a lower bound'
check "scene, summary: ... and in A's figures" \
	has "$(flat "$R_TMP/sum-ab.txt")" 'more stopped by limit, at least 64 workers each \(a lower bound, left out\)'
check "scene, summary: every line within 72 columns ($(awk 'length > 72' "$R_TMP/sum-ab.txt" | head -1 | cut -c1-80))" \
	test -z "$(awk 'length > 72' "$R_TMP/sum-ab.txt" "$R_TMP/sum-cd.txt" "$R_TMP/sum-b.txt")"
check "scene, summary: the pair is not comparable, the reason named" \
	has "$(flat "$R_TMP/sum-ab.txt")" 'The runs are not comparable: .*run A ran unconfined'
for f in rep-ab.html page-ab.html; do
	row=$(grep -o '<tr><td>capacity .*</tr>' "$R_TMP/$f" | head -1)
	check "scene, $f: capacity's row says not comparable, A unconfined" has "$row" 'not comparable: run A ran unconfined'
	check "scene, $f: ... and never 'significant'" hasnt "$row" '<strong>significant</strong>'
	check "scene, $f: ... with the censored probes as a caveat" has "$row" 'stopped by limit: a lower bound'
	check "scene, $f: the Comparability section names the reason" \
		has "$(flat "$R_TMP/$f")" '<h2>Comparability</h2>.*run A ran unconfined'
done
w=$(cap_json "$R_TMP/api-ab.json" word); cv=$(cap_json "$R_TMP/api-ab.json" caveats)
check "scene, /api/v1/compare: capacity comparable false, not significant ($w)" \
	test "$(cap_json "$R_TMP/api-ab.json" comparable)/$(cap_json "$R_TMP/api-ab.json" significant)" = "false/false"
check "scene, /api/v1/compare: capacity's word names the reason" has "$w" '^"not comparable: run A ran unconfined'
check "scene, /api/v1/compare: capacity's caveats say the censored probes ($cv)" has "$cv" 'stopped by limit: a lower bound'
pc=$(cap_json "$R_TMP/api-ab.json" pair.comparable); pw=$(cap_json "$R_TMP/api-ab.json" pair.not_comparable)
check "scene, /api/v1/compare: the pair is not comparable, and says why ($pc: $pw)" has "$pc $pw" '^false .*run A ran unconfined'
# Control: a real verdict.
ls=$(cap_line "$R_TMP/sum-cd.txt" | tr -s ' ')
echo "summary C/D: $ls"
# the verdict word ends the line's text; what follows is its caveats and what it is the effect of (issue 31)
check "control, summary: capacity gets a real verdict" has "$ls" ': (significant|no significant difference)( caveat: .*)?( B vs A: .*)?$'
w=$(cap_json "$R_TMP/api-cd.json" word)
check "control, /api/v1/compare: comparable true, word $w" \
	has "$(cap_json "$R_TMP/api-cd.json" comparable) $w" '^true "(significant|no significant difference)"$'
# Deaths: the probe workers' OOM kills, counted once, on every surface.
sums=$(q "SELECT sum(probe_oom_killed), sum(probe_spawned), sum(probe_exited + probe_killed_sigkill + probe_killed_other), sum(oom_killed), (SELECT probe_population FROM v_churn WHERE run_id = $B ORDER BY ts_ms DESC LIMIT 1) FROM v_churn WHERE run_id = $B")
IFS='|' read -r poom pspawn pdone coom palive <<<"$sums"
echo "B: probe workers spawned $pspawn, ended $pdone, alive at the end $palive; OOM kills probe $poom, churn $coom"
check "deaths: B's probes were ended by OOM kills of probe workers ($poom)" test "${poom:-0}" -ge 1
check "deaths: probe workers' identity spawned = exited + deaths + alive ($pspawn = $pdone + $palive)" \
	test "${pspawn:-x}" = "$(( ${pdone:-0} + ${palive:-0} ))"
tot=$((poom + coom))
check "deaths, summary: OOM kills $tot (probe $poom) in the run's figures" \
	grep -Eq "OOM kills: $tot \(churn workers $coom, probe workers $poom," "$R_TMP/sum-b.txt"
check "deaths, run page: the death line carries the probe OOM kills" \
	grep -q "OOM kills $tot (churn $coom, probe $poom)" "$R_TMP/run-b.html"
m_all=$(awk '$1 == "fpusoakd_worker_oom_kills_total" {print $2}' "$R_TMP/metrics-b.txt")
m_probe=$(awk '$1 == "fpusoakd_probe_worker_oom_kills_total" {print $2}' "$R_TMP/metrics-b.txt")
check "deaths, /metrics (live, after 2 probes): probe OOM kills counted (probe $m_probe, all $m_all; DB just before $live)" \
	test "${m_probe:-0}" -ge 1 -a "${m_all:-0}" -ge "${m_probe:-0}" -a "${m_probe:-0}" -ge "${live:-0}"
check "deaths, churn API: probe_oom_killed is a column" grep -q 'probe_oom_killed' "$R_TMP/churn-b.json"
check "deaths, compare: the deaths row of B" grep -q "OOM kills $tot (churn $coom, probe $poom)" "$R_TMP/page-ab.html"
if [ "$T_FAILS" -gt 0 ]; then # what the failing checks read
	for f in sum-ab.txt sum-cd.txt sum-b.txt; do echo "--- $f"; sed 's/^/  | /' "$R_TMP/$f"; done
	echo "--- api-ab.json"; tail -1 "$R_TMP/api-ab.json" | cut -c1-3000; echo
fi
echo "took $(r_elapsed) s"
t_done
