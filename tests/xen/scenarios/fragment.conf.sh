# SPDX-License-Identifier: GPL-2.0-only
# Scenario "fragment" (host side): the positive control of issue 23.  The same soak twice in one
# boot, first without and then with --fragment heavy, FRAG_SECONDS each (default 190: three
# minutes of samples and a margin), into one DB, so the headroom trends, the unusable index and
# the compare of the two runs can be checked (fragment.check.sh says what it compares).
# Costs 2 x (FRAG_SECONDS + ~12 s to start and stop the daemon) of guest time: 395 s in the domU
# (fragment.elapsed_s, 2026-12-02, the dom0 stage's QEMU beside it).
# Then, for check 4 (dom0 stage by default), the same pair again with the daemon's tracefs
# instance (--trace auto), FRAG_FALLBACK_SECONDS each, to count fragmenting fallbacks: the first
# pair cannot (see "Why --trace none" below).  Another 2 x (FRAG_FALLBACK_SECONDS + ~12 s): the
# dom0's four runs took 775 s (the domU stage's QEMU beside it for the first half).
# Knobs: XEN_FRAG_SECONDS; XEN_FRAG_FALLBACK_SECONDS (the traced pair's length: default
# XEN_FRAG_SECONDS in the dom0 stage and 0, no traced pair, in the domU stage or with
# XEN_FRAG_PROBES=1; when set it holds for both stages; 0 makes check 4 a SKIP); XEN_FRAG_TRACE (the first pair's --trace, default
# none; auto: with tracing, check 4 then counts that pair's fallbacks and checks 1-3 are likely
# to fail, see below); XEN_FRAG_PROBES=1 (a measurement: a guest-scope capacity probe 20 s into
# each run of the first pair and one 110 s before its end, e.g. with XEN_FRAG_SECONDS=300; checks
# 1-3 are then skipped: a fill swamps the headroom series); XEN_FRAG_DOMU=1 adds the domU stage
# (make test runs both stages side by side, tests/run.sh).
# Why --trace none: on this guest's 6.1 kernel the daemon's tracefs instance creates every event's
# files at once, ~11 MB of slab (the daemon logs "Slab +10964 kB") in a guest of 79 MB, which left
# 12-13 MB free at the start of a run and DMA32 ~1 MB above its low watermark.  The heavy load
# then pinned DMA32 at that watermark within 20-100 s, the kernel served everything from the DMA
# zone instead (DMA32's buddy lists unchanged for 100-140 s), and DMA32's headroom, the zone the
# comparison uses, froze: with tracing the control failed its 3 dom0 runs (checks 1-3 in two, 3 in
# one) and its domU run (1-3); without it (MemFree 23-25 MB at the start) it passed 3 dom0 runs in
# a row and the domU's.  With the recipe of 2026-12-02 and tracing, B's headroom started at 93
# blocks against A's 176 and the slopes were -413 against -387 blocks/h: check 2 failed again,
# while the fallbacks were counted (9 against 0).  Hence the traced pair, for check 4 alone.
# It was opt-in for a day (2026-12-02): check 3 (the unusable index at order 3 rose by >= 0.05)
# failed in every run on main with the old recipe (+0.009 to +0.027 against -0.010 to +0.002); the
# recipe of fragload/fragload.c since then (survivors from the whole batch, a batch of 1/8, a long
# rest) gave +0.127 against +0.003.  README "Accelerated aging" has the runs.
# Failure causes (issue 32, check 6): in the dom0 stage the fpusoak_gfp module is loaded for every run
# (built here against the guest kernel's headers; none: check 6 is a SKIP), so the daemon's model checks
# TRY GFP_ATOMIC and GFP_NOWAIT allocations at the orders of interest every 10 s and each refused TRY
# gets a cause; workers do not HOLD (--gfp-mode off).  XEN_FRAG_KMOD=0 leaves the module out.  Not in
# the domU stage: its kernel may not be the one the headers are for.
# The domU stage runs it only with XEN_FRAG_DOMU=1 (since 2026-12-06): in the 64 MB domU on the
# small kernel check 3 fell short twice (the index +0.0248 and +0.024 against +0.0014 without the
# load, where the 79-128 MB guests it was calibrated on gave +0.105 to +0.188) while checks 1 and 2
# passed with margin (-5,313 blocks/h with the load, -96 without).  That kernel grouped by 4 MB
# pageblocks (no HUGETLB_PAGE: pageblock_order 10, ~12 pageblocks in DMA32); pv-small.config has
# HUGETLBFS since, and at order 9 (measured 2026-12-07, one run) check 3 fell short again: +0.0187
# with the load against +0.0013 without, while checks 1 and 2 passed with margin (-5,261 against
# -103 headroom pages/h at order 3, significant).  The load ages this guest; the index at order 3 is
# not the measure that shows it in 64 MB.
# The threshold stays; the dom0's control (Debian's kernel, 79 MB) is the one make test runs.
SC_STAGES="dom0$([ "${XEN_FRAG_DOMU:-0}" = 1 ] && echo " domu")"
frag_seconds=${XEN_FRAG_SECONDS:-190}
frag_trace=${XEN_FRAG_TRACE:-none}
SC_BUDGET=$((2 * frag_seconds + 180))

