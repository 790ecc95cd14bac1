#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# 41_confinement: every daemon gets a workers' group of its own, named after its database, and a
# limit the user asked for is applied or the daemon does not run.  Everything runs inside one
# 512 MB / 2500-PID test cgroup (the daemons create their groups inside it), with short durations.
#   A. Two daemons, two databases, started side by side in the same cgroup: both confined, each in
#      its own group (a fixed name made the second one run unconfined and capped).
#   B. The group of daemon C held by a process (another instance holding it): C with an explicit
#      --cgroup-memory-max refuses to start (exit 78, one line, no run row); with --allow-unconfined
#      it runs and says it is unconfined and why; with default limits it runs unconfined with a warning.
#   C. An empty leftover of C's group (a crash) is adopted and removed at the end.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../reliability/rlib.sh"
if [ "$(id -u)" != 0 ]; then skip "needs root for cgroups"; t_done; fi
command -v sqlite3 >/dev/null || { skip "needs sqlite3"; t_done; }
r_init conf
r_cgroup 512M 2500 || { skip "confinement needs a memory+pids cgroup for the test: $(r_cgroup_why)"; t_done; }
COMMON=(--listen none --kmsg none --sample-interval 200ms --probe-interval 0 --switch-probe-interval 0
	--spawn-rate 50 --lifetime 2s --worker-memory 256K)
