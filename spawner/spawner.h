/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * spawner: the single-threaded process that forks, reaps and counts workers.
 *
 * One loop over ppoll(): the daemon's socket (commands, EOF = stop), a
 * signalfd (SIGCHLD, SIGTERM), the capacity probe's ready pipe and the
 * switch probe's result pipe; the timeout is the controller's next spawn,
 * the next STATUS record or a probe deadline.  Workers are reaped with
 * waitid(WNOHANG) until none is left, so coalesced SIGCHLDs lose nothing.
 *
 * Workers are looked up by PID in an open-addressing table sized once at
 * start (no allocation per spawn): the spawner is forked for every worker,
 * so its footprint is part of every fork's cost and stays small.
 *
 * Private to spawner/: the daemon uses churn/churn.h.  The types both sides share
 * are in churn_proto.h; the spawner's own files are listed in state.h.
 */
#ifndef FPUSOAK_SPAWNER_H
#define FPUSOAK_SPAWNER_H

#include <stdint.h>
#include <sys/types.h>

#include "spawner/churn_proto.h"

/* Most bytes a packed spawner_cfg (with its cgroup handle) takes. */
#define SPAWNER_BLOB_MAX 16384

/* Run the spawner in the freshly forked child: never returns (exit code 0 after a clean stop). */
void spawner_main(const struct spawner_cfg *cfg) __attribute__((noreturn));

/*
 * The static spawner (spawner_exec.c).  Every fork copies the forking process's mappings, so the
 * spawner execs a small static binary whose address space is a third of the daemon's forked copy.
 */

/* Pack cfg and its cgroup handle into buf[0..cap); bytes written, 0 if cap is too small. */
size_t spawner_blob_pack(const struct spawner_cfg *cfg, void *buf, size_t cap);

/* Unpack what spawner_blob_pack wrote (layout, sizes and length checked; string pointers cleared,
 * the cgroup handle a heap copy, exec_ok set); 0, or -1 with why. */
int spawner_blob_unpack(const void *buf, size_t len, struct spawner_cfg *cfg, char *why, size_t whylen);

/* In the freshly forked child: exec path as the spawner, handing cfg over in a memfd.  Returns -1
 * with errno only when it could not exec (the caller then runs spawner_main itself). */
int spawner_exec(const struct spawner_cfg *cfg, const char *path);

/* main() of the static spawner: if argv is {name, "--internal-spawner", FD}, runs the spawner from
 * the blob in FD and never returns (exit 70 on a bad blob); otherwise returns 0. */
int spawner_exec_main(int argc, char **argv);

#endif
