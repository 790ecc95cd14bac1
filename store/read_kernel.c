/* SPDX-License-Identifier: GPL-2.0-only */
/* read_kernel: the kernel's own signals (allocation failures, pagetypeinfo and slabinfo, atomic risk); see query.h. */
#include <stdlib.h>
#include <string.h>

#include "store/fields.h"
#include "store/reader.h"

/* p.o0 .. p.o15 (store/fields.h: STORE_ORDERS), after a column already listed. */
#define X_PO(k) ", p.o" #k

/* Per order k: GFP_ATOMIC fails, GFP_NOWAIT fails, GFP_KERNEL fails (even by reclaim), and the two
 * failures where GFP_KERNEL would pass. */
#define REQ_BIT(m, k) "((" m " >> " k ") & 1)"
#define REQ_COUNTS(k) \
	"SUM(" REQ_BIT("q.req_atomic_mask", k) " = 0), SUM(" REQ_BIT("q.req_nowait_mask", k) " = 0), " \
	"SUM(" REQ_BIT("q.req_kernel_mask", k) " = 0), " \
	"SUM(" REQ_BIT("q.req_atomic_mask", k) " = 0 AND " REQ_BIT("q.req_kernel_mask", k) " = 1), " \
	"SUM(" REQ_BIT("q.req_nowait_mask", k) " = 0 AND " REQ_BIT("q.req_kernel_mask", k) " = 1)"

/* A tick's request verdict is a row of requests, named by the sample row's req_id (schema 019). */
#define SAMPLES_REQ " FROM samples s JOIN requests q ON q.run_id = s.run_id AND q.req_id = s.req_id "

