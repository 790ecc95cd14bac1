# SPDX-License-Identifier: GPL-2.0-only
# The running service (sourced by tests/systemd/run.sh): start, HTTP, the journal, STATUS=, the
# sandbox's reads, watchdog pings, and the cgroup layout of the core, its web process and workers.

check_start() {
	local s
	ct 10 systemctl daemon-reload
	# Enabled, the unit stays loaded after a stop, so its exit status can be read.
	run_ok "systemctl enable fpusoakd" 30 systemctl enable fpusoakd.service
	if ct 90 systemctl start fpusoakd.service >"$work/out" 2>&1 && is_running; then
		pass "systemctl start fpusoakd: active (running)"
	else
		fail "systemctl start fpusoakd: $(prop ActiveState)/$(prop SubState), result $(prop Result)"
		show "$work/out"
		ct 10 journalctl -u fpusoakd -n 30 --no-pager >"$work/out" 2>&1
		show "$work/out"
		return 1
	fi
	[ "$(prop Type)/$(prop NotifyAccess)" = notify/main ] &&
		pass "Type=notify NotifyAccess=main: start waited for READY=1" ||
		fail "unit is $(prop Type)/$(prop NotifyAccess), expected notify/main"
	s=$(prop WatchdogUSec)
	[ "$s" = 6s ] && pass "test drop-in WatchdogSec=6s in effect" || fail "WatchdogUSec is '$s', expected 6s"
	s=$(ct 5 sh -c 'cat /proc/$(systemctl show -P MainPID fpusoakd)/oom_score_adj')
	# systemd needs CAP_SYS_RESOURCE to lower it, and ignores EPERM in containers.
	local capeff
	capeff=$(awk '/^CapEff:/ { print $2 }' /proc/"$leader"/status)
	if [ $(((0x${capeff:-0} >> 24) & 1)) = 0 ]; then
		skip "OOMScoreAdjust=-900: the container's systemd lacks CAP_SYS_RESOURCE on this host (oom_score_adj is $s)"
	elif [ -n "$s" ] && [ "$s" -lt 0 ]; then
		pass "daemon oom_score_adj is $s (negative)"
	else
		fail "daemon oom_score_adj is '$s', expected negative"
	fi
	run_ok "systemd-analyze verify --man=no on the installed units (real binary)" 30 \
		sh -c 'out=$(systemd-analyze verify --man=no /lib/systemd/system/fpusoakd.service /lib/systemd/system/fpusoakd.socket 2>&1); echo "$out"; [ -z "$out" ]'
	s=$(ct 30 systemd-analyze security fpusoakd.service 2>&1 | sed -n 's/.*Overall exposure level for fpusoakd.service: \([0-9.]*\).*/\1/p')
	timing "security exposure inside the container (loaded unit) ${s:-?}"
}

