# SPDX-License-Identifier: GPL-2.0-only
# Scenario "fragment" (host side, after the boot): the positive control of issue 23.  Run 1 (A)
# had no fragmenting load, run 2 (B) --fragment heavy; same length, flags and seed, both started
# after drop_caches and compact_memory.  What is compared, exactly:
#   Z  = the zone the report's comparison of A and B uses for order 3, the task_struct slab's order
#        (the largest zone of both runs: DMA32 in the test guests);
#   1. B's order-3 headroom trend in Z (the report's own: fitted per tick, AR(1)-corrected 95%
#      interval, report/headroom.h) falls: its slope and the whole interval are below zero;
#   2. A's does not fall as fast: A's slope is above B's, and the comparison's headroom line (slope
#      difference B - A, Welch) is "significant" with the interval below zero;
#   3. the unusable free space index at order 3 in Z (v_frag, the kernel's own arithmetic) rose:
#      B's last-minute mean exceeds its first-minute mean by >= 0.05, and by >= 0.03 more than A's;
#   4. fragmenting fallbacks of unmovable and reclaimable allocations (v_extfrag:
#      mm_page_alloc_extfrag with fallback_order < pageblock_order and alloc_migratetype != 1; the
#      guest's 6.1 kernel numbers enum migratetype UNMOVABLE 0, MOVABLE 1, RECLAIMABLE 2): pages
#      that cannot move, put in another type's pageblock, the mixing the load is for.  More with
#      the load than without, counted in the traced pair (runs 3 and 4: the same two runs with the
#      daemon's tracefs instance, fragment.conf.sh says why apart), or in A and B when they ran
#      with tracing (XEN_FRAG_TRACE=auto); a SKIP says so where no run traced.  Movable
#      allocations' fallbacks are reported, not compared: with the instance's 11 MB of slab the
#      churn alone makes them near DMA32's watermark (38 in a traced run without the load, against
#      30 with it; none of unmovable or reclaimable allocations there, 17 with the load), and
#      compaction can move those pages out again;
#   5. the load's own rows (v_fragment): B only, never above its bound, >= 3 cycles;
#   6. failure causes (issue 32, docs/failure-causes.md), with the fpusoak_gfp module loaded (dom0
#      stage, fragment.conf.sh): the model-check TRYs at the pageblock order that the allocator refused
#      in the runs with the load (B, and the traced pair's run 4) are classified (v_failure_causes,
#      source module, judged against the tick's own zoneinfo and buddyinfo): at least one
#      'fragmentation' with pages to spare (free_kb above min_kb, the level free pages had to exceed,
#      in the zone that decided), and one cause row per refused TRY.  The runs without the load are
#      counted beside, not compared.  Whether B itself has refusals depends on the DMA zone: while DMA
#      keeps a free order-9 block the request is served from there (B of 2026-12-06: 0 of 34 refused;
#      its traced twin, whose instance's slab pushes allocations into DMA: 10 of 34, all
#      fragmentation, 4-6 MB free against a mark of 2.3-4.5 MB).
# The figures go to times.txt (sc_time) for the README's table.
db=$SC_OUT/fpusoakd.db
sq() { sqlite3 -batch -noheader "$db" "$@" 2>&1; }
if [ ! -f "$db" ]; then
	fail "no DB from the fragment scenario"
	return 0 2>/dev/null || exit 0
