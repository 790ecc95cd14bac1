/* SPDX-License-Identifier: GPL-2.0-only */
/* report/headline: the five figures a run's page opens with; see headline.h. */
#include "report/headline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL_ROWS 20000      /* failure times binned for the sparkline; the count itself is exact */
#define FAIL_BINS 30

int report_request_zone_rank(const char *zone)
{
	if (!zone)
		return 0;
	if (strcmp(zone, "Normal") == 0)
		return 3;
	if (strcmp(zone, "DMA32") == 0)
		return 2;
	if (strcmp(zone, "DMA") == 0)
		return 1;
	return 0;   /* Movable, HighMem, Device: not where GFP_KERNEL is served */
}

/* The request's first zone from the run's latest buddyinfo: node and name into out; 0 or -1. */
static int pick_zone(struct query *q, int64_t run_id, struct report_headline *out)
{
	struct buddyinfo *b = calloc(1, sizeof *b);
	int64_t ts;
	int got, best = 0;

	if (!b)
		return -1;
	if ((got = query_buddy_latest(q, run_id, b, &ts)) < 0) {
		free(b);
		return -1;
	}
	for (int i = 0; got && i < b->nzones; i++) {
		int rank = report_request_zone_rank(b->z[i].zone);
		if (rank > 0 && (out->node < 0 || b->z[i].node < out->node || (b->z[i].node == out->node && rank > best))) {
			out->node = b->z[i].node;
			best = rank;
			snprintf(out->zone, sizeof out->zone, "%s", b->z[i].zone);
		}
	}
	free(b);
	return 0;
}

static void spark_push(struct report_spark *s, int64_t t, double v)
{
	if (s->n < REPORT_SPARK) {
		s->t[s->n] = t;
		s->v[s->n] = v;
		s->n++;
	}
}

/* ---------------------------------------------------------------- 1: atomic-only risk, the request */

static int request_spark_cb(void *arg, const struct query_request *p)
{
	if (p->samples > 0)
		spark_push(arg, p->ts_ms, 100.0 * (double)p->atomic_only / (double)p->samples);
	return 0;
}

static int fig_atomic(struct query *q, int64_t run_id, struct report_headline *h)
{
	h->has_atomic = h->last_ms >= 0;
	for (int i = 0; h->has_atomic && i < h->orders.n; i++) {
		struct report_headline_atomic *a = &h->atomic[h->natomic++];
		struct report_request run, hour;
		struct query_range rg = { h->first_ms, h->last_ms, REPORT_SPARK, 0, 0 };

		a->order = h->orders.order[i];
		a->why = h->orders.why[i];
		if (report_request(q, run_id, a->order, -1, -1, &run) < 0 ||
		    report_request(q, run_id, a->order, h->last_ms - REPORT_LAST_HOUR_MS, h->last_ms, &hour) < 0 ||
		    query_request_series(q, run_id, a->order, &rg, request_spark_cb, &a->spark) < 0)
			return -1;
		a->pct_run = run.atomic_only_pct;
		a->n_run = run.samples;
		a->pct_hour = hour.atomic_only_pct;
		a->n_hour = hour.samples;
	}
	return 0;
}

/* ---------------------------------------------------------------- 2: headroom */

