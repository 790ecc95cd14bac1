/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sec_gfp: report section: the 2014 test with the fpusoak_gfp module
 * (--gfp-mode): capacity per mode over time, kernel against atomic with the
 * trend of the gap, deaths of a refused HOLD, and the atomic model checked
 * against the allocator (accuracy, then predicted x actual per order and
 * mode).  Every figure comes from report/gfp.h.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/fmt.h"
#include "report/gfp.h"
#include "web/chart.h"
#include "web/section.h"
#include "web/svg.h"

/* Capacity over time, one series per mode that has probes. */
static void capacity_chart(struct web_req *r, const struct run_page *p, const struct report_gfp *g)
{
	int64_t *t = malloc(sizeof(int64_t) * (g->nprobes + 1));
	double *v = malloc(sizeof(double) * (g->nprobes + 1));
	struct svg_series s[4];
	struct svg_chart c = { .title = "Capacity by --gfp-mode", .y_label = "workers", .y_from_zero = 1,
			       .caption = "Workers held before each capacity probe stopped, by the mode their FPU-state "
					  "objects were allocated in. The 2014 test: 256 with GFP_KERNEL, 228 with "
					  "GFP_ATOMIC. A gap that grows over the run is fragmentation hurting the atomic mode.",
			       .t0_ms = CHART_AXIS(p->from, p->to), .t1_ms = CHART_AXIS(p->to, p->from) };
	size_t used = 0;
	int ns = 0;

	if (!t || !v) {
		r->body.err = 1;
		goto out;
	}
	for (int m = REPORT_GFP_NONE; m <= REPORT_GFP_NOWAIT; m++) {
		size_t first = used;
		if (!g->probes_by_mode[m])
			continue;
		for (size_t i = 0; i < g->nprobes; i++)
			if (g->probe[i].mode == m) {
				t[used] = g->probe[i].ts_ms;
				v[used++] = g->probe[i].workers;
			}
		s[ns++] = (struct svg_series){ m == REPORT_GFP_NONE ? "no HOLD" : report_gfp_mode_name(m), t + first,
					       v + first, used - first, SVG_LINE_MARKERS, m + 1 };
	}
	if (ns)
		svg_line_chart(&r->body, &c, s, ns);
out:
	free(t);
	free(v);
}

static void ab_text(struct web_req *r, const struct report_gfp *g)
{
	char a[32], b[32], d[32], e[32];

	sb_puts(&r->body, "<p class=\"verdict\"><code>");
	page_text(r, g->line.verdict);
	sb_printf(&r->body, "</code> (%s; B = atomic, A = kernel; %zu and %zu probes compared", g->line.test,
		  g->ab.n_a, g->ab.n_b);
	if (g->censored_by_mode[REPORT_GFP_KERNEL] + g->censored_by_mode[REPORT_GFP_ATOMIC])
		sb_printf(&r->body, ", %zu and %zu left out: stopped by limit, timeout or the daemon's stop, they held "
			  "at least that many", g->censored_by_mode[REPORT_GFP_KERNEL], g->censored_by_mode[REPORT_GFP_ATOMIC]);
	sb_puts(&r->body, ").</p>\n");
	if (g->ab.have_trend)
		sb_printf(&r->body, "<p>Gap (atomic minus the kernel probe before it) over %zu turns: mean %s workers, "
			  "trend %s per hour, 95%% CI [%s, %s]%s.</p>\n", g->ab.npairs, fmt_sig(g->ab.gap_mean, a, sizeof a),
			  fmt_sig(g->gap_h, b, sizeof b), fmt_sig(g->gap_lo_h, d, sizeof d),
			  fmt_sig(g->gap_hi_h, e, sizeof e), g->gap_significant ? ": the gap changes over the run"
										: ": no significant trend");
	else if (g->ab.npairs)
		sb_printf(&r->body, "<p>Gap (atomic minus the kernel probe before it) over %zu turn%s: mean %s workers; "
			  "a trend needs 3 turns.</p>\n", g->ab.npairs, g->ab.npairs == 1 ? "" : "s",
			  fmt_sig(g->ab.gap_mean, a, sizeof a));
}

/* "3" or "1&#8211;40" (the |margin| of the checks the model got wrong), "" when it got none wrong. */
static const char *margins(const struct report_gfp_cell *x, char *out, size_t len)
{
	if (x->min_margin_wrong < 0)
		snprintf(out, len, "%s", "");
	else if (x->min_margin_wrong == x->max_margin_wrong)
		snprintf(out, len, "%" PRId64, x->min_margin_wrong);
	else
		snprintf(out, len, "%" PRId64 "&#8211;%" PRId64, x->min_margin_wrong, x->max_margin_wrong);
	return out;
}

