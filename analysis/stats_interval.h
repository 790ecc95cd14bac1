/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats_interval: 95% intervals that are not rank-based.
 *
 *  - stats_boot_median_diff: percentile bootstrap of median(B) - median(A),
 *    xoshiro256** seeded through splitmix64, reproducible from the seed.
 *    Too narrow for small samples (n < ~10): prefer the HL interval there
 *    (stats_rank.h).
 *  - stats_rate_ratio: exact conditional interval for (b/tb)/(a/ta): given
 *    a+b events, b is binomial; Clopper-Pearson on b/(a+b), mapped through
 *    p/(1-p) * ta/tb, as R's poisson.test.  Assumes Poisson counts.
 *  - stats_slope_diff: difference of two independent OLS slopes, Welch:
 *    se = sqrt(se1^2 + se2^2), df by Welch-Satterthwaite.
 *
 * A rate comparison whose n = a + b events could not exclude 1 even if all
 * fell on one side (stats_rate_needed) is "too few data", not an interval.
 *
 * Direction: differences are B minus A, ratios B over A.  Results are never
 * NaN, and are +-INFINITY only where a bound is documented as unbounded.
 */
#ifndef FPUSOAK_STATS_INTERVAL_H
#define FPUSOAK_STATS_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/stats_core.h"
#include "analysis/trend.h"

#define STATS_BOOT_MIN_REPS 100
#define STATS_BOOT_MAX_REPS 1000000
#define STATS_MAX_COUNT 1000000000ULL   /* events per arm in a rate ratio */

/* Scratch length of stats_boot_median_diff, in doubles. */
#define STATS_BOOT_SCRATCH(n1, n2, reps) ((reps) + ((n1) > (n2) ? (n1) : (n2)))

/* ---- bootstrap ---- */

struct stats_boot {
	double diff;      /* median(b) - median(a) of the data */
	double lo, hi;    /* type-7 2.5% and 97.5% quantiles of the bootstrap differences */
	uint32_t reps;
	uint64_t seed;
};

/* Percentile-bootstrap 95% CI of median(b) - median(a), n1, n2 >= 2; scratch: STATS_BOOT_SCRATCH. */
int stats_boot_median_diff(const double *a, size_t n1, const double *b, size_t n2, uint32_t reps,
                           uint64_t seed, double *scratch, struct stats_boot *out);

/* ---- Poisson rate ratio ---- */

/* The fewest events in total (a + b) that could give a rate-ratio interval excluding 1 for exposures ta, tb
 * (all on the side with the shorter exposure: 0.025^(1/n) > min(ta, tb) / (ta + tb)); 0 on bad exposures. */
uint64_t stats_rate_needed(double ta, double tb);

/* Clopper-Pearson 95% interval for x successes in n trials, x <= n, n >= 1; lo = 0 at x = 0, hi = 1 at x = n. */
int stats_clopper_pearson(uint64_t x, uint64_t n, double *lo, double *hi);

struct stats_rate_ratio {
	double ratio;     /* (b/tb) / (a/ta): 0 when b == 0, +INFINITY when a == 0 */
	double lo, hi;    /* exact conditional 95% CI; lo = 0 when b == 0, hi = +INFINITY when a == 0 */
};

/* Rate ratio of B (b events over exposure tb) to A (a over ta), ta, tb > 0, a + b >= 1. */
int stats_rate_ratio(uint64_t a, double ta, uint64_t b, double tb, struct stats_rate_ratio *out);

/* ---- difference of slopes ---- */

struct stats_slope_diff {
	double diff;      /* B's slope - A's slope */
	double se;        /* sqrt(se_a^2 + se_b^2) */
	double df;        /* Welch-Satterthwaite; df_a + df_b when both se are 0 */
	double t_crit;    /* t(0.975, df) */
	double lo, hi;    /* 95% CI of diff */
};

/* Welch CI for fb->slope - fa->slope from two successful trend_fit results. */
int stats_slope_diff(const struct trend_fit *fa, const struct trend_fit *fb, struct stats_slope_diff *out);

#endif
