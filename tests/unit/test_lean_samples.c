/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_lean_samples: schema 019's sample row through the real writer.  The
 * meminfo and hot vmstat columns are stored less their minute's key, the rare
 * churn counts in churn_rare, the request verdict as a requests row; the
 * public views must still print exactly what was submitted.  Checked with the
 * sqlite3 CLI, independently of the store reader: a key missing a field, a
 * tick without meminfo, a wall clock stepping back into an earlier minute
 * that replaces a tick, the run's verdicts numbered once each, and a
 * transaction that fails after its minute's key row went in (the retry must
 * write the key again, not trust the writer's memory of it).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "test.h"

static char dir[] = "/tmp/fpusoak-test-lean-XXXXXX";
static char path[256];

static int64_t q1(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t v = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return -2;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW)
			v = sqlite3_column_type(s, 0) == SQLITE_NULL ? -3 : sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
	return v;
}

#define T0 INT64_C(1700000020000)   /* 20 s before a minute starts */
#define NTICK 150

static int64_t ts_of(int i)
{
	return T0 + (int64_t)i * 1000;
}

/* The values of tick i (v = 0 when the tick has none of them). */
static int has_meminfo(int i)
{
	return i != 20;                /* 20 opens the second minute: its key has no meminfo */
}

static int64_t memfree(int i)
{
	return 8000000 - 37 * (int64_t)i * i + (i % 7) * 1000;
}

static int64_t cached(int i)
{
	return i < 100 ? 100000 : 90000;   /* a field that moves once */
}

static uint64_t pgfault(int i)
{
	return UINT64_C(5000000000) + (uint64_t)i * 4321;   /* past 32 bits, as a day-old counter is */
}

static uint64_t oom(int i)
{
	return i % 17 == 3 ? (uint64_t)(i / 17 + 1) : 0;   /* a rare count: nonzero in a few ticks */
}

static int verdict(int i)
{
	return i < 50 ? 0 : i < 90 ? 1 : i < 120 ? 0 : 2;   /* three verdicts, the first coming back */
}

static int submit(struct store *st, int64_t run, int64_t ts, int i, uint64_t oom_v)
{
	struct store_tick *t = store_tick_new(st, run, ts);
	struct kv_set mi = { 0 }, vm = { 0 };
	struct store_churn c = { .population = 30 + (uint64_t)(i % 3), .spawned = (uint64_t)(i % 2), .exited = 1,
				 .oom_killed = oom_v, .probe_population = i >= 140 ? 5 : 0 };
	struct store_request r = { 0 };
	int v = verdict(i);

	if (!t)
		return -1;
	if (has_meminfo(i)) {
		mi.n = 2;
		strcpy(mi.e[0].name, "MemFree");
		mi.e[0].value = (uint64_t)memfree(i);
		strcpy(mi.e[1].name, "Cached");
		mi.e[1].value = (uint64_t)cached(i);
		store_tick_meminfo(st, t, &mi);
	}
	vm.n = 1;
	strcpy(vm.e[0].name, "pgfault");
	vm.e[0].value = pgfault(i);
	store_tick_vmstat(st, t, &vm);
	store_tick_churn(t, &c);
	r.atomic_mask = v == 2 ? 0x3 : 0x7;
	r.nowait_mask = v == 1 ? 0x1 : 0x7;
	r.kernel_mask = 0x7;
	for (int k = 0; k < 3; k++) {
		r.node[k] = 0;
		r.zone[k] = k < 2 || v != 2 ? "Normal" : NULL;
	}
	store_tick_request(st, t, 3, &r);
	store_tick_cost(t, 40);
	return store_submit(st, t);
}

