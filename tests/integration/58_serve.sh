#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# fpusoakd serve: the report of databases without a daemon, read-only.
#   - two DBs from two separate daemon runs, one of them a read-only file: every page and API
#     route answers, runs are NAME:ID, the DB files' checksums are unchanged and no SQLite side
#     file (-wal, -shm) appears beside them;
#   - one DB a live daemon is writing: the run is "running" and grows, the daemon is not
#     disturbed, and once it is SIGKILLed the run is no longer "running";
#   - exit codes: 64 bad arguments, 69 the address in use, 1 a database that cannot be read;
#     SIGTERM stops it with 0.
. "$(dirname "$0")/../lib.sh"
FPUSOAKD=${FPUSOAKD:-build/fpusoakd}
tmp=$(mktemp -d /tmp/fpusoak-serve-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null; done; chmod -R u+w "$tmp"; rm -rf "$tmp"; }
trap cleanup EXIT
opts=(--listen none --workers 0 --probe-interval 0 --switch-probe-interval 0 --kmsg none --sample-interval 200ms)
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# serve_start NAME ARGS...: start serve on port 0; sets $port and $spid, or fails.
serve_start() {
	local name=$1; shift
	"$FPUSOAKD" serve --listen 127.0.0.1:0 "$@" 2>"$tmp/$name.err" &
	spid=$!; pids+=("$spid"); port=
	for i in $(seq 400); do   # 20 s: a loaded machine starts it slowly
		port=$(sed -n 's#^fpusoakd serve: http://127.0.0.1:\([0-9]*\)/.*#\1#p' "$tmp/$name.err")
		[ -n "$port" ] && break
		sleep 0.05
	done
	[ -n "$port" ] && pass "$name: serve started on 127.0.0.1:$port" || fail "$name: serve did not start: $(cat "$tmp/$name.err")"
}
serve_stop() { # serve_stop NAME: SIGTERM, exit 0
	kill -TERM "$spid"; wait "$spid"; local rc=$?
	[ $rc -eq 0 ] && pass "$1: SIGTERM stops serve with exit 0" || fail "$1: serve exit $rc"
}
code() { curl -s -o "$tmp/body" -w '%{http_code}' "http://127.0.0.1:$port$1"; }

# ---- two DBs from two daemon runs; the first one a read-only file
"$FPUSOAKD" --db "$tmp/a.db" "${opts[@]}" --duration 2s --label "kernel A" >"$tmp/da.log" 2>&1 || fail "daemon run A: $(tail -2 "$tmp/da.log")"
"$FPUSOAKD" --db "$tmp/b.db" "${opts[@]}" --duration 2s --label "kernel B" >"$tmp/db.log" 2>&1 || fail "daemon run B: $(tail -2 "$tmp/db.log")"
chmod 444 "$tmp/a.db"
(cd "$tmp" && md5sum a.db b.db >sums)
ls "$tmp" | grep -- '-wal\|-shm' >"$tmp/side0"

serve_start two --db "$tmp/a.db" --db "$tmp/b.db"
for u in / /runs /runs/a:1 /runs/b:1 "/runs/a:1?from=0" "/compare?a=a:1&b=b:1" "/compare?a=b:1&b=a:1" /healthz \
	 /api/v1/status /api/v1/runs /api/v1/runs.csv /api/v1/runs/a:1 /api/v1/runs/b:1/buddyinfo \
	 /api/v1/runs/b:1/buddyinfo.csv "/api/v1/runs/a:1/meminfo?name=MemFree" "/api/v1/runs/a:1/vmstat?name=compact_stall" \
	 /api/v1/runs/a:1/failures /api/v1/runs/a:1/frag /api/v1/runs/a:1/churn /api/v1/runs/a:1/probes \
	 "/api/v1/compare?a=a:1&b=b:1"; do
	c=$(code "$u"); [ "$c" = 200 ] && pass "two DBs: $u answers 200" || fail "two DBs: $u answers $c: $(head -c 200 "$tmp/body")"
done
c=$(code /runs/1); [ "$c" = 400 ] && grep -q 'NAME:1' "$tmp/body" && pass "two DBs: a bare run id is 400 and says NAME:ID" ||
	fail "two DBs: /runs/1 answers $c: $(head -c 200 "$tmp/body")"
c=$(code /runs/zz:1); [ "$c" = 404 ] && grep -q "no database named.*zz" "$tmp/body" && pass "two DBs: an unknown NAME is 404" ||
	fail "two DBs: /runs/zz:1 answers $c"
