#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The tracefs source on a machine without tracefs: --trace auto records
# tracefs=off with the reason and nothing else changes; --trace none and the
# config key say so; bad values are refused; a --sys-root tree that is not a
# tracefs is left exactly as it was.  The instance itself (filters, triggers,
# failures, extfrag rows, removal, a crashed run's instance) needs a real
# tracefs: those checks run in the Xen guest (tests/xen), and here as
# SKIP lines.  tracefs must stay unmounted on this machine; this script
# checks that it still is at the end and never mounts anything.
. "$(dirname "$0")/../lib.sh"
FPUSOAKD=${FPUSOAKD:-build/fpusoakd}
tmp=$(mktemp -d /tmp/fpusoak-trace-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
q() { sqlite3 -batch -noheader "$1" "$2"; }
run() { # run DB LOG ARGS...: a 2 s sampling-only run
	local db=$1 log=$2
	shift 2
	"$FPUSOAKD" --db "$db" --listen none --workers 0 --probe-interval 0 --switch-probe-interval 0 \
		--sample-interval 200ms --duration 2s "$@" >"$log" 2>&1
}
tracefs_mounts() { awk '$9 == "tracefs"' /proc/self/mountinfo | wc -l; }

mounted=$(tracefs_mounts)
if [ "$mounted" = 0 ]; then
	run "$tmp/a.db" "$tmp/a.log"
	rc=$?
	check "--trace auto on a machine without tracefs: the run ends normally (exit $rc)" test "$rc" = 0
	note=$(q "$tmp/a.db" "SELECT text FROM run_notes WHERE kind = 'tracefs'")
	case "$note" in
	"tracefs=off (not mounted:"*) pass "the run records: $note" ;;
	*) fail "run note: '$note'" ;;
	esac
	check "v_run_trace shows the same note" test "$(q "$tmp/a.db" "SELECT tracefs FROM v_run_trace WHERE run_id = 1")" = "$note"
	check "one log line says the same" grep -q "tracefs=off (not mounted: neither /sys/kernel/tracing nor /sys/kernel/debug/tracing is tracefs)" "$tmp/a.log"
	check "nothing else changes: samples stored" test "$(q "$tmp/a.db" "SELECT count(*) > 5 FROM v_samples")" = 1
	check "no trace counters without a trace" test "$(q "$tmp/a.db" "SELECT count(*) FROM v_counters WHERE name LIKE 'trace%'")" = 0
else
	skip "tracefs is mounted on this machine ($mounted mounts): the not-mounted path is not tested here"
fi

run "$tmp/b.db" "$tmp/b.log" --trace none
check "--trace none: the run records tracefs=off (--trace none)" \
	test "$(q "$tmp/b.db" "SELECT text FROM run_notes WHERE kind = 'tracefs'")" = "tracefs=off (--trace none)"
printf '[fpusoakd]\ntrace = none\n' >"$tmp/c.conf"
run "$tmp/c.db" "$tmp/c.log" -c "$tmp/c.conf"
check "config key trace = none does the same" \
	test "$(q "$tmp/c.db" "SELECT text FROM run_notes WHERE kind = 'tracefs'")" = "tracefs=off (--trace none)"
check "the effective config lists trace=none" grep -qx "trace=none" <<<"$(q "$tmp/c.db" "SELECT config FROM v_runs")"
printf '[fpusoakd]\ntrace = maybe\n' >"$tmp/d.conf"
"$FPUSOAKD" -c "$tmp/d.conf" --db "$tmp/d.db" >"$tmp/d.log" 2>&1
rc=$?
check "config trace = maybe refused with file:line (exit $rc: $(head -1 "$tmp/d.log"))" \
	grep -q "d.conf:2: trace: 'maybe' is not auto|none" "$tmp/d.log"
check "... exit 78" test "$rc" = 78
"$FPUSOAKD" --trace yes --db "$tmp/e.db" >"$tmp/e.log" 2>&1
check "--trace yes refused, exit 64" test "$?" = 64
check "--help documents --trace" grep -q -- "--trace WORD .*auto.*none" <<<"$("$FPUSOAKD" --help)"

# A tree given as --sys-root is taken as tracefs as it is (tests feed trees), but a plain
# folder is none: the instance folder made there is removed again.  Before making it, the
# daemon removes the (empty) folder of a fpusoakd that is gone; another tracer's folder and
# one named after a live process stay as they were.
tree=$tmp/sys
inst=$tree/kernel/tracing/instances
( exit 0 ) & dead=$!
wait "$dead"
live_start=$(awk '{ sub(/^.*\) /, ""); print $20 }' /proc/$$/stat)
mkdir -p "$inst/other-tracer/events" "$inst/fpusoakd-$dead-1" "$inst/fpusoakd-$$-$live_start"
echo keep >"$inst/other-tracer/events/enable"
run "$tmp/f.db" "$tmp/f.log" --sys-root "$tree"
note=$(q "$tmp/f.db" "SELECT text FROM run_notes WHERE kind = 'tracefs'")
case "$note" in
"tracefs=off (instances/fpusoakd-"*"/buffer_size_kb: No such file or directory (not a tracefs instance?))") pass "plain folder: $note" ;;
*) fail "plain folder as tracefs: '$note'" ;;
esac
check "the folder of a fpusoakd that is gone (pid $dead) was removed" test ! -e "$inst/fpusoakd-$dead-1"
check "the log says so" grep -q "trace: removed instance fpusoakd-$dead-1, left by a fpusoakd that is gone" "$tmp/f.log"
check "a folder named after a live process (this shell) is left alone" test -d "$inst/fpusoakd-$$-$live_start"
check "another tracer's folder and its file are left alone" test "$(cat "$inst/other-tracer/events/enable")" = keep
check "nothing else is left in instances/ (the daemon's own folder went again)" \
	test "$(ls "$inst" | sort | tr '\n' ' ')" = "$(printf '%s\n' "fpusoakd-$$-$live_start" other-tracer | sort | tr '\n' ' ')"

skip "needs a real tracefs (not mounted here, and it must stay so): the instance, its filter and triggers, failed allocations, extfrag rows, removal at exit and the crashed run's instance are checked in the Xen guest (make test-xen)"
check "tracefs still not mounted on this machine" test "$(tracefs_mounts)" = "$mounted"
t_done
