# SPDX-License-Identifier: GPL-2.0-only
# Scenario "seed" (host side, after the boot): the long run came back whole.  The measurement
# itself is read from $BUILD/xen/domu/data/seed/ (tests/xen/seed-run.sh, docs/results/):
#  - the DB is on the data disk, its run is this boot's and recorded gfp_mode=alternate;
#  - capacity probes of both modes with counts, taking turns, one every few minutes for the run;
#  - SLUB statistics before and after each probe; the module loaded and unloaded.
seed_check() {
	local db=$OUT_DATA/seed/fpusoakd.db run np order want m row sl missing i l
	sq() { sqlite3 -batch -noheader "$db" "$@" 2>&1; }
	check "insmod of the module built against $DOMU_KVER ($(con_marker "$console" SEED-INSMOD))" \
		test "$(con_kv rc "$(con_marker "$console" SEED-INSMOD)")" = 0
	check "rmmod after the run ($(con_marker "$console" SEED-RMMOD))" test "$(con_marker "$console" SEED-RMMOD)" = ok
	if [ ! -f "$db" ]; then
		fail "no fpusoakd.db on the data disk ($OUT_DATA/seed/)"
		return 0
	fi
	run=$(sq "SELECT max(run_id) FROM v_runs")
	check "the DB is this boot's (its run started after QEMU did)" \
		test "$(sq "SELECT started_ms >= $T_BOOT_MS FROM v_runs WHERE run_id = $run")" = 1
	check "the run recorded gfp_mode=alternate" test "$(sq "SELECT gfp_mode FROM v_runs WHERE run_id = $run")" = alternate
	check "the run ended cleanly ($(sq "SELECT end_reason FROM v_runs WHERE run_id = $run"))" \
		test "$(sq "SELECT end_reason FROM v_runs WHERE run_id = $run")" = stopped
	np=$(sq "SELECT count(*) FROM v_probes WHERE run_id = $run AND kind = 'capacity'")
	order=$(sq "SELECT group_concat(gfp_mode, ',') FROM (SELECT gfp_mode FROM v_probes WHERE run_id = $run AND kind = 'capacity' ORDER BY ts_ms)")
	want=$(awk -v n="${np:-0}" 'BEGIN { for (i = 0; i < n; i++) printf "%s%s", i ? "," : "", i % 2 ? "atomic" : "kernel" }')
	check "capacity probes took turns kernel, atomic, ... ($np probes)" test "${np:-0}" -ge 4 -a "$order" = "$want"
	for m in kernel atomic; do
		row=$(sq "SELECT count(*) FROM v_probes WHERE run_id = $run AND kind = 'capacity' AND gfp_mode = '$m' AND result > 0")
		check "$m probes produced counts ($row)" test "${row:-0}" -ge 2
	done
	sl=$OUT_DATA/seed/slab-stats.txt missing=''
	for i in $(seq 1 "${np:-0}"); do
		for l in before after; do
			grep -q "^$l-$i fpusoak_xstate .* order_fallback=[0-9]* " "$sl" 2>/dev/null || missing="$missing $l-$i"
		done
	done
	check "SLUB statistics before and after each probe${missing:+ (missing:$missing)}" test -z "$missing"
	sc_time seed_probes "$np"
	sc_time seed_capacity "$(sq "SELECT group_concat(gfp_mode || ':' || CAST(result AS INTEGER) || ':' || stop_reason, ' ')
		FROM (SELECT * FROM v_probes WHERE run_id = $run AND kind = 'capacity' ORDER BY ts_ms)")"
}
OUT_DATA=$(dirname "$SC_OUT")/data
seed_check
