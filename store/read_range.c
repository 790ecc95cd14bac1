/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * read_range: the window of a read and the tier it reads, in one place.
 *
 * The tier policy.  A read uses raw ticks, the minute rollup or the hour
 * rollup (STORE_TIER_*); range_tier() holds the rule:
 * - a bucketed series (buddy, indices, meminfo, churn, atomic risk): raw
 *   ticks for windows under 6 hours that raw rows cover; else the minute
 *   rollup, or the hour rollup once buckets are 5 minutes or wider.  The
 *   newest partial minute (hour) is not rolled up yet, so a rollup-tier chart
 *   ends up to a bucket early.  A 30-day chart then reads ~720 rows per zone
 *   instead of 2.6 million ticks.
 * - a trend (the headroom slopes): minute means, hour means once the window's
 *   rollups span more than two days.
 * Two reads are not a single tier: totals (churn, atomic risk) add up raw,
 * minute and hour pieces (range_split), and vmstat rates seek each bucket's
 * end from minute-wide buckets on (read_counters.c).
 */
#include <string.h>

#include "store/reader.h"

/* Under this span a series reads raw ticks when they cover the window: cheap, and buckets aligned to the
 * window, not the clock. */
#define RAW_SPAN_MAX_MS (6 * STORE_TIER_HOUR_MS)
/* From 5-minute buckets on (windows of ~3.5 days at 1,000 points) hours are fine enough for a chart and read
 * 60x fewer rows: a 30-day chart reads 720 per series instead of 43,200. */
#define HOUR_BUCKET_MIN_MS (5 * STORE_TIER_MINUTE_MS)
/* Past two days a trend is fitted to hour means: 720 points per zone for 30 days instead of 43,200 minute
 * means, which cost ~0.5 s of a report. */
#define TREND_HOUR_SPAN_MS (48 * STORE_TIER_HOUR_MS)

/* What a read asks of a tier. */
enum tier_use {
	TIER_SERIES,   /* a bucketed series: raw, minute or hour */
	TIER_TREND,    /* a trend's points: minute or hour means */
};

/* What the window holds, as range_tier needs it. */
struct tier_window {
	int64_t from_ms, to_ms, bucket_ms;    /* the resolved window and its bucket width (series) */
	int64_t raw_first;                    /* first raw tick in the window, -1 if none (series) */
	int64_t rollup_first, rollup_last;    /* first / last minute bucket in the window, -1 if none */
};

#define MINUTE STORE_TIER_MINUTE_SQL   /* the minute tier, as SQL text */

static const char *const SQL[S_COUNT] = {
	[S_FIRST_SAMPLE] = "SELECT ts_ms FROM samples WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 "
			   "ORDER BY ts_ms LIMIT 1",
	[S_LAST_SAMPLE] = "SELECT ts_ms FROM samples WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 "
			  "ORDER BY ts_ms DESC LIMIT 1",
	/* The interval from the first 100 gaps: cheap however long the window. */
	[S_INTERVAL] = "SELECT COUNT(*), MIN(ts_ms), MAX(ts_ms) FROM (SELECT ts_ms FROM samples "
		       "WHERE run_id = ?1 AND ts_ms BETWEEN ?2 AND ?3 ORDER BY ts_ms LIMIT 101)",
	/* The minute rollup's extent, on one zone's order-0 rows so it is an index seek. */
	[S_ROLLUP_FIRST] = "SELECT bucket_ms FROM buddy_rollup WHERE run_id = ?1 AND tier = " MINUTE " AND zone_id = "
			   "(SELECT zone_id FROM buddy_rollup WHERE run_id = ?1 AND tier = " MINUTE " LIMIT 1) AND "
			   "page_order = 0 AND bucket_ms BETWEEN ?2 AND ?3 ORDER BY bucket_ms LIMIT 1",
	[S_ROLLUP_LAST] = "SELECT bucket_ms FROM buddy_rollup WHERE run_id = ?1 AND tier = " MINUTE " AND zone_id = "
			  "(SELECT zone_id FROM buddy_rollup WHERE run_id = ?1 AND tier = " MINUTE " LIMIT 1) AND "
			  "page_order = 0 AND bucket_ms BETWEEN ?2 AND ?3 ORDER BY bucket_ms DESC LIMIT 1",
	/* Ticks in a full minute: the sample interval where retention left no raw ticks to measure it. */
	[S_ROLLUP_MAXN] = "SELECT MAX(n) FROM tick_rollup WHERE run_id = ?1 AND tier = " MINUTE " AND bucket_ms BETWEEN ?2 AND ?3",
	[S_ROLLED_UPTO] = "SELECT next_ms FROM rollup_state WHERE run_id = ?1 AND tier = ?2",
};

