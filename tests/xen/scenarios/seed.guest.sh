# SPDX-License-Identifier: GPL-2.0-only
# Scenario "seed" (guest side): the 2014 experiment for SEED_SECONDS (seed.conf.sh).
#   1. insmod fpusoak_gfp (object_bytes=SEED_OBJECT_BYTES when set);
#   2. fpusoakd with the DB on the data disk, --duration SEED_SECONDS;
#   3. a guest-scope capacity probe (SIGUSR1) every SEED_PROBE_EVERY seconds from the run's
#      start, at least 60 s of churn after the previous one ended, until a new one would not end
#      before the run does; SLUB statistics before and after each (slab_stats), the zone's
#      state (zoneinfo) after each;
#   4. the daemon ends by its --duration; rmmod; the module's counters.
# Everything lands in $DATA_DIR/seed/ (read back by the host from the disk image); the small
# files are exported over the console too.
out=$DATA_DIR/seed
db=$out/fpusoakd.db
rc=0
if [ -z "${DATA_DIR:-}" ]; then
	say "no data disk mounted"
	exit 2
fi
mkdir -p "$out"
now() { cut -d. -f1 /proc/uptime; }

if [ "$SEED_OBJECT_BYTES" != 0 ]; then
	insmod /payload/seed/fpusoak_gfp.ko "object_bytes=$SEED_OBJECT_BYTES"
else
	insmod /payload/seed/fpusoak_gfp.ko
fi
mark "SEED-INSMOD rc=$? object_size=$(cat /sys/class/misc/fpusoak_gfp/object_size 2>/dev/null) uptime=$(uptime_s)"
i=0
while [ ! -c /dev/fpusoak_gfp ] && [ "$i" -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
for f in /sys/kernel/slab/fpusoak_xstate/order /sys/kernel/slab/fpusoak_xstate/objs_per_slab \
	/sys/kernel/slab/fpusoak_xstate/object_size /sys/kernel/slab/task_struct/order /sys/kernel/slab/task_struct/object_size; do
	[ -r "$f" ] && echo "${f#/sys/kernel/slab/} $(cat "$f")"
done >"$out/slab-geometry.txt"
cp /proc/zoneinfo "$out/zoneinfo.start"
cp /proc/meminfo "$out/meminfo.start"

# Memory, not the kernel's memory-sized thread cap (403 here), must end a fill.
threads_max_at_least 8192
# Refused HOLDs and OOM kills print long reports: /dev/kmsg (the daemon reads them), not the console.
dmesg -n 1
daemon_start "$db" --duration "${SEED_SECONDS}s"
# The run starts once the daemon has made its DB (under TCG tens of seconds after the launch).
i=0
while [ ! -f "$db" ] && [ "$i" -lt 240 ]; do sleep 0.5; i=$((i + 1)); done
t0=$(now)
mark "SEED-RUN-START uptime=$t0"
n=0 last_end=$t0 longest=0
while daemon_alive; do
	due=$((t0 + n * SEED_PROBE_EVERY + 30))
	[ "$due" -ge $((last_end + 60)) ] || due=$((last_end + 60))
	# A probe must end inside the run: room for the longest one so far plus a margin.
	[ $((due + longest + 120)) -lt $((t0 + SEED_SECONDS)) ] || break
	while [ "$(now)" -lt "$due" ] && daemon_alive; do sleep 5; done
	daemon_alive || break
	n=$((n + 1))
	slab_stats "before-$n" "$out/slab-stats.txt"
	ts=$(now)
	mark "SEED-PROBE-SIGNAL n=$n uptime=$ts"
	daemon_signal USR1
	while daemon_alive && [ "$(probes_done "$db")" -lt "$n" ] && [ $(($(now) - ts)) -lt 1800 ]; do sleep 3; done
	slab_stats "after-$n" "$out/slab-stats.txt"
	{ echo "after-$n uptime=$(uptime_s)"; cat /proc/zoneinfo; } >>"$out/zoneinfo.after-probes"
	last_end=$(now)
	[ $((last_end - ts)) -gt "$longest" ] && longest=$((last_end - ts))
	mark "SEED-PROBE-DONE n=$n stored=$(probes_done "$db") seconds=$((last_end - ts)) uptime=$(uptime_s)"
done
mark "SEED-PROBES-END probes=$n longest=${longest}s uptime=$(uptime_s)"
daemon_wait
rc=$?
dmesg -n 7
cp /proc/zoneinfo "$out/zoneinfo.end"
cp /proc/vmstat "$out/vmstat.end"
for f in /sys/class/misc/fpusoak_gfp/counters/* /sys/class/misc/fpusoak_gfp/object_size; do
	[ -r "$f" ] && echo "${f##*/} $(cat "$f")"
done >"$out/gfp-counters.end"
if rmmod fpusoak_gfp; then
	mark "SEED-RMMOD ok"
else
	mark "SEED-RMMOD failed rc=$?"
fi
dmesg >"$out/dmesg.txt"
sync
for f in slab-stats.txt slab-geometry.txt gfp-counters.end meminfo.start; do
	export_file "$f" "$out/$f"
done
exit "$rc"
