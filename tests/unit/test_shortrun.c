/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_shortrun: a short run end to end, the way the Xen positive control writes and reads it.
 * Two 200-tick runs go through the store writer (rollups as the daemon makes them): A's order-3
 * headroom is flat plus AR(1) noise, B's falls by 1 block a second plus the same kind of noise,
 * and B carries the fragmenting load's rows.  Checked against the same series fitted by hand with
 * analysis/trend.h: the report fits them per tick (a 200-s run has 4 minute points), the
 * comparison uses that fit and calls the fall significant, and v_fragment / query_fragment_* give
 * back what was written.  The noise is seeded (TEST_SEED replays it).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"
#include "report/headline.h"
#include "report/headroom.h"
#include "store/query.h"
#include "store/store.h"
#include "tests/unit/test.h"

#define N 200
#define T0 INT64_C(1800000000000)
#define ZONE "DMA32"

static uint64_t rng = 23;

static double unit(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static double normal(void)
{
	double u = unit(), v = unit();

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * 3.141592653589793 * v);
}

/* Headroom series of a run: level + slope per tick + AR(1) noise (phi 0.7, sd 4 blocks). */
static void series(double level, double per_tick, int64_t *h)
{
	double e = 0;

	for (int i = 0; i < N; i++) {
		e = 0.7 * e + 4 * normal();
		h[i] = (int64_t)llround(level + per_tick * i + e);
		if (h[i] < 0)
			h[i] = 0;
	}
}

/* All of a tick's order-3 headroom as order-3 blocks (orders 0..2 hold a fixed 50 each). */
static int submit(struct store *st, int64_t run, int i, int64_t h3, int frag)
{
	struct store_tick *t = store_tick_new(st, run, T0 + (run - 1) * 3600000 + (int64_t)i * 1000);
	struct buddyinfo bi;

	memset(&bi, 0, sizeof bi);
	bi.nzones = 1;
	bi.norders = 11;
	strcpy(bi.z[0].zone, ZONE);
	bi.z[0].free[0] = bi.z[0].free[1] = bi.z[0].free[2] = 50;
	bi.z[0].free[3] = (uint64_t)h3;
	store_tick_buddyinfo(st, t, &bi);
	/* B: three capacity probes 40 s apart, nearly on a line (issue 31: "trend -840 workers/h, 95% CI
	 * [-840.2, -839.9]: significant" from three probes in two minutes). */
	if (frag && (i == 40 || i == 80 || i == 120)) {
		struct store_probe p = { .ts_ms = T0 + 3600000 + (int64_t)i * 1000, .kind = "capacity",
					 .result = i == 40 ? 215 : i == 80 ? 201 : 188, .stop_reason = "spawn_failed:EAGAIN",
					 .duration_ms = 900 };
		store_tick_probe(t, &p);
	}
	if (frag) {
		struct store_fragment f = { .state = 1 + i % 4, .cycles = (uint64_t)i / 14, .anon_bytes = 4096u * i,
					    .pipe_bytes = 8192u * i, .pgtable_bytes = 4096, .socket_bytes = 1280u * i,
					    .files = (uint64_t)i, .kept_bytes = 1024u * i, .alloc_failed = 0 };
		store_tick_fragment(t, &f);
	}
	return store_submit(st, t);
}

static int info_cb(void *arg, const struct query_fragment_info *f)
{
	struct query_fragment_info *o = arg;

	*o = *f;
	o->level = strdup(f->level);
	o->recipe = strdup(f->recipe);
	return 0;
}

static int series_rows;
static int series_cb(void *arg, const struct query_fragment *f)
{
	(void)arg;
	(void)f;
	series_rows++;
	return 0;
}

