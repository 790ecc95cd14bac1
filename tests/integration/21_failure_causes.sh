#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Failure causes from the kernel log, end to end: page allocation failure reports with their
# Mem-Info dumps, written into the real /dev/kmsg (facility user, one write per record as the
# kernel's printk makes them), land in v_failure_causes classified as a kernel engineer would by
# hand (tests/fixtures/memdump-*; the rule is docs/failure-causes.md):
#   a. the issue's first example: 8,000 kB free above a 1,024 kB min, no block of order >= 3,
#      GFP_ATOMIC order 3: fragmentation in DMA32, free pages had to exceed 412 kB (96 + 7 pages);
#   b. the issue's second: 216 kB free, under the 384 kB GFP_ATOMIC may dip to: watermark;
#   c. a real 6.3 dump (the only order-9 block highatomic), GFP_KERNEL order 9: reserve in Normal;
#   d. report a again, every KERN_CONT piece its own record and other lines between: the same row;
#   e. a real 5.3 report: watermark under the 4.4-6.2 rule, served (unknown) under 6.3+'s, which
#      no longer counts the highatomic reserve against a request that cannot sleep;
#   f. a 3.x-style line without flag names: unknown, "GFP flags not named";
#   g. report b cut after its zone lines: unknown once the dump times out, "Mem-Info dump incomplete".
. "$(dirname "$0")/../lib.sh"
need sqlite3:sqlite3
FPUSOAKD=${FPUSOAKD:-build/fpusoakd}
FIX=$(cd "$(dirname "$0")/../fixtures" && pwd)
if [ "$(id -u)" != 0 ] || [ ! -w /dev/kmsg ]; then skip "needs root to write /dev/kmsg"; t_done; fi
tmp=$(mktemp -d /tmp/fpusoak-causes-XXXXXX); pid=
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
db=$tmp/c.db
q() { sqlite3 -batch -noheader "$db" "$1"; }
n=cz$$$RANDOM
wait_for() { for _ in $(seq 150); do [ "$(q "$1" 2>/dev/null)" = "$2" ] && return 0; sleep 0.1; done; return 1; }
# emit FILE COMM [FIRST_LINE]: the report's message lines, dmesg stamps off, one record each, the failure
# line's comm replaced (or the whole first line replaced by FIRST_LINE).
emit() {
	# The task line names the task too, cut at 15 bytes (TASK_COMM_LEN): the daemon matches the two.
	sed -e 's/^\[[ 0-9.]*\] //' -e "s/^\(CPU: [0-9]* PID: [0-9]* Comm: \)[^ ]* /\1${2:0:15} /" "$1" | {
		IFS= read -r first
		if [ -n "${3:-}" ]; then first=$3; else first="$2:${first#*:}"; fi
		printf '<4>%s\n' "$first" >/dev/kmsg
		while IFS= read -r l; do printf '<4>%s\n' "$l" >/dev/kmsg; done
	}
}
# row COMM: the classification of the failure by COMM, as "cause|zone|free_kb|min_kb|largest|lag|pid".
row() {
	q "SELECT cause || '|' || coalesce(zone, '-') || '|' || coalesce(free_kb, '-') || '|' || coalesce(min_kb, '-') || '|' ||
		coalesce(largest_usable_order, '-') || '|' || coalesce(lag_ms, '-') || '|' || coalesce(pid, '-')
		FROM v_failure_causes WHERE source = 'kmsg' AND comm = CAST('$1' AS BLOB)"
}

"$FPUSOAKD" --db "$db" --listen none --sample-interval 200ms --workers 0 --probe-interval 0 \
	--switch-probe-interval 0 >"$tmp/log" 2>&1 & pid=$!
wait_for "SELECT count(*) > 0 FROM v_samples" 1 || fail "daemon did not start: $(cat "$tmp/log")"

emit "$FIX/memdump-issue-fragmentation.txt" "$n-a"
emit "$FIX/memdump-issue-watermark.txt" "$n-b"
emit "$FIX/memdump-6.3-gentoo-nonuma.txt" "" \
	"$n-c: page allocation failure: order:9, mode:0xdc2(GFP_KERNEL|__GFP_HIGHMEM|__GFP_ZERO), nodemask=(null),cpuset=emulator,mems_allowed=0"
