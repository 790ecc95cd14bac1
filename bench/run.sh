#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/run.sh: fpusoakd against what a kernel developer would reach for instead (issue 8).
#
#   bench/run.sh                    everything, ~17 minutes: churn (3 interleaved rounds: the daemon, its
#                                   engine alone with and without the static spawner, stress-ng, the bare
#                                   loop), sampling, daemon CPU, /metrics, storage,
#                                   1 day of synthetic history + report/API latency, a 2-minute soak
#   bench/run.sh --long             the same with a 10-minute soak
#   bench/run.sh --history-days N   generate N days of history instead of 1 (~8 s per day)
#   bench/run.sh --history-db PATH  measure the report/API on an existing genhistory DB (read-only)
#                                   instead of generating one (e.g. 30 days made once with
#                                   genhistory --days 30: 4.5 min here)
#   bench/run.sh --soak-seconds N   a soak of N seconds (the RSS reaches its plateau after ~10 minutes
#                                   at 100 ms sampling: see bench/RESULTS.md)
#   bench/run.sh --only LIST        comma list of sections: churn,sampler,daemon,footprint,storage,history,soak
#   bench/run.sh --storage-seconds N  the storage section's window after its 60 s warm-up (600)
#   bench/run.sh --footprint-seconds N  how long the daemon runs at its defaults before its footprint table (120)
#   bench/run.sh --peer-webserve P  also measure /runs/1 served by P, another build's bench/webserve
#                                   (e.g. main's), interleaved with this build's, on the same history
#   bench/run.sh --peer-fpusoakd P  the storage section runs P, another build's fpusoakd, beside this one over the same window
#
# Every figure is printed next to its peer measured in the same run (this machine is shared and
# noisy: only same-run ratios mean much), with the goal and whether it is met.  The whole output
# goes to build/bench/results-<UTC time>.txt; bench/RESULTS.md is written by hand from it.
#
# SAFETY: everything that forks or fills memory runs in its own memory+pids limited cgroup
# (bench/cg.sh), bounded in time; only PIDs this script started are ever signalled; every server
# listens on 127.0.0.1 and every request goes there.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)

STORE_S=600 LONG=0 HIST_DAYS=1 HIST_DB= SOAK_ARG= FOOT_S=120 ONLY=churn,sampler,daemon,footprint,storage,history,soak PEER_WS= PEER_FD=
while [ $# -gt 0 ]; do
	case $1 in
	--long) LONG=1 ;;
	--history-days) HIST_DAYS=$2; shift ;;
	--history-db) HIST_DB=$2; shift ;;
	--soak-seconds) SOAK_ARG=$2; shift ;;
	--only) ONLY=$2; shift ;;
	--footprint-seconds) FOOT_S=$2; shift ;;
	--peer-webserve) PEER_WS=$2; shift ;;
	--peer-fpusoakd) PEER_FD=$2; shift ;;
	--storage-seconds) STORE_S=$2; shift ;;
	*) echo "usage: bench/run.sh [--long] [--history-days N] [--history-db PATH] [--soak-seconds N] [--footprint-seconds N] [--storage-seconds N] [--only churn,sampler,daemon,footprint,storage,history,soak] [--peer-webserve PATH] [--peer-fpusoakd PATH]" >&2; exit 64 ;;
	esac
	shift
done
case $HIST_DAYS in ''|*[!0-9]*) echo "bench: --history-days needs a number" >&2; exit 64 ;; esac
case $STORE_S in ''|*[!0-9]*|0) echo "bench: --storage-seconds needs a number of seconds" >&2; exit 64 ;; esac
SOAK_S=120; [ $LONG = 1 ] && SOAK_S=600; [ -n "$SOAK_ARG" ] && SOAK_S=$SOAK_ARG
case $SOAK_S in ''|*[!0-9]*) echo "bench: --soak-seconds needs a number" >&2; exit 64 ;; esac
[ "$SOAK_S" -ge 40 ] || { echo "bench: --soak-seconds must be at least 40" >&2; exit 64; }
want() { case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }

. bench/cg.sh
B=$ROOT/build/bench
mkdir -p "$B"
TMP=$(mktemp -d "$B/run.XXXXXX")
SHM=$(mktemp -d /dev/shm/fpusoak-bench.XXXXXX)
LOG=$B/results-$(date -u +%Y%m%dT%H%M%SZ).txt
exec > >(tee "$LOG") 2>&1
NPROC=$(nproc)
PIDS=()
SUMMARY=()

# Our children only: a PID already reaped may have been reused by someone else's process.
ours() { [ -r "/proc/$1/stat" ] && [ "$(awk '{ print $4 }' "/proc/$1/stat" 2>/dev/null)" = "$$" ]; }
cleanup() {
	local p
	for p in "${PIDS[@]}"; do ours "$p" && kill -TERM "$p" 2>/dev/null; done
	sleep 0.3
	for p in "${PIDS[@]}"; do ours "$p" && kill -KILL "$p" 2>/dev/null; done
	cg_remove
	rm -rf "$TMP" "$SHM"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { printf '%s\n' "$*"; }
hdr() { say ""; say "== $* ($(date -u +%H:%M:%S))"; }
# row FIGURE FPUSOAKD PEER RATIO GOAL MET
row() { SUMMARY+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); }
STORE_WARM=60
kv() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" | head -1; }     # kv KEY < text: value of KEY=value
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }
ge() { awk "BEGIN { exit !($1 >= $2) }"; }
met() { if ge "$1" "$2"; then echo met; else echo MISSED; fi; }        # met VALUE MIN
met_le() { if ge "$2" "$1"; then echo met; else echo MISSED; fi; }     # met_le VALUE MAX

free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 30000))
		[ -z "$(ss -Hltn "sport = :$p" 2>/dev/null)" ] && { echo $p; return; }
	done
}
wait_http() {   # wait_http URL: up to 10 s
	local i
	for i in $(seq 100); do curl -fs -o /dev/null "$1" && return 0; sleep 0.1; done
	return 1
}
stop_pid() {    # stop_pid PID: SIGTERM, wait up to 10 s, then SIGKILL; only while it is still our child
	local i
	ours "$1" || { wait "$1" 2>/dev/null; return 0; }
	kill -TERM "$1" 2>/dev/null
	for i in $(seq 100); do ours "$1" && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ] || break; sleep 0.1; done
	ours "$1" && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ] && kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}
