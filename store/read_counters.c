/* SPDX-License-Identifier: GPL-2.0-only */
/* read_counters: meminfo fields and vmstat counter rates; see query.h. */
#include <string.h>

#include "store/fields.h"
#include "store/reader.h"
#include "store/tiers.h"

/* " WHEN i THEN value" per field: one CASE ?N picks the column of field index ?N, the row's value plus
 * its minute's key (schema 019). */
#define X_CASE(i, name, col) " WHEN " #i " THEN s." #col " + coalesce(k." #col ", 0)"
#define SAMPLES_KEY " FROM samples s LEFT JOIN sample_key k ON k.run_id = s.run_id AND k.bucket_ms = " \
	"s.ts_ms - s.ts_ms % " STORE_TIER_MINUTE_SQL " "
#define X_CASE_SUM(i, name, col) " WHEN " #i " THEN " #col "_sum"

static const char *const SQL[S_COUNT] = {
	[S_NAME_ID] = "SELECT name_id FROM names WHERE source = ?1 AND name = ?2",
	/* ?2 is the field's index in store/fields.h: one statement serves every column. */
	[S_MEMINFO_SERIES] = "SELECT (s.ts_ms - ?3) / ?5 AS bk, MIN(s.ts_ms), AVG(CASE ?2" STORE_MEMINFO_FIELDS(X_CASE)
			     " END)" SAMPLES_KEY "WHERE s.run_id = ?1 AND s.ts_ms BETWEEN ?3 AND ?4 GROUP BY bk ORDER BY bk",
	[S_MEMINFO_ROLLUP] = "SELECT (bucket_ms - ?3) / ?5 AS bk, MIN(bucket_ms), SUM(CASE ?2" STORE_MEMINFO_FIELDS(X_CASE_SUM)
			     " END) * 1.0 / SUM(n) FROM tick_rollup WHERE run_id = ?1 AND tier = ?6 AND bucket_ms BETWEEN ?3 AND ?4 "
			     "GROUP BY bk ORDER BY bk",
	[S_PREV_SAMPLE] = "SELECT ts_ms FROM samples WHERE run_id = ?1 AND ts_ms < ?2 "
			  "ORDER BY ts_ms DESC LIMIT 1",
	[S_SAMPLE_BUCKETS] = "SELECT (ts_ms - ?2) / ?4 AS bk, MAX(ts_ms) FROM samples "
			     "WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 GROUP BY bk ORDER BY bk",
	[S_VMSTAT_BEFORE] = "SELECT ts_ms, value FROM vmstat WHERE run_id = ?1 AND name_id = ?2 "
			    "AND ts_ms <= ?3 ORDER BY ts_ms DESC LIMIT 1",
	[S_VMSTAT_FIRST] = "SELECT ts_ms, value FROM vmstat WHERE run_id = ?1 AND name_id = ?2 "
			   "AND ts_ms BETWEEN ?3 AND ?4 ORDER BY ts_ms LIMIT 1",
	/* SQLite takes a bare column from the row that holds MAX(): the bucket's last value. */
	[S_VMSTAT_BUCKETS] = "SELECT (ts_ms - ?3) / ?5 AS bk, MAX(ts_ms), value FROM vmstat "
			     "WHERE run_id = ?1 AND name_id = ?2 AND ts_ms BETWEEN ?3 AND ?4 "
			     "GROUP BY bk ORDER BY bk",
	/* The vmstat counters kept as samples columns (?2: index in STORE_VMSTAT_HOT), as the three below. */
	[S_VMHOT_BEFORE] = "SELECT ts_ms, v FROM (SELECT s.ts_ms, CASE ?2" STORE_VMSTAT_HOT(X_CASE) " END AS v" SAMPLES_KEY
			   "WHERE s.run_id = ?1 AND s.ts_ms <= ?3 ORDER BY s.ts_ms DESC LIMIT 1) WHERE v IS NOT NULL",
	[S_VMHOT_FIRST] = "SELECT ts_ms, v FROM (SELECT s.ts_ms, CASE ?2" STORE_VMSTAT_HOT(X_CASE) " END AS v" SAMPLES_KEY
			  "WHERE s.run_id = ?1 AND s.ts_ms BETWEEN ?3 AND ?4 ORDER BY s.ts_ms LIMIT 1) WHERE v IS NOT NULL",
	[S_VMHOT_BUCKETS] = "SELECT (s.ts_ms - ?3) / ?5 AS bk, MAX(s.ts_ms), CASE ?2" STORE_VMSTAT_HOT(X_CASE) " END AS v"
			    SAMPLES_KEY "WHERE s.run_id = ?1 AND s.ts_ms BETWEEN ?3 AND ?4 AND v IS NOT NULL "
			    "GROUP BY bk ORDER BY bk",
};

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
	/* The hot vmstat counters are samples columns (schema 6), never rows of names. */
	if (strcmp(source, "vmstat") == 0 && store_vmstat_hot(name) >= 0)
		return 1;
	return name_id(q, source, name, &id);
}

int query_meminfo_series(struct query *q, int64_t run_id, const char *name, struct query_range *rg,
			 query_point_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int64_t tier;
	int rc, n = 0, r, field = meminfo_field(name);

	if (field < 0)
		return 0;
	if ((r = range_series(q, run_id, rg, &tier)) <= 0)
		return r;
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
 * The rates of query_vmstat_rate for buckets of a minute or more: the counter's value at
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

/*
 * Rates from a counter stored on change: per bucket, the value held at the
 * bucket's last sample minus the value at the previous bucket's last sample,
 * over the time between those two samples.  Using sample times (not bucket
 * edges) keeps jittered ticks from showing as alternating 0 and 2x rates;
 * a bucket without samples is skipped (nothing was measured there).
 */
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
	if ((r = range_resolve(q, run_id, rg, &raw_first, &rollup_first)) <= 0)
		return r;
	if ((r = vm_baseline(q, run_id, nid, hot, rg, &bt, &bv)) <= 0)
		return r;
	if (rg->bucket_ms >= STORE_TIER_MINUTE_MS)
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
