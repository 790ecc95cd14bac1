# SPDX-License-Identifier: GPL-2.0-only
# The gfp scenario, guest side (busybox ash, sourced by the guest's /init,
# which provides mark, section, uptime_s, $db and the soak settings): the
# 2014 test repeated with the fpusoak_gfp module.
#   1. insmod the module built on the host against this kernel's headers;
#   2. gfp_iface checks its interface (arguments, cap, counters, permissions);
#   3. fpusoakd soaks with --gfp-mode alternate --model-check-interval 5s
#      (FPUSOAKD_ARGS), and this script starts its guest-scope capacity
#      probes itself (SIGUSR1), one after the other with GFP_PROBE_GAP
#      seconds of churn between them, until GFP_PROBES are done or
#      GFP_PROBE_WINDOW seconds have passed, then stops it: a probe is never
#      cut short by the end of the soak, and the guest time stays bounded;
#   4. the module's counters are dumped before and after (the host compares
#      their differences with what the daemon stored), then rmmod: it must
#      unload cleanly and take its slab cache and device node along.
# Sets rc (the daemon's exit status) like the daemon payload does.
GFP_KO=/lib/modules/extra/fpusoak_gfp.ko
GFP_SYS=/sys/class/misc/fpusoak_gfp
GFP_PROBES=${GFP_PROBES:-4}
GFP_PROBE_GAP=${GFP_PROBE_GAP:-5}
GFP_PROBE_WINDOW=${GFP_PROBE_WINDOW:-150}

gfp_counters() { # gfp_counters NAME: every counter file as "name value..." lines
	mark "FILE-BEGIN $1"
	for f in "$GFP_SYS"/counters/* "$GFP_SYS"/held "$GFP_SYS"/object_size "$GFP_SYS"/max_order; do
		[ -r "$f" ] && echo "${f##*/} $(cat "$f")"
	done
	mark "FILE-END $1"
}

gfp_probes_done() { # capacity probes stored so far (0 while the DB is not there yet)
	n=$(sqlite3 -readonly "$db" "SELECT count(*) FROM v_probes WHERE kind = 'capacity'" 2>/dev/null)
	echo "${n:-0}"
}

gfp_alive() { # the daemon runs (a zombie answers kill -0 until it is waited for)
	[ -r "/proc/$1/stat" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat")" != Z ]
}

gfp_elapsed() { # whole seconds since $1 (an uptime_s value)
	awk -v a="$1" -v b="$(uptime_s)" 'BEGIN { printf "%d", b - a }'
}

if insmod "$GFP_KO"; then
	mark "GFP-INSMOD ok uptime=$(uptime_s)"
else
	mark "GFP-INSMOD failed rc=$?"
fi
# devtmpfs makes the node as the module asked (0600 root:root); give it a moment.
i=0
while [ ! -c /dev/fpusoak_gfp ] && [ "$i" -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
/usr/bin/gfp_iface
mark "GFP-IFACE-EXIT rc=$?"
gfp_counters gfp-counters.before

if [ -n "$LISTEN_PORT" ]; then listen="0.0.0.0:$LISTEN_PORT"; else listen=none; fi
# Refused HOLDs print "page allocation failure" warnings: they belong in
# /dev/kmsg (fpusoakd reads them there), not on the emulated serial console.
dmesg -n 1
# shellcheck disable=SC2086 # FPUSOAKD_ARGS is a word list by design
/usr/sbin/fpusoakd --db "$db" --listen "$listen" --label xen-pv-gfp $FPUSOAKD_ARGS &
dpid=$!
( sleep "$GUEST_TIMEOUT"; echo "init: guest timeout, stopping fpusoakd"; kill -TERM "$dpid"
  sleep 15; kill -KILL "$dpid" ) &
wpid=$!

t0=$(uptime_s)
sleep "$GFP_PROBE_GAP"
started=0
while [ "$started" -lt "$GFP_PROBES" ] && gfp_alive "$dpid"; do
	# After two probes (one per mode) a new one starts only inside the window.
	if [ "$started" -ge 2 ] && [ "$(gfp_elapsed "$t0")" -ge "$GFP_PROBE_WINDOW" ]; then
		break
	fi
	started=$((started + 1))
	mark "GFP-PROBE-SIGNAL n=$started uptime=$(uptime_s)"
	kill -USR1 "$dpid"
	ts=$(uptime_s)
	# A probe ends by itself (each step times out after 10 s); 240 s is only a bound on a bug.
	while gfp_alive "$dpid" && [ "$(gfp_probes_done)" -lt "$started" ] && [ "$(gfp_elapsed "$ts")" -lt 240 ]; do
		sleep 2
	done
	mark "GFP-PROBE-DONE n=$started uptime=$(uptime_s)"
	sleep "$GFP_PROBE_GAP"
done
mark "GFP-SOAK-END probes=$started seconds=$(gfp_elapsed "$t0")"
kill -TERM "$dpid" 2>/dev/null
wait "$dpid"
rc=$?
kill "$wpid" 2>/dev/null
dmesg -n 7
gfp_counters gfp-counters.after
if rmmod fpusoak_gfp; then
	mark "GFP-RMMOD ok node=$([ -e /dev/fpusoak_gfp ] && echo present || echo gone) cache=$(grep -c '^fpusoak_xstate ' /proc/slabinfo)"
else
	mark "GFP-RMMOD failed rc=$?"
fi
