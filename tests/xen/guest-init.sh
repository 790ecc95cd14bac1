#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# /init of the Xen PV test guests (busybox ash, PID 1 of a dom0 or a domU
# running from an initramfs).  mkinitramfs.sh packs it with /guest-lib.sh, the
# scenarios (/scenarios/NAME/guest.sh and env) and /etc/soak.env, which sets:
#   STAGE          dom0 (soak in the dom0), domu (soak in a domU) or
#                  domu-host (the dom0 that runs the toolstack for a domU)
#   KVER           kernel release whose modules are under /lib/modules/$KVER
#   MODULES        module paths (relative to that folder) in insmod order
#   PAYLOAD_DEV    the read-only disk with programs and libraries
#   PAYLOAD        daemon | standin
#   LISTEN_PORT    port a scenario's daemon serves the report on, or empty
#   SCENARIOS      the scenarios to run, in order
#
# Everything the host needs leaves on the console: one-line facts between
# ===FPUSOAK-...=== markers, files as checksummed exports (guest-lib.sh).
# The guest always ends by powering off (or rebooting, which QEMU's
# -no-reboot also turns into an exit; a domU's end is seen by xl): the host
# never has to kill a healthy run.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

# shellcheck source=tests/xen/guest-lib.sh
. /guest-lib.sh

finish() {
	mark "GUEST-DONE uptime=$(uptime_s)"
	sync
	# The data disk is read back by the host from the image: leave it clean.
	[ -n "${DATA_DIR:-}" ] && umount "$DATA_DIR"
	poweroff -f
	# Xen may only halt on dom0 poweroff; a reboot makes QEMU exit for sure.
	sleep 2
	reboot -f
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /tmp /run /sys/kernel/debug /sys/fs/cgroup /proc/xen
mount -t devpts devpts /dev/pts
mount -t tmpfs -o size=32m tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t cgroup2 cgroup2 /sys/fs/cgroup

# shellcheck disable=SC1091 # made by mkinitramfs.sh
. /etc/soak.env
export STAGE PAYLOAD LISTEN_PORT
mark "GUEST-UP stage=$STAGE uptime=$(uptime_s) epoch=$(date +%s)"

for m in $MODULES; do
	insmod "/lib/modules/$KVER/$m" || echo "init: insmod $m failed"
done
# The payload disk (programs and libraries, see mkinitramfs.sh): virtio and
# the Xen block frontend probe asynchronously, so give it a few seconds.
i=0
while [ ! -b "$PAYLOAD_DEV" ] && [ "$i" -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
if mount -t ext2 -o ro "$PAYLOAD_DEV" /payload; then
	mark "PAYLOAD-DISK mounted"
else
	mark "PAYLOAD-DISK missing"
fi
# xenfs gives /proc/xen (capabilities says control_d in a dom0, nothing in a domU).
mount -t xenfs xenfs /proc/xen 2>/dev/null || echo "init: no xenfs"

# Workers' cgroups are created below the root: enable the controllers they
# need there (the root cgroup may hold processes, so the daemon can stay in it).
echo "+memory +pids" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null ||
	echo "init: cannot enable memory/pids controllers"

if [ "$STAGE" = domu ]; then
	# The toolstack built this domU larger than it runs (domu-host.sh): wait
	# until the balloon driver has handed the rest back to Xen.  The size it
	# runs with comes on the kernel command line (fpusoak_domu_kb=), so a
	# target the toolstack has not lowered yet is not taken for the end.
	b=/sys/devices/system/xen_memory/xen_memory0
	want=$(sed -n 's/.*fpusoak_domu_kb=\([0-9]*\).*/\1/p' /proc/cmdline)
	read -r target <"$b/target_kb"
	i=0
	while read -r cur <"$b/info/current_kb" &&
		{ [ "$cur" -gt "$target" ] || [ "$target" -gt "${want:-$target}" ]; } && [ "$i" -lt 120 ]; do
		sleep 0.5
		i=$((i + 1))
		read -r target <"$b/target_kb"
	done
	mark "BALLOON target_kb=$target current_kb=$cur reached=$([ "$cur" -le "$target" ] && echo 1 || echo 0) uptime=$(uptime_s)"
fi
# A writable data disk (run.sh XEN_DOMU_DATA_MB; the toolstack says so on the command line).
DATA_DIR=
if grep -q 'fpusoak_data=1' /proc/cmdline; then
	i=0
	while [ ! -b /dev/xvdb ] && [ "$i" -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
	mkdir -p /data
	if mount -t ext2 /dev/xvdb /data; then
		DATA_DIR=/data
		mark "DATA-DISK mounted"
	else
		mark "DATA-DISK missing"
	fi
fi
export DATA_DIR
mark "ENV stage=$STAGE hypervisor=$(cat /sys/hypervisor/type 2>/dev/null) guest_type=$(cat /sys/hypervisor/guest_type 2>/dev/null) release=$(uname -r) nproc=$(nproc)"
# The boot state, before anything ran: exported as boot/<file>.
SC_NAME=boot
export_proc meminfo buddyinfo cpuinfo xen/capabilities slabinfo vmallocinfo
send_exports boot
SC_NAME=

# Where a serving scenario's report is fetched: by the host through QEMU's
# forwarded port (host), inside the guest (guest: no NIC, e.g. a domU), or
# not at all (none: no port).
ip link set lo up 2>/dev/null
REPORT_VIA=none
if [ -n "$LISTEN_PORT" ] && [ -e /sys/class/net/eth0 ]; then
	# QEMU user networking: fixed addresses, and the host forwards only its
	# loopback port to ours (the NIC is created with restrict=on).
	ip addr add 10.0.2.15/24 dev eth0
	ip link set eth0 up
	REPORT_VIA=host
	mark "NET up"
elif [ -n "$LISTEN_PORT" ]; then
	REPORT_VIA=guest
	mark "NET loopback-only"
fi
export REPORT_VIA

if [ "$STAGE" = domu-host ]; then
	# shellcheck source=tests/xen/domu-host.sh
	. /domu-host.sh
else
	for s in $SCENARIOS; do
		run_scenario "$s"
	done
fi
finish
