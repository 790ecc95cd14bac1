/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * reader: what the reader's files share; included only by the reader's
 * files in store/ (the public contract is query.h).
 *
 *   reader.c         the handle: open, errors, the statement cache, the zones table
 *   read_range.c     windows and the tier policy (raw ticks, minute or hour rollups), in one place
 *   read_runs.c      runs
 *   read_buddy.c     buddyinfo, the kernel's indices and headroom (raw rows, rollup grids, trends)
 *   read_counters.c  meminfo fields and vmstat counter rates
 *   read_churn.c     churn series and totals, probes, the FPU kind of a run
 *   read_kernel.c    allocation failures, pagetypeinfo and slabinfo, atomic risk
 *   read_trace.c     what the tracefs instance saw: failed allocations, fallbacks, their rollups
 *   read_gfp.c       the fpusoak_gfp module's model checks
 *   read_facts.c     what a comparison needs of a run (schema 013): vm knobs, own processes, failing tasks
 *   read_cause.c     why failed allocations failed (schema 014): hourly counts, the classified rows
 *
 * Each file holds the SQL of its own statements in a file-local array SQL[],
 * indexed by enum stmt_id (the other files' ids left NULL); stmt(q, id)
 * prepares it once per handle and caches it.
 */
#ifndef FPUSOAK_READER_H
#define FPUSOAK_READER_H

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

#include "store/query.h"

enum stmt_id {
	/* reader.c */
	S_HAS_TABLE, S_USER_VERSION, S_ZONES,
	/* read_range.c */
	S_FIRST_SAMPLE, S_LAST_SAMPLE, S_INTERVAL, S_ROLLUP_FIRST, S_ROLLUP_LAST, S_ROLLUP_MAXN, S_ROLLED_UPTO,
	/* read_runs.c */
	S_LATEST_RUN, S_RUNS, S_RUN, S_RUNS_PRE12, S_RUN_PRE12, S_RUNS_PRE18, S_RUN_PRE18, S_RUN_IMPORT, S_RUN_BEFORE,
	S_RUN_MEMORY,
	/* read_buddy.c */
	S_BUDDY_LATEST, S_TICK_TIMES, S_BUDDY_RAW, S_ROLLUP_GRID, S_ROLLUP_GRID_FREE, S_FRAG_RAW, S_HEAD_TREND,
	S_HEAD_TICKS,
	/* read_counters.c */
	S_NAME_ID, S_MEMINFO_SERIES, S_MEMINFO_ROLLUP, S_PREV_SAMPLE, S_SAMPLE_BUCKETS, S_VMSTAT_BEFORE,
	S_VMSTAT_FIRST, S_VMSTAT_BUCKETS, S_VMHOT_BEFORE, S_VMHOT_FIRST, S_VMHOT_BUCKETS,
	/* read_churn.c */
	S_CHURN_SERIES, S_CHURN_ROLLUP, S_CHURN_TOTALS, S_CHURN_ROLLED, S_PROBES, S_PROBES_BARE, S_FPU_KIND, S_CHURN_LAST,
	/* read_kernel.c */
	S_FAILURES, S_FAILURES_COUNT, S_FAILURE_TIMES, S_TASK_SLAB, S_PAGEBLOCK, S_PAGETYPE_LATEST, S_SLAB_LATEST,
	S_ATOMIC_SUMMARY, S_ATOMIC_SERIES, S_ATOMIC_ROLLED, S_ATOMIC_ROLLUP_SERIES, S_REQUEST_SUMMARY, S_REQUEST_SERIES, S_REQUEST_ROLLED, S_REQUEST_ROLLUP_SERIES, S_OOM_COUNT,
	/* read_fragment.c */
	S_FRAGLOAD_INFO, S_FRAGLOAD_SERIES, S_FRAGLOAD_TOTALS,
	/* read_trace.c */
	S_TRACE_NOTE, S_TRACE_ROLLED, S_TRACE_TOT_ROLL, S_TRACE_TOT_RAW_F, S_TRACE_TOT_RAW_X, S_TRACE_OC_ROLL,
	S_TRACE_OC_RAW, S_TRACE_KMSG, S_TRACE_BUCKETS, S_TRACE_FAILS, S_TRACE_FAILS_COUNT,
	/* read_gfp.c */
	S_MODEL_CHECKS,
	/* read_facts.c */
	S_RUN_VM, S_RUN_PROCS, S_FAIL_TASKS,
	/* read_cause.c */
	S_CAUSE_ROLLED, S_CAUSE_HOURS, S_CAUSE_ROWS, S_CAUSE_ROWS_COUNT,
	S_COUNT
};

struct query {
	sqlite3 *db;
	int has_rollup;            /* schema 003: buddy_rollup exists */
	int has_xen;               /* schema 012: runs.xen_domain exists (a DB from before it is read as "no domain") */
	int has_cpuk;              /* schema 018: runs.cpu_model_kernel exists (before it: not recorded) */
	int immutable;             /* opened as an immutable file: no -wal existed (see query_open) */
	char *path;
	sqlite3_stmt *st[S_COUNT];
	char err[256];
};

/* ---------------------------------------------------------------- reader.c */

/* The cached statement id, prepared from sql on first use; NULL with q->err set. */
sqlite3_stmt *reader_stmt(struct query *q, enum stmt_id id, const char *sql);

/* The cached statement id of the calling file (its SQL[id]); NULL with q->err set. */
#define stmt(q, id) reader_stmt((q), (id), SQL[id])

/* A read-only SQLite URI of path ("file:...?mode=ro", or "?immutable=1" with *immutable set while no writer
 * left a -wal file: see query_open); 0, or -1 if it does not fit. */
int reader_uri(const char *path, char *out, size_t outlen, int *immutable);

#define RAW_MAX_ZONES 64

/* One zone of the zones table, and its sums over the bucket being read (raw buddy rows, rollup grids). */
struct raw_zone {
	int64_t zone_id, first;
	int node, norders;
	char name[ZONE_NAME_MAX];
	int64_t n[BUDDY_MAX_ORDER];
	double sum[BUDDY_MAX_ORDER];
};

/* The zones table in (node, zone_id) order into z[RAW_MAX_ZONES], sums zeroed, first -1; count or -1. */
int reader_zones(struct query *q, struct raw_zone *z);

/* ---------------------------------------------------------------- read_range.c */

/* Resolve rg against the run's data (see read_range.c); *raw_first / *rollup_first: first raw tick / minute
 * rollup in the window, -1 if none.  1 when the window holds data, 0 when it holds none, -1 on error. */
int range_resolve(struct query *q, int64_t run_id, struct query_range *rg, int64_t *raw_first,
		  int64_t *rollup_first);

/* Resolve rg for a bucketed series and choose its tier (0 raw, or a STORE_TIER_*), widening the bucket to
 * the tier: 1 with *tier, 0 when the window holds no data, -1 on error. */
int range_series(struct query *q, int64_t run_id, struct query_range *rg, int64_t *tier);

/* The rollup tier a trend over [lo, hi] is fitted on: 0 with *tier, -1 on error. */
int range_trend_tier(struct query *q, int64_t run_id, int64_t lo, int64_t hi, int64_t *tier);

/* A piece of a totals window: [from, to) read from tier (0: raw rows). */
struct part {
	int64_t from, to, tier;
};

/* Split [lo, hi] for totals into raw, minute and hour pieces, in time order (at most 5); count or -1. */
int range_split(struct query *q, int64_t run_id, int64_t lo, int64_t hi, struct part p[5]);

/* ---------------------------------------------------------------- row helpers */

static inline void set_err(struct query *q, const char *what)
{
	snprintf(q->err, sizeof q->err, "%s: %s", what, q->db ? sqlite3_errmsg(q->db) : "no database");
}

/* Reset after use, so the statement holds no read transaction open between requests. */
static inline void done(sqlite3_stmt *st)
{
	if (st) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
}

static inline int step_err(struct query *q, sqlite3_stmt *st, int rc)
{
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		set_err(q, "step");
		done(st);
		return -1;
	}
	return 0;
}

