/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_query: the read side of the store against a DB of known content
 * (testdb.h).  Expected values come from the formulas that filled the DB
 * (hand-computable) and from the sqlite3 CLI, never from query.c itself.
 */
#include <math.h>

#include "test.h"
#include "testdb.h"
#include "store/query.h"
#include "store/store.h"
#include <sys/stat.h>

struct runs_seen {
	int n;
	int64_t ids[8];
	int64_t samples[8];
	int label1_ok;
	int ended_null;
};

static int runs_cb(void *arg, const struct query_run *r)
{
	struct runs_seen *s = arg;

	if (s->n < 8) {
		s->ids[s->n] = r->run_id;
		s->samples[s->n] = r->nsamples;
	}
	s->n++;
	if (r->run_id == 1)
		s->label1_ok = r->label && strcmp(r->label, tdb_label1) == 0 && r->page_size == 4096 &&
			       r->first_sample_ms == TDB_T1 && r->last_sample_ms == testdb_ts(1, TDB_N1 - 1) &&
			       r->end_reason && strcmp(r->end_reason, "stopped") == 0;
	if (r->run_id == 3)
		s->ended_null = r->ended_ms == -1 && r->end_reason == NULL;
	return 0;
}

static int stop_cb(void *arg, const struct query_run *r)
{
	(void)arg;
	(void)r;
	return 1;
}

#define MAXP 4096
struct bseries {
	int n;
	int64_t ts[MAXP];
	int node[MAXP];
	char zone[MAXP][16];
	double f[MAXP][BUDDY_MAX_ORDER];
	int norders[MAXP];
};

static int buddy_cb(void *arg, const struct query_buddy_point *p)
{
	struct bseries *s = arg;

	if (s->n == MAXP)
		return -1;
	s->ts[s->n] = p->ts_ms;
	s->node[s->n] = p->node;
	snprintf(s->zone[s->n], sizeof s->zone[0], "%s", p->zone);
	s->norders[s->n] = p->norders;
	memcpy(s->f[s->n], p->free, sizeof p->free);
	s->n++;
	return 0;
}

struct pseries {
	int n;
	int64_t ts[MAXP];
	double v[MAXP];
};

static int point_cb(void *arg, const struct query_point *p)
{
	struct pseries *s = arg;

	if (s->n == MAXP)
		return -1;
	s->ts[s->n] = p->ts_ms;
	s->v[s->n] = p->v;
	s->n++;
	return 0;
}

static int fail_cb(void *arg, const struct query_alloc_failure *f)
{
	struct fails { int n; int64_t ts[4], order[4]; char comm[4][64]; size_t len[4]; } *fl = arg;

	if (fl->n == 4 || f->comm_len >= 64)
		return -1;
	fl->ts[fl->n] = f->ts_ms;
	fl->order[fl->n] = f->order;
	memcpy(fl->comm[fl->n], f->comm, f->comm_len);
	fl->len[fl->n] = f->comm_len;
	fl->n++;
	return 0;
}

/* Tick index of run 1 at ts (exact 1000 ms spacing). */
static int tick1(int64_t ts)
{
	return (int)((ts - TDB_T1) / 1000);
}

static int exists(const char *db, const char *suffix)
{
	char p[300];
	struct stat sb;

	snprintf(p, sizeof p, "%s%s", db, suffix);
	return stat(p, &sb) == 0;
}

static int count_cb(void *arg, const struct query_run *r)
{
	(void)r;
	(*(int *)arg)++;
	return 0;
}

/*
 * A reader writes nothing beside the file while no writer has it (immutable open), sees a writer
 * appear (query_stale, query_writer_active) and reads the ordinary way once a -wal file exists.
 */
