/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats_rank: Mann-Whitney U, the Hodges-Lehmann shift and how many values
 * a rank interval needs.  See stats_rank.h.
 */
#include "analysis/stats_rank.h"

#include <math.h>
#include <string.h>

#define Z_975 1.959963984540054        /* Phi^-1(0.975) */
#define MW_CMAX (STATS_MW_EXACT_MAX * STATS_MW_EXACT_MAX + 2 * STATS_MW_EXACT_MAX + 2)
#define HL_SELECT_SEED 0x48c2f1d7a5e3b609ULL  /* pivots only; any constant keeps it pure */

/* ---- shared two-sample preparation ---- */

struct pair {
	const double *a, *b;  /* sorted copies in scratch */
	size_t n1, n2;
	int ties;             /* pooled sample has a tied value */
	double rank_sum_a;    /* midranks of a in the pooled sample */
	double tie_term;      /* sum over tie groups of t^3 - t */
};

/* One merge walk over the sorted samples: midrank sum of a and tie statistics. */
static void pair_ranks(struct pair *pr)
{
	size_t i = 0, j = 0;
	double used = 0.0;

	pr->rank_sum_a = pr->tie_term = 0.0;
	pr->ties = 0;
	while (i < pr->n1 || j < pr->n2) {
		double v = (j >= pr->n2 || (i < pr->n1 && pr->a[i] <= pr->b[j])) ? pr->a[i] : pr->b[j];
		double ca = 0.0, cb = 0.0, t;

		for (; i < pr->n1 && pr->a[i] == v; i++)
			ca++;
		for (; j < pr->n2 && pr->b[j] == v; j++)
			cb++;
		t = ca + cb;
		pr->rank_sum_a += ca * (used + (t + 1.0) / 2.0);
		pr->tie_term += t * t * t - t;
		pr->ties |= t > 1.0;
		used += t;
	}
}

static int pair_prepare(const double *a, size_t n1, const double *b, size_t n2, double *scratch,
                        struct pair *pr)
{
	int rc;

	if (!a || !b || !scratch)
		return STATS_EARG;
	if (n1 == 0 || n2 == 0)
		return STATS_ETOOFEW;
	if (n1 > STATS_MAX_N || n2 > STATS_MAX_N || !stats_disjoint(scratch, n1 + n2, a, n1) ||
	    !stats_disjoint(scratch, n1 + n2, b, n2))
		return STATS_EARG;
	/* Check the inputs before stats_sorted_copy so a NaN is reported as such. */
	if (!stats_all_finite(a, n1) || !stats_all_finite(b, n2))
		return STATS_ENONFINITE;
	if ((rc = stats_sorted_copy(a, n1, scratch)) != STATS_OK ||
	    (rc = stats_sorted_copy(b, n2, scratch + n1)) != STATS_OK)
		return rc;
	pr->a = scratch;
	pr->b = scratch + n1;
	pr->n1 = n1;
	pr->n2 = n2;
	pair_ranks(pr);
	return STATS_OK;
}

static int pair_exact(const struct pair *pr)
{
	return pr->n1 <= STATS_MW_EXACT_MAX && pr->n2 <= STATS_MW_EXACT_MAX && !pr->ties;
}

/* sd of U under H0 with the tie correction. */
static double mw_sd(const struct pair *pr)
{
	double n1 = (double)pr->n1, n2 = (double)pr->n2, n = n1 + n2;
	double v = n1 * n2 / 12.0 * ((n + 1.0) - pr->tie_term / (n * (n - 1.0)));

	return v > 0.0 ? sqrt(v) : 0.0;
}

/* ---- exact U distribution ---- */

/*
 * c[u] = number of the C(m+n, m) arrangements with U = u, u = 0..m*n: the
 * coefficients of the Gaussian binomial [m+n choose m]_q, built as
 * prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).  Each partial product is again
 * a Gaussian binomial, so every division is exact in integers.
 */
static void mw_counts(int m, int n, int64_t c[MW_CMAX])
{
	int deg = 0;

	memset(c, 0, MW_CMAX * sizeof *c);
	c[0] = 1;
	for (int i = 1; i <= m; i++) {
		int s = n + i;

		for (int u = deg + s; u >= s; u--)
			c[u] -= c[u - s];
		deg += s;
		for (int u = i; u <= deg; u++)
			c[u] += c[u - i];
		deg -= i;
	}
}

static int64_t sum_counts(const int64_t *c, int from, int to)
{
	int64_t s = 0;

	for (int u = from; u <= to; u++)
		s += c[u];
	return s;
}

