#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# 44_verdict_pair: issue 31 on real runs.  Two confined runs into one DB, the same flags but the fragmenting
# load (A --fragment off, B --fragment heavy), then every surface of the comparison: summary, saved report,
# /compare, /api/v1/compare, the run page, /api/v1/status.  Then an older database the way users have them
# (tests/fixtures/schema6-05cc04a.sql: written by fpusoakd 05cc04a, schema 6) through upgrade, import,
# summary and serve; and the small untruths of item 10.  Everything runs inside one 1 GB / 6000-PID test
# cgroup, each daemon for a bounded time (--duration), every child reaped.
#
#   1  a pids limit the daemon raised itself (4097 / 4098 read back for 4096 set) makes nothing "not comparable"
#   2  the load is named first as what differs, each verdict attributed to it; the vm knobs are recorded
#   3  fewer than 6 probes are no trend: "too few data (n=3 probes; needs 6)"
#   4  each chart of the comparison draws exactly its line's rows (every tick of a short run, the probes kept)
#   5  rare events: exact rate intervals and exposures on both sides, 0 vs 0 included
#   6  kernel-log failures split by whose: one of the run's own, one of another process, one unknown
#   7  both populations as identities, every rate with its exposure
#   8  the HTML table shows A's and B's figures on lines without a verdict
#   9  a schema-6 database: no advice to run the daemon on it; upgrade (backup first, no run), import
#  10  directory and corrupt --db, padded hypervisor, the status line's stop reason, no exponents, import
#      of a corrupt source, the window form's seconds, the per-minute counter query of docs/verdict.md
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../reliability/rlib.sh"
if [ "$(id -u)" != 0 ]; then skip "needs root for cgroups and /dev/kmsg"; t_done; fi
need sqlite3:sqlite3 curl:curl python3:python3
r_init verdictpair
r_cgroup 1G 6000 || { skip "the pair runs confined, which needs a memory+pids cgroup for the test: $(r_cgroup_why)"; t_done; }
R_DB=$R_TMP/pair.db
DUR=${DUR:-90s}
# The same flags for both runs but --fragment (--cgroup-pids-max left at its default, 4096, as in the issue).
COMMON=(--db "$R_DB" --sample-interval 500ms --workers 6 --spawn-rate 20 --lifetime 3s --worker-memory 512K
	--cgroup-memory-max 96M --probe-interval 15s --switch-probe-interval 0 --duration "$DUR")
has() { grep -Eq -- "$2" <<<"$1"; }
hasnt() { ! grep -Eq -- "$2" <<<"$1"; }
flat() { tr -s ' \n' ' ' <"$1"; }
json() { # json FILE PYTHON-EXPR-ON-d: the API body's value
	python3 -c 'import json,sys
d = json.loads(open(sys.argv[1]).read().split("\n\n", 1)[-1])
print(eval(sys.argv[2]))' "$1" "$2"
}

