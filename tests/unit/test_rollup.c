/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_rollup: minute and hour rollups equal aggregates computed straight
 * from the raw rows with independent SQL, and retention deletes raw rows
 * older than the cutoff (only those, and never ones not yet rolled up).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "collector/kv.h"
#include "store/query.h"
#include "store/store.h"
#include "test.h"

static sqlite3 *db;

static int64_t q1(const char *sql)
{
	sqlite3_stmt *s;
	int64_t v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
		printf("      sql error: %s\n", sqlite3_errmsg(db));
		return -2;
	}
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

struct atom { int n; int64_t samples[4], risk[4], kfail[4], margin[4]; };

static int atom_cb(void *arg, const struct query_atomic *a)
{
	struct atom *t = arg;
	if (t->n == 4)
		return -1;
	t->samples[t->n] = a->samples;
	t->risk[t->n] = a->risk;
	t->kfail[t->n] = a->kernel_fail;
	t->margin[t->n] = a->has_margin ? a->min_margin : -999999;
	t->n++;
	return 0;
}

/* The reader's totals over [from, to] (raw + minute + hour pieces) against plain SQL over the views. */
static void check_totals(const char *path, int64_t from, int64_t to, const char *what)
{
	char err[256], sql[512];
	struct query *q = query_open(path, err, sizeof err);
	struct query_churn c;
	struct atom a = { 0 };
	long long q_from, q_to;

	T_CHECK(q != NULL, "query_open (%s)", q ? "ok" : err);
	if (!q)
		return;
	q_from = from < 0 ? 0 : from;      /* -1: open ends, as query.h has it */
	q_to = to < 0 ? INT64_MAX : to;
	T_EQ_I(query_churn_totals(q, 1, from, to, &c), 1, "%s: churn totals found", what);
	snprintf(sql, sizeof sql, "SELECT sum(spawned) * 1000000 + sum(exited) * 1000 + count(*) FROM v_churn"
		 " WHERE ts_ms BETWEEN %lld AND %lld", q_from, q_to);
	T_EQ_I(c.c[0] * 1000000 + c.c[4] * 1000 + c.rows, q1(sql), "%s: spawned, exited, rows = raw sums", what);
	T_CHECK(query_atomic_summary(q, 1, 3, from, to, atom_cb, &a) == 2, "%s: atomic summary, 2 zones", what);
	for (int z = 0; z < a.n && z < 2; z++) {
		snprintf(sql, sizeof sql, "SELECT count(*) * 1000000 + sum(atomic_ok = 0 AND kernel_ok = 1) * 1000"
			 " + sum(kernel_ok = 0) FROM v_atomic_risk WHERE zone = '%s' AND page_order = 3 AND ts_ms"
			 " BETWEEN %lld AND %lld", z == 0 ? "DMA32" : "Normal", q_from, q_to);
		T_EQ_I(a.samples[z] * 1000000 + a.risk[z] * 1000 + a.kfail[z], q1(sql), "%s: zone %d ticks, risk, kernel"
		       " failures = raw", what, z);
		snprintf(sql, sizeof sql, "SELECT min(margin_pages) FROM v_atomic_risk WHERE zone = '%s' AND"
			 " page_order = 3 AND ts_ms BETWEEN %lld AND %lld", z == 0 ? "DMA32" : "Normal", q_from, q_to);
		T_EQ_I(a.margin[z], q1(sql), "%s: zone %d smallest margin = raw", what, z);
	}
	query_close(q);
}

struct span { int64_t first, last; int exact; };

static int span_cb(void *arg, const struct query_run *r)
{
	struct span *s = arg;

	s->first = r->first_sample_ms;
	s->last = r->last_sample_ms;
	s->exact = r->span_exact;
	return 0;
}

/* Run 1's extent and span_exact as query_run reads them from the DB at path: 1, or 0 when it could not. */
static int span_of(const char *path, struct span *sp)
{
	char err[256];
	struct query *q = query_open(path, err, sizeof err);
	int ok = q && query_run(q, 1, span_cb, sp) == 1;

	if (q)
		query_close(q);
	return ok;
}