static const char *const SQL[S_COUNT] = {
	[S_FAILURES] = "SELECT ts_ms, comm, pid, page_order, gfp_flags, "
		       "CASE WHEN gfp_mask IS NULL THEN NULL ELSE printf('0x%x', gfp_mask) END FROM kmsg_events "
		       "WHERE run_id = ?1 AND kind = 'alloc_fail' AND ts_ms BETWEEN ?2 AND ?3 "
		       "ORDER BY ts_ms DESC LIMIT ?4",
	[S_FAILURES_COUNT] = "SELECT COUNT(*) FROM kmsg_events WHERE run_id = ?1 AND kind = 'alloc_fail' "
			     "AND ts_ms BETWEEN ?2 AND ?3",
	[S_OOM_COUNT] = "SELECT COUNT(*) FROM kmsg_events WHERE run_id = ?1 AND kind = 'oom_kill' AND ts_ms BETWEEN ?2 AND ?3",
	[S_FAILURE_TIMES] = "SELECT ts_ms, page_order, gfp_flags FROM kmsg_events "
			    "WHERE run_id = ?1 AND kind = 'alloc_fail' AND ts_ms BETWEEN ?2 AND ?3 "
			    "ORDER BY ts_ms DESC LIMIT ?4",
	[S_TASK_SLAB] = "SELECT ts_ms, slab_order, objsize FROM v_slabinfo WHERE run_id = ?1 AND name = 'task_struct' "
			"ORDER BY ts_ms DESC LIMIT 1",
	[S_PAGEBLOCK] = "SELECT pageblock_order FROM slow_samples WHERE run_id = ?1 AND pageblock_order IS NOT NULL "
			"ORDER BY ts_ms DESC LIMIT 1",
	[S_PAGETYPE_LATEST] = "SELECT p.ts_ms, z.node, z.name, n.name, p.norders, p.capped_mask, p.blocks, s.pageblock_order"
			      STORE_ORDERS(X_PO) " FROM pagetype_free p JOIN zones z ON z.zone_id = p.zone_id "
			      "JOIN names n ON n.name_id = p.type_id "
			      "LEFT JOIN slow_samples s ON s.run_id = p.run_id AND s.ts_ms = p.ts_ms "
			      "WHERE p.run_id = ?1 AND p.ts_ms = (SELECT MAX(ts_ms) FROM pagetype_free WHERE run_id = ?1) "
			      "ORDER BY z.node, p.zone_id, p.type_id",
	[S_SLAB_LATEST] = "SELECT ts_ms, name, active_objs, num_objs, objsize, objperslab, pagesperslab, slab_order "
			  "FROM v_slabinfo WHERE run_id = ?1 AND ts_ms = (SELECT MAX(ts_ms) FROM slab WHERE run_id = ?1) "
			  "ORDER BY name",
	/* v_atomic_risk holds the model's per-order verdicts and margins (one copy of those formulas). */
	[S_ATOMIC_SUMMARY] = "SELECT node, zone, COUNT(*), SUM(atomic_ok = 0 AND kernel_ok = 1), SUM(atomic_ok = 0), "
			     "SUM(kernel_ok = 0), MIN(margin_pages) FROM v_atomic_risk "
			     "WHERE run_id = ?1 AND page_order = ?2 AND ts_ms BETWEEN ?3 AND ?4 GROUP BY node, zone "
			     "ORDER BY node, zone",
	[S_ATOMIC_SERIES] = "SELECT (ts_ms - ?2) / ?4 AS bk, MIN(ts_ms), node, zone, AVG(atomic_ok = 0 AND kernel_ok = 1) "
			    "FROM v_atomic_risk WHERE run_id = ?1 AND page_order = ?5 AND ts_ms BETWEEN ?2 AND ?3 "
			    "GROUP BY bk, node, zone ORDER BY bk, node, zone",
	/* The request per tick (schema 7): order ?4's bits of the masks; ticks without a verdict are left out. */
	[S_REQUEST_SUMMARY] = "SELECT MIN(s.ts_ms), COUNT(*), " REQ_COUNTS("?4") SAMPLES_REQ "WHERE s.run_id = ?1 "
			      "AND s.ts_ms BETWEEN ?2 AND ?3 AND q.req_norders > ?4",
	[S_REQUEST_SERIES] = "SELECT (s.ts_ms - ?2) / ?4 AS bk, MIN(s.ts_ms), COUNT(*), " REQ_COUNTS("?5") SAMPLES_REQ
			     "WHERE s.run_id = ?1 AND s.ts_ms BETWEEN ?2 AND ?3 AND q.req_norders > ?5 GROUP BY bk ORDER BY bk",
	[S_REQUEST_ROLLED] = "SELECT MIN(bucket_ms), SUM(n), SUM(atomic_fail), SUM(nowait_fail), SUM(kernel_fail), "
			     "SUM(atomic_only), SUM(nowait_only) FROM request_rollup WHERE run_id = ?1 AND tier = ?5 "
			     "AND page_order = ?4 AND bucket_ms >= ?2 AND bucket_ms < ?3",
	[S_REQUEST_ROLLUP_SERIES] = "SELECT (bucket_ms - ?2) / ?4 AS bk, MIN(bucket_ms), SUM(n), SUM(atomic_fail), "
				    "SUM(nowait_fail), SUM(kernel_fail), SUM(atomic_only), SUM(nowait_only) FROM request_rollup "
				    "WHERE run_id = ?1 AND tier = ?6 AND page_order = ?5 AND bucket_ms BETWEEN ?2 AND ?3 "
				    "GROUP BY bk ORDER BY bk",
	[S_ATOMIC_ROLLED] = "SELECT z.node, z.name, SUM(r.atomic_n), SUM(r.atomic_only_n), SUM(r.atomic_fail_n), "
			    "SUM(r.kernel_fail_n), MIN(r.margin_min), COUNT(*) - COUNT(r.atomic_n) FROM buddy_rollup r "
			    "JOIN zones z ON z.zone_id = r.zone_id WHERE r.run_id = ?1 AND r.tier = ?5 AND r.zone_id IN "
			    "(SELECT zone_id FROM zones) AND r.page_order = ?2 AND r.bucket_ms >= ?3 AND r.bucket_ms < ?4 "
			    "GROUP BY r.zone_id ORDER BY z.node, z.name",
	/* Key order (zone, bucket) within each zone's range: summed per chart bucket in C (atomic_rollup_series). */
	[S_ATOMIC_ROLLUP_SERIES] = "SELECT zone_id, bucket_ms, atomic_n, atomic_only_n FROM buddy_rollup WHERE run_id = ?1 "
				   "AND tier = ?2 AND zone_id IN (SELECT zone_id FROM zones) AND page_order = ?3 "
				   "AND bucket_ms BETWEEN ?4 AND ?5 AND atomic_n > 0",
};

