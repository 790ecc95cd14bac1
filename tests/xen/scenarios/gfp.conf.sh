# SPDX-License-Identifier: GPL-2.0-only
# Scenario "gfp" (host side): the fpusoak_gfp module (issue 19) in the dom0 and,
# with the domU stage's small kernel, in the 64 MB domU (issue 30).
# The module is built here against the guest kernel's own headers packages
# (tests/xen/prepare-kmod.sh; the dom0, and a domU on the same generic
# kernel) or the small kernel's own build tree (DOMU_KDIR, prepare-kernel.sh),
# with the host's gcc, never loaded on the host;
# the guest insmods it, checks its interface, soaks with --gfp-mode alternate
# and --model-check-interval 5s, takes turns of guest-scope capacity probes
# (kernel, atomic, kernel, atomic) and unloads it.
# Knobs: XEN_GFP_PROBES (default 4: two of each mode; a third and fourth
# start only while 150 s of budget remain), XEN_GFP_SECONDS (the guest-time
# budget, default 240; 360 in the domU), XEN_GFP_WORKER_MEMORY (default 1M in
# the dom0, 0 in the domU: the 2014 workers, see sc_prepare).  Workers of 1 MiB
# fill the guest in ~20 steps instead of ~80 with 256 KiB: under TCG on a
# loaded host one 256 KiB fill and its release took 170 s, which leaves no
# room for the second mode.  README's figures are a longer run with 256K
# (the command is there).
SC_STAGES="dom0 domu"
SC_NEEDS=daemon
SC_SERVE=0
# The domU's workers are the 2014 ones (no memory of their own): a fill is hundreds of them.
SC_BUDGET=${XEN_GFP_SECONDS:-$([ "${STAGE:-}" = domu ] && echo 360 || echo 240)}

sc_prepare() {
	sc_kmod /gfp/fpusoak_gfp.ko || return 1
	sc_gfp_iface /gfp/gfp_iface || return 1
	sc_env GFP_KVER "$KMOD_FOR"
	sc_env GFP_PROBES "${XEN_GFP_PROBES:-4}"
	sc_env GFP_PROBE_GAP 5
	# A probe after the first two starts only with this much budget left: a fill and its release took
	# up to 70 s on a loaded host, the refusal run ~30 s (up to 65 s beside stress-ng and three other
	# emulators), stopping, rmmod and the exports 25 s more.
	sc_env GFP_PROBE_NEEDS 180
	# In the domU the 2014 fill (issue 30): workers that touch the FPU and hold its state, nothing
	# else, so the fill ends on kernel memory (stacks, page tables, task_struct, the FPU state).
	local wm=1M
	[ "$STAGE" = domu ] && wm=0
	# Churn as the soak scenario sizes it for TCG; probes only when the guest script asks (SIGUSR1).
	sc_flags --workers 8 --spawn-rate 40 --lifetime 200ms --fpu auto --worker-memory "${XEN_GFP_WORKER_MEMORY:-$wm}"
	sc_flags --probe-interval 0 --probe-scope guest --probe-limit 4000 --switch-probe-interval 0
	sc_flags --gfp-mode alternate --model-check-interval 5s
	sc_env LABEL xen-pv-gfp
}
