#!/bin/sh
# /init of the Xen PV test guest (busybox ash, PID 1 of a dom0 running from
# an initramfs).  mkinitramfs.sh packs it with /etc/soak.env, which sets:
#   KVER           kernel release whose modules are under /lib/modules/$KVER
#   MODULES        module paths (relative to that folder) in insmod order
#   PAYLOAD        daemon | standin
#   SOAK_SECONDS   bounded soak length (guest time)
#   GUEST_TIMEOUT  hard cap for the payload, killed after it (guest time)
#   PROBE_AT       seconds into the soak to send the daemon SIGUSR1 (one
#                  capacity probe), or empty
#   LISTEN_PORT    port the report is served on inside the guest, or empty
#   FPUSOAKD_ARGS  extra daemon flags (churn, probe), word-split on purpose
#
# Everything the host needs leaves on the console between marker lines:
#   ===FPUSOAK-<WHAT> ...===   one-line facts (timings, exit status)
#   ===FPUSOAK-FILE-BEGIN name=== ... ===FPUSOAK-FILE-END name===
#   ===FPUSOAK-DB-BEGIN ...=== gzip+base64 ===FPUSOAK-DB-END=== then the gzip's
#   sha256, so the host knows the copy it decoded is the one that was sent.
# The guest always ends by powering off (or rebooting, which QEMU's -no-reboot
# also turns into an exit): the host never has to kill a healthy run.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

mark() { echo "===FPUSOAK-$*==="; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }

# A section is a file printed verbatim between two markers; absent files say so.
section() { # section NAME FILE
	mark "FILE-BEGIN $1"
	if [ -r "$2" ]; then cat "$2"; else echo "(unreadable: $2)"; fi
	mark "FILE-END $1"
}

finish() {
	mark "GUEST-DONE uptime=$(uptime_s)"
	sync
	poweroff -f
	# Xen may only halt on dom0 poweroff; a reboot makes QEMU exit for sure.
	sleep 2
	reboot -f
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /tmp /run /sys/kernel/debug /sys/fs/cgroup /proc/xen
mount -t tmpfs -o size=32m tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t cgroup2 cgroup2 /sys/fs/cgroup

# shellcheck disable=SC1091 # made by mkinitramfs.sh
. /etc/soak.env
mark "GUEST-UP uptime=$(uptime_s) epoch=$(date +%s)"

for m in $MODULES; do
	insmod "/lib/modules/$KVER/$m" || echo "init: insmod $m failed"
done
# The payload disk (programs and libraries, see mkinitramfs.sh): virtio
# probes asynchronously, so give /dev/vda a few seconds to appear.
i=0
while [ ! -b /dev/vda ] && [ "$i" -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
if mount -t ext2 -o ro /dev/vda /payload; then
	mark "PAYLOAD-DISK mounted"
else
	mark "PAYLOAD-DISK missing"
fi
# xenfs gives /proc/xen (capabilities says control_d in dom0); optional.
mount -t xenfs xenfs /proc/xen 2>/dev/null || echo "init: no xenfs"

# Workers' cgroups are created below the root: enable the controllers they
# need there (the root cgroup may hold processes, so the daemon can stay in it).
echo "+memory +pids" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null ||
	echo "init: cannot enable memory/pids controllers"

mark "ENV hypervisor=$(cat /sys/hypervisor/type 2>/dev/null) guest_type=$(cat /sys/hypervisor/guest_type 2>/dev/null) release=$(uname -r) nproc=$(nproc)"
section xen-capabilities /proc/xen/capabilities
section meminfo.boot /proc/meminfo
section buddyinfo.boot /proc/buddyinfo
section cpuinfo /proc/cpuinfo

if [ -n "$LISTEN_PORT" ] && [ -e /sys/class/net/eth0 ]; then
	# QEMU user networking: fixed addresses, and the host forwards only its
	# loopback port to ours (the NIC is created with restrict=on).
	ip link set lo up
	ip addr add 10.0.2.15/24 dev eth0
	ip link set eth0 up
	mark "NET up"
elif [ -n "$LISTEN_PORT" ]; then
	echo "init: no eth0, the report will not be served"
	LISTEN_PORT=
fi

db=/tmp/fpusoakd.db
rc=0
mark "PAYLOAD-START kind=$PAYLOAD uptime=$(uptime_s) epoch=$(date +%s)"
case "$PAYLOAD" in
daemon)
	if [ -n "$LISTEN_PORT" ]; then listen="0.0.0.0:$LISTEN_PORT"; else listen=none; fi
	# shellcheck disable=SC2086 # FPUSOAKD_ARGS is a word list by design
	/usr/sbin/fpusoakd --db "$db" --listen "$listen" --label xen-pv-testbed \
		--duration "${SOAK_SECONDS}s" $FPUSOAKD_ARGS &
	dpid=$!
	# The hard cap: TERM, then KILL; the watchdog is ended once the daemon is.
	( sleep "$GUEST_TIMEOUT"; echo "init: guest timeout, stopping fpusoakd"; kill -TERM "$dpid"
	  sleep 15; kill -KILL "$dpid" ) &
	wpid=$!
	# Exactly one capacity probe, at a known time (SIGUSR1 starts one), so it
	# has the rest of the soak to fill the guest and release it.
	ppid_=
	if [ -n "$PROBE_AT" ]; then
		( sleep "$PROBE_AT"; mark "PROBE-SIGNAL uptime=$(uptime_s)"; kill -USR1 "$dpid" ) &
		ppid_=$!
	fi
	wait "$dpid"
	rc=$?
	kill "$wpid" $ppid_ 2>/dev/null
	;;
standin)
	# Proves the pipeline (boot, payload, DB out over the console, host
	# checks) before the daemon exists: the same v_runs/v_buddyinfo names,
	# filled from the same kernel files by the sqlite3 CLI.
	# busybox httpd stands in for the report, so the host's fetch through
	# QEMU's forwarded port is proven too.
	hpid=
	if [ -n "$LISTEN_PORT" ]; then
		mkdir -p /tmp/www
		echo "<html><body>xen-pv-testbed: fpusoakd stand-in on $(cat /sys/hypervisor/type)/$(cat /sys/hypervisor/guest_type)</body></html>" >/tmp/www/index.html
		httpd -f -p "$LISTEN_PORT" -h /tmp/www &
		hpid=$!
	fi
	/bin/sh /standin.sh "$db" "$SOAK_SECONDS"
	rc=$?
	[ -n "$hpid" ] && kill "$hpid"
	;;
*)
	echo "init: unknown payload '$PAYLOAD'"
	rc=2
	;;
esac
mark "PAYLOAD-EXIT rc=$rc uptime=$(uptime_s) epoch=$(date +%s)"

# Quiet the kernel on the console so no printk lands inside the base64 below.
dmesg -n 1
section meminfo /proc/meminfo
section buddyinfo /proc/buddyinfo
section zoneinfo /proc/zoneinfo
section pagetypeinfo /proc/pagetypeinfo
section slabinfo /proc/slabinfo
section vmstat /proc/vmstat

if [ -f "$db" ]; then
	# .backup folds any WAL into one consistent file, whatever the daemon left.
	sqlite3 "$db" ".backup /tmp/out.db" || cp "$db" /tmp/out.db
	gzip -9 -c /tmp/out.db >/tmp/out.db.gz
	mark "DB-BEGIN bytes=$(wc -c </tmp/out.db)"
	base64 /tmp/out.db.gz
	mark "DB-END"
	mark "DB-SHA256 $(sha256sum /tmp/out.db.gz | cut -d' ' -f1)"
else
	mark "DB-MISSING"
fi
finish