int main(void)
{
	char dir[] = "/tmp/fpusoak-shortrun-XXXXXX", path[256], err[512];
	int64_t ha[N], hb[N], ra, rb;
	double x[N], y[N];
	struct trend_fit fa, fb;
	struct report_trend t[REPORT_MAX_ZONES];
	struct report_cmp *c = calloc(1, sizeof *c);
	struct query_fragment_info fi;
	struct query_fragment tot;
	struct store *st;
	struct query *q;
	const char *seed = getenv("TEST_SEED");
	int n, bad = 0;

	if (seed)
		rng = strtoull(seed, NULL, 10) | 1;
	printf("# seed %llu (replay: TEST_SEED=%llu)\n", (unsigned long long)rng, (unsigned long long)rng);
	if (!c || !mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/s.db", dir);
	if (!(st = store_open(path, 1 << 20, err, sizeof err))) {
		T_CHECK(0, "open a new DB: %s", err);
		T_DONE();
	}
	series(300, 0, ha);
	series(300, -1, hb);
	struct store_run r = { .label = "off", .kernel_release = "6.1.0", .started_ms = T0 };
	store_run_begin(st, &r, &ra);
	for (int i = 0; i < N; i++)
		bad += submit(st, ra, i, ha[i], 0) != 0;
	store_rollup(st, ra, INT64_MAX);
	store_run_end(st, ra, T0 + N * 1000, "stopped");
	r.label = "heavy";
	r.started_ms = T0 + 3600000;
	store_run_begin(st, &r, &rb);
	store_fragment_info(st, rb, "heavy", 64u << 20, 16u << 20, 12u << 20, "anon_pages=409 keep_every=4");
	for (int i = 0; i < N; i++)
		bad += submit(st, rb, i, hb[i], 1) != 0;
	store_rollup(st, rb, INT64_MAX);
	store_run_end(st, rb, T0 + 3600000 + N * 1000, "stopped");
	store_close(st);
	T_EQ_I(bad, 0, "2 x %d ticks written through the store writer", N);

	if (!(q = query_open(path, err, sizeof err))) {
		T_CHECK(0, "open read-only: %s", err);
		T_DONE();
	}
	/* By hand: the same series, every tick, x in ms since the first, AR(1)-corrected. */
	for (int i = 0; i < N; i++) {
		x[i] = 1000.0 * i;
		y[i] = (double)ha[i];
	}
	T_EQ_I(trend_fit_ar1(x, y, N, &fa), TREND_OK, "A by hand: fits");
	for (int i = 0; i < N; i++)
		y[i] = (double)hb[i];
	T_EQ_I(trend_fit_ar1(x, y, N, &fb), TREND_OK, "B by hand: fits");

	n = report_headroom_trends(q, rb, 3, -1, -1, 1, t, REPORT_MAX_ZONES);
	T_CHECK(n == 1 && t[0].ok && t[0].per_tick && t[0].ticks == N && t[0].n == 4,
		"B: 4 minute points, so fitted per tick over %d ticks", N);
	T_CHECK(n == 1 && fabs(t[0].fit.slope - fb.slope) < 1e-12 && fabs(t[0].fit.se_slope - fb.se_slope) < 1e-12 &&
		fabs(t[0].fit.df - fb.df) < 1e-9, "B: slope %.4g/s, se and df as by hand (r1 %.3f, n_eff %.1f)",
		t[0].fit.slope * 1000, fb.r1, fb.n_eff);
	T_CHECK(n == 1 && t[0].hi_h < 0 && t[0].t && t[0].v && t[0].v[N - 1] == (double)hb[N - 1],
		"B: the fall's 95%% interval is below zero (%.0f [%.0f, %.0f] blocks/h); the kept points are the ticks",
		t[0].slope_h, t[0].lo_h, t[0].hi_h);
	report_trends_free(t, n);
	n = report_headroom_trends(q, ra, 3, -1, -1, 0, t, REPORT_MAX_ZONES);
	T_CHECK(n == 1 && t[0].ok && t[0].per_tick && t[0].lo_h <= 0 && 0 <= t[0].hi_h,
		"A: flat, its interval holds zero (%.0f [%.0f, %.0f] blocks/h)", t[0].slope_h, t[0].lo_h, t[0].hi_h);

	T_EQ_I(report_compare(q, ra, q, rb, c), 0, "compare A and B");
	{
		const struct report_line *l = NULL;
		for (int i = 0; i < c->n; i++)
			if (strcmp(c->line[i].label, "headroom o3/h") == 0)
				l = &c->line[i];
		T_CHECK(l && l->ok && l->significant && strstr(l->test, "per tick") && l->na == N && l->nb == N &&
			fabs(l->c.est - (fb.slope - fa.slope) * 3.6e6) < 1e-6 * fabs(l->c.est),
			"the comparison: per-tick slopes, %d ticks a side, difference %.0f blocks/h, significant: %s", N,
			l ? l->c.est : 0, l ? l->verdict : "(no line)");
	}

	/* What differs: the load alone, named first, and the headroom verdict is its effect. */
	T_CHECK(c->diff.n == 1 && strcmp(c->diff.f[0].name, "fragmenting load") == 0 &&
		strcmp(c->differs, "fragmenting load off (A) vs heavy (B)") == 0, "what differs: %s", c->differs);
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->line[i].label, "headroom o3/h") == 0)
			T_CHECK(strstr(c->line[i].attrib, "the effect of fragmenting load off (A) vs heavy (B)") != NULL,
				"the headroom line is attributed to the load: %s", c->line[i].attrib);

	/* Item 4: a chart of the comparison draws exactly the rows its line used: every tick of a short run (the
	 * page drew the first 5 of them, captioned "minute averages"), the probes the capacity line compared. */
	{
		struct report_cmp *k = calloc(1, sizeof *k);
		const struct report_line *h = NULL, *cap = NULL;
		T_EQ_I(k ? report_compare_with(q, ra, q, rb, &(struct report_cmp_opts){ .keep_series = 1 }, k) : -1, 0,
		       "compare A and B, rows kept");
		for (int i = 0; k && i < k->n; i++) {
			if (strcmp(k->line[i].label, "headroom o3/h") == 0)
				h = &k->line[i];
			if (strcmp(k->line[i].label, "capacity") == 0)
				cap = &k->line[i];
		}
		T_CHECK(h && h->s[0].n == N && h->s[1].n == N && strcmp(h->s[1].what, "ticks") == 0 && h->s[1].has_fit &&
			h->s[1].v[N - 1] == (double)hb[N - 1] && fabs(h->s[1].fit.slope - fb.slope) < 1e-12,
			"headroom: the %d ticks each side was fitted through, and that fit (%zu, %zu)", N, h ? h->s[0].n : 0,
			h ? h->s[1].n : 0);
		T_CHECK(cap && cap->s[0].n == 0 && cap->s[1].n == 3 && cap->s[1].v[2] == 188, "capacity: B's 3 probes, A's none");
		T_CHECK(cap && cap->has_ab && isnan(cap->fa) && cap->fb == 201, "capacity: too few, and still B's median (201)");
		report_compare_free(k);
		free(k);
	}

	/* Three probes are not a trend (six are). */
	{
		struct report_probes pr;
		struct report_headline *h = calloc(1, sizeof *h);
		T_CHECK(report_probes(q, rb, -1, -1, &pr) == 0 && pr.capacity.n == 3 && !pr.capacity.fit_ok,
			"B: 3 capacity probes, no trend fitted");
		report_probes_free(&pr);
		T_CHECK(h && report_headline(q, rb, h) == 0 && h->nprobes == 3 && !h->cap_fit && !h->cap_significant,
			"B's headline: no capacity trend, never 'significant', from 3 probes");
		free(h);
	}

	/* The load's rows and recipe come back as written. */
	T_EQ_I(query_fragment_info(q, ra, info_cb, &fi), 0, "A had no fragmenting load");
	T_EQ_I(query_fragment_info(q, rb, info_cb, &fi), 1, "B's recipe is there");
	T_CHECK(strcmp(fi.level, "heavy") == 0 && fi.cap_bytes == 16 << 20 && strstr(fi.recipe, "keep_every=4"),
		"B: heavy, 16 MiB bound, its recipe text");
	free((char *)fi.level);
	free((char *)fi.recipe);
	T_EQ_I(query_fragment_totals(q, rb, -1, -1, &tot), 1, "B's load rows");
	T_CHECK(tot.rows == N && tot.held_max == (4096 + 8192 + 1280) * (N - 1) + 4096 && tot.cycles == (N - 1) / 14 &&
		tot.kept_max == 1024 * (N - 1), "B: %lld rows, peak %lld bytes held (anon + pipe + pgtable + socket), %lld cycles",
		(long long)tot.rows, (long long)tot.held_max, (long long)tot.cycles);
	T_EQ_I(query_fragment_totals(q, ra, -1, -1, &tot), 0, "A: no load rows");
	{
		struct query_range rg = { -1, -1, 20, 0, 0 };
		series_rows = 0;
		T_CHECK(query_fragment_series(q, rb, &rg, series_cb, NULL) == series_rows && series_rows >= 10 &&
			series_rows <= 20, "B: the load's series in at most 20 buckets (%d)", series_rows);
	}
	query_close(q);
	free(c);
	snprintf(err, sizeof err, "rm -rf %s", dir);
	if (system(err) != 0)
		return 1;
	T_DONE();
}
