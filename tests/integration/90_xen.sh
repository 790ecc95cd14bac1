#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test-timeout: 2700
# test-concurrent: yes
# fpusoakd inside a real Xen 4.17 PV dom0 under QEMU TCG (issue 7): the dom0
# stage runs every scenario in tests/xen/scenarios/ that applies to it
# (XEN_SCENARIOS picks some).  All the work is in tests/xen/run.sh;
# `make test-xen` runs this alone.  Cached, the soak alone takes about
# 3.5 minutes on 2 cores; where QEMU or the Debian packages cannot be had it
# prints a SKIP with the reason.
T_NAME=90_xen
export T_NAME
exec bash "$(dirname "$0")/../xen/run.sh" --stage dom0 "$@"