static void mw_exact_p(const struct pair *pr, double u, struct stats_mw *out)
{
	int64_t c[MW_CMAX], total, lower, upper;
	int m = (int)pr->n1, n = (int)pr->n2, ui = (int)u;  /* no ties: U is an integer */
	double p;

	mw_counts(m, n, c);
	total = sum_counts(c, 0, m * n);
	lower = sum_counts(c, 0, ui);
	upper = sum_counts(c, ui, m * n);
	p = 2.0 * (double)(lower < upper ? lower : upper) / (double)total;
	out->p = p > 1.0 ? 1.0 : p;
	out->exact = 1;
}

/* ---- Mann-Whitney ---- */

static void mw_normal_p(const struct pair *pr, double u, struct stats_mw *out)
{
	double mean = (double)pr->n1 * (double)pr->n2 / 2.0, sd = mw_sd(pr);
	double d = fabs(u - mean) - 0.5;

	out->exact = 0;
	if (sd == 0.0) {  /* every value the same: no evidence either way */
		out->z = 0.0;
		out->p = 1.0;
		return;
	}
	out->z = (d > 0.0 ? d : 0.0) / sd * (u < mean ? -1.0 : 1.0);
	out->p = erfc(fabs(out->z) / M_SQRT2);
	out->p = out->p > 1.0 ? 1.0 : out->p;
}

int stats_mann_whitney(const double *a, size_t n1, const double *b, size_t n2, double *scratch,
                       struct stats_mw *out)
{
	struct pair pr;
	int rc;

	if (!out)
		return STATS_EARG;
	memset(out, 0, sizeof *out);
	if ((rc = pair_prepare(a, n1, b, n2, scratch, &pr)) != STATS_OK)
		return rc;
	out->u = pr.rank_sum_a - (double)n1 * ((double)n1 + 1.0) / 2.0;
	out->ties = pr.ties;
	if (pair_exact(&pr))
		mw_exact_p(&pr, out->u, out);
	else
		mw_normal_p(&pr, out->u, out);
	return STATS_OK;
}

/* ---- Hodges-Lehmann: order statistics of b_j - a_i without materializing them ---- */

/*
 * For sorted a and b, fl(b[j] - a[i]) is non-decreasing in j and
 * non-increasing in i (rounding is monotone), so the j-range of row i that
 * lies below a value v is a prefix whose length never shrinks as i grows.
 * One pointer sweep therefore counts a threshold over all n1*n2 pairs.
 */
static size_t row_prefix(const double *b, size_t n2, size_t j, double ai, double v, int strict)
{
	while (j < n2 && (strict ? b[j] - ai < v : b[j] - ai <= v))
		j++;
	return j;
}

/* #{(i,j): b_j - a_i < v} (strict) or <= v. */
static uint64_t count_below(const struct pair *pr, double v, int strict)
{
	uint64_t c = 0;
	size_t j = 0;

	for (size_t i = 0; i < pr->n1; i++) {
		j = row_prefix(pr->b, pr->n2, j, pr->a[i], v, strict);
		c += j;
	}
	return c;
}

/* Candidates are the differences in (vlo, vhi); have_* = 0 means that side is open. */
struct window {
	int have_lo, have_hi;
	double vlo, vhi;
};

/* The r-th (0-based, row-major) candidate difference in the window. */
static double window_pick(const struct pair *pr, const struct window *w, uint64_t r)
{
	size_t jl = 0, jh = 0;

	for (size_t i = 0; i < pr->n1; i++) {
		uint64_t width;

		jl = w->have_lo ? row_prefix(pr->b, pr->n2, jl, pr->a[i], w->vlo, 0) : 0;
		jh = w->have_hi ? row_prefix(pr->b, pr->n2, jh, pr->a[i], w->vhi, 1) : pr->n2;
		width = jh > jl ? jh - jl : 0;
		if (r < width)
			return pr->b[jl + r] - pr->a[i];
		r -= width;
	}
	return 0.0;  /* unreachable while the caller's count is right */
}

/*
 * k-th smallest (1-based) of the n1*n2 differences: randomized selection
 * on values (Monahan 1984).  Each round picks a uniform candidate as pivot,
 * counts around it in O(n1 + n2) and drops the side that cannot hold rank
 * k; the pivot always leaves the window, so it terminates, and the expected
 * number of rounds is O(log(n1 n2)).
 */
static int kth_diff(const struct pair *pr, uint64_t k, double *out)
{
	struct window w = { 0, 0, 0.0, 0.0 };
	uint64_t below = 0, upto = (uint64_t)pr->n1 * pr->n2;  /* #(<= vlo), #(< vhi) */
	struct rng rng;

	rng_seed(&rng, HL_SELECT_SEED ^ k);
	while (upto > below) {
		double piv = window_pick(pr, &w, rng_below(&rng, upto - below));
		uint64_t lt = count_below(pr, piv, 1), le = count_below(pr, piv, 0);

		if (lt < k && k <= le) {
			*out = piv;
			return STATS_OK;
		}
		if (k <= lt) {
			w.have_hi = 1;
			w.vhi = piv;
			upto = lt;
		} else {
			w.have_lo = 1;
			w.vlo = piv;
			below = le;
		}
	}
	return STATS_ERANGE;  /* counts inconsistent: cannot happen with finite inputs */
}

