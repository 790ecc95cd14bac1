/* report: the figures shared by pages, API and the offline summary; see report.h. */
#include "web/report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- orders of interest */

void report_orders_add(struct report_orders *o, int k, const char *why)
{
	if (k < 0 || k >= BUDDY_MAX_ORDER)
		return;
	for (int i = 0; i < o->n; i++)
		if (o->order[i] == k)
			return;
	if (o->n == REPORT_MAX_ORDERS)
		return;
	o->order[o->n] = k;
	o->why[o->n] = why;
	o->n++;
}

int report_orders(struct query *q, int64_t run_id, struct report_orders *out)
{
	int has, order = -1, r;
	int64_t objsize = -1;

	memset(out, 0, sizeof *out);
	out->task_order = REPORT_DEFAULT_TASK_ORDER;
	out->task_objsize = -1;
	out->pageblock_order = -1;
	if ((has = query_has_table(q, "slab")) < 0)
		return -1;
	if (has) {
		if ((r = query_task_slab(q, run_id, &order, &objsize)) < 0)
			return -1;
		if (r && order >= 0) {
			out->task_order = order;
			out->task_order_known = 1;
			out->task_objsize = objsize;
		}
	}
	report_orders_add(out, out->task_order, "task_struct slab");
	if ((has = query_has_table(q, "slow_samples")) < 0)
		return -1;
	if (has) {
		if ((r = query_pageblock_order(q, run_id, &order)) < 0)
			return -1;
		if (r) {
			out->pageblock_order = order;
			report_orders_add(out, order, "pageblock");
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- headroom trends */

struct trend_acc {
	struct report_trend *out;
	int max, n;
	int order, keep;
	size_t cap;               /* of x, y */
	double *x, *y;
	int64_t *t;
	int oom;
};

/* Fit the zone gathered in a (a->out[a->n - 1]). */
static void trend_finish(struct trend_acc *a)
{
	struct report_trend *t = &a->out[a->n - 1];
	int rc;

	if (t->n == 0)
		return;
	t->last = a->y[t->n - 1];
	t->last_ms = a->t[t->n - 1];
	rc = trend_fit(a->x, a->y, t->n, &t->fit);
	t->ok = rc == TREND_OK;
	t->err = rc;
	if (t->ok) {
		t->slope_h = trend_per_hour(t->fit.slope);
		t->lo_h = trend_per_hour(t->fit.ci_lo);
		t->hi_h = trend_per_hour(t->fit.ci_hi);
		if (t->fit.zero_valid) {
			t->exhaustion = 1;
			t->zero_ms = t->t0_ms + (int64_t)llround(t->fit.zero_x);
			t->zero_early_ms = t->t0_ms + (int64_t)llround(t->fit.zero_x_early);
			t->zero_late_ms = t->t0_ms + (int64_t)llround(t->fit.zero_x_late);
		}
	}
	if (a->keep) {
		t->t = malloc(t->n * sizeof *t->t);
		t->v = malloc(t->n * sizeof *t->v);
		if (!t->t || !t->v) {
			a->oom = 1;
			return;
		}
		memcpy(t->t, a->t, t->n * sizeof *t->t);
		memcpy(t->v, a->y, t->n * sizeof *t->v);
	}
}

static int trend_cb(void *arg, const struct query_zone_point *p)
{
	struct trend_acc *a = arg;
	struct report_trend *t = a->n ? &a->out[a->n - 1] : NULL;
	const char *zone = p->zone ? p->zone : "";

	if (!t || t->node != p->node || strcmp(t->zone, zone) != 0) {
		if (t)
			trend_finish(a);
		if (a->oom)
			return -1;
		if (a->n == a->max || strlen(zone) >= ZONE_NAME_MAX)
			return 0;   /* more zones than room: the rest are left out */
		t = &a->out[a->n++];
		memset(t, 0, sizeof *t);
		t->node = p->node;
		memcpy(t->zone, zone, strlen(zone) + 1);
		t->order = a->order;
		t->t0_ms = p->ts_ms;
	}
	if (t->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 1024;
		double *x = realloc(a->x, cap * sizeof *x), *y;
		int64_t *tt;
		if (!x)
			return -1;
		a->x = x;
		if (!(y = realloc(a->y, cap * sizeof *y)))
			return -1;
		a->y = y;
		if (!(tt = realloc(a->t, cap * sizeof *tt)))
			return -1;
		a->t = tt;
		a->cap = cap;
	}
	/* x relative to the zone's first minute: small numbers, no precision lost to epoch offsets. */
	a->x[t->n] = (double)(p->ts_ms - t->t0_ms);
	a->y[t->n] = p->v;
	a->t[t->n] = p->ts_ms;
	t->n++;
	return 0;
}

int report_headroom_trends(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms, int keep,
			   struct report_trend *out, int max)
{
	struct trend_acc a = { .out = out, .max = max, .order = order, .keep = keep };
	int r;

	r = query_headroom_minutes(q, run_id, order, from_ms, to_ms, trend_cb, &a);
	if (r >= 0 && a.n)
		trend_finish(&a);
	free(a.x);
	free(a.y);
	free(a.t);
	if (r < 0 || a.oom) {
		report_trends_free(out, a.n);
		return -1;
	}
	return a.n;
}

void report_trends_free(struct report_trend *t, int n)
{
	for (int i = 0; t && i < n; i++) {
		free(t[i].t);
		free(t[i].v);
		t[i].t = NULL;
		t[i].v = NULL;
	}
}

double report_trend_at(const struct report_trend *t, int64_t ms)
{
	return t->fit.intercept + t->fit.slope * (double)(ms - t->t0_ms);
}

/* ---------------------------------------------------------------- comparison */

static const char test_samples[] = "Hodges-Lehmann shift, 95% CI; Mann-Whitney U p";
static const char test_slopes[] = "OLS slopes on minute rollups, Welch difference, 95% CI";
static const char test_rates[] = "Poisson rate ratio B/A, exact conditional 95% CI";

/* Finish a line from the stats module's result: the verdict, or a note. */
static void line_done(struct report_line *l, int rc, const char *what)
{
	if (rc == STATS_OK && stats_verdict(&l->c, l->verdict, sizeof l->verdict) >= 0) {
		l->ok = 1;
		return;
	}
	l->ok = 0;
	if (!l->note[0])
		snprintf(l->note, sizeof l->note, "%s: %s", what, rc == STATS_OK ? "verdict does not fit" : stats_strerror(rc));
}

static struct report_line *line_new(struct report_cmp *c, const char *test, const char *unit, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static struct report_line *line_new(struct report_cmp *c, const char *test, const char *unit, const char *fmt, ...)
{
	struct report_line *l;
	va_list ap;

	if (c->n == REPORT_MAX_LINES)
		return NULL;
	l = &c->line[c->n++];
	memset(l, 0, sizeof *l);
	va_start(ap, fmt);
	vsnprintf(l->label, sizeof l->label, fmt, ap);
	va_end(ap);
	/* Zone names come from the kernel via the DB: keep the verdict line printable ASCII. */
	for (char *s = l->label; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
	l->test = test;
	l->unit = unit;
	return l;
}

/* A growable array of doubles. */
struct vec {
	double *v;
	size_t n, cap;
	int oom;
};

static int vec_push(struct vec *s, double x)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		double *v = realloc(s->v, cap * sizeof *v);
		if (!v) {
			s->oom = 1;
			return -1;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = x;
	return 0;
}

/* Two samples into one line (HL + Mann-Whitney). */
static int cmp_samples(struct report_line *l, const struct vec *a, const struct vec *b, const char *what)
{
	double *scratch;
	int rc;

	l->na = (double)a->n;
	l->nb = (double)b->n;
	if (a->n == 0 || b->n == 0) {
		snprintf(l->note, sizeof l->note, "no %s in run %s", what, a->n == 0 && b->n == 0 ? "A or B" : a->n == 0 ? "A" : "B");
		return 0;
	}
	if (!(scratch = malloc((a->n + b->n) * sizeof *scratch)))
		return -1;
	rc = stats_cmp_samples(l->label, a->v, a->n, b->v, b->n, scratch, &l->c);
	free(scratch);
	line_done(l, rc, what);
	return 0;
}

struct probe_acc {
	struct vec v;
};

static int probe_cb(void *arg, const struct query_probe *p)
{
	struct probe_acc *a = arg;

	if (isfinite(p->result))
		return vec_push(&a->v, p->result);
	return 0;
}

static int probe_values(struct query *q, int64_t run, const char *kind, struct vec *out)
{
	struct probe_acc a = { { 0 } };
	int r = query_probes(q, run, kind, -1, -1, QUERY_MAX_ROWS, probe_cb, &a);

	*out = a.v;
	return r < 0 ? -1 : 0;
}

static int cmp_probes(struct query *q, struct report_cmp *c, int has_probes, const char *kind, const char *label,
		      const char *unit, const char *what)
{
	struct vec a = { 0 }, b = { 0 };
	struct report_line *l = line_new(c, test_samples, unit, "%s", label);
	int r = 0;

	if (!l)
		return 0;
	if (!has_probes) {
		snprintf(l->note, sizeof l->note, "this database has no probe table");
		return 0;
	}
	if (probe_values(q, c->a, kind, &a) < 0 || probe_values(q, c->b, kind, &b) < 0)
		r = -1;
	else
		r = cmp_samples(l, &a, &b, what);
	free(a.v);
	free(b.v);
	return r;
}

/* Headroom slopes at each order of interest, in the largest zone fitted in both runs. */
static int cmp_headroom(struct query *q, struct report_cmp *c)
{
	struct report_trend *ta = calloc(REPORT_MAX_ZONES, sizeof *ta), *tb = calloc(REPORT_MAX_ZONES, sizeof *tb);
	int ret = 0;

	if (!ta || !tb) {
		ret = -1;
		goto out;
	}
	for (int i = 0; i < c->orders.n; i++) {
		int k = c->orders.order[i], na, nb, ia = -1, ib = -1;
		struct report_line *l;

		if ((na = report_headroom_trends(q, c->a, k, -1, -1, 0, ta, REPORT_MAX_ZONES)) < 0 ||
		    (nb = report_headroom_trends(q, c->b, k, -1, -1, 0, tb, REPORT_MAX_ZONES)) < 0) {
			ret = -1;
			goto out;
		}
		for (int x = 0; x < na; x++)
			for (int y = 0; y < nb; y++)
				if (ta[x].ok && tb[y].ok && ta[x].node == tb[y].node && strcmp(ta[x].zone, tb[y].zone) == 0 &&
				    (ia < 0 || ta[x].last > ta[ia].last)) {
					ia = x;
					ib = y;
				}
		if (ia >= 0) {
			snprintf(c->zone[i], sizeof c->zone[i], "%s", ta[ia].zone);
			c->node[i] = ta[ia].node;
		}
		l = line_new(c, test_slopes, "blocks/h", "headroom o%d/h", k);
		if (!l)
			continue;
		if (ia < 0) {
			snprintf(l->note, sizeof l->note, "no zone with >= 3 minutes of order-%d headroom in both runs", k);
			continue;
		}
		l->na = (double)ta[ia].n;
		l->nb = (double)tb[ib].n;
		line_done(l, stats_cmp_slopes(l->label, &ta[ia].fit, &tb[ib].fit, 3.6e6, &l->c), "headroom slope");
	}
out:
	free(ta);
	free(tb);
	return ret;
}

/* The run's observed span in hours (first to last sample), 0 if unknown. */
struct span {
	int64_t first, last;
};

static int span_cb(void *arg, const struct query_run *r)
{
	struct span *s = arg;

	s->first = r->first_sample_ms;
	s->last = r->last_sample_ms;
	return 0;
}

static double run_hours(struct query *q, int64_t run, int *err)
{
	struct span s = { -1, -1 };

	if (query_run(q, run, span_cb, &s) < 0) {
		*err = 1;
		return 0;
	}
	return s.first >= 0 && s.last > s.first ? (double)(s.last - s.first) / 3.6e6 : 0;
}

static void cmp_rate(struct report_line *l, uint64_t a, double ta, uint64_t b, double tb, const char *what)
{
	l->na = (double)a;
	l->nb = (double)b;
	l->xa = ta;
	l->xb = tb;
	if (!(ta > 0) || !(tb > 0)) {
		snprintf(l->note, sizeof l->note, "run %s too short to give a rate", ta > 0 ? "B" : "A");
		return;
	}
	if (a + b == 0) {
		snprintf(l->note, sizeof l->note, "no %s in either run", what);
		return;
	}
	if (a == 0) {
		snprintf(l->note, sizeof l->note, "%s: 0 in A (%.3g h) vs %llu in B (%.3g h); no ratio to A's zero", what,
			 ta, (unsigned long long)b, tb);
		return;
	}
	line_done(l, stats_cmp_rates(l->label, a, ta, b, tb, &l->c), what);
}

static int cmp_failures(struct query *q, struct report_cmp *c, int has_kmsg)
{
	struct report_line *l = line_new(c, test_rates, "per hour", "alloc failures/h");
	int64_t fa = 0, fb = 0;
	double ha, hb;
	int err = 0;

	if (!l)
		return 0;
	if (!has_kmsg) {
		snprintf(l->note, sizeof l->note, "this database has no kernel-log events");
		return 0;
	}
	ha = run_hours(q, c->a, &err);
	hb = run_hours(q, c->b, &err);
	if (err || query_alloc_failures(q, c->a, -1, -1, 0, &fa, NULL, NULL) < 0 ||
	    query_alloc_failures(q, c->b, -1, -1, 0, &fb, NULL, NULL) < 0)
		return -1;
	cmp_rate(l, (uint64_t)fa, ha, (uint64_t)fb, hb, "allocation failures");
	return 0;
}

/* Per-bucket values of a run for a per-bucket comparison: buckets of >= 1 minute, at most REPORT_MAX_BUCKETS. */
static int bucket_range(struct query *q, int64_t run, struct query_range *rg, int *err)
{
	struct span s = { -1, -1 };
	int64_t span;

	if (query_run(q, run, span_cb, &s) < 0) {
		*err = 1;
		return 0;
	}
	span = s.first >= 0 && s.last > s.first ? s.last - s.first : 0;
	rg->from_ms = -1;
	rg->to_ms = -1;
	rg->max_points = (int)(span / REPORT_MIN_BUCKET_MS);
	if (rg->max_points > REPORT_MAX_BUCKETS)
		rg->max_points = REPORT_MAX_BUCKETS;
	return rg->max_points >= 1;
}

struct churn_acc {
	struct vec v;
	const struct query_range *rg;   /* bucket_ms is set once the query resolved the range */
};

static int churn_cb(void *arg, const struct query_churn *ch)
{
	struct churn_acc *a = arg;

	/* Whole buckets only: a partial last bucket would be a rate over a different span. */
	if (ch->span_ms < a->rg->bucket_ms * 9 / 10)
		return 0;
	return vec_push(&a->v, (double)ch->c[QC_SPAWNED] * 1000.0 / (double)ch->span_ms);
}

static int throughput(struct query *q, int64_t run, struct vec *out)
{
	struct query_range rg;
	struct churn_acc a = { { 0 }, &rg };
	int err = 0, r;

	memset(out, 0, sizeof *out);
	if (!bucket_range(q, run, &rg, &err))
		return err ? -1 : 0;
	r = query_churn_series(q, run, &rg, churn_cb, &a);
	*out = a.v;
	return r < 0 || a.v.oom ? -1 : 0;
}

static int cmp_churn(struct query *q, struct report_cmp *c, int has_churn)
{
	struct report_line *sf = line_new(c, test_rates, "per hour", "spawn failures/h");
	struct report_line *tp = line_new(c, test_samples, "spawns/s", "spawns/s");
	struct query_churn ca, cb;
	struct vec a = { 0 }, b = { 0 };
	int ra, rb, r = 0;

	if (!sf || !tp)
		return 0;
	if (!has_churn) {
		snprintf(sf->note, sizeof sf->note, "this database has no churn table");
		snprintf(tp->note, sizeof tp->note, "this database has no churn table");
		return 0;
	}
	if ((ra = query_churn_totals(q, c->a, -1, -1, &ca)) < 0 || (rb = query_churn_totals(q, c->b, -1, -1, &cb)) < 0)
		return -1;
	if (!ra || !rb) {
		snprintf(sf->note, sizeof sf->note, "no churn recorded in run %s", !ra && !rb ? "A or B" : !ra ? "A" : "B");
		snprintf(tp->note, sizeof tp->note, "%s", sf->note);
		return 0;
	}
	cmp_rate(sf, (uint64_t)(ca.c[QC_FAIL_EAGAIN] + ca.c[QC_FAIL_ENOMEM] + ca.c[QC_FAIL_OTHER]), (double)ca.span_ms / 3.6e6,
		 (uint64_t)(cb.c[QC_FAIL_EAGAIN] + cb.c[QC_FAIL_ENOMEM] + cb.c[QC_FAIL_OTHER]), (double)cb.span_ms / 3.6e6,
		 "spawn failures");
	if (throughput(q, c->a, &a) < 0 || throughput(q, c->b, &b) < 0)
		r = -1;
	else
		r = cmp_samples(tp, &a, &b, "whole minute of churn");
	free(a.v);
	free(b.v);
	return r;
}

struct atomic_acc {
	struct vec v;
	int node;
	const char *zone;
};

static int atomic_cb(void *arg, const struct query_zone_point *p)
{
	struct atomic_acc *a = arg;

	if (p->node != a->node || !p->zone || strcmp(p->zone, a->zone) != 0)
		return 0;
	return vec_push(&a->v, p->v * 100.0);
}

static int atomic_values(struct query *q, int64_t run, int order, int node, const char *zone, struct vec *out)
{
	struct query_range rg;
	struct atomic_acc a = { { 0 }, node, zone };
	int err = 0, r = 0;

	if (bucket_range(q, run, &rg, &err))
		r = query_atomic_series(q, run, order, &rg, atomic_cb, &a);
	*out = a.v;
	return err || r < 0 || a.v.oom ? -1 : 0;
}

static int cmp_atomic(struct query *q, struct report_cmp *c, int has_atomic)
{
	for (int i = 0; i < c->orders.n; i++) {
		struct report_line *l = line_new(c, test_samples, "% of samples", "atomic risk o%d %%", c->orders.order[i]);
		struct vec a = { 0 }, b = { 0 };
		int r;

		if (!l)
			return 0;
		if (!has_atomic) {
			snprintf(l->note, sizeof l->note, "this database has no atomic-risk table");
			continue;
		}
		if (!c->zone[i][0]) {
			snprintf(l->note, sizeof l->note, "no zone common to both runs with headroom data");
			continue;
		}
		r = atomic_values(q, c->a, c->orders.order[i], c->node[i], c->zone[i], &a) < 0 ||
		    atomic_values(q, c->b, c->orders.order[i], c->node[i], c->zone[i], &b) < 0 ? -1
		    : cmp_samples(l, &a, &b, "minute of atomic-risk samples");
		free(a.v);
		free(b.v);
		if (r < 0)
			return -1;
	}
	return 0;
}

int report_compare(struct query *q, int64_t a, int64_t b, struct report_cmp *out)
{
	struct report_orders oa, ob;
	int has_probes, has_kmsg, has_churn, has_atomic;

	memset(out, 0, sizeof *out);
	out->a = a;
	out->b = b;
	if (report_orders(q, a, &oa) < 0 || report_orders(q, b, &ob) < 0)
		return -1;
	out->orders = oa;
	for (int i = 0; i < ob.n; i++)
		report_orders_add(&out->orders, ob.order[i], ob.why[i]);
	if ((has_probes = query_has_table(q, "probes")) < 0 || (has_kmsg = query_has_table(q, "kmsg_events")) < 0 ||
	    (has_churn = query_has_table(q, "churn_info")) < 0 || (has_atomic = query_has_table(q, "atomic_risk")) < 0)
		return -1;
	if (cmp_probes(q, out, has_probes, "capacity", "capacity", "workers", "capacity probes") < 0 ||
	    cmp_headroom(q, out) < 0 ||
	    cmp_failures(q, out, has_kmsg) < 0 ||
	    cmp_churn(q, out, has_churn) < 0 ||
	    cmp_probes(q, out, has_probes, "switch", "FPU cost us/yield", "system us per yield", "FPU-cost probes") < 0 ||
	    cmp_atomic(q, out, has_atomic) < 0)
		return -1;
	return 0;
}

const char *report_eagerfpu(const char *cmdline, char *out, size_t outlen)
{
	const char *p = cmdline;

	out[0] = '\0';
	while (p && *p) {
		size_t n;
		while (*p == ' ')
			p++;
		n = strcspn(p, " ");
		if (n > 9 && strncmp(p, "eagerfpu=", 9) == 0) {
			/* The last one wins, as the kernel's early_param parsing does. */
			snprintf(out, outlen, "%.*s", (int)(n - 9), p + 9);
		}
		p += n;
	}
	return out;
}
