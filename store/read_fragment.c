/* SPDX-License-Identifier: GPL-2.0-only */
/* read_fragment: the fragmenting load's recipe and holdings (v_fragment, v_fragment_runs); see query.h. */
#include <string.h>

#include "store/reader.h"

#define HELD "(anon_bytes + pipe_bytes + pgtable_bytes + socket_bytes)"
/* Columns of a bucket, in struct query_fragment's order after the bucket key. */
#define BUCKET_COLS "MIN(ts_ms), MAX(ts_ms), COUNT(*), AVG(anon_bytes), AVG(pipe_bytes), AVG(pgtable_bytes), " \
	"AVG(socket_bytes), AVG(files), MAX(" HELD "), MAX(kept_bytes), MAX(cycles), MAX(alloc_failed)"

static const char *const SQL[S_COUNT] = {
	[S_FRAGLOAD_INFO] = "SELECT level, recipe, base_bytes, cap_bytes, keep_cap_bytes FROM fragment_info WHERE run_id = ?1",
	[S_FRAGLOAD_SERIES] = "SELECT (ts_ms - ?2) / ?4 AS bk, " BUCKET_COLS " FROM fragment "
			      "WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 GROUP BY bk ORDER BY bk",
	[S_FRAGLOAD_TOTALS] = "SELECT 0, " BUCKET_COLS " FROM fragment WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3",
};

/* A DB from before schema 10 has no fragment tables: the load simply never ran there. */
static int has_tables(struct query *q)
{
	return query_has_table(q, "fragment_info");
}

int query_fragment_info(struct query *q, int64_t run_id, query_fragment_info_fn fn, void *arg)
{
	sqlite3_stmt *st;
	struct query_fragment_info f;
	int rc, t = has_tables(q);

	if (t <= 0)
		return t;
	if (!(st = stmt(q, S_FRAGLOAD_INFO)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		done(st);
		return 0;
	}
	if (rc != SQLITE_ROW)
		return step_err(q, st, rc);
	f = (struct query_fragment_info){ col_text(st, 0), col_text(st, 1), col_i64(st, 2), col_i64(st, 3),
					  col_i64(st, 4) };
	rc = fn(arg, &f);
	done(st);
	return rc ? -1 : 1;
}

static void from_row(sqlite3_stmt *st, struct query_fragment *f)
{
	f->ts_ms = col_i64(st, 1);
	f->last_ms = col_i64(st, 2);
	f->rows = sqlite3_column_int64(st, 3);
	f->anon = col_real(st, 4);
	f->pipe = col_real(st, 5);
	f->pgtable = col_real(st, 6);
	f->socket = col_real(st, 7);
	f->files = col_real(st, 8);
	f->held_max = col_i64(st, 9);
	f->kept_max = col_i64(st, 10);
	f->cycles = col_i64(st, 11);
	f->alloc_failed = col_i64(st, 12);
}

int query_fragment_series(struct query *q, int64_t run_id, struct query_range *rg, query_fragment_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int64_t tier;
	int rc, r, n = 0, t = has_tables(q);

	if (t <= 0)
		return t;
	/* The tier is the samples': the load's rows are raw only, read at the bucket width it gives. */
	if ((r = range_series(q, run_id, rg, &tier)) <= 0)
		return r;
	if (!(st = stmt(q, S_FRAGLOAD_SERIES)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, rg->from_ms);
	sqlite3_bind_int64(st, 3, rg->to_ms);
	sqlite3_bind_int64(st, 4, rg->bucket_ms);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_fragment f;
		from_row(st, &f);
		if (row_take(q, st, &n) < 0)
			return -1;
		if (fn(arg, &f) != 0)
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}

int query_fragment_totals(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, struct query_fragment *out)
{
	sqlite3_stmt *st;
	int rc, t = has_tables(q);

	memset(out, 0, sizeof *out);
	if (t <= 0)
		return t;
	if (!(st = stmt(q, S_FRAGLOAD_TOTALS)))
		return -1;
	bind_window(st, run_id, from_ms, to_ms);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return step_err(q, st, rc);
	from_row(st, out);
	done(st);
	return out->rows > 0 ? 1 : 0;
}
