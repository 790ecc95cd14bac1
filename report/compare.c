/* SPDX-License-Identifier: GPL-2.0-only */
/* report/compare: run B against run A; see compare.h. */
#include "report/compare.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/num.h"
#include "report/causes.h"
#include "report/headroom.h"
#include "report/rare.h"

#define HOUR_MS 3.6e6

static const char test_slopes[] = "OLS slopes on minute rollups, Welch difference, 95% CI";
static const char test_slopes_ticks[] = "OLS slopes per tick, AR(1)-corrected (Santer 2000), Welch difference, 95% CI";

struct report_line *report_cmp_line(struct report_cmp *c, enum report_line_kind kind, const char *test,
				    const char *unit, const char *fmt, ...)
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
	l->kind = kind;
	l->test = test;
	l->unit = unit;
	l->order = -1;
	report_gate_line(kind, &c->ca, &c->cb, &l->gate);
	l->comparable = l->gate.comparable;
	if (!l->comparable)
		report_line_refuse(l);
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

/* The probe results of both runs (report_probes), loaded once for the two probe lines. */
struct probe_pair {
	int loaded;
	struct report_probes a, b;
};

static int cmp_probes(struct report_cmp *c, struct probe_pair *pp, int fpu_cost, const char *label,
		      const char *unit, const char *what)
{
	struct report_line *l = report_cmp_line(c, fpu_cost ? REPORT_LINE_FPU_COST : REPORT_LINE_CAPACITY, report_test_samples, unit,
					 "%s", label);
	const struct report_probe_set *sa, *sb;

	if (!l)
		return 0;
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
	/* A capacity probe stopped by its limit held at least that many: a lower bound, left out and said. */
	if (!fpu_cost) {
		report_gate_censored('A', sa->n, sa->censored, sa->censored_reason, &l->gate);
		report_gate_censored('B', sb->n, sb->censored, sb->censored_reason, &l->gate);
		if (!(l->comparable = l->gate.comparable))
			report_line_refuse(l);
	} else if (fpu_cost && (sa->censored || sb->censored))
		report_gate_caveat(&l->gate, "%zu + %zu FPU-cost probes did not finish (left out)", sa->censored,
				   sb->censored);
	/* The rows the line compares, for its chart: the probes kept, not the censored or another mode's. */
	if (c->opts.keep_series && (report_series_copy(&l->s[0], sa->t, sa->v, sa->n, "probes") < 0 ||
				    report_series_copy(&l->s[1], sb->t, sb->v, sb->n, "probes") < 0))
		return -1;
	if (!l->comparable)
		return report_line_medians(l, sa->v, sa->n, sb->v, sb->n);
	return report_line_cmp_samples(l, sa->v, sa->n, sb->v, sb->n, what, "probes");
}

/*
 * Whether zone x of A is a better zone to compare than zone y: the larger (in pageblocks, A's
 * pagetypeinfo), which is where allocations are served; where either size is unknown, the one with
 * more headroom left in A.  (On a small x86 guest the 16 MiB DMA zone keeps the most headroom
 * because allocations reach it only once DMA32 is at its watermark: not the zone to judge by.)
 */
static int better_zone(const struct report_zone_sizes *s, const struct report_trend *x, const struct report_trend *y)
{
	int64_t bx = report_zone_blocks(s, x->node, x->zone), by = report_zone_blocks(s, y->node, y->zone);

	if (bx >= 0 && by >= 0 && bx != by)
		return bx > by;
	return x->last > y->last;
}

/* "kernel/atomic" (the modes of mask, enum report_gfp_mode bits) into out; returns out. */
static const char *modes_text(unsigned mask, char *out, size_t len)
{
	size_t n = 0;

	out[0] = 0;
	for (int m = REPORT_GFP_NONE; m <= REPORT_GFP_NOWAIT; m++)
		if (mask & 1u << m)
			n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s", n ? "/" : "",
					      m == REPORT_GFP_NONE ? "no HOLD" : report_gfp_mode_name(m));
	return out;
}

