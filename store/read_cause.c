/* SPDX-License-Identifier: GPL-2.0-only */
/* read_cause: why failed allocations failed (schema 014); see query.h. */
#include <string.h>

#include "store/reader.h"

static const char *const SQL[S_COUNT] = {
	/* Hour buckets below this are in failure_cause_rollup; rows from it on are still raw only. */
	[S_CAUSE_ROLLED] = "SELECT next_ms FROM rollup_state WHERE run_id = ?1 AND tier = 3600000",
	[S_CAUSE_HOURS] = "SELECT bucket_ms, source, cause, page_order, failures FROM failure_cause_rollup "
			  "WHERE run_id = ?1 AND tier = 3600000 AND bucket_ms < ?2 "
			  "UNION ALL SELECT ts_ms - ts_ms % 3600000, source, cause, min(page_order, 15), COUNT(*) "
			  "FROM failure_cause WHERE run_id = ?1 AND ts_ms >= ?2 GROUP BY 1, 2, 3, 4 ORDER BY 1",
	[S_CAUSE_ROWS] = "SELECT ts_ms, source, comm, pid, page_order, gfp_flags, decided_node, decided_name, free_kb, "
			 "min_kb, largest_order, cause, lag_ms, note FROM failure_cause "
			 "WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 ORDER BY ts_ms DESC LIMIT ?4",
	[S_CAUSE_ROWS_COUNT] = "SELECT COUNT(*) FROM failure_cause WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3",
};

/* A text column, "" for NULL. */
static const char *text0(sqlite3_stmt *st, int i)
{
	const char *s = col_text(st, i);

	return s ? s : "";
}

int query_cause_hours(struct query *q, int64_t run_id, query_cause_hour_fn fn, void *arg)
{
	sqlite3_stmt *st = stmt(q, S_CAUSE_ROLLED);
	int64_t rolled = 0;
	int rc, n = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	if (one_i64(q, st, &rolled) < 0 || !(st = stmt(q, S_CAUSE_HOURS)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, rolled);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_cause_hour h = {
			.hour_ms = sqlite3_column_int64(st, 0), .source = sqlite3_column_int(st, 1),
			.cause = sqlite3_column_int(st, 2), .order = sqlite3_column_int(st, 3),
			.failures = sqlite3_column_int64(st, 4),
		};
		if (row_take(q, st, &n) < 0)
			return -1;
		if (fn && fn(arg, &h) < 0)
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}

int query_cause_rows(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int limit, int64_t *total,
		     query_cause_row_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int rc, n = 0;

	if (total) {
		if (!(st = stmt(q, S_CAUSE_ROWS_COUNT)))
			return -1;
		bind_window(st, run_id, from_ms, to_ms);
		*total = 0;
		if (one_i64(q, st, total) < 0)
			return -1;
	}
	if (limit <= 0)
		return 0;
	if (!(st = stmt(q, S_CAUSE_ROWS)))
		return -1;
	bind_window(st, run_id, from_ms, to_ms);
	sqlite3_bind_int(st, 4, limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_cause_row r = {
			.ts_ms = sqlite3_column_int64(st, 0), .source = sqlite3_column_int(st, 1),
			.comm = sqlite3_column_type(st, 2) == SQLITE_NULL ? NULL : sqlite3_column_blob(st, 2),
			.comm_len = sqlite3_column_bytes(st, 2), .pid = col_i64(st, 3),
			.order = sqlite3_column_int(st, 4), .gfp_flags = text0(st, 5), .node = (int)col_i64(st, 6),
			.zone = text0(st, 7), .free_kb = col_i64(st, 8), .min_kb = col_i64(st, 9),
			.largest_order = (int)col_i64(st, 10), .cause = sqlite3_column_int(st, 11),
			.has_lag = sqlite3_column_type(st, 12) != SQLITE_NULL, .lag_ms = sqlite3_column_int64(st, 12),
			.note = text0(st, 13),
		};
		if (row_take(q, st, &n) < 0)
			return -1;
		if (fn && fn(arg, &r) < 0)
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}
