/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * headline: the first screen of a run's page and of "/": the run's state
 * in one line, then report/headline.h's five figures as cards, each with
 * its unit and a sparkline.  Everything stated here is computed there.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/fmt.h"
#include "report/headline.h"
#include "web/page.h"
#include "web/svg.h"

static void card_begin(struct web_req *r, const char *id, const char *title)
{
	sb_printf(&r->body, "<div class=\"card\" id=\"%s\"><h3>%s</h3>\n", id, title);
}

static void spark(struct web_req *r, const struct report_spark *s, int markers, const char *what)
{
	svg_sparkline(&r->body, s->t, s->v, s->n, markers, what);
	sb_puts(&r->body, "\n");
}

/* "0.12 %" or "no samples". */
static const char *pct(double v, int64_t n, char *out, size_t outlen)
{
	char x[32];

	if (n <= 0 || !isfinite(v))
		snprintf(out, outlen, "no samples");
	else
		snprintf(out, outlen, "%s %%", fmt_sig(v, x, sizeof x));
	return out;
}

static void fig_atomic(struct web_req *r, const struct report_headline *h)
{
	char a[32], b[32];

	card_begin(r, "h-atomic", "GFP_ATOMIC would fail, GFP_KERNEL would not");
	if (!h->has_atomic || !h->natomic) {
		sb_puts(&r->body, "<p class=\"pending\">No sample in this run yet: no atomic-model verdict.</p></div>\n");
		return;
	}
	int any = 0;
	for (int i = 0; i < h->natomic; i++)
		any |= h->atomic[i].n_run > 0;
	if (!any) {
		/* Samples without the request's columns: written before schema 7, or by a tool that leaves them out. */
		sb_puts(&r->body, "<p class=\"pending\">No request-level sample in this run (recorded without the request"
			" model, before schema 7): the per-zone verdicts are under <a href=\"#atomic\">Atomic-allocation"
			" risk</a>.</p></div>\n");
		return;
	}
	spark(r, &h->atomic[0].spark, 0, "% of samples at risk at the task_struct order, whole run");
	for (int i = 0; i < h->natomic; i++) {
		const struct report_headline_atomic *x = &h->atomic[i];
		if (i == 0 && x->n_hour > 0)
			sb_printf(&r->body, "<p><span class=\"big\">%s</span> of samples, last hour</p>\n<p>whole run %s;"
				  " order %d (%s)</p>\n", pct(x->pct_hour, x->n_hour, a, sizeof a),
				  pct(x->pct_run, x->n_run, b, sizeof b), x->order, x->why);
		else if (i == 0)
			sb_printf(&r->body, "<p><span class=\"big\">%s</span> of samples, whole run</p>\n<p>none in the last"
				  " hour; order %d (%s)</p>\n", pct(x->pct_run, x->n_run, b, sizeof b), x->order, x->why);
		else
			sb_printf(&r->body, "<p>order %d (%s): %s last hour, %s whole run</p>\n", x->order, x->why,
				  pct(x->pct_hour, x->n_hour, a, sizeof a), pct(x->pct_run, x->n_run, b, sizeof b));
	}
	sb_puts(&r->body, "<p class=\"note\">the request through every zone it may use (v_atomic_request)</p></div>\n");
}

static void fig_headroom(struct web_req *r, const struct report_headline *h)
{
	const struct report_trend *t = &h->head;
	char a[32], b[32], c[32], d[32], z[FMT_TIME_LEN];

	sb_printf(&r->body, "<div class=\"card\" id=\"h-headroom\"><h3>Headroom at order %d (task_struct slab)</h3>\n",
		  h->head_order);
	if (!h->has_head || !t->n) {
		sb_puts(&r->body, "<p class=\"pending\">No minute rollup yet: the first appears once a minute of samples "
			"is complete.</p></div>\n");
		return;
	}
	spark(r, &h->head_spark, 0, t->per_tick ? "free blocks at the task_struct order, tick means, whole run" :
		"free blocks at the task_struct order, minute means, whole run");
	sb_printf(&r->body, "<p><span class=\"big\">%s</span> free blocks now", fmt_sig(t->last, a, sizeof a));
	if (isfinite(h->head_mb))
		sb_printf(&r->body, " (%s MiB)", fmt_sig(h->head_mb, b, sizeof b));
	sb_puts(&r->body, "</p>\n");
	if (t->ok)
		sb_printf(&r->body, "<p>slope %s blocks/h, 95%% CI [%s, %s]</p>\n", fmt_sig(t->slope_h, a, sizeof a),
			  fmt_sig(t->lo_h, b, sizeof b), fmt_sig(t->hi_h, c, sizeof c));
	else if (t->err == TREND_EAUTOCORR)   /* a short window's per-tick fit (report/headroom.h) */
		sb_printf(&r->body, "<p>no slope: its %zu ticks are too autocorrelated (under 4 independent points)</p>\n",
			  t->ticks);
	else
		sb_printf(&r->body, "<p>no slope yet: %zu minute%s of rollups (%d needed)</p>\n", t->n, t->n == 1 ? "" : "s",
			  REPORT_TREND_MIN_POINTS);
	sb_puts(&r->body, "<p>projected exhaustion: ");
	switch (h->outlook) {
	case REPORT_PROJECTED:
		sb_printf(&r->body, "<strong>%s</strong> (in %s)", fmt_time_human(t->zero_ms, z, sizeof z),
			  fmt_duration(t->zero_ms - t->last_ms, d, sizeof d));
		break;
	case REPORT_EXHAUSTED:
		sb_puts(&r->body, "<strong>exhausted</strong> (zero in the last minute)");
		break;
	case REPORT_RISING:
		sb_puts(&r->body, "none (rising)");
		break;
	case REPORT_NO_FALL:
		sb_puts(&r->body, "none (no significant fall)");
		break;
	case REPORT_NO_TREND:
		sb_puts(&r->body, "none (no trend yet)");
		break;
	}
	sb_puts(&r->body, "</p>\n<p class=\"note\">zone ");
	page_text(r, h->zone);
	sb_puts(&r->body, "</p></div>\n");
}

