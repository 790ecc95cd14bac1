/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * task: what /proc says about one task, for telling a run's own failed
 * allocations from the rest of the machine's (/dev/kmsg and the trace see
 * every process).  Read once, when the failure is read, because the task
 * may be gone a moment later:
 *   comm     /proc/PID/comm, compared with the comm the record names: a
 *            different one means the pid was reused, and nothing is kept;
 *   ppid     the 4th field of /proc/PID/stat (after the last ')', since a
 *            comm may hold spaces and parentheses);
 *   cgroup   the memory, pids and cgroup2 lines of /proc/PID/cgroup,
 *            joined by ';' ("4:memory:/a/b;8:pids:/a/b;0::/").
 */
#ifndef FPUSOAK_TASK_H
#define FPUSOAK_TASK_H

#include <stddef.h>
#include <stdint.h>

#define TASK_CGROUP_MAX 512

struct task_facts {
	int64_t ppid;                  /* -1 unknown */
	char cgroup[TASK_CGROUP_MAX];  /* "" unknown */
};

/* The parent pid of /proc/PID/stat's text buf[0..len) into *ppid: 0, or -1 (not that format). */
int task_parse_ppid(const char *buf, size_t len, int64_t *ppid);

/* The memory, pids and cgroup2 lines of /proc/PID/cgroup's text buf[0..len), ';'-joined, into out: 0, or -1
 * (no such line, a malformed line, or out too small). */
int task_parse_cgroup(const char *buf, size_t len, char *out, size_t outlen);

/* Read pid's facts under proc_root if its comm is comm[0..comm_len) (a kernel log or trace comm, which the
 * kernel cuts at 15 bytes; comm NULL: the record had none, any comm): 0 with out filled, or -1 (gone, another
 * comm, unreadable; out unknown). */
int task_read(const char *proc_root, int64_t pid, const char *comm, size_t comm_len, struct task_facts *out);

#endif
