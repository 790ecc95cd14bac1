#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The measured part of a docs/results/ page for the long seed runs (tests/xen/seed-run.sh OUT):
# for each variant folder under OUT that holds a DB, what ran (the command, the versions the test
# bed printed, the guest's memory, the host's load), the capacity per mode beside 2014's 256/228,
# the gap's trend, the model checks, failures by cause and what ended the fills, then the
# per-probe table (seed-table.sh).  Markdown on stdout; the prose around it is written by hand.
# Usage: tests/xen/seed-results.sh OUT [VARIANT...]   (default: every OUT/*/data/fpusoakd.db)
set -eu
out=${1:?usage: tests/xen/seed-results.sh OUT [VARIANT...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- $(cd "$out" && for d in */; do [ -f "$d/data/fpusoakd.db" ] && echo "${d%/}"; done)
[ $# -gt 0 ] || { echo "seed-results: no OUT/*/data/fpusoakd.db under $out" >&2; exit 2; }

# q DB SQL: one value per line, fields by '|'.
q() { sqlite3 -batch -noheader -separator '|' "$1" "$2"; }
# load FILE: "min–max (median)" of the host's 1-minute load average, sampled once a minute.
load() {
	awk '{ print $2 }' "$1" 2>/dev/null | sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "not recorded"; exit }
		printf "%s–%s (median %s, %d samples)\n", v[1], v[NR], v[int((NR + 1) / 2)], NR }'
}
# mode_stats DB RUN MODE: "n probes, median (min–max)" of uncensored capacity counts.
mode_stats() {
	local n med range
	n=$(q "$1" "SELECT count(*) FROM v_probes WHERE run_id = $2 AND kind = 'capacity' AND gfp_mode = '$3'")
	[ "$n" -gt 0 ] || { echo "no probe"; return; }
	med=$(q "$1" "SELECT CAST(result AS INTEGER) FROM v_probes WHERE run_id = $2 AND kind = 'capacity'
		AND gfp_mode = '$3' ORDER BY result LIMIT 1 OFFSET ($n - 1) / 2")
	range=$(q "$1" "SELECT min(CAST(result AS INTEGER)) || '–' || max(CAST(result AS INTEGER)) FROM v_probes
		WHERE run_id = $2 AND kind = 'capacity' AND gfp_mode = '$3'")
	echo "$med ($range), $n probes"
}

echo "| | 2014, by hand (64 MB PV guest) |$(for v; do printf ' %s |' "$v"; done)"
echo "|---|---|$(for v; do printf -- '---|'; done)"
row() { # LABEL 2014 FUNC: one table row, FUNC DB RUN per variant
	local label=$1 old=$2 fn=$3 v db run
	printf '| %s | %s |' "$label" "$old"
	for v in "${@:4}"; do
		db=$out/$v/data/fpusoakd.db
		run=$(q "$db" "SELECT max(run_id) FROM v_runs")
		printf ' %s |' "$("$fn" "$db" "$run")"
	done
	echo
}
r_kernel() { mode_stats "$1" "$2" kernel; }
r_atomic() { mode_stats "$1" "$2" atomic; }
r_len() { q "$1" "SELECT printf('%d h %02d min', (ended_ms - started_ms) / 3600000, ((ended_ms - started_ms) / 60000) % 60)
	|| ', ' || (SELECT count(*) FROM v_samples s WHERE s.run_id = $2) || ' samples' FROM v_runs WHERE run_id = $2"; }
r_mem() { q "$1" "SELECT 'MemTotal ' || mem_total_kb || ' kB, free at start ' || coalesce(mem_free_kb, '?') ||
	' kB, kernel reserved ' || coalesce(reserved_kb, '?') || ' kB' FROM v_run_memory WHERE run_id = $2"; }
r_kver() { q "$1" "SELECT kernel_release FROM v_runs WHERE run_id = $2"; }
r_frag() { q "$1" "SELECT CASE WHEN instr(config, 'fragment=light') THEN '--fragment light'
	WHEN instr(config, 'fragment=heavy') THEN '--fragment heavy' ELSE 'none' END FROM v_runs WHERE run_id = $2"; }
r_pbo() { q "$1" "SELECT coalesce(max(pageblock_order), '?') FROM v_pagetypeinfo WHERE run_id = $2" 2>/dev/null || echo '?'; }
r_gap() { summ "$1" "$2" | sed -n 's/^ *gap atomic-kernel: //p' | head -1; }
r_verdict() { summ "$1" "$2" |
	awk '/capacity probes by gfp mode/ { getline; sub(/^ +/, ""); print; exit }'; }
r_model() { summ "$1" "$2" | sed -n 's/^ *model checks: //p' | head -1; }
r_refused() { summ "$1" "$2" | sed -n 's/^ *refused HOLDs: //p' | head -1; }
r_causes() { q "$1" "SELECT coalesce(group_concat(source || ' ' || cause || ' ' || n, ', '), 'none') FROM (SELECT source, cause, count(*) AS n
	FROM v_failure_causes WHERE run_id = $2 GROUP BY source, cause ORDER BY source, n DESC)"; }
r_stops() { q "$1" "SELECT group_concat(gfp_mode || ': ' || s, '; ') FROM (SELECT gfp_mode, group_concat(stop_reason || ' ' || k, ', ') AS s
	FROM (SELECT gfp_mode, stop_reason, count(*) AS k FROM v_probes WHERE run_id = $2 AND kind = 'capacity'
	GROUP BY gfp_mode, stop_reason ORDER BY k DESC) GROUP BY gfp_mode)"; }
r_load() { load "$(dirname "$(dirname "$1")")/host-load.txt"; }
FPUSOAKD=${FPUSOAKD:-$here/../../build/fpusoakd}
# summ DB RUN: `fpusoakd summary` of the run, once per DB (four rows read it).
sdir=$(mktemp -d)
trap 'rm -rf "$sdir"' EXIT
summ() {
	local f=$sdir/$(printf '%s' "$1" | md5sum | cut -c1-12)
	[ -f "$f" ] || "$FPUSOAKD" summary --db "$1" --run "$2" >"$f" 2>/dev/null || true
	cat "$f"
}
row "guest kernel" "2.6/3.x PV (not recorded)" r_kver "$@"
row "pageblock order" "9 (distribution kernel)" r_pbo "$@"
row "guest memory" "64 MB" r_mem "$@"
row "fragmenting load" "none" r_frag "$@"
row "run" "one fill each" r_len "$@"
row "capacity, GFP_KERNEL: median (range)" "256" r_kernel "$@"
row "capacity, GFP_ATOMIC: median (range)" "228" r_atomic "$@"
row "atomic vs kernel (whole run)" "−28 (−11%), one pair" r_verdict "$@"
row "gap atomic − kernel per hour [95% CI]" "—" r_gap "$@"
row "what ended the fills" "allocation failure" r_stops "$@"
row "refused HOLDs" "—" r_refused "$@"
row "model checks (module's TRY vs watermark model)" "—" r_model "$@"
row "failed allocations by cause" "—" r_causes "$@"
row "host load (1-min average)" "—" r_load "$@"
for v; do
	echo
	echo "### $v: every probe"
	echo
	sed -n 's/^seed-run: //p' "$out/$v/command.txt" | head -1 | sed 's/^/Started: /'
	echo
	bash "$here/seed-table.sh" "$out/$v"
done
