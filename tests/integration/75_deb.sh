#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The Debian package: `make deb` (dpkg-buildpackage -us -uc -b from a copy of the tree) builds
# fpusoakd_*.deb, lintian reports no error and no warning at its default level (overrides only
# where debian/*.lintian-overrides says why), and the package holds what docs/systemd.md and
# debian/README.Debian promise: the daemon built for /usr/libexec/fpusoakd/fpusoakd-spawner,
# the static spawner there, both units, the man page, the conffile, no enabling or starting in
# its maintainer scripts.  Installing it, its lifecycle under systemd and purge are tested in a
# booted container by tests/systemd/run.sh (80_systemd.sh), which reuses the .deb built here.
# Skips visibly without debhelper (make deb-deps installs it) or without lintian.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
BUILD=${BUILD:-$(pwd)/build}

if ! command -v dpkg-buildpackage >/dev/null || ! command -v dh >/dev/null; then
	skip "dpkg-buildpackage/debhelper not installed (as root: make deb-deps): no package built"
	t_done
fi
if ! dpkg-checkbuilddeps $([ -d kmod ] || echo -Ppkg.fpusoakd.nodkms) >/dev/null 2>&1; then
	skip "build dependencies missing ($(dpkg-checkbuilddeps $([ -d kmod ] || echo -Ppkg.fpusoakd.nodkms) 2>&1 | sed 's/.*: //')): as root, make deb-deps"
	t_done
fi

# The unit tests ran earlier in this make test: the package build skips its own run of them.
s=$(date +%s)
mkdir -p "$BUILD"
if DEB_BUILD_OPTIONS=nocheck make --no-print-directory deb BUILD="$BUILD" >"$BUILD/deb.out" 2>&1; then
	pass "make deb (DEB_BUILD_OPTIONS=nocheck) built $(cd "$BUILD/deb" && ls *.deb | tr '\n' ' ')in $(($(date +%s) - s)) s"
else
	fail "make deb"
	sed -n '1,40p' "$BUILD/deb.out" | sed 's/^/      | /'
	t_done
fi
deb=$(ls "$BUILD"/deb/fpusoakd_*_amd64.deb 2>/dev/null | head -n 1)
changes=$(ls "$BUILD"/deb/fpusoakd_*.changes 2>/dev/null | head -n 1)
check "fpusoakd_*_amd64.deb and a .changes file in $BUILD/deb" test -n "$deb" -a -n "$changes"
[ -n "$deb" ] || t_done
if [ -d kmod ]; then
	dkms=$(ls "$BUILD"/deb/fpusoakd-dkms_*_all.deb 2>/dev/null | head -n 1)
	check "kmod/ exists: fpusoakd-dkms_*_all.deb built too" test -n "$dkms"
else
	skip "fpusoakd-dkms: no kmod/ in this tree yet (built with -Ppkg.fpusoakd.nodkms)"
fi

