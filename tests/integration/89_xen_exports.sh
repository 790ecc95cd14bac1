#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The Xen test bed's export path without Xen: guest-lib.sh's send_exports
# (under busybox ash, as in the guests) prints a scenario's files, the
# console log is damaged the ways a real console damages it, and
# host-lib.sh's decode_exports must rebuild every file exactly, repair a line
# a kernel or Xen message split, and name what it cannot repair.
set -u
T_NAME=89_xen_exports
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib.sh disable=SC1091
. "$repo/tests/lib.sh"
# shellcheck source=tests/xen/host-lib.sh
. "$repo/tests/xen/host-lib.sh"

# con_lockup: run.sh stops QEMU when the guest reports a CPU stuck this long (a real console's lines).
fx=$repo/tests/fixtures/xen-console-softlockup.txt
check "con_lockup finds the longest-running report at 150 s ('$(con_lockup "$fx" 150)')" \
	test "$(con_lockup "$fx" 150)" = "soft lockup - CPU#0 stuck for 305s! [fpusoakd:15022]"
check "con_lockup says nothing under its threshold (306 s)" test -z "$(con_lockup "$fx" 306)"
lw=$(mktemp -d "${TMPDIR:-/tmp}/fpusoak-lockup.XXXXXX")
head -8 "$fx" >"$lw/short"
printf '[ 1.0] watchdog: BUG: soft lockup - CPU#1 stuck for 99999999999999999999s! [x:1]\n' >"$lw/huge"
printf 'soft lockup - CPU#1 stuck for 2x0s! [x:1]\nsoft lockup - CPU#1 stuck fo' >"$lw/junk"
check "a console whose reports are short of the threshold (44 s) is not a hang" test -z "$(con_lockup "$lw/short" 150)"
check "an absurd count is a hang, not a shell error" test -n "$(con_lockup "$lw/huge" 150 2>&1)" -a -z "$(con_lockup "$lw/huge" 150 2>&1 >/dev/null)"
check "damaged and missing consoles give nothing, and no error" \
	test -z "$(con_lockup "$lw/junk" 1 2>&1)$(con_lockup "$lw/none" 1 2>&1)"
rm -rf "$lw"

bb=$(command -v busybox || true)
if [ -z "$bb" ] || ! "$bb" --list | grep -qx tar; then
	skip "no busybox with tar here (the guests' shell); apt-get install busybox-static"
	t_done
fi
command -v sqlite3 >/dev/null || { skip "no sqlite3 (export_db folds the DB with it)"; t_done; }

w=$(mktemp -d "${TMPDIR:-/tmp}/fpusoak-xexp.XXXXXX")
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/run" "$w/in"
head -c 150000 /dev/urandom >"$w/in/blob"
printf 'line one\nline two\n' >"$w/in/text"
sqlite3 "$w/in/t.db" "PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (42);" >/dev/null
# The guest side, as /init runs it (no console level change on this host).
EXPORT_ROOT=$w/run EXPORT_QUIET_KERNEL=0 "$bb" sh -c '
	. "$1/tests/xen/guest-lib.sh"
	SC_NAME=demo
	export_file blob "$2/blob"
	export_file sub/text "$2/text"
	export_db t.db "$2/t.db"
	export_proc meminfo
	export_file gone "$2/nonexistent"
	send_exports demo' sh "$repo" "$w/in" >"$w/con.log" 2>"$w/err.log"
check "send_exports printed one export block" grep -q '^===FPUSOAK-EXPORT-END demo sha256=' "$w/con.log"
check "a missing file is named on the console" grep -q '^===FPUSOAK-EXPORT-MISSING demo/gone ' "$w/con.log"

dec() { decode_exports "$1" "$w/out.$2" >"$w/dec.$2"; }
dec "$w/con.log" clean
check "clean log: blob rebuilt byte for byte" cmp -s "$w/in/blob" "$w/out.clean/demo/blob"
check "clean log: a name with a folder" cmp -s "$w/in/text" "$w/out.clean/demo/sub/text"
check "clean log: the DB folded from its WAL is readable" test "$(sqlite3 "$w/out.clean/demo/t.db" 'SELECT x FROM t')" = 42
check "clean log: /proc snapshot exported" grep -q '^MemTotal:' "$w/out.clean/demo/proc/meminfo"
check "clean log: four ok lines, no bad one" test "$(grep -c '^ok ' "$w/dec.clean")/$(grep -c '^bad ' "$w/dec.clean")" = 4/0

# A kernel line and a Xen line inserted in the middle of data lines, and a
# whole kernel line between two: all repaired.
awk 'NR == 40 { print substr($0, 1, 30) "[   12.345678] xen:balloon: Cannot add additional memory (-17)"; print substr($0, 31); next }
	NR == 90 { print substr($0, 1, 3) "(XEN) d1v0 Unhandled: vec 14"; print substr($0, 4); next }
	NR == 120 { print "[   13.000000] random: crng init done" }
	{ print }' "$w/con.log" >"$w/con.split"
dec "$w/con.split" split
check "printk/Xen lines inside data lines repaired: blob intact" cmp -s "$w/in/blob" "$w/out.split/demo/blob"

# Text without a kernel timestamp inside a line cannot be told from data: the
# export is refused and the line named.
awk 'NR == 50 { print substr($0, 1, 30) "oops"; print substr($0, 31); next } { print }' "$w/con.log" >"$w/con.bad"
dec "$w/con.bad" bad
check "unrepairable line: export refused, line named ($(head -1 "$w/dec.bad"))" grep -q '^bad demo/ 1 of .* lines lost or garbled (lines 4[0-9])' "$w/dec.bad"
check "unrepairable line: no file written" test ! -e "$w/out.bad/demo/blob"

# A changed character that is still base64: only the sha256 catches it.
awk 'NR == 60 { c = substr($0, 20, 1); $0 = substr($0, 1, 19) (c == "A" ? "B" : "A") substr($0, 21) } { print }' "$w/con.log" >"$w/con.flip"
dec "$w/con.flip" flip
check "a flipped character: sha256 mismatch reported" grep -q '^bad demo/ sha256 mismatch' "$w/dec.flip"

# The guest died mid-export: no end marker.
head -n 100 "$w/con.log" >"$w/con.cut"
dec "$w/con.cut" cut
check "an export cut off: reported as such" grep -q '^bad demo/ export cut off' "$w/dec.cut"
t_done
