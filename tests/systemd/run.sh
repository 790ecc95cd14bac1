#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End-to-end test of fpusoakd under a real systemd (issue 6).
#
#   tests/systemd/run.sh [--standin] [REPO]        (root; REPO defaults to this checkout)
#
# 1. On the host, no root needed: `systemd-analyze verify` on the units, the
#    `systemd-analyze security` exposure figure, and fpusoakd.conf against
#    `fpusoakd --help`.
# 2. As root: build a Debian 12 rootfs once (mkrootfs.sh, cached in
#    ~/.cache/fpusoakd/systemd/), lay a fresh overlay over it, boot it with
#    `systemd-nspawn -b`, install the package there (`apt-get install
#    ./fpusoakd_*.deb`, from `make deb`: neither enabled nor started) and
#    check, inside: `systemctl start fpusoakd` → active (running), HTTP,
#    journal priorities, STATUS=, watchdog pings, SIGKILL → restart + run
#    marked crash, SIGSTOP → watchdog restart, reload, stop → exit 0 and no
#    process left, socket activation, an upgrade (reinstall) restarts it only
#    if it was running, and `apt-get purge` leaves nothing but the database.
#
# This file is the order of things; the harness (cgroups, the container, its boot and cleanup) is
# lib.sh, the checks are scenarios/: host.sh (1), package.sh (install, upgrade, purge), service.sh
# (start, HTTP, journal, STATUS=, sandbox, watchdog, cgroups), lifecycle.sh (SIGKILL, SIGSTOP,
# reload, stop, socket activation).
#
# The container runs in cgroups this script creates (memory and pids limits),
# commands reach it with nsenter (this host has no systemd-machined, so no
# `systemd-run -M`), and an EXIT trap powers it off and removes everything,
# whatever happened.  --standin installs tests/systemd/standin.c instead of
# the daemon, to test the harness itself; the checks that need HTTP or the DB
# are then skipped.  Output: PASS:/FAIL:/SKIP: lines (tests/lib.sh), plus
# TIME: lines with what each phase took.
#
# Env: FPUSOAK_NSPAWN_CGROUP=unified|legacy|host  cgroup layout inside the
#      container (default unified, as on a Debian 12 guest; host: what nspawn
#      picks for this host, hybrid here); FPUSOAK_SYSTEMD_CACHE (rootfs
#      cache dir); FPUSOAK_MIRROR (apt mirror for debootstrap);
#      FPUSOAK_SYSTEMD_BUDGET (seconds for the whole test after the cache
#      exists, default 300); FPUSOAK_KEEP_LOGS=DIR copies console and journal there;
#      FPUSOAK_DEB (the fpusoakd_*.deb to install; default $BUILD/deb/, built with
#      `make deb` when missing or older than $BUILD/fpusoakd or debian/).
set -u

here=$(cd "$(dirname "$0")" && pwd)
standin=0
[ "${1:-}" = --standin ] && { standin=1; shift; }
repo=$(cd "${1:-$here/../..}" && pwd)
T_NAME=${T_NAME:-systemd}
# shellcheck source=../lib.sh
. "$here/../lib.sh"

t0=$(date +%s.%N)
budget=${FPUSOAK_SYSTEMD_BUDGET:-300}
cache=${FPUSOAK_SYSTEMD_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fpusoakd/systemd}
machine=fpusoak-test-$$
cgname=fpusoak-systemd-$$
port=8089
work='' root='' nspawn_pid='' leader='' mounted_nspawn_tmpfs=0
cg_dirs=() cg_home=()

