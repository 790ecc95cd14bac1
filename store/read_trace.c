/* SPDX-License-Identifier: GPL-2.0-only */
/* read_trace: what the tracefs instance saw (schema 008); see query.h. */
#include <string.h>

#include "store/reader.h"

static const char *const SQL[S_COUNT] = {
	[S_TRACE_NOTE] = "SELECT text FROM run_notes WHERE run_id = ?1 AND kind = 'tracefs' ORDER BY ts_ms DESC LIMIT 1",
	/* Minute buckets below this are in trace_rollup; rows from it on are still raw only. */
	[S_TRACE_ROLLED] = "SELECT next_ms FROM rollup_state WHERE run_id = ?1 AND tier = 60000",
	[S_TRACE_TOT_ROLL] = "SELECT SUM(failures), SUM(extfrag), SUM(fragmenting) FROM trace_rollup "
			     "WHERE run_id = ?1 AND tier = 60000 AND bucket_ms < ?2",
	[S_TRACE_TOT_RAW_F] = "SELECT COUNT(*) FROM trace_failures WHERE run_id = ?1 AND ts_ms >= ?2",
	[S_TRACE_TOT_RAW_X] = "SELECT SUM(events), SUM(CASE WHEN fragmenting = 1 THEN events ELSE 0 END) FROM extfrag "
			      "WHERE run_id = ?1 AND ts_ms >= ?2",
	[S_TRACE_OC_ROLL] = "SELECT page_order, class, SUM(failures) FROM trace_fail_rollup "
			    "WHERE run_id = ?1 AND tier = 60000 AND bucket_ms < ?2 GROUP BY page_order, class",
	[S_TRACE_OC_RAW] = "SELECT page_order, class, COUNT(*) FROM trace_failures WHERE run_id = ?1 AND ts_ms >= ?2 "
			   "GROUP BY page_order, class",
	[S_TRACE_KMSG] = "SELECT COUNT(*), SUM(in_trace) FROM v_alloc_failures WHERE run_id = ?1",
	[S_TRACE_BUCKETS] = "SELECT bucket_ms, n, failures, extfrag, fragmenting FROM trace_rollup "
			    "WHERE run_id = ?1 AND tier = ?2 ORDER BY bucket_ms",
	[S_TRACE_FAILS] = "SELECT ts_ms, comm, pid, page_order, gfp_flags, gfp_mask, migratetype, class, nowarn, in_kmsg "
			  "FROM v_page_alloc_failures WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 "
			  "ORDER BY ts_ms DESC LIMIT ?4",
	[S_TRACE_FAILS_COUNT] = "SELECT COUNT(*) FROM trace_failures WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3",
};

/* Run a (run_id, since) statement and hand each row to add; 0 or -1. */
static int rows(struct query *q, enum stmt_id id, int64_t run_id, int64_t since,
		void (*add)(sqlite3_stmt *st, struct query_trace *out), struct query_trace *out)
{
	sqlite3_stmt *st = stmt(q, id);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, since);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		add(st, out);
	return rows_done(q, st, rc, 0) < 0 ? -1 : 0;
}

static int64_t col0(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, i);
}

static void add_totals(sqlite3_stmt *st, struct query_trace *out)
{
	out->failures += col0(st, 0);
	out->extfrag += col0(st, 1);
	out->fragmenting += col0(st, 2);
}

static void add_raw_failures(sqlite3_stmt *st, struct query_trace *out)
{
	out->failures += col0(st, 0);
}

static void add_raw_extfrag(sqlite3_stmt *st, struct query_trace *out)
{
	out->extfrag += col0(st, 0);
	out->fragmenting += col0(st, 1);
}

static void add_oc(sqlite3_stmt *st, struct query_trace *out)
{
	int64_t k = col0(st, 0), c = col0(st, 1);

	if (k < 0 || c < 0 || c >= QUERY_TRACE_CLASSES)
		return;
	out->by_oc[k >= QUERY_TRACE_ORDERS ? QUERY_TRACE_ORDERS - 1 : k][c] += col0(st, 2);
}

static void add_kmsg(sqlite3_stmt *st, struct query_trace *out)
{
	out->kmsg_failures = col0(st, 0);
	out->kmsg_in_trace = col0(st, 1);
}

int query_trace(struct query *q, int64_t run_id, struct query_trace *out)
{
	sqlite3_stmt *st;
	int64_t rolled = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if (!(st = stmt(q, S_TRACE_NOTE)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (step_err(q, st, rc) < 0)
		return -1;
	if (rc == SQLITE_ROW && col_text(st, 0))
		snprintf(out->note, sizeof out->note, "%s", col_text(st, 0));
	done(st);
	if (!(st = stmt(q, S_TRACE_ROLLED)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	if (one_i64(q, st, &rolled) < 0)
		return -1;
	/* Rollups up to the minute rolled so far, the raw rows from there: every event once. */
	if (rows(q, S_TRACE_TOT_ROLL, run_id, rolled, add_totals, out) < 0 ||
	    rows(q, S_TRACE_TOT_RAW_F, run_id, rolled, add_raw_failures, out) < 0 ||
	    rows(q, S_TRACE_TOT_RAW_X, run_id, rolled, add_raw_extfrag, out) < 0 ||
	    rows(q, S_TRACE_OC_ROLL, run_id, rolled, add_oc, out) < 0 ||
	    rows(q, S_TRACE_OC_RAW, run_id, rolled, add_oc, out) < 0)
		return -1;
	if (!(st = stmt(q, S_TRACE_KMSG)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		add_kmsg(st, out);
	return rows_done(q, st, rc, 0) < 0 ? -1 : 0;
}

int query_trace_buckets(struct query *q, int64_t run_id, int64_t tier, query_trace_bucket_fn fn, void *arg)
{
	sqlite3_stmt *st = stmt(q, S_TRACE_BUCKETS);
	int rc, n = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, tier);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_trace_bucket b = { sqlite3_column_int64(st, 0), col0(st, 1), col0(st, 2), col0(st, 3),
						col0(st, 4) };
		if (row_take(q, st, &n) < 0)
			return -1;
		if (fn && fn(arg, &b))
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}

int query_trace_failures(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int limit,
			 int64_t *total, query_trace_failure_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int rc, n = 0;

	*total = 0;
	if (!(st = stmt(q, S_TRACE_FAILS_COUNT)))
		return -1;
	bind_window(st, run_id, from_ms, to_ms);
	if (one_i64(q, st, total) < 0 || !(st = stmt(q, S_TRACE_FAILS)))
		return -1;
	bind_window(st, run_id, from_ms, to_ms);
	sqlite3_bind_int64(st, 4, limit < 0 ? 0 : limit > QUERY_MAX_ROWS ? QUERY_MAX_ROWS : limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_trace_failure f;

		f.ts_ms = sqlite3_column_int64(st, 0);
		f.comm = (const char *)sqlite3_column_blob(st, 1);   /* a BLOB: bytes, not text */
		f.comm_len = (size_t)sqlite3_column_bytes(st, 1);
		f.pid = col_i64(st, 2);
		f.order = col_i64(st, 3);
		f.gfp_flags = col_text(st, 4);
		f.gfp_mask = col_text(st, 5);
		f.migratetype = col_i64(st, 6);
		f.cls = col_text(st, 7);
		f.nowarn = (int)col0(st, 8);
		f.in_kmsg = (int)col0(st, 9);
		if (row_take(q, st, &n) < 0)
			return -1;
		if (fn && fn(arg, &f))
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}
