# SPDX-License-Identifier: GPL-2.0-only
# Scenario "trace-restart" (guest side): another tracer's instance, fpusoakd
# SIGKILLed once its instance is set up, fpusoakd started again; what the
# instances folder holds at each step goes to trace-restart.txt.
out=/tmp/trace-restart.txt
db=/tmp/trace-restart.db
note() { echo "$*" >>"$out"; }
T=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d "$d/instances" ] && { T=$d; break; }
done
export_file trace-restart.txt "$out"
export_db fpusoakd.db "$db"
if [ -z "$T" ]; then
	note "no-tracefs"
	exit 0
fi
I=$T/instances
quiet="--workers 0 --probe-interval 0 --switch-probe-interval 0"
# Someone else's instance, with a setting of theirs.
mkdir "$I/other-tracer" && echo 1 >"$I/other-tracer/events/kmem/mm_page_alloc/enable"
note "foreign $(cat "$I/other-tracer/events/kmem/mm_page_alloc/enable")"
# shellcheck disable=SC2086 # a word list
daemon_start "$db" --duration 120s $quiet
# Set up = its three extfrag triggers are in place.
i=0
while [ "$i" -lt 60 ] && [ "$(cat "$I"/fpusoakd-"$DAEMON_PID"-*/events/kmem/mm_page_alloc_extfrag/trigger 2>/dev/null | grep -c '^hist:')" != 3 ]; do
	sleep 1
	i=$((i + 1))
done
note "running pid=$DAEMON_PID $(ls "$I" | tr '\n' ' ')"
daemon_signal KILL
daemon_wait
note "killed $(ls "$I" | tr '\n' ' ')"
note "killed-triggers $(cat "$I"/fpusoakd-*/events/kmem/mm_page_alloc_extfrag/trigger 2>/dev/null | grep -c '^hist:')"
# shellcheck disable=SC2086
daemon_start "$db" --duration 5s $quiet
daemon_wait
rc=$?
note "restarted $(ls "$I" | tr '\n' ' ')"
note "foreign-after $(cat "$I/other-tracer/events/kmem/mm_page_alloc/enable")"
rmdir "$I/other-tracer"
exit "$rc"
