/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * statements: the writer's prepared statements; see statements.h.
 *
 * Column lists that repeat per field or per order are generated from
 * store/fields.h, so adding a field there changes every statement at once.
 * Parameters past the fixed leading ones are unnumbered ("?" is the
 * previous number plus one), so each generated column gets the next one.
 */
#include "store/statements.h"

#include <stdio.h>
#include <string.h>

#include "store/fields.h"
#include "store/store.h"

/* ", col" / ", col_sum" per meminfo field (X(i, name, col)) or churn column (X(i, col)); ", ?" per field. */
#define X_COL(i, name, col) ", " #col
#define X_CCOL(i, col) ", " #col
#define X_SUM(i, name, col) ", " #col "_sum"
#define X_CSUM(i, col) ", " #col "_sum"
#define X_PARAM(i, name, col) ", ?"
#define X_CPARAM(i, col) ", ?"
#define X_NONE(i, col)
/* The merges of a bucket seen twice: a meminfo sum is NULL when either side lacks it; churn sums add. */
#define X_SUMUP(i, name, col) ", " #col "_sum = CASE WHEN " #col "_sum IS NULL OR excluded." #col "_sum IS NULL" \
	" THEN NULL ELSE " #col "_sum + excluded." #col "_sum END"
#define X_CSUMUP(i, col) ", " #col "_sum = coalesce(" #col "_sum, 0) + coalesce(excluded." #col "_sum, 0)"

/* Per order k (X(k)): the o/f/h/u columns, a parameter, and buddy_wide_rollup's merges. */
#define X_O(k) ", o" #k
#define X_F(k) ", f" #k
#define X_H(k) ", h" #k
#define X_U(k) ", u" #k
#define X_OPARAM(k) ", ?"
#define X_FSUMUP(k) ", f" #k " = coalesce(f" #k " + excluded.f" #k ", f" #k ", excluded.f" #k ")"
#define X_HSUMUP(k) ", h" #k " = coalesce(h" #k " + excluded.h" #k ", h" #k ", excluded.h" #k ")"
#define X_UMAXUP(k) ", u" #k " = coalesce(max(u" #k ", excluded.u" #k "), u" #k ", excluded.u" #k ")"