sc_prepare() {
	case "$frag_seconds" in '' | *[!0-9]*) echo "XEN_FRAG_SECONDS wants a number" >&2; return 2 ;; esac
	case "$frag_trace" in none | auto) ;; *) echo "XEN_FRAG_TRACE wants none or auto" >&2; return 2 ;; esac
	local fb_default=0
	[ "$STAGE" = dom0 ] && [ "${XEN_FRAG_PROBES:-0}" != 1 ] && fb_default=$frag_seconds
	local fb_seconds=${XEN_FRAG_FALLBACK_SECONDS:-$fb_default}
	case "$fb_seconds" in '' | *[!0-9]*) echo "XEN_FRAG_FALLBACK_SECONDS wants a number" >&2; return 2 ;; esac
	[ "$fb_seconds" -gt 0 ] && SC_BUDGET=$((SC_BUDGET + 2 * fb_seconds + 90))
	sc_env FRAG_SECONDS "$frag_seconds"
	sc_env FRAG_TRACE "$frag_trace"
	sc_env FRAG_FALLBACK_SECONDS "$fb_seconds"
	sc_env FRAG_PROBES "${XEN_FRAG_PROBES:-0}"
	if [ "$STAGE" = dom0 ] && [ "${XEN_FRAG_KMOD:-1}" = 1 ]; then
		sc_kmod /fragment/fpusoak_gfp.ko optional
		case $? in
		0) sc_env FRAG_KMOD "$KMOD_KVER" ;;
		77) sc_env FRAG_KMOD "none ($KMOD_WHY)" ;;
		*) return 1 ;;
		esac
	else
		sc_env FRAG_KMOD "none (XEN_FRAG_KMOD=${XEN_FRAG_KMOD:-1}, stage $STAGE)"
	fi
	grep -q -- '--fragment' <<<"$("$FPUSOAKD" --help 2>&1)" || { sc_skip "this fpusoakd has no --fragment"; return 0; }
	# The soak scenario's churn, no probes (a fill would swamp the headroom series), pagetypeinfo
	# every 10 s for the pageblock mix, one seed for both runs.
	sc_flags --workers 8 --spawn-rate 40 --lifetime 200ms --fpu auto --probe-interval 0 \
		--switch-probe-interval 0 --slow-interval 10s --seed 23
	# XEN_FRAG_PROBES=1: the probes the guest script starts fill the whole guest (the 2014 setup).
	[ "${XEN_FRAG_PROBES:-0}" = 1 ] && sc_flags --probe-scope guest
	return 0
}
