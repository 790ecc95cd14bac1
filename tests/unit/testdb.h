/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * testdb.h: a database with known content for test_query and test_web.
 *
 * The schema is the embedded migrations (the same SQL the daemon applies);
 * rows come from the formulas below, so a test can compute every expected
 * figure by hand, independently of the store reader.  Run 1 holds hostile
 * strings (markup, quotes, invalid UTF-8, a spreadsheet formula) where the
 * kernel or a user could put them.
 *
 *   run 1: finished ("stopped"), T1 = 2024-06-01T12:00:00Z, 600 ticks exactly
 *          1000 ms apart; zones (0,DMA) (0,DMA32) (0,Normal) (1,Mo"v<b>)
 *   run 2: label "=cmd|' /C calc'!A0", no ticks, crashed
 *   run 3: the current run: running (no end), T2 = T1 + 1 h, 300 ticks at
 *          T2 + 1000 i + (7 i) % 10 ms (jitter); zones (0,DMA) (0,DMA32) (0,Normal)
 *   buddy o_k at tick i of zone z:  testdb_free(run, i, z, k)
 *   meminfo MemFree = 4000000 - 100 i, MemAvailable = 6000000 - 50 i (kB)
 *   vmstat compact_stall: 100 at tick 0, +3 at every tick with i % 10 == 0 (stored on change)
 *          pgfault: 1000 i (the samples column, every tick); compact_fail: 7, rows at ticks 0, 60, 120, ...
 *   kmsg_events of run 1: alloc_fail at ticks 100 (comm tdb_comm1, order 3), 200 (tdb_comm2,
 *          order 0), 300 ("kworker/0:1", order 9); an oom_kill at tick 400 (not a failure);
 *          run 3: alloc_fail at tick 50 (comm "victim3", order 3, GFP_ATOMIC|__GFP_NOWARN)
 *   buddy_rollup: minute rows of runs 1 and 3 built here in SQL over v_frag_x1000 (10 and 5 minutes)
 *   churn (every tick of runs 1 and 3): testdb_churn(run, i, column) below
 *   probes: tdb_probes[] below (run 1: 5 capacity + 2 switch, hostile detail; run 3: 5 + 2)
 *   atomic_risk (every tick and zone of runs 1 and 3): kernel passes every order but 8..10 in DMA;
 *          atomic fails order 3 in Normal when i % 10 < 2 (run 1) or < 5 (run 3); margin0 1000 - i
 *   the request (samples' req_* columns, every tick of runs 1 and 3): as if only Normal had order-3
 *          blocks: GFP_ATOMIC and GFP_NOWAIT fail order 3 exactly when Normal's atomic does, GFP_KERNEL
 *          passes every order; served from Normal (zone 3) wherever it passes
 *   tick_rollup keeps each minute's first and last tick, request_rollup the request per minute (schema 7)
 *   slow samples of run 1 at ticks 0, 60, ... 540: pageblock order 9; slabinfo task_struct
 *          (6592-byte objects, 8 pages per slab: order 3), mm_struct (order 2), "<img src=x>" (order 0);
 *          pagetypeinfo of zones 1..3 x Unmovable, Movable, Reclaimable, HighAtomic; Movable order 0
 *          printed as ">100000"; run 3 has none (order of interest 3 by default, no pageblock order)
 *   the trace: testdb_trace() below (run 1 on, run 3 off, run 2 no note)
 */
#ifndef FPUSOAK_TESTDB_H
#define FPUSOAK_TESTDB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/migrations.h"

#define TDB_T1 INT64_C(1717243200000)
#define TDB_T2 (TDB_T1 + 3600000)
#define TDB_N1 600
#define TDB_N2 300
#define TDB_NORDERS 11
#define TDB_FILL_SCHEMA 18    /* the schema the rows are written in (schema/019 moved samples' columns) */

static const char tdb_label1[] = "<script>alert(1)</script> \"q\" 'a' & \xff\xfe end";
/* What a valid-UTF-8 rendering of tdb_label1 holds: each invalid byte as U+FFFD. */
static const char tdb_label1_utf8[] = "<script>alert(1)</script> \"q\" 'a' & \xef\xbf\xbd\xef\xbf\xbd end";
static const char tdb_label3[] = "=cmd|' /C calc'!A0";
static const char tdb_cmdline1[] = "root=/dev/xvda1 eagerfpu=on \"><img src=x onerror=alert(1)>";
static const char tdb_zone4[] = "Mo\"v<b>";
static const char tdb_comm1[] = "<script>alert(1)</script>\xff";   /* stored as a BLOB, 26 bytes */
static const char tdb_comm2[] = "=evil,\"x\"";

static inline int64_t testdb_ts(int run, int i)
{
	return run == 1 ? TDB_T1 + (int64_t)i * 1000 : TDB_T2 + (int64_t)i * 1000 + (i * 7) % 10;
}

static inline int64_t testdb_free(int run, int i, int zone, int k)
{
	return (run == 1 ? 1000 : 3000) + (37 * i + 11 * zone * k + 5 * k) % 5000 - 40 * k;
}

static inline int64_t testdb_stall(int i)
{
	return 100 + 3 * (i / 10);
}

static inline int testdb_exec(sqlite3 *db, const char *sql)
{
	char *e = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &e) != SQLITE_OK) {
		fprintf(stderr, "testdb: %s: %s\n", sql, e ? e : "?");
		sqlite3_free(e);
		return -1;
	}
	return 0;
}

