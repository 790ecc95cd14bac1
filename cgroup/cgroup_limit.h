/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgroup_limit: the limits of the workers' group (memory, with swap kept
 * out of it, and pids) and what the kernel charged to it (usage, peak, OOM
 * kills).  Reads go to the kernel's files, so they say what is in force,
 * not what was asked.
 */
#ifndef FPUSOAK_CGROUP_LIMIT_H
#define FPUSOAK_CGROUP_LIMIT_H

#include <stdint.h>

#include "cgroup/cgroup_parse.h"

struct cgroup;

/* Set the memory limit (0 = none); v1 orders memsw/memory writes as the kernel requires; 0 or -1. */
int cgroup_set_memory_max(struct cgroup *cg, uint64_t bytes);

/* Set pids.max (0 = none); 0 or -1 (also when the hierarchy has no pids controller). */
int cgroup_set_pids_max(struct cgroup *cg, uint64_t n);

/* The current limits (0 = none). */
uint64_t cgroup_memory_max(const struct cgroup *cg);
uint64_t cgroup_pids_max(const struct cgroup *cg);

/* What is in force, read back from the kernel's files (not what was asked). */
struct cgroup_effective {
	enum cgroup_ver ver;
	char dir[CGROUP_PATH_MAX];       /* memory group (v2: the group) */
	char pids_dir[CGROUP_PATH_MAX];  /* pids group ("" if none) */
	uint64_t memory_max;             /* bytes; 0 = no limit (v2 "max", v1 the unlimited value) */
	uint64_t pids_max;               /* 0 = no limit or no pids controller */
	int memory_known, pids_known;    /* the file was read */
};

/* Fill out from the kernel's memory.max / memory.limit_in_bytes and pids.max; 0, or -1 without a group. */
int cgroup_effective(const struct cgroup *cg, struct cgroup_effective *out);

/* OOM kills of processes in the group since its creation (v2 memory.events, v1 memory.oom_control); 0 or -1. */
int cgroup_oom_kills(const struct cgroup *cg, uint64_t *out);

/* Memory charged to the group now and its peak (v2 memory.current/peak, v1 usage/max_usage); 0 or -1.
 * peak is 0 where the kernel has no such file. */
int cgroup_memory_usage(const struct cgroup *cg, uint64_t *current, uint64_t *peak);

/* Reset the peak-usage counter where the kernel allows it (v1 max_usage_in_bytes); 0 or -1. */
int cgroup_reset_peak(const struct cgroup *cg);

#endif
