/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * spawner_fork: what workers inherit, and forking them.  In the daemon's
 * forked copy the spawner unmaps the libraries it does not run (the cost
 * of every fork grows with the forking process's mappings); after that
 * nothing may call into them, so workers are forked with a raw clone3
 * (CLONE_INTO_CGROUP when the group allows it).
 *
 * Private to the spawner (state.h).
 */
#ifndef FPUSOAK_SPAWNER_FORK_H
#define FPUSOAK_SPAWNER_FORK_H

#include <stdint.h>
#include <sys/types.h>

struct spawner;

/* clone3 exists here (Linux 5.3; not refused by a seccomp filter): 1, else 0. */
int spawner_fork_raw_ok(void);

/* Unmap every library the spawner does not run from itself, so workers do not inherit them (see above). */
void spawner_fork_shed(struct spawner *s);

/* fork without glibc's wrapper (clone3) once anything is shed or in the static spawner; else fork(). */
pid_t spawner_fork_raw(const struct spawner *s);

/* Fork one worker of role (ROLE_CHURN or ROLE_PROBE) into the group and the table; its PID, or -1 with
 * errno. */
pid_t spawner_fork_worker(struct spawner *s, int role, int64_t lifetime_ms, int64_t now);

/* Fork the churn workers the controller says are due now (at most SPAWN_BATCH); count each fate. */
void spawner_fork_churn(struct spawner *s, int64_t now);

/* Hand the daemon's parameters (s->want), capped by pop_cap, to the controller. */
void spawner_fork_set_params(struct spawner *s, int64_t now);

#endif