static inline int testdb_tick(sqlite3 *db, sqlite3_stmt *const *st, int run, int i, int nzones)
{
	int64_t ts = testdb_ts(run, i);

	sqlite3_bind_int64(st[0], 1, run);
	sqlite3_bind_int64(st[0], 2, ts);
	sqlite3_bind_int64(st[0], 3, 500 + i % 100);
	if (sqlite3_step(st[0]) != SQLITE_DONE)
		return -1;
	sqlite3_reset(st[0]);
	for (int z = 1; z <= nzones; z++) {
		sqlite3_bind_int64(st[1], 1, run);
		sqlite3_bind_int64(st[1], 2, ts);
		sqlite3_bind_int64(st[1], 3, z);
		sqlite3_bind_int64(st[1], 4, TDB_NORDERS);
		for (int k = 0; k < TDB_NORDERS; k++)
			sqlite3_bind_int64(st[1], 5 + k, testdb_free(run, i, z, k));
		if (sqlite3_step(st[1]) != SQLITE_DONE)
			return -1;
		sqlite3_reset(st[1]);
	}
	/* meminfo: names 1 MemFree, 2 MemAvailable; vmstat: 3 compact_stall, 4 pgfault, 5 compact_fail */
	for (int m = 1; m <= 2; m++) {
		sqlite3_bind_int64(st[2], 1, run);
		sqlite3_bind_int64(st[2], 2, ts);
		sqlite3_bind_int64(st[2], 3, m);
		sqlite3_bind_int64(st[2], 4, m == 1 ? 4000000 - 100 * i : 6000000 - 50 * i);
		if (sqlite3_step(st[2]) != SQLITE_DONE)
			return -1;
		sqlite3_reset(st[2]);
	}
	for (int v = 3; v <= 5; v++) {
		int64_t val;
		if (v == 3 && !(i == 0 || i % 10 == 0))
			continue;
		if (v == 5 && i % 60 != 0)
			continue;
		val = v == 3 ? testdb_stall(i) : v == 4 ? 1000 * (int64_t)i : 7;
		if (v == 4) {
			/* pgfault is a samples column since schema 006 (store/fields.h STORE_VMSTAT_HOT). */
			char sql[160];
			snprintf(sql, sizeof sql, "UPDATE samples SET pgfault = %lld WHERE run_id = %d AND ts_ms = %lld",
				 (long long)val, run, (long long)ts);
			if (testdb_exec(db, sql) < 0)
				return -1;
			continue;
		}
		sqlite3_bind_int64(st[3], 1, run);
		sqlite3_bind_int64(st[3], 2, ts);
		sqlite3_bind_int64(st[3], 3, v);
		sqlite3_bind_int64(st[3], 4, val);
		if (sqlite3_step(st[3]) != SQLITE_DONE)
			return -1;
		sqlite3_reset(st[3]);
	}
	return 0;
}

/* Churn columns in v_churn order: spawned, eagain, enomem, other, exited, sigkill, sigsegv, sigill, sigother, oom, exited_error. */
static inline int64_t testdb_churn(int run, int i, int col)
{
	int64_t kill = run == 1 ? (i % 150 == 0) : (i % 100 == 0), segv = run == 1 && i == 300, ill = run == 3 && i == 250;
	int64_t spawned = run == 1 ? 2 : 1;

	switch (col) {
	case 0: return spawned;
	case 1: return run == 1 ? (i % 100 == 50) : (i % 30 == 5);
	case 2: return run == 1 ? (i % 200 == 10) : (i % 60 == 7);
	case 3: return run == 3 && i == 100;
	case 4: return spawned - kill - segv - ill;
	case 5: return kill;
	case 6: return segv;
	case 7: return ill;
	case 8: return 0;
	case 9: return kill;
	default: return 0;
	}
}

