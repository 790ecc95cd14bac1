/*
 * report: the figures a report states, computed in one place for the run
 * page, the compare page, the JSON API and the offline summary, so the
 * four can never disagree.
 *
 * Orders of interest: the task_struct slab's order (v_slabinfo; 3 when not
 * recorded, the common case for x86-64 with AVX-512 xstate) and the
 * pageblock order (v_pagetypeinfo; absent when never sampled).  Headroom
 * trends are ordinary least squares (analysis/trend.h) on the minute
 * rollups' headroom_mean (v_buddyinfo_1m): one point per minute, because
 * raw one-second samples are autocorrelated and would make the interval
 * far too narrow.  A run shorter than three rollup minutes has no trend.
 *
 * Comparisons (B against A, analysis/stats.h) each say which test they use:
 *   capacity, FPU cost        per-probe results: Hodges-Lehmann shift CI, Mann-Whitney p
 *   headroom slope (per order) Welch difference of the two OLS slopes, per hour
 *   allocation / spawn failures Poisson rate ratio per hour, exact conditional CI
 *   spawns/s, atomic risk %   one value per bucket of >= 1 minute: HL shift CI, Mann-Whitney p
 * A comparison that cannot be made (no probes, no events in either run)
 * carries a note saying why instead of a verdict.
 */
#ifndef FPUSOAK_REPORT_H
#define FPUSOAK_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/stats.h"
#include "analysis/trend.h"
#include "collector/buddyinfo.h"
#include "store/query.h"

#define REPORT_MAX_ORDERS 4          /* orders of interest: task_struct and pageblock, each of A and B */
#define REPORT_MAX_ZONES 16          /* zones a trend list holds */
#define REPORT_DEFAULT_TASK_ORDER 3
#define REPORT_MAX_LINES 16          /* lines of a comparison */
#define REPORT_MIN_BUCKET_MS 60000   /* the sample unit of per-bucket comparisons */
#define REPORT_MAX_BUCKETS 2000      /* per run in a per-bucket comparison */

struct report_orders {
	int n;
	int order[REPORT_MAX_ORDERS];
	const char *why[REPORT_MAX_ORDERS];   /* "task_struct slab", "pageblock" (static strings) */
	int task_order;                       /* from slabinfo, or REPORT_DEFAULT_TASK_ORDER */
	int task_order_known;                 /* 0: the default was used */
	int64_t task_objsize;                 /* bytes, -1 unknown */
	int pageblock_order;                  /* -1 unknown */
};

/* The orders of interest of a run; 0 or -1 (store error). */
int report_orders(struct query *q, int64_t run_id, struct report_orders *out);

/* Add order k (with why) to o unless present or full. */
void report_orders_add(struct report_orders *o, int k, const char *why);

/* The headroom trend of one zone at one order. */
struct report_trend {
	int node;
	char zone[ZONE_NAME_MAX];
	int order;
	size_t n;                 /* minute points */
	int ok;                   /* the fit succeeded (>= 3 minutes, not all at one time) */
	int err;                  /* enum trend_err when !ok */
	int64_t t0_ms;            /* first minute; the fit's x is ms since t0_ms */
	int64_t last_ms;          /* last minute */
	struct trend_fit fit;
	double last;              /* headroom_mean of the last minute */
	double slope_h, lo_h, hi_h;   /* slope and its 95% CI, blocks per hour */
	int exhaustion;           /* 1: falling significantly; the projection below is set */
	int64_t zero_ms, zero_early_ms, zero_late_ms;   /* epoch ms where the line (steepest, shallowest CI slope) reaches 0 */
	int64_t *t;               /* the points, when asked for (report_trends_free releases them) */
	double *v;
};

/* Fit order-k headroom per zone over [from, to] (-1 = open); up to max zones into out; keep != 0 keeps the points; count or -1. */
int report_headroom_trends(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms, int keep,
			   struct report_trend *out, int max);

/* Free the points of n trends (NULL-safe). */
void report_trends_free(struct report_trend *t, int n);

/* y of trend t's fitted line at epoch ms. */
double report_trend_at(const struct report_trend *t, int64_t ms);

/* One line of a comparison. */
struct report_line {
	char label[48];           /* printable ASCII, the verdict's start */
	const char *test;         /* the test used, for people */
	const char *unit;         /* unit of a and b */
	int ok;                   /* c and verdict are valid */
	struct stats_cmp c;       /* c.label points at label: do not copy a report_line */
	char verdict[STATS_VERDICT_COLS + 1];
	char note[128];           /* why there is no verdict, when !ok */
	double na, nb;            /* sample sizes, or event counts for rates */
	double xa, xb;            /* exposure in hours for rates, else 0 */
};

struct report_cmp {
	int64_t a, b;
	struct report_orders orders;   /* union of both runs' orders of interest */
	char zone[REPORT_MAX_ORDERS][ZONE_NAME_MAX];   /* the zone compared per order ("" if none in both) */
	int node[REPORT_MAX_ORDERS];
	int n;
	struct report_line line[REPORT_MAX_LINES];
};

/* Compare run b against run a; 0, or -1 on a store error.  Both runs must exist (the caller checks). */
int report_compare(struct query *q, int64_t a, int64_t b, struct report_cmp *out);

/* The kernel command line's eagerfpu= value into out ("" when absent); returns out. */
const char *report_eagerfpu(const char *cmdline, char *out, size_t outlen);

#endif
