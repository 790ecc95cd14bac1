/* SPDX-License-Identifier: GPL-2.0-only */
/* report/rare: comparison lines on counts of rare events; see rare.h. */
#include "report/rare.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/fmt.h"

#define HOUR_MS 3.6e6

const char report_rare_test[] = "exact conditional binomial test; exact 95% CIs of each rate and of the rate ratio B/A";

const char *report_exposure_text(int64_t ms, char *out, size_t len)
{
	if (ms < 0)
		snprintf(out, len, "-");
	else if (ms < 60000)
		snprintf(out, len, "%.1fs", (double)ms / 1000.0);
	else if (ms < 3600000)
		snprintf(out, len, "%" PRId64 "m %04.1fs", ms / 60000, (double)(ms % 60000) / 1000.0);
	else
		snprintf(out, len, "%" PRId64 "h %02" PRId64 "m %02" PRId64 "s", ms / 3600000, ms / 60000 % 60, ms / 1000 % 60);
	return out;
}

/* "60.4 [16.5, 155]" */
static const char *rate_text(double r, double lo, double hi, char *out, size_t len)
{
	char x[32], y[32], z[32];

	snprintf(out, len, "%s [%s, %s]", fmt_sig(r, x, sizeof x), fmt_sig(lo, y, sizeof y), fmt_sig(hi, z, sizeof z));
	return out;
}

/* "p=0.125", "p<0.001" */
static const char *p_text(double p, char *out, size_t len)
{
	if (p < 0.001)
		snprintf(out, len, "p<0.001");
	else
		snprintf(out, len, "p=%.3g", p);
	return out;
}

/* The 72-column form: the first candidate that fits, else the last one cut at a word. */
static void fit_verdict(struct report_line *l, const char *const *cand, int n)
{
	for (int i = 0; i < n - 1; i++)
		if (strlen(cand[i]) <= STATS_VERDICT_COLS) {
			snprintf(l->verdict, sizeof l->verdict, "%s", cand[i]);
			return;
		}
	report_line_cut72(l, cand[n - 1]);
}

/* The stats_cmp the other surfaces read (a, b, the ratio and its interval). */
static void fill_cmp(struct report_line *l)
{
	const struct poisson_cmp *r = &l->rare;

	memset(&l->c, 0, sizeof l->c);
	l->c.label = l->label;
	l->c.a = r->ra;
	l->c.b = r->rb;
	l->c.is_ratio = 1;
	l->c.p = r->too_few ? -1 : r->p;
	l->c.p_name = "exact conditional";
	l->c.n_a = r->a;
	l->c.n_b = r->b;
	l->c.need_a = r->need;
	l->c.too_few = r->too_few;
	if (!r->too_few) {
		l->c.est_name = "rate ratio";
		l->c.est = r->ratio.ratio;
		l->c.lo = r->ratio.lo;
		l->c.hi = r->ratio.hi;
		l->c.est_unbounded = isinf(r->ratio.ratio);
	}
}

