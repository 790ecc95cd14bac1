/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats_rank: two-sample rank statistics, distribution-free.
 *
 *  - stats_mann_whitney: Mann-Whitney U (Wilcoxon rank sum), two-sided.
 *    Assumes independent observations within and between samples (raw
 *    time-series samples are not; use one value per probe or per rollup).
 *    Exact null distribution when n1, n2 <= STATS_MW_EXACT_MAX and there
 *    are no ties; otherwise the normal approximation with tie correction
 *    and continuity correction, as scipy.stats.mannwhitneyu(method=
 *    "asymptotic").  p = min(1, 2 * smaller tail).
 *  - stats_hodges_lehmann: shift = median of the n1*n2 differences
 *    b_j - a_i; 95% CI [D(k), D(N+1-k)] from the same U distribution
 *    (Moses; Hollander & Wolfe 4.3).  Exact k is the largest with
 *    P(U <= k-1) <= 0.025, so coverage >= 95%; approximate k is the
 *    nearest integer to N/2 - 1.96 * sd(U) (tie-corrected).  Assumes the
 *    two distributions differ only by a shift.  The n1*n2 differences are
 *    never materialized: each order statistic is a randomized selection
 *    costing O((n1+n2) log(n1 n2)) expected time (Monahan 1984).
 *
 * Too little data is an answer, not an interval: a rank comparison whose
 * smallest attainable two-sided p, 2 / C(n1 + n2, n1), is above 0.05
 * (stats_rank_enough: fewer than 4 a side when the sides are equal) can
 * never exclude 0, whatever the values, and the normal approximation with
 * ties pretends otherwise (3 identical probes a side gave "significant").
 *
 * Direction: the shift is B minus A.  Scratch as in stats_core.h.
 */
#ifndef FPUSOAK_STATS_RANK_H
#define FPUSOAK_STATS_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/stats_core.h"

#define STATS_MW_EXACT_MAX 20           /* exact U distribution up to 20 x 20 */

/* Scratch length of a two-sample rank function, in doubles. */
#define STATS_PAIR_SCRATCH(n1, n2) ((n1) + (n2))

/* ---- Mann-Whitney U ---- */

struct stats_mw {
	double u;      /* U of sample a: #(a_i > b_j) + #(a_i == b_j)/2 (R's W for wilcox.test(a, b)) */
	double z;      /* continuity-corrected normal score; 0 when exact or when all values tie */
	double p;      /* two-sided p-value in [0, 1]; 1 when all values tie */
	int exact;     /* 1: exact null distribution; 0: normal approximation */
	int ties;      /* 1 if the pooled sample had tied values */
};

/* Two-sided Mann-Whitney test of a[0..n1) vs b[0..n2), n1, n2 >= 1; scratch: n1+n2 doubles. */
int stats_mann_whitney(const double *a, size_t n1, const double *b, size_t n2, double *scratch,
                       struct stats_mw *out);

/* ---- Hodges-Lehmann shift ---- */

struct stats_hl {
	double shift;     /* median of the n1*n2 differences b_j - a_i */
	double lo, hi;    /* 95% CI; -INFINITY, +INFINITY when the samples are too small to bound it */
	uint64_t k;       /* CI = [D(k), D(n1*n2 + 1 - k)], 1-based; 0 when unbounded */
	double coverage;  /* exact: 1 - 2 P(U <= k-1) >= 0.95; approximate: 0.95 (nominal) */
	int exact;        /* 1: k from the exact U distribution (same rule as stats_mw) */
};

/* HL estimate of the shift B - A with its distribution-free 95% CI; scratch: n1+n2 doubles. */
int stats_hodges_lehmann(const double *a, size_t n1, const double *b, size_t n2, double *scratch,
                         struct stats_hl *out);

/* ---- how many values a rank verdict needs ---- */

/* 1 if samples of n1 and n2 values can give a 95% rank interval excluding 0 (C(n1 + n2, n1) >= 40), else 0. */
int stats_rank_enough(size_t n1, size_t n2);

/* The smallest sizes m1 >= n1, m2 >= n2 that are enough: the smallest total, then the most balanced. */
void stats_rank_needed(size_t n1, size_t n2, size_t *m1, size_t *m2);

#endif
