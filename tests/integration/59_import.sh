#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# fpusoakd import: two DBs made by two separate daemon runs (churn on, in a small cgroup) copied
# into one, then compared three ways that must agree: the imported DB (runs 1 and 2), and the two
# source files side by side (a:1 against b:1) -- with summary, on the compare page and in
# /api/v1/compare under serve.  Importing again adds nothing; the sources never change; a newer
# schema, a target in use and bad arguments are refused.
. "$(dirname "$0")/../lib.sh"
FPUSOAKD=${FPUSOAKD:-build/fpusoakd}
tmp=$(mktemp -d /tmp/fpusoak-import-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
opts=(--listen none --workers 4 --lifetime 500ms --cgroup-memory-max 64M --cgroup-pids-max 64 --probe-interval 0
      --switch-probe-interval 0 --kmsg none --sample-interval 200ms --duration 3s)
rows() { sqlite3 -batch -noheader "$1" "SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM samples) || ' ' ||
	(SELECT count(*) FROM buddy) || ' ' || (SELECT count(*) FROM vmstat) || ' ' || (SELECT count(*) FROM atomic_risk)"; }

"$FPUSOAKD" --db "$tmp/a.db" "${opts[@]}" --label "kernel A" >"$tmp/da.log" 2>&1 || fail "daemon run A: $(tail -2 "$tmp/da.log")"
"$FPUSOAKD" --db "$tmp/b.db" "${opts[@]}" --label "kernel B" >"$tmp/db.log" 2>&1 || fail "daemon run B: $(tail -2 "$tmp/db.log")"
(cd "$tmp" && md5sum a.db b.db >sums)

"$FPUSOAKD" import --db "$tmp/t.db" "$tmp/a.db" "$tmp/b.db" >"$tmp/i1.out" 2>&1; rc=$?
[ $rc -eq 0 ] && pass "import two DBs: exit 0" || fail "import exit $rc: $(cat "$tmp/i1.out")"
check "import says a.db run 1 -> run 1 and b.db run 1 -> run 2" sh -c "grep -q 'a.db: run 1 -> run 1' '$tmp/i1.out' && grep -q 'b.db: run 1 -> run 2' '$tmp/i1.out'"
ra=$(rows "$tmp/a.db"); rb=$(rows "$tmp/b.db")
r1=$(sqlite3 -batch -noheader "$tmp/t.db" "SELECT (SELECT count(*) FROM runs WHERE run_id = 1) || ' ' || (SELECT count(*) FROM samples WHERE run_id = 1) || ' ' ||
	(SELECT count(*) FROM buddy WHERE run_id = 1) || ' ' || (SELECT count(*) FROM vmstat WHERE run_id = 1) || ' ' || (SELECT count(*) FROM atomic_risk WHERE run_id = 1)")
[ "$r1" = "$ra" ] && pass "run 1 has every row of a.db's run (runs samples buddy vmstat atomic_risk: $r1)" || fail "run 1: $r1, a.db: $ra"
churn_a=$(sqlite3 -batch -noheader "$tmp/a.db" "SELECT sum(spawned) FROM v_churn WHERE run_id = 1")
churn_t=$(sqlite3 -batch -noheader "$tmp/t.db" "SELECT sum(spawned) FROM v_churn WHERE run_id = 1")
[ -n "$churn_a" ] && [ "$churn_a" = "$churn_t" ] && pass "churn of run 1 = a.db's ($churn_t spawned)" || fail "churn: a.db $churn_a, imported $churn_t"
prov=$(sqlite3 -batch -noheader "$tmp/t.db" "SELECT run_id, source_file, source_run_id, source_host IS NOT NULL, source_boot_id IS NOT NULL FROM v_imports ORDER BY run_id" | tr '\n' ' ')
[ "$prov" = "1|a.db|1|1|1 2|b.db|1|1|1 " ] && pass "v_imports: file, run id, host and boot id of each" || fail "v_imports: $prov"

before=$(rows "$tmp/t.db")
"$FPUSOAKD" import --db "$tmp/t.db" "$tmp/a.db" "$tmp/b.db" >"$tmp/i2.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q 'imported 0 runs' "$tmp/i2.out" && pass "importing again: exit 0, 0 runs" || fail "second import: exit $rc: $(cat "$tmp/i2.out")"
[ "$(rows "$tmp/t.db")" = "$before" ] && pass "importing again adds no row" || fail "rows $before -> $(rows "$tmp/t.db")"
(cd "$tmp" && md5sum -c --quiet sums) && pass "the source files are unchanged" || fail "a source changed"
ls "$tmp" | grep -q -- '^[ab].db-' && fail "side files beside a source: $(ls "$tmp")" || pass "no -wal/-shm beside the sources"

# ---- the same comparison three ways
"$FPUSOAKD" summary --db "$tmp/t.db" --compare 1 2 >"$tmp/s1.txt" 2>&1; rc1=$?
"$FPUSOAKD" summary --db "$tmp/a.db" --db "$tmp/b.db" --compare a:1 b:1 >"$tmp/s2.txt" 2>&1; rc2=$?
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && pass "summary: imported and two-file comparisons exit 0" || fail "summary exits $rc1 $rc2: $(tail -2 "$tmp/s2.txt")"
sed -n '/^Verdicts/,$p' "$tmp/s1.txt" >"$tmp/v1"; sed -n '/^Verdicts/,$p' "$tmp/s2.txt" >"$tmp/v2"
[ -s "$tmp/v1" ] && cmp -s "$tmp/v1" "$tmp/v2" && pass "summary: the same verdicts either way" || { fail "summary verdicts differ"; diff "$tmp/v1" "$tmp/v2" | head; }
# report (the saved HTML file) takes the same NAME:ID refs: its verdict table is the imported DB's.
"$FPUSOAKD" report --db "$tmp/t.db" --compare 1 2 --out "$tmp/r1.html" 2>"$tmp/r1.err"; rc1=$?
"$FPUSOAKD" report --db "$tmp/a.db" --db "$tmp/b.db" --compare a:1 b:1 --out "$tmp/r2.html" 2>"$tmp/r2.err"; rc2=$?
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && grep -q '<title>Run a:1 vs run b:1' "$tmp/r2.html" &&
	pass "report --compare a:1 b:1 over two --db writes the comparison of the two files" ||
	fail "report exits $rc1 $rc2: $(cat "$tmp/r1.err" "$tmp/r2.err" | head -3)"
rtbl() { sed -n '/<table class="verdicts">/,/<\/table>/p' "$1"; }
[ -n "$(rtbl "$tmp/r1.html")" ] && [ "$(rtbl "$tmp/r1.html")" = "$(rtbl "$tmp/r2.html")" ] &&
	pass "report: the same verdict table either way" || fail "report verdict tables differ"
check "summary of the imported run says where it came from" sh -c "'$FPUSOAKD' summary --db '$tmp/t.db' --run 2 | grep -q 'imported    from b.db, run 1 there'"

start() { # start NAME ARGS: serve on port 0; sets port
	local name=$1; shift
	"$FPUSOAKD" serve --listen 127.0.0.1:0 "$@" 2>"$tmp/$name.err" &
	pids+=($!); port=
	for i in $(seq 100); do port=$(sed -n 's#^fpusoakd serve: http://127.0.0.1:\([0-9]*\)/.*#\1#p' "$tmp/$name.err"); [ -n "$port" ] && break; sleep 0.05; done
}
start one --db "$tmp/t.db"; p1=$port
start two --db "$tmp/a.db" --db "$tmp/b.db"; p2=$port
[ -n "$p1" ] && [ -n "$p2" ] && pass "serve on the imported DB and on the two files" || fail "serve did not start: $(cat "$tmp"/*.err)"
curl -s "http://127.0.0.1:$p1/api/v1/compare?a=1&b=2" >"$tmp/j1.json"
curl -s "http://127.0.0.1:$p2/api/v1/compare?a=a:1&b=b:1" >"$tmp/j2.json"
same=$(python3 - "$tmp/j1.json" "$tmp/j2.json" <<'EOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
print(len(a["comparisons"]) > 0 and a["comparisons"] == b["comparisons"] and a["orders_of_interest"] == b["orders_of_interest"])
EOF
)
[ "$same" = True ] && pass "/api/v1/compare: the same comparisons either way" || fail "/api/v1/compare differs: $(head -c 300 "$tmp/j1.json") | $(head -c 300 "$tmp/j2.json")"
c1=$(curl -s -o "$tmp/c1.html" -w '%{http_code}' "http://127.0.0.1:$p1/compare?a=1&b=2")
c2=$(curl -s -o "$tmp/c2.html" -w '%{http_code}' "http://127.0.0.1:$p2/compare?a=a:1&b=b:1")
[ "$c1" = 200 ] && [ "$c2" = 200 ] && pass "the compare page answers 200 both ways" || fail "compare pages: $c1 $c2"
tbl() { sed -n '/<table class="verdicts">/,/<\/table>/p' "$1"; }
[ -n "$(tbl "$tmp/c1.html")" ] && [ "$(tbl "$tmp/c1.html")" = "$(tbl "$tmp/c2.html")" ] && pass "the compare page: the same verdict table either way" ||
	fail "compare page verdict tables differ"
check "the imported run's page says where it came from" sh -c "curl -s 'http://127.0.0.1:$p1/runs/2' | grep -q '<th>imported from</th><td>b.db, run 1 there'"
r=$(curl -s "http://127.0.0.1:$p1/api/v1/runs/1" | python3 -c 'import json,sys; i=json.load(sys.stdin)["imported"]; print(i["source_file"], i["source_run_id"])')
[ "$r" = "a.db 1" ] && pass "/api/v1/runs/1 carries imported.source_file and source_run_id" || fail "api imported: $r"

# ---- refusals
cp "$tmp/a.db" "$tmp/new.db" && sqlite3 "$tmp/new.db" "PRAGMA user_version = 999"
sum_new=$(md5sum <"$tmp/new.db")
before=$(rows "$tmp/t.db")
"$FPUSOAKD" import --db "$tmp/t.db" "$tmp/new.db" >"$tmp/i3.out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q 'newer fpusoakd' "$tmp/i3.out" && pass "a newer schema: exit 1, says so" || fail "newer schema: exit $rc: $(cat "$tmp/i3.out")"
[ "$(md5sum <"$tmp/new.db")" = "$sum_new" ] && [ "$(rows "$tmp/t.db")" = "$before" ] && pass "and neither file changed" || fail "a file changed"
"$FPUSOAKD" --db "$tmp/t.db" --listen none --workers 0 --probe-interval 0 --switch-probe-interval 0 --kmsg none >"$tmp/dl.log" 2>&1 &
dpid=$!; pids+=("$dpid")
sleep 1
"$FPUSOAKD" import --db "$tmp/t.db" "$tmp/a.db" >"$tmp/i4.out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q 'another fpusoakd' "$tmp/i4.out" && pass "a target a daemon writes: exit 1, says so" || fail "target in use: exit $rc: $(cat "$tmp/i4.out")"
kill -TERM "$dpid"; wait "$dpid"
s=$(sqlite3 -batch -noheader "$tmp/t.db" "SELECT group_concat(coalesce(end_reason, 'none'), ' ') FROM (SELECT end_reason FROM runs ORDER BY run_id)")
[ "$s" = "stopped stopped stopped" ] && pass "the daemon's run ended; the imported runs kept theirs ($s)" || fail "end reasons: $s"
"$FPUSOAKD" import --db "$tmp/t.db" --db "$tmp/x.db" "$tmp/a.db" >/dev/null 2>"$tmp/e1"; rc=$?
[ $rc -eq 64 ] && grep -q 'given twice' "$tmp/e1" && pass "import --db twice: 64" || fail "--db twice: exit $rc"
"$FPUSOAKD" import --db "$tmp/t.db" >/dev/null 2>&1; [ $? -eq 64 ] && pass "import without a source: 64" || fail "no source: not 64"
"$FPUSOAKD" import "$tmp/a.db" >/dev/null 2>&1; [ $? -eq 64 ] && pass "import without --db: 64" || fail "no --db: not 64"
"$FPUSOAKD" import --db "$tmp/t.db" "$tmp/nope.db" >/dev/null 2>"$tmp/e2"; rc=$?
[ $rc -eq 1 ] && grep -q nope.db "$tmp/e2" && pass "a missing source: 1, named" || fail "missing source: exit $rc"
t_done
