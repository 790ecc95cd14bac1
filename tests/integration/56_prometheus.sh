#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A fleet in miniature: Debian's Prometheus server (loopback, temporary storage, its
# own port, started and stopped by PID) scrapes two fpusoakd instances every second;
# its HTTP API (PromQL) must show both targets up and values that match each DB:
# the free-block count and the order-3 headroom of the scrape equal the rows the
# daemon stored for the sample the scrape carried (fpusoakd_last_sample_timestamp_seconds).
# It loads contrib/prometheus/fpusoakd.rules.yml: every rule evaluates without error on the live
# series, and the fleet view (headroom by label and kernel) has each instance's label and kernel
# as v_runs records them.  Skips visibly without the prometheus package.
. "$(dirname "$0")/../lib.sh"
FPUSOAKD=${FPUSOAKD:-build/fpusoakd}
tmp=$(mktemp -d /tmp/fpusoak-prom-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done; for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

if ! command -v prometheus >/dev/null; then
	skip "prometheus is not installed (Debian: apt-get install prometheus): no fleet test"
	t_done
fi
need promtool:prometheus curl:curl python3:python3 sqlite3:sqlite3
p1=$(free_port); p2=$(free_port); pp=$(free_port)
for i in 1 2; do
	port=$([ $i = 1 ] && echo $p1 || echo $p2)
	"$FPUSOAKD" --db "$tmp/f$i.db" --listen 127.0.0.1:$port --workers 0 --probe-interval 0 --switch-probe-interval 0 \
		--sample-interval 1s --label "fleet-$i" >"$tmp/f$i.log" 2>&1 &
	pids+=($!)
done
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $(cd "$(dirname "$0")/../.." && pwd)/contrib/prometheus/fpusoakd.rules.yml
scrape_configs:
  - job_name: fpusoakd
    static_configs:
      - targets: ['127.0.0.1:$p1', '127.0.0.1:$p2']
EOF
check "promtool accepts the scrape config" promtool check config "$tmp/prometheus.yml"
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" --web.listen-address=127.0.0.1:$pp \
	--storage.tsdb.retention.time=1h >"$tmp/prometheus.log" 2>&1 &
pids+=($!)
api="http://127.0.0.1:$pp/api/v1"
promql() { curl -fsG "$api/query" --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"}; }

# Both targets up (poll: Prometheus starts, then scrapes every second).
up=0
for i in $(seq 60); do
	up=$(promql 'sum(up{job="fpusoakd"})' 2>/dev/null | python3 -c 'import sys,json; r=json.load(sys.stdin)["data"]["result"]; print(int(float(r[0]["value"][1])) if r else 0)' 2>/dev/null)
	[ "${up:-0}" = 2 ] && break
	sleep 0.5
done
[ "${up:-0}" = 2 ] && pass "Prometheus sees both fpusoakd targets up" || fail "targets up: ${up:-none} of 2; $(tail -3 "$tmp/prometheus.log")"
sleep 3   # a few scrapes of each
t=$(python3 -c 'import time; print(f"{time.time() - 1:.3f}")')

for i in 1 2; do
	port=$([ $i = 1 ] && echo $p1 || echo $p2)
	inst="127.0.0.1:$port"
	db=$tmp/f$i.db
	# The zone whose order-0 count moves most: equality with a value that changes every tick means something.
	zone=$(sqlite3 -batch -noheader "$db" "SELECT zone FROM v_buddyinfo WHERE node = 0 AND page_order = 0 GROUP BY zone ORDER BY count(DISTINCT free_blocks) DESC, zone LIMIT 1")
	moves=$(sqlite3 -batch -noheader "$db" "SELECT count(DISTINCT free_blocks) FROM v_buddyinfo WHERE node = 0 AND zone = '$zone' AND page_order = 0")
	# The scrape at time t carried one sample: its timestamp, and the values read at that tick.
	ts=$(promql "fpusoakd_last_sample_timestamp_seconds{instance=\"$inst\"}" "$t" |
		python3 -c 'import sys,json; r=json.load(sys.stdin)["data"]["result"]; print(round(float(r[0]["value"][1])*1000))')
	free=$(promql "fpusoakd_buddy_free_blocks{instance=\"$inst\",node=\"0\",zone=\"$zone\",order=\"0\"}" "$t" |
		python3 -c 'import sys,json; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1])')
	head=$(promql "fpusoakd_headroom_blocks{instance=\"$inst\",node=\"0\",zone=\"$zone\",order=\"3\"}" "$t" |
		python3 -c 'import sys,json; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1])')
	run=$(promql "fpusoakd_run_id{instance=\"$inst\"}" "$t" | python3 -c 'import sys,json; print(json.load(sys.stdin)["data"]["result"][0]["value"][1])')
	# /metrics shows a tick at once; the DB has it once its group is committed (at most 5 s of ticks,
	# README "Crash safety"): wait for that row, with a deadline, rather than read the DB too early.
	for _ in $(seq 150); do
		dbfree=$(sqlite3 -batch -noheader "$db" "SELECT free_blocks FROM v_buddyinfo WHERE ts_ms = ${ts:-0} AND node = 0 AND zone = '$zone' AND page_order = 0")
		[ -n "$dbfree" ] && break
		sleep 0.1
	done
	dbhead=$(sqlite3 -batch -noheader "$db" "SELECT headroom_blocks FROM v_headroom WHERE ts_ms = ${ts:-0} AND node = 0 AND zone = '$zone' AND page_order = 3")
	[ -n "$free" ] && [ "$free" = "$dbfree" ] && pass "instance $i: free order-0 blocks of $zone in Prometheus ($free) = the DB's row of that sample ($moves distinct values stored)" ||
		fail "instance $i: Prometheus free blocks '$free' vs DB '$dbfree' at ts ${ts:-?}"
	[ -n "$head" ] && [ "$head" = "$dbhead" ] && pass "instance $i: order-3 headroom of $zone ($head) = v_headroom of that sample" ||
		fail "instance $i: Prometheus headroom '$head' vs v_headroom '$dbhead'"
	check "instance $i: run id in Prometheus = the DB's run" test "$run" = "$(sqlite3 -batch -noheader "$db" "SELECT max(run_id) FROM runs")"
	n=$(promql "count({instance=\"$inst\",__name__=~\"fpusoakd_unusable_free_index|fpusoakd_fragmentation_index\"})" "$t" |
		python3 -c 'import sys,json; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
	want=$(( 2 * $(sqlite3 -batch -noheader "$db" "SELECT count(*) FROM v_frag WHERE ts_ms = ${ts:-0}") ))
	check "instance $i: an unusable and a fragmentation index per zone and order ($n = 2 x v_frag rows)" test "$n" = "$want"
	# fpusoakd_run_info carries the run as v_runs has it.
	info=$(promql "fpusoakd_run_info{instance=\"$inst\"}" "$t" |
		python3 -c 'import sys,json; m=json.load(sys.stdin)["data"]["result"][0]["metric"]; print("|".join(m.get(k, "") for k in ("run_id","label","kernel","hypervisor","guest_type")))')
	dbinfo=$(sqlite3 -batch -noheader "$db" "SELECT run_id || '|' || coalesce(label, '') || '|' || kernel_release || '|' || hypervisor || '|' || coalesce(guest_type, '') FROM v_runs ORDER BY run_id DESC LIMIT 1")
	check "instance $i: fpusoakd_run_info{run_id,label,kernel,hypervisor,guest_type} = v_runs ($info)" test -n "$info" -a "$info" = "$dbinfo"
done

# The rules file: loaded, and every rule evaluated without error on the live series.
rules=$(curl -fs "$api/rules" | python3 -c '
import sys, json
g = json.load(sys.stdin)["data"]["groups"]
r = [x for grp in g for x in grp["rules"]]
bad = [x["name"] + ": " + x.get("lastError", "") for x in r if x.get("health") != "ok"]
print(len(g), sum(x["type"] == "recording" for x in r), sum(x["type"] == "alerting" for x in r), "; ".join(bad) or "-")')
check "Prometheus loaded contrib/prometheus/fpusoakd.rules.yml: groups, recording rules, alerts, unhealthy = '$rules'" \
	test "${rules% *}" = "2 8 3" -a "${rules##* }" = "-"
# The fleet view by label and kernel: one series per instance's label, the kernel from v_runs,
# and (order 3 is always an order of interest until slabinfo says otherwise) the value equals the
# instance's own sum of headroom over zones but DMA at the same evaluation.
sleep 2
t=$(python3 -c 'import time; print(f"{time.time() - 1:.3f}")')
for i in 1 2; do
	port=$([ $i = 1 ] && echo $p1 || echo $p2)
	kern=$(sqlite3 -batch -noheader "$tmp/f$i.db" "SELECT kernel_release FROM v_runs ORDER BY run_id DESC LIMIT 1")
	fleet=$(promql "label_kernel_order:fpusoakd_headroom_blocks:min{label=\"fleet-$i\"}" "$t" |
		python3 -c 'import sys,json; r=json.load(sys.stdin)["data"]["result"]; print(len(r), *sorted(x["metric"]["kernel"] for x in r))')
	check "fleet view: label fleet-$i has headroom series for kernel $kern ($fleet)" test "${fleet#* }" != "" -a "${fleet%% *}" -ge 1 -a "$(echo ${fleet#* } | tr ' ' '\n' | sort -u)" = "$kern"
	# The rule's last samples, each compared with the same sum evaluated at its own timestamp
	# (what the rule saw then): equal, unless a scrape landed between the two evaluations.
	raw="sum without (node, zone) (fpusoakd_headroom_blocks{instance=\"127.0.0.1:$port\",order=\"3\",zone!=\"DMA\"})"
	pts=$(promql "instance:fpusoakd_headroom_blocks:sum_zones{instance=\"127.0.0.1:$port\",order=\"3\"}[5s]" "$t" |
		python3 -c 'import sys,json; r=json.load(sys.stdin)["data"]["result"]; print(" ".join("%s=%s" % (ts, v) for ts, v in (r[0]["values"] if r else [])))')
	same=0 n=0
	for p in $pts; do
		n=$((n + 1))
		v=$(promql "$raw" "${p%%=*}" | python3 -c 'import sys,json; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")')
		[ "$v" = "${p#*=}" ] && same=$((same + 1))
	done
	check "recording rule instance:fpusoakd_headroom_blocks:sum_zones = the raw sum over zones but DMA at its own timestamps ($same of $n equal)" \
		test "$n" -ge 3 -a "$same" -ge $(( (n + 1) / 2 ))
	# The atomic-only rules on the exported request verdicts: one 0/1 series per order the store has.
	nord=$(sqlite3 -batch -noheader "$tmp/f$i.db" "SELECT count(DISTINCT page_order) FROM v_atomic_request")
	nat=$(promql "instance:fpusoakd_atomic_only:bool{instance=\"127.0.0.1:$port\"}" "$t" |
		python3 -c 'import sys,json; r=json.load(sys.stdin)["data"]["result"]; print(len(r), all(x["value"][1] in ("0", "1") for x in r))')
	check "recording rule instance:fpusoakd_atomic_only:bool: a 0/1 series per order of v_atomic_request ($nat; $nord orders)" \
		test "$nord" -gt 0 -a "$nat" = "$nord True"
	nat=$(promql "label_kernel_order:fpusoakd_atomic_only:ratio_1h_avg{label=\"fleet-$i\",kernel=\"$kern\"}" "$t" |
		python3 -c 'import sys,json; print(len(json.load(sys.stdin)["data"]["result"]))')
	check "fleet view: label fleet-$i has atomic-only ratios for kernel $kern ($nat orders)" test "$nat" = "$nord"
done
curl -fs "http://127.0.0.1:$p1/metrics" >"$tmp/m.txt"
check "promtool check metrics: the live exposition is clean" sh -c "promtool check metrics <'$tmp/m.txt' 2>&1 | (! grep -q .)"
t_done