confinement() { sed -n 's/.*churn: confinement //p' "$1" | head -1; }
group_of() { confinement "$1" | awk '$1 == "v1" || $1 == "v2" {print $2}'; }
wait_log() { # wait_log FILE PATTERN: up to 10 s
	local i
	for i in $(seq 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}

# ---- A. two daemons side by side ----------------------------------------------------------------
# --duration only bounds them (SIGTERM below ends them): 20 s ran out before the checks on a loaded machine.
r_start "$R_TMP/a.log" --db "$R_TMP/a.db" "${COMMON[@]}" --workers 4 --cgroup-memory-max 48M --cgroup-pids-max 100 --duration 120s
pa=$R_PID
wait_log "$R_TMP/a.log" "churn: confinement" || fail "A: daemon a says nothing about its confinement: $(tail -2 "$R_TMP/a.log")"
r_start "$R_TMP/b.log" --db "$R_TMP/b.db" "${COMMON[@]}" --workers 4 --cgroup-memory-max 64M --cgroup-pids-max 100 --duration 120s
pb=$R_PID
wait_log "$R_TMP/b.log" "churn: confinement" || fail "A: daemon b says nothing about its confinement: $(tail -2 "$R_TMP/b.log")"
ga=$(group_of "$R_TMP/a.log"); gb=$(group_of "$R_TMP/b.log")
check "A: daemon a is confined ($(confinement "$R_TMP/a.log"))" test -n "$ga"
check "A: daemon b, started beside it, is confined too ($(confinement "$R_TMP/b.log"))" test -n "$gb"
check "A: in different groups" test -n "$ga" -a -n "$gb" -a "$ga" != "$gb"
check "A: no 'running unconfined' warning from either" bash -c "! grep -q 'running unconfined' '$R_TMP/a.log' '$R_TMP/b.log'"
case "$ga" in "$R_CGROUP_MEM"/*) pass "A: a's group is inside the test cgroup";; *) fail "A: a's group $ga is not under $R_CGROUP_MEM";; esac
lim_a=$(cat "$ga/memory.limit_in_bytes" 2>/dev/null || cat "$ga/memory.max" 2>/dev/null)
lim_b=$(cat "$gb/memory.limit_in_bytes" 2>/dev/null || cat "$gb/memory.max" 2>/dev/null)
check "A: the kernel holds each daemon's own limit (a $lim_a, b $lim_b)" test "$lim_a:$lim_b" = "$((48 << 20)):$((64 << 20))"
check "A: the logged confinement is what the kernel shows (a: memory.max=$lim_a)" \
	grep -q "confinement v[12] $ga memory.max=$lim_a " "$R_TMP/a.log"
for i in $(seq 100); do [ -s "$ga/cgroup.procs" ] && [ -s "$gb/cgroup.procs" ] && break; sleep 0.1; done
wa=$(grep -c . "$ga/cgroup.procs" 2>/dev/null); wb=$(grep -c . "$gb/cgroup.procs" 2>/dev/null)
check "A: both groups hold processes ($wa, $wb)" test "${wa:-0}" -ge 1 -a "${wb:-0}" -ge 1
kill -TERM "$pa" "$pb"; wait "$pa"; ra=$?; wait "$pb"; rb=$?
check "A: both stop cleanly (exit $ra, $rb)" test "$ra:$rb" = 0:0
check "A: both groups removed" test ! -d "$ga" -a ! -d "$gb"

# ---- B. daemon c's group is held by another process ---------------------------------------------
r_start "$R_TMP/c0.log" --db "$R_TMP/c.db" "${COMMON[@]}" --workers 2 --duration 1s
wait "$R_PID"
gc=$(group_of "$R_TMP/c0.log")
if [ -z "$gc" ]; then
	fail "B: daemon c did not say where its group is: $(tail -3 "$R_TMP/c0.log")"
	t_done
fi
check "B: c's group was removed at its end" test ! -d "$gc"
gcp=${gc/\/memory\//\/pids\/}
mkdir -p "$gc"
( echo "$BASHPID" >"$gc/cgroup.procs" && exec sleep 60 ) & squat=$!
r_track "$squat"
for i in $(seq 50); do grep -qx "$squat" "$gc/cgroup.procs" && break; sleep 0.1; done
runs0=$(sqlite3 -batch -noheader "$R_TMP/c.db" "SELECT count(*) FROM runs")
out=$(r_run "$FPUSOAKD" --db "$R_TMP/c.db" "${COMMON[@]}" --workers 2 --cgroup-memory-max 48M --duration 1s 2>&1); rc=$?
check "B: explicit --cgroup-memory-max, group held: exit 78 (got $rc)" test "$rc" = 78
check "B: ... in one line ($(echo "$out" | grep -v oom_score | head -1 | cut -c1-150))" \
	test "$(echo "$out" | grep -vc 'oom_score_adj')" = 1
check "B: ... naming the group and --allow-unconfined" \
	bash -c "echo '$out' | grep -q 'cannot confine workers: cgroup $gc exists and has processes' && echo '$out' | grep -q -- --allow-unconfined"
check "B: ... and no run row written" test "$(sqlite3 -batch -noheader "$R_TMP/c.db" "SELECT count(*) FROM runs")" = "$runs0"
printf '[fpusoakd]\ncgroup-pids-max = 100\n' >"$R_TMP/c.conf"
out=$(r_run "$FPUSOAKD" -c "$R_TMP/c.conf" --db "$R_TMP/c.db" "${COMMON[@]}" --workers 2 --duration 1s 2>&1); rc=$?
check "B: a pids limit from the config file counts as explicit too (exit $rc)" test "$rc" = 78
out=$(r_run "$FPUSOAKD" --db "$R_TMP/c.db" "${COMMON[@]}" --workers 2 --cgroup-memory-max 48M --allow-unconfined \
	--duration 1s 2>&1); rc=$?
check "B: with --allow-unconfined it runs (exit $rc)" test "$rc" = 0
check "B: ... and says it is unconfined and why ($(echo "$out" | sed -n 's/.*churn: confinement //p' | cut -c1-120))" \
	bash -c "echo '$out' | grep -q 'churn: confinement none: cgroup $gc exists and has processes'"
out=$(r_run "$FPUSOAKD" --db "$R_TMP/c.db" "${COMMON[@]}" --workers 2 --duration 1s 2>&1); rc=$?
check "B: default limits (not asked for): runs unconfined with a warning (exit $rc)" \
	bash -c "[ $rc = 0 ] && echo '$out' | grep -q 'running unconfined'"
kill -9 "$squat"; wait "$squat" 2>/dev/null
for i in $(seq 50); do [ -s "$gc/cgroup.procs" ] || break; sleep 0.1; done

# ---- C. an empty leftover of c's group (a crash) is adopted and removed -------------------------
[ -d "$gc" ] || mkdir "$gc"
[ -d "${gcp%/*}" ] && { [ -d "$gcp" ] || mkdir "$gcp"; }
out=$(r_run "$FPUSOAKD" --db "$R_TMP/c.db" "${COMMON[@]}" --workers 2 --cgroup-memory-max 48M --duration 1s 2>&1); rc=$?
check "C: an empty leftover group is adopted (exit $rc, $(echo "$out" | sed -n 's/.*churn: confinement //p' | cut -c1-100))" \
	bash -c "[ $rc = 0 ] && echo '$out' | grep -q 'churn: confinement v[12] $gc '"
check "C: ... and removed at the end" test ! -d "$gc"
echo "took $(r_elapsed) s"
t_done
