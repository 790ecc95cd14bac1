# SPDX-License-Identifier: GPL-2.0-only
# Scenario "trace-cost" (guest side) of bench/trace_cost.sh: busybox ash,
# root, in the Xen test guest; guest-lib.sh and the scenario's env sourced.
# Four measurements, the last three interleaved A B B A in every round so
# drift in the emulated machine falls on both sides alike:
#  1. allocloop (fork + 16 touched pages per iteration) with no instance and
#     with an instance set up as fpusoakd sets its own (mm_page_alloc with the
#     failures-only filter, the three extfrag hist triggers): what the
#     tracepoint and its filter cost each page allocation;
#  2. fpusoakd itself, --trace auto against --trace none, churning at full
#     speed: lifecycles per second (v_churn), the fast sample's cost
#     (v_samples.sample_us), the daemon's own CPU per second (/proc/PID/stat,
#     its children excluded) and what reading the trace took (its log).
#  3. guest-wide capacity probes, --trace auto against --trace none: what the
#     instance's memory costs the experiment itself.
# Every result is one "===FPUSOAK-BENCH-... key=value ...===" line, also in
# the exported results.txt.
T=/sys/kernel/tracing
resf=/tmp/results.txt
export_file results.txt "$resf"
# Each result on the console and into the exported file.
res() { mark "$@"; echo "$*" >>"$resf"; }
mountpoint -q $T || mount -t tracefs tracefs $T || { res "BENCH-ERROR no tracefs"; exit 1; }
echo -1000 >/proc/self/oom_score_adj
I=$T/instances/bench-$$
trig() { echo "${1}hist:keys=alloc_order,fallback_order,fallback_migratetype:vals=hitcount if alloc_migratetype == $2"; }
inst_on() {
	mkdir $I && echo 64 >$I/buffer_size_kb && echo mono >$I/trace_clock &&
		echo 'pfn == 0xffffffffffffffff' >$I/events/kmem/mm_page_alloc/filter &&
		echo 1 >$I/events/kmem/mm_page_alloc/enable &&
		for m in 0 1 2; do trig "" $m >>$I/events/kmem/mm_page_alloc_extfrag/trigger || return 1; done
}
inst_off() {
	echo 0 >$I/events/kmem/mm_page_alloc/enable
	for m in 2 1 0; do trig "!" $m >>$I/events/kmem/mm_page_alloc_extfrag/trigger; done
	rmdir $I
}
pgalloc() { awk '/^pgalloc_/ { s += $2 } END { print s }' /proc/vmstat; }
cpu() { awk '{ print $14 + $15 }' /proc/$1/stat 2>/dev/null; }

res "BENCH-START rounds=$ROUNDS alloc_seconds=$ALLOC_SECONDS daemon_seconds=$DAEMON_SECONDS"
r=1
while [ $r -le "$ROUNDS" ]; do
	inst_on || res "BENCH-ERROR instance setup"
	/payload/bin/allocloop 2 16 >/dev/null
	for f in /proc/buddyinfo /proc/vmstat /proc/meminfo /proc/zoneinfo $I/events/kmem/mm_page_alloc_extfrag/hist; do
		res "BENCH-READ file=$f round=$r $(/payload/bin/readloop $f 200)"
	done
	cat $I/trace_pipe >/dev/null &
	sleep 1
	kill $! 2>/dev/null
	wait $! 2>/dev/null
	res "BENCH-READ file=trace_pipe round=$r $(/payload/bin/readloop $I/trace_pipe 200 pipe)"
	res "BENCH-HIST round=$r entries=$(grep -c '^{' $I/events/kmem/mm_page_alloc_extfrag/hist)"
	inst_off
	r=$((r + 1))
