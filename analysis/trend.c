/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trend: OLS line with a t-based slope interval; Student t and incomplete
 * beta functions.  See trend.h for the contract.
 *
 * Sums are centred (two passes) because x is usually a wall-clock time in
 * ms (~1.7e12): the one-pass formula Sxx = sum(x^2) - n*mean^2 would lose
 * every significant digit there.
 */
#include "analysis/trend.h"

#include <math.h>
#include <string.h>

#define IBETA_MAXIT 2000000   /* CF needs O(sqrt(max(a,b))) terms; a, b <= IBETA_MAX_AB */
#define IBETA_MAX_AB 1e12
#define IBETA_EPS 1e-15
#define IBETA_TINY 1e-300
#define STIRLING_MIN 10.0     /* Stirling series below is good to ~1e-14 from here on */
#define LN_SQRT_2PI 0.91893853320467274178

static int all_finite(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

/* ln Gamma(z) - Stirling's leading terms, for z >= STIRLING_MIN. */
static double stirling_corr(double z)
{
	double r = 1.0 / z, r2 = r * r;

	return r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680 - r2 / 1188))));
}

/* ln Gamma(p) - ln Gamma(p + q) for p >= STIRLING_MIN, q > 0, without cancellation. */
static double lgamma_ratio(double p, double q)
{
	double s = p + q;

	return -(p - 0.5) * log1p(q / p) - q * log(s) + q + stirling_corr(p) - stirling_corr(s);
}

/* ln B(a, b), accurate also when one or both arguments are large. */
static double lbeta(double a, double b)
{
	double p = a > b ? a : b, q = a > b ? b : a;
	int sign;

	if (p >= STIRLING_MIN)
		return lgamma_r(q, &sign) + lgamma_ratio(p, q);
	return lgamma_r(a, &sign) + lgamma_r(b, &sign) - lgamma_r(a + b, &sign);
}

/*
 * ln x where y = 1 - x: from y when y is small, since x = 1 - y is then
 * rounded and a * ln x (a up to 1e12) would carry a * 1e-16 of error.
 */
static double log_xy(double x, double y)
{
	return y < 0.5 ? log1p(-y) : log(x);
}

/*
 * x^a y^b / B(a, b) with y = 1 - x given separately.  For a, b both large
 * the direct form cancels (a ln x and ln B are both ~ -a); write it around
 * the mode x0 = a/(a+b) instead, as in DiDonato & Morris' brcomp.
 */
static double ibeta_front(double a, double b, double x, double y)
{
	if (a >= STIRLING_MIN && b >= STIRLING_MIN) {
		double e = x * b - y * a;  /* x(a+b) - a */
		double l = a * log1p(e / a) + b * log1p(-e / b)
		         - stirling_corr(a) - stirling_corr(b) + stirling_corr(a + b);
		return sqrt(a * b / (a + b)) * exp(l - LN_SQRT_2PI);
	}
	return exp(a * log_xy(x, y) + b * log_xy(y, x) - lbeta(a, b));
}

/* Continued fraction for I_x(a,b) (modified Lentz, Numerical Recipes' betacf). */
static int ibeta_cf(double a, double b, double x, double *out)
{
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;

	d = 1.0 / (fabs(d) < IBETA_TINY ? IBETA_TINY : d);
	h = d;
	for (long m = 1; m <= IBETA_MAXIT; m++) {
		double m2 = 2.0 * (double)m, del = 0.0;
		double num[2] = {
			(double)m * (b - (double)m) * x / ((a - 1.0 + m2) * (a + m2)),
			-(a + (double)m) * (a + b + (double)m) * x / ((a + m2) * (a + 1.0 + m2)),
		};
		for (int k = 0; k < 2; k++) {
			d = 1.0 + num[k] * d;
			d = 1.0 / (fabs(d) < IBETA_TINY ? IBETA_TINY : d);
			c = 1.0 + num[k] / c;
			if (fabs(c) < IBETA_TINY)
				c = IBETA_TINY;
			del = d * c;
			h *= del;
		}
		if (fabs(del - 1.0) < IBETA_EPS) {
			*out = h;
			return TREND_OK;
		}
	}
	return TREND_ERANGE;
}