/* Lower-end rank k of the 95% CI, 0 if no k gives >= 95% (then the CI is unbounded). */
static uint64_t hl_rank(const struct pair *pr, double *coverage)
{
	uint64_t n = (uint64_t)pr->n1 * pr->n2;

	if (pair_exact(pr)) {
		int64_t c[MW_CMAX], total, cum = 0;
		uint64_t k = 0;

		mw_counts((int)pr->n1, (int)pr->n2, c);
		total = sum_counts(c, 0, (int)n);
		/* Largest k with P(U <= k-1) <= 0.025, i.e. 40 * cum(k-1) <= total, in integers. */
		for (int u = 0; (cum += c[u]) * 40 <= total; u++)
			k = (uint64_t)u + 1;
		cum = k ? sum_counts(c, 0, (int)k - 1) : 0;
		*coverage = 1.0 - 2.0 * (double)cum / (double)total;
		return k;
	}
	double kf = floor((double)n / 2.0 - Z_975 * mw_sd(pr) + 0.5);
	*coverage = 0.95;
	return kf >= 1.0 ? (uint64_t)kf : 0;
}

/* Differences overflow only for values near DBL_MAX; check the extremes once. */
static int diffs_finite(const struct pair *pr)
{
	return isfinite(pr->b[pr->n2 - 1] - pr->a[0]) && isfinite(pr->b[0] - pr->a[pr->n1 - 1]);
}

static double midpoint(double x, double y)
{
	return stats_lerp(x, y, 0.5);
}

static int hl_median(const struct pair *pr, double *shift)
{
	uint64_t n = (uint64_t)pr->n1 * pr->n2;
	double lo, hi;
	int rc;

	if (n % 2)
		return kth_diff(pr, (n + 1) / 2, shift);
	if ((rc = kth_diff(pr, n / 2, &lo)) != STATS_OK || (rc = kth_diff(pr, n / 2 + 1, &hi)) != STATS_OK)
		return rc;
	*shift = midpoint(lo, hi);
	return STATS_OK;
}

int stats_hodges_lehmann(const double *a, size_t n1, const double *b, size_t n2, double *scratch,
                         struct stats_hl *out)
{
	struct pair pr;
	uint64_t n;
	int rc;

	if (!out)
		return STATS_EARG;
	memset(out, 0, sizeof *out);
	if ((rc = pair_prepare(a, n1, b, n2, scratch, &pr)) != STATS_OK)
		return rc;
	if (!diffs_finite(&pr))
		return STATS_ERANGE;
	if ((rc = hl_median(&pr, &out->shift)) != STATS_OK)
		return rc;
	n = (uint64_t)n1 * n2;
	out->exact = pair_exact(&pr);
	out->k = hl_rank(&pr, &out->coverage);
	/* With ties the normal approximation finds a k where no permutation distribution could. */
	if (!stats_rank_enough(n1, n2))
		out->k = 0;
	if (out->k == 0) {
		out->lo = -INFINITY;
		out->hi = INFINITY;
		return STATS_OK;
	}
	if ((rc = kth_diff(&pr, out->k, &out->lo)) != STATS_OK ||
	    (rc = kth_diff(&pr, n + 1 - out->k, &out->hi)) != STATS_OK)
		return rc;
	return STATS_OK;
}

/* ---- how much data a verdict needs ---- */

int stats_rank_enough(size_t n1, size_t n2)
{
	double c = 1.0;

	if (n1 == 0 || n2 == 0)
		return 0;
	/* C(n1 + n2, n1), built up term by term; stop as soon as it reaches 40. */
	for (size_t i = 1; i <= n1; i++) {
		c = c * (double)(n2 + i) / (double)i;
		if (c >= 40.0 - 1e-9)
			return 1;
	}
	return 0;
}

void stats_rank_needed(size_t n1, size_t n2, size_t *m1, size_t *m2)
{
	size_t best1 = n1, best2 = n2;
	int found = 0;

	if (stats_rank_enough(n1, n2)) {
		*m1 = n1;
		*m2 = n2;
		return;
	}
	/* 1 + 39 is always enough, so the total to search is bounded by n1 + n2 + 40. */
	for (size_t total = n1 + n2 + 1; !found; total++)
		for (size_t a = n1; a <= total - n2; a++) {
			size_t b = total - a;
			if (!stats_rank_enough(a, b))
				continue;
			if (!found || (a > b ? a - b : b - a) < (best1 > best2 ? best1 - best2 : best2 - best1)) {
				best1 = a;
				best2 = b;
			}
			found = 1;
		}
	*m1 = best1;
	*m2 = best2;
}
