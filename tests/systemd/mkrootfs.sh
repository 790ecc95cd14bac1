#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build (once) the Debian 12 rootfs the systemd end-to-end test boots, and
# print its path on stdout.  The tree is cached in ~/.cache/fpusoakd/systemd/ (FPUSOAK_SYSTEMD_CACHE)
# (git-ignored); it is rebuilt only when the package list below changes or
# the cache is removed.  debootstrap runs into a temporary directory that is
# renamed into place at the end, so an interrupted build never leaves a
# half-made rootfs that a later run would trust.
#
# Usage: mkrootfs.sh [CACHE_DIR]   (root only)
# Env:   FPUSOAK_MIRROR  apt mirror (default: this machine's bookworm source)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${1:-$here/cache}
suite=bookworm
# systemd to boot, tools the checks use, and the daemon's runtime libraries
# (Makefile PKGS: libmicrohttpd sqlite3 libcjson inih; libsystemd0, which fpusoakd no longer links,
# stays listed so the cached rootfs keeps its stamp).
pkgs=systemd,systemd-sysv,dbus,curl,sqlite3,procps,libmicrohttpd12,libsqlite3-0,libcjson1,libsystemd0,libinih1

log() { echo "mkrootfs: $*" >&2; }

# The first deb.debian.org-style URI that serves "$suite" itself (not
# -security/-updates), from deb822 .sources or one-line .list files.
host_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v s="$suite" '
			/^[ \t]*$/ { if (uri != "" && ok > 0) { print uri; done = 1; exit } uri = ""; ok = 0; next }
			tolower($1) == "uris:" { uri = $2 }
			tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == s) ok = 1 }
			tolower($1) == "types:" { deb = 0; for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1; if (!deb) ok = -99 }
			END { if (!done && uri != "" && ok > 0) print uri }' "$f"
	done
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk -v s="$suite" '$1 == "deb" { for (i = 2; i < NF; i++) if ($i !~ /^\[/ && $(i + 1) == s) { print $i; exit } }'
	return 0
}

[ "$(id -u)" = 0 ] || { log "must run as root"; exit 2; }
command -v debootstrap >/dev/null || { log "debootstrap not installed"; exit 2; }

stamp="$suite $pkgs v1"
root=$cache/rootfs-$suite
if [ -f "$root.stamp" ] && [ "$(cat "$root.stamp")" = "$stamp" ] && [ -x "$root/lib/systemd/systemd" ]; then
	echo "$root"
	exit 0
fi

mirror=${FPUSOAK_MIRROR:-}
[ -n "$mirror" ] || mirror=$(host_mirror 2>/dev/null | head -n1) || true
mirror=${mirror:-http://deb.debian.org/debian}
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf --one-file-system "$tmp"' EXIT
log "debootstrap $suite from $mirror into $tmp (about a minute, once)"
start=$(date +%s)
debootstrap --variant=minbase --include="$pkgs" "$suite" "$tmp/root" "$mirror" >"$tmp/debootstrap.log" 2>&1 || {
	tail -n 30 "$tmp/debootstrap.log" >&2
	log "debootstrap failed"
	exit 1
}
# Keep the image small and boots quiet: no apt caches, a fixed hostname, an
# empty machine-id so systemd makes a fresh one per boot (first boot semantics
# are not what we test), no getty on the console.
rm -rf "$tmp/root/var/cache/apt/archives/"*.deb "$tmp/root/var/lib/apt/lists/"* 2>/dev/null || true
echo fpusoak-test >"$tmp/root/etc/hostname"
: >"$tmp/root/etc/machine-id"
rm -f "$tmp/root/etc/systemd/system/getty.target.wants/"* 2>/dev/null || true
ln -sf /dev/null "$tmp/root/etc/systemd/system/console-getty.service"
cp "$tmp/debootstrap.log" "$cache/debootstrap.log"
rm -rf --one-file-system "$root" "$root.stamp"
mv "$tmp/root" "$root"
echo "$stamp" >"$root.stamp"
log "rootfs ready in $(( $(date +%s) - start ))s: $root"
echo "$root"
