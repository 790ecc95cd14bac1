# SPDX-License-Identifier: GPL-2.0-only
# The package (sourced by tests/systemd/run.sh): make install's layout, the .deb found or built,
# installed in the booted container (neither enabled nor started), an upgrade, and a purge that
# keeps only the database.

# Where `make install` (PREFIX=/usr/local) puts things for the unit to work, the web process
# included: installed into a scratch DESTDIR on the host (the container gets the package).
check_layout() {
	local f missing="" dest=$work/make-install log=$work/make-install.log
	if ! make -C "$repo" --no-print-directory install DESTDIR="$dest" BUILD="${BUILD:-$repo/build}" >"$log" 2>&1; then
		fail "make install DESTDIR=$dest"
		show "$log"
		return 1
	fi
	for f in usr/local/sbin/fpusoakd lib/systemd/system/fpusoakd.service lib/systemd/system/fpusoakd.socket \
		etc/fpusoakd/fpusoakd.conf usr/local/share/man/man8/fpusoakd.8 usr/local/libexec/fpusoakd/fpusoakd-spawner \
		usr/local/libexec/fpusoakd/fpusoakd-web; do
		[ -e "$dest/$f" ] || missing="$missing /$f"
	done
	[ -z "$missing" ] && pass "make install laid out binary, static spawner, web process, units, config and man page" ||
		fail "make install did not install:$missing"
	rm -rf "$dest"
}

