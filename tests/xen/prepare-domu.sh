#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Prepare the domU stage's toolstack from Debian's own packages, nothing
# installed on the host: xen-utils-X.Y (xl, xenstored, xenconsoled,
# xen-init-dom0), xen-utils-common and xenstore-utils at exactly the version of
# the hypervisor prepare.sh extracted (the toolstack speaks that hypervisor's
# domctl interface), plus the library packages they depend on that this host
# does not have installed (the host is the same Debian release, so its own
# libc, zlib ... are the ones the packages were built against).  Everything is
# `apt-get download`ed and `dpkg-deb -x`tracted under $XEN_CACHE/domu/.
#
# With XEN_DOMU_KERNEL=cloud, also the domU's kernel: Debian's *cloud*
# flavour of the dom0's kernel, same version (linux-image-<abi>-cloud-amd64).
# Its ELF spans 46 MB (0x1000000-0x3e00000) against the generic image's 58 MB
# (to 0x4a00000), and it boots in a smaller domU (README, 'Running in Xen PV
# guests').  It has no XEN_DOM0, so the dom0 keeps the generic image; it
# builds ext4 in but has xen-blkfront and xenfs as modules (mkinitramfs.sh
# loads them).
#
# Output: $XEN_CACHE/domu/env — TOOLS_ROOT (the extracted tree),
# TOOLS_VERSION, TOOLS_PKGS; with the cloud kernel also
# $XEN_CACHE/domu/kernel.env — DOMU_KERNEL,
# DOMU_KCONFIG, DOMU_KVER, DOMU_MODDIR, DOMU_LINUX_VERSION (the .deb is kept
# in $XEN_CACHE/domu/debs/).  Run after prepare.sh.
# Exit status: 0 ready; 77 cannot be prepared here (reason on stderr, the
# caller prints it as a SKIP); anything else is a bug in this script.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${XEN_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fpusoakd/xen}
dcache=$cache/domu

say() { echo "prepare-domu: $*" >&2; }
cannot() { say "cannot prepare: $*"; exit 77; }

[ -f "$cache/env" ] || cannot "no $cache/env (prepare.sh first)"
# shellcheck disable=SC1091
. "$cache/env"
# The toolstack's package names carry the hypervisor's major.minor (4.17).
series=$(sed -E -n 's/^([0-9]+\.[0-9]+)\..*/\1/p' <<<"$XEN_VERSION")
[ -n "$series" ] || cannot "cannot read a Xen series from XEN_VERSION='$XEN_VERSION'"
tools=("xen-utils-$series" xen-utils-common xenstore-utils)

