#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Leaks and memory errors: a daemon run of 30 s or more (until every page was asked for twice) under valgrind memcheck with
# churn (4 workers, 64 MB / 100-pid cgroup), sampling every 250 ms, kernel-log
# capture, HTTP requests to every kind of page (served by its web process,
# which it supervises: one kill -9 of it, restarted), a SIGHUP config reload
# and a small capacity probe (SIGUSR1).  The report covers the main process
# (--trace-children=no; the forked spawner, workers and web process stay
# silent): 0 errors, 0 bytes definitely lost, and the run itself ended
# normally.  Then `fpusoakd-web serve` on that DB under memcheck, with the
# same requests: the HTTP handlers' own check.
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
port=$(r_port)
printf '[fpusoakd]\nlog-level = info\nsample-interval = 250ms\n' >"$R_TMP/vg.conf"
# The HTTP handlers run in fpusoakd-web (issue 20), the core's child, which the core watches through
# pidfd_open; valgrind 3.19 does not know that system call (ENOSYS), so there the core watches it
# through SIGCHLD (cmd/front.c).  GLIBC_TUNABLES set beforehand: the core's once-only re-exec to drop
# glibc's tcache (cmd/main.c) would exec valgrind's tool binary, which refuses to run directly.
R_WRAP=(env GLIBC_TUNABLES=glibc.malloc.tcache_count=0 valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=1
	--trace-children=no --child-silent-after-fork=yes --log-file="$R_TMP/vg.%p.txt")
t0=$(date +%s)
# --duration is only the bound: the loop below stops it with SIGTERM once DUR seconds passed and every
# page was asked for twice (9 answers in 30 s beside a loaded make test once: too little to count).
CAP=$(( DUR + 150 ))
r_start "$R_TMP/d.log" -c "$R_TMP/vg.conf" --db "$R_DB" --listen 127.0.0.1:$port --duration "${CAP}s" \
	--workers 4 --spawn-rate 20 --lifetime 1s --cgroup-memory-max 64M --cgroup-pids-max 100 ${nocg:+--allow-unconfined} \
	--probe-interval 0 --probe-limit 20 --switch-probe-interval 0 --retain-raw 1h
pid=$R_PID
R_WRAP=()
for i in $(seq 150); do curl -fs -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.2; done
# HTTP traffic over every handler while it runs; a kill -9 of the web process, a reload and a probe in the middle.
paths=(/ /runs /runs/1 /healthz /metrics /api/v1/status /api/v1/runs /api/v1/runs.csv /api/v1/runs/1
	"/api/v1/runs/1/buddyinfo?max_points=50" "/api/v1/runs/1/buddyinfo.csv" "/api/v1/runs/1/meminfo?name=MemFree"
	"/api/v1/runs/1/vmstat?name=pgfault&format=csv" /api/v1/runs/1/failures /nope "/runs/1?from=%zz" /runs/999)
