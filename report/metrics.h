/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * metrics: the figures /metrics states that are computed rather than read: headroom at the orders of
 * interest and the kernel's two indices at every order, per zone of the last sample's free lists
 * (analysis/frag: the arithmetic of v_frag and mm/vmstat.c).  web/metrics.c renders them; it computes
 * nothing itself.
 */
#ifndef FPUSOAK_REPORT_METRICS_H
#define FPUSOAK_REPORT_METRICS_H

#include <stdint.h>

#include "collector/buddyinfo.h"

#define REPORT_FRAG_ORDERS 4   /* orders of interest at most (the task_struct slab's, the pageblock order, ...) */

struct report_frag_now {
	int nzones, norders;           /* of the sample, capped at BUDDY_MAX_ZONES and BUDDY_MAX_ORDER */
	int nk;                        /* orders of interest in orders[] */
	int orders[REPORT_FRAG_ORDERS];
	struct {
		uint64_t headroom[REPORT_FRAG_ORDERS];   /* free blocks able to hold an orders[j] allocation */
		int unusable[BUDDY_MAX_ORDER];           /* the unusable free space index x 1000, per order */
		int fragmentation[BUDDY_MAX_ORDER];      /* the external fragmentation index x 1000 (-1000: a block exists) */
	} z[BUDDY_MAX_ZONES];
};

/* Fill out from b: every zone, headroom at orders[0..nk) (those outside b's orders are left out, nk
 * capped at REPORT_FRAG_ORDERS) and both indices at each of b's orders. */
void report_frag_now(const struct buddyinfo *b, const int *orders, int nk, struct report_frag_now *out);

#endif