# The daemon is two processes (issue 20): the core and its web process (fpusoakd-web, the core's child).
# Figures of "the daemon" add both; workers and the spawner are not part of them.
with_web() { local c; echo "$1"; for c in $(pgrep -P "$1"); do [ "$(cat /proc/$c/comm 2>/dev/null)" = fpusoakd-web ] && echo "$c"; done; }
con_kv() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }   # con_kv KEY LINE: the value of KEY=... in LINE
rss() { local f=(); for p in $(with_web "$1"); do f+=("/proc/$p/status"); done
	awk '/^VmRSS/ { r += $2 } /^VmHWM/ { h += $2 } END { printf "VmRSS=%.1fMB VmHWM=%.1fMB", r / 1024, h / 1024 }' "${f[@]}"; }
rss_mb() { local f=(); for p in $(with_web "$1"); do f+=("/proc/$p/status"); done
	awk '/^VmRSS/ { r += $2 } END { printf "%.1f", r / 1024 }' "${f[@]}"; }
cpu_ticks() { local p; for p in $(with_web "$1"); do cat "/proc/$p/stat"; done | awk '{ sub(/.*\) /, ""); s += $12 + $13 } END { print s }'; }   # utime + stime, all threads, in clock ticks
cpu_ns() { local p; for p in $(with_web "$1"); do cat /proc/"$p"/task/*/schedstat 2>/dev/null; done | awk '{ s += $1 } END { printf "%.0f", s }'; }
wrk_rps() { awk '/^Requests\/sec/ { print $2 }'; }
wrk_p99() {     # p99 from wrk --latency, in ms
	awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms/, "", v) }
		else if (v ~ /s$/) { sub(/s/, "", v); v *= 1000 } printf "%.1f", v }'
}

# ---------------------------------------------------------------- setup
hdr "setup"
say "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
say "machine: nproc=$NPROC cpu=\"$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)\" kernel=$(uname -r)" \
    "mem=$(awk '/^MemTotal/ { printf "%.1fGiB", $2 / 1048576 }' /proc/meminfo) load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
say "commit: $(git describe --always --dirty 2>/dev/null || echo unknown)  mode: $([ $LONG = 1 ] && echo long || echo default)" \
    "soak=${SOAK_S}s history_days=$HIST_DAYS sections=$ONLY"
missing=""
for t in stress-ng:stress-ng wrk:wrk prometheus-node-exporter:prometheus-node-exporter sqlite3:sqlite3 curl:curl ss:iproute2; do
	command -v "${t%%:*}" >/dev/null || missing="$missing ${t#*:}"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		say "installing:$missing"
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 ||
			{ DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 &&
			  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing >/dev/null 2>&1; }
	else
		say "missing:$missing (as root: apt-get install$missing); the sections that need them are skipped"
	fi
fi
[ "$(id -u)" = 0 ] || say "note: not root: no cgroups can be made, so the churn sections are skipped (SAFETY)"

if ! make -s all; then
	# The tree may be mid-edit by someone else: measure the last good build, and say so loudly.
	[ -f build/libfpusoak.a ] && [ -x build/fpusoakd ] || { say "bench: make all failed"; exit 1; }
	say "WARNING: make all failed; measuring the previous build/fpusoakd and build/libfpusoak.a"
fi
CFLAGS_B="-std=gnu11 -O2 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter -Wno-format-truncation -I. -Wl,-z,relro,-z,now"
LIBS_B="build/libfpusoak.a $(make -s --no-print-directory print-ldlibs)"
for b in forkloop churn_bench sampler_bench genhistory webserve; do
	cc $CFLAGS_B "bench/$b.c" $LIBS_B -o "$B/$b" || { say "bench: building $b failed"; exit 1; }
done
# Profiling builds: every sqlite3_step timed and charged to its SQL (bench/sqlprof.c).
for b in sampler_bench webserve; do
	cc $CFLAGS_B -Wl,--wrap=sqlite3_step "bench/$b.c" bench/sqlprof.c $LIBS_B -o "$B/$b-prof" ||
		{ say "bench: building $b-prof failed"; exit 1; }
done
FPUSOAKD=$ROOT/build/fpusoakd
say "built: build/fpusoakd, build/fpusoakd-spawner and build/bench/{forkloop,churn_bench,sampler_bench,genhistory,webserve}"

# ---------------------------------------------------------------- 1. churn
if want churn && [ "$(id -u)" = 0 ]; then
	hdr "1. FPU-process lifecycles/s (spawn, touch the widest FPU, exit, reap): 3 interleaved rounds of 4 s, medians; cgroup 256M/2000 pids"
	cg_make "fpusoak-bench-churn-$$" $((256 << 20)) 2000 || { say "bench: cannot make a cgroup"; exit 1; }
	# Interleaved rounds, median of each: on a shared machine the load changes from one 10 s run
	# to the next, and alternating short runs exposes every contender to the same conditions.
	f1=() fN=() fw=() en=() ef=() sn=() dm=()
	for r in 1 2 3; do
		out=$(cg_exec "$B/forkloop" --procs 1 --seconds 4s); say "[round $r] \$ build/bench/forkloop --procs 1 --seconds 4s"; say "$out"
		f1+=("$(kv per_s <<<" $out")")
		out=$(cg_exec "$B/forkloop" --procs "$NPROC" --seconds 4s); say "[round $r] \$ build/bench/forkloop --procs $NPROC --seconds 4s"; say "$out"
		fN+=("$(kv per_s <<<" $out")")
		# The same loop plus everything a churn worker can do before it exits (worker_run: PDEATHSIG,
		# move into a child cgroup, oom_score_adj, capabilities, non-dumpable, close_range, sigprocmask);
		# the engine's workers now skip the move (v1) and the capabilities (see spawner/spawner.h).
		out=$(cg_exec "$B/forkloop" --procs 1 --seconds 4s --mode worker); say "[round $r] \$ build/bench/forkloop --procs 1 --seconds 4s --mode worker"; say "$out"
		fw+=("$(kv per_s <<<" $out")")
		out=$(cg_exec "$B/churn_bench" --workers 64 --rate max --lifetime 0 --seconds 4s --sandbox-memory 192M --sandbox-pids 1500 2>&1)
		say "[round $r] \$ build/bench/churn_bench --workers 64 --rate max --lifetime 0 --seconds 4s --sandbox-memory 192M --sandbox-pids 1500"
		say "$out" | grep -E '^(final|seconds)'
		en+=("$(kv lifecycles_per_s <<<" $out")")
		# The same engine without the static spawner: its forked copy spawns (what a sanitizer
		# build or a partial install runs; spawner/spawner.h).
		out=$(cg_exec "$B/churn_bench" --spawner none --workers 64 --rate max --lifetime 0 --seconds 4s --sandbox-memory 192M --sandbox-pids 1500 2>&1)
		say "[round $r] \$ build/bench/churn_bench --spawner none --workers 64 --rate max --lifetime 0 --seconds 4s --sandbox-memory 192M --sandbox-pids 1500"
		say "$out" | grep -E '^(final|seconds)'
		ef+=("$(kv lifecycles_per_s <<<" $out")")
		# The real daemon: its engine behind the loop, sampling every 250 ms, lifecycles/s from v_churn.
		rm -f "$TMP/churn.db"*
		cg_exec "$FPUSOAKD" --workers 64 --spawn-rate max --lifetime 0 --sample-interval 250ms --listen none \
			--probe-interval 0 --switch-probe-interval 0 --duration 5s --db "$TMP/churn.db" --log-level err 2>/dev/null
		d=$(sqlite3 "$TMP/churn.db" "SELECT round(sum(exited + killed_sigkill + killed_sigsegv + killed_sigill + killed_other)
			* 1000.0 / (max(ts_ms) - min(ts_ms))) FROM v_churn WHERE ts_ms > (SELECT min(ts_ms) FROM v_churn)" 2>/dev/null)
		say "[round $r] \$ build/fpusoakd --workers 64 --spawn-rate max --lifetime 0 --sample-interval 250ms --listen none --probe-interval 0 --switch-probe-interval 0 --duration 5s --db <tmp>/churn.db"
		say "lifecycles/s from v_churn (sum of exits over max-min ts): ${d%.0}"
		dm+=("${d%.0}")
		out=$(cg_exec stress-ng --fork 2 --metrics-brief -t 4 2>&1); say "[round $r] \$ stress-ng --fork 2 --metrics-brief -t 4"; say "$out" | grep -E 'metrc.* fork '
		sn+=("$(awk '$4 == "fork" && $5 ~ /^[0-9]+$/ { print $9 }' <<<"$out" | head -1)")
	done
	med() { printf '%s\n' "$@" | grep -E '^[0-9.]+$' | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
	bare1=$(med "${f1[@]}"); bareN=$(med "${fN[@]}"); barew=$(med "${fw[@]}"); eng=$(med "${en[@]}"); engf=$(med "${ef[@]}"); sng=$(med "${sn[@]}"); dmn=$(med "${dm[@]}")
	say "rounds: daemon ${dm[*]} | engine (churn_bench) ${en[*]} | engine, forked-copy spawner ${ef[*]} | stress-ng ${sn[*]} | bare $NPROC spawners ${fN[*]} | bare 1 spawner ${f1[*]} | bare+worker setup ${fw[*]}"
	say "per-round ratios daemon/stress-ng: $(for i in 0 1 2; do calc "${dm[$i]:-0} / ${sn[$i]:-1}"; printf ' '; done)" \
	    "daemon/bare $NPROC: $(for i in 0 1 2; do calc "${dm[$i]:-0} / ${fN[$i]:-1}"; printf ' '; done)" \
	    "engine/stress-ng: $(for i in 0 1 2; do calc "${en[$i]:-0} / ${sn[$i]:-1}"; printf ' '; done)" \
	    "engine/bare $NPROC: $(for i in 0 1 2; do calc "${en[$i]:-0} / ${fN[$i]:-1}"; printf ' '; done)"
	cg_remove
	if [ -n "$dmn" ] && [ -n "$eng" ] && [ -n "$sng" ] && [ -n "$bareN" ] && [ -n "$bare1" ]; then
		say "medians: daemon ${dmn}/s | engine alone ${eng}/s | stress-ng ${sng}/s | bare $NPROC spawners ${bareN}/s | bare 1 spawner ${bare1}/s | bare+worker setup ${barew}/s"
		row "lifecycles/s, fpusoakd daemon vs stress-ng --fork 2" "$dmn" "$sng" "x$(calc "$dmn / $sng")" "≥ 2×" "$(met "$(calc "$dmn / $sng")" 2)"
		row "lifecycles/s, fpusoakd daemon vs bare loop, $NPROC spawners" "$dmn" "$bareN" "x$(calc "$dmn / $bareN")" "≥ 0.8×" "$(met "$(calc "$dmn / $bareN")" 0.8)"
		row "lifecycles/s, engine alone (churn_bench) vs stress-ng" "$eng" "$sng" "x$(calc "$eng / $sng")" "(≥ 2×)" "$(met "$(calc "$eng / $sng")" 2)"
		row "lifecycles/s, engine alone vs bare loop, $NPROC spawners" "$eng" "$bareN" "x$(calc "$eng / $bareN")" "(≥ 0.8×)" "$(met "$(calc "$eng / $bareN")" 0.8)"
		row "bare loop, 1 spawner; + a worker's full setup when it moves itself and drops its own capabilities" "$dmn (daemon)" "$bare1; $barew" "x$(calc "$dmn / $bare1"); x$(calc "$dmn / $barew")" "(context)" "-"
		[ -n "$engf" ] && row "engine, static spawner vs its forked-copy fallback (--spawner none)" "$eng" "$engf" "x$(calc "$eng / $engf")" "(context)" "-"
	else
		say "churn: a figure is missing (daemon=$dmn engine=$eng stress-ng=$sng bare1=$bare1 bareN=$bareN)"
	fi
fi

# ---------------------------------------------------------------- 2. sampler
if want sampler; then
	hdr "2. CPU cost of one sample through the real code path vs a bare read() of the same files"
	say "\$ build/bench/sampler_bench --db <tmp>/sampler.db --n 10000 --slow-n 2000"
	out=$("$B/sampler_bench" --db "$TMP/sampler.db" --n 10000 --slow-n 2000 2>&1); say "$out"
	raw=$(kv single_read_cpu_us <<<" $(grep ^raw_fast <<<"$out")")
	smp=$(kv sample_cpu_us <<<" $(grep ^sampler_fast <<<"$out")")
	sub=$(kv submit_cpu_us <<<" $(grep ^sampler_fast <<<"$out")")
	tot=$(kv total_cpu_us <<<" $(grep ^sampler_fast <<<"$out")")
	if [ -n "$raw" ] && [ -n "$tot" ]; then
		r1=$(calc "($smp + $sub) / $raw"); r2=$(calc "$tot / $raw")
		row "µs CPU per fast sample: read+parse+model+SQLite insert" "$(calc "$smp + $sub" 1)" "$raw (raw read)" "x$r1" "≤ 2×" "$(met_le "$r1" 2)"
		row "µs CPU per fast sample incl. rollup (daemon's tick)" "$tot" "$raw (raw read)" "x$r2" "≤ 2× (issue 35)" "$(met_le "$r2" 2)"
	fi
	sraw=$(kv single_read_cpu_us <<<" $(grep ^raw_slow <<<"$out")")
	stot=$(kv total_cpu_us <<<" $(grep ^sampler_slow <<<"$out")")
	if [ -n "$sraw" ] && [ -n "$stot" ]; then
		r3=$(calc "$stot / $sraw")
		row "µs CPU per slow sample (pagetypeinfo+slabinfo)+insert" "$stot" "$sraw (raw read)" "x$r3" "≤ 3×" "$(met_le "$r3" 3)"
	fi
	say ""
	say "profile: SQL statements by CPU over 3000 fast ticks (build/bench/sampler_bench-prof, bench/sqlprof.c)"
	"$B/sampler_bench-prof" --db "$TMP/sampler-prof.db" --n 3000 --slow-n 0 2>&1 | grep '^sqlprof' | head -8 | cut -c1-220
fi

# ---------------------------------------------------------------- 3. idle daemon CPU, /metrics
if want daemon; then
	hdr "3a. daemon CPU at defaults without churn, 60 s (after 5 s of start-up)"
	port=$(free_port)
	cg_make "fpusoak-bench-daemon-$$" $((256 << 20)) 64 || exit 1
	cmd="build/fpusoakd --workers 0 --probe-interval 0 --switch-probe-interval 0 --db <tmp>/idle.db --listen 127.0.0.1:$port --log-level warn"
	say "\$ $cmd"
	cg_spawn "$FPUSOAKD" --workers 0 --probe-interval 0 --switch-probe-interval 0 --db "$TMP/idle.db" \
		--listen "127.0.0.1:$port" --log-level warn 2> "$TMP/idle.log"
	dpid=$!; PIDS+=("$dpid")
	if wait_http "http://127.0.0.1:$port/healthz"; then
		sleep 5
		t0=$(cpu_ticks "$dpid"); n0=$(cpu_ns "$dpid"); s0=$(date +%s.%N)
		sleep 60
		t1=$(cpu_ticks "$dpid"); n1=$(cpu_ns "$dpid"); s1=$(date +%s.%N)
		hz=$(getconf CLK_TCK)
		el=$(calc "$s1 - $s0" 3)
		pct=$(calc "($t1 - $t0) / $hz / $el * 100" 3); pct_ns=$(calc "($n1 - $n0) / 1e9 / $el * 100" 3)
		say "elapsed=${el}s utime+stime=$((t1 - t0)) ticks (${hz}/s) -> ${pct}% of one core; schedstat (all threads) -> ${pct_ns}%"
		say "daemon $(rss "$dpid")"
		row "daemon CPU at defaults, no churn (60 s; core + web process)" "${pct_ns}% (schedstat); ${pct}% (stat)" "-" "-" "≤ 0.1%" "$(met_le "$pct_ns" 0.1)"

		hdr "3b. /metrics: wrk -t2 -c16 -d10s, fpusoakd vs prometheus-node-exporter (buddyinfo, vmstat, meminfo), same run"
		say "fpusoakd /metrics body: $(curl -fs "http://127.0.0.1:$port/metrics" | wc -c) bytes"
		say "\$ wrk -t2 -c16 -d10s http://127.0.0.1:$port/metrics"
		out=$(wrk -t2 -c16 -d10s "http://127.0.0.1:$port/metrics" 2>&1); say "$out"
		f_rps=$(wrk_rps <<<"$out"); f_rss=$(rss_mb "$dpid"); say "fpusoakd after wrk: $(rss "$dpid")"
		f_hwm=$(for p in $(with_web "$dpid"); do cat "/proc/$p/status"; done | awk '/^VmHWM/ { h += $2 } END { printf "%.1f", h / 1024 }')
	else
		say "daemon did not answer on 127.0.0.1:$port"
	fi
	stop_pid "$dpid"
	if command -v prometheus-node-exporter >/dev/null && [ -n "${f_rps:-}" ]; then
		nport=$(free_port)
		ncmd="prometheus-node-exporter --collector.disable-defaults --collector.buddyinfo --collector.vmstat --collector.meminfo --web.listen-address=127.0.0.1:$nport"
		say "\$ $ncmd"
		cg_spawn prometheus-node-exporter --collector.disable-defaults --collector.buddyinfo --collector.vmstat \
			--collector.meminfo "--web.listen-address=127.0.0.1:$nport" --log.level=warn 2> "$TMP/node_exporter.log"
		npid=$!; PIDS+=("$npid")
		if wait_http "http://127.0.0.1:$nport/metrics"; then
			say "node_exporter /metrics body: $(curl -fs "http://127.0.0.1:$nport/metrics" | wc -c) bytes"
			say "\$ wrk -t2 -c16 -d10s http://127.0.0.1:$nport/metrics"
			out=$(wrk -t2 -c16 -d10s "http://127.0.0.1:$nport/metrics" 2>&1); say "$out"
			n_rps=$(wrk_rps <<<"$out"); n_rss=$(rss_mb "$npid"); say "node_exporter after wrk: $(rss "$npid")"
			r=$(calc "$f_rps / $n_rps" 1)
			row "/metrics req/s (wrk -t2 -c16 -d10s)" "$f_rps" "$n_rps (node_exporter)" "x$r" "≥ 10×" "$(met "$r" 10)"
			row "RSS after the /metrics load (VmRSS; VmHWM)" "${f_rss} MB; ${f_hwm} MB" "$n_rss MB (node_exporter)" \
			    "x$(calc "$f_rss / $n_rss")" "≤ 20 MB" "$(met_le "$f_hwm" 20)"
		else
			say "node_exporter did not answer"
		fi
		stop_pid "$npid"
	fi
	cg_remove
fi

# ---------------------------------------------------------------- 3c. footprint of the daemon at defaults
# What each process of the daemon holds (bench/footprint.sh: Rss, Pss, Locked from smaps_rollup), after
# FOOT_S seconds at every default (churn included: 32 workers, 50 spawns/s) with the report idle.  On this
# host libc and libsqlite3 are shared with other processes, so Locked (proportional) is far below LockedRss
# (whole pages); the 64 MB-class guest, where nothing shares them, is tests/xen/scenarios/footprint.
if want footprint; then
	case $FOOT_S in ''|*[!0-9]*) FOOT_S=120 ;; esac
	hdr "3c. footprint: the daemon at its defaults for ${FOOT_S} s, report idle"
	port=$(free_port)
	cg_make "fpusoak-bench-foot-$$" $((768 << 20)) 4500 || exit 1
	say "\$ build/fpusoakd --db <tmp>/foot.db --listen 127.0.0.1:$port --log-level warn   (every other option at its default)"
	cg_spawn "$FPUSOAKD" --db "$TMP/foot.db" --listen "127.0.0.1:$port" --log-level warn 2> "$TMP/foot.log"
	fpid=$!; PIDS+=("$fpid")
	if wait_http "http://127.0.0.1:$port/healthz"; then
		sleep "$FOOT_S"
		out=$(bench/footprint.sh --maps 8 "$fpid"); say "$out"
		say "activity over the next 60 s (schedstat, voluntary context switches, /proc/PID/io of each process):"
		act=$(bench/footprint.sh --kv --activity 60 "$fpid"); say "$(grep '^ACTIVITY' <<<"$act")"
		kv=$(grep 'component=total' <<<"$act")
		for c in core web spawner; do
			a=$(grep "^ACTIVITY component=$c " <<<"$act") || continue
			row "$c: CPU, wakeups/s, written kB/s (60 s after ${FOOT_S} s at defaults)" \
				"$(con_kv cpu_pct "$a")%, $(con_kv wakeups_per_s "$a")/s, $(con_kv write_kb_per_s "$a") kB/s" "-" "-" "(context)" "—"
		done
		lk=$(sed -n 's/.* locked_core_kb=\([0-9]*\).*/\1/p' <<<"$kv"); lr=$(sed -n 's/.* locked_rss_core_kb=\([0-9]*\).*/\1/p' <<<"$kv")
		ps=$(sed -n 's/.* pss_kb=\([0-9]*\).*/\1/p' <<<"$kv")
		row "locked core after ${FOOT_S} s at defaults (Locked; LockedRss)" "${lk} kB; ${lr} kB" "-" "-" "≤ 3 MB (in the guest)" "$(met_le "${lk:-99999}" 3072)"
		row "Pss of every daemon process, workers excluded, report idle" "${ps} kB" "-" "-" "≤ 6 MB" "$(met_le "${ps:-99999}" 6144)"
	else
		say "daemon did not answer on 127.0.0.1:$port: $(tail -3 "$TMP/foot.log")"
	fi
	stop_pid "$fpid"
	cg_remove
fi

# ---------------------------------------------------------------- 4. storage of the real daemon at defaults
# The storage goal is about the daemon at its default settings, so it is measured on the daemon:
# 1 s ticks, 60 s slow samples, churn at its defaults (32 workers, 50 spawns/s, 30 s lifetimes).
# The figure is what the FILE grows by: (page_count - freelist_count) x page_size, read at the end of
# a STORE_WARM s warm-up (the run's first tick, the first keyframe, tables' first pages) and again
# STORE_S s later (WAL frames included: a reader sees them), over the ticks between.  Not rows'
# bytes over a page fill: the fill of a young DB (its tables' last pages part-filled, 35-41 % at
# 240 s) made that 2.5x too high, and borrowing a day of synthetic history's fill (section 4a, 88 %)
# measured the writer on data it does not see.  B-tree pages are allocated whole, so each growing
# table's count is off by at most a page at each end: ~10 tables x 4 KiB against ~200 KiB a 600 s
# window (the per-table lines below show it); --storage-seconds lengthens the window.
# --peer-fpusoakd PATH runs an older build's daemon beside this one over the same window, each with its own
# DB, so a change to the store is measured against its peer under the same load and the same zone moves.
# store_snap DB FILE: ticks|page_count|freelist_count|page_size, then per table and index name|pages|bytes used
store_snap() {
	sqlite3 "$1" "SELECT (SELECT ticks FROM runs ORDER BY run_id DESC LIMIT 1), (SELECT page_count FROM pragma_page_count),
		(SELECT freelist_count FROM pragma_freelist_count), (SELECT page_size FROM pragma_page_size);
		SELECT name, count(*), sum(pgsize - unused) FROM dbstat GROUP BY name" > "$2" 2>/dev/null
}
# store_report TAG DB: the window's figures of one daemon; sets ST_MBD, ST_BPT, ST_BPV (empty when unreadable)
store_report() {
	local tag=$1 db=$2 k0 p0 f0 psz k1 p1 f1 n fbpt evbpt nev vals ev_re
	ST_MBD= ST_BPT= ST_BPV=
	IFS='|' read -r k0 p0 f0 psz < "$TMP/$tag.0"; IFS='|' read -r k1 p1 f1 _ < "$TMP/$tag.1"
	if ! { [ -n "$k0" ] && [ -n "$k1" ] && [ "$k1" -gt "$k0" ] && [ -n "$psz" ]; }; then
		say "$tag: could not read the daemon's DB ($(tail -3 "$TMP/$tag.log"))"
		return 1
	fi
	n=$((k1 - k0))
	fbpt=$(calc "($p1 - $f1 - $p0 + $f0) * $psz / $n" 1)
	say "$tag: ticks $k0 -> $k1; pages in use $((p0 - f0)) -> $((p1 - f1)) of $psz bytes -> $fbpt bytes of file per tick"
	say "  per table and index, over the window: file bytes per tick (whole pages), bytes of rows per tick, their pages' fill at the end:"
	awk -F'|' -v n=$n -v psz="$psz" 'FNR == 1 { next } NR == FNR { p[$1] = $2; u[$1] = $3; next }
		{ dp = ($2 - p[$1]) * psz / n; du = ($3 - u[$1]) / n; if (dp != 0 || du != 0)
		  printf "  %-28s %7.1f %7.1f   %5.1f %%\n", $1, dp, du, 100 * $3 / ($2 * psz); tp += dp; tu += du }
		END { printf "  %-28s %7.1f %7.1f\n", "(all)", tp, tu }' "$TMP/$tag.0" "$TMP/$tag.1" | sort -k2 -nr
	# Rows written per kernel-log record (an allocation failure, an OOM kill: this shared machine's
	# own, other processes' included) and per tracefs failure: their bytes follow the host's events,
	# not the daemon's settings, so the goal is judged without them and the whole file is shown beside.
	ev_re='^(kmsg_events|kmsg_events_run|kmsg_cursor|sqlite_autoindex_kmsg_cursor_1|failure_cause|failure_cause_run|failure_cause_rollup|trace_failures|trace_failures_run|trace_fail_rollup|extfrag|sqlite_autoindex_extfrag_1)$'
	evbpt=$(awk -F'|' -v n=$n -v psz="$psz" -v re="$ev_re" 'FNR == 1 { next } NR == FNR { p[$1] = $2; next }
		$1 ~ re { t += ($2 - p[$1]) * psz / n } END { printf "%.1f", t }' "$TMP/$tag.0" "$TMP/$tag.1")
	nev=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM kmsg_events) + (SELECT count(*) FROM trace_failures)" 2>/dev/null)
	ST_BPT=$(calc "$fbpt - $evbpt" 1)
	say "  kernel-log and trace events stored in the run (this shared machine's own OOM kills and allocation failures): ${nev:-?},"
	say "  $evbpt bytes of file per tick -> sampling alone: $ST_BPT bytes of file per tick"
	say "  zone rows per tick (buddy, atomic_risk): $(sqlite3 "$db" "SELECT round(1.0 * (SELECT count(*) FROM buddy) / ticks, 2) || ', ' || round(1.0 * (SELECT count(*) FROM atomic_risk) / ticks, 2) FROM runs" 2>/dev/null) of $(sqlite3 "$db" "SELECT count(*) FROM zones" 2>/dev/null) zones"
	# Values sampled per tick, as node_exporter's buddyinfo+vmstat+meminfo collectors would count them.
	vals=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM v_buddyinfo WHERE ts_ms = m.t)
		+ (SELECT count(DISTINCT name) FROM v_vmstat) + (SELECT count(*) FROM v_meminfo WHERE ts_ms = m.t)
		FROM (SELECT max(ts_ms) AS t FROM v_samples) m" 2>/dev/null)
	say "  values sampled per tick (buddyinfo free counts + vmstat counters kept + meminfo fields): ${vals:-?}"
	ST_MBD=$(calc "$ST_BPT * 86400 / 1e6"); ST_BPV="?"
	[ -n "$vals" ] && [ "$vals" -gt 0 ] && ST_BPV=$(calc "$ST_BPT / $vals")
	say "  storage of the daemon at defaults: $ST_BPT bytes of file per tick -> $ST_MBD MB/day; $ST_BPV bytes per value sampled"
	say "  (the whole file, the events above included: $fbpt bytes per tick, $(calc "$fbpt * 86400 / 1e6") MB/day)"
	return 0
}
if want storage; then
	hdr "4. storage of the real daemon at default settings: file growth per tick from ${STORE_WARM} s to $((STORE_WARM + STORE_S)) s"
	cg_make "fpusoak-bench-store-$$" $((1536 << 20)) 9000 || exit 1
	say "\$ build/fpusoakd --db <tmp>/store.db --listen none --log-level warn --duration $((STORE_WARM + STORE_S + 30))s   (every other option at its default)"
	cg_spawn "$FPUSOAKD" --db "$TMP/store.db" --listen none --log-level warn --duration "$((STORE_WARM + STORE_S + 30))s" 2> "$TMP/self.log"
	spid=$!; PIDS+=("$spid"); ppid=
	if [ -n "$PEER_FD" ]; then
		say "\$ $PEER_FD --db <tmp>/peer.db ... (the peer, the same options, over the same window)"
		cg_spawn "$PEER_FD" --db "$TMP/peer.db" --listen none --log-level warn --duration "$((STORE_WARM + STORE_S + 30))s" 2> "$TMP/peer.log"
		ppid=$!; PIDS+=("$ppid")
	fi
	sleep "$STORE_WARM"; store_snap "$TMP/store.db" "$TMP/self.0"; [ -n "$ppid" ] && store_snap "$TMP/peer.db" "$TMP/peer.0"
	sleep "$STORE_S"; store_snap "$TMP/store.db" "$TMP/self.1"; [ -n "$ppid" ] && store_snap "$TMP/peer.db" "$TMP/peer.1"
	if store_report self "$TMP/store.db"; then
		row "storage, the daemon at default settings (file growth, ${STORE_S} s window after ${STORE_WARM} s; kernel-log events apart)" \
		    "$ST_MBD MB/day; $ST_BPT bytes/tick; $ST_BPV bytes/value sampled" \
		    "Prometheus TSDB ≈ 1.3 bytes/sample" "-" "≤ 12 MB/day, ≤ 1.3 bytes/value (issue 35)" \
		    "$( [ "$(met_le "$ST_MBD" 12)" = met ] && [ "$ST_BPV" != "?" ] && [ "$(met_le "$ST_BPV" 1.3)" = met ] && echo met || echo MISSED)"
		self_bpt=$ST_BPT
		if [ -n "$ppid" ] && store_report peer "$TMP/peer.db"; then
			row "storage, this build against $(basename "$PEER_FD") in the same window" "$self_bpt bytes/tick" \
			    "$ST_BPT bytes/tick ($ST_MBD MB/day)" "$(calc "$self_bpt / $ST_BPT" 2)" "(context)" "-"
		fi
	fi
	stop_pid "$spid"
	[ -n "$ppid" ] && stop_pid "$ppid"
	cg_remove
