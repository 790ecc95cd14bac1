# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers of the reliability scripts (tests/integration/6x_*.sh).
# Source after tests/lib.sh.  Everything a script starts is registered here so
# the EXIT trap kills exactly those PIDs, unmounts what it mounted, removes
# the cgroups it created and its temp dir, and nothing else.
#
#   r_init NAME           temp dir $R_TMP, trap, start clock
#   r_cgroup MEM PIDS     a memory+pids cgroup for everything the test starts
#                         (v1 memory+pids or a delegated v2 group); 1 if impossible
#   r_confine MEM PIDS    r_cgroup, or where none can be made, a SKIP line that says why
#                         and the daemon runs unconfined (it caps its own workers and
#                         probes at 64 there); for tests that are not about cgroups
#   r_start LOG ARGS...   start $FPUSOAKD ARGS inside that cgroup (behind the command
#                         in the array R_WRAP, e.g. valgrind, if set); sets $R_PID
#   r_track PID           kill PID (and only it) at exit
#   r_mount DIR OPTS      mount -t tmpfs -o OPTS on DIR, unmounted at exit
#   r_port                a free loopback TCP port
#   r_listening [PID]     TCP addresses in LISTEN (of PID's sockets only, if given), from /proc
#                         (no ss: iproute2 is not in a minimal root)
#   r_alive PID           running (a zombie counts as dead: PID 1 here does not reap)
#   r_wait SQL WANT [N]   poll the DB ($R_DB) every 0.1 s, N times, for SQL = WANT
#   r_elapsed             "took N s" for the closing line
FPUSOAKD=${FPUSOAKD:-build/fpusoakd}
R_PIDS=()
R_MOUNTS=()
R_CGDIRS=()
R_CGROUP_PROCS=()
R_WRAP=()
R_TMP=
R_T0=$(date +%s)

