# SPDX-License-Identifier: GPL-2.0-only
# Scenario "gfp" (guest side): the 2014 test repeated with the fpusoak_gfp
# module (issue 19), in the dom0.
#   1. insmod the module gfp.conf.sh built against this kernel's headers;
#   2. gfp_iface checks its interface (arguments, cap, counters, permissions);
#   3. fpusoakd soaks with --gfp-mode alternate --model-check-interval 5s
#      (SC_FLAGS), and this script starts its guest-scope capacity probes
#      itself (SIGUSR1), one after the other with GFP_PROBE_GAP seconds of
#      churn between them, until GFP_PROBES are done or a new one would not
#      fit the budget, then stops the daemon: a probe is never cut short by
#      the end of the soak;
#   4. the module's counters are exported before and after (the host compares
#      their differences with what the daemon stored);
#   5. the refusal path on demand: with the module's test parameter
#      refuse_every=3 a short --gfp-mode atomic run (churn and one probe)
#      must count the refused HOLDs as gfp_failed deaths and end its probe
#      with gfp_failed:atomic (the allocator itself refused nothing above);
#   6. rmmod: it must unload cleanly and take its slab cache and node along;
#   7. the object_bytes parameter (the AMX-sized A/B object): a size out of
#      range is refused at insmod, 11008 bytes gives objects of that size in
#      slabs of order >= 2 that HOLD, and it unloads cleanly again.
# Where the kernel has SLUB statistics (the domU's small kernel) the module's
# cache and task_struct's are read before and after every probe
# (slab-stats.txt): order_fallback and alloc_slowpath per probe.
GFP_DIR=/payload/gfp
GFP_SYS=/sys/class/misc/fpusoak_gfp
GFP_PARAM=/sys/module/fpusoak_gfp/parameters
db=/tmp/fpusoakd.db
rdb=/tmp/refuse.db

gfp_counters() { # gfp_counters FILE: every counter as "name value..." lines
	for f in "$GFP_SYS"/counters/* "$GFP_SYS"/held "$GFP_SYS"/object_size "$GFP_SYS"/max_order; do
		[ -r "$f" ] && echo "${f##*/} $(cat "$f")"
	done >"$1"
}

gfp_probes_done() { probes_done "${1:-$db}"; }
gfp_now() { cut -d. -f1 /proc/uptime; }
gfp_slab() { slab_stats "$1" /tmp/slab-stats.txt; }
gfp_alive() { daemon_alive; }

if insmod "$GFP_DIR/fpusoak_gfp.ko"; then
	mark "GFP-INSMOD ok uptime=$(uptime_s)"
else
	mark "GFP-INSMOD failed rc=$?"
