# SPDX-License-Identifier: GPL-2.0-only
# Scenario "fragment" (guest side): run 1 without the fragmenting load, run 2 with
# --fragment heavy, FRAG_SECONDS each, in one DB; then the DB and the /proc files.
# Both runs start from the same kind of guest: page cache dropped (run 1 reads the programs and
# libraries into it) and memory compacted, so what run 1 left does not count against run 2.
db=/tmp/fragment.db
reset_memory() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	echo 1 >/proc/sys/vm/compact_memory 2>/dev/null || say "no /proc/sys/vm/compact_memory"
	mark "FRAGMENT-RESET scenario=$SC_NAME memfree_kb=$(awk '/^MemFree:/ {print $2}' /proc/meminfo) uptime=$(uptime_s)"
}
# Registered first: a scenario stopped at its budget still sends what it has.
export_db fpusoakd.db "$db"
reset_memory
LABEL=fragment-off
daemon_start "$db" --duration "${FRAG_SECONDS}s" --fragment off
daemon_wait
rc1=$?
reset_memory
LABEL=fragment-heavy
daemon_start "$db" --duration "${FRAG_SECONDS}s" --fragment heavy
daemon_wait
rc2=$?
export_proc meminfo pagetypeinfo vmstat
# Leave the guest as the next scenario of the boot expects it: in make test the soak follows, and its
# guest-scope capacity probe did not finish within its 150 s after this scenario's aging.
reset_memory
[ "$rc1" = 0 ] && [ "$rc2" = 0 ]
