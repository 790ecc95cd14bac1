# SPDX-License-Identifier: GPL-2.0-only
# Scenario "seed" (host side; opt-in, domU stage only): the 2014 experiment in its own setting, for
# hours (issue 30).  A 64 MB PV domU on the small kernel, fpusoak_gfp loaded, fpusoakd with
# --gfp-mode alternate and workers without memory of their own (--worker-memory 0: the 2014
# processes touched the FPU and waited), guest-scope capacity probes every SEED_PROBE_EVERY
# seconds taking turns kernel, atomic, ..., the DB on the domU's data disk (not in its RAM, where
# a growing DB would shrink every later fill); the module's cache's and task_struct's SLUB
# statistics before and after every probe.  docs/results/ has what it measured and
# tests/xen/seed-run.sh the commands (it runs it with and without --fragment light).
# Knobs: XEN_SEED_SECONDS (the run, default 7500: 2 h 5 min of guest time), XEN_SEED_PROBE_EVERY
# (seconds from one probe's start to the next, default 240; never less than 60 s of churn between
# two), XEN_SEED_FRAGMENT (--fragment of the run: none, the default, or light/heavy),
# XEN_SEED_OBJECT_BYTES (the module's object_bytes: 0 the XSAVE size, 11008 AMX's),
# XEN_SEED_ARGS (more daemon flags).  Needs XEN_DOMU_DATA_MB (256 is plenty) and the small kernel.
# Cost: its budget is the run plus 15 minutes; run alone (XEN_DOMU_SCENARIOS=seed).
SC_STAGES=domu
SC_DEFAULT=0
SC_NEEDS=daemon
SC_SERVE=0
seed_seconds=${XEN_SEED_SECONDS:-7500}
case "$seed_seconds" in '' | *[!0-9]*) seed_seconds=0 ;; esac
SC_BUDGET=$((seed_seconds + 900))

sc_prepare() {
	local every=${XEN_SEED_PROBE_EVERY:-240} frag=${XEN_SEED_FRAGMENT:-none} ob=${XEN_SEED_OBJECT_BYTES:-0}
	[ "$seed_seconds" -ge 600 ] || { echo "XEN_SEED_SECONDS wants a number of seconds >= 600" >&2; return 2; }
	case "$every" in '' | *[!0-9]*) echo "XEN_SEED_PROBE_EVERY wants a number" >&2; return 2 ;; esac
	case "$ob" in '' | *[!0-9]*) echo "XEN_SEED_OBJECT_BYTES wants a number" >&2; return 2 ;; esac
	case "$frag" in none | light | heavy) ;; *) echo "XEN_SEED_FRAGMENT wants none, light or heavy" >&2; return 2 ;; esac
	[ -n "${DOMU_KDIR:-}" ] || sc_skip "needs the domU's small kernel (XEN_DOMU_KERNEL=small)"
	[ "${XEN_DOMU_DATA_MB:-0}" -gt 0 ] 2>/dev/null || sc_skip "needs a data disk for its DB: XEN_DOMU_DATA_MB=256"
	sc_kmod /seed/fpusoak_gfp.ko || return 1
	sc_env SEED_SECONDS "$seed_seconds"
	sc_env SEED_PROBE_EVERY "$every"
	sc_env SEED_OBJECT_BYTES "$ob"
	sc_env SEED_FRAGMENT "$frag"
	sc_env LABEL "xen-pv-seed-$frag$([ "$ob" = 0 ] || echo "-obj$ob")"
	# The gfp scenario's churn (sized for TCG); the 2014 workers in the probes; model checks once a
	# minute; probes only when the guest script asks (SIGUSR1).
	sc_flags --workers 8 --spawn-rate 40 --lifetime 200ms --fpu auto --worker-memory 0
	sc_flags --probe-interval 0 --probe-scope guest --probe-limit 4000 --switch-probe-interval 0
	sc_flags --gfp-mode alternate --model-check-interval 60s
	[ "$frag" = none ] || sc_flags --fragment "$frag"
	[ -z "${XEN_SEED_ARGS:-}" ] || sc_flags "$XEN_SEED_ARGS"
	return 0
}
