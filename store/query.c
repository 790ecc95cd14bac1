/* query: read-only SQL for the web and report; see query.h. */
#include "store/query.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store/fields.h"

#define BUSY_TIMEOUT_MS 200   /* a page waits this long for a WAL reset, then fails */
#define QUERY_MIN_SCHEMA 6     /* change-only zone rows keyed (run, zone, ts) (schema/006_change_only.sql) */

/* Columns of a run, shared by the listing and the single-run query. */
#define RUN_COLS \
	"r.run_id, r.label, r.end_reason, r.version, r.boot_id, r.hostname, r.kernel_release, " \
	"r.kernel_version, r.cmdline, r.hypervisor, r.guest_type, r.cpu_model, r.fpu_features, " \
	"r.xstate_detail, r.config, r.started_ms, r.ended_ms, r.pid, " \
	"r.xstate_bytes, r.mem_total_kb, r.page_size, " \
	"r.ticks, " \
	"(SELECT min(t) FROM (SELECT MIN(ts_ms) AS t FROM samples s WHERE s.run_id = r.run_id UNION ALL " \
	" SELECT MIN(bucket_ms) FROM tick_rollup u WHERE u.run_id = r.run_id AND u.tier = 60000)), " \
	"coalesce((SELECT MAX(ts_ms) FROM samples s WHERE s.run_id = r.run_id), " \
	" (SELECT MAX(bucket_ms) + 59999 FROM tick_rollup u WHERE u.run_id = r.run_id AND u.tier = 60000)) "

#define WIDE_COLS \
	"f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, " \
	"h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, h10, h11, h12, h13, h14, h15, " \
	"u0, u1, u2, u3, u4, u5, u6, u7, u8, u9, u10, u11, u12, u13, u14, u15"
#define ORDER_COLS \
	"b.o0, b.o1, b.o2, b.o3, b.o4, b.o5, b.o6, b.o7, b.o8, b.o9, b.o10, b.o11, b.o12, b.o13, b.o14, b.o15"
#define ORDER_COLS_P \
	"p.o0, p.o1, p.o2, p.o3, p.o4, p.o5, p.o6, p.o7, p.o8, p.o9, p.o10, p.o11, p.o12, p.o13, p.o14, p.o15"
enum stmt_id {
	S_HAS_TABLE,
	S_USER_VERSION,
	S_LATEST_RUN,
	S_RUNS,
	S_RUN,
	S_FIRST_SAMPLE,
	S_LAST_SAMPLE,
	S_PREV_SAMPLE,
	S_INTERVAL,
	S_SAMPLE_BUCKETS,
	S_BUDDY_LATEST,
	S_NAME_ID,
	S_MEMINFO_SERIES,
	S_VMSTAT_BEFORE,
	S_VMSTAT_FIRST,
	S_VMSTAT_BUCKETS,
	S_ROLLUP_FIRST,
	S_ROLLUP_LAST,
	S_FAILURES,
	S_FAILURES_COUNT,
	S_TASK_SLAB,
	S_PAGEBLOCK,
	S_FPU_KIND,
	S_FRAG_RAW,
	S_HEAD_MINUTES,
	S_CHURN_SERIES,
	S_CHURN_TOTALS,
	S_PROBES,
	S_ATOMIC_SUMMARY,
	S_ATOMIC_SERIES,
	S_PAGETYPE_LATEST,
	S_SLAB_LATEST,
	S_FAILURE_TIMES,
	S_MEMINFO_ROLLUP,
	S_BUDDY_RAW,
	S_TICK_TIMES,
	S_VMHOT_BEFORE,
	S_VMHOT_FIRST,
	S_VMHOT_BUCKETS,
	S_ROLLUP_GRID,
	S_ROLLUP_GRID_FREE,
	S_ZONES,
	S_CHURN_ROLLUP,
	S_CHURN_ROLLED,
	S_ROLLED_UPTO,
	S_ATOMIC_ROLLED,
	S_ATOMIC_ROLLUP_SERIES,
	S_ROLLUP_MAXN,
	S_COUNT
};

#define X_CASE(i, name, col) " WHEN " #i " THEN " #col
#define X_CASE_SUM(i, name, col) " WHEN " #i " THEN " #col "_sum"
#define CHURN_RSUMS "SUM(spawned_sum), SUM(spawn_failed_eagain_sum), SUM(spawn_failed_enomem_sum), " \
	"SUM(spawn_failed_other_sum), SUM(exited_sum), SUM(killed_sigkill_sum), SUM(killed_sigsegv_sum), " \
	"SUM(killed_sigill_sum), SUM(killed_other_sum), SUM(oom_killed_sum), SUM(exited_error_sum)"

