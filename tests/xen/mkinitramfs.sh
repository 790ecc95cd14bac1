#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build a Xen PV test guest's boot files:
#  - the initramfs (--out): static busybox, /init (guest-init.sh),
#    /guest-lib.sh, the scenarios staged by host-lib.sh (/scenarios/NAME/),
#    the few kernel modules the guest loads, and /etc/soak.env;
#  - a read-only ext2 disk image (--disk): the dynamically linked programs
#    with every shared library ldd names and the dynamic loader, plus the
#    scenarios' payload files.
# Why a disk: an initramfs lives in ramfs, which is never reclaimed; the
# ~19 MB of libraries (gnutls, gcrypt, systemd, sqlite...) would pin a
# quarter of the 79 MB dom0 (and more of a 64 MB domU) and distort the
# capacity probe.  On a disk they are page cache, reclaimable under pressure
# as in a real guest.  The initramfs links /lib/x86_64-linux-gnu, /lib64 and
# the programs into the disk's mount point /payload.
#
# Stages:
#   dom0       the soak runs in the dom0 (disk: QEMU virtio, /dev/vda)
#   domu       the soak runs in a domU (disk: Xen block frontend, /dev/xvda)
#   domu-host  the dom0 that starts the toolstack and the domU: disk with
#              xl, xenstored, xenconsoled and their libraries (--tools, the
#              Debian packages prepare-domu.sh extracted) and the domU's
#              kernel and initramfs (--domu-kernel, --domu-initrd)
#
# Usage: mkinitramfs.sh --out FILE --disk FILE [--stage dom0|domu|domu-host]
#          [--payload daemon|standin] [--daemon PATH] [--port N|'']
#          [--scenarios DIR --list "NAME..."]        (dom0, domu)
#          [--moddir DIR] [--compress gzip|xz]
#          [--tools DIR --domu-kernel F --domu-initrd F --domu-env F] (domu-host)
# --moddir: the modules of another kernel than prepare.sh's (the domU's cloud
# kernel, prepare-domu.sh); its release is the folder's name.
# --compress xz: Xen's PV domain builder inflates a gzip'd ramdisk inside the
# new domain before the kernel runs (libxenguest recognises gzip only): the
# domain then holds the whole cpio (2.2 MB) until the kernel has unpacked and
# freed it, and needs that much more to be built at all.  An xz'd one
# (0.9 MB) stays packed until the kernel unpacks it.
# Needs $XEN_CACHE/env (~/.cache/fpusoakd/xen/env by default) from prepare.sh.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${XEN_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fpusoakd/xen}
out='' disk='' stage=dom0 payload=standin daemon='' port=8089 sdir='' list=''
tools='' dkernel='' dinitrd='' denv='' moddir='' compress=gzip
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift 2 ;;
	--disk) disk=$2; shift 2 ;;
	--stage) stage=$2; shift 2 ;;
	--payload) payload=$2; shift 2 ;;
	--daemon) daemon=$2; shift 2 ;;
	--port) port=$2; shift 2 ;;
	--scenarios) sdir=$2; shift 2 ;;
	--list) list=$2; shift 2 ;;
	--tools) tools=$2; shift 2 ;;
	--domu-kernel) dkernel=$2; shift 2 ;;
	--domu-initrd) dinitrd=$2; shift 2 ;;
	--domu-env) denv=$2; shift 2 ;;
	--moddir) moddir=$2; shift 2 ;;
	--compress) compress=$2; shift 2 ;;
	*) echo "mkinitramfs: unknown argument $1" >&2; exit 2 ;;
	esac
done
die() { echo "mkinitramfs: $*" >&2; exit 2; }
[ -n "$out" ] && [ -n "$disk" ] || die "--out FILE and --disk FILE are required"
case "$payload" in
daemon) [ -x "$daemon" ] || die "--daemon PATH must be executable" ;;
standin) ;;
*) die "--payload daemon|standin" ;;
esac
case "$compress" in gzip | xz) ;; *) die "--compress gzip|xz" ;; esac
# shellcheck disable=SC1091
. "$cache/env"
if [ -n "$moddir" ]; then
	[ -f "$moddir/modules.dep" ] || die "--moddir $moddir has no modules.dep"
	MODDIR=$moddir KVER=$(basename "$moddir")
fi

