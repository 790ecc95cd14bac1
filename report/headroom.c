/* SPDX-License-Identifier: GPL-2.0-only */
/* report/headroom: headroom trends; see headroom.h. */
#include "report/headroom.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STATUS_MAX_POINTS 60   /* minutes in REPORT_STATUS_SPAN_MS */

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

enum report_outlook report_trend_outlook(const struct report_trend *t)
{
	if (!t->ok)
		return REPORT_NO_TREND;
	if (!t->exhaustion)
		return t->lo_h > 0 ? REPORT_RISING : REPORT_NO_FALL;
	return t->zero_ms <= t->last_ms ? REPORT_EXHAUSTED : REPORT_PROJECTED;
}

/* ---------------------------------------------------------------- the status line */

struct status_acc {
	int n;
	double x[STATUS_MAX_POINTS], y[STATUS_MAX_POINTS];
};

static int status_cb(void *arg, const struct query_zone_point *p)
{
	struct status_acc *a = arg;

	if (p->node != 0 || !p->zone || strcmp(p->zone, REPORT_STATUS_ZONE) != 0 || a->n == STATUS_MAX_POINTS)
		return 0;
	/* Epoch ms as x, as the status line always had: an hour of minutes loses nothing at that magnitude. */
	a->x[a->n] = (double)p->ts_ms;
	a->y[a->n] = p->v;
	a->n++;
	return 0;
}

int report_status_headroom(struct query *q, int64_t run_id, int order, int64_t now_ms,
			   struct report_status_headroom *out)
{
	struct status_acc *a = calloc(1, sizeof *a);
	struct trend_fit f;
	int r = -1;

	memset(out, 0, sizeof *out);
	out->order = order;
	if (!a)
		return -1;
	r = query_headroom_minutes(q, run_id, order, now_ms - REPORT_STATUS_SPAN_MS, -1, status_cb, a);
	if (r >= 0 && a->n >= REPORT_TREND_MIN_POINTS && trend_fit(a->x, a->y, (size_t)a->n, &f) == TREND_OK) {
		out->ok = 1;
		out->last = f.y_last;
		out->slope_h = trend_per_hour(f.slope);
		out->lo_h = trend_per_hour(f.ci_lo);
		out->hi_h = trend_per_hour(f.ci_hi);
		out->falling = f.zero_valid;
	}
	free(a);
	return r < 0 ? -1 : 0;
}
