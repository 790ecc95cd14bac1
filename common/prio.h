/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * prio: where each of fpusoakd's processes sits on the CPU, relative to the core (issue 36).
 *
 * The core (the sampler) runs where it was started (the unit gives it Nice=-5); the spawner and the
 * web process PRIO_HELPER_STEP nice levels below it; churn workers, the only processes that use CPU
 * for long, at PRIO_WORKER_NICE; probe workers one level below the spawner (worker.h says why).
 * Lowering one's own priority needs no privilege; all of it is relative, so a core someone started
 * at nice 10 never finds its helpers above it.
 */
#ifndef FPUSOAK_PRIO_H
#define FPUSOAK_PRIO_H

#define PRIO_HELPER_STEP 5      /* spawner and web process: this many nice levels below the core */
#define PRIO_WORKER_NICE 19     /* churn workers: the lowest weight SCHED_OTHER has */

/* Raise this process's nice value by step, to at most cap (never lower it); the nice value now, or -1
 * with errno.  Only system calls: safe in a freshly forked worker. */
int prio_lower(int step, int cap);

#endif