# Modules the guest loads, the rest of the Xen drivers it uses (hvc console,
# /sys/hypervisor, xenbus, balloon) being built into Debian's kernel; one
# that the kernel builds in (modules.builtin: ext4 and crc32c in the cloud
# flavour) is left out:
#   xenfs  -> /proc/xen (needs xen-privcmd)
#   ext4 (which mounts ext2) -> the payload disk; ext4 asks the crypto API
#   for "crc32c" at mount, a soft dependency that modules.dep does not list,
#   hence crc32c_generic.
#   dom0: e1000 (QEMU's NIC, serving the report), virtio_pci + virtio_blk.
#   domu: xen-blkfront (the disk dom0 gives it).
#   domu-host: the toolstack's devices (evtchn, gntdev, gntalloc; privcmd
#   comes with xenfs), xen-blkback (serves the domU's disk), virtio.
common_mods="kernel/drivers/xen/xenfs/xenfs.ko kernel/crypto/crc32c_generic.ko kernel/fs/ext4/ext4.ko"
virtio_mods="kernel/drivers/virtio/virtio_pci.ko kernel/drivers/block/virtio_blk.ko"
case "$stage" in
dom0)
	want_mods="$common_mods kernel/drivers/net/ethernet/intel/e1000/e1000.ko $virtio_mods"
	pdev=/dev/vda ;;
domu)
	want_mods="$common_mods kernel/drivers/block/xen-blkfront.ko"
	pdev=/dev/xvda ;;
domu-host)
	want_mods="$common_mods kernel/drivers/xen/xen-evtchn.ko kernel/drivers/xen/xen-gntdev.ko
		kernel/drivers/xen/xen-gntalloc.ko kernel/drivers/block/xen-blkback/xen-blkback.ko $virtio_mods"
	pdev=/dev/vda
	[ -d "$tools" ] || die "--tools DIR (the extracted toolstack) is required for domu-host"
	[ -f "$dkernel" ] && [ -f "$dinitrd" ] && [ -f "$denv" ] || die "--domu-kernel, --domu-initrd, --domu-env FILE are required for domu-host"
	;;
*) die "--stage dom0|domu|domu-host" ;;
esac

root=$(mktemp -d "${TMPDIR:-/tmp}/fpusoak-initrd.XXXXXX")
proot=$(mktemp -d "${TMPDIR:-/tmp}/fpusoak-disk.XXXXXX")
trap 'rm -rf "$root" "$proot"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,payload,scenarios,lib/modules/"$KVER"}

# busybox and its applets, at the paths busybox itself names.
cp /bin/busybox "$root/bin/busybox"
/bin/busybox --list-full | while read -r a; do
	[ -e "$root/$a" ] || ln -s /bin/busybox "$root/$a"
done