check_http() {
	if [ $standin = 1 ]; then
		skip "HTTP /healthz and /: the stand-in serves no HTTP"
		return
	fi
	local code
	code=$(ct 10 curl -sS -o /tmp/healthz -w '%{http_code}' http://127.0.0.1:$port/healthz 2>&1)
	[ "$code" = 200 ] && pass "curl /healthz: 200" || fail "curl /healthz: '$code'"
	code=$(ct 20 curl -sS -o /tmp/index -w '%{http_code} %{size_download}' http://127.0.0.1:$port/ 2>&1)
	if [ "${code%% *}" = 200 ] && [ "${code#* }" -gt 0 ] 2>/dev/null; then
		pass "curl /: 200, ${code#* } bytes of report"
	else
		fail "curl /: '$code'"
	fi
}

check_journal() {
	local info
	info=$(ct 10 journalctl -u fpusoakd -t fpusoakd -p info..info -o cat --no-pager 2>/dev/null)
	if [ -n "$info" ]; then
		pass "journalctl -u fpusoakd has its log lines at priority info ($(printf '%s\n' "$info" | wc -l))"
	else
		fail "journalctl -u fpusoakd -p info..info shows nothing from fpusoakd"
	fi
	if ct 10 journalctl -u fpusoakd -t fpusoakd -o cat --no-pager | grep -q '^<[0-7]>'; then
		fail "journal messages still carry '<N>' prefixes: priorities were not parsed"
	else
		pass "journal messages carry no raw '<N>' prefix"
	fi
	# Issue 6 also asks for structured fields such as the run id.
	local field
	field=$(ct 10 journalctl -u fpusoakd -t fpusoakd -o verbose --no-pager | grep -m1 -oE '^ *(FPUSOAK_[A-Z_]*|RUN_ID)=' | tr -d ' =')
	if [ -n "$field" ]; then
		pass "journal entries carry structured field $field"
	else
		skip "structured journal fields: none (no FPUSOAK_*/RUN_ID field; stderr logging carries priority only)"
	fi
}

check_status_line() {
	local st
	if wait_until 20 has_status; then
		st=$(prop StatusText)
		pass "STATUS= reached systemd: \"$st\""
	else
		fail "no STATUS= within 20 s"
		return
	fi
	if ct 10 systemctl status fpusoakd --no-pager -n 0 | grep -q '^ *Status: "'; then
		pass "systemctl status shows the Status: line"
	else
		fail "systemctl status has no Status: line"
	fi
}

# What the sandbox must still allow: root-owned 0400 /proc files without
# CAP_DAC_*, and /dev/kmsg through PrivateDevices= with CAP_SYSLOG.
check_sandbox_reads() {
	[ $standin = 1 ] && return
	local v n
	for v in v_pagetypeinfo v_slabinfo; do
		n=$(ct 10 sqlite3 -readonly /var/lib/fpusoakd/fpusoakd.db "SELECT count(*) FROM $v WHERE run_id = (SELECT max(run_id) FROM v_runs)")
		[ "${n:-0}" -gt 0 ] 2>/dev/null && pass "sandboxed daemon read /proc/${v#v_} (0400 root): $n rows in $v" ||
			fail "no $v rows for the current run: /proc/${v#v_} unreadable under the unit's sandbox?"
	done
	if [ ! -c /dev/kmsg ]; then
		skip "/dev/kmsg in the sandbox: this host has no /dev/kmsg to lend the container"
	# By device (char 1:11), not by the link's text: the path shown for a file in the unit's
	# private mount namespace depends on where the reader's root is (a chroot moves it).
	elif ct 10 sh -c "for f in /proc/$(main_pid)/fd/*; do stat -L -c '%F %t:%T' \$f 2>/dev/null; done | grep -qx 'character special file 1:b'"; then
		pass "sandboxed daemon has /dev/kmsg open (PrivateDevices=yes + BindReadOnlyPaths=, CAP_SYSLOG; dmesg_restrict=$(cat /proc/sys/kernel/dmesg_restrict))"
	else
		fail "the daemon has no /dev/kmsg open under the unit's sandbox"
	fi
}

# WATCHDOG=1 refreshes WatchdogTimestampMonotonic.  With WatchdogSec=6s the
# daemon should ping every 3 s: over 8 s expect >= 2 pings and no gap > 4.5 s.
check_watchdog_pings() {
	local end=$(($(date +%s) + 8)) last='' v changes=0 maxgap=0 prev=''
	while [ "$(date +%s)" -lt $end ]; do
		v=$(prop WatchdogTimestampMonotonic)
		if [ -n "$v" ] && [ "$v" != 0 ] && [ "$v" != "$last" ]; then
			[ -n "$prev" ] && [ $(((v - prev) / 1000)) -gt $maxgap ] && maxgap=$(((v - prev) / 1000))
			[ -n "$last" ] && changes=$((changes + 1))
			prev=$v last=$v
		fi
		sleep 0.25
	done
	if [ $changes -ge 2 ] && [ $maxgap -le 4500 ]; then
		pass "WATCHDOG=1 pings: $changes in 8 s, longest gap ${maxgap} ms (WatchdogSec=6s → every 3 s)"
	else
		fail "WATCHDOG=1 pings: $changes in 8 s, longest gap ${maxgap} ms (want >= 2, <= 4500 ms)"
	fi
}

check_cgroup_layout() {
	local n
	n=$(unit_pids | wc -l)
	note "processes in fpusoakd.service's cgroup: $n"
	[ $standin = 1 ] && return
	local ctl jl
	# Under the unit's seccomp filter and capability bounding set: the installed static spawner
	# is exec'd, and workers get through their setup (capset included) and hold a population.
	jl=$(ct 10 journalctl -u fpusoakd -t fpusoakd -o cat --no-pager 2>/dev/null)
	if grep -q 'spawner /usr/libexec/fpusoakd/fpusoakd-spawner' <<<"$jl"; then
		pass "the daemon execs the installed static spawner"
	else
		fail "the daemon did not exec /usr/libexec/fpusoakd/fpusoakd-spawner: $(grep -m1 'churn:' <<<"$jl" | cut -c1-200)"
	fi
	# The web side is the core's child, in the unit's cgroup: `systemctl status` lists both.
	local web core
	core=$(prop MainPID)
	web=$(ct 10 sh -c "for p in \$(cat $(unit_cg)/cgroup.procs $(unit_cg)/*/cgroup.procs 2>/dev/null); do
		[ \"\$(cat /proc/\$p/comm 2>/dev/null)\" = fpusoakd-web ] && echo \$p; done" | head -1)
	# Its parent: the 4th field of /proc/PID/stat (its comm, fpusoakd-web, has no space in it).
	if [ -n "$web" ] && [ "$(ct 5 cut -d' ' -f4 /proc/$web/stat)" = "$core" ]; then
		pass "the web process (pid $web, the core's child) runs in fpusoakd.service's cgroup"
	else
		fail "no fpusoakd-web child of the core (pid $core) in fpusoakd.service's cgroup: $(unit_pids | tr '\n' ' ')"
	fi
	if ct 10 systemctl status fpusoakd --no-pager -n 0 | grep -q 'fpusoakd-web serve'; then
		pass "systemctl status fpusoakd lists the web process beside the core"
	else
		fail "systemctl status fpusoakd does not list fpusoakd-web"
	fi
	local st spawned failed
	st=$(prop StatusText)
	spawned=$(sed -n 's/.*spawned \([0-9]*\).*/\1/p' <<<"$st")
	failed=$(sed -n 's/.*failed \([0-9]*\).*/\1/p' <<<"$st")
	if [ "${spawned:-0}" -gt 0 ] && [ "${failed:-1}" = 0 ]; then
		pass "the spawner forks workers under the unit's seccomp filter (spawned $spawned, failed 0)"
	else
		fail "spawns fail under the unit (spawned ${spawned:-?}, failed ${failed:-?}): $st"
	fi
	if grep -q 'workers exit during setup' <<<"$jl"; then
		fail "workers fail their setup under the unit: $(grep -m1 'workers exit during setup' <<<"$jl" | cut -c1-200)"
	else
		pass "no worker fails its setup under the unit's sandboxing"
	fi
	ctl=$(ct 5 cat "$(unit_cg)/cgroup.controllers" 2>/dev/null)
	case " $ctl " in
	*" memory "*" pids "* | *" pids "*" memory "*) ;;
	*)
		# A hybrid (cgroup v1) host binds memory and pids to v1, so a container's
		# cgroup2 tree has neither and the daemon rightly runs without workers-<hash>/,
		# because the test's config allows it to (allow-unconfined), and says so.
		if ct 10 journalctl -u fpusoakd -t fpusoakd -o cat --no-pager | grep -q 'churn: confinement none: '; then
			pass "no controllers to delegate: the daemon runs unconfined as allowed, and logs why"
		else
			fail "no controllers to delegate, but the journal has no 'churn: confinement none:' line"
		fi
		skip "workers-<hash>/ cgroup: the container's delegated cgroup has no memory+pids controllers on this host (has '${ctl}'); daemon says: $(ct 10 journalctl -u fpusoakd -t fpusoakd -o cat --no-pager | grep -m1 -i 'cgroup' | cut -c1-160)"
		return
		;;
	esac
	# workers-<hash of the DB path> (cgroup/cgroup.h: a group per instance).
	if ct 5 sh -c "ls -d $(unit_cg)/workers-* >/dev/null 2>&1"; then
		pass "delegated cgroup has workers-<hash>/ ($(ct 5 sh -c "ls -d $(unit_cg)/workers-*" | head -1))"
	else
		fail "no workers-<hash>/ cgroup under fpusoakd.service (Delegate=yes)"
		ct 5 sh -c "cd $(unit_cg) && find . -type d" | show /dev/stdin
	fi
}
