/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgroup_parse: what the kernel says about cgroups, parsed purely over
 * (buf, len): the caller's place in each hierarchy (/proc/self/cgroup),
 * where the hierarchies are mounted (/proc/self/mountinfo), the members of
 * a group (cgroup.procs) and flat-keyed files (memory.events,
 * memory.oom_control, cgroup.controllers).  No I/O, no allocation; the
 * vocabulary (versions, path size) of every cgroup_ module.
 */
#ifndef FPUSOAK_CGROUP_PARSE_H
#define FPUSOAK_CGROUP_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CGROUP_PATH_MAX 1024

enum cgroup_ver { CGROUP_NONE = 0, CGROUP_V1 = 1, CGROUP_V2 = 2, CGROUP_AUTO = 3 };

/* The caller's position in each hierarchy, from /proc/self/cgroup. */
struct cgroup_self {
	int has_v2, has_memory, has_pids;
	char v2[CGROUP_PATH_MAX];       /* "0::<path>" */
	char memory[CGROUP_PATH_MAX];   /* v1 line whose controller list has "memory" */
	char pids[CGROUP_PATH_MAX];
};

/* One hierarchy's mount, from /proc/self/mountinfo. */
struct cgroup_mnt {
	int found;
	char root[CGROUP_PATH_MAX];     /* the hierarchy path mounted there ("/" unless bind-mounted) */
	char dir[CGROUP_PATH_MAX];      /* the mount point */
};

struct cgroup_mounts {
	struct cgroup_mnt v2, memory, pids;
};

/* Parse /proc/self/cgroup; 0 or -1 on malformed or over-long lines. */
int cgroup_parse_self(const char *buf, size_t len, struct cgroup_self *out);

/* Parse /proc/self/mountinfo for cgroup2 and the v1 memory and pids hierarchies (first mount wins);
 * octal escapes (\040) decoded; 0 or -1 on malformed input. */
int cgroup_parse_mountinfo(const char *buf, size_t len, struct cgroup_mounts *out);

/* Parse cgroup.procs (one decimal PID per line) into pids[0..cap); sets *n; 0, or -1 on junk or > cap. */
int cgroup_parse_pids(const char *buf, size_t len, pid_t *pids, size_t cap, size_t *n);

/* Find "key value" in a flat-keyed file (memory.events, memory.oom_control); 0 and *out, -1 if absent/bad. */
int cgroup_parse_key(const char *buf, size_t len, const char *key, uint64_t *out);

/* 1 if word w is in the space-separated list buf[0..len) (cgroup.controllers), else 0. */
int cgroup_has_word(const char *buf, size_t len, const char *w);

#endif
