# SPDX-License-Identifier: GPL-2.0-only
# Scenario "soak" (host side, after the boot): the DB checked with sqlite3
# against facts taken from the guest kernel independently of the daemon.
# Sourced by run.sh with SC_OUT (the exported files), STAGE, PAYLOAD,
# GUEST_ENV (the guest's ENV marker), the scenario's env (SOAK_SECONDS ...),
# REPORT_FILE/REPORT_FIRST_S (the host's fetch, if any), and sc_time.
soak=$SOAK_SECONDS
db=$SC_OUT/fpusoakd.db
sq() { sqlite3 -batch -noheader "$db" "$@" 2>&1; }
has() { [ "$(sq "SELECT count(*) FROM sqlite_master WHERE name = '$1'")" = 1 ]; }
first='' cap=''

check "guest /proc/buddyinfo after the soak came out over the console" grep -q '^Node 0, zone' "$SC_OUT/proc/buddyinfo"

if [ ! -f "$db" ]; then
	fail "no DB from the soak (see the export lines above)"
else
	check "DB passes PRAGMA integrity_check" test "$(sq 'PRAGMA integrity_check')" = ok
	run=$(sq "SELECT max(run_id) FROM v_runs")
	row=$(sq "SELECT hypervisor || '/' || guest_type FROM v_runs WHERE run_id = $run")
	check "run $run records hypervisor/guest_type xen/PV (got '$row')" test "$row" = xen/PV
	rel=$(sq "SELECT kernel_release FROM v_runs WHERE run_id = $run")
	check "run records the guest's kernel release ($rel = $(con_kv release "$GUEST_ENV"))" test "$rel" = "$(con_kv release "$GUEST_ENV")"
	if [ "$STAGE" = domu ]; then
		# The daemon knows it is a guest, and which (its id from the Xen store).
		want="domU id ${DOMU_ID:-?}"
		if [ "$(sq "SELECT count(*) FROM pragma_table_info('v_runs') WHERE name = 'xen_domid'")" = 1 ]; then
			got=$(sq "SELECT xen_domain || ' id ' || coalesce(xen_domid, '?') FROM v_runs WHERE run_id = $run")
			check "run records the Xen domain it ran in: '$got' (dom0 created '$want')" test "$got" = "$want"
		else
			check "daemon says it runs in $want (its log on the domU console)" grep -q "run $run started: .*, $want, " "$console"
		fi
	fi
	reason=$(sq "SELECT end_reason FROM v_runs WHERE run_id = $run")
	# --duration ends a run on its own; either word means the daemon was not killed.
	case "$reason" in
	stopped | duration) pass "daemon ended the run itself (end_reason=$reason)" ;;
	*) fail "run did not end cleanly (end_reason='$reason')" ;;
	esac

	# Zones seen in the DB are the zones the guest's kernel lists.
	kz=$(awk '{ sub(",", "", $2); print $2 "/" $4 }' "$SC_OUT/proc/buddyinfo" | sort -u | tr '\n' ' ')
	dz=$(sq "SELECT DISTINCT node || '/' || zone FROM v_buddyinfo WHERE run_id = $run ORDER BY 1" | tr '\n' ' ')
	check "buddyinfo zones in the DB match the guest's /proc/buddyinfo ($dz)" test "$kz" = "$dz"
	if has v_samples; then
		ns=$(sq "SELECT count(*) FROM v_samples WHERE run_id = $run")
		# 1 s sampling over the soak; half of it is a loose floor for TCG jitter.
		check "samples recorded ($ns over a ${soak}s soak, want >= $((soak / 2)))" test "$ns" -ge $((soak / 2))
		first=$(sq "SELECT min(ts_ms) FROM v_samples WHERE run_id = $run")
		sc_time samples "$ns"
		sc_time largest_sample_gap_ms "$(sq "SELECT max(d) FROM (SELECT ts_ms - lag(ts_ms) OVER (ORDER BY ts_ms) AS d FROM v_samples WHERE run_id = $run)")"
	else
		nb=$(sq "SELECT count(DISTINCT ts_ms) FROM v_buddyinfo WHERE run_id = $run")
		check "buddyinfo samples recorded ($nb over ${soak}s, want >= $((soak / 2)))" test "$nb" -ge $((soak / 2))
		first=$(sq "SELECT min(ts_ms) FROM v_buddyinfo WHERE run_id = $run")
	fi

	if [ "$PAYLOAD" != daemon ]; then
		:
	elif ! has v_churn; then
		skip "churn accounting: no v_churn view in this daemon yet"
	else
		cols=" $(sq "SELECT name FROM pragma_table_info('v_churn')" | tr '\n' ' ') "
		need="population spawned exited killed_sigkill killed_sigsegv killed_sigill killed_other"
		miss=; for c in $need; do case "$cols" in *" $c "*) ;; *) miss="$miss $c" ;; esac; done
		if [ -n "$miss" ]; then
			skip "churn accounting: v_churn lacks$miss (has:$cols)"
		else
			# v_churn rows are per-interval counts: over the run, every worker
			# spawned has exited, been killed, or is alive at the last row.
			# (oom_killed is a subset of the kills, exited_error of the exits.)
			acc=$(sq "SELECT sum(spawned), sum(exited),
				sum(killed_sigkill + killed_sigsegv + killed_sigill + killed_other),
				(SELECT population FROM v_churn WHERE run_id = $run ORDER BY ts_ms DESC LIMIT 1)
				FROM v_churn WHERE run_id = $run" | tr '|' ' ')
			read -r sp ex ki pop <<<"$acc"
			if [ "${sp:-0}" -gt 0 ] 2>/dev/null && [ "$sp" -eq $((ex + ki + pop)) ]; then
				pass "churn accounting: spawned $sp = exited $ex + killed $ki + population $pop"
			else
				fail "churn accounting: spawned '$sp' != exited '$ex' + killed '$ki' + population '$pop'"
			fi
		fi
	fi

	if [ "$PAYLOAD" != daemon ]; then
		:
	elif ! has v_probes; then
		skip "capacity probe: no v_probes view in this daemon yet"
	else
		# detail is "scope=guest limit=... ready=... mem_peak=..." (key=value).
		pr=$(sq "SELECT CAST(result AS INTEGER) || '|' || coalesce(stop_reason, '') || '|' || ts_ms FROM v_probes
			WHERE run_id = $run AND kind = 'capacity' AND ' ' || detail || ' ' LIKE '% scope=guest %'
			ORDER BY ts_ms DESC LIMIT 1")
		IFS='|' read -r cap why pts <<<"$pr"
		if [ "${cap:-0}" -gt 0 ] 2>/dev/null && [ -n "$why" ]; then
			pass "guest-scope capacity probe: $cap workers held, stopped by '$why'"
			sc_time capacity_guest "$cap"
			sc_time capacity_stop_reason "$why"
			if has v_samples; then
				# Samples continue through the fill and the release of its
				# workers (the probe's row starts at ts_ms): at least a third
				# of the 1 s ticks, where a stalled sampler gives none.
				pd=$(sq "SELECT duration_ms FROM v_probes WHERE run_id = $run AND ts_ms = $pts AND kind = 'capacity'")
				rel=$(sq "SELECT detail FROM v_probes WHERE run_id = $run AND ts_ms = $pts AND kind = 'capacity'" |
					sed -n 's/.*\<release_ms=\([0-9]*\).*/\1/p')
				wend=$((pts + ${pd:-0} + ${rel:-0}))
				ws=$(( (wend - pts) / 1000 ))
				nf=$(sq "SELECT count(*) FROM v_samples WHERE run_id = $run AND ts_ms BETWEEN $pts AND $wend")
				gap=$(sq "SELECT max(d) FROM (SELECT ts_ms - lag(ts_ms) OVER (ORDER BY ts_ms) AS d FROM v_samples
					WHERE run_id = $run AND ts_ms BETWEEN $pts AND $wend)")
				check "samples continued through the fill and its release ($nf in ${ws}s, want >= $((ws / 3)); largest gap ${gap:-?} ms)" \
					test "$nf" -ge $((ws / 3))
				sc_time fill_window_s "$ws"
				sc_time samples_in_fill_window "$nf"
				sc_time largest_gap_in_fill_ms "$gap"
			fi
		else
			fail "no guest-scope capacity probe with a positive count and a stop reason (got '$pr')"
			cap=
		fi
	fi
fi

# The tracefs source (issue 18): on in this guest, what it saw, and its instance gone after the run.
if [ "$PAYLOAD" = daemon ] && [ -f "$db" ]; then
	tnote=$(sq "SELECT text FROM run_notes WHERE run_id = $run AND kind = 'tracefs'")
	case "$tnote" in
	"tracefs=on ("*)
		pass "tracing on in the guest: ${tnote:0:120}..."
		inst=$(sed -n 's|.*/instances/\(fpusoakd-[0-9]*-[0-9]*\);.*|\1|p' <<<"$tnote")
		check "its instance $inst existed during the soak" grep -q "^during .*\<$inst\>" "$SC_OUT/trace-instances.txt"
		if grep -q "^after " "$SC_OUT/trace-instances.txt" && ! grep -q "^after .*\<$inst\>" "$SC_OUT/trace-instances.txt"; then
			pass "its instance is gone after the daemon stopped ($(grep '^after ' "$SC_OUT/trace-instances.txt"))"
		else
			fail "instance $inst after the daemon stopped: $(grep '^after ' "$SC_OUT/trace-instances.txt" 2>/dev/null || echo 'no listing')"
		fi
		if has v_extfrag; then
			nx=$(sq "SELECT count(*) || ' rows, ' || coalesce(sum(events), 0) || ' fallbacks, ' || coalesce(sum(events * (fragmenting = 1)), 0) || ' fragmenting' FROM v_extfrag WHERE run_id = $run")
		else
			nx="$(sq "SELECT coalesce(max(value), 0) FROM v_counters WHERE run_id = $run AND name = 'trace_extfrag'") fallbacks (counter; no v_extfrag yet)"
		fi
		# Whether the kernel falls back at all in the soak's traced minutes is its business: it
		# made 0 to 12 fallbacks in them (the instance is removed during the fill, when most would
		# come).  The fragment scenario's check 4 counts them under a load that makes them.
		case "$nx" in
		0\ * | "0 rows"*) skip "no fallback to count during the soak ($nx; the trace is off during the fill): the fragment scenario's check 4 counts them under its load" ;;
		*) pass "extfrag counted during the soak: $nx" ;;
		esac
		if has v_page_alloc_failures; then
			nf=$(sq "SELECT count(*) FROM v_page_alloc_failures WHERE run_id = $run")
		else
			nf=$(sq "SELECT coalesce(max(value), 0) FROM v_counters WHERE run_id = $run AND name = 'trace_alloc_failures'")
		fi
		nk=$(sq "SELECT count(*) FROM v_alloc_failures WHERE run_id = $run")
		# The drain (soak.conf.sh): a GFP_NOWAIT request at the largest order the allocator refused
		# while the instance was on; it must be in the trace as an atomic-class failure at that order.
		drain=$(con_marker "$console" SOAK-DRAIN)
		dorder=$(con_kv order "$drain")
		if [ "$(con_kv refused "$drain")" = 1 ] && [ "$(con_kv instance "$drain")" -ge 1 ] 2>/dev/null &&
			has v_page_alloc_failures; then
			dn=$(sq "SELECT count(*) FROM v_page_alloc_failures WHERE run_id = $run AND page_order = $dorder AND class = 'atomic'")
			check "the drain's refused order-$dorder GFP_NOWAIT request is in v_page_alloc_failures, class atomic ($dn; drain: ${drain%% uptime=*})" \
				test "${dn:-0}" -ge 1
			sc_time trace_drain_failures "${dn:-0}"
		elif [ -n "$drain" ] && [ "${drain%% *}" != none ]; then
			fail "the drain did not give a refused allocation with the instance on: ${drain:-no SOAK-DRAIN line}"
		else
			info "no drain in this stage: ${drain:-no SOAK-DRAIN line}"
		fi
		if [ "$(con_marker "$console" SOAK-DRAIN-RMMOD)" = ok ]; then
			pass "fpusoak_gfp unloaded after the drain"
		elif [ -n "$drain" ] && [ "${drain%% *}" != none ]; then
			fail "fpusoak_gfp after the drain: $(con_marker "$console" SOAK-DRAIN-RMMOD || echo 'no SOAK-DRAIN-RMMOD line')"
		fi
		if [ "${nf:-0}" -gt 0 ] 2>/dev/null; then
			pass "failed allocations seen by the trace: $nf (the kernel log: $nk)"
			if has v_page_alloc_failures; then
				cls=$(sq "SELECT group_concat(class || ' ' || n, ', ') FROM (SELECT class, count(*) AS n FROM v_page_alloc_failures WHERE run_id = $run GROUP BY class)")
				check "every traced failure has a class, an order and GFP names ($cls)" test \
					"$(sq "SELECT count(*) FROM v_page_alloc_failures WHERE run_id = $run AND class IN ('atomic', 'sleeping', 'opportunistic') AND page_order >= 0 AND gfp_flags <> ''")" = "$nf"
				check "the hour rollups count them all" test "$(sq "SELECT coalesce(sum(failures), 0) FROM v_page_alloc_failures_1h WHERE run_id = $run")" = "$nf"
			fi
		else
			# Say why not: what the fill did, and whether the trace lost anything.
			lost=$(sq "SELECT coalesce(max(value), 0) FROM v_counters WHERE run_id = $run AND name = 'trace_lost'")
			unp=$(sq "SELECT coalesce(max(value), 0) FROM v_counters WHERE run_id = $run AND name = 'trace_unparsed'")
			# The instance is removed while a guest-scope fill runs (daemon/quiet.c): its failures are the probe's.
			fill="no capacity fill ran"
			[ -n "$cap" ] && fill="the capacity fill held $cap workers and stopped by '$why'"
			skip "no failed allocation traced outside the guest-scope fill (the trace is off during it): $fill; lost $lost, unparsed $unp lines; kernel log: $nk failures"
		fi
		sc_time trace_failures "$nf"
		sc_time trace_failures_kmsg "$nk"
		;;
	"tracefs=off ("*) skip "tracing off in this guest: $tnote" ;;
	*) fail "the run records no tracefs=on|off note (got '$tnote')" ;;
	esac
