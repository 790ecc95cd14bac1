/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats: verdict lines over the stats_ modules' estimates.  See stats.h
 * for the contract.
 */
#include "analysis/stats.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- verdict ---- */

int stats_significant(const struct stats_cmp *c)
{
	double null = c && c->is_ratio ? 1.0 : 0.0;

	if (!c || c->too_few || isnan(c->lo) || isnan(c->hi))
		return 0;
	return c->lo > null || c->hi < null;
}

/* Parts dropped, in order, until the line fits. */
enum {
	DROP_P_NAME = 1, DROP_CI_SPACE = 2, DROP_P = 4, DROP_EST_NAME = 8, DROP_PCT = 16,
	DROP_DIGIT = 32, DROP_AB = 64,
};

/* Each level drops one more part; see stats.h for why this order. */
static const int drop_levels[] = {
	0, 1, 1 | 2, 1 | 2 | 4, 1 | 2 | 4 | 8, 1 | 2 | 4 | 8 | 16, 1 | 2 | 4 | 8 | 16 | 32,
	1 | 2 | 4 | 8 | 16 | 32 | 64,
};

struct line {
	char buf[256];
	size_t len;
	int overflow;
};

static void line_add(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line_add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof l->buf - l->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof l->buf - l->len)
		l->overflow = 1;
	else
		l->len += (size_t)n;
}

/* %.<digits>g, with -0 printed as 0, infinities as inf / -inf, and 1e4 .. 1e15 whole ("453388", not
 * "4.534e+05": a reply is read by people, issue 31), as common/fmt.h's fmt_sig. */
static void fmt_num(char out[32], double v, int digits)
{
	if (v == 0.0)
		v = 0.0;
	if (isinf(v))
		snprintf(out, 32, "%s", v > 0 ? "inf" : "-inf");
	else if (fabs(v) >= 1e4 && fabs(v) < 1e15)
		snprintf(out, 32, "%.0f", v);
	else
		snprintf(out, 32, "%.*g", digits, v);
}

static void verdict_line(const struct stats_cmp *c, int drop, struct line *l)
{
	char a[32], b[32], e[32], lo[32], hi[32];
	double pct = (c->b - c->a) / fabs(c->a) * 100.0;
	int digits = drop & DROP_DIGIT ? 3 : 4;

	fmt_num(a, c->a, digits);
	fmt_num(b, c->b, digits);
	fmt_num(e, c->est, digits);
	fmt_num(lo, c->lo, digits);
	fmt_num(hi, c->hi, digits);
	memset(l, 0, sizeof *l);
	line_add(l, "%s: ", c->label);
	if (!(drop & DROP_AB) && !c->no_ab) {
		line_add(l, "%s vs %s", a, b);
		if (!(drop & DROP_PCT) && c->a != 0.0 && isfinite(pct))
			line_add(l, " (%+.1f%%)", pct);
		line_add(l, ", ");
	}
	if (c->too_few) {
		if (c->is_ratio)
			line_add(l, "too few data (n=%llu+%llu events; needs %llu)", (unsigned long long)c->n_a,
				 (unsigned long long)c->n_b, (unsigned long long)c->need_a);
		else
			line_add(l, "too few data (n=%llu+%llu%s%s; needs %llu+%llu)", (unsigned long long)c->n_a,
				 (unsigned long long)c->n_b, c->n_unit ? " " : "", c->n_unit ? c->n_unit : "",
				 (unsigned long long)c->need_a, (unsigned long long)c->need_b);
		return;
	}
	if (!(drop & DROP_EST_NAME) && c->est_name)
		line_add(l, "%s ", c->est_name);
	if (c->est_unbounded)
		line_add(l, ">%s", lo);   /* no events in A: the ratio has only a lower bound */
	else
		line_add(l, "%s [%s,%s%s]", e, lo, drop & DROP_CI_SPACE ? "" : " ", hi);
	if (!(drop & DROP_P) && c->p >= 0.0) {
		line_add(l, ", ");
		if (!(drop & DROP_P_NAME) && c->p_name)
			line_add(l, "%s ", c->p_name);
		if (c->p < 0.001)
			line_add(l, "p<0.001");
		else
			line_add(l, "p=%.2g", c->p);
	}
	line_add(l, ": %s", stats_significant(c) ? "significant" : "no significant difference");
}

