/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_report: report/'s figures (orders of interest, headroom trends, the
 * status line's figure, a run's rates and probes, the comparison lines) on
 * the known DB of testdb.h, against values
 * computed here by hand from the formulas that filled the DB: headroom
 * sums, minute means and the least-squares slope in closed form, bucket
 * fractions by the documented bucketing rule, and for the capacity line the
 * Hodges-Lehmann/Mann-Whitney figures worked out on paper (comments).
 * The statistics themselves are tested in test_stats.c.
 */
#include <math.h>
#include <sqlite3.h>

#include "report/compare.h"
#include "report/headroom.h"
#include "report/run.h"
#include "test.h"
#include "testdb.h"

/* Free blocks able to satisfy order k at tick i of zone z (sum over o >= k of free[o] << (o - k)). */
static double headroom(int run, int i, int z, int k)
{
	double h = 0;

	for (int o = k; o < TDB_NORDERS; o++)
		h += (double)(testdb_free(run, i, z, o) << (o - k));
	return h;
}

/*
 * The order-k headroom of zone z at ticks [from, to) fitted by hand the way report/headroom.h fits a
 * short window (every tick, analysis/trend.h's AR(1)-corrected interval, x = ms since the first).
 */
static int tick_fit(int run, int z, int k, int from, int to, struct trend_fit *f)
{
	double x[TDB_N1], y[TDB_N1];
	int n = 0;

	for (int i = from; i < to; i++, n++) {
		x[n] = (double)(testdb_ts(run, i) - testdb_ts(run, from));
		y[n] = headroom(run, i, z, k);
	}
	return trend_fit_ar1(x, y, (size_t)n, f);
}

/* Minute means of order-k headroom of zone z: run 1 has 10 minutes, run 3 five (60 ticks each). */
static int minute_means(int run, int z, int k, double *y)
{
	int nm = run == 1 ? TDB_N1 / 60 : TDB_N2 / 60;

	for (int m = 0; m < nm; m++) {
		double s = 0;
		for (int i = 60 * m; i < 60 * m + 60; i++)
			s += headroom(run, i, z, k);
		y[m] = s / 60;
	}
	return nm;
}

/* Least-squares slope of y over x = 60000 m, per hour, in closed form. */
static double slope_h(const double *y, int n)
{
	double mx = 0, my = 0, sxy = 0, sxx = 0;

	for (int m = 0; m < n; m++) {
		mx += 60000.0 * m / n;
		my += y[m] / n;
	}
	for (int m = 0; m < n; m++) {
		sxy += (60000.0 * m - mx) * (y[m] - my);
		sxx += (60000.0 * m - mx) * (60000.0 * m - mx);
	}
	return sxy / sxx * 3.6e6;
}

static int close_to(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fmax(1, fmax(fabs(a), fabs(b)));
}

/* The line labelled label, or "label (all processes)": the failure lines of runs that recorded no task of their
 * failures (testdb.h's, like an older fpusoakd's) count every process's, and say so. */
