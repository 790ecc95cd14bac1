/* SPDX-License-Identifier: GPL-2.0-only */
/* read_runs: the runs table and each run's sample extent; see query.h. */
#include <string.h>

#include "store/reader.h"

/*
 * Columns of a run, shared by the listing and the single-run query.  The sample extent is the exact tick
 * span: the raw ticks while they exist, and the first/last tick each minute rollup keeps (schema 7) where
 * retention deleted them.  A bucket's start or end is never taken for a tick: a run started at 13:04:54
 * did not start at 13:04:00.  Buckets written before schema 7 have no tick span: there the bucket's
 * bounds stand in, and span_exact says so.  Minute buckets are disjoint and each one's value lies
 * inside it, so the extent's end is the first (last) bucket, in bucket order, that gives one: a walk
 * of the primary key that stops there, not a scan of every bucket of a month-long run (12 of these
 * per page).
 */
#define RUN_MINUTE " FROM tick_rollup u WHERE u.run_id = r.run_id AND u.tier = " STORE_TIER_MINUTE_SQL
/* The bucket's raw ticks still exist: they, not the bucket's bounds, give its part of the span. */
#define RUN_RAW_IN_BUCKET "EXISTS (SELECT 1 FROM samples x WHERE x.run_id = u.run_id AND x.ts_ms >= u.bucket_ms" \
	" AND x.ts_ms < u.bucket_ms + " STORE_TIER_MINUTE_SQL ")"
/*
 * span_exact looks only at the buckets that could hold an end: those up to the run's first raw tick and
 * from its last one's minute on (all of them when no raw tick is left).  A bucket between them lies
 * inside the raw ticks' span, so its bounds cannot be an end; looking at every bucket (the NOT EXISTS
 * this replaced) read all 43,200 wide rows of a 30-day run, 8-12 ms, some eight times a run page.
 */
#define RUN_RAW_OF " FROM samples s WHERE s.run_id = r.run_id"
#define RUN_NO_END "9223372036854775807"
/* XEN: the two schema-012 columns, GFP: 009's gfp_mode, CPUK: 018's cpu_model_kernel, or what a DB from before
 * them stands for (none recorded). */
#define RUN_COLS_X(XEN, GFP, CPUK) \
	"r.run_id, r.label, r.end_reason, r.version, r.boot_id, r.hostname, r.kernel_release, " \
	"r.kernel_version, r.cmdline, r.hypervisor, r.guest_type, r.cpu_model, r.fpu_features, " \
	"r.xstate_detail, r.config, r.started_ms, r.ended_ms, r.pid, " \
	"r.xstate_bytes, r.mem_total_kb, r.page_size, " \
	"r.ticks, " XEN ", " \
	"(SELECT min(t) FROM (SELECT MIN(ts_ms) AS t" RUN_RAW_OF " UNION ALL " \
	" SELECT * FROM (SELECT CASE WHEN first_ms IS NOT NULL THEN first_ms WHEN " RUN_RAW_IN_BUCKET " THEN NULL" \
	" ELSE bucket_ms END AS b" RUN_MINUTE " AND b IS NOT NULL ORDER BY u.bucket_ms LIMIT 1))), " \
	"(SELECT max(t) FROM (SELECT MAX(ts_ms) AS t" RUN_RAW_OF " UNION ALL " \
	" SELECT * FROM (SELECT CASE WHEN last_ms IS NOT NULL THEN last_ms WHEN " RUN_RAW_IN_BUCKET " THEN NULL" \
	" ELSE bucket_ms + " STORE_TIER_MINUTE_SQL " - 1 END AS b" RUN_MINUTE " AND b IS NOT NULL" \
	" ORDER BY u.bucket_ms DESC LIMIT 1))), " \
	"NOT EXISTS (SELECT 1" RUN_MINUTE " AND u.bucket_ms <= coalesce((SELECT MIN(ts_ms)" RUN_RAW_OF "), " RUN_NO_END ")" \
	" AND first_ms IS NULL AND NOT " RUN_RAW_IN_BUCKET ") AND " \
	"NOT EXISTS (SELECT 1" RUN_MINUTE " AND u.bucket_ms > coalesce((SELECT MAX(ts_ms)" RUN_RAW_OF ") - " \
	STORE_TIER_MINUTE_SQL ", " RUN_NO_END ") AND first_ms IS NULL AND NOT " RUN_RAW_IN_BUCKET "), " \
	"c.cgroup, c.cgroup_group, c.unconfined_reason, c.fpu_kind, c.cgroup_memory_max, c.cgroup_pids_max, " \
	"c.pop_cap, c.confinement_exact, " GFP ", " CPUK " "