/* One bound of the run's data in [lo, hi] from a statement taking (run, lo, hi): 1 with *v, 0, -1. */
static int bound(struct query *q, enum stmt_id id, int64_t run_id, int64_t lo, int64_t hi, int64_t *v)
{
	sqlite3_stmt *st = stmt(q, id);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	return one_i64(q, st, v);
}

/*
 * Resolve rg against the run's data: from/to become the first and last
 * sample inside the bounds (raw ticks, or minute rollups where retention
 * deleted the raw rows), bucket_ms the bucket width.  *raw_first is the
 * first raw tick in the window, *rollup_first the first minute rollup (-1
 * if none).  1 when the window holds data, 0 when it holds none, -1 on error.
 */
int range_resolve(struct query *q, int64_t run_id, struct query_range *rg, int64_t *raw_first,
		  int64_t *rollup_first)
{
	int64_t lo = rg->from_ms < 0 ? 0 : rg->from_ms;
	int64_t hi = rg->to_ms < 0 ? INT64_MAX : rg->to_ms;
	int64_t first = -1, last = -1, rfirst, rlast, n, span, bucket;
	sqlite3_stmt *st;
	int r;

	rg->bucket_ms = 0;
	rg->interval_ms = 0;
	*raw_first = -1;
	*rollup_first = -1;
	if (rg->max_points < 1) {
		snprintf(q->err, sizeof q->err, "max_points must be >= 1");
		return -1;
	}
	if (lo > hi)
		return 0;
	if ((r = bound(q, S_FIRST_SAMPLE, run_id, lo, hi, &first)) < 0 ||
	    (r && bound(q, S_LAST_SAMPLE, run_id, lo, hi, &last) < 0))
		return -1;
	*raw_first = first;
	if (q->has_rollup) {
		if ((r = bound(q, S_ROLLUP_FIRST, run_id, lo, hi, &rfirst)) < 0 ||
		    (r && bound(q, S_ROLLUP_LAST, run_id, lo, hi, &rlast) < 0))
			return -1;
		if (r)
			*rollup_first = rfirst;
		if (r && (first < 0 || rfirst < first))
			first = rfirst;
		if (r && rlast > last)
			last = rlast;
	}
	if (first < 0)
		return 0;
	if (*raw_first >= 0) {
		if (!(st = stmt(q, S_INTERVAL)))
			return -1;
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, *raw_first);
		sqlite3_bind_int64(st, 3, last);
		r = sqlite3_step(st);
		if (step_err(q, st, r) < 0)
			return -1;
		n = sqlite3_column_int64(st, 0);
		rg->interval_ms = n >= 2 ? (sqlite3_column_int64(st, 2) - sqlite3_column_int64(st, 1) + n - 2) / (n - 1) : 0;
		done(st);
	}
	if (!rg->interval_ms && *rollup_first >= 0) {
		int64_t maxn = 0;
		if ((r = bound(q, S_ROLLUP_MAXN, run_id, first, last, &maxn)) < 0)
			return -1;
		if (r && maxn > 0)
			rg->interval_ms = STORE_TIER_MINUTE_MS / maxn;
	}
	span = last - first + 1;
	bucket = span / rg->max_points + (span % rg->max_points != 0);
	/* A bucket narrower than the sample interval would only add empty buckets. */
	if (bucket < rg->interval_ms)
		bucket = rg->interval_ms;
	rg->from_ms = first;
	rg->to_ms = last;
	rg->bucket_ms = bucket < 1 ? 1 : bucket;
	return 1;
}

