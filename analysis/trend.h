/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trend: ordinary least-squares line through (x, y) with a 95% confidence
 * interval for the slope, and where the line says y will reach zero.
 *
 * Used for "headroom falls by 3.1 order-4 blocks per hour [2.5, 3.7];
 * at that rate it is gone in 5.2 h".  The interval is the textbook one:
 * slope +- t(0.975, n-2) * se, which assumes independent, normal residuals
 * of constant variance.  Samples a few seconds apart are autocorrelated,
 * so for raw time series the interval is too narrow; callers should fit
 * rollups (one point per several minutes), not raw samples.
 *
 * The Student t quantile and the regularized incomplete beta it rests on
 * live here (no libm has them) and are shared with stats.h.  Accuracy:
 * t quantiles within 1e-9 relative for df 1 .. 1e6 (tests/unit/test_trend.c
 * checks them against tests/reference/stats_ref.py and published tables),
 * within 1e-6 up to TREND_MAX_DF.
 *
 * Everything is pure: no I/O, no allocation, no globals, thread-safe.
 * Inputs that are NaN or +-Inf are rejected with TREND_ENONFINITE; no
 * function returns NaN in a result it reports as valid.
 */
#ifndef FPUSOAK_TREND_H
#define FPUSOAK_TREND_H

#include <stddef.h>

enum trend_err {
	TREND_OK = 0,
	TREND_EARG = -1,        /* NULL pointer, p outside (0,1), df <= 0, a or b <= 0, ... */
	TREND_ETOOFEW = -2,     /* fewer than 3 points: no residual degrees of freedom */
	TREND_ENONFINITE = -3,  /* an input was NaN or +-Inf */
	TREND_EFLATX = -4,      /* all x equal: the slope is undefined */
	TREND_ERANGE = -5,      /* overflow in the sums, or a series failed to converge */
	TREND_EAUTOCORR = -6,   /* residuals so autocorrelated that under 4 independent points remain */
};

#define TREND_MAX_N ((size_t)1 << 28)  /* more points than this is a caller bug */
/*
 * Largest df the t functions accept.  x = df/(df+t^2) is then within 1e-10
 * of 1 and 1 - x keeps only ~6 digits, so quantile error grows with df:
 * measured 2e-11 at 1e6, 6e-10 at 1e8, 3e-7 at 1e10 (6e-6 at 1e12).
 */
#define TREND_MAX_DF 1e10

struct trend_fit {
	size_t n;
	double slope, intercept;  /* y = intercept + slope * x */
	double se_slope;          /* standard error of the slope; 0 for an exact fit */
	double df;                /* residual degrees of freedom, n - 2 */
	double t_crit;            /* t(0.975, df) used for the interval */
	double ci_lo, ci_hi;      /* 95% CI of the slope, ci_lo <= slope <= ci_hi */
	double r2;                /* coefficient of determination; 0 when all y are equal */
	double x_last, y_last;    /* the point with the largest x (later index wins ties) */
	/*
	 * Zero projection, set only when the slope is negative and its CI
	 * excludes zero (ci_hi < 0): going from (x_last, y_last) at the fitted
	 * slope, y reaches 0 at zero_x.  zero_x_early/late use the CI's
	 * steepest (ci_lo) and shallowest (ci_hi) slopes.  If y_last <= 0 all
	 * three are x_last.  When zero_valid is 0 the three are 0 ("none").
	 */
	int zero_valid;
	double zero_x, zero_x_early, zero_x_late;
	/*
	 * trend_fit_ar1 only (trend_fit: ar1 = 0, r1 = 0, n_eff = n): the residuals' lag-1
	 * autocorrelation (bias-corrected, see below) and the effective number of independent points
	 * the interval was computed from; df is then n_eff - 2.
	 */
	int ar1;
	double r1, n_eff;
};

/* Fit y = a + b x over n points; TREND_OK or a negative enum trend_err (out then zeroed). */
int trend_fit(const double *x, const double *y, size_t n, struct trend_fit *out);

/*
 * The same line with an interval for autocorrelated residuals (Santer et al. 2000, J. Geophys. Res.
 * 105(D6):7337): r1 = the residuals' lag-1 autocorrelation, raised by (1 + 4 r1)/n for its
 * small-sample bias; n_eff = n (1 - r1)/(1 + r1) when r1 > 0; the slope's standard error grows by
 * sqrt((n - 2)/(n_eff - 2)) and t has n_eff - 2 degrees of freedom.  For a series sampled every
 * tick (x evenly spaced), where the plain interval is far too narrow.  Measured on simulated AR(1)
 * series with no trend (tests/unit/test_trend.c): the 95% interval holds the true slope 94-95% of
 * the time for phi 0.5-0.9 (n 200), where the plain one does 33-73%.  TREND_EAUTOCORR when
 * n_eff <= 4 (out zeroed), else as trend_fit.
 */
int trend_fit_ar1(const double *x, const double *y, size_t n, struct trend_fit *out);

/* Convert a slope per millisecond of x into a slope per hour (multiply by 3.6e6). */
double trend_per_hour(double slope_per_ms);

/* Regularized incomplete beta I_x(a, b) for a, b > 0, 0 <= x <= 1; TREND_OK or error. */
int trend_ibeta(double a, double b, double x, double *out);

/* Student t CDF P(T <= t) for real 0 < df <= TREND_MAX_DF; TREND_OK or error. */
int trend_t_cdf(double t, double df, double *out);

/* Student t quantile: *out = t with P(T <= t) = p, 0 < p < 1, real 0 < df <= TREND_MAX_DF. */
int trend_t_quantile(double p, double df, double *out);

/* Static English description of an enum trend_err value. */
const char *trend_strerror(int err);

#endif
