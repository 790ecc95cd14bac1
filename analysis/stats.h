/*
 * stats: two-sample comparisons behind "kernel A vs kernel B" verdicts.
 *
 * A run yields, per kernel, capacity-probe counts (how many math-using
 * processes fit before a spawn fails), event counts over an exposure time
 * (OOM kills, failed order-k allocations) and trend lines (trend.h).  This
 * module turns two of those into an estimate, a 95% interval and one line
 * a user can paste into a mailing list:
 *
 *   capacity: 256 vs 228 (-10.9%), HL shift -28 [-35, -21], p=0.002: significant
 *
 * Direction: every difference is B minus A and every ratio is B over A, so
 * a negative shift / ratio < 1 means B is lower.  "Significant" means the
 * 95% interval excludes 0 (or 1 for ratios); p-values are shown, never used
 * for the verdict.
 *
 * Tests implemented, and what they assume:
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
 *  - stats_boot_median_diff: percentile bootstrap of median(B) - median(A),
 *    xoshiro256** seeded through splitmix64, reproducible from the seed.
 *    Too narrow for small samples (n < ~10): prefer the HL interval there.
 *  - stats_rate_ratio: exact conditional interval for (b/tb)/(a/ta): given
 *    a+b events, b is binomial; Clopper-Pearson on b/(a+b), mapped through
 *    p/(1-p) * ta/tb, as R's poisson.test.  Assumes Poisson counts.
 *  - stats_slope_diff: difference of two independent OLS slopes, Welch:
 *    se = sqrt(se1^2 + se2^2), df by Welch-Satterthwaite.
 *
 * Too little data is an answer, not an interval: a rank comparison whose
 * smallest attainable two-sided p, 2 / C(n1 + n2, n1), is above 0.05
 * (stats_rank_enough: fewer than 4 a side when the sides are equal) can
 * never exclude 0, whatever the values, and the normal approximation with
 * ties pretends otherwise (3 identical probes a side gave "significant");
 * a rate comparison whose n = a + b events could not exclude 1 even if all
 * fell on one side (stats_rate_needed) likewise.  Those return
 * STATS_ETOOFEW with the counts and what would do in the stats_cmp, and
 * stats_verdict prints "too few data (n=3+3; needs 4+4)".
 *
 * Quantiles are type 7 (R's default, numpy's "linear").  Nothing here
 * allocates: functions that must sort take a caller scratch array whose
 * length the prototype states; it must not overlap the inputs (STATS_EARG).  No I/O, no globals, thread-safe.  NaN and
 * +-Inf inputs are rejected (STATS_ENONFINITE); reported results are never
 * NaN, and are +-INFINITY only where a bound is documented as unbounded.
 */
#ifndef FPUSOAK_STATS_H
#define FPUSOAK_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/trend.h"

enum stats_err {
	STATS_OK = 0,
	STATS_EARG = -1,        /* NULL pointer, p outside [0,1], size over a cap, bad label */
	STATS_ETOOFEW = -2,     /* empty sample, or no events at all in a rate ratio */
	STATS_ENONFINITE = -3,  /* an input was NaN or +-Inf */
	STATS_ERANGE = -4,      /* overflow (values near DBL_MAX) or no convergence */
	STATS_ENOSPACE = -5,    /* verdict does not fit 72 columns or the caller's buffer */
};

#define STATS_MAX_N ((size_t)1 << 24)   /* per sample; keeps n1*n2 exact in a double */
#define STATS_MW_EXACT_MAX 20           /* exact U distribution up to 20 x 20 */
#define STATS_BOOT_MIN_REPS 100
#define STATS_BOOT_MAX_REPS 1000000
#define STATS_MAX_COUNT 1000000000ULL   /* events per arm in a rate ratio */
#define STATS_VERDICT_COLS 72

/* Scratch lengths, in doubles. */
#define STATS_PAIR_SCRATCH(n1, n2) ((n1) + (n2))
#define STATS_BOOT_SCRATCH(n1, n2, reps) ((reps) + ((n1) > (n2) ? (n1) : (n2)))

/* ---- quantiles ---- */

/* Type-7 quantile of already ascending sorted[0..n), n >= 1, 0 <= p <= 1; STATS_OK or error. */
int stats_quantile_sorted(const double *sorted, size_t n, double p, double *out);

/* Type-7 quantiles out[k] at p[k], k < np, of x[0..n); scratch: n doubles (may not alias x). */
int stats_quantiles(const double *x, size_t n, const double *p, size_t np, double *scratch, double *out);

/* Median (type 7 at 0.5) of x[0..n); scratch: n doubles. */
int stats_median(const double *x, size_t n, double *scratch, double *out);

