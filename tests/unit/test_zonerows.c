/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_zonerows: a zone's buddyinfo and atomic-risk rows are stored when they
 * change (schema 006), and the views still give every tick its values.
 *
 * Every tick submitted is also kept here (the truth); after quiet zones,
 * changes, a zone missing from a tick, an hour without change (keyframe), a
 * wall clock stepped back over written ticks, a transaction that fails after
 * a zone row was written (and its retry), and retention, v_buddyinfo and
 * v_atomic_risk must equal the truth at every tick, and the tables must hold
 * fewer rows than ticks x zones.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "store/store.h"
#include "test.h"

#define NZ 3
#define NTICK 600
#define STEP_MS 10000            /* 600 ticks: 100 minutes, past the hourly keyframe */
#define T0 1700000000000LL

static const char *const ZN[NZ] = { "DMA", "DMA32", "Normal" };

/* What one tick said, per zone; present = 0: the zone was not in the tick. */
struct truth {
	int64_t ts;
	int present[NZ];
	uint64_t free[NZ][11];
	uint32_t amask[NZ];
	int64_t margin0[NZ];
};

static struct truth tt[NTICK + 64];
static int ntt;
static sqlite3 *g_db;
static char g_path[256];

static int64_t q1(const char *sql)
{
	sqlite3_stmt *s;
	int64_t v = -1;

	if (sqlite3_prepare_v2(g_db, sql, -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW)
			v = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	return v;
}

/*
 * The values tick i carries: DMA never moves, DMA32 every 97 ticks, Normal on 1 tick in 3; with
 * salt, Normal holds one value (so after a clock step back, the old changes at 21, 24, 27 would show
 * through unless the writer rewrites every tick at or before the last row it wrote).
 */
static void make(struct truth *w, int64_t ts, int i, uint64_t salt)
{
	memset(w, 0, sizeof *w);
	w->ts = ts;
	for (int z = 0; z < NZ; z++) {
		uint64_t v = z == 0 ? 5 : z == 1 ? 300 + (uint64_t)(i / 97) : salt ? 21345 : 9000 + (uint64_t)(i / 3) * 7;
		w->present[z] = 1;
		for (int k = 0; k < 11; k++)
			w->free[z][k] = v + (uint64_t)k * (uint64_t)(z + 1);
		w->amask[z] = (uint32_t)(v % 2048);
		w->margin0[z] = (int64_t)v - 100;
	}
	if (i == 40 || i == 41)
		w->present[2] = 0;          /* Normal missing from two ticks: a gap, not stale counts */
}

static int submit(struct store *st, int64_t run, const struct truth *w)
{
	struct store_tick *t = store_tick_new(st, run, w->ts);
	struct buddyinfo bi;

	memset(&bi, 0, sizeof bi);
	bi.norders = 11;
	for (int z = 0; z < NZ; z++) {
		if (!w->present[z])
			continue;
		struct buddy_zone *b = &bi.z[bi.nzones++];
		snprintf(b->zone, sizeof b->zone, "%s", ZN[z]);
		memcpy(b->free, w->free[z], sizeof w->free[z]);
		store_tick_atomic(st, t, 0, ZN[z], 11, w->amask[z], w->amask[z] | 1u, w->margin0[z], w->margin0[z] - 50, 0);
	}
	store_tick_buddyinfo(st, t, &bi);
	store_tick_cost(t, 10);
	if (ntt < (int)(sizeof tt / sizeof tt[0]))
		tt[ntt++] = *w;
	return store_submit(st, t);
}

/* The newest truth for ts (a stepped-back clock rewrites a tick). */
static const struct truth *truth_at(int64_t ts)
{
	for (int i = ntt - 1; i >= 0; i--)
		if (tt[i].ts == ts)
			return &tt[i];
	return NULL;
}

/* Compare every stored tick at or after from_ts with the truth; returns the number of mismatches. */
static int compare(int64_t from_ts, int *ticks_seen)
{
	sqlite3_stmt *s;
	int bad = 0, n = 0;
	char sql[512];

	snprintf(sql, sizeof sql, "SELECT ts_ms FROM samples WHERE ts_ms >= %lld ORDER BY ts_ms", (long long)from_ts);
	if (sqlite3_prepare_v2(g_db, sql, -1, &s, NULL) != SQLITE_OK)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		int64_t ts = sqlite3_column_int64(s, 0);
		const struct truth *w = truth_at(ts);
		n++;
		if (!w) {
			bad++;
			continue;
		}
		for (int z = 0; z < NZ; z++) {
			char q[400];
			int64_t sum = 0, want = 0, nrow;
			for (int k = 0; k < 11; k++)
				want += (int64_t)w->free[z][k] * (k + 1);
			snprintf(q, sizeof q, "SELECT count(*) FROM v_buddyinfo WHERE ts_ms = %lld AND zone = '%s'",
				 (long long)ts, ZN[z]);
			nrow = q1(q);
			snprintf(q, sizeof q, "SELECT total(free_blocks * (page_order + 1)) FROM v_buddyinfo "
				 "WHERE ts_ms = %lld AND zone = '%s'", (long long)ts, ZN[z]);
			sum = q1(q);
			if (w->present[z] ? (nrow != 11 || sum != want) : nrow != 0) {
				if (bad < 5)
					printf("      tick %lld zone %s: %lld rows, weighted sum %lld, want %s %lld\n",
					       (long long)ts, ZN[z], (long long)nrow, (long long)sum,
					       w->present[z] ? "11 rows," : "no rows", (long long)want);
				bad++;
			}
			snprintf(q, sizeof q, "SELECT count(*) FROM v_atomic_risk WHERE ts_ms = %lld AND zone = '%s' AND "
				 "margin_pages = %lld - ((1 << page_order) - 1) AND atomic_ok = (%u >> page_order) & 1",
				 (long long)ts, ZN[z], (long long)w->margin0[z], w->amask[z]);
			if (q1(q) != (w->present[z] ? 11 : 0)) {
				if (bad < 5)
					printf("      tick %lld zone %s: atomic rows differ\n", (long long)ts, ZN[z]);
				bad++;
			}
		}
	}
	sqlite3_finalize(s);
	if (ticks_seen)
		*ticks_seen = n;
	return bad;
}

