/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * section: the sections of a run's report (page_run.c lists them in order).
 * Each writes its HTML for the run and window of p and returns 0, or -1 on a
 * store error; the figures come from report/.
 */
#ifndef FPUSOAK_SECTION_H
#define FPUSOAK_SECTION_H

#include <stdint.h>

#include "web/page.h"
#include "web/request.h"

struct run_page {
	struct web_req *r;
	struct page_run_info ri;
	int newest;
	int64_t from, to;           /* the window; -1 = open */
};

typedef int (*section_fn)(struct run_page *p);

int sec_free(struct run_page *p);       /* 1: free memory by order, stacked per zone (sec_memory.c) */
int sec_headroom(struct run_page *p);   /* 2: headroom charts, trends, projected exhaustion (sec_headroom.c) */
int sec_unusable(struct run_page *p);   /* 3: the unusable free space index as a heatmap (sec_memory.c) */
int sec_churn(struct run_page *p);      /* 4: population, spawns, failures by errno, deaths by signal (sec_churn.c) */
int sec_probes(struct run_page *p);     /* 5: capacity and FPU-cost probes with trend (sec_churn.c) */
int sec_failures(struct run_page *p);   /* 6: allocation failures, timeline and table (sec_kernel.c) */
int sec_counters(struct run_page *p);   /* 7: compaction, reclaim and memory counters (sec_memory.c) */
int sec_slow(struct run_page *p);       /* 8: pagetypeinfo and slabinfo at the latest slow sample (sec_kernel.c) */
int sec_atomic(struct run_page *p);     /* 9: atomic-allocation risk per zone and order of interest (sec_kernel.c) */
int sec_trace(struct run_page *p);      /* 10: failed allocations and fallbacks from tracefs (sec_trace.c) */
int sec_gfp(struct run_page *p);        /* 11: the 2014 test with the fpusoak_gfp module, model checks (sec_gfp.c) */

#endif
