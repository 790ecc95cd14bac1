#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# 43_startup: bad input at start costs one clear line and the right exit code, and writes nothing.
#   - --listen is checked whole when the flags are read (64); a port in use is found before the
#     spawner, the database or a run row exist (69), and the line names the address;
#   - a database path that cannot work names its cause (missing folder, a directory, a folder on a
#     read-only file system, a file where a folder should be);
#   - a repeated flag (64) or a key twice in the config file (78, file:line).
# No churn (--workers 0): nothing here needs a cgroup.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../reliability/rlib.sh"
command -v sqlite3 >/dev/null || { skip "needs sqlite3"; t_done; }
command -v python3 >/dev/null || { skip "needs python3"; t_done; }
r_init start
cd "$R_TMP" || exit 1
FPUSOAKD=$(cd "$OLDPWD" && realpath "$FPUSOAKD")
QUIET=(--workers 0 --probe-interval 0 --switch-probe-interval 0 --kmsg none --duration 2s)
# lines OUT: the complaint lines (the oom_score_adj note is not one)
lines() { grep -v 'oom_score_adj' <<<"$1"; }

# --listen, whole, at parse time
for bad in 127.0.0.1:99999 127.0.0.1:0 127.0.0.1: localhost:8089 '[::1:8089'; do
	mkdir -p "$R_TMP/l" && out=$(cd "$R_TMP/l" && timeout 10 "$FPUSOAKD" --db x.db --listen "$bad" "${QUIET[@]}" 2>&1); rc=$?
	check "--listen $bad: exit 64 (got $rc), one line ($(lines "$out" | head -1 | cut -c1-90)), nothing created" \
		bash -c "[ $rc = 64 ] && [ $(lines "$out" | wc -l) = 1 ] && [ -z \"\$(ls '$R_TMP/l')\" ]"
	rm -rf "$R_TMP/l"
done

# A port in use: python holds it.  Exit 69 naming the address; no DB file, so certainly no run row.
python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(1); print(s.getsockname()[1], flush=True); time.sleep(30)' \
	>"$R_TMP/port" & holder=$!
r_track "$holder"
for i in $(seq 50); do [ -s "$R_TMP/port" ] && break; sleep 0.1; done
port=$(cat "$R_TMP/port")
out=$(timeout 10 "$FPUSOAKD" --db "$R_TMP/busy.db" --listen "127.0.0.1:$port" "${QUIET[@]}" 2>&1); rc=$?
check "port $port in use: exit 69 (got $rc)" test "$rc" = 69
check "... one line naming the address: $(lines "$out" | head -1)" \
	bash -c "[ $(lines "$out" | wc -l) = 1 ] && grep -q '127.0.0.1:$port: Address already in use' <<<'$out'"
check "... before the database existed (no file, no run row)" test ! -e "$R_TMP/busy.db"
out=$(timeout 10 "$FPUSOAKD" --db "$R_TMP/busy.db" --listen none "${QUIET[@]}" 2>&1); rc=$?
out=$(timeout 10 "$FPUSOAKD" --db "$R_TMP/busy.db" --listen "127.0.0.1:$port" "${QUIET[@]}" 2>&1); rc=$?
check "an existing DB, port in use: exit 69 and its runs unchanged (1 run, no 'error' run)" \
	bash -c "[ $rc = 69 ] && [ \"\$(sqlite3 '$R_TMP/busy.db' \"SELECT count(*) || ' ' || count(end_reason = 'error' OR NULL) FROM runs\")\" = '1 0' ]"
kill "$holder"

# Database paths that cannot work: each names its cause, exit 1, nothing written.
dbcase() { # dbcase NAME PATH WANT-IN-MESSAGE
	local out rc
	out=$(timeout 10 "$FPUSOAKD" --db "$2" --listen none "${QUIET[@]}" 2>&1); rc=$?
	if [ $rc = 1 ] && [ "$(lines "$out" | wc -l)" = 1 ] && grep -qF "$3" <<<"$out"; then
		pass "$1: exit 1, one line: $(lines "$out" | cut -c1-110)"
	else
		fail "$1: exit $rc, said: $(lines "$out" | head -3 | tr '\n' '|' | cut -c1-200) (want '$3')"
	fi
}
dbcase "missing folder" "$R_TMP/nowhere/x.db" "folder $R_TMP/nowhere does not exist"
mkdir "$R_TMP/adir.db"
dbcase "a directory" "$R_TMP/adir.db" "$R_TMP/adir.db is a directory, not a database file"
echo x >"$R_TMP/afile"
dbcase "a file where the folder should be" "$R_TMP/afile/x.db" "$R_TMP/afile is not a folder"
if [ "$(id -u)" = 0 ] && r_mount "$R_TMP/ro" "size=1m,ro"; then
	dbcase "a read-only folder" "$R_TMP/ro/x.db" "folder $R_TMP/ro is on a read-only file system"
else
	skip "read-only folder: needs root to mount a read-only tmpfs"
fi

# One value per option.
out=$(timeout 10 "$FPUSOAKD" --db "$R_TMP/a.db" --db "$R_TMP/b.db" --listen none "${QUIET[@]}" 2>&1); rc=$?
check "--db twice: exit 64 (got $rc): $(lines "$out" | head -1)" \
	bash -c "[ $rc = 64 ] && [ ! -e '$R_TMP/a.db' ] && [ ! -e '$R_TMP/b.db' ]"
printf '[fpusoakd]\ndb = %s\nworkers = 0\nlabel = one\nlabel = two\n' "$R_TMP/k.db" >"$R_TMP/dup.conf"
out=$(timeout 10 "$FPUSOAKD" -c "$R_TMP/dup.conf" --listen none "${QUIET[@]}" 2>&1); rc=$?
check "a key twice in the file: exit 78 naming file:line 5 (got $rc): $(lines "$out" | head -1)" \
	bash -c "[ $rc = 78 ] && grep -q '$R_TMP/dup.conf:5: duplicate key' <<<'$out' && [ ! -e '$R_TMP/k.db' ]"
echo "took $(r_elapsed) s"
t_done
