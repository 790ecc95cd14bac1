/* SPDX-License-Identifier: GPL-2.0-only */
/* poisson: exact inference on Poisson counts; see poisson.h. */
#include "analysis/poisson.h"

#include <math.h>
#include <string.h>

#define TAIL 0.025
#define GAMMA_EPS 1e-16
#define GAMMA_MAX_ITER 100000000L   /* both expansions need O(sqrt(a)) terms: 3e4 at a = 1e9 */

/* e^-x x^a / Gamma(a): the factor both expansions share (a > 0, x > 0). */
static double gamma_front(double a, double x)
{
	return exp(-x + a * log(x) - lgamma(a));
}

/* Lower regularized gamma P(a, x) by its series; accurate for x < a + 1. */
static int gamma_p_series(double a, double x, double *out)
{
	double term = 1.0 / a, sum = term;

	for (long n = 1; n < GAMMA_MAX_ITER; n++) {
		term *= x / (a + (double)n);
		sum += term;
		if (term < sum * GAMMA_EPS) {
			*out = sum * gamma_front(a, x);
			return STATS_OK;
		}
	}
	return STATS_ERANGE;
}

/* Upper regularized gamma Q(a, x) by its continued fraction (modified Lentz); accurate for x >= a + 1. */
static int gamma_q_cf(double a, double x, double *out)
{
	const double tiny = 1e-300;
	double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;

	for (long i = 1; i < GAMMA_MAX_ITER; i++) {
		double an = -(double)i * ((double)i - a), del;
		b += 2.0;
		d = an * d + b;
		if (fabs(d) < tiny)
			d = tiny;
		c = b + an / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < GAMMA_EPS) {
			*out = h * gamma_front(a, x);
			return STATS_OK;
		}
	}
	return STATS_ERANGE;
}

/* P(a, x) (lower = 1) or Q(a, x) (lower = 0), each from the expansion that keeps its digits. */
static int gamma_reg(double a, double x, int lower, double *out)
{
	double v = 0.0;
	int rc;

	if (x <= 0.0) {
		*out = lower ? 0.0 : 1.0;
		return STATS_OK;
	}
	if (x < a + 1.0) {
		rc = gamma_p_series(a, x, &v);
		*out = lower ? v : 1.0 - v;
	} else {
		rc = gamma_q_cf(a, x, &v);
		*out = lower ? 1.0 - v : v;
	}
	if (rc == STATS_OK)
		*out = fmin(1.0, fmax(0.0, *out));
	return rc;
}

int poisson_cdf(uint64_t k, double mu, double *out)
{
	if (!out)
		return STATS_EARG;
	if (!isfinite(mu))
		return STATS_ENONFINITE;
	if (mu < 0.0 || k > POISSON_MAX_COUNT)
		return STATS_EARG;
	/* P(X <= k) = Q(k + 1, mu). */
	return gamma_reg((double)k + 1.0, mu, 0, out);
}

/*
 * The mu where the Poisson tail of k equals TAIL: for lower, P(X >= k) = P(k, mu) = TAIL (k >= 1);
 * else P(X <= k) = Q(k + 1, mu) = TAIL.  Both tails are monotone in mu: bisect to a relative bracket.
 */
static int mu_root(uint64_t k, int lower, double *out)
{
	double a = lower ? (double)k : (double)k + 1.0;
	double lo = 0.0, hi = a + 12.0 * sqrt(a) + 30.0, v;
	int rc;

	for (int i = 0; i < 2200 && hi - lo > 4e-16 * hi; i++) {
		double mid = lo + (hi - lo) / 2.0;
		if (mid <= lo || mid >= hi)
			break;
		if ((rc = gamma_reg(a, mid, lower, &v)) != STATS_OK)
			return rc;
		/* P(a, mu) rises with mu; Q(a, mu) falls. */
		if (lower ? v < TAIL : v > TAIL)
			lo = mid;
		else
			hi = mid;
	}
	*out = lo + (hi - lo) / 2.0;
	return STATS_OK;
}

int poisson_rate_ci(uint64_t k, double t, double *lo, double *hi)
{
	double mlo = 0.0, mhi;
	int rc;

	if (!lo || !hi)
		return STATS_EARG;
	*lo = *hi = 0.0;
	if (!isfinite(t))
		return STATS_ENONFINITE;
	if (!(t > 0.0) || k > POISSON_MAX_COUNT)
		return STATS_EARG;
	if (k > 0 && (rc = mu_root(k, 1, &mlo)) != STATS_OK)
		return rc;
	if ((rc = mu_root(k, 0, &mhi)) != STATS_OK)
		return rc;
	*lo = mlo / t;
	*hi = mhi / t;
	return isfinite(*lo) && isfinite(*hi) ? STATS_OK : STATS_ERANGE;
}

int poisson_test_p(uint64_t a, double ta, uint64_t b, double tb, double *p)
{
	double n, pb, pa, ge = 1.0, le = 1.0;
	int rc;

	if (!p)
		return STATS_EARG;
	*p = 1.0;
	if (!isfinite(ta) || !isfinite(tb))
		return STATS_ENONFINITE;
	if (!(ta > 0.0) || !(tb > 0.0) || a > POISSON_MAX_COUNT || b > POISSON_MAX_COUNT)
		return STATS_EARG;
	if (a + b == 0)
		return STATS_ETOOFEW;
	n = (double)(a + b);
	/* B's share of the events under equal rates, and A's, each computed directly (no 1 - x). */
	pb = tb / (ta + tb);
	pa = ta / (ta + tb);
	/* P(B >= b) = I_pb(b, n - b + 1); P(B <= b) = P(A >= a) = I_pa(a, n - a + 1). */
	if (b > 0 && (rc = trend_ibeta((double)b, n - (double)b + 1.0, pb, &ge)) != TREND_OK)
		return STATS_ERANGE;
	if (a > 0 && (rc = trend_ibeta((double)a, n - (double)a + 1.0, pa, &le)) != TREND_OK)
		return STATS_ERANGE;
	*p = fmin(1.0, 2.0 * fmin(ge, le));
	return STATS_OK;
}

int poisson_compare(uint64_t a, double ta, uint64_t b, double tb, struct poisson_cmp *out)
{
	int rc;

	if (!out)
		return STATS_EARG;
	memset(out, 0, sizeof *out);
	out->a = a;
	out->b = b;
	out->ta = ta;
	out->tb = tb;
	if (!isfinite(ta) || !isfinite(tb))
		return STATS_ENONFINITE;
	if (!(ta > 0.0) || !(tb > 0.0) || a > POISSON_MAX_COUNT || b > POISSON_MAX_COUNT)
		return STATS_EARG;
	out->ra = (double)a / ta;
	out->rb = (double)b / tb;
	if ((rc = poisson_rate_ci(a, ta, &out->ra_lo, &out->ra_hi)) != STATS_OK ||
	    (rc = poisson_rate_ci(b, tb, &out->rb_lo, &out->rb_hi)) != STATS_OK)
		return rc;
	out->need = stats_rate_needed(ta, tb);
	if (a + b < out->need) {
		out->too_few = 1;
		return STATS_OK;
	}
	if ((rc = stats_rate_ratio(a, ta, b, tb, &out->ratio)) != STATS_OK ||
	    (rc = poisson_test_p(a, ta, b, tb, &out->p)) != STATS_OK)
		return rc;
	out->significant = out->ratio.lo > 1.0 || out->ratio.hi < 1.0;
	return STATS_OK;
}
