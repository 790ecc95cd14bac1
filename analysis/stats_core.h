/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats_core: what every stats_ module builds on: the error codes and size
 * caps, a sort on caller scratch, type-7 quantiles and a reproducible
 * random stream.  The stats_ modules share the prefix stats_:
 *   stats_core      (this) errors, sorting, quantiles, xoshiro256**
 *   stats_rank      Mann-Whitney U, Hodges-Lehmann shift, rank sample sizes
 *   stats_interval  bootstrap, Clopper-Pearson / rate ratio, slope difference
 *   stats           the comparison of two runs as one verdict line (stats.h)
 *
 * Quantiles are type 7 (R's default, numpy's "linear").  Nothing here
 * allocates: functions that must sort take a caller scratch array whose
 * length the prototype states; it must not overlap the inputs (STATS_EARG).
 * No I/O, no globals, thread-safe.  NaN and +-Inf inputs are rejected
 * (STATS_ENONFINITE).
 */
#ifndef FPUSOAK_STATS_CORE_H
#define FPUSOAK_STATS_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/rng.h"

enum stats_err {
	STATS_OK = 0,
	STATS_EARG = -1,        /* NULL pointer, p outside [0,1], size over a cap, bad label */
	STATS_ETOOFEW = -2,     /* empty sample, or no events at all in a rate ratio */
	STATS_ENONFINITE = -3,  /* an input was NaN or +-Inf */
	STATS_ERANGE = -4,      /* overflow (values near DBL_MAX) or no convergence */
	STATS_ENOSPACE = -5,    /* verdict does not fit 72 columns or the caller's buffer */
};

#define STATS_MAX_N ((size_t)1 << 24)   /* per sample; keeps n1*n2 exact in a double */

/* Static English description of an enum stats_err value. */
const char *stats_strerror(int err);

/* ---- building blocks of the other stats_ modules ---- */

/* 1 if every v[0..n) is finite, else 0. */
int stats_all_finite(const double *v, size_t n);

/* Sort v[0..n) ascending in place (heapsort: no allocation, no recursion, O(n log n)). */
void stats_sort(double *v, size_t n);

/* x0 + t (x1 - x0), falling back to the weighted form when the span overflows. */
double stats_lerp(double x0, double x1, double t);

/* 1 if [p, p+n) and [q, q+m) share no element, else 0 (inputs are const, scratch is written). */
int stats_disjoint(const double *p, size_t n, const double *q, size_t m);

/* Copy x[0..n) into scratch[0..n) and sort it, after checking size, overlap and finiteness; STATS_OK or error. */
int stats_sorted_copy(const double *x, size_t n, double *scratch);

/* ---- quantiles ---- */

/* Type-7 quantile of already ascending sorted[0..n), n >= 1, 0 <= p <= 1; STATS_OK or error. */
int stats_quantile_sorted(const double *sorted, size_t n, double p, double *out);

/* Type-7 quantiles out[k] at p[k], k < np, of x[0..n); scratch: n doubles (may not alias x). */
int stats_quantiles(const double *x, size_t n, const double *p, size_t np, double *scratch, double *out);

/* Median (type 7 at 0.5) of x[0..n); scratch: n doubles. */
int stats_median(const double *x, size_t n, double *scratch, double *out);

/* Random numbers: common/rng.h (struct rng, rng_seed, rng_below, rng_unit). */

#endif