static void test_no_side_files(const char *db)
{
	char err[256];
	struct query *q, *q2;
	struct store *st;
	int n = 0;

	T_CHECK(!exists(db, "-wal") && !exists(db, "-shm"), "no -wal or -shm beside the closed test DB");
	q = query_open(db, err, sizeof err);
	T_CHECK(q && query_runs(q, count_cb, &n) == 3, "read it (%s)", q ? "3 runs" : err);
	T_CHECK(!exists(db, "-wal") && !exists(db, "-shm"), "reading it created no -wal or -shm file");
	T_EQ_I(query_writer_active(q), 0, "no writer holds it");
	T_EQ_I(query_stale(q), 0, "the handle is not stale");
	st = store_open(db, 1 << 20, err, sizeof err);
	T_CHECK(st != NULL, "a writer opens it (%s)", st ? "" : err);
	T_EQ_I(query_writer_active(q), 1, "the writer's flock is seen");
	T_EQ_I(query_stale(q), 1, "the immutable handle is stale once the writer made a -wal file");
	q2 = query_open(db, err, sizeof err);
	n = 0;
	T_CHECK(q2 && query_runs(q2, count_cb, &n) == 3, "a handle opened now reads the ordinary way (%s)", q2 ? "" : err);
	T_EQ_I(query_stale(q2), 0, "and is not stale");
	store_close(st);
	T_EQ_I(query_writer_active(q2), 0, "the writer's lock is gone after it closed");
	query_close(q2);
	query_close(q);
}

