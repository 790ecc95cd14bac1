#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Prepare the Xen PV test bed from Debian packages only:
#  - qemu-system-x86, busybox-static, cpio, sqlite3 and e2fsprogs installed
#    (apt-get, when root);
#  - Xen 4.17 and Debian's kernel downloaded with `apt-get download` (nothing is
#    installed from them), extracted under $XEN_CACHE (~/.cache/fpusoakd/xen), reused when present;
#  - modules.dep generated for the extracted kernel (busybox depmod), so
#    mkinitramfs.sh can load the few xen/network modules in dependency order.
#
# Output: $XEN_CACHE/env — shell assignments (XEN_ELF, KERNEL, KVER,
# MODDIR, XEN_VERSION, LINUX_VERSION) for mkinitramfs.sh and run.sh.
# Exit status: 0 ready; 77 cannot be prepared here (a reason on stderr, the
# caller prints it as a visible SKIP); anything else is a bug in this script.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${XEN_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fpusoakd/xen}
xenpkg=xen-hypervisor-4.17-amd64
metapkg=linux-image-amd64

say() { echo "prepare: $*" >&2; }
cannot() { say "cannot prepare: $*"; exit 77; }
# shellcheck source=tests/xen/apt-install.sh
. "$here/apt-install.sh"

# ---------------------------------------------------------------- host tools
need_pkgs=()
command -v qemu-system-x86_64 >/dev/null || need_pkgs+=(qemu-system-x86)
# The initramfs needs the static busybox (the guest has no libc of its own
# beyond what we copy in) and cpio to pack it.
dpkg -s busybox-static >/dev/null 2>&1 || need_pkgs+=(busybox-static)
command -v cpio >/dev/null || need_pkgs+=(cpio)
command -v sqlite3 >/dev/null || need_pkgs+=(sqlite3)
# mke2fs -d builds the payload disk from a folder without mounting anything.
PATH=$PATH:/sbin:/usr/sbin command -v mke2fs >/dev/null || need_pkgs+=(e2fsprogs)
apt_install "the test bed" "${need_pkgs[@]}"
command -v qemu-system-x86_64 >/dev/null || cannot "qemu-system-x86_64 not found after install"

# ---------------------------------------------------------------- downloads
# A cache is reused as is when complete: no registry is asked then, so a
# cached test bed runs offline and always on the same versions.
if [ -f "$cache/env" ]; then
	# shellcheck disable=SC1091
	. "$cache/env"
	if [ -f "$XEN_ELF" ] && [ -f "$KERNEL" ] && [ -f "$MODDIR/modules.dep" ]; then
		say "cache ready: xen $XEN_VERSION, linux $LINUX_VERSION ($cache)"
		exit 0
	fi
	say "cache incomplete, preparing again"
fi

command -v apt-get >/dev/null || cannot "no apt-get to download $xenpkg"
mkdir -p "$cache/debs"
rm -rf "$cache/xen" "$cache/linux" "$cache/env"

# linux-image-amd64 is a metapackage: download the versioned image it names.
kpkg=$(apt-cache depends "$metapkg" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -1)
if [ -z "$kpkg" ]; then
	apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || true
	kpkg=$(apt-cache depends "$metapkg" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -1)
fi
[ -n "$kpkg" ] || cannot "apt-cache does not know $metapkg"

say "downloading $xenpkg $kpkg"
# apt-get download writes into the working directory; as root it warns that
# _apt cannot write there, which is harmless.
(cd "$cache/debs" && rm -f ./*.deb && apt-get download -q "$xenpkg" "$kpkg" >&2) ||
	cannot "apt-get download $xenpkg $kpkg failed"

xdeb=$(ls "$cache"/debs/"$xenpkg"_*.deb)
kdeb=$(ls "$cache"/debs/"$kpkg"_*.deb)
dpkg-deb -x "$xdeb" "$cache/xen"
dpkg-deb -x "$kdeb" "$cache/linux"

# The hypervisor ships gzip'd; QEMU's multiboot loader wants the plain ELF.
xgz=$(find "$cache/xen/boot" -name 'xen-*-amd64.gz' | head -1)
gunzip -c "$xgz" >"$cache/xen.elf"

kver=$(ls "$cache/linux/lib/modules")
[ -f "$cache/linux/boot/vmlinuz-$kver" ] || cannot "no vmlinuz-$kver in $kdeb"
# The package carries no modules.dep (the postinst makes it); busybox depmod
# writes one for the extracted tree without touching the host's /lib/modules.
/bin/busybox depmod -b "$cache/linux" "$kver"

{
	echo "XEN_ELF='$cache/xen.elf'"
	echo "KERNEL='$cache/linux/boot/vmlinuz-$kver'"
	echo "KCONFIG='$cache/linux/boot/config-$kver'"
	echo "KVER='$kver'"
	echo "MODDIR='$cache/linux/lib/modules/$kver'"
	echo "XEN_VERSION='$(dpkg-deb -f "$xdeb" Version)'"
	echo "LINUX_VERSION='$kpkg $(dpkg-deb -f "$kdeb" Version)'"
} >"$cache/env.tmp"
mv "$cache/env.tmp" "$cache/env"
rm -f "$cache"/debs/*.deb    # extracted; 70 MB not worth keeping
# shellcheck disable=SC1091
. "$cache/env"
say "ready: xen $XEN_VERSION, linux $LINUX_VERSION ($cache)"
