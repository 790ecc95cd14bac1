/* SPDX-License-Identifier: GPL-2.0-only */
/* report/whose: a run's own failures and the machine's; see whose.h. */
#include "report/whose.h"

#include <stdio.h>
#include <string.h>

#define COMM_SHOWN 15   /* the kernel prints at most TASK_COMM_LEN - 1 bytes of a comm */

static int same_comm(const char *rec, const char *comm, size_t comm_len)
{
	size_t rl = strlen(rec);

	if (!rec[0] || !comm)
		return 1;   /* nothing recorded, or the record named none: the pid alone */
	if (comm_len > COMM_SHOWN)
		comm_len = COMM_SHOWN;
	if (rl > COMM_SHOWN)
		rl = COMM_SHOWN;
	return rl == comm_len && memcmp(rec, comm, rl) == 0;
}

/* 1 if one of the ';'-joined "ID:CTL:PATH" lines has name as a component of its PATH. */
static int in_group(const char *cgroup, const char *name)
{
	size_t nl = strlen(name);

	if (!nl)
		return 0;
	for (const char *p = strstr(cgroup, name); p; p = strstr(p + 1, name)) {
		char before = p > cgroup ? p[-1] : 0, after = p[nl];
		if (before == '/' && (after == 0 || after == '/' || after == ';'))
			return 1;
	}
	return 0;
}

enum report_whose report_whose_of(const struct report_own *own, int64_t pid, const char *comm, size_t comm_len,
				  int64_t ppid, const char *cgroup)
{
	if (!own->facts)
		return REPORT_WHOSE_UNKNOWN;
	for (int i = 0; i < own->n; i++) {
		if (pid > 0 && pid == own->pid[i] && same_comm(own->comm[i], comm, comm_len))
			return REPORT_WHOSE_OWN;
		if (ppid > 0 && ppid == own->pid[i])
			return REPORT_WHOSE_OWN;
	}
	if (cgroup && cgroup[0] && in_group(cgroup, own->group))
		return REPORT_WHOSE_OWN;
	if ((cgroup && cgroup[0]) || ppid >= 0)
		return REPORT_WHOSE_OTHER;
	return REPORT_WHOSE_UNKNOWN;
}

static int proc_cb(void *arg, const struct query_proc *p)
{
	struct report_own *o = arg;

	if (o->n == REPORT_OWN_MAX || p->pid <= 0)
		return 0;
	o->pid[o->n] = p->pid;
	snprintf(o->comm[o->n], sizeof o->comm[o->n], "%.*s", (int)(p->comm && p->comm_len < 16 ? p->comm_len : 0),
		 p->comm ? p->comm : "");
	o->n++;
	return 0;
}

static int group_cb(void *arg, const struct query_run *r)
{
	struct report_own *o = arg;
	const char *g = r->cgroup_group, *slash;

	if (g && (slash = strrchr(g, '/')) && slash[1])
		snprintf(o->group, sizeof o->group, "%s", slash + 1);
	return 0;
}

int report_own_of(struct query *q, int64_t run_id, struct report_own *out)
{
	int has;

	memset(out, 0, sizeof *out);
	if ((has = query_has_table(q, "run_procs")) <= 0)
		return has;
	if (query_run_procs(q, run_id, proc_cb, out) < 0 || query_run(q, run_id, group_cb, out) < 0)
		return -1;
	/* A run whose daemon recorded itself: an older daemon writing into an upgraded DB recorded nothing. */
	out->facts = out->n > 0;
	return 0;
}

struct count_ctx {
	const struct report_own *own;
	struct report_whose_counts *out;
};

static int count_cb(void *arg, const struct query_fail_task *f)
{
	struct count_ctx *c = arg;

	c->out->n[report_whose_of(c->own, f->pid, f->comm, f->comm_len, f->ppid, f->cgroup)]++;
	return 0;
}

int report_whose_counts(struct query *q, int64_t run_id, int kmsg, struct report_whose_counts *out)
{
	struct report_own own;
	struct count_ctx c = { &own, out };
	int has;

	memset(out, 0, sizeof *out);
	if (report_own_of(q, run_id, &own) < 0)
		return -1;
	out->facts = own.facts;
	if ((has = query_has_table(q, "run_vm")) < 0)
		return -1;
	if (!has) {
		/* Before schema 13: the failures are there, whose they were is not. */
		int64_t total = 0;
		if (kmsg) {
			if (query_alloc_failures(q, run_id, -1, -1, 0, &total, NULL, NULL) < 0)
				return -1;
		} else if ((has = query_has_table(q, "trace_failures")) < 0 ||
			   (has && query_trace_failures(q, run_id, -1, -1, 0, &total, NULL, NULL) < 0)) {
			return -1;
		}
		out->n[REPORT_WHOSE_UNKNOWN] = total;
		return 0;
	}
	return query_fail_tasks(q, run_id, kmsg, count_cb, &c) < 0 ? -1 : 0;
}
