/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_frag_view: the SQL view v_frag computes the kernel's integer indices
 * exactly as analysis/frag does (which test_frag_oracle checks against the
 * kernel's own debugfs files).  Random free lists, seeded; the seed is printed
 * and FPUSOAK_SEED replays it.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "analysis/frag.h"
#include "store/store.h"
#include "test.h"

static uint64_t rng;

static uint64_t next(void)
{
	/* splitmix64 */
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int main(void)
{
	static struct buddyinfo bi;
	char dir[] = "/tmp/fpusoak-test-fragview-XXXXXX", path[256], err[256], cmd[300];
	struct store *st;
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t run;
	int mismatches = 0, compared = 0;

	rng = getenv("FPUSOAK_SEED") ? strtoull(getenv("FPUSOAK_SEED"), NULL, 0) : (uint64_t)time(NULL);
	printf("seed %llu (FPUSOAK_SEED replays)\n", (unsigned long long)rng);
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/f.db", dir);
	st = store_open(path, 1 << 20, err, sizeof err);
	T_CHECK(st != NULL, "open store");
	if (!st)
		T_DONE();
	struct store_run r = { .started_ms = 1 };
	store_run_begin(st, &r, &run);
	/* 300 ticks of 3 zones with 11 or 14 orders; sparse and empty lists on purpose. */
	for (int tk = 0; tk < 300; tk++) {
		struct store_tick *t = store_tick_new(st, run, 1000 + tk);
		memset(&bi, 0, sizeof bi);
		bi.nzones = 3;
		bi.norders = tk % 2 ? 11 : 14;
		for (int z = 0; z < 3; z++) {
			bi.z[z].node = z;
			snprintf(bi.z[z].zone, sizeof bi.z[z].zone, "Z%d", z);
			for (int k = 0; k < bi.norders; k++) {
				uint64_t x = next();
				/* zone 2 of every 5th tick is empty: the kernel's 0 special cases */
				bi.z[z].free[k] = (z == 2 && tk % 5 == 0) ? 0 : (x & 3) == 0 ? 0 : (x >> 8) % (1u << ((x >> 40) % 16));
			}
		}
		store_tick_buddyinfo(st, t, &bi);
		store_submit(st, t);
	}
	store_close(st);

	sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	sqlite3_prepare_v2(db, "SELECT b.norders, b.o0, b.o1, b.o2, b.o3, b.o4, b.o5, b.o6, b.o7, b.o8, b.o9, b.o10,"
			       " b.o11, b.o12, b.o13, f.page_order, f.unusable_x1000, f.fragmentation_x1000,"
			       " f.headroom_blocks FROM v_frag f JOIN zones z ON z.node = f.node AND z.name = f.zone"
			       " JOIN buddy_at b ON b.zone_id = z.zone_id AND b.ts_ms = f.ts_ms AND b.run_id = f.run_id",
			   -1, &s, NULL);
	while (sqlite3_step(s) == SQLITE_ROW) {
		uint64_t fr[16] = { 0 };
		int norders = sqlite3_column_int(s, 0), order = sqlite3_column_int(s, 15);
		int un, ef;
		struct frag_info fi;
		for (int k = 0; k < norders; k++)
			fr[k] = (uint64_t)sqlite3_column_int64(s, 1 + k);
		frag_indices(fr, norders, (unsigned)order, &un, &ef);
		frag_fill(fr, norders, (unsigned)order, &fi);
		compared++;
		if (un != sqlite3_column_int(s, 16) || ef != sqlite3_column_int(s, 17) ||
		    (int64_t)fi.free_blocks_suitable != sqlite3_column_int64(s, 18)) {
			if (mismatches++ < 5)
				printf("      order %d: C unusable %d extfrag %d suitable %llu; SQL %d %d %lld\n", order, un,
				       ef, (unsigned long long)fi.free_blocks_suitable, sqlite3_column_int(s, 16),
				       sqlite3_column_int(s, 17), (long long)sqlite3_column_int64(s, 18));
		}
	}
	sqlite3_finalize(s);
	sqlite3_close(db);
	T_EQ_I(compared, 150 * 3 * 14 + 150 * 3 * 11, "every (tick, zone, order) has a v_frag row");
	T_EQ_I(mismatches, 0, "v_frag equals analysis/frag on %d random (zone, order) points", compared);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	T_DONE();
}
