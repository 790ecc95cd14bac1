/* SPDX-License-Identifier: GPL-2.0-only */
/* report/compare: run B against run A; see compare.h. */
#include "report/compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/headroom.h"

#define HOUR_MS 3.6e6

static const char test_samples[] = "Hodges-Lehmann shift, 95% CI; Mann-Whitney U p";
static const char test_slopes[] = "OLS slopes on minute rollups, Welch difference, 95% CI";
static const char test_rates[] = "Poisson rate ratio B/A, exact conditional 95% CI";

/* Finish a line from the stats module's result: the verdict, or a note. */
static void line_done(struct report_line *l, int rc, const char *what)
{
	if (rc == STATS_OK && stats_verdict(&l->c, l->verdict, sizeof l->verdict) >= 0) {
		l->ok = 1;
		l->significant = stats_significant(&l->c);
		l->word = l->significant ? REPORT_SIGNIFICANT : REPORT_NOT_SIGNIFICANT;
		return;
	}
	l->ok = 0;
	l->word = REPORT_NO_VERDICT;
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
	l->word = REPORT_NO_VERDICT;
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

/* The probe results of both runs (report_probes), loaded once for the two probe lines. */
struct probe_pair {
	int loaded;
	struct report_probes a, b;
};

static int cmp_probes(struct report_cmp *c, int has_probes, struct probe_pair *pp, int fpu_cost,
		      const char *label, const char *unit, const char *what)
{
	struct report_line *l = line_new(c, test_samples, unit, "%s", label);
	const struct report_probe_set *sa, *sb;

	if (!l)
		return 0;
	if (!has_probes) {
		snprintf(l->note, sizeof l->note, "this database has no probe table");
		return 0;
	}
	if (!pp->loaded) {
		if (report_probes(c->qa, c->a, -1, -1, &pp->a) < 0)
			return -1;
		if (report_probes(c->qb, c->b, -1, -1, &pp->b) < 0) {
			report_probes_free(&pp->a);
			return -1;
		}
		pp->loaded = 1;
	}
	sa = fpu_cost ? &pp->a.fpu_cost : &pp->a.capacity;
	sb = fpu_cost ? &pp->b.fpu_cost : &pp->b.capacity;
	return cmp_samples(l, &(struct vec){ sa->v, sa->n, sa->n, 0 }, &(struct vec){ sb->v, sb->n, sb->n, 0 }, what);
}

/* Headroom slopes at each order of interest, in the largest zone fitted in both runs. */
static int cmp_headroom(struct report_cmp *c)
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

		if ((na = report_headroom_trends(c->qa, c->a, k, -1, -1, 0, ta, REPORT_MAX_ZONES)) < 0 ||
		    (nb = report_headroom_trends(c->qb, c->b, k, -1, -1, 0, tb, REPORT_MAX_ZONES)) < 0) {
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
			snprintf(l->note, sizeof l->note, "no zone with >= %d minutes of order-%d headroom in both runs",
				 REPORT_TREND_MIN_POINTS, k);
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

static int cmp_failures(struct report_cmp *c, int has_kmsg)
{
	struct report_line *l = line_new(c, test_rates, "per hour", "alloc failures/h");
	struct report_failures fa, fb;

	if (!l)
		return 0;
	if (!has_kmsg) {
		snprintf(l->note, sizeof l->note, "this database has no kernel-log events");
		return 0;
	}
	if (report_failures(c->qa, c->a, &fa) < 0 || report_failures(c->qb, c->b, &fb) < 0)
		return -1;
	cmp_rate(l, (uint64_t)fa.count, (double)fa.exposure_ms / HOUR_MS, (uint64_t)fb.count,
		 (double)fb.exposure_ms / HOUR_MS, "allocation failures");
	return 0;
}

static int exposure_cb(void *arg, const struct query_run *r)
{
	*(int64_t *)arg = report_run_exposure_ms(r);
	return 0;
}

/* Per-bucket values of a run for a per-bucket comparison: buckets of >= 1 minute, at most REPORT_MAX_BUCKETS. */
static int bucket_range(struct query *q, int64_t run, struct query_range *rg, int *err)
{
	int64_t span = 0;

	if (query_run(q, run, exposure_cb, &span) < 0) {
		*err = 1;
		return 0;
	}
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

static int churn_cb(void *arg, const struct report_churn_point *ch)
{
	struct churn_acc *a = arg;

	/* Whole buckets only: a partial last bucket would be a rate over a different span. */
	if (ch->span_ms < a->rg->bucket_ms * 9 / 10)
		return 0;
	return vec_push(&a->v, ch->per_s[QC_SPAWNED]);
}

static int throughput(struct query *q, int64_t run, struct vec *out)
{
	struct query_range rg;
	struct churn_acc a = { { 0 }, &rg };
	int err = 0, r;

	memset(out, 0, sizeof *out);
	if (!bucket_range(q, run, &rg, &err))
		return err ? -1 : 0;
	r = report_churn_series(q, run, &rg, churn_cb, &a);
	*out = a.v;
	return r < 0 || a.v.oom ? -1 : 0;
}

static int cmp_churn(struct report_cmp *c, int has_churn)
{
	struct report_line *sf = line_new(c, test_rates, "per hour", "spawn failures/h");
	struct report_line *tp = line_new(c, test_samples, "spawns/s", "spawns/s");
	struct report_churn ca, cb;
	struct vec a = { 0 }, b = { 0 };
	int ra, rb, r = 0;

	if (!sf || !tp)
		return 0;
	if (!has_churn) {
		snprintf(sf->note, sizeof sf->note, "this database has no churn table");
		snprintf(tp->note, sizeof tp->note, "this database has no churn table");
		return 0;
	}
	if ((ra = report_churn(c->qa, c->a, -1, -1, &ca)) < 0 || (rb = report_churn(c->qb, c->b, -1, -1, &cb)) < 0)
		return -1;
	if (!ra || !rb) {
		snprintf(sf->note, sizeof sf->note, "no churn recorded in run %s", !ra && !rb ? "A or B" : !ra ? "A" : "B");
		snprintf(tp->note, sizeof tp->note, "%s", sf->note);
		return 0;
	}
	cmp_rate(sf, (uint64_t)ca.spawn_failures, (double)ca.tot.span_ms / HOUR_MS, (uint64_t)cb.spawn_failures,
		 (double)cb.tot.span_ms / HOUR_MS, "spawn failures");
	if (throughput(c->qa, c->a, &a) < 0 || throughput(c->qb, c->b, &b) < 0)
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
	return vec_push(&a->v, p->v);
}

static int atomic_values(struct query *q, int64_t run, int order, int node, const char *zone, struct vec *out)
{
	struct query_range rg;
	struct atomic_acc a = { { 0 }, node, zone };
	int err = 0, r = 0;

	if (bucket_range(q, run, &rg, &err))
		r = report_atomic_series(q, run, order, &rg, atomic_cb, &a);
	*out = a.v;
	return err || r < 0 || a.v.oom ? -1 : 0;
}

static int cmp_atomic(struct report_cmp *c, int has_atomic)
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
		r = atomic_values(c->qa, c->a, c->orders.order[i], c->node[i], c->zone[i], &a) < 0 ||
		    atomic_values(c->qb, c->b, c->orders.order[i], c->node[i], c->zone[i], &b) < 0 ? -1
		    : cmp_samples(l, &a, &b, "minute of atomic-risk samples");
		free(a.v);
		free(b.v);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* Whether both runs' databases have table name (an older fpusoakd's may not): 1, 0, or -1. */
static int both_have(const struct report_cmp *c, const char *name)
{
	int ha = query_has_table(c->qa, name), hb;

	if (ha <= 0)
		return ha;
	hb = query_has_table(c->qb, name);
	return hb;
}

int report_compare(struct query *qa, int64_t a, struct query *qb, int64_t b, struct report_cmp *out)
{
	struct report_orders oa, ob;
	struct probe_pair pp = { 0 };
	int has_probes, has_kmsg, has_churn, has_atomic, r;

	memset(out, 0, sizeof *out);
	out->qa = qa;
	out->qb = qb;
	out->a = a;
	out->b = b;
	if (report_orders(qa, a, &oa) < 0 || report_orders(qb, b, &ob) < 0)
		return -1;
	out->orders = oa;
	for (int i = 0; i < ob.n; i++)
		report_orders_add(&out->orders, ob.order[i], ob.kind[i]);
	if ((has_probes = both_have(out, "probes")) < 0 || (has_kmsg = both_have(out, "kmsg_events")) < 0 ||
	    (has_churn = both_have(out, "churn_info")) < 0 || (has_atomic = both_have(out, "atomic_risk")) < 0)
		return -1;
	r = cmp_probes(out, has_probes, &pp, 0, "capacity", "workers", "capacity probes") < 0 ||
	    cmp_headroom(out) < 0 ||
	    cmp_failures(out, has_kmsg) < 0 ||
	    cmp_churn(out, has_churn) < 0 ||
	    cmp_probes(out, has_probes, &pp, 1, "FPU cost us/yield", "system us per yield", "FPU-cost probes") < 0 ||
	    cmp_atomic(out, has_atomic) < 0 ? -1 : 0;
	if (pp.loaded) {
		report_probes_free(&pp.a);
		report_probes_free(&pp.b);
	}
	return r;
}