/* One capacity line over the probes of one --gfp-mode in both runs (cmp_probes' rules, the mode's probes only). */
static int cmp_capacity_mode(struct report_cmp *c, int mode, const char *label)
{
	struct probe_pair pp = { 0 };
	int r;

	if (report_probes_mode(c->qa, c->a, -1, -1, mode, &pp.a) < 0)
		return -1;
	if (report_probes_mode(c->qb, c->b, -1, -1, mode, &pp.b) < 0) {
		report_probes_free(&pp.a);
		return -1;
	}
	pp.loaded = 1;
	r = cmp_probes(c, &pp, 0, label, "workers", "capacity probes");
	report_probes_free(&pp.a);
	report_probes_free(&pp.b);
	return r;
}

/*
 * Capacity by --gfp-mode: a probe whose workers held GFP_ATOMIC objects is not comparable with one whose
 * workers held none.  Runs without the module (every probe holds nothing, as before schema 9) get the one
 * "capacity" line; otherwise one line per mode both runs probed in ("capacity (atomic)", ...), and when
 * they share none, a "capacity" line that says so.
 */
static int cmp_capacity(struct report_cmp *c, struct probe_pair *pp)
{
	unsigned ma, mb, common;
	char ta[48], tb[48], label[48];
	struct report_line *l;

	if (report_probe_modes(c->qa, c->a, &ma) < 0 || report_probe_modes(c->qb, c->b, &mb) < 0)
		return -1;
	common = ma & mb;
	if ((ma | mb) == 1u << REPORT_GFP_NONE || !ma || !mb)
		return cmp_probes(c, pp, 0, "capacity", "workers", "capacity probes");
	if (!common) {
		if (!(l = report_cmp_line(c, REPORT_LINE_CAPACITY, report_test_samples, "workers", "%s", "capacity")))
			return 0;
		if (l->comparable) {     /* else the gate has refused it already, for a reason of the pair */
			report_gate_refuse(&l->gate, "A's capacity probes held %s, B's %s", modes_text(ma, ta, sizeof ta),
					   modes_text(mb, tb, sizeof tb));
			l->comparable = 0;
			report_line_refuse(l);
		}
		return 0;
	}
	for (int m = REPORT_GFP_NONE; m <= REPORT_GFP_NOWAIT; m++) {
		if (!(common & 1u << m))
			continue;
		snprintf(label, sizeof label, m == REPORT_GFP_NONE ? "capacity" : "capacity (%s)", report_gfp_mode_name(m));
		if (cmp_capacity_mode(c, m, label) < 0)
			return -1;
	}
	return 0;
}

/* A trend's points as a line's rows (moved, not copied: the trend's arrays are the series' now), with its fit. */
static void series_take(struct report_series *s, struct report_trend *t)
{
	s->n = t->t ? (t->per_tick ? t->ticks : t->n) : 0;
	s->t = t->t;
	s->v = t->v;
	t->t = NULL;
	t->v = NULL;
	s->what = t->per_tick ? "ticks" : "minute means";
	s->has_fit = t->ok;
	s->t0_ms = t->t0_ms;
	s->last_ms = s->n ? s->t[s->n - 1] : t->last_ms;
	s->fit = t->fit;
}

