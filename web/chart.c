/* SPDX-License-Identifier: GPL-2.0-only */
/* chart: store series as SVG charts for the pages; see chart.h. */
#include "web/chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web/page.h"
#include "web/svg.h"

#define CHART_MAX_ZONES 16    /* zones charted per page; more are named in a note */
#define CHART_MAX_LINES 8     /* series on one line chart */

int chart_free(struct web_req *r, const struct report_free_zone *z, int64_t from, int64_t to)
{
	static const char *const what = "Free memory in this zone: all of it, and the part in free blocks of at least "
					"each order of interest. The gap between the lines is memory that exists but "
					"is too fragmented for those allocations.";
	char title[96], names[REPORT_FREE_LINES][48];
	struct svg_series s[REPORT_FREE_LINES];
	struct svg_chart c = { .title = title, .y_label = "free memory, MiB", .y_from_zero = 1, .caption = what,
			       .t0_ms = CHART_AXIS(from, to), .t1_ms = CHART_AXIS(to, from) };

	snprintf(title, sizeof title, "Free memory, node %d zone %s", z->node, z->zone);
	for (int l = 0; l < z->nlines; l++) {
		if (z->order[l] == 0)
			snprintf(names[l], sizeof names[l], "all free memory");
		else
			snprintf(names[l], sizeof names[l], "in blocks of order >= %d", z->order[l]);
		s[l] = (struct svg_series){ names[l], z->t, z->mib[l], z->n, SVG_LINE, 0 };
	}
	return svg_line_chart(&r->body, &c, s, z->nlines);
}

struct line_acc {
	size_t n;
	double scale;
	int64_t t[CHART_POINTS];
	double v[CHART_POINTS];
};

static int point_cb(void *arg, const struct query_point *p)
{
	struct line_acc *a = arg;

	if (a->n == CHART_POINTS)
		return -1;
	a->t[a->n] = p->ts_ms;
	a->v[a->n] = p->v * a->scale;
	a->n++;
	return 0;
}

typedef int (*series_fn)(struct query *q, int64_t run_id, const char *name, struct query_range *rg,
			 query_point_fn fn, void *arg);

/* One line chart of up to CHART_MAX_LINES named series from fn; names absent from the run are left out. */
static int lines(struct web_req *r, series_fn fn, double scale, int64_t run_id, int64_t from, int64_t to,
		 const char *const *names, int n, const struct svg_chart *c)
{
	struct line_acc *acc = calloc(CHART_MAX_LINES, sizeof *acc);
	struct svg_series s[CHART_MAX_LINES];
	int ns = 0, ret = 0;

	if (!acc)
		return -1;
	for (int i = 0; i < n && i < CHART_MAX_LINES; i++) {
		struct query_range rg = { from, to, CHART_POINTS, 0, 0 };
		acc[ns].scale = scale;
		if (fn(r->q, run_id, names[i], &rg, point_cb, &acc[ns]) < 0) {
			ret = -1;
			goto out;
		}
		if (acc[ns].n == 0)
			continue;
		s[ns] = (struct svg_series){ names[i], acc[ns].t, acc[ns].v, acc[ns].n, SVG_LINE, 0 };
		ns++;
	}
	if (ns == 0) {
		/* One line instead of an empty frame: which chart, and why it is not drawn. */
		sb_puts(&r->body, "<p class=\"pending\">");
		page_text(r, c->title);
		sb_puts(&r->body, ": no sample of these counters in this window.</p>\n");
		goto out;
	}
	svg_line_chart(&r->body, c, s, ns);
out:
	free(acc);
	return ret;
}

int chart_meminfo(struct web_req *r, int64_t run_id, int64_t from, int64_t to, const char *const *names, int n,
		  const char *title, const char *caption)
{
	struct svg_chart c = { .title = title, .y_label = "MB", .caption = caption, .y_from_zero = 1,
			       .t0_ms = CHART_AXIS(from, to), .t1_ms = CHART_AXIS(to, from) };

	return lines(r, query_meminfo_series, 1.0 / 1024, run_id, from, to, names, n, &c);
}