# lintian at its default level (errors and warnings), over every package of the .changes.
if command -v lintian >/dev/null; then
	out=$(lintian --allow-root "$changes" 2>&1)
	bad=$(grep -E '^[EW]: ' <<<"$out")
	if [ -z "$bad" ]; then
		pass "lintian $(lintian --version | cut -d' ' -f2): no errors, no warnings ($(grep -c '^N: ' <<<"$out" || true) notes; overrides: $(cat debian/*.lintian-overrides 2>/dev/null | grep -vc '^#\|^$'))"
	else
		fail "lintian reports errors or warnings:"
		sed 's/^/      | /' <<<"$bad"
	fi
	# Every override carries a comment saying why.
	for f in debian/*lintian-overrides; do
		[ -f "$f" ] || continue
		check "$f: every override follows a comment" awk '/^#/ { c = 1; next } /^$/ { next } { if (!c) exit 1; c = 0 }' "$f"
	done
else
	skip "lintian not installed (apt-get install lintian): package not linted"
fi

# fpusoakd-dkms: the module's source and kmod/dkms.conf in /usr/src/NAME-VERSION/, a dependency
# on dkms, and (where a kernel build tree is at hand: the Xen test bed's guest headers, or the
# running kernel's) dkms.conf's own MAKE line builds the module from the package's files, as
# `dkms build` would.  Nothing is loaded.
if [ -n "${dkms:-}" ]; then
	x=$(mktemp -d)
	dpkg-deb -x "$dkms" "$x/pkg"
	src=$(ls -d "$x"/pkg/usr/src/*-* 2>/dev/null | head -n 1)
	name=$(set +u; kernel_source_dir='' dkms_tree=''; . ./kmod/dkms.conf && echo "$PACKAGE_NAME-$PACKAGE_VERSION")
	check "fpusoakd-dkms holds /usr/src/$name/ with dkms.conf, Kbuild and the module's sources" \
		test "${src#$x/pkg}" = "/usr/src/$name" -a -f "$src/dkms.conf" -a -f "$src/Kbuild" -a -n "$(ls "$src"/*.c 2>/dev/null)"
	check "fpusoakd-dkms depends on dkms ($(dpkg-deb -f "$dkms" Depends))" grep -q '^dkms' <<<"$(dpkg-deb -f "$dkms" Depends)"
	kdir='' kver=''
	if [ -f "${XEN_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fpusoakd/xen}/kmod/env" ]; then
		kdir=$(. "${XEN_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fpusoakd/xen}/kmod/env" && echo "$KMOD_KDIR") kver=$(. "${XEN_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fpusoakd/xen}/kmod/env" && echo "$KMOD_KVER")
	elif [ -d "/lib/modules/$(uname -r)/build" ]; then
		kdir=/lib/modules/$(uname -r)/build kver=$(uname -r)
	fi
	if [ -n "$kdir" ] && [ -d "$kdir" ]; then
		(
			set +u
			kernel_source_dir=$kdir dkms_tree=$x/tree
			. "$src/dkms.conf"
			b=$dkms_tree/$PACKAGE_NAME/$PACKAGE_VERSION/build
			mkdir -p "$b" && cp -a "$src/." "$b/" && eval "${MAKE[0]}" && test -f "$b/${BUILT_MODULE_NAME[0]}.ko"
		) >"$x/make.log" 2>&1
		ko=$(ls "$x"/tree/*/*/build/*.ko 2>/dev/null | head -n 1)
		if [ -n "$ko" ] && strings "$ko" | grep -q "^vermagic=$kver "; then
			pass "dkms.conf's MAKE builds $(basename "$ko") from the package for $kver (not loaded)"
		else
			fail "dkms.conf's MAKE did not build the module for $kver from the package"
			tail -n 15 "$x/make.log" | sed 's/^/      | /'
		fi
	else
		skip "fpusoakd-dkms build: no kernel build tree here (no Xen test bed headers in \$XEN_CACHE/kmod, no /lib/modules/$(uname -r)/build)"
	fi
	rm -rf "$x"
fi

# What the package holds.
files=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's#^\./#/#')
missing=""
for f in /usr/sbin/fpusoakd /usr/libexec/fpusoakd/fpusoakd-spawner /usr/libexec/fpusoakd/fpusoakd-web /lib/systemd/system/fpusoakd.service \
	/lib/systemd/system/fpusoakd.socket /usr/share/man/man8/fpusoakd.8.gz /etc/fpusoakd/fpusoakd.conf \
	/usr/share/doc/fpusoakd/README.Debian /usr/share/doc/fpusoakd/copyright \
	/usr/share/doc/fpusoakd/examples/fpusoakd.rules.yml; do
	grep -qx "$f" <<<"$files" || missing="$missing $f"
done
check "the package holds the daemon, the spawner, the web process, both units, the man page, the config, README.Debian and the rules${missing:+ (missing:$missing)}" test -z "$missing"
check "no file under /usr/local or /var/lib/fpusoakd (systemd creates the state directory)" \
	bash -c "! grep -qE '^/usr/local|^/var/lib/fpusoakd' <<<\"\$1\"" _ "$files"
check "conffiles: /etc/fpusoakd/fpusoakd.conf" test "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./conffiles)" = /etc/fpusoakd/fpusoakd.conf
x=$(mktemp -d)
dpkg-deb -x "$deb" "$x"
dpkg-deb -e "$deb" "$x/DEBIAN"
check "the unit runs /usr/sbin/fpusoakd -c /etc/fpusoakd/fpusoakd.conf" \
	grep -qx 'ExecStart=/usr/sbin/fpusoakd -c /etc/fpusoakd/fpusoakd.conf' "$x/lib/systemd/system/fpusoakd.service"
check "the daemon was built to exec /usr/libexec/fpusoakd/fpusoakd-spawner and fpusoakd-web" grep -qa '/usr/libexec/fpusoakd' "$x/usr/sbin/fpusoakd"
check "the core links no HTTP library (libmicrohttpd is the web process's)" \
	bash -c "! readelf -dW '$x/usr/sbin/fpusoakd' | grep -q libmicrohttpd && readelf -dW '$x/usr/libexec/fpusoakd/fpusoakd-web' | grep -q libmicrohttpd"
check "the spawner is static (no interpreter, no DT_NEEDED)" \
	bash -c "! readelf -lW '$x/usr/libexec/fpusoakd/fpusoakd-spawner' | grep -q INTERP && ! readelf -dW '$x/usr/libexec/fpusoakd/fpusoakd-spawner' | grep -q NEEDED"
check "Built-Using names the glibc in the static spawner ($(dpkg-deb -f "$deb" Built-Using))" \
	test "$(dpkg-deb -f "$deb" Built-Using)" = "glibc (= $(dpkg-query -f '${source:Version}' -W libc6-dev))"
check "Rules-Requires-Root: no in debian/control" grep -qx 'Rules-Requires-Root: no' debian/control
# Nothing enabled or started: no 'enable' outside the was-enabled branch, no start, no plain restart.
check "maintainer scripts never start the service (only try-restart on upgrade)" \
	bash -c "! cat '$x'/DEBIAN/postinst '$x'/DEBIAN/prerm 2>/dev/null | grep -E 'deb-systemd-invoke (start|restart)|systemctl (start|restart|enable)'"
check "postinst re-enables only units that were enabled (each 'deb-systemd-helper enable' under a was-enabled test)" \
	awk '/deb-systemd-helper --quiet was-enabled/ { w = NR } /deb-systemd-helper enable/ && NR - w > 3 { exit 1 }' "$x/DEBIAN/postinst"
check "postinst restarts on upgrade with try-restart" grep -q 'deb-systemd-invoke try-restart fpusoakd.service' "$x/DEBIAN/postinst"
check "prerm stops the service and the socket on removal" grep -q 'deb-systemd-invoke stop fpusoakd.service fpusoakd.socket' "$x/DEBIAN/prerm"
rm -rf "$x"
t_done
