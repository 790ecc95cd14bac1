/* SPDX-License-Identifier: GPL-2.0-only */
/* cgroup_limit: the group's limits and what the kernel charged to it; see cgroup_limit.h. */
#define _GNU_SOURCE
#include "cgroup/cgroup_limit.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cgroup/cgroup_fs.h"
#include "cgroup/cgroup_priv.h"
#include "common/procfile.h"

/* ---- limits ------------------------------------------------------------------------------- */

static int v1_limit(uint64_t cur, uint64_t bytes, const char *dir, int memsw)
{
	char v[32];
	/* memsw.limit must stay >= limit: raise memsw first, lower it last. */
	int raise = bytes == 0 || (cur != 0 && bytes > cur);

	snprintf(v, sizeof v, bytes ? "%llu" : "-1", (unsigned long long)bytes);
	if (memsw && raise && cgroup_fs_write(dir, "memory.memsw.limit_in_bytes", v) < 0)
		return -1;
	if (cgroup_fs_write(dir, "memory.limit_in_bytes", v) < 0)
		return -1;
	if (memsw && !raise && cgroup_fs_write(dir, "memory.memsw.limit_in_bytes", v) < 0)
		return -1;
	return 0;
}

int cgroup_set_memory_max(struct cgroup *cg, uint64_t bytes)
{
	char v[32];

	if (!cg)
		return -1;
	if (cg->ver == CGROUP_V1) {
		if (v1_limit(cg->mem_max, bytes, cg->dir, cgroup_fs_has(cg->dir, "memory.memsw.limit_in_bytes")) < 0)
			return -1;
	} else {
		snprintf(v, sizeof v, bytes ? "%llu" : "max", (unsigned long long)bytes);
		if (cgroup_fs_write(cg->dir, "memory.max", v) < 0)
			return -1;
		/* Without this a limited group pages out instead of hitting its limit. */
		if (cgroup_fs_has(cg->dir, "memory.swap.max") && cgroup_fs_write(cg->dir, "memory.swap.max", bytes ? "0" : "max") < 0)
			return -1;
	}
	cg->mem_max = bytes;
	return 0;
}

int cgroup_set_pids_max(struct cgroup *cg, uint64_t n)
{
	char v[32];

	if (!cg || !cg->pids_ctl) {
		errno = ENOENT;
		return -1;
	}
	snprintf(v, sizeof v, n ? "%llu" : "max", (unsigned long long)n);
	if (cgroup_fs_write(cg->pids_dir, "pids.max", v) < 0)
		return -1;
	cg->pids_max = n;
	return 0;
}

int cgroup_reset_peak(const struct cgroup *cg)
{
	if (!cg || cg->ver != CGROUP_V1)
		return -1;
	return cgroup_fs_write(cg->dir, "memory.max_usage_in_bytes", "0");
}

uint64_t cgroup_memory_max(const struct cgroup *cg)
{
	return cg ? cg->mem_max : 0;
}

uint64_t cgroup_pids_max(const struct cgroup *cg)
{
	return cg ? cg->pids_max : 0;
}

/* ---- accounting ------------------------------------------------------------------------- */

int cgroup_oom_kills(const struct cgroup *cg, uint64_t *out)
{
	char buf[1024];
	ssize_t n;

	if (!cg || cg->oom_fd < 0)
		return -1;
	n = procfile_pread(cg->oom_fd, buf, sizeof buf);
	if (n < 0)
		return -1;
	return cgroup_parse_key(buf, (size_t)n, "oom_kill", out);
}

/* v1 prints "no limit" as the largest page-aligned long (9223372036854771712); anything from 2^62 is none. */
#define V1_UNLIMITED (1ull << 62)

int cgroup_effective(const struct cgroup *cg, struct cgroup_effective *out)
{
	uint64_t v;

	memset(out, 0, sizeof *out);
	if (!cg)
		return -1;
	out->ver = cg->ver;
	snprintf(out->dir, sizeof out->dir, "%s", cg->dir);
	if (cg->pids_ctl)
		snprintf(out->pids_dir, sizeof out->pids_dir, "%s", cg->pids_dir);
	if (cgroup_fs_read_u64(cg->dir, cg->ver == CGROUP_V2 ? "memory.max" : "memory.limit_in_bytes", &v) == 0) {
		out->memory_known = 1;
		out->memory_max = v == UINT64_MAX || v >= V1_UNLIMITED ? 0 : v;
	}
	if (cg->pids_ctl && cgroup_fs_read_u64(cg->pids_dir, "pids.max", &v) == 0) {
		out->pids_known = 1;
		out->pids_max = v == UINT64_MAX ? 0 : v;
	}
	return 0;
}

int cgroup_memory_usage(const struct cgroup *cg, uint64_t *current, uint64_t *peak)
{
	int v2 = cg && cg->ver == CGROUP_V2;

	if (!cg)
		return -1;
	*peak = 0;
	if (cgroup_fs_read_u64(cg->dir, v2 ? "memory.current" : "memory.usage_in_bytes", current) < 0)
		return -1;
	cgroup_fs_read_u64(cg->dir, v2 ? "memory.peak" : "memory.max_usage_in_bytes", peak);
	return 0;
}
