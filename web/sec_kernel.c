/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sec_kernel: report sections from the kernel's own accounts — allocation
 * failures, timeline and table (6), pagetypeinfo and slabinfo at the latest
 * slow sample (8), and the atomic-allocation risk per zone and order of
 * interest (9, v_atomic_risk).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "report/causes.h"
#include "report/run.h"
#include "web/chart.h"
#include "web/escape.h"
#include "web/section.h"
#include "web/svg.h"

#define ATOMIC_POINTS CHART_POINTS
#define FAILURES_SHOWN 200      /* newest failures listed; the count says how many there were */
#define FAILURES_DRAWN SVG_MAX_POINTS   /* newest failures on the timeline */
_Static_assert(FAILURES_DRAWN == 2000, "the timeline's caption says the newest 2,000 are drawn");

/* ---------------------------------------------------------------- 6: failures on a timeline */

struct fail_pts {
	size_t n[2];
	int64_t t[2][SVG_MAX_POINTS];
	double v[2][SVG_MAX_POINTS];
};

static int fail_pt(void *arg, const struct query_alloc_failure *f)
{
	struct fail_pts *a = arg;
	int k = report_gfp_atomic(f->gfp_flags) ? 0 : 1;

	if (a->n[k] == SVG_MAX_POINTS)
		return 0;
	a->t[k][a->n[k]] = f->ts_ms;
	a->v[k][a->n[k]] = f->order >= 0 ? (double)f->order : NAN;
	a->n[k]++;
	return 0;
}

static int failure_chart(struct run_page *p)
{
	struct web_req *r = p->r;
	struct fail_pts *a = calloc(1, sizeof *a);
	struct svg_series s[2];
	struct svg_chart c = { .title = "Allocation failures over time", .y_label = "order", .y_from_zero = 1,
			       .t0_ms = CHART_AXIS(p->from, p->to), .t1_ms = CHART_AXIS(p->to, p->from),
			       .caption = "Each dot is one page allocation failure the kernel logged, at its time and "
					  "order; the newest 2,000 are drawn. Atomic requests (GFP_ATOMIC, GFP_NOWAIT) "
					  "cannot wait for reclaim or compaction: dots there at the task_struct order are "
					  "the failure this soak looks for." };

	if (!a)
		return -1;
	/* Newest first from the store; time order does not matter for dots. */
	if (query_failure_times(r->q, p->ri.run_id, p->from, p->to, FAILURES_DRAWN, fail_pt, a) < 0) {
		free(a);
		return -1;
	}
	s[0] = (struct svg_series){ "GFP_ATOMIC / GFP_NOWAIT", a->t[0], a->v[0], a->n[0], SVG_MARKERS, 4 };
	s[1] = (struct svg_series){ "other GFP (may sleep)", a->t[1], a->v[1], a->n[1], SVG_MARKERS, 1 };
	/* The markers path ignores order: times only need to be in range, not sorted. */
	svg_line_chart(&r->body, &c, s, 2);
	free(a);
	return 0;
}

static int failure_row(void *arg, const struct query_alloc_failure *f)
{
	struct web_req *r = arg;

	page_failure_cells(r, f->ts_ms, f->comm, f->comm_len, f->pid, f->order);
	page_text(r, f->gfp_flags);
	sb_puts(&r->body, "</td><td><code>");
	page_text(r, f->gfp_mask);
	sb_puts(&r->body, "</code></td></tr>\n");
	return r->body.err ? -1 : 0;
}

/* One cell of the causes table: the count, and its orders when there are any. */
static void cause_cell(struct web_req *r, int64_t n, const int64_t *by_order)
{
	char ord[160];

	if (!n) {
		sb_puts(&r->body, "<td class=\"n\">0</td>");
		return;
	}
	sb_printf(&r->body, "<td class=\"n\">%" PRId64 " <small>(%s)</small></td>", n,
		  report_cause_orders(by_order, ord, sizeof ord));
}