int query_oom_kills(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int64_t *n)
{
	sqlite3_stmt *st = stmt(q, S_OOM_COUNT);

	*n = 0;
	if (!st)
		return -1;
	bind_window(st, run_id, from_ms, to_ms);
	return one_i64(q, st, n) < 0 ? -1 : 0;
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

int query_failure_times(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, int limit,
			query_alloc_failure_fn fn, void *arg)
{
	sqlite3_stmt *st = stmt(q, S_FAILURE_TIMES);
	int rc, n = 0;

	if (!st)
		return -1;
	bind_window(st, run_id, from_ms, to_ms);
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
	if ((np = range_split(q, run_id, lo_of(from_ms), hi_of(to_ms), pt)) < 0)
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

	if (!z || (nz = reader_zones(q, z)) < 0)
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
	int64_t tier;
	int rc, r, n = 0;

	if ((r = range_series(q, run_id, rg, &tier)) <= 0)
		return r;
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

static void request_from_row(sqlite3_stmt *st, int col, struct query_request *r)
{
	r->ts_ms = col_i64(st, col);
	r->samples = sqlite3_column_int64(st, col + 1);
	r->atomic_fail = sqlite3_column_int64(st, col + 2);
	r->nowait_fail = sqlite3_column_int64(st, col + 3);
	r->kernel_fail = sqlite3_column_int64(st, col + 4);
	r->atomic_only = sqlite3_column_int64(st, col + 5);
	r->nowait_only = sqlite3_column_int64(st, col + 6);
}

/* Add one piece (raw ticks, or minute/hour rollups) of the request at order k to *out; 0 or -1. */
static int request_part(struct query *q, int64_t run_id, int order, const struct part *pt, struct query_request *out)
{
	sqlite3_stmt *st;
	struct query_request r;
	int rc;

	if (pt->from >= pt->to)
		return 0;
	if (!(st = stmt(q, pt->tier ? S_REQUEST_ROLLED : S_REQUEST_SUMMARY)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, pt->from);
	/* Raw ticks take BETWEEN bounds; rollup buckets a half-open range. */
	sqlite3_bind_int64(st, 3, pt->tier ? pt->to : pt->to == INT64_MAX ? INT64_MAX : pt->to - 1);
	sqlite3_bind_int(st, 4, order);
	if (pt->tier)
		sqlite3_bind_int64(st, 5, pt->tier);
	rc = sqlite3_step(st);
	if (step_err(q, st, rc) < 0)
		return -1;
	if (rc == SQLITE_ROW) {
		request_from_row(st, 0, &r);
		if (r.samples > 0) {
			if (out->samples == 0 || r.ts_ms < out->ts_ms)
				out->ts_ms = r.ts_ms;
			out->samples += r.samples;
			out->atomic_fail += r.atomic_fail;
			out->nowait_fail += r.nowait_fail;
			out->kernel_fail += r.kernel_fail;
			out->atomic_only += r.atomic_only;
			out->nowait_only += r.nowait_only;
		}
	}
	done(st);
	return 0;
}

int query_request_summary(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms,
			  struct query_request *out)
{
	struct part pt[5];
	int np;

	memset(out, 0, sizeof *out);
	/* Raw ticks where they exist, the rollups where retention deleted them (range_split). */
	if ((np = range_split(q, run_id, lo_of(from_ms), hi_of(to_ms), pt)) < 0)
		return -1;
	for (int i = 0; i < np; i++)
		if (request_part(q, run_id, order, &pt[i], out) < 0)
			return -1;
	return out->samples > 0;
}

int query_request_series(struct query *q, int64_t run_id, int order, struct query_range *rg, query_request_fn fn,
			 void *arg)
{
	sqlite3_stmt *st;
	int64_t tier;
	int rc, r, n = 0;

	if ((r = range_series(q, run_id, rg, &tier)) <= 0)
		return r;
	if (!(st = stmt(q, tier ? S_REQUEST_ROLLUP_SERIES : S_REQUEST_SERIES)))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, rg->from_ms);
	sqlite3_bind_int64(st, 3, rg->to_ms);
	sqlite3_bind_int64(st, 4, rg->bucket_ms);
	sqlite3_bind_int(st, 5, order);
	if (tier)
		sqlite3_bind_int64(st, 6, tier);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct query_request p;
		request_from_row(st, 1, &p);
		if (row_take(q, st, &n) < 0)
			return -1;
		if (fn(arg, &p) != 0)
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}
