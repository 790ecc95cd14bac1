/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gfpab: the 2014 A/B inside one run, and the atomic model's scorecard.
 *
 * With --gfp-mode alternate, capacity probes take turns: kernel, atomic,
 * kernel, atomic ...  Every probe is one value (workers held before the fill
 * stopped), so the comparison is the same two-sample one the run-vs-run
 * compare uses (stats_cmp_samples: medians, Hodges-Lehmann shift of atomic
 * minus kernel with its distribution-free 95% CI, Mann-Whitney p), e.g.
 *   kernel vs atomic: 256 vs 228 (-10.9%), HL shift -28 [-35, -21]: significant
 * and, because the point of the seed's question is "does it get worse over
 * hours", the trend of the gap: each B probe is paired with the A probe just
 * before it (the alternation makes that the previous probe), the gap is
 * b - a at the B probe's time, and an OLS line through the gaps gives its
 * slope per hour with a 95% CI (trend.h; needs 3 pairs).  Pairs are one
 * value per probe interval, far apart, so they are treated as independent.
 *
 * Model checks (v_model_check): predicted_ok x actual_ok counts, per order
 * and mode; accuracy = agreements / checks.  Checks 5-10 s apart are not
 * independent, so no interval is claimed for the accuracy.
 *
 * Pure: no I/O, no allocation beyond the caller's arrays.
 */
#ifndef FPUSOAK_GFPAB_H
#define FPUSOAK_GFPAB_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/stats.h"
#include "analysis/trend.h"

#define GFPAB_MAX_PROBES 4096
#define GFPAB_SCRATCH(n) (5 * (n))    /* doubles of scratch gfpab_compare needs for n probes */

/* One capacity probe: when it started, what it held, in which mode (enum gfp_mode numbers). */
struct gfpab_probe {
	int64_t ts_ms;
	double workers;
	int mode;
};

struct gfpab {
	int mode_a, mode_b;          /* as asked: usually kernel (1) and atomic (2) */
	size_t n_a, n_b;             /* probes of each mode */
	int have_cmp;                /* 1: cmp holds medians, shift, CI (both modes have a probe) */
	struct stats_cmp cmp;        /* B against A, label as given */
	size_t npairs;               /* (A, then B) pairs */
	double gap_mean;             /* mean of b - a over the pairs (0 without pairs) */
	int have_trend;              /* 1: gap holds a fit (>= 3 pairs spread in time) */
	struct trend_fit gap;        /* gap (workers) against ts_ms; trend_per_hour() for /h */
};

/*
 * Compare mode_b's probes with mode_a's among p[0..n) (ascending ts_ms); probes of other modes are
 * ignored.  scratch: GFPAB_SCRATCH(n) doubles.  0, or -1 for bad arguments (NULL, n over
 * GFPAB_MAX_PROBES, probes out of time order, a non-finite count).
 */
int gfpab_compare(const struct gfpab_probe *p, size_t n, int mode_a, int mode_b, const char *label,
		  double *scratch, struct gfpab *out);

/* Model checks of one order and mode: [predicted_ok][actual_ok]. */
struct gfpab_confusion {
	uint64_t n[2][2];
};

/* Checks counted in c. */
uint64_t gfpab_checks(const struct gfpab_confusion *c);

/* Fraction of checks where model and allocator agreed, in [0, 1]; -1 when there are none. */
double gfpab_accuracy(const struct gfpab_confusion *c);

#endif
