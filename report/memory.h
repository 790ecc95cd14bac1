/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report/memory: a run's free memory per zone as headroom lines: the MiB in
 * free blocks of order >= k, for k = 0 (all free memory) and each order of
 * interest.  A stacked chart of 11 orders shows order 10 as a block and
 * order 3 as a hairline; these lines put the orders that matter on one
 * readable scale.  A zone that cannot matter for the request is flagged
 * with the reason, so a page can fold it away: one whose free memory did not
 * change at all in the window, and a DMA zone below a DMA32 or Normal zone
 * of its node (the last fallback of a request, behind its lowmem reserve).
 */
#ifndef FPUSOAK_REPORT_MEMORY_H
#define FPUSOAK_REPORT_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "collector/buddyinfo.h"
#include "report/run.h"
#include "store/query.h"

#define REPORT_FREE_POINTS 400                 /* buckets per zone (the store downsamples) */
#define REPORT_FREE_LINES (1 + REPORT_MAX_ORDERS)
#define REPORT_FREE_ZONES 16

struct report_free_zone {
	int node;
	char zone[ZONE_NAME_MAX];
	int nlines;
	int order[REPORT_FREE_LINES];          /* 0 (all free memory), then the orders of interest, ascending */
	size_t n;
	int64_t t[REPORT_FREE_POINTS];
	double mib[REPORT_FREE_LINES][REPORT_FREE_POINTS];   /* MiB in free blocks of order >= order[i] */
	int moved;                             /* the zone's free memory changed in the window */
	double last_mib;                       /* all free memory, last bucket */
	const char *fold;                      /* why this zone cannot matter for a GFP_KERNEL request (a page folds
						  its charts away), or NULL */
};

/* Free memory per zone of run run_id in rg (from/to -1 = the run's extent), pages of page_size bytes; up to
 * REPORT_FREE_ZONES zones into *out (calloc'd: free() it), count, or -1. */
int report_free_zones(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, const struct report_orders *o,
		      int64_t page_size, struct report_free_zone **out);

#endif
