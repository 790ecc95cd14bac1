#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Escaping: hostile strings from every outside source reach every output
# format inert (tests/reliability/check_escaping.py does the checking):
#   - COMMs written to /dev/kmsg as page-allocation-failure lines: markup,
#     quotes, &, backslashes, control bytes, invalid UTF-8, JSON/CSV
#     breakers, formula-leading = + - @, U+2028, U+FFFE, 64 bytes;
#   - a fixture /proc tree (--proc-root) with hostile slab names, kernel
#     release and command line (vmstat/meminfo names and zone names cannot be
#     hostile: their parsers accept [A-Za-z0-9_()] only, so /metrics labels
#     hold such names, and the run's label and kernel release in
#     fpusoakd_run_info, which must round-trip; /metrics is checked for
#     strict syntax);
#   - a hostile run label (--label).
# Outputs: HTML pages (and their inline SVG), JSON, CSV, /metrics.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../reliability/rlib.sh"
if [ "$(id -u)" != 0 ] || [ ! -w /dev/kmsg ]; then skip "needs root to write /dev/kmsg"; t_done; fi
need python3:python3 sqlite3:sqlite3 curl:curl
r_init esc
r_confine 256M 64
R_DB=$R_TMP/esc.db
nonce=$$$RANDOM
proc=$R_TMP/proc
mkdir -p "$proc/sys/kernel/random"
for f in buddyinfo vmstat meminfo zoneinfo pagetypeinfo slabinfo; do cat /proc/$f >"$proc/$f"; done
cat /proc/sys/kernel/random/boot_id >"$proc/sys/kernel/random/boot_id"    # the real boot: kernel-log capture needs it

# Everything hostile, and the spec the checker reads, from one place.
python3 - "$R_TMP" "$nonce" <<'EOF'
import json, os, sys
tmp, nonce = sys.argv[1], sys.argv[2]
comms = [
    b'<script>alert(1)</script>',
    b'"><img src=x onerror=alert(1)>',
    b"'><svg/onload=alert(1)>",
    b'a&b&amp;&lt;c&#x3c;',
    b'back\\slash\\n\\u0000\\x41\\',
    b'tab\there\rcr\nnl',
    b'\xff\xfe\xfd bad \xc0\xaf \xe2\x82 \xed\xa0\x80',
    b'},{"comm":"x","pid":1},{',
    b'a,b;c"d\'e\\"',
    b'=cmd|\' /C calc\'!A0',
    b'+SUM(1+1)*cmd',
    b'-2+3+cmd',
    b'@SUM(1,1)',
    b'\tlead tab',
    b'name"} 1\n# HELP x y',
    b' spaced ',
    b'\xe2\x80\xa8line\xe2\x80\xa9sep',
    b']]><!--<![CDATA[x',
    b'\x1b[31mred\x1b[0m\x07\x7f',
    b'kworker/0:1H-kblockd: x',
    b'\xef\xbf\xbe\xef\xbf\xbf',
    b'caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x92\xa5',
    b'x' * 63 + b'<',
]
spec = {"run": 1, "comms": [], "label": "", "cmdline": "", "release": ""}
for i, c in enumerate(comms):
    marker = "GFP_ATOMIC|__GFP_T%sX%d" % (nonce, i)
    spec["comms"].append({"marker": marker, "hex": c.hex()})
label = b'=1+2<b onmouseover=alert(5)>&"\'\\ \xff\xe2\x80\xa8'
cmdline = b'console=ttyS0 x="<script>alert(3)</script>" y=\'&amp;\' z=\\'
release = b'6.1.0-<svg/onload=alert(4)>&"'
spec["label"], spec["cmdline"], spec["release"] = label.hex(), cmdline.hex(), release.hex()
proc = os.path.join(tmp, "proc")
with open(os.path.join(proc, "slabinfo"), "ab") as f:
    for s in [b'kmalloc-<script>alert(6)</script>', b'kmalloc-"><img/src=x/onerror=alert(7)>', b'kmalloc-a,b"c=1\\']:
        f.write(s + b" 10 10 64 64 1 : tunables 0 0 0 : slabdata 1 1 0\n")
open(os.path.join(proc, "cmdline"), "wb").write(cmdline + b"\n")
open(os.path.join(proc, "sys/kernel/osrelease"), "wb").write(release + b"\n")
open(os.path.join(tmp, "label"), "wb").write(label)
# The kernel-log lines, one record each (written later, one open(2) per record:
# /dev/kmsg rate-limits each open file to 10 records per 5 s).
with open(os.path.join(tmp, "kmsg.lines"), "wb") as f:
    for c, s in zip(comms, spec["comms"]):
        # The trailing newline matters: the kernel keeps a record without one open for
        # continuation, and readers do not see it until the next record arrives.
        line = b"<4>" + c + b": page allocation failure: order:3, mode:0x820(" + s["marker"].encode() + b"), nodemask=(null),cpuset=/,mems_allowed=0\n"
        f.write(line.hex().encode() + b"\n")
json.dump(spec, open(os.path.join(tmp, "spec.json"), "w"))
EOF
ncomms=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["comms"]))' "$R_TMP/spec.json")
port=$(r_port)
r_start "$R_TMP/d.log" --db "$R_DB" --listen 127.0.0.1:$port --proc-root "$proc" --label "$(cat "$R_TMP/label")" \
	--sample-interval 200ms --workers 0 --probe-interval 0 --switch-probe-interval 0
pid=$R_PID
for i in $(seq 50); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
python3 - "$R_TMP/kmsg.lines" <<'EOF'
import os, sys
for h in open(sys.argv[1]):
    fd = os.open("/dev/kmsg", os.O_WRONLY)
    os.write(fd, bytes.fromhex(h.strip()))
    os.close(fd)
EOF
if r_wait "SELECT count(*) FROM v_alloc_failures WHERE gfp_flags LIKE '%__GFP_T${nonce}X%'" "$ncomms" 100; then
	pass "all $ncomms hostile kernel-log lines stored as allocation failures"
else
	fail "$(q "SELECT count(*) FROM v_alloc_failures WHERE gfp_flags LIKE '%__GFP_T${nonce}X%'") of $ncomms hostile lines stored"
fi
# Byte-for-byte in the DB (the outputs are checked against the same bytes).
bad=$(python3 - "$R_TMP/spec.json" "$R_DB" <<'EOF'
import json, sqlite3, sys
spec = json.load(open(sys.argv[1]))
c = sqlite3.connect(sys.argv[2])
for s in spec["comms"]:
    r = c.execute("SELECT comm FROM v_alloc_failures WHERE gfp_flags = ?", (s["marker"],)).fetchone()
    if not r or bytes(r[0]) != bytes.fromhex(s["hex"]):
        print(s["marker"], r)
EOF
)
[ -z "$bad" ] && pass "every COMM stored byte-for-byte" || fail "COMMs not stored as written: $bad"
sleep 0.5
python3 "$(dirname "$0")/../reliability/check_escaping.py" "$R_TMP/spec.json" "$port" "$T_NAME"
r_alive "$pid" && pass "daemon alive after serving hostile data" || fail "daemon died: $(tail -3 "$R_TMP/d.log")"
kill -TERM "$pid"; wait "$pid"
echo "took $(r_elapsed) s"
t_done