/* I_x(a,b) with y = 1 - x supplied by the caller, so tails near x = 1 keep their digits. */
static int ibeta_xy(double a, double b, double x, double y, double *out)
{
	double cf;
	int rc;

	/* Decide the ends on the accurate one of x, y: 1/(1+r) rounds to 1 long before r/(1+r) is 0. */
	if (x <= 0.0) {
		*out = 0.0;
		return TREND_OK;
	}
	if (y <= 0.0) {
		*out = 1.0;
		return TREND_OK;
	}
	if (x < (a + 1.0) / (a + b + 2.0)) {
		rc = ibeta_cf(a, b, x, &cf);
		*out = ibeta_front(a, b, x, y) * cf / a;
	} else {
		rc = ibeta_cf(b, a, y, &cf);
		*out = 1.0 - ibeta_front(b, a, y, x) * cf / b;
	}
	if (rc != TREND_OK || !isfinite(*out))
		return TREND_ERANGE;
	*out = *out < 0.0 ? 0.0 : *out > 1.0 ? 1.0 : *out;
	return TREND_OK;
}

int trend_ibeta(double a, double b, double x, double *out)
{
	if (!out)
		return TREND_EARG;
	if (!isfinite(a) || !isfinite(b) || !isfinite(x))
		return TREND_ENONFINITE;
	if (a <= 0.0 || b <= 0.0 || a > IBETA_MAX_AB || b > IBETA_MAX_AB || x < 0.0 || x > 1.0)
		return TREND_EARG;
	return ibeta_xy(a, b, x, 1.0 - x, out);
}

/* P(T > t) for t > 0: 0.5 * I_{df/(df+t^2)}(df/2, 1/2), both beta arguments formed without 1 - x. */
static int t_tail(double t, double df, double *tail)
{
	double t2 = t * t, r, x, y, v;
	int rc;

	if (t2 > df) {
		r = df / t2;  /* t2 may be +Inf: r = 0, x = 0, tail 0 */
		x = r / (1.0 + r);
		y = 1.0 / (1.0 + r);
	} else {
		r = t2 / df;
		x = 1.0 / (1.0 + r);
		y = r / (1.0 + r);
	}
	rc = ibeta_xy(df / 2.0, 0.5, x, y, &v);
	*tail = 0.5 * v;
	return rc;
}

static int t_args_ok(double df)
{
	return df > 0.0 && df <= TREND_MAX_DF;
}

int trend_t_cdf(double t, double df, double *out)
{
	double tail;
	int rc;

	if (!out)
		return TREND_EARG;
	if (!isfinite(t) || !isfinite(df))
		return TREND_ENONFINITE;
	if (!t_args_ok(df))
		return TREND_EARG;
	if (t == 0.0) {
		*out = 0.5;
		return TREND_OK;
	}
	if ((rc = t_tail(fabs(t), df, &tail)) != TREND_OK)
		return rc;
	*out = t > 0.0 ? 1.0 - tail : tail;
	return TREND_OK;
}

/*
 * Solve P(T > t) = q for t > 0 by doubling then bisection.  Bisection is
 * slow (~55 tail evaluations) but cannot diverge; each evaluation is
 * microseconds, and callers ask for a handful of quantiles.
 */
static int t_tail_inverse(double q, double df, double *out)
{
	double lo = 0.0, hi = 1.0, v;
	int rc;

	for (;;) {
		if ((rc = t_tail(hi, df, &v)) != TREND_OK)
			return rc;
		if (v <= q)
			break;
		lo = hi;
		hi *= 2.0;
		if (!isfinite(hi))
			return TREND_ERANGE;
	}
	for (int i = 0; i < 2000 && hi - lo > 1e-15 * hi; i++) {
		double mid = lo + (hi - lo) / 2.0;
		if (mid <= lo || mid >= hi)
			break;
		if ((rc = t_tail(mid, df, &v)) != TREND_OK)
			return rc;
		if (v > q)
			lo = mid;
		else
			hi = mid;
	}
	*out = lo + (hi - lo) / 2.0;
	return TREND_OK;
}

