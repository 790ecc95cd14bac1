/* SPDX-License-Identifier: GPL-2.0-only */
/* task: one task's parent and cgroups from /proc; see task.h. */
#include "collector/task.h"

#include <stdio.h>
#include <string.h>

#include "collector/procfile.h"
#include "common/num.h"

#define TASK_COMM_LEN 16   /* the kernel's, with the NUL */

int task_parse_ppid(const char *buf, size_t len, int64_t *ppid)
{
	const char *close = NULL, *p, *end = buf + len, *s;

	for (p = buf; p < end; p++)
		if (*p == ')')
			close = p;
	/* "PID (COMM) S PPID ...": the state, then the parent. */
	if (!close || end - close < 5 || close[1] != ' ' || close[3] != ' ')
		return -1;
	s = close + 4;
	for (p = s; p < end && *p >= '0' && *p <= '9'; p++)
		;
	if (p == s || (p < end && *p != ' ' && *p != '\n'))
		return -1;
	return num_parse_i64(s, (size_t)(p - s), ppid) < 0 ? -1 : 0;
}

/* Whether a "ID:CONTROLLERS:PATH" line is one kept: the memory or pids hierarchy, or cgroup2 (ID 0, no controllers). */
static int kept_line(const char *l, size_t n)
{
	const char *c1 = memchr(l, ':', n), *c2, *ctl;
	size_t cn;

	if (!c1 || !(c2 = memchr(c1 + 1, ':', (size_t)(l + n - c1 - 1))) || c2 + 1 >= l + n || c2[1] != '/')
		return -1;
	ctl = c1 + 1;
	cn = (size_t)(c2 - ctl);
	if (cn == 0)
		return c1 - l == 1 && l[0] == '0';
	for (const char *w = ctl; w < c2;) {
		const char *comma = memchr(w, ',', (size_t)(c2 - w));
		size_t wn = comma ? (size_t)(comma - w) : (size_t)(c2 - w);
		if ((wn == 6 && memcmp(w, "memory", 6) == 0) || (wn == 4 && memcmp(w, "pids", 4) == 0))
			return 1;
		w += wn + (comma ? 1 : 0);
	}
	return 0;
}

int task_parse_cgroup(const char *buf, size_t len, char *out, size_t outlen)
{
	size_t used = 0;
	int any = 0;

	if (!outlen)
		return -1;
	out[0] = 0;
	for (const char *l = buf, *end = buf + len; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t n = nl ? (size_t)(nl - l) : (size_t)(end - l);
		int k;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)l[i] < 0x20 || (unsigned char)l[i] > 0x7e || l[i] == ';')
				return -1;
		if (n && (k = kept_line(l, n)) < 0)
			return -1;
		if (n && k) {
			if (used + (any ? 1 : 0) + n + 1 > outlen)
				return -1;
			if (any)
				out[used++] = ';';
			memcpy(out + used, l, n);
			used += n;
			out[used] = 0;
			any = 1;
		}
		l += n + (nl ? 1 : 0);
	}
	return any ? 0 : -1;
}

int task_read(const char *proc_root, int64_t pid, const char *comm, size_t comm_len, struct task_facts *out)
{
	char rel[64], buf[4096];
	ssize_t n;
	size_t cl;

	out->ppid = -1;
	out->cgroup[0] = 0;
	if (pid <= 0)
		return -1;
	snprintf(rel, sizeof rel, "%lld/comm", (long long)pid);
	if ((n = procfile_read(proc_root, rel, buf, sizeof buf)) <= 0)
		return -1;
	cl = buf[n - 1] == '\n' ? (size_t)n - 1 : (size_t)n;
	/* The kernel prints at most TASK_COMM_LEN - 1 bytes of comm everywhere: compare that much. */
	if (comm_len > TASK_COMM_LEN - 1)
		comm_len = TASK_COMM_LEN - 1;
	if (comm && (cl != comm_len || memcmp(buf, comm, cl) != 0))
		return -1;
	snprintf(rel, sizeof rel, "%lld/stat", (long long)pid);
	if ((n = procfile_read(proc_root, rel, buf, sizeof buf)) <= 0 || task_parse_ppid(buf, (size_t)n, &out->ppid) < 0)
		out->ppid = -1;
	snprintf(rel, sizeof rel, "%lld/cgroup", (long long)pid);
	if ((n = procfile_read(proc_root, rel, buf, sizeof buf)) <= 0 ||
	    task_parse_cgroup(buf, (size_t)n, out->cgroup, sizeof out->cgroup) < 0)
		out->cgroup[0] = 0;
	return out->ppid >= 0 || out->cgroup[0] ? 0 : -1;
}