static inline int64_t testdb_population(int run, int i)
{
	return (run == 1 ? 20 : 10) + i % 5;
}

static const struct tdb_probe {
	int run, tick;
	const char *kind;
	double result;
	const char *stop, *detail;
} tdb_probes[] = {
	{ 1, 30, "capacity", 256, "spawn failed: ENOMEM", "<b>held=256</b> & \"x\"" },
	{ 1, 150, "capacity", 252, "worker died", "held=252" },
	{ 1, 270, "capacity", 258, "worker_died:SIGKILL", "held=258" },
	{ 1, 390, "capacity", 250, "worker_died:SIGKILL", "held=250" },
	{ 1, 510, "capacity", 254, "worker_died:SIGKILL", "held=254" },
	{ 1, 60, "switch", 1.5, "done", "threads=64" },
	{ 1, 300, "switch", 1.7, "done", "threads=64" },
	{ 3, 20, "capacity", 228, "worker_died:SIGKILL", "held=228" },
	{ 3, 80, "capacity", 231, "worker_died:SIGKILL", "held=231" },
	{ 3, 140, "capacity", 226, "worker_died:SIGKILL", "held=226" },
	{ 3, 200, "capacity", 229, "worker_died:SIGKILL", "held=229" },
	{ 3, 260, "capacity", 230, "worker_died:SIGKILL", "held=230" },
	{ 3, 100, "switch", 2.4, "done", "threads=64" },
	{ 3, 200, "switch", 2.2, "done", "threads=64" },
};

static inline int testdb_atomic_fails(int run, int i, int zone, int k)
{
	return zone == 3 && k == 3 && i % 10 < (run == 1 ? 2 : 5);
}

static inline int testdb_kernel_fails(int zone, int k)
{
	return zone == 1 && k >= 8;
}

/* The per-zone wide rollup rows, pivoted from buddy_rollup in SQL; 0 or -1. */
static inline int testdb_wide_rollup(sqlite3 *db)
{
	static const char *const col[3] = { "free_sum", "head_sum", "unusable_max" };
	char sql[8192];
	size_t n = (size_t)snprintf(sql, sizeof sql, "INSERT INTO buddy_wide_rollup SELECT run_id, tier, bucket_ms, "
				    "zone_id, max(n), max(page_order) + 1");

	for (int c = 0; c < 3; c++)
		for (int k = 0; k < 16; k++)
			n += (size_t)snprintf(sql + n, sizeof sql - n, ", sum(CASE page_order WHEN %d THEN %s END)", k, col[c]);
	snprintf(sql + n, sizeof sql - n, " FROM buddy_rollup GROUP BY run_id, tier, bucket_ms, zone_id");
	return testdb_exec(db, sql);
}

/*
 * The trace (schema 008): run 1 had tracefs on, run 3 off, run 2 has no note.
 * Run 1's traced failures: tick 100 the kernel log's tdb_comm1 failure (order 3,
 * GFP_KERNEL|__GFP_COMP: sleeping, linked), 150 "x<y>" order 0 GFP_NOWAIT|__GFP_NOWARN
 * (atomic), 160 order 3 GFP_KERNEL|__GFP_NOWARN|__GFP_NORETRY|__GFP_COMP
 * (opportunistic), 500 "<...>" order 0 atomic; minute m of run 1 rolls up
 * those failures and m fallbacks, all fragmenting (a rising trend: +60/h per
 * minute); three raw extfrag rows at tick 540.
 */