static const char *const stmt_sql[S_COUNT] = {
	[S_HAS_TABLE] = "SELECT 1 FROM sqlite_master WHERE name = ?1 AND type IN ('table', 'view')",
	[S_USER_VERSION] = "PRAGMA user_version",
	[S_LATEST_RUN] = "SELECT MAX(run_id) FROM runs",
	[S_RUNS] = "SELECT " RUN_COLS "FROM runs r ORDER BY r.run_id DESC LIMIT ?1",
	[S_RUN] = "SELECT " RUN_COLS "FROM runs r WHERE r.run_id = ?1",
	[S_FIRST_SAMPLE] = "SELECT ts_ms FROM samples WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 "
			   "ORDER BY ts_ms LIMIT 1",
	[S_LAST_SAMPLE] = "SELECT ts_ms FROM samples WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 "
			  "ORDER BY ts_ms DESC LIMIT 1",
	[S_PREV_SAMPLE] = "SELECT ts_ms FROM samples WHERE run_id = ?1 AND ts_ms < ?2 "
			  "ORDER BY ts_ms DESC LIMIT 1",
	/* The interval from the first 100 gaps: cheap however long the window. */
	[S_INTERVAL] = "SELECT COUNT(*), MIN(ts_ms), MAX(ts_ms) FROM (SELECT ts_ms FROM samples "
		       "WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 ORDER BY ts_ms LIMIT 101)",
	[S_SAMPLE_BUCKETS] = "SELECT (ts_ms - ?2) / ?4 AS bk, MAX(ts_ms) FROM samples "
			     "WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 GROUP BY bk ORDER BY bk",
	/* Each zone's row in force now (schema 006 stores a zone's row when it changes); a gap row hides it. */
	[S_BUDDY_LATEST] = "SELECT (SELECT MAX(ts_ms) FROM samples WHERE run_id = ?1), z.node, z.name, b.norders, "
			   ORDER_COLS " FROM zones z CROSS JOIN buddy b ON b.run_id = ?1 AND b.zone_id = z.zone_id "
			   "AND b.ts_ms = (SELECT MAX(x.ts_ms) FROM buddy x WHERE x.run_id = ?1 AND x.zone_id = z.zone_id) "
			   "WHERE b.norders > 0 ORDER BY z.node, z.zone_id",
	[S_NAME_ID] = "SELECT name_id FROM names WHERE source = ?1 AND name = ?2",
	/* ?2 is the field's index in store/fields.h: one statement serves every column. */
	[S_MEMINFO_SERIES] = "SELECT (ts_ms - ?3) / ?5 AS bk, MIN(ts_ms), AVG(CASE ?2" STORE_MEMINFO_FIELDS(X_CASE)
			     " END) FROM samples WHERE run_id = ?1 AND ts_ms BETWEEN ?3 AND ?4 GROUP BY bk ORDER BY bk",
	/* One zone's rows from the one in force at ?3 to ?4, in key order (buddy_raw_series fills the ticks). */
	[S_BUDDY_RAW] = "SELECT ts_ms, norders, o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11, o12, o13, o14, o15 "
			"FROM buddy WHERE run_id = ?1 AND zone_id = ?2 AND ts_ms BETWEEN coalesce((SELECT MAX(ts_ms) "
			"FROM buddy WHERE run_id = ?1 AND zone_id = ?2 AND ts_ms <= ?3), ?3) AND ?4 ORDER BY ts_ms",
	[S_TICK_TIMES] = "SELECT ts_ms FROM samples WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 ORDER BY ts_ms",
	/* The vmstat counters kept as samples columns (?2: index in STORE_VMSTAT_HOT), as the three below. */
	[S_VMHOT_BEFORE] = "SELECT ts_ms, v FROM (SELECT ts_ms, CASE ?2" STORE_VMSTAT_HOT(X_CASE) " END AS v FROM samples "
			   "WHERE run_id = ?1 AND ts_ms <= ?3 ORDER BY ts_ms DESC LIMIT 1) WHERE v IS NOT NULL",
	[S_VMHOT_FIRST] = "SELECT ts_ms, v FROM (SELECT ts_ms, CASE ?2" STORE_VMSTAT_HOT(X_CASE) " END AS v FROM samples "
			  "WHERE run_id = ?1 AND ts_ms BETWEEN ?3 AND ?4 ORDER BY ts_ms LIMIT 1) WHERE v IS NOT NULL",
	[S_VMHOT_BUCKETS] = "SELECT (ts_ms - ?3) / ?5 AS bk, MAX(ts_ms), CASE ?2" STORE_VMSTAT_HOT(X_CASE) " END AS v "
			    "FROM samples WHERE run_id = ?1 AND ts_ms BETWEEN ?3 AND ?4 AND v IS NOT NULL "
			    "GROUP BY bk ORDER BY bk",
	/* One index range per zone (the IN list makes SQLite seek, not scan the run's whole tier); orders in columns. */
	[S_ROLLUP_GRID] = "SELECT zone_id, bucket_ms, n, norders, " WIDE_COLS " FROM buddy_wide_rollup "
			  "WHERE run_id = ?1 AND tier = ?2 AND zone_id IN (SELECT zone_id FROM zones) AND bucket_ms BETWEEN ?3 AND ?4",
	/* The buddy chart needs only the free sums: a third of the columns. */
	[S_ROLLUP_GRID_FREE] = "SELECT zone_id, bucket_ms, n, norders, f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, "
			       "f12, f13, f14, f15 FROM buddy_wide_rollup WHERE run_id = ?1 AND tier = ?2 AND zone_id IN "
			       "(SELECT zone_id FROM zones) AND bucket_ms BETWEEN ?3 AND ?4",
	[S_ZONES] = "SELECT zone_id, node, name FROM zones ORDER BY node, zone_id",
	[S_MEMINFO_ROLLUP] = "SELECT (bucket_ms - ?3) / ?5 AS bk, MIN(bucket_ms), SUM(CASE ?2" STORE_MEMINFO_FIELDS(X_CASE_SUM)
			     " END) * 1.0 / SUM(n) FROM tick_rollup WHERE run_id = ?1 AND tier = ?6 AND bucket_ms BETWEEN ?3 AND ?4 "
			     "GROUP BY bk ORDER BY bk",
	[S_VMSTAT_BEFORE] = "SELECT ts_ms, value FROM vmstat WHERE run_id = ?1 AND name_id = ?2 "
			    "AND ts_ms <= ?3 ORDER BY ts_ms DESC LIMIT 1",
	[S_VMSTAT_FIRST] = "SELECT ts_ms, value FROM vmstat WHERE run_id = ?1 AND name_id = ?2 "
			   "AND ts_ms BETWEEN ?3 AND ?4 ORDER BY ts_ms LIMIT 1",
	/* The rollup extent, on one zone's order-0 rows so it is an index seek. */
	[S_ROLLUP_FIRST] = "SELECT bucket_ms FROM buddy_rollup WHERE run_id = ?1 AND tier = 60000 AND zone_id = "
			   "(SELECT zone_id FROM buddy_rollup WHERE run_id = ?1 AND tier = 60000 LIMIT 1) AND "
			   "page_order = 0 AND bucket_ms BETWEEN ?2 AND ?3 ORDER BY bucket_ms LIMIT 1",
	[S_ROLLUP_LAST] = "SELECT bucket_ms FROM buddy_rollup WHERE run_id = ?1 AND tier = 60000 AND zone_id = "
			  "(SELECT zone_id FROM buddy_rollup WHERE run_id = ?1 AND tier = 60000 LIMIT 1) AND "
			  "page_order = 0 AND bucket_ms BETWEEN ?2 AND ?3 ORDER BY bucket_ms DESC LIMIT 1",
	[S_FAILURES] = "SELECT ts_ms, comm, pid, page_order, gfp_flags, "
		       "CASE WHEN gfp_mask IS NULL THEN NULL ELSE printf('0x%x', gfp_mask) END FROM kmsg_events "
		       "WHERE run_id = ?1 AND kind = 'alloc_fail' AND ts_ms BETWEEN ?2 AND ?3 "
		       "ORDER BY ts_ms DESC LIMIT ?4",
	[S_FAILURES_COUNT] = "SELECT COUNT(*) FROM kmsg_events WHERE run_id = ?1 AND kind = 'alloc_fail' "
			     "AND ts_ms BETWEEN ?2 AND ?3",
	[S_TASK_SLAB] = "SELECT ts_ms, slab_order, objsize FROM v_slabinfo WHERE run_id = ?1 AND name = 'task_struct' "
			"ORDER BY ts_ms DESC LIMIT 1",
	[S_PAGEBLOCK] = "SELECT pageblock_order FROM slow_samples WHERE run_id = ?1 AND pageblock_order IS NOT NULL "
			"ORDER BY ts_ms DESC LIMIT 1",
	[S_FPU_KIND] = "SELECT fpu_kind FROM churn_info WHERE run_id = ?1",
	/* The kernel's indices come from v_frag_x1000 (the one copy of the formula); the worst value per bucket. */
	[S_FRAG_RAW] = "SELECT (ts_ms - ?2) / ?4 AS bk, MIN(ts_ms), node, zone, zone_id, page_order, MAX(unusable_x1000), "
		       "MAX(fragmentation_x1000), AVG(headroom_blocks) FROM v_frag_x1000 "
		       "WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 "
		       "GROUP BY bk, zone_id, page_order ORDER BY bk, node, zone_id, page_order",
	[S_HEAD_MINUTES] = "SELECT r.bucket_ms, z.node, z.name, CAST(r.head_sum AS REAL) / r.n, r.head_min, r.head_max "
			   "FROM buddy_rollup r JOIN zones z ON z.zone_id = r.zone_id WHERE r.run_id = ?1 AND r.tier = ?5 "
			   "AND r.zone_id IN (SELECT zone_id FROM zones) AND r.page_order = ?2 AND r.bucket_ms BETWEEN ?3 AND ?4 "
			   "ORDER BY z.node, z.name, r.bucket_ms",
	[S_CHURN_SERIES] = "SELECT (ts_ms - ?2) / ?4 AS bk, MIN(ts_ms), MAX(ts_ms), COUNT(*), AVG(population), MAX(population), "
			   "SUM(spawned), SUM(spawn_failed_eagain), SUM(spawn_failed_enomem), SUM(spawn_failed_other), "
			   "SUM(exited), SUM(killed_sigkill), SUM(killed_sigsegv), SUM(killed_sigill), SUM(killed_other), "
			   "SUM(oom_killed), SUM(exited_error) FROM samples WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 "
			   "AND population IS NOT NULL GROUP BY bk ORDER BY bk",
	/* Rollup rows: population mean weighted by the churn ticks of each bucket. */
	[S_CHURN_ROLLUP] = "SELECT (bucket_ms - ?2) / ?4 AS bk, MIN(bucket_ms), MAX(bucket_ms) + ?5 - 1, SUM(churn_n), "
			   "SUM(population_sum) * 1.0 / SUM(churn_n), MAX(population_max), " CHURN_RSUMS
			   " FROM tick_rollup WHERE run_id = ?1 AND tier = ?5 AND bucket_ms BETWEEN ?2 AND ?3 AND churn_n > 0 "
			   "GROUP BY bk ORDER BY bk",
	/* Totals over whole minutes [?2, ?3): the same columns as S_CHURN_TOTALS. */
	[S_CHURN_ROLLED] = "SELECT 0, MIN(bucket_ms), MAX(bucket_ms), SUM(churn_n), SUM(population_sum) * 1.0 / SUM(churn_n), "
			   "MAX(population_max), " CHURN_RSUMS " FROM tick_rollup WHERE run_id = ?1 AND tier = ?4 "
			   "AND bucket_ms >= ?2 AND bucket_ms < ?3 AND churn_n > 0",
	/* Ticks in a full minute: the sample interval where retention left no raw ticks to measure it. */
	[S_ROLLUP_MAXN] = "SELECT MAX(n) FROM tick_rollup WHERE run_id = ?1 AND tier = 60000 AND bucket_ms BETWEEN ?2 AND ?3",
	[S_ROLLED_UPTO] = "SELECT next_ms FROM rollup_state WHERE run_id = ?1 AND tier = ?2",
	[S_ATOMIC_ROLLED] = "SELECT z.node, z.name, SUM(r.atomic_n), SUM(r.atomic_only_n), SUM(r.atomic_fail_n), "
			    "SUM(r.kernel_fail_n), MIN(r.margin_min), COUNT(*) - COUNT(r.atomic_n) FROM buddy_rollup r "
			    "JOIN zones z ON z.zone_id = r.zone_id WHERE r.run_id = ?1 AND r.tier = ?5 AND r.zone_id IN "
			    "(SELECT zone_id FROM zones) AND r.page_order = ?2 AND r.bucket_ms >= ?3 AND r.bucket_ms < ?4 "
			    "GROUP BY r.zone_id ORDER BY z.node, z.name",
	/* Key order (zone, bucket) within each zone's range: summed per chart bucket in C (atomic_rollup_series). */
	[S_ATOMIC_ROLLUP_SERIES] = "SELECT zone_id, bucket_ms, atomic_n, atomic_only_n FROM buddy_rollup WHERE run_id = ?1 "
				   "AND tier = ?2 AND zone_id IN (SELECT zone_id FROM zones) AND page_order = ?3 "
				   "AND bucket_ms BETWEEN ?4 AND ?5 AND atomic_n > 0",
	[S_CHURN_TOTALS] = "SELECT 0, MIN(ts_ms), MAX(ts_ms), COUNT(*), AVG(population), MAX(population), "
			   "SUM(spawned), SUM(spawn_failed_eagain), SUM(spawn_failed_enomem), SUM(spawn_failed_other), "
			   "SUM(exited), SUM(killed_sigkill), SUM(killed_sigsegv), SUM(killed_sigill), SUM(killed_other), "
			   "SUM(oom_killed), SUM(exited_error) FROM samples WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 "
			   "AND population IS NOT NULL",
	[S_PROBES] = "SELECT ts_ms, kind, result, stop_reason, duration_ms, detail FROM probes "
		     "WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 AND (?4 IS NULL OR kind = ?4) ORDER BY ts_ms LIMIT ?5",
	/* v_atomic_risk holds the model's per-order verdicts and margins (one copy of those formulas). */
	[S_ATOMIC_SUMMARY] = "SELECT node, zone, COUNT(*), SUM(atomic_ok = 0 AND kernel_ok = 1), SUM(atomic_ok = 0), "
			     "SUM(kernel_ok = 0), MIN(margin_pages) FROM v_atomic_risk "
			     "WHERE run_id = ?1 AND page_order = ?2 AND ts_ms BETWEEN ?3 AND ?4 GROUP BY node, zone "
			     "ORDER BY node, zone",
	[S_ATOMIC_SERIES] = "SELECT (ts_ms - ?2) / ?4 AS bk, MIN(ts_ms), node, zone, AVG(atomic_ok = 0 AND kernel_ok = 1) "
			    "FROM v_atomic_risk WHERE run_id = ?1 AND page_order = ?5 AND ts_ms BETWEEN ?2 AND ?3 "
			    "GROUP BY bk, node, zone ORDER BY bk, node, zone",
	[S_PAGETYPE_LATEST] = "SELECT p.ts_ms, z.node, z.name, n.name, p.norders, p.capped_mask, p.blocks, s.pageblock_order, "
			      ORDER_COLS_P " FROM pagetype_free p JOIN zones z ON z.zone_id = p.zone_id "
			      "JOIN names n ON n.name_id = p.type_id "
			      "LEFT JOIN slow_samples s ON s.run_id = p.run_id AND s.ts_ms = p.ts_ms "
			      "WHERE p.run_id = ?1 AND p.ts_ms = (SELECT MAX(ts_ms) FROM pagetype_free WHERE run_id = ?1) "
			      "ORDER BY z.node, p.zone_id, p.type_id",
	[S_SLAB_LATEST] = "SELECT ts_ms, name, active_objs, num_objs, objsize, objperslab, pagesperslab, slab_order "
			  "FROM v_slabinfo WHERE run_id = ?1 AND ts_ms = (SELECT MAX(ts_ms) FROM slab WHERE run_id = ?1) "
			  "ORDER BY name",
	[S_FAILURE_TIMES] = "SELECT ts_ms, page_order, gfp_flags FROM kmsg_events "
			    "WHERE run_id = ?1 AND kind = 'alloc_fail' AND ts_ms BETWEEN ?2 AND ?3 "
			    "ORDER BY ts_ms DESC LIMIT ?4",
	/* SQLite takes a bare column from the row that holds MAX(): the bucket's last value. */
	[S_VMSTAT_BUCKETS] = "SELECT (ts_ms - ?3) / ?5 AS bk, MAX(ts_ms), value FROM vmstat "
			     "WHERE run_id = ?1 AND name_id = ?2 AND ts_ms BETWEEN ?3 AND ?4 "
			     "GROUP BY bk ORDER BY bk",
};