# ---- the pair, with three kernel-log records injected into each run -------------------------------------
# Whose they are is decided from what the daemon read of the task (report/whose.h): the daemon's own pid,
# a process outside the run (a sleep of this script, outside the test cgroup), and one with no task line.
# (The daemon, not the spawner: a probe's OOM report prints the task line of a worker, whose comm is the
# spawner's, and one coming between a failure and its task line would be taken for it, as for a kernel's.)
sleep 600 & other=$!
r_track "$other"
inject() { # inject RUN_ID TAG
	local dp dc
	dp=$(q "SELECT pid FROM v_run_procs WHERE run_id = $1 AND role = 'daemon'")
	dc=$(q "SELECT CAST(comm AS TEXT) FROM v_run_procs WHERE run_id = $1 AND role = 'daemon'")
	printf '<4>%s: page allocation failure: order:2, mode:0xa20(GFP_ATOMIC), nodemask=(null)\n' "$dc" >/dev/kmsg
	printf '<4>CPU: 0 UID: 0 PID: %s Comm: %s Not tainted 6.18.0 #1\n' "$dp" "$dc" >/dev/kmsg
	printf '<4>sleep: page allocation failure: order:1, mode:0xa20(GFP_ATOMIC), nodemask=(null)\n' >/dev/kmsg
	printf '<4>CPU: 1 UID: 0 PID: %s Comm: sleep Not tainted 6.18.0 #1\n' "$other" >/dev/kmsg
	printf '<4>vpair%s: page allocation failure: order:3, mode:0xa20(GFP_ATOMIC), nodemask=(null)\n' "$2" >/dev/kmsg
}
port=$(r_port)
for side in off heavy; do
	prev=$(qq "SELECT coalesce(max(run_id), 0) FROM runs"); prev=${prev:-0}
	r_start "$R_TMP/$side.log" "${COMMON[@]}" --listen "127.0.0.1:$port" --fragment "$side" --label "pair-$side"
	pid=$R_PID
	# This run's rows, not the last run's: its run id is above every one before it.
	r_wait "SELECT count(*) >= (CASE '$side' WHEN 'off' THEN 2 ELSE 3 END) FROM v_run_procs WHERE run_id > $prev" 1 300 ||
		fail "$side: the run recorded its daemon and spawner (and load) in v_run_procs"
	run=$(q "SELECT max(run_id) FROM runs")
	inject "$run" "$side$$"
	# B gets seven failures of its own: a rate line with enough events for a verdict (to attribute).
	[ "$side" = heavy ] && for i in 1 2 3 4 5 6; do inject "$run" "$side$$-$i" >/dev/null; done
	# The status line once a capacity probe ended: its stop reason, never "()" (item 10).
	while r_alive "$pid"; do
		curl -fs "http://127.0.0.1:$port/api/v1/status" >"$R_TMP/status-$side.json" 2>/dev/null &&
			grep -q 'last probe capacity' "$R_TMP/status-$side.json" && break
		sleep 0.5
	done
	wait "$pid"; rc=$?
	[ "$rc" = 0 ] || fail "$side: exit $rc: $(tail -2 "$R_TMP/$side.log")"
done
A=$(q "SELECT min(run_id) FROM runs"); B=$(q "SELECT max(run_id) FROM runs")
st=$(grep -o 'last probe capacity [0-9]* ([^)]*)' "$R_TMP/status-off.json" | head -1)
check "item 10: the status line names the last probe's stop reason ($st)" has "$st" 'last probe capacity [0-9]+ \([a-z_:A-Z0-9]+\)'

"$FPUSOAKD" summary --db "$R_DB" --compare "$A" "$B" >"$R_TMP/sum.txt" 2>&1
"$FPUSOAKD" summary --db "$R_DB" --compare "$A" "$B" --failures all >"$R_TMP/sum-all.txt" 2>&1
"$FPUSOAKD" summary --db "$R_DB" --run "$B" >"$R_TMP/sum-b.txt" 2>&1
"$FPUSOAKD" report --db "$R_DB" --compare "$A" "$B" --out "$R_TMP/rep.html" 2>"$R_TMP/rep.err"
wport=$(r_port)
r_start "$R_TMP/w.log" serve --db "$R_DB" --listen "127.0.0.1:$wport"
web=$R_PID
for i in $(seq 100); do curl -fs "http://127.0.0.1:$wport/api/v1/status" >/dev/null 2>&1 && break; sleep 0.1; done
get() { curl -s -i "http://127.0.0.1:$wport$1" | tr -d '\r' >"$2"; }
get "/compare?a=$A&b=$B" "$R_TMP/page.html"
get "/api/v1/compare?a=$A&b=$B" "$R_TMP/api.json"
get "/api/v1/compare?a=$A&b=$B&failures=all" "$R_TMP/api-all.json"
get "/runs/$B" "$R_TMP/run-b.html"
kill -TERM "$web"; wait "$web"
S=$(flat "$R_TMP/sum.txt")

# ---- item 1: the pids limit ----------------------------------------------------------------------------
pids=$(q "SELECT group_concat(cgroup_pids_max, '/') FROM v_runs WHERE run_id IN ($A, $B)")
echo "pids.max read back: $pids (4096 set in both)"
check "item 1: the kernel's read-back differs by the daemon's own pids ($pids)" test "${pids%/*}" != "${pids#*/}"
check "item 1, summary: no line and no pair reason about the pids limit" hasnt "$S" 'pids limit'
check "item 1, API: no pair reason or caveat about the pids limit" \
	test "$(json "$R_TMP/api.json" "not any('pids' in c for c in d['caveats'] + [d.get('not_comparable', '')])")" = True