n=0 ok=0 hup=0 usr1=0 killed=
web_pid() { for c in /proc/[0-9]*; do [ "$(cat "$c/comm" 2>/dev/null)" = fpusoakd-web ] && [ "$(cut -d' ' -f4 "$c/stat" 2>/dev/null)" = "$pid" ] && { echo "${c#/proc/}"; return; }; done; }
while r_alive "$pid" && { [ $(( $(date +%s) - t0 )) -lt "$DUR" ] || [ "$ok" -lt $(( 2 * ${#paths[@]} )) ]; } &&
	[ $(( $(date +%s) - t0 )) -lt "$CAP" ]; do
	curl -s -o /dev/null --max-time 10 "http://127.0.0.1:$port${paths[$((n % ${#paths[@]}))]}" && ok=$((ok + 1))
	n=$((n + 1))
	el=$(( $(date +%s) - t0 ))
	if [ -z "$killed" ] && [ $el -ge $(( DUR / 4 )) ]; then
		killed=$(web_pid)
		[ -n "$killed" ] && kill -KILL "$killed"
		killed=${killed:-none}
	fi
	[ $hup = 0 ] && [ $el -ge $(( DUR / 3 )) ] && { kill -HUP "$pid"; hup=1; }
	[ $usr1 = 0 ] && [ $el -ge $(( DUR / 2 )) ] && { kill -USR1 "$pid"; usr1=1; }
done
kill -TERM "$pid" 2>/dev/null
wait "$pid"; rc=$?
took=$(( $(date +%s) - t0 ))
rep=$R_TMP/vg.$pid.txt
echo "valgrind run: exit $rc after $took s, $n HTTP requests ($ok answered)"
sed -n '/HEAP SUMMARY/,$p' "$rep" | sed 's/^==[0-9]*== //'
errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$rep" | tr -d ,)
definite=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$rep" | tr -d ,)
grep -q 'no leaks are possible' "$rep" && definite=${definite:-0}
[ "$rc" = 0 ] && pass "daemon under valgrind exited 0 at SIGTERM after $took s (at least ${DUR} s)" || fail "exit $rc under valgrind: $(tail -3 "$R_TMP/d.log")"
[ "$errors" = 0 ] && pass "memcheck: 0 errors" || { fail "memcheck: '${errors:-no report}' errors"; grep -m20 -A12 '^==[0-9]*== [A-Z].*\(Invalid\|uninitialised\|Mismatched\)' "$rep"; }
[ "$definite" = 0 ] && pass "memcheck: 0 bytes definitely lost" || { fail "memcheck: '${definite:-no report}' bytes definitely lost"; grep -B2 -A15 'definitely lost in' "$rep" | head -60; }
# The run did what a normal run does, so the check covered the real paths.
read -r samples spawned probes missed periods <<<"$(q "SELECT (SELECT count(*) FROM samples), (SELECT coalesce(sum(spawned), 0) FROM v_churn),
	(SELECT count(*) FROM v_probes WHERE kind = 'capacity'), (SELECT coalesce(sum(missed), 0) FROM v_tick_late),
	(SELECT (max(ts_ms) - min(ts_ms) + 125) / 250 + 1 FROM samples)" | tr '|' ' ')"
echo "covered: $samples samples, $spawned worker spawns, $probes capacity probe(s), $n HTTP requests, SIGHUP reload: $(grep -c 'configuration reloaded' "$R_TMP/d.log")"
# Every 250 ms period from the first sample to the last was a tick or counted missed (+/- 1; the
# start before the first sample is valgrind's and the host's: 39 samples in a 30 s run beside a
# parallel test-quick and a QEMU), and at least a quarter of DUR's periods were ticks.
[ $(( ${samples:-0} + ${missed:-0} )) -ge $(( ${periods:-0} - 1 )) ] && [ "${samples:-0}" -ge "$DUR" ] && [ "${spawned:-0}" -gt 4 ] &&
	[ "$ok" -ge $(( 2 * ${#paths[@]} )) ] \
	&& pass "the valgrind run sampled ($samples, $missed periods missed, of $periods), churned ($spawned spawns) and its web process answered $ok of $n requests" \
	|| fail "the valgrind run did too little to count: $samples samples ($missed missed, $periods periods from the first to the last), $spawned spawns, $ok of $n requests answered"
grep -q 'watched through SIGCHLD' "$R_TMP/d.log" && echo "no pidfd_open under this valgrind: the core watched its web process through SIGCHLD"
check "the web process killed with -9 (pid $killed) was reaped and started again by the core under valgrind" \
	bash -c '[ "$1" != none ] && grep -q "was killed by signal 9" "$2" && grep -q "restarting the web process" "$2"' _ "$killed" "$R_TMP/d.log"
check "SIGHUP reload ran under valgrind" grep -q 'configuration reloaded' "$R_TMP/d.log"
check "run ended 'stopped'" test "$(q "SELECT end_reason FROM runs WHERE run_id = 1")" = stopped

# The HTTP handlers themselves under memcheck: `fpusoakd-web serve` on the run's DB (read-only).
wport=$(r_port)
core=$FPUSOAKD
FPUSOAKD=$(dirname "$core")/fpusoakd-web
R_WRAP=(valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=1
	--log-file="$R_TMP/vgweb.%p.txt")
r_start "$R_TMP/web.log" serve --db "$R_DB" --listen "127.0.0.1:$wport"
wpid=$R_PID
R_WRAP=()
FPUSOAKD=$core
for i in $(seq 300); do curl -fs -o /dev/null "http://127.0.0.1:$wport/healthz" && break; r_alive "$wpid" || break; sleep 0.2; done
n=0 ok=0
for round in 1 2; do
	for p in "${paths[@]}"; do
		curl -s -o /dev/null --max-time 20 "http://127.0.0.1:$wport$p" && ok=$((ok + 1))
		n=$((n + 1))
	done
done
kill -TERM "$wpid"
wait "$wpid"; rc=$?
rep=$R_TMP/vgweb.$wpid.txt
errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$rep" | tr -d ,)
definite=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$rep" | tr -d ,)
grep -q 'no leaks are possible' "$rep" 2>/dev/null && definite=${definite:-0}
echo "serve under valgrind: exit $rc, $ok of $n requests answered"
[ "$rc" = 0 ] && [ "$ok" -ge $(( n / 2 )) ] && pass "fpusoakd-web serve under valgrind answered $ok of $n requests and exited 0 on SIGTERM" ||
	fail "fpusoakd-web serve under valgrind: exit $rc, $ok of $n answered: $(tail -3 "$R_TMP/web.log")"
[ "$errors" = 0 ] && pass "memcheck (HTTP handlers): 0 errors" || { fail "memcheck (HTTP handlers): '${errors:-no report}' errors"; grep -m20 -A12 '^==[0-9]*== [A-Z].*\(Invalid\|uninitialised\|Mismatched\)' "$rep"; }
[ "$definite" = 0 ] && pass "memcheck (HTTP handlers): 0 bytes definitely lost" || { fail "memcheck (HTTP handlers): '${definite:-no report}' bytes definitely lost"; grep -B2 -A15 'definitely lost in' "$rep" | head -60; }
echo "took $(r_elapsed) s"
t_done
