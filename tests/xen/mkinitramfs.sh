#!/usr/bin/env bash
# Build the Xen PV guest's boot files:
#  - the initramfs (--out): static busybox, /init (guest-init.sh), the few
#    kernel modules the guest loads, and /etc/soak.env, the soak
#    configuration /init reads;
#  - a read-only ext2 disk image (--disk): the dynamically linked programs,
#    fpusoakd (daemon payload) and the sqlite3 CLI (the guest folds the DB's
#    WAL with it; the stand-in payload is made of it), with every shared
#    library ldd names and the dynamic loader.
# Why a disk: an initramfs lives in ramfs, which is never reclaimed; the
# ~19 MB of libraries (gnutls, gcrypt, systemd, sqlite...) would pin a
# quarter of the 79 MB guest and distort the capacity probe.  On a disk they
# are page cache, reclaimable under pressure as in a real guest.  The
# initramfs links /lib/x86_64-linux-gnu, /lib64 and the programs into the
# disk's mount point /payload.
#
# Usage: mkinitramfs.sh --out FILE --disk FILE [--payload daemon|standin]
#          [--daemon PATH] [--seconds N] [--guest-timeout N] [--port N|'']
#          [--args "FLAGS"] [--probe-at N]
# Needs tests/xen/cache/env from prepare.sh.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${XEN_CACHE:-$here/cache}
out='' disk='' payload=standin daemon='' seconds=60 gtimeout='' port=8089 args='' probe_at=''
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift 2 ;;
	--disk) disk=$2; shift 2 ;;
	--payload) payload=$2; shift 2 ;;
	--daemon) daemon=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--guest-timeout) gtimeout=$2; shift 2 ;;
	--port) port=$2; shift 2 ;;
	--args) args=$2; shift 2 ;;
	--probe-at) probe_at=$2; shift 2 ;;
	*) echo "mkinitramfs: unknown argument $1" >&2; exit 2 ;;
	esac
done
if [ -z "$out" ] || [ -z "$disk" ]; then
	echo "mkinitramfs: --out FILE and --disk FILE are required" >&2
	exit 2
fi
case "$seconds" in '' | *[!0-9]*) echo "mkinitramfs: --seconds wants a number" >&2; exit 2 ;; esac
# The payload gets its soak plus a margin to stop and write, then is killed.
gtimeout=${gtimeout:-$((seconds + 60))}
case "$payload" in
daemon) [ -x "$daemon" ] || { echo "mkinitramfs: --daemon PATH must be executable" >&2; exit 2; } ;;
standin) ;;
*) echo "mkinitramfs: --payload daemon|standin" >&2; exit 2 ;;
esac
# shellcheck disable=SC1091
. "$cache/env"

# Modules the guest loads, the rest of the Xen drivers it uses (hvc console,
# /sys/hypervisor, xenbus, balloon) being built into Debian's kernel:
#   xenfs  -> /proc/xen (needs xen-privcmd)
#   e1000  -> QEMU's default NIC, for serving the report to the host
#   virtio_pci, virtio_blk, ext4 (which mounts ext2) -> the payload disk;
#   ext4 asks the crypto API for "crc32c" at mount, a soft dependency that
#   modules.dep does not list, hence crc32c_generic.
want_mods="kernel/drivers/xen/xenfs/xenfs.ko kernel/drivers/net/ethernet/intel/e1000/e1000.ko
	kernel/drivers/virtio/virtio_pci.ko kernel/drivers/block/virtio_blk.ko
	kernel/crypto/crc32c_generic.ko kernel/fs/ext4/ext4.ko"

root=$(mktemp -d "${TMPDIR:-/tmp}/fpusoak-initrd.XXXXXX")
proot=$(mktemp -d "${TMPDIR:-/tmp}/fpusoak-disk.XXXXXX")
trap 'rm -rf "$root" "$proot"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,payload,lib/modules/"$KVER"}

# busybox and its applets, at the paths busybox itself names.
cp /bin/busybox "$root/bin/busybox"
/bin/busybox --list-full | while read -r a; do
	[ -e "$root/$a" ] || ln -s /bin/busybox "$root/$a"
done

# copy_bin SRC DEST: the program (on the disk, linked from the initramfs) and
# every library ldd resolves for it, at the same paths, so the loader finds
# them without an ld.so.cache.
copy_bin() {
	install -D -m 0755 "$1" "$proot$2"
	ln -sfn "/payload$2" "$root$2"
	ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
		while read -r lib; do
			[ -e "$proot$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$proot$lib"
		done
}
copy_bin "$(command -v sqlite3)" /usr/bin/sqlite3
if [ "$payload" = daemon ]; then
	copy_bin "$daemon" /usr/sbin/fpusoakd
	# The static churn spawner the daemon execs from beside itself (churn/spawner.h), if built.
	sp="$(dirname "$(readlink -f "$daemon")")/fpusoakd-spawner"
	if [ -x "$sp" ]; then copy_bin "$sp" /usr/sbin/fpusoakd-spawner; fi
fi
for d in "$proot"/lib/* "$proot"/lib64; do
	[ -d "$d" ] && [ "$(basename "$d")" != modules ] && ln -sfn "/payload${d#"$proot"}" "$root${d#"$proot"}"
done

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
for m in $want_mods; do add_mod "$m"; done
for m in "${order[@]}"; do install -D -m 0644 "$MODDIR/$m" "$root/lib/modules/$KVER/$m"; done

install -m 0755 "$here/guest-init.sh" "$root/init"
install -m 0755 "$here/standin.sh" "$root/standin.sh"
q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
{
	echo "KVER=$(q "$KVER")"
	echo "MODULES=$(q "${order[*]}")"
	echo "PAYLOAD=$(q "$payload")"
	echo "SOAK_SECONDS=$(q "$seconds")"
	echo "GUEST_TIMEOUT=$(q "$gtimeout")"
	echo "LISTEN_PORT=$(q "$port")"
	echo "FPUSOAKD_ARGS=$(q "$args")"
	echo "PROBE_AT=$(q "$probe_at")"
} >"$root/etc/soak.env"
echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
echo "xenpv" >"$root/etc/hostname"

mkdir -p "$(dirname "$out")" "$(dirname "$disk")"
# ext2: no journal to replay, mounted read-only; a quarter spare for inodes.
kb=$(du -sk "$proot" | cut -f1)
rm -f "$disk.tmp"
mke2fs -q -F -t ext2 -L fpusoak -d "$proot" "$disk.tmp" "$((kb + kb / 4 + 1024))k" >/dev/null
mv "$disk.tmp" "$disk"
(cd "$root" && find . -print | sort | cpio -o -H newc --quiet -R 0:0) | gzip -6 >"$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs: $out ($(du -k "$out" | cut -f1) KiB), $disk ($kb KiB used), payload $payload, modules: ${order[*]}" >&2