check "item 1, page: no pids limit anywhere" bash -c "! grep -q 'pids limit' '$R_TMP/page.html'"

# ---- item 2: what differs ------------------------------------------------------------------------------
check "item 2, summary: opens with what differs, the load alone" \
	has "$S" '^fpusoakd: run [0-9]+ \(B\) compared with run [0-9]+ \(A\) What differs: fragmenting load off \(A\) vs heavy \(B\)\. '
check "item 2, API: differs = the load alone" test "$(json "$R_TMP/api.json" "[(x['what'], x['a'], x['b']) for x in d['differs']]")" = "[('fragmenting load', 'off', 'heavy')]"
check "item 2, page: 'What differs:' before the verdicts" \
	has "$(flat "$R_TMP/page.html")" 'What differs:</strong> fragmenting load off \(A\) vs heavy \(B\)\..*Verdicts: B against A'
check "item 2, saved report: the same" \
	has "$(flat "$R_TMP/rep.html")" 'What differs:</strong> fragmenting load off \(A\) vs heavy \(B\)\..*Verdicts: B against A'
nv=$(grep -c 'B vs A: the effect of fragmenting load off (A) vs heavy (B)' "$R_TMP/sum.txt")
nok=$(json "$R_TMP/api.json" "sum(1 for l in d['comparisons'] if l['ok'])")
check "item 2: every line with a verdict is attributed to the load ($nv of $nok)" test "$nv" = "$nok" -a "$nok" -ge 1
check "item 2, API: the attribution of every verdict" test "$(json "$R_TMP/api.json" "all('fragmenting load' in l.get('attribution', '') for l in d['comparisons'] if l['ok'])")" = True
knobs=$(q "SELECT count(*) FROM v_run_vm WHERE run_id = $A AND name = 'vm.min_free_kbytes' AND value = '$(cat /proc/sys/vm/min_free_kbytes)'")
check "item 2: the vm knobs are recorded (min_free_kbytes as /proc says; $(q "SELECT count(*) FROM v_run_vm WHERE run_id = $A") knobs)" test "$knobs" = 1
thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
[ -n "$thp" ] && check "item 2: THP enabled recorded ($thp)" test "$(q "SELECT value FROM v_run_vm WHERE run_id = $B AND name = 'thp.enabled'")" = "$thp"

# ---- item 3: a trend needs 6 points ----------------------------------------------------------------------
np=$(q "SELECT count(*) FROM v_probes WHERE run_id = $B AND kind = 'capacity' AND stop_reason NOT IN ('limit', 'timeout', 'stopped')")
echo "B: $np capacity probes ($(q "SELECT group_concat(result || ':' || stop_reason, ' ') FROM v_probes WHERE run_id = $B AND kind = 'capacity'"))"
if [ "$np" -lt 6 ]; then
	check "item 3, run page: $np probes are 'too few data' for a trend, never 'significant'" \
		bash -c "grep -q 'trend: too few data (n=$np probes; needs 6)' '$R_TMP/run-b.html' && ! grep -q 'workers/h, 95% CI' '$R_TMP/run-b.html'"
else
	skip "item 3: B had $np probes (a trend is allowed from 6)"
fi

# ---- item 4: the charts draw their lines' rows ------------------------------------------------------------
zone=$(json "$R_TMP/api.json" "[o['zone'] for o in d['orders_of_interest']][0]")
order=$(json "$R_TMP/api.json" "[o['order'] for o in d['orders_of_interest']][0]")
ticks=$(q "SELECT count(*) FROM samples WHERE run_id = $B")
legend=$(grep -o "B: run $B ([0-9]* ticks)" "$R_TMP/page.html" | head -1)
echo "headroom o$order, zone $zone: B has $ticks ticks; the chart's legend: $legend"
check "item 4: the headroom chart draws every tick B's trend was fitted through ($legend, $ticks ticks)" \
	test "$legend" = "B: run $B ($ticks ticks)"
check "item 4: its caption says ticks, not minute averages" \
	grep -Eq "headroom trend was fitted through \([0-9]+ ticks in A, $ticks ticks in B: every tick of a run under 10 minutes" "$R_TMP/page.html"