struct query {
	sqlite3 *db;
	int has_rollup;            /* schema 003: buddy_rollup exists */
	sqlite3_stmt *st[S_COUNT];
	char err[256];
};

static void set_err(struct query *q, const char *what)
{
	snprintf(q->err, sizeof q->err, "%s: %s", what, q->db ? sqlite3_errmsg(q->db) : "no database");
}

/* The cached statement id, prepared on first use; NULL with q->err set. */
static sqlite3_stmt *stmt(struct query *q, enum stmt_id id)
{
	if (!q->st[id] &&
	    sqlite3_prepare_v3(q->db, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT, &q->st[id], NULL) != SQLITE_OK) {
		set_err(q, "prepare");
		q->st[id] = NULL;
	}
	return q->st[id];
}

/* Reset after use, so the statement holds no read transaction open between requests. */
static void done(sqlite3_stmt *st)
{
	if (st) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
}

static int step_err(struct query *q, sqlite3_stmt *st, int rc)
{
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		set_err(q, "step");
		done(st);
		return -1;
	}
	return 0;
}

static int row_cap(struct query *q, int n)
{
	if (n >= QUERY_MAX_ROWS) {
		snprintf(q->err, sizeof q->err, "more than %d rows", QUERY_MAX_ROWS);
		return -1;
	}
	return 0;
}

/* Count one more row against the cap; -1 (statement reset) past QUERY_MAX_ROWS. */
static int row_take(struct query *q, sqlite3_stmt *st, int *n)
{
	if (row_cap(q, *n) < 0) {
		done(st);
		return -1;
	}
	(*n)++;
	return 0;
}

/* End of a row loop: rows delivered, or -1 if the last step failed. */
static int rows_done(struct query *q, sqlite3_stmt *st, int rc, int n)
{
	if (step_err(q, st, rc) < 0)
		return -1;
	done(st);
	return n;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

static int64_t col_i64(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

struct query *query_open(const char *db_path, char *err, size_t errlen)
{
	struct query *q = calloc(1, sizeof *q);
	int r;

	if (!q) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* NOMUTEX: the caller keeps a handle on one thread at a time; SQLite's own locking is not needed. */
	if (sqlite3_open_v2(db_path, &q->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "open %s read-only: %s", db_path,
			 q->db ? sqlite3_errmsg(q->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(q->db, BUSY_TIMEOUT_MS);
	sqlite3_exec(q->db, "PRAGMA query_only = 1", NULL, NULL, NULL);
	r = query_has_table(q, "runs");
	if (r <= 0) {
		snprintf(err, errlen, "%s: %s", db_path, r < 0 ? q->err : "not an fpusoakd database (no runs table)");
		goto fail;
	}
	if ((q->has_rollup = query_has_table(q, "buddy_rollup")) < 0) {
		snprintf(err, errlen, "%s: %s", db_path, q->err);
		goto fail;
	}
	/* Read-only handles cannot migrate: an older DB is upgraded by the daemon's writer (store_open). */
	if ((r = query_schema_version(q)) < QUERY_MIN_SCHEMA) {
		snprintf(err, errlen, "%s: schema version %d is older than this fpusoakd reads (%d); run"
			 " 'fpusoakd --db %s --duration 1s --workers 0 --listen none' once to upgrade it", db_path, r,
			 QUERY_MIN_SCHEMA, db_path);
		goto fail;
	}
	return q;
fail:
	query_close(q);
	return NULL;
}

void query_close(struct query *q)
{
	if (!q)
		return;
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(q->st[i]);
	sqlite3_close(q->db);
	free(q);
}

const char *query_errmsg(const struct query *q)
{
	return q && q->err[0] ? q->err : "no error";
}

int query_has_table(struct query *q, const char *name)
{
	sqlite3_stmt *st = stmt(q, S_HAS_TABLE);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (step_err(q, st, rc) < 0)
		return -1;
	done(st);
	return rc == SQLITE_ROW;
}

int query_schema_version(struct query *q)
{
	sqlite3_stmt *st = stmt(q, S_USER_VERSION);
	int rc, v = -1;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (step_err(q, st, rc) < 0)
		return -1;
	if (rc == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	done(st);
	return v;
}

int query_latest_run(struct query *q, int64_t *run_id)
{
	sqlite3_stmt *st = stmt(q, S_LATEST_RUN);
	int rc, found = 0;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (step_err(q, st, rc) < 0)
		return -1;
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*run_id = sqlite3_column_int64(st, 0);
		found = 1;
	}
	done(st);
	return found;
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
	r->first_sample_ms = col_i64(st, 22);
	r->last_sample_ms = col_i64(st, 23);
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
	sqlite3_stmt *st = stmt(q, S_RUNS);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, (int64_t)QUERY_MAX_RUNS + 1);
	return emit_runs(q, st, QUERY_MAX_RUNS, fn, arg);
}

int query_run(struct query *q, int64_t run_id, query_run_fn fn, void *arg)
{
	sqlite3_stmt *st = stmt(q, S_RUN);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	return emit_runs(q, st, 1, fn, arg);
}

/* One int64 from a one-row statement already bound: 1 with *v, 0 if no row or NULL, -1. */
static int one_i64(struct query *q, sqlite3_stmt *st, int64_t *v)
{
	int rc = sqlite3_step(st), found = 0;

	if (step_err(q, st, rc) < 0)
		return -1;
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*v = sqlite3_column_int64(st, 0);
		found = 1;
	}
	done(st);
	return found;
}

/* One bound of the run's data in [lo, hi] from a statement taking (run, lo, hi): 1 with *v, 0, -1. */
static int bound(struct query *q, enum stmt_id id, int64_t run_id, int64_t lo, int64_t hi, int64_t *v)
{
	sqlite3_stmt *st = stmt(q, id);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	return one_i64(q, st, v);
}

/*
 * Resolve rg against the run's data: from/to become the first and last
 * sample inside the bounds (raw ticks, or minute rollups where retention
 * deleted the raw rows), bucket_ms the bucket width.  *raw_first is the
 * first raw tick in the window, *rollup_first the first minute rollup (-1
 * if none).  1 when the window holds data,
 * 0 when it holds none, -1 on error.
 */
static int resolve_range(struct query *q, int64_t run_id, struct query_range *rg, int64_t *raw_first,
			 int64_t *rollup_first)
{
	int64_t lo = rg->from_ms < 0 ? 0 : rg->from_ms;
	int64_t hi = rg->to_ms < 0 ? INT64_MAX : rg->to_ms;
	int64_t first = -1, last = -1, rfirst, rlast, n, span, bucket;
	sqlite3_stmt *st;
	int r;

	rg->bucket_ms = 0;
	rg->interval_ms = 0;
	*raw_first = -1;
	*rollup_first = -1;
	if (rg->max_points < 1) {
		snprintf(q->err, sizeof q->err, "max_points must be >= 1");
		return -1;
	}
	if (lo > hi)
		return 0;
	if ((r = bound(q, S_FIRST_SAMPLE, run_id, lo, hi, &first)) < 0 ||
	    (r && bound(q, S_LAST_SAMPLE, run_id, lo, hi, &last) < 0))
		return -1;
	*raw_first = first;
	if (q->has_rollup) {
		if ((r = bound(q, S_ROLLUP_FIRST, run_id, lo, hi, &rfirst)) < 0 ||
		    (r && bound(q, S_ROLLUP_LAST, run_id, lo, hi, &rlast) < 0))
			return -1;
		if (r)
			*rollup_first = rfirst;
		if (r && (first < 0 || rfirst < first))
			first = rfirst;
		if (r && rlast > last)
			last = rlast;
	}
	if (first < 0)
		return 0;
	if (*raw_first >= 0) {
		if (!(st = stmt(q, S_INTERVAL)))
			return -1;
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, *raw_first);
		sqlite3_bind_int64(st, 3, last);
		r = sqlite3_step(st);
		if (step_err(q, st, r) < 0)
			return -1;
		n = sqlite3_column_int64(st, 0);
		rg->interval_ms = n >= 2 ? (sqlite3_column_int64(st, 2) - sqlite3_column_int64(st, 1) + n - 2) / (n - 1) : 0;
		done(st);
	}
	if (!rg->interval_ms && *rollup_first >= 0) {
		int64_t maxn = 0;
		if ((r = bound(q, S_ROLLUP_MAXN, run_id, first, last, &maxn)) < 0)
			return -1;
		if (r && maxn > 0)
			rg->interval_ms = 60000 / maxn;
	}
	span = last - first + 1;
	bucket = span / rg->max_points + (span % rg->max_points != 0);
	/* A bucket narrower than the sample interval would only add empty buckets. */
	if (bucket < rg->interval_ms)
		bucket = rg->interval_ms;
	rg->from_ms = first;
	rg->to_ms = last;
	rg->bucket_ms = bucket < 1 ? 1 : bucket;
	return 1;
}

int query_buddy_latest(struct query *q, int64_t run_id, struct buddyinfo *out, int64_t *ts_ms)
{
	sqlite3_stmt *st = stmt(q, S_BUDDY_LATEST);
	int rc;

	if (!st)
		return -1;
	memset(out, 0, sizeof *out);
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct buddy_zone *z;
		const char *name = col_text(st, 2);
		int norders = sqlite3_column_int(st, 3);

		if (out->nzones == BUDDY_MAX_ZONES || !name || strlen(name) >= ZONE_NAME_MAX ||
		    norders < 1 || norders > BUDDY_MAX_ORDER || (out->nzones && norders != out->norders)) {
			snprintf(q->err, sizeof q->err, "buddy snapshot of run %lld does not fit struct buddyinfo",
				 (long long)run_id);
			done(st);
			return -1;
		}
		z = &out->z[out->nzones++];
		*ts_ms = sqlite3_column_int64(st, 0);
		z->node = sqlite3_column_int(st, 1);
		memcpy(z->zone, name, strlen(name) + 1);
		out->norders = norders;
		for (int k = 0; k < norders; k++)
			z->free[k] = (uint64_t)sqlite3_column_int64(st, 4 + k);
	}
	if (step_err(q, st, rc) < 0)
		return -1;
	done(st);
	return out->nzones > 0;
}

/*
 * The tier a series reads (buddy, indices, meminfo, churn, atomic risk): raw
 * ticks for windows under 6 hours that raw rows cover; else minute rollups,
 * or hour rollups once buckets are 5 minutes or wider.  The newest partial
 * minute (hour) is not rolled up yet, so a rollup-tier chart ends up to a
 * bucket early.  A 30-day chart then reads ~720 rows per zone instead of
 * 2.6 million ticks.
 */
static int64_t buddy_tier(const struct query_range *rg, int64_t raw_first, int64_t rollup_first)
{
	int raw_missing = raw_first < 0 || raw_first > rg->from_ms + 60000;

	if (rollup_first < 0)
		return 0;   /* no rollup in the window (none yet, or a schema without them) */
	/* Under 6 hours the raw ticks are cheap and give buckets aligned to the window, not the clock. */
	if (!raw_missing && rg->to_ms - rg->from_ms < 6 * 3600000LL)
		return 0;
	/* From 5-minute buckets on (windows of ~3.5 days at 1,000 points) hours are fine enough for a
	 * chart and read 60x fewer rows: a 30-day chart reads 720 per series instead of 43,200. */
	if (rg->bucket_ms >= 300000)
		return 3600000;
	/* 6 hours and more: at most a point a minute (max_points is a bound), not 260,000 raw rows a day. */
	return 60000;
}

#define RAW_MAX_ZONES 64

/* One zone's sums over the bucket being read. */
struct raw_zone {
	int64_t zone_id, first;
	int node, norders;
	char name[ZONE_NAME_MAX];
	int64_t n[BUDDY_MAX_ORDER];
	double sum[BUDDY_MAX_ORDER];
};

/* Hand the bucket's zones to fn in (node, zone_id) order (the zones table's order) and empty them; 0 or -1. */
static int raw_flush(struct query *q, struct raw_zone *z, int nz, int *n, query_buddy_fn fn, void *arg)
{
	for (int i = 0; i < nz; i++) {
		struct query_buddy_point p;
		if (z[i].first < 0)
			continue;
		if (row_cap(q, *n) < 0)
			return -1;
		p.ts_ms = z[i].first;
		p.node = z[i].node;
		p.zone = z[i].name;
		p.norders = z[i].norders < 1 ? 1 : z[i].norders;
		for (int k = 0; k < BUDDY_MAX_ORDER; k++)
			p.free[k] = k < p.norders && z[i].n[k] ? z[i].sum[k] / (double)z[i].n[k] : 0;
		(*n)++;
		if (fn(arg, &p) != 0) {
			snprintf(q->err, sizeof q->err, "stopped by caller");
			return -1;
		}
		z[i].first = -1;
		z[i].norders = 0;
		memset(z[i].n, 0, sizeof z[i].n);
		memset(z[i].sum, 0, sizeof z[i].sum);
	}
	return 0;
}

static int zones_load(struct query *q, struct raw_zone *z)
{
	sqlite3_stmt *st = stmt(q, S_ZONES);
	int nz = 0, rc;

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && nz < RAW_MAX_ZONES) {
		const char *name = col_text(st, 2);
		memset(&z[nz], 0, sizeof z[nz]);
		z[nz].zone_id = sqlite3_column_int64(st, 0);
		z[nz].node = sqlite3_column_int(st, 1);
		snprintf(z[nz].name, sizeof z[nz].name, "%s", name ? name : "?");
		z[nz].first = -1;
		nz++;
	}
	if (rc != SQLITE_ROW && step_err(q, st, rc) < 0)
		return -1;
	done(st);
	return nz;
}

