/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * poisson: exact inference on counts of rare events over an exposure time
 * (allocation failures, OOM kills, spawn failures per hour of a run).
 *
 * A count k over exposure t is taken as Poisson with rate r:
 *  - one rate: the exact (Garwood) central 95% interval, r in
 *    [G(0.025; k) / t, G(0.975; k+1) / t] with G the gamma quantile (shape
 *    k, scale 1); at k = 0 the lower end is 0 and the upper -ln(0.025) / t
 *    (3.689 events over the exposure), so "0 in 4 minutes" still says how
 *    high the rate could have been;
 *  - two rates: given n = a + b events, b is binomial(n, tb / (ta + tb))
 *    under equal rates.  The test is that conditional binomial one, two-
 *    sided by doubling the smaller tail (the central method, so that p <
 *    0.05 exactly when the Clopper-Pearson interval of the rate ratio
 *    (stats_rate_ratio) excludes 1; R's poisson.test reports the same
 *    interval with a "minlike" p that can disagree with it);
 *  - too few: when even n events all on one side could not give p < 0.05
 *    (stats_rate_needed), no test is made: the counts, exposures and each
 *    rate's interval are the answer.
 *
 * Direction: the ratio is B over A.  Exposures are in any one unit (the
 * caller's: hours for a rate per hour).  Pure: no I/O, no allocation, no
 * globals.  Results are never NaN; +INFINITY only where documented.
 */
#ifndef FPUSOAK_POISSON_H
#define FPUSOAK_POISSON_H

#include <stdint.h>

#include "analysis/stats_interval.h"

#define POISSON_MAX_COUNT STATS_MAX_COUNT   /* events per side */

/* P(X <= k) for X ~ Poisson(mu), mu >= 0; STATS_OK or error (mu not finite, k over the cap). */
int poisson_cdf(uint64_t k, double mu, double *out);

/* Exact central 95% interval of the rate of k events over exposure t > 0 (per unit of t). */
int poisson_rate_ci(uint64_t k, double t, double *lo, double *hi);

/* Two-sided conditional binomial p for b of a + b >= 1 events with exposures ta, tb > 0 (doubled tail). */
int poisson_test_p(uint64_t a, double ta, uint64_t b, double tb, double *p);

/* Two rates compared: everything a verdict line on rare events says. */
struct poisson_cmp {
	uint64_t a, b;            /* events */
	double ta, tb;            /* exposures */
	double ra, rb;            /* rates a/ta, b/tb */
	double ra_lo, ra_hi, rb_lo, rb_hi;   /* each rate's exact 95% interval */
	int too_few;              /* a + b < need: no test; ratio, lo, hi, p are 0 */
	uint64_t need;            /* the fewest events in total that could give a verdict (stats_rate_needed) */
	struct stats_rate_ratio ratio;       /* B over A with its exact conditional 95% interval */
	double p;                 /* poisson_test_p */
	int significant;          /* !too_few and the ratio's interval excludes 1 */
};

/* Compare b events over tb with a over ta (ta, tb > 0); STATS_OK (too_few set or not) or error. */
int poisson_compare(uint64_t a, double ta, uint64_t b, double tb, struct poisson_cmp *out);

#endif