fi
check "DB passes PRAGMA integrity_check" test "$(sq 'PRAGMA integrity_check')" = ok
nruns=$(sq "SELECT count(*) FROM v_runs")
for r in $(seq 1 "$nruns"); do
	lab=$(sq "SELECT label FROM v_runs WHERE run_id = $r")
	ns=$(sq "SELECT count(*) || ' ' || ((max(ts_ms) - min(ts_ms)) / 1000) FROM v_samples WHERE run_id = $r")
	read -r n span <<<"$ns"
	end=$(sq "SELECT end_reason FROM v_runs WHERE run_id = $r")
	# Three minutes of samples for the trend.  A loaded host may starve the emulated guest of ticks
	# (TCG): each missed period is counted in v_tick_late (a run beside two other QEMUs had 92 samples
	# and 98 missed periods over 190 s), so every period must be a sample or a missed one, and at
	# least half of them samples.
	missed=$(sq "SELECT coalesce(sum(missed), 0) FROM v_tick_late WHERE run_id = $r" 2>/dev/null)
	check "run $r ($lab): $n samples + ${missed:-0} missed periods over ${span:-0}s (>= 180 s, >= 150 periods, >= 90 samples), ended '$end'" \
		test "${span:-0}" -ge 180 -a $(( ${n:-0} + ${missed:-0} )) -ge 150 -a "${n:-0}" -ge 90 -a "$end" = stopped