/* Make room for one more element of size sz in *p (capacity *cap, n used); 0, or -1 with q->err set. */
static int grow(struct query *q, void **p, size_t *cap, size_t n, size_t sz)
{
	size_t c = *cap ? *cap * 2 : 256;
	void *np;

	if (n < *cap)
		return 0;
	if (!(np = realloc(*p, c * sz))) {
		snprintf(q->err, sizeof q->err, "out of memory");
		return -1;
	}
	*p = np;
	*cap = c;
	return 0;
}

/* A zone's stored rows over a window: each holds from its ts_ms to the next row's. */
struct raw_rows {
	size_t n, cap, cur;
	struct raw_row {
		int64_t ts_ms;
		int norders;
		int64_t o[BUDDY_MAX_ORDER];
	} *r;
};

/* Append every row of st (ts_ms, norders, o0..o15) to rr; 0 or -1. */
static int raw_rows_load(struct query *q, sqlite3_stmt *st, struct raw_rows *rr)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct raw_row *w;
		if (grow(q, (void **)&rr->r, &rr->cap, rr->n, sizeof *rr->r) < 0) {
			done(st);
			return -1;
		}
		w = &rr->r[rr->n++];
		w->ts_ms = sqlite3_column_int64(st, 0);
		w->norders = sqlite3_column_int(st, 1);
		if (w->norders > BUDDY_MAX_ORDER)
			w->norders = BUDDY_MAX_ORDER;
		if (w->norders < 0)
			w->norders = 0;
		/* o0..o(norders-1) are never NULL (the writer binds each): no per-column type check. */
		for (int k = 0; k < w->norders; k++)
			w->o[k] = sqlite3_column_int64(st, 2 + k);
	}
	if (step_err(q, st, rc) < 0)
		return -1;
	done(st);
	return 0;
}

/*
 * Raw buckets: the window's ticks in order, each zone's row in force at each
 * tick (rows are stored when they change), averaged here.  The same result
 * as GROUP BY bucket, zone over buddy_at in SQL, without a correlated seek
 * per tick and zone or the sort of 10,800 rows per hour of history.
 */
static int buddy_raw_series(struct query *q, int64_t run_id, const struct query_range *rg, query_buddy_fn fn,
			    void *arg)
{
	struct raw_zone *z = calloc(RAW_MAX_ZONES, sizeof *z);
	struct raw_rows *rows = calloc(RAW_MAX_ZONES, sizeof *rows);
	sqlite3_stmt *st;
	int64_t bk = -1, *ticks = NULL;
	size_t nticks = 0, tcap = 0;
	int nz = 0, n = 0, rc, ret = -1;

	if (!z || !rows) {
		snprintf(q->err, sizeof q->err, "out of memory");
		goto out;
	}
	if ((nz = zones_load(q, z)) < 0) {
		nz = 0;
		goto out;
	}
	/* Ticks first: a tick the writer adds meanwhile is not charted, rather than charted with a row not read. */
	if (!(st = stmt(q, S_TICK_TIMES)))
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, rg->from_ms);
	sqlite3_bind_int64(st, 3, rg->to_ms);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (grow(q, (void **)&ticks, &tcap, nticks, sizeof *ticks) < 0) {
			done(st);
			goto out;
		}
		ticks[nticks++] = sqlite3_column_int64(st, 0);
	}
	if (step_err(q, st, rc) < 0)
		goto out;
	done(st);
	for (int i = 0; i < nz; i++) {
		if (!(st = stmt(q, S_BUDDY_RAW)))
			goto out;
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, z[i].zone_id);
		sqlite3_bind_int64(st, 3, rg->from_ms);
		sqlite3_bind_int64(st, 4, rg->to_ms);
		if (raw_rows_load(q, st, &rows[i]) < 0)
			goto out;
	}
	for (size_t j = 0; j < nticks; j++) {
		int64_t ts = ticks[j], b = (ts - rg->from_ms) / rg->bucket_ms;

		if (b != bk && bk >= 0 && raw_flush(q, z, nz, &n, fn, arg) < 0)
			goto out;
		bk = b;
		for (int i = 0; i < nz; i++) {
			struct raw_rows *rr = &rows[i];
			const struct raw_row *r;
			while (rr->cur + 1 < rr->n && rr->r[rr->cur + 1].ts_ms <= ts)
				rr->cur++;
			if (rr->cur >= rr->n || (r = &rr->r[rr->cur])->ts_ms > ts || r->norders == 0)
				continue;
			if (z[i].first < 0)
				z[i].first = ts;
			if (r->norders > z[i].norders)
				z[i].norders = r->norders;
			for (int k = 0; k < r->norders; k++) {
				z[i].sum[k] += (double)r->o[k];
				z[i].n[k]++;
			}
		}
	}
	if (raw_flush(q, z, nz, &n, fn, arg) < 0)
		goto out;
	ret = n;
out:
	if (rows)
		for (int i = 0; i < nz; i++)
			free(rows[i].r);
	free(rows);
	free(ticks);
	free(z);
	return ret;
}

/* One (bucket, zone, order) cell of rollup rows. */
struct grid_cell {
	double free_sum, head_sum;
	int64_t n, umax, first;
};

/* Rollup rows of one tier over rg, summed per chart bucket in C (no GROUP BY sort). */
struct grid {
	int nb, nz;
	struct raw_zone z[RAW_MAX_ZONES];    /* the zones table, (node, zone_id) order; norders = max seen */
	struct grid_cell *c;                 /* [bucket][zone][order] */
};

static struct grid_cell *cell(struct grid *g, int b, int z, int k)
{
	return &g->c[((size_t)b * (size_t)g->nz + (size_t)z) * BUDDY_MAX_ORDER + (size_t)k];
}

