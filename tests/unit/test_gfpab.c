/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gfpab: the within-run kernel-vs-atomic comparison and the model scorecard,
 * on probe series worked by hand.
 */
#include <math.h>

#include "analysis/gfpab.h"
#include "tests/unit/test.h"

#define H 3600000LL
enum { K = 1, A = 2, N = 3 };

static double scratch[GFPAB_SCRATCH(64)];

static int near(double x, double want)
{
	return fabs(x - want) < 1e-9;
}

static void test_alternate(void)
{
	/* kernel 100, 102, 101, 99 and atomic 90, 91, 89, 86, alternating an hour apart; one nowait probe
	 * ignored.  Four of each: the least the rank test gives a verdict on (stats_rank_enough). */
	const struct gfpab_probe p[] = {
		{ 0, 100, K }, { 1 * H, 90, A }, { 2 * H, 102, K }, { 3 * H, 91, A },
		{ 4 * H, 101, K }, { 5 * H, 89, A }, { 6 * H, 99, K }, { 7 * H, 86, A }, { 8 * H, 50, N },
	};
	struct gfpab g;

	T_EQ_I(gfpab_compare(p, 9, K, A, "kernel vs atomic", scratch, &g), 0, "compare");
	T_EQ_I(g.n_a, 4, "four kernel probes");
	T_EQ_I(g.n_b, 4, "four atomic probes (the nowait one is not either)");
	T_CHECK(g.have_cmp && near(g.cmp.a, 100.5) && near(g.cmp.b, 89.5), "medians 100.5 vs 89.5 (%g vs %g)", g.cmp.a,
		g.cmp.b);
	/* b - a over all 16 pairs: -16 -15 -14 -13 -13 -12 -12 -11 | -11 -11 -10 -10 -10 -9 -9 -8, median -11. */
	T_CHECK(near(g.cmp.est, -11), "HL shift atomic - kernel = -11 (%g)", g.cmp.est);
	T_EQ_S(g.cmp.label, "kernel vs atomic", "label kept");
	/* Pairs (kernel, next atomic): -10 at 1 h, -11 at 3 h, -12 at 5 h, -13 at 7 h. */
	T_EQ_I(g.npairs, 4, "four turns");
	T_CHECK(near(g.gap_mean, -11.5), "mean gap -11.5 (%g)", g.gap_mean);
	T_CHECK(g.have_trend && near(trend_per_hour(g.gap.slope), -0.5), "gap falls 0.5 workers per hour (%g)",
		trend_per_hour(g.gap.slope));
	T_CHECK(near(trend_per_hour(g.gap.ci_lo), -0.5) && near(trend_per_hour(g.gap.ci_hi), -0.5),
		"an exact line: its interval is the point");
}

static void test_pairs(void)
{
	/* A B B A A B: the first B pairs with the first A, the second B with nothing, the last with the latest A. */
	const struct gfpab_probe p[] = {
		{ 0, 10, K }, { 1, 7, A }, { 2, 6, A }, { 3, 11, K }, { 4, 12, K }, { 5, 9, A },
	};
	struct gfpab g;

	T_EQ_I(gfpab_compare(p, 6, K, A, "k/a", scratch, &g), 0, "compare");
	T_EQ_I(g.npairs, 2, "two pairs");
	T_CHECK(near(g.gap_mean, (-3 + -3) / 2.0), "gaps 7-10 and 9-12 (mean %g)", g.gap_mean);
	T_EQ_I(g.have_trend, 0, "no trend from two pairs");

	/* Only one mode: no comparison, no pairs. */
	T_EQ_I(gfpab_compare(p, 1, K, A, "k/a", scratch, &g), 0, "one probe");
	T_CHECK(!g.have_cmp && g.npairs == 0 && g.n_a == 1 && g.n_b == 0, "nothing to compare yet");
	T_EQ_I(gfpab_compare(NULL, 0, K, A, "k/a", scratch, &g), 0, "no probes at all");
	T_CHECK(!g.have_cmp && !g.have_trend, "empty");

	/* An atomic probe before any kernel probe pairs with nothing. */
	const struct gfpab_probe q[] = { { 0, 5, A }, { 1, 8, K }, { 2, 6, A } };
	T_EQ_I(gfpab_compare(q, 3, K, A, "k/a", scratch, &g), 0, "atomic first");
	T_EQ_I(g.npairs, 1, "one pair (8, 6)");
	T_CHECK(near(g.gap_mean, -2), "gap -2 (%g)", g.gap_mean);
}

static void test_bad(void)
{
	const struct gfpab_probe back[] = { { 5, 1, K }, { 4, 1, A } };
	const struct gfpab_probe nan_[] = { { 0, NAN, K } };
	struct gfpab g;

	T_EQ_I(gfpab_compare(back, 2, K, A, "x", scratch, &g), -1, "out of time order: refused");
	T_EQ_I(gfpab_compare(nan_, 1, K, A, "x", scratch, &g), -1, "NaN count: refused");
	T_EQ_I(gfpab_compare(back, 2, K, A, "x", NULL, &g), -1, "no scratch: refused");
	T_EQ_I(gfpab_compare(back, GFPAB_MAX_PROBES + 1, K, A, "x", scratch, &g), -1, "too many probes: refused");
	T_EQ_I(gfpab_compare(back, 2, K, A, NULL, scratch, &g), -1, "no label: refused");
}

static void test_confusion(void)
{
	struct gfpab_confusion c = { { { 3, 1 }, { 2, 14 } } };
	struct gfpab_confusion none = { { { 0, 0 }, { 0, 0 } } };

	T_EQ_I(gfpab_checks(&c), 20, "20 checks");
	T_CHECK(near(gfpab_accuracy(&c), 17.0 / 20), "accuracy (3 + 14) / 20 = 0.85 (%g)", gfpab_accuracy(&c));
	T_EQ_I(gfpab_checks(&none), 0, "no checks");
	T_CHECK(gfpab_accuracy(&none) < 0, "no accuracy without checks");
}

int main(void)
{
	test_alternate();
	test_pairs();
	test_bad();
	test_confusion();
	T_DONE();
}
