/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rng: the one pseudo-random stream, xoshiro256** with its state expanded from a 64-bit seed by
 * splitmix64 (Blackman and Vigna).  A seed replays the same stream: the churn's lifetimes
 * (--seed) and the comparison's resampling are reproducible from theirs.
 */
#ifndef FPUSOAK_RNG_H
#define FPUSOAK_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

/* Seed the generator; every seed (0 included) gives a valid, distinct stream. */
void rng_seed(struct rng *r, uint64_t seed);

/* Next 64 random bits. */
uint64_t rng_next(struct rng *r);

/* Uniform integer in [0, n), n >= 1, unbiased (rejection); 0 when n == 0. */
uint64_t rng_below(struct rng *r, uint64_t n);

/* Uniform double in [0, 1) with 53 random bits. */
double rng_unit(struct rng *r);

#endif