/* Fill g from tier's rows in rg (free sums only with free_only); 0 or -1.  g->c is freed by the caller. */
static int grid_fill(struct query *q, int64_t run_id, int64_t tier, const struct query_range *rg, struct grid *g,
		     int free_only)
{
	sqlite3_stmt *st;
	int rc;

	memset(g, 0, sizeof *g);
	if ((g->nz = zones_load(q, g->z)) < 0)
		return -1;
	g->nb = (int)((rg->to_ms - rg->from_ms) / rg->bucket_ms) + 1;
	if (g->nz == 0)
		return 0;
	if (!(g->c = calloc((size_t)g->nb * (size_t)g->nz * BUDDY_MAX_ORDER, sizeof *g->c))) {
		snprintf(q->err, sizeof q->err, "out of memory");
		return -1;
	}
	if (!(st = stmt(q, free_only ? S_ROLLUP_GRID_FREE : S_ROLLUP_GRID)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, tier);
	sqlite3_bind_int64(st, 3, rg->from_ms);
	sqlite3_bind_int64(st, 4, rg->to_ms);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t zid = sqlite3_column_int64(st, 0), bms = sqlite3_column_int64(st, 1), n = sqlite3_column_int64(st, 2);
		int norders = sqlite3_column_int(st, 3), b = (int)((bms - rg->from_ms) / rg->bucket_ms), z;

		for (z = 0; z < g->nz && g->z[z].zone_id != zid; z++)
			;
		if (z == g->nz || b < 0 || b >= g->nb || n <= 0)
			continue;
		if (norders > BUDDY_MAX_ORDER)
			norders = BUDDY_MAX_ORDER;
		for (int k = 0; k < norders; k++) {
			struct grid_cell *c = cell(g, b, z, k);
			if (c->n == 0 || bms < c->first)
				c->first = bms;
			if (free_only) {
				c->free_sum += (double)sqlite3_column_int64(st, 4 + k);
			} else {
				int64_t u = sqlite3_column_int64(st, 4 + 2 * BUDDY_MAX_ORDER + k);
				if (c->n == 0 || u > c->umax)
					c->umax = u;
				c->head_sum += (double)sqlite3_column_int64(st, 4 + BUDDY_MAX_ORDER + k);
			}
			c->n += n;
		}
		if (norders > g->z[z].norders)
			g->z[z].norders = norders;
	}
	if (step_err(q, st, rc) < 0)
		return -1;
	done(st);
	return 0;
}

/* The first bucket time of (b, z) over its orders, or -1 when it has no rows. */
static int64_t grid_first(struct grid *g, int b, int z)
{
	int64_t t = -1;

	for (int k = 0; k < BUDDY_MAX_ORDER; k++) {
		struct grid_cell *c = cell(g, b, z, k);
		if (c->n && (t < 0 || c->first < t))
			t = c->first;
	}
	return t;
}

/* One (bucket, zone) of a grid with rows, as the caller's point handed to its callback; its result. */
typedef int (*grid_emit_fn)(void *ctx, struct grid *g, int b, int z, int64_t first);

/* Fill a grid from tier's rows in rg and emit each (bucket, zone) that has rows, in order; points or -1. */
static int grid_series(struct query *q, int64_t run_id, int64_t tier, const struct query_range *rg, int free_only,
		       grid_emit_fn emit, void *ctx)
{
	struct grid *g = malloc(sizeof *g);
	int n = 0, ret = -1;

	if (!g) {
		snprintf(q->err, sizeof q->err, "out of memory");
		return -1;
	}
	if (grid_fill(q, run_id, tier, rg, g, free_only) < 0)
		goto out;
	for (int b = 0; b < g->nb && g->c; b++)
		for (int z = 0; z < g->nz; z++) {
			int64_t t = grid_first(g, b, z);
			if (t < 0)
				continue;
			if (row_cap(q, n) < 0)
				goto out;
			n++;
			if (emit(ctx, g, b, z, t) != 0) {
				snprintf(q->err, sizeof q->err, "stopped by caller");
				goto out;
			}
		}
	ret = n;
out:
	free(g->c);
	free(g);
	return ret;
}

struct buddy_emit {
	query_buddy_fn fn;
	void *arg;
};

/* A buddy point: tick-weighted means of free blocks per order. */
static int buddy_emit(void *ctx, struct grid *g, int b, int z, int64_t first)
{
	struct buddy_emit *e = ctx;
	struct query_buddy_point p;

	p.ts_ms = first;
	p.node = g->z[z].node;
	p.zone = g->z[z].name;
	p.norders = g->z[z].norders < 1 ? 1 : g->z[z].norders;
	for (int k = 0; k < BUDDY_MAX_ORDER; k++) {
		struct grid_cell *c = cell(g, b, z, k);
		p.free[k] = k < p.norders && c->n ? c->free_sum / (double)c->n : 0;
	}
	return e->fn(e->arg, &p);
}

int query_buddy_series(struct query *q, int64_t run_id, struct query_range *rg, query_buddy_fn fn, void *arg)
{
	int64_t raw_first, rollup_first, tier;
	int r;

	if ((r = resolve_range(q, run_id, rg, &raw_first, &rollup_first)) <= 0)
		return r;
	tier = buddy_tier(rg, raw_first, rollup_first);
	if (rg->bucket_ms < tier)
		rg->bucket_ms = tier;
	if (!tier)
		return buddy_raw_series(q, run_id, rg, fn, arg);
	return grid_series(q, run_id, tier, rg, 1, buddy_emit, &(struct buddy_emit){ fn, arg });
}

/* name_id of (source, name): 1 with *id, 0 if unknown, -1. */
static int name_id(struct query *q, const char *source, const char *name, int64_t *id)
{
	sqlite3_stmt *st = stmt(q, S_NAME_ID);

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, source, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	return one_i64(q, st, id);
}

/* Index of a kept meminfo field (a samples column), or -1. */
static int meminfo_field(const char *name)
{
#define X_NAME(i, n, col) n,
	static const char *const names[STORE_NMEMINFO] = { STORE_MEMINFO_FIELDS(X_NAME) };
#undef X_NAME
	for (int k = 0; k < STORE_NMEMINFO; k++)
		if (strcmp(names[k], name) == 0)
			return k;
	return -1;
}

int query_has_name(struct query *q, const char *source, const char *name)
{
	int64_t id;

	if (strcmp(source, "meminfo") == 0)
		return meminfo_field(name) >= 0;
	return name_id(q, source, name, &id);
}

int query_meminfo_series(struct query *q, int64_t run_id, const char *name, struct query_range *rg,
			 query_point_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int64_t raw_first, rollup_first, tier;
	int rc, n = 0, r, field = meminfo_field(name);

	if (field < 0)
		return 0;
	if ((r = resolve_range(q, run_id, rg, &raw_first, &rollup_first)) <= 0)
		return r;
	tier = buddy_tier(rg, raw_first, rollup_first);
	if (rg->bucket_ms < tier)
		rg->bucket_ms = tier;
	if (!(st = stmt(q, tier ? S_MEMINFO_ROLLUP : S_MEMINFO_SERIES)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, field);
	sqlite3_bind_int64(st, 3, rg->from_ms);
	sqlite3_bind_int64(st, 4, rg->to_ms);
	sqlite3_bind_int64(st, 5, rg->bucket_ms);
	if (tier)
		sqlite3_bind_int64(st, 6, tier);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_point p = { sqlite3_column_int64(st, 1), sqlite3_column_double(st, 2) };

		if (row_take(q, st, &n) < 0)
			return -1;
		if (fn(arg, &p) != 0) {
			snprintf(q->err, sizeof q->err, "stopped by caller");
			done(st);
			return -1;
		}
	}
	return rows_done(q, st, rc, n);
}

/* (ts, value) of one vmstat row from st (bound by the caller): 1, 0 if none, -1. */
static int vm_row(struct query *q, sqlite3_stmt *st, int64_t *ts, int64_t *v)
{
	int rc = sqlite3_step(st), found = 0;

	if (step_err(q, st, rc) < 0)
		return -1;
	if (rc == SQLITE_ROW) {
		*ts = sqlite3_column_int64(st, 0);
		*v = sqlite3_column_int64(st, 1);
		found = 1;
	}
	done(st);
	return found;
}

/*
 * The baseline of a counter rate: the counter's value and time just before
 * the window (the last sample before it), or else its first row inside the
 * window.  1 with bt and bv set, 0 if the counter has no row at all, -1.
 */
static int vm_baseline(struct query *q, int64_t run_id, int64_t nid, int hot, const struct query_range *rg,
		       int64_t *bt, int64_t *bv)
{
	sqlite3_stmt *st;
	int64_t prev, ts;
	int r;

	if (!(st = stmt(q, S_PREV_SAMPLE)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, rg->from_ms);
	if ((r = one_i64(q, st, &prev)) < 0)
		return -1;
	if (r == 1) {
		if (!(st = stmt(q, hot ? S_VMHOT_BEFORE : S_VMSTAT_BEFORE)))
			return -1;
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, nid);
		sqlite3_bind_int64(st, 3, prev);
		if ((r = vm_row(q, st, &ts, bv)) != 0) {
			*bt = prev;   /* the value held until the sample at prev */
			return r;
		}
	}
	if (!(st = stmt(q, hot ? S_VMHOT_FIRST : S_VMSTAT_FIRST)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, nid);
	sqlite3_bind_int64(st, 3, rg->from_ms);
	sqlite3_bind_int64(st, 4, rg->to_ms);
	return vm_row(q, st, bt, bv);
}

/*
 * Rates from a counter stored on change: per bucket, the value held at the
 * bucket's last sample minus the value at the previous bucket's last sample,
 * over the time between those two samples.  Using sample times (not bucket
 * edges) keeps jittered ticks from showing as alternating 0 and 2x rates;
 * a bucket without samples is skipped (nothing was measured there).
 */
/*
 * The same rates for buckets of a minute or more: the counter's value at
 * each bucket's end is one index seek (its last change at or before it), so
 * a 30-day chart costs ~1,000 seeks instead of grouping 2.6 million sample
 * rows.  Bucket ends stand in for sample times; at a minute and wider the
 * difference is under one sample interval per bucket.
 */
static int vmstat_rate_seek(struct query *q, int64_t run_id, int64_t nid, int hot, const struct query_range *rg,
			    int64_t bt, int64_t bv, query_point_fn fn, void *arg)
{
	int n = 0;

	for (int64_t end = rg->from_ms + rg->bucket_ms - 1;; end += rg->bucket_ms) {
		sqlite3_stmt *st = stmt(q, hot ? S_VMHOT_BEFORE : S_VMSTAT_BEFORE);
		int64_t t = end < rg->to_ms ? end : rg->to_ms, ts, v;
		struct query_point p;
		int r;

		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, nid);
		sqlite3_bind_int64(st, 3, t);
		if ((r = vm_row(q, st, &ts, &v)) < 0)
			return -1;
		if (r && t > bt) {
			if (row_cap(q, n) < 0)
				return -1;
			p.ts_ms = t;
			p.v = v >= bv ? (double)(v - bv) * 1000.0 / (double)(t - bt) : NAN;
			bt = t;
			bv = v;
			n++;
			if (fn(arg, &p) != 0) {
				snprintf(q->err, sizeof q->err, "stopped by caller");
				return -1;
			}
		}
		if (t >= rg->to_ms)
			break;
	}
	return n;
}