/* The run's exact tick span (query_run), and the request summary at order 3 over [from, to] against raw SQL. */
static void check_span_request(const char *path, int64_t first, int64_t last, int64_t from, int64_t to, int raw,
			       const char *what)
{
	char err[256], sql[512];
	struct query *q = query_open(path, err, sizeof err);
	struct span sp = { -1, -1, -1 };
	struct query_request rq = { 0 };

	T_CHECK(q != NULL, "%s: query_open: %s", what, q ? "ok" : err);
	if (!q)
		return;
	T_EQ_I(query_run(q, 1, span_cb, &sp), 1, "%s: the run is found", what);
	T_EQ_I(sp.first, first, "%s: first sample = the first tick (not its minute's start)", what);
	T_EQ_I(sp.last, last, "%s: last sample = the last tick (not its minute's end)", what);
	T_EQ_I(sp.exact, 1, "%s: the span is exact", what);
	T_EQ_I(query_request_summary(q, 1, 3, from, to, &rq), 1, "%s: request summary found", what);
	if (raw) {
		snprintf(sql, sizeof sql, "SELECT count(*) * 1000000000 + sum(atomic_ok = 0) * 1000000 + sum(atomic_ok = 0"
			 " AND kernel_ok = 1) * 1000 + sum(nowait_ok = 0 AND kernel_ok = 1) FROM v_atomic_request WHERE"
			 " page_order = 3 AND ts_ms BETWEEN %lld AND %lld", (long long)(from < 0 ? INT64_MIN : from),
			 (long long)(to < 0 ? INT64_MAX : to));
		T_EQ_I(rq.samples * 1000000000 + rq.atomic_fail * 1000000 + rq.atomic_only * 1000 + rq.nowait_only, q1(sql),
		       "%s: request ticks, atomic failures, atomic-only, nowait-only = v_atomic_request", what);
	}
	T_CHECK(rq.atomic_only > 0 && rq.nowait_only >= rq.atomic_only && rq.kernel_fail > 0,
		"%s: the request data has every kind (%lld atomic-only, %lld nowait-only, %lld kernel fails)", what,
		(long long)rq.atomic_only, (long long)rq.nowait_only, (long long)rq.kernel_fail);
	query_close(q);
}