done
# What the README's table reports per run: first and last 30 s of the headroom, Shmem (the DB and
# its write-ahead log live in the guest's tmpfs: the guest script keeps the log small), MemFree.
for r in 1 2; do
	fl=$(sq "WITH b AS (SELECT min(ts_ms) AS t0, max(ts_ms) AS t1 FROM samples WHERE run_id = $r)
		SELECT (SELECT round(avg(shmem)) FROM samples, b WHERE run_id = $r AND ts_ms < t0 + 30000) || ' ' ||
		       (SELECT round(avg(shmem)) FROM samples, b WHERE run_id = $r AND ts_ms > t1 - 30000) || ' ' ||
		       (SELECT round(avg(mem_free)) FROM samples, b WHERE run_id = $r AND ts_ms < t0 + 30000) || ' ' ||
		       (SELECT round(avg(mem_free)) FROM samples, b WHERE run_id = $r AND ts_ms > t1 - 30000) || ' ' ||
		       (SELECT coalesce(sum(spawned), 0) FROM samples WHERE run_id = $r) FROM b")
	read -r sh0 sh1 mf0 mf1 spawned <<<"$fl"
	info "run $r: Shmem ${sh0%.0} -> ${sh1%.0} kB, MemFree ${mf0%.0} -> ${mf1%.0} kB (first and last 30 s), $spawned workers spawned"
	sc_time "run${r}_shmem_kb" "${sh0%.0}->${sh1%.0}"
	sc_time "run${r}_memfree_kb" "${mf0%.0}->${mf1%.0}"
	sc_time "run${r}_spawned" "$spawned"
	sc_time "run${r}_samples" "$(sq "SELECT count(*) FROM samples WHERE run_id = $r")"
done
# pair_ok OFF HEAVY: run OFF ran with --fragment off and run HEAVY with --fragment heavy.
pair_ok() {
	[ "$(sq "SELECT group_concat(instr(config, 'fragment=off') > 0 AND run_id = $1 OR instr(config, 'fragment=heavy') > 0 AND run_id = $2)
		FROM v_runs WHERE run_id IN ($1, $2) ORDER BY run_id")" = "1,1" ]
}
check "run 1 ran without the load, run 2 with --fragment heavy (config)" pair_ok 1 2

# 5. the load's accounting
fr=$(sq "SELECT count(*) || ' ' || coalesce(max(cycles), 0) || ' ' || coalesce(max(held_bytes), 0) || ' ' ||
	coalesce(max(cap_bytes), 0) || ' ' || (SELECT count(*) FROM v_fragment WHERE run_id = 1) FROM v_fragment WHERE run_id = 2")
read -r frows fcyc fheld fcap fa <<<"$fr"
check "v_fragment: $frows rows in B, none in A ($fa); $fcyc cycles; at most $((fheld / 1024)) KiB held of the $((fcap / 1024)) KiB bound" \
	test "$frows" -ge 140 -a "$fa" = 0 -a "$fcyc" -ge 3 -a "$fheld" -le "$fcap"
sc_time fragment_cycles "$fcyc"
sc_time fragment_peak_kib $((fheld / 1024))
sc_time fragment_bound_kib $((fcap / 1024))

# The report's own figures, through its read-only server and JSON API.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$FPUSOAKD" serve --db "$db" --listen "127.0.0.1:$port" >"$SC_OUT/serve.log" 2>&1 &
spid=$!
for _ in $(seq 50); do curl -fsS -m 5 -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null && break; sleep 0.1; done
ok=1
for u in runs/1 runs/2 compare?a=1\&b=2; do
	curl -fsS -m 60 -o "$SC_OUT/api-${u//[?&=\/]/_}.json" "http://127.0.0.1:$port/api/v1/$u" || ok=0
done
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
"$FPUSOAKD" summary --db "$db" --compare 1 2 >"$SC_OUT/summary-compare.txt" 2>&1
if [ "$ok" != 1 ]; then
	fail "the report's API did not answer (see $SC_OUT/serve.log)"
	return 0 2>/dev/null || exit 0
fi
figs=$(python3 - "$SC_OUT" <<'EOF'
import json, sys
d = sys.argv[1]
a = json.load(open(d + "/api-runs_1.json")); b = json.load(open(d + "/api-runs_2.json"))
c = json.load(open(d + "/api-compare_a_1_b_2.json"))
zone = next((o["zone"] for o in c["orders_of_interest"] if o["order"] == 3), "")
line = next((l for l in c["comparisons"] if l["label"] == "headroom o3/h"), {})
def trend(run):
    t = next((t for t in run["headroom_trends"] if t["order"] == 3 and t["zone"] == zone), None)
    if not t or t.get("slope_per_hour") is None:
        return "nan nan nan none"
    return "%.6g %.6g %.6g %s" % (t["slope_per_hour"], t["ci95_per_hour"][0], t["ci95_per_hour"][1], t.get("fit", "?"))
ci = line.get("ci95") or [float("nan"), float("nan")]
print(zone or "-", trend(a), trend(b), "1" if line.get("significant") else "0", "%.6g %.6g %.6g" %
      (line.get("estimate", float("nan")), ci[0] if ci[0] is not None else float("nan"),
       ci[1] if ci[1] is not None else float("nan")), (line.get("verdict") or line.get("note") or "").replace(" ", "_"))
EOF
)
read -r zone sa la ha fa sb lb hb fb sig est elo ehi verdict <<<"$figs"
info "order 3, zone $zone: A slope $sa/h [$la, $ha] ($fa), B $sb/h [$lb, $hb] ($fb); compare: ${verdict//_/ }"
lt() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if a < b else 1)" "$1" "$2" 2>/dev/null; }
# XEN_FRAG_PROBES=1: the capacity of each probe, early and late in each run; no headroom checks.
if [ "${FRAG_PROBES:-0}" = 1 ]; then
	for r in 1 2; do
		cap=$(sq "SELECT group_concat(CAST(result AS INTEGER) || ' (' || coalesce(stop_reason, '?') || ', +' ||
			((ts_ms - (SELECT min(ts_ms) FROM v_samples WHERE run_id = $r)) / 1000) || ' s)', ', ')
			FROM (SELECT * FROM v_probes WHERE run_id = $r AND kind = 'capacity' ORDER BY ts_ms)")
		info "run $r: capacity probes: ${cap:-none}"
		sc_time "run${r}_capacity" "${cap// /_}"
	done
	skip "1-3: XEN_FRAG_PROBES=1 is a measurement of capacity: its fills swamp the headroom series"
	return 0 2>/dev/null || exit 0
fi
# 1.
if lt "$sb" 0 && lt "$hb" 0; then
	pass "1. with the load, order-3 headroom in $zone falls: $sb blocks/h, 95% CI [$lb, $hb] below zero ($fb)"
else
	fail "1. with the load, order-3 headroom in $zone: slope $sb blocks/h, 95% CI [$lb, $hb]: not below zero ($fb)"
fi
# 2.
if lt "$sb" "$sa" && [ "$sig" = 1 ] && lt "$ehi" 0; then
	pass "2. without it, it falls less ($sa vs $sb blocks/h); the compare says: ${verdict//_/ }"
else
	fail "2. the compare of A and B: ${verdict//_/ } (A $sa, B $sb blocks/h)"
fi
sc_time headroom_zone "$zone"
# first_last RUN: the run's mean order-3 headroom in Z over its first and its last 30 s, "A->B".
first_last() {
	sq "WITH b AS (SELECT min(ts_ms) AS t0, max(ts_ms) AS t1 FROM v_headroom
		WHERE run_id = $1 AND zone = '$zone' AND page_order = 3)
		SELECT (SELECT round(avg(headroom_blocks)) FROM v_headroom, b WHERE run_id = $1 AND zone = '$zone' AND page_order = 3
			AND ts_ms < t0 + 30000) || '->' || (SELECT round(avg(headroom_blocks)) FROM v_headroom, b
			WHERE run_id = $1 AND zone = '$zone' AND page_order = 3 AND ts_ms > t1 - 30000) FROM b"
}
for r in 1 2; do sc_time "run${r}_headroom_o3_first_last_30s" "$(first_last "$r")"; done
sc_time headroom_o3_slope_off_per_h "$sa"
sc_time headroom_o3_ci_off "[$la,$ha]"
sc_time headroom_o3_slope_heavy_per_h "$sb"
sc_time headroom_o3_ci_heavy "[$lb,$hb]"
sc_time headroom_o3_diff_per_h "$est [$elo,$ehi]"