int main(void)
{
	char err[512], sql[512];
	struct store *st;
	struct store_run run = { .label = "lean", .kernel_release = "6.1.0", .started_ms = T0, .mem_total_kb = 65536 };
	int64_t id;
	int ok = 1, bad = -1;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/l.db", dir);
	st = store_open(path, 1 << 20, err, sizeof err);
	T_CHECK(st != NULL, "open (%s)", st ? "ok" : err);
	if (!st)
		T_DONE();
	T_EQ_I(store_run_begin(st, &run, &id), 0, "run begins");
	for (int i = 0; i < NTICK; i++)
		ok &= submit(st, id, ts_of(i), i, oom(i)) == 0;
	T_CHECK(ok, "%d ticks over three minutes written", NTICK);
	/* The clock steps back into the first minute: tick 3 again, without its rare count. */
	T_EQ_I(submit(st, id, ts_of(3), 3, 0), 0, "a tick replaced after the clock stepped back");
	T_EQ_I(store_run_end(st, id, ts_of(NTICK), "stopped"), 0, "run ends");

	T_EQ_I(q1("SELECT count(*) FROM v_samples"), NTICK, "one sample row a tick");
	T_EQ_I(q1("SELECT count(*) FROM sample_key"), 4, "a key a minute touched (20 s + 60 + 60 + 10 s)");
	T_EQ_I(q1("SELECT count(*) FROM sample_key WHERE mem_free IS NULL"), 1, "the minute opened by a tick without meminfo "
	       "has a key without it");
	/* Every value the views print is the one submitted. */
	for (int i = 0; i < NTICK; i++) {
		snprintf(sql, sizeof sql, "SELECT coalesce((SELECT value_kb FROM v_meminfo WHERE name = 'MemFree' AND "
			 "ts_ms = %lld), -1) * 1000000 + coalesce((SELECT value_kb FROM v_meminfo WHERE name = 'Cached' AND "
			 "ts_ms = %lld), -1)", (long long)ts_of(i), (long long)ts_of(i));
		int64_t want = has_meminfo(i) ? memfree(i) * 1000000 + cached(i) : -1000001;
		if (q1(sql) != want && bad < 0)
			bad = i;
		snprintf(sql, sizeof sql, "SELECT value FROM v_vmstat WHERE name = 'pgfault' AND ts_ms = %lld",
			 (long long)ts_of(i));
		if (q1(sql) != (int64_t)pgfault(i) && bad < 0)
			bad = 1000 + i;
		snprintf(sql, sizeof sql, "SELECT oom_killed * 1000 + population * 10 + spawned + probe_population * 100000 "
			 "FROM v_churn WHERE ts_ms = %lld", (long long)ts_of(i));
		int64_t o = i == 3 ? 0 : (int64_t)oom(i);
		if (q1(sql) != o * 1000 + (30 + i % 3) * 10 + i % 2 + (i >= 140 ? 5 : 0) * 100000 && bad < 0)
			bad = 2000 + i;
		snprintf(sql, sizeof sql, "SELECT group_concat(atomic_ok || nowait_ok || kernel_ok || coalesce(zone_used, '-'), "
			 "' ') FROM (SELECT * FROM v_atomic_request WHERE ts_ms = %lld ORDER BY page_order)", (long long)ts_of(i));
		{
			sqlite3 *db;
			sqlite3_stmt *s;
			char wreq[128];
			int v = verdict(i), same = 0;
			unsigned am = v == 2 ? 0x3 : 0x7, nm = v == 1 ? 0x1 : 0x7;
			wreq[0] = 0;
			for (int k = 0; k < 3; k++)
				snprintf(wreq + strlen(wreq), sizeof wreq - strlen(wreq), "%s%u%u1%s", k ? " " : "",
					 am >> k & 1, nm >> k & 1, k == 2 && v == 2 ? "-" : "Normal");
			if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
			    sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
				same = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0) &&
				       strcmp((const char *)sqlite3_column_text(s, 0), wreq) == 0;
				sqlite3_finalize(s);
			}
			sqlite3_close(db);
			if (!same && bad < 0)
				bad = 3000 + i;
		}
	}
	T_EQ_I(bad, -1, "v_meminfo, v_vmstat, v_churn and v_atomic_request print every tick as submitted "
	       "(first wrong: %d; 1000+ vmstat, 2000+ churn, 3000+ request)", bad);
	T_EQ_I(q1("SELECT count(*) FROM requests"), 3, "three verdicts, three requests rows");
	T_EQ_I(q1("SELECT count(*) FROM samples WHERE req_id = (SELECT req_id FROM samples WHERE ts_ms = 1700000020000)"),
	       50 + 30, "the first verdict's id reused when it comes back");
	T_EQ_I(q1("SELECT group_concat(req_id, '') FROM (SELECT DISTINCT req_id FROM requests ORDER BY req_id)"), 123,
	       "numbered 1, 2, 3 in order of first use");
	{
		int n = 0;
		for (int i = 0; i < NTICK; i++)
			n += i != 3 && oom(i) != 0;
		T_EQ_I(q1("SELECT count(*) FROM churn_rare WHERE oom_killed <> 0"), n, "a churn_rare row only where a rare "
		       "count is not zero");
		T_EQ_I(q1("SELECT count(*) FROM churn_rare"), n + 1 + 10, "... plus the replaced tick's and the probe's ticks");
	}
	{
		int64_t most = 0;
		for (int i = 0; i < 20; i++)
			most = llabs(memfree(i) - memfree(0)) > most ? llabs(memfree(i) - memfree(0)) : most;
		T_EQ_I(q1("SELECT max(abs(mem_free)) FROM samples WHERE ts_ms < 1700000040000"), most,
		       "the first minute's rows hold differences from its first tick, not values");
		T_EQ_I(q1("SELECT count(*) FROM samples WHERE ts_ms >= 1700000041000 AND ts_ms < 1700000100000 "
			  "AND mem_free > 7000000"), 59, "after a key without meminfo, the minute's rows hold the values");
	}
	/* A transaction that fails after its minute's key row went in: the retry must write the key again,
	 * not reuse the one the rollback took away.  A trigger refuses sample rows while inject has a row. */
	{
		struct store_run run2 = run;
		int64_t id2, t2 = ts_of(NTICK) + 600000 - ts_of(NTICK) % 60000;   /* a minute's start, later */
		sqlite3 *db = NULL;
		int armed = sqlite3_open(path, &db) == SQLITE_OK &&
			    sqlite3_exec(db, "CREATE TABLE inject (x); INSERT INTO inject VALUES (1);"
					 "CREATE TRIGGER inject_fail BEFORE INSERT ON samples WHEN EXISTS (SELECT 1 FROM inject)"
					 " BEGIN SELECT RAISE(ABORT, 'injected'); END", NULL, NULL, NULL) == SQLITE_OK;
		run2.started_ms = t2;
		T_CHECK(armed, "a trigger refuses sample rows");
		T_EQ_I(store_run_begin(st, &run2, &id2), 0, "a second run begins");
		T_EQ_I(submit(st, id2, t2, 0, 0), 1, "its first tick stays queued: the transaction failed after the key");
		snprintf(sql, sizeof sql, "SELECT count(*) FROM sample_key WHERE run_id = %lld", (long long)id2);
		T_EQ_I(q1(sql), 0, "nothing of it committed, its key row neither");
		sqlite3_exec(db, "DELETE FROM inject", NULL, NULL, NULL);
		sqlite3_close(db);
		for (int i = 1; i < 5; i++)
			submit(st, id2, t2 + i * 1000, i, 0);
		T_EQ_I(store_flush(st), 0, "disarmed: the queue lands");
		snprintf(sql, sizeof sql, "SELECT count(*) FROM sample_key WHERE run_id = %lld AND bucket_ms = %lld",
			 (long long)id2, (long long)t2);
		T_EQ_I(q1(sql), 1, "the minute's key written again by the retry");
		snprintf(sql, sizeof sql, "SELECT count(*) FROM v_meminfo WHERE run_id = %lld AND name = 'MemFree' AND "
			 "value_kb = 8000000 - 37 * ((ts_ms - %lld) / 1000) * ((ts_ms - %lld) / 1000) + "
			 "(((ts_ms - %lld) / 1000) %% 7) * 1000", (long long)id2, (long long)t2, (long long)t2, (long long)t2);
		T_EQ_I(q1(sql), 5, "and every tick of it reads back as submitted");
	}
	store_close(st);
	snprintf(sql, sizeof sql, "rm -rf '%s'", dir);
	T_EQ_I(system(sql), 0, "temp dir removed");
	T_DONE();
}
