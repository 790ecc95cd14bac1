/* SPDX-License-Identifier: GPL-2.0-only */
/* read: the surfaces' reads, through report/; see read.h. */
#include "report/read.h"

int report_read_run(struct query *q, int64_t run_id, query_run_fn fn, void *arg)
{
	return query_run(q, run_id, fn, arg);
}

int report_read_runs(struct query *q, query_run_fn fn, void *arg)
{
	return query_runs(q, fn, arg);
}

int report_read_has_table(struct query *q, const char *name)
{
	return query_has_table(q, name);
}

int report_read_frag_series(struct query *q, int64_t run_id, struct query_range *rg, query_frag_fn fn, void *arg)
{
	return query_frag_series(q, run_id, rg, fn, arg);
}

int report_read_alloc_failures(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int limit,
			       int64_t *total, query_alloc_failure_fn fn, void *arg)
{
	return query_alloc_failures(q, run_id, from_ms, to_ms, limit, total, fn, arg);
}

int report_read_probes(struct query *q, int64_t run_id, const char *kind, int64_t from_ms, int64_t to_ms, int limit,
		       query_probe_fn fn, void *arg)
{
	return query_probes(q, run_id, kind, from_ms, to_ms, limit, fn, arg);
}

int report_read_latest_run(struct query *q, int64_t *run_id)
{
	return query_latest_run(q, run_id);
}

const char *report_read_errmsg(const struct query *q)
{
	return query_errmsg(q);
}

int report_read_writer_active(const struct query *q)
{
	return query_writer_active(q);
}

int report_read_vmstat_rate(struct query *q, int64_t run_id, const char *name, struct query_range *rg,
			    query_point_fn fn, void *arg)
{
	return query_vmstat_rate(q, run_id, name, rg, fn, arg);
}

int report_read_run_import(struct query *q, int64_t run_id, struct query_import *out)
{
	return query_run_import(q, run_id, out);
}

struct query *report_read_open(const char *db_path, char *err, size_t errlen)
{
	return query_open(db_path, err, errlen);
}

int report_read_meminfo_series(struct query *q, int64_t run_id, const char *name, struct query_range *rg,
			       query_point_fn fn, void *arg)
{
	return query_meminfo_series(q, run_id, name, rg, fn, arg);
}

void report_read_close(struct query *q)
{
	query_close(q);
}

int report_read_churn_series(struct query *q, int64_t run_id, struct query_range *rg, query_churn_fn fn, void *arg)
{
	return query_churn_series(q, run_id, rg, fn, arg);
}

int report_read_buddy_series(struct query *q, int64_t run_id, struct query_range *rg, query_buddy_fn fn, void *arg)
{
	return query_buddy_series(q, run_id, rg, fn, arg);
}

int report_read_buddy_latest(struct query *q, int64_t run_id, struct buddyinfo *out, int64_t *ts_ms)
{
	return query_buddy_latest(q, run_id, out, ts_ms);
}

int report_read_trace_failures(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int limit,
			       int64_t *total, query_trace_failure_fn fn, void *arg)
{
	return query_trace_failures(q, run_id, from_ms, to_ms, limit, total, fn, arg);
}

int report_read_stale(const struct query *q)
{
	return query_stale(q);
}

int report_read_slab_latest(struct query *q, int64_t run_id, query_slab_fn fn, void *arg)
{
	return query_slab_latest(q, run_id, fn, arg);
}

int report_read_schema_version(struct query *q)
{
	return query_schema_version(q);
}

int report_read_run_before(struct query *q, const char *label, int64_t started_ms, int64_t *run_id, int64_t *run_started_ms)
{
	return query_run_before(q, label, started_ms, run_id, run_started_ms);
}

int report_read_pagetype_latest(struct query *q, int64_t run_id, query_pagetype_fn fn, void *arg)
{
	return query_pagetype_latest(q, run_id, fn, arg);
}

int report_read_has_name(struct query *q, const char *source, const char *name)
{
	return query_has_name(q, source, name);
}

int report_read_fragment_series(struct query *q, int64_t run_id, struct query_range *rg, query_fragment_fn fn, void *arg)
{
	return query_fragment_series(q, run_id, rg, fn, arg);
}

int report_read_failure_times(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int limit,
			      query_alloc_failure_fn fn, void *arg)
{
	return query_failure_times(q, run_id, from_ms, to_ms, limit, fn, arg);
}

const char *report_read_churn_column(int c)
{
	return query_churn_column(c);
}

int report_read_set_open(struct query_set *set, const char *const *paths, int n, char *err, size_t errlen)
{
	return query_set_open(set, paths, n, err, errlen);
}

void report_read_set_close(struct query_set *set)
{
	query_set_close(set);
}

int report_read_run_fpu_kind(struct query *q, int64_t run_id, char *out, size_t outlen)
{
	return query_run_fpu_kind(q, run_id, out, outlen);
}