# 3. the unusable free space index at order 3 in Z, first minute vs last minute of each run
rise() {
	sq "SELECT round(l.u - f.u, 4) || ' ' || round(f.u, 4) || ' ' || round(l.u, 4) FROM
		(SELECT avg(unusable_index) AS u FROM v_frag WHERE run_id = $1 AND zone = '$zone' AND page_order = 3
		  AND ts_ms < (SELECT min(ts_ms) FROM v_samples WHERE run_id = $1) + 60000) f,
		(SELECT avg(unusable_index) AS u FROM v_frag WHERE run_id = $1 AND zone = '$zone' AND page_order = 3
		  AND ts_ms > (SELECT max(ts_ms) FROM v_samples WHERE run_id = $1) - 60000) l"
}
read -r ra ua0 ua1 <<<"$(rise 1)"
read -r rb ub0 ub1 <<<"$(rise 2)"
if python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if b >= 0.05 and b - a >= 0.03 else 1)" "$ra" "$rb" 2>/dev/null; then
	pass "3. the unusable index at order 3 in $zone rose with the load: $ub0 -> $ub1 (+$rb), without: $ua0 -> $ua1 (+$ra)"
else
	fail "3. the unusable index at order 3 in $zone: with the load $ub0 -> $ub1 (+$rb), without $ua0 -> $ua1 (+$ra)"
fi
sc_time unusable_o3_off "$ua0->$ua1"
sc_time unusable_o3_heavy "$ub0->$ub1"

# 4. fragmenting fallbacks, where a run recorded them: the traced pair (runs 3 off, 4 heavy)
# when there is one, else A and B when they ran with tracing.
# fallbacks RUN [all]: the run's fragmenting fallbacks of unmovable and reclaimable allocations
# (migratetypes 0 and 2), or of every allocation with "all".
fallbacks() {
	sq "SELECT coalesce(sum(events), 0) FROM v_extfrag WHERE run_id = $1 AND fragmenting = 1
		$([ "${2:-}" = all ] || echo "AND alloc_migratetype <> 1")"
}
# by_type RUN: its fragmenting fallbacks by allocation -> pageblock migratetype, "0->1:4 ...".
by_type() {
	sq "SELECT coalesce(group_concat(k, ' '), 'none') FROM (SELECT alloc_migratetype || '->' || fallback_migratetype || ':' || sum(events) AS k
		FROM v_extfrag WHERE run_id = $1 AND fragmenting = 1 GROUP BY alloc_migratetype, fallback_migratetype)"
}
traced() { [ "$(sq "SELECT count(*) FROM v_runs WHERE run_id = $1 AND instr(config, 'trace=none') = 0")" = 1 ]; }
# The pair check 4 reads: the traced one when the scenario ran it, else A and B when they traced.
fb_pair=
if [ "$(sq "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = 'v_extfrag'")" != 1 ]; then
	skip "4. fragmenting fallbacks: this daemon does not record mm_page_alloc_extfrag (no v_extfrag view)"
