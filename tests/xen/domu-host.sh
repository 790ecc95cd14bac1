# SPDX-License-Identifier: GPL-2.0-only
# The dom0 side of the domU stage (busybox ash), sourced by /init when
# STAGE=domu-host.  Starts Debian's toolstack the way its init script does
# (xenstored, xen-init-dom0, xenconsoled), `xl create`s a PV domU from the
# domU stage's kernel, initramfs and disk (the second QEMU disk, /dev/vdb,
# served read-only by blkback), waits for it to power itself off, and exports
# the domU's console log (kept by xenconsoled: the domU's own exports are in
# it) and the toolstack's logs as domu/<file>.
# /etc/domu.env: DOMU_MEMORY (MB the domU runs with), DOMU_BOOT_MEMORY (MB
# it is built with), DOMU_TIMEOUT (s, its hard cap), DOMU_DATA (1: QEMU's third
# disk, /dev/vdc, goes to the domU writable as xvdb), DOMU_CPUS (its CPU
# affinity: 1, away from the dom0's pinned vCPU, see run.sh), DOM0_NOISE
# and DOMU_CMDLINE_EXTRA (diagnostics), XEN_BIN.
#
# Why two sizes: Xen's PV domain builder lays the kernel image out at its
# link address in the guest's pseudo-physical space, maps it plus the
# start-info, xenstore and console pages, the page tables and the boot stack
# with 512 KiB to spare rounded up to 4 MiB, and only then places the
# initramfs and the p2m list (Linux asks for both unmapped).  Debian's cloud
# image spans 0x1000000-0x3e00000 (46 MB from 16 MB up), so that mapping ends
# at exactly 64 MB (pfn 0x4000) and the initramfs (0xe1 pages) no longer fits
# in a 64 MB domain ("segment module0 too large (0xe1 > 0x4000 - 0x4000
# pages)"); the generic image (to 0x4a00000) needs ~84 MB.  So the domU is
# built with DOMU_BOOT_MEMORY (66 for the cloud image), and once it runs the
# toolstack sets its target and its maximum to DOMU_MEMORY (`xl mem-set`,
# `xl mem-max`): its balloon driver hands the difference back to Xen, and
# its /init (told the size by fpusoak_domu_kb= on its command line) waits
# for that before any scenario runs.
# shellcheck disable=SC1091 # made by mkinitramfs.sh
. /etc/domu.env
PATH=$XEN_BIN:$PATH
export PATH
SC_NAME=domu
mkdir -p /var/run/xen /var/run/xenstored /var/lib/xenstored /var/lib/xen /var/log/xen /tmp/xenconsole

# xenfs must be there: xenstored maps the dom0's store page through it.
t0=$(_up_int)
ts=ok why=
if ! grep -q control_d /proc/xen/capabilities 2>/dev/null; then
	ts=fail why="no control_d in /proc/xen/capabilities"
fi
# xenstored: C implementation, as Debian's launch-xenstore starts it.
if [ "$ts" = ok ]; then
	xenstored --pid-file /run/xenstored.pid >/tmp/xenstored.log 2>&1 || { ts=fail why="xenstored exited $?"; }
fi
i=0
while [ "$ts" = ok ] && ! xenstore-read -s / >/dev/null 2>&1; do
	i=$((i + 1))
	[ "$i" -gt 60 ] && { ts=fail why="xenstored not answering after 30s"; break; }
	sleep 0.5
done
if [ "$ts" = ok ]; then
	xen-init-dom0 >/tmp/xen-init-dom0.log 2>&1 || { ts=fail why="xen-init-dom0 exited $?"; }
fi
if [ "$ts" = ok ]; then
	# --log=guest: every domU's console also goes to /tmp/xenconsole/guest-NAME.log.
	xenconsoled --pid-file=/run/xenconsoled.pid --log=guest --log-dir=/tmp/xenconsole \
		>/tmp/xenconsoled.log 2>&1 || { ts=fail why="xenconsoled exited $?"; }
fi
dom0_name=$(xenstore-read /local/domain/0/name 2>/dev/null)
mark "TOOLSTACK ok=$([ "$ts" = ok ] && echo 1 || echo 0) seconds=$(($(_up_int) - t0)) dom0_name=${dom0_name:-none}${why:+ why=$(echo "$why" | tr ' ' '_')}"