int query_vmstat_rate(struct query *q, int64_t run_id, const char *name, struct query_range *rg,
		      query_point_fn fn, void *arg)
{
	sqlite3_stmt *ss = NULL, *vs = NULL;
	int64_t nid, bt, bv, vbk = -1, vval = 0, cur, raw_first, rollup_first;
	int r, rc, vrc, n = 0, hot;

	/* A hot counter is a samples column (store/fields.h), nid its index; others are vmstat rows. */
	hot = (nid = store_vmstat_hot(name)) >= 0;
	if (!hot && (r = name_id(q, "vmstat", name, &nid)) <= 0)
		return r;
	if ((r = resolve_range(q, run_id, rg, &raw_first, &rollup_first)) <= 0)
		return r;
	if ((r = vm_baseline(q, run_id, nid, hot, rg, &bt, &bv)) <= 0)
		return r;
	if (rg->bucket_ms >= 60000)
		return vmstat_rate_seek(q, run_id, nid, hot, rg, bt, bv, fn, arg);
	if (!(ss = stmt(q, S_SAMPLE_BUCKETS)) || !(vs = stmt(q, hot ? S_VMHOT_BUCKETS : S_VMSTAT_BUCKETS)))
		return -1;
	sqlite3_bind_int64(ss, 1, run_id);
	sqlite3_bind_int64(ss, 2, rg->from_ms);
	sqlite3_bind_int64(ss, 3, rg->to_ms);
	sqlite3_bind_int64(ss, 4, rg->bucket_ms);
	sqlite3_bind_int64(vs, 1, run_id);
	sqlite3_bind_int64(vs, 2, nid);
	sqlite3_bind_int64(vs, 3, rg->from_ms);
	sqlite3_bind_int64(vs, 4, rg->to_ms);
	sqlite3_bind_int64(vs, 5, rg->bucket_ms);
	cur = bv;
	vrc = sqlite3_step(vs);
	if (vrc == SQLITE_ROW) {
		vbk = sqlite3_column_int64(vs, 0);
		vval = sqlite3_column_int64(vs, 2);
	}
	while ((rc = sqlite3_step(ss)) == SQLITE_ROW) {
		int64_t bk = sqlite3_column_int64(ss, 0), t = sqlite3_column_int64(ss, 1);
		struct query_point p;

		/* Changes up to this bucket's end: the counter's value at its last sample. */
		while (vrc == SQLITE_ROW && vbk <= bk) {
			cur = vval;
			vrc = sqlite3_step(vs);
			if (vrc == SQLITE_ROW) {
				vbk = sqlite3_column_int64(vs, 0);
				vval = sqlite3_column_int64(vs, 2);
			}
		}
		if (vrc != SQLITE_ROW && vrc != SQLITE_DONE)
			break;
		if (t <= bt)
			continue;   /* at or before the baseline: no interval yet */
		if (row_cap(q, n) < 0)
			goto fail;
		p.ts_ms = t;
		/* A counter going backwards (wrap, reset) has no meaningful rate here. */
		p.v = cur >= bv ? (double)(cur - bv) * 1000.0 / (double)(t - bt) : NAN;
		bt = t;
		bv = cur;
		n++;
		if (fn(arg, &p) != 0) {
			snprintf(q->err, sizeof q->err, "stopped by caller");
			goto fail;
		}
	}
	if (vrc != SQLITE_ROW && vrc != SQLITE_DONE) {
		set_err(q, "step");
		goto fail;
	}
	if (step_err(q, ss, rc) < 0)
		goto fail;
	done(ss);
	done(vs);
	return n;
fail:
	done(ss);
	done(vs);
	return -1;
}

