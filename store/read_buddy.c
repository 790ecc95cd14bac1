/* SPDX-License-Identifier: GPL-2.0-only */
/* read_buddy: buddyinfo, the kernel's indices and headroom; see query.h. */
#include <stdlib.h>
#include <string.h>

#include "store/fields.h"
#include "store/reader.h"

/* The per-order columns (store/fields.h: STORE_ORDERS), each after a column already listed. */
#define X_O(k) ", o" #k
#define X_BO(k) ", b.o" #k
#define X_F(k) ", f" #k
#define X_H(k) ", h" #k
#define X_U(k) ", u" #k

static const char *const SQL[S_COUNT] = {
	/* Each zone's row in force now (schema 006 stores a zone's row when it changes); a gap row hides it. */
	[S_BUDDY_LATEST] = "SELECT (SELECT MAX(ts_ms) FROM samples WHERE run_id = ?1), z.node, z.name, b.norders"
			   STORE_ORDERS(X_BO) " FROM zones z CROSS JOIN buddy b ON b.run_id = ?1 AND b.zone_id = z.zone_id "
			   "AND b.ts_ms = (SELECT MAX(x.ts_ms) FROM buddy x WHERE x.run_id = ?1 AND x.zone_id = z.zone_id) "
			   "WHERE b.norders > 0 ORDER BY z.node, z.zone_id",
	[S_TICK_TIMES] = "SELECT ts_ms FROM samples WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 ORDER BY ts_ms",
	/* One zone's rows from the one in force at ?3 to ?4, in key order (buddy_raw_series fills the ticks). */
	[S_BUDDY_RAW] = "SELECT ts_ms, norders" STORE_ORDERS(X_O) " "
			"FROM buddy WHERE run_id = ?1 AND zone_id = ?2 AND ts_ms BETWEEN coalesce((SELECT MAX(ts_ms) "
			"FROM buddy WHERE run_id = ?1 AND zone_id = ?2 AND ts_ms <= ?3), ?3) AND ?4 ORDER BY ts_ms",
	/* One index range per zone (the IN list makes SQLite seek, not scan the run's whole tier); orders in columns. */
	[S_ROLLUP_GRID] = "SELECT zone_id, bucket_ms, n, norders" STORE_ORDERS(X_F) STORE_ORDERS(X_H)
			  STORE_ORDERS(X_U) " FROM buddy_wide_rollup "
			  "WHERE run_id = ?1 AND tier = ?2 AND zone_id IN (SELECT zone_id FROM zones) AND bucket_ms BETWEEN ?3 AND ?4",
	/* The buddy chart needs only the free sums: a third of the columns. */
	[S_ROLLUP_GRID_FREE] = "SELECT zone_id, bucket_ms, n, norders" STORE_ORDERS(X_F) " FROM buddy_wide_rollup "
			       "WHERE run_id = ?1 AND tier = ?2 AND zone_id IN (SELECT zone_id FROM zones) "
			       "AND bucket_ms BETWEEN ?3 AND ?4",
	/* The kernel's indices come from v_frag_x1000 (the one copy of the formula); the worst value per bucket. */
	[S_FRAG_RAW] = "SELECT (ts_ms - ?2) / ?4 AS bk, MIN(ts_ms), node, zone, zone_id, page_order, MAX(unusable_x1000), "
		       "MAX(fragmentation_x1000), AVG(headroom_blocks) FROM v_frag_x1000 "
		       "WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 "
		       "GROUP BY bk, zone_id, page_order ORDER BY bk, node, zone_id, page_order",
	[S_HEAD_TREND] = "SELECT r.bucket_ms, z.node, z.name, CAST(r.head_sum AS REAL) / r.n, r.head_min, r.head_max "
			   "FROM buddy_rollup r JOIN zones z ON z.zone_id = r.zone_id WHERE r.run_id = ?1 AND r.tier = ?5 "
			   "AND r.zone_id IN (SELECT zone_id FROM zones) AND r.page_order = ?2 AND r.bucket_ms BETWEEN ?3 AND ?4 "
			   "ORDER BY z.node, z.name, r.bucket_ms",
	[S_HEAD_TICKS] = "SELECT ts_ms, node, zone, headroom_blocks FROM v_headroom WHERE run_id = ?1 AND page_order = ?2 "
			 "AND ts_ms BETWEEN ?3 AND ?4 ORDER BY node, zone, ts_ms",
};

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
	if ((nz = reader_zones(q, z)) < 0) {
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
	if ((g->nz = reader_zones(q, g->z)) < 0)
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
	int64_t tier;
	int r;

	if ((r = range_series(q, run_id, rg, &tier)) <= 0)
		return r;
	if (!tier)
		return buddy_raw_series(q, run_id, rg, fn, arg);
	return grid_series(q, run_id, tier, rg, 1, buddy_emit, &(struct buddy_emit){ fn, arg });
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
	int64_t tier, bk = -1, zid = -1;
	int rc, r, n = 0, have = 0;

	if ((r = range_series(q, run_id, rg, &tier)) <= 0)
		return r;
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

int query_headroom_ticks(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms,
			 query_zone_fn fn, void *arg)
{
	sqlite3_stmt *st = stmt(q, S_HEAD_TICKS);
	int rc, n = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, order);
	sqlite3_bind_int64(st, 3, lo_of(from_ms));
	sqlite3_bind_int64(st, 4, hi_of(to_ms));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		double v = sqlite3_column_double(st, 3);
		struct query_zone_point p = { sqlite3_column_int64(st, 0), sqlite3_column_int(st, 1), col_text(st, 2), v, v, v };
		if (row_take(q, st, &n) < 0)
			return -1;
		if (fn(arg, &p) != 0)
			return stopped(q, st);
	}
	return rows_done(q, st, rc, n);
}

int query_headroom_minutes(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms,
			   query_zone_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int64_t lo = lo_of(from_ms), hi = hi_of(to_ms), tier;
	int rc, n = 0;

	if (!q->has_rollup)
		return 0;
	if (range_trend_tier(q, run_id, lo, hi, &tier) < 0)
		return -1;
	if (!(st = stmt(q, S_HEAD_TREND)))
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
