#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Leaks and memory errors: a 30 s daemon run under valgrind memcheck with
# churn (4 workers, 64 MB / 100-pid cgroup), sampling every 250 ms, kernel-log
# capture (the core only, --listen none: see below), a SIGHUP config reload and a
# small capacity probe (SIGUSR1).  The report covers the main process
# (--trace-children=no; the forked spawner and workers stay silent):
# 0 errors, 0 bytes definitely lost, and the run itself ended normally.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../reliability/rlib.sh"
command -v valgrind >/dev/null || { skip "valgrind not installed (apt-get install valgrind)"; t_done; }
need sqlite3:sqlite3 curl:curl python3:python3
if [ "$(id -u)" != 0 ]; then skip "needs root for cgroups"; t_done; fi
r_init vg
r_confine 2G 400
# Where the daemon cannot make its workers' cgroup either, its explicit limits would stop it at
# start: there it runs unconfined, allowed to.
nocg=$(no_cgroup_reason)
DUR=${DUR:-$([ "${SOAK:-0}" = 1 ] && echo 300 || echo 30)}
R_DB=$R_TMP/vg.db
printf '[fpusoakd]\nlog-level = info\nsample-interval = 250ms\n' >"$R_TMP/vg.conf"
# The core only (issue 20): the HTTP handlers run in fpusoakd-web, which the core starts through
# pidfd_open, a system call valgrind 3.19 does not know (ENOSYS: the core cannot supervise it there),
# so it runs with --listen none.  GLIBC_TUNABLES set beforehand: the core's once-only re-exec to drop
# glibc's tcache (cmd/main.c) would exec valgrind's tool binary, which refuses to run directly.
R_WRAP=(env GLIBC_TUNABLES=glibc.malloc.tcache_count=0 valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=1
	--trace-children=no --child-silent-after-fork=yes --log-file="$R_TMP/vg.%p.txt")
t0=$(date +%s)
r_start "$R_TMP/d.log" -c "$R_TMP/vg.conf" --db "$R_DB" --listen none --duration "${DUR}s" \
	--workers 4 --spawn-rate 20 --lifetime 1s --cgroup-memory-max 64M --cgroup-pids-max 100 ${nocg:+--allow-unconfined} \
	--probe-interval 0 --probe-limit 20 --switch-probe-interval 0 --retain-raw 1h
pid=$R_PID
R_WRAP=()
skip "HTTP handlers under valgrind: the web process is not started under it (see above)"
# A reload and a probe in the middle.
hup=0 usr1=0
while r_alive "$pid" && [ $(( $(date +%s) - t0 )) -lt $(( DUR + 60 )) ]; do
	el=$(( $(date +%s) - t0 ))
	[ $hup = 0 ] && [ $el -ge $(( DUR / 3 )) ] && { kill -HUP "$pid"; hup=1; }
	[ $usr1 = 0 ] && [ $el -ge $(( DUR / 2 )) ] && { kill -USR1 "$pid"; usr1=1; }
	sleep 0.2
done
wait "$pid"; rc=$?
took=$(( $(date +%s) - t0 ))
rep=$R_TMP/vg.$pid.txt
echo "valgrind run: exit $rc after $took s"
sed -n '/HEAP SUMMARY/,$p' "$rep" | sed 's/^==[0-9]*== //'
errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$rep" | tr -d ,)
definite=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$rep" | tr -d ,)
grep -q 'no leaks are possible' "$rep" && definite=${definite:-0}
[ "$rc" = 0 ] && pass "daemon under valgrind exited 0 after --duration ${DUR}s (took $took s)" || fail "exit $rc under valgrind: $(tail -3 "$R_TMP/d.log")"
[ "$errors" = 0 ] && pass "memcheck: 0 errors" || { fail "memcheck: '${errors:-no report}' errors"; grep -m20 -A12 '^==[0-9]*== [A-Z].*\(Invalid\|uninitialised\|Mismatched\)' "$rep"; }
[ "$definite" = 0 ] && pass "memcheck: 0 bytes definitely lost" || { fail "memcheck: '${definite:-no report}' bytes definitely lost"; grep -B2 -A15 'definitely lost in' "$rep" | head -60; }
# The run did what a normal run does, so the check covered the real paths.
read -r samples spawned probes <<<"$(q "SELECT (SELECT count(*) FROM samples), (SELECT coalesce(sum(spawned), 0) FROM v_churn),
	(SELECT count(*) FROM v_probes WHERE kind = 'capacity')" | tr '|' ' ')"
echo "covered: $samples samples, $spawned worker spawns, $probes capacity probe(s), SIGHUP reload: $(grep -c 'configuration reloaded' "$R_TMP/d.log")"
[ "${samples:-0}" -ge $(( DUR * 4 / 2 )) ] && [ "${spawned:-0}" -gt 4 ] \
	&& pass "the valgrind run sampled ($samples) and churned ($spawned spawns)" \
	|| fail "the valgrind run did too little to count: $samples samples, $spawned spawns"
check "SIGHUP reload ran under valgrind" grep -q 'configuration reloaded' "$R_TMP/d.log"
check "run ended 'stopped'" test "$(q "SELECT end_reason FROM runs WHERE run_id = 1")" = stopped
echo "took $(r_elapsed) s"
t_done