fi

# ---------------------------------------------------------------- 4a-b. history, storage, report latency
if want history; then
	if [ -n "$HIST_DB" ]; then
		hdr "4a. synthetic history: the existing $HIST_DB (not regenerated)"
		HDB=$HIST_DB
		ticks=$(sqlite3 "$HDB" "SELECT count(*) FROM samples WHERE run_id = 1")
		bytes=$(stat -c %s "$HDB")
		HIST_DAYS=$(calc "$ticks / 86400" 1)
		mbd=$(calc "$bytes / ($ticks / 86400) / 1e6"); bpt=$(calc "$bytes / $ticks" 1)
		say "ticks=$ticks db_bytes=$bytes -> mb_per_day=$mbd bytes_per_tick=$bpt"
		row "storage, synthetic history ($HIST_DAYS-day DB; busiest zone changes every tick)" "$mbd MB/day; $bpt bytes/tick" "Prometheus TSDB ≈ 1.3 bytes/sample" "-" \
		    "≤ 25 MB/day" "$(met_le "$mbd" 25)"
	else
		hdr "4a. synthetic history: $HIST_DAYS day(s) of 1 s ticks through the store module (bench/genhistory.c)"
		HDB=$SHM/history.db
		cg_make "fpusoak-bench-hist-$$" $(( (HIST_DAYS * 160 + 256) << 20 )) 16 || exit 1
		say "\$ build/bench/genhistory --db /dev/shm/<tmp>/history.db --days $HIST_DAYS --progress"
		out=$(cg_exec "$B/genhistory" --db "$HDB" --days "$HIST_DAYS" --progress 2>&1); say "$out"
		mbd=$(kv mb_per_day <<<" $out"); bpt=$(kv bytes_per_tick <<<" $out")
		if [ -n "$mbd" ]; then
			say "per table (dbstat):"
			sqlite3 "$HDB" "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 8" 2>/dev/null |
				awk -F'|' -v t="$(kv ticks <<<" $out")" '{ printf "  %-24s %10.1f MB %7.1f bytes/tick\n", $1, $2 / 1e6, $2 / t }'
			rows=$(sqlite3 "$HDB" "SELECT (SELECT count(*) FROM v_buddyinfo) + (SELECT count(*) FROM vmstat) + (SELECT count(*) FROM v_meminfo)")
			bps=$(calc "$(kv db_bytes <<<" $out") / $rows")
			say "stored values (buddyinfo free counts + vmstat + meminfo): $rows -> $bps bytes per stored value, whole DB"
			row "storage, synthetic history (1 s, slow 60 s; busiest zone changes every tick)" "$mbd MB/day; $bpt bytes/tick; $bps bytes/value" \
			    "Prometheus TSDB ≈ 1.3 bytes/sample" "-" "≤ 25 MB/day" "$(met_le "$mbd" 25)"
			say "pages of that DB: $(sqlite3 "$HDB" "SELECT round(100.0 * sum(pgsize - unused) / sum(pgsize), 1) FROM dbstat WHERE name NOT LIKE 'sqlite_%'" 2>/dev/null)% full"
		fi
	fi

	hdr "4b. report and JSON API latency on that history (wrk -t2 -c2 -d10s --timeout 60s --latency; 2 = the server's threads)"
	"$B/webserve" --db "$HDB" > "$TMP/webserve.out" 2>&1 &
	wpid=$!; PIDS+=("$wpid")
	for i in $(seq 50); do grep -q port= "$TMP/webserve.out" && break; sleep 0.1; done
	wport=$(sed -n 's/port=//p' "$TMP/webserve.out")
	first=$(sqlite3 "$HDB" "SELECT min(ts_ms) FROM samples WHERE run_id = 1")
	last=$(sqlite3 "$HDB" "SELECT max(ts_ms) FROM samples WHERE run_id = 1")
	if [ -n "$wport" ] && [ -n "$last" ]; then
		for spec in "report|/runs/1|150" \
			    "api 1 h window|/api/v1/runs/1/buddyinfo?from=$((last - 3600000))&to=$last&max_points=1000|20" \
			    "api 1 day window|/api/v1/runs/1/buddyinfo?from=$((last - 86400000 + 1000))&to=$last&max_points=1000|20" \
			    "api whole run|/api/v1/runs/1/buddyinfo?from=$first&to=$last&max_points=2000|20"; do
			name=${spec%%|*}; rest=${spec#*|}; path=${rest%|*}; goal=${rest##*|}
			code=$(curl -s -o "$TMP/body" -w '%{http_code}' "http://127.0.0.1:$wport$path")
			say "\$ wrk -t2 -c2 -d10s --timeout 60s --latency 'http://127.0.0.1:PORT$path'   (HTTP $code, $(wc -c < "$TMP/body") bytes)"
			# wrk drops requests slower than --timeout from its latency figures: make it long.
			out=$(wrk -t2 -c2 -d10s --timeout 60s --latency "http://127.0.0.1:$wport$path" 2>&1)
			say "$(grep -E 'Latency|50%|90%|99%|requests in|Requests/sec|Socket errors' <<<"$out")"
			p99=$(wrk_p99 <<<"$out")
			if [ "$code" != 200 ]; then
				# The latency of an error page is no figure of the page.
				row "p99 $name, $HIST_DAYS-day history" "no valid figure (HTTP $code)" "-" "-" "≤ $goal ms" "MISSED"
			elif [ "${p99:-0}" = 0.0 ]; then
				# Slower than the whole wrk window: time 3 sequential requests instead.
				mx=0
				for i in 1 2 3; do
					t=$(curl -s -o /dev/null --max-time 300 -w '%{time_total}' "http://127.0.0.1:$wport$path")
					say "  curl: ${t} s"; mx=$(awk -v a="$mx" -v b="$t" 'BEGIN { print (b > a ? b : a) }')
				done
				row "$name, $HIST_DAYS-day history (slowest of 3 requests)" "$(calc "$mx * 1000" 0) ms" "-" "-" "≤ $goal ms p99" \
				    "$(met_le "$(calc "$mx * 1000" 0)" "$goal")"
			elif grep -q 'Socket errors' <<<"$out"; then
				row "p99 $name, $HIST_DAYS-day history" "no valid figure (errors or timeouts)" "-" "-" "≤ $goal ms" "MISSED"
			elif [ -n "$p99" ]; then row "p99 $name, $HIST_DAYS-day history" "$p99 ms" "-" "-" "≤ $goal ms" "$(met_le "$p99" "$goal")"
			fi
		done
	fi
	stop_pid "$wpid"
	say ""
	if [ -n "$PEER_WS" ]; then
		# The same page from another build, three rounds each, interleaved: on a loaded machine only
		# the same-run ratio means much.
		say "report /runs/1: this build against $PEER_WS, interleaved (wrk -t2 -c2 -d10s, 3 rounds each)"
		"$B/webserve" --db "$HDB" > "$TMP/ws-self.out" 2>&1 &
		spid=$!; PIDS+=("$spid")
		"$PEER_WS" --db "$HDB" > "$TMP/ws-peer.out" 2>&1 &
		ppid=$!; PIDS+=("$ppid")
		for i in $(seq 50); do grep -q port= "$TMP/ws-self.out" && grep -q port= "$TMP/ws-peer.out" && break; sleep 0.1; done
		peer_ok=1
		for who in self peer; do
			p=$(sed -n 's/port=//p' "$TMP/ws-$who.out")
			c=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$p/runs/1")
			[ "$c" = 200 ] || { say "  $who answers /runs/1 with HTTP $c: no comparison"; peer_ok=0; }
		done
	fi
	if [ -n "$PEER_WS" ] && [ $peer_ok = 1 ]; then
		declare -A p99s=([self]= [peer]=)
		for round in 1 2 3; do
			for who in self peer; do
				p=$(sed -n 's/port=//p' "$TMP/ws-$who.out")
				out=$(wrk -t2 -c2 -d10s --timeout 60s --latency "http://127.0.0.1:$p/runs/1" 2>&1)
				p99s[$who]="${p99s[$who]} $(wrk_p99 <<<"$out")"
				say "  round $round $who: p50 $(awk '$1 == "50%" { print $2 }' <<<"$out"), p99 $(wrk_p99 <<<"$out") ms,"\
				    "$(curl -s -o /dev/null -w '%{size_download}' "http://127.0.0.1:$p/runs/1") bytes"
			done
		done
		med() { tr ' ' '\n' <<<"$1" | grep . | sort -g | sed -n 2p; }   # the middle of 3
		ms=$(med "${p99s[self]}"); mp=$(med "${p99s[peer]}")
		[ -n "$ms" ] && [ -n "$mp" ] &&
			row "p99 report /runs/1, $HIST_DAYS-day history, interleaved (median of 3 rounds)" "$ms ms" \
			    "$mp ms ($(basename "$PEER_WS"))" "$(calc "$ms / $mp" 2)" "≤ 150 ms" "$(met_le "$ms" 150)"
		# CPU time (utime+stime of the server) per request is far less sensitive to other load than
		# latency: 20 sequential requests each, alternating in blocks of 5.
		tck=$(getconf CLK_TCK)
		cpu_of() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
		declare -A cput=([self]=0 [peer]=0) cpid=([self]=$spid [peer]=$ppid)
		for blk in 1 2 3 4; do
			for who in self peer; do
				p=$(sed -n 's/port=//p' "$TMP/ws-$who.out")
				c0=$(cpu_of "${cpid[$who]}")
				for i in 1 2 3 4 5; do curl -s -o /dev/null "http://127.0.0.1:$p/runs/1"; done
				c1=$(cpu_of "${cpid[$who]}")
				cput[$who]=$((cput[$who] + c1 - c0))
			done
		done
		cs=$(calc "${cput[self]} * 1000 / $tck / 20" 1); cp=$(calc "${cput[peer]} * 1000 / $tck / 20" 1)
		say "  server CPU per /runs/1 (utime+stime, 20 sequential requests each): self $cs ms, peer $cp ms"
		row "server CPU per /runs/1, $HIST_DAYS-day history" "$cs ms" "$cp ms ($(basename "$PEER_WS"))" \
		    "$(calc "$cs / $cp" 2)" "≤ peer" "$(met_le "$cs" "$cp")"
	fi
	if [ -n "$PEER_WS" ]; then
		stop_pid "$spid"
		stop_pid "$ppid"
	fi
	say "profile: SQL statements by CPU over 3 requests of /runs/1 (build/bench/webserve-prof)"
	"$B/webserve-prof" --db "$HDB" > "$TMP/webprof.out" 2> "$TMP/webprof.err" &
	wpid=$!; PIDS+=("$wpid")
	for i in $(seq 50); do grep -q port= "$TMP/webprof.out" && break; sleep 0.1; done
	wport=$(sed -n 's/port=//p' "$TMP/webprof.out")
	for i in 1 2 3; do curl -s -o /dev/null -w "  /runs/1: %{time_total} s\n" "http://127.0.0.1:$wport/runs/1"; done
	stop_pid "$wpid"
	grep '^sqlprof' "$TMP/webprof.err" | head -6 | cut -c1-220
	cg_remove
	[ -z "$HIST_DB" ] && rm -f "$SHM"/history.db*
fi

# ---------------------------------------------------------------- 5. soak RSS
if want soak && [ "$(id -u)" = 0 ]; then
	hdr "5. RSS over an accelerated soak: ${SOAK_S} s at --sample-interval 100ms --spawn-rate max, cgroup 256M/2000 pids"
	port=$(free_port)
	cg_make "fpusoak-bench-soak-$$" $((256 << 20)) 2000 || exit 1
	say "\$ build/fpusoakd --sample-interval 100ms --spawn-rate max --lifetime 0 --workers 64 --cgroup-memory-max 160M" \
	    "--cgroup-pids-max 1500 --db <tmp>/soak.db --listen 127.0.0.1:$port --duration $((SOAK_S + 60))s --log-level warn (stopped with SIGTERM at ${SOAK_S} s)"
	cg_spawn "$FPUSOAKD" --sample-interval 100ms --spawn-rate max --lifetime 0 --workers 64 --cgroup-memory-max 160M \
		--cgroup-pids-max 1500 --db "$TMP/soak.db" --listen "127.0.0.1:$port" --duration "$((SOAK_S + 60))s" --log-level warn 2> "$TMP/soak.log"
	spid=$!; PIDS+=("$spid")
	sleep 1
	t0=$(cpu_ticks "$spid" 2>/dev/null || echo 0)
	rss_at=()
	for t in $(seq 10 10 "$SOAK_S"); do
		sleep 10
		kill -0 "$spid" 2>/dev/null || { say "t=${t}s daemon gone"; break; }
		m=$(rss_mb "$spid"); rss_at+=("$m")
		curl -fs -o /dev/null "http://127.0.0.1:$port/metrics" || true
		say "t=${t}s $(rss "$spid") RssAnon=$(awk '/^RssAnon/ { printf "%.1fMB", $2 / 1024 }' /proc/$spid/status) cgroup_peak=$(( $(cg_peak) >> 20 ))MB"
	done
	t1=$(cpu_ticks "$spid" 2>/dev/null || echo 0)
	say "daemon CPU during the soak: $(calc "($t1 - $t0) / $(getconf CLK_TCK) / $SOAK_S * 100" 1)% of one core (utime+stime)"
	stop_pid "$spid"
	cg_remove
	n=${#rss_at[@]}
	if [ "$n" -ge 4 ]; then
		# Flat = the second half of the soak adds at most 0.25 MB + 2%: warm-up (SQLite page caches
		# filling to their cap, libraries faulting in) belongs to the first half.
		w=${rss_at[2]}; h=${rss_at[$((n / 2 - 1))]}; e=${rss_at[$((n - 1))]}
		grow=$(calc "$e - $h" 1)
		verdict=$(ge "$(calc "$e - $h - 0.25 - $h * 0.02")" 0 && echo "MISSED (still growing)" || echo met)
		row "daemon RSS, ${SOAK_S} s soak (100 ms samples, max churn)" "${w} MB at 30 s, ${h} MB at $((SOAK_S / 2)) s, ${e} MB at end" \
		    "-" "+${grow} MB in the 2nd half" "flat after warm-up (2nd half ≤ 0.25 MB + 2%)" "$verdict"
	fi
	if [ -f "$TMP/soak.db" ]; then
		q=$(sqlite3 "$TMP/soak.db" "SELECT round(sum(exited + killed_sigkill + killed_sigsegv + killed_sigill + killed_other)
			* 1000.0 / (max(ts_ms) - min(ts_ms))), count(*),
			round((SELECT count(*) FROM vmstat) * 1.0 / (SELECT count(*) FROM samples), 1),
			round((SELECT count(*) FROM v_meminfo) * 1.0 / (SELECT count(*) FROM samples), 1) FROM v_churn")
		say "from the soak DB: lifecycles/s inside the daemon (v_churn) = ${q%%|*}; churn rows ${q#*|} (| vmstat rows/tick | meminfo rows/tick)"
		[ -n "${q%%|*}" ] && row "lifecycles/s inside the daemon (soak, v_churn)" "${q%%|*}" "${bareN:--} (bare, $NPROC spawners)" \
		    "$([ -n "${bareN:-}" ] && echo "x$(calc "${q%%|*} / $bareN")" || echo -)" "(context)" "-"
	fi
fi

# ---------------------------------------------------------------- summary
hdr "summary"
say "| figure | fpusoakd | peer / floor | ratio | goal | result |"
say "|---|---|---|---|---|---|"
for r in "${SUMMARY[@]}"; do say "$r"; done
say ""
say "full output: ${LOG#$ROOT/}"