int report_rare_line(struct report_line *l, uint64_t a, int64_t exposure_a_ms, uint64_t b, int64_t exposure_b_ms)
{
	struct poisson_cmp *r = &l->rare;
	char ea[32], eb[32], ra[96], rb[96], ratio[96], p[32], x[32], y[32], z[32], sides[320];
	const char *cand[4];
	char c0[320], c1[320], c2[320], c3[320];
	int rc;

	l->is_rare = 1;
	l->test = report_rare_test;
	l->na = (double)a;
	l->nb = (double)b;
	l->xa = exposure_a_ms > 0 ? (double)exposure_a_ms / HOUR_MS : 0;
	l->xb = exposure_b_ms > 0 ? (double)exposure_b_ms / HOUR_MS : 0;
	report_exposure_text(exposure_a_ms, ea, sizeof ea);
	report_exposure_text(exposure_b_ms, eb, sizeof eb);
	if (!(exposure_a_ms > 0) || !(exposure_b_ms > 0)) {
		/* No exposure on a side (a run of fewer than two samples): counts only, no rate. */
		l->w = REPORT_W_TOO_FEW;
		snprintf(l->word, sizeof l->word, REPORT_TOO_FEW " (run %s has no exposure; needs two samples a side)",
			 !(exposure_a_ms > 0) && !(exposure_b_ms > 0) ? "A nor B" : !(exposure_a_ms > 0) ? "A" : "B");
		snprintf(l->full, sizeof l->full, "%s: A %" PRIu64 " in %s vs B %" PRIu64 " in %s: %s", l->label, a, ea, b, eb,
			 l->word);
		cand[0] = l->full;
		fit_verdict(l, cand, 1);
		return 0;
	}
	rc = poisson_compare(a, l->xa, b, l->xb, r);
	if (rc != STATS_OK) {
		report_gate_refuse(&l->gate, "%s: %s", l->label, stats_strerror(rc));
		l->comparable = 0;
		l->w = REPORT_W_NOT_COMPARABLE;
		snprintf(l->word, sizeof l->word, REPORT_NOT_COMPARABLE ": %s", l->gate.why);
		snprintf(l->full, sizeof l->full, "%s: %s", l->label, l->word);
		cand[0] = l->full;
		fit_verdict(l, cand, 1);
		return -1;
	}
	l->has_ab = 1;
	l->fa = r->ra;
	l->fb = r->rb;
	fill_cmp(l);
	rate_text(r->ra, r->ra_lo, r->ra_hi, ra, sizeof ra);
	rate_text(r->rb, r->rb_lo, r->rb_hi, rb, sizeof rb);
	snprintf(sides, sizeof sides, "A %" PRIu64 " in %s = %s/h vs B %" PRIu64 " in %s = %s/h", a, ea, ra, b, eb, rb);
	if (!l->comparable) {
		/* The gate's reason stands; the counts and rates are still said (they are facts, not a verdict). */
		snprintf(l->full, sizeof l->full, "%s: %s: %s", l->label, sides, l->word);
		snprintf(c0, sizeof c0, "%s: %s", l->label, l->word);
		cand[0] = c0;
		fit_verdict(l, cand, 1);
		return 0;
	}
	if (r->too_few) {
		l->w = REPORT_W_TOO_FEW;
		snprintf(l->word, sizeof l->word, REPORT_TOO_FEW " (n=%" PRIu64 "+%" PRIu64 " events; needs %" PRIu64 ")", a, b,
			 r->need);
		snprintf(l->full, sizeof l->full, "%s: %s: %s", l->label, sides, l->word);
		snprintf(c0, sizeof c0, "%s: %s vs %s/h: %s", l->label, ra, rb, l->word);
		snprintf(c1, sizeof c1, "%s: %s vs %s/h (<= %s, %s): %s", l->label, fmt_sig(r->ra, x, sizeof x),
			 fmt_sig(r->rb, y, sizeof y), fmt_sig(r->ra_hi, z, sizeof z), fmt_sig(r->rb_hi, p, sizeof p), l->word);
		snprintf(c2, sizeof c2, "%s: %s", l->label, l->word);
		cand[0] = c0;
		cand[1] = c1;
		cand[2] = c2;
		fit_verdict(l, cand, 3);
		return 0;
	}
	l->ok = 1;
	l->significant = r->significant;
	l->w = r->significant ? REPORT_W_SIGNIFICANT : REPORT_W_NOT_SIGNIFICANT;
	snprintf(l->word, sizeof l->word, "%s", r->significant ? REPORT_SIGNIFICANT : REPORT_NOT_SIGNIFICANT);
	if (isinf(r->ratio.ratio))
		snprintf(ratio, sizeof ratio, "rate ratio >%s", fmt_sig(r->ratio.lo, x, sizeof x));
	else
		snprintf(ratio, sizeof ratio, "rate ratio %s", rate_text(r->ratio.ratio, r->ratio.lo, r->ratio.hi, c3, sizeof c3));
	p_text(r->p, p, sizeof p);
	snprintf(l->full, sizeof l->full, "%s: %s, %s, exact conditional %s: %s", l->label, sides, ratio, p, l->word);
	snprintf(c0, sizeof c0, "%s: %s vs %s/h, %s, %s: %s", l->label, fmt_sig(r->ra, x, sizeof x),
		 fmt_sig(r->rb, y, sizeof y), ratio, p, l->word);
	snprintf(c1, sizeof c1, "%s: %s vs %s/h, %s: %s", l->label, fmt_sig(r->ra, x, sizeof x), fmt_sig(r->rb, y, sizeof y),
		 ratio, l->word);
	snprintf(c2, sizeof c2, "%s: %s: %s", l->label, ratio, l->word);
	cand[0] = c0;
	cand[1] = c1;
	cand[2] = c2;
	fit_verdict(l, cand, 3);
	return 0;
}
