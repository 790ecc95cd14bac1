/* SPDX-License-Identifier: GPL-2.0-only */
/* retain: deleting raw rows older than the cutoff in bounded slices; see retain.h (store_retain in store.h). */
#include "store/retain.h"

#define RETAIN_SLICE_MS (10 * 60 * 1000)   /* raw history deleted per call: ~600 ticks at 1 s */

static int64_t query_i64(sqlite3 *db, const char *sql, int64_t a, int64_t b, int64_t dflt)
{
	sqlite3_stmt *s;
	int64_t v = dflt;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return dflt;
	sqlite3_bind_int64(s, 1, a);
	sqlite3_bind_int64(s, 2, b);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

static int exec_bind(sqlite3 *db, const char *sql, int64_t a, int64_t b, int64_t c)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return sqlite3_errcode(db);
	sqlite3_bind_int64(s, 1, a);
	sqlite3_bind_int64(s, 2, b);
	sqlite3_bind_int64(s, 3, c);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int64_t retain(sqlite3 *db, struct stmts *p, const struct dims *d, int64_t cutoff_ms)
{
	/* Tables whose key starts (run_id, ts_ms): one range delete each. */
	static const char *const by_ts[] = {
		/* A run's last slow sample stays: the report's orders of interest (task_struct's slab
		 * order, the pageblock order) come from it. */
		"DELETE FROM pagetype_free WHERE run_id = ?1 AND ts_ms < ?2"
		" AND ts_ms < (SELECT max(ts_ms) FROM pagetype_free WHERE run_id = ?1)",
		"DELETE FROM slab WHERE run_id = ?1 AND ts_ms < ?2 AND ts_ms < (SELECT max(ts_ms) FROM slab WHERE run_id = ?1)",
		"DELETE FROM slow_samples WHERE run_id = ?1 AND ts_ms < ?2"
		" AND ts_ms < (SELECT max(ts_ms) FROM slow_samples WHERE run_id = ?1)",
		"DELETE FROM samples WHERE run_id = ?1 AND ts_ms < ?2",
		"DELETE FROM churn_rare WHERE run_id = ?1 AND ts_ms < ?2",
		/* A minute's key goes with the minute's last sample row: a slice may end inside a minute. */
		"DELETE FROM sample_key WHERE run_id = ?1 AND bucket_ms + " STORE_TIER_MINUTE_SQL " <= ?2",
		"DELETE FROM fragment WHERE run_id = ?1 AND ts_ms < ?2",
		/* The trace's rows: their minute/hour rollups (trace_rollup, trace_fail_rollup) stay. */
		"DELETE FROM trace_failures WHERE run_id = ?1 AND ts_ms < ?2",
		"DELETE FROM extfrag WHERE run_id = ?1 AND ts_ms < ?2",
		/* Classified failures: their minute/hour counts (failure_cause_rollup) stay. */
		"DELETE FROM failure_cause WHERE run_id = ?1 AND ts_ms < ?2",
	};
	/* Keyed (run_id, name_id, ts_ms): one range delete per name. */
	static const char *const by_name[] = {
		"DELETE FROM vmstat WHERE run_id = ?1 AND name_id = ?3 AND ts_ms < ?2",
	};
	/* Keyed (run_id, zone_id, ts_ms), change-only: the row in force at the cutoff stays. */
	static const char *const by_zone[] = {
		"DELETE FROM buddy WHERE run_id = ?1 AND zone_id = ?3 AND ts_ms < ?2 AND ts_ms < "
		"(SELECT max(ts_ms) FROM buddy WHERE run_id = ?1 AND zone_id = ?3 AND ts_ms <= ?2)",
		"DELETE FROM atomic_risk WHERE run_id = ?1 AND zone_id = ?3 AND ts_ms < ?2 AND ts_ms < "
		"(SELECT max(ts_ms) FROM atomic_risk WHERE run_id = ?1 AND zone_id = ?3 AND ts_ms <= ?2)",
	};
	sqlite3_stmt *s;
	int64_t run, oldest, upto, rolled, deleted = 0;
	int rc = SQLITE_OK;

	if (sqlite3_prepare_v2(db, "SELECT run_id, min(ts_ms) FROM samples WHERE ts_ms < ?1 GROUP BY run_id"
				       " ORDER BY 2 LIMIT 1", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, cutoff_ms);
	if (sqlite3_step(s) != SQLITE_ROW) {
		sqlite3_finalize(s);
		return 0;
	}
	run = sqlite3_column_int64(s, 0);
	oldest = sqlite3_column_int64(s, 1);
	sqlite3_finalize(s);
	/* A bounded slice per call: the tick that follows never waits on a big delete. */
	upto = oldest + RETAIN_SLICE_MS < cutoff_ms ? oldest + RETAIN_SLICE_MS : cutoff_ms;
	/* Never delete raw rows the minute rollup has not consumed yet. */
	rolled = query_i64(db, "SELECT next_ms FROM rollup_state WHERE run_id = ?1 AND tier = ?2", run, STORE_TIER_MINUTE_MS, 0);
	if (upto > rolled)
		upto = rolled;
	if (upto <= oldest || stmts_step(p, S_BEGIN) != SQLITE_OK)
		return 0;
	for (size_t i = 0; rc == SQLITE_OK && i < sizeof by_ts / sizeof by_ts[0]; i++) {
		rc = exec_bind(db, by_ts[i], run, upto, 0);
		deleted += sqlite3_changes(db);
	}
	for (int id = 0; rc == SQLITE_OK && id < d->nnames; id++)
		for (size_t i = 0; rc == SQLITE_OK && i < sizeof by_name / sizeof by_name[0]; i++) {
			if (!d->names[id].name[0] || d->names[id].src != SRC_VMSTAT)
				continue;
			rc = exec_bind(db, by_name[i], run, upto, id);
			deleted += sqlite3_changes(db);
		}
	for (int id = 0; rc == SQLITE_OK && id < d->nzones; id++)
		for (size_t i = 0; rc == SQLITE_OK && i < sizeof by_zone / sizeof by_zone[0]; i++) {
			rc = exec_bind(db, by_zone[i], run, upto, id);
			deleted += sqlite3_changes(db);
		}
	if (rc != SQLITE_OK || stmts_step(p, S_COMMIT) != SQLITE_OK) {
		stmts_step(p, S_ROLLBACK);
		return -1;
	}
	return deleted;
}
