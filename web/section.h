/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * section: the detail sections of a run's report, below its headline
 * (page_run.c lists them in order, with their anchors for the table of
 * contents).
 * Each writes its HTML for the run and window of p and returns 0, or -1 on a
 * store error; the figures come from report/.
 */
#ifndef FPUSOAK_SECTION_H
#define FPUSOAK_SECTION_H

#include <stdint.h>

#include "web/page.h"
#include "web/request.h"

struct report_free_zone;

struct run_page {
	struct web_req *r;
	struct page_run_info ri;
	int newest;
	int64_t from, to;           /* the window; -1 = open */
	struct report_free_zone *fz;   /* free memory per zone in the window (report/memory.h), read once for the
					  memory and fragmentation sections; NULL until then */
	int nfz;
};

/* The zones' free memory of the page's window into p->fz (once); 0 or -1. */
int section_free_zones(struct run_page *p);

/* Why node/zone cannot matter for the request (report/memory.h: its charts are folded away), or NULL. */
const char *section_zone_fold(const struct run_page *p, int node, const char *zone);

typedef int (*section_fn)(struct run_page *p);

int sec_headroom(struct run_page *p);   /* headroom charts, trends, projected exhaustion (sec_headroom.c) */
int sec_atomic(struct run_page *p);     /* atomic-allocation risk per zone and order of interest (sec_kernel.c) */
int sec_probes(struct run_page *p);     /* capacity and FPU-cost probes with trend (sec_churn.c) */
int sec_gfp(struct run_page *p);        /* the 2014 test with the fpusoak_gfp module, model checks (sec_gfp.c) */
int sec_failures(struct run_page *p);   /* allocation failures, timeline and table (sec_kernel.c) */
int sec_trace(struct run_page *p);      /* failed allocations and fallbacks from tracefs (sec_trace.c) */
int sec_churn(struct run_page *p);      /* population, spawns, failures by errno, deaths by signal (sec_churn.c) */
int sec_fragment(struct run_page *p);   /* the fragmenting load, when the run had one: sec_churn's end (sec_fragment.c) */
int sec_free(struct run_page *p);       /* free memory per zone as headroom lines (sec_memory.c) */
int sec_unusable(struct run_page *p);   /* the unusable free space index as a heatmap (sec_memory.c) */
int sec_counters(struct run_page *p);   /* compaction, reclaim and memory counters (sec_memory.c) */
int sec_slow(struct run_page *p);       /* pagetypeinfo and slabinfo at the latest slow sample (sec_kernel.c) */

#endif
