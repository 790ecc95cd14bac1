/*
 * stats: rank tests, shift and ratio intervals, verdict lines.  See
 * stats.h for the contract and the assumptions of each test.
 *
 * Sorting is a heapsort on caller scratch: glibc's qsort may malloc, and
 * heapsort needs no recursion and is O(n log n) on any input.
 */
#include "analysis/stats.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define Z_975 1.959963984540054        /* Phi^-1(0.975) */
#define MW_CMAX (STATS_MW_EXACT_MAX * STATS_MW_EXACT_MAX + 2 * STATS_MW_EXACT_MAX + 2)
#define HL_SELECT_SEED 0x48c2f1d7a5e3b609ULL  /* pivots only; any constant keeps it pure */
#define CP_TAIL 0.025

/* ---- helpers ---- */

static int all_finite(const double *v, size_t n)
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

static void sort_doubles(double *v, size_t n)
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

/* x0 + t (x1 - x0), falling back to the weighted form when the span overflows. */
static double lerp(double x0, double x1, double t)
{
	double d = x1 - x0;

	return isfinite(d) ? x0 + t * d : (1.0 - t) * x0 + t * x1;
}

static double midpoint(double x, double y)
{
	return lerp(x, y, 0.5);
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
	*out = frac > 0.0 ? lerp(sorted[lo], sorted[lo + 1], frac) : sorted[lo];
	return STATS_OK;
}

/* 1 if [p, p+n) and [q, q+m) share no element; inputs are const, scratch is written. */
static int disjoint(const double *p, size_t n, const double *q, size_t m)
{
	return (uintptr_t)(p + n) <= (uintptr_t)q || (uintptr_t)(q + m) <= (uintptr_t)p;
}

/* Copy x into scratch and sort it, after checking sizes and finiteness. */
static int sorted_copy(const double *x, size_t n, double *scratch)
{
	if (!x || !scratch || n == 0 || n > STATS_MAX_N)
		return n == 0 ? STATS_ETOOFEW : STATS_EARG;
	if (!disjoint(x, n, scratch, n))
		return STATS_EARG;
	if (!all_finite(x, n))
		return STATS_ENONFINITE;
	memcpy(scratch, x, n * sizeof *x);
	sort_doubles(scratch, n);
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
	if ((rc = sorted_copy(x, n, scratch)) != STATS_OK)
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

/* ---- random numbers ---- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void stats_rng_seed(struct stats_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t stats_rng_next(struct stats_rng *r)
{
	uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t stats_rng_below(struct stats_rng *r, uint64_t n)
{
	uint64_t x, lim;

	if (n == 0)
		return 0;
	lim = (0 - n) % n;  /* 2^64 mod n: reject the short last stripe */
	do
		x = stats_rng_next(r);
	while (x < lim);
	return x % n;
}

