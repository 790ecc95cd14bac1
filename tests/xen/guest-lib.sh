# SPDX-License-Identifier: GPL-2.0-only
# Guest library of the Xen test bed (busybox ash).  /init sources it, and so
# does the shell each scenario runs in, before the scenario's NAME.guest.sh.
#
# What a scenario may use (see tests/xen/README.md):
#   mark WHAT...            a one-line fact on the console: ===FPUSOAK-WHAT...===
#   say TEXT...             a log line on the console, prefixed by the scenario
#   uptime_s                guest uptime in seconds (e.g. 12.34)
#   sc_remaining            seconds left of the scenario's budget
#   sc_sleep N              sleep N seconds, but never past the budget
#   daemon_start DB FLAGS…  fpusoakd in the background (the stage's listen
#                           address, label, $SC_FLAGS, then FLAGS); DAEMON_PID
#   daemon_wait             wait for it; its exit status
#   daemon_signal SIG       send it a signal
#   daemon_alive            it runs (a zombie is not alive)
#   probes_done DB          capacity probes stored in DB so far (0 without it)
#   slab_stats TAG FILE     where the kernel has SLUB statistics: the module's
#                           cache's and task_struct's, one line per cache
#                           ("TAG cache uptime=U stat=total ..."), appended
#                           to FILE
#   threads_max_at_least N  raise kernel.threads-max to N when below it (the
#                           kernel sizes it by memory: 403 in the 64 MB domU,
#                           which ends a fill of FPU-only workers by fork's
#                           EAGAIN before memory does); marks THREADS-MAX
#   fetch_report FILE       GET / from the daemon inside the guest (wget)
#   export_file NAME PATH   send PATH to the host after the scenario, as NAME
#   export_db NAME PATH     the same for an SQLite DB (folded into one file)
#   export_proc FILE…       snapshot /proc/FILE now, exported as proc/FILE
#                           (a / in FILE becomes _); /proc files go this
#                           way, not with export_file (tar sees them empty)
# Variables: STAGE (dom0 | domu), SC_NAME, SC_BUDGET, SC_FLAGS, SC_DIR (the
# scenario's files in the initramfs), PAYLOAD (daemon | standin),
# LISTEN_PORT (the port the host fetches from, or empty), and whatever the
# scenario's prepare step set with sc_env.
#
# Exports leave on the console after the scenario ends (so a scenario stopped
# at its cap still sends what it registered), as one tar.gz per scenario:
#   ===FPUSOAK-EXPORT-BEGIN scenario files=N bytes=B uptime=U===
#   SEQ:BASE64   (76 base64 characters per line)
#   ===FPUSOAK-EXPORT-END scenario sha256=HEX lines=L===
# The tar holds the files and a manifest ("name path" per line).  One tar,
# not one export per file: under TCG every fork in a PV guest costs a
# fraction of a second (its page tables are updated by hypercalls).
# The kernel's console level is lowered first; the sequence numbers let the
# host (tests/xen/host-lib.sh) drop or repair lines a printk split, and the
# sha256 of the tar.gz proves the copy it rebuilt is the one sent.

# Where exports are staged (tmpfs); the host's self-test of the export path
# (tests/integration/89_xen_exports.sh) points it elsewhere and sets
# EXPORT_QUIET_KERNEL=0, so that it never touches the host's console level.
EXPORT_ROOT=${EXPORT_ROOT:-/run}
EXPORT_QUIET_KERNEL=${EXPORT_QUIET_KERNEL:-1}

mark() { echo "===FPUSOAK-$*==="; }
say() { echo "${SC_NAME:-init}: $*"; }
uptime_s() { read -r _u _ </proc/uptime; echo "$_u"; }
_up_int() { read -r _u _ </proc/uptime; echo "${_u%%.*}"; }

sc_remaining() {
	if [ -z "${SC_DEADLINE:-}" ]; then echo 0; return; fi
	r=$((SC_DEADLINE - $(_up_int)))
	[ "$r" -gt 0 ] || r=0
	echo "$r"
}

sc_sleep() {
	r=$(sc_remaining)
	if [ "$1" -lt "$r" ]; then sleep "$1"; else sleep "$r"; fi
}

