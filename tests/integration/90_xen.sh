#!/usr/bin/env bash
# fpusoakd soaking inside a real Xen 4.17 PV guest under QEMU TCG (issue 7).
# All the work is in tests/xen/run.sh; `make test-xen` runs that alone.
# Cached, it takes about 3.5 minutes on 2 cores; where QEMU or the Debian
# packages cannot be had it prints a SKIP with the reason.
T_NAME=90_xen
export T_NAME
exec bash "$(dirname "$0")/../xen/run.sh" "$@"
