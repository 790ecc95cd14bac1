#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The domU stage's small PV kernel (XEN_DOMU_KERNEL=small, the default), built here once and
# cached:
#  - Debian's linux-source-<series> at exactly the dom0 kernel's version (LINUX_VERSION in
#    $XEN_CACHE/env, prepare.sh), fetched with `apt-get download` and unpacked with dpkg-deb:
#    nothing from it is installed on the host;
#  - `make tinyconfig`, tests/xen/kernel/pv-small.config merged onto it
#    (scripts/kconfig/merge_config.sh), `make olddefconfig`; every option of the fragment must
#    come through to the .config, else this fails and names them;
#  - `make bzImage modules` at nice 19 (Module.symvers for out-of-tree modules: fpusoak_gfp is
#    built against this tree), `modules_install` into the cache (modules.builtin: all the
#    drivers the guest uses are built in, mkinitramfs.sh packs none).
# The build tools it needs beyond a compiler (flex bison bc libelf-dev libssl-dev, and make gcc
# xz-utils on a minimal root) are installed with apt-get when root, else it exits 77 naming them.
#
# Cache: $XEN_CACHE/kernel/pv-small-<source version>-<first 12 hex of the fragment's sha256>/,
# built in a temporary folder beside it and renamed when complete, under a lock of its own
# ($XEN_CACHE/kernel.lock), so a second caller waits and then finds it.  A complete folder is used
# as is: no registry is asked, nothing is rebuilt.  Folders of other keys are left alone (another
# checkout may use them); each holds the build tree (~350 MB: objects and sources removed).
# Output: that folder's kernel.env (DOMU_KERNEL, DOMU_KCONFIG, DOMU_KVER, DOMU_MODDIR,
# DOMU_LINUX_VERSION, DOMU_KDIR: the tree for make -C, DOMU_KCC: its compiler, DOMU_KBUILD: the
# cold build's wall, user and system seconds); its path is the one line this prints on stdout,
# everything else goes to stderr.
# Exit status: 0 ready; 77 cannot be prepared here (reason on stderr, the caller prints it as a
# SKIP); anything else is a failure (the build log is in the temporary folder, named on stderr).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${XEN_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fpusoakd/xen}
frag=$here/kernel/pv-small.config

say() { echo "prepare-kernel: $*" >&2; }
cannot() { say "cannot prepare: $*"; exit 77; }
# shellcheck source=tests/xen/apt-install.sh
. "$here/apt-install.sh"