/* ---- random numbers (xoshiro256**, state from splitmix64) ---- */

struct stats_rng {
	uint64_t s[4];
};

/* Seed the generator; every seed (0 included) gives a valid, distinct stream. */
void stats_rng_seed(struct stats_rng *r, uint64_t seed);

/* Next 64 random bits. */
uint64_t stats_rng_next(struct stats_rng *r);

/* Uniform integer in [0, n), n >= 1, unbiased (rejection); 0 when n == 0. */
uint64_t stats_rng_below(struct stats_rng *r, uint64_t n);

/* Uniform double in [0, 1) with 53 random bits. */
double stats_rng_unit(struct stats_rng *r);

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

/* 1 if samples of n1 and n2 values can give a 95% rank interval excluding 0 (C(n1 + n2, n1) >= 40), else 0. */
int stats_rank_enough(size_t n1, size_t n2);

/* The smallest sizes m1 >= n1, m2 >= n2 that are enough: the smallest total, then the most balanced. */
void stats_rank_needed(size_t n1, size_t n2, size_t *m1, size_t *m2);

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

/* ---- verdict line ---- */

/*
 * One comparison, ready to print.  Strings are borrowed, printable ASCII.
 * Full form:
 *   LABEL: A vs B (+P%), EST_NAME EST [LO, HI], P_NAME p=P: VERDICT
 * Numbers are %.4g, the percentage is (B - A) / |A|, p below 0.001 prints
 * as p<0.001.  When the line is wider than STATS_VERDICT_COLS, parts are
 * dropped in this order until it fits: the test name, the space inside the
 * interval, the p-value (it never decides the verdict), the estimate's
 * name, the percentage, the 4th significant digit, "A vs B".  Label,
 * estimate, interval and verdict are always kept; if even that is too wide
 * (a long label), stats_verdict fails with STATS_ENOSPACE.
 */
struct stats_cmp {
	const char *label;     /* "capacity" */
	double a, b;           /* the two summaries shown as "a vs b" (medians, rates, slopes) */
	const char *est_name;  /* "HL shift", "rate ratio", "slope diff"; may be NULL */
	double est, lo, hi;    /* estimate and its 95% CI (+-INFINITY allowed for unbounded ends) */
	int is_ratio;          /* null value 1 instead of 0 */
	double p;              /* p-value, or negative for none */
	const char *p_name;    /* "Mann-Whitney"; may be NULL */
	int est_unbounded;     /* the estimate is +infinite (no events in A): printed as "EST_NAME >LO" */
	int too_few;           /* with STATS_ETOOFEW: no verdict; the line says the counts and the need */
	int no_ab;             /* a side was empty: no "A vs B" to show */
	uint64_t n_a, n_b;     /* values (samples) or events (rates) of A and B */
	const char *n_unit;    /* what a sample is, said after the counts ("probes", "minutes"); NULL: unsaid */
	uint64_t need_a, need_b;   /* samples: sizes that would do; rates: need_a events in total, need_b 0 */
};

/* 1 iff c's 95% CI excludes the null value (0, or 1 for ratios), else 0 (always 0 when too_few). */
int stats_significant(const struct stats_cmp *c);

/* Write c's verdict line (<= 72 columns, NUL-terminated) into buf; length or negative stats_err. */
int stats_verdict(const struct stats_cmp *c, char *buf, size_t cap);

/* c's whole line, nothing dropped and no width limit (a reader that wraps, like `summary`); length or
 * negative stats_err (STATS_ENOSPACE if cap is too small). */
int stats_verdict_full(const struct stats_cmp *c, char *buf, size_t cap);

/* Fill c from two samples: medians, HL shift and CI, Mann-Whitney p; scratch: n1+n2 doubles.
 * STATS_ETOOFEW with c->too_few, the sizes and the need when stats_rank_enough says no (or a side is empty). */
int stats_cmp_samples(const char *label, const double *a, size_t n1, const double *b, size_t n2,
                      double *scratch, struct stats_cmp *c);

/* Fill c from a rate ratio: a vs b shown as events per unit exposure.  STATS_ETOOFEW with c->too_few when
 * a + b < stats_rate_needed(ta, tb); no events in A gives est_unbounded (the ratio's lower bound stands). */
int stats_cmp_rates(const char *label, uint64_t a, double ta, uint64_t b, double tb, struct stats_cmp *c);

/* Fill c from two fits: slopes and Welch difference, all multiplied by scale (3.6e6: per ms -> per hour). */
int stats_cmp_slopes(const char *label, const struct trend_fit *fa, const struct trend_fit *fb,
                     double scale, struct stats_cmp *c);

/* Static English description of an enum stats_err value. */
const char *stats_strerror(int err);

#endif
