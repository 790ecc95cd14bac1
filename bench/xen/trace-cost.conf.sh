# SPDX-License-Identifier: GPL-2.0-only
# Scenario "trace-cost" (host side) of bench/trace_cost.sh: not one of
# tests/xen/scenarios (make test never runs it); bench/trace_cost.sh points
# the test bed here with XEN_SCENARIO_DIR.  Knobs (env): TRACE_COST_ROUNDS (3),
# TRACE_COST_ALLOC_SECONDS (3), TRACE_COST_DAEMON_SECONDS (40),
# TRACE_COST_CAP_ROUNDS (1: A B B A capacity probes).
SC_STAGES="dom0"
rounds=${TRACE_COST_ROUNDS:-3}
alloc_s=${TRACE_COST_ALLOC_SECONDS:-3}
daemon_s=${TRACE_COST_DAEMON_SECONDS:-40}
cap_rounds=${TRACE_COST_CAP_ROUNDS:-1}
# reads, fork loops, daemon runs, capacity probes (up to 270 s each), and a margin; the guest's seconds
# stretch on a busy host (a 792 s budget ran out in the first run, at load 17-20)
SC_BUDGET=$((rounds * 40 + rounds * 4 * (alloc_s + 5) + rounds * 4 * (daemon_s + 15) + cap_rounds * 4 * 270 + 120))

sc_prepare() {
	local b=$BUILD/bench
	mkdir -p "$b"
	cc -std=gnu11 -O2 -static "$XEN_SCENARIO_DIR/../allocloop.c" -o "$b/allocloop" &&
		cc -std=gnu11 -O2 -static "$XEN_SCENARIO_DIR/../readloop.c" -o "$b/readloop" || return 2
	sc_payload "$b/allocloop" /bin/allocloop 0755
	sc_payload "$b/readloop" /bin/readloop 0755
	sc_env ROUNDS "$rounds"
	sc_env ALLOC_SECONDS "$alloc_s"
	sc_env DAEMON_SECONDS "$daemon_s"
	sc_env CAP_ROUNDS "$cap_rounds"
}