# binaries the stage runs (paths inside the extracted tree)
need_bins() { echo "usr/lib/xen-$series/bin/xl usr/lib/xen-$series/bin/xenstored
	usr/lib/xen-$series/bin/xenconsoled usr/lib/xen-$series/bin/xen-init-dom0 usr/bin/xenstore"; }

# check_tree ROOT: every binary there, every library it needs resolvable.
check_tree() {
	local r=$1 b miss
	for b in $(need_bins); do
		[ -x "$r/$b" ] || { echo "no $b in the extracted packages"; return 1; }
		miss=$(LD_LIBRARY_PATH=$r/usr/lib/x86_64-linux-gnu ldd "$r/$b" 2>&1 | sed -n 's/^\s*\(\S*\) => not found/\1/p' | tr '\n' ' ')
		[ -z "$miss" ] || { echo "$b needs $miss(not in the packages nor on this host)"; return 1; }
	done
}

# The domU kernel's package: the dom0 kernel's ABI (6.1.0-57) in the cloud
# flavour, at the dom0 kernel's exact version.
case "${XEN_DOMU_KERNEL:-generic}" in
cloud) want_kernel=1 ;;
*) want_kernel=0 ;;
esac
kabi=${KVER%-amd64}
kpkg=linux-image-$kabi-cloud-amd64
kver_deb=${LINUX_VERSION##* }
[ "$kabi" != "$KVER" ] && [ -n "$kver_deb" ] || cannot "cannot name a cloud kernel for KVER='$KVER' LINUX_VERSION='$LINUX_VERSION'"

# kernel_ready: the cloud kernel's cache matches the dom0 kernel's version.
kernel_ready() {
	[ -f "$dcache/kernel.env" ] || return 1
	(
		# shellcheck disable=SC1091
		. "$dcache/kernel.env"
		[ "$DOMU_LINUX_VERSION" = "$kpkg $kver_deb" ] && [ -f "$DOMU_KERNEL" ] && [ -f "$DOMU_MODDIR/modules.dep" ]
	)
}

# prepare_kernel: download (into $dcache/debs), extract, depmod; kernel.env.
prepare_kernel() {
	local kdir=$dcache/linux-cloud deb kv
	say "downloading $kpkg=$kver_deb"
	mkdir -p "$dcache/debs"
	(cd "$dcache/debs" && apt-get download -q "$kpkg=$kver_deb" >&2) || {
		apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || true
		(cd "$dcache/debs" && apt-get download -q "$kpkg=$kver_deb" >&2)
	} || cannot "apt-get download $kpkg=$kver_deb failed"
	deb=$(ls "$dcache"/debs/"$kpkg"_*.deb | head -1)
	rm -rf "$kdir.tmp"
	dpkg-deb -x "$deb" "$kdir.tmp"
	kv=$(ls "$kdir.tmp/lib/modules")
	[ -f "$kdir.tmp/boot/vmlinuz-$kv" ] || cannot "no vmlinuz-$kv in $deb"
	# The package carries no modules.dep (its postinst makes it).
	/bin/busybox depmod -b "$kdir.tmp" "$kv"
	rm -rf "$kdir"
	mv "$kdir.tmp" "$kdir"
	{
		echo "DOMU_KERNEL='$kdir/boot/vmlinuz-$kv'"
		echo "DOMU_KCONFIG='$kdir/boot/config-$kv'"
		echo "DOMU_KVER='$kv'"
		echo "DOMU_MODDIR='$kdir/lib/modules/$kv'"
		echo "DOMU_LINUX_VERSION='$kpkg $(dpkg-deb -f "$deb" Version)'"
	} >"$dcache/kernel.env.tmp"
	mv "$dcache/kernel.env.tmp" "$dcache/kernel.env"
	say "ready: domU kernel $kpkg $kver_deb ($kdir)"
}

# A cache is reused as is when it matches the hypervisor: no registry is asked.
if [ -f "$dcache/env" ]; then
	# shellcheck disable=SC1091
	. "$dcache/env"
	if [ "${TOOLS_VERSION:-}" = "$XEN_VERSION" ] && why=$(check_tree "$TOOLS_ROOT"); then
		say "cache ready: toolstack $TOOLS_VERSION ($dcache)"
		if [ "$want_kernel" = 1 ]; then
			if kernel_ready; then
				say "cache ready: domU kernel $kpkg $kver_deb"
			else
				command -v apt-get >/dev/null || cannot "no apt-get to download $kpkg"
				prepare_kernel
			fi
		fi
		exit 0
	fi
	say "cache stale or incomplete (${why:-toolstack ${TOOLS_VERSION:-?} for xen $XEN_VERSION}), preparing again"
fi

command -v apt-get >/dev/null || cannot "no apt-get to download ${tools[*]}"
# versions PKG...: "pkg version" for each, the hypervisor's version when apt
# has it (the Xen source's own packages), else apt's candidate (libraries
# from other sources).  One apt-cache call per question for all the packages
# (each call costs seconds on a busy machine).
versions() {
	{ apt-cache madison "$@" 2>/dev/null | awk -F'|' '{ gsub(/ /, ""); print "have", $1, $2 }'
	  apt-cache policy "$@" 2>/dev/null | awk '/^[^ ]/ { sub(/:$/, ""); p = $1 } /^ *Candidate:/ { print "cand", p, $2 }'
	} | awk -v want="$XEN_VERSION" '
		$1 == "have" && $3 == want { pin[$2] = 1 }
		$1 == "cand" { cand[$2] = $3; order[++n] = $2 }
		END { for (i = 1; i <= n; i++) { p = order[i]; print p, (p in pin) ? want : cand[p] } }'
}
# lib_deps PKG=VER...: the library packages they depend on (Depends only:
# python3, udev, ucf ... serve the init scripts and pygrub, not the test bed).
lib_deps() {
	apt-cache depends "$@" 2>/dev/null | sed -n 's/^ *|\{0,1\}Depends: \(lib[a-z0-9][a-z0-9.+-]*\)$/\1/p' | sort -u
}
# missing PKG...: those not installed on this host.
missing() {
	local have
	have=$(dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null | awk '/install ok installed/ { print $1 }')
	for p in "$@"; do grep -qx "$p" <<<"$have" || echo "$p"; done
}

vt=$(versions "${tools[@]}")
for p in "${tools[@]}"; do
	if [ "$(awk -v p="$p" '$1 == p { print $2 }' <<<"$vt")" != "$XEN_VERSION" ]; then
		apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || true
		vt=$(versions "${tools[@]}")
		[ "$(awk -v p="$p" '$1 == p { print $2 }' <<<"$vt")" = "$XEN_VERSION" ] ||
			cannot "apt does not know $p at the hypervisor's version $XEN_VERSION"
	fi
done

# The packages, then level by level the library packages they need that
# this host lacks.
get=() level=("${tools[@]}") seen=" "
while [ ${#level[@]} -gt 0 ]; do
	specs=()
	while read -r p v; do
		[ -n "$v" ] && [ "$v" != "(none)" ] || cannot "apt has no candidate for $p"
		specs+=("$p=$v")
		seen="$seen$p "
	done < <(versions "${level[@]}")
	get+=("${specs[@]}")
	level=()
	deps=$(lib_deps "${specs[@]}")
	[ -n "$deps" ] || break
	for d in $(missing $deps); do
		case "$seen" in *" $d "*) ;; *) level+=("$d") ;; esac
	done
done

say "downloading ${get[*]}"
mkdir -p "$dcache"
tmp=$(mktemp -d "$dcache/.prep.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/debs" "$tmp/root"
# apt-get download writes into the working directory; as root it warns that
# _apt cannot write there, which is harmless.
(cd "$tmp/debs" && apt-get download -q "${get[@]}" >&2) || cannot "apt-get download ${get[*]} failed"
for d in "$tmp"/debs/*.deb; do dpkg-deb -x "$d" "$tmp/root"; done
why=$(check_tree "$tmp/root") || cannot "$why"

rm -rf "$dcache/root"
mv "$tmp/root" "$dcache/root"
{
	echo "TOOLS_ROOT='$dcache/root'"
	echo "TOOLS_VERSION='$XEN_VERSION'"
	echo "TOOLS_PKGS='${get[*]}'"
} >"$dcache/env.tmp"
mv "$dcache/env.tmp" "$dcache/env"
say "ready: toolstack $XEN_VERSION from ${get[*]} ($dcache)"
[ "$want_kernel" = 0 ] || kernel_ready || prepare_kernel
