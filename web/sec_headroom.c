/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sec_headroom: report section 2, headroom at the orders of interest —
 * a chart per order (lines per zone, dashed trends), then per zone the
 * trend's slope with its 95% CI and the projected exhaustion.  The
 * figures come from report/headroom.h, the same as the API and the summary.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "report/headroom.h"
#include "report/run.h"
#include "web/chart.h"
#include "web/section.h"

static void orders_note(struct web_req *r, const struct report_orders *o)
{
	sb_puts(&r->body, "<p>Orders of interest: ");
	if (o->task_order_known)
		sb_printf(&r->body, "<strong>%d</strong>, the task_struct slab's order (slabinfo: %" PRId64 "-byte objects "
			  "in slabs of %d pages, which embed the FPU/xstate area)", o->task_order, o->task_objsize,
			  1 << o->task_order);
	else
		sb_printf(&r->body, "<strong>%d</strong>, assumed for the task_struct slab (no slabinfo sample in this "
			  "run)", o->task_order);
	if (o->pageblock_order >= 0)
		sb_printf(&r->body, "; <strong>%d</strong>, the pageblock order (pagetypeinfo), what compaction and huge "
			  "pages work in", o->pageblock_order);
	else
		sb_puts(&r->body, "; the pageblock order is unknown (no pagetypeinfo sample in this run)");
	sb_printf(&r->body, ". Trends: least-squares fits through the minute averages, 95%% CI of the slope; under %d "
		  "minutes, through every tick, the CI corrected for their autocorrelation.</p>\n", REPORT_TICK_TREND_MINUTES);
}

/* "2024-06-01 13:05:00 (in 1h 05m; 95% CI 12:50 to 13:40)" or why there is none. */
static void exhaustion(struct web_req *r, const struct report_trend *t)
{
	char a[FMT_TIME_LEN], b[FMT_TIME_LEN], c[FMT_TIME_LEN], d[32];

	switch (report_trend_outlook(t)) {
	case REPORT_NO_TREND:
		if (t->err == TREND_EAUTOCORR)
			sb_printf(&r->body, "no trend: its %zu ticks are too autocorrelated (under 4 independent points)",
				  t->ticks);
		else
			sb_printf(&r->body, "no trend yet: %zu minute%s of rollups (%d needed)", t->n, t->n == 1 ? "" : "s",
				  REPORT_TREND_MIN_POINTS);
		return;
	case REPORT_RISING:
		sb_puts(&r->body, "none: rising");
		return;
	case REPORT_NO_FALL:
		sb_puts(&r->body, "none: no significant fall");
		return;
	case REPORT_EXHAUSTED:
		sb_puts(&r->body, "<strong>exhausted</strong> (at zero in the last minute)");
		return;
	case REPORT_PROJECTED:
		break;
	}
	sb_printf(&r->body, "<strong>%s</strong> (in %s; 95%% CI %s to %s)", fmt_time_human(t->zero_ms, a, sizeof a),
		  fmt_duration(t->zero_ms - t->last_ms, d, sizeof d), fmt_time_human(t->zero_early_ms, b, sizeof b),
		  fmt_time_human(t->zero_late_ms, c, sizeof c));
}

/* One table of every zone's trend at every order of interest (rows of the charts above). */
static void trend_rows(struct web_req *r, const struct report_trend *t, int n, int order)
{
	char x[32], y[32], z[32], w[32];

	for (int i = 0; i < n; i++) {
		sb_printf(&r->body, "<tr><td class=\"n\">%d</td><td>%d</td><td>", order, t[i].node);
		page_text(r, t[i].zone);
		sb_printf(&r->body, "</td><td class=\"n\">%zu</td><td class=\"n\">%s</td>", t[i].n,
			  t[i].n ? fmt_sig(t[i].last, x, sizeof x) : "");
		if (t[i].ok)
			sb_printf(&r->body, "<td class=\"n\">%s</td><td class=\"n\">[%s, %s]</td><td>",
				  fmt_sig(t[i].slope_h, y, sizeof y), fmt_sig(t[i].lo_h, z, sizeof z),
				  fmt_sig(t[i].hi_h, w, sizeof w));
		else
			sb_puts(&r->body, "<td></td><td></td><td>");
		exhaustion(r, &t[i]);
		sb_puts(&r->body, "</td></tr>\n");
	}
}

int sec_headroom(struct run_page *p)
{
	struct web_req *r = p->r;
	struct report_orders o;
	struct report_trend *t = calloc((size_t)REPORT_MAX_ZONES * REPORT_MAX_ORDERS, sizeof *t);
	int n[REPORT_MAX_ORDERS] = { 0 }, ret = -1, rows = 0;

	if (!t || report_orders(r->q, p->ri.run_id, &o) < 0)
		goto out;
	orders_note(r, &o);
	for (int i = 0; i < o.n; i++) {
		struct report_trend *ti = t + (size_t)i * REPORT_MAX_ZONES;
		if ((n[i] = report_headroom_trends(r->q, p->ri.run_id, o.order[i], p->from, p->to, 0, ti,
						   REPORT_MAX_ZONES)) < 0 ||
		    chart_headroom(r, p->ri.run_id, p->from, p->to, o.order[i], o.why[i], o.kind[i], ti, n[i]) < 0)
			goto out;
		rows += n[i];
	}
	if (rows == 0) {
		sb_puts(&r->body, "<p class=\"pending\">No trend yet: no minute rollup in this window (the first appears "
			"once a minute of samples is complete; without samples there is no chart either).</p>\n");
	} else {
		sb_puts(&r->body, "<table class=\"trend\">\n<tr><th class=\"n\">order</th><th>node</th><th>zone</th>"
			"<th class=\"n\">minutes</th><th class=\"n\">blocks, last minute</th>"
			"<th class=\"n\">slope, blocks/h</th><th class=\"n\">95% CI</th><th>projected exhaustion</th>"
			"</tr>\n");
		for (int i = 0; i < o.n; i++)
			trend_rows(r, t + (size_t)i * REPORT_MAX_ZONES, n[i], o.order[i]);
		sb_puts(&r->body, "</table>\n");
	}
	ret = 0;
out:
	free(t);
	return ret;
}
