/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_fmt: fmt_num's printf-free paths print exactly what snprintf("%.0f")
 * and snprintf("%.10g") print, on values that stress them: means of small
 * integers (what charts and the API print most), dyadic fractions (exact
 * ties), powers of ten and their neighbours (digit-count edges), and random
 * doubles across the fixed-point range.  The seed is printed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test.h"
#include "common/fmt.h"

static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* 1 when fmt_num(v) equals printf's text; prints the first few mismatches. */
static int same(double v, int *shown)
{
	char a[64], b[64];

	fmt_num(v, a, sizeof a);
	if (!isfinite(v))
		b[0] = '\0';
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(b, sizeof b, "%.0f", v);
	else
		snprintf(b, sizeof b, "%.10g", v);
	if (strcmp(a, b) == 0)
		return 1;
	if ((*shown)++ < 5)
		printf("      %.17g: fmt_num \"%s\" printf \"%s\"\n", v, a, b);
	return 0;
}

int main(void)
{
	long bad = 0, n = 0;
	int shown = 0;
	char tb[FMT_TIME_LEN];

	/* Issue 31: the window form's value kept only minutes, so its defaults dropped a window's last seconds. */
	T_EQ_S(fmt_time_input(1717243265500LL, tb, sizeof tb), "2024-06-01T12:01:05", "datetime-local value with seconds");

	rng = (uint64_t)time(NULL) | 1;
	printf("      seed %llu\n", (unsigned long long)rng);
	/* Means sum/k of integer counts, as the buddy series prints them. */
	for (int i = 0; i < 1000000; i++, n++) {
		uint64_t k = next() % 4000 + 1, sum = next() % (k * (uint64_t)(next() % 3 ? 100000 : 100000000));
		bad += !same((double)sum / (double)k, &shown);
	}
	T_EQ_I(bad, 0, "1,000,000 means of integers: same text as printf");
	bad = 0;
	/* Dyadic fractions (ties at the 11th digit are possible) and their negatives. */
	for (int i = 0; i < 300000; i++, n++) {
		double v = (double)(next() % 20000000000ULL) / (double)(1ULL << (next() % 12));
		bad += !same(next() & 1 ? -v : v, &shown);
	}
	T_EQ_I(bad, 0, "300,000 dyadic fractions: same text (ties to even)");
	bad = 0;
	/* Digit-count edges: 10^k and the doubles next to it, k = -5..11, and 9.9999999995e k. */
	for (int k = -5; k <= 11; k++) {
		double p = pow(10, k), e = 9.9999999995 * pow(10, k - 1);
		double vs[] = { p, nextafter(p, 0), nextafter(p, INFINITY), e, nextafter(e, 0), nextafter(e, INFINITY),
				-p, 1.0000000005 * p, 0.5 * p, 1.5 * p };
		for (size_t j = 0; j < sizeof vs / sizeof vs[0]; j++, n++)
			bad += !same(vs[j], &shown);
	}
	T_EQ_I(bad, 0, "powers of ten and their neighbours: same text");
	bad = 0;
	/* Random doubles, uniform in binary exponent, in [1e-6, 1e12). */
	for (int i = 0; i < 1000000; i++) {
		/* a random 53-bit mantissa at a random binary exponent in range */
		double v = ldexp(1.0 + (double)(next() >> 11) / 9007199254740992.0, (int)(next() % 60) - 20);
		if (fabs(v) < 1e-6 || fabs(v) >= 1e12)
			continue;
		n++;
		bad += !same(v, &shown);
	}
	T_EQ_I(bad, 0, "random doubles in [1e-6, 1e12): same text");
	{
		char a[64];
		T_CHECK(strcmp(fmt_num(-0.0, a, sizeof a), "-0") == 0 && strcmp(fmt_num(NAN, a, sizeof a), "") == 0 &&
			strcmp(fmt_num(-12345, a, sizeof a), "-12345") == 0 && strcmp(fmt_num(0.1, a, sizeof a), "0.1") == 0,
			"-0, NaN, negative integers, 0.1");
	}
	T_CHECK(n > 2000000, "%ld values compared", n);
	T_DONE();
}