int chart_vmstat_rates(struct web_req *r, int64_t run_id, int64_t from, int64_t to, const char *const *names,
		       int n, const char *title, const char *caption)
{
	struct svg_chart c = { .title = title, .y_label = "events/s", .caption = caption, .y_from_zero = 1,
			       .t0_ms = CHART_AXIS(from, to), .t1_ms = CHART_AXIS(to, from) };

	return lines(r, query_vmstat_rate, 1.0, run_id, from, to, names, n, &c);
}

/* ---------------------------------------------------------------- indices and headroom (v_frag) */

struct frag_zone {
	int node;
	char zone[ZONE_NAME_MAX];
	int norders;
	size_t n;
	int64_t t[CHART_POINTS];
	double u[CHART_POINTS][BUDDY_MAX_ORDER];   /* worst unusable index per bucket */
	double h[CHART_POINTS][BUDDY_MAX_ORDER];   /* mean headroom per bucket */
};

struct frag_acc {
	struct frag_zone *z[CHART_MAX_ZONES];
	int nz, skipped;
};

static int frag_cb(void *arg, const struct query_frag_point *p)
{
	struct frag_acc *a = arg;
	struct frag_zone *z = NULL;

	for (int i = 0; i < a->nz && !z; i++)
		if (a->z[i]->node == p->node && strcmp(a->z[i]->zone, p->zone) == 0)
			z = a->z[i];
	if (!z) {
		if (a->nz == CHART_MAX_ZONES || strlen(p->zone) >= ZONE_NAME_MAX) {
			a->skipped++;
			return 0;
		}
		if (!(z = calloc(1, sizeof *z)))
			return -1;
		a->z[a->nz++] = z;
		z->node = p->node;
		memcpy(z->zone, p->zone, strlen(p->zone) + 1);
	}
	if (z->n == CHART_POINTS)
		return -1;   /* cannot happen with max_points = CHART_POINTS */
	if (p->norders > z->norders)
		z->norders = p->norders;
	z->t[z->n] = p->ts_ms;
	memcpy(z->u[z->n], p->unusable, sizeof p->unusable);
	memcpy(z->h[z->n], p->headroom, sizeof p->headroom);
	z->n++;
	return 0;
}

static void frag_free(struct frag_acc *a)
{
	for (int i = 0; i < a->nz; i++)
		free(a->z[i]);
}

/* The unusable index of a zone as a heatmap: the values are the SQL view's (v_frag, rollup unusable_max). */
static void heatmap(struct web_req *r, const struct frag_zone *z, int64_t from, int64_t to)
{
	static const char *const rows[BUDDY_MAX_ORDER] = {
		"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15",
	};
	double *cells = malloc(sizeof(double) * BUDDY_MAX_ORDER * CHART_POINTS);
	char title[96];
	struct svg_chart c = { .title = title, .y_label = "order",
		.t0_ms = CHART_AXIS(from, to), .t1_ms = CHART_AXIS(to, from),
		.caption = "The kernel's unusable free space index per order, worst per interval (0: all free memory "
			   "is in blocks of at least this order; 1: none is). A dark band growing downwards: those "
			   "orders depend on compaction." };

	if (!cells) {
		r->body.err = 1;
		return;
	}
	snprintf(title, sizeof title, "Unusable free space index, node %d zone %s", z->node, z->zone);
	for (size_t j = 0; j < z->n; j++)
		for (int k = 0; k < z->norders; k++)
			cells[j * (size_t)z->norders + (size_t)k] = z->u[j][k];
	svg_heatmap(&r->body, &c, z->t, z->n, cells, rows, z->norders, 0, 1);
	free(cells);
}