#define RUN_COLS RUN_COLS_X("r.xen_domain, coalesce(r.xen_domid, -1)", "r.gfp_mode", "r.cpu_model_kernel")
#define RUN_COLS_PRE18 RUN_COLS_X("r.xen_domain, coalesce(r.xen_domid, -1)", "r.gfp_mode", "NULL")
/* serve reads DBs it must not migrate: one from before 012 (at 7 to 11) has no Xen columns, and one
 * from before 009 no gfp_mode; 009 and 012 are released together: a DB without 012 is read without both. */
#define RUN_COLS_PRE12 RUN_COLS_X("NULL, -1", "NULL", "NULL")

static const char *const SQL[S_COUNT] = {
	[S_LATEST_RUN] = "SELECT MAX(run_id) FROM runs",
	[S_RUNS] = "SELECT " RUN_COLS "FROM runs r LEFT JOIN churn_info c USING (run_id) ORDER BY r.run_id DESC LIMIT ?1",
	[S_RUN] = "SELECT " RUN_COLS "FROM runs r LEFT JOIN churn_info c USING (run_id) WHERE r.run_id = ?1",
	[S_RUNS_PRE12] = "SELECT " RUN_COLS_PRE12 "FROM runs r LEFT JOIN churn_info c USING (run_id)"
			 " ORDER BY r.run_id DESC LIMIT ?1",
	[S_RUN_PRE12] = "SELECT " RUN_COLS_PRE12 "FROM runs r LEFT JOIN churn_info c USING (run_id) WHERE r.run_id = ?1",
	[S_RUNS_PRE18] = "SELECT " RUN_COLS_PRE18 "FROM runs r LEFT JOIN churn_info c USING (run_id)"
			 " ORDER BY r.run_id DESC LIMIT ?1",
	[S_RUN_PRE18] = "SELECT " RUN_COLS_PRE18 "FROM runs r LEFT JOIN churn_info c USING (run_id) WHERE r.run_id = ?1",
	[S_RUN_MEMORY] = "SELECT domain_kb, present_kb, mem_total_kb, mem_free_kb, mem_available_kb FROM run_memory"
			 " WHERE run_id = ?1",
	[S_RUN_BEFORE] = "SELECT run_id, started_ms FROM runs WHERE label IS ?1 AND started_ms < ?2"
			 " ORDER BY started_ms DESC, run_id DESC LIMIT 1",
	[S_RUN_IMPORT] = "SELECT source_file, source_path, source_host, source_boot_id, source_run_id, source_schema,"
			 " imported_ms FROM run_import WHERE run_id = ?1",
};

int query_latest_run(struct query *q, int64_t *run_id)
{
	sqlite3_stmt *st = stmt(q, S_LATEST_RUN);

	return st ? one_i64(q, st, run_id) : -1;
}

static void run_from_row(sqlite3_stmt *st, struct query_run *r)
{
	r->run_id = sqlite3_column_int64(st, 0);
	r->label = col_text(st, 1);
	r->end_reason = col_text(st, 2);
	r->version = col_text(st, 3);
	r->boot_id = col_text(st, 4);
	r->hostname = col_text(st, 5);
	r->kernel_release = col_text(st, 6);
	r->kernel_version = col_text(st, 7);
	r->cmdline = col_text(st, 8);
	r->hypervisor = col_text(st, 9);
	r->guest_type = col_text(st, 10);
	r->cpu_model = col_text(st, 11);
	r->fpu_features = col_text(st, 12);
	r->xstate_detail = col_text(st, 13);
	r->config = col_text(st, 14);
	r->started_ms = col_i64(st, 15);
	r->ended_ms = col_i64(st, 16);
	r->pid = col_i64(st, 17);
	r->xstate_bytes = col_i64(st, 18);
	r->mem_total_kb = col_i64(st, 19);
	r->page_size = col_i64(st, 20);
	r->nsamples = col_i64(st, 21);
	r->xen_domain = col_text(st, 22);
	r->xen_domid = col_i64(st, 23);
	r->first_sample_ms = col_i64(st, 24);
	r->last_sample_ms = col_i64(st, 25);
	r->span_exact = sqlite3_column_int(st, 26);
	r->cgroup = col_text(st, 27);
	r->cgroup_group = col_text(st, 28);
	r->unconfined_reason = col_text(st, 29);
	r->fpu_kind = col_text(st, 30);
	r->cgroup_memory_max = col_i64(st, 31);
	r->cgroup_pids_max = col_i64(st, 32);
	r->pop_cap = col_i64(st, 33);
	r->confinement_exact = sqlite3_column_int(st, 34);
	r->gfp_mode = col_text(st, 35);
	r->cpu_model_kernel = col_text(st, 36);
}

