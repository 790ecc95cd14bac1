/* SPDX-License-Identifier: GPL-2.0-only */
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
 * The estimates come from the other stats_ modules, each header stating
 * what its test assumes: stats_core.h (errors, quantiles, random stream),
 * stats_rank.h (Mann-Whitney, Hodges-Lehmann), stats_interval.h
 * (bootstrap, rate ratio, slope difference).  This header includes them,
 * so a caller of the verdicts needs only this one.
 *
 * Too little data is an answer, not an interval: when stats_rank_enough or
 * stats_rate_needed says no interval could exclude the null value,
 * stats_cmp_* return STATS_ETOOFEW with the counts and what would do in
 * the stats_cmp, and stats_verdict prints "too few data (n=3+3; needs 4+4)".
 *
 * Nothing here allocates; no I/O, no globals, thread-safe.  Reported
 * results are never NaN, and are +-INFINITY only where a bound is
 * documented as unbounded.
 */
#ifndef FPUSOAK_STATS_H
#define FPUSOAK_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/stats_core.h"
#include "analysis/stats_interval.h"
#include "analysis/stats_rank.h"
#include "analysis/trend.h"

#define STATS_VERDICT_COLS 72

/* ---- verdict line ---- */

/*
 * One comparison, ready to print.  Strings are borrowed, printable ASCII.
 * Full form:
 *   LABEL: A vs B (+P%), EST_NAME EST [LO, HI], P_NAME p=P: VERDICT
 * Numbers are %.4g (from 1e4 to 1e15 whole, "453388"), the percentage is (B - A) / |A|, p below 0.001 prints
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

#endif