# The package to install: $FPUSOAK_DEB, or $BUILD/deb/fpusoakd_*_amd64.deb, rebuilt
# with `make deb` when it is missing or older than the build's binary or debian/.
find_deb() {
	local b=${BUILD:-$repo/build} deb f stale=0
	if [ -n "${FPUSOAK_DEB:-}" ]; then
		echo "$FPUSOAK_DEB"
		return
	fi
	deb=$(ls "$b"/deb/fpusoakd_*_amd64.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || stale=1
	for f in "$b/fpusoakd" "$b/fpusoakd-spawner" "$b/fpusoakd-web" "$repo"/debian/* "$repo/fpusoakd.service" "$repo/fpusoakd.conf"; do
		[ -n "$deb" ] && [ -e "$f" ] && [ "$f" -nt "$deb" ] && stale=1
	done
	if [ $stale = 1 ]; then
		note "building the package: make deb (DEB_BUILD_OPTIONS=nocheck)" >&2
		DEB_BUILD_OPTIONS=nocheck make -C "$repo" --no-print-directory deb BUILD="$b" >"$work/deb.log" 2>&1 ||
			{ show "$work/deb.log" >&2; return 1; }
		deb=$(ls "$b"/deb/fpusoakd_*_amd64.deb 2>/dev/null | head -n 1)
	fi
	[ -n "$deb" ] && echo "$deb"
}

# What the container must not have before the package: the test starts from a bare system.
pkg_files() { ct 10 dpkg -L fpusoakd 2>/dev/null; }

# apt-get install ./fpusoakd_*.deb in the booted container (offline: the rootfs has every
# dependency), then: installed but neither enabled nor started, files where the unit wants them.
install_deb() {
	local d=/var/tmp/$(basename "$deb") st f missing=""
	cp "$deb" "$root$d" || return 1
	if ct 120 env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$d" >"$work/apt.log" 2>&1; then
		pass "apt-get install ./$(basename "$deb") in the booted container"
	else
		fail "apt-get install ./$(basename "$deb")"
		show "$work/apt.log"
		return 1
	fi
	st=$(ct 10 systemctl is-enabled fpusoakd.service fpusoakd.socket | tr '\n' ' ')
	[ "$st" = "disabled disabled " ] && pass "after install fpusoakd.service and .socket are disabled (is-enabled: $st)" ||
		fail "after install is-enabled says '$st', want 'disabled disabled'"
	st=$(ct 10 systemctl is-active fpusoakd.service fpusoakd.socket | tr '\n' ' ')
	[ "$st" = "inactive inactive " ] && [ -z "$(unit_pids)" ] &&
		pass "after install nothing runs (is-active: $st, no process in the unit's cgroup)" ||
		fail "after install is-active says '$st' (processes: $(unit_pids | tr '\n' ' ')): install must not start anything"
	for f in /usr/sbin/fpusoakd /usr/libexec/fpusoakd/fpusoakd-spawner /usr/libexec/fpusoakd/fpusoakd-web \
		/lib/systemd/system/fpusoakd.service /lib/systemd/system/fpusoakd.socket /etc/fpusoakd/fpusoakd.conf /usr/share/man/man8/fpusoakd.8.gz; do
		pkg_files | grep -qx "$f" && ct 5 test -e "$f" || missing="$missing $f"
	done
	[ -z "$missing" ] && pass "the package installed binary, static spawner, web process, units, config and man page" ||
		fail "the package did not install:$missing"
	missing=$(ct 10 ldd /usr/sbin/fpusoakd /usr/libexec/fpusoakd/fpusoakd-web 2>&1 | grep 'not found')
	[ -z "$missing" ] && pass "every library fpusoakd and fpusoakd-web link is in the container" ||
		fail "libraries missing in the container: $(echo $missing)"
	[ "$(ct 10 dpkg-query -W -f '${Conffiles}' fpusoakd | awk '{ print $1 }')" = /etc/fpusoakd/fpusoakd.conf ] &&
		pass "dpkg lists /etc/fpusoakd/fpusoakd.conf as a conffile" || fail "fpusoakd.conf is not a conffile"
}

# An upgrade (here the same package again: dpkg runs prerm upgrade and postinst configure
# <old version> as for any upgrade) restarts the service only if it was running, and keeps
# the changed conffile.
reinstall() { ct 120 env DEBIAN_FRONTEND=noninteractive apt-get install -y --reinstall "/var/tmp/$(basename "$deb")" >"$work/apt.log" 2>&1; }
check_upgrade() {
	local old r n
	ct 60 systemctl stop fpusoakd.service fpusoakd.socket
	if reinstall; then
		sleep 1
		[ "$(prop ActiveState)" = inactive ] && [ -z "$(unit_pids)" ] &&
			pass "upgrade of a stopped (but enabled) service leaves it stopped" ||
			fail "upgrade started a stopped service: $(prop ActiveState)/$(prop SubState)"
	else
		fail "apt-get install --reinstall (stopped service)"
		show "$work/apt.log"
	fi
	grep -q '^workers = ' "$root/etc/fpusoakd/fpusoakd.conf" &&
		pass "upgrade kept the changed conffile /etc/fpusoakd/fpusoakd.conf" ||
		fail "upgrade replaced the changed /etc/fpusoakd/fpusoakd.conf"
	if ! ct 90 systemctl start fpusoakd.service || ! is_running; then
		fail "systemctl start fpusoakd before the upgrade"
		return
	fi
	old=$(main_pid)
	n=$(ct 10 sqlite3 -readonly /var/lib/fpusoakd/fpusoakd.db 'SELECT count(*) FROM v_runs')
	if reinstall && wait_until 30 main_pid_is_new "$old"; then
		pass "upgrade of the running service restarted it (MainPID $old → $(prop MainPID))"
	else
		fail "upgrade of the running service: MainPID $old → $(prop MainPID), $(prop ActiveState)/$(prop SubState)"
		show "$work/apt.log"
	fi
	wait_until 10 runs_at_least $((n + 1))
	r=$(run_reasons | tail -n 2 | tr '\n' ' ')
	[ "$r" = "stopped - " ] && pass "the upgrade ended the old run 'stopped' and began a new one" ||
		fail "runs after the upgrade restart end '$r', want 'stopped -'"
}

# apt-get purge of the running service: it is stopped, and what is left is the database,
# intact, whose place purge names.  The test's own drop-in goes first: it is not the package's.
check_purge() {
	local runs out left st
	rm -rf "$root/etc/systemd/system/fpusoakd.service.d"
	ct 10 systemctl daemon-reload
	is_running || ct 90 systemctl start fpusoakd.service
	runs=$(ct 10 sqlite3 -readonly /var/lib/fpusoakd/fpusoakd.db 'SELECT count(*) FROM v_runs')
	out=$(ct 120 env DEBIAN_FRONTEND=noninteractive apt-get purge -y fpusoakd 2>&1)
	if [ $? = 0 ]; then
		pass "apt-get purge fpusoakd (service running)"
	else
		fail "apt-get purge fpusoakd"
		printf '%s\n' "$out" | show /dev/stdin
	fi
	[ -z "$(unit_pids)" ] && pass "purge stopped the service: no process left in its cgroup" ||
		fail "processes left after purge: $(unit_pids | tr '\n' ' ')"
	st=$(prop LoadState)
	[ "$st" = not-found ] && pass "systemd no longer knows fpusoakd.service (LoadState=$st)" ||
		fail "fpusoakd.service LoadState after purge: '$st', want not-found"
	if grep -q 'fpusoakd: purge keeps your database in /var/lib/fpusoakd: fpusoakd.db' <<<"$out"; then
		pass "purge says where the database is kept: $(grep -m1 'purge keeps' <<<"$out")"
	else
		fail "purge did not say where the database is: $(grep -m3 'fpusoakd' <<<"$out" | tr '\n' ' ')"
	fi
	st=$(ct 10 dpkg-query -W -f '${db:Status-Abbrev}' fpusoakd 2>/dev/null)
	[ -z "$st" ] || [ "${st:1:1}" = n ] && pass "dpkg: fpusoakd not installed, no config-files state ('$st')" ||
		fail "dpkg status after purge: '$st'"
	# Everything on the container's disk with fpusoakd in its name, but the test's copy of the .deb.
	left=$(ct 30 find / -xdev -name '*fpusoakd*' ! -path "/var/tmp/$(basename "$deb")" 2>/dev/null | sort | tr '\n' ' ')
	[ "$left" = "/var/lib/fpusoakd /var/lib/fpusoakd/fpusoakd.db " ] &&
		pass "after purge only the database is left: $left" ||
		fail "after purge, left on disk: '$left' (want /var/lib/fpusoakd/fpusoakd.db only)"
	out=$(ct 10 sqlite3 -readonly /var/lib/fpusoakd/fpusoakd.db 'PRAGMA quick_check; SELECT count(*) FROM v_runs; SELECT end_reason FROM v_runs ORDER BY run_id DESC LIMIT 1' | tr '\n' ' ')
	[ "$out" = "ok $runs stopped " ] && pass "the kept database is intact: quick_check, every run ($runs), the last one 'stopped' by the purge" ||
		fail "the kept database: '$out', want 'ok $runs stopped'"
}