/* The tier policy (see the top of this file): 0 (raw ticks) or STORE_TIER_MINUTE_MS / STORE_TIER_HOUR_MS. */
static int64_t range_tier(enum tier_use use, const struct tier_window *w)
{
	int raw_missing;

	if (use == TIER_TREND)
		return w->rollup_first >= 0 && w->rollup_last - w->rollup_first > TREND_HOUR_SPAN_MS ?
		       STORE_TIER_HOUR_MS : STORE_TIER_MINUTE_MS;
	if (w->rollup_first < 0)
		return 0;   /* no rollup in the window (none yet, or a schema without them) */
	/* Raw rows that start more than a minute into the window lack part of it (retention deleted them). */
	raw_missing = w->raw_first < 0 || w->raw_first > w->from_ms + STORE_TIER_MINUTE_MS;
	if (!raw_missing && w->to_ms - w->from_ms < RAW_SPAN_MAX_MS)
		return 0;
	if (w->bucket_ms >= HOUR_BUCKET_MIN_MS)
		return STORE_TIER_HOUR_MS;
	/* 6 hours and more: at most a point a minute (max_points is a bound), not 260,000 raw rows a day. */
	return STORE_TIER_MINUTE_MS;
}

int range_series(struct query *q, int64_t run_id, struct query_range *rg, int64_t *tier)
{
	struct tier_window w = { .rollup_last = -1 };
	int r;

	if ((r = range_resolve(q, run_id, rg, &w.raw_first, &w.rollup_first)) <= 0)
		return r;
	w.from_ms = rg->from_ms;
	w.to_ms = rg->to_ms;
	w.bucket_ms = rg->bucket_ms;
	*tier = range_tier(TIER_SERIES, &w);
	if (rg->bucket_ms < *tier)
		rg->bucket_ms = *tier;
	return 1;
}

int range_trend_tier(struct query *q, int64_t run_id, int64_t lo, int64_t hi, int64_t *tier)
{
	struct tier_window w = { .raw_first = -1, .rollup_first = -1, .rollup_last = -1 };

	if (bound(q, S_ROLLUP_FIRST, run_id, lo, hi, &w.rollup_first) < 0 ||
	    bound(q, S_ROLLUP_LAST, run_id, lo, hi, &w.rollup_last) < 0)
		return -1;
	*tier = range_tier(TIER_TREND, &w);
	return 0;
}

/* How far tier is rolled up for run_id (0 when not at all); -1 on error. */
static int64_t rolled_upto(struct query *q, int64_t run_id, int64_t tier)
{
	sqlite3_stmt *st = stmt(q, S_ROLLED_UPTO);
	int64_t upto = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, tier);
	return one_i64(q, st, &upto) < 0 ? -1 : upto;
}

static int64_t ceil_to(int64_t t, int64_t w)
{
	return t % w ? t - t % w + w : t;
}

/*
 * Split [lo, hi] for totals into whole hours the hour rollup holds, whole
 * minutes the minute rollup holds around them, and raw rows for the rest
 * (rollup buckets are written only once complete).  A 30-day total reads
 * ~720 hour rows, up to ~120 minute rows and a minute of raw ticks at each
 * end instead of 2.6 million ticks.  Pieces in time order; count or -1.
 */
int range_split(struct query *q, int64_t run_id, int64_t lo, int64_t hi, struct part p[5])
{
	int64_t mup = rolled_upto(q, run_id, STORE_TIER_MINUTE_MS), hup, a, b, ha, hb;
	int64_t end = hi == INT64_MAX ? INT64_MAX : hi + 1;
	int n = 0;

	if (mup < 0 || (hup = rolled_upto(q, run_id, STORE_TIER_HOUR_MS)) < 0)
		return -1;
	a = ceil_to(lo, STORE_TIER_MINUTE_MS);
	b = end == INT64_MAX ? mup : end - end % STORE_TIER_MINUTE_MS;
	if (b > mup)
		b = mup;
	if (b <= a) {
		p[0] = (struct part){ lo, end, 0 };
		return 1;
	}
	ha = ceil_to(a, STORE_TIER_HOUR_MS);
	hb = b - b % STORE_TIER_HOUR_MS;
	if (hb > hup)
		hb = hup - hup % STORE_TIER_HOUR_MS;
	if (lo < a)
		p[n++] = (struct part){ lo, a, 0 };
	if (ha < hb) {
		if (a < ha)
			p[n++] = (struct part){ a, ha, STORE_TIER_MINUTE_MS };
		p[n++] = (struct part){ ha, hb, STORE_TIER_HOUR_MS };
		if (hb < b)
			p[n++] = (struct part){ hb, b, STORE_TIER_MINUTE_MS };
	} else {
		p[n++] = (struct part){ a, b, STORE_TIER_MINUTE_MS };
	}
	if (b < end)
		p[n++] = (struct part){ b, end, 0 };
	return n;
}