int main(void)
{
	char dir[] = "/tmp/fpusoak-test-zonerows-XXXXXX", err[256], cmd[300], sql[300];
	struct store *st;
	struct truth w;
	int64_t run, ts = T0;
	int seen = 0, i;

	if (!mkdtemp(dir))
		return 1;
	snprintf(g_path, sizeof g_path, "%s/z.db", dir);
	st = store_open(g_path, 16 << 20, err, sizeof err);
	T_CHECK(st != NULL, "store opens (%s)", st ? "ok" : err);
	if (!st)
		T_DONE();
	struct store_run r = { .label = "zonerows", .started_ms = T0 };
	store_run_begin(st, &r, &run);
	sqlite3_open_v2(g_path, &g_db, SQLITE_OPEN_READWRITE, NULL);
	sqlite3_busy_timeout(g_db, 2000);

	/* 1. Ticks 0..29, then the clock steps back 10 ticks: 20..29 are written again with other values. */
	for (i = 0; i < 30; i++, ts += STEP_MS) {
		make(&w, ts, i, 0);
		T_CHECK(submit(st, run, &w) == 0 || i != 0, "first tick written");
	}
	ts -= 10 * STEP_MS;
	for (i = 20; i < 321; i++, ts += STEP_MS) {
		make(&w, ts, i, i < 30);      /* salt: Normal steady where it changed the first time */
		submit(st, run, &w);
	}

	/* 2. A transaction that fails after it wrote zone rows: ticks A (321, where Normal changes) and B
	 *    queue behind a lock; B's sample insert is made to fail, so A's zone rows are rolled back and
	 *    must be written again (not skipped as "unchanged" on the retry). */
	sqlite3_exec(g_db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	int64_t tb = ts + STEP_MS;
	for (i = 321; i < 323; i++, ts += STEP_MS) {
		make(&w, ts, i, 0);
		T_EQ_I(submit(st, run, &w), 1, "tick %d queued while another connection writes", i);
	}
	snprintf(sql, sizeof sql, "CREATE TRIGGER inject BEFORE INSERT ON samples WHEN NEW.ts_ms = %lld "
		 "BEGIN SELECT RAISE(ABORT, 'injected'); END; COMMIT", (long long)tb);
	T_CHECK(sqlite3_exec(g_db, sql, NULL, NULL, NULL) == SQLITE_OK, "a trigger makes tick 322's insert fail");
	T_EQ_I(store_flush(st), 1, "the flush fails on tick 322 and keeps both ticks");
	T_EQ_I(store_queued(st), 2, "both ticks still queued");
	sqlite3_exec(g_db, "DROP TRIGGER inject", NULL, NULL, NULL);
	T_EQ_I(store_flush(st), 0, "the retry writes them");

	/* 3. The rest, past the hourly keyframe. */
	for (i = 323; i < NTICK; i++, ts += STEP_MS) {
		make(&w, ts, i, 0);
		submit(st, run, &w);
	}
	store_flush(st);

	T_EQ_I(compare(0, &seen), 0, "v_buddyinfo and v_atomic_risk equal every tick's values (%d ticks)", seen);
	T_EQ_I(seen, NTICK, "one samples row per tick");
	int64_t rows = q1("SELECT count(*) FROM buddy"), arows = q1("SELECT count(*) FROM atomic_risk");
	T_CHECK(rows > 0 && rows < NTICK * NZ / 2, "buddy holds %lld rows for %d ticks x %d zones", (long long)rows, NTICK, NZ);
	T_CHECK(arows > 0 && arows < NTICK * NZ / 2, "atomic_risk holds %lld rows", (long long)arows);
	T_EQ_I(q1("SELECT count(*) FROM buddy WHERE zone_id = (SELECT zone_id FROM zones WHERE name = 'DMA')"), 2,
	       "DMA, never changing: its first row and one hourly keyframe (no row of it was after the step back)");
	T_EQ_I(q1("SELECT count(*) FROM buddy WHERE norders = 0"), 1, "one gap row for Normal's two missing ticks");
	T_EQ_I(q1("SELECT count(*) FROM buddy b WHERE NOT EXISTS (SELECT 1 FROM samples s WHERE s.run_id = b.run_id "
		  "AND s.ts_ms = b.ts_ms)"), 0, "every stored row belongs to a stored tick");

	/* 4. Retention at a tick where no zone changed: the rows in force stay, later ticks keep their values. */
	int64_t cutoff = T0 + 451LL * STEP_MS;
	int64_t n, total = 0;
	snprintf(sql, sizeof sql, "SELECT count(*) FROM buddy WHERE ts_ms = %lld", (long long)cutoff);
	T_EQ_I(q1(sql), 0, "no zone row at the cutoff tick itself (the test cuts between rows)");
	while ((n = store_retain(st, cutoff)) > 0)
		total += n;
	T_CHECK(total > 0, "retention deleted %lld rows", (long long)total);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM samples WHERE ts_ms < %lld", (long long)cutoff);
	T_EQ_I(q1(sql), 0, "no tick older than the cutoff");
	T_EQ_I(compare(cutoff, &seen), 0, "after retention every remaining tick has its values (%d ticks)", seen);
	T_EQ_I(seen, NTICK - 451, "the ticks from the cutoff on");

	sqlite3_close(g_db);
	store_close(st);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	T_DONE();
}
