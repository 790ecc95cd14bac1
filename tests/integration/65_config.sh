#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Hostile and malformed config files (daemon/config.c through inih), the
# cases fuzz_config pointed at.  fpusoakd(8)'s contract: a bad value is one line
# on stderr and exit 78 with file:line; nothing is clamped silently.  So
# each file below must either be refused (78, naming the file and a line)
# or load exactly as written; the daemon must never run with a setting the
# file did not say.  A good file with every key must load every key.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../reliability/rlib.sh"
need sqlite3:sqlite3
r_init cfg
cd "$R_TMP" || exit 1
FPUSOAKD=$(cd "$OLDPWD" && realpath "$FPUSOAKD")
SHORT=(--duration 300ms --listen none --workers 0 --probe-interval 0 --switch-probe-interval 0)
# refused NAME FILE LINE: exit 78 and "FILE:LINE" in the one-line complaint, nothing created.
refused() {
	local name=$1 f=$2 line=$3 out rc
	rm -rf "$R_TMP/run" && mkdir "$R_TMP/run"
	out=$(cd "$R_TMP/run" && timeout 10 "$FPUSOAKD" -c "$f" --db "$R_TMP/run/x.db" "${SHORT[@]}" 2>&1); rc=$?
	if [ $rc = 78 ] && echo "$out" | grep -q "$f:$line" && [ -z "$(ls "$R_TMP/run")" ]; then
		pass "$name: refused (exit 78): $(echo "$out" | tail -1 | cut -c1-100)"
	else
		fail "$name: exit $rc, files created: '$(ls "$R_TMP/run" | tr '\n' ' ')', said: $(echo "$out" | grep -v 'oom_score\|migration' | head -2 | tr '\n' ' ' | cut -c1-160)"
	fi
}
# refused_or NAME FILE SQL WANT [LINE]: either refused with exit 78 naming FILE:LINE (any line of
# the file if LINE is not given), or it runs and SQL on its DB = WANT.
refused_or() {
	local name=$1 f=$2 sql=$3 want=$4 line=${5:-} out rc got
	rm -rf "$R_TMP/run" && mkdir "$R_TMP/run"
	out=$(cd "$R_TMP/run" && timeout 10 "$FPUSOAKD" -c "$f" "${SHORT[@]}" 2>&1); rc=$?
	if [ $rc = 78 ] && echo "$out" | grep -q "$f:[0-9]"; then
		local at
		at=$(echo "$out" | grep -o "$f:[0-9]*" | head -1); at=${at##*:}
		if { [ -n "$line" ] && [ "$at" = "$line" ]; } || { [ -z "$line" ] && [ "$at" -le "$(wc -l <"$f")" ]; }; then
			pass "$name: refused (exit 78): $(echo "$out" | tail -1 | cut -c1-100)"
		else
			fail "$name: refused, but names line $at (the culprit is line ${line:-1..$(wc -l <"$f")}): $(echo "$out" | tail -1 | cut -c1-100)"
		fi
		return
	fi
	got=$(sqlite3 -batch -noheader "$R_TMP/run/want.db" "$sql" 2>/dev/null)
	if [ $rc = 0 ] && [ "$got" = "$want" ] && [ "$(ls "$R_TMP/run")" = want.db ]; then
		pass "$name: loaded as written ($sql = $want)"
	else
		fail "$name: exit $rc; ran with files '$(ls "$R_TMP/run" | tr '\n' '|')' and $sql = '$got' (want '$want' or exit 78)"
	fi
}

# 1. An indented line after a key: inih takes it as a continuation that REPLACES the key's value.
printf '[fpusoakd]\ndb = want.db\n    kmsg = none\n' >c1.conf
refused_or "indented 'kmsg = none' after db" "$R_TMP/c1.conf" "SELECT 1" 1 3
# 2. A line longer than inih's line buffer: the value is cut and the rest read as a new line.
pad=$(printf 'x%.0s' $(seq 300))
printf '[fpusoakd]\ndb = want.db\nlabel = %s\n' "${pad:0:120}" >c2.conf
refused_or "127-byte label line (fits the field)" "$R_TMP/c2.conf" "SELECT length(label) FROM runs" 120
printf '[fpusoakd]\ndb = want.db\nproc-root = /%s\n' "${pad:0:280}" >c3.conf
refused_or "288-byte proc-root line" "$R_TMP/c3.conf" "SELECT instr(config, 'proc-root=/$pad') > 0 FROM runs" 1 3
n=$(( 199 - 13 )); printf '[fpusoakd]\ndb = want.db\nproc-root = /%sworkers = 7\n' "${pad:0:$n}" >c4.conf
refused_or "a key hidden past byte 199 of a proc-root line" "$R_TMP/c4.conf" "SELECT instr(config, 'workers=32') > 0 FROM runs" 1 3
# 3. A NUL byte inside a value.
printf '[fpusoakd]\nworkers = 0\nlabel = abc\000def\n' >c5.conf
refused "NUL inside a value (not a text file)" "$R_TMP/c5.conf" 3
# 4. Plain refusals with file:line.
printf '[fpusoakd]\nworkers = 8\nbogus-key = 1\n' >r1.conf; refused "unknown key" "$R_TMP/r1.conf" 3
printf '[fpusoakd]\n[other]\nworkers = 1\n' >r2.conf; refused "unknown section" "$R_TMP/r2.conf" 3
printf '[fpusoakd]\nworkers = -1\n' >r3.conf; refused "negative workers" "$R_TMP/r3.conf" 2
printf '[fpusoakd]\nqueue-max = 99999999999999999999G\n' >r4.conf; refused "overflowing size" "$R_TMP/r4.conf" 2
printf '[fpusoakd]\nsample-interval = 1e3ms\n' >r5.conf; refused "junk duration" "$R_TMP/r5.conf" 2
printf '[fpusoakd]\nworkers\n' >r6.conf; refused "key without value" "$R_TMP/r6.conf" 2
printf '\x89PNG\r\x1a\xff\xfe\x01\x02 =\x80\x81\x1b[2J\n' >r7.conf    # binary, but no NUL (that case is above)
refused "binary garbage" "$R_TMP/r7.conf" 1
# 5. Not a file, no file.  A directory opens (fopen succeeds on Linux) and reads as nothing.
out=$(timeout 10 "$FPUSOAKD" -c "$R_TMP" "${SHORT[@]}" --db "$R_TMP/d.db" 2>&1); rc=$?
[ $rc = 78 ] && [ "$(echo "$out" | wc -l)" -le 2 ] && pass "a directory as config: exit 78: $(echo "$out" | tail -1)" || fail "directory as config: exit $rc: $out"
out=$(timeout 10 "$FPUSOAKD" -c "$R_TMP/none.conf" "${SHORT[@]}" --db "$R_TMP/d.db" 2>&1); rc=$?
[ $rc = 78 ] && pass "a missing config: exit 78: $(echo "$out" | tail -1)" || fail "missing config: exit $rc: $out"
# 6. A long comment line is still a comment; 100,000 short comment lines load, and quickly.
printf '[fpusoakd]\ndb = want.db\n# %s\nlabel = long-comment\n' "$pad" >c6.conf
refused_or "a 302-byte comment line" "$R_TMP/c6.conf" "SELECT label FROM runs" long-comment 3
{ printf '[fpusoakd]\ndb = want.db\n'; for i in $(seq 100000); do printf '# %s\n' "${pad:0:100}"; done; echo 'label = big'; } >big.conf
t0=$(date +%s%N)
refused_or "a 10 MB file of 100-byte comments" "$R_TMP/big.conf" "SELECT label FROM runs" big
echo "  (took $(( ($(date +%s%N) - t0) / 1000000 )) ms)"
# 7. Every key, each set away from its default: all take effect (the stored effective config says so).
cat >all.conf <<'EOF'
[fpusoakd]
# every key, none at its default
db = want.db
listen = none
label = every-key
sample-interval = 250ms
slow-interval = 5m
duration = 300ms
retain-raw = 36h
queue-max = 64M
workers = 0
spawn-rate = 2.5
lifetime = 0
lifetime-dist = uniform
seed = 12345
fpu = x87
worker-memory = 1M
cgroup-memory-max = 0
cgroup-pids-max = 0
probe-interval = 0
probe-limit = 99
probe-scope = guest
switch-probe-interval = 0
switch-threads = 3
proc-root = /proc
sys-root = /sys
kmsg = none
log-level = warn
EOF
rm -rf "$R_TMP/run" && mkdir "$R_TMP/run"
(cd "$R_TMP/run" && timeout 10 "$FPUSOAKD" -c "$R_TMP/all.conf" >"$R_TMP/all.log" 2>&1); rc=$?
want="db=want.db listen=none label=every-key sample-interval=250ms slow-interval=5m duration=300ms retain-raw=36h
queue-max=67108864 workers=0 spawn-rate=2.5 lifetime=0 lifetime-dist=uniform seed=12345 fpu=x87 worker-memory=1048576
cgroup-memory-max=0 cgroup-pids-max=0 probe-interval=0 probe-limit=99 probe-scope=guest switch-probe-interval=0
switch-threads=3 proc-root=/proc sys-root=/sys kmsg=none log-level=warn"
got=$(sqlite3 -batch -noheader "$R_TMP/run/want.db" "SELECT config FROM runs" 2>/dev/null)
missing=""
for kv in $want; do printf '%s\n' "$got" | grep -qxF "$kv" || missing="$missing $kv"; done
[ $rc = 0 ] && [ -z "$missing" ] && pass "all 27 keys of a config file take effect (stored effective config matches)" \
	|| fail "every-key file: exit $rc, not in the stored config:$missing"
# Flags win over the file.
rm -rf "$R_TMP/run" && mkdir "$R_TMP/run"
(cd "$R_TMP/run" && timeout 10 "$FPUSOAKD" -c "$R_TMP/all.conf" --label from-flag --sample-interval 100ms >/dev/null 2>&1)
check "flags win over the file (label, sample-interval)" test \
	"$(sqlite3 -batch -noheader "$R_TMP/run/want.db" "SELECT label || ' ' || (instr(config, 'sample-interval=100ms') > 0) FROM runs")" = "from-flag 1"
echo "took $(r_elapsed) s"
t_done