static int printable(const char *s, size_t max)
{
	size_t i;

	if (!s)
		return 1;
	for (i = 0; s[i] && i <= max; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return 0;
	return i <= max;
}

static int cmp_valid(const struct stats_cmp *c)
{
	if (!c->label || !printable(c->label, STATS_VERDICT_COLS) || !printable(c->est_name, 32) ||
	    !printable(c->p_name, 32) || (!c->no_ab && (!isfinite(c->a) || !isfinite(c->b))))
		return 0;
	if (c->too_few)
		return 1;
	if (c->est_unbounded)
		return c->est == INFINITY && isfinite(c->lo) && c->hi == INFINITY && !isnan(c->p) && c->p <= 1.0;
	return isfinite(c->est) && !isnan(c->lo) && !isnan(c->hi) && !isnan(c->p) && c->p <= 1.0 && c->lo <= c->hi;
}

int stats_verdict(const struct stats_cmp *c, char *buf, size_t cap)
{
	struct line l;

	if (!c || !buf || cap == 0)
		return STATS_EARG;
	buf[0] = '\0';
	if (!cmp_valid(c))
		return STATS_EARG;
	for (size_t i = 0; i < sizeof drop_levels / sizeof drop_levels[0]; i++) {
		verdict_line(c, drop_levels[i], &l);
		if (!l.overflow && l.len <= STATS_VERDICT_COLS) {
			if (l.len >= cap)
				return STATS_ENOSPACE;
			memcpy(buf, l.buf, l.len + 1);
			return (int)l.len;
		}
	}
	return STATS_ENOSPACE;
}

int stats_verdict_full(const struct stats_cmp *c, char *buf, size_t cap)
{
	struct line l;

	if (!c || !buf || cap == 0)
		return STATS_EARG;
	buf[0] = '\0';
	if (!cmp_valid(c))
		return STATS_EARG;
	verdict_line(c, 0, &l);
	if (l.overflow || l.len >= cap)
		return STATS_ENOSPACE;
	memcpy(buf, l.buf, l.len + 1);
	return (int)l.len;
}

int stats_cmp_samples(const char *label, const double *a, size_t n1, const double *b, size_t n2,
                      double *scratch, struct stats_cmp *c)
{
	struct stats_hl hl;
	struct stats_mw mw;
	int rc;

	if (!c)
		return STATS_EARG;
	memset(c, 0, sizeof *c);
	c->label = label;
	c->n_a = n1;
	c->n_b = n2;
	if (scratch && (n1 == 0 || n2 == 0) && (a || n1 == 0) && (b || n2 == 0)) {
		size_t m1, m2;
		stats_rank_needed(n1, n2, &m1, &m2);
		c->need_a = m1;
		c->need_b = m2;
		c->too_few = c->no_ab = 1;
		return STATS_ETOOFEW;
	}
	if ((rc = stats_hodges_lehmann(a, n1, b, n2, scratch, &hl)) != STATS_OK ||
	    (rc = stats_mann_whitney(a, n1, b, n2, scratch, &mw)) != STATS_OK)
		return rc;
	/* scratch now holds sorted a then sorted b */
	stats_quantile_sorted(scratch, n1, 0.5, &c->a);
	stats_quantile_sorted(scratch + n1, n2, 0.5, &c->b);
	if (!stats_rank_enough(n1, n2)) {
		size_t m1, m2;
		stats_rank_needed(n1, n2, &m1, &m2);
		c->need_a = m1;
		c->need_b = m2;
		c->too_few = 1;
		return STATS_ETOOFEW;
	}
	c->est_name = "HL shift";
	c->est = hl.shift;
	c->lo = hl.lo;
	c->hi = hl.hi;
	c->p = mw.p;
	c->p_name = "Mann-Whitney";
	return STATS_OK;
}

int stats_cmp_rates(const char *label, uint64_t a, double ta, uint64_t b, double tb, struct stats_cmp *c)
{
	struct stats_rate_ratio rr;
	int rc;

	if (!c)
		return STATS_EARG;
	memset(c, 0, sizeof *c);
	c->label = label;
	c->is_ratio = 1;
	c->p = -1.0;
	c->est_name = "rate ratio";
	c->n_a = a;
	c->n_b = b;
	if ((rc = stats_rate_ratio(a, ta, b, tb, &rr)) != STATS_OK && rc != STATS_ETOOFEW)
		return rc;
	c->a = (double)a / ta;
	c->b = (double)b / tb;
	c->need_a = stats_rate_needed(ta, tb);
	if (rc == STATS_ETOOFEW || a + b < c->need_a) {
		c->too_few = 1;
		return STATS_ETOOFEW;
	}
	c->est = rr.ratio;
	c->lo = rr.lo;
	c->hi = rr.hi;
	/* No events in A: the ratio is unbounded above but its lower bound may still exclude 1. */
	c->est_unbounded = !isfinite(rr.ratio);
	if (c->est_unbounded && !isfinite(rr.lo))
		return STATS_ERANGE;
	return STATS_OK;
}

int stats_cmp_slopes(const char *label, const struct trend_fit *fa, const struct trend_fit *fb,
                     double scale, struct stats_cmp *c)
{
	struct stats_slope_diff d;
	int rc;

	if (!c)
		return STATS_EARG;
	memset(c, 0, sizeof *c);
	if (!isfinite(scale))
		return STATS_ENONFINITE;
	if (!(scale > 0.0))
		return STATS_EARG;
	if ((rc = stats_slope_diff(fa, fb, &d)) != STATS_OK)
		return rc;
	c->label = label;
	c->a = fa->slope * scale;
	c->b = fb->slope * scale;
	c->est_name = "slope diff";
	c->est = d.diff * scale;
	c->lo = d.lo * scale;
	c->hi = d.hi * scale;
	c->p = -1.0;
	if (!isfinite(c->a) || !isfinite(c->b) || !isfinite(c->est) || !isfinite(c->lo) || !isfinite(c->hi))
		return STATS_ERANGE;
	return STATS_OK;
}
