# SPDX-License-Identifier: GPL-2.0-only
# Scenario "soak" (guest side): fpusoakd for SOAK_SECONDS with the flags
# soak.conf.sh chose, one capacity probe (SIGUSR1) at PROBE_AT, the report
# fetched inside the guest when the host cannot reach it; exports the DB,
# the report and the /proc files after the soak.
db=/tmp/fpusoakd.db
rc=0

# web_up SECONDS: wait until the daemon's web process runs.  It is stopped while a guest-scope
# capacity probe fills the guest (daemon/quiet.c: requests wait in the socket's backlog until it is
# back), and in the one-vCPU domU such a fill can outlast a fetch's timeout.  Read, no fork.
web_up() {
	_w=0
	while [ "$_w" -lt "$1" ]; do
		for _p in /proc/[0-9]*; do
			read -r _c 2>/dev/null <"$_p/comm" || continue
			[ "$_c" = fpusoakd-web ] && { [ "$_w" -gt 0 ] && say "web process back after ${_w}s (a fill was running)"; return 0; }
		done
		sleep 1
		_w=$((_w + 1))
	done
	say "no web process after ${1}s"
	return 1
}
case "$PAYLOAD" in
daemon)
	daemon_start "$db" --duration "${SOAK_SECONDS}s"
	# fpusoakd's tracefs instance while it runs and after it stops (this
	# guest's debugfs brings tracefs at /sys/kernel/debug/tracing); the
	# daemon makes it after its first start-up steps, seconds in under TCG.
	tdir=/sys/kernel/tracing/instances
	[ -d "$tdir" ] || tdir=/sys/kernel/debug/tracing/instances
	( i=0; while [ "$i" -lt 60 ] && ! ls "$tdir" 2>/dev/null | grep -q "^fpusoakd-$DAEMON_PID-"; do sleep 2; i=$((i + 1)); done
	  echo "during $(ls "$tdir" 2>/dev/null | tr '\n' ' ')" >>/tmp/trace-instances ) &
	# PROBE_AT counts from the run's start, not the launch: under TCG on a loaded host the daemon
	# takes up to 40 s to map its libraries before it creates the DB and starts the run (and its
	# --duration).  Before the probe (whose fill removes the trace instance), the drain: a refused
	# GFP_NOWAIT allocation the instance must record (soak.conf.sh), once the instance is there.
	( i=0; while [ ! -f "$db" ] && [ "$i" -lt 240 ]; do sleep 0.5; i=$((i + 1)); done
	  t_db=$(_up_int)
	  if [ -x /payload/soak/gfp_iface ] && [ -f /payload/soak/fpusoak_gfp.ko ]; then
		i=0; while [ "$i" -lt 60 ] && ! ls "$tdir" 2>/dev/null | grep -q "^fpusoakd-$DAEMON_PID-"; do sleep 1; i=$((i + 1)); done
		if insmod /payload/soak/fpusoak_gfp.ko; then
			i=0; while [ ! -c /dev/fpusoak_gfp ] && [ "$i" -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
			d=$(/payload/soak/gfp_iface drain 2>&1 | grep '^GFP-DRAIN' | tail -1)
			mark "SOAK-DRAIN ${d#GFP-DRAIN } instance=$(ls "$tdir" 2>/dev/null | grep -c "^fpusoakd-$DAEMON_PID-") uptime=$(uptime_s)"
			rmmod fpusoak_gfp && mark "SOAK-DRAIN-RMMOD ok" || mark "SOAK-DRAIN-RMMOD failed rc=$?"
		else
			mark "SOAK-DRAIN insmod-failed rc=$?"
		fi
	  else
		mark "SOAK-DRAIN none $SOAK_DRAIN"
	  fi
	  if [ -n "$PROBE_AT" ]; then
		left=$((PROBE_AT - ($(_up_int) - t_db)))
		[ "$left" -gt 0 ] && sleep "$left"
		mark "PROBE-SIGNAL scenario=$SC_NAME uptime=$(uptime_s)"; daemon_signal USR1
	  fi ) &
	fetcher=
	if [ "$REPORT_VIA" = guest ]; then
		# Once before the probe (its guest-scope fill stops the web process, and in the one-vCPU
		# domU under TCG it has run past the soak's end: 114 s of a 150 s soak once, 118 s with the
		# dom0 stage's QEMU beside it on the host), then late in the soak, after the fill, while
		# the daemon still serves.  The early page is the report until the late one replaces it
		# (fetch_report renames only a whole page); REPORT-FETCHED, after the daemon, says which.
		( i=0; while [ ! -f "$db" ] && [ "$i" -lt 240 ]; do sleep 0.5; i=$((i + 1)); done
		  early=$(( ${PROBE_AT:-0} / 2 ))
		  if [ -n "$PROBE_AT" ] && [ "$early" -gt 5 ]; then
			sleep "$early"; web_up 20 && fetch_report /tmp/report.html && echo early >/tmp/report.when
			sleep $((SOAK_SECONDS * 4 / 5 - early))
		  else
			sleep $((SOAK_SECONDS * 4 / 5))
		  fi
		  if { web_up 60 && fetch_report /tmp/report.html; } || { sleep 5; web_up 30 && fetch_report /tmp/report.html; }; then
			echo late >/tmp/report.when
		  fi ) &
		fetcher=$!
	fi
	daemon_wait
	rc=$?
	if [ -n "$fetcher" ]; then
		# A fetch still waiting for the web process when the daemon stopped (the fill outlasted the
		# soak) has nothing left to wait for.
		kill "$fetcher" 2>/dev/null
		wait "$fetcher" 2>/dev/null
		mark "REPORT-FETCHED scenario=$SC_NAME ok=$([ -s /tmp/report.html ] && echo 1 || echo 0) when=$(cat /tmp/report.when 2>/dev/null || echo none) uptime=$(uptime_s)"
	fi
	echo "after $(ls "$tdir" 2>/dev/null | tr '\n' ' ')" >>/tmp/trace-instances
	export_file trace-instances.txt /tmp/trace-instances
	;;
standin)
	# Proves the pipeline (boot, payload, DB out over the console, host
	# checks) without the daemon: the same v_runs/v_buddyinfo names, filled
	# from the same kernel files by the sqlite3 CLI; busybox httpd stands in
	# for the report.
	hpid=
	if [ -n "$LISTEN_PORT" ]; then
		mkdir -p /tmp/www
		echo "<html><body>xen-pv-testbed: fpusoakd stand-in on $(cat /sys/hypervisor/type)/$(cat /sys/hypervisor/guest_type)</body></html>" >/tmp/www/index.html
		httpd -f -p "$LISTEN_PORT" -h /tmp/www &
		hpid=$!
		mark "DAEMON-UP scenario=$SC_NAME pid=$hpid listen=0.0.0.0:$LISTEN_PORT uptime=$(uptime_s) epoch=$(date +%s)"
		[ "$REPORT_VIA" = guest ] && fetch_report /tmp/report.html
	fi
	/bin/sh /standin.sh "$db" "$SOAK_SECONDS"
	rc=$?
	[ -n "$hpid" ] && kill "$hpid"
	mark "DAEMON-EXIT scenario=$SC_NAME rc=$rc uptime=$(uptime_s)"
	;;
esac
export_db fpusoakd.db "$db"
[ -f /tmp/report.html ] && export_file report.html /tmp/report.html
export_proc meminfo buddyinfo zoneinfo pagetypeinfo slabinfo vmstat
exit "$rc"