int trend_t_quantile(double p, double df, double *out)
{
	double t;
	int rc;

	if (!out)
		return TREND_EARG;
	if (!isfinite(p) || !isfinite(df))
		return TREND_ENONFINITE;
	if (!(p > 0.0 && p < 1.0) || !t_args_ok(df))
		return TREND_EARG;
	if (p == 0.5) {
		*out = 0.0;
		return TREND_OK;
	}
	/* 1 - p is exact for p >= 0.5 (Sterbenz), so both tails keep full precision. */
	if ((rc = t_tail_inverse(p < 0.5 ? p : 1.0 - p, df, &t)) != TREND_OK)
		return rc;
	*out = p < 0.5 ? -t : t;
	return TREND_OK;
}

/* Centred sums; TREND_ERANGE if anything overflowed. */
static int centred_sums(const double *x, const double *y, size_t n, double m[2], double s[3])
{
	double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0, syy = 0.0;

	for (size_t i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
	}
	m[0] = sx / (double)n;
	m[1] = sy / (double)n;
	for (size_t i = 0; i < n; i++) {
		double dx = x[i] - m[0], dy = y[i] - m[1];
		sxx += dx * dx;
		sxy += dx * dy;
		syy += dy * dy;
	}
	s[0] = sxx;
	s[1] = sxy;
	s[2] = syy;
	if (!isfinite(sx) || !isfinite(sy) || !isfinite(sxx) || !isfinite(sxy) || !isfinite(syy))
		return TREND_ERANGE;
	return TREND_OK;
}

/* From (x_last, y_last) at the fitted slope and at both CI ends; only if ci_hi < 0. */
static void project_zero(struct trend_fit *f)
{
	double z, early, late;

	if (!(f->slope < 0.0 && f->ci_hi < 0.0))
		return;
	if (f->y_last <= 0.0) {
		z = early = late = f->x_last;
	} else {
		z = f->x_last - f->y_last / f->slope;
		early = f->x_last - f->y_last / f->ci_lo;
		late = f->x_last - f->y_last / f->ci_hi;
	}
	if (!isfinite(z) || !isfinite(early) || !isfinite(late))
		return;  /* beyond the representable: report none */
	f->zero_valid = 1;
	f->zero_x = z;
	f->zero_x_early = early;
	f->zero_x_late = late;
}

static void find_last(const double *x, const double *y, size_t n, struct trend_fit *f)
{
	size_t k = 0;

	for (size_t i = 1; i < n; i++)
		if (x[i] >= x[k])
			k = i;
	f->x_last = x[k];
	f->y_last = y[k];
}

static int fit_finite(const struct trend_fit *f)
{
	return isfinite(f->slope) && isfinite(f->intercept) && isfinite(f->se_slope) &&
	       isfinite(f->ci_lo) && isfinite(f->ci_hi) && isfinite(f->r2);
}

