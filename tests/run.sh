#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Run every unit test binary and integration script given on the command line,
# keep each one's output in build/test-logs/, and print one closing line
# "N passed, N failed, N skipped" counting every PASS:/FAIL:/SKIP: check.
# A program that exits non-zero without printing a FAIL: line counts as one failure,
# so a crash is never silent.
# Scripts that say "# test-concurrent: yes" in their first lines start before everything else
# and run side by side with each other and with the rest of the list: they are the Xen stages,
# which wait on an emulator that keeps one host CPU busy each (the dom0 stage's QEMU is
# single-threaded) for most of the suite's length, while most host tests wait on their own
# daemons and sleep; one after the other they made `make test` the host tests' length plus the
# longest stage (~24 + ~21 minutes on 2 cores).  The host tests are built to pass beside two
# busy CPUs (stress-ng, or two long QEMUs).  Their lines are printed in list order at the end.
# TEST_EARLY=0 starts them where they come in the list instead (side by side, nothing else
# beside them); TEST_SERIAL=1 runs them one after the other.
# TEST_JOBS=N (make test-quick) runs up to N of the other tests at once, in list order, and tallies
# each in list order; a script that says "# test-alone: yes" in its first lines runs with nothing
# beside it (it measures CPU or timing of its own processes).
set -u
logdir=${TEST_LOGDIR:-build/test-logs}
mkdir -p "$logdir"
passed=0 failed=0 skipped=0

# start T: run test T in the background; its log, start time and exit status go to files.
start() {
	local t=$1 name log limit
	name=$(basename "$t")
	log="$logdir/$name.log"
	# A script that needs longer than the default says so in its first lines
	# ("# test-timeout: SECONDS"); TEST_TIMEOUT, when set, wins.
	limit=${TEST_TIMEOUT:-$(sed -n '1,15s/^# test-timeout: *\([0-9][0-9]*\).*/\1/p' "$t" 2>/dev/null | head -1)}
	limit=${limit:-600}
	date +%s >"$log.start"
	rm -f "$log.rc"
	(
		case "$t" in
		*.sh) timeout -k 10 "$limit" bash "$t" >"$log" 2>&1 ;;
		*) timeout -k 10 "$limit" "$t" >"$log" 2>&1 ;;
		esac
		echo "$? $(date +%s)" >"$log.rc"
	) &
	started_pid=$!
}

# tally T: count the checks of test T (finished) and print its line.
tally() {
	local t=$1 name log rc t1 p f s t0
	name=$(basename "$t")
	log="$logdir/$name.log"
	read -r rc t1 <"$log.rc" 2>/dev/null || { rc=255 t1=$(date +%s); }
	t0=$(cat "$log.start")
	rm -f "$log.rc" "$log.start"
	p=$(grep -c '^PASS: ' "$log"); f=$(grep -c '^FAIL: ' "$log"); s=$(grep -c '^SKIP: ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL: $name: exited with status $rc and no FAIL line (crash or timeout?)" >>"$log"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	printf '%-32s %4d passed %3d failed %3d skipped  (%ds)%s\n' "$name" "$p" "$f" "$s" \
		$((t1 - t0)) "${2:-}"
	grep -E '^(FAIL|SKIP): ' "$log" | sed 's/^/    /'
}

alone() { [ -f "$1" ] && sed -n '1,15p' "$1" | grep -q '^# test-alone: *yes'; }

# The pool of TEST_JOBS: tests started, tallied in list order as the head of the list finishes.
pool=()
pool_tally_done() {
	while [ ${#pool[@]} -gt 0 ] && [ -f "$logdir/$(basename "${pool[0]}").log.rc" ]; do
		tally "${pool[0]}"
		pool=("${pool[@]:1}")
	done
}
pool_drain() {
	wait
	pool_tally_done
}
pool_run() {
	local t=$1
	if alone "$t"; then
		pool_drain
		start "$t"
		wait
		tally "$t"
		return
	fi
	while [ "$(jobs -rp | wc -l)" -ge "$TEST_JOBS" ]; do
		wait -n
		pool_tally_done
	done
	start "$t"
	pool+=("$t")
	pool_tally_done
}

concurrent() { [ "${TEST_SERIAL:-0}" != 1 ] && [ -f "$1" ] && sed -n '1,15p' "$1" | grep -q '^# test-concurrent: *yes'; }

# The group of concurrent tests gathered so far: started together, tallied in order.
group=()
flush() {
	[ ${#group[@]} -gt 0 ] || return 0
	pool_drain
	local t u others
	for t in "${group[@]}"; do start "$t"; done
	wait
	for t in "${group[@]}"; do
		others=
		for u in "${group[@]}"; do [ "$u" = "$t" ] || others="${others:+$others, }$(basename "$u")"; done
		tally "$t" "${others:+  beside $others}"
	done
	group=()
}
TEST_JOBS=${TEST_JOBS:-1}
# The concurrent tests started first (TEST_EARLY, one job at a time for the rest); the others'
# waits name their own test's PID, so they never wait for these.
early=()
declare -A is_early=()
if [ "${TEST_EARLY:-1}" = 1 ] && [ "$TEST_JOBS" -eq 1 ]; then
	for t in "$@"; do concurrent "$t" && early+=("$t"); done
	for t in "${early[@]}"; do
		start "$t"
		is_early[$t]=1
	done
fi
for t in "$@"; do
	[ -n "${is_early[$t]:-}" ] && continue
	if concurrent "$t"; then
		group+=("$t")
		continue
	fi
	flush
	if [ "$TEST_JOBS" -gt 1 ]; then
		pool_run "$t"
		continue
	fi
	start "$t"
	wait "$started_pid"
	tally "$t"
done
pool_drain   # waits for every child, the early ones too
flush
for t in "${early[@]}"; do
	others=
	for u in "${early[@]}"; do [ "$u" = "$t" ] || others="${others:+$others, }$(basename "$u")"; done
	tally "$t" "  beside ${others:+$others and }the rest of the list"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