static void checks_table(struct web_req *r, const struct report_gfp *g)
{
	char acc[32], mg[48];

	sb_printf(&r->body, "<p class=\"headline\">Model checks: the allocator answered as the model predicted in "
		  "<strong>%" PRIu64 " of %" PRIu64 "</strong> checks (%s%%", g->agreed, g->checks,
		  fmt_sig(100.0 * g->accuracy, acc, sizeof acc));
	for (int m = REPORT_GFP_ATOMIC; m <= REPORT_GFP_NOWAIT; m++)
		if (g->mode_checks[m])
			sb_printf(&r->body, "; %s %" PRIu64 "/%" PRIu64, report_gfp_mode_name(m), g->mode_agreed[m],
				  g->mode_checks[m]);
	sb_puts(&r->body, ").</p>\n<table class=\"checks\">\n<tr><th class=\"n\">order</th><th>mode</th>"
		"<th class=\"n\">checks</th><th class=\"n\">predicted ok, got it</th><th class=\"n\">predicted ok, "
		"refused</th><th class=\"n\">predicted refused, got it</th><th class=\"n\">predicted refused, refused"
		"</th><th class=\"n\">accuracy</th><th class=\"n\">|margin| when wrong, pages</th></tr>\n");
	for (int i = 0; i < g->ncells; i++) {
		const struct report_gfp_cell *x = &g->cell[i];
		sb_printf(&r->body, "<tr><td class=\"n\">%d</td><td>%s</td><td class=\"n\">%" PRIu64 "</td>"
			  "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td>"
			  "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%s%%</td><td class=\"n\">%s</td></tr>\n",
			  x->order, report_gfp_mode_name(x->mode), gfpab_checks(&x->c), x->c.n[1][1], x->c.n[1][0],
			  x->c.n[0][1], x->c.n[0][0], fmt_sig(100.0 * x->accuracy, acc, sizeof acc), margins(x, mg, sizeof mg));
	}
	sb_puts(&r->body, "</table>\n<p>Each check asks the allocator for one block of the order, right after the "
		"tick's zoneinfo and buddyinfo were read, without waking kswapd, and frees it at once; GFP_KERNEL is "
		"never tried (it would reclaim and compact). Disagreements at small margins are the state moving "
		"between the read and the try; a HighAtomic reserve set aside since the last pagetypeinfo read "
		"makes the model too hopeful for GFP_NOWAIT.</p>\n");
}

int sec_gfp(struct run_page *p)
{
	struct web_req *r = p->r;
	struct report_gfp g;

	if (report_gfp(r->q, p->ri.run_id, p->from, p->to, &g) < 0)
		return -1;
	/* Most runs never load the module: one line says why the section is empty (issue 17: pages answer first). */
	if (!g.probes_by_mode[REPORT_GFP_KERNEL] && !g.probes_by_mode[REPORT_GFP_ATOMIC] &&
	    !g.probes_by_mode[REPORT_GFP_NOWAIT] && !g.churn_gfp_failed && !g.probes_gfp_failed && !g.checks) {
		sb_puts(&r->body, "<p class=\"pending\">Not in this window (<code>gfp_mode=");
		page_text(r, g.mode[0] ? g.mode : "not recorded");
		sb_puts(&r->body, "</code>): the 2014 test needs the optional <code>fpusoak_gfp</code> module "
			"(README: the 2014 test, repeated).</p>\n");
		report_gfp_free(&g);
		return r->body.err ? -1 : 0;
	}
	sb_puts(&r->body, "<p>With the optional <code>fpusoak_gfp</code> module, workers hold their FPU state as the "
		"2014 kernel allocated it, with GFP_KERNEL, GFP_ATOMIC or GFP_NOWAIT, and die when refused "
		"(README: the 2014 test, repeated). This run: <code>gfp_mode=");
	page_text(r, g.mode[0] ? g.mode : "not recorded");
	sb_puts(&r->body, "</code>.</p>\n");
	if (g.probes_by_mode[REPORT_GFP_KERNEL] + g.probes_by_mode[REPORT_GFP_ATOMIC] +
	    g.probes_by_mode[REPORT_GFP_NOWAIT]) {
		capacity_chart(r, p, &g);
		ab_text(r, &g);
	}
	if (g.churn_gfp_failed || g.probes_gfp_failed)
		sb_printf(&r->body, "<p>Refused HOLDs: %" PRId64 " churn worker%s died of one (<code>gfp_failed</code>); "
			  "%" PRId64 " capacity probe%s ended by one.</p>\n", g.churn_gfp_failed,
			  g.churn_gfp_failed == 1 ? "" : "s", g.probes_gfp_failed, g.probes_gfp_failed == 1 ? "" : "s");
	if (g.checks)
		checks_table(r, &g);
	else
		sb_puts(&r->body, "<p class=\"pending\">No model checks in this window (they need the module: "
			"<code>--model-check-interval</code>).</p>\n");
	report_gfp_free(&g);
	return r->body.err ? -1 : 0;
}
