/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats_interval: the bootstrap of a median difference, Clopper-Pearson and
 * the Poisson rate ratio, the Welch difference of two slopes.  See
 * stats_interval.h.
 */
#include "analysis/stats_interval.h"

#include <math.h>
#include <string.h>

#define CP_TAIL 0.025

/* ---- bootstrap ---- */

/* Median of n values drawn with replacement from x, using tmp[0..n). */
static double resample_median(const double *x, size_t n, double *tmp, struct rng *rng)
{
	double m;

	for (size_t i = 0; i < n; i++)
		tmp[i] = x[rng_below(rng, n)];
	stats_sort(tmp, n);
	stats_quantile_sorted(tmp, n, 0.5, &m);
	return m;
}

static int boot_args(const double *a, size_t n1, const double *b, size_t n2, uint32_t reps,
                     const double *scratch)
{
	if (!a || !b || !scratch)
		return STATS_EARG;
	if (n1 < 2 || n2 < 2)
		return STATS_ETOOFEW;
	if (n1 > STATS_MAX_N || n2 > STATS_MAX_N || reps < STATS_BOOT_MIN_REPS || reps > STATS_BOOT_MAX_REPS)
		return STATS_EARG;
	if (!stats_disjoint(scratch, STATS_BOOT_SCRATCH(n1, n2, reps), a, n1) ||
	    !stats_disjoint(scratch, STATS_BOOT_SCRATCH(n1, n2, reps), b, n2))
		return STATS_EARG;
	if (!stats_all_finite(a, n1) || !stats_all_finite(b, n2))
		return STATS_ENONFINITE;
	return STATS_OK;
}

int stats_boot_median_diff(const double *a, size_t n1, const double *b, size_t n2, uint32_t reps,
                           uint64_t seed, double *scratch, struct stats_boot *out)
{
	double *boot = scratch, *tmp = scratch + reps, ma, mb;
	struct rng rng;
	int rc;

	if (!out)
		return STATS_EARG;
	memset(out, 0, sizeof *out);
	if ((rc = boot_args(a, n1, b, n2, reps, scratch)) != STATS_OK)
		return rc;
	if ((rc = stats_median(a, n1, tmp, &ma)) != STATS_OK || (rc = stats_median(b, n2, tmp, &mb)) != STATS_OK)
		return rc;
	rng_seed(&rng, seed);
	/* Per replicate: n1 draws for a, then n2 for b (tests/reference/stats_ref.py replays this). */
	for (uint32_t r = 0; r < reps; r++) {
		double ra = resample_median(a, n1, tmp, &rng);
		boot[r] = resample_median(b, n2, tmp, &rng) - ra;
	}
	stats_sort(boot, reps);
	out->diff = mb - ma;
	stats_quantile_sorted(boot, reps, 0.025, &out->lo);
	stats_quantile_sorted(boot, reps, 0.975, &out->hi);
	out->reps = reps;
	out->seed = seed;
	if (!isfinite(out->diff) || !isfinite(out->lo) || !isfinite(out->hi))
		return STATS_ERANGE;
	return STATS_OK;
}

/* ---- Clopper-Pearson and rate ratio ---- */

/*
 * The p in (0,1) with I_p(alpha, beta) = target.  I_p is increasing in p;
 * bisect until the bracket is relatively tight, so that a tiny root (one
 * event in a billion) keeps its significant digits.
 */
static int beta_root(double alpha, double beta, double target, double *out)
{
	double lo = 0.0, hi = 1.0, v;

	for (int i = 0; i < 2200 && hi - lo > 4e-16 * hi; i++) {
		double mid = lo + (hi - lo) / 2.0;
		if (mid <= lo || mid >= hi)
			break;
		if (trend_ibeta(alpha, beta, mid, &v) != TREND_OK)
			return STATS_ERANGE;
		if (v < target)
			lo = mid;
		else
			hi = mid;
	}
	*out = lo + (hi - lo) / 2.0;
	return STATS_OK;
}

int stats_clopper_pearson(uint64_t x, uint64_t n, double *lo, double *hi)
{
	double dx = (double)x, dn = (double)n;
	int rc;

	if (!lo || !hi || n == 0 || x > n || n > 2 * STATS_MAX_COUNT)
		return STATS_EARG;
	*lo = 0.0;
	*hi = 1.0;
	if (x > 0 && (rc = beta_root(dx, dn - dx + 1.0, CP_TAIL, lo)) != STATS_OK)
		return rc;
	if (x < n && (rc = beta_root(dx + 1.0, dn - dx, 1.0 - CP_TAIL, hi)) != STATS_OK)
		return rc;
	return STATS_OK;
}

