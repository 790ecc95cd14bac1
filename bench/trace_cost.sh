#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/trace_cost.sh: what the tracefs source costs, measured where tracefs
# is (the Xen PV test guest, tests/xen; never on the machine that runs this).
# Not part of make test or make bench: about 15 minutes of emulated guest.
#
#   bench/trace_cost.sh [--rounds N] [--alloc-seconds S] [--daemon-seconds S] [--capacity-rounds N]
#   bench/trace_cost.sh --summary build/bench/trace_cost-TIME.txt   (the summary of a saved run again)
#
# Boots the test bed (tests/xen/run.sh) with one scenario, bench/xen/trace-cost,
# then prints, from the same boot: what one read of each file costs,
# fork+page-touch iterations/s with and without an instance like fpusoakd's
# (and the extra time per page allocation), fpusoakd's lifecycles/s,
# fast-sample cost and own CPU with --trace auto against --trace none, and
# the guest-wide capacity with and without it.  Raw lines stay in
# build/bench/trace_cost-<time>.txt, the test bed's log beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
rounds=3 alloc_s=3 daemon_s=40 cap_rounds=1
BUILD=${BUILD:-$(cd "$(dirname "$0")/.." && pwd)/build}

# summary RAW: medians, per-round values and ratios from the BENCH-* lines.
summary() {
	awk '
	function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	function kv(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	/^BENCH-READ/ { f = kv("file"); sub(".*/", "", f); rd[f, ++nrd[f]] = kv("us_per_read"); files[f] = 1 }
	/^BENCH-CAP/ { w = kv("workers"); if (w ~ /^[0-9]+$/) { if (kv("mode") == "auto") capa[++nca] = w; else capn[++ncn] = w } }
	/^BENCH-ALLOC/ { m = kv("mode"); it = kv("iterations") / kv("seconds"); pg = kv("pgalloc") / kv("iterations")
		if (m == "on") { on[++non] = it; pgon[non] = pg } else { off[++noff] = it; pgoff[noff] = pg } }
	/^BENCH-DAEMON/ { m = kv("mode"); r = kv("spawned_per_s"); s = kv("sample_us_median"); c = kv("cpu_ticks") * 10 / kv("cpu_seconds")
		tr = kv("trace_read_us") / kv("ticks")
		if (m == "auto") { ra[++na] = r; sa[na] = s; ca[na] = c; ta[na] = tr; su[na] = kv("setup_ms") + 0 } else { rn[++nn] = r; sn[nn] = s; cn[nn] = c } }
	function list(a, n,   i, s) { s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? " " : "") sprintf("%.1f", a[i]); return s }
	END {
		for (f in files) { n = 0; for (i = 1; i <= nrd[f]; i++) tmp[++n] = rd[f, i]
			printf "one read of %-12s %8.1f us (median of %d rounds of 200 reads)\n", f, med(tmp, n), n; delete tmp }
		if (noff && non) {
			printf "rounds, fork+16 pages iterations/s:  no instance %s | instance %s\n", list(off, noff), list(on, non)
			a = med(off, noff); b = med(on, non); p = med(pgoff, noff)
			printf "fork+16 pages, iterations/s (medians of %d):   no instance %.1f   instance %.1f   ratio %.3f\n", noff, a, b, b / a
			printf "page allocations per iteration (vmstat pgalloc_*): %.1f\n", p
			printf "extra time per page allocation with the instance on: %.0f ns (negative = within noise)\n", (1 / b - 1 / a) / p * 1e9
		}
		if (na && nn) {
			printf "rounds, lifecycles/s:  --trace none %s | --trace auto %s\n", list(rn, nn), list(ra, na)
			printf "rounds, sample_us median:  --trace none %s | --trace auto %s\n", list(sn, nn), list(sa, na)
			printf "rounds, daemon CPU ms/s:  --trace none %s | --trace auto %s\n", list(cn, nn), list(ca, na)
			a = med(rn, nn); b = med(ra, na)
			printf "fpusoakd lifecycles/s (medians of %d):   --trace none %.1f   --trace auto %.1f   ratio %.3f (goal >= 0.95)\n", nn, a, b, b / a
			a = med(sn, nn); b = med(sa, na)
			printf "fast sample cost, median sample_us:      --trace none %.0f   --trace auto %.0f   ratio %.3f (goal <= 1.10)\n", a, b, b / a
			a = med(cn, nn); b = med(ca, na)
			printf "daemon CPU, ms per second (1 tick/s):    --trace none %.1f   --trace auto %.1f   ratio %.3f\n", a, b, b / a
			printf "reading the trace (pipe + histograms):   %.0f us per tick (median)\n", med(ta, na)
			printf "making the instance (mkdir to set up):   %.0f ms (median; 0 = not recorded)\n", med(su, na)
		}
		if (nca && ncn) {
			printf "rounds, guest-wide capacity (workers):  --trace none %s | --trace auto %s\n", list(capn, ncn), list(capa, nca)
			a = med(capn, ncn); b = med(capa, nca)
			printf "guest-wide capacity, workers held:       --trace none %.1f   --trace auto %.1f   ratio %.3f\n", a, b, b / a
		}
	}' "$1"
}

while [ $# -gt 0 ]; do
	case $1 in
	--summary) summary "$2"; exit 0 ;;
	--rounds) rounds=$2; shift ;;
	--alloc-seconds) alloc_s=$2; shift ;;
	--daemon-seconds) daemon_s=$2; shift ;;
	--capacity-rounds) cap_rounds=$2; shift ;;
	*) echo "usage: bench/trace_cost.sh [--rounds N] [--alloc-seconds S] [--daemon-seconds S] [--capacity-rounds N] | --summary FILE" >&2; exit 64 ;;
	esac
	shift
done
[ "$daemon_s" -ge 20 ] || { echo "trace_cost: --daemon-seconds must be at least 20" >&2; exit 64; }
out=$repo/build/bench
mkdir -p "$out"
log=$out/trace_cost-$(date -u +%Y%m%dT%H%M%SZ).txt
make --no-print-directory all >&2
# The test bed with this folder's scenario (bench/xen/trace-cost.*) instead of tests/xen/scenarios.
export XEN_SCENARIO_DIR=$repo/bench/xen XEN_SCENARIOS=trace-cost XEN_PAYLOAD=daemon XEN_NO_REPORT=1
export TRACE_COST_ROUNDS=$rounds TRACE_COST_ALLOC_SECONDS=$alloc_s TRACE_COST_DAEMON_SECONDS=$daemon_s
export TRACE_COST_CAP_ROUNDS=$cap_rounds
budget=$( (. bench/xen/trace-cost.conf.sh; echo "$SC_BUDGET") )
# Emulated time runs slower than the host's under load: room for three times the budget.
export XEN_HARD_CAP=$((budget * 3 + 600))
echo "trace_cost: booting the Xen test bed for about $((budget / 60 + 3)) minutes of guest time" >&2
res=$BUILD/xen/trace-cost/results.txt
rm -f "$res"       # never the summary of an earlier boot
T_NAME=trace_cost bash tests/xen/run.sh >"$out/trace_cost-run.log" 2>&1 || true
[ -f "$res" ] || { echo "trace_cost: no results exported (see $out/trace_cost-run.log)" >&2; exit 1; }
cp "$res" "$log"
{
	echo "# $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD), host load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# guest: $(grep -o 'xen [^,]*, linux-image[^ ]* [^ ]*' "$out/trace_cost-run.log" | head -1), QEMU TCG, 2 vCPUs, dom0_mem=160M"
} >>"$log"
summary "$log" | tee -a "$log"
echo "raw lines: $log" >&2