/* Why they failed: every classified failure (kernel log, trace, module) per hour, by cause and order (issue 32). */
static int causes_block(struct run_page *p)
{
	struct web_req *r = p->r;
	struct report_causes *rc = calloc(1, sizeof *rc);
	int64_t ord[REPORT_CAUSE_ORDERS];
	char ts[FMT_TIME_LEN];

	if (!rc || report_causes(r->q, p->ri.run_id, p->from, p->to, rc) < 0) {
		free(rc);
		return -1;
	}
	if (!rc->have || rc->all == 0) {
		free(rc);
		return 0;
	}
	sb_printf(&r->body, "<table class=\"causes\"><caption>Why they failed: %" PRId64 " classified failure%s"
		  " by hour, cause and order (o<i>k</i>: order <i>k</i>)", rc->all, rc->all == 1 ? "" : "s");
	if (rc->nhours < rc->hours_total)
		sb_printf(&r->body, "; the newest %d of %d hours listed, the totals count them all", rc->nhours,
			  rc->hours_total);
	sb_puts(&r->body, "</caption>\n<tr><th>hour (UTC)</th>");
	for (int c = 1; c <= REPORT_CAUSES; c++)
		sb_printf(&r->body, "<th>%s</th>", report_cause_name(c % REPORT_CAUSES));
	sb_puts(&r->body, "</tr>\n");
	for (int h = rc->nhours - 1; h >= 0; h--) {
		const struct report_cause_hour *hr = &rc->hours[h];
		sb_printf(&r->body, "<tr><td>%s</td>", fmt_time_human(hr->hour_ms, ts, sizeof ts));
		for (int c = 1; c <= REPORT_CAUSES; c++) {
			int k = c % REPORT_CAUSES;
			int64_t n = 0;
			for (int s = 0; s < REPORT_CAUSE_SOURCES; s++)
				n += hr->n[s][k];
			for (int o = 0; o < REPORT_CAUSE_ORDERS; o++)
				ord[o] = hr->by_order[k][o];
			cause_cell(r, n, ord);
		}
		sb_puts(&r->body, "</tr>\n");
	}
	for (int s = 0; s < REPORT_CAUSE_SOURCES; s++) {
		int64_t any = 0;
		for (int c = 0; c < REPORT_CAUSES; c++)
			any += rc->total[s][c];
		if (!any)
			continue;
		sb_printf(&r->body, "<tr class=\"total\"><th>all hours, %s</th>", report_cause_source(s + 1));
		for (int c = 1; c <= REPORT_CAUSES; c++)
			cause_cell(r, rc->total[s][c % REPORT_CAUSES], rc->by_order[s][c % REPORT_CAUSES]);
		sb_puts(&r->body, "</tr>\n");
	}
	sb_puts(&r->body, "</table>\n<p>Each failed allocation is judged by the allocator's own last test of a zone "
		"(<code>__zone_watermark_ok</code>) against the zone state nearest to it: the Mem-Info dump the kernel "
		"printed with a kernel-log report (exact), else the sample of <code>zoneinfo</code> and "
		"<code>buddyinfo</code> at most 1 s away. <b>watermark</b>: no zone it may use had free pages above "
		"its watermark; <b>fragmentation</b>: one had, but no free block of the order; <b>reserve</b>: the "
		"only such blocks were highatomic or CMA ones it may not take; <b>unknown</b>: no state close enough, "
		"or one that would have served it. A failure seen by two sources (a HOLD refusal in the kernel log "
		"and the trace) is counted in each: rows per source, <code>v_failure_causes</code>.</p>\n");
	free(rc);
	return r->body.err ? -1 : 0;
}

int sec_failures(struct run_page *p)
{
	struct web_req *r = p->r;
	int64_t total;

	if (causes_block(p) < 0 || query_alloc_failures(r->q, p->ri.run_id, p->from, p->to, 0, &total, NULL, NULL) < 0)
		return -1;
	if (total == 0) {
		sb_puts(&r->body, "<p class=\"pending\">No page allocation failure in this window: the kernel logged none "
			"(or its log was not read: --kmsg none, or no CAP_SYSLOG).</p>\n");
		return 0;
	}
	if (failure_chart(p) < 0)
		return -1;
	sb_printf(&r->body, "<details><summary>%" PRId64 " allocation failure%s in this window", total,
		  total == 1 ? "" : "s");
	if (total > FAILURES_SHOWN)
		sb_printf(&r->body, " (the newest %d listed)", FAILURES_SHOWN);
	sb_puts(&r->body, "</summary>\n<table class=\"failures\">\n<tr><th>time</th><th>comm</th><th>pid</th>"
		"<th>order</th><th>GFP flags</th><th>GFP mask</th></tr>\n");
	if (query_alloc_failures(r->q, p->ri.run_id, p->from, p->to, FAILURES_SHOWN, &total, failure_row, r) < 0)
		return -1;
	sb_puts(&r->body, "</table>\n<p>Each is a <code>warn_alloc</code> line: an allocation of 2^order pages the "
		"kernel could not satisfy; failures at low orders with plenty of free memory are the fragmentation "
		"signature.</p></details>\n");
	return 0;
}