int main(void)
{
	char dir[] = "/tmp/test_query.XXXXXX", db[256], err[256], cmd[512];
	static struct bseries bs;
	static struct pseries ps;
	struct runs_seen rs = { 0 };
	struct buddyinfo bi;
	struct query *q;
	struct query_range rg;
	int64_t id, ts;
	int n, ok;

	if (!mkdtemp(dir) || testdb_create(dir, db, sizeof db) < 0) {
		T_CHECK(0, "create the test database");
		T_DONE();
	}

	/* open */
	q = query_open("/nonexistent/dir/x.db", err, sizeof err);
	T_CHECK(q == NULL && strstr(err, "/nonexistent/dir/x.db"), "open of a missing file fails and names it (%s)", err);
	/* Issue 31: a directory was a "disk I/O error", a damaged file "prepare: file is not a database". */
	q = query_open("/tmp", err, sizeof err);
	T_CHECK(q == NULL && strstr(err, "/tmp is a directory"), "a directory says so (%s)", err);
	{
		char junk[300];
		FILE *f;
		snprintf(junk, sizeof junk, "%s/junk.db", dir);
		if ((f = fopen(junk, "w"))) {
			fputs("this is not a database, but it is longer than SQLite's 16-byte header\n", f);
			fclose(f);
		}
		q = query_open(junk, err, sizeof err);
		T_CHECK(q == NULL && strstr(err, "is not an SQLite database") && !strstr(err, "prepare"),
			"a file that is not SQLite says so (%s)", err);
		unlink(junk);
	}
	snprintf(cmd, sizeof cmd, "sqlite3 %s/other.db 'CREATE TABLE t(x)'", dir);
	T_CHECK(system(cmd) == 0, "make a non-fpusoakd database");
	snprintf(cmd, sizeof cmd, "%s/other.db", dir);
	q = query_open(cmd, err, sizeof err);
	T_CHECK(q == NULL && strstr(err, "not an fpusoakd database"), "a DB without runs is refused (%s)", err);
	query_close(NULL);
	q = query_open(db, err, sizeof err);
	T_CHECK(q != NULL, "open the test DB read-only (%s)", q ? "" : err);
	if (!q)
		T_DONE();

	T_EQ_I(query_has_table(q, "buddy"), 1, "has_table buddy");
	T_EQ_I(query_has_table(q, "v_buddyinfo"), 1, "has_table finds views");
	T_EQ_I(query_has_table(q, "no_such_table"), 0, "has_table of a missing table");
	T_EQ_I(query_schema_version(q), testdb_cli(db, "PRAGMA user_version"), "schema version = PRAGMA user_version (CLI)");
	T_EQ_I(query_has_name(q, "vmstat", "compact_stall"), 1, "has_name vmstat compact_stall");
	T_EQ_I(query_has_name(q, "meminfo", "compact_stall"), 0, "has_name is per source");
	/* Schema 6 keeps these as samples columns, with no row in names: the API must still know them. */
	T_EQ_I(query_has_name(q, "vmstat", "pgfault"), 1, "has_name knows a hot vmstat counter (samples column)");
	T_EQ_I(query_has_name(q, "vmstat", "pgalloc_normal"), 1, "has_name knows pgalloc_normal");
	T_EQ_I(query_has_name(q, "meminfo", "pgfault"), 0, "a hot vmstat counter is not a meminfo field");

	/* runs */
	T_EQ_I(query_latest_run(q, &id), 1, "latest run found");
	T_EQ_I(id, 3, "latest run is the highest id");
	n = query_runs(q, runs_cb, &rs);
	T_EQ_I(n, 3, "three runs listed");
	T_CHECK(rs.ids[0] == 3 && rs.ids[1] == 2 && rs.ids[2] == 1, "runs newest first");
	T_EQ_I(rs.samples[2], testdb_cli(db, "SELECT COUNT(*) FROM samples WHERE run_id=1"), "run 1 sample count = CLI");
	T_EQ_I(rs.samples[0], TDB_N2, "run 3 sample count");
	T_EQ_I(rs.samples[1], 0, "run 2 has no samples");
	T_CHECK(rs.label1_ok, "run 1: hostile label bytes, page size, sample span and end reason as stored");
	T_CHECK(rs.ended_null, "run 3: NULL ended_ms is -1 and NULL end_reason is NULL");
	T_EQ_I(query_run(q, 3, runs_cb, &rs), 1, "query_run finds run 3");
	T_EQ_I(query_run(q, 999, runs_cb, &rs), 0, "query_run of a missing run is 0");
	T_EQ_I(query_runs(q, stop_cb, NULL), -1, "a callback can stop a listing (-1)");
	T_EQ_I(query_latest_run(q, &id), 1, "the handle works after a stopped listing");

	/* latest buddyinfo */
	T_EQ_I(query_buddy_latest(q, 1, &bi, &ts), 1, "latest buddyinfo of run 1");
	T_EQ_I(ts, testdb_ts(1, TDB_N1 - 1), "its time is the last tick");
	T_EQ_I(bi.nzones, 4, "four zones");
	T_EQ_I(bi.norders, TDB_NORDERS, "eleven orders");
	T_CHECK(strcmp(bi.z[3].zone, tdb_zone4) == 0 && bi.z[3].node == 1, "zone 4 name and node as stored");
	ok = 1;
	for (int z = 0; z < 4; z++)
		for (int k = 0; k < TDB_NORDERS; k++)
			ok &= (int64_t)bi.z[z].free[k] == testdb_free(1, TDB_N1 - 1, z + 1, k);
	T_CHECK(ok, "every free count of the latest snapshot equals the formula");
	T_EQ_I(query_buddy_latest(q, 2, &bi, &ts), 0, "no buddyinfo for a run without ticks");

	/* buddy series at full resolution: one bucket per tick */
	memset(&bs, 0, sizeof bs);
	rg = (struct query_range){ -1, -1, 10000, 0, 0 };
	n = query_buddy_series(q, 1, &rg, buddy_cb, &bs);
	T_EQ_I(n, TDB_N1 * 4, "full resolution: ticks x zones rows");
	T_EQ_I(rg.bucket_ms, 1000, "bucket = sample interval");
	T_EQ_I(rg.interval_ms, 1000, "interval estimated as 1000 ms");
	T_EQ_I(rg.from_ms, TDB_T1, "from resolved to the first tick");
	T_EQ_I(rg.to_ms, testdb_ts(1, TDB_N1 - 1), "to resolved to the last tick");
	ok = n == TDB_N1 * 4;
	for (int j = 0; j < n && ok; j++) {
		int i = tick1(bs.ts[j]), z = j % 4 + 1;
		for (int k = 0; k < TDB_NORDERS; k++)
			ok &= bs.f[j][k] == (double)testdb_free(1, i, z, k);
		ok &= bs.norders[j] == TDB_NORDERS && bs.f[j][TDB_NORDERS] == 0;
	}
	T_CHECK(ok, "every point equals the formula, zones in kernel order, 0 past norders");
	T_CHECK(strcmp(bs.zone[3], tdb_zone4) == 0 && bs.node[3] == 1, "zone names and nodes carried");

	/* buddy series downsampled: averages by hand */
	memset(&bs, 0, sizeof bs);
	rg = (struct query_range){ -1, -1, 10, 0, 0 };
	n = query_buddy_series(q, 1, &rg, buddy_cb, &bs);
	/* span 599001 ms / 10 points: bucket ceil(59900.1) = 59901 ms */
	T_EQ_I(rg.bucket_ms, 59901, "bucket width = ceil(span / max_points)");
	T_EQ_I(n, 10 * 4, "ten buckets per zone");
	ok = n == 40;
	for (int j = 0; j < n && ok; j++) {
		int b = j / 4, z = j % 4 + 1;
		/* ticks i with floor(i*1000 / 59901) == b */
		for (int k = 0; k < TDB_NORDERS; k++) {
			double sum = 0;
			int cnt = 0;
			for (int i = 0; i < TDB_N1; i++)
				if ((int64_t)i * 1000 / 59901 == b) {
					sum += (double)testdb_free(1, i, z, k);
					cnt++;
				}
			ok &= cnt > 0 && fabs(bs.f[j][k] - sum / cnt) < 1e-9;
		}
		ok &= bs.ts[j] == TDB_T1 + ((int64_t)b * 59901 + 999) / 1000 * 1000;
	}
	T_CHECK(ok, "bucket averages and bucket start times equal a hand computation");

	/* windows */
	memset(&bs, 0, sizeof bs);
	rg = (struct query_range){ TDB_T1 + 100000, TDB_T1 + 199999, 10000, 0, 0 };
	n = query_buddy_series(q, 1, &rg, buddy_cb, &bs);
	T_EQ_I(n, 100 * 4, "a 100-second window holds 100 ticks per zone");
	T_EQ_I(bs.ts[0], TDB_T1 + 100000, "window starts at its first tick");
	rg = (struct query_range){ TDB_T1 - 10000000, TDB_T1 - 5000000, 100, 0, 0 };
	T_EQ_I(query_buddy_series(q, 1, &rg, buddy_cb, &bs), 0, "a window before the run has no rows");
	T_EQ_I(rg.bucket_ms, 0, "and no bucket");
	rg = (struct query_range){ TDB_T1 + 5000, TDB_T1, 100, 0, 0 };
	T_EQ_I(query_buddy_series(q, 1, &rg, buddy_cb, &bs), 0, "from > to has no rows");
	rg = (struct query_range){ -1, -1, 0, 0, 0 };
	T_EQ_I(query_buddy_series(q, 1, &rg, buddy_cb, &bs), -1, "max_points 0 is an error");

	/* meminfo */
	memset(&ps, 0, sizeof ps);
	rg = (struct query_range){ -1, -1, 10000, 0, 0 };
	n = query_meminfo_series(q, 1, "MemFree", &rg, point_cb, &ps);
	T_EQ_I(n, TDB_N1, "MemFree: one point per tick");
	ok = n == TDB_N1;
	for (int j = 0; j < n && ok; j++)
		ok &= ps.v[j] == 4000000.0 - 100.0 * tick1(ps.ts[j]);
	T_CHECK(ok, "MemFree values equal the formula");
	memset(&ps, 0, sizeof ps);
	rg = (struct query_range){ TDB_T1, TDB_T1 + 99999, 2, 0, 0 };
	n = query_meminfo_series(q, 1, "MemAvailable", &rg, point_cb, &ps);
	/* ticks 0..99, span 99001 ms, bucket 49501: ticks 0..49 and 50..99 */
	T_EQ_I(n, 2, "MemAvailable in two buckets");
	T_CHECK(n == 2 && ps.v[0] == 6000000.0 - 50.0 * 24.5 && ps.v[1] == 6000000.0 - 50.0 * 74.5,
		"bucket means 6000000 - 50 x 24.5 and 6000000 - 50 x 74.5 (got %.1f %.1f)", ps.v[0], ps.v[1]);
	rg = (struct query_range){ -1, -1, 100, 0, 0 };
	T_EQ_I(query_meminfo_series(q, 1, "NoSuchField", &rg, point_cb, &ps), 0, "an unknown meminfo name has no rows");

	/* vmstat rates, full resolution: compact_stall +3 at every 10th tick, 1 s apart */
	memset(&ps, 0, sizeof ps);
	rg = (struct query_range){ -1, -1, 10000, 0, 0 };
	n = query_vmstat_rate(q, 1, "compact_stall", &rg, point_cb, &ps);
	T_EQ_I(n, TDB_N1 - 1, "a rate per tick after the first (the baseline)");
	ok = n == TDB_N1 - 1;
	for (int j = 0; j < n && ok; j++) {
		int i = tick1(ps.ts[j]);
		ok &= ps.v[j] == (i % 10 == 0 ? 3.0 : 0.0);
	}
	T_CHECK(ok, "rate is 3/s at ticks i %% 10 == 0, else 0");
	/* downsampled: the rates integrate to the counter's increase over the window */
	memset(&ps, 0, sizeof ps);
	rg = (struct query_range){ -1, -1, 10, 0, 0 };
	n = query_vmstat_rate(q, 1, "compact_stall", &rg, point_cb, &ps);
	{
		double integral = 0;
		int64_t prev = TDB_T1;
		for (int j = 0; j < n; j++) {
			integral += ps.v[j] * (double)(ps.ts[j] - prev) / 1000.0;
			prev = ps.ts[j];
		}
		T_EQ_I(n, 10, "ten rate points");
		T_CHECK(fabs(integral - (double)(testdb_stall(TDB_N1 - 1) - testdb_stall(0))) < 1e-6,
			"sum of rate x dt = counter increase %lld (got %.6f)",
			(long long)(testdb_stall(TDB_N1 - 1) - testdb_stall(0)), integral);
	}
	/* a window starting mid-run takes its baseline from the tick before it */
	memset(&ps, 0, sizeof ps);
	rg = (struct query_range){ TDB_T1 + 10000, TDB_T1 + 19999, 10000, 0, 0 };
	n = query_vmstat_rate(q, 1, "compact_stall", &rg, point_cb, &ps);
	T_CHECK(n == 10 && ps.v[0] == 3.0 && ps.v[1] == 0.0, "mid-run window: tick 10's change is counted (n=%d v0=%g)",
		n, n ? ps.v[0] : -1.0);
	/* jittered run 3: pgfault +1000 per tick; rate = 1000 / dt exactly */
	memset(&ps, 0, sizeof ps);
	rg = (struct query_range){ -1, -1, 10000, 0, 0 };
	n = query_vmstat_rate(q, 3, "pgfault", &rg, point_cb, &ps);
	/* first 101 ticks: (ts(100) - ts(0)) / 100 = (100000 + 700 % 10 - 0) / 100 = 1000 */
	T_EQ_I(rg.interval_ms, 1000, "jittered interval estimate: mean gap of the first 100");
	ok = n > 0;
	{
		double integral = 0;
		int64_t prev = TDB_T2;
		for (int j = 0; j < n; j++) {
			integral += ps.v[j] * (double)(ps.ts[j] - prev) / 1000.0;
			prev = ps.ts[j];
		}
		T_CHECK(fabs(integral - 1000.0 * (TDB_N2 - 1)) < 1e-6, "jittered run: rates integrate to the increase "
			"(%.3f)", integral);
		for (int j = 0; j < n; j++)
			ok &= ps.v[j] > 900 && ps.v[j] < 1100;
		T_CHECK(ok, "jittered ticks never show as 0 or 2x rates (%d points)", n);
	}
	/* a counter stored once a minute (keyframes only): constant, rate 0 */
	memset(&ps, 0, sizeof ps);
	rg = (struct query_range){ -1, -1, 50, 0, 0 };
	n = query_vmstat_rate(q, 1, "compact_fail", &rg, point_cb, &ps);
	ok = n > 0;
	for (int j = 0; j < n; j++)
		ok &= ps.v[j] == 0;
	T_CHECK(ok, "a counter that did not move has rate 0 (%d points)", n);
	rg = (struct query_range){ -1, -1, 50, 0, 0 };
	T_EQ_I(query_vmstat_rate(q, 2, "compact_stall", &rg, point_cb, &ps), 0, "no rates for a run without ticks");

	/* allocation failures (a BLOB comm, newest first, a limit with the total) */
	{
		struct fails { int n; int64_t ts[4], order[4]; char comm[4][64]; size_t len[4]; } fl = { 0 };
		int64_t total;
		n = query_alloc_failures(q, 1, -1, -1, 100, &total, fail_cb, &fl);
		T_CHECK(n == 3 && total == 3, "three alloc_fail events (the oom_kill is not one): %d, total %lld", n,
			(long long)total);
		T_CHECK(fl.ts[0] == testdb_ts(1, 300) && fl.order[0] == 9 && fl.ts[2] == testdb_ts(1, 100), "newest first");
		T_CHECK(fl.len[2] == strlen(tdb_comm1) && memcmp(fl.comm[2], tdb_comm1, fl.len[2]) == 0,
			"comm bytes as stored, invalid UTF-8 included");
		memset(&fl, 0, sizeof fl);
		n = query_alloc_failures(q, 1, testdb_ts(1, 150), -1, 1, &total, fail_cb, &fl);
		T_CHECK(n == 1 && total == 2 && fl.order[0] == 9, "a window and a limit: 1 row of 2 (%d, %lld)", n,
			(long long)total);
	}
	query_close(q);

	/*
	 * Retention: minute rollups for run 1 (built here from v_frag_x1000 with
	 * our own SQL), then its raw ticks of the first 5 minutes deleted.  The
	 * whole-run series must still start at T1, reading the minute tier.
	 */
	{
		sqlite3 *rw;
		int ok2 = sqlite3_open(db, &rw) == SQLITE_OK &&
			  testdb_exec(rw, "DELETE FROM buddy_rollup WHERE run_id = 1") == 0 &&   /* testdb's own: rebuilt here */
			  testdb_exec(rw, "INSERT INTO buddy_rollup (run_id, tier, bucket_ms, zone_id, page_order, n, free_min, "
				      "free_max, free_sum, free_last, head_min, head_max, head_sum, head_last, unusable_max) "
				      "SELECT run_id, 60000, ts_ms / 60000 * 60000, zone_id, "
				      "page_order, COUNT(*), MIN(free_blocks), MAX(free_blocks), SUM(free_blocks), 0, 0, 0, 0, "
				      "0, 0 FROM v_frag_x1000 WHERE run_id = 1 GROUP BY ts_ms / 60000, zone_id, page_order") == 0 &&
			  testdb_exec(rw, "DELETE FROM buddy WHERE run_id = 1 AND ts_ms < 1717243500000") == 0 &&
			  testdb_exec(rw, "DELETE FROM samples WHERE run_id = 1 AND ts_ms < 1717243500000") == 0;
		sqlite3_close(rw);
		T_CHECK(ok2, "build minute rollups of run 1 and delete its first 5 minutes of raw rows");
	}
	q = query_open(db, err, sizeof err);
	T_CHECK(q != NULL, "reopen");
	if (!q)
		T_DONE();
	memset(&bs, 0, sizeof bs);
	rg = (struct query_range){ -1, -1, 10000, 0, 0 };
	n = query_buddy_series(q, 1, &rg, buddy_cb, &bs);
	T_EQ_I(rg.from_ms, TDB_T1, "after retention the series still starts at T1 (from the rollups)");
	T_EQ_I(rg.bucket_ms, 60000, "and reads minute buckets");
	T_EQ_I(n, 10 * 4, "ten minutes x four zones");
	ok = n == 40;
	for (int j = 0; j < n && ok; j++) {
		int m = j / 4, z = j % 4 + 1;
		for (int k = 0; k < TDB_NORDERS; k++) {
			double sum = 0;
			for (int i = 60 * m; i < 60 * m + 60; i++)
				sum += (double)testdb_free(1, i, z, k);
			ok &= fabs(bs.f[j][k] - sum / 60) < 1e-9;
		}
		ok &= bs.ts[j] == TDB_T1 + 60000 * m;
	}
	T_CHECK(ok, "each minute point is the mean of its 60 ticks (by hand)");
	memset(&bs, 0, sizeof bs);
	rg = (struct query_range){ -1, -1, 3, 0, 0 };
	n = query_buddy_series(q, 1, &rg, buddy_cb, &bs);
	/* bucket ceil(599001 / 3) = 199667 ms: minutes 0-3, 4-6, 7-9 (by their start) */
	T_EQ_I(n, 3 * 4, "three buckets of rollups");
	{
		double sum = 0;
		for (int i = 0; i < 240; i++)
			sum += (double)testdb_free(1, i, 3, 5);
		T_CHECK(n == 12 && fabs(bs.f[2][5] - sum / 240) < 1e-9, "a bucket of 4 minutes: tick-weighted mean "
			"of 240 ticks (Normal, order 5)");
	}
	memset(&bs, 0, sizeof bs);
	rg = (struct query_range){ TDB_T1 + 420000, -1, 10000, 0, 0 };
	n = query_buddy_series(q, 1, &rg, buddy_cb, &bs);
	T_CHECK(n == 180 * 4 && rg.bucket_ms == 1000, "a window inside the raw era still reads raw ticks (%d rows)", n);
	query_close(q);
	test_no_side_files(db);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		T_CHECK(0, "remove %s", dir);
	T_DONE();
}
