/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgroup_kill: who is in the workers' group, and signalling them.
 *
 * Only PIDs in our own group are signalled.  Each PID read from
 * cgroup.procs is pinned with pidfd_open() and then verified against
 * /proc/PID/cgroup before pidfd_send_signal(), so a recycled PID is never
 * hit.  (v2's cgroup.kill would be simpler but gives no list of whom it hit,
 * and close must reap exactly the PIDs it killed that are its children.)
 */
#ifndef FPUSOAK_CGROUP_KILL_H
#define FPUSOAK_CGROUP_KILL_H

#include <stddef.h>
#include <sys/types.h>

struct cgroup;

/* PIDs in the group (v1: memory and pids groups merged), without the caller; 0 or -1 (EFBIG past cap). */
int cgroup_procs(const struct cgroup *cg, pid_t *pids, size_t cap, size_t *n);

/* Send sig to every verified PID in the group except the caller; returns how many were signalled, -1 on error. */
int cgroup_kill(const struct cgroup *cg, int sig);

/* SIGKILL the group's subtree until it is empty (<= 3 s), then reap, for up to 1 s more, those killed that
 * are our children (never waitpid(-1)). */
void cgroup_kill_empty(struct cgroup *cg);

#endif
