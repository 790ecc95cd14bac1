# SPDX-License-Identifier: GPL-2.0-only
# cg.sh: run a command inside its own memory+pids limited cgroup (sourced by bench/run.sh).
#
# SAFETY: everything the benchmarks fork or fill runs under a memory and a
# PID limit.  The group is made under this shell's own memory/pids cgroup
# (v1: /sys/fs/cgroup/{memory,pids}; v2: the unified hierarchy), so it nests
# inside whatever limits already apply, and it is removed afterwards.
#
#   cg_make NAME MEMORY_BYTES PIDS   -> sets CG_MEM, CG_PIDS (directories)
#   cg_exec CMD...                   -> runs CMD in the group (foreground)
#   cg_spawn CMD...                  -> starts CMD in the group in the background; $! is its PID
#   cg_peak                          -> peak memory of the group in bytes
#   cg_remove                        -> kills what is left in the group (by PID), removes it

cg_own() {   # cg_own CONTROLLER -> path of this shell's group in that v1 hierarchy
	awk -F: -v c="$1" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print $3 }' /proc/self/cgroup
}

cg_make() {
	local name=$1 mem=$2 pids=$3
	if [ -d /sys/fs/cgroup/memory ] && [ -d /sys/fs/cgroup/pids ]; then
		CG_VER=1
		CG_MEM=/sys/fs/cgroup/memory$(cg_own memory)/$name
		CG_PIDS=/sys/fs/cgroup/pids$(cg_own pids)/$name
		CG_MEM=${CG_MEM//\/\///}; CG_PIDS=${CG_PIDS//\/\///}
		mkdir -p "$CG_MEM" "$CG_PIDS" || return 1
		echo "$mem" > "$CG_MEM/memory.limit_in_bytes" || return 1
		# Without swap accounting memsw may be absent; with it, bound swap too.
		[ -f "$CG_MEM/memory.memsw.limit_in_bytes" ] && echo "$mem" > "$CG_MEM/memory.memsw.limit_in_bytes" 2>/dev/null
		echo "$pids" > "$CG_PIDS/pids.max" || return 1
	else
		CG_VER=2
		local own; own=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
		CG_MEM=/sys/fs/cgroup$own/$name; CG_PIDS=$CG_MEM
		mkdir -p "$CG_MEM" || return 1
		echo "$mem" > "$CG_MEM/memory.max" && echo "$pids" > "$CG_MEM/pids.max" || return 1
	fi
}

CG_ENTER='echo $$ > "$1/cgroup.procs" && { [ "$1" = "$2" ] || echo $$ > "$2/cgroup.procs"; } && shift 2 && exec "$@"'

cg_exec() {
	sh -c "$CG_ENTER" cg "$CG_MEM" "$CG_PIDS" "$@"
}

# Not via cg_exec: a backgrounded function would run in a subshell, and $! would be that
# subshell's PID, not the command's.  Here sh execs the command, so $! is the command.
cg_spawn() {
	sh -c "$CG_ENTER" cg "$CG_MEM" "$CG_PIDS" "$@" &
}

cg_peak() {
	if [ "$CG_VER" = 1 ]; then cat "$CG_MEM/memory.max_usage_in_bytes"; else cat "$CG_MEM/memory.peak" 2>/dev/null || echo 0; fi
}

cg_remove() {
	local d pid tries
	[ -n "${CG_MEM:-}" ] || return 0
	for tries in 1 2 3 4 5 6 7 8 9 10; do
		local left=""
		for d in "$CG_MEM" "$CG_PIDS"; do
			[ -f "$d/cgroup.procs" ] && left="$left $(cat "$d/cgroup.procs")"
		done
		left=$(echo $left)
		[ -z "$left" ] && break
		# Only PIDs inside our own group: every one of them was started by this script.
		for pid in $left; do kill -KILL "$pid" 2>/dev/null; done
		sleep 0.2
	done
	# Child groups first (fpusoakd's workers' group, forkloop's sandbox), deepest first.
	for d in "$CG_MEM" "$CG_PIDS"; do
		[ -d "$d" ] && find "$d" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
		[ -d "$d" ] && rmdir "$d" 2>/dev/null
	done
	CG_MEM= CG_PIDS=
}