static const struct report_line *find(const struct report_cmp *c, const char *label)
{
	size_t n = strlen(label);

	for (int i = 0; i < c->n; i++)
		if (strcmp(c->line[i].label, label) == 0 ||
		    (strncmp(c->line[i].label, label, n) == 0 && strcmp(c->line[i].label + n, " (all processes)") == 0))
			return &c->line[i];
	return NULL;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Per-bucket atomic-risk percentages of Normal at order 3, by the rule in
 * query.h: max_points = floor(span / 60000), bucket = ceil((span + 1) / max_points),
 * anchored at the first sample.
 */
static int risk_buckets(int run, double *out)
{
	int n = run == 1 ? TDB_N1 : TDB_N2;
	int64_t first = testdb_ts(run, 0), span = testdb_ts(run, n - 1) - first;
	int64_t mp = span / 60000, bucket = (span + 1 + mp - 1) / mp;
	int cnt[64] = { 0 }, risk[64] = { 0 }, nb = 0;

	for (int i = 0; i < n; i++) {
		int b = (int)((testdb_ts(run, i) - first) / bucket);
		cnt[b]++;
		risk[b] += testdb_atomic_fails(run, i, 3, 3);
		if (b + 1 > nb)
			nb = b + 1;
	}
	for (int b = 0; b < nb; b++)
		out[b] = 100.0 * risk[b] / cnt[b];
	return nb;
}


/* Points of a zone series, kept for comparison. */
struct zpts {
	int n;
	struct { int64_t ts; int node; char zone[32]; double v; } p[256];
};

static int zpt_cb(void *arg, const struct query_zone_point *p)
{
	struct zpts *z = arg;

	if (z->n < 256) {
		z->p[z->n].ts = p->ts_ms;
		z->p[z->n].node = p->node;
		snprintf(z->p[z->n].zone, sizeof z->p[z->n].zone, "%s", p->zone);
		z->p[z->n].v = p->v;
	}
	z->n++;
	return 0;
}

/* query_atomic_series on the rollup tier against the GROUP BY it replaced; mismatches, or -1. */
static int atomic_series_vs_sql(struct query *q, const char *db, int64_t run, int order, int max_points, int *npts)
{
	static struct zpts zp;
	struct query_range rg = { -1, -1, max_points, 0, 0 };
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	int bad = 0, i = 0;

	memset(&zp, 0, sizeof zp);
	if (query_atomic_series(q, run, order, &rg, zpt_cb, &zp) < 0 || zp.n > 256 ||
	    sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT (r.bucket_ms - ?2) / ?4 AS bk, MIN(r.bucket_ms), z.node, z.name, "
			       "SUM(r.atomic_only_n) * 1.0 / SUM(r.atomic_n) FROM buddy_rollup r JOIN zones z ON z.zone_id = r.zone_id "
			       "WHERE r.run_id = ?1 AND r.tier = ?6 AND r.page_order = ?5 AND r.bucket_ms BETWEEN ?2 AND ?3 "
			       "AND r.atomic_n > 0 GROUP BY bk, r.zone_id ORDER BY bk, z.node, z.name", -1, &st, NULL) != SQLITE_OK) {
		sqlite3_close(h);
		return -1;
	}
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, rg.from_ms);
	sqlite3_bind_int64(st, 3, rg.to_ms);
	sqlite3_bind_int64(st, 4, rg.bucket_ms);
	sqlite3_bind_int(st, 5, order);
	/* The tier the reader chose (range_tier in store/read_range.c): hours once buckets are 5 minutes or wider. */
	sqlite3_bind_int64(st, 6, rg.bucket_ms >= 300000 ? 3600000 : 60000);
	for (; sqlite3_step(st) == SQLITE_ROW; i++)
		if (i >= zp.n || zp.p[i].ts != sqlite3_column_int64(st, 1) || zp.p[i].node != sqlite3_column_int(st, 2) ||
		    strcmp(zp.p[i].zone, (const char *)sqlite3_column_text(st, 3)) != 0 ||
		    zp.p[i].v != sqlite3_column_double(st, 4))
			bad++;
	sqlite3_finalize(st);
	sqlite3_close(h);
	*npts = zp.n;
	return bad + (i != zp.n) + (rg.bucket_ms < 60000);
}

