/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sec_trace: report section 10, what the run's tracefs instance saw
 * (report_trace): failed page allocations by order and class, the kernel
 * log's failures among them, fallbacks to another migrate type with the
 * fragmenting rate and its trend, and the newest traced failures.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/fmt.h"
#include "report/run.h"
#include "web/escape.h"
#include "web/section.h"

#define TRACED_SHOWN 100        /* newest traced failures listed */

static int traced_row(void *arg, const struct query_trace_failure *f)
{
	struct web_req *r = arg;

	page_failure_cells(r, f->ts_ms, f->comm, f->comm_len, f->pid, f->order);
	page_text(r, f->cls);
	sb_puts(&r->body, "</td><td>");
	page_text(r, f->gfp_flags);
	sb_puts(&r->body, "</td><td><code>");
	page_text(r, f->gfp_mask);
	sb_printf(&r->body, "</code></td><td>%s</td></tr>\n", f->in_kmsg ? "yes" : "no");
	return r->body.err ? -1 : 0;
}

/* Failures by order (rows) and class (columns), with their rates over the run. */
static void class_table(struct web_req *r, const struct report_trace *t)
{
	char a[32];

	sb_puts(&r->body, "<table class=\"trace\">\n<tr><th>order</th><th>atomic</th><th>sleeping</th>"
		"<th>opportunistic</th><th>all</th><th>per hour</th></tr>\n");
	for (int k = 0; k < QUERY_TRACE_ORDERS; k++) {
		if (!t->by_order[k])
			continue;
		sb_printf(&r->body, "<tr><td class=\"n\">%s%d</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64
			  "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%s</td></tr>\n",
			  k == QUERY_TRACE_ORDERS - 1 ? "&ge;" : "", k, t->t.by_oc[k][REPORT_ATOMIC],
			  t->t.by_oc[k][REPORT_SLEEPING], t->t.by_oc[k][REPORT_OPPORTUNISTIC], t->by_order[k],
			  fmt_sig(report_per_hour((double)t->by_order[k], t->exposure_ms), a, sizeof a));
	}
	sb_printf(&r->body, "<tr><th>all</th><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64
		  "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%s</td></tr>\n"
		  "</table>\n", t->by_class[REPORT_ATOMIC], t->by_class[REPORT_SLEEPING], t->by_class[REPORT_OPPORTUNISTIC],
		  t->t.failures, fmt_sig(t->per_hour, a, sizeof a));
}

static void fallbacks(struct web_req *r, const struct report_trace *t)
{
	char a[32], b[32], c[32];

	sb_printf(&r->body, "<p>Fallbacks to a free block of another migrate type: %" PRId64 ", of which %" PRId64
		  " fragmenting (below pageblock order: that pageblock now mixes migrate types), %s per hour.",
		  t->t.extfrag, t->t.fragmenting, fmt_sig(t->fragmenting_per_hour, a, sizeof a));
	if (t->trend_ok)
		sb_printf(&r->body, " Trend of that rate over %zu %s buckets: %s per hour, per hour [%s, %s]%s.",
			  t->fit.n, t->trend_tier == STORE_TIER_HOUR_MS ? "hour" : "minute", fmt_sig(t->slope_h, a, sizeof a),
			  fmt_sig(t->lo_h, b, sizeof b), fmt_sig(t->hi_h, c, sizeof c),
			  t->significant ? (t->slope_h > 0 ? ", rising" : ", falling") : ", not significant");
	else
		sb_printf(&r->body, " No trend yet (it needs %d %s buckets).", REPORT_TREND_POINTS,
			  t->trend_tier == STORE_TIER_HOUR_MS ? "hour" : "minute");
	sb_puts(&r->body, "</p>\n");
}

int sec_trace(struct run_page *p)
{
	struct web_req *r = p->r;
	struct report_trace t;
	int64_t total;

	if (report_trace(r->q, p->ri.run_id, &t) < 0)
		return -1;
	if (!t.note[0]) {
		sb_puts(&r->body, "<p>No trace in this run: it was recorded before fpusoakd read tracefs.</p>\n");
		return 0;
	}
	sb_puts(&r->body, "<p><code>");
	page_text(r, t.note);
	sb_puts(&r->body, "</code></p>\n");
	if (!t.on)
		return 0;
	sb_puts(&r->body, "<p>Every failed page allocation the kernel traced (<code>kmem/mm_page_alloc</code> with "
		"pfn -1), whole run. <em>Atomic</em> requests could not reclaim or compact; <em>opportunistic</em> ones "
		"(<code>__GFP_NOWARN</code> with <code>__GFP_NORETRY</code> or <code>__GFP_NOMEMALLOC</code>) are tries the "
		"caller makes smaller or elsewhere; <em>sleeping</em> ones could wait. The kernel log shows none with "
		"<code>__GFP_NOWARN</code>.</p>\n");
	class_table(r, &t);
	if (t.t.kmsg_failures)
		sb_printf(&r->body, "<p>Of the kernel log's %" PRId64 " allocation failure%s, %" PRId64 " %s the same "
			  "failure as one traced here (counted once).</p>\n", t.t.kmsg_failures,
			  t.t.kmsg_failures == 1 ? "" : "s", t.t.kmsg_in_trace, t.t.kmsg_in_trace == 1 ? "is" : "are");
	fallbacks(r, &t);
	sb_puts(&r->body, "<table class=\"failures\">\n<tr><th>time</th><th>comm</th><th>pid</th><th>order</th>"
		"<th>class</th><th>GFP flags</th><th>GFP mask</th><th>in the kernel log</th></tr>\n");
	if (report_read_trace_failures(r->q, p->ri.run_id, p->from, p->to, TRACED_SHOWN, &total, traced_row, r) < 0)
		return -1;
	sb_puts(&r->body, "</table>\n");
	sb_printf(&r->body, "<p>%" PRId64 " traced failure%s in this window", total, total == 1 ? "" : "s");
	if (total > TRACED_SHOWN)
		sb_printf(&r->body, "; the newest %d are listed", TRACED_SHOWN);
	sb_puts(&r->body, " (rows older than the raw retention are only counted above).</p>\n");
	return 0;
}
