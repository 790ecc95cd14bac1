/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_store: the writer.  Migrations, runs, ticks through the views, the
 * queue under a locked DB, and refusal of newer, corrupt and foreign files.
 */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "test.h"

static char dir[] = "/tmp/fpusoak-test-store-XXXXXX";

static int64_t q1(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t v = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return -2;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW)
			v = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
	return v;
}

static struct buddyinfo bi;
static struct kv_set vm, mi;
static uint64_t stall = 7;      /* compact_stall: constant unless a test moves it */

static void fill(uint64_t base)
{
	memset(&bi, 0, sizeof bi);
	bi.nzones = 2;
	bi.norders = 11;
	bi.z[0].node = 0;
	strcpy(bi.z[0].zone, "DMA32");
	bi.z[1].node = 0;
	strcpy(bi.z[1].zone, "Normal");
	for (int k = 0; k < 11; k++) {
		bi.z[0].free[k] = base + (uint64_t)k;
		bi.z[1].free[k] = 100 * base + (uint64_t)k;
	}
	vm.n = 3;
	strcpy(vm.e[0].name, "compact_stall");
	vm.e[0].value = stall;                   /* constant: stored at the keyframe only */
	strcpy(vm.e[1].name, "pgalloc_normal");
	vm.e[1].value = 1000 + base;             /* changes every tick */
	strcpy(vm.e[2].name, "nr_dirty");        /* not a kept counter */
	vm.e[2].value = 5;
	mi.n = 2;
	strcpy(mi.e[0].name, "MemFree");
	mi.e[0].value = 5000 + base;
	strcpy(mi.e[1].name, "Hugepagesize");    /* not kept */
	mi.e[1].value = 2048;
}

static int submit(struct store *st, int64_t run, int64_t ts, uint64_t base)
{
	struct store_tick *t = store_tick_new(st, run, ts);
	fill(base);
	store_tick_buddyinfo(st, t, &bi);
	store_tick_vmstat(st, t, &vm);
	store_tick_meminfo(st, t, &mi);
	store_tick_cost(t, 42);
	return store_submit(st, t);
}