int query_alloc_failures(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int limit,
			 int64_t *total, query_alloc_failure_fn fn, void *arg)
{
	int64_t lo = from_ms < 0 ? 0 : from_ms, hi = to_ms < 0 ? INT64_MAX : to_ms;
	sqlite3_stmt *st;
	int rc, n = 0;

	*total = 0;
	if (!(st = stmt(q, S_FAILURES_COUNT)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	if (one_i64(q, st, total) < 0 || !(st = stmt(q, S_FAILURES)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	sqlite3_bind_int64(st, 4, limit < 0 ? 0 : limit > QUERY_MAX_ROWS ? QUERY_MAX_ROWS : limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_alloc_failure f;

		f.ts_ms = sqlite3_column_int64(st, 0);
		f.comm = (const char *)sqlite3_column_blob(st, 1);   /* a BLOB: bytes, not text */
		f.comm_len = (size_t)sqlite3_column_bytes(st, 1);
		f.pid = col_i64(st, 2);
		f.order = col_i64(st, 3);
		f.gfp_flags = col_text(st, 4);
		f.gfp_mask = sqlite3_column_type(st, 5) == SQLITE_NULL ? NULL : col_text(st, 5);
		n++;
		if (fn(arg, &f) != 0) {
			snprintf(q->err, sizeof q->err, "stopped by caller");
			done(st);
			return -1;
		}
	}
	return rows_done(q, st, rc, n);
}

/* ---------------------------------------------------------------- report sections */

/* The caller's callback said stop: record it, reset st, -1. */
static int stopped(struct query *q, sqlite3_stmt *st)
{
	snprintf(q->err, sizeof q->err, "stopped by caller");
	done(st);
	return -1;
}

static double col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int64_t lo_of(int64_t from_ms)
{
	return from_ms < 0 ? 0 : from_ms;
}

static int64_t hi_of(int64_t to_ms)
{
	return to_ms < 0 ? INT64_MAX : to_ms;
}

int query_task_slab(struct query *q, int64_t run_id, int *order, int64_t *objsize)
{
	sqlite3_stmt *st = stmt(q, S_TASK_SLAB);
	int rc, found = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (step_err(q, st, rc) < 0)
		return -1;
	if (rc == SQLITE_ROW) {
		*order = (int)col_i64(st, 1);
		*objsize = col_i64(st, 2);
		found = 1;
	}
	done(st);
	return found;
}

int query_pageblock_order(struct query *q, int64_t run_id, int *order)
{
	sqlite3_stmt *st = stmt(q, S_PAGEBLOCK);
	int64_t v;
	int r;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	if ((r = one_i64(q, st, &v)) == 1)
		*order = (int)v;
	return r;
}

int query_run_fpu_kind(struct query *q, int64_t run_id, char *out, size_t outlen)
{
	sqlite3_stmt *st = stmt(q, S_FPU_KIND);
	int rc, found = 0;

	if (!st)
		return -1;
	out[0] = '\0';
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (step_err(q, st, rc) < 0)
		return -1;
	if (rc == SQLITE_ROW && col_text(st, 0)) {
		snprintf(out, outlen, "%s", col_text(st, 0));
		found = 1;
	}
	done(st);
	return found;
}

struct frag_emit {
	query_frag_fn fn;
	void *arg;
};

/* An index point from the rollups: worst unusable index, mean headroom (the extfrag index is not rolled up). */
static int frag_emit(void *ctx, struct grid *g, int b, int z, int64_t first)
{
	struct frag_emit *e = ctx;
	struct query_frag_point p;

	memset(&p, 0, sizeof p);
	p.ts_ms = first;
	p.node = g->z[z].node;
	p.zone = g->z[z].name;
	for (int k = 0; k < BUDDY_MAX_ORDER; k++) {
		struct grid_cell *c = cell(g, b, z, k);
		p.unusable[k] = p.frag[k] = p.headroom[k] = NAN;
		if (!c->n)
			continue;
		p.norders = k + 1;
		p.unusable[k] = (double)c->umax / 1000.0;
		p.headroom[k] = c->head_sum / (double)c->n;
	}
	return e->fn(e->arg, &p);
}

int query_frag_series(struct query *q, int64_t run_id, struct query_range *rg, query_frag_fn fn, void *arg)
{
	struct query_frag_point p;
	char zone[ZONE_NAME_MAX];
	sqlite3_stmt *st;
	int64_t raw_first, rollup_first, tier, bk = -1, zid = -1;
	int rc, r, n = 0, have = 0;

	if ((r = resolve_range(q, run_id, rg, &raw_first, &rollup_first)) <= 0)
		return r;
	tier = buddy_tier(rg, raw_first, rollup_first);
	if (rg->bucket_ms < tier)
		rg->bucket_ms = tier;
	if (tier)
		return grid_series(q, run_id, tier, rg, 0, frag_emit, &(struct frag_emit){ fn, arg });
	if (!(st = stmt(q, S_FRAG_RAW)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, rg->from_ms);
	sqlite3_bind_int64(st, 3, rg->to_ms);
	sqlite3_bind_int64(st, 4, rg->bucket_ms);
	/* Rows come per (bucket, zone, order): gather a zone's orders into one point. */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t b = sqlite3_column_int64(st, 0), z = sqlite3_column_int64(st, 4);
		int k = sqlite3_column_int(st, 5);
		const char *name = col_text(st, 3);

		if (have && (b != bk || z != zid)) {
			if (row_cap(q, n) < 0) {
				done(st);
				return -1;
			}
			n++;
			if (fn(arg, &p) != 0)
				return stopped(q, st);
			have = 0;
		}
		if (!have) {
			memset(&p, 0, sizeof p);
			for (int i = 0; i < BUDDY_MAX_ORDER; i++)
				p.unusable[i] = p.frag[i] = p.headroom[i] = NAN;
			p.ts_ms = sqlite3_column_int64(st, 1);
			p.node = sqlite3_column_int(st, 2);
			snprintf(zone, sizeof zone, "%s", name ? name : "");
			p.zone = zone;
			bk = b;
			zid = z;
			have = 1;
		}
		if (k < 0 || k >= BUDDY_MAX_ORDER)
			continue;
		if (k + 1 > p.norders)
			p.norders = k + 1;
		p.unusable[k] = col_real(st, 6) / 1000.0;
		p.frag[k] = col_real(st, 7) / 1000.0;
		p.headroom[k] = col_real(st, 8);
	}
	if (step_err(q, st, rc) < 0)
		return -1;
	done(st);
	if (have) {
		if (row_cap(q, n) < 0)
			return -1;
		n++;
		if (fn(arg, &p) != 0) {
			snprintf(q->err, sizeof q->err, "stopped by caller");
			return -1;
		}
	}
	return n;
}

int query_headroom_minutes(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms,
			   query_zone_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int64_t lo = lo_of(from_ms), hi = hi_of(to_ms), first = -1, last = -1, tier = 60000;
	int rc, n = 0;

	if (!q->has_rollup)
		return 0;
	/*
	 * Past two days the trend is fitted to hour means: 720 points per zone for
	 * 30 days instead of 43,200 minute means, which cost ~0.5 s of a report.
	 */
	if (bound(q, S_ROLLUP_FIRST, run_id, lo, hi, &first) < 0 || bound(q, S_ROLLUP_LAST, run_id, lo, hi, &last) < 0)
		return -1;
	if (first >= 0 && last - first > 2 * 86400000LL)
		tier = 3600000;
	if (!(st = stmt(q, S_HEAD_MINUTES)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, order);
	sqlite3_bind_int64(st, 3, lo);
	sqlite3_bind_int64(st, 4, hi);
	sqlite3_bind_int64(st, 5, tier);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_zone_point p = { sqlite3_column_int64(st, 0), sqlite3_column_int(st, 1), col_text(st, 2),
					      sqlite3_column_double(st, 3), sqlite3_column_double(st, 4),
					      sqlite3_column_double(st, 5) };
		if (row_take(q, st, &n) < 0)
			return -1;
		if (fn(arg, &p) != 0)
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}

static const char *const churn_cols[QC_N] = {
	"spawned", "spawn_failed_eagain", "spawn_failed_enomem", "spawn_failed_other", "exited", "killed_sigkill",
	"killed_sigsegv", "killed_sigill", "killed_other", "oom_killed", "exited_error",
};

const char *query_churn_column(int c)
{
	return c >= 0 && c < QC_N ? churn_cols[c] : "?";
}

/* A churn row of S_CHURN_SERIES / S_CHURN_TOTALS into *c; interval_ms completes the covered span. */
static void churn_from_row(sqlite3_stmt *st, int64_t interval_ms, struct query_churn *c)
{
	c->ts_ms = col_i64(st, 1);
	c->last_ms = col_i64(st, 2);
	c->rows = sqlite3_column_int64(st, 3);
	c->population = col_real(st, 4);
	c->population_max = col_i64(st, 5);
	for (int i = 0; i < QC_N; i++)
		c->c[i] = sqlite3_column_int64(st, 6 + i);
	/* Each row counts the interval ending at its time: n rows cover n intervals. */
	c->span_ms = c->rows > 0 ? c->last_ms - c->ts_ms + interval_ms : 0;
}

int query_churn_series(struct query *q, int64_t run_id, struct query_range *rg, query_churn_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int64_t raw_first, rollup_first;
	int rc, r, n = 0;

	int64_t tier;

	if ((r = resolve_range(q, run_id, rg, &raw_first, &rollup_first)) <= 0)
		return r;
	tier = buddy_tier(rg, raw_first, rollup_first);
	if (rg->bucket_ms < tier)
		rg->bucket_ms = tier;
	if (!(st = stmt(q, tier ? S_CHURN_ROLLUP : S_CHURN_SERIES)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, rg->from_ms);
	sqlite3_bind_int64(st, 3, rg->to_ms);
	sqlite3_bind_int64(st, 4, rg->bucket_ms);
	if (tier)
		sqlite3_bind_int64(st, 5, tier);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_churn c;

		churn_from_row(st, rg->interval_ms, &c);
		/* A rollup bucket covers its ticks, not its width: a partial edge minute is a partial span. */
		if (tier)
			c.span_ms = c.rows * rg->interval_ms;
		if (row_take(q, st, &n) < 0)
			return -1;
		if (fn(arg, &c) != 0)
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}

/* A piece of a totals window: [from, to) read from tier (0: raw rows). */
struct part {
	int64_t from, to, tier;
};

/* How far tier is rolled up for run_id (0 when not at all); -1 on error. */
static int64_t rolled_upto(struct query *q, int64_t run_id, int64_t tier)
{
	sqlite3_stmt *st = stmt(q, S_ROLLED_UPTO);
	int64_t upto = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, tier);
	return one_i64(q, st, &upto) < 0 ? -1 : upto;
}

static int64_t ceil_to(int64_t t, int64_t w)
{
	return t % w ? t - t % w + w : t;
}

/*
 * Split [lo, hi] for totals into whole hours the hour rollup holds, whole
 * minutes the minute rollup holds around them, and raw rows for the rest
 * (rollup buckets are written only once complete).  A 30-day total reads
 * ~720 hour rows, up to ~120 minute rows and a minute of raw ticks at each
 * end instead of 2.6 million ticks.  Pieces in time order; count or -1.
 */
static int split_range(struct query *q, int64_t run_id, int64_t lo, int64_t hi, struct part p[5])
{
	int64_t mup = rolled_upto(q, run_id, 60000), hup, a, b, ha, hb, end = hi == INT64_MAX ? INT64_MAX : hi + 1;
	int n = 0;

	if (mup < 0 || (hup = rolled_upto(q, run_id, 3600000)) < 0)
		return -1;
	a = ceil_to(lo, 60000);
	b = end == INT64_MAX ? mup : end - end % 60000;
	if (b > mup)
		b = mup;
	if (b <= a) {
		p[0] = (struct part){ lo, end, 0 };
		return 1;
	}
	ha = ceil_to(a, 3600000);
	hb = b - b % 3600000;
	if (hb > hup)
		hb = hup - hup % 3600000;
	if (lo < a)
		p[n++] = (struct part){ lo, a, 0 };
	if (ha < hb) {
		if (a < ha)
			p[n++] = (struct part){ a, ha, 60000 };
		p[n++] = (struct part){ ha, hb, 3600000 };
		if (hb < b)
			p[n++] = (struct part){ hb, b, 60000 };
	} else {
		p[n++] = (struct part){ a, b, 60000 };
	}
	if (b < end)
		p[n++] = (struct part){ b, end, 0 };
	return n;
}

/* Add the churn row in st (S_CHURN_TOTALS / S_CHURN_ROLLED columns) to *out; rows_end_pad widens the last time. */
static void churn_add(sqlite3_stmt *st, int64_t last_pad, struct query_churn *out)
{
	int64_t rows = sqlite3_column_type(st, 3) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 3);
	int64_t first = col_i64(st, 1), last = col_i64(st, 2);

	if (rows <= 0)
		return;
	last += last_pad;
	out->population = (out->population * (double)out->rows + col_real(st, 4) * (double)rows) /
			  (double)(out->rows + rows);
	if (out->rows == 0 || col_i64(st, 5) > out->population_max)
		out->population_max = col_i64(st, 5);
	if (out->rows == 0 || first < out->ts_ms)
		out->ts_ms = first;
	if (out->rows == 0 || last > out->last_ms)
		out->last_ms = last;
	out->rows += rows;
	for (int i = 0; i < QC_N; i++)
		out->c[i] += sqlite3_column_int64(st, 6 + i);
}

/* Add the churn sums of one piece to *out; 0 or -1. */
static int churn_part(struct query *q, int64_t run_id, const struct part *pt, struct query_churn *out)
{
	sqlite3_stmt *st;
	int rc;

	if (pt->from >= pt->to)
		return 0;
	if (!(st = stmt(q, pt->tier ? S_CHURN_ROLLED : S_CHURN_TOTALS)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, pt->from);
	/* raw: BETWEEN, inclusive; rolled: bucket_ms < to */
	sqlite3_bind_int64(st, 3, pt->tier ? pt->to : pt->to == INT64_MAX ? INT64_MAX : pt->to - 1);
	if (pt->tier)
		sqlite3_bind_int64(st, 4, pt->tier);
	rc = sqlite3_step(st);
	if (step_err(q, st, rc) < 0)
		return -1;
	if (rc == SQLITE_ROW)
		churn_add(st, pt->tier ? pt->tier - 1 : 0, out);
	done(st);
	return 0;
}

int query_churn_totals(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, struct query_churn *out)
{
	struct query_range rg = { from_ms, to_ms, 1, 0, 0 };
	int64_t raw_first, rollup_first;
	struct part pt[5];
	int np;

	memset(out, 0, sizeof *out);
	if (resolve_range(q, run_id, &rg, &raw_first, &rollup_first) < 0 ||
	    (np = split_range(q, run_id, lo_of(from_ms), hi_of(to_ms), pt)) < 0)
		return -1;
	for (int i = 0; i < np; i++)
		if (churn_part(q, run_id, &pt[i], out) < 0)
			return -1;
	/* Rolled pieces start and end on bucket edges; the ticks inside start and end within them. */
	if (out->rows > 0 && raw_first >= 0 && out->ts_ms < raw_first)
		out->ts_ms = raw_first;
	if (out->rows > 0 && rg.to_ms >= 0 && out->last_ms > rg.to_ms)
		out->last_ms = rg.to_ms;
	/* No raw tick left in the window (retention): its rows cover one interval each. */
	if (out->rows > 0 && raw_first < 0) {
		out->span_ms = out->rows * rg.interval_ms;
		return 1;
	}
	/* Each row counts the interval ending at its time: n rows cover n intervals. */
	out->span_ms = out->rows > 0 ? out->last_ms - out->ts_ms + rg.interval_ms : 0;
	return out->rows > 0;
}

int query_probes(struct query *q, int64_t run_id, const char *kind, int64_t from_ms, int64_t to_ms, int limit,
		 query_probe_fn fn, void *arg)
{
	sqlite3_stmt *st = stmt(q, S_PROBES);
	int rc, n = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, lo_of(from_ms));
	sqlite3_bind_int64(st, 3, hi_of(to_ms));
	if (kind)
		sqlite3_bind_text(st, 4, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, limit < 0 ? 0 : limit > QUERY_MAX_ROWS ? QUERY_MAX_ROWS : limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_probe p = { sqlite3_column_int64(st, 0), col_text(st, 1), col_real(st, 2), col_text(st, 3),
					 col_text(st, 5), col_i64(st, 4) };
		n++;
		if (fn(arg, &p) != 0)
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}

#define ATOMIC_MAX_ZONES 64

struct atomic_acc {
	int n;
	struct query_atomic z[ATOMIC_MAX_ZONES];
	char names[ATOMIC_MAX_ZONES][32];
};

/* Add one (node, zone) row of S_ATOMIC_SUMMARY / S_ATOMIC_ROLLED columns to acc. */
static void atomic_add(struct atomic_acc *acc, sqlite3_stmt *st)
{
	const char *zone = col_text(st, 1);
	int node = sqlite3_column_int(st, 0), i;
	struct query_atomic *a;

	if (!zone || sqlite3_column_type(st, 2) == SQLITE_NULL || sqlite3_column_int64(st, 2) == 0)
		return;
	for (i = 0; i < acc->n; i++)
		if (acc->z[i].node == node && strcmp(acc->names[i], zone) == 0)
			break;
	if (i == acc->n) {
		if (acc->n == ATOMIC_MAX_ZONES)
			return;
		acc->n++;
		memset(&acc->z[i], 0, sizeof acc->z[i]);
		snprintf(acc->names[i], sizeof acc->names[i], "%s", zone);
		acc->z[i].node = node;
		acc->z[i].zone = acc->names[i];
	}
	a = &acc->z[i];
	a->samples += sqlite3_column_int64(st, 2);
	a->risk += sqlite3_column_int64(st, 3);
	a->atomic_fail += sqlite3_column_int64(st, 4);
	a->kernel_fail += sqlite3_column_int64(st, 5);
	if (sqlite3_column_type(st, 6) != SQLITE_NULL &&
	    (!a->has_margin || sqlite3_column_int64(st, 6) < a->min_margin)) {
		a->min_margin = sqlite3_column_int64(st, 6);
		a->has_margin = 1;
	}
}

/* One piece's rows into acc; *incomplete set when a rollup bucket predates schema 5. 0 or -1. */
static int atomic_part(struct query *q, int64_t run_id, int order, const struct part *pt, struct atomic_acc *acc,
		       int *incomplete)
{
	enum stmt_id id = pt->tier ? S_ATOMIC_ROLLED : S_ATOMIC_SUMMARY;
	sqlite3_stmt *st;
	int rc;

	if (pt->from >= pt->to)
		return 0;
	if (!(st = stmt(q, id)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, order);
	sqlite3_bind_int64(st, 3, pt->from);
	sqlite3_bind_int64(st, 4, pt->tier ? pt->to : pt->to == INT64_MAX ? INT64_MAX : pt->to - 1);
	if (pt->tier)
		sqlite3_bind_int64(st, 5, pt->tier);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (id == S_ATOMIC_ROLLED && sqlite3_column_int64(st, 7) > 0) {
			*incomplete = 1;
			done(st);
			return 0;
		}
		atomic_add(acc, st);
	}
	return step_err(q, st, rc) < 0 ? -1 : (done(st), 0);
}

int query_atomic_summary(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms,
			 query_atomic_fn fn, void *arg)
{
	struct atomic_acc *acc = calloc(1, sizeof *acc);
	struct part pt[5];
	int incomplete = 0, rc = -1, np;

	if (!acc) {
		snprintf(q->err, sizeof q->err, "out of memory");
		return -1;
	}
	if ((np = split_range(q, run_id, lo_of(from_ms), hi_of(to_ms), pt)) < 0)
		goto out;
	for (int i = 0; i < np && !incomplete; i++)
		if (atomic_part(q, run_id, order, &pt[i], acc, &incomplete) < 0)
			goto out;
	if (incomplete) {
		/* Buckets rolled up before the atomic columns existed (schema < 5): the raw rows. */
		struct part all = { lo_of(from_ms), hi_of(to_ms) == INT64_MAX ? INT64_MAX : hi_of(to_ms) + 1, 0 };
		acc->n = 0;
		if (atomic_part(q, run_id, order, &all, acc, &incomplete) < 0)
			goto out;
	}
	for (rc = 0; rc < acc->n; rc++)
		if (fn(arg, &acc->z[rc]) != 0) {
			snprintf(q->err, sizeof q->err, "stopped by caller");
			rc = -1;
			goto out;
		}
out:
	free(acc);
	return rc;
}

/* Whether zone a sorts before zone b in (node, name) order, as the SQL series order them. */
static int zone_before(const struct raw_zone *a, const struct raw_zone *b)
{
	return a->node != b->node ? a->node < b->node : strcmp(a->name, b->name) < 0;
}

/*
 * The rollup tier of query_atomic_series: per chart bucket and zone,
 * sum(atomic_only_n) / sum(atomic_n) over the order's rows, summed here in
 * key order instead of GROUP BY bucket, zone with a sort (a fifth of a 1-day
 * report's SQL time).  Same values and order as the SQL it replaces.
 */
static int atomic_rollup_series(struct query *q, int64_t run_id, int order, int64_t tier,
				const struct query_range *rg, query_zone_fn fn, void *arg)
{
	struct raw_zone *z = calloc(RAW_MAX_ZONES, sizeof *z);
	struct acell { int64_t n, only, first; } *c = NULL;
	int idx[RAW_MAX_ZONES], nz, n = 0, rc, ret = -1;
	int64_t nb = (rg->to_ms - rg->from_ms) / rg->bucket_ms + 1;
	sqlite3_stmt *st;

	if (!z || (nz = zones_load(q, z)) < 0)
		goto out;
	if (nb < 1 || nb > QUERY_MAX_ROWS || !(c = calloc((size_t)nb * (size_t)(nz ? nz : 1), sizeof *c))) {
		snprintf(q->err, sizeof q->err, nb > QUERY_MAX_ROWS ? "more than %d rows" : "out of memory", QUERY_MAX_ROWS);
		goto out;
	}
	/* Insertion sort of at most RAW_MAX_ZONES indices: no comparator state shared between threads. */
	for (int i = 0; i < nz; i++) {
		int j = i;
		for (; j > 0 && zone_before(&z[i], &z[idx[j - 1]]); j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	if (!(st = stmt(q, S_ATOMIC_ROLLUP_SERIES)))
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, tier);
	sqlite3_bind_int(st, 3, order);
	sqlite3_bind_int64(st, 4, rg->from_ms);
	sqlite3_bind_int64(st, 5, rg->to_ms);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t zid = sqlite3_column_int64(st, 0), bms = sqlite3_column_int64(st, 1), b = (bms - rg->from_ms) / rg->bucket_ms;
		struct acell *e;
		int i;
		for (i = 0; i < nz && z[i].zone_id != zid; i++)
			;
		if (i == nz || b < 0 || b >= nb)
			continue;
		e = &c[b * nz + i];
		if (!e->n || bms < e->first)
			e->first = bms;
		e->n += sqlite3_column_int64(st, 2);
		e->only += sqlite3_column_int64(st, 3);
	}
	if (step_err(q, st, rc) < 0)
		goto out;
	done(st);
	for (int64_t b = 0; b < nb; b++)
		for (int j = 0; j < nz; j++) {
			const struct acell *e = &c[b * nz + idx[j]];
			struct query_zone_point p;
			if (!e->n)
				continue;
			if (row_cap(q, n) < 0)
				goto out;
			p.ts_ms = e->first;
			p.node = z[idx[j]].node;
			p.zone = z[idx[j]].name;
			p.v = p.lo = p.hi = (double)e->only * 1.0 / (double)e->n;
			n++;
			if (fn(arg, &p) != 0) {
				snprintf(q->err, sizeof q->err, "stopped by caller");
				goto out;
			}
		}
	ret = n;
out:
	free(c);
	free(z);
	return ret;
}

int query_atomic_series(struct query *q, int64_t run_id, int order, struct query_range *rg, query_zone_fn fn,
			void *arg)
{
	sqlite3_stmt *st;
	int64_t raw_first, rollup_first;
	int rc, r, n = 0;

	int64_t tier;

	if ((r = resolve_range(q, run_id, rg, &raw_first, &rollup_first)) <= 0)
		return r;
	tier = buddy_tier(rg, raw_first, rollup_first);
	if (rg->bucket_ms < tier)
		rg->bucket_ms = tier;
	if (tier)
		return atomic_rollup_series(q, run_id, order, tier, rg, fn, arg);
	if (!(st = stmt(q, S_ATOMIC_SERIES)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, rg->from_ms);
	sqlite3_bind_int64(st, 3, rg->to_ms);
	sqlite3_bind_int64(st, 4, rg->bucket_ms);
	sqlite3_bind_int(st, 5, order);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		double v = sqlite3_column_double(st, 4);
		struct query_zone_point p = { sqlite3_column_int64(st, 1), sqlite3_column_int(st, 2), col_text(st, 3),
					      v, v, v };
		if (row_take(q, st, &n) < 0)
			return -1;
		if (fn(arg, &p) != 0)
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}

int query_pagetype_latest(struct query *q, int64_t run_id, query_pagetype_fn fn, void *arg)
{
	sqlite3_stmt *st = stmt(q, S_PAGETYPE_LATEST);
	int rc, n = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_pagetype p;

		memset(&p, 0, sizeof p);
		p.ts_ms = sqlite3_column_int64(st, 0);
		p.node = sqlite3_column_int(st, 1);
		p.zone = col_text(st, 2);
		p.migratetype = col_text(st, 3);
		p.norders = sqlite3_column_int(st, 4);
		if (p.norders < 0 || p.norders > BUDDY_MAX_ORDER)
			p.norders = p.norders < 0 ? 0 : BUDDY_MAX_ORDER;
		p.capped_mask = (unsigned)sqlite3_column_int64(st, 5);
		p.pageblocks = col_i64(st, 6);
		p.pageblock_order = (int)col_i64(st, 7);
		for (int k = 0; k < p.norders; k++)
			p.free[k] = col_i64(st, 8 + k);
		if (row_take(q, st, &n) < 0)
			return -1;
		if (fn(arg, &p) != 0)
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}

int query_slab_latest(struct query *q, int64_t run_id, query_slab_fn fn, void *arg)
{
	sqlite3_stmt *st = stmt(q, S_SLAB_LATEST);
	int rc, n = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_slab s = { sqlite3_column_int64(st, 0), col_text(st, 1), sqlite3_column_int64(st, 2),
					sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4),
					sqlite3_column_int64(st, 5), sqlite3_column_int64(st, 6), (int)col_i64(st, 7) };
		if (row_take(q, st, &n) < 0)
			return -1;
		if (fn(arg, &s) != 0)
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}

int query_failure_times(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int limit,
			query_alloc_failure_fn fn, void *arg)
{
	sqlite3_stmt *st = stmt(q, S_FAILURE_TIMES);
	int rc, n = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, lo_of(from_ms));
	sqlite3_bind_int64(st, 3, hi_of(to_ms));
	sqlite3_bind_int64(st, 4, limit < 0 ? 0 : limit > QUERY_MAX_ROWS ? QUERY_MAX_ROWS : limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_alloc_failure f = { 0 };

		f.ts_ms = sqlite3_column_int64(st, 0);
		f.order = col_i64(st, 1);
		f.gfp_flags = col_text(st, 2);
		f.pid = -1;
		n++;
		if (fn(arg, &f) != 0)
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}
