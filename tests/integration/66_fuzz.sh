#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fuzzing pass: every tests/fuzz/fuzz_*.c harness under libFuzzer + ASan +
# UBSan for FUZZ_SECONDS each (default 10; SOAK=1: 60), one PASS line per
# harness with its exec count, a FAIL with the crash summary and the saved
# input otherwise.  Then every saved regression input in
# tests/reliability/fuzz-regressions/<harness>/ is replayed and must pass.
# Builds through `make fuzz FUZZ_SECONDS=1` (the Makefile owns the flags).
# Corpora grow in build/fuzz/corpus/<harness> (never in the tree), seeded
# from tests/fixtures/ and tests/reliability/fuzz-seeds/<harness>/.
. "$(dirname "$0")/../lib.sh"
command -v clang >/dev/null || { skip "clang not installed: no fuzzing"; t_done; }
# libFuzzer's runtime is a separate package (libclang-rt-N-dev, only a Recommends of clang).
if [ -z "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a | grep /)" ]; then
	skip "clang cannot link libFuzzer: libclang_rt.fuzzer-x86_64.a missing (Debian: libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev; make test-deps installs it)"
	t_done
fi
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here" || exit 1
S=${FUZZ_SECONDS:-$([ "${SOAK:-0}" = 1 ] && echo 60 || echo 10)}
t0=$(date +%s)
log=$(mktemp /tmp/fpusoak-fuzz-XXXXXX)
trap 'rm -f "$log"' EXIT
if ! make --no-print-directory fuzz FUZZ_SECONDS=1 >"$log" 2>&1 || grep -q 'ERROR: \|SUMMARY: ' "$log"; then
	fail "make fuzz did not build or its 1 s pass found something: $(grep -m3 'error\|ERROR\|SUMMARY' "$log")"
	t_done
fi
echo "built the harnesses in $(( $(date +%s) - t0 )) s"
art=build/fuzz/artifacts
mkdir -p "$art"
for src in tests/fuzz/fuzz_*.c; do
	n=$(basename "$src" .c)
	bin=build/fuzz/bin/$n
	[ -x "$bin" ] || { fail "$n: not built"; continue; }
	mkdir -p "build/fuzz/corpus/$n"
	seeds=(tests/fixtures/)
	[ -d "tests/reliability/fuzz-seeds/$n" ] && seeds+=("tests/reliability/fuzz-seeds/$n/")
	# -rss_limit_mb bounds memory; -close_fd_mask=2 silences the target's own stderr
	# (config_load complains per bad input); libFuzzer still prints its reports.
	"$bin" -max_total_time="$S" -print_final_stats=1 -rss_limit_mb=1024 -close_fd_mask=2 -timeout=10 \
		-artifact_prefix="$art/$n-" "build/fuzz/corpus/$n" "${seeds[@]}" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	corpus=$(ls "build/fuzz/corpus/$n" | wc -l)
	if [ $rc = 0 ] && [ -n "$execs" ]; then
		pass "$n: $execs execs in ${S} s, $cov, corpus $corpus, no crash"
	else
		fail "$n: exit $rc after ${execs:-?} execs: $(grep -m1 'SUMMARY\|ERROR' "$log") input: $(grep -o "$art/$n-[a-z]*-[0-9a-f]*" "$log" | head -1)"
		grep -A25 -m1 '^==[0-9]*==ERROR\|deadly signal\|runtime error' "$log" | head -40
	fi
done
# Regression inputs: each crash found once stays fixed.
nreg=0 badreg=0
for d in tests/reliability/fuzz-regressions/fuzz_*; do
	[ -d "$d" ] || continue
	n=$(basename "$d")
	for f in "$d"/*; do
		[ -f "$f" ] || continue
		nreg=$((nreg + 1))
		"build/fuzz/bin/$n" -runs=1 "$f" >"$log" 2>&1 || { badreg=$((badreg + 1)); echo "regression $f: $(grep -m1 SUMMARY "$log")"; }
	done
done
if [ "$nreg" -gt 0 ]; then
	[ "$badreg" = 0 ] && pass "$nreg saved fuzz regression inputs replay clean" || fail "$badreg of $nreg fuzz regression inputs crash again"
fi
echo "took $(( $(date +%s) - t0 )) s"
t_done