kept=$(q "SELECT count(*) FROM v_probes WHERE run_id = $B AND kind = 'capacity' AND stop_reason NOT IN ('limit', 'timeout', 'stopped') AND result IS NOT NULL")
check "item 4: the capacity chart draws the $kept probes the line compares" grep -q "B: run $B ($kept probes)" "$R_TMP/page.html"
check "item 4: the compare page reads no table itself (web/page_compare.c, web/api_compare.c call no query_*)" \
	bash -c "! grep -n 'query_[a-z_]*(' web/page_compare.c web/api_compare.c"

# ---- item 5: rare events ---------------------------------------------------------------------------------
line() { awk -v l="$2" 'index($0, l) == 1 {p = 1; printf "%s", $0; next} p && /^  / {printf " %s", substr($0, 3); next} p {exit}' "$1" | tr -s ' '; }
for l in "spawn failures/h:" "churn OOM kills/h:" "alloc failures/h:"; do
	t=$(line "$R_TMP/sum.txt" "$l")
	echo "$t"
	check "item 5: '$l' gives both exposures and each rate's exact interval" \
		has "$t" ': A [0-9]+ in [0-9m. s]+s = [0-9.e+-]+ \[[0-9.e+-]+, [0-9.e+-]+\]/h vs B [0-9]+ in [0-9m. s]+s = [0-9.e+-]+ \[[0-9.e+-]+, [0-9.e+-]+\]/h'
	if has "$t" ': A 0 in .* vs B 0 in '; then
		check "item 5: '$l' 0 vs 0: 'too few data' with the counts, beside the exposures and upper bounds" \
			has "$t" '= 0 \[0, [0-9.]+\]/h vs B 0 in .*= 0 \[0, [0-9.]+\]/h: too few data \(n=0\+0 events; needs [0-9]+\)'
	fi
done
check "item 5, API: each rate's interval" test "$(json "$R_TMP/api.json" "all('rate_ci95_a' in l and 'rate_ci95_b' in l for l in d['comparisons'] if l['label'].startswith(('spawn failures', 'churn OOM', 'alloc failures')))")" = True

# ---- item 6: whose failures ------------------------------------------------------------------------------
for r in $A $B; do
	own=$(q "SELECT count(*) FROM v_failure_tasks WHERE run_id = $r AND source = 'kmsg' AND pid = (SELECT pid FROM v_run_procs WHERE run_id = $r AND role = 'daemon') AND task_cgroup IS NOT NULL")
	oth=$(q "SELECT count(*) FROM v_failure_tasks WHERE run_id = $r AND source = 'kmsg' AND pid = $other AND task_ppid = $$")
	unk=$(q "SELECT count(*) FROM v_failure_tasks WHERE run_id = $r AND source = 'kmsg' AND CAST(comm AS TEXT) LIKE 'vpair%' AND pid IS NULL")
	check "item 6: run $r stored who failed (the daemon itself with its cgroup $own, the sleep with its parent $oth, no task line $unk)" \
		test "$own/$oth/$unk" = "$([ "$r" = "$A" ] && echo 1/1/1 || echo 7/7/7)"
done
w=$(json "$R_TMP/api.json" "(d['failures_by_whose']['kmsg']['a']['own'], d['failures_by_whose']['kmsg']['a']['other'] >= 1, d['failures_by_whose']['kmsg']['a']['unknown'] >= 1, d['failures_by_whose']['counted'])")
check "item 6, API: A's failures by whose: own 1, others and unknown counted apart ($w)" test "$w" = "(1, True, True, 'own')"
al=$(line "$R_TMP/sum.txt" "alloc failures/h:")
check "item 6, summary: the verdict counts each run's own (A 1, B 7), the rest said as left out" \
	has "$al" '^alloc failures/h: A 1 in .* vs B 7 in .*caveat: run A.s own only: [0-9]+ of other processes, [0-9]+ unknown'
tot=$(q "SELECT count(*) FROM v_alloc_failures WHERE run_id = $A")
check "item 6: --failures all counts every process's (A: $tot)" has "$(line "$R_TMP/sum-all.txt" "alloc failures/h (all processes):")" "^alloc failures/h \(all processes\): A $tot in "
check "item 6, API: failures=all counts them all" test "$(json "$R_TMP/api-all.json" "[l['n_a'] for l in d['comparisons'] if l['label'].startswith('alloc failures')][0]")" = "$tot"
check "item 6, page: the own / other / unknown table" grep -q '<table class="whose" id="whose">' "$R_TMP/page.html"

