/*
 * test_rollup: minute and hour rollups equal aggregates computed straight
 * from the raw rows with independent SQL, and retention deletes raw rows
 * older than the cutoff (only those, and never ones not yet rolled up).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

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
	sqlite3_close(db);
	store_close(st);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	T_DONE();
}