daemon_start() { # daemon_start DB [FLAGS...]
	_db=$1
	shift
	_listen=none
	if [ "${SC_SERVE:-0}" = 1 ] && [ -n "${LISTEN_PORT:-}" ]; then _listen="0.0.0.0:$LISTEN_PORT"; fi
	# shellcheck disable=SC2086 # SC_FLAGS is a word list by design
	/usr/sbin/fpusoakd --db "$_db" --listen "$_listen" --label "${LABEL:-xen-pv-testbed}" $SC_FLAGS "$@" &
	DAEMON_PID=$!
	mark "DAEMON-UP scenario=$SC_NAME pid=$DAEMON_PID listen=$_listen uptime=$(uptime_s) epoch=$(date +%s)"
}

daemon_wait() {
	wait "$DAEMON_PID"
	_rc=$?
	mark "DAEMON-EXIT scenario=$SC_NAME rc=$_rc uptime=$(uptime_s)"
	return "$_rc"
}

daemon_signal() { kill "-$1" "$DAEMON_PID"; }

daemon_alive() { # a zombie answers kill -0 until it is waited for
	[ -r "/proc/$DAEMON_PID/stat" ] && [ "$(cut -d' ' -f3 "/proc/$DAEMON_PID/stat")" != Z ]
}

probes_done() { # DB: capacity probes stored so far (0 while the DB is not there yet)
	_n=$(sqlite3 -readonly "$1" "SELECT count(*) FROM v_probes WHERE kind = 'capacity'" 2>/dev/null)
	echo "${_n:-0}"
}

threads_max_at_least() { # N
	# cat, not read: busybox's read takes a byte at a time, and a sysctl file answers only the
	# first read (it gave "3" for 403).
	_t=$(cat /proc/sys/kernel/threads-max)
	[ "$_t" -lt "$1" ] && echo "$1" >/proc/sys/kernel/threads-max
	mark "THREADS-MAX scenario=$SC_NAME was=$_t now=$(cat /proc/sys/kernel/threads-max)"
}

# The totals of CONFIG_SLUB_STATS' files (/sys/kernel/slab/<cache>/<stat>: "total C0=..."),
# with the cache's geometry; one awk for all (a fork costs under TCG).
SLAB_STATS="order objs_per_slab slabs objects alloc_fastpath alloc_slowpath alloc_slab order_fallback alloc_refill free_slab"
slab_stats() { # TAG FILE
	[ -r /sys/kernel/slab/task_struct/order_fallback ] || return 0
	_fs=
	for _c in fpusoak_xstate task_struct; do
		for _s in $SLAB_STATS; do
			[ -r "/sys/kernel/slab/$_c/$_s" ] && _fs="$_fs /sys/kernel/slab/$_c/$_s"
		done
	done
	# shellcheck disable=SC2086 # a word list of paths
	awk -v tag="$1" -v up="$(uptime_s)" '
		{ n = split(FILENAME, p, "/"); c = p[n - 1]
		  if (!(c in line)) { order[++k] = c; line[c] = tag " " c " uptime=" up }
		  line[c] = line[c] " " p[n] "=" $1 }
		END { for (i = 1; i <= k; i++) print line[order[i]] }' $_fs >>"$2"
}

fetch_report() { # fetch_report FILE: the report page, fetched inside the guest
	[ -n "${LISTEN_PORT:-}" ] || { say "fetch_report: no port"; return 1; }
	# busybox 1.35's wget crashes with -T; timeout bounds it instead.
	timeout 90 wget -q -O "$1.tmp" "http://127.0.0.1:$LISTEN_PORT/" && mv "$1.tmp" "$1"
}

_export_dir() { echo "$EXPORT_ROOT/export/$SC_NAME"; }

export_file() { # export_file NAME PATH
	mkdir -p "$(_export_dir)"
	echo "$1 $2" >>"$(_export_dir)/list"
}

export_db() { # export_db NAME PATH: folded at export time (the daemon has stopped by then)
	mkdir -p "$(_export_dir)"
	echo "$1 $2 db" >>"$(_export_dir)/list"
}