/* ---------------------------------------------------------------- 8: pagetypeinfo and slabinfo */

struct pt_ctx {
	struct web_req *r;
	int n, norders;
	int64_t ts;
};

static int pt_row(void *arg, const struct query_pagetype *t)
{
	struct pt_ctx *c = arg;
	struct web_req *r = c->r;
	char ts[FMT_TIME_LEN];

	if (c->n++ == 0) {
		c->norders = t->norders;
		c->ts = t->ts_ms;
		sb_printf(&r->body, "<table class=\"pagetype\"><caption>free blocks per migratetype at %s; pageblock "
			  "order %d</caption>\n<tr><th>node</th><th>zone</th><th>migratetype</th>",
			  fmt_time_human(t->ts_ms, ts, sizeof ts), t->pageblock_order);
		for (int k = 0; k < t->norders; k++)
			sb_printf(&r->body, "<th class=\"n\">%d</th>", k);
		sb_puts(&r->body, "<th class=\"n\">pageblocks</th></tr>\n");
	}
	sb_printf(&r->body, "<tr><td>%d</td><td>", t->node);
	page_text(r, t->zone);
	sb_puts(&r->body, "</td><td>");
	page_text(r, t->migratetype);
	sb_puts(&r->body, "</td>");
	for (int k = 0; k < c->norders; k++) {
		if (k >= t->norders)
			sb_puts(&r->body, "<td></td>");
		else
			sb_printf(&r->body, "<td class=\"n\">%s%" PRId64 "</td>", (t->capped_mask >> k) & 1 ? "&gt;" : "",
				  t->free[k]);
	}
	if (t->pageblocks >= 0)
		sb_printf(&r->body, "<td class=\"n\">%" PRId64 "</td></tr>\n", t->pageblocks);
	else
		sb_puts(&r->body, "<td></td></tr>\n");
	return r->body.err ? -1 : 0;
}

struct slab_ctx {
	struct web_req *r;
	int n;
};

static int slab_row(void *arg, const struct query_slab *s)
{
	struct slab_ctx *c = arg;
	struct web_req *r = c->r;
	char ts[FMT_TIME_LEN];
	int task = s->name && strcmp(s->name, "task_struct") == 0;

	if (c->n++ == 0)
		sb_printf(&r->body, "<table class=\"slab\"><caption>slab caches at %s</caption>\n<tr><th>cache</th>"
			  "<th class=\"n\">active objects</th><th class=\"n\">objects</th><th class=\"n\">object size, bytes</th>"
			  "<th class=\"n\">objects per slab</th><th class=\"n\">pages per slab</th>"
			  "<th class=\"n\">slab order</th></tr>\n", fmt_time_human(s->ts_ms, ts, sizeof ts));
	sb_printf(&r->body, "<tr><td>%s", task ? "<strong>" : "");
	page_text(r, s->name);
	sb_printf(&r->body, "%s</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%"
		  PRId64 "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">",
		  task ? "</strong>" : "", s->active_objs, s->num_objs, s->objsize, s->objperslab, s->pagesperslab);
	if (s->slab_order >= 0)
		sb_printf(&r->body, "%d", s->slab_order);
	sb_puts(&r->body, "</td></tr>\n");
	return r->body.err ? -1 : 0;
}

