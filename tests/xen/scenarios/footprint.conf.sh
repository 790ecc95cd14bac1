# SPDX-License-Identifier: GPL-2.0-only
# Scenario "footprint" (host side): what fpusoakd costs the 64 MB-class PV
# dom0 it measures (issue 20).  The guest prints the daemon's footprint
# table (bench/footprint.sh: each process's Rss, Pss, Locked) at rest and
# during a fill, then makes FOOTPRINT_ROUNDS interleaved pairs of fills:
# a guest-scope capacity probe by the daemon, then the same fill by
# bench/miniprobe (static, the same workers and stop rules, nothing else)
# with the daemon stopped.  The check fails when the locked core is over
# 3 MB or the medians of the two counts differ by more than 3%.
#
# Why 1 MiB workers: under TCG a fill's time is fork-bound (~170 ms a
# worker whatever its size up to 1 MiB; measured 2M/1M/512K/256K: 12/7/13/70 s
# fills, 1/1/5/9 s releases), so 1 MiB fills the ~42 MB the guest can give in
# ~38 steps: 10-25 s a fill where 256 KiB takes 70 s and more.  It still
# measures the effect: a worker costs ~1.1 MB, so a difference of one
# worker is 2.6% and of two 5.3%; the check asks the daemon to cost the fill
# at most ~1 MB, where it cost 5 workers before the web process moved out
# (and 10-11 more, the trace instance's 10.9 MB of slab, until stepping
# aside removed that instance for the fill; the guest's meminfo before each
# fill shows it: MemFree, Slab, SReclaimable).
# Knobs: FOOTPRINT_ROUNDS (5; 0: the table only, no observer effect), FOOTPRINT_WORKER_MEMORY (1M), FOOTPRINT_SETTLE (s at rest before the
# table, 20), FOOTPRINT_ACTIVITY (s over which CPU, wakeups and writes of each process are taken
# after the table, 30).  Costs ~280-370 s of guest time on a loaded host
# (246 s before the activity window, load average ~19).
SC_STAGES=dom0
SC_NEEDS=daemon
SC_SERVE=0
# 450: in make test (all scenarios, host load ~7-10) a round took 60-75 s and the fifth did not
# end within 330 s (2026-12-01 22:50 UTC).
SC_BUDGET=${FOOTPRINT_BUDGET:-450}

sc_prepare() {
	local repo b
	repo=$(cd "$XEN_SCENARIO_DIR/../../.." && pwd)
	# BUILD relative to the repo when it is inside it: the .d files name their targets as the build
	# that wrote them did (build/obj/...), and an absolute BUILD would not see them (a stale
	# miniprobe.o with an old struct layout was linked against a newer library that way).
	b=${BUILD#"$repo"/}
	if ! make -s -C "$repo" BUILD="$b" "$b/bench/miniprobe" >/dev/null; then
		echo "bench/miniprobe did not build" >&2
		return 1
	fi
	sc_payload "$BUILD/bench/miniprobe" /usr/bin/miniprobe 0755
	sc_payload "$repo/bench/footprint.sh" /usr/bin/fpusoak-footprint 0755
	# 5 pairs by default; 0 prints the table only.  The observer effect meets its 3% with the trace
	# instance removed during the daemon's fill (daemon/quiet.c); kept, its ~11 MB
	# of slab cost the fill 29.7% (README).
	sc_env FOOTPRINT_ROUNDS "${FOOTPRINT_ROUNDS:-5}"
	sc_env FOOTPRINT_WORKER_MEMORY "${FOOTPRINT_WORKER_MEMORY:-1M}"
	sc_env FOOTPRINT_SETTLE "${FOOTPRINT_SETTLE:-20}"
	sc_env FOOTPRINT_ACTIVITY "${FOOTPRINT_ACTIVITY:-30}"
}
