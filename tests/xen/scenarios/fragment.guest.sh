# SPDX-License-Identifier: GPL-2.0-only
# Scenario "fragment" (guest side): run 1 without the fragmenting load, run 2 with
# --fragment heavy, FRAG_SECONDS each, with --trace FRAG_TRACE (none by default); when
# FRAG_FALLBACK_SECONDS > 0, runs 3 and 4 the same with the daemon's tracefs instance, that long,
# to count fragmenting fallbacks (fragment.conf.sh says why apart); all in one DB; then the DB
# and the /proc files.
# Both runs start from the same kind of guest: page cache dropped (run 1 reads the programs and
# libraries into it) and memory compacted, so what run 1 left does not count against run 2.
db=/tmp/fragment.db
reset_memory() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	echo 1 >/proc/sys/vm/compact_memory 2>/dev/null || say "no /proc/sys/vm/compact_memory"
	mark "FRAGMENT-RESET scenario=$SC_NAME memfree_kb=$(awk '/^MemFree:/ {print $2}' /proc/meminfo) uptime=$(uptime_s)"
}
# The test guest has no writable disk: the DB is in /tmp, a tmpfs, and so is SQLite's write-ahead
# log, which grows to 1,000 pages (~4 MB) before the daemon's connection checkpoints it.  In a
# guest of 80 MB that is memory taken from the very zone being measured: it was most of run 1's
# decline (DMA32's order-3 headroom -2,300 to -2,600 blocks/h without any load, Shmem +3.9 MB in
# 190 s).  On a disk the log is page cache the kernel can reclaim; here a second connection
# checkpoints it every second, so SQLite rewrites it from its start and it stays at what a few
# ticks need (reached in the first seconds).  Both runs alike.
wal_keeper_start() {
	sqlite3 "$db" 'PRAGMA journal_mode=WAL;' >/dev/null
	rm -f /tmp/wal-keeper.fifo
	mkfifo /tmp/wal-keeper.fifo
	sqlite3 "$db" </tmp/wal-keeper.fifo >/dev/null 2>&1 &
	WK_SQL=$!
	(while echo 'PRAGMA wal_checkpoint(PASSIVE);'; do sleep 1; done) >/tmp/wal-keeper.fifo &
	WK_LOOP=$!
}
wal_keeper_stop() {
	kill "$WK_LOOP" "$WK_SQL" 2>/dev/null
	wait "$WK_LOOP" "$WK_SQL" 2>/dev/null
	rm -f /tmp/wal-keeper.fifo
}
# XEN_FRAG_PROBES=1 (a measurement, not the control): a guest-scope capacity probe early and one
# late in each run (SIGUSR1), to see what the aging costs in workers the guest can hold.
probes_at() { # probes_at FIRST SECOND: SIGUSR1 to the daemon at those seconds of its run
	[ "${FRAG_PROBES:-0}" = 1 ] || return 0
	(sleep "$1"; kill -USR1 "$DAEMON_PID" 2>/dev/null; sleep "$(($2 - $1))"; kill -USR1 "$DAEMON_PID" 2>/dev/null) &
}
# one_run LABEL SECONDS FRAGMENT TRACE [probes]: one soak, from a reset guest, into the DB; with
# "probes", the capacity probes of XEN_FRAG_PROBES=1 (the first pair's measurement only).
one_run() {
	reset_memory
	LABEL=$1
	daemon_start "$db" --duration "${2}s" --fragment "$3" --trace "$4"
	[ "${5:-}" = probes ] && probes_at 20 $(($2 - 110))
	daemon_wait
}
# The fpusoak_gfp module when the host built it (fragment.conf.sh): the daemon's model checks then
# TRY allocations every 10 s, and each refused one gets a cause (check 6).
KMOD=/payload/fragment/fpusoak_gfp.ko
if [ -f "$KMOD" ]; then
	if insmod "$KMOD"; then
		i=0
		while [ ! -c /dev/fpusoak_gfp ] && [ "$i" -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
		mark "FRAGMENT-KMOD loaded node=$([ -c /dev/fpusoak_gfp ] && echo present || echo missing)"
	else
		mark "FRAGMENT-KMOD insmod-failed rc=$?"
	fi
else
	mark "FRAGMENT-KMOD none $FRAG_KMOD"
fi
# Registered first: a scenario stopped at its budget still sends what it has.
export_db fpusoakd.db "$db"
wal_keeper_start
rc=0
one_run fragment-off "$FRAG_SECONDS" off "$FRAG_TRACE" probes || rc=1
one_run fragment-heavy "$FRAG_SECONDS" heavy "$FRAG_TRACE" probes || rc=1
if [ "${FRAG_FALLBACK_SECONDS:-0}" -gt 0 ]; then
	one_run fragment-off-traced "$FRAG_FALLBACK_SECONDS" off auto || rc=1
	one_run fragment-heavy-traced "$FRAG_FALLBACK_SECONDS" heavy auto || rc=1
fi
wal_keeper_stop
[ -c /dev/fpusoak_gfp ] && { rmmod fpusoak_gfp || mark "FRAGMENT-KMOD rmmod-failed rc=$?"; }
export_proc meminfo pagetypeinfo vmstat
# Leave the guest as the next scenario of the boot expects it: in make test the soak follows, and its
# guest-scope capacity probe did not finish within its 150 s after this scenario's aging.
reset_memory
exit "$rc"