static inline int row_cap(struct query *q, int n)
{
	if (n >= QUERY_MAX_ROWS) {
		snprintf(q->err, sizeof q->err, "more than %d rows", QUERY_MAX_ROWS);
		return -1;
	}
	return 0;
}

/* Count one more row against the cap; -1 (statement reset) past QUERY_MAX_ROWS. */
static inline int row_take(struct query *q, sqlite3_stmt *st, int *n)
{
	if (row_cap(q, *n) < 0) {
		done(st);
		return -1;
	}
	(*n)++;
	return 0;
}

/* End of a row loop: rows delivered, or -1 if the last step failed. */
static inline int rows_done(struct query *q, sqlite3_stmt *st, int rc, int n)
{
	if (step_err(q, st, rc) < 0)
		return -1;
	done(st);
	return n;
}

/* The caller's callback said stop: record it, reset st, -1. */
static inline int stopped(struct query *q, sqlite3_stmt *st)
{
	snprintf(q->err, sizeof q->err, "stopped by caller");
	done(st);
	return -1;
}

/* One int64 from a one-row statement already bound: 1 with *v, 0 if no row or NULL, -1. */
static inline int one_i64(struct query *q, sqlite3_stmt *st, int64_t *v)
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

static inline const char *col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

static inline int64_t col_i64(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

static inline double col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* The bounds of an open window (-1 = open) as SQL BETWEEN bounds. */
static inline int64_t lo_of(int64_t from_ms)
{
	return from_ms < 0 ? 0 : from_ms;
}

static inline int64_t hi_of(int64_t to_ms)
{
	return to_ms < 0 ? INT64_MAX : to_ms;
}

/* Binds ?1 run_id, ?2 and ?3 the window [from_ms, to_ms] (-1: open ends), as every windowed read does. */
static inline void bind_window(sqlite3_stmt *st, int64_t run_id, int64_t from_ms, int64_t to_ms)
{
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, lo_of(from_ms));
	sqlite3_bind_int64(st, 3, hi_of(to_ms));
}

#endif
