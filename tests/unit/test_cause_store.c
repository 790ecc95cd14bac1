/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_cause_store: classified failures through the store: written as given
 * (v_failure_causes), counted per hour in the rollups as ticks close their
 * buckets, read back per hour by query_cause_hours from the rollups and the raw
 * rows past them, and the same counts after retention deleted the raw rows;
 * report_causes' totals on top.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "report/causes.h"
#include "store/query.h"
#include "store/store.h"
#include "tests/unit/test.h"

#define T0 INT64_C(1700000000000)     /* 22:13:20 UTC: the hours are not aligned with the run */
#define STEP 20000                    /* a tick every 20 s */
#define TICKS 540                     /* 3 h */

static char dir[] = "/tmp/test_cause_store.XXXXXX";
static sqlite3 *db;

static int64_t q1(const char *sql)
{
	sqlite3_stmt *s;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return -2;
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* What tick i carries: a module fragmentation at order 9 every 7th tick, a kmsg watermark at order 0
 * every 11th, a trace unknown at order 20 (counted as 15) every 50th. */
static int failures_at(int i, struct store_failure_cause *f)
{
	int n = 0;

	if (i % 7 == 0)
		f[n++] = (struct store_failure_cause){ .ts_ms = T0 + (int64_t)i * STEP, .source = 3, .pid = 42,
						       .order = 9, .cause = 2, .node = 0, .zone = "DMA32",
						       .free_kb = 8000, .min_kb = 1024, .largest_order = 8, .has_lag = 1,
						       .lag_ms = 3, .note = "TRY: test", .comm = "fpusoakd", .comm_len = 8,
						       .gfp_flags = "__GFP_HIGH|__GFP_NOWARN" };
	if (i % 11 == 0)
		f[n++] = (struct store_failure_cause){ .ts_ms = T0 + (int64_t)i * STEP - 5, .source = 1, .pid = -1,
						       .order = 0, .cause = 1, .node = -1, .free_kb = -1, .min_kb = -1,
						       .largest_order = -1, .has_lag = 1 };
	if (i % 50 == 0)
		f[n++] = (struct store_failure_cause){ .ts_ms = T0 + (int64_t)i * STEP, .source = 2, .pid = 7,
						       .order = 20, .cause = 0, .node = -1, .free_kb = -1, .min_kb = -1,
						       .largest_order = -1, .note = "no zone state within 1 s" };
	return n;
}

static int hours_cb(void *arg, const struct query_cause_hour *h)
{
	int64_t (*sum)[4] = arg;

	sum[h->source - 1][h->cause] += h->failures;
	return 0;
}

/* query_cause_hours' totals by source and cause against the counts made here. */
static void check_hours(struct query *q, int64_t run, const char *what)
{
	int64_t sum[3][4] = { { 0 } };
	int64_t want_m = 0, want_k = 0, want_t = 0;

	for (int i = 0; i < TICKS; i++) {
		want_m += i % 7 == 0;
		want_k += i % 11 == 0;
		want_t += i % 50 == 0;
	}
	T_CHECK(query_cause_hours(q, run, hours_cb, sum) > 0, "%s: hours read", what);
	T_EQ_I(sum[2][2], want_m, "%s: module fragmentation", what);
	T_EQ_I(sum[0][1], want_k, "%s: kmsg watermark", what);
	T_EQ_I(sum[1][0], want_t, "%s: trace unknown", what);
}

int main(void)
{
	char path[256], err[512];
	struct store *st;
	struct query *q;
	struct report_causes *rc = calloc(1, sizeof *rc);
	int64_t run, n, total = 0;

	if (!mkdtemp(dir) || !rc)
		return 1;
	snprintf(path, sizeof path, "%s/c.db", dir);
	st = store_open(path, 1 << 22, err, sizeof err);
	T_CHECK(st != NULL, "open (%s)", st ? "ok" : err);
	if (!st)
		T_DONE();
	struct store_run r = { .label = "c", .kernel_release = "6.1.0", .started_ms = T0 };
	T_EQ_I(store_run_begin(st, &r, &run), 0, "run begins");
	for (int i = 0; i < TICKS; i++) {
		struct store_tick *t = store_tick_new(st, run, T0 + (int64_t)i * STEP);
		struct store_failure_cause f[3];
		int nf = failures_at(i, f);
		for (int k = 0; k < nf; k++)
			store_tick_failure_cause(t, &f[k]);
		if (store_submit(st, t) != 0)
			T_CHECK(0, "tick %d written", i);
	}
	store_rollup(st, run, INT64_MAX);
	store_flush(st);
	sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	T_EQ_I(q1("SELECT count(*) FROM v_failure_causes"), q1("SELECT sum(failures) FROM v_failure_causes_1h"),
	       "v_failure_causes_1h counts every row");
	T_EQ_I(q1("SELECT count(*) FROM v_failure_causes WHERE source = 'module' AND cause = 'fragmentation' AND zone = 'DMA32'"
		  " AND free_kb = 8000 AND min_kb = 1024 AND largest_usable_order = 8 AND lag_ms = 3 AND pid = 42"
		  " AND comm = CAST('fpusoakd' AS BLOB) AND gfp_flags = '__GFP_HIGH|__GFP_NOWARN'"),
	       q1("SELECT count(*) FROM failure_cause WHERE source = 3"), "a module row round-trips every column");
	T_EQ_I(q1("SELECT count(*) FROM v_failure_causes WHERE source = 'kmsg' AND zone IS NULL AND free_kb IS NULL AND"
		  " largest_usable_order IS NULL AND pid IS NULL AND comm IS NULL AND lag_ms = 0"),
	       q1("SELECT count(*) FROM failure_cause WHERE source = 1"), "absent values are NULL, a lag of 0 is 0");
	T_EQ_I(q1("SELECT count(*) FROM v_failure_causes WHERE source = 'trace' AND lag_ms IS NULL AND page_order = 20"),
	       q1("SELECT count(*) FROM failure_cause WHERE source = 2"), "no lag is NULL; the order is kept as given");
	T_EQ_I(q1("SELECT count(*) FROM v_failure_causes_1h WHERE source = 'trace' AND page_order <> 15"), 0,
	       "the hourly counts put order 20 in 15");
	sqlite3_close(db);

	q = query_open(path, err, sizeof err);
	T_CHECK(q != NULL, "query_open (%s)", q ? "ok" : err);
	check_hours(q, run, "before retention");
	T_EQ_I(report_causes(q, run, -1, -1, rc), 0, "report_causes");
	T_CHECK(rc->have && rc->hours_total == 4, "report_causes: 4 hours touched by a 3 h run not aligned on the hour (%d)",
		rc->hours_total);
	T_EQ_I(rc->by_order[2][2][9], rc->total[2][2], "report_causes: every module fragmentation at order 9");
	{
		char line[256];
		int64_t ord[REPORT_CAUSE_ORDERS] = { 0 };
		T_EQ_I(report_cause_line(rc, 0, line, sizeof line), 0, "the summary's first line");
		T_EQ_S(line, "failure causes (kernel log): 50", "... the kernel log's count");
		T_EQ_I(report_cause_line(rc, 1, line, sizeof line), 0, "... its causes");
		T_EQ_S(line, "  watermark     50 (o0 50)", "... watermark with its orders");
		T_EQ_I(report_cause_line(rc, 2, line, sizeof line), 0, "the trace's count");
		T_EQ_I(report_cause_line(rc, 3, line, sizeof line), 0, "... its causes");
		T_EQ_S(line, "  unknown       11 (o15+ 11)", "... unknown, order 20 shown as 15 and above");
		T_EQ_I(report_cause_line(rc, 5, line, sizeof line), 0, "the module's fragmentation");
		T_EQ_S(line, "  fragmentation 78 (o9 78)", "... 78 of them at order 9");
		T_EQ_I(report_cause_line(rc, 6, line, sizeof line), -1, "and no more lines");
		ord[3] = 2;
		ord[9] = 10;
		ord[0] = 2;
		T_EQ_S(report_cause_orders(ord, line, sizeof line), "o9 10, o0 2, o3 2", "orders: most first, ties by order");
		T_CHECK(report_cause_module("alternate") && report_cause_module("off") &&
			!report_cause_module("off (module not loaded)") && !report_cause_module(NULL),
			"the module was loaded: any mode but 'off (why)'");
	}
	T_EQ_I(report_causes(q, run, T0 + 3600000, T0 + 2 * 3600000 - 1, rc), 0, "report_causes, a window");
	T_CHECK(rc->hours_total == 2, "... the hours overlapping one hour not aligned on the hour: 2 (%d)", rc->hours_total);
	query_close(q);

	/* Retention at 2 h: the raw rows go, the hour counts stay. */
	while ((n = store_retain(st, T0 + 2 * 3600000)) > 0)
		total += n;
	sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	T_EQ_I(q1("SELECT count(*) FROM failure_cause WHERE ts_ms < 1700007200000"), 0,
	       "retention deleted the classified rows older than the cutoff");
	T_CHECK(total > 0 && q1("SELECT count(*) FROM failure_cause") > 0, "... and kept the newer ones");
	sqlite3_close(db);
	q = query_open(path, err, sizeof err);
	check_hours(q, run, "after retention");
	query_close(q);
	store_close(st);
	free(rc);
	snprintf(path, sizeof path, "rm -rf %s", dir);
	if (system(path) != 0)
		T_CHECK(0, "cleanup");
	T_DONE();
}