c=$(code "/compare?a=1&b=b:1"); [ "$c" = 400 ] && pass "two DBs: /compare with a bare id is 400" || fail "/compare?a=1 answers $c"
c=$(code /runs/a:9); [ "$c" = 404 ] && pass "two DBs: a run a file does not have is 404" || fail "/runs/a:9 answers $c"
curl -s "http://127.0.0.1:$port/runs" >"$tmp/runs.html"
check "/runs lists a:1 and b:1 with links" sh -c "grep -q 'href=\"/runs/a:1\"' '$tmp/runs.html' && grep -q 'href=\"/runs/b:1\"' '$tmp/runs.html'"
check "/runs links no /metrics (serve has no daemon)" sh -c "! grep -q 'href=\"/metrics\"' '$tmp/runs.html'"
curl -s "http://127.0.0.1:$port/compare?a=a:1&b=b:1" >"$tmp/cmp.html"
check "/compare names both runs NAME:ID and links them" sh -c "grep -q 'Run a:1 vs run b:1' '$tmp/cmp.html' && grep -q 'href=\"/runs/b:1\"' '$tmp/cmp.html'"
r=$(curl -s "http://127.0.0.1:$port/api/v1/compare?a=a:1&b=b:1" | json 'd["a_ref"], d["b_ref"], d["a_db"], d["b_db"]')
[ "$r" = "a:1 b:1 a b" ] && pass "/api/v1/compare carries a_ref, b_ref, a_db, b_db" || fail "/api/v1/compare: $r"
r=$(curl -s "http://127.0.0.1:$port/api/v1/runs" | json '" ".join(r["ref"] + "=" + r["state"] for r in d["runs"])')
[ "$r" = "a:1=stopped b:1=stopped" ] && pass "/api/v1/runs: refs and states ($r)" || fail "/api/v1/runs: $r"
head -1 "$tmp/body" >/dev/null
check "/api/v1/runs.csv starts with a ref column" sh -c "curl -s 'http://127.0.0.1:$port/api/v1/runs.csv' | head -1 | grep -q '^ref,run_id,'"
serve_stop two
(cd "$tmp" && md5sum -c --quiet sums) && pass "the DB files' checksums are unchanged after serve" || fail "a DB file changed"
ls "$tmp" | grep -- '-wal\|-shm' >"$tmp/side1"
cmp -s "$tmp/side0" "$tmp/side1" && pass "serve created no -wal or -shm file beside the DBs" || fail "side files appeared: $(cat "$tmp/side1")"

# ---- a read-only directory as another user: still served (immutable open needs no side files)
if id nobody >/dev/null 2>&1 && command -v runuser >/dev/null; then
	mkdir "$tmp/ro" && cp "$tmp/b.db" "$tmp/ro/" && chmod 555 "$tmp/ro" && chmod 755 "$tmp" && chmod 444 "$tmp/ro/b.db"
	# A copy of the binary: the build may sit where nobody cannot reach it (a checkout under /root).
	cp "$FPUSOAKD" "$tmp/fpusoakd-nobody" && chmod 755 "$tmp/fpusoakd-nobody"
	runuser -u nobody -- "$tmp/fpusoakd-nobody" summary --db "$tmp/ro/b.db" --run 1 >"$tmp/ro.txt" 2>&1 &&
		grep -q 'kernel B' "$tmp/ro.txt" && pass "a DB in a directory nobody may write, read by user nobody" ||
		fail "read-only directory as nobody: $(head -2 "$tmp/ro.txt")"
else
	skip "no user nobody or no runuser: the read-only directory case as another user is not run"
fi

# ---- exit codes
"$FPUSOAKD" serve >/dev/null 2>&1; [ $? -eq 64 ] && pass "serve without --db: 64" || fail "serve without --db: not 64"
"$FPUSOAKD" serve --db "$tmp/a.db" --listen 127.0.0.1:99999 >/dev/null 2>&1; [ $? -eq 64 ] && pass "bad --listen: 64" || fail "bad --listen: not 64"
"$FPUSOAKD" serve --db "$tmp/a.db" --bogus >/dev/null 2>&1; [ $? -eq 64 ] && pass "unknown flag: 64" || fail "unknown flag: not 64"
"$FPUSOAKD" serve --db "$tmp/a.db" --listen 127.0.0.1:0 --listen 127.0.0.1:0 >/dev/null 2>&1; [ $? -eq 64 ] &&
	pass "--listen twice: 64" || fail "--listen twice: not 64"
"$FPUSOAKD" serve --db "$tmp/nope.db" >/dev/null 2>"$tmp/e1"; rc=$?
[ $rc -eq 1 ] && grep -q nope.db "$tmp/e1" && pass "a missing DB: 1, named" || fail "missing DB: exit $rc: $(cat "$tmp/e1")"
echo "not a database" >"$tmp/junk.db"
"$FPUSOAKD" serve --db "$tmp/junk.db" >/dev/null 2>"$tmp/e2"; [ $? -eq 1 ] && pass "a file that is not SQLite: 1" || fail "junk DB: not 1: $(cat "$tmp/e2")"
check "serve --help prints usage" sh -c "'$FPUSOAKD' serve --help | grep -q 'usage: fpusoakd serve'"

