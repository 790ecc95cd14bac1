# SPDX-License-Identifier: GPL-2.0-only
# Scenario "footprint" (host side, after the boot): the footprint table the
# guest printed, the locked core against 3 MB, the total Pss against 6 MB,
# and the observer effect: the medians of the daemon's and the minimal
# prober's fills, interleaved, may differ by at most 3% (issue 20).
fp_lines() { sed -n 's/^===FPUSOAK-FOOTPRINT \(.*\)===$/\1/p' "$console" | grep " phase=$1\$"; }
fp_get() { con_kv "$2" "$(fp_lines "$3" | grep "component=$1 ")"; }
median() { tr ' ' '\n' | grep -E '^[0-9]+$' | sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

if [ -z "$(fp_lines idle)" ]; then
	fail "no footprint table on the console (FOOTPRINT ... phase=idle)"
else
	for ph in idle fill; do
		while read -r l; do
			info_line="$(con_kv component "$l"): Rss $(con_kv rss_kb "$l") kB, Pss $(con_kv pss_kb "$l") kB, Locked $(con_kv locked_kb "$l") kB, LockedRss $(con_kv locked_rss_kb "$l") kB"
			[ "$(con_kv component "$l")" = total ] && info_line="total: Pss $(con_kv pss_kb "$l") kB, locked core $(con_kv locked_core_kb "$l") kB (LockedRss $(con_kv locked_rss_core_kb "$l") kB), workers excluded $(con_kv workers_excluded "$l")"
			echo "INFO: footprint ($ph) $info_line"
			c=$(con_kv component "$l")
			sc_time "$ph.$c.pss_kb" "$(con_kv pss_kb "$l")"
			sc_time "$ph.$c.locked_kb" "$(con_kv locked_kb "$l")"
			[ "$c" = total ] || sc_time "$ph.$c.locked_rss_kb" "$(con_kv locked_rss_kb "$l")"
		done < <(fp_lines $ph)
	done
	lc=$(fp_get total locked_core_kb idle) lr=$(fp_get total locked_rss_core_kb idle) pss=$(fp_get total pss_kb idle)
	check "locked core (sum of Locked: of the core and the spawner) ${lc:-?} kB <= 3072 kB (LockedRss ${lr:-?} kB)" \
		test "${lc:-99999}" -le 3072
	check "every fpusoakd process together, workers excluded, report idle: Pss ${pss:-?} kB <= 6144 kB" \
		test "${pss:-99999}" -le 6144
	check "the web process ran while the table was taken" test -n "$(fp_get web pid idle)"
fi

# The count of each fill that gave one ("none": no result within the budget).
fills() { sed -n "s/^===FPUSOAK-FP-FILL by=$1 round=[0-9]* count=\([0-9][0-9]*\) .*===\$/\1/p" "$console" | tr '\n' ' '; }
d=$(fills daemon) p=$(fills miniprobe)
nd=$(echo $d | wc -w) np=$(echo $p | wc -w)
md=$(echo "$d" | median) mp=$(echo "$p" | median)
echo "INFO: fills (worker memory $FOOTPRINT_WORKER_MEMORY): daemon [ $d] median ${md:-?}; minimal prober [ $p] median ${mp:-?}"
sc_time fills_daemon "$d"
sc_time fills_miniprobe "$p"
if [ "$nd" -lt 5 ] || [ "$np" -lt 5 ] || [ -z "$md" ] || [ -z "$mp" ]; then
	fail "observer effect: want >= 5 fills each, got $nd by the daemon ($d) and $np by the prober ($p)"
else
	pct=$(awk -v a="$md" -v b="$mp" 'BEGIN { printf "%.1f", (b - a) * 100 / b }')
	sc_time observer_effect_pct "$pct"
	check "observer effect: the daemon's fill holds $md workers, the minimal prober's $mp (medians of $nd and $np, interleaved): ${pct}% <= 3%" \
		awk -v x="$pct" 'BEGIN { exit !(x <= 3) }'
fi