/* One headroom line from the zone picked in both runs' trends (ia, ib; -1: none common); 0 or -1. */
static int headroom_line(struct report_cmp *c, int k, struct report_trend *ta, int na, int ia, struct report_trend *tb,
			 int nb, int ib)
{
	struct report_line *l = report_cmp_line(c, REPORT_LINE_HEADROOM, test_slopes, "blocks/h", "headroom o%d/h", k);
	char counts[96];

	if (!l)
		return 0;
	l->order = k;
	if (ia >= 0) {
		/* Each side's slope is shown whatever the word; the chart draws the points it was fitted through. */
		l->has_ab = 1;
		l->fa = ta[ia].ok ? ta[ia].slope_h : NAN;
		l->fb = tb[ib].ok ? tb[ib].slope_h : NAN;
		if (ta[ia].per_tick || tb[ib].per_tick)
			l->test = test_slopes_ticks;
		l->na = (double)(ta[ia].per_tick ? ta[ia].ticks : ta[ia].n);
		l->nb = (double)(tb[ib].per_tick ? tb[ib].ticks : tb[ib].n);
		if (c->opts.keep_series) {
			series_take(&l->s[0], &ta[ia]);
			series_take(&l->s[1], &tb[ib]);
		}
	}
	if (!l->comparable)
		return 0;
	if (ia < 0 && na > 0 && nb > 0) {
		report_gate_refuse(&l->gate, "no zone common to both runs (A: %s; B: %s)", ta[0].zone, tb[0].zone);
		l->comparable = 0;
		report_line_refuse(l);
		return 0;
	}
	if (ia < 0) {
		/* A run without a minute of headroom yet: too little of it, not a missing zone. */
		size_t ma = 0, mb = 0;
		for (int x = 0; x < na; x++)
			ma = ta[x].n > ma ? ta[x].n : ma;
		for (int y = 0; y < nb; y++)
			mb = tb[y].n > mb ? tb[y].n : mb;
		snprintf(counts, sizeof counts, "n=%zu+%zu minutes; needs %d+%d", ma, mb, REPORT_TREND_MIN_POINTS,
			 REPORT_TREND_MIN_POINTS);
		report_line_too_few(l, counts);
		return 0;
	}
	if (!ta[ia].ok || !tb[ib].ok) {
		const struct report_trend *bad = !ta[ia].ok ? &ta[ia] : &tb[ib];
		if (bad->err == TREND_EAUTOCORR)
			snprintf(counts, sizeof counts, "%s: %zu ticks, under 4 independent points", !ta[ia].ok ? "A" : "B",
				 bad->ticks);
		else
			snprintf(counts, sizeof counts, "n=%zu+%zu minutes; needs %d+%d", ta[ia].n, tb[ib].n,
				 REPORT_TREND_MIN_POINTS, REPORT_TREND_MIN_POINTS);
		report_line_too_few(l, counts);
		return 0;
	}
	report_line_done(l, stats_cmp_slopes(l->label, &ta[ia].fit, &tb[ib].fit, 3.6e6, &l->c), "headroom slope");
	return 0;
}

/* Headroom slopes at each order of interest, in the largest zone of both runs. */
static int cmp_headroom(struct report_cmp *c)
{
	struct report_trend *ta = calloc(REPORT_MAX_ZONES, sizeof *ta), *tb = calloc(REPORT_MAX_ZONES, sizeof *tb);
	struct report_zone_sizes *sz = calloc(1, sizeof *sz);
	int ret = 0;

	if (!ta || !tb || !sz || report_zone_sizes(c->qa, c->a, sz) < 0) {
		ret = -1;
		goto out;
	}
	for (int i = 0; i < c->orders.n; i++) {
		int k = c->orders.order[i], na, nb, ia = -1, ib = -1;

		if ((na = report_headroom_trends(c->qa, c->a, k, -1, -1, c->opts.keep_series, ta, REPORT_MAX_ZONES)) < 0) {
			ret = -1;
			goto out;
		}
		if ((nb = report_headroom_trends(c->qb, c->b, k, -1, -1, c->opts.keep_series, tb, REPORT_MAX_ZONES)) < 0) {
			report_trends_free(ta, na);
			ret = -1;
			goto out;
		}
		/*
		 * The zone compared: the largest of the zones of both runs (better_zone), whether or not its
		 * trends could be fitted (the atomic-risk lines compare the same zone).
		 */
		for (int x = 0; x < na; x++)
			for (int y = 0; y < nb; y++)
				if (ta[x].node == tb[y].node && strcmp(ta[x].zone, tb[y].zone) == 0 &&
				    (ia < 0 || better_zone(sz, &ta[x], &ta[ia]))) {
					ia = x;
					ib = y;
				}
		if (ia >= 0) {
			snprintf(c->zone[i], sizeof c->zone[i], "%s", ta[ia].zone);
			c->node[i] = ta[ia].node;
		}
		ret = headroom_line(c, k, ta, na, ia, tb, nb, ib);
		report_trends_free(ta, na);
		report_trends_free(tb, nb);
		if (ret < 0)
			goto out;
	}
out:
	free(ta);
	free(tb);
	free(sz);
	return ret;
}

/* "4 other processes' and 1 unknown (gone before it was read) left out" for one side's counts; "" when none. */
static const char *left_out(const struct report_whose_counts *w, char *buf, size_t len)
{
	buf[0] = 0;
	if (w->n[REPORT_WHOSE_OTHER] || w->n[REPORT_WHOSE_UNKNOWN])
		snprintf(buf, len, "%" PRId64 " of other processes, %" PRId64 " unknown (no pid, or the task gone before"
			 " it was read)", w->n[REPORT_WHOSE_OTHER], w->n[REPORT_WHOSE_UNKNOWN]);
	return buf;
}