static void fig_probes(struct web_req *r, const struct report_headline *h)
{
	char a[32], b[32], c[32], d[32];

	card_begin(r, "h-probes", "Capacity probes");
	if (!h->has_probes || !h->nprobes) {
		if (h->cap_censored)
			sb_printf(&r->body, "<p class=\"pending\">No capacity measured: all %zu probes stopped by %s (lower "
				  "bounds, not capacities).</p></div>\n", h->cap_censored, h->cap_censored_reason);
		else
			sb_puts(&r->body, "<p class=\"pending\">No capacity probe in this run (--probe-interval 0, or the run "
				"is shorter than the interval).</p></div>\n");
		return;
	}
	spark(r, &h->cap_spark, 1, "workers held by each capacity probe");
	sb_printf(&r->body, "<p><span class=\"big\">%s</span> workers held, last probe</p>\n<p>median %s of %zu probe%s</p>\n",
		  fmt_sig(h->cap_last, a, sizeof a), fmt_sig(h->cap_median, b, sizeof b), h->nprobes,
		  h->nprobes == 1 ? "" : "s");
	if (h->cap_censored)
		sb_printf(&r->body, "<p>%zu more stopped by %s: lower bounds, left out</p>\n", h->cap_censored, h->cap_censored_reason);
	if (h->cap_fit)
		sb_printf(&r->body, "<p>trend %s workers/h, 95%% CI [%s, %s]%s</p>\n", fmt_sig(h->cap_slope_h, a, sizeof a),
			  fmt_sig(h->cap_lo_h, c, sizeof c), fmt_sig(h->cap_hi_h, d, sizeof d),
			  h->cap_significant ? ": significant" : ": no significant trend");
	else
		sb_printf(&r->body, "<p>trend: too few data (n=%zu probe%s; needs %d)</p>\n", h->nprobes,
			  h->nprobes == 1 ? "" : "s", REPORT_TREND_MIN_POINTS);
	sb_puts(&r->body, "</div>\n");
}

static void fig_failures(struct web_req *r, const struct report_headline *h)
{
	char a[32];

	card_begin(r, "h-failures", "Kernel allocation failures and OOM kills");
	if (!h->has_kmsg) {
		sb_puts(&r->body, "<p class=\"pending\">This database has no kernel-log table (an older fpusoakd).</p>");
		if (h->has_churn)
			sb_printf(&r->body, "<p>churn workers OOM-killed: %" PRId64 "</p>", h->churn_oom);
		sb_puts(&r->body, "</div>\n");
		return;
	}
	spark(r, &h->fail_spark, 0, "page allocation failures per interval, whole run");
	sb_printf(&r->body, "<p><span class=\"big\">%" PRId64 "</span> page allocation failure%s", h->failures,
		  h->failures == 1 ? "" : "s");
	if (isfinite(h->failures_h))
		sb_printf(&r->body, " (%s per hour)", fmt_sig(h->failures_h, a, sizeof a));
	sb_printf(&r->body, "</p>\n<p>OOM kills in the kernel log: %" PRId64 "</p>\n", h->oom_kills);
	if (h->has_churn)
		sb_printf(&r->body, "<p>churn workers OOM-killed: %" PRId64 "</p>\n", h->churn_oom);
	sb_puts(&r->body, "</div>\n");
}

static void fig_churn(struct web_req *r, const struct report_headline *h)
{
	char a[32], b[32];

	card_begin(r, "h-churn", "Churn");
	if (!h->has_churn) {
		sb_puts(&r->body, "<p class=\"pending\">No churn in this run (--workers 0, or a database without the "
			"churn engine's tables).</p></div>\n");
		return;
	}
	spark(r, &h->churn_spark, 0, "spawns per second, whole run");
	sb_printf(&r->body, "<p><span class=\"big\">%s</span> spawns/s</p>\n<p>population: mean %s, max %" PRId64
		  " workers</p>\n<p>%" PRId64 " spawned</p></div>\n", fmt_sig(h->spawns_s, a, sizeof a),
		  fmt_sig(h->population, b, sizeof b), h->pop_max, h->spawned);
}

int page_headline(struct web_req *r, int64_t run_id)
{
	struct report_headline *h = calloc(1, sizeof *h);

	if (!h || report_headline(r->q, run_id, h) < 0) {
		free(h);
		return -1;
	}
	sb_puts(&r->body, "<div class=\"cards\">\n");
	fig_atomic(r, h);
	fig_headroom(r, h);
	fig_probes(r, h);
	fig_failures(r, h);
	fig_churn(r, h);
	sb_puts(&r->body, "</div>\n");
	free(h);
	return 0;
}
