# SPDX-License-Identifier: GPL-2.0-only
# Scenario "footprint" (guest side): the daemon's footprint table, then
# interleaved fills by the daemon and by the minimal prober (see the conf).
# Forks are few on purpose: each one costs a good part of a second here.
db=/tmp/footprint.db
log=/tmp/daemon.log
port=8090
mem=$FOOTPRINT_WORKER_MEMORY
rc=0

start_daemon() {
	# Light churn: the daemon as it runs, not a TCG CPU hog; one guest-scope fill per SIGUSR1.
	/usr/sbin/fpusoakd --db "$db" --listen "127.0.0.1:$port" --label footprint --workers 4 --spawn-rate 10 \
		--lifetime 1s --probe-interval 0 --switch-probe-interval 0 --probe-scope guest --probe-limit 4000 \
		--worker-memory "$mem" 2>>"$log" &
	DAEMON_PID=$!
	# Up when /healthz answers (the web process is its child: the whole daemon is there).
	_i=0
	until wget -q -O /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null || [ "$_i" -ge 60 ]; do
		sleep 1
		_i=$((_i + 1))
	done
	mark "FP-DAEMON-UP pid=$DAEMON_PID waited=$_i uptime=$(uptime_s)"
}

stop_daemon() {
	kill -TERM "$DAEMON_PID"
	wait "$DAEMON_PID"
	_s=$?
	[ "$_s" = 0 ] || { say "daemon exited $_s"; rc=1; }
}

# The next "capacity probe: N workers" line in the daemon's log after line $1 (no fork: read).
probe_result() {
	_n=0 _r=
	while read -r _l; do
		_n=$((_n + 1))
		[ "$_n" -gt "$1" ] || continue
		case $_l in *"capacity probe: "*" workers"*) _r=${_l#*capacity probe: }; _r=${_r%% workers*} ;; esac
	done <"$log"
	echo "$_r"
}

lines() { _n=0; while read -r _l; do _n=$((_n + 1)); done <"$log"; echo "$_n"; }

# grep_log FROM TEXT: TEXT in the daemon's log after line FROM (no fork: read).
grep_log() {
	_n=0
	while read -r _l; do
		_n=$((_n + 1))
		[ "$_n" -gt "$1" ] || continue
		case $_l in *"$2"*) return 0 ;; esac
	done <"$log"
	return 1
}

# meminfo WHAT: the guest's memory right before a fill, one console line (read, no fork).
meminfo() {
	_m=
	while read -r _k _v _u; do
		case $_k in MemFree: | MemAvailable: | Cached: | Shmem: | Mlocked: | AnonPages: | PageTables: | Slab: | SReclaimable: | SUnreclaim: | KernelStack:)
			_m="$_m ${_k%:}=$_v" ;;
		esac
	done </proc/meminfo
	mark "FP-MEMINFO $1$_m"
}

footprint() { # footprint PHASE [ACTIVITY-SECONDS]
	/payload/usr/bin/fpusoak-footprint --kv ${2:+--activity "$2"} "$DAEMON_PID" >/tmp/fp.kv
	while read -r _l; do mark "$_l phase=$1"; done </tmp/fp.kv
}

: >"$log"
export_file daemon.log "$log"
start_daemon
sc_sleep "$FOOTPRINT_SETTLE"
# The table, then CPU, wakeups and writes of each process over FOOTPRINT_ACTIVITY s, the report idle.
footprint idle "$FOOTPRINT_ACTIVITY"
/payload/usr/bin/fpusoak-footprint --maps 12 "$DAEMON_PID" >/tmp/footprint.txt
export_file footprint.txt /tmp/footprint.txt

i=1
while [ "$i" -le "$FOOTPRINT_ROUNDS" ]; do
	[ "$i" -gt 1 ] && start_daemon
	from=$(lines)
	t0=$(uptime_s)
	if [ "$i" = 1 ]; then
		# What the daemon holds once it has stepped aside, with the spawner frozen so the fill waits
		# for the table (its own processes would otherwise compete with the fill they measure).
		sp=
		while read -r _l; do case $_l in *component=spawner*) sp=${_l#*pid=}; sp=${sp%% *} ;; esac; done </tmp/fp.kv
		[ -n "$sp" ] && kill -STOP "$sp"
		kill -USR1 "$DAEMON_PID"
		_w=0
		until grep_log "$from" "stepping aside: " || [ "$_w" -ge 40 ]; do sleep 0.5; _w=$((_w + 1)); done
		footprint fill
		/payload/usr/bin/fpusoak-footprint --maps 12 "$DAEMON_PID" >/tmp/footprint-fill.txt
		export_file footprint-fill.txt /tmp/footprint-fill.txt
		meminfo "by=daemon round=$i phase=stepped-aside"
		[ -n "$sp" ] && kill -CONT "$sp"
	else
		meminfo "by=daemon round=$i phase=before-request"
		kill -USR1 "$DAEMON_PID"
	fi
	n=
	while [ -z "$n" ] && [ "$(sc_remaining)" -gt 5 ]; do
		sleep 1
		n=$(probe_result "$from")
	done
	mark "FP-FILL by=daemon round=$i count=${n:-none} t0=$t0 t1=$(uptime_s)"
	stop_daemon
	meminfo "by=miniprobe round=$i phase=before"
	t0=$(uptime_s)
	r=$(/payload/usr/bin/miniprobe --worker-memory "$mem" --limit 4000)
	n=${r#*count=}
	mark "FP-FILL by=miniprobe round=$i count=${n%% *} t0=$t0 t1=$(uptime_s) ${r#miniprobe }"
	i=$((i + 1))
done
ls -l /tmp
exit "$rc"
