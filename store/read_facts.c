/* SPDX-License-Identifier: GPL-2.0-only */
/* read_facts: a run's vm knobs, own processes and failing tasks (schema 013); see query.h. */
#include <string.h>

#include "store/reader.h"

static const char *const SQL[S_COUNT] = {
	[S_RUN_VM] = "SELECT name, value FROM run_vm WHERE run_id = ?1 ORDER BY name",
	[S_RUN_PROCS] = "SELECT role, pid, comm, cgroup FROM run_procs WHERE run_id = ?1 ORDER BY ts_ms, rowid",
	[S_FAIL_TASKS] = "SELECT ts_ms, pid, comm, task_ppid, task_cgroup FROM v_failure_tasks "
			 "WHERE run_id = ?1 AND source = ?2 ORDER BY ts_ms",
};

static int64_t col_or(sqlite3_stmt *st, int i, int64_t none)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? none : sqlite3_column_int64(st, i);
}

static const char *text_or_null(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NULL : (const char *)sqlite3_column_text(st, i);
}

/* Step st, handing each row to row(); rows or -1 (a callback's non-zero stops it: -1). */
static int each(struct query *q, sqlite3_stmt *st, int (*row)(sqlite3_stmt *st, void *ctx), void *ctx)
{
	int rc, n = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n++;
		if (row(st, ctx) != 0) {
			snprintf(q->err, sizeof q->err, "stopped by caller");
			done(st);
			return -1;
		}
	}
	if (step_err(q, st, rc) < 0)
		return -1;
	done(st);
	return n;
}

struct vm_ctx {
	query_vm_fn fn;
	void *arg;
};

static int vm_row(sqlite3_stmt *st, void *ctx)
{
	struct vm_ctx *c = ctx;

	return c->fn(c->arg, (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1));
}

int query_run_vm(struct query *q, int64_t run_id, query_vm_fn fn, void *arg)
{
	struct vm_ctx c = { fn, arg };
	sqlite3_stmt *st = stmt(q, S_RUN_VM);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	return each(q, st, vm_row, &c);
}

struct proc_ctx {
	query_proc_fn fn;
	void *arg;
};

static int proc_row(sqlite3_stmt *st, void *ctx)
{
	struct proc_ctx *c = ctx;
	struct query_proc p = {
		.role = (const char *)sqlite3_column_text(st, 0), .pid = col_or(st, 1, -1),
		.comm = (const char *)sqlite3_column_blob(st, 2), .comm_len = (size_t)sqlite3_column_bytes(st, 2),
		.cgroup = text_or_null(st, 3),
	};

	return c->fn(c->arg, &p);
}

int query_run_procs(struct query *q, int64_t run_id, query_proc_fn fn, void *arg)
{
	struct proc_ctx c = { fn, arg };
	sqlite3_stmt *st = stmt(q, S_RUN_PROCS);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	return each(q, st, proc_row, &c);
}

struct task_ctx {
	query_fail_task_fn fn;
	void *arg;
	int kmsg;
};

static int task_row(sqlite3_stmt *st, void *ctx)
{
	struct task_ctx *c = ctx;
	struct query_fail_task f = {
		.kmsg = c->kmsg, .ts_ms = sqlite3_column_int64(st, 0), .pid = col_or(st, 1, -1),
		.comm = (const char *)sqlite3_column_blob(st, 2), .comm_len = (size_t)sqlite3_column_bytes(st, 2),
		.ppid = col_or(st, 3, -1), .cgroup = text_or_null(st, 4),
	};

	return c->fn(c->arg, &f);
}

int query_fail_tasks(struct query *q, int64_t run_id, int kmsg, query_fail_task_fn fn, void *arg)
{
	struct task_ctx c = { fn, arg, kmsg };
	sqlite3_stmt *st = stmt(q, S_FAIL_TASKS);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, kmsg ? "kmsg" : "trace", -1, SQLITE_STATIC);
	return each(q, st, task_row, &c);
}
