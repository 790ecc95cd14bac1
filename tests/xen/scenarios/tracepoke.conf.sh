# SPDX-License-Identifier: GPL-2.0-only
# Scenario "tracepoke" (host side), opt-in: a diagnostic of the test bed, not of fpusoakd.  It
# enables and disables one kernel tracepoint over and over in a tracefs instance of its own while
# both vCPUs are busy, which is what fpusoakd does once at each start and exit: every toggle
# patches kernel text (static calls and jump labels through text_poke_bp, which waits for an IPI
# on every other CPU).  Three of the test bed's dom0 boots hung there under QEMU TCG (run.sh stops
# QEMU on a soft lockup).  XEN_POKE_SECONDS (default 240) bounds the loop; the check reports how
# many toggles the guest completed.  XEN_SCENARIOS=tracepoke make test-xen runs it; with
# XEN_CMDLINE_EXTRA=dom0_max_vcpus=1 it runs on one vCPU.
SC_STAGES="dom0"
SC_DEFAULT=0
poke_s=${XEN_POKE_SECONDS:-240}
SC_BUDGET=$((poke_s + 60))
sc_prepare() {
	case "$poke_s" in '' | *[!0-9]*) echo "XEN_POKE_SECONDS wants a number" >&2; return 2 ;; esac
	sc_env POKE_SECONDS "$poke_s"
	return 0
}