export_proc() { # export_proc FILE...: snapshots taken now (one awk for all)
	_d="$(_export_dir)/proc"
	mkdir -p "$_d"
	_fs=
	for _f in "$@"; do
		_t=${_f//\//_}    # xen/capabilities -> proc/xen_capabilities
		: >"$_d/$_t"       # an empty /proc file stays an empty file
		_fs="$_fs /proc/$_f"
		echo "proc/$_t $_d/$_t" >>"$(_export_dir)/list"
	done
	# shellcheck disable=SC2086 # a word list of paths
	awk -v d="$_d" 'FNR == 1 { if (out != "") close(out); t = substr(FILENAME, 7); gsub("/", "_", t); out = d "/" t }
		{ print > out }' $_fs
}

# ---------------------------------------------------------------- /init side

# send_exports SCENARIO: everything it registered, in one tar.gz.
send_exports() {
	_x=$EXPORT_ROOT/export/$1
	[ -f "$_x/list" ] || return 0
	: >"$_x/manifest"
	_paths='' _nf=0 _k=0
	while read -r _name _path _kind; do
		if [ "$_kind" = db ] && [ -f "$_path" ]; then
			# .backup folds any WAL into one consistent file, whatever the daemon left.
			_k=$((_k + 1))
			sqlite3 "$_path" ".backup $_x/db.$_k" 2>/dev/null || cp "$_path" "$_x/db.$_k"
			_path=$_x/db.$_k
		fi
		if [ ! -f "$_path" ]; then
			mark "EXPORT-MISSING $1/$_name path=$_path"
			continue
		fi
		echo "$_name $_path" >>"$_x/manifest"
		_paths="$_paths $_path"
		_nf=$((_nf + 1))
	done <"$_x/list"
	if [ "$EXPORT_QUIET_KERNEL" = 1 ]; then
		read -r _lvl _ </proc/sys/kernel/printk
		dmesg -n 1
	fi
	# shellcheck disable=SC2086 # a word list of paths
	tar -czf $EXPORT_ROOT/export.tgz "$_x/manifest" $_paths 2>/dev/null
	base64 $EXPORT_ROOT/export.tgz >$EXPORT_ROOT/export.b64
	mark "EXPORT-BEGIN $1 files=$_nf bytes=$(wc -c <$EXPORT_ROOT/export.tgz) uptime=$(uptime_s)"
	awk '{ print NR ":" $0 }' $EXPORT_ROOT/export.b64
	mark "EXPORT-END $1 sha256=$(sha256sum $EXPORT_ROOT/export.tgz | cut -d' ' -f1) lines=$(wc -l <$EXPORT_ROOT/export.b64)"
	[ "$EXPORT_QUIET_KERNEL" = 1 ] && dmesg -n "$_lvl"
	rm -f $EXPORT_ROOT/export.tgz $EXPORT_ROOT/export.b64
}

# _group_alive PGID: any process left in that process group?  (signal 0
# to the group: no fork.)
_group_alive() { kill -0 "-$1" 2>/dev/null; }

# run_scenario NAME: the scenario's guest.sh in its own session (so everything it
# starts can be stopped together), bounded by its budget: TERM at the cap, KILL
# 15 s later; then its exports.
run_scenario() {
	_n=$1
	_dir=/scenarios/$_n
	if [ ! -f "$_dir/guest.sh" ]; then
		mark "SCENARIO-END $_n rc=127 capped=0 elapsed=0 uptime=$(uptime_s)"
		return
	fi
	# shellcheck disable=SC1091 # written by mkinitramfs.sh
	_budget=$(. "$_dir/env"; echo "${SC_BUDGET:-60}")
	_t0=$(_up_int)
	mark "SCENARIO-START $_n budget=$_budget uptime=$(uptime_s) epoch=$(date +%s)"
	SC_DEADLINE=$((_t0 + _budget)) setsid sh -c '
		. /guest-lib.sh
		. "$1/env"
		SC_DIR=$1
		export SC_DIR
		. "$1/guest.sh"' scenario "$_dir" &
	_pid=$!
	rm -f /run/capped
	( sleep "$_budget"; touch /run/capped; echo "init: scenario $_n over its ${_budget}s budget, stopping it"
	  kill -TERM "-$_pid" 2>/dev/null; sleep 15; kill -KILL "-$_pid" 2>/dev/null ) &
	_wd=$!
	wait "$_pid"
	_rc=$?
	# What the scenario left behind (a daemon still writing after a TERM):
	# up to 15 s to finish, then killed, so the next one starts clean.
	_i=0
	while _group_alive "$_pid" && [ "$_i" -lt 30 ]; do
		[ "$_i" = 0 ] && kill -TERM "-$_pid" 2>/dev/null
		sleep 0.5
		_i=$((_i + 1))
	done
	kill -KILL "-$_pid" 2>/dev/null
	kill "$_wd" 2>/dev/null
	_capped=0
	[ -f /run/capped ] && _capped=1
	mark "SCENARIO-END $_n rc=$_rc capped=$_capped elapsed=$(($(_up_int) - _t0)) uptime=$(uptime_s)"
	send_exports "$_n"
	mark "SCENARIO-SENT $_n uptime=$(uptime_s)"
	rm -rf "$EXPORT_ROOT/export/$_n"
}