int main(void)
{
	static struct buddyinfo bi;
	char dir[] = "/tmp/fpusoak-test-rollup-XXXXXX", path[256], err[256], cmd[300];
	const int64_t t0 = 1700000000000 - 1700000000000 % 3600000 + 1800000 + 1234;   /* mid-hour, mid-second start */
	const int ticks = 3 * 3600 / 5;     /* 3 hours of 5 s ticks */
	struct store *st;
	int64_t run;
	int pending = 0;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/r.db", dir);
	st = store_open(path, 1 << 20, err, sizeof err);
	struct store_run r = { .started_ms = t0 };
	store_run_begin(st, &r, &run);
	bi.nzones = 2;
	bi.norders = 11;
	strcpy(bi.z[0].zone, "DMA32");
	strcpy(bi.z[1].zone, "Normal");
	for (int i = 0; i < ticks; i++) {
		int64_t ts = t0 + (int64_t)i * 5000;
		struct store_tick *t = store_tick_new(st, run, ts);
		for (int z = 0; z < 2; z++)
			for (int k = 0; k < 11; k++)
				bi.z[z].free[k] = (uint64_t)((i * 7 + k * 13 + z * 101) % 97) * (uint64_t)(k + 1);
		store_tick_buddyinfo(st, t, &bi);
		/* meminfo, churn and atomic verdicts that vary tick by tick */
		struct kv_set mi = { 0 };
		snprintf(mi.e[0].name, sizeof mi.e[0].name, "MemFree");
		mi.e[0].value = (uint64_t)(4000000 - (i * 37) % 5000);
		snprintf(mi.e[1].name, sizeof mi.e[1].name, "Slab");
		mi.e[1].value = (uint64_t)(200000 + (i * 11) % 900);
		mi.n = 2;
		store_tick_meminfo(st, t, &mi);
		if (i % 7 != 3) {     /* some ticks without churn */
			struct store_churn c = { .population = (uint64_t)(i % 50), .spawned = (uint64_t)(i % 13),
						 .exited = (uint64_t)(i % 5), .killed_sigkill = (uint64_t)(i % 3 == 0) };
			store_tick_churn(t, &c);
		}
		/* the request through the zonelist: order 3 fails atomically every 5th tick, by nowait every 4th,
		 * and even for GFP_KERNEL every 11th */
		struct store_request rq = { .atomic_mask = 0x7ff & ~((uint32_t)(i % 5 == 0 || i % 11 == 0) << 3),
					    .nowait_mask = 0x7ff & ~((uint32_t)(i % 4 == 0 || i % 5 == 0 || i % 11 == 0) << 3),
					    .kernel_mask = 0x7ff & ~((uint32_t)(i % 11 == 0) << 3) };
		for (int k = 0; k < 11; k++) {
			rq.node[k] = 0;
			rq.zone[k] = (rq.atomic_mask >> k) & 1 ? "Normal" : NULL;
		}
		store_tick_request(st, t, 11, &rq);
		for (int z = 0; z < 2; z++)
			store_tick_atomic(st, t, 0, bi.z[z].zone, 11, (uint32_t)(0x7ff & ~((i % 9 == z) << 3)),
					  (uint32_t)(0x7ff & ~((i % 17 == 0) << 5)), 1000 - (i * 13) % 700,
					  2000 - (i * 5) % 900, 0);
		store_submit(st, t);
		pending += store_rollup(st, run, ts) == 1;
	}
	T_CHECK(store_rollup(st, run, INT64_MAX) == 0, "final rollup at run end (%d calls left work for later)", pending);
	sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);

	T_EQ_I(q1("SELECT count(DISTINCT ts_ms) FROM v_buddyinfo_1m"), q1("SELECT count(DISTINCT ts_ms / 60000) FROM v_samples"),
	       "one minute bucket per minute with samples");
	T_EQ_I(q1("SELECT count(DISTINCT ts_ms) FROM v_buddyinfo_1h"), 4, "3 h from mid-hour spans 4 hour buckets");
	/* Independent aggregates over the long-form raw views. */
	T_EQ_I(q1("SELECT count(*) FROM (SELECT node, zone, page_order, ts_ms / 60000 * 60000 AS b,"
		  " min(free_blocks) mn, max(free_blocks) mx, avg(free_blocks) av, count(*) n FROM v_buddyinfo GROUP BY 1, 2, 3, 4) raw"
		  " JOIN v_buddyinfo_1m m ON m.node = raw.node AND m.zone = raw.zone AND m.page_order = raw.page_order AND m.ts_ms = raw.b"
		  " WHERE m.free_blocks_min = raw.mn AND m.free_blocks_max = raw.mx AND abs(m.free_blocks_mean - raw.av) < 1e-9"
		  " AND m.samples = raw.n"),
	       q1("SELECT count(*) FROM v_buddyinfo_1m"), "every minute bucket: min/max/mean/n equal raw aggregates");
	T_EQ_I(q1("SELECT count(*) FROM v_buddyinfo_1m m WHERE m.free_blocks_last = (SELECT b.free_blocks FROM v_buddyinfo b"
		  " WHERE b.zone = m.zone AND b.page_order = m.page_order AND b.ts_ms / 60000 * 60000 = m.ts_ms ORDER BY b.ts_ms DESC LIMIT 1)"),
	       q1("SELECT count(*) FROM v_buddyinfo_1m"), "every minute bucket: last = the bucket's last raw value");
	T_EQ_I(q1("SELECT count(*) FROM (SELECT zone, page_order, ts_ms / 3600000 * 3600000 AS b, min(headroom_blocks) mn,"
		  " max(headroom_blocks) mx, avg(headroom_blocks) av, max(unusable_x1000) um FROM v_frag GROUP BY 1, 2, 3) raw"
		  " JOIN v_buddyinfo_1h h ON h.zone = raw.zone AND h.page_order = raw.page_order AND h.ts_ms = raw.b"
		  " WHERE h.headroom_min = raw.mn AND h.headroom_max = raw.mx AND abs(h.headroom_mean - raw.av) < 1e-6"
		  " AND round(h.unusable_index_max * 1000) = raw.um"),
	       q1("SELECT count(*) FROM v_buddyinfo_1h"), "every hour bucket: headroom min/max/mean and worst unusable index equal raw");
	/* The writer's tick rollups and atomic columns against the views' raw rows. */
	T_EQ_I(q1("SELECT count(*) FROM tick_rollup r WHERE tier = 60000 AND r.n = (SELECT count(*) FROM v_samples s"
		  " WHERE s.ts_ms / 60000 * 60000 = r.bucket_ms) AND r.mem_free_sum = (SELECT sum(value_kb) FROM v_meminfo m"
		  " WHERE m.name = 'MemFree' AND m.ts_ms / 60000 * 60000 = r.bucket_ms) AND r.slab_sum = (SELECT sum(value_kb)"
		  " FROM v_meminfo m WHERE m.name = 'Slab' AND m.ts_ms / 60000 * 60000 = r.bucket_ms) AND r.mem_total_sum IS NULL"),
	       q1("SELECT count(DISTINCT ts_ms / 60000) FROM v_samples"), "every minute: tick count and meminfo sums equal raw (absent field NULL)");
	T_EQ_I(q1("SELECT count(*) FROM tick_rollup r WHERE tier = 60000 AND r.churn_n = (SELECT count(*) FROM v_churn c"
		  " WHERE c.ts_ms / 60000 * 60000 = r.bucket_ms) AND r.spawned_sum IS (SELECT sum(spawned) FROM v_churn c"
		  " WHERE c.ts_ms / 60000 * 60000 = r.bucket_ms) AND r.killed_sigkill_sum IS (SELECT sum(killed_sigkill)"
		  " FROM v_churn c WHERE c.ts_ms / 60000 * 60000 = r.bucket_ms) AND r.population_max IS (SELECT max(population)"
		  " FROM v_churn c WHERE c.ts_ms / 60000 * 60000 = r.bucket_ms)"),
	       q1("SELECT count(*) FROM tick_rollup WHERE tier = 60000"), "every minute: churn sums and population max equal raw");
	T_EQ_I(q1("SELECT count(*) FROM tick_rollup h WHERE tier = 3600000 AND h.n = (SELECT sum(n) FROM tick_rollup m"
		  " WHERE m.tier = 60000 AND m.bucket_ms / 3600000 * 3600000 = h.bucket_ms) AND h.exited_sum = (SELECT"
		  " sum(exited) FROM v_churn c WHERE c.ts_ms / 3600000 * 3600000 = h.bucket_ms)"), 4,
	       "every hour: tick count = its minutes', churn sums equal raw");
	T_EQ_I(q1("SELECT count(*) FROM buddy_rollup r JOIN zones z USING (zone_id) WHERE r.atomic_n = (SELECT count(*)"
		  " FROM v_atomic_risk a WHERE a.zone = z.name AND a.page_order = r.page_order AND a.ts_ms / r.tier * r.tier"
		  " = r.bucket_ms) AND r.atomic_only_n = (SELECT sum(atomic_ok = 0 AND kernel_ok = 1) FROM v_atomic_risk a"
		  " WHERE a.zone = z.name AND a.page_order = r.page_order AND a.ts_ms / r.tier * r.tier = r.bucket_ms)"
		  " AND r.kernel_fail_n = (SELECT sum(kernel_ok = 0) FROM v_atomic_risk a WHERE a.zone = z.name AND"
		  " a.page_order = r.page_order AND a.ts_ms / r.tier * r.tier = r.bucket_ms) AND r.margin_min = (SELECT"
		  " min(margin_pages) FROM v_atomic_risk a WHERE a.zone = z.name AND a.page_order = r.page_order AND"
		  " a.ts_ms / r.tier * r.tier = r.bucket_ms)"),
	       q1("SELECT count(*) FROM buddy_rollup"), "every minute and hour bucket: atomic-risk counts and margins equal raw");
	T_CHECK(q1("SELECT sum(atomic_only_n) FROM buddy_rollup WHERE tier = 60000") > 0 &&
		q1("SELECT sum(kernel_fail_n) FROM buddy_rollup WHERE tier = 60000") > 0, "the atomic data has both kinds of failure");
	T_EQ_I(q1("SELECT count(*) FROM buddy_wide_rollup w JOIN buddy_rollup r USING (run_id, tier, bucket_ms, zone_id)"
		  " WHERE r.n = w.n AND r.page_order < w.norders AND r.free_sum = CASE r.page_order WHEN 0 THEN w.f0 WHEN 3"
		  " THEN w.f3 WHEN 10 THEN w.f10 ELSE r.free_sum END AND r.head_sum = CASE r.page_order WHEN 1 THEN w.h1"
		  " WHEN 7 THEN w.h7 ELSE r.head_sum END AND r.unusable_max = CASE r.page_order WHEN 2 THEN w.u2 WHEN 9"
		  " THEN w.u9 ELSE r.unusable_max END"), q1("SELECT count(*) FROM buddy_rollup"),
	       "the wide rollup rows hold the same sums and worst indices as the per-order rows");
	T_EQ_I(q1("SELECT count(*) FROM buddy_wide_rollup WHERE norders = 11 AND f11 IS NULL AND f10 IS NOT NULL"),
	       q1("SELECT count(DISTINCT tier || ' ' || bucket_ms || ' ' || zone_id) FROM buddy_rollup"),
	       "one wide row per bucket and zone, NULL past norders");
	T_EQ_I(q1("SELECT ticks FROM runs"), ticks, "runs.ticks counts every tick");
	/* Windows that need every piece: whole run, hours + minutes + raw edges, inside one minute. */
	check_totals(path, -1, -1, "whole run");
	check_totals(path, t0 + 1234567, t0 + 2 * 3600000 + 2345678, "from mid-minute to mid-minute 2.6 h later");
	check_totals(path, t0 + 3600000 + 1000, t0 + 3600000 + 40000, "40 s inside a minute");
	const int64_t last = t0 + (int64_t)(ticks - 1) * 5000;
	check_span_request(path, t0, last, -1, -1, 1, "raw ticks");
	check_span_request(path, t0, last, t0 + 1234567, t0 + 2 * 3600000 + 2345678, 1, "raw ticks, a window");
	sqlite3_close(db);

	/* Retention: cut at 2 h; slices until nothing is left to delete. */
	int64_t cutoff = t0 + 2 * 3600000, total = 0, n;
	int64_t raw_before;
	sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	raw_before = q1("SELECT count(*) FROM samples");
	sqlite3_close(db);
	while ((n = store_retain(st, cutoff)) > 0)
		total += n;
	T_EQ_I(n, 0, "retention reaches a fixed point");
	sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	char sql[256];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM samples WHERE ts_ms < %lld", (long long)cutoff);
	T_EQ_I(q1(sql), 0, "no raw sample older than the cutoff");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM buddy WHERE ts_ms < %lld", (long long)cutoff);
	T_EQ_I(q1(sql), 0, "no raw buddy row older than the cutoff");
	T_EQ_I(q1("SELECT count(*) FROM samples"), raw_before - (cutoff - t0 + 4999) / 5000, "every newer sample kept");
	T_EQ_I(q1("SELECT count(DISTINCT ts_ms) FROM v_buddyinfo_1h"), 4, "hour rollups kept after retention");
	int64_t minutes = 0, last_min = -1;
	for (int i = 0; i < ticks; i++)
		if ((t0 + (int64_t)i * 5000) / 60000 != last_min) {
			last_min = (t0 + (int64_t)i * 5000) / 60000;
			minutes++;
		}
	T_EQ_I(q1("SELECT count(DISTINCT ts_ms) FROM v_buddyinfo_1m"), minutes, "minute rollups kept after retention");
	T_CHECK(total > 0, "retention deleted %lld rows in slices", (long long)total);
	/* After retention the first tick is gone from samples: its minute rollup kept it (first_ms), and the
	 * request counts of the deleted hours come from request_rollup. */
	T_CHECK(q1("SELECT min(ts_ms) FROM samples") > t0, "retention deleted the first tick");
	check_span_request(path, t0, last, -1, -1, 0, "after retention");
	{
		char err2[256];
		struct query *q = query_open(path, err2, sizeof err2);
		struct query_request all = { 0 };
		if (q && query_request_summary(q, 1, 3, -1, -1, &all) == 1) {
			int64_t nt = 0, af = 0, ao = 0, no = 0, kf = 0;
			for (int i = 0; i < ticks; i++) {
				int a = i % 5 == 0 || i % 11 == 0, w = a || i % 4 == 0, k = i % 11 == 0;
				nt++;
				af += a;
				ao += a && !k;
				no += w && !k;
				kf += k;
			}
			T_EQ_I(all.samples, nt, "after retention: request ticks over the run = every tick");
			T_EQ_I(all.atomic_fail * 1000000 + all.atomic_only * 1000 + all.nowait_only, af * 1000000 + ao * 1000 + no,
			       "after retention: atomic failures, atomic-only, nowait-only = the hand count");
			T_EQ_I(all.kernel_fail, kf, "after retention: GFP_KERNEL failures = the hand count");
		} else
			T_CHECK(0, "after retention: request summary");
		if (q)
			query_close(q);
	}
	{
		/*
		 * Minute buckets written before schema 7 keep no tick span: where their raw ticks are gone the
		 * bucket's bounds stand in for the extent, and span_exact says it is not exact.
		 */
		char c2[512];
		struct span sp = { -1, -1, -1 };
		int64_t b0 = q1("SELECT min(bucket_ms) FROM tick_rollup WHERE run_id = 1 AND tier = 60000");
		snprintf(c2, sizeof c2, "sqlite3 %s 'UPDATE tick_rollup SET first_ms = NULL, last_ms = NULL'", path);
		T_EQ_I(system(c2), 0, "clear the rollups' tick spans (as schema 6 wrote them)");
		T_CHECK(span_of(path, &sp), "query_run on pre-7 buckets");
		T_EQ_I(sp.first, b0, "pre-7 buckets: the extent starts at the first bucket's start");
		T_EQ_I(sp.last, last, "pre-7 buckets: the extent ends at the last raw tick");
		T_EQ_I(sp.exact, 0, "pre-7 buckets: the span is not exact");
	}
	{
		/*
		 * span_exact looks only at the buckets that could hold an end.  A minute inside the raw ticks'
		 * span whose ticks are gone and whose bucket keeps no tick span lies between the first and the
		 * last raw tick, so its bounds are no end: the span stays exact.  (Before, any such bucket made
		 * it inexact, at the cost of reading every bucket of the run.)
		 */
		char c3[768];
		struct span sp = { -1, -1, -1 };
		int64_t b0 = q1("SELECT min(bucket_ms) FROM tick_rollup WHERE run_id = 1 AND tier = 60000");
		int64_t first_raw = q1("SELECT min(ts_ms) FROM samples WHERE run_id = 1");
		int64_t mid = q1("SELECT bucket_ms FROM tick_rollup WHERE run_id = 1 AND tier = 60000 AND bucket_ms > "
				 "(SELECT min(ts_ms) FROM samples) ORDER BY bucket_ms LIMIT 1 OFFSET 2");
		T_CHECK(mid > first_raw && mid + 60000 <= last, "a minute well inside the raw ticks (%lld)", (long long)mid);
		snprintf(c3, sizeof c3,
			 "sqlite3 %s 'UPDATE tick_rollup SET first_ms = bucket_ms, last_ms = bucket_ms + 59999 WHERE tier = 60000 "
			 "AND bucket_ms <= %lld; DELETE FROM samples WHERE ts_ms >= %lld AND ts_ms < %lld'",
			 path, (long long)first_raw, (long long)mid, (long long)(mid + 60000));
		T_EQ_I(system(c3), 0, "the first buckets keep a tick span again; a middle minute loses its raw ticks");
		T_CHECK(span_of(path, &sp), "query_run with a hole inside the raw span");
		T_EQ_I(sp.first, b0, "the extent starts at the first bucket's first tick");
		T_EQ_I(sp.last, last, "... and ends at the last raw tick");
		T_EQ_I(sp.exact, 1, "a bucket inside the raw span cannot be an end: the span is exact");
		snprintf(c3, sizeof c3, "sqlite3 %s 'UPDATE tick_rollup SET first_ms = NULL, last_ms = NULL WHERE tier = 60000 "
			 "AND bucket_ms = %lld'", path, (long long)b0);
		T_EQ_I(system(c3), 0, "the first bucket loses its tick span");
		T_CHECK(span_of(path, &sp), "query_run again");
		T_EQ_I(sp.exact, 0, "... and its bounds are the start: not exact");
	}
	sqlite3_close(db);
	store_close(st);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	T_DONE();
}