# copy_bin SRC DEST [LIBDIR]: the program (on the disk, linked from the
# initramfs) and every library ldd resolves for it, at the same paths, so the
# loader finds them without an ld.so.cache.  Libraries found in LIBDIR (an
# extracted package tree's library folder) go to /lib/x86_64-linux-gnu.
copy_bin() {
	local src=$1 dest=$2 libdir=${3:-} lib to
	install -D -m 0755 "$src" "$proot$dest"
	mkdir -p "$(dirname "$root$dest")"
	ln -sfn "/payload$dest" "$root$dest"
	LD_LIBRARY_PATH=$libdir ldd "$src" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
		while read -r lib; do
			to=$lib
			if [ -n "$libdir" ] && [ "${lib#"$libdir"/}" != "$lib" ]; then to=/lib/x86_64-linux-gnu/${lib#"$libdir"/}; fi
			[ -e "$proot$to" ] || install -D -m 0755 "$(readlink -f "$lib")" "$proot$to"
		done
	if LD_LIBRARY_PATH=$libdir ldd "$src" | grep -q 'not found'; then
		die "$src: $(LD_LIBRARY_PATH=$libdir ldd "$src" | grep 'not found' | tr -s ' \t' ' ' | tr '\n' ';')"
	fi
}

q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
if [ "$stage" = domu-host ]; then
	# The toolstack at Debian's own paths; the xenstore-* tools are one
	# program that looks at its name.
	tlib=$tools/usr/lib/x86_64-linux-gnu
	xbin=$(cd "$tools" && ls -d usr/lib/xen-*/bin | head -1)
	for b in xl xenstored xenconsoled xen-init-dom0; do
		copy_bin "$tools/$xbin/$b" "/$xbin/$b" "$tlib"
	done
	copy_bin "$tools/usr/bin/xenstore" /usr/bin/xenstore "$tlib"
	for t in read write ls list rm exists chmod; do ln -sfn xenstore "$root/usr/bin/xenstore-$t"; done
	install -D -m 0644 "$dkernel" "$proot/domu/vmlinuz"
	install -D -m 0644 "$dinitrd" "$proot/domu/initrd.img"
	install -m 0755 "$here/domu-host.sh" "$root/domu-host.sh"
	install -m 0755 "$here/domu-block.sh" "$root/domu-block.sh"
	mkdir -p "$root/etc/xen" "$root/var/lib/xen" "$root/var/log/xen" "$root/var/run/xen" "$root/var/lib/xenstored"
	cp "$denv" "$root/etc/domu.env"
	echo "XEN_BIN=$(q "/$xbin")" >>"$root/etc/domu.env"
	# No ballooning of dom0 (its memory is fixed by dom0_mem); one lock file.
	printf 'autoballoon="off"\nlockfile="/run/xl.lock"\n' >"$root/etc/xen/xl.conf"
else
	copy_bin "$(command -v sqlite3)" /usr/bin/sqlite3
	if [ "$payload" = daemon ]; then
		copy_bin "$daemon" /usr/sbin/fpusoakd
		# The programs the daemon execs from beside itself, if built: the static churn spawner
		# (spawner/spawner.h) and the web process with its libraries (cmd/front.h).
		for h in fpusoakd-spawner fpusoakd-web; do
			sp="$(dirname "$(readlink -f "$daemon")")/$h"
			if [ -x "$sp" ]; then copy_bin "$sp" "/usr/sbin/$h"; fi
		done
	fi
	# The scenarios: their scripts in the initramfs, their files on the disk.
	for n in $list; do
		[ -f "$sdir/$n/guest.sh" ] || die "scenario $n not staged in $sdir"
		mkdir -p "$root/scenarios/$n"
		install -m 0644 "$sdir/$n/guest.sh" "$sdir/$n/env" "$root/scenarios/$n/"
		if [ -n "$(ls -A "$sdir/$n/files" 2>/dev/null)" ]; then
			cp -a "$sdir/$n/files/." "$proot/"
		fi
	done
fi
for d in "$proot"/lib/* "$proot"/lib64; do
	[ -d "$d" ] && [ "$(basename "$d")" != modules ] && ln -sfn "/payload${d#"$proot"}" "$root${d#"$proot"}"
done
# Scenario files under other folders are reached through /payload; the
# usual programs' folders are linked file by file above.

# modules with their dependencies first (modules.dep: "mod: dep1 dep2", where a
# dep's own deps are listed too, deepest last).
order=()
add_mod() {
	local m=$1 d line
	for d in "${order[@]:-}"; do [ "$d" = "$m" ] && return 0; done
	line=$(grep -m1 "^$m:" "$MODDIR/modules.dep") || { echo "mkinitramfs: $m not in modules.dep" >&2; exit 1; }
	local deps=${line#*:}
	local rev=()
	for d in $deps; do rev=("$d" "${rev[@]}"); done
	for d in "${rev[@]:-}"; do [ -n "$d" ] && add_mod "$d"; done
	order+=("$m")
}
for m in $want_mods; do
	grep -qx "$m" "$MODDIR/modules.builtin" 2>/dev/null || add_mod "$m"
done
for m in "${order[@]}"; do install -D -m 0644 "$MODDIR/$m" "$root/lib/modules/$KVER/$m"; done

install -m 0755 "$here/guest-init.sh" "$root/init"
install -m 0644 "$here/guest-lib.sh" "$root/guest-lib.sh"
install -m 0755 "$here/standin.sh" "$root/standin.sh"
{
	echo "STAGE=$(q "$stage")"
	echo "KVER=$(q "$KVER")"
	echo "MODULES=$(q "${order[*]}")"
	echo "PAYLOAD_DEV=$(q "$pdev")"
	echo "PAYLOAD=$(q "$payload")"
	echo "LISTEN_PORT=$(q "$port")"
	echo "SCENARIOS=$(q "$list")"
} >"$root/etc/soak.env"
echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
echo "xen-$stage" >"$root/etc/hostname"

mkdir -p "$(dirname "$out")" "$(dirname "$disk")"
# ext2: no journal to replay, mounted read-only; a quarter spare for inodes.
kb=$(du -sk "$proot" | cut -f1)
rm -f "$disk.tmp"
mke2fs -q -F -t ext2 -L fpusoak -d "$proot" "$disk.tmp" "$((kb + kb / 4 + 1024))k" >/dev/null
mv "$disk.tmp" "$disk"
# xz: CRC32 and a 1 MiB dictionary, what the kernel's unpacker takes.
pack() { if [ "$compress" = xz ]; then xz -9 --check=crc32 --lzma2=dict=1MiB; else gzip -6; fi; }
(cd "$root" && find . -print | sort | cpio -o -H newc --quiet -R 0:0) | pack >"$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs: $stage: $out ($(du -k "$out" | cut -f1) KiB), $disk ($kb KiB used), payload $payload, scenarios: ${list:-none}, modules: ${order[*]}" >&2