# ---- item 7: populations and exposures -------------------------------------------------------------------
sp=$(q "SELECT sum(spawned) FROM v_churn WHERE run_id = $B")
psp=$(q "SELECT sum(probe_spawned) FROM v_churn WHERE run_id = $B")
cw=$(grep -A1 '^  churn workers: ' "$R_TMP/sum-b.txt" | tr -s ' \n' ' ')
pw=$(grep -A1 '^  probe workers: ' "$R_TMP/sum-b.txt" | tr -s ' \n' ' ')
echo "$cw"; echo "$pw"
check "item 7: churn workers as an identity that holds (spawned $sp)" has "$cw" "churn workers: spawned $sp = exited [0-9]+ \+ killed [0-9]+ .*\+ alive [0-9]+ at the end"
check "item 7: probe workers likewise (spawned $psp)" has "$pw" "probe workers: spawned $psp = exited [0-9]+ \+ killed [0-9]+ .*\+ alive [0-9]+ at the end"
check "item 7: the churn line says its exposure" grep -Eq '^  churn: [0-9]+ spawned over [0-9m. s]+s \(' "$R_TMP/sum-b.txt"
check "item 7: the kernel-log failures say their exposure" grep -Eq '^  allocation failures \(kernel log\): [0-9]+ over [0-9m. s]+s \(' "$R_TMP/sum-b.txt"

# ---- item 8: A and B on every line of the HTML table ------------------------------------------------------
for f in page.html rep.html; do
	crow=$(grep '^<tr><td>capacity <small>' "$R_TMP/$f" | head -1)
	ka=$(q "SELECT count(*) FROM v_probes WHERE run_id = $A AND kind = 'capacity' AND stop_reason NOT IN ('limit', 'timeout', 'stopped')")
	srow=$(grep '^<tr><td>spawn failures/h <small>' "$R_TMP/$f" | head -1)
	echo "$f: capacity $(grep -o '<strong>[^<]*</strong>' <<<"$crow" | head -1); spawn failures $(grep -o '<strong>[^<]*</strong>' <<<"$srow" | head -1)"
	check "item 8, $f: the capacity row shows each median whatever its word (kept probes: A $ka, B $np)" \
		has "$crow" "^<tr><td>capacity <small>\\(workers\\)</small></td><td class=\"n\">$([ "$ka" -gt 0 ] && echo '[0-9.]+')</td><td class=\"n\">$([ "$np" -gt 0 ] && echo '[0-9.]+')</td>"
	check "item 8, $f: the spawn-failure row shows both rates, intervals, counts and exposures" \
		has "$srow" '<td class="n">[0-9.]+ <small>\[[0-9.]+, [0-9.]+\]<br/>[0-9]+ in [0-9m. s]+s</small></td><td class="n">[0-9.]+ <small>\['
done
# every summary line within 72 columns, printable
check "summary: every line within 72 columns" test -z "$(awk 'length > 72' "$R_TMP/sum.txt" "$R_TMP/sum-b.txt")"

# ---- item 9: an older database ----------------------------------------------------------------------------
O=$R_TMP/old.db
sqlite3 "$O" <tests/fixtures/schema6-05cc04a.sql
cp "$O" "$R_TMP/old-src.db"
check "item 9: the fixture is a schema-6 database of fpusoakd 05cc04a with 2 runs" \
	test "$(sqlite3 "$O" 'PRAGMA user_version')/$(sqlite3 "$O" "SELECT count(*) || group_concat(DISTINCT version) FROM runs")" = "6/205cc04a"
"$FPUSOAKD" summary --db "$O" --run 1 >"$R_TMP/old-sum.txt" 2>&1; rc=$?
m=$(cat "$R_TMP/old-sum.txt")
check "item 9, summary on schema 6: exit 1, upgrade and import named, no daemon run advised" \
	bash -c "[ $rc = 1 ] && grep -q \"'fpusoakd upgrade --db $O'\" '$R_TMP/old-sum.txt' && grep -q 'fpusoakd import --db NEW.db' '$R_TMP/old-sum.txt' && ! grep -q -- '--duration' '$R_TMP/old-sum.txt'"
