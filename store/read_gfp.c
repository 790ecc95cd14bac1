/* SPDX-License-Identifier: GPL-2.0-only */
/* read_gfp: the fpusoak_gfp module's model checks (v_model_check); see query.h. */
#include "store/reader.h"

static const char *const SQL[S_COUNT] = {
	[S_MODEL_CHECKS] = "SELECT page_order, mode, "
			   "SUM(predicted_ok = 0 AND actual_ok = 0), SUM(predicted_ok = 0 AND actual_ok != 0), "
			   "SUM(predicted_ok != 0 AND actual_ok = 0), SUM(predicted_ok != 0 AND actual_ok != 0), "
			   "MIN(CASE WHEN (predicted_ok != 0) != (actual_ok != 0) THEN abs(margin_pages) END), "
			   "MAX(CASE WHEN (predicted_ok != 0) != (actual_ok != 0) THEN abs(margin_pages) END) "
			   "FROM model_check WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 "
			   "GROUP BY page_order, mode ORDER BY page_order, mode",
};

int query_model_checks(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, query_model_check_fn fn,
		       void *arg)
{
	sqlite3_stmt *st = stmt(q, S_MODEL_CHECKS);
	int rc, n = 0;

	if (!st)
		return -1;
	bind_window(st, run_id, from_ms, to_ms);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_model_checks c = {
			.order = sqlite3_column_int(st, 0),
			.mode = sqlite3_column_int(st, 1),
			.n = { { sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3) },
			       { sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5) } },
			.min_margin_wrong = col_i64(st, 6),
			.max_margin_wrong = col_i64(st, 7),
		};
		n++;
		if (fn(arg, &c) != 0)
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}