[ -f "$cache/env" ] || cannot "no $cache/env (prepare.sh first)"
[ -f "$frag" ] || cannot "no fragment $frag"
# shellcheck disable=SC1091
. "$cache/env"
# KVER 6.1.0-57-amd64 -> series 6.1; LINUX_VERSION "linux-image-6.1.0-57-amd64 6.1.192-3".
series=$(sed -E -n 's/^([0-9]+\.[0-9]+)\..*/\1/p' <<<"$KVER")
srcver=${LINUX_VERSION##* }
[ -n "$series" ] && [ -n "$srcver" ] && [ "$srcver" != "$LINUX_VERSION" ] ||
	cannot "cannot name a source package for KVER='$KVER' LINUX_VERSION='$LINUX_VERSION'"
srcpkg=linux-source-$series
hash=$(sha256sum "$frag" | cut -c1-12)
kroot=$cache/kernel
dir=$kroot/pv-small-$srcver-$hash
env=$dir/kernel.env

# ready: the folder is complete (kernel.env is written last).
ready() {
	[ -f "$env" ] || return 1
	(
		# shellcheck disable=SC1090
		. "$env"
		[ -f "$DOMU_KERNEL" ] && [ -f "$DOMU_MODDIR/modules.dep" ] && [ -f "$DOMU_KDIR/Module.symvers" ]
	)
}

if ready; then
	say "cache ready: $srcpkg $srcver + pv-small.config $hash ($dir)"
	echo "$env"
	exit 0
fi
mkdir -p "$kroot"
exec {lock}>"$cache/kernel.lock"
flock "$lock"
if ready; then
	say "built meanwhile: $dir"
	echo "$env"
	exit 0
fi

# ---------------------------------------------------------------- build tools
need_pkgs=()
for t in make:make gcc:gcc flex:flex bison:bison bc:bc xz:xz-utils; do
	command -v "${t%%:*}" >/dev/null || need_pkgs+=("${t#*:}")
done
# objtool links libelf; the certificate tools (unused with this config, built anyway) libcrypto.
for p in libelf-dev libssl-dev; do
	dpkg -s "$p" >/dev/null 2>&1 || need_pkgs+=("$p")
done
apt_install "the kernel build" "${need_pkgs[@]}"

# ---------------------------------------------------------------- source
command -v apt-get >/dev/null || cannot "no apt-get to download $srcpkg"
tmp=$(mktemp -d "$kroot/.build.XXXXXX")
keep_tmp=0
trap '[ "$keep_tmp" = 1 ] || rm -rf "$tmp"' EXIT
say "downloading $srcpkg=$srcver"
# apt-get download writes into the working directory; as root it warns that _apt cannot write
# there, which is harmless.
(cd "$tmp" && apt-get download -q "$srcpkg=$srcver" >&2) || {
	apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || true
	(cd "$tmp" && apt-get download -q "$srcpkg=$srcver" >&2)
} || cannot "apt-get download $srcpkg=$srcver failed"
deb=$(ls "$tmp"/"$srcpkg"_*.deb | head -1)
dpkg-deb -x "$deb" "$tmp/deb"
tarball=$(ls "$tmp"/deb/usr/src/"$srcpkg".tar.* 2>/dev/null | head -1)
[ -n "$tarball" ] || cannot "no /usr/src/$srcpkg.tar.* in $deb"
tar -xf "$tarball" -C "$tmp"
rm -rf "$tmp/deb" "$deb"
src=$tmp/$srcpkg
[ -f "$src/Makefile" ] || cannot "no $srcpkg/ in the source tarball"

# ---------------------------------------------------------------- configure and build
log=$tmp/build.log
keep_tmp=1
mk() { nice -n 19 make -C "$src" -j"$(nproc)" KBUILD_BUILD_USER=fpusoak KBUILD_BUILD_HOST=xen-testbed "$@" >>"$log" 2>&1; }
failed() { say "$1 failed; the log is $log: $(tail -3 "$log" | tr '\n' ' ')"; exit 1; }
say "configuring: tinyconfig + $(basename "$frag") ($hash)"
mk tinyconfig || failed "make tinyconfig"
(cd "$src" && scripts/kconfig/merge_config.sh -m .config "$frag") >>"$log" 2>&1 || failed "merge_config.sh"
mk olddefconfig || failed "make olddefconfig"
# Every option of the fragment as it asked: "=y"/"=value" present, "is not set" not set.
miss=$(awk '
	FNR == NR {
		if (/^CONFIG_[A-Za-z0-9_]+=/) want[$0] = 1
		else if (/^# CONFIG_[A-Za-z0-9_]+ is not set$/) off[$2] = 1
		next
	}
	/^CONFIG_/ { have[$0] = 1; split($0, kv, "="); on[kv[1]] = 1 }
	END {
		for (w in want) if (!(w in have)) printf "%s ", w
		for (o in off) if (o in on) printf "%s(should be off) ", o
	}' "$frag" "$src/.config")
[ -z "$miss" ] || { say "options of the fragment not in the .config: $miss(log: $log)"; exit 1; }
say "building bzImage and modules at nice 19 on $(nproc) CPUs (a cold build takes 10-30 min)"
TIMEFORMAT='%R %U %S'
{ time mk bzImage modules; } 2>"$tmp/time" || failed "make bzImage modules"
read -r wall user sys <"$tmp/time"
kver=$(make -s -C "$src" kernelrelease)
mk modules_install INSTALL_MOD_PATH="$tmp/mod" DEPMOD=/bin/true || failed "make modules_install"
# No modules of its own: busybox depmod writes the (empty) modules.dep mkinitramfs.sh reads.
/bin/busybox depmod -b "$tmp/mod" "$kver"
install -m 0644 "$src/arch/x86/boot/bzImage" "$tmp/vmlinuz-$kver"
install -m 0644 "$src/.config" "$tmp/config-$kver"
cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$src/.config")
# What an out-of-tree module needs stays (Makefiles, .config, include/ and arch/*/include/, scripts/
# and tools/ with their programs, Module.symvers, vmlinux); objects, sources and private headers go:
# 1.6 GB down to ~350 MB.  fpusoak_gfp built against the pruned tree as before (same vermagic).
prune() {
	rm -rf "$src/Documentation" "$src/sound" "$src/samples" "$src/LICENSES" "$src/usr/include"
	find "$src" \( -name '*.o' -o -name '*.c' -o -name '*.S' -o -name '*.rs' \) ! -path "$src/scripts/*" \
		! -path "$src/tools/*" -delete
	(cd "$src" && find drivers fs net crypto block lib mm kernel security virt ipc init io_uring certs \
		-name '*.h' -delete 2>/dev/null) || true
	find "$src/scripts" "$src/tools" -name '*.o' -delete
}
prune
# modules_install links build/ and source/ to the temporary folder: nothing uses them here.
rm -f "$tmp/mod/lib/modules/$kver/build" "$tmp/mod/lib/modules/$kver/source"
rm -f "$tmp/time"
mkdir -p "$kroot"
final=$dir
rm -rf "$final"
mv "$tmp" "$final"
keep_tmp=0
{
	echo "DOMU_KERNEL='$final/vmlinuz-$kver'"
	echo "DOMU_KCONFIG='$final/config-$kver'"
	echo "DOMU_KVER='$kver'"
	echo "DOMU_MODDIR='$final/mod/lib/modules/$kver'"
	echo "DOMU_LINUX_VERSION='$srcpkg $srcver + pv-small.config $hash'"
	echo "DOMU_KDIR='$final/$srcpkg'"
	echo "DOMU_KCC='${cc%% *}'"
	echo "DOMU_KBUILD='wall=${wall%.*}s user=${user%.*}s sys=${sys%.*}s cpus=$(nproc) nice=19'"
} >"$env.tmp"
mv "$env.tmp" "$env"
say "ready: $kver from $srcpkg $srcver + pv-small.config $hash, cold build wall ${wall}s user ${user}s sys ${sys}s ($final)"
echo "$env"
