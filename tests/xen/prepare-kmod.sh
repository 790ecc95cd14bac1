#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Kernel headers for building kmod/ (the fpusoak_gfp module) against the Xen
# test guest's kernel, on the host, without installing anything:
#  - the headers packages of exactly the guest image's version, named after
#    the image prepare.sh downloaded (LINUX_VERSION in $cache/env): the
#    linux-headers-<kver> package and the -common and linux-kbuild packages it
#    depends on, fetched with `apt-get download PKG=VERSION`;
#  - extracted with dpkg-deb -x into $cache/kmod/root; their scripts/ and
#    tools/ symlinks are relative and resolve there, the one absolute path
#    (the first line of the arch Makefile, an include of the -common
#    Makefile under /usr/src) is pointed at the extracted copy.
# Reused as is when complete, so a prepared cache needs no registry.
#
# Output: $cache/kmod/env — KMOD_KDIR (the folder for make -C), KMOD_KVER,
# KMOD_HEADERS (the three packages and their version).
# Exit status: 0 ready; 77 cannot be prepared here (a reason on stderr);
# anything else is a bug in this script.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${XEN_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fpusoakd/xen}
dir=$cache/kmod

say() { echo "prepare-kmod: $*" >&2; }
cannot() { say "cannot prepare: $*"; exit 77; }

[ -f "$cache/env" ] || cannot "no $cache/env (run prepare.sh first)"
# shellcheck disable=SC1091
. "$cache/env"
if [ -f "$dir/env" ]; then
	# shellcheck disable=SC1091
	. "$dir/env"
	if [ "${KMOD_KVER:-}" = "$KVER" ] && [ -f "$KMOD_KDIR/Makefile" ]; then
		say "headers ready: $KMOD_HEADERS ($KMOD_KDIR)"
		exit 0
	fi
	# The cache's env files hold absolute paths: a cache copied or bound elsewhere is prepared again.
	say "headers stale or incomplete (env names ${KMOD_KDIR:-nothing} for ${KMOD_KVER:-?}), preparing again"
fi

# LINUX_VERSION is "linux-image-<kver> <version>" (prepare.sh).
read -r kpkg kverpkg <<<"$LINUX_VERSION"
case "$kpkg" in linux-image-*) ;; *) cannot "LINUX_VERSION '$LINUX_VERSION' does not name a linux-image package" ;; esac
[ -n "$kverpkg" ] || cannot "LINUX_VERSION '$LINUX_VERSION' has no version"
hpkg=linux-headers-${kpkg#linux-image-}
command -v apt-cache >/dev/null || cannot "no apt-cache to find $hpkg"

# apt-cache exits 100 for a package it does not know: under pipefail and set -e that ended the
# script with 100 (a FAIL in 15_gfp) where "cannot prepare here" (77, a SKIP) is the answer.
depends() { apt-cache show "$hpkg=$kverpkg" 2>/dev/null | sed -n 's/^Depends: //p' | head -1 || true; }
deps=$(depends)
if [ -z "$deps" ]; then
	apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || true
	deps=$(depends)
fi
[ -n "$deps" ] || cannot "apt-cache does not know $hpkg $kverpkg"
# "linux-headers-6.1.0-57-common (= 6.1.192-3), linux-kbuild-6.1 (>= 6.1.192-3), linux-compiler-gcc-12-x86":
# the compiler package only pulls in that gcc, which must be the host's (KMOD_CC, checked below).
common=$(tr ',' '\n' <<<"$deps" | sed -n 's/^ *\(linux-headers-[^ ]*-common[^ ]*\).*/\1/p' | head -1)
kbuild=$(tr ',' '\n' <<<"$deps" | sed -n 's/^ *\(linux-kbuild-[^ ]*\).*/\1/p' | head -1)
[ -n "$common" ] && [ -n "$kbuild" ] || cannot "$hpkg $kverpkg depends on '$deps': no -common or linux-kbuild package"
want=("$hpkg=$kverpkg" "$common=$kverpkg" "$kbuild=$kverpkg")

tmp=$(mktemp -d "$cache/kmod.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
say "downloading ${want[*]}"
# As root apt-get warns that _apt cannot write the working directory; harmless.
(cd "$tmp" && apt-get download -q "${want[@]}" >&2) || cannot "apt-get download ${want[*]} failed"
mkdir -p "$tmp/root"
for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
kver=${kpkg#linux-image-}
kdir_rel=usr/src/linux-headers-$kver
[ -f "$tmp/root/$kdir_rel/Makefile" ] || cannot "no $kdir_rel/Makefile in ${want[*]}"

# The arch Makefile includes the -common one by absolute path: the only one in the tree.
first=$(head -1 "$tmp/root/$kdir_rel/Makefile")
case "$first" in
"include /usr/src/"*) ;;
*) cannot "unexpected first line of $kdir_rel/Makefile: '$first'" ;;
esac
rm -rf "$dir"
mkdir -p "$dir"
mv "$tmp/root" "$dir/root"
kdir=$dir/root/$kdir_rel
sed -i "1s#^include /usr/src/#include $dir/root/usr/src/#" "$kdir/Makefile"
[ -f "$(head -1 "$kdir/Makefile" | sed 's/^include //')" ] || cannot "the -common Makefile is not where the fixed include says"

# CONFIG_CC_VERSION_TEXT="gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0": the same gcc must be here.
cctext=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$kdir/.config")
cc=${cctext%% *}
command -v "$cc" >/dev/null || cannot "the guest kernel was built with '$cctext'; no $cc on this host"
[ "$("$cc" --version | head -1)" = "$cctext" ] ||
	say "note: kernel built with '$cctext', host has '$("$cc" --version | head -1)'"
{
	echo "KMOD_KDIR='$kdir'"
	echo "KMOD_CC='$cc'"
	echo "KMOD_KVER='$kver'"
	echo "KMOD_HEADERS='$hpkg $common $kbuild $kverpkg'"
} >"$dir/env.tmp"
mv "$dir/env.tmp" "$dir/env"
say "ready: $hpkg $common $kbuild $kverpkg ($kdir)"