"$FPUSOAKD" serve --db "$O" --listen 127.0.0.1:0 >"$R_TMP/old-serve.txt" 2>&1; rc=$?
check "item 9, serve on schema 6: exit 1, the same advice" bash -c "[ $rc = 1 ] && grep -q 'fpusoakd upgrade --db' '$R_TMP/old-serve.txt'"
"$FPUSOAKD" upgrade --db "$O" >"$R_TMP/upg.txt" 2>&1; rc=$?
echo "$(cat "$R_TMP/upg.txt")"
latest=$(ls schema/*.sql | sed 's|schema/0*\([0-9]*\)_.*|\1|' | sort -n | tail -1)
check "item 9, upgrade: exit 0, schema 6 -> $latest, no run added" \
	test "$rc/$(sqlite3 "$O" 'PRAGMA user_version')/$(sqlite3 "$O" 'SELECT count(*) FROM runs')" = "0/$latest/2"
check "item 9, upgrade: the backup first, as the file was (schema 6, 2 runs)" \
	test "$(sqlite3 "$O.schema6.bak" 'PRAGMA user_version')/$(sqlite3 "$O.schema6.bak" 'SELECT count(*) FROM runs')" = "6/2"
"$FPUSOAKD" upgrade --db "$O" >"$R_TMP/upg2.txt" 2>&1; rc=$?
check "item 9, upgrade again: nothing to do, no second backup" bash -c "[ $rc = 0 ] && grep -q 'nothing to do' '$R_TMP/upg2.txt' && [ \$(ls '$O'.schema6*.bak | wc -l) = 1 ]"
"$FPUSOAKD" summary --db "$O" --compare 1 2 >"$R_TMP/old-cmp.txt" 2>&1; rc=$?
OC=$(flat "$R_TMP/old-cmp.txt")
check "item 9, the upgraded runs compare (exit $rc)" test "$rc" = 0
check "item 9/2: what was not recorded is said (the vm knobs)" has "$OC" 'What differs: nothing recorded .*the vm knobs of a run were not recorded'
check "item 9/1: old runs' limits as configured: no pids line" hasnt "$OC" 'pids limit'
check "item 9/6: old failures counted as every process's, said so" has "$OC" 'alloc failures/h \(all processes\): .* caveat: run A recorded no task of its failures \(an older fpusoakd\)'
check "item 9/7: old runs' probe workers were not accounted: said, not 0" grep -q 'probe workers: not accounted (a run of an fpusoakd before schema 7)' "$R_TMP/old-cmp.txt"
# An old run against a new one from two databases: the old binary padded the hypervisor's name (the
# CPUID signature's 12 bytes, 'other:bhyve bhyve ' in the fixture).  The fixture was recorded on another
# machine, so a copy of it gets this machine's name, padded as the old binary did, and must read as
# the same hypervisor (it failed on a KVM machine when the fixture's bhyve was compared as is).
mkdir -p "$R_TMP/pad"
cp "$O" "$R_TMP/pad/old.db"    # the name before .db names it in --compare
hv=$(sqlite3 "$R_DB" "SELECT coalesce(hypervisor, '') FROM runs WHERE run_id = $A")
sqlite3 "$R_TMP/pad/old.db" "UPDATE runs SET hypervisor = '${hv//\'/\'\'}' || '   '"
"$FPUSOAKD" summary --db "$R_TMP/pad/old.db" --db "$R_DB" --compare "old:1" "pair:$A" >"$R_TMP/cross.txt" 2>&1; rc=$?
check "item 9/10: an old run vs a new one (exit $rc): the same hypervisor, however it was padded" \
	bash -c "[ $rc = 0 ] && grep -q '^hypervisor ' '$R_TMP/cross.txt' && ! grep -q 'hypervisor .*(A) vs' '$R_TMP/cross.txt'"
"$FPUSOAKD" import --db "$R_TMP/imp.db" "$R_TMP/old-src.db" >"$R_TMP/imp.txt" 2>&1; rc=$?
check "item 9, import of a schema-6 source: its 2 runs, the source untouched (exit $rc)" \
	test "$rc/$(sqlite3 "$R_TMP/imp.db" 'SELECT count(*) FROM runs')/$(sqlite3 "$R_TMP/old-src.db" 'PRAGMA user_version')" = "0/2/6"

# ---- item 10: small untruths ------------------------------------------------------------------------------
"$FPUSOAKD" serve --db /tmp --listen 127.0.0.1:0 >"$R_TMP/dir.txt" 2>&1
check "item 10: serve --db /tmp says it is a directory ($(head -1 "$R_TMP/dir.txt"))" grep -q '/tmp is a directory' "$R_TMP/dir.txt"
head -c 8192 /dev/urandom >"$R_TMP/corrupt.db"
"$FPUSOAKD" serve --db "$R_TMP/corrupt.db" --listen 127.0.0.1:0 >"$R_TMP/cor.txt" 2>&1
check "item 10: serve on a corrupt file says it is not an SQLite database ($(head -1 "$R_TMP/cor.txt"))" \
	bash -c "grep -q 'is not an SQLite database' '$R_TMP/cor.txt' && ! grep -q prepare '$R_TMP/cor.txt'"
"$FPUSOAKD" import --db "$R_TMP/empty-target.db" "$R_TMP/corrupt.db" >"$R_TMP/imp2.txt" 2>&1
check "item 10: import of only a corrupt source leaves no target behind" test ! -e "$R_TMP/empty-target.db"
hyp=$(q "SELECT hypervisor FROM v_runs WHERE run_id = $B")
check "item 10: the hypervisor name has no padding ('$hyp')" test "$hyp" = "${hyp% }"
check "item 10: no number in the summaries in exponent form" bash -c "! grep -Eq '[0-9]e[+-][0-9]' '$R_TMP/sum.txt' '$R_TMP/sum-b.txt'"
setpriv --reuid=65534 --regid=65534 --clear-groups "$FPUSOAKD" --db /nonexistent/dir/x.db --listen none --workers 0 \
	--kmsg none >"$R_TMP/baddb.txt" 2>&1
check "item 10: a bad --db is one line, no OOM-score or cgroup warning before it ($(wc -l <"$R_TMP/baddb.txt") lines)" \
	test "$(wc -l <"$R_TMP/baddb.txt")" = 1
form=$(grep -o 'name="to" step="1" value="[^"]*"' "$R_TMP/run-b.html")
last=$(q "SELECT strftime('%Y-%m-%dT%H:%M:%S', (max(ts_ms) + 999) / 1000, 'unixepoch') FROM samples WHERE run_id = $B")
check "item 10: the window form's end keeps the seconds of the last sample ($form)" test "$form" = "name=\"to\" step=\"1\" value=\"$last\""
# docs/verdict.md's per-minute counter query: every step counted, the first of a minute included.
sql=$(awk '/^-- per-minute rise of a counter stored on change/ {p = 1; next} p && /^```/ {exit} p' docs/verdict.md)
want=$(q "SELECT max(value) - min(value) FROM v_vmstat WHERE run_id = $A AND name = 'pgalloc_normal'")
sum=$(q "$(sed 's/RUN/'"$A"'/; s/NAME/pgalloc_normal/' <<<"$sql")" | awk -F'|' '{s += $2} END {print s + 0}')
readme=$(q "SELECT sum(d) FROM (SELECT max(value) - min(value) AS d FROM v_vmstat WHERE run_id = $A AND name = 'pgalloc_normal' GROUP BY ts_ms / 60000)")
echo "pgalloc_normal over run $A: $want; per minute summed: docs/verdict.md $sum, README's third query $readme"
check "item 10: docs/verdict.md's per-minute query adds up to the counter's rise ($sum = $want)" test "$sum" = "$want" -a -n "$want"
if [ "$T_FAILS" -gt 0 ]; then
	echo "--- sum.txt"; sed 's/^/  | /' "$R_TMP/sum.txt"
	echo "--- v_failure_tasks (kmsg) and v_run_procs"
	q "SELECT run_id, ts_ms, CAST(comm AS TEXT), pid, task_ppid, substr(task_cgroup, 1, 60) FROM v_failure_tasks WHERE source = 'kmsg'" | sed 's/^/  | /'
	q "SELECT run_id, role, pid, CAST(comm AS TEXT) FROM v_run_procs" | sed 's/^/  | /'
fi
echo "took $(r_elapsed) s"
t_done