# ---- a DB from before schema 012 (at 11: no runs.xen_domain/xen_domid), as a guest running an older
# fpusoakd leaves it: serve cannot migrate it and must read it as it is, unchanged.
cp "$tmp/b.db" "$tmp/old.db" && chmod u+w "$tmp/old.db" &&
	sqlite3 "$tmp/old.db" "DROP VIEW v_runs; ALTER TABLE runs DROP COLUMN xen_domain; ALTER TABLE runs DROP COLUMN xen_domid;
		PRAGMA user_version = 11" 2>"$tmp/old.err" || fail "make a schema-11 DB: $(cat "$tmp/old.err")"
(cd "$tmp" && md5sum old.db >old.sum)
serve_start old --db "$tmp/old.db"
c1=$(code /runs/1) c2=$(code /api/v1/runs/1) c3=$(code /runs) c4=$(code /)
[ "$c1$c2$c3$c4" = 200200200200 ] && pass "schema-11 DB: /runs/1, /api/v1/runs/1, /runs and / answer 200" ||
	fail "schema-11 DB: /runs/1 $c1, /api/v1/runs/1 $c2, /runs $c3, / $c4"
serve_stop old
(cd "$tmp" && md5sum -c --quiet old.sum) && pass "schema-11 DB: unchanged after serve" || fail "schema-11 DB changed"

# ---- a DB from before schema 018 (at 17: no runs.cpu_model_kernel): read as "not recorded", unchanged.
cp "$tmp/b.db" "$tmp/old17.db" && chmod u+w "$tmp/old17.db" &&
	sqlite3 "$tmp/old17.db" "DROP VIEW v_runs; ALTER TABLE runs DROP COLUMN cpu_model_kernel; PRAGMA user_version = 17" \
		2>"$tmp/old.err" || fail "make a schema-17 DB: $(cat "$tmp/old.err")"
(cd "$tmp" && md5sum old17.db >old17.sum)
serve_start old17 --db "$tmp/old17.db"
c1=$(code /runs/1) c2=$(code /api/v1/runs/1) c3=$(code /runs)
[ "$c1$c2$c3" = 200200200 ] && pass "schema-17 DB: /runs/1, /api/v1/runs/1 and /runs answer 200" ||
	fail "schema-17 DB: /runs/1 $c1, /api/v1/runs/1 $c2, /runs $c3"
serve_stop old17
(cd "$tmp" && md5sum -c --quiet old17.sum) && pass "schema-17 DB: unchanged after serve" || fail "schema-17 DB changed"

# ---- a DB a live daemon writes
"$FPUSOAKD" --db "$tmp/live.db" "${opts[@]}" --label live >"$tmp/dl.log" 2>&1 &
dpid=$!; pids+=("$dpid")
for i in $(seq 100); do [ -s "$tmp/live.db" ] && sqlite3 -batch -noheader "$tmp/live.db" "SELECT count(*) FROM samples" 2>/dev/null | grep -qv '^0$' && break; sleep 0.05; done
serve_start live --db "$tmp/live.db"
"$FPUSOAKD" serve --db "$tmp/a.db" --listen "127.0.0.1:$port" >/dev/null 2>"$tmp/e3"; rc=$?
[ $rc -eq 69 ] && grep -q 'in use' "$tmp/e3" && pass "the address in use: 69, says so" || fail "port in use: exit $rc: $(cat "$tmp/e3")"
s1=$(curl -s "http://127.0.0.1:$port/api/v1/runs/1" | json 'd["state"], d["samples"]')
# Ticks are committed in groups of at most 5 s (README "Crash safety"): wait up to 8 s for the next.
for i in $(seq 16); do
	sleep 0.5
	s2=$(curl -s "http://127.0.0.1:$port/api/v1/runs/1" | json 'd["state"], d["samples"]')
	[ "${s2#* }" -gt "${s1#* }" ] 2>/dev/null && break
done
[ "${s1%% *}" = running ] && [ "${s2#* }" -gt "${s1#* }" ] && pass "live DB: running, samples grow ($s1 -> $s2)" ||
	fail "live DB: $s1 -> $s2"
check "live DB: / answers 200 while the daemon writes" test "$(code /)" = 200
check "live DB: /runs/1 answers 200 while the daemon writes" test "$(code /runs/1)" = 200
kill -KILL "$dpid"; wait "$dpid" 2>/dev/null
s3=$(curl -s "http://127.0.0.1:$port/api/v1/runs/1" | json 'd["state"]')
[ "$s3" = unfinished ] && pass "live DB: once the daemon is killed the run is no longer running ($s3)" || fail "after SIGKILL: $s3"
serve_stop live
"$FPUSOAKD" --db "$tmp/live.db" "${opts[@]}" --duration 1s >"$tmp/dl2.log" 2>&1; rc=$?
[ $rc -eq 0 ] && pass "a daemon starts on the DB serve just read (no lock left behind)" || fail "daemon after serve: exit $rc: $(tail -2 "$tmp/dl2.log")"
t_done