int sec_slow(struct run_page *p)
{
	struct web_req *r = p->r;
	struct report_orders o;
	struct pt_ctx pc = { r, 0, 0, 0 };
	struct slab_ctx sc = { r, 0 };
	int has = query_has_table(r->q, "pagetype_free");

	if (has < 0 || report_orders(r->q, p->ri.run_id, &o) < 0)
		return -1;
	if (o.task_order_known)
		sb_printf(&r->body, "<p>task_struct: <strong>%" PRId64 "-byte</strong> objects in <strong>order-%d</strong> "
			  "slabs (%d pages each): every new process needs a free block of order %d, or a partly used "
			  "slab, and the FPU/xstate area is part of each object.</p>\n", o.task_objsize, o.task_order,
			  1 << o.task_order, o.task_order);
	else
		sb_puts(&r->body, "<p class=\"pending\">No task_struct row in slabinfo for this run (slabinfo needs "
			"root).</p>\n");
	sb_puts(&r->body, "<details><summary>pagetypeinfo: free blocks per migratetype at the latest slow sample"
		"</summary>\n");
	if (has && query_pagetype_latest(r->q, p->ri.run_id, pt_row, &pc) < 0)
		return -1;
	if (pc.n)
		sb_puts(&r->body, "</table>\n<p>&gt; marks counts the kernel printed as &gt;100000 (a lower bound). "
			"Free Unmovable and Reclaimable blocks at high orders are what kernel allocations such as "
			"task_struct slabs can use without stealing a pageblock.</p>\n");
	else
		sb_puts(&r->body, "<p class=\"pending\">No pagetypeinfo sample for this run (it needs root).</p>\n");
	sb_puts(&r->body, "</details>\n<details><summary>slabinfo: the caches at the latest slow sample</summary>\n");
	if (query_slab_latest(r->q, p->ri.run_id, slab_row, &sc) < 0)
		return -1;
	if (sc.n)
		sb_puts(&r->body, "</table>\n");
	else
		sb_puts(&r->body, "<p class=\"pending\">No slabinfo sample for this run.</p>\n");
	sb_puts(&r->body, "</details>\n");
	return 0;
}

/* ---------------------------------------------------------------- 9: atomic risk */

struct atomic_rows {
	struct web_req *r;
	int order;
};

static int atomic_row(void *arg, const struct report_atomic *a)
{
	struct atomic_rows *ar = arg;
	struct web_req *r = ar->r;
	char x[32], y[32], z[32];

	sb_printf(&r->body, "<tr><td class=\"n\">%d</td><td>%d</td><td>", ar->order, a->node);
	page_text(r, a->zone);
	sb_printf(&r->body, "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\"><strong>%s%%</strong> (%" PRId64
		  ")</td><td class=\"n\">%s%%</td><td class=\"n\">%s%%</td><td class=\"n\">", a->samples,
		  fmt_sig(a->risk_pct, x, sizeof x), a->risk, fmt_sig(a->atomic_fail_pct, y, sizeof y),
		  fmt_sig(a->kernel_fail_pct, z, sizeof z));
	if (a->has_margin)
		sb_printf(&r->body, "%" PRId64, a->min_margin);
	sb_puts(&r->body, "</td></tr>\n");
	return r->body.err ? -1 : 0;
}

struct atomic_zone {
	int node;
	char zone[ZONE_NAME_MAX];
	size_t n;
	int64_t t[ATOMIC_POINTS];
	double v[ATOMIC_POINTS];
};

struct atomic_acc {
	struct atomic_zone z[SVG_MAX_SERIES];
	int nz;
};

static int atomic_pt(void *arg, const struct query_zone_point *p)
{
	struct atomic_acc *a = arg;
	struct atomic_zone *z = NULL;
	const char *zone = p->zone ? p->zone : "";

	for (int i = 0; i < a->nz && !z; i++)
		if (a->z[i].node == p->node && strcmp(a->z[i].zone, zone) == 0)
			z = &a->z[i];
	if (!z) {
		if (a->nz == SVG_MAX_SERIES || strlen(zone) >= ZONE_NAME_MAX)
			return 0;
		z = &a->z[a->nz++];
		z->node = p->node;
		memcpy(z->zone, zone, strlen(zone) + 1);
	}
	if (z->n == ATOMIC_POINTS)
		return -1;
	z->t[z->n] = p->ts_ms;
	z->v[z->n] = p->v;
	z->n++;
	return 0;
}

