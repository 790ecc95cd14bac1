/* SPDX-License-Identifier: GPL-2.0-only */
/* report/headroom: headroom trends; see headroom.h. */
#include "report/headroom.h"

#include "analysis/frag.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct trend_acc {
	struct report_trend *out;
	int max, n;
	int order, keep;
	size_t cap;               /* of x, y */
	double *x, *y;
	int64_t *t;
	int oom;
};

/* The fit's figures per hour and its projection, from t->fit (rc: what the fit returned). */
static void trend_figures(struct report_trend *t, int rc)
{
	t->ok = rc == TREND_OK;
	t->err = rc;
	t->slope_h = t->lo_h = t->hi_h = 0;
	t->exhaustion = 0;
	t->zero_ms = t->zero_early_ms = t->zero_late_ms = 0;
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
}

/* Keep a copy of the n points fitted (t, v) in t; 0 or -1. */
static int trend_keep(struct report_trend *t, const int64_t *ts, const double *v, size_t n)
{
	free(t->t);
	free(t->v);
	t->t = malloc(n * sizeof *t->t);
	t->v = malloc(n * sizeof *t->v);
	if (!t->t || !t->v)
		return -1;
	memcpy(t->t, ts, n * sizeof *t->t);
	memcpy(t->v, v, n * sizeof *t->v);
	return 0;
}