double stats_rng_unit(struct stats_rng *r)
{
	return (double)(stats_rng_next(r) >> 11) * 0x1.0p-53;
}

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
	if (n1 > STATS_MAX_N || n2 > STATS_MAX_N || !disjoint(scratch, n1 + n2, a, n1) ||
	    !disjoint(scratch, n1 + n2, b, n2))
		return STATS_EARG;
	/* Check the inputs before sorted_copy so a NaN is reported as such. */
	if (!all_finite(a, n1) || !all_finite(b, n2))
		return STATS_ENONFINITE;
	if ((rc = sorted_copy(a, n1, scratch)) != STATS_OK ||
	    (rc = sorted_copy(b, n2, scratch + n1)) != STATS_OK)
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
	struct stats_rng rng;

	stats_rng_seed(&rng, HL_SELECT_SEED ^ k);
	while (upto > below) {
		double piv = window_pick(pr, &w, stats_rng_below(&rng, upto - below));
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

/* ---- bootstrap ---- */

/* Median of n values drawn with replacement from x, using tmp[0..n). */
static double resample_median(const double *x, size_t n, double *tmp, struct stats_rng *rng)
{
	double m;

	for (size_t i = 0; i < n; i++)
		tmp[i] = x[stats_rng_below(rng, n)];
	sort_doubles(tmp, n);
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
	if (!disjoint(scratch, STATS_BOOT_SCRATCH(n1, n2, reps), a, n1) ||
	    !disjoint(scratch, STATS_BOOT_SCRATCH(n1, n2, reps), b, n2))
		return STATS_EARG;
	if (!all_finite(a, n1) || !all_finite(b, n2))
		return STATS_ENONFINITE;
	return STATS_OK;
}

int stats_boot_median_diff(const double *a, size_t n1, const double *b, size_t n2, uint32_t reps,
                           uint64_t seed, double *scratch, struct stats_boot *out)
{
	double *boot = scratch, *tmp = scratch + reps, ma, mb;
	struct stats_rng rng;
	int rc;

	if (!out)
		return STATS_EARG;
	memset(out, 0, sizeof *out);
	if ((rc = boot_args(a, n1, b, n2, reps, scratch)) != STATS_OK)
		return rc;
	if ((rc = stats_median(a, n1, tmp, &ma)) != STATS_OK || (rc = stats_median(b, n2, tmp, &mb)) != STATS_OK)
		return rc;
	stats_rng_seed(&rng, seed);
	/* Per replicate: n1 draws for a, then n2 for b (tests/reference/stats_ref.py replays this). */
	for (uint32_t r = 0; r < reps; r++) {
		double ra = resample_median(a, n1, tmp, &rng);
		boot[r] = resample_median(b, n2, tmp, &rng) - ra;
	}
	sort_doubles(boot, reps);
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

/* ---- verdict ---- */

int stats_significant(const struct stats_cmp *c)
{
	double null = c && c->is_ratio ? 1.0 : 0.0;

	if (!c || c->too_few || isnan(c->lo) || isnan(c->hi))
		return 0;
	return c->lo > null || c->hi < null;
}

/* Parts dropped, in order, until the line fits. */
enum {
	DROP_P_NAME = 1, DROP_CI_SPACE = 2, DROP_P = 4, DROP_EST_NAME = 8, DROP_PCT = 16,
	DROP_DIGIT = 32, DROP_AB = 64,
};

/* Each level drops one more part; see stats.h for why this order. */
static const int drop_levels[] = {
	0, 1, 1 | 2, 1 | 2 | 4, 1 | 2 | 4 | 8, 1 | 2 | 4 | 8 | 16, 1 | 2 | 4 | 8 | 16 | 32,
	1 | 2 | 4 | 8 | 16 | 32 | 64,
};

struct line {
	char buf[256];
	size_t len;
	int overflow;
};

static void line_add(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line_add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof l->buf - l->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof l->buf - l->len)
		l->overflow = 1;
	else
		l->len += (size_t)n;
}

/* %.<digits>g, with -0 printed as 0 and infinities as inf / -inf. */
static void fmt_num(char out[32], double v, int digits)
{
	if (v == 0.0)
		v = 0.0;
	if (isinf(v))
		snprintf(out, 32, "%s", v > 0 ? "inf" : "-inf");
	else
		snprintf(out, 32, "%.*g", digits, v);
}

static void verdict_line(const struct stats_cmp *c, int drop, struct line *l)
{
	char a[32], b[32], e[32], lo[32], hi[32];
	double pct = (c->b - c->a) / fabs(c->a) * 100.0;
	int digits = drop & DROP_DIGIT ? 3 : 4;

	fmt_num(a, c->a, digits);
	fmt_num(b, c->b, digits);
	fmt_num(e, c->est, digits);
	fmt_num(lo, c->lo, digits);
	fmt_num(hi, c->hi, digits);
	memset(l, 0, sizeof *l);
	line_add(l, "%s: ", c->label);
	if (!(drop & DROP_AB) && !c->no_ab) {
		line_add(l, "%s vs %s", a, b);
		if (!(drop & DROP_PCT) && c->a != 0.0 && isfinite(pct))
			line_add(l, " (%+.1f%%)", pct);
		line_add(l, ", ");
	}
	if (c->too_few) {
		if (c->is_ratio)
			line_add(l, "too few data (n=%llu+%llu events; needs %llu)", (unsigned long long)c->n_a,
				 (unsigned long long)c->n_b, (unsigned long long)c->need_a);
		else
			line_add(l, "too few data (n=%llu+%llu%s%s; needs %llu+%llu)", (unsigned long long)c->n_a,
				 (unsigned long long)c->n_b, c->n_unit ? " " : "", c->n_unit ? c->n_unit : "",
				 (unsigned long long)c->need_a, (unsigned long long)c->need_b);
		return;
	}
	if (!(drop & DROP_EST_NAME) && c->est_name)
		line_add(l, "%s ", c->est_name);
	if (c->est_unbounded)
		line_add(l, ">%s", lo);   /* no events in A: the ratio has only a lower bound */
	else
		line_add(l, "%s [%s,%s%s]", e, lo, drop & DROP_CI_SPACE ? "" : " ", hi);
	if (!(drop & DROP_P) && c->p >= 0.0) {
		line_add(l, ", ");
		if (!(drop & DROP_P_NAME) && c->p_name)
			line_add(l, "%s ", c->p_name);
		if (c->p < 0.001)
			line_add(l, "p<0.001");
		else
			line_add(l, "p=%.2g", c->p);
	}
	line_add(l, ": %s", stats_significant(c) ? "significant" : "no significant difference");
}

static int printable(const char *s, size_t max)
{
	size_t i;

	if (!s)
		return 1;
	for (i = 0; s[i] && i <= max; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return 0;
	return i <= max;
}

static int cmp_valid(const struct stats_cmp *c)
{
	if (!c->label || !printable(c->label, STATS_VERDICT_COLS) || !printable(c->est_name, 32) ||
	    !printable(c->p_name, 32) || (!c->no_ab && (!isfinite(c->a) || !isfinite(c->b))))
		return 0;
	if (c->too_few)
		return 1;
	if (c->est_unbounded)
		return c->est == INFINITY && isfinite(c->lo) && c->hi == INFINITY && !isnan(c->p) && c->p <= 1.0;
	return isfinite(c->est) && !isnan(c->lo) && !isnan(c->hi) && !isnan(c->p) && c->p <= 1.0 && c->lo <= c->hi;
}

int stats_verdict(const struct stats_cmp *c, char *buf, size_t cap)
{
	struct line l;

	if (!c || !buf || cap == 0)
		return STATS_EARG;
	buf[0] = '\0';
	if (!cmp_valid(c))
		return STATS_EARG;
	for (size_t i = 0; i < sizeof drop_levels / sizeof drop_levels[0]; i++) {
		verdict_line(c, drop_levels[i], &l);
		if (!l.overflow && l.len <= STATS_VERDICT_COLS) {
			if (l.len >= cap)
				return STATS_ENOSPACE;
			memcpy(buf, l.buf, l.len + 1);
			return (int)l.len;
		}
	}
	return STATS_ENOSPACE;
}

int stats_verdict_full(const struct stats_cmp *c, char *buf, size_t cap)
{
	struct line l;

	if (!c || !buf || cap == 0)
		return STATS_EARG;
	buf[0] = '\0';
	if (!cmp_valid(c))
		return STATS_EARG;
	verdict_line(c, 0, &l);
	if (l.overflow || l.len >= cap)
		return STATS_ENOSPACE;
	memcpy(buf, l.buf, l.len + 1);
	return (int)l.len;
}

int stats_cmp_samples(const char *label, const double *a, size_t n1, const double *b, size_t n2,
                      double *scratch, struct stats_cmp *c)
{
	struct stats_hl hl;
	struct stats_mw mw;
	int rc;

	if (!c)
		return STATS_EARG;
	memset(c, 0, sizeof *c);
	c->label = label;
	c->n_a = n1;
	c->n_b = n2;
	if (scratch && (n1 == 0 || n2 == 0) && (a || n1 == 0) && (b || n2 == 0)) {
		size_t m1, m2;
		stats_rank_needed(n1, n2, &m1, &m2);
		c->need_a = m1;
		c->need_b = m2;
		c->too_few = c->no_ab = 1;
		return STATS_ETOOFEW;
	}
	if ((rc = stats_hodges_lehmann(a, n1, b, n2, scratch, &hl)) != STATS_OK ||
	    (rc = stats_mann_whitney(a, n1, b, n2, scratch, &mw)) != STATS_OK)
		return rc;
	/* scratch now holds sorted a then sorted b */
	stats_quantile_sorted(scratch, n1, 0.5, &c->a);
	stats_quantile_sorted(scratch + n1, n2, 0.5, &c->b);
	if (!stats_rank_enough(n1, n2)) {
		size_t m1, m2;
		stats_rank_needed(n1, n2, &m1, &m2);
		c->need_a = m1;
		c->need_b = m2;
		c->too_few = 1;
		return STATS_ETOOFEW;
	}
	c->est_name = "HL shift";
	c->est = hl.shift;
	c->lo = hl.lo;
	c->hi = hl.hi;
	c->p = mw.p;
	c->p_name = "Mann-Whitney";
	return STATS_OK;
}

int stats_cmp_rates(const char *label, uint64_t a, double ta, uint64_t b, double tb, struct stats_cmp *c)
{
	struct stats_rate_ratio rr;
	int rc;

	if (!c)
		return STATS_EARG;
	memset(c, 0, sizeof *c);
	c->label = label;
	c->is_ratio = 1;
	c->p = -1.0;
	c->est_name = "rate ratio";
	c->n_a = a;
	c->n_b = b;
	if ((rc = stats_rate_ratio(a, ta, b, tb, &rr)) != STATS_OK && rc != STATS_ETOOFEW)
		return rc;
	c->a = (double)a / ta;
	c->b = (double)b / tb;
	c->need_a = stats_rate_needed(ta, tb);
	if (rc == STATS_ETOOFEW || a + b < c->need_a) {
		c->too_few = 1;
		return STATS_ETOOFEW;
	}
	c->est = rr.ratio;
	c->lo = rr.lo;
	c->hi = rr.hi;
	/* No events in A: the ratio is unbounded above but its lower bound may still exclude 1. */
	c->est_unbounded = !isfinite(rr.ratio);
	if (c->est_unbounded && !isfinite(rr.lo))
		return STATS_ERANGE;
	return STATS_OK;
}

int stats_cmp_slopes(const char *label, const struct trend_fit *fa, const struct trend_fit *fb,
                     double scale, struct stats_cmp *c)
{
	struct stats_slope_diff d;
	int rc;

	if (!c)
		return STATS_EARG;
	memset(c, 0, sizeof *c);
	if (!isfinite(scale))
		return STATS_ENONFINITE;
	if (!(scale > 0.0))
		return STATS_EARG;
	if ((rc = stats_slope_diff(fa, fb, &d)) != STATS_OK)
		return rc;
	c->label = label;
	c->a = fa->slope * scale;
	c->b = fb->slope * scale;
	c->est_name = "slope diff";
	c->est = d.diff * scale;
	c->lo = d.lo * scale;
	c->hi = d.hi * scale;
	c->p = -1.0;
	if (!isfinite(c->a) || !isfinite(c->b) || !isfinite(c->est) || !isfinite(c->lo) || !isfinite(c->hi))
		return STATS_ERANGE;
	return STATS_OK;
}

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