static int atomic_chart(struct run_page *p, int order)
{
	struct web_req *r = p->r;
	struct atomic_acc *a = calloc(1, sizeof *a);
	struct query_range rg = { p->from, p->to, ATOMIC_POINTS, 0, 0 };
	struct svg_series s[SVG_MAX_SERIES];
	char title[96];
	struct svg_chart c = { .title = title, .y_label = "% of samples", .y_from_zero = 1,
			       .t0_ms = CHART_AXIS(p->from, p->to), .t1_ms = CHART_AXIS(p->to, p->from),
			       .caption = "Share of the samples in each interval, per zone, at which GFP_ATOMIC would "
					  "have failed the watermark check while GFP_KERNEL would have passed." };

	if (!a)
		return -1;
	if (report_atomic_series(r->q, p->ri.run_id, order, &rg, atomic_pt, a) < 0) {
		free(a);
		return -1;
	}
	snprintf(title, sizeof title, "Atomic-only failures at order %d", order);
	if (a->nz == 0) {
		free(a);
		return 0;   /* the table below says there were no samples */
	}
	int any = 0;
	for (int i = 0; i < a->nz && !any; i++)
		for (size_t j = 0; j < a->z[i].n && !any; j++)
			any = a->z[i].v[j] != 0;
	if (!any) {
		/* A chart of flat zero lines is a screen of nothing: one line says it. */
		sb_printf(&r->body, "<p>%s: no zone at risk in any interval of this window.</p>\n", title);
		free(a);
		return 0;
	}
	for (int i = 0; i < a->nz; i++)
		s[i] = (struct svg_series){ a->z[i].zone, a->z[i].t, a->z[i].v, a->z[i].n, SVG_LINE, 0 };
	svg_line_chart(&r->body, &c, s, a->nz);
	free(a);
	return 0;
}

int sec_atomic(struct run_page *p)
{
	struct web_req *r = p->r;
	struct report_orders o;
	int rows = 0;

	if (report_orders(r->q, p->ri.run_id, &o) < 0)
		return -1;
	sb_puts(&r->body, "<p>Per tick, the page allocator's watermark check applied to a GFP_ATOMIC and a GFP_KERNEL "
		"request of each order (README: the atomic-allocation model). <strong>At risk</strong>: the atomic "
		"request would have failed where the sleeping one would not.</p>\n");
	for (int i = 0; i < o.n; i++) {
		struct report_request rq;
		char x[32], y[32], z[32];
		int got;

		/* The request through the whole zonelist first: a zone that "fails" is not a request that fails. */
		if ((got = report_request(r->q, p->ri.run_id, o.order[i], p->from, p->to, &rq)) < 0)
			return -1;
		if (got)
			sb_printf(&r->body, "<p class=\"request\">Order %d, the request through the zonelist: "
				  "<strong>GFP_ATOMIC would have failed where GFP_KERNEL would pass at %s%% of %" PRId64
				  " samples</strong> (GFP_NOWAIT %s%%; GFP_KERNEL fails even by reclaim at %s%%).</p>\n",
				  o.order[i], fmt_sig(rq.atomic_only_pct, x, sizeof x), rq.samples,
				  fmt_sig(rq.nowait_only_pct, y, sizeof y), fmt_sig(rq.kernel_fail_pct, z, sizeof z));
	}
	sb_puts(&r->body, "<p>Per zone, each zone's own check (a zone the request reaches last may \"fail\" for a "
		"request the zones above it serve):</p>\n");
	for (int i = 0; i < o.n; i++)
		if (atomic_chart(p, o.order[i]) < 0)
			return -1;
	sb_puts(&r->body, "<details><summary>Per zone: samples, at risk, atomic and kernel failures, lowest margin"
		"</summary>\n<table class=\"atomic\">\n<tr><th class=\"n\">order</th><th>node</th>"
		"<th>zone</th><th class=\"n\">samples</th><th class=\"n\">at risk (count)</th>"
		"<th class=\"n\">atomic fails</th><th class=\"n\">kernel fails</th>"
		"<th class=\"n\">lowest atomic margin, pages</th></tr>\n");
	for (int i = 0; i < o.n; i++) {
		struct atomic_rows ar = { r, o.order[i] };
		int n = report_atomic_summary(r->q, p->ri.run_id, o.order[i], p->from, p->to, atomic_row, &ar);
		if (n < 0)
			return -1;
		rows += n;
	}
	sb_puts(&r->body, "</table></details>\n");
	if (rows == 0)
		sb_puts(&r->body, "<p class=\"pending\">No atomic-risk samples in this window.</p>\n");
	return 0;
}