/* Step st to the end, handing each run to fn; count or -1 (cap: more than cap rows is an error). */
static int emit_runs(struct query *q, sqlite3_stmt *st, int cap, query_run_fn fn, void *arg)
{
	int rc, n = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_run r;
		if (n == cap) {
			snprintf(q->err, sizeof q->err, "more than %d runs", cap);
			done(st);
			return -1;
		}
		run_from_row(st, &r);
		n++;
		if (fn(arg, &r) != 0) {
			snprintf(q->err, sizeof q->err, "stopped by caller");
			done(st);
			return -1;
		}
	}
	return rows_done(q, st, rc, n);
}

int query_runs(struct query *q, query_run_fn fn, void *arg)
{
	sqlite3_stmt *st = stmt(q, !q->has_xen ? S_RUNS_PRE12 : q->has_cpuk ? S_RUNS : S_RUNS_PRE18);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, (int64_t)QUERY_MAX_RUNS + 1);
	return emit_runs(q, st, QUERY_MAX_RUNS, fn, arg);
}

int query_run(struct query *q, int64_t run_id, query_run_fn fn, void *arg)
{
	sqlite3_stmt *st = stmt(q, !q->has_xen ? S_RUN_PRE12 : q->has_cpuk ? S_RUN : S_RUN_PRE18);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	return emit_runs(q, st, 1, fn, arg);
}

/*
 * The one row of run_id in a table a later schema added (id selects from it by ?1 = run_id): 1 with *out
 * stepped onto it, 0 when the table is not there (an older DB) or has no row for the run (*out done with),
 * -1 on error.  The caller reads the row, then done(*out).
 */
static int run_row(struct query *q, const char *table, enum stmt_id id, int64_t run_id, sqlite3_stmt **out)
{
	int has = query_has_table(q, table), rc;

	if (has <= 0)
		return has;
	if (!(*out = stmt(q, id)))
		return -1;
	sqlite3_bind_int64(*out, 1, run_id);
	rc = sqlite3_step(*out);
	if (step_err(q, *out, rc) < 0)
		return -1;
	if (rc != SQLITE_ROW)
		done(*out);
	return rc == SQLITE_ROW;
}

int query_run_import(struct query *q, int64_t run_id, struct query_import *out)
{
	sqlite3_stmt *st;
	/* A database from before imports, or a run of its own: nothing to say. */
	int r = run_row(q, "run_import", S_RUN_IMPORT, run_id, &st);

	if (r <= 0)
		return r;
	snprintf(out->source_file, sizeof out->source_file, "%s", col_text(st, 0) ? col_text(st, 0) : "");
	snprintf(out->source_path, sizeof out->source_path, "%s", col_text(st, 1) ? col_text(st, 1) : "");
	snprintf(out->source_host, sizeof out->source_host, "%s", col_text(st, 2) ? col_text(st, 2) : "");
	snprintf(out->source_boot_id, sizeof out->source_boot_id, "%s", col_text(st, 3) ? col_text(st, 3) : "");
	out->source_run_id = col_i64(st, 4);
	out->source_schema = col_i64(st, 5);
	out->imported_ms = col_i64(st, 6);
	done(st);
	return 1;
}

int query_run_memory(struct query *q, int64_t run_id, struct query_run_memory *out)
{
	sqlite3_stmt *st;
	/* A database from before 016, or a run that knew nothing: nothing recorded. */
	int r = run_row(q, "run_memory", S_RUN_MEMORY, run_id, &st);

	if (r <= 0)
		return r;
	out->domain_kb = col_i64(st, 0);
	out->present_kb = col_i64(st, 1);
	out->mem_total_kb = col_i64(st, 2);
	out->mem_free_kb = col_i64(st, 3);
	out->mem_available_kb = col_i64(st, 4);
	done(st);
	return 1;
}

int query_run_before(struct query *q, const char *label, int64_t started_ms, int64_t *run_id, int64_t *run_started_ms)
{
	sqlite3_stmt *st = stmt(q, S_RUN_BEFORE);
	int rc, found = 0;

	if (!st)
		return -1;
	if (label)
		sqlite3_bind_text(st, 1, label, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 1);
	sqlite3_bind_int64(st, 2, started_ms);
	rc = sqlite3_step(st);
	if (step_err(q, st, rc) < 0)
		return -1;
	if (rc == SQLITE_ROW) {
		*run_id = sqlite3_column_int64(st, 0);
		*run_started_ms = sqlite3_column_int64(st, 1);
		found = 1;
	}
	done(st);
	return found;
}