static inline int testdb_trace(sqlite3 *db)
{
	char sql[2048];

	snprintf(sql, sizeof sql,
		 "INSERT INTO run_notes VALUES (1, %lld, 'tracefs', 'tracefs=on (/sys/kernel/tracing/instances/fpusoakd-100-200;"
		 " mm_page_alloc failures (in-kernel filter pfn == 0xffffffffffffffff); mm_page_alloc_extfrag in-kernel"
		 " histograms (3 hist triggers: keys alloc_order,fallback_order,fallback_migratetype, one per"
		 " alloc_migratetype); 64 KiB per CPU, mono clock)'), (3, %lld, 'tracefs', 'tracefs=off (not mounted:"
		 " neither /sys/kernel/tracing nor /sys/kernel/debug/tracing is tracefs)');"
		 "INSERT INTO trace_failures (run_id, ts_ms, comm, pid, page_order, gfp_mask, gfp_flags, migratetype, nowarn,"
		 " opportunistic, atomic, class) VALUES (1, %lld, CAST('%s' AS BLOB), 1234, 3, 1313984, 'GFP_KERNEL|__GFP_COMP', 0, 0, 0, 0, 0),"
		 " (1, %lld, CAST('x<y>' AS BLOB), 55, 0, 10240, 'GFP_NOWAIT|__GFP_NOWARN', 0, 1, 0, 1, 1),"
		 " (1, %lld, CAST('kworker/1:2' AS BLOB), 56, 3, 339136, 'GFP_KERNEL|__GFP_NOWARN|__GFP_NORETRY|__GFP_COMP', 0, 1, 1, 0, 2),"
		 " (1, %lld, CAST('<...>' AS BLOB), 57, 0, 10240, 'GFP_NOWAIT|__GFP_NOWARN', 1, 1, 0, 1, 1);"
		 "INSERT INTO extfrag VALUES (1, %lld, 0, 7, 1, 0, 3, 1), (1, %lld, 0, 9, 0, 1, 1, 0), (1, %lld, 2, 8, 2, 0, 5, 1);",
		 (long long)testdb_ts(1, 0), (long long)testdb_ts(3, 0), (long long)testdb_ts(1, 100), tdb_comm1,
		 (long long)testdb_ts(1, 150), (long long)testdb_ts(1, 160), (long long)testdb_ts(1, 500),
		 (long long)testdb_ts(1, 540), (long long)testdb_ts(1, 540), (long long)testdb_ts(1, 540));
	if (testdb_exec(db, sql) < 0)
		return -1;
	for (int m = 0; m < 10; m++) {
		int64_t b = TDB_T1 + m * 60000;
		int f = (m == 1) + (m == 2) * 2 + (m == 8);    /* ticks 100; 150, 160; 500 */
		snprintf(sql, sizeof sql, "INSERT INTO trace_rollup VALUES (1, 60000, %lld, 60, %d, %d, %d)",
			 (long long)b, f, m, m);
		if (testdb_exec(db, sql) < 0)
			return -1;
	}
	return testdb_exec(db, "INSERT INTO trace_rollup VALUES (1, 3600000, " "1717243200000" ", 600, 4, 45, 45);"
			   "INSERT INTO trace_fail_rollup VALUES (1, 60000, 1717243260000, 3, 0, 1), (1, 60000, 1717243320000, 0, 1, 1),"
			   " (1, 60000, 1717243320000, 3, 2, 1), (1, 60000, 1717243680000, 0, 1, 1),"
			   " (1, 3600000, 1717243200000, 0, 1, 2), (1, 3600000, 1717243200000, 3, 0, 1),"
			   " (1, 3600000, 1717243200000, 3, 2, 1)");
}