r_cleanup() {
	local p d i
	for p in "${R_PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	for p in "${R_PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	# Wait for the daemon's own cleanup to have happened (PDEATHSIG): the
	# cgroups below can only be removed when they are empty.
	for d in "${R_CGDIRS[@]}"; do
		for i in $(seq 50); do
			[ -z "$(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | head -1)" ] && break
			# Only processes in our own test group can be here: kill them.
			find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -9 2>/dev/null
			sleep 0.1
		done
	done
	for d in "${R_MOUNTS[@]}"; do
		umount "$d" 2>/dev/null || umount -l "$d" 2>/dev/null
	done
	# Children first (the daemon's worker groups), then ours.
	for d in "${R_CGDIRS[@]}"; do
		find "$d" -depth -mindepth 1 -type d -exec rmdir {} \; 2>/dev/null
		rmdir "$d" 2>/dev/null
	done
	[ -n "$R_TMP" ] && rm -rf "$R_TMP"
}

r_init() {
	R_TMP=$(mktemp -d "/tmp/fpusoak-$1-XXXXXX")
	trap r_cleanup EXIT
	trap 'exit 130' INT TERM
}

r_track() { R_PIDS+=("$1"); }

r_elapsed() { echo "$(( $(date +%s) - R_T0 ))"; }

r_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

r_listening() {
	python3 - "${1:-}" <<'PY'
import os, socket, sys
pid = sys.argv[1]
inodes = None
if pid:
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
out = set()
for name, fam in (("tcp", socket.AF_INET), ("tcp6", socket.AF_INET6)):
    try:
        lines = open(f"/proc/net/{name}").read().splitlines()[1:]
    except OSError:
        continue
    for line in lines:
        f = line.split()
        if f[3] != "0A" or (inodes is not None and f[9] not in inodes):
            continue
        addr, port = f[1].split(":")
        raw = bytes.fromhex(addr)
        # /proc/net/tcp* print each 32-bit word of the address in host (little-endian) order.
        raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
        host = socket.inet_ntop(fam, raw)
        out.add((f"[{host}]" if fam == socket.AF_INET6 else host) + f":{int(port, 16)}")
print(" ".join(sorted(out)))
PY
}

r_alive() {
	[ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

r_mount() {
	mkdir -p "$1" && mount -t tmpfs -o "$2" tmpfs "$1" && R_MOUNTS+=("$1")
}

# q: errors go to the log (a failed query must not look like an empty answer); qq: quiet, for polling.
q() { sqlite3 -batch -noheader -cmd '.timeout 2000' "$R_DB" "$1"; }
qq() { sqlite3 -batch -noheader "$R_DB" "$1" 2>/dev/null; }

r_wait() {
	local i
	for i in $(seq "${3:-100}"); do
		[ "$(qq "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# A cgroup that holds the daemon, its spawner and its workers (the daemon
# creates its workers' group inside it), so a bug anywhere cannot take more
# than MEM bytes and PIDS tasks from the machine.
r_cgroup() {
	local mem=$1 pids=$2 name="fpusoak-rel-$T_NAME-$$" own
	name=${name//./_}
	R_CGROUP_PROCS=()
	if [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ] || \
	   grep -q '^[0-9]*:[^:]*memory[^:]*:' /proc/self/cgroup; then
		local mroot proot
		mroot=$(awk '$9=="cgroup" && $NF ~ /(^|,)memory(,|$)/ {print $5; exit}' /proc/self/mountinfo)
		proot=$(awk '$9=="cgroup" && $NF ~ /(^|,)pids(,|$)/ {print $5; exit}' /proc/self/mountinfo)
		[ -n "$mroot" ] && [ -n "$proot" ] || return 1
		own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
		local m=$mroot${own%/}/$name
		own=$(awk -F: '$2 ~ /(^|,)pids(,|$)/ {print $3}' /proc/self/cgroup)
		local p=$proot${own%/}/$name
		mkdir "$m" 2>/dev/null || return 1
		R_CGDIRS+=("$m")
		mkdir "$p" 2>/dev/null || return 1
		R_CGDIRS+=("$p")
		echo "$mem" >"$m/memory.limit_in_bytes" || return 1
		echo "$mem" >"$m/memory.memsw.limit_in_bytes" 2>/dev/null
		echo "$pids" >"$p/pids.max" || return 1
		R_CGROUP_PROCS=("$m/cgroup.procs" "$p/cgroup.procs")
		R_CGROUP_MEM=$m
		return 0
	fi
	# cgroup v2: only where our own group delegates memory and pids to children.
	own=$(awk -F: '$1=="0" {print $3}' /proc/self/cgroup)
	local base=/sys/fs/cgroup${own%/}
	grep -qw memory "$base/cgroup.subtree_control" 2>/dev/null && \
		grep -qw pids "$base/cgroup.subtree_control" 2>/dev/null || return 1
	mkdir "$base/$name" 2>/dev/null || return 1
	R_CGDIRS+=("$base/$name")
	echo "$mem" >"$base/$name/memory.max" && echo 0 >"$base/$name/memory.swap.max" 2>/dev/null
	echo "$pids" >"$base/$name/pids.max" || return 1
	R_CGROUP_PROCS=("$base/$name/cgroup.procs")
	R_CGROUP_MEM=$base/$name
	return 0
}

# Why r_cgroup could not make the test's cgroup (for a skip line).
r_cgroup_why() {
	local why
	why=$(no_cgroup_reason)
	echo "${why:-the cgroup of this process cannot hold a memory+pids child (cgroup2 without memory and pids delegated here)}"
}

r_confine() {
	R_CGROUP_MEM=
	r_cgroup "$@" && return 0
	R_CGROUP_PROCS=() R_CGROUP_MEM=
	skip "the test's $1 / $2-pid cgroup: $(r_cgroup_why); the daemon runs unconfined"
	return 0
}

# Start the daemon inside the test cgroup: the subshell joins it, then execs.
r_start() {
	local log=$1
	shift
	(
		for f in "${R_CGROUP_PROCS[@]}"; do echo "$BASHPID" >"$f" || exit 125; done
		exec "${R_WRAP[@]}" "$FPUSOAKD" "$@"
	) >>"$log" 2>&1 &
	R_PID=$!
	r_track "$R_PID"
}

# Run any command inside the test cgroup (in the foreground).
r_run() {
	(
		for f in "${R_CGROUP_PROCS[@]}"; do echo "$BASHPID" >"$f" || exit 125; done
		exec "$@"
	)
}

# The spawner is the daemon's only child process.
r_spawner_of() { pgrep -P "$1" | head -1; }
