#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The per-probe table of a long run (tests/xen/seed-run.sh OUT/<variant>/), as Markdown on stdout,
# for docs/results/: every capacity probe of the run with its mode, count, what ended it, how long
# the fill took, the zone's order-0 margins at the last sample of the fill (free pages above the
# min watermark: what GFP_KERNEL may use before it must reclaim, v_atomic_risk's
# kernel_margin_pages, which also leaves the highatomic reserve alone; above the lower mark
# GFP_ATOMIC may dip to: margin_pages), the zone's HighAtomic pageblocks at the last pagetypeinfo
# sample of the fill (the reserve for high-order atomic requests that GFP_KERNEL may not use), the SLUB
# statistics of the FPU-state cache (the module's fpusoak_xstate) and of task_struct during the
# probe (after - before: alloc_slowpath, order_fallback); then per mode: probes, counts
# (median, min-max), stop reasons.
# Usage: tests/xen/seed-table.sh DIR   (DIR/data/fpusoakd.db, DIR/data/slab-stats.txt)
set -eu
dir=${1:?usage: tests/xen/seed-table.sh DIR}
db=$dir/data/fpusoakd.db
sl=$dir/data/slab-stats.txt
[ -f "$db" ] || { echo "seed-table: no $db" >&2; exit 2; }
q() { sqlite3 -batch -noheader -separator '|' "$db" "$@"; }
run=$(q "SELECT max(run_id) FROM v_runs")
t0=$(q "SELECT started_ms FROM v_runs WHERE run_id = $run")
# "n cache stat" -> value, for after - before.
slab() { # N CACHE STAT: the probe's delta, or "?"
	awk -v n="$1" -v c="$2" -v s="$3" '
		$2 == c && ($1 == "before-" n || $1 == "after-" n) {
			for (f = 4; f <= NF; f++) { split($f, kv, "="); if (kv[1] == s) v[$1] = kv[2] } }
		END { if (("before-" n in v) && ("after-" n in v)) print v["after-" n] - v["before-" n]; else print "?" }' "$sl" 2>/dev/null || echo "?"
}
echo "| # | at (h:mm) | mode | workers | stop reason | fill (s) | free − min (pages) | free − atomic mark (pages) | HighAtomic pageblocks | FPU-state cache: slow path / order fallback | task_struct: slow path / order fallback |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
i=0
q "SELECT p.ts_ms, p.gfp_mode, CAST(p.result AS INTEGER), p.stop_reason, p.duration_ms,
	(SELECT kernel_margin_pages || '|' || margin_pages FROM v_atomic_risk a
	  WHERE a.run_id = p.run_id AND a.page_order = 0 AND a.zone = 'DMA32' AND a.ts_ms <= p.ts_ms + p.duration_ms AND a.ts_ms >= p.ts_ms
	  ORDER BY a.ts_ms DESC LIMIT 1),
	(SELECT pageblocks FROM v_pagetypeinfo t
	  WHERE t.run_id = p.run_id AND t.zone = 'DMA32' AND t.migratetype = 'HighAtomic' AND t.page_order = 0
	    AND t.ts_ms <= p.ts_ms + p.duration_ms ORDER BY t.ts_ms DESC LIMIT 1)
	FROM v_probes p WHERE p.run_id = $run AND p.kind = 'capacity' ORDER BY p.ts_ms" |
while IFS='|' read -r ts mode res why dur km am ha; do
	i=$((i + 1))
	at=$(( (ts - t0) / 1000 ))
	printf '| %d | %d:%02d | %s | %s | %s | %d | %s | %s | %s | %s / %s | %s / %s |\n' "$i" $((at / 3600)) $(((at % 3600) / 60)) \
		"$mode" "$res" "$why" $((dur / 1000)) "${km:-?}" "${am:-?}" "${ha:-?}" \
		"$(slab "$i" fpusoak_xstate alloc_slowpath)" "$(slab "$i" fpusoak_xstate order_fallback)" \
		"$(slab "$i" task_struct alloc_slowpath)" "$(slab "$i" task_struct order_fallback)"
done
echo
echo "| mode | probes | workers: median (min–max) | stop reasons |"
echo "|---|---|---|---|"
for m in kernel atomic; do
	n=$(q "SELECT count(*) FROM v_probes WHERE run_id = $run AND kind = 'capacity' AND gfp_mode = '$m'")
	[ "$n" -gt 0 ] || continue
	med=$(q "SELECT CAST(result AS INTEGER) FROM v_probes WHERE run_id = $run AND kind = 'capacity' AND gfp_mode = '$m'
		ORDER BY result LIMIT 1 OFFSET ($n - 1) / 2")
	[ $((n % 2)) = 1 ] || med=$(q "SELECT printf('%g', avg(r)) FROM (SELECT CAST(result AS INTEGER) AS r FROM v_probes
		WHERE run_id = $run AND kind = 'capacity' AND gfp_mode = '$m' ORDER BY result LIMIT 2 OFFSET ($n - 1) / 2)")
	printf '| %s | %d | %s (%s) | %s |\n' "$m" "$n" "$med" \
		"$(q "SELECT min(CAST(result AS INTEGER)) || '–' || max(CAST(result AS INTEGER)) FROM v_probes WHERE run_id = $run AND kind = 'capacity' AND gfp_mode = '$m'")" \
		"$(q "SELECT group_concat(stop_reason || ' ' || k, ', ') FROM (SELECT stop_reason, count(*) AS k FROM v_probes
			WHERE run_id = $run AND kind = 'capacity' AND gfp_mode = '$m' GROUP BY stop_reason ORDER BY k DESC)")"
done
