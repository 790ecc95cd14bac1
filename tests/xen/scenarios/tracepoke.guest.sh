# SPDX-License-Identifier: GPL-2.0-only
# Scenario "tracepoke" (guest side): see tracepoke.conf.sh.  Two busy loops that fork (the
# spawner's pattern: the scheduler's and the page allocator's patched sites in use on every CPU),
# and an instance whose mm_page_alloc event is switched on and off until POKE_SECONDS have passed.
out=/tmp/tracepoke.txt
export_file tracepoke.txt "$out"
T=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d "$d/instances" ] && { T=$d; break; }
done
if [ -z "$T" ]; then
	echo "no-tracefs" >"$out"
	exit 0
fi
echo "cpus $(grep -c '^processor' /proc/cpuinfo)" >"$out"
I=$T/instances/tracepoke-$$
mkdir "$I" || exit 1
busy() { while :; do /bin/true; done; }
busy & b1=$!
busy & b2=$!
t0=$(_up_int)
n=0
while [ $(($(_up_int) - t0)) -lt "$POKE_SECONDS" ]; do
	echo 1 >"$I/events/kmem/mm_page_alloc/enable" || break
	echo 0 >"$I/events/kmem/mm_page_alloc/enable" || break
	n=$((n + 1))
	[ $((n % 100)) = 0 ] && say "$n toggles in $(($(_up_int) - t0)) s"
done
kill "$b1" "$b2"
wait "$b1" "$b2" 2>/dev/null
rmdir "$I"
echo "toggles $n seconds $(($(_up_int) - t0))" >>"$out"
exit 0