# shellcheck source=lib.sh
. "$here/lib.sh"
for f in "$here"/scenarios/*.sh; do
	# shellcheck disable=SC1090
	. "$f"
done

# --------------------------------------------------------------------- main

# As root, the tools first: systemd-container brings systemd (systemd-analyze) along.
if [ "$(id -u)" = 0 ]; then
for t in debootstrap systemd-nspawn nsenter systemd-analyze; do
	command -v $t >/dev/null && continue
	note "installing debootstrap systemd-container"
	s=$(date +%s.%N)
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap systemd-container >/dev/null 2>&1 ||
		{ DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap systemd-container >/dev/null 2>&1; }
	timing "apt-get install debootstrap systemd-container $(elapsed "$s")s"
	break
done
fi

host_checks

if [ "$(id -u)" != 0 ]; then
	skip "booted-systemd test: needs root (debootstrap, nspawn, cgroups)"
	t_done
fi
if ! command -v debootstrap >/dev/null || ! command -v systemd-nspawn >/dev/null; then
	skip "booted-systemd test: debootstrap/systemd-nspawn not installable here"
	t_done
fi

# systemd-nspawn makes / a slave mount first: in a plain chroot / is no mount point
# (/proc/self/mountinfo lists none there) and that fails with EINVAL.
if ! awk '$5 == "/" { found = 1 } END { exit !found }' /proc/self/mountinfo; then
	skip "booted-systemd test: / is not a mount point here (a plain chroot), which systemd-nspawn needs; bind-mount the root onto itself first"
	t_done
fi

trap cleanup EXIT
trap 'fail "interrupted"; exit 1' INT TERM

if ! cg_enter; then
	why=$(no_cgroup_reason)
	skip "booted-systemd test: cannot put the container under a memory limit here${why:+: $why}"
	t_done
fi

s=$(date +%s.%N)
lower=$("$here/mkrootfs.sh" "$cache") || { fail "building the Debian 12 rootfs (mkrootfs.sh)"; t_done; }
timing "rootfs (debootstrap, or cache hit) $(elapsed "$s")s"
t0=$(date +%s.%N)    # the time budget starts once the cache exists

s=$(date +%s.%N)
prepare_root "$lower" || { fail "preparing a fresh root"; t_done; }
if [ $standin = 1 ]; then
	if install_standin; then
		pass "stand-in installed into the container root"
	else
		fail "stand-in install"
		t_done
	fi
else
	check_layout
	deb=$(find_deb) || { fail "no fpusoakd_*.deb: make deb failed"; t_done; }
	note "package: $deb"
fi
# The container's journal keeps to the container: no copy of the host's kernel log.
mkdir -p "$root/etc/systemd/journald.conf.d"
printf '[Journal]\nReadKMsg=no\n' >"$root/etc/systemd/journald.conf.d/50-test.conf"
# The test's one change to the shipped unit: a short watchdog.
mkdir -p "$root/etc/systemd/system/fpusoakd.service.d"
printf '[Service]\nWatchdogSec=6s\n' >"$root/etc/systemd/system/fpusoakd.service.d/50-test.conf"
timing "prepare root $(elapsed "$s")s"

s=$(date +%s.%N)
if boot; then
	timing "container boot $(elapsed "$s")s (nspawn start to system running)"
	pass "container booted: systemd $(ct 5 systemctl --version | sed -n '1s/systemd \([0-9]*\).*/\1/p') is-system-running=$(ct 5 systemctl is-system-running)"
else
	fail "container boot"
	t_done
fi
if [ $standin = 0 ]; then
	s=$(date +%s.%N)
	install_deb || t_done
	timing "apt-get install of the package $(elapsed "$s")s"
fi
# Run with the shipped config, every default uncommented: the daemon must
# accept each key and value as written there, or the start check fails.  (A
# changed conffile, too: the upgrade check below sees dpkg keep it.)
sed 's/^#\([a-z-]* = \)/\1/; s/^#\([a-z-]*\) =$/\1 =/' "$repo/fpusoakd.conf" >"$root/etc/fpusoakd/fpusoakd.conf"
# Uncommented, the cgroup limits are asked for explicitly, and a daemon that cannot apply them does
# not start.  A hybrid host binds memory and pids to cgroup v1, so a container's cgroup2 tree has
# neither: there the run is allowed unconfined (the one value changed), and check_cgroup_layout checks that
# the daemon says so.
hostctl=$(cat /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null || cat /sys/fs/cgroup/cgroup.controllers 2>/dev/null)
case " $hostctl " in
*" memory "*" pids "* | *" pids "*" memory "*) ;;
*) sed -i 's/^allow-unconfined = no$/allow-unconfined = yes/' "$root/etc/fpusoakd/fpusoakd.conf" ;;
esac

if check_start; then
	check_http
	check_journal
	check_status_line
	check_sandbox_reads
	check_watchdog_pings
	check_cgroup_layout
	expired || check_sigkill
	expired || check_sigstop
	expired || check_reload
	expired || check_stop
	expired || check_socket
	if [ $standin = 0 ]; then
		expired || check_upgrade
		expired || check_purge
	fi
	expired && fail "time budget of ${budget}s used up; remaining checks not run"
fi
t_done