/*
 * A rate of failed allocations: the run's own (report/whose.h) unless asked for every process's, or
 * unless a run has no record of whose they were (an older fpusoakd): then every failure on the machine,
 * and the line says so.  What was left out is said in the line's caveats.
 */
static void cmp_fail_rate(struct report_cmp *c, enum report_line_kind kind, const char *what,
			  const struct report_whose_counts w[2], int64_t ta, int64_t tb)
{
	int own = !c->opts.all_failures && w[0].facts && w[1].facts;
	int64_t n[2];
	char label[48], x[160];
	struct report_line *l;

	for (int i = 0; i < 2; i++)
		n[i] = own ? w[i].n[REPORT_WHOSE_OWN]
			   : w[i].n[REPORT_WHOSE_OWN] + w[i].n[REPORT_WHOSE_OTHER] + w[i].n[REPORT_WHOSE_UNKNOWN];
	snprintf(label, sizeof label, "%s/h%s", what, own ? "" : " (all processes)");
	if (!(l = report_rare_add(c, kind, label, (uint64_t)n[0], ta, (uint64_t)n[1], tb)))
		return;
	if (own) {
		for (int i = 0; i < 2; i++)
			if (left_out(&w[i], x, sizeof x)[0])
				report_gate_caveat(&l->gate, "run %c's own only: %s", "AB"[i], x);
	} else if (!c->opts.all_failures) {
		for (int i = 0; i < 2; i++)
			if (!w[i].facts)
				report_gate_caveat(&l->gate, "run %c recorded no task of its failures (an older fpusoakd):"
						   " every process's are counted", "AB"[i]);
	}
}

static int cmp_failures(struct report_cmp *c)
{
	struct report_failures fa, fb;

	if (report_failures(c->qa, c->a, &fa) < 0 || report_failures(c->qb, c->b, &fb) < 0 ||
	    report_whose_counts(c->qa, c->a, 1, &c->kmsg[0]) < 0 || report_whose_counts(c->qb, c->b, 1, &c->kmsg[1]) < 0)
		return -1;
	cmp_fail_rate(c, REPORT_LINE_ALLOC_FAIL, "alloc failures", c->kmsg, fa.exposure_ms, fb.exposure_ms);
	return 0;
}

/* The module was loaded in run (report_cause_module of its mode); the exposure in *ms. */
static int module_cb(void *arg, const struct query_run *r)
{
	int64_t *v = arg;

	v[0] = report_run_exposure_ms(r);
	v[1] = report_cause_module(r->gfp_mode);
	return 0;
}

/* Fragmentation failures per hour (report/causes.h), one line per source both runs observed: the kernel log
 * always, the trace when both traced, the module when both had it loaded; none from a database before them. */
static int cmp_causes(struct report_cmp *c)
{
	struct report_causes *ca = calloc(1, sizeof *ca), *cb = calloc(1, sizeof *cb);
	int64_t xa[2] = { 0, 0 }, xb[2] = { 0, 0 };
	int r = -1;

	if (!ca || !cb || report_causes(c->qa, c->a, -1, -1, ca) < 0 || report_causes(c->qb, c->b, -1, -1, cb) < 0 ||
	    query_run(c->qa, c->a, module_cb, xa) < 0 || query_run(c->qb, c->b, module_cb, xb) < 0)
		goto out;
	r = 0;
	for (int s = 1; ca->have && cb->have && s <= REPORT_CAUSE_SOURCES; s++) {
		char label[64];
		if ((s == 2 && (strcmp(c->ca.tracefs, "on") || strcmp(c->cb.tracefs, "on"))) || (s == 3 && !(xa[1] && xb[1])))
			continue;
		snprintf(label, sizeof label, "fragmentation failures/h (%s)", report_cause_source(s));
		report_rare_add(c, REPORT_LINE_ALLOC_FAIL, label, (uint64_t)ca->total[s - 1][2], xa[0],
				(uint64_t)cb->total[s - 1][2], xb[0]);
	}
out:
	free(ca);
	free(cb);
	return r;
}