elif [ "$nruns" -ge 4 ]; then
	if pair_ok 3 4 && traced 3 && traced 4; then
		fb_pair="3 4" fb_where=", counted in the traced pair"
	else
		fail "4. runs 3 and 4 are not the traced pair (3 off, 4 heavy, both traced): $(sq "SELECT group_concat(run_id || ':' || config, ' | ') FROM v_runs WHERE run_id IN (3, 4)")"
	fi
elif ! traced 1 && ! traced 2; then
	skip "4. fragmenting fallbacks: no traced pair (XEN_FRAG_FALLBACK_SECONDS=0, the domU stage's default) and A and B ran with --trace none (XEN_FRAG_TRACE's default: the tracefs instance's ~11 MB of slab pins DMA32 at its watermark in this guest, fragment.conf.sh)"
elif [ "$(sq "SELECT count(*) FROM v_extfrag WHERE run_id IN (1, 2)")" = 0 ]; then
	skip "4. fragmenting fallbacks: no mm_page_alloc_extfrag rows in A or B (tracing off in this guest?)"
else
	fb_pair="1 2" fb_where=""
fi
if [ -n "$fb_pair" ]; then
	read -r p_off p_on <<<"$fb_pair"
	f_off=$(fallbacks "$p_off") f_on=$(fallbacks "$p_on")
	info "fragmenting fallbacks${fb_where} by migratetype (0 unmovable, 1 movable, 2 reclaimable; allocation->pageblock): without the load $(by_type "$p_off"), with it $(by_type "$p_on"); of every type: $(fallbacks "$p_off" all) and $(fallbacks "$p_on" all)"
	check "4. fragmenting fallbacks of unmovable and reclaimable allocations${fb_where}: $f_on with the load, $f_off without" \
		test "${f_on:-0}" -gt "${f_off:-0}"
	sc_time fallbacks_fragmenting_unmovable_reclaimable "$f_off->$f_on"
	sc_time fallbacks_fragmenting "$(fallbacks "$p_off" all)->$(fallbacks "$p_on" all)"
	sc_time fallbacks_all "$(sq "SELECT coalesce(sum(events), 0) FROM v_extfrag WHERE run_id = $p_off")->$(sq "SELECT coalesce(sum(events), 0) FROM v_extfrag WHERE run_id = $p_on")"
fi
# The traced pair's own figures, for the README: what its instance cost, its headroom and index.
if [ "$fb_pair" = "3 4" ]; then
	tcost=$(sq "SELECT group_concat(tracefs, ' ') FROM v_run_trace WHERE run_id IN (3, 4)" | grep -o 'Slab [+-][0-9]* kB' | tr '\n' ' ')
	info "traced pair: the instance cost ${tcost:-?}"
	for r in 3 4; do sc_time "run${r}_headroom_o3_first_last_30s" "$(first_last "$r")"; done
	read -r _ u30 u31 <<<"$(rise 3)"
	read -r _ u40 u41 <<<"$(rise 4)"
	info "traced pair: unusable index at order 3 in $zone: without $u30 -> $u31, with $u40 -> $u41"
	sc_time unusable_o3_off_traced "$u30->$u31"
	sc_time unusable_o3_heavy_traced "$u40->$u41"
fi

# 6. failure causes of the model checks' refused TRYs at the pageblock order, in the runs with the load
km=$(con_marker "$console" FRAGMENT-KMOD)
if [ "$(sq "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = 'v_failure_causes'")" != 1 ]; then
	skip "6. failure causes: this daemon has no v_failure_causes"
elif [ "${km%% *}" != loaded ]; then
	skip "6. failure causes: the fpusoak_gfp module was not loaded (${km:-no FRAGMENT-KMOD line}): no model checks"
