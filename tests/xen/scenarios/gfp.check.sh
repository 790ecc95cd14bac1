# SPDX-License-Identifier: GPL-2.0-only
# Scenario "gfp" (host side, after the boot): what the guest did with the
# fpusoak_gfp module, checked from the console, the exported counters and the
# DB.  Sourced by run.sh with SC_OUT (the exported files), the console ($console),
# the scenario's env (GFP_KVER, GFP_PROBES ...) and sc_time.
#  - the module loaded, its interface checks passed inside the guest, and it
#    unloaded cleanly (node and slab cache gone);
#  - the run recorded gfp_mode=alternate; capacity probes took turns kernel,
#    atomic, ... and both modes produced a count; each probe says what ended
#    it, an atomic probe ended by a refused HOLD says gfp_failed:atomic and
#    counts it;
#  - v_model_check has rows for both modes with both answers;
#  - the module's own counters (after - before) agree with what the daemon
#    stored: TRY attempts and failures per mode and order = model-check rows,
#    HOLD failures per mode = the gfp_failed deaths of that mode;
#  - the refusal run (refuse_every=3, --gfp-mode atomic): its refused HOLDs
#    are gfp_failed deaths in v_churn, its probe ended gfp_failed:atomic, the
#    churn identity holds with them, and the module counted exactly those;
#  - object_bytes: 65600 refused at insmod, 11008 gives objects of that size
#    in slabs of order >= 2 that HOLD (8 of them), and unloads;
#  - with a kernel built with CONFIG_SLUB_STATS (the domU's small one): the
#    module cache's and task_struct's statistics before and after every probe;
#  - failure causes (issue 32, docs/failure-causes.md): the guest-scope fills,
#    without the fragmenting load, take the guest down to its watermarks:
#    failed allocations in the soak classified 'watermark' (at least one:
#    the model checks' TRYs, among them GFP_NOWAIT at the order a HOLD's slab
#    needs, refused HOLDs, kernel-log reports), and one cause row per refused
#    TRY.  The refusal run's refusals are made up by the module, not the
#    allocator: their causes are reported, not checked.
# Everything runs in one function with local variables, none named n: run.sh's
# own (n is the scenario name sc_time files figures under) stay untouched.
gfp_check() {
	local db before after ins cnt l rm_ rdb m refuse rrun racc rsp rex rki rgf rpop rpr rinj rfail run mode order np want m row res why detail g acc sp ex ki gf pop nc nboth orders bad k da df dk pk pa
	db=$SC_OUT/fpusoakd.db
	sq() { sqlite3 -batch -noheader "$db" "$@" 2>&1; }
	# ctr FILE NAME [ORDER]: a counter from an exported dump ("name v0 v1 ..."); the ORDER-th value.
	ctr() { awk -v n="$2" -v k="${3:-0}" '$1 == n { print $(k + 2); found = 1 } END { if (!found) print "x" }' "$1"; }
	before=$SC_OUT/gfp-counters.before after=$SC_OUT/gfp-counters.after

	ins=$(con_marker "$console" GFP-INSMOD)
	check "insmod of the module built against $GFP_KVER headers (${ins%% *})" test "${ins%% *}" = ok

	if [ -f "$SC_OUT/gfp_iface.txt" ]; then
		cnt=0
		while IFS= read -r l; do
			case "$l" in
			"GFP-IFACE PASS: "*) pass "module interface: ${l#GFP-IFACE PASS: }"; cnt=$((cnt + 1)) ;;
			"GFP-IFACE FAIL: "*) fail "module interface: ${l#GFP-IFACE FAIL: }"; cnt=$((cnt + 1)) ;;
			esac
		done <"$SC_OUT/gfp_iface.txt"
		check "gfp_iface ran its checks in the guest ($cnt lines)" test "$cnt" -ge 30
	else
		fail "no gfp_iface.txt exported: the interface checks did not run"
	fi
	rm_=$(con_marker "$console" GFP-RMMOD)
	check "rmmod unloads it cleanly, node and slab cache gone ($rm_)" test "$rm_" = "ok node=gone cache=0"

	if [ ! -f "$db" ] || [ ! -f "$before" ] || [ ! -f "$after" ]; then
		fail "missing exports (fpusoakd.db, gfp-counters.before/after): see the export lines above"
		return 0
	fi
	run=$(sq "SELECT max(run_id) FROM v_runs")
	# The export folder is not emptied between boots: a DB left by an earlier one must not pass for this one.
	check "the DB is this boot's (its run started after QEMU did)" \
		test "$(sq "SELECT started_ms >= $T_BOOT_MS FROM v_runs WHERE run_id = $run")" = 1
	mode=$(sq "SELECT gfp_mode FROM v_runs WHERE run_id = $run")
	check "the run recorded gfp_mode=alternate (got '$mode')" test "$mode" = alternate
	check "object size in sysfs is the run's XSAVE size ($(ctr "$after" object_size) = $(sq "SELECT xstate_bytes FROM v_runs WHERE run_id = $run"))" \
		test "$(ctr "$after" object_size)" = "$(sq "SELECT xstate_bytes FROM v_runs WHERE run_id = $run")"
	check "no object left held after the daemon stopped (held $(ctr "$after" held))" test "$(ctr "$after" held)" = 0

	# Probes: turns, counts, reasons.
	order=$(sq "SELECT group_concat(gfp_mode, ',') FROM (SELECT gfp_mode FROM v_probes WHERE run_id = $run AND kind = 'capacity' ORDER BY ts_ms)")
	np=$(sq "SELECT count(*) FROM v_probes WHERE run_id = $run AND kind = 'capacity'")
	want=$(awk -v n="${np:-0}" 'BEGIN { for (i = 0; i < n; i++) printf "%s%s", i ? "," : "", i % 2 ? "atomic" : "kernel" }')
	check "capacity probes took turns kernel, atomic, ... ($order)" test "$np" -ge 2 -a "$order" = "$want"
	for m in kernel atomic; do
		row=$(sq "SELECT count(*), coalesce(min(result), 0) FROM v_probes WHERE run_id = $run AND kind = 'capacity' AND gfp_mode = '$m' AND result > 0")
		check "$m probes produced a count (probes with result > 0, min result: ${row/|/, })" test "${row%%|*}" -ge 1
	done
	sq "SELECT gfp_mode, CAST(result AS INTEGER), stop_reason, detail FROM v_probes WHERE run_id = $run AND kind = 'capacity' ORDER BY ts_ms" >"$SC_OUT/probes.txt"
	while IFS='|' read -r m res why detail; do
		g=$(sed -n 's/.*\<gfp_failed=\([0-9]*\).*/\1/p' <<<"$detail")
		case "$why" in
		"gfp_failed:$m")
			check "$m probe of $res: ended by a refused HOLD (gfp_failed=$g)" test "${g:-0}" -ge 1 ;;
		worker_died:* | worker_exited:* | spawn_failed:* | oom_kill | timeout | limit)
			pass "$m probe of $res: stop reason says what ended it ($why; gfp_failed=${g:-?})" ;;
		*)
			fail "$m probe of $res: unexpected stop reason '$why'" ;;
		esac
	done <"$SC_OUT/probes.txt"

	# Churn accounting with its own cause.
	acc=$(sq "SELECT sum(spawned), sum(exited), sum(killed_sigkill + killed_sigsegv + killed_sigill + killed_other),
		sum(gfp_failed), (SELECT population FROM v_churn WHERE run_id = $run ORDER BY ts_ms DESC LIMIT 1)
		FROM v_churn WHERE run_id = $run" | tr '|' ' ')
	read -r sp ex ki gf pop <<<"$acc"
	check "churn accounting: spawned $sp = exited $ex + killed $ki + gfp_failed $gf + population $pop" \
		test "${sp:-0}" -gt 0 -a "$sp" = "$((ex + ki + gf + pop))"

	# Model checks: both modes, both answers, the orders of interest.
	for m in atomic nowait; do
		row=$(sq "SELECT count(*), sum(predicted_ok IN (0, 1) AND actual_ok IN (0, 1)), group_concat(DISTINCT page_order)
			FROM v_model_check WHERE run_id = $run AND mode = '$m'")
		IFS='|' read -r nc nboth orders <<<"$row"
		check "v_model_check: $m rows with both answers ($nc rows, orders $orders)" test "${nc:-0}" -ge 4 -a "$nc" = "$nboth"
	done

	# The module's counters against what the daemon stored.
	bad=
	for m in atomic nowait; do
		for k in $(seq 0 "$(ctr "$after" max_order)"); do
			da=$(( $(ctr "$after" "try_${m}_attempts" "$k") - $(ctr "$before" "try_${m}_attempts" "$k") ))
			df=$(( $(ctr "$after" "try_${m}_failures" "$k") - $(ctr "$before" "try_${m}_failures" "$k") ))
			row=$(sq "SELECT count(*), coalesce(sum(actual_ok = 0), 0) FROM v_model_check WHERE run_id = $run AND mode = '$m' AND page_order = $k")
			[ "$da|$df" = "$row" ] || bad="$bad $m/$k:module=$da|$df,db=$row"
		done
	done
	check "TRY attempts and failures per mode and order: module counters = v_model_check rows${bad:+ (differ:$bad)}" test -z "$bad"
	dk=$(( $(ctr "$after" hold_kernel_failures) - $(ctr "$before" hold_kernel_failures) ))
	da=$(( $(ctr "$after" hold_atomic_failures) - $(ctr "$before" hold_atomic_failures) ))
	pk=$(sq "SELECT coalesce(sum(CAST(substr(detail, instr(detail, 'gfp_failed=') + 11) AS INTEGER)), 0) FROM v_probes
		WHERE run_id = $run AND kind = 'capacity' AND gfp_mode = 'kernel'")
	pa=$(sq "SELECT coalesce(sum(CAST(substr(detail, instr(detail, 'gfp_failed=') + 11) AS INTEGER)), 0) FROM v_probes
		WHERE run_id = $run AND kind = 'capacity' AND gfp_mode = 'atomic'")
	# Under alternate churn holds with GFP_KERNEL: its gfp_failed deaths are kernel-mode refusals.
	check "HOLD failures, kernel: module $dk = churn gfp_failed ${gf:-0} + kernel probes' $pk" test "$dk" = "$(( ${gf:-0} + pk ))"
	check "HOLD failures, atomic: module $da = atomic probes' gfp_failed $pa" test "$da" = "$pa"

	# The refusal path, on demand (refuse_every=3).
	rdb=$SC_OUT/refuse.db
	refuse=$SC_OUT/gfp-counters.refuse
	if [ -f "$rdb" ] && [ -f "$refuse" ]; then
		rsq() { sqlite3 -batch -noheader "$rdb" "$@" 2>&1; }
		rrun=$(rsq "SELECT max(run_id) FROM v_runs")
		check "refusal run recorded gfp_mode=atomic (got '$(rsq "SELECT gfp_mode FROM v_runs WHERE run_id = $rrun")')" \
			test "$(rsq "SELECT gfp_mode FROM v_runs WHERE run_id = $rrun")" = atomic
		racc=$(rsq "SELECT sum(spawned), sum(exited), sum(killed_sigkill + killed_sigsegv + killed_sigill + killed_other),
			sum(gfp_failed), (SELECT population FROM v_churn WHERE run_id = $rrun ORDER BY ts_ms DESC LIMIT 1)
			FROM v_churn WHERE run_id = $rrun" | tr '|' ' ')
		read -r rsp rex rki rgf rpop <<<"$racc"
		check "refusal run: churn workers died of refused HOLDs (gfp_failed $rgf of $rsp spawned)" test "${rgf:-0}" -ge 1
		check "refusal run: spawned $rsp = exited $rex + killed $rki + gfp_failed $rgf + population $rpop" \
			test "${rsp:-0}" -gt 0 -a "$rsp" = "$((rex + rki + rgf + rpop))"
		rpr=$(rsq "SELECT stop_reason || '|' || CAST(substr(detail, instr(detail, 'gfp_failed=') + 11) AS INTEGER)
			FROM v_probes WHERE run_id = $rrun AND kind = 'capacity'")
		check "refusal run: its probe ended by a refused HOLD (got '${rpr:-no probe}')" \
			test "${rpr%%|*}" = gfp_failed:atomic -a "${rpr#*|}" -ge 1
		rinj=$(( $(ctr "$refuse" hold_injected) - $(ctr "$after" hold_injected) ))
		rfail=$(( $(ctr "$refuse" hold_atomic_failures) - $(ctr "$after" hold_atomic_failures) ))
		check "module refused $rinj HOLDs on purpose, counted $rfail atomic failures = churn $rgf + probe ${rpr#*|}" \
			test "$rinj" -ge 1 -a "$rinj" = "$rfail" -a "$rfail" = "$(( ${rgf:-0} + ${rpr#*|} ))"
	else
		fail "refusal run: refuse.db or gfp-counters.refuse not exported"
	fi

	# The report's own figures from this DB (report/gfp.h): summary and the saved run page.
	if [ -x "${FPUSOAKD:-}" ]; then
		"$FPUSOAKD" summary --db "$db" --run "$run" >"$SC_OUT/summary.txt" 2>&1
		check "summary names the probes by mode and the model checks" \
			sh -c "grep -q 'capacity probes by gfp mode: kernel' '$SC_OUT/summary.txt' && grep -q 'model checks: ' '$SC_OUT/summary.txt'"
		"$FPUSOAKD" report --db "$db" --run "$run" --out "$SC_OUT/report.html" >/dev/null 2>&1
		check "the saved report has the 2014 test's section with the model checks' accuracy" \
			sh -c "grep -q '<section id=\"gfp\"><h2>[0-9]*\. The 2014 test' '$SC_OUT/report.html' && grep -q 'Model checks: the allocator answered' '$SC_OUT/report.html'"
	fi

	# The AMX-sized object (module parameter object_bytes).
	m=$(con_marker "$console" GFP-OBJECT-BYTES)
	check "object_bytes: 65600 refused at insmod, 11008 held in slabs of order >= 2, unloaded ($m)" \
		test "$(con_kv refused_65600 "$m") $(con_kv object_size "$m") $(con_kv held "$m") $(con_kv rmmod "$m")" = "1 11008 8 ok" \
		-a "$(con_kv slab_order "$m" | tr -cd 0-9)" -ge 2 2>/dev/null
	sc_time gfp_object_bytes "$m"

	# SLUB statistics around each probe, where the kernel counts them.
	local kcfg=${KCONFIG:-}
	[ "$STAGE" = domu ] && kcfg=${DOMU_KCONFIG:-}
	if grep -qx 'CONFIG_SLUB_STATS=y' "$kcfg" 2>/dev/null; then
		local sl=$SC_OUT/slab-stats.txt missing='' i
		for i in $(seq 1 "${np:-0}"); do
			for l in before after; do
				grep -q "^$l-$i fpusoak_xstate .* order_fallback=[0-9]* " "$sl" 2>/dev/null &&
					grep -q "^$l-$i task_struct .* alloc_slowpath=[0-9]* " "$sl" 2>/dev/null || missing="$missing $l-$i"
			done
		done
		check "SLUB statistics of fpusoak_xstate and task_struct before and after each of the $np probes${missing:+ (missing:$missing)}" \
			test -z "$missing" -a "${np:-0}" -ge 1
		sc_time gfp_slab_per_probe "$(awk '
			{ for (f = 4; f <= NF; f++) { split($f, kv, "="); v[$1 " " $2 " " kv[1]] = kv[2] } }
			$1 ~ /^after-/ && $2 == "fpusoak_xstate" { n = substr($1, 7); b = "before-" n " fpusoak_xstate "; a = $1 " fpusoak_xstate "
				printf "%s%s:slowpath+%d,fallback+%d", sep, n, v[a "alloc_slowpath"] - v[b "alloc_slowpath"],
					v[a "order_fallback"] - v[b "order_fallback"]; sep = " " }' "$sl" 2>/dev/null)"
	else
		skip "SLUB statistics per probe: this kernel has no CONFIG_SLUB_STATS"
	fi

	# Figures for times.txt (README "The 2014 test, repeated" quotes a longer run).
	sc_time gfp_probes "$np"
	sc_time gfp_probe_modes "$order"
	sc_time gfp_capacity "$(sq "SELECT group_concat(gfp_mode || ':' || CAST(result AS INTEGER) || ':' || stop_reason, ' ')
		FROM (SELECT * FROM v_probes WHERE run_id = $run AND kind = 'capacity' ORDER BY ts_ms)")"
	sc_time gfp_model_checks "$(sq "SELECT count(*) || ' agreed ' || sum(predicted_ok = actual_ok) FROM v_model_check WHERE run_id = $run")"
	sc_time gfp_hold_failures "kernel=$dk atomic=$da"
}
gfp_check

# Failure causes, apart: they need only the DB (a scenario stopped at its budget still sends it).
gfp_causes_check() {
	local db=$SC_OUT/fpusoakd.db rdb=$SC_OUT/refuse.db run by nw ex nr nc rby
	sq() { sqlite3 -batch -noheader "$db" "$@" 2>&1; }
	[ -f "$db" ] || return 0
	if [ "$(sq "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = 'v_failure_causes'")" != 1 ]; then
		skip "failure causes: this daemon has no v_failure_causes"
		return 0
	fi
	run=$(sq "SELECT max(run_id) FROM v_runs")
	by=$(sq "SELECT coalesce(group_concat(k, ' '), 'none') FROM (SELECT source || '/' || cause || '/o' || page_order || ':' || count(*) AS k
		FROM v_failure_causes WHERE run_id = $run GROUP BY source, cause, page_order)")
	info "failure causes in the soak (source/cause/order:count): $by"
	nw=$(sq "SELECT count(*) FROM v_failure_causes WHERE run_id = $run AND cause = 'watermark'")
	ex=$(sq "SELECT source || ' order ' || page_order || ' ' || coalesce(gfp_flags, '') || ': ' || zone || ' ' || free_kb ||
		' kB free, needed more than ' || min_kb || ', lag ' || lag_ms || ' ms' FROM v_failure_causes
		WHERE run_id = $run AND cause = 'watermark' ORDER BY ts_ms LIMIT 1")
	check "guest-scope fills without the load: failures classified watermark: $nw (e.g. ${ex:-none})" test "${nw:-0}" -ge 1
	check "watermark means it: free_kb at most min_kb in every watermark row of the zone that decided" \
		test "$(sq "SELECT count(*) FROM v_failure_causes WHERE run_id = $run AND cause = 'watermark' AND free_kb > min_kb")" = 0
	nr=$(sq "SELECT count(*) FROM v_model_check WHERE run_id = $run AND actual_ok = 0")
	nc=$(sq "SELECT count(*) FROM failure_cause WHERE run_id = $run AND source = 3 AND note LIKE 'TRY:%'")
	check "one cause row per refused TRY ($nr refused, $nc rows)" test "$nr" = "$nc"
	sc_time gfp_causes "$by"
	if [ -f "$rdb" ]; then
		rby=$(sqlite3 -batch -noheader "$rdb" "SELECT coalesce(group_concat(k, ' '), 'none') FROM (SELECT source || '/' || cause ||
			'/o' || page_order || ':' || count(*) AS k FROM v_failure_causes GROUP BY source, cause, page_order)" 2>&1)
		info "refusal run (refusals made up by the module): causes $rby"
		sc_time gfp_refuse_causes "$rby"
	fi
}
gfp_causes_check
