/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgroup_priv: the workers' cgroup handle as its files see it; included
 * only by cgroup/cgroup*.c (everyone else holds an opaque struct cgroup,
 * cgroup.h).  The struct is plain bytes (paths, flags, fd numbers): the
 * blob functions of cgroup.h copy it across the spawner's exec.
 */
#ifndef FPUSOAK_CGROUP_PRIV_H
#define FPUSOAK_CGROUP_PRIV_H

#include <stdint.h>

#include "cgroup/cgroup_parse.h"

enum { CTRL_MEMORY = 1, CTRL_PIDS = 2 };

struct cgroup {
	enum cgroup_ver ver;
	char dir[CGROUP_PATH_MAX];       /* memory group (v2: the group) */
	char pids_dir[CGROUP_PATH_MAX];  /* v1 pids group, "" if none; v2: = dir */
	char rel[CGROUP_PATH_MAX];       /* dir relative to its hierarchy root, as /proc/PID/cgroup shows it */
	char pids_rel[CGROUP_PATH_MAX];
	char own[CGROUP_PATH_MAX];       /* where the caller was: v2 dir / v1 memory dir */
	char own_pids[CGROUP_PATH_MAX];  /* v1 pids dir the caller was in */
	char leaf[CGROUP_PATH_MAX];      /* v2 <own>/daemon */
	int created, created_pids, created_leaf, moved_leaf, entered, entered_pids;
	unsigned enabled;                /* v2 controllers this open enabled in <own>/cgroup.subtree_control */
	int pids_ctl;                    /* the group has a pids.max to write */
	int child_fd, clone_fd, pids_procs_fd, oom_fd;
	uint64_t mem_max, pids_max;
};

#endif
