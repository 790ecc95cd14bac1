#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Kernel log capture end to end: lines written into the real /dev/kmsg land in
# v_alloc_failures / v_oom_kills intact, hostile COMM bytes included, and a
# restart resumes where the last run stopped reading (same boot).
. "$(dirname "$0")/../lib.sh"
need sqlite3:sqlite3
FPUSOAKD=${FPUSOAKD:-build/fpusoakd}
why=$(kmsg_rw_reason)
if [ "$(id -u)" != 0 ] || [ -n "$why" ]; then skip "${why:-not root}: no kernel-log round trip"; t_done; fi
tmp=$(mktemp -d /tmp/fpusoak-kmsg-XXXXXX); pid=
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
db=$tmp/k.db
q() { sqlite3 -batch -noheader "$db" "$1"; }
nonce=$$$RANDOM
wait_for() { for i in $(seq 100); do [ "$(q "$1" 2>/dev/null)" = "$2" ] && return 0; sleep 0.1; done; return 1; }

"$FPUSOAKD" --db "$db" --listen none --sample-interval 100ms >"$tmp/log" 2>&1 & pid=$!
wait_for "SELECT count(*) > 0 FROM v_samples" 1 || fail "daemon did not start: $(cat "$tmp/log")"
# 1. A plain GFP_ATOMIC failure, as warn_alloc prints it on 6.x.
printf '<4>fpusoak-t%s: page allocation failure: order:3, mode:0x820(GFP_ATOMIC), nodemask=(null),cpuset=/,mems_allowed=0\n' "$nonce" >/dev/kmsg
# 2. A hostile COMM: quotes, <, >, &, spaces, colons and non-UTF-8 bytes, old-style mode without flags.
printf '<4>x"<script>&amp; %s: \xff\xfe: page allocation failure: order:1, mode:0x24000c0, nodemask=0-1\n' "$nonce" >/dev/kmsg
# 3. An OOM kill, announced the way 6.x does.
printf '<3>oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/fpusoak,task_memcg=/fpusoak,task=oomt%s,pid=4%s,uid=0\n' "$nonce" "${nonce: -4}" >/dev/kmsg
printf '<3>Memory cgroup out of memory: Killed process 4%s (oomt%s) total-vm:2000kB, anon-rss:256kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:40kB oom_score_adj:1000\n' "${nonce: -4}" "$nonce" >/dev/kmsg
wait_for "SELECT count(*) FROM v_alloc_failures WHERE raw LIKE '%$nonce%'" 2 \
	&& pass "both allocation failures stored" || fail "allocation failures stored: $(q "SELECT count(*) FROM v_alloc_failures")"
check "order and GFP flags of the GFP_ATOMIC failure" test \
	"$(q "SELECT page_order || '|' || gfp_mask || '|' || gfp_flags || '|' || nodemask FROM v_alloc_failures WHERE comm = CAST('fpusoak-t$nonce' AS BLOB)")" = "3|0x820|GFP_ATOMIC|(null)"
want_hex=$(printf 'x"<script>&amp; %s: \xff\xfe' "$nonce" | od -An -tx1 | tr -d ' \n' | tr a-f A-F)
check "hostile COMM lands byte-for-byte (hex $want_hex)" test "$(q "SELECT hex(comm) FROM v_alloc_failures WHERE raw LIKE '%amp; $nonce%'")" = "$want_hex"
check "old-format mode: mask kept, no flag names" test \
	"$(q "SELECT gfp_mask || '|' || coalesce(gfp_flags, 'NULL') FROM v_alloc_failures WHERE raw LIKE '%amp; $nonce%'")" = "0x24000c0|NULL"
wait_for "SELECT count(*) FROM v_oom_kills WHERE comm = CAST('oomt$nonce' AS BLOB)" 1 \
	&& pass "OOM kill stored" || fail "OOM kill not stored"
check "OOM kill pid and constraint" test \
	"$(q "SELECT pid || '|' || constraint_info FROM v_oom_kills WHERE comm = CAST('oomt$nonce' AS BLOB)")" = "4${nonce: -4}|CONSTRAINT_MEMCG"
kill -TERM $pid; wait $pid; pid=

# Written while fpusoakd is down: the next start resumes after its cursor and finds it.
printf '<4>fpusoak-r%s: page allocation failure: order:0, mode:0xa20(GFP_ATOMIC), nodemask=(null)\n' "$nonce" >/dev/kmsg
"$FPUSOAKD" --db "$db" --listen none --sample-interval 100ms >"$tmp/log2" 2>&1 & pid=$!
wait_for "SELECT count(*) FROM v_alloc_failures WHERE comm = CAST('fpusoak-r$nonce' AS BLOB)" 1 \
	&& pass "line logged while stopped is captured after restart" || fail "resume lost the line: $(cat "$tmp/log2")"
check "resumed run does not store earlier lines twice" test \
	"$(q "SELECT count(*) FROM v_alloc_failures WHERE raw LIKE '%$nonce%'")" = 3
check "restart says it resumed" grep -q "resuming after sequence" "$tmp/log2"
kill -TERM $pid; wait $pid; pid=
t_done