/* The report's tables (schema 002-004); 0 or -1. */
static inline int testdb_report(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int ok = -1;

	/* Minute rollups as the store makes them, written independently here: windowed SQL over v_frag_x1000. */
	if (testdb_exec(db, "INSERT INTO buddy_rollup (run_id, tier, bucket_ms, zone_id, page_order, n, free_min, free_max, "
			    "free_sum, free_last, head_min, head_max, head_sum, head_last, unusable_max) "
			    "SELECT run_id, 60000, bk, zone_id, page_order, count(*), "
			    "min(free_blocks), max(free_blocks), sum(free_blocks), max(CASE WHEN rn = 1 THEN free_blocks END), "
			    "min(headroom_blocks), max(headroom_blocks), sum(headroom_blocks), "
			    "max(CASE WHEN rn = 1 THEN headroom_blocks END), max(unusable_x1000) FROM "
			    "(SELECT *, ts_ms / 60000 * 60000 AS bk, row_number() OVER (PARTITION BY run_id, zone_id, page_order, "
			    "ts_ms / 60000 ORDER BY ts_ms DESC) AS rn FROM v_frag_x1000) GROUP BY run_id, zone_id, page_order, bk") < 0)
		return -1;
	if (sqlite3_prepare_v2(db, "UPDATE samples SET population = ?3, spawned = ?4, spawn_failed_eagain = ?5, "
			       "spawn_failed_enomem = ?6, spawn_failed_other = ?7, exited = ?8, killed_sigkill = ?9, "
			       "killed_sigsegv = ?10, killed_sigill = ?11, killed_other = ?12, oom_killed = ?13, "
			       "exited_error = ?14 WHERE run_id = ?1 AND ts_ms = ?2", -1, &st, NULL) != SQLITE_OK)
		return -1;
	for (int run = 1; run <= 3; run += 2)
		for (int i = 0; i < (run == 1 ? TDB_N1 : TDB_N2); i++) {
			sqlite3_bind_int64(st, 1, run);
			sqlite3_bind_int64(st, 2, testdb_ts(run, i));
			sqlite3_bind_int64(st, 3, testdb_population(run, i));
			for (int c = 0; c < 11; c++)
				sqlite3_bind_int64(st, 4 + c, testdb_churn(run, i, c));
			if (sqlite3_step(st) != SQLITE_DONE)
				goto out;
			sqlite3_reset(st);
		}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "INSERT INTO probes VALUES (?1, ?2, ?3, ?4, ?5, 1500, ?6, NULL, NULL)", -1, &st, NULL) != SQLITE_OK)
		return -1;
	for (size_t p = 0; p < sizeof tdb_probes / sizeof tdb_probes[0]; p++) {
		sqlite3_bind_int64(st, 1, tdb_probes[p].run);
		sqlite3_bind_int64(st, 2, testdb_ts(tdb_probes[p].run, tdb_probes[p].tick));
		sqlite3_bind_text(st, 3, tdb_probes[p].kind, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 4, tdb_probes[p].result);
		sqlite3_bind_text(st, 5, tdb_probes[p].stop, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, tdb_probes[p].detail, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "INSERT INTO atomic_risk (run_id, ts_ms, zone_id, norders, atomic_mask, kernel_mask, margin0, "
			       "kernel_margin0, legacy) VALUES (?1, ?2, ?3, 11, ?4, ?5, ?6, ?7, 0)", -1, &st, NULL) != SQLITE_OK)
		return -1;
	for (int run = 1; run <= 3; run += 2)
		for (int i = 0; i < (run == 1 ? TDB_N1 : TDB_N2); i++)
			for (int z = 1; z <= 3; z++) {
				int64_t am = 0, km = 0;
				for (int k = 0; k < 11; k++) {
					km |= (int64_t)!testdb_kernel_fails(z, k) << k;
					am |= (int64_t)(!testdb_kernel_fails(z, k) && !testdb_atomic_fails(run, i, z, k)) << k;
				}
				sqlite3_bind_int64(st, 1, run);
				sqlite3_bind_int64(st, 2, testdb_ts(run, i));
				sqlite3_bind_int64(st, 3, z);
				sqlite3_bind_int64(st, 4, am);
				sqlite3_bind_int64(st, 5, km);
				sqlite3_bind_int64(st, 6, 1000 - i);
				sqlite3_bind_int64(st, 7, 2000 - i);
				if (sqlite3_step(st) != SQLITE_DONE)
					goto out;
				sqlite3_reset(st);
			}
	sqlite3_finalize(st);
	st = NULL;
	/* The request: order 3 fails with Normal's atomic; every passing order is served from Normal (3). */
	if (sqlite3_prepare_v2(db, "UPDATE samples SET req_norders = 11, req_atomic_mask = ?3, req_nowait_mask = ?3, "
			       "req_kernel_mask = 2047, req_zones_lo = ?4, req_zones_hi = ?5 WHERE run_id = ?1 AND ts_ms = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	for (int run = 1; run <= 3; run += 2)
		for (int i = 0; i < (run == 1 ? TDB_N1 : TDB_N2); i++) {
			int64_t am = 2047 & ~((int64_t)testdb_atomic_fails(run, i, 3, 3) << 3), lo = 0, hi = 0;
			for (int k = 0; k < 11; k++) {
				int64_t z = (am >> k) & 1 ? 3 : 255;
				if (k < 8)
					lo |= z << (8 * k);
				else
					hi |= z << (8 * (k - 8));
			}
			sqlite3_bind_int64(st, 1, run);
			sqlite3_bind_int64(st, 2, testdb_ts(run, i));
			sqlite3_bind_int64(st, 3, am);
			sqlite3_bind_int64(st, 4, lo);
			sqlite3_bind_int64(st, 5, hi);
			if (sqlite3_step(st) != SQLITE_DONE)
				goto out;
			sqlite3_reset(st);
		}
	sqlite3_finalize(st);
	st = NULL;
	/* The writer's other rollups, independently: atomic columns from v_atomic_risk, tick_rollup
	 * from v_meminfo / v_churn, the rolled cursor, and the run's tick count. */
	if (testdb_exec(db, "UPDATE buddy_rollup SET (atomic_n, atomic_fail_n, atomic_only_n, kernel_fail_n, margin_min, "
			    "kernel_margin_min) = (SELECT count(*), sum(atomic_ok = 0), sum(atomic_ok = 0 AND kernel_ok = 1), "
			    "sum(kernel_ok = 0), min(margin_pages), min(kernel_margin_pages) FROM v_atomic_risk a JOIN zones z "
			    "ON z.node = a.node AND z.name = a.zone WHERE a.run_id = buddy_rollup.run_id AND "
			    "z.zone_id = buddy_rollup.zone_id AND a.page_order = buddy_rollup.page_order AND "
			    "a.ts_ms / 60000 * 60000 = buddy_rollup.bucket_ms)") < 0 ||
	    testdb_exec(db, "INSERT INTO tick_rollup (run_id, tier, bucket_ms, n, sample_us_sum, mem_free_sum, "
			    "mem_available_sum, churn_n, population_max, population_sum, spawned_sum, spawn_failed_eagain_sum, "
			    "spawn_failed_enomem_sum, spawn_failed_other_sum, exited_sum, killed_sigkill_sum, killed_sigsegv_sum, "
			    "killed_sigill_sum, killed_other_sum, oom_killed_sum, exited_error_sum, first_ms, last_ms) "
			    "SELECT run_id, 60000, ts_ms / 60000 * 60000, count(*), sum(sample_us), "
			    "(SELECT sum(value_kb) FROM v_meminfo m WHERE m.run_id = s.run_id AND m.name = 'MemFree' "
			    " AND m.ts_ms / 60000 = s.ts_ms / 60000), "
			    "(SELECT sum(value_kb) FROM v_meminfo m WHERE m.run_id = s.run_id AND m.name = 'MemAvailable' "
			    " AND m.ts_ms / 60000 = s.ts_ms / 60000), "
			    "count(population), max(population), sum(population), sum(spawned), sum(spawn_failed_eagain), "
			    "sum(spawn_failed_enomem), sum(spawn_failed_other), sum(exited), sum(killed_sigkill), "
			    "sum(killed_sigsegv), sum(killed_sigill), sum(killed_other), sum(oom_killed), sum(exited_error), "
			    "min(ts_ms), max(ts_ms) FROM samples s GROUP BY run_id, ts_ms / 60000") < 0 ||
	    testdb_exec(db, "INSERT INTO request_rollup SELECT run_id, 60000, ts_ms / 60000 * 60000, page_order, count(*), "
			    "sum(atomic_ok = 0), sum(nowait_ok = 0), sum(kernel_ok = 0), sum(atomic_ok = 0 AND kernel_ok = 1), "
			    "sum(nowait_ok = 0 AND kernel_ok = 1) FROM v_atomic_request GROUP BY run_id, ts_ms / 60000, "
			    "page_order") < 0 ||
	    testdb_wide_rollup(db) < 0 ||
	    testdb_exec(db, "INSERT INTO rollup_state SELECT run_id, 60000, max(bucket_ms) + 60000 FROM tick_rollup "
			    "GROUP BY run_id") < 0 ||
	    testdb_exec(db, "UPDATE runs SET ticks = (SELECT count(*) FROM v_samples v WHERE v.run_id = runs.run_id)") < 0)
		goto out;
	if (testdb_exec(db, "INSERT INTO names (name_id, source, name) VALUES (6, 'migratetype', 'Unmovable'), "
			    "(7, 'migratetype', 'Movable'), (8, 'migratetype', 'Reclaimable'), (9, 'migratetype', 'HighAtomic'), "
			    "(10, 'slab', 'task_struct'), (11, 'slab', 'mm_struct'), (12, 'slab', '<img src=x>')") < 0)
		return -1;
	for (int i = 0; i < TDB_N1; i += 60) {
		char sql[1024];
		int64_t ts = testdb_ts(1, i);
		snprintf(sql, sizeof sql, "INSERT INTO slow_samples VALUES (1, %lld, 9, 300, 120); "
			 "INSERT INTO slab VALUES (1, %lld, 10, %d, %d, 6592, 4, 8), (1, %lld, 11, 300, 320, 1024, 32, 4), "
			 "(1, %lld, 12, 5, 10, 64, 64, 1)", (long long)ts, (long long)ts, 400 + i, 440 + i, (long long)ts,
			 (long long)ts);
		if (testdb_exec(db, sql) < 0)
			return -1;
		for (int z = 1; z <= 3; z++)
			for (int t = 6; t <= 9; t++) {
				snprintf(sql, sizeof sql, "INSERT INTO pagetype_free VALUES (1, %lld, %d, %d, 11, %d, %d, "
					 "%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, NULL, NULL, NULL, NULL, NULL)",
					 (long long)ts, z, t, t == 7 ? 1 : 0, 10 * z + t,
					 t == 7 ? 100000 : 100 * z + t + i, 50 + t, 40 + t, 30 + t, 20 + t, 10 + t, 5, 4, 3, 2, 1);
				if (testdb_exec(db, sql) < 0)
					return -1;
			}
	}
	if (testdb_exec(db, "INSERT INTO kmsg_events (run_id, ts_ms, boot_id, seq, kind, comm, pid, page_order, gfp_mask, "
			    "gfp_flags, raw) VALUES (3, " /* tick 50 of run 3 */ "1717246850000, 'boot', 10, 'alloc_fail', "
			    "CAST('victim3' AS BLOB), 77, 3, 2592, 'GFP_ATOMIC|__GFP_NOWARN', 'raw')") < 0)
		return -1;
	if (testdb_trace(db) < 0)
		return -1;
	ok = 0;
out:
	sqlite3_finalize(st);
	return ok;
}

/* meminfo lives in the sample row (schema 005): name 1 is MemFree, 2 MemAvailable. */
#define TDB_MEMINFO_SQL "UPDATE samples SET mem_free = CASE ?3 WHEN 1 THEN ?4 ELSE mem_free END, " \
	"mem_available = CASE ?3 WHEN 2 THEN ?4 ELSE mem_available END WHERE run_id = ?1 AND ts_ms = ?2"

/* Create dir/test.db with the known content; 0 or -1. path gets the DB path. */
static inline int testdb_create(const char *dir, char *path, size_t pathlen)
{
	static const char *const ins[4] = {
		"INSERT INTO samples (run_id, ts_ms, sample_us) VALUES (?1, ?2, ?3)",
		"INSERT INTO buddy (run_id, ts_ms, zone_id, norders, o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
		TDB_MEMINFO_SQL,
		"INSERT INTO vmstat (run_id, ts_ms, name_id, value) VALUES (?1, ?2, ?3, ?4)",
	};
	sqlite3 *db = NULL;
	sqlite3_stmt *st[4] = { 0 }, *run = NULL;
	char sql[128];
	int ok = -1;

	snprintf(path, pathlen, "%s/test.db", dir);
	unlink(path);
	if (sqlite3_open(path, &db) != SQLITE_OK)
		goto out;
	if (testdb_exec(db, "PRAGMA journal_mode=WAL") < 0)
		goto out;
	/* The rows below are written in schema 18's form; the later migrations then convert them, as they do a
	 * user's database, so every reader test also checks that the conversion keeps its answers. */
	for (int i = 0; i < store_nmigrations && store_migrations[i].version <= TDB_FILL_SCHEMA; i++) {
		if (testdb_exec(db, store_migrations[i].sql) < 0)
			goto out;
		snprintf(sql, sizeof sql, "PRAGMA user_version=%d", store_migrations[i].version);
		if (testdb_exec(db, sql) < 0)
			goto out;
	}
	if (testdb_exec(db, "BEGIN") < 0 ||
	    testdb_exec(db, "INSERT INTO zones (zone_id, node, name) VALUES (1, 0, 'DMA'), (2, 0, 'DMA32'), "
			    "(3, 0, 'Normal'), (4, 1, 'Mo\"v<b>')") < 0 ||
	    testdb_exec(db, "INSERT INTO names (name_id, source, name) VALUES (1, 'meminfo', 'MemFree'), "
			    "(2, 'meminfo', 'MemAvailable'), (3, 'vmstat', 'compact_stall'), (4, 'vmstat', 'pgfault'), "
			    "(5, 'vmstat', 'compact_fail')") < 0)
		goto out;
	if (sqlite3_prepare_v2(db, "INSERT INTO runs (run_id, label, started_ms, ended_ms, end_reason, "
			       "pid, version, hostname, kernel_release, kernel_version, cmdline, hypervisor, guest_type, "
			       "cpu_model, fpu_features, xstate_bytes, xstate_detail, mem_total_kb, page_size, config) "
			       "VALUES (?1, ?2, ?3, ?4, ?5, 4242, 'v-test', 'host<1>', ?6, '#1 SMP', ?7, ?8, ?9, "
			       "'Test CPU @ 3GHz', 'x87 sse2 avx avx2', 832, 'avx=256', 8000000, 4096, "
			       "'sample_interval=1s\nlabel=<x>')", -1, &run, NULL) != SQLITE_OK)
		goto out;
	for (int r = 1; r <= 3; r++) {
		sqlite3_bind_int64(run, 1, r);
		sqlite3_bind_text(run, 2, r == 1 ? tdb_label1 : r == 3 ? "current" : tdb_label3, -1, SQLITE_STATIC);
		sqlite3_bind_int64(run, 3, r == 1 ? TDB_T1 : r == 3 ? TDB_T2 : TDB_T1 - 86400000);
		if (r == 1) {
			sqlite3_bind_int64(run, 4, testdb_ts(1, TDB_N1 - 1) + 500);
			sqlite3_bind_text(run, 5, "stopped", -1, SQLITE_STATIC);
		} else if (r == 2) {
			sqlite3_bind_int64(run, 4, TDB_T1 - 86400000 + 5000);
			sqlite3_bind_text(run, 5, "crash", -1, SQLITE_STATIC);
		}
		sqlite3_bind_text(run, 6, r == 1 ? "6.1.0-old" : "6.6.0-new", -1, SQLITE_STATIC);
		sqlite3_bind_text(run, 7, r == 1 ? tdb_cmdline1 : "root=/dev/xvda1", -1, SQLITE_STATIC);
		sqlite3_bind_text(run, 8, "xen", -1, SQLITE_STATIC);
		sqlite3_bind_text(run, 9, "PV", -1, SQLITE_STATIC);
		if (sqlite3_step(run) != SQLITE_DONE)
			goto out;
		sqlite3_reset(run);
		sqlite3_clear_bindings(run);
	}
	for (int i = 0; i < 4; i++)
		if (sqlite3_prepare_v2(db, ins[i], -1, &st[i], NULL) != SQLITE_OK)
			goto out;
	for (int i = 0; i < TDB_N1; i++)
		if (testdb_tick(db, st, 1, i, 4) < 0)
			goto out;
	for (int i = 0; i < TDB_N2; i++)
		if (testdb_tick(db, st, 3, i, 3) < 0)
			goto out;
	/* kernel-log events (schema 002) */
	{
		sqlite3_stmt *k = NULL;
		const struct { int tick; const char *kind, *comm; int order; } ev[] = {
			{ 100, "alloc_fail", tdb_comm1, 3 }, { 200, "alloc_fail", tdb_comm2, 0 },
			{ 300, "alloc_fail", "kworker/0:1", 9 }, { 400, "oom_kill", "victim", -1 },
		};
		if (sqlite3_prepare_v2(db, "INSERT INTO kmsg_events (run_id, ts_ms, boot_id, seq, kind, comm, pid, "
				       "page_order, gfp_mask, gfp_flags, raw) VALUES (1, ?1, 'boot', ?2, ?3, ?4, 1234, ?5, "
				       "1313984, 'GFP_KERNEL|__GFP_COMP', 'raw line')", -1, &k, NULL) != SQLITE_OK)
			goto out;
		for (int i = 0; i < 4; i++) {
			sqlite3_bind_int64(k, 1, testdb_ts(1, ev[i].tick));
			sqlite3_bind_int64(k, 2, i + 1);
			sqlite3_bind_text(k, 3, ev[i].kind, -1, SQLITE_STATIC);
			sqlite3_bind_blob(k, 4, ev[i].comm, (int)strlen(ev[i].comm), SQLITE_STATIC);
			if (ev[i].order >= 0)
				sqlite3_bind_int64(k, 5, ev[i].order);
			else
				sqlite3_bind_null(k, 5);
			if (sqlite3_step(k) != SQLITE_DONE) {
				sqlite3_finalize(k);
				goto out;
			}
			sqlite3_reset(k);
		}
		sqlite3_finalize(k);
	}
	if (testdb_report(db) < 0 || testdb_exec(db, "COMMIT") < 0)
		goto out;
	for (int i = 0; i < store_nmigrations; i++) {
		if (store_migrations[i].version <= TDB_FILL_SCHEMA)
			continue;
		snprintf(sql, sizeof sql, "PRAGMA user_version=%d", store_migrations[i].version);
		if (testdb_exec(db, "BEGIN") < 0 || testdb_exec(db, store_migrations[i].sql) < 0 ||
		    testdb_exec(db, sql) < 0 || testdb_exec(db, "COMMIT") < 0)
			goto out;
	}
	ok = 0;
out:
	if (ok < 0 && db)
		fprintf(stderr, "testdb: %s\n", sqlite3_errmsg(db));
	for (int i = 0; i < 4; i++)
		sqlite3_finalize(st[i]);
	sqlite3_finalize(run);
	sqlite3_close(db);
	return ok;
}

/* One integer from the sqlite3 CLI (an implementation independent of the store reader); -1 on failure. */
static inline long long testdb_cli(const char *db, const char *sql)
{
	char cmd[1024], line[64];
	long long v = -1;
	FILE *p;

	snprintf(cmd, sizeof cmd, "sqlite3 -batch -noheader '%s' \"%s\"", db, sql);
	if (!(p = popen(cmd, "r")))
		return -1;
	if (fgets(line, sizeof line, p))
		v = strtoll(line, NULL, 10);   /* test code reading our own tool's output */
	pclose(p);
	return v;
}

#endif
