/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report/whose: was a failed allocation this run's own, or another
 * process's?  /dev/kmsg and the trace see the whole machine: on a shared
 * host most "page allocation failure" records of a run come from others.
 *
 * Decided from stored facts only (schema 013: run_procs, and the task_ppid
 * and task_cgroup the daemon read from /proc/PID when the record came):
 *   own      the pid is one of the run's own processes (daemon, spawner,
 *            load) with the comm recorded for it; or its parent is one of
 *            them (workers and probes are the spawner's children); or its
 *            cgroup path has the run's workers' group as a component;
 *   other    the task was read and none of that holds;
 *   unknown  no pid (a record without its task line), or the task was gone,
 *            or had another comm, before it could be read.
 * A run recorded before schema 13 has no facts: every failure is unknown.
 */
#ifndef FPUSOAK_REPORT_WHOSE_H
#define FPUSOAK_REPORT_WHOSE_H

#include <stddef.h>
#include <stdint.h>

#include "store/query.h"

#define REPORT_OWN_MAX 8
#define REPORT_GROUP_NAME_MAX 128

enum report_whose { REPORT_WHOSE_OWN = 0, REPORT_WHOSE_OTHER, REPORT_WHOSE_UNKNOWN };

/* A run's own processes and its workers' group, as stored. */
struct report_own {
	int facts;                /* the run recorded them (schema 13 and a daemon that wrote run_procs) */
	int n;
	int64_t pid[REPORT_OWN_MAX];
	char comm[REPORT_OWN_MAX][16];   /* "" unknown: any comm */
	char group[REPORT_GROUP_NAME_MAX];   /* the workers' group's last path component; "" none */
};

/* Whose is a failure of task pid (comm[0..comm_len)) with parent ppid and cgroup lines (-1 / NULL unknown). Pure. */
enum report_whose report_whose_of(const struct report_own *own, int64_t pid, const char *comm, size_t comm_len,
				  int64_t ppid, const char *cgroup);

/* The own processes and group of run_id into out (out->facts 0 on an older DB or run); 0, or -1 on a store error. */
int report_own_of(struct query *q, int64_t run_id, struct report_own *out);

/* A run's failures from one source, by whose they were. */
struct report_whose_counts {
	int facts;                /* 0: no facts (every failure unknown) */
	int64_t n[3];             /* by enum report_whose */
};

/* Count run_id's failed allocations from the kernel log (kmsg 1) or the trace's raw rows (0); 0, or -1. */
int report_whose_counts(struct query *q, int64_t run_id, int kmsg, struct report_whose_counts *out);

#endif