/*
 * The trace's two rates: failed allocations per hour (every one, the kernel
 * log's among them) and fragmenting fallbacks per hour, each over the run's
 * exposure, with the kernel-log failures' test.  Only when both runs traced:
 * a run without the trace has no observation, not a zero.  When one run did,
 * the pair says once why the two lines are missing (a caveat, so a run without
 * tracefs changes nothing else in the comparison); when neither did, nothing.
 */
static int cmp_trace(struct report_cmp *c, const struct report_trace *ta, const struct report_trace *tb)
{
	if (!ta->on && !tb->on)
		return 0;
	if (!ta->on || !tb->on) {
		const struct report_cond *off = ta->on ? &c->cb : &c->ca;
		report_gate_caveat(&c->pair, "traced alloc failures/h, fragmenting fallbacks/h not compared: run %c had no"
				   " trace (%s)", ta->on ? 'B' : 'A',
				   !off->tracefs[0] ? "recorded before fpusoakd read tracefs"
				   : off->trace_why[0] ? off->trace_why : "tracefs off");
		return 0;
	}
	if (report_whose_counts(c->qa, c->a, 0, &c->trace[0]) < 0 || report_whose_counts(c->qb, c->b, 0, &c->trace[1]) < 0)
		return -1;
	/* Whose needs the raw rows (kept --retain-raw): past that, the rollups' count, every process's. */
	if (c->trace[0].facts && c->trace[1].facts &&
	    c->trace[0].n[0] + c->trace[0].n[1] + c->trace[0].n[2] == ta->t.failures &&
	    c->trace[1].n[0] + c->trace[1].n[1] + c->trace[1].n[2] == tb->t.failures)
		cmp_fail_rate(c, REPORT_LINE_TRACE_FAIL, "traced alloc failures", c->trace, ta->exposure_ms, tb->exposure_ms);
	else
		report_rare_add(c, REPORT_LINE_TRACE_FAIL, "traced alloc failures/h (all processes)",
				(uint64_t)ta->t.failures, ta->exposure_ms, (uint64_t)tb->t.failures, tb->exposure_ms);
	report_rare_add(c, REPORT_LINE_EXTFRAG, "fragmenting fallbacks/h", (uint64_t)ta->t.fragmenting, ta->exposure_ms,
			(uint64_t)tb->t.fragmenting, tb->exposure_ms);
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

/* Spawn failures and churn workers' OOM kills per hour of churn (rare events), and spawns per second per minute. */
static int cmp_churn(struct report_cmp *c)
{
	struct report_churn ca, cb;
	struct report_line *tp;
	struct vec a = { 0 }, b = { 0 };
	int ra, rb, r = 0;

	if ((ra = report_churn(c->qa, c->a, -1, -1, &ca)) < 0 || (rb = report_churn(c->qb, c->b, -1, -1, &cb)) < 0)
		return -1;
	report_rare_add(c, REPORT_LINE_SPAWN_FAIL, "spawn failures/h", ra ? (uint64_t)ca.spawn_failures : 0,
			ra ? ca.tot.span_ms : 0, rb ? (uint64_t)cb.spawn_failures : 0, rb ? cb.tot.span_ms : 0);
	report_rare_add(c, REPORT_LINE_OOM, "churn OOM kills/h", ra ? (uint64_t)ca.tot.c[QC_OOM] : 0,
			ra ? ca.tot.span_ms : 0, rb ? (uint64_t)cb.tot.c[QC_OOM] : 0, rb ? cb.tot.span_ms : 0);
	tp = report_cmp_line(c, REPORT_LINE_SPAWNS, report_test_samples, "spawns/s", "spawns/s");
	if (!tp)
		return 0;
	if (throughput(c->qa, c->a, &a) < 0 || throughput(c->qb, c->b, &b) < 0)
		r = -1;
	else if (!tp->comparable)
		r = report_line_medians(tp, a.v, a.n, b.v, b.n);   /* the figures, without a verdict */
	else
		r = report_line_cmp_samples(tp, a.v, a.n, b.v, b.n, "whole minute of churn", "minutes");
	free(a.v);
	free(b.v);
	return r;
}

/* The request's atomic-only risk per minute bucket: % of its ticks where GFP_ATOMIC fails and GFP_KERNEL
 * would pass (v_atomic_request; the raw ticks only). */
struct request_acc {
	struct vec v;
};

static int request_cb(void *arg, const struct query_request *p)
{
	struct request_acc *a = arg;

	if (p->samples <= 0)
		return 0;
	return vec_push(&a->v, 100.0 * (double)p->atomic_only / (double)p->samples);
}

static int request_values(struct query *q, int64_t run, int order, struct vec *out)
{
	struct query_range rg;
	struct request_acc a = { { 0 } };
	int err = 0, r = 0;

	if (bucket_range(q, run, &rg, &err))
		r = query_request_series(q, run, order, &rg, request_cb, &a);
	*out = a.v;
	return err || r < 0 || a.v.oom ? -1 : 0;
}

static int cmp_atomic(struct report_cmp *c)
{
	for (int i = 0; i < c->orders.n; i++) {
		struct report_line *l = report_cmp_line(c, REPORT_LINE_ATOMIC, report_test_samples, "% of samples", "atomic risk o%d %%",
						 c->orders.order[i]);
		struct vec a = { 0 }, b = { 0 };
		int r;

		if (!l)
			return 0;
		l->order = c->orders.order[i];
		r = request_values(c->qa, c->a, c->orders.order[i], &a) < 0 ||
		    request_values(c->qb, c->b, c->orders.order[i], &b) < 0 ? -1
		    : !l->comparable ? report_line_medians(l, a.v, a.n, b.v, b.n)
		    : report_line_cmp_samples(l, a.v, a.n, b.v, b.n, "minute of atomic-risk samples", "minutes");
		free(a.v);
		free(b.v);
		if (r < 0)
			return -1;
	}
	return 0;
}

void report_compare_free(struct report_cmp *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		for (int w = 0; w < 2; w++) {
			free(c->line[i].s[w].t);
			free(c->line[i].s[w].v);
			memset(&c->line[i].s[w], 0, sizeof c->line[i].s[w]);
		}
}

/* The pair is comparable when every line is: each distinct reason a line was refused for is said once for the
 * pair, with the lines it refused ("capacity, spawns/s: run A ran unconfined (...)"). */
static void pair_from_lines(struct report_cmp *c)
{
	char labels[REPORT_GATE_TEXT];
	int done[REPORT_MAX_LINES] = { 0 };

	for (int i = 0; i < c->n; i++) {
		const char *why = c->line[i].gate.why;
		size_t n = 0;
		int count = 0;

		if (c->line[i].comparable || done[i])
			continue;
		labels[0] = 0;
		for (int j = i; j < c->n; j++) {
			if (c->line[j].comparable || done[j] || strcmp(c->line[j].gate.why, why) != 0)
				continue;
			done[j] = 1;
			count++;
			n += (size_t)snprintf(labels + n, n < sizeof labels ? sizeof labels - n : 0, "%s%s", n ? ", " : "",
					      c->line[j].label);
		}
		if (!c->pair.comparable && strcmp(c->pair.why, why) == 0)
			continue;   /* the pair's own reason (the machines differ): said already */
		if (count == c->n)
			snprintf(labels, sizeof labels, "every line");
		else if (count > 3 && c->n - count <= 2) {
			/* Most lines: name the few it spared. */
			n = (size_t)snprintf(labels, sizeof labels, "every line but");
			for (int j = 0, k = 0; j < c->n; j++)
				if (strcmp(c->line[j].gate.why, why) != 0 || c->line[j].comparable)
					n += (size_t)snprintf(labels + n, n < sizeof labels ? sizeof labels - n : 0, "%s %s",
							      k++ ? "," : "", c->line[j].label);
		} else if (count > 3)
			snprintf(labels, sizeof labels, "%d of %d lines", count, c->n);
		report_gate_refuse(&c->pair, "%s: %s", labels, why);
	}
}

/* "fragmenting load off (A) vs heavy (B)", several joined by "; ", into out. */
static void differs_text(const struct report_factors *d, char *out, size_t len)
{
	size_t n = 0;

	out[0] = 0;
	for (int i = 0; i < d->n && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%s%s %s (A) vs %s (B)", i ? "; " : "", d->f[i].name, d->f[i].a,
				      d->f[i].b);
	if (d->dropped && n < len)
		snprintf(out + n, len - n, "; %d more", d->dropped);
}

/*
 * What a line's difference is the effect of, worded so no one reads an effect of one difference as one of
 * another: the one difference that can matter to the line, or all of them ("cannot tell which"), or none
 * (the difference is run-to-run variation).  Only lines with a verdict say it.
 */
static void attribute(struct report_cmp *c)
{
	for (int i = 0; i < c->n; i++) {
		struct report_line *l = &c->line[i];
		char names[REPORT_GATE_TEXT] = "";
		int k = 0, last = -1;
		size_t n = 0;

		if (!l->ok)
			continue;
		for (int j = 0; j < c->diff.n; j++)
			if (report_factor_matters(&c->diff.f[j], l->kind)) {
				n += (size_t)snprintf(names + n, n < sizeof names ? sizeof names - n : 0, "%s%s", k ? ", " : "",
						      c->diff.f[j].name);
				k++;
				last = j;
			}
		if (k == 1) {
			/* Through a copy: the factor and the line are in one struct, which -Wrestrict takes for overlap. */
			struct report_factor f = c->diff.f[last];
			snprintf(l->attrib, sizeof l->attrib, "B vs A: the effect of %s %s (A) vs %s (B)%s", f.name, f.a, f.b,
				 c->diff.vm_unknown ? " (vm knobs not recorded)" : "");
		}
		else if (k > 1)
			snprintf(l->attrib, sizeof l->attrib, "B vs A: an effect of %d differences together (%s); these two"
				 " runs cannot tell which", k, names);
		else
			snprintf(l->attrib, sizeof l->attrib, "B vs A: nothing recorded differs%s: run-to-run variation",
				 c->diff.vm_unknown ? " (vm knobs not recorded)" : "");
	}
}

int report_compare(struct query *qa, int64_t a, struct query *qb, int64_t b, struct report_cmp *out)
{
	return report_compare_with(qa, a, qb, b, NULL, out);
}

int report_compare_with(struct query *qa, int64_t a, struct query *qb, int64_t b, const struct report_cmp_opts *opts,
			struct report_cmp *out)
{
	struct report_orders oa, ob;
	struct probe_pair pp = { 0 };
	struct report_trace ta, tb;
	int r;

	memset(out, 0, sizeof *out);
	if (opts)
		out->opts = *opts;
	out->qa = qa;
	out->qb = qb;
	out->a = a;
	out->b = b;
	if (report_orders(qa, a, &oa) < 0 || report_orders(qb, b, &ob) < 0)
		return -1;
	out->orders = oa;
	for (int i = 0; i < ob.n; i++)
		report_orders_add(&out->orders, ob.order[i], ob.kind[i]);
	/* What each run ran under decides which lines may be compared at all (report/gate.h). */
	if (report_trace(qa, a, &ta) < 0 || report_trace(qb, b, &tb) < 0 ||
	    report_cond_load(qa, a, &ta, &out->ca, &out->side[0]) < 0 ||
	    report_cond_load(qb, b, &tb, &out->cb, &out->side[1]) < 0)
		return -1;
	report_gate_pair(&out->ca, &out->cb, &out->pair);
	report_gate_factors(&out->ca, &out->cb, &out->diff);
	differs_text(&out->diff, out->differs, sizeof out->differs);
	r = cmp_capacity(out, &pp) < 0 ||
	    cmp_headroom(out) < 0 ||
	    cmp_failures(out) < 0 ||
	    cmp_causes(out) < 0 ||
	    cmp_trace(out, &ta, &tb) < 0 ||
	    cmp_churn(out) < 0 ||
	    cmp_probes(out, &pp, 1, "FPU cost us/yield", "system us per yield", "FPU-cost probes") < 0 ||
	    cmp_atomic(out) < 0 ? -1 : 0;
	if (r == 0) {
		pair_from_lines(out);
		attribute(out);
	}
	if (pp.loaded) {
		report_probes_free(&pp.a);
		report_probes_free(&pp.b);
	}
	return r;
}

struct report_line *report_rare_add(struct report_cmp *c, enum report_line_kind like, const char *label, uint64_t a,
				    int64_t exposure_a_ms, uint64_t b, int64_t exposure_b_ms)
{
	struct report_line *l = report_cmp_line(c, like, report_rare_test, "per hour", "%s", label);

	if (l)
		report_rare_line(l, a, exposure_a_ms, b, exposure_b_ms);
	return l;
}
