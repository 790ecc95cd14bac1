/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report/rare: comparison lines on counts of rare events (allocation
 * failures, OOM kills, spawn failures; any count over a run's exposure).
 *
 * The counts are Poisson (analysis/poisson.h): each side's rate gets its
 * exact 95% interval (so "0 vs 0" still says how high each rate could have
 * been), and the two are compared by the exact conditional binomial test
 * with the exact interval of the rate ratio B/A.  A line reads
 *
 *   alloc failures/h: A 4 in 3m 58.2s = 60.4 [16.5, 155]/h vs B 0 in
 *   3m 59.0s = 0 [0, 55.6]/h: too few data (n=4+0 events; needs 6)
 *
 * and ends in the words of report/line.h.  The exposure is the run's
 * exact tick span (report_run_exposure_ms), in milliseconds.  To add such a line to a comparison:
 * report_rare_add (report/compare.h), gated like an existing line kind.
 */
#ifndef FPUSOAK_REPORT_RARE_H
#define FPUSOAK_REPORT_RARE_H

#include <stdint.h>

#include "analysis/poisson.h"
#include "report/line.h"

/* The test a rare-event line names (report_line.test). */
extern const char report_rare_test[];

/* Fill l (its label set, through the gate) with the verdict on a events over exposure_a_ms against b over
 * exposure_b_ms; 0 (l->rare holds the figures), or -1 when the statistics failed (l says so, not comparable). */
int report_rare_line(struct report_line *l, uint64_t a, int64_t exposure_a_ms, uint64_t b, int64_t exposure_b_ms);

/* "3m 58.2s" / "41.7s" / "2h 03m 11s": an exposure as said in a rare-event line; returns out. */
const char *report_exposure_text(int64_t ms, char *out, size_t len);

#endif
