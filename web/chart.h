/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * chart: SVG charts of store series for the pages (svg.h draws them).  Each
 * asks the store for at most CHART_POINTS buckets (the SQL downsamples), so
 * a page costs the same for a 10-minute and a 30-day window.  from/to are
 * the page's window, -1 = the run's extent.  Each returns 0, or -1 on a
 * store error.
 */
#ifndef FPUSOAK_CHART_H
#define FPUSOAK_CHART_H

#include <stdint.h>

#include "report/headroom.h"
#include "report/run.h"
#include "web/request.h"

#define CHART_POINTS 400      /* per series: ~ one per 2 px of a 760 px chart */
#define CHART_STACKED 1       /* chart_buddy: free memory by order, stacked, MB, one chart per zone */

/* The chart's time axis: the page's window when both ends are known, else the data's extent (0). */
#define CHART_AXIS(a, b) ((a) >= 0 && (b) >= 0 ? (a) : 0)

/* Buddyinfo charts of a run (which: CHART_STACKED). */
int chart_buddy(struct web_req *r, int64_t run_id, int64_t from, int64_t to, int64_t page_size, int which);

/* The kernel's unusable free space index (v_frag / rollup unusable_max) as a heatmap per zone. */
int chart_unusable(struct web_req *r, int64_t run_id, int64_t from, int64_t to);

/* Order-k headroom per zone on one chart, with the trends tr[0..ntr) drawn dashed; kind names the order's role. */
int chart_headroom(struct web_req *r, int64_t run_id, int64_t from, int64_t to, int order, const char *why,
		   enum report_order_kind kind, const struct report_trend *tr, int ntr);

/* Meminfo fields (kB shown as MB) on one line chart. */
int chart_meminfo(struct web_req *r, int64_t run_id, int64_t from, int64_t to, const char *const *names, int n,
		  const char *title, const char *caption);

/* vmstat counters as rates (events/s) on one line chart. */
int chart_vmstat_rates(struct web_req *r, int64_t run_id, int64_t from, int64_t to, const char *const *names,
		       int n, const char *title, const char *caption);

#endif
