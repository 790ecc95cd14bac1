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
#include "report/memory.h"
#include "report/run.h"
#include "web/request.h"

#define CHART_POINTS 400      /* per series: ~ one per 2 px of a 760 px chart */

/* The chart's time axis: the page's window when both ends are known, else the data's extent (0). */
#define CHART_AXIS(a, b) ((a) >= 0 && (b) >= 0 ? (a) : 0)

/* Why the charts of node/zone are folded away (<details>), or NULL to show them: arg is the caller's. */
typedef const char *(*chart_fold_fn)(const void *arg, int node, const char *zone);

/* One zone's free memory as headroom lines (report/memory.h): all, and in blocks of >= each order of interest. */
int chart_free(struct web_req *r, const struct report_free_zone *z, int64_t from, int64_t to);

/* The kernel's unusable free space index (v_frag / rollup unusable_max) as a heatmap per zone; zones fold()
 * gives a reason for are folded away (fold may be NULL). */
int chart_unusable(struct web_req *r, int64_t run_id, int64_t from, int64_t to, chart_fold_fn fold, const void *arg);

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
