# SPDX-License-Identifier: GPL-2.0-only
# Shell side of the test convention: source this from integration scripts.
# Each check prints PASS:/FAIL:/SKIP: lines that tests/run.sh counts.
T_NAME=${T_NAME:-$(basename "$0")}
T_FAILS=0
pass() { echo "PASS: $T_NAME: $*"; }
fail() { echo "FAIL: $T_NAME: $*"; T_FAILS=$((T_FAILS + 1)); }
skip() { echo "SKIP: $T_NAME: $*"; }
check() { # check "description" command...
	local d=$1; shift
	if "$@" >/dev/null 2>&1; then pass "$d"; else fail "$d"; fi
}
t_done() { [ "$T_FAILS" -eq 0 ]; exit $?; }

# fpusoak_ldlibs: the libraries a program linked with libfpusoak.a needs, from the Makefile (make
# print-ldlibs); on stdout.
fpusoak_ldlibs() {
	make -s --no-print-directory -C "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)" print-ldlibs
}

# build/bench/churn_bench (the churn engine alone), rebuilt when the library or its source is newer;
# its path on stdout, or 1 with the compiler's first lines on stderr.  Same libraries as the daemon.
churn_bench_path() {
	# Not build/bench/churn_bench: bench/run.sh builds that one with --as-needed, and a newer copy of
	# it there passed the freshness test below and failed 31_churn_caps (no libraries to shed).
	local bench=${BUILD:-$PWD/build}/tests/churn_bench lib=${BUILD:-$PWD/build}/libfpusoak.a
	if [ ! -x "$bench" ] || [ "$lib" -nt "$bench" ] || [ bench/churn_bench.c -nt "$bench" ]; then
		mkdir -p "$(dirname "$bench")"
		# --no-as-needed: the bench itself calls none of these, but 31_churn_caps wants its spawner
		# to have libraries to shed, as the daemon's has (without libsystemd nothing else was mapped).
		cc -std=gnu11 -O2 -I. bench/churn_bench.c "$lib" -Wl,--no-as-needed \
			$(fpusoak_ldlibs) -Wl,--as-needed \
			-o "$bench" || return 1
	fi
	echo "$bench"
}

# need CMD:PACKAGE...: skip the whole test, visibly, when a command it calls is not installed
# (on Debian `make test-deps` installs each), instead of failing or finding "0 workers".
need() {
	local cp missing=""
	for cp in "$@"; do command -v "${cp%%:*}" >/dev/null || missing="$missing ${cp%%:*} (Debian: ${cp#*:})"; done
	[ -z "$missing" ] && return 0
	skip "not installed:$missing; as root, make test-deps installs it"
	t_done
}

# kmsg_rw_reason: nothing when this process may write lines into /dev/kmsg and read them back, else
# why not: not root, or kernel.dmesg_restrict=1 without CAP_SYSLOG (a container, a unit without it),
# where the daemon runs without the kernel log and says so.
kmsg_rw_reason() {
	[ -w /dev/kmsg ] || { echo "cannot write /dev/kmsg (not root)"; return; }
	(exec 3</dev/kmsg) 2>/dev/null ||
		echo "cannot read /dev/kmsg (kernel.dmesg_restrict=$(cat /proc/sys/kernel/dmesg_restrict 2>/dev/null) without CAP_SYSLOG)"
}

# no_cgroup_reason: nothing when a memory cgroup can be made here (a writable v1 memory
# hierarchy, or a writable cgroup2 mount offering the memory controller), else why not (a chroot
# without /sys/fs/cgroup, a container without cgroup access).  Tests skip their cgroup checks,
# visibly, on this reason and still run the daemon unconfined; where cgroups are there, a daemon
# that fails to use them is a failure, not a skip.
no_cgroup_reason() {
	local v1 v2
	# mountinfo: the fields after " - " are the fs type, the source, the super options.
	v1=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") break } $(i + 1) == "cgroup" && $(i + 3) ~ /(^|,)memory(,|$)/ { print $5; exit }' /proc/self/mountinfo)
	[ -n "$v1" ] && [ -w "$v1" ] && return 0
	v2=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") break } $(i + 1) == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	[ -n "$v2" ] && [ -w "$v2" ] && grep -qw memory "$v2/cgroup.controllers" 2>/dev/null && return 0
	echo "no writable cgroup memory controller here (v1 memory: ${v1:-not mounted}, cgroup2: ${v2:-not mounted}${v2:+ $(grep -qw memory "$v2/cgroup.controllers" 2>/dev/null || echo 'without memory')})"
}