int trend_fit(const double *x, const double *y, size_t n, struct trend_fit *out)
{
	double m[2], s[3], sse = 0.0;
	struct trend_fit f;
	int rc;

	if (!out)
		return TREND_EARG;
	memset(out, 0, sizeof *out);
	if (!x || !y || n > TREND_MAX_N)
		return TREND_EARG;
	if (n < 3)
		return TREND_ETOOFEW;
	if (!all_finite(x, n) || !all_finite(y, n))
		return TREND_ENONFINITE;
	if ((rc = centred_sums(x, y, n, m, s)) != TREND_OK)
		return rc;
	if (s[0] == 0.0)
		return TREND_EFLATX;
	memset(&f, 0, sizeof f);
	f.n = n;
	f.df = (double)(n - 2);
	f.slope = s[1] / s[0];
	f.intercept = m[1] - f.slope * m[0];
	/* Residuals directly, not Syy - Sxy^2/Sxx, which can go negative. */
	for (size_t i = 0; i < n; i++) {
		double r = (y[i] - m[1]) - f.slope * (x[i] - m[0]);
		sse += r * r;
	}
	f.se_slope = sqrt(sse / f.df / s[0]);
	if ((rc = trend_t_quantile(0.975, f.df, &f.t_crit)) != TREND_OK)
		return rc;
	f.ci_lo = f.slope - f.t_crit * f.se_slope;
	f.ci_hi = f.slope + f.t_crit * f.se_slope;
	f.r2 = s[2] > 0.0 ? 1.0 - sse / s[2] : 0.0;
	f.r2 = f.r2 < 0.0 ? 0.0 : f.r2 > 1.0 ? 1.0 : f.r2;
	f.n_eff = (double)n;
	if (!fit_finite(&f))
		return TREND_ERANGE;
	find_last(x, y, n, &f);
	project_zero(&f);
	*out = f;
	return TREND_OK;
}

/* Lag-1 autocorrelation of the fit's residuals (centred like trend_fit); 0 for an exact fit. */
static double residual_r1(const double *x, const double *y, size_t n, const struct trend_fit *f)
{
	double mx = 0.0, my = 0.0, num = 0.0, den = 0.0, prev = 0.0;

	for (size_t i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		double r = (y[i] - my) - f->slope * (x[i] - mx);
		den += r * r;
		if (i)
			num += r * prev;
		prev = r;
	}
	return den > 0.0 ? num / den : 0.0;
}

int trend_fit_ar1(const double *x, const double *y, size_t n, struct trend_fit *out)
{
	struct trend_fit f;
	double r1;
	int rc = trend_fit(x, y, n, &f);

	if (rc != TREND_OK)
		return rc;
	/* Residuals of an exact line are rounding noise: their correlation means nothing. */
	r1 = f.se_slope <= 1e-12 * fabs(f.slope) ? -1.0 : residual_r1(x, y, n, &f);
	/* The estimate from residuals runs low by about (1 + 4 r1)/n; below 0 nothing is widened. */
	r1 += (1.0 + 4.0 * r1) / (double)n;
	f.ar1 = 1;
	f.r1 = r1 < 0.0 ? 0.0 : r1 > 1.0 ? 1.0 : r1;
	f.n_eff = (double)n * (1.0 - f.r1) / (1.0 + f.r1);
	if (!(f.n_eff > 4.0)) {
		memset(out, 0, sizeof *out);
		return TREND_EAUTOCORR;
	}
	f.se_slope *= sqrt((double)(n - 2) / (f.n_eff - 2.0));
	f.df = f.n_eff - 2.0;
	if ((rc = trend_t_quantile(0.975, f.df, &f.t_crit)) != TREND_OK) {
		memset(out, 0, sizeof *out);
		return rc;
	}
	f.ci_lo = f.slope - f.t_crit * f.se_slope;
	f.ci_hi = f.slope + f.t_crit * f.se_slope;
	f.zero_valid = 0;
	f.zero_x = f.zero_x_early = f.zero_x_late = 0.0;
	if (!fit_finite(&f)) {
		memset(out, 0, sizeof *out);
		return TREND_ERANGE;
	}
	project_zero(&f);
	*out = f;
	return TREND_OK;
}

double trend_per_hour(double slope_per_ms)
{
	return slope_per_ms * 3600000.0;
}

const char *trend_strerror(int err)
{
	switch (err) {
	case TREND_OK: return "ok";
	case TREND_EARG: return "invalid argument";
	case TREND_ETOOFEW: return "fewer than 3 points";
	case TREND_ENONFINITE: return "input is NaN or infinite";
	case TREND_EFLATX: return "all x values are equal";
	case TREND_ERANGE: return "numeric overflow or no convergence";
	case TREND_EAUTOCORR: return "too autocorrelated: under 4 independent points";
	}
	return "unknown error";
}
