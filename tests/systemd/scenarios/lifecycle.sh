# SPDX-License-Identifier: GPL-2.0-only
# The service's lifecycle (sourced by tests/systemd/run.sh): SIGKILL (restart, run marked crash),
# SIGSTOP (the watchdog restarts it), reload, stop (no process left) and socket activation.

check_sigkill() {
	local old new r oldpids left
	old=$(main_pid) || { fail "SIGKILL test: no MainPID"; return 1; }
	oldpids=$(unit_pids)
	ct 5 kill -KILL "$old"
	if wait_until 30 main_pid_is_new "$old"; then
		new=$(prop MainPID)
		pass "SIGKILL of MainPID $old: systemd restarted it (MainPID $new, NRestarts $(prop NRestarts))"
	else
		fail "SIGKILL of MainPID $old: not restarted within 30 s ($(prop ActiveState)/$(prop SubState))"
		describe_unit_pids
		return 1
	fi
	# Every process of the old instance went with it (KillMode=control-group).
	left=$(printf '%s\n' "$oldpids" | grep -Fxf - <(unit_pids) | tr '\n' ' ')
	[ -z "$left" ] && pass "none of the old instance's $(echo $oldpids | wc -w) process(es) survived the restart" ||
		fail "processes of the killed instance still in the unit: $left"
	if [ $standin = 1 ]; then
		skip "crash marking in the DB: the stand-in has no DB"
		return 0
	fi
	wait_until 10 runs_at_least 2
	r=$(run_reasons | tr '\n' ' ')
	r=${r% }
	case $r in
	*"crash -") pass "v_runs after SIGKILL: $r(old run crash, new one live)" ;;
	*) fail "v_runs end_reason after SIGKILL: '$r', want '... crash -'" ;;
	esac
	if ct 10 journalctl -u fpusoakd -t fpusoakd -p notice..notice -o cat --no-pager | grep -q crash; then
		pass "the crash marking is logged at priority notice"
	else
		fail "no notice-priority journal line about the crashed run"
	fi
}

check_sigstop() {
	local old new
	old=$(main_pid) || { fail "SIGSTOP test: no MainPID"; return 1; }
	ct 5 kill -STOP "$old"
	# 6 s without a ping, SIGABRT (+SIGCONT), RestartSec=2s.
	if wait_until 30 main_pid_is_new "$old"; then
		new=$(prop MainPID)
		pass "SIGSTOP of MainPID $old: watchdog fired, restarted as $new"
	else
		fail "SIGSTOP of MainPID $old: no restart within 30 s ($(prop ActiveState)/$(prop SubState))"
		describe_unit_pids
		ct 5 kill -CONT "$old"
		return 1
	fi
	if ct 10 journalctl -u fpusoakd --no-pager -o cat | grep -q 'Watchdog timeout'; then
		pass "journal: systemd logged 'Watchdog timeout'"
	else
		fail "journal has no 'Watchdog timeout' line from systemd"
	fi
	if [ $standin = 0 ]; then
		local r
		r=$(run_reasons | tr '\n' ' ')
		r=${r% }
		case $r in
		*"crash crash -") pass "v_runs after watchdog kill: $r" ;;
		*) fail "v_runs end_reason after watchdog kill: '$r', want '... crash crash -'" ;;
		esac
	fi
}

check_reload() {
	local old
	old=$(main_pid)
	if ct 30 systemctl reload fpusoakd && sleep 1 && [ "$(prop MainPID)" = "$old" ] && is_running; then
		pass "systemctl reload (SIGHUP): same MainPID $old, still running"
	else
		fail "systemctl reload: MainPID $old → $(prop MainPID), $(prop ActiveState)/$(prop SubState)"
	fi
}

check_stop() {
	local before after
	before=$(unit_pids | wc -l)
	local s e
	s=$(date +%s.%N)
	if ct 60 systemctl stop fpusoakd; then
		e=$(elapsed "$s")
		# The daemon promises to exit within 2 s; anything near TimeoutStopSec means
		# some process ignored SIGTERM and was SIGKILLed.
		if awk -v e="$e" 'BEGIN { exit !(e < 10) }'; then
			pass "systemctl stop fpusoakd returned in ${e}s"
		else
			fail "systemctl stop fpusoakd took ${e}s (something ignored SIGTERM)"
		fi
	else
		fail "systemctl stop fpusoakd failed"
		describe_unit_pids
	fi
	[ "$(prop ExecMainCode)/$(prop ExecMainStatus)" = 1/0 ] &&
		pass "SIGTERM: main process exited with status 0" ||
		fail "SIGTERM: ExecMainCode/Status $(prop ExecMainCode)/$(prop ExecMainStatus), want exited/0"
	[ "$(prop Result)" = success ] && pass "unit result: success" || fail "unit result: $(prop Result)"
	after=$(unit_pids | wc -l)
	if [ "$after" = 0 ]; then
		pass "no process left in fpusoakd.service's cgroup after stop (had $before)"
	else
		fail "$after process(es) left after stop: $(unit_pids | tr '\n' ' ')"
	fi
	if [ $standin = 0 ]; then
		local r
		r=$(run_reasons | tail -n1)
		[ "$r" = stopped ] && pass "last run end_reason after stop: stopped" ||
			fail "last run end_reason after stop: '$r', want stopped"
	fi
}

# fpusoakd.socket: systemd owns 127.0.0.1:8089 and hands it over (LISTEN_FDS).
check_socket() {
	if [ $standin = 1 ]; then
		skip "socket activation: the stand-in serves no HTTP"
		return
	fi
	if ! ct 30 systemctl start fpusoakd.socket; then
		fail "systemctl start fpusoakd.socket"
		return
	fi
	if ct 90 systemctl start fpusoakd.service && is_running; then
		pass "with fpusoakd.socket active the service starts"
	else
		fail "with fpusoakd.socket active the service fails to start ($(prop Result)): does it take LISTEN_FDS?"
		ct 10 journalctl -u fpusoakd -n 10 --no-pager -o cat | show /dev/stdin
		ct 30 systemctl stop fpusoakd.socket
		return
	fi
	local code
	code=$(ct 10 curl -sS -o /dev/null -w '%{http_code}' http://127.0.0.1:$port/healthz 2>&1)
	[ "$code" = 200 ] && pass "socket-activated /healthz: 200" || fail "socket-activated /healthz: '$code'"
	# The daemon serves on the inherited socket, not one of its own: the only
	# listener on the port is the one PID 1 also holds.
	local pid mine ours
	pid=$(main_pid)
	mine=$(ct 10 sh -c "for f in /proc/$pid/fd/*; do readlink \$f; done" | sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p' | sort -u)
	ours=$(ct 10 sh -c "for f in /proc/1/fd/*; do readlink \$f; done" | sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p' | sort -u)
	local listen
	listen=$(ct 10 awk -v p="$(printf ':%04X' $port)" '$2 ~ p"$" && $4 == "0A" { print $10 }' /proc/net/tcp /proc/net/tcp6)
	if [ "$(echo "$listen" | grep -c .)" = 1 ] && echo "$mine" | grep -qx "$listen" && echo "$ours" | grep -qx "$listen"; then
		pass "the daemon serves on the socket systemd passed (one listener, inode $listen, held by PID 1 and the daemon)"
	else
		fail "socket activation: listeners on :$port '$(echo $listen)', daemon sockets '$(echo $mine | head -c 80)'"
	fi
	ct 60 systemctl stop fpusoakd.service fpusoakd.socket
}