fi

# The report: fetched by the host over the forwarded port (dom0), else inside the guest.
if [ -n "${REPORT_FILE:-}" ]; then
	if grep -q 'xen-pv-testbed' "$REPORT_FILE" 2>/dev/null; then
		pass "report fetched from the guest over 127.0.0.1 ($(wc -c <"$REPORT_FILE") bytes, first at +${REPORT_FIRST_S}s)"
		cp "$REPORT_FILE" "$SC_OUT/report.html"
	else
		fail "report naming run label xen-pv-testbed not fetched from the guest over the forwarded port"
	fi
elif [ "$REPORT_VIA" = guest ]; then
	if grep -q 'xen-pv-testbed' "$SC_OUT/report.html" 2>/dev/null; then
		pass "report fetched inside the guest and exported ($(wc -c <"$SC_OUT/report.html") bytes)"
	else
		fail "report naming run label xen-pv-testbed not fetched inside the guest (see REPORT-FETCHED on the console)"
	fi
	if [ "$STAGE" = domu ] && [ -f "$SC_OUT/report.html" ]; then
		check "the report's environment table names the domU and its id ($DOMU_ID)" \
			grep -q "<th>Xen domain</th><td>domU (domain id ${DOMU_ID:-?})</td>" "$SC_OUT/report.html"
	fi
else
	skip "report not fetched: ${XEN_NO_REPORT:+XEN_NO_REPORT set, }no curl or no free loopback port"
fi

[ -n "$first" ] && sc_time boot_to_first_sample_s $(( (first - T_BOOT_MS) / 1000 ))
[ -n "$first" ] && [ -n "${GUEST_UP_EPOCH:-}" ] && sc_time guest_up_to_first_sample_s $(( first / 1000 - GUEST_UP_EPOCH ))
sc_time memfree_end_kb "$(awk '/^MemFree:/ {print $2}' "$SC_OUT/proc/meminfo")"
