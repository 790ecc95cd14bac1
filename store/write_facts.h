/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * write_facts: what a run records once for its comparisons, written on the writer's connection
 * (store_run_vm and store_run_proc of store.h are these, with the store's connection; -1 while it is
 * suspended).  Included by writer.c only.
 */
#ifndef FPUSOAK_WRITE_FACTS_H
#define FPUSOAK_WRITE_FACTS_H

#include <sqlite3.h>
#include <stdint.h>

/* One vm knob's value as the run found it (run_vm); 0 or -1. */
int facts_run_vm(sqlite3 *db, int64_t run_id, const char *name, const char *value);

/* One of the run's own processes (run_procs): role, pid, comm, cgroup; 0 or -1. */
int facts_run_proc(sqlite3 *db, int64_t run_id, int64_t ts_ms, const char *role, int64_t pid, const char *comm,
		   const char *cgroup);

#endif