static const char *const STMT_SQL[S_COUNT] = {
	/* ?1 run, ?2 ts, ?3 sample_us, then the meminfo columns, the churn columns the row keeps, the hot
	 * vmstat columns (meminfo and vmstat less the minute's sample_key), the request's id (schema 019). */
	[S_SAMPLE] = "INSERT OR REPLACE INTO samples(run_id, ts_ms, sample_us" STORE_MEMINFO_FIELDS(X_COL)
		     STORE_CHURN_FIELDS2(X_CCOL, X_NONE) STORE_VMSTAT_HOT(X_COL) ", req_id) VALUES (?1, ?2, ?3"
		     STORE_MEMINFO_FIELDS(X_PARAM) STORE_CHURN_FIELDS2(X_CPARAM, X_NONE) STORE_VMSTAT_HOT(X_PARAM) ", ?)",
	/* ?1 run, ?2 ts, then the rare churn counts: only for a tick where one is not zero. */
	[S_RARE] = "INSERT OR REPLACE INTO churn_rare(run_id, ts_ms" STORE_CHURN_FIELDS2(X_NONE, X_CCOL) ") VALUES (?1, ?2"
		   STORE_CHURN_FIELDS2(X_NONE, X_CPARAM) ")",
	/* A minute's key: ?1 run, ?2 minute, then the meminfo and hot vmstat values of its first tick. */
	[S_KEY_GET] = "SELECT 1" STORE_MEMINFO_FIELDS(X_COL) STORE_VMSTAT_HOT(X_COL) " FROM sample_key"
		      " WHERE run_id = ?1 AND bucket_ms = ?2",
	[S_KEY_PUT] = "INSERT INTO sample_key(run_id, bucket_ms" STORE_MEMINFO_FIELDS(X_COL) STORE_VMSTAT_HOT(X_COL)
		      ") VALUES (?1, ?2" STORE_MEMINFO_FIELDS(X_PARAM) STORE_VMSTAT_HOT(X_PARAM) ")",
	/* A request verdict's id within its run (?1), numbered in order of first use. */
	[S_REQ_GET] = "SELECT req_id FROM requests WHERE run_id = ?1 AND req_norders = ?2 AND req_atomic_mask = ?3"
		      " AND req_nowait_mask = ?4 AND req_kernel_mask = ?5 AND req_zones_lo = ?6 AND req_zones_hi = ?7",
	[S_REQ_PUT] = "INSERT INTO requests(run_id, req_id, " STORE_REQUEST_COLS ") SELECT ?1, coalesce(max(req_id), 0) + 1,"
		      " ?2, ?3, ?4, ?5, ?6, ?7 FROM requests WHERE run_id = ?1",
	/* ?5.. the free blocks of orders 0..15 */
	[S_BUDDY] = "INSERT OR REPLACE INTO buddy(run_id, ts_ms, zone_id, norders" STORE_ORDERS(X_O)
		    ") VALUES (?1, ?2, ?3, ?4" STORE_ORDERS(X_OPARAM) ")",
	[S_VMSTAT] = "INSERT OR REPLACE INTO vmstat(run_id, ts_ms, name_id, value) VALUES (?1, ?2, ?3, ?4)",
	[S_NAME] = "INSERT OR IGNORE INTO names(name_id, source, name) VALUES (?1, ?2, ?3)",
	[S_ZONE] = "INSERT OR IGNORE INTO zones(zone_id, node, name) VALUES (?1, ?2, ?3)",
	[S_BEGIN] = "BEGIN IMMEDIATE",
	[S_COMMIT] = "COMMIT",
	[S_ROLLBACK] = "ROLLBACK",
	[S_EVENT] = "INSERT INTO kmsg_events(run_id, ts_ms, boot_id, seq, kind, comm, pid, page_order, gfp_mask,"
		    " gfp_flags, nodemask, constraint_info, count, raw, task_ppid, task_cgroup) VALUES (?1, ?2, ?3, ?4,"
		    " ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
	[S_CURSOR] = "INSERT OR REPLACE INTO kmsg_cursor(boot_id, last_seq) VALUES (?1, ?2)",
	[S_COUNTER] = "INSERT OR REPLACE INTO counters(run_id, ts_ms, name_id, value) VALUES (?1, ?2, ?3, ?4)",
	/* ?8.. the free blocks of orders 0..15 */
	[S_PTFREE] = "INSERT OR REPLACE INTO pagetype_free(run_id, ts_ms, zone_id, type_id, norders, capped_mask,"
		     " blocks" STORE_ORDERS(X_O) ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7" STORE_ORDERS(X_OPARAM) ")",
	[S_SLOW] = "INSERT OR REPLACE INTO slow_samples(run_id, ts_ms, pageblock_order, pagetype_us, slabinfo_us)"
		   " VALUES (?1, ?2, ?3, ?4, ?5)",
	[S_SLAB] = "INSERT OR REPLACE INTO slab(run_id, ts_ms, name_id, active_objs, num_objs, objsize, objperslab,"
		   " pagesperslab) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	/* detail stays NULL: v_probes makes it from the probe's columns (schema 015). */
	[S_PROBE] = "INSERT OR REPLACE INTO probes(run_id, ts_ms, kind, result, stop_reason, duration_ms,"
		    " buddyinfo_before, gfp_mode) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[S_PROBE_CAP] = "INSERT OR REPLACE INTO probe_capacity(run_id, ts_ms, scope, probe_limit, spawned, ready, oom_kills,"
			" worker_memory, fpu, mem_limit, mem_peak, retire_ms, release_ms, fork_charge, cgroup, mem_limit_lifted,"
			" pids_limit, gfp_failed, time_limit_ms, timeout) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
			" ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
	[S_PROBE_SW] = "INSERT OR REPLACE INTO probe_switch(run_id, ts_ms, fpu, threads, yields, sys_us, user_us, base_yields,"
		       " base_sys_us, base_user_us, wall_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	[S_MODEL_CHECK] = "INSERT OR REPLACE INTO model_check(run_id, ts_ms, page_order, mode, predicted_ok, actual_ok,"
			  " margin_pages) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[S_ATOMIC] = "INSERT OR REPLACE INTO atomic_risk(run_id, ts_ms, zone_id, norders, atomic_mask, kernel_mask,"
		     " margin0, kernel_margin0, legacy) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[S_TICK_LATE] = "INSERT OR REPLACE INTO tick_late(run_id, ts_ms, late_ms, missed) VALUES (?1, ?2, ?3, ?4)",
	[S_HAS_SAMPLE] = "SELECT 1 FROM samples WHERE run_id = ?1 AND ts_ms = ?2",
	[S_TICKS] = "UPDATE runs SET ticks = ticks + ?2 WHERE run_id = ?1",
	/* A bucket seen twice (the wall clock stepped back into it) is merged, not overwritten. */
	[S_ROLL_BUDDY] = "INSERT INTO buddy_rollup(run_id, tier, bucket_ms, zone_id, page_order, n, free_min, free_max,"
			 " free_sum, free_last, head_min, head_max, head_sum, head_last, unusable_max, atomic_n,"
			 " atomic_fail_n, atomic_only_n, kernel_fail_n, margin_min, kernel_margin_min) VALUES (?1, ?2, ?3,"
			 " ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)"
			 " ON CONFLICT (run_id, tier, zone_id, page_order, bucket_ms) DO UPDATE SET n = n + excluded.n,"
			 " free_min = min(free_min, excluded.free_min), free_max = max(free_max, excluded.free_max),"
			 " free_sum = free_sum + excluded.free_sum, free_last = excluded.free_last,"
			 " head_min = min(head_min, excluded.head_min), head_max = max(head_max, excluded.head_max),"
			 " head_sum = head_sum + excluded.head_sum, head_last = excluded.head_last,"
			 " unusable_max = max(unusable_max, excluded.unusable_max),"
			 " atomic_n = coalesce(atomic_n, 0) + excluded.atomic_n,"
			 " atomic_fail_n = coalesce(atomic_fail_n, 0) + excluded.atomic_fail_n,"
			 " atomic_only_n = coalesce(atomic_only_n, 0) + excluded.atomic_only_n,"
			 " kernel_fail_n = coalesce(kernel_fail_n, 0) + excluded.kernel_fail_n,"
			 " margin_min = coalesce(min(margin_min, excluded.margin_min), margin_min, excluded.margin_min),"
			 " kernel_margin_min = coalesce(min(kernel_margin_min, excluded.kernel_margin_min),"
			 " kernel_margin_min, excluded.kernel_margin_min)",
	/* ?7.. the free sums of orders 0..15, then the headroom sums, then the worst unusable indices. */
	[S_ROLL_WIDE] = "INSERT INTO buddy_wide_rollup(run_id, tier, bucket_ms, zone_id, n, norders" STORE_ORDERS(X_F)
			STORE_ORDERS(X_H) STORE_ORDERS(X_U) ") VALUES (?1, ?2, ?3, ?4, ?5, ?6" STORE_ORDERS(X_OPARAM)
			STORE_ORDERS(X_OPARAM) STORE_ORDERS(X_OPARAM)
			") ON CONFLICT (run_id, tier, zone_id, bucket_ms) DO UPDATE SET n = n + excluded.n,"
			" norders = max(norders, excluded.norders)" STORE_ORDERS(X_FSUMUP) STORE_ORDERS(X_HSUMUP)
			STORE_ORDERS(X_UMAXUP),
	/* ?1 run, ?2 tier, ?3 bucket, ?4 n, ?5 sample cost, the meminfo sums, ticks with churn, peak population,
	 * the churn sums. */
	[S_ROLL_TICK] = "INSERT INTO tick_rollup(run_id, tier, bucket_ms, n, sample_us_sum" STORE_MEMINFO_FIELDS(X_SUM)
			", churn_n, population_max" STORE_CHURN_FIELDS(X_CSUM) ", first_ms, last_ms) VALUES (?1, ?2, ?3,"
			" ?4, ?5" STORE_MEMINFO_FIELDS(X_PARAM) ", ?, ?" STORE_CHURN_FIELDS(X_CPARAM) ", ?, ?)"
			" ON CONFLICT (run_id, tier, bucket_ms) DO UPDATE SET n = n + excluded.n,"
			" sample_us_sum = sample_us_sum + excluded.sample_us_sum" STORE_MEMINFO_FIELDS(X_SUMUP)
			", churn_n = churn_n + excluded.churn_n,"
			" population_max = coalesce(max(population_max, excluded.population_max), population_max,"
			" excluded.population_max)" STORE_CHURN_FIELDS(X_CSUMUP) ","
			" first_ms = coalesce(min(first_ms, excluded.first_ms), first_ms, excluded.first_ms),"
			" last_ms = coalesce(max(last_ms, excluded.last_ms), last_ms, excluded.last_ms)",
	[S_ROLL_REQUEST] = "INSERT INTO request_rollup(run_id, tier, bucket_ms, page_order, n, atomic_fail, nowait_fail,"
			   " kernel_fail, atomic_only, nowait_only) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
			   " ON CONFLICT (run_id, tier, page_order, bucket_ms) DO UPDATE SET n = n + excluded.n,"
			   " atomic_fail = atomic_fail + excluded.atomic_fail, nowait_fail = nowait_fail + excluded.nowait_fail,"
			   " kernel_fail = kernel_fail + excluded.kernel_fail, atomic_only = atomic_only + excluded.atomic_only,"
			   " nowait_only = nowait_only + excluded.nowait_only",
	[S_ROLL_STATE] = "INSERT INTO rollup_state(run_id, tier, next_ms) VALUES (?1, ?2, ?3)"
			 " ON CONFLICT (run_id, tier) DO UPDATE SET next_ms = max(next_ms, excluded.next_ms)",
	[S_FRAGMENT] = "INSERT OR REPLACE INTO fragment(run_id, ts_ms, state, cycles, anon_bytes, pipe_bytes, pgtable_bytes,"
		       " socket_bytes, files, kept_bytes, alloc_failed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	[S_TFAIL] = "INSERT INTO trace_failures(run_id, ts_ms, comm, pid, page_order, gfp_mask, gfp_flags, migratetype,"
		    " nowarn, opportunistic, atomic, class, task_ppid, task_cgroup) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		    " ?9, ?10, ?11, ?12, ?13, ?14)",
	/* The same kind at the same tick twice (a read split over two drains) adds up. */
	[S_XFRAG] = "INSERT INTO extfrag(run_id, ts_ms, alloc_order, fallback_order, alloc_migratetype,"
		    " fallback_migratetype, events, fragmenting) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
		    " ON CONFLICT DO UPDATE SET events = events + excluded.events",
	[S_ROLL_TRACE] = "INSERT INTO trace_rollup(run_id, tier, bucket_ms, n, failures, extfrag, fragmenting)"
			 " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (run_id, tier, bucket_ms) DO UPDATE SET"
			 " n = n + excluded.n, failures = failures + excluded.failures, extfrag = extfrag + excluded.extfrag,"
			 " fragmenting = fragmenting + excluded.fragmenting",
	[S_ROLL_TFAIL] = "INSERT INTO trace_fail_rollup(run_id, tier, bucket_ms, page_order, class, failures)"
			 " VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (run_id, tier, bucket_ms, page_order, class)"
			 " DO UPDATE SET failures = failures + excluded.failures",
	[S_CAUSE] = "INSERT INTO failure_cause(run_id, ts_ms, source, comm, pid, page_order, gfp_flags, decided_node,"
		    " decided_name, free_kb, min_kb, largest_order, cause, lag_ms, note)"
		    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
	[S_ROLL_CAUSE] = "INSERT INTO failure_cause_rollup(run_id, tier, bucket_ms, source, cause, page_order, failures)"
			 " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (run_id, tier, bucket_ms, source, cause,"
			 " page_order) DO UPDATE SET failures = failures + excluded.failures",
};

int stmts_prepare(struct stmts *p, sqlite3 *db, const char *path, char *err, size_t errlen)
{
	for (int i = 0; i < S_COUNT; i++)
		if (sqlite3_prepare_v3(db, STMT_SQL[i], -1, SQLITE_PREPARE_PERSISTENT, &p->s[i], NULL) != SQLITE_OK) {
			snprintf(err, errlen, "%s: preparing statement: %s", path, sqlite3_errmsg(db));
			return -1;
		}
	return 0;
}

void stmts_finalize(struct stmts *p)
{
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(p->s[i]);
	memset(p->s, 0, sizeof p->s);
}

int stmts_step(struct stmts *p, enum stmt_id id)
{
	sqlite3_stmt *s = p->s[id];
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}