fi
# devtmpfs makes the node as the module asked (0600 root:root); give it a moment.
i=0
while [ ! -c /dev/fpusoak_gfp ] && [ "$i" -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
"$GFP_DIR/gfp_iface" >/tmp/gfp_iface.txt 2>&1
mark "GFP-IFACE-EXIT rc=$? checks=$(grep -c '^GFP-IFACE ' /tmp/gfp_iface.txt)"
export_file gfp_iface.txt /tmp/gfp_iface.txt
gfp_counters /tmp/gfp-counters.before
export_file gfp-counters.before /tmp/gfp-counters.before

# Memory, not the kernel's memory-sized thread cap, must end a fill (threads-max is 403 in the
# 64 MB domU: a fill of the 2014 workers ended by fork's EAGAIN at 336).
threads_max_at_least 8192
# Refused HOLDs print "page allocation failure" warnings: they belong in
# /dev/kmsg (fpusoakd reads them there), not on the emulated serial console.
dmesg -n 1
daemon_start "$db"
# Registered now: a scenario stopped at its budget still sends its DB (folded at export time).
export_db fpusoakd.db "$db"
: >/tmp/slab-stats.txt
export_file slab-stats.txt /tmp/slab-stats.txt
t0=$(gfp_now)
sc_sleep "$GFP_PROBE_GAP"
started=0
while [ "$started" -lt "$GFP_PROBES" ] && gfp_alive; do
	# After one probe of each mode, a new one starts only if a slow fill still fits the budget.
	if [ "$started" -ge 2 ] && [ "$(sc_remaining)" -lt "$GFP_PROBE_NEEDS" ]; then
		break
	fi
	started=$((started + 1))
	gfp_slab "before-$started"
	mark "GFP-PROBE-SIGNAL n=$started uptime=$(uptime_s)"
	daemon_signal USR1
	while gfp_alive && [ "$(gfp_probes_done)" -lt "$started" ] && [ "$(sc_remaining)" -gt 20 ]; do
		sleep 2
	done
	gfp_slab "after-$started"
	mark "GFP-PROBE-DONE n=$started stored=$(gfp_probes_done) uptime=$(uptime_s)"
	[ "$started" -lt "$GFP_PROBES" ] && sc_sleep "$GFP_PROBE_GAP"
done
mark "GFP-SOAK-END probes=$started seconds=$(( $(gfp_now) - t0 ))"
daemon_signal TERM
daemon_wait
rc=$?
gfp_counters /tmp/gfp-counters.after
export_file gfp-counters.after /tmp/gfp-counters.after

echo 3 >"$GFP_PARAM/refuse_every"
mark "GFP-REFUSE-START refuse_every=$(cat "$GFP_PARAM/refuse_every") uptime=$(uptime_s)"
# A flag given twice is refused (exit 64): this run's mode, checks and label replace the scenario's.
soak_flags=$SC_FLAGS soak_label=$LABEL
SC_FLAGS=$(echo "$SC_FLAGS" | sed -e 's/--gfp-mode [a-z]*//' -e 's/--model-check-interval [0-9a-z]*//')
LABEL=xen-pv-gfp-refuse
daemon_start "$rdb" --gfp-mode atomic --model-check-interval 0 --duration 90s
SC_FLAGS=$soak_flags LABEL=$soak_label
export_db refuse.db "$rdb"
sc_sleep 3
daemon_signal USR1
i=0
# Up to 60 s: the probe first retires the churn, and beside stress-ng --cpu 2 and three other
# emulators its refused HOLD came after the 15 s this waited before (the run stopped the probe:
# 'stopped', the refusal the module counted missing from the DB).  --duration is only a backstop.
while gfp_alive && [ "$(gfp_probes_done "$rdb")" -lt 1 ] && [ "$i" -lt 60 ]; do sleep 1; i=$((i + 1)); done
# Refusals end, then 3 s of ticks store the deaths they caused: the churn counts of the interval after
# the daemon's last tick are never stored, and the host compares the module's count with the DB's.
echo 0 >"$GFP_PARAM/refuse_every"
sleep 3
daemon_signal TERM
daemon_wait
gfp_counters /tmp/gfp-counters.refuse
export_file gfp-counters.refuse /tmp/gfp-counters.refuse
mark "GFP-REFUSE-END uptime=$(uptime_s)"
dmesg -n 7
export_proc meminfo buddyinfo zoneinfo slabinfo
if rmmod fpusoak_gfp; then
	mark "GFP-RMMOD ok node=$([ -e /dev/fpusoak_gfp ] && echo present || echo gone) cache=$(grep -c '^fpusoak_xstate ' /proc/slabinfo)"
else
	mark "GFP-RMMOD failed rc=$?"
fi

# The AMX-sized object (object_bytes): refused out of range, else objects of that size in slabs of
# order >= 2 (the smallest order that holds one), held, and a clean unload.
big=0
insmod "$GFP_DIR/fpusoak_gfp.ko" object_bytes=65600 2>/dev/null && { big=1; rmmod fpusoak_gfp; }
ob=none order=none held=none ob_rm=none
if insmod "$GFP_DIR/fpusoak_gfp.ko" object_bytes=11008; then
	i=0
	while [ ! -c /dev/fpusoak_gfp ] && [ "$i" -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
	read -r ob <"$GFP_SYS/object_size"
	[ -r /sys/kernel/slab/fpusoak_xstate/order ] && read -r order </sys/kernel/slab/fpusoak_xstate/order
	held=$("$GFP_DIR/gfp_iface" hold 8 | sed -n 's/^GFP-HOLD wanted=8 held=\([0-9]*\) .*/\1/p')
	rmmod fpusoak_gfp && ob_rm=ok
fi
mark "GFP-OBJECT-BYTES refused_65600=$((1 - big)) object_size=$ob slab_order=$order held=${held:-none} rmmod=$ob_rm"
exit "$rc"
