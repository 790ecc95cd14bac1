#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test-timeout: 4200
# test-concurrent: yes
# fpusoakd inside a 64 MB PV domU (issue 21): the dom0 that 90_xen boots
# starts Debian's toolstack (xenstored, xen-init-dom0, xenconsoled) and
# `xl create`s the domU, which runs every scenario that applies to the domu
# stage (XEN_DOMU_SCENARIOS picks some).  The work is in tests/xen/run.sh;
# `make test-xen-domu` runs this alone.  Where the toolstack's packages
# cannot be had it prints a SKIP with the reason.  The timeout covers a cold cache: the domU's
# small kernel is built once per machine (463-862 s beside one other load; 45 min once beside a
# make test, stress-ng, two benchmarks and two emulators, when 3000 s cut the stage off); a warm
# stage takes 6-20 min and its QEMU has a hard cap of its own.
T_NAME=91_xen_domu
export T_NAME
exec bash "$(dirname "$0")/../xen/run.sh" --stage domu "$@"
