#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The long runs of issue 30, one after the other (never two QEMUs of them at once): the
# scenario "seed" (tests/xen/scenarios/seed.*) in the 64 MB PV domU on the small kernel, for
# XEN_SEED_SECONDS of guest time each (default 7500; QEMU is not niced: under TCG guest time
# is host time), with these variants, named in SEED_RUNS (default "plain light"):
#   plain   --gfp-mode alternate, no load
#   light   the same with --fragment light
#   amx     no load, the module's object 11,008 bytes (AMX's XSAVE area: order 2 at the least)
#   amxlight  the same with --fragment light
# For each: the test bed's artifacts (the DB and the guest's files from the data disk, the
# consoles, times.txt), the host's load average once a minute while it ran, `fpusoakd summary`,
# the one-file offline report (`fpusoakd report --out`) and the per-probe table (seed-table.sh),
# under OUT/<variant>/.
# Usage: tests/xen/seed-run.sh OUT   (from the top of the tree, after `make all`; XEN_CACHE as for
# make test).  Exit status: how many runs failed their scenario's checks.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:?usage: tests/xen/seed-run.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
BUILD=${BUILD:-$repo/build}
FPUSOAKD=${FPUSOAKD:-$BUILD/fpusoakd}
[ -x "$FPUSOAKD" ] || { echo "seed-run: no $FPUSOAKD (make all first)" >&2; exit 2; }
failed=0
for v in ${SEED_RUNS:-plain light}; do
	case "$v" in
	plain) frag=none ob=0 ;;
	light) frag=light ob=0 ;;
	amx) frag=none ob=11008 ;;
	amxlight) frag=light ob=11008 ;;
	*) echo "seed-run: unknown variant $v (plain, light, amx, amxlight)" >&2; exit 2 ;;
	esac
	dest=$out/$v
	rm -rf "$dest"
	mkdir -p "$dest"
	echo "seed-run: $v: --fragment $frag, object_bytes $ob, ${XEN_SEED_SECONDS:-7500} s, started $(date -u +%FT%TZ)" | tee "$dest/command.txt"
	# The host's load while it runs (other agents share the machine): one line a minute.
	( while :; do echo "$(date -u +%FT%TZ) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 60; done ) >"$dest/host-load.txt" &
	loadpid=$!
	cmd=(env XEN_DOMU_SCENARIOS=seed XEN_DOMU_DATA_MB=256 XEN_SEED_FRAGMENT="$frag" XEN_SEED_OBJECT_BYTES="$ob"
		T_NAME="seed-$v" BUILD="$BUILD" FPUSOAKD="$FPUSOAKD" bash "$here/run.sh" --stage domu)
	echo "command: ${cmd[*]}" >>"$dest/command.txt"
	"${cmd[@]}" >"$dest/run.log" 2>&1
	rc=$?
	kill "$loadpid" 2>/dev/null
	wait "$loadpid" 2>/dev/null
	echo "exit $rc, ended $(date -u +%FT%TZ)" >>"$dest/command.txt"
	[ "$rc" = 0 ] || failed=$((failed + 1))
	d=$BUILD/xen/domu
	cp -a "$d/data/seed" "$dest/data" 2>/dev/null
	cp -a "$d/console.log" "$d/console-domu.log" "$d/times.txt" "$d/prepare.log" "$dest/" 2>/dev/null
	cp -a "$d/seed" "$dest/exports" 2>/dev/null
	cp -a "$d/boot" "$dest/boot" 2>/dev/null
	if [ -f "$dest/data/fpusoakd.db" ]; then
		run=$(sqlite3 "$dest/data/fpusoakd.db" "SELECT max(run_id) FROM runs")
		"$FPUSOAKD" summary --db "$dest/data/fpusoakd.db" --run "$run" >"$dest/summary.txt" 2>&1
		"$FPUSOAKD" report --db "$dest/data/fpusoakd.db" --run "$run" --out "$dest/report.html" >"$dest/report.log" 2>&1
		bash "$here/seed-table.sh" "$dest" >"$dest/table.md" 2>&1
	fi
	tail -1 "$dest/run.log"
done
exit "$failed"