done
r=1
while [ $r -le "$ROUNDS" ]; do
	for mode in off on on off; do
		[ $mode = on ] && { inst_on || res "BENCH-ERROR instance setup"; }
		p0=$(pgalloc)
		out=$(/payload/bin/allocloop "$ALLOC_SECONDS" 16)
		p1=$(pgalloc)
		[ $mode = on ] && inst_off
		res "BENCH-ALLOC mode=$mode round=$r $out pgalloc=$((p1 - p0))"
	done
	r=$((r + 1))
done

db=/tmp/bench.db
r=1
while [ $r -le "$ROUNDS" ]; do
	for mode in auto none none auto; do
		rm -f $db $db-wal $db-shm
		/usr/sbin/fpusoakd --db $db --listen none --duration "${DAEMON_SECONDS}s" --workers 8 --spawn-rate max \
			--lifetime 0 --probe-interval 0 --switch-probe-interval 0 --trace $mode >/tmp/d.log 2>&1 &
		pid=$!
		sleep 5
		c0=$(cpu $pid)
		sleep $((DAEMON_SECONDS - 10))
		c1=$(cpu $pid)
		wait $pid
		rc=$?
		# lifecycles/s over the churn rows after the first 5 s (the spawner's start)
		rate=$(sqlite3 $db "SELECT round(sum(spawned) * 1000.0 / (max(ts_ms) - min(ts_ms)), 1) FROM v_churn
			WHERE ts_ms > (SELECT min(ts_ms) + 5000 FROM v_churn)")
		med=$(sqlite3 $db "SELECT sample_us FROM v_samples ORDER BY sample_us LIMIT 1 OFFSET (SELECT count(*) / 2 FROM v_samples)")
		ticks=$(sqlite3 $db "SELECT count(*) FROM v_samples")
		full=$(sqlite3 $db "SELECT text FROM run_notes WHERE kind = 'tracefs'")
		note=$(echo "$full" | cut -c1-13)
		setup=$(echo "$full" | sed -n 's/.*set up in \([0-9]*\) ms.*/\1/p')
		tus=$(sed -n 's/.*pipe read [0-9]* times ([0-9]* found nothing) in \([0-9]*\) us.*histograms [0-9]* times in \([0-9]*\) us.*/\1+\2/p' /tmp/d.log)
		tus=$(( ${tus:-0} ))
		fails=$(sed -n 's/.*trace: \([0-9]*\) failed allocations, \([0-9]*\) fallbacks.*/\1 \2/p' /tmp/d.log)
		res "BENCH-DAEMON mode=$mode round=$r rc=$rc note=${note:-none} spawned_per_s=$rate sample_us_median=$med ticks=$ticks cpu_ticks=$((c1 - c0)) cpu_seconds=$((DAEMON_SECONDS - 10)) trace_read_us=$tus setup_ms=${setup:-0} failures_fallbacks=${fails:-0 0}" | tr -s ' '
	done
	r=$((r + 1))
done
r=1
while [ $r -le "$CAP_ROUNDS" ]; do
	for mode in auto none none auto; do
		rm -f $db $db-wal $db-shm
		/usr/sbin/fpusoakd --db $db --listen none --duration 300s --workers 2 --spawn-rate 10 --lifetime 1s \
			--probe-interval 0 --probe-scope guest --probe-limit 4000 --switch-probe-interval 0 --trace $mode >/tmp/d.log 2>&1 &
		pid=$!
		sleep 15
		kill -USR1 $pid
		# The fill takes 16-120 s under TCG: stop once the probe's row is there (at most 240 s).
		i=0
		while [ $i -lt 48 ] && [ -z "$(sqlite3 $db "SELECT 1 FROM v_probes WHERE kind = 'capacity'" 2>/dev/null)" ]; do
			sleep 5
			i=$((i + 1))
		done
		kill -TERM $pid
		wait $pid
		cap=$(sqlite3 $db "SELECT CAST(result AS INTEGER) || ' stop=' || stop_reason FROM v_probes WHERE kind = 'capacity' LIMIT 1")
		res "BENCH-CAP mode=$mode round=$r workers=${cap:-none}"
	done
	r=$((r + 1))
done
res "BENCH-END"
