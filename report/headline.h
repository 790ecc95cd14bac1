/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report/headline: the answer first.  The five figures the top of a run's
 * page (and of /) states, each with the short series its sparkline draws:
 *
 *   1. how often a GFP_ATOMIC allocation at the orders of interest would
 *      have failed where GFP_KERNEL would not: last hour and whole run;
 *   2. headroom at the task_struct order now, its slope with a 95% CI per
 *      hour and the projected exhaustion (or none);
 *   3. capacity probes: last, median and trend;
 *   4. kernel allocation failures and OOM kills;
 *   5. churn throughput and population.
 *
 * Figure 1 is the request's (v_atomic_request): an allocation fails only when
 * every zone of its zonelist fails it, so a zone that "fails" on its own (a
 * DMA zone below its reserve) is not a request that fails.  Figure 2 is
 * stated for the zone a GFP_KERNEL request tries first (the highest of
 * Normal, DMA32, DMA on the lowest node).  Windows are the run's own: last
 * hour = the hour up to its last sample.
 */
#ifndef FPUSOAK_REPORT_HEADLINE_H
#define FPUSOAK_REPORT_HEADLINE_H

#include <stddef.h>
#include <stdint.h>

#include "collector/buddyinfo.h"
#include "report/headroom.h"
#include "report/run.h"
#include "store/query.h"

#define REPORT_SPARK 60               /* points of a sparkline */
#define REPORT_LAST_HOUR_MS 3600000

/* A sparkline's points, oldest first. */
struct report_spark {
	size_t n;
	int64_t t[REPORT_SPARK];
	double v[REPORT_SPARK];
};

/* Figure 1 at one order of interest. */
struct report_headline_atomic {
	int order;
	const char *why;              /* "task_struct slab", "pageblock" */
	double pct_hour, pct_run;     /* % of samples where GFP_ATOMIC fails and GFP_KERNEL would pass; NaN without */
	int64_t n_hour, n_run;        /* samples */
	struct report_spark spark;    /* % at risk per bucket, whole run */
};

struct report_headline {
	int64_t first_ms, last_ms;    /* the run's samples; -1 when it has none */
	struct report_orders orders;
	int node;                     /* the request's first zone (-1 and "" when no buddyinfo) */
	char zone[ZONE_NAME_MAX];

	int has_atomic;               /* the run has samples (the request model's rows, schema 7) */
	int natomic;
	struct report_headline_atomic atomic[REPORT_MAX_ORDERS];

	int head_order;               /* figure 2: the task_struct order */
	int has_head;                 /* a trend list for the zone exists (head.n minutes) */
	struct report_trend head;     /* its points are not kept */
	enum report_outlook outlook;
	double head_mb;               /* head.last blocks of 2^order pages, in MiB; NaN unknown */
	struct report_spark head_spark;   /* minute means, whole run */

	int has_probes;               /* figure 3 */
	size_t nprobes;               /* probes that measured a capacity (not censored) */
	size_t cap_censored;          /* probes stopped by limit, timeout or stop: lower bounds, left out */
	char cap_censored_reason[48];
	double cap_last, cap_median;  /* workers; NaN without probes */
	int cap_fit, cap_significant;
	double cap_slope_h, cap_lo_h, cap_hi_h;
	struct report_spark cap_spark;

	int has_kmsg;                 /* figure 4 */
	int64_t failures, oom_kills;  /* kernel-log records: page allocation failures, OOM kills */
	int64_t churn_oom;            /* OOM kills of churn workers the spawner counted */
	double failures_h;            /* per hour of exposure; NaN without */
	struct report_spark fail_spark;   /* failures per bucket, whole run */

	int has_churn;                /* figure 5: 1 with churn rows */
	double spawns_s, population;  /* whole run: spawns per second, mean workers alive */
	int64_t pop_max, spawned;
	struct report_spark churn_spark;  /* spawns per second per bucket */
};

/* The headline of run run_id (which must exist); 0 or -1 (store error). */
int report_headline(struct query *q, int64_t run_id, struct report_headline *out);

/* The rank of a zone for a GFP_KERNEL request (3 Normal, 2 DMA32, 1 DMA, 0 a zone it cannot use). Pure. */
int report_request_zone_rank(const char *zone);

#endif
