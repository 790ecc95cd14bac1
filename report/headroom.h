/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report/headroom: trends of the free blocks able to satisfy an order-k
 * allocation, for the run page, the API, the summary, the comparison and
 * the daemon's status line.
 *
 * A trend is an ordinary least-squares fit (analysis/trend.h) through the
 * rollups' headroom_mean (query_headroom_minutes: minute means, hour means
 * once the data spans more than two days): one point per minute, because
 * raw one-second samples are autocorrelated and would make the plain
 * interval far too narrow.  Fewer than three points give no trend.
 *
 * A short window (under REPORT_TICK_TREND_MINUTES minutes) has too few
 * minutes for that: a 3-minute run gives 3 or 4 points and an interval as
 * wide as the data (from 10 minutes on, minute means are taken as
 * independent, as always).  There the line is fitted through every tick
 * (query_headroom_ticks) with the interval corrected for the residuals'
 * autocorrelation (trend_fit_ar1: lag-1 AR model, effective sample size),
 * which holds its 95% coverage on such series where the plain one covers a
 * third to three quarters (tests/unit/test_trend.c); per_tick says so.  A
 * series too autocorrelated for 4 independent points gives no trend
 * (err TREND_EAUTOCORR).  Without raw ticks (--retain-raw) the minute fit stays.
 *
 * A projected exhaustion is stated only when the slope's 95% interval is
 * below zero.
 */
#ifndef FPUSOAK_REPORT_HEADROOM_H
#define FPUSOAK_REPORT_HEADROOM_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/trend.h"
#include "collector/buddyinfo.h"
#include "store/query.h"

#define REPORT_MAX_ZONES 16          /* zones a trend list holds */
/*
 * A trend needs six points (four residual degrees of freedom, t(0.975) = 2.78): OLS fits through three
 * (t = 12.7 on one degree of freedom) gave "significant" intervals as narrow as [-840.2, -839.9] from
 * three nearly collinear capacity probes (issue 31); below six a trend is "too few data" with the counts.
 */
#define REPORT_TREND_MIN_POINTS 6
#define REPORT_TICK_TREND_MINUTES 10 /* windows with fewer minute points are fitted per tick (trend_fit_ar1) */
#define REPORT_STATUS_ZONE "Normal"  /* the status line's zone (node 0) */
#define REPORT_STATUS_SPAN_MS 3600000   /* the status line's trend: the last hour */

/* The headroom trend of one zone at one order. */
struct report_trend {
	int node;
	char zone[ZONE_NAME_MAX];
	int order;
	size_t n;                 /* minute points */
	int per_tick;             /* the fit is through every tick, AR(1)-corrected (a short window) */
	size_t ticks;             /* the ticks fitted when per_tick */
	int ok;                   /* the fit succeeded (>= 3 minutes, not all at one time; per tick: n_eff > 4) */
	int err;                  /* enum trend_err when !ok */
	int64_t t0_ms;            /* first minute (per tick: first tick); the fit's x is ms since t0_ms */
	int64_t last_ms;          /* last minute */
	struct trend_fit fit;
	double last;              /* headroom_mean of the last minute */
	double slope_h, lo_h, hi_h;   /* slope and its 95% CI, blocks per hour */
	int exhaustion;           /* 1: falling significantly; the projection below is set */
	int64_t zero_ms, zero_early_ms, zero_late_ms;   /* epoch ms where the line (steepest, shallowest CI slope) reaches 0 */
	int64_t *t;               /* the points fitted, when asked for (report_trends_free releases them) */
	double *v;
};

/* What a trend says about exhaustion, for the words a page puts on it. */
enum report_outlook {
	REPORT_NO_TREND,          /* fewer than 3 minutes, or no fit */
	REPORT_RISING,            /* the slope's CI is above zero */
	REPORT_NO_FALL,           /* no significant fall */
	REPORT_EXHAUSTED,         /* the line is at zero by the last minute */
	REPORT_PROJECTED,         /* falling: zero_ms (CI zero_early_ms .. zero_late_ms) lies ahead */
};

/* Fit order-k headroom per zone over [from, to] (-1 = open); up to max zones into out; keep != 0 keeps the points; count or -1. */
int report_headroom_trends(struct query *q, int64_t run_id, int order, int64_t from_ms, int64_t to_ms, int keep,
			   struct report_trend *out, int max);

/* Free the points of n trends (NULL-safe). */
void report_trends_free(struct report_trend *t, int n);

/* y of trend t's fitted line at epoch ms. */
double report_trend_at(const struct report_trend *t, int64_t ms);

/* The outlook of a trend. */
enum report_outlook report_trend_outlook(const struct report_trend *t);

/* The status line's figure: order-k headroom of node 0 REPORT_STATUS_ZONE over the last hour. */
struct report_status_headroom {
	int ok;                   /* >= REPORT_TREND_MIN_POINTS minutes fitted; else only order is set */
	int order;
	double last;              /* headroom_mean of the last minute */
	double slope_h, lo_h, hi_h;   /* per hour, with the 95% CI */
	int falling;              /* the slope's CI is below zero */
};

/*
 * Its series, kept by the daemon from the ticks it samples rather than read back by SQL (that query was
 * 14 % of an idle daemon's CPU): the minute means of node 0 REPORT_STATUS_ZONE's order-k headroom, as
 * the minute rollup stores them (headroom_mean), for the closed minutes of the last hour.
 */
#define REPORT_STATUS_MINUTES 60
struct report_status_series {
	int order;                /* the order of the points; a tick at another order starts afresh */
	int64_t minute_ms;        /* the minute being filled; INT64_MIN: none */
	double sum;               /* its headroom over n ticks */
	int64_t n;
	int len, next;            /* closed minutes in the ring, the slot the next one takes */
	double x[REPORT_STATUS_MINUTES], y[REPORT_STATUS_MINUTES];   /* the minute's epoch ms, its mean */
};

/* An empty series. */
void report_status_init(struct report_status_series *s);

/* Account the tick at ts_ms: bi's node 0 REPORT_STATUS_ZONE (none in bi: nothing) at order k. */
void report_status_add(struct report_status_series *s, int order, int64_t ts_ms, const struct buddyinfo *bi);

/* Fill out from the closed minutes of s within REPORT_STATUS_SPAN_MS before now_ms (too few: !ok). */
void report_status_headroom(const struct report_status_series *s, int64_t now_ms,
			    struct report_status_headroom *out);

/* The size of each zone of a run in pageblocks, from its latest pagetypeinfo (all migratetypes). */
struct report_zone_sizes {
	int n;
	struct {
		int node;
		char zone[ZONE_NAME_MAX];
		int64_t blocks;
	} z[REPORT_MAX_ZONES];
};

/* Fill out from run_id's latest pagetypeinfo (n = 0 when it has none); 0, or -1 on a store error. */
int report_zone_sizes(struct query *q, int64_t run_id, struct report_zone_sizes *out);

/* Pageblocks of (node, zone) in s, or -1 when unknown. */
int64_t report_zone_blocks(const struct report_zone_sizes *s, int node, const char *zone);

#endif