int main(void)
{
	char dir[] = "/tmp/test_report.XXXXXX", db[256], err[256], cmd[300], e[32];
	struct query *q;
	struct report_orders o;
	struct report_trend t[REPORT_MAX_ZONES];
	struct report_cmp *c = calloc(1, sizeof *c);
	const struct report_line *l;
	double ya[16];
	int n;

	if (!mkdtemp(dir) || testdb_create(dir, db, sizeof db) < 0 || !(q = query_open(db, err, sizeof err)) || !c) {
		T_CHECK(0, "create and open the test database");
		T_DONE();
	}

	/* ---- orders of interest */
	T_EQ_I(report_orders(q, 1, &o), 0, "orders of run 1");
	T_CHECK(o.n == 2 && o.order[0] == 3 && o.order[1] == 9 && o.task_order_known && o.task_objsize == 6592 &&
		o.pageblock_order == 9, "run 1: task_struct order 3 (8 pages per slab, 6592-byte objects), pageblock 9");
	T_EQ_I(report_orders(q, 3, &o), 0, "orders of run 3");
	T_CHECK(o.n == 1 && o.order[0] == 3 && !o.task_order_known && o.pageblock_order == -1,
		"run 3: no slabinfo: order 3 assumed, no pageblock order");
	report_orders_add(&o, 3, REPORT_ORDER_PAGEBLOCK);
	report_orders_add(&o, 16, REPORT_ORDER_PAGEBLOCK);
	T_EQ_I(o.n, 1, "report_orders_add ignores duplicates and orders past the buddy table");

	/* ---- headroom trends: every zone of run 1 at order 3 */
	n = report_headroom_trends(q, 1, 3, -1, -1, 1, t, REPORT_MAX_ZONES);
	T_EQ_I(n, 4, "four zones of run 1 have order-3 trends");
	for (int z = 1; z <= 4 && n == 4; z++) {
		int m = minute_means(1, z, 3, ya);
		const struct report_trend *r = &t[z - 1];
		T_CHECK(r->ok && r->n == (size_t)m && r->t0_ms == TDB_T1 && r->last_ms == TDB_T1 + 9 * 60000,
			"zone %d: 10 minute points from T1", z);
		T_CHECK(close_to(r->last, ya[m - 1], 1e-12), "zone %d: last minute's mean %.3f = by hand %.3f", z, r->last,
			ya[m - 1]);
		T_CHECK(close_to(r->slope_h, slope_h(ya, m), 1e-9), "zone %d: slope %.6g/h = closed-form OLS %.6g/h", z,
			r->slope_h, slope_h(ya, m));
		T_CHECK(r->lo_h <= r->slope_h && r->slope_h <= r->hi_h, "zone %d: the CI holds the slope", z);
		T_CHECK(r->t && r->v && r->v[3] == ya[3], "zone %d: kept points are the minute means", z);
		T_CHECK(close_to(report_trend_at(r, r->t0_ms), r->fit.intercept, 1e-12), "zone %d: the line at t0 is the intercept", z);
	}
	report_trends_free(t, n);
	/* Under REPORT_TICK_TREND_MINUTES minutes: fitted through every tick, as tick_fit does by hand. */
	for (int m = 3; m >= 2; m--) {
		struct trend_fit f;
		int rc = tick_fit(1, 1, 3, (10 - m) * 60, TDB_N1, &f);
		n = report_headroom_trends(q, 1, 3, TDB_T1 + (10 - m) * 60000, -1, 0, t, REPORT_MAX_ZONES);
		T_CHECK(n == 4 && t[0].n == (size_t)m && t[0].per_tick && t[0].ticks == (size_t)(60 * m) &&
			t[0].t0_ms == testdb_ts(1, (10 - m) * 60) && t[0].ok == (rc == TREND_OK) && t[0].err == rc &&
			(rc != TREND_OK || close_to(t[0].fit.slope, f.slope, 1e-12)),
			"the last %d minutes: %d minute points, fitted per tick over %d ticks (by hand: %s)", m, m, 60 * m,
			trend_strerror(rc));
	}
	n = report_headroom_trends(q, 1, 3, -1, -1, 0, t, REPORT_MAX_ZONES);
	T_CHECK(n == 4 && !t[0].per_tick && t[0].n == 10, "%d minutes (REPORT_TICK_TREND_MINUTES): minute points again",
		REPORT_TICK_TREND_MINUTES);
	T_EQ_I(report_headroom_trends(q, 2, 3, -1, -1, 0, t, REPORT_MAX_ZONES), 0, "a run without samples: no trends");
	T_EQ_I(report_headroom_trends(q, 1, 3, -1, -1, 0, t, 2), 2, "the zone list is capped at max");

	/* ---- the comparison of run 3 (B) against run 1 (A) */
	T_EQ_I(report_compare(q, 1, q, 3, c), 0, "compare 1 and 3");
	T_CHECK(c->orders.n == 2 && c->orders.order[0] == 3 && c->orders.order[1] == 9, "orders: union of both runs (3, 9)");

	/*
	 * Capacity, by hand: A = {256, 252, 258, 250, 254} (median 254), B = {228, 231, 226, 229, 230}
	 * (median 229).  The 25 differences b - a run from -32 to -19; their median (13th) is -25.
	 * Every b is below every a: U = 25 of 25, exact two-sided p = 2 / C(10,5) = 0.0079.  Exact CI
	 * for 5 x 5: P(U <= 2) = 4/252 <= 0.025 < P(U <= 3) = 7/252, so k = 3: [D(3), D(23)] = [-30, -21].
	 * (-9.8%: (229 - 254) / 254.)  The full line is 89 columns; without the test name, the space in
	 * the interval and the p-value it fits in 72.
	 */
	l = find(c, "capacity");
	T_CHECK(l && l->ok && l->na == 5 && l->nb == 5 && l->c.a == 254 && l->c.b == 229 && l->c.est == -25 &&
		l->c.lo == -30 && l->c.hi == -21 && fabs(l->c.p - 2.0 / 252) < 1e-12, "capacity: medians, HL shift, CI, p by hand");
	T_EQ_S(l ? l->verdict : NULL, "capacity: 254 vs 229 (-9.8%), HL shift -25 [-30,-21]: significant",
	       "capacity verdict line");
	T_CHECK(l && strstr(l->test, "Hodges-Lehmann") && strstr(l->test, "Mann-Whitney"), "capacity names its tests");

	/* Headroom at order 3: the zone with the largest last-minute headroom in A among zones of both runs. */
	{
		int best = 0;
		double lastb = -1;
		for (int z = 1; z <= 3; z++) {
			int m = minute_means(1, z, 3, ya);
			if (ya[m - 1] > lastb) {
				lastb = ya[m - 1];
				best = z;
			}
		}
		struct trend_fit fb;
		int rcb = tick_fit(3, best, 3, 0, TDB_N2, &fb);
		l = find(c, "headroom o3/h");
		T_CHECK(strcmp(c->zone[0], best == 1 ? "DMA" : best == 2 ? "DMA32" : "Normal") == 0,
			"order 3 compared in zone %s (largest A headroom)", c->zone[0]);
		/* B is 5 minutes, fitted per tick; its sawtooth (37 i mod 5000) leaves no independent points. */
		T_CHECK(rcb == TREND_EAUTOCORR && l && !l->ok && l->w == REPORT_W_TOO_FEW &&
			strstr(l->word, "B: 300 ticks, under 4 independent points"), "headroom: B's 300 ticks are too"
			" autocorrelated to fit, and the line says so: %s", l ? l->word : "(none)");
		T_CHECK(l && strstr(l->test, "per tick") && strstr(l->test, "Welch"), "headroom names the per-tick fit and Welch");
	}

	/* Allocation failures: 3 in A over 599 s of samples, 1 in B over 299.003 s. */
	l = find(c, "alloc failures/h");
	{
		double xa = 599000 / 3.6e6, xb = 299003 / 3.6e6;
		struct stats_rate_ratio rr;
		stats_rate_ratio(3, xa, 1, xb, &rr);
		T_CHECK(l && l->ok && l->na == 3 && l->nb == 1 && close_to(l->xa, xa, 1e-12) && close_to(l->xb, xb, 1e-12) &&
			close_to(l->c.est, (1 / xb) / (3 / xa), 1e-12) && l->c.is_ratio && l->c.lo == rr.lo && l->c.hi == rr.hi,
			"alloc failures: counts 3 and 1, exposures in hours, ratio (1/xb)/(3/xa) = %.4f", (1 / xb) / (3 / xa));
	}
	/* Spawn failures: A 6 EAGAIN + 3 ENOMEM over 600 s of churn rows; B 10 + 5 + 1 over 300.003 s. */
	l = find(c, "spawn failures/h");
	T_CHECK(l && l->ok && l->na == 9 && l->nb == 16 && close_to(l->xa, 600000 / 3.6e6, 1e-12) &&
		close_to(l->xb, 300003 / 3.6e6, 1e-12) && close_to(l->c.a, 9 / (600000 / 3.6e6), 1e-12),
		"spawn failures: 9 vs 16 over the churn rows' span, 54 per hour in A");
	/* Throughput: 2 spawns every tick of A (1000 ms apart): exactly 2/s in each of its 9 buckets; B ~1/s in 4. */
	l = find(c, "spawns/s");
	T_CHECK(l && l->ok && l->na == 9 && l->nb == 4 && l->c.a == 2 && fabs(l->c.b - 1) < 1e-3,
		"spawns/s: one value per bucket of >= 1 minute (9 and 4 buckets), 2/s vs ~1/s");
	/* FPU cost: medians of {1.5, 1.7} and {2.4, 2.2}; 2 x 2 cannot bound an HL interval (C(4,2) = 6 < 40):
	 * too few data, with the counts and the need, never an infinite interval with a verdict. */
	l = find(c, "FPU cost us/yield");
	T_CHECK(l && !l->ok && fabs(l->c.a - 1.6) < 1e-12 && fabs(l->c.b - 2.3) < 1e-12 && l->c.too_few &&
		l->c.n_a == 2 && l->c.n_b == 2 && l->c.need_a == 4 && l->c.need_b == 4 && !stats_significant(&l->c),
		"FPU cost: medians 1.6 and 2.3, too few data (2+2, needs 4+4), no verdict");
	/* Atomic risk of Normal at order 3: per-bucket percentages, medians by hand. */
	{
		double ra[64], rb[64];
		int na = risk_buckets(1, ra), nb = risk_buckets(3, rb);
		l = find(c, "atomic risk o3 %");
		T_CHECK(l && l->ok && l->na == na && l->nb == nb && close_to(l->c.a, median(ra, na), 1e-12) &&
			close_to(l->c.b, median(rb, nb), 1e-12) && stats_significant(&l->c),
			"atomic risk o3: %d and %d buckets, medians %.4g%% and %.4g%% by hand, significant", na, nb,
			median(ra, na), median(rb, nb));
	}
	l = find(c, "atomic risk o9 %");
	T_CHECK(l && l->ok && l->c.a == 0 && l->c.b == 0 && !stats_significant(&l->c), "atomic risk o9: 0 vs 0, no difference");
	for (int i = 0; i < c->n; i++)
		T_CHECK(!c->line[i].ok || strlen(c->line[i].verdict) <= STATS_VERDICT_COLS, "line '%s' fits 72 columns",
			c->line[i].label);

	/* The trace: run 3 had tracefs off, so its two lines are left out and the pair says why, once; its
	 * instance in A only (size not in the note) is a caveat of every other line but the FPU cost. */
	T_CHECK(!find(c, "traced alloc failures/h") && !find(c, "fragmenting fallbacks/h"), "1 vs 3: no trace lines");
	{
		int said = 0;
		for (int i = 0; i < c->pair.ncaveats; i++)
			said += strstr(c->pair.caveat[i], "traced alloc failures/h, fragmenting fallbacks/h not compared: run B had"
					" no trace (not mounted: neither /sys/kernel/tracing nor") != NULL;
		T_EQ_I(said, 1, "1 vs 3: the pair says once why the trace is not compared");
		T_CHECK(c->pair.comparable, "1 vs 3: a run without the trace does not refuse the pair");
		l = find(c, "capacity");
		T_CHECK(l && l->comparable && l->gate.ncaveats >= 1 &&
			strstr(l->gate.caveat[l->gate.ncaveats - 1], "tracefs on in A only: its instance held kernel memory"),
			"1 vs 3: the instance in A only is a caveat of capacity");
	}
	T_EQ_I(report_compare(q, 1, q, 1, c), 0, "compare 1 with itself (both traced)");
	l = find(c, "traced alloc failures/h");
	T_CHECK(l && l->ok && l->comparable && l->na == 4 && l->nb == 4 && !l->significant && fabs(l->c.est - 1) < 1e-9,
		"traced failures: 4 and 4 events, rate ratio 1, no significant difference (%s)", l ? l->full : "");
	l = find(c, "fragmenting fallbacks/h");
	T_CHECK(l && l->ok && l->comparable && l->na == 45 && l->nb == 45 && !l->significant,
		"fragmenting fallbacks: 45 and 45 events (%s)", l ? l->full : "");

	/* A run without anything to compare: every line says so in words, with the counts and the need. */
	T_EQ_I(report_compare(q, 1, q, 2, c), 0, "compare 1 and 2 (no samples in 2)");
	l = find(c, "capacity");
	T_CHECK(l && !l->ok && l->w == REPORT_W_TOO_FEW && strcmp(l->word, "too few data (n=5+0 probes; needs 5+3)") == 0,
		"capacity: too few data, not a verdict (%s)", l ? l->word : "");
	l = find(c, "alloc failures/h");
	T_CHECK(l && !l->ok && l->w == REPORT_W_TOO_FEW && strstr(l->word, "run B has no exposure"),
		"rates need an exposure (%s)", l ? l->word : "");
	l = find(c, "headroom o3/h");
	T_CHECK(l && !l->ok && l->w == REPORT_W_TOO_FEW && strstr(l->word, "needs 6+6"), "headroom: %s",
		l ? l->word : "");
	for (int i = 0; i < c->n; i++) {
		const struct report_line *x = &c->line[i];
		int one = (x->w == REPORT_W_SIGNIFICANT && !strcmp(x->word, REPORT_SIGNIFICANT)) ||
			  (x->w == REPORT_W_NOT_SIGNIFICANT && !strcmp(x->word, REPORT_NOT_SIGNIFICANT)) ||
			  (x->w == REPORT_W_TOO_FEW && !strncmp(x->word, REPORT_TOO_FEW " (n=", 16)) ||
			  (x->w == REPORT_W_TOO_FEW && !strncmp(x->word, REPORT_TOO_FEW " (run ", 18)) ||
			  (x->w == REPORT_W_NOT_COMPARABLE && !strncmp(x->word, REPORT_NOT_COMPARABLE ": ", 16));
		T_CHECK(one, "'%s' ends in exactly one of the four verdicts: %s", x->label, x->word);
	}

	/* ---- the status line's figure: node 0 Normal at order 3, minute means kept in memory over the last hour */
	{
		struct report_status_series ser;
		struct report_status_headroom h;
		struct buddyinfo bi = { .nzones = 2, .norders = 11 };
		double ym[10];
		int64_t t0 = TDB_T1 - TDB_T1 % 60000;

		bi.z[0].node = 0;
		snprintf(bi.z[0].zone, sizeof bi.z[0].zone, "DMA32");
		bi.z[1].node = 0;
		snprintf(bi.z[1].zone, sizeof bi.z[1].zone, "Normal");
		report_status_init(&ser);
		/* Only order-3 blocks: the order-3 headroom is free[3], a minute's mean 100 + 10 m + 0.5. */
		for (int i = 0; i <= 600; i++) {
			bi.z[0].free[3] = 7;
			bi.z[1].free[3] = 100 + (uint64_t)(10 * (i / 60) + i % 2);
			report_status_add(&ser, 3, t0 + 1000 * i, &bi);
		}
		for (int m = 0; m < 10; m++)
			ym[m] = 100 + 10 * m + 0.5;
		report_status_headroom(&ser, t0 + 600000, &h);
		T_CHECK(h.ok && h.order == 3 && close_to(h.last, ym[9], 1e-12) && close_to(h.slope_h, slope_h(ym, 10), 1e-6) &&
			h.lo_h <= h.slope_h && h.slope_h <= h.hi_h && h.falling == (h.hi_h < 0),
			"status: Normal's last closed minute %.1f, slope %.6g/h = closed-form OLS %.6g/h", h.last, h.slope_h,
			slope_h(ym, 10));
		report_status_headroom(&ser, t0 + 3600000 + 5 * 60000 + 1, &h);
		T_CHECK(!h.ok && h.order == 3, "status: only 4 minutes inside the last hour: no figure");
		report_status_add(&ser, 4, t0 + 601000, &bi);
		report_status_headroom(&ser, t0 + 601000, &h);
		T_CHECK(!h.ok && h.order == 4, "status: another order starts the series afresh");
		bi.nzones = 1;
		report_status_init(&ser);
		for (int i = 0; i <= 600; i++)
			report_status_add(&ser, 3, t0 + 1000 * i, &bi);
		report_status_headroom(&ser, t0 + 600000, &h);
		T_CHECK(!h.ok, "status: no Normal zone, no figure");
	}

	/* ---- the figures of one run (report/run.h), against the testdb formulas */
	{
		struct report_orders lo;
		struct report_failures f;
		struct report_churn ch;
		struct report_probes pr;
		struct query_run qr = { .started_ms = 1000, .ended_ms = -1, .first_sample_ms = 1500, .last_sample_ms = 4000 };
		T_EQ_I(report_task_order(-1), REPORT_DEFAULT_TASK_ORDER, "task order: the default until slabinfo says");
		T_EQ_I(report_task_order(2), 2, "task order: measured");
		report_orders_live(-1, 9, &lo);
		T_CHECK(lo.n == 2 && lo.order[0] == REPORT_DEFAULT_TASK_ORDER && !lo.task_order_known && lo.order[1] == 9 &&
			lo.kind[1] == REPORT_ORDER_PAGEBLOCK && strcmp(lo.why[1], "pageblock") == 0, "live orders: default 3, pageblock 9");
		report_orders_live(9, 9, &lo);
		T_CHECK(lo.n == 1 && lo.order[0] == 9 && lo.task_order_known, "live orders: one entry when both are 9");
		T_EQ_S(report_run_state(&qr, 1), "running", "state: the newest run without an end is running");
		T_EQ_S(report_run_state(&qr, 0), "unfinished", "state: an older one is unfinished");
		T_EQ_I(report_run_duration(&qr), 3000, "duration: last sample - start while running");
		T_EQ_I(report_run_exposure_ms(&qr), 2500, "exposure: first to last sample");
		qr.started_ms = -1;
		T_EQ_I(report_run_duration(&qr), -1, "duration unknown without a start");
		T_CHECK(report_per_hour(3, 1800000) == 6 && isnan(report_per_hour(3, 0)) && report_per_s(5, 2500) == 2,
			"rates: per hour and per second of an exposure; none without one");
		T_CHECK(report_gfp_atomic("GFP_ATOMIC|__GFP_NOWARN") && report_gfp_atomic("GFP_NOWAIT") &&
			!report_gfp_atomic("GFP_KERNEL") && !report_gfp_atomic(NULL), "GFP_ATOMIC and GFP_NOWAIT are atomic");
		T_EQ_I(report_failures(q, 1, &f), 0, "failures of run 1");
		T_CHECK(f.count == 3 && f.exposure_ms == 599000 && close_to(f.per_hour, 3 * 3.6e6 / 599000, 1e-12),
			"failures: 3 over the 599 s from first to last sample (%.6g/h)", f.per_hour);
		T_EQ_I(report_churn(q, 1, -1, -1, &ch), 1, "churn of run 1");
		T_CHECK(ch.tot.c[QC_SPAWNED] == 1200 && ch.spawn_failures == 9 &&
			close_to(ch.spawns_per_s, 1200 * 1000.0 / (double)ch.tot.span_ms, 1e-12) &&
			close_to(ch.per_hour[QC_SIGKILL], 4 * 3.6e6 / (double)ch.tot.span_ms, 1e-12),
			"churn: 1200 spawned, 9 spawn failures, rates over the churn span (%lld ms)", (long long)ch.tot.span_ms);
		T_EQ_I(report_probes(q, 1, -1, -1, &pr), 0, "probes of run 1");
		T_CHECK(pr.rows == 7 && pr.capacity.n == 5 && pr.capacity.median == 254 && pr.capacity.min == 250 &&
			pr.capacity.max == 258 && !pr.capacity.fit_ok && pr.fpu_cost.n == 2 && !pr.fpu_cost.fit_ok &&
			close_to(pr.fpu_cost.median, 1.6, 1e-12),
			"probes: 5 capacity (median 254, 250..258; too few for a trend: issue 31 wants 6), 2 FPU-cost");
		report_probes_free(&pr);
	}

	/* eagerfpu= from a kernel command line */
	T_EQ_S(report_eagerfpu("root=/dev/xvda1 eagerfpu=on quiet", e, sizeof e), "on", "eagerfpu=on");
	T_EQ_S(report_eagerfpu("eagerfpu=off x eagerfpu=auto", e, sizeof e), "auto", "the last eagerfpu= wins");
	T_EQ_S(report_eagerfpu("noeagerfpu=on xeagerfpu=off", e, sizeof e), "", "only a whole word counts");
	T_EQ_S(report_eagerfpu(NULL, e, sizeof e), "", "no command line");

	/*
	 * After retention deleted the raw ticks, the comparison comes from the rollups alone: the same
	 * verdicts, with minute buckets on the clock (Normal at order 3 fails 12 of every 60 ticks in A:
	 * exactly 20% per whole minute) and exposures of one interval per churn tick.
	 */
	{
		sqlite3 *rw = NULL;
		int ok = sqlite3_open(db, &rw) == SQLITE_OK &&
			 testdb_exec(rw, "DELETE FROM samples WHERE run_id IN (1, 3); DELETE FROM buddy WHERE run_id IN (1, 3);"
				     " DELETE FROM atomic_risk WHERE run_id IN (1, 3)") == 0;
		sqlite3_close(rw);
		T_CHECK(ok, "delete the raw ticks of runs 1 and 3, as retention would");
		query_close(q);
		q = query_open(db, err, sizeof err);
		T_CHECK(q && report_compare(q, 1, q, 3, c) == 0, "compare 1 and 3 from rollups only");
		l = find(c, "spawns/s");
		T_CHECK(l && l->ok && l->c.a == 2 && fabs(l->c.b - 1) < 1e-3, "rollups: spawns/s 2 vs ~1");
		l = find(c, "spawn failures/h");
		T_CHECK(l && l->ok && l->na == 9 && l->nb == 16 && close_to(l->xa, 600000 / 3.6e6, 1e-12) &&
			close_to(l->xb, 300000 / 3.6e6, 1e-12), "rollups: spawn failures 9 vs 16 over 600 s and 300 s of ticks");
		l = find(c, "atomic risk o3 %");
		T_CHECK(l && l->ok && l->c.a == 20 && l->c.b == 50 && stats_significant(&l->c),
			"rollups: atomic risk o3 20%% vs 50%% per whole minute, significant");
		l = find(c, "capacity");
		T_CHECK(l && l->ok && l->c.a == 254 && l->c.b == 229, "rollups: capacity unchanged (probes are not raw ticks)");
		l = find(c, "headroom o3/h");
		T_CHECK(l && l->ok, "rollups: headroom slopes from the minute rollups");
		/* The rollup-tier atomic series is summed in C: the same points as the GROUP BY it replaced. */
		for (int mp = 1; mp <= 12; mp += 11)
			for (int ord = 3; ord <= 9; ord += 6) {
				int np = 0, bad = atomic_series_vs_sql(q, db, 1, ord, mp, &np);
				T_CHECK(bad == 0 && (ord != 3 || mp == 1 || np > 0), "rollups: atomic series order %d at %d point(s) = SQL "
					"GROUP BY (%d points, %d differ)", ord, mp, np, bad);
			}
	}

	/* The Slab the instance took, from the run's note (daemon/traceinst.c writes ", Slab +N kB"), weighs in the gate. */
	{
		sqlite3 *rw = NULL;
		struct report_trace tr;
		const struct report_gate *g;
		int ok = sqlite3_open(db, &rw) == SQLITE_OK &&
			 testdb_exec(rw, "INSERT INTO run_notes SELECT 1, ts_ms + 1, 'tracefs', replace(text, ' mono clock)',"
				     " ' mono clock; made in 210 ms, Slab +9440 kB)') FROM run_notes WHERE run_id = 1 AND kind = 'tracefs'") == 0;
		sqlite3_close(rw);
		T_CHECK(ok, "run 1's note with the Slab its instance took");
		query_close(q);
		q = query_open(db, err, sizeof err);
		T_CHECK(q && report_trace(q, 1, &tr) >= 0 && tr.on && tr.setup_slab_kb == 9440, "the note's Slab +9440 kB read back (%lld)",
			q ? (long long)tr.setup_slab_kb : -2);
		T_CHECK(q && report_compare(q, 1, q, 3, c) == 0, "compare 1 and 3 with the instance's size known");
		l = find(c, "capacity");
		g = l ? &l->gate : NULL;
		T_CHECK(g && (strstr(g->why, "tracefs on in A only: its instance took 9440 kB of slab") ||
			      (g->ncaveats && strstr(g->caveat[g->ncaveats - 1], "tracefs on in A only: its instance took 9440 kB of slab"))),
			"capacity weighs the 9440 kB (%s)", g ? (g->comparable ? (g->ncaveats ? g->caveat[g->ncaveats - 1] : "") : g->why) : "");
	}

	query_close(q);
	free(c);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		T_CHECK(0, "cleanup");
	T_DONE();
}