int main(void)
{
	char path[256], err[512], cmd[512];
	struct store *st, *st2;
	int64_t run;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/t.db", dir);
	st = store_open(path, 1 << 20, err, sizeof err);
	T_CHECK(st != NULL, "open creates and migrates a new DB (%s)", st ? "ok" : err);
	if (!st)
		T_DONE();
	T_CHECK(q1(path, "PRAGMA user_version") >= 1, "user_version set by migrations");
	st2 = store_open(path, 1 << 20, err, sizeof err);
	T_CHECK(st2 == NULL && strstr(err, "another fpusoakd") != NULL, "second writer refused: %s", err);
	store_close(st2);

	struct store_run r = { .label = "t", .kernel_release = "6.1.0", .hypervisor = "xen", .guest_type = "PV",
			       .started_ms = 1700000000000, .mem_total_kb = 65536 };
	T_EQ_I(store_run_begin(st, &r, &run), 0, "run begins");
	for (int i = 0; i < 5; i++)
		T_EQ_I(submit(st, run, 1700000000000 + i * 1000, (uint64_t)i), 0, "tick %d written", i);
	T_EQ_I(q1(path, "SELECT count(*) FROM v_samples"), 5, "5 samples");
	T_EQ_I(q1(path, "SELECT count(*) FROM v_buddyinfo"), 5 * 2 * 11, "v_buddyinfo: 5 ticks x 2 zones x 11 orders");
	T_EQ_I(q1(path, "SELECT free_blocks FROM v_buddyinfo WHERE zone='Normal' AND page_order=3 AND ts_ms=1700000002000"),
	       203, "v_buddyinfo value round-trips");
	T_EQ_I(q1(path, "SELECT count(*) FROM v_buddyinfo WHERE page_order >= 11"), 0, "no orders past norders");
	T_EQ_I(q1(path, "SELECT count(*) FROM v_vmstat WHERE name='compact_stall'"), 1, "unchanged counter stored once");
	T_EQ_I(q1(path, "SELECT count(*) FROM v_vmstat WHERE name='pgalloc_normal'"), 5, "changing counter every tick");
	T_EQ_I(q1(path, "SELECT count(*) FROM v_vmstat WHERE name='nr_dirty'"), 0, "uninteresting counter not kept");
	T_EQ_I(q1(path, "SELECT value_kb FROM v_meminfo WHERE name='MemFree' AND ts_ms=1700000004000"), 5004, "v_meminfo");
	T_EQ_I(q1(path, "SELECT count(*) FROM v_runs WHERE hypervisor='xen' AND guest_type='PV' AND end_reason IS NULL"),
	       1, "v_runs row");
	T_CHECK(q1(path, "SELECT count(*) FROM v_samples WHERE ts = '2023-11-14T22:13:20.000Z'") == 1, "ts is ISO 8601 UTC");
	/* Late ticks (017_tick_late.sql): only those STORE_LATE_MS late or after missed periods get a row. */
	T_EQ_I(q1(path, "SELECT count(*) FROM v_tick_late"), 0, "on-time ticks: no v_tick_late row");
	{
		static const struct { int64_t late, missed; int row; } lt[] = {
			{ STORE_LATE_MS - 1, 0, 0 }, { STORE_LATE_MS, 0, 1 }, { 3, 2, 1 }, { 0, 0, 0 },
		};
		for (int i = 0; i < 4; i++) {
			struct store_tick *t = store_tick_new(st, run, 1700000005000 + i * 1000);
			fill((uint64_t)i);
			store_tick_late(t, lt[i].late, lt[i].missed);
			store_tick_meminfo(st, t, &mi);
			T_EQ_I(store_submit(st, t), 0, "tick %d (late %lld ms, missed %lld) written", i,
			       (long long)lt[i].late, (long long)lt[i].missed);
			snprintf(cmd, sizeof cmd, "SELECT count(*) FROM v_tick_late WHERE ts_ms = %lld AND late_ms = %lld"
				 " AND missed = %lld", 1700000005000LL + i * 1000, (long long)lt[i].late, (long long)lt[i].missed);
			T_EQ_I(q1(path, cmd), lt[i].row, "v_tick_late row for tick %d: %d", i, lt[i].row);
		}
	}
	/* The Xen domain (012_domu.sql): absent unless envinfo found one; a domU's id round-trips. */
	T_EQ_I(q1(path, "SELECT count(*) FROM v_runs WHERE xen_domain IS NULL AND xen_domid IS NULL"), 1,
	       "v_runs: no Xen domain recorded for a run that did not give one (not domain 0)");
	{
		struct store_run rx = r;
		int64_t runx;

		rx.xen_domain = "domU";
		rx.xen_domid = 7;
		T_EQ_I(store_run_begin(st, &rx, &runx), 0, "run in a domU begins");
		T_EQ_I(q1(path, "SELECT xen_domid FROM v_runs WHERE xen_domain = 'domU'"), 7, "v_runs: domU and its id");
		rx.xen_domid = -1;
		T_EQ_I(store_run_begin(st, &rx, &runx), 0, "run in a domU of unknown id begins");
		T_EQ_I(q1(path, "SELECT count(*) FROM v_runs WHERE xen_domain = 'domU' AND xen_domid IS NULL"), 1,
		       "v_runs: an unknown id is NULL");
		sqlite3 *w;
		sqlite3_open(path, &w);
		sqlite3_exec(w, "DELETE FROM runs WHERE xen_domain IS NOT NULL", NULL, NULL, NULL);
		sqlite3_close(w);
	}

	/* What the machine had (016_run_memory.sql): a row only when something was known, NULL for what was not,
	 * the kernel's own share and what a guest never saw as pages computed by the view. */
	T_EQ_I(q1(path, "SELECT count(*) FROM v_run_memory"), 0, "v_run_memory: no row for a run that knew nothing");
	{
		struct store_run rm = r;
		int64_t runm;

		rm.domain_kb = 65536;
		rm.present_kb = 65148;
		rm.mem_total_kb = 51616;
		rm.mem_free_kb = 35188;
		rm.mem_available_kb = -1;
		T_EQ_I(store_run_begin(st, &rm, &runm), 0, "run with its memory begins");
		T_EQ_I(q1(path, "SELECT reserved_kb FROM v_run_memory WHERE domain_kb = 65536 AND present_kb = 65148"
			      " AND mem_total_kb = 51616 AND mem_free_kb = 35188 AND mem_available_kb IS NULL"), 13532,
		       "v_run_memory: the figures, an unknown one NULL, reserved = present - MemTotal");
		T_EQ_I(q1(path, "SELECT outside_kb FROM v_run_memory"), 388, "v_run_memory: outside = the guest's size - present");
		rm.domain_kb = -1;
		T_EQ_I(store_run_begin(st, &rm, &runm), 0, "run outside Xen begins");
		T_EQ_I(q1(path, "SELECT count(*) FROM v_run_memory WHERE domain_kb IS NULL AND outside_kb IS NULL"
			      " AND reserved_kb = 13532"), 1, "v_run_memory: no guest size outside Xen");
		sqlite3 *w;
		sqlite3_open(path, &w);
		sqlite3_exec(w, "DELETE FROM runs WHERE run_id IN (SELECT run_id FROM run_memory); DELETE FROM run_memory",
			     NULL, NULL, NULL);
		sqlite3_close(w);
	}

	/* A writer holding the lock: ticks queue, nothing is lost, then they land. */
	sqlite3 *locker;
	sqlite3_open(path, &locker);
	T_CHECK(sqlite3_exec(locker, "BEGIN EXCLUSIVE", NULL, NULL, NULL) == SQLITE_OK, "other process takes an exclusive lock");
	for (int i = 5; i < 10; i++)
		T_EQ_I(submit(st, run, 1700000000000 + i * 1000, (uint64_t)i), 1, "tick %d queued while locked", i);
	T_EQ_I(store_queued(st), 5, "5 ticks queued");
	sqlite3_exec(locker, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(locker);
	T_EQ_I(store_flush(st), 0, "flush after unlock");
	T_EQ_I(q1(path, "SELECT count(*) FROM v_samples"), 10, "all 10 samples present after the lock");
	T_EQ_I(store_dropped(st), 0, "nothing dropped");

	/* A tiny queue bound drops the oldest, counted. */
	store_close(st);
	st = store_open(path, 1 << 10, err, sizeof err);
	sqlite3_open(path, &locker);
	sqlite3_exec(locker, "BEGIN EXCLUSIVE", NULL, NULL, NULL);
	/* compact_stall moves once, in the first tick the bound will drop, and then stays. */
	stall = 8;
	for (int i = 10; i < 20; i++)
		submit(st, run, 1700000000000 + i * 1000, (uint64_t)i);
	T_CHECK(store_dropped(st) > 0 && store_queued(st) >= 1, "bounded queue drops oldest (%llu dropped)",
		(unsigned long long)store_dropped(st));
	sqlite3_exec(locker, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(locker);
	T_EQ_I(store_flush(st), 0, "flush");
	T_EQ_I(q1(path, "SELECT max(ts_ms) FROM samples"), 1700000019000, "newest tick survived");
	T_EQ_I(q1(path, "SELECT value FROM v_vmstat WHERE name='compact_stall' ORDER BY ts_ms DESC LIMIT 1"), 8,
	       "a counter that changed only in a dropped tick reaches the DB with the next tick kept");
	stall = 7;

	/* Crash marking: a run without an end ends at its last sample. */
	store_close(st);
	st = store_open(path, 1 << 20, err, sizeof err);
	T_EQ_I(store_mark_crashed(st), 1, "one run marked crashed");
	T_EQ_I(q1(path, "SELECT count(*) FROM runs WHERE end_reason='crash' AND ended_ms=1700000019000"), 1,
	       "crashed run ends at its last sample");
	int64_t run2;
	store_run_begin(st, &r, &run2);
	T_EQ_I(store_run_end(st, run2, 1700000100000, "stopped"), 0, "run ends");
	T_EQ_I(q1(path, "SELECT count(*) FROM v_runs WHERE end_reason='stopped'"), 1, "stopped run");
	store_close(st);

	/* Group commit (the daemon's STORE_GROUP_MS): a run's first tick at once, then groups spanning 5 s of
	 * stamps; a group being filled is not "queued"; the run's end writes the rest. */
	{
		char gpath[256];
		int64_t rg, t0 = 1700000200000;
		int ok = 1;

		snprintf(gpath, sizeof gpath, "%s/g.db", dir);
		st = store_open(gpath, 1 << 20, err, sizeof err);
		store_group(st, STORE_GROUP_MS);
		store_run_begin(st, &r, &rg);
		T_EQ_I(submit(st, rg, t0, 0), 0, "group: the run's first tick");
		T_EQ_I(q1(gpath, "SELECT count(*) FROM samples"), 1, "group: the run's first tick committed at once");
		for (int i = 1; i < 6; i++)
			ok &= submit(st, rg, t0 + i * 1000, (uint64_t)i) == 0 && q1(gpath, "SELECT count(*) FROM samples") == 1 &&
			      store_queued(st) == 0;
		T_CHECK(ok, "group: ticks 1-5 (4 s of stamps) wait uncommitted, none counted as queued");
		T_EQ_I(submit(st, rg, t0 + 6000, 6), 0, "group: tick 6, 5 s after the group's first");
		T_EQ_I(q1(gpath, "SELECT count(*) FROM samples"), 7, "group: committed with its group");
		T_EQ_I(submit(st, rg, t0 + 7000, 7), 0, "group: tick 7 waits");
		T_EQ_I(store_run_end(st, rg, t0 + 7500, "stopped"), 0, "group: the run ends");
		T_EQ_I(q1(gpath, "SELECT count(*) FROM samples"), 8, "group: the run's end wrote the last group");
		T_EQ_I(q1(gpath, "SELECT ticks FROM runs"), 8, "group: runs.ticks counts every tick");
		store_close(st);
	}

	/*
	 * A DB made by a build that had 012 but not 011 (migration numbers land on main out of order):
	 * user_version 12 without run_import.  Opening it applies 011 late and keeps user_version.
	 */
	int64_t ver = q1(path, "PRAGMA user_version");
	snprintf(cmd, sizeof cmd, "sqlite3 %s 'DROP VIEW v_imports; DROP TABLE run_import'", path);
	T_EQ_I(system(cmd), 0, "drop 011's objects with sqlite3");
	T_EQ_I(q1(path, "SELECT count(*) FROM sqlite_master WHERE name IN ('run_import', 'v_imports')"), 0,
	       "011's objects are gone");
	st = store_open(path, 1 << 20, err, sizeof err);
	T_CHECK(st != NULL, "a DB past 011 without its table opens (%s)", st ? "ok" : err);
	T_EQ_I(q1(path, "SELECT count(*) FROM sqlite_master WHERE name IN ('run_import', 'v_imports')"), 2,
	       "011 applied late: run_import and v_imports exist");
	T_EQ_I(q1(path, "PRAGMA user_version"), ver, "user_version unchanged by the late migration");
	T_EQ_I(q1(path, "SELECT count(*) FROM v_runs"), 2, "the runs are still there");
	store_close(st);

	/* A DB from a newer fpusoakd is refused. */
	snprintf(cmd, sizeof cmd, "sqlite3 %s 'PRAGMA user_version=999'", path);
	T_EQ_I(system(cmd), 0, "bump user_version with sqlite3");
	st = store_open(path, 1 << 20, err, sizeof err);
	T_CHECK(st == NULL && strstr(err, "newer") != NULL, "newer schema refused: %s", err);
	store_close(st);

	/* A file that is not SQLite is refused and left as it was. */
	char junk[256];
	struct stat sb1, sb2;
	snprintf(junk, sizeof junk, "%s/junk.db", dir);
	int fd = open(junk, O_CREAT | O_WRONLY, 0644);
	T_CHECK(write(fd, "this is not a database, it is a text file\n", 42) == 42, "write junk file");
	close(fd);
	stat(junk, &sb1);
	st = store_open(junk, 1 << 20, err, sizeof err);
	stat(junk, &sb2);
	T_CHECK(st == NULL, "non-SQLite file refused: %s", err);
	T_CHECK(sb1.st_size == sb2.st_size && sb1.st_mtime == sb2.st_mtime, "junk file untouched");
	store_close(st);

	/*
	 * The writer remembers what it decided for each vmstat line and meminfo field by position:
	 * a file whose lines moved (another kernel, the same DB) must still land each value under its
	 * own name, and a line that became a hot counter must reach its samples column.
	 */
	{
		char mv[256];
		int64_t runm;

		snprintf(mv, sizeof mv, "%s/moved.db", dir);
		st = store_open(mv, 1 << 20, err, sizeof err);
		T_CHECK(st != NULL, "open a DB for moved lines (%s)", st ? "ok" : err);
		if (st && store_run_begin(st, &r, &runm) == 0) {
			T_EQ_I(submit(st, runm, 1700000000000, 1), 0, "tick in the first order");
			struct store_tick *t = store_tick_new(st, runm, 1700000001000);
			fill(2);
			vm.n = 4;
			strcpy(vm.e[0].name, "nr_dirty");         /* was compact_stall's line */
			vm.e[0].value = 6;
			strcpy(vm.e[1].name, "compact_stall");    /* was pgalloc_normal's */
			vm.e[1].value = 77;
			strcpy(vm.e[2].name, "pgalloc_normal");   /* a hot column, was the dropped line */
			vm.e[2].value = 4242;
			strcpy(vm.e[3].name, "pgfault");          /* a new line */
			vm.e[3].value = 99;
			mi.n = 2;
			strcpy(mi.e[0].name, "Hugepagesize");
			mi.e[0].value = 2048;
			strcpy(mi.e[1].name, "MemFree");          /* moved */
			mi.e[1].value = 6006;
			store_tick_buddyinfo(st, t, &bi);
			store_tick_vmstat(st, t, &vm);
			store_tick_meminfo(st, t, &mi);
			T_EQ_I(store_submit(st, t), 0, "tick with moved lines written");
			store_close(st);
			T_EQ_I(q1(mv, "SELECT value FROM v_vmstat WHERE name = 'compact_stall' AND ts_ms = 1700000001000"), 77,
			       "moved lines: compact_stall under its own name");
			T_EQ_I(q1(mv, "SELECT count(*) FROM v_vmstat WHERE name = 'nr_dirty'"), 0,
			       "moved lines: a dropped counter on a kept counter's line stays dropped");
			T_EQ_I(q1(mv, "SELECT value FROM v_vmstat WHERE name = 'pgalloc_normal' AND ts_ms = 1700000001000"),
			       4242, "moved lines: the hot counter on a dropped counter's line");
			T_EQ_I(q1(mv, "SELECT value FROM v_vmstat WHERE name = 'pgfault' AND ts_ms = 1700000001000"), 99,
			       "moved lines: a new line is kept");
			T_EQ_I(q1(mv, "SELECT value_kb FROM v_meminfo WHERE name = 'MemFree' AND ts_ms = 1700000001000"),
			       6006, "moved lines: meminfo field found where it moved");
		} else {
			store_close(st);
		}
	}

	/* A corrupt DB (a page of the samples table overwritten) is refused, never rewritten. */
	char bad[256];
	snprintf(bad, sizeof bad, "%s/bad.db", dir);
	st = store_open(bad, 1 << 20, err, sizeof err);
	store_run_begin(st, &r, &run);
	for (int i = 0; i < 400; i++)
		submit(st, run, 1700000000000 + i * 1000, (uint64_t)i);
	store_close(st);
	fd = open(bad, O_WRONLY);
	char garbage[4096];
	memset(garbage, 0xA5, sizeof garbage);
	T_CHECK(pwrite(fd, garbage, sizeof garbage, 4096 * 5) == (ssize_t)sizeof garbage, "corrupt a page");
	close(fd);
	stat(bad, &sb1);
	st = store_open(bad, 1 << 20, err, sizeof err);
	stat(bad, &sb2);
	T_CHECK(st == NULL, "corrupt DB refused: %s", err);
	T_CHECK(sb1.st_size == sb2.st_size && sb1.st_mtime == sb2.st_mtime, "corrupt DB not rewritten");
	store_close(st);

	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	T_DONE();
}