/*
 * Odds bounds p/(1-p) for b of a+b, each side's p and 1-p solved directly
 * (1 - p_lo is the upper bound for a: I_q(a+1, b) = 0.975), so odds near 0
 * and near infinity both keep their digits.
 */
static int odds_bounds(double a, double b, double *olo, double *ohi)
{
	double p, q;
	int rc;

	*olo = 0.0;
	*ohi = INFINITY;
	if (b > 0.0) {
		if ((rc = beta_root(b, a + 1.0, CP_TAIL, &p)) != STATS_OK ||
		    (rc = beta_root(a + 1.0, b, 1.0 - CP_TAIL, &q)) != STATS_OK)
			return rc;
		*olo = p / q;
	}
	if (a > 0.0) {
		if ((rc = beta_root(b + 1.0, a, 1.0 - CP_TAIL, &p)) != STATS_OK ||
		    (rc = beta_root(a, b + 1.0, CP_TAIL, &q)) != STATS_OK)
			return rc;
		*ohi = p / q;
	}
	return STATS_OK;
}

int stats_rate_ratio(uint64_t a, double ta, uint64_t b, double tb, struct stats_rate_ratio *out)
{
	double olo, ohi, scale;
	int rc;

	if (!out)
		return STATS_EARG;
	memset(out, 0, sizeof *out);
	if (!isfinite(ta) || !isfinite(tb))
		return STATS_ENONFINITE;
	if (!(ta > 0.0) || !(tb > 0.0) || a > STATS_MAX_COUNT || b > STATS_MAX_COUNT)
		return STATS_EARG;
	if (a + b == 0)
		return STATS_ETOOFEW;
	scale = ta / tb;
	if (!isfinite(scale) || scale == 0.0)
		return STATS_ERANGE;
	if ((rc = odds_bounds((double)a, (double)b, &olo, &ohi)) != STATS_OK)
		return rc;
	out->lo = olo * scale;
	out->ratio = INFINITY;
	out->hi = INFINITY;
	if (a > 0) {  /* finite ratio and upper bound; both must stay so after scaling */
		out->ratio = (double)b / (double)a * scale;
		out->hi = ohi * scale;
		if (!isfinite(out->ratio) || !isfinite(out->hi))
			return STATS_ERANGE;
	}
	return isfinite(out->lo) ? STATS_OK : STATS_ERANGE;
}


/* ---- how many events a rate verdict needs ---- */

uint64_t stats_rate_needed(double ta, double tb)
{
	double share;

	if (!(ta > 0.0) || !(tb > 0.0) || !isfinite(ta) || !isfinite(tb))
		return 0;
	share = (ta < tb ? ta : tb) / (ta + tb);
	/* Smallest n with 0.025^(1/n) > share: n > ln(0.025) / ln(share). */
	for (uint64_t n = 1; n < STATS_MAX_COUNT; n++)
		if (pow(0.025, 1.0 / (double)n) > share)
			return n;
	return STATS_MAX_COUNT;
}

/* ---- slope difference ---- */

static int fit_usable(const struct trend_fit *f)
{
	return f && f->df >= 1.0 && isfinite(f->df) && isfinite(f->slope) && isfinite(f->se_slope) &&
	       f->se_slope >= 0.0;
}

int stats_slope_diff(const struct trend_fit *fa, const struct trend_fit *fb, struct stats_slope_diff *out)
{
	double s, ra, rb, wa, wb;

	if (!out)
		return STATS_EARG;
	memset(out, 0, sizeof *out);
	if (!fit_usable(fa) || !fit_usable(fb))
		return STATS_EARG;
	out->diff = fb->slope - fa->slope;
	s = fa->se_slope > fb->se_slope ? fa->se_slope : fb->se_slope;
	if (s == 0.0) {
		out->df = fa->df + fb->df;
	} else {  /* scaled by the larger se so squares and fourth powers cannot overflow */
		ra = fa->se_slope / s;
		rb = fb->se_slope / s;
		wa = ra * ra;
		wb = rb * rb;
		out->se = s * sqrt(wa + wb);
		out->df = (wa + wb) * (wa + wb) / (wa * wa / fa->df + wb * wb / fb->df);
	}
	if (trend_t_quantile(0.975, out->df, &out->t_crit) != TREND_OK)
		return STATS_ERANGE;
	out->lo = out->diff - out->t_crit * out->se;
	out->hi = out->diff + out->t_crit * out->se;
	if (!isfinite(out->diff) || !isfinite(out->se) || !isfinite(out->lo) || !isfinite(out->hi))
		return STATS_ERANGE;
	return STATS_OK;
}
