#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Run every unit test binary and integration script given on the command line,
# keep each one's output in build/test-logs/, and print one closing line
# "N passed, N failed, N skipped" counting every PASS:/FAIL:/SKIP: check.
# A program that exits non-zero without printing a FAIL: line counts as one failure,
# so a crash is never silent.
set -u
logdir=${TEST_LOGDIR:-build/test-logs}
mkdir -p "$logdir"
passed=0 failed=0 skipped=0
for t in "$@"; do
	name=$(basename "$t")
	log="$logdir/$name.log"
	start=$(date +%s)
	# A script that needs longer than the default says so in its first lines
	# ("# test-timeout: SECONDS"); TEST_TIMEOUT, when set, wins.
	limit=${TEST_TIMEOUT:-$(sed -n '1,15s/^# test-timeout: *\([0-9][0-9]*\).*/\1/p' "$t" 2>/dev/null | head -1)}
	limit=${limit:-600}
	case "$t" in
	*.sh) timeout -k 10 "$limit" bash "$t" >"$log" 2>&1 ;;
	*) timeout -k 10 "$limit" "$t" >"$log" 2>&1 ;;
	esac
	rc=$?
	p=$(grep -c '^PASS: ' "$log"); f=$(grep -c '^FAIL: ' "$log"); s=$(grep -c '^SKIP: ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL: $name: exited with status $rc and no FAIL line (crash or timeout?)" >>"$log"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	printf '%-32s %4d passed %3d failed %3d skipped  (%ds)\n' "$name" "$p" "$f" "$s" $(( $(date +%s) - start ))
	grep -E '^(FAIL|SKIP): ' "$log" | sed 's/^/    /'
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
