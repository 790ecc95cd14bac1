#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Golden output: every surface of the report on a fixed database, byte for byte, against
# tests/golden/expected/ (a refactor of the read side must not change what users see).
#
#   pages and API   build/tests/golden_dump (tests/golden/golden_dump.c) builds the testdb.h
#                   database and GETs every route (HTML, JSON, CSV, errors) from web_open();
#                   /metrics there is metrics_build() of fixed inputs (every family).
#   summary, report fpusoakd summary / report --out on that database.
#   daemon /metrics the real daemon sampling a fixture /proc tree (the Xen PV guest's files,
#                   task_struct in order-2 slabs): the exposition its loop publishes after a sample.
# Normalised (the only parts that depend on "now" or on the build):
#   - summary/report: the build version in the saved report's footer ("fpusoakd VERSION;"),
#     the temporary directory in error messages ("DIR");
#   - daemon /metrics: the values of fpusoakd_run_start_time_seconds,
#     fpusoakd_last_sample_timestamp_seconds, fpusoakd_sample_duration_seconds and
#     fpusoakd_samples_total (replaced by N), and the version label of fpusoakd_build_info.
#   The HTTP Date header is dropped by golden_dump.  Nothing else is touched.
# GOLDEN_UPDATE=1 writes the current output into tests/golden/expected/ instead of comparing
# (for an intended change: say why in the commit).
. "$(dirname "$0")/../lib.sh"
FPUSOAKD=${FPUSOAKD:-build/fpusoakd}
BUILD=${BUILD:-$PWD/build}
expected=tests/golden/expected
tmp=$(mktemp -d /tmp/fpusoak-golden-XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
out=$tmp/out

if [ ! -x "$BUILD/tests/golden_dump" ]; then
	fail "$BUILD/tests/golden_dump is not built (make $BUILD/tests/golden_dump)"
	t_done
fi
"$BUILD/tests/golden_dump" "$tmp" 2>"$tmp/dump.err" || { fail "golden_dump: $(cat "$tmp/dump.err")"; t_done; }
db=$tmp/test.db

# ---- the command line, on the same database
ver_norm() { sed -e 's#<small>fpusoakd [^;<]*; times are UTC\.#<small>fpusoakd VERSION; times are UTC.#' -e "s#$tmp#DIR#g"; }
cli() { # cli NAME ARGS...: stdout (and for failures stderr) into out/NAME, with the exit status
	local name=$1; shift
	"$FPUSOAKD" "$@" >"$tmp/cli.out" 2>"$tmp/cli.err"
	local rc=$?
	{ echo "exit $rc"; cat "$tmp/cli.out"; [ $rc -ne 0 ] && cat "$tmp/cli.err"; } | ver_norm >"$out/$name"
}
cli summary-run1.txt summary --db "$db" --run 1
cli summary-run2.txt summary --db "$db" --run 2
cli summary-run3.txt summary --db "$db" --run 3
cli summary-compare-1-3.txt summary --db "$db" --compare 1 3
cli summary-compare-3-1.txt summary --db "$db" --compare 3 1
cli summary-compare-1-2.txt summary --db "$db" --compare 1 2
cli summary-run99.txt summary --db "$db" --run 99
for r in 1 3; do
	"$FPUSOAKD" report --db "$db" --run $r --out "$tmp/r.html" 2>/dev/null; echo "exit $?" >"$out/report-run$r.html"
	ver_norm <"$tmp/r.html" >>"$out/report-run$r.html"
done
"$FPUSOAKD" report --db "$db" --compare 1 3 --out "$tmp/c.html" 2>/dev/null; echo "exit $?" >"$out/report-compare-1-3.html"
ver_norm <"$tmp/c.html" >>"$out/report-compare-1-3.html"
cli report-stdout-run2.html report --db "$db" --run 2 --out -
cli report-run99.txt report --db "$db" --compare 1 99 --out "$tmp/none.html"

# ---- the daemon's own /metrics, from a fixture /proc tree
proc=$tmp/proc
mkdir -p "$proc/sys/kernel/random"
for f in buddyinfo vmstat meminfo zoneinfo pagetypeinfo; do cp "tests/fixtures/$f.xenpv" "$proc/$f"; done
# task_struct in 4-page slabs: the order of interest then comes from slabinfo (2), not the default (3).
sed -E 's/^(task_struct +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +)8 /\14 /' tests/fixtures/slabinfo.xenpv >"$proc/slabinfo"
echo 6.1.0-57-amd64 >"$proc/sys/kernel/osrelease"
echo 00000000-0000-0000-0000-000000000001 >"$proc/sys/kernel/random/boot_id"
echo "root=/dev/xvda1 ro" >"$proc/cmdline"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$FPUSOAKD" --db "$tmp/daemon.db" --proc-root "$proc" --listen 127.0.0.1:$port --workers 0 --probe-interval 0 \
	--switch-probe-interval 0 --kmsg none --sample-interval 1s --duration 60s >"$tmp/daemon.log" 2>&1 &
pid=$!
got=
for i in $(seq 300); do
	curl -fs "http://127.0.0.1:$port/metrics" >"$tmp/m.txt" 2>/dev/null && got=1 && break
	sleep 0.1
done
kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
if [ -n "$got" ]; then
	# The request verdicts /metrics exports are the ones the store has for that tick (v_atomic_request;
	# the fixture is the same at every tick, so the last tick stands for the scraped one).
	want=$(python3 - "$tmp/daemon.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT page_order, atomic_ok, nowait_ok, kernel_ok FROM v_atomic_request"
                  " WHERE ts_ms = (SELECT max(ts_ms) FROM v_atomic_request) ORDER BY page_order").fetchall()
for k, a, n, kern in rows:
    for g, v in (("atomic", a), ("nowait", n), ("kernel", kern)):
        print('fpusoakd_atomic_request_ok{order="%d",gfp="%s"} %d' % (k, g, v))
PY
)
	have=$(grep '^fpusoakd_atomic_request_ok{' "$tmp/m.txt")
	if [ -n "$want" ] && [ "$want" = "$have" ]; then
		pass "daemon /metrics: fpusoakd_atomic_request_ok equals v_atomic_request of the tick ($(echo "$have" | wc -l) series)"
	else
		fail "daemon /metrics: fpusoakd_atomic_request_ok differs from v_atomic_request: $(diff <(echo "$want") <(echo "$have") | head -5 | tr '\n' ' ')"
	fi
	sed -E -e 's/^(fpusoakd_(run_start_time_seconds|last_sample_timestamp_seconds|sample_duration_seconds|samples_total)) .*/\1 N/' \
		-e 's/^fpusoakd_build_info\{version="[^"]*"\}/fpusoakd_build_info{version="VERSION"}/' \
		-e 's/^(fpusoakd_run_info\{.*)hypervisor="[^"]*",guest_type="[^"]*"/\1hypervisor="HV",guest_type="GT"/' "$tmp/m.txt" >"$out/daemon-metrics.txt"
else
	fail "the daemon on the fixture tree never served /metrics: $(tail -3 "$tmp/daemon.log")"
fi

# ---- compare (or update)
if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
	rm -rf "$expected"; mkdir -p "$expected"; cp "$out"/* "$expected"/
	pass "GOLDEN_UPDATE=1: wrote $(ls "$expected" | wc -l) files into $expected"
	t_done
fi
for f in "$expected"/*; do
	name=$(basename "$f")
	if [ ! -e "$out/$name" ]; then
		fail "$name: not produced"
	elif cmp -s "$f" "$out/$name"; then
		pass "$name identical"
	else
		fail "$name differs from $expected/$name:"
		diff -u "$f" "$out/$name" | head -40
	fi
done
for f in "$out"/*; do
	[ -e "$expected/$(basename "$f")" ] || fail "$(basename "$f"): produced but not in $expected (GOLDEN_UPDATE=1 to add it)"
done
t_done
