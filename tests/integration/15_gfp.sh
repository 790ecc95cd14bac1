#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The fpusoak_gfp module on the host (issue 19): built, never loaded.
#  1. make kmod against the running kernel's headers, when this machine has them
#     (a build that fails is a FAIL; no headers is a SKIP with the reason);
#  2. make kmod against the Xen test guest's kernel headers, downloaded and
#     extracted by tests/xen/prepare-kmod.sh (the module that guest loads):
#     a FAIL if it does not build cleanly once the headers are there;
#  3. the daemon without the module, the normal case: one line says so, the
#     run goes on as before (gfp_mode asked or not).
# Loading and using the module is the Xen guest's job (tests/xen/scenarios/gfp.*).
. "$(dirname "$0")/../lib.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
FPUSOAKD=${FPUSOAKD:-$repo/build/fpusoakd}
tmp=$(mktemp -d /tmp/fpusoak-gfp-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# build_kmod KDIR LABEL KVER: make kmod into $tmp/KVER; PASS/FAIL lines for the build and its vermagic.
build_kmod() {
	local kdir=$1 label=$2 kver=$3 out=$tmp/$3 log=$tmp/$3.log ko
	mkdir -p "$out"
	# KCFLAGS=-Werror: a warning from the kernel's own flags is a failure here, as in the daemon's build.
	# Its own make: a parent "make -j2 test" would hand down a jobserver this script cannot use (a warning).
	if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$repo" --no-print-directory kmod KDIR="$kdir" BUILD="$out" KCFLAGS=-Werror >"$log" 2>&1; then
		ko=$out/kmod/fpusoak_gfp.ko
		if grep -qi 'warning' "$log"; then
			fail "$label: make kmod warned: $(grep -i -m1 'warning' "$log")"
		else
			pass "$label: make kmod built $(basename "$ko") ($(wc -c <"$ko") bytes) without warnings"
		fi
		if strings "$ko" | grep -q "^vermagic=$kver "; then
			pass "$label: vermagic names kernel $kver"
		else
			fail "$label: vermagic is '$(strings "$ko" | sed -n 's/^vermagic=//p')', want $kver"
		fi
	else
		fail "$label: make kmod KDIR=$kdir failed: $(grep -m3 -E 'error|Error' "$log" | tr '\n' ' ')"
	fi
}

# 1. The running kernel.
kver=$(uname -r)
if [ -f "/lib/modules/$kver/build/Makefile" ]; then
	build_kmod "/lib/modules/$kver/build" "running kernel $kver" "$kver"
else
	skip "build against the running kernel: no headers at /lib/modules/$kver/build (this kernel $kver has no module support or no linux-headers package; the module is built against the Xen guest's headers below)"
fi

# 2. The Xen test guest's kernel (tests/xen/prepare.sh made $cache/env; the headers follow it).
cache=${XEN_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fpusoakd/xen}
if [ ! -f "$cache/env" ]; then
	skip "build against the Xen guest's kernel: the Xen test bed is not prepared ($cache/env missing; make test-xen prepares it)"
else
	bash "$repo/tests/xen/prepare-kmod.sh" >"$tmp/prep.log" 2>&1
	rc=$?
	if [ "$rc" = 77 ]; then
		skip "build against the Xen guest's kernel: $(grep -m1 'cannot prepare' "$tmp/prep.log")"
	elif [ "$rc" != 0 ]; then
		fail "tests/xen/prepare-kmod.sh exited $rc: $(tail -2 "$tmp/prep.log" | tr '\n' ' ')"
	else
		# shellcheck disable=SC1091
		. "$cache/kmod/env"
		build_kmod "$KMOD_KDIR" "Xen guest kernel $KMOD_KVER" "$KMOD_KVER"
	fi
fi

# 3. Without the module.
if [ -e /dev/fpusoak_gfp ]; then
	skip "daemon without the module: /dev/fpusoak_gfp exists on this machine"
else
	opts=(--db "$tmp/off.db" --listen none --workers 0 --probe-interval 0 --switch-probe-interval 0 --kmsg none
		--sample-interval 100ms --duration 1s)
	"$FPUSOAKD" "${opts[@]}" >"$tmp/off1.log" 2>&1
	rc=$?
	n=$(grep -c ': gfp: ' "$tmp/off1.log")
	check "default --gfp-mode off: exit 0 (got $rc)" test "$rc" = 0
	check "default: exactly one line about the module ($n)" test "$n" = 1
	check "default: it says the module is not loaded" grep -q 'fpusoak_gfp module not loaded: gfp_mode=off' "$tmp/off1.log"
	"$FPUSOAKD" "${opts[@]}" --gfp-mode alternate --model-check-interval 5s >"$tmp/off2.log" 2>&1
	rc=$?
	n=$(grep -c ': gfp: ' "$tmp/off2.log")
	check "--gfp-mode alternate without the module: the run goes on, exit 0 (got $rc)" test "$rc" = 0
	check "--gfp-mode alternate without the module: one warning line ($n)" test "$n" = 1
	check "that line says what was asked and what is in force" \
		grep -q 'warning: gfp: module not loaded: gfp_mode=off, no model checks (--gfp-mode alternate not possible)' "$tmp/off2.log"
	runs=$(sqlite3 -batch -noheader "$tmp/off.db" "SELECT count(*) FROM v_runs WHERE end_reason = 'stopped'" 2>&1)
	check "both runs ended as usual ($runs stopped)" test "$runs" = 2
	rec=$(sqlite3 -batch -noheader "$tmp/off.db" "SELECT group_concat(gfp_mode, '|') FROM v_runs" 2>&1)
	check "both runs record gfp_mode 'off (module not loaded)' (got '$rec')" \
		test "$rec" = "off (module not loaded)|off (module not loaded)"
	rec=$(sqlite3 -batch -noheader "$tmp/off.db" "SELECT count(*) FROM v_model_check" 2>&1)
	check "no model checks without the module (v_model_check: $rec rows)" test "$rec" = 0
	"$FPUSOAKD" --gfp-mode sometimes --db "$tmp/bad.db" >"$tmp/bad.log" 2>&1
	rc=$?
	check "--gfp-mode sometimes: exit 64 (got $rc)" test "$rc" = 64
	check "with the accepted words" grep -q "off|kernel|atomic|nowait|alternate" "$tmp/bad.log"
	check "--help names --gfp-mode and --model-check-interval" \
		sh -c "'$FPUSOAKD' --help | grep -q -- '--gfp-mode' && '$FPUSOAKD' --help | grep -q -- '--model-check-interval'"
fi
t_done
