#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Stand-in payload for the Xen test bed, used until (or instead of) the real
# daemon: the sqlite3 CLI writes what fpusoakd would, under the same public
# view names (v_runs, v_buddyinfo), from the same kernel files, so the host
# side of the test (console extraction, sqlite3 checks) is exercised for real.
# Usage: standin.sh DB SECONDS
db=$1
secs=$2

now_ms() { echo $(( $(date +%s) * 1000 )); }
q() { printf "'%s'" "$(echo "$1" | sed "s/'/''/g")"; }

sqlite3 "$db" "
CREATE TABLE runs (run_id INTEGER PRIMARY KEY, label TEXT, started_ms INTEGER,
	ended_ms INTEGER, end_reason TEXT, kernel_release TEXT, hypervisor TEXT,
	guest_type TEXT, mem_total_kb INTEGER);
CREATE TABLE buddy (ts_ms INTEGER, node INTEGER, zone TEXT, page_order INTEGER,
	free_blocks INTEGER);
CREATE VIEW v_runs AS SELECT run_id, label, started_ms, ended_ms, end_reason,
	kernel_release, hypervisor, guest_type, mem_total_kb FROM runs;
CREATE VIEW v_buddyinfo AS SELECT 1 AS run_id, * FROM buddy;
INSERT INTO runs (run_id, label, started_ms, kernel_release, hypervisor, guest_type, mem_total_kb)
VALUES (1, 'xen-pv-standin', $(now_ms), $(q "$(uname -r)"),
	$(q "$(cat /sys/hypervisor/type)"), $(q "$(cat /sys/hypervisor/guest_type)"),
	$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo));" || exit 1

i=0
while [ "$i" -lt "$secs" ]; do
	ts=$(now_ms)
	# "Node 0, zone DMA32 n0 n1 ..." -> one row per order.
	awk -v ts="$ts" '{ sub(",", "", $2); for (k = 5; k <= NF; k++)
		printf "INSERT INTO buddy VALUES (%s, %s, \x27%s\x27, %d, %s);\n", ts, $2, $4, k - 5, $k }' \
		/proc/buddyinfo | sqlite3 "$db" || exit 1
	i=$((i + 1))
	sleep 1
done
sqlite3 "$db" "UPDATE runs SET ended_ms = $(now_ms), end_reason = 'stopped' WHERE run_id = 1;"