/* Fit the zone gathered in a (a->out[a->n - 1]). */
static void trend_finish(struct trend_acc *a)
{
	struct report_trend *t = &a->out[a->n - 1];

	if (t->n == 0)
		return;
	t->last = a->y[t->n - 1];
	t->last_ms = a->t[t->n - 1];
	trend_figures(t, trend_fit(a->x, a->y, t->n, &t->fit));
	if (a->keep) {
		if (trend_keep(t, a->t, a->y, t->n) < 0)
			a->oom = 1;
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

/* ---------------------------------------------------------------- short windows: per tick */

struct tick_acc {
	struct report_trend *out;
	int n;                    /* zones of the minute pass */
	size_t cap[REPORT_MAX_ZONES], len[REPORT_MAX_ZONES];
	double *x[REPORT_MAX_ZONES], *y[REPORT_MAX_ZONES];
	int64_t *t[REPORT_MAX_ZONES];
	int last;                 /* the zone the previous tick went to (ticks come zone by zone) */
};

static int tick_zone(struct tick_acc *a, const struct query_zone_point *p)
{
	const char *zone = p->zone ? p->zone : "";

	if (a->last >= 0 && a->out[a->last].node == p->node && strcmp(a->out[a->last].zone, zone) == 0)
		return a->last;
	for (int i = 0; i < a->n; i++)
		if (a->out[i].node == p->node && strcmp(a->out[i].zone, zone) == 0)
			return a->last = i;
	return -1;
}

static int tick_cb(void *arg, const struct query_zone_point *p)
{
	struct tick_acc *a = arg;
	int z = tick_zone(a, p);
	size_t k;

	if (z < 0)
		return 0;             /* a zone the minutes do not have (left out for room): not fitted either */
	k = a->len[z];
	if (k == a->cap[z]) {
		size_t cap = k ? 2 * k : 512;
		double *x = realloc(a->x[z], cap * sizeof *x), *y;
		int64_t *t;
		if (!x)
			return -1;
		a->x[z] = x;
		if (!(y = realloc(a->y[z], cap * sizeof *y)))
			return -1;
		a->y[z] = y;
		if (!(t = realloc(a->t[z], cap * sizeof *t)))
			return -1;
		a->t[z] = t;
		a->cap[z] = cap;
	}
	a->t[z][k] = p->ts_ms;
	a->x[z][k] = (double)(p->ts_ms - a->t[z][0]);
	a->y[z][k] = p->v;
	a->len[z] = k + 1;
	return 0;
}

/*
 * Refit the n zones of out through every tick of the window (see headroom.h).  A zone whose raw
 * ticks no longer reach its first minute (retention deleted them) keeps its minute fit.  0, or -1.
 */
static int refit_per_tick(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms, int keep,
			  struct report_trend *out, int n)
{
	struct tick_acc *a = calloc(1, sizeof *a);
	int r, rc = 0;

	if (!a)
		return -1;
	a->out = out;
	a->n = n;
	a->last = -1;
	r = query_headroom_ticks(q, run_id, order, from_ms, to_ms, tick_cb, a);
	for (int z = 0; r >= 0 && z < n; z++) {
		struct report_trend *t = &out[z];
		size_t m = a->len[z];
		/* Raw ticks must reach back to the first minute: retention deletes the oldest first. */
		if (m < REPORT_TREND_MIN_POINTS || a->t[z][0] - t->t0_ms >= 60000)
			continue;
		t->per_tick = 1;
		t->ticks = m;
		t->t0_ms = a->t[z][0];
		trend_figures(t, trend_fit_ar1(a->x[z], a->y[z], m, &t->fit));
		if (keep && trend_keep(t, a->t[z], a->y[z], m) < 0)
			rc = -1;
	}
	for (int z = 0; z < n; z++) {
		free(a->x[z]);
		free(a->y[z]);
		free(a->t[z]);
	}
	free(a);
	return r < 0 ? -1 : rc;
}

int report_headroom_trends(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms, int keep,
			   struct report_trend *out, int max)
{
	struct trend_acc a = { .out = out, .max = max, .order = order, .keep = keep };
	size_t most = 0;
	int r;

	r = query_headroom_minutes(q, run_id, order, from_ms, to_ms, trend_cb, &a);
	if (r >= 0 && a.n)
		trend_finish(&a);
	free(a.x);
	free(a.y);
	free(a.t);
	for (int i = 0; i < a.n; i++)
		most = out[i].n > most ? out[i].n : most;
	if (r >= 0 && !a.oom && a.n && most < REPORT_TICK_TREND_MINUTES &&
	    refit_per_tick(q, run_id, order, from_ms, to_ms, keep, out, a.n < REPORT_MAX_ZONES ? a.n : REPORT_MAX_ZONES) < 0)
		r = -1;
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

enum report_outlook report_trend_outlook(const struct report_trend *t)
{
	if (!t->ok)
		return REPORT_NO_TREND;
	if (!t->exhaustion)
		return t->lo_h > 0 ? REPORT_RISING : REPORT_NO_FALL;
	return t->zero_ms <= t->last_ms ? REPORT_EXHAUSTED : REPORT_PROJECTED;
}

/* ---------------------------------------------------------------- the status line */

#define STATUS_MINUTE_MS 60000

void report_status_init(struct report_status_series *s)
{
	memset(s, 0, sizeof *s);
	s->order = -1;
	s->minute_ms = INT64_MIN;
}

/* Close the minute being filled into the ring (the oldest minute makes room). */
static void status_close(struct report_status_series *s)
{
	if (s->minute_ms == INT64_MIN || !s->n)
		return;
	s->x[s->next] = (double)s->minute_ms;
	s->y[s->next] = s->sum / (double)s->n;
	s->next = (s->next + 1) % REPORT_STATUS_MINUTES;
	if (s->len < REPORT_STATUS_MINUTES)
		s->len++;
}

void report_status_add(struct report_status_series *s, int order, int64_t ts_ms, const struct buddyinfo *bi)
{
	int64_t minute = ts_ms - ts_ms % STATUS_MINUTE_MS;
	const struct buddy_zone *z = NULL;

	for (int i = 0; i < bi->nzones && !z; i++)
		if (bi->z[i].node == 0 && strcmp(bi->z[i].zone, REPORT_STATUS_ZONE) == 0)
			z = &bi->z[i];
	if (!z || order < 0 || order >= bi->norders)
		return;
	/* Another order (the task_struct slab's, once measured) or a clock stepped back: a new series. */
	if (order != s->order || minute < s->minute_ms) {
		report_status_init(s);
		s->order = order;
	}
	if (minute != s->minute_ms) {
		status_close(s);
		s->minute_ms = minute;
		s->sum = 0;
		s->n = 0;
	}
	s->sum += (double)frag_headroom(z->free, bi->norders, (unsigned)order);
	s->n++;
}

void report_status_headroom(const struct report_status_series *s, int64_t now_ms,
			    struct report_status_headroom *out)
{
	double x[REPORT_STATUS_MINUTES], y[REPORT_STATUS_MINUTES];
	struct trend_fit f;
	size_t n = 0;

	memset(out, 0, sizeof *out);
	out->order = s->order;
	/* Oldest first, as the rollup's rows came: the fit's last point is the last closed minute. */
	for (int i = 0; i < s->len; i++) {
		int k = (s->next - s->len + i + REPORT_STATUS_MINUTES) % REPORT_STATUS_MINUTES;
		if (s->x[k] < (double)(now_ms - REPORT_STATUS_SPAN_MS))
			continue;
		x[n] = s->x[k];
		y[n++] = s->y[k];
	}
	if (n < REPORT_TREND_MIN_POINTS || trend_fit(x, y, n, &f) != TREND_OK)
		return;
	out->ok = 1;
	out->last = f.y_last;
	out->slope_h = trend_per_hour(f.slope);
	out->lo_h = trend_per_hour(f.ci_lo);
	out->hi_h = trend_per_hour(f.ci_hi);
	out->falling = f.zero_valid;
}

/* ---------------------------------------------------------------- zone sizes */

static int size_cb(void *arg, const struct query_pagetype *p)
{
	struct report_zone_sizes *s = arg;
	const char *zone = p->zone ? p->zone : "";
	int i;

	if (p->pageblocks < 0 || strlen(zone) >= ZONE_NAME_MAX)
		return 0;
	for (i = 0; i < s->n; i++)
		if (s->z[i].node == p->node && strcmp(s->z[i].zone, zone) == 0)
			break;
	if (i == s->n) {
		if (s->n == REPORT_MAX_ZONES)
			return 0;
		s->z[s->n].node = p->node;
		memcpy(s->z[s->n].zone, zone, strlen(zone) + 1);
		s->z[s->n++].blocks = 0;
	}
	s->z[i].blocks += p->pageblocks;
	return 0;
}

int report_zone_sizes(struct query *q, int64_t run_id, struct report_zone_sizes *out)
{
	memset(out, 0, sizeof *out);
	return query_pagetype_latest(q, run_id, size_cb, out) < 0 ? -1 : 0;
}

int64_t report_zone_blocks(const struct report_zone_sizes *s, int node, const char *zone)
{
	for (int i = 0; i < s->n; i++)
		if (s->z[i].node == node && strcmp(s->z[i].zone, zone) == 0)
			return s->z[i].blocks;
	return -1;
}