how=none
if [ "$ts" = ok ]; then
	cat >/run/domu.cfg <<-EOF
	name = "fpusoak-domu"
	type = "pv"
	kernel = "/payload/domu/vmlinuz"
	ramdisk = "/payload/domu/initrd.img"
	cmdline = "console=hvc0 panic=1 fpusoak_domu_kb=$((DOMU_MEMORY * 1024))$([ "${DOMU_DATA:-0}" = 1 ] && echo " fpusoak_data=1")${DOMU_CMDLINE_EXTRA:+ $DOMU_CMDLINE_EXTRA}"
	memory = $DOMU_BOOT_MEMORY
	maxmem = $DOMU_BOOT_MEMORY
	vcpus = 1
	cpus = "${DOMU_CPUS:-1}"
	disk = [ "format=raw,vdev=xvda,access=ro,script=/domu-block.sh,target=/dev/vdb"$([ "${DOMU_DATA:-0}" = 1 ] && echo ', "format=raw,vdev=xvdb,access=rw,script=/domu-block.sh,target=/dev/vdc"') ]
	on_poweroff = "destroy"
	on_reboot = "destroy"
	on_crash = "destroy"
	EOF
	# The domU's markers (not its exports) on the serial console as they
	# come, so its progress shows live; the whole log is exported at the end.
	# Xen's view of the domU's memory is taken once, when the domU says its
	# balloon is done (before its scenarios: the dom0 stays quiet while they
	# run).
	( while [ ! -f /tmp/xenconsole/guest-fpusoak-domu.log ]; do sleep 1; done
	  tail -f /tmp/xenconsole/guest-fpusoak-domu.log |
		awk '/^===FPUSOAK-/ && !/EXPORT/ { sub(/\r$/, ""); print "domU: " $0; fflush() }
			/^===FPUSOAK-BALLOON / { system("xl list >/tmp/xl-list.log 2>&1; xenstore-read /local/domain/$(xl domid fpusoak-domu)/memory/static-max >/tmp/xl-maxmem.log 2>&1") }' ) &
	tailpid=$!
	tc=$(_up_int)
	# -F: xl stays in the foreground until the domain is gone.
	xl -v create -F /run/domu.cfg >/tmp/xl.log 2>&1 &
	xlpid=$!
	domid=
	i=0
	while [ -z "$domid" ] && kill -0 "$xlpid" 2>/dev/null && [ "$i" -lt 240 ]; do
		domid=$(xl domid fpusoak-domu 2>/dev/null)
		[ -n "$domid" ] || sleep 0.5
		i=$((i + 1))
	done
	if [ -n "$domid" ] && [ "$DOMU_MEMORY" -lt "$DOMU_BOOT_MEMORY" ]; then
		# Once the domain runs (its console is connected: the log exists),
		# its target becomes DOMU_MEMORY; earlier, libxl's build would
		# write its own target over it.
		( i=0
		  while [ ! -f /tmp/xenconsole/guest-fpusoak-domu.log ] && [ "$i" -lt 240 ]; do sleep 0.5; i=$((i + 1)); done
		  xl mem-set fpusoak-domu "${DOMU_MEMORY}m" >>/tmp/xl.log 2>&1 || echo "init: xl mem-set ${DOMU_MEMORY}m failed"
		  # and its maximum: the domain can never grow back (Xen lets it
		  # ratchet down to a maximum below what it holds).
		  xl mem-max fpusoak-domu "${DOMU_MEMORY}m" >>/tmp/xl.log 2>&1 || echo "init: xl mem-max ${DOMU_MEMORY}m failed" ) &
	fi
	if [ -n "$domid" ]; then
		mark "DOMU-CREATED domid=$domid boot_memory=${DOMU_BOOT_MEMORY}M memory=${DOMU_MEMORY}M vcpus=1 seconds=$(($(_up_int) - tc)) epoch=$(date +%s)"
		if [ "${DOM0_NOISE:-0}" = 1 ]; then
			# Diagnostics only (XEN_DOM0_NOISE=1): the dom0 forks busily while the domU runs.
			( while kill -0 "$xlpid" 2>/dev/null; do grep -q x /etc/passwd; done ) &
		fi
		( sleep "$DOMU_TIMEOUT"; echo "init: the domU is over its ${DOMU_TIMEOUT}s cap, destroying it"
		  touch /run/domu-timeout; xl destroy fpusoak-domu ) &
		wdpid=$!
		wait "$xlpid"
		xrc=$?
		kill "$wdpid" 2>/dev/null
		# xl reports the shutdown: "... has shut down, reason code 0 0x0".
		code=$(sed -n 's/.*shut down, reason code \([0-9]*\).*/\1/p' /tmp/xl.log | tail -1)
		case "$code" in
		0) how=poweroff ;; 1) how=reboot ;; 3) how=crash ;; '') how=unknown ;; *) how=code$code ;;
		esac
		[ -f /run/domu-timeout ] && how=timeout
		mark "DOMU-END domid=$domid how=$how xl_rc=$xrc seconds=$(($(_up_int) - tc)) epoch=$(date +%s)"
	else
		wait "$xlpid"
		mark "DOMU-FAILED xl_rc=$? $(tail -1 /tmp/xl.log | tr -d '=')"
	fi
	sleep 1
	kill "$tailpid" 2>/dev/null
fi

export_file console.log /tmp/xenconsole/guest-fpusoak-domu.log
for f in xl xl-list xl-maxmem xenstored xenconsoled xen-init-dom0; do
	[ -f "/tmp/$f.log" ] && export_file "$f.log" "/tmp/$f.log"
done
export_proc meminfo
send_exports domu
