#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# fpusoakd under a real systemd: unit checks on the host, then (as root) a
# booted Debian 12 container.  See tests/systemd/run.sh; skips visibly when
# not root or when systemd-nspawn cannot be installed.
# test-timeout: 1500
# (warm: ~4 min; cold, the debootstrap of its root alone took 316 s beside a loaded make test)
T_NAME=80_systemd exec bash "$(dirname "$0")/../systemd/run.sh" "$@"
