# SPDX-License-Identifier: GPL-2.0-only
# Scenario "soak" (host side): the bounded soak of issue 7 — churn, sampling,
# kernel log, one capacity probe in guest scope — in the dom0 and in the domU.
# Knobs: XEN_SOAK_SECONDS (default 150), XEN_FPUSOAKD_ARGS (replaces the
# spawner/probe flags chosen from --help; no probe signal then).
SC_STAGES="dom0 domu"
SC_NEEDS=none    # without the daemon, the sqlite3 stand-in proves the pipeline
SC_SERVE=1       # the daemon listens; the host fetches the report where it can
soak_seconds=${XEN_SOAK_SECONDS:-150}
# The soak, then a margin for the daemon to start and stop under TCG on a
# loaded host: 46 s seen in the dom0, 86 s in the one-vCPU domU (where it
# maps its libraries from the blkfront disk).
SC_BUDGET=$((soak_seconds + 120))

sc_prepare() {
	case "$soak_seconds" in '' | *[!0-9]*) echo "XEN_SOAK_SECONDS wants a number" >&2; return 2 ;; esac
	sc_env SOAK_SECONDS "$soak_seconds"
	[ "$PAYLOAD" = daemon ] || return 0
	local help probe_at=
	help=$("$FPUSOAKD" --help 2>&1)
	if [ -n "${XEN_FPUSOAKD_ARGS+set}" ]; then
		sc_flags "$XEN_FPUSOAKD_ARGS"
	else
		# Churn sized for the emulated guest (~176 fork+AVX lifecycles/s at
		# most); one capacity probe in guest scope, started by SIGUSR1 a
		# quarter into the soak: churn runs before and after it, and the fill
		# (16-45 s under TCG, thrashing near the end) has time to end.
		if grep -q -- '--workers' <<<"$help"; then
			sc_flags --workers 8 --spawn-rate 40 --lifetime 200ms --fpu auto
		fi
		if grep -q -- '--probe-interval' <<<"$help"; then
			sc_flags --probe-interval 0 --probe-scope guest --probe-limit 4000
			probe_at=$((soak_seconds / 4))
		fi
		# The FPU-cost probe is another test's subject; keep this soak to one probe.
		if grep -q -- '--switch-probe-interval' <<<"$help"; then
			sc_flags --switch-probe-interval 0
		fi
	fi
	sc_env PROBE_AT "$probe_at"
	# A failed allocation on demand for the trace's end-to-end check (soak.check.sh): before the
	# probe, with the daemon's trace instance on, the guest loads fpusoak_gfp and DRAINs GFP_NOWAIT
	# blocks of the largest order until the allocator refuses one (gfp_iface drain), then unloads
	# it.  Only where a module can be built for the stage's kernel; XEN_SOAK_DRAIN=0 leaves it out.
	sc_env SOAK_DRAIN "none (XEN_SOAK_DRAIN=0)"
	if [ "${XEN_SOAK_DRAIN:-1}" = 1 ]; then
		local rc=0
		sc_kmod /soak/fpusoak_gfp.ko optional || rc=$?
		case $rc in
		0)
			sc_gfp_iface /soak/gfp_iface || return 1
			sc_env SOAK_DRAIN "$KMOD_FOR" ;;
		77) sc_env SOAK_DRAIN "none ($KMOD_WHY)" ;;
		*) return 1 ;;
		esac
	fi
}
