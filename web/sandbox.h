/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sandbox: the web process's own system call filter (seccomp, on top of the
 * unit's SystemCallFilter=, which the core needs wide: cgroups, clone3,
 * capset for the spawner ...).
 *
 * The web process reads a DB, answers HTTP on a socket it was handed (or
 * binds one when a user runs `fpusoakd serve` by hand) and reads the core's
 * snapshot.  The filter allows what that takes — file reads and SQLite's
 * locks and shared-memory index, threads, epoll, accept and socket I/O,
 * sockets of the inet and unix families only — and answers everything else
 * with EPERM: no exec, no fork, no ptrace, no mount, no module or key
 * calls, no kill of others, no outgoing connect, no ioctl.  Installed
 * before the first thread starts, it covers them all; no_new_privs must be
 * set already (worker_drop_privileges).  x86_64 only; elsewhere it says so
 * and the process runs without it.
 */
#ifndef FPUSOAK_SANDBOX_H
#define FPUSOAK_SANDBOX_H

#include <stddef.h>

/* Install the filter on the calling thread (and the threads it starts); 0, or -1 with why in err. */
int sandbox_web(char *err, size_t errlen);

#endif