int chart_unusable(struct web_req *r, int64_t run_id, int64_t from, int64_t to, chart_fold_fn fold, const void *arg)
{
	struct frag_acc a = { 0 };
	struct query_range rg = { from, to, CHART_POINTS, 0, 0 };
	int ret = 0;

	if (report_read_frag_series(r->q, run_id, &rg, frag_cb, &a) < 0) {
		ret = -1;
		goto out;
	}
	if (a.nz == 0)
		sb_puts(&r->body, "<p class=\"pending\">No buddyinfo samples in this window.</p>\n");
	for (int i = 0; i < a.nz; i++)
		if (!fold || !fold(arg, a.z[i]->node, a.z[i]->zone))
			heatmap(r, a.z[i], from, to);
	for (int i = 0; fold && i < a.nz; i++) {
		const char *why = fold(arg, a.z[i]->node, a.z[i]->zone);
		if (!why)
			continue;
		sb_printf(&r->body, "<details><summary>node %d zone ", a.z[i]->node);
		page_text(r, a.z[i]->zone);
		sb_printf(&r->body, ": not shown, %s</summary>\n", why);
		heatmap(r, a.z[i], from, to);
		sb_puts(&r->body, "</details>\n");
	}
	if (a.skipped)
		sb_printf(&r->body, "<p class=\"pending\">More than %d zones: only the first %d are charted.</p>\n",
			  CHART_MAX_ZONES, CHART_MAX_ZONES);
out:
	frag_free(&a);
	return ret;
}

/* Trend lines drawn over a headroom chart: each from its first to its last minute. */
struct trend_line {
	int64_t t[2];
	double v[2];
	char name[64];
};

int chart_headroom(struct web_req *r, int64_t run_id, int64_t from, int64_t to, int order, const char *why,
		   enum report_order_kind kind, const struct report_trend *tr, int ntr)
{
	struct frag_acc a = { 0 };
	struct query_range rg = { from, to, CHART_POINTS, 0, 0 };
	struct svg_series s[SVG_MAX_SERIES];
	struct trend_line tl[SVG_MAX_SERIES / 2];
	double *v = NULL;
	char title[128], cap[512];
	struct svg_chart c = { .title = title, .y_label = "free blocks", .y_from_zero = 1, .caption = cap,
			       .t0_ms = CHART_AXIS(from, to), .t1_ms = CHART_AXIS(to, from) };
	int ns = 0, ntl = 0, ret = 0;

	if (report_read_frag_series(r->q, run_id, &rg, frag_cb, &a) < 0) {
		ret = -1;
		goto out;
	}
	if (a.nz == 0)
		goto out;   /* the section says in one line that there is nothing to draw */
	if (!(v = malloc(sizeof(double) * CHART_POINTS * CHART_MAX_ZONES))) {
		ret = -1;
		goto out;
	}
	snprintf(title, sizeof title, "Headroom at order %d (%s)", order, why);
	snprintf(cap, sizeof cap, "Free blocks able to satisfy an order-%d allocation (2^%d pages), per zone; dashed: "
		 "the least-squares trend through the %s. Falling towards zero: %s allocations will depend on compaction.",
		 order, order, ntr > 0 && tr[0].per_tick ? "ticks" : "minute averages",
		 kind == REPORT_ORDER_PAGEBLOCK ? "pageblock-sized (huge page)" : "task_struct slab");
	for (int i = 0; i < a.nz && ns < SVG_MAX_SERIES; i++) {
		const struct frag_zone *z = a.z[i];
		double *zv = v + (size_t)i * CHART_POINTS;

		for (size_t j = 0; j < z->n; j++)
			zv[j] = order < z->norders ? z->h[j][order] : NAN;
		s[ns++] = (struct svg_series){ z->zone, z->t, zv, z->n, SVG_LINE, i + 1 };
		for (int k = 0; k < ntr && ns < SVG_MAX_SERIES; k++) {
			struct trend_line *t = &tl[ntl];
			if (ntl == SVG_MAX_SERIES / 2 || !tr[k].ok || tr[k].node != z->node || strcmp(tr[k].zone, z->zone) != 0)
				continue;
			t->t[0] = tr[k].t0_ms;
			t->t[1] = tr[k].last_ms;
			t->v[0] = report_trend_at(&tr[k], t->t[0]);
			t->v[1] = report_trend_at(&tr[k], t->t[1]);
			snprintf(t->name, sizeof t->name, "%s trend", z->zone);
			s[ns++] = (struct svg_series){ t->name, t->t, t->v, 2, SVG_DASHED, i + 1 };
			ntl++;
			break;
		}
	}
	svg_line_chart(&r->body, &c, s, ns);
out:
	free(v);
	frag_free(&a);
	return ret;
}
