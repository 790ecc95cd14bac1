#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# fpusoakd report and fpusoakd summary on a DB a running daemon is writing (they
# open it read-only; WAL lets them read beside the writer), on a finished DB in a
# read-only directory, and for a comparison of two real runs.
. "$(dirname "$0")/../lib.sh"
need python3:python3 sqlite3:sqlite3
FPUSOAKD=${FPUSOAKD:-build/fpusoakd}
tmp=$(mktemp -d /tmp/fpusoak-cli-XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fits72() { awk 'length($0) > 72 || /[^ -~]/ { bad = 1 } END { exit bad }' "$1"; }
xml_ok() { python3 -c 'import sys,xml.dom.minidom; b=open(sys.argv[1],encoding="utf-8").read(); assert b.startswith("<!DOCTYPE html>"); xml.dom.minidom.parseString(b[15:])' "$1"; }
db=$tmp/a.db
opts=(--db "$db" --listen none --workers 0 --probe-interval 0 --switch-probe-interval 0 --kmsg none --sample-interval 100ms)

"$FPUSOAKD" "${opts[@]}" --duration 1500ms --label "first <a>" >"$tmp/d1.log" 2>&1 || fail "first run: $(tail -2 "$tmp/d1.log")"
"$FPUSOAKD" "${opts[@]}" --label second >"$tmp/d2.log" 2>&1 &
pid=$!   # the daemon itself (not a subshell), so the TERM below reaches it
sleep 1.5
"$FPUSOAKD" summary --db "$db" --run 2 >"$tmp/s2.txt" 2>"$tmp/s2.err"; rc=$?
[ $rc -eq 0 ] && pass "summary of the live run while the daemon writes: exit 0" || fail "summary exit $rc: $(cat "$tmp/s2.err")"
check "summary: every line <= 72 columns of printable ASCII" fits72 "$tmp/s2.txt"
check "summary names this kernel" grep -q "kernel      $(uname -r)" "$tmp/s2.txt"
"$FPUSOAKD" report --db "$db" --run 2 --out "$tmp/r2.html" 2>"$tmp/r2.err"; rc=$?
[ $rc -eq 0 ] && pass "report of the live run while the daemon writes: exit 0" || fail "report exit $rc: $(cat "$tmp/r2.err")"
check "report: well-formed XML" xml_ok "$tmp/r2.html"
check "report: the run's kernel and inline SVG charts" sh -c "grep -q '$(uname -r)' '$tmp/r2.html' && grep -q '<svg' '$tmp/r2.html'"
check "report: self-contained (no link back to a server)" sh -c "! grep -q 'href=\"/' '$tmp/r2.html'"
n0=$(sqlite3 -batch -noheader "$db" "SELECT count(*) FROM samples WHERE run_id = 2")
# Ticks are committed in groups of at most 5 s (README "Crash safety"): wait up to 8 s for the next.
for i in $(seq 40); do
	sleep 0.2
	n1=$(sqlite3 -batch -noheader "$db" "SELECT count(*) FROM samples WHERE run_id = 2")
	[ "$n1" -gt "$n0" ] && break
done
[ "$n1" -gt "$n0" ] && pass "the daemon kept writing beside the readers ($n0 -> $n1 samples)" || fail "daemon stalled: $n0 -> $n1"
kill -TERM "$pid"; wait "$pid"; pid=

# Compare the two real runs.
"$FPUSOAKD" summary --db "$db" --compare 1 2 >"$tmp/c.txt" 2>&1; rc=$?
[ $rc -eq 0 ] && pass "summary --compare 1 2: exit 0" || fail "compare exit $rc: $(cat "$tmp/c.txt")"
check "compare summary within 72 columns" fits72 "$tmp/c.txt"
check "compare summary has the verdict section and names the tests" sh -c "grep -q '^Verdicts, B against A' '$tmp/c.txt' && grep -q '^Tests: ' '$tmp/c.txt'"
"$FPUSOAKD" report --db "$db" --compare 1 2 --out "$tmp/c.html" 2>/dev/null
check "compare report: well-formed XML" xml_ok "$tmp/c.html"

# A finished DB in a directory nobody may write: still readable.
chmod a-w "$db" "$tmp"
"$FPUSOAKD" summary --db "$db" --run 1 >"$tmp/ro.txt" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q 'first <a>' "$tmp/ro.txt" && pass "summary of a DB in a read-only directory" || fail "read-only DB: exit $rc: $(head -3 "$tmp/ro.txt")"
chmod u+w "$tmp"

# Errors: unknown run 1, bad arguments 64.
"$FPUSOAKD" summary --db "$db" --run 42 >/dev/null 2>"$tmp/e1"; rc=$?
[ $rc -eq 1 ] && grep -q "no run 42" "$tmp/e1" && pass "unknown run: exit 1 with a message" || fail "unknown run: exit $rc"
"$FPUSOAKD" report --db "$db" --run 1 >/dev/null 2>"$tmp/e2"; rc=$?
[ $rc -eq 64 ] && grep -q -- "--out" "$tmp/e2" && pass "report without --out: exit 64" || fail "missing --out: exit $rc"
"$FPUSOAKD" summary --db "$tmp/none.db" --run 1 >/dev/null 2>"$tmp/e3"; rc=$?
[ $rc -eq 1 ] && [ ! -e "$tmp/none.db" ] && pass "a missing DB: exit 1, and no file created" || fail "missing DB: exit $rc"
t_done