# d: report a as an interrupted printk leaves it: "Node 0 " alone, every buddy entry, its letters and every
# lowmem_reserve number a record of their own, another CPU's line after every third piece.
cd_=$n-d
sed -e "1s/^fpusoak-frag:/$cd_:/" -e "s/^\(CPU: [0-9]* PID: [0-9]* Comm: \)[^ ]* /\1${cd_:0:15} /" \
	"$FIX/memdump-issue-fragmentation.txt" | awk -v noise="$n-noise e1000e 0000:00:19.0 eth0: 10 Mbps" '
	function out(s) { printf "<4>%s\n", s > "/dev/kmsg"; close("/dev/kmsg"); if (++k % 3 == 0) { printf "<6>%s\n", noise > "/dev/kmsg"; close("/dev/kmsg") } }
	/^Node [0-9]+ [A-Za-z0-9]+( free:|: )/ {
		out("Node " $2 " "); rest = substr($0, length("Node " $2 " ") + 1)
		if (rest ~ /: [0-9]/) { n = split(rest, t, " "); for (i = 1; i <= n; i++) { if (t[i] == "=") { out("= " t[i + 1]); i++ } else out(" " t[i]) } }
		else out(rest)
		next }
	/^lowmem_reserve/ { n = split($0, t, " "); out(t[1]); for (i = 2; i <= n; i++) out(" " t[i]); next }
	{ out($0) }'
emit "$FIX/memdump-5.3-arch.txt" "$n-e"
# f: a 3.x line (no flag names), then the dump of a.
emit "$FIX/memdump-issue-fragmentation.txt" "" "$n-f: page allocation failure: order:3, mode:0x4020"

wait_for "SELECT count(*) FROM v_failure_causes WHERE CAST(comm AS TEXT) LIKE '$n-%'" 6 ||
	fail "six classified failures expected, got $(q "SELECT count(*) FROM v_failure_causes WHERE CAST(comm AS TEXT) LIKE '$n-%'")"
check "a. the issue's first example: fragmentation in DMA32, 8000 kB free over 412, largest order 2, lag 0, PID from the task line ($(row "$n-a"))" \
	test "$(row "$n-a")" = "fragmentation|DMA32|8000|412|2|0|4242"
check "b. the issue's second: watermark in DMA32, 216 kB free under 384 ($(row "$n-b"))" \
	test "$(row "$n-b")" = "watermark|DMA32|216|384|0|0|4343"
check "c. real 6.3 dump, order 9 only highatomic: reserve in Normal, largest usable order 8 ($(row "$n-c"))" \
	test "$(row "$n-c" | cut -d'|' -f1,2,5)" = "reserve|Normal|8"
check "d. the same report in pieces with other lines between: the same row as a ($(row "$n-d"))" \
	test "$(row "$n-d" | cut -d'|' -f1-6)" = "$(row "$n-a" | cut -d'|' -f1-6)"
check "d. ... and the foreign lines did not become a failure" test "$(q "SELECT count(*) FROM v_failure_causes WHERE CAST(comm AS TEXT) LIKE '$n-noise%'")" = 0
# e: the running kernel's rule decides (the dump does not say which kernel printed it).
rel=$(uname -r); maj=${rel%%.*}; rest=${rel#*.}; min=${rest%%[!0-9]*}
if [ "$maj" -gt 6 ] || { [ "$maj" = 6 ] && [ "$min" -ge 3 ]; }; then want_e=unknown; else want_e=watermark; fi
check "e. real 5.3 report under this kernel's ($rel) rule: $want_e ($(row "$n-e"))" test "$(row "$n-e" | cut -d'|' -f1)" = "$want_e"
check "f. a line without flag names: unknown, and says so" \
	test "$(q "SELECT cause || '|' || note FROM failure_cause WHERE comm = CAST('$n-f' AS BLOB)")" = "0|GFP flags not named"
# g: cut after DMA32's lowmem_reserve (the buddy lines never come); the dump times out at a tick.
sed -e '/^Node 0 DMA: /,$d' "$FIX/memdump-issue-watermark.txt" >"$tmp/cut.txt"
emit "$tmp/cut.txt" "$n-g"
wait_for "SELECT count(*) FROM v_failure_causes WHERE comm = CAST('$n-g' AS BLOB)" 1 || fail "g. the truncated report was not classified"
check "g. a truncated dump: unknown, no zone, 'Mem-Info dump incomplete'" \
	test "$(q "SELECT cause || '|' || coalesce(decided_name, '-') || '|' || note FROM failure_cause
		WHERE comm = CAST('$n-g' AS BLOB)")" = "0|-|Mem-Info dump incomplete"
check "every failure line is also in v_alloc_failures as before" \
	test "$(q "SELECT count(*) FROM v_alloc_failures WHERE CAST(comm AS TEXT) LIKE '$n-%'")" = 7
kill -TERM $pid; wait $pid; pid=
check "hourly counts by cause and order (v_failure_causes_1h) add up to the rows" \
	test "$(q "SELECT sum(failures) FROM v_failure_causes_1h WHERE source = 'kmsg'")" = "$(q "SELECT count(*) FROM v_failure_causes WHERE source = 'kmsg'")"
t_done
