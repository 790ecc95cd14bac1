/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats_core: what the stats_ modules build on: a heapsort, type-7
 * quantiles, xoshiro256** and the error words.  See stats_core.h.
 *
 * Sorting is a heapsort on caller scratch: glibc's qsort may malloc, and
 * heapsort needs no recursion and is O(n log n) on any input.
 */
#include "analysis/stats_core.h"

#include <math.h>
#include <string.h>

/* ---- helpers ---- */

int stats_all_finite(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

static void sift_down(double *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		double t;

		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (!(v[child] > v[root]))
			return;
		t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

void stats_sort(double *v, size_t n)
{
	if (n < 2)
		return;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n - 1; end > 0; end--) {
		double t = v[0];
		v[0] = v[end];
		v[end] = t;
		sift_down(v, 0, end);
	}
}

double stats_lerp(double x0, double x1, double t)
{
	double d = x1 - x0;

	return isfinite(d) ? x0 + t * d : (1.0 - t) * x0 + t * x1;
}

/* ---- quantiles ---- */

int stats_quantile_sorted(const double *sorted, size_t n, double p, double *out)
{
	double h, frac;
	size_t lo;

	if (!sorted || !out || n == 0)
		return STATS_EARG;
	if (!isfinite(p))
		return STATS_ENONFINITE;
	if (p < 0.0 || p > 1.0)
		return STATS_EARG;
	h = (double)(n - 1) * p;
	lo = (size_t)h;
	if (lo >= n - 1) {
		lo = n - 1;
		frac = 0.0;
	} else {
		frac = h - (double)lo;
	}
	if (!isfinite(sorted[lo]) || (frac > 0.0 && !isfinite(sorted[lo + 1])))
		return STATS_ENONFINITE;
	*out = frac > 0.0 ? stats_lerp(sorted[lo], sorted[lo + 1], frac) : sorted[lo];
	return STATS_OK;
}

int stats_disjoint(const double *p, size_t n, const double *q, size_t m)
{
	return (uintptr_t)(p + n) <= (uintptr_t)q || (uintptr_t)(q + m) <= (uintptr_t)p;
}

int stats_sorted_copy(const double *x, size_t n, double *scratch)
{
	if (!x || !scratch || n == 0 || n > STATS_MAX_N)
		return n == 0 ? STATS_ETOOFEW : STATS_EARG;
	if (!stats_disjoint(x, n, scratch, n))
		return STATS_EARG;
	if (!stats_all_finite(x, n))
		return STATS_ENONFINITE;
	memcpy(scratch, x, n * sizeof *x);
	stats_sort(scratch, n);
	return STATS_OK;
}

int stats_quantiles(const double *x, size_t n, const double *p, size_t np, double *scratch, double *out)
{
	int rc;

	if (!p || !out)
		return STATS_EARG;
	for (size_t k = 0; k < np; k++) {
		if (!isfinite(p[k]))
			return STATS_ENONFINITE;
		if (p[k] < 0.0 || p[k] > 1.0)
			return STATS_EARG;
	}
	if ((rc = stats_sorted_copy(x, n, scratch)) != STATS_OK)
		return rc;
	for (size_t k = 0; k < np; k++)
		if ((rc = stats_quantile_sorted(scratch, n, p[k], &out[k])) != STATS_OK)
			return rc;
	return STATS_OK;
}

int stats_median(const double *x, size_t n, double *scratch, double *out)
{
	static const double half = 0.5;

	return stats_quantiles(x, n, &half, 1, scratch, out);
}

/* ---- errors ---- */

const char *stats_strerror(int err)
{
	switch (err) {
	case STATS_OK: return "ok";
	case STATS_EARG: return "invalid argument";
	case STATS_ETOOFEW: return "not enough data";
	case STATS_ENONFINITE: return "input is NaN or infinite";
	case STATS_ERANGE: return "numeric overflow or no convergence";
	case STATS_ENOSPACE: return "verdict does not fit";
	}
	return "unknown error";
}