else
	pb=$(sq "SELECT coalesce(max(pageblock_order), 9) FROM slow_samples WHERE run_id = 2")
	heavy=$(sq "SELECT group_concat(run_id) FROM v_runs WHERE instr(config, 'fragment=heavy') > 0")
	off=$(sq "SELECT group_concat(run_id) FROM v_runs WHERE instr(config, 'fragment=off') > 0")
	# causes RUNS: "cause:count:pages-to-spare ..." of the runs' refused TRYs at the pageblock order.
	causes() {
		sq "SELECT coalesce(group_concat(c || ':' || n || ':' || spare, ' '), 'none') FROM
			(SELECT CASE cause WHEN 1 THEN 'watermark' WHEN 2 THEN 'fragmentation' WHEN 3 THEN 'reserve' ELSE 'unknown' END AS c,
			        count(*) AS n, sum(free_kb > min_kb) AS spare FROM failure_cause
			  WHERE run_id IN ($1) AND source = 3 AND page_order = $pb AND note LIKE 'TRY:%' GROUP BY cause)"
	}
	tries() { sq "SELECT group_concat(run_id || ':' || r || '/' || n, ' ') FROM (SELECT run_id, count(*) AS n, sum(actual_ok = 0) AS r
		FROM v_model_check WHERE run_id IN ($1) AND page_order = $pb GROUP BY run_id)"; }
	info "order-$pb TRYs refused/made per run: without the load $(tries "$off") (causes $(causes "$off")), with it $(tries "$heavy") (causes $(causes "$heavy")) (cause:count:with pages to spare)"
	nfrag=$(sq "SELECT count(*) FROM failure_cause WHERE run_id IN ($heavy) AND source = 3 AND page_order = $pb
		AND note LIKE 'TRY:%' AND cause = 2 AND free_kb > min_kb")
	ex=$(sq "SELECT 'run ' || run_id || ', ' || zone || ' ' || free_kb || ' kB free over ' || min_kb || ', largest usable order ' ||
		coalesce(largest_usable_order, 'none') || ', lag ' || lag_ms || ' ms' FROM v_failure_causes
		WHERE run_id IN ($heavy) AND source = 'module' AND page_order = $pb AND cause = 'fragmentation' ORDER BY ts_ms LIMIT 1")
	check "6. with the load (runs $heavy), refused order-$pb TRYs classified fragmentation with pages to spare: $nfrag (e.g. ${ex:-none})" \
		test "${nfrag:-0}" -ge 1
	nr=$(sq "SELECT count(*) FROM v_model_check WHERE actual_ok = 0")
	nc=$(sq "SELECT count(*) FROM failure_cause WHERE source = 3 AND note LIKE 'TRY:%'")
	check "6. one cause row per refused TRY, every run ($nr refused, $nc rows)" test "$nr" = "$nc"
	sc_time causes_o${pb}_off "$(causes "$off")"
	sc_time causes_o${pb}_heavy "$(causes "$heavy")"
	sc_time tries_o${pb}_refused "$(tries "$off" | tr ' ' ',')->$(tries "$heavy" | tr ' ' ',')"
	# The trace's failures of the traced pair, judged against the nearest sample: how far it was.
	if [ "$fb_pair" = "3 4" ]; then
		tl=$(sq "SELECT count(*) || ' ' || coalesce(sum(lag_ms IS NOT NULL), 0) || ' ' || coalesce(max(abs(lag_ms)), 0) FROM v_failure_causes
			WHERE run_id IN (3, 4) AND source = 'trace'")
		read -r tn tw tmax <<<"$tl"
		info "traced pair: $tn traced failures classified, $tw against a sample within 1 s (largest lag ${tmax} ms)"
		sc_time trace_causes "$(sq "SELECT coalesce(group_concat(c, ' '), 'none') FROM (SELECT cause || ':' || count(*) AS c
			FROM v_failure_causes WHERE run_id IN (3, 4) AND source = 'trace' GROUP BY cause)")"
	fi
fi