static int fig_headroom(struct query *q, int64_t run_id, int64_t page_size, struct report_headline *h)
{
	struct report_trend *t = calloc(REPORT_MAX_ZONES, sizeof *t);
	int n, pick = -1;

	if (!t)
		return -1;
	h->head_order = h->orders.task_order;
	h->head_mb = NAN;
	if ((n = report_headroom_trends(q, run_id, h->head_order, -1, -1, 1, t, REPORT_MAX_ZONES)) < 0) {
		free(t);
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (t[i].node == h->node && strcmp(t[i].zone, h->zone) == 0)
			pick = i;
	if (pick >= 0) {
		const struct report_trend *z = &t[pick];
		/* Minute means averaged in groups: at most REPORT_SPARK points. */
		size_t per = (z->n + REPORT_SPARK - 1) / REPORT_SPARK;
		for (size_t i = 0; per && i < z->n; i += per) {
			double sum = 0;
			size_t k = 0;
			for (; k < per && i + k < z->n; k++)
				sum += z->v[i + k];
			spark_push(&h->head_spark, z->t[i], sum / (double)k);
		}
		h->has_head = 1;
		h->head = *z;
		h->head.t = NULL;
		h->head.v = NULL;
		h->outlook = report_trend_outlook(z);
		if (z->n && page_size > 0)
			h->head_mb = z->last * (double)(UINT64_C(1) << h->head_order) * (double)page_size / 1048576.0;
	}
	report_trends_free(t, n);
	free(t);
	return 0;
}

/* ---------------------------------------------------------------- 3: capacity probes */

static int fig_probes(struct query *q, int64_t run_id, struct report_headline *h)
{
	struct report_probes p;
	const struct report_probe_set *c = &p.capacity;
	int has = query_has_table(q, "probes");

	h->cap_last = h->cap_median = NAN;
	if (has <= 0)
		return has;
	if (report_probes(q, run_id, -1, -1, &p) < 0)
		return -1;
	h->has_probes = 1;
	h->nprobes = c->n;
	h->cap_censored = c->censored;
	snprintf(h->cap_censored_reason, sizeof h->cap_censored_reason, "%s", c->censored_reason);
	if (c->n) {
		h->cap_last = c->v[c->n - 1];
		h->cap_median = c->median;
		h->cap_fit = c->fit_ok;
		h->cap_significant = c->significant;
		h->cap_slope_h = c->slope_h;
		h->cap_lo_h = c->lo_h;
		h->cap_hi_h = c->hi_h;
	}
	for (size_t i = c->n > REPORT_SPARK ? c->n - REPORT_SPARK : 0; i < c->n; i++)
		spark_push(&h->cap_spark, c->t[i], c->v[i]);
	report_probes_free(&p);
	return 0;
}

/* ---------------------------------------------------------------- 4: failures and OOM kills */

struct bins {
	int64_t t0, width;
	double n[FAIL_BINS];
};

static int fail_cb(void *arg, const struct query_alloc_failure *f)
{
	struct bins *b = arg;
	int64_t i = b->width > 0 ? (f->ts_ms - b->t0) / b->width : 0;

	if (i >= 0 && i < FAIL_BINS)
		b->n[i]++;
	return 0;
}

static int fig_failures(struct query *q, int64_t run_id, struct report_headline *h)
{
	struct report_failures f;
	struct bins b = { h->first_ms, 0, { 0 } };
	int has = query_has_table(q, "kmsg_events");

	h->failures_h = NAN;
	if (has <= 0)
		return has;
	if (report_failures(q, run_id, &f) < 0 || query_oom_kills(q, run_id, -1, -1, &h->oom_kills) < 0)
		return -1;
	h->has_kmsg = 1;
	h->failures = f.count;
	h->failures_h = f.per_hour;
	if (h->first_ms < 0 || h->last_ms <= h->first_ms)
		return 0;
	b.width = (h->last_ms - h->first_ms) / FAIL_BINS + 1;
	if (query_failure_times(q, run_id, -1, -1, FAIL_ROWS, fail_cb, &b) < 0)
		return -1;
	for (int i = 0; i < FAIL_BINS; i++)
		spark_push(&h->fail_spark, b.t0 + i * b.width, b.n[i]);
	return 0;
}

/* ---------------------------------------------------------------- 5: churn */

static int churn_cb(void *arg, const struct report_churn_point *p)
{
	spark_push(arg, p->ts_ms, p->per_s[QC_SPAWNED]);
	return 0;
}

static int fig_churn(struct query *q, int64_t run_id, struct report_headline *h)
{
	struct report_churn c;
	struct query_range rg = { h->first_ms, h->last_ms, REPORT_SPARK, 0, 0 };
	int has = query_has_table(q, "churn_info"), got;

	h->spawns_s = h->population = NAN;
	if (has <= 0)
		return has;
	if ((got = report_churn(q, run_id, -1, -1, &c)) < 0)
		return -1;
	if (!got)
		return 0;
	h->has_churn = 1;
	h->spawns_s = c.spawns_per_s;
	h->population = c.tot.population;
	h->pop_max = c.tot.population_max;
	h->spawned = c.tot.c[QC_SPAWNED];
	h->churn_oom = c.tot.c[QC_OOM];
	return report_churn_series(q, run_id, &rg, churn_cb, &h->churn_spark) < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------- the headline */

struct run_extent {
	int64_t first, last, page_size;
};

static int extent_cb(void *arg, const struct query_run *run)
{
	struct run_extent *e = arg;

	e->first = run->first_sample_ms;
	e->last = run->last_sample_ms;
	e->page_size = run->page_size;
	return 0;
}

int report_headline(struct query *q, int64_t run_id, struct report_headline *out)
{
	struct run_extent e = { -1, -1, -1 };

	memset(out, 0, sizeof *out);
	out->node = -1;
	if (query_run(q, run_id, extent_cb, &e) < 0 || report_orders(q, run_id, &out->orders) < 0 ||
	    pick_zone(q, run_id, out) < 0)
		return -1;
	out->first_ms = e.first;
	out->last_ms = e.last;
	if (fig_atomic(q, run_id, out) < 0 || fig_headroom(q, run_id, e.page_size, out) < 0 ||
	    fig_probes(q, run_id, out) < 0 || fig_failures(q, run_id, out) < 0 || fig_churn(q, run_id, out) < 0)
		return -1;
	return 0;
}
