/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_import: store_import copies runs between databases.  The expected
 * values are the source's own views: every v_* view with a run_id column
 * must give the same rows for the copy as for the original (run_id aside),
 * with the target's zone and name ids laid out differently on purpose.
 */
#include <sqlite3.h>
#include <sys/stat.h>

#include "test.h"
#include "testdb.h"
#include "store/store.h"

struct seen {
	int n, already;
	int64_t from[8], to[8];
};

static void on_run(void *arg, int64_t from, int64_t to, int already)
{
	struct seen *s = arg;

	if (s->n < 8) {
		s->from[s->n] = from;
		s->to[s->n] = to;
	}
	s->n++;
	s->already += already;
}

static long long one(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Every view of the source with a run_id: the rows of run `from` there and of run `to` here are the same
 * (but the internal zone_id and name_id columns, which are this database's own numbering). */
static void same_views(const char *target, const char *source, int64_t from, int64_t to)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *views;
	char sql[4096];
	int nviews = 0, bad = 0;

	snprintf(sql, sizeof sql, "ATTACH '%s' AS s", source);
	if (sqlite3_open(target, &db) != SQLITE_OK || sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT name, (SELECT group_concat('\"' || name || '\"', ', ') FROM "
				   "pragma_table_info(v.name) WHERE name NOT IN ('run_id', 'zone_id', 'name_id')) FROM s.sqlite_master v "
				   "WHERE type = 'view' AND name LIKE 'v\\_%' ESCAPE '\\' AND name <> 'v_imports' AND EXISTS (SELECT 1 FROM "
				   "pragma_table_info(v.name) WHERE name = 'run_id') ORDER BY name", -1, &views, NULL) != SQLITE_OK) {
		T_CHECK(0, "attach the source: %s", sqlite3_errmsg(db));
		sqlite3_close(db);
		return;
	}
	while (sqlite3_step(views) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(views, 0), *cols = (const char *)sqlite3_column_text(views, 1);
		long long na, nb, d1, d2;
		snprintf(sql, sizeof sql, "SELECT count(*) FROM s.%s WHERE run_id = %lld", v, (long long)from);
		na = one(db, sql);
		snprintf(sql, sizeof sql, "SELECT count(*) FROM main.%s WHERE run_id = %lld", v, (long long)to);
		nb = one(db, sql);
		snprintf(sql, sizeof sql, "SELECT count(*) FROM (SELECT %s FROM s.%s WHERE run_id = %lld EXCEPT "
			 "SELECT %s FROM main.%s WHERE run_id = %lld)", cols, v, (long long)from, cols, v, (long long)to);
		d1 = one(db, sql);
		snprintf(sql, sizeof sql, "SELECT count(*) FROM (SELECT %s FROM main.%s WHERE run_id = %lld EXCEPT "
			 "SELECT %s FROM s.%s WHERE run_id = %lld)", cols, v, (long long)to, cols, v, (long long)from);
		d2 = one(db, sql);
		nviews++;
		if (na != nb || d1 != 0 || d2 != 0) {
			bad++;
			printf("      %s: %lld rows there, %lld here, %lld/%lld differ\n", v, na, nb, d1, d2);
		}
	}
	sqlite3_finalize(views);
	sqlite3_close(db);
	T_CHECK(nviews >= 15 && !bad, "run %lld -> %lld: %d views give the same rows (%d differ)", (long long)from,
		(long long)to, nviews, bad);
}

static long long rows_total(const char *db)
{
	return testdb_cli(db, "SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM samples) + "
			      "(SELECT count(*) FROM buddy) + (SELECT count(*) FROM vmstat) + (SELECT count(*) FROM "
			      "buddy_rollup) + (SELECT count(*) FROM kmsg_events) + (SELECT count(*) FROM probes) + "
			      "(SELECT count(*) FROM zones) + (SELECT count(*) FROM names) + (SELECT count(*) FROM run_import)");
}

static int md5(const char *path, char out[64])
{
	char cmd[600];
	FILE *p;
	int ok;

	snprintf(cmd, sizeof cmd, "md5sum '%s'", path);
	if (!(p = popen(cmd, "r")))
		return -1;
	ok = fgets(out, 64, p) != NULL;
	pclose(p);
	return ok ? 0 : -1;
}

int main(void)
{
	char dir[] = "/tmp/test_import.XXXXXX", src[256], target[300], other[300], cmd[1024], err[512], h0[64], h1[64];
	struct store *st;
	struct seen s = { 0 };
	int rc;

	if (!mkdtemp(dir) || testdb_create(dir, src, sizeof src) < 0) {
		T_CHECK(0, "create the test database");
		T_DONE();
	}
	snprintf(target, sizeof target, "%s/target.db", dir);
	T_CHECK(md5(src, h0) == 0, "checksum of the source");

	/* A target whose zone and name ids do not line up with the source's. */
	st = store_open(target, 1 << 20, err, sizeof err);
	T_CHECK(st != NULL, "create the target (%s)", st ? "" : err);
	if (!st)
		T_DONE();
	store_close(st);
	snprintf(cmd, sizeof cmd, "sqlite3 '%s' \"INSERT INTO zones (zone_id, node, name) VALUES (1, 0, 'Normal'), "
		 "(2, 3, 'Other'), (7, 0, 'DMA'); INSERT INTO names (name_id, source, name) VALUES (1, 'vmstat', "
		 "'pgfault'), (2, 'slab', 'other_cache'), (9, 'meminfo', 'MemFree')\"", target);
	T_CHECK(system(cmd) == 0, "shuffle the target's zone and name ids");

	st = store_open(target, 1 << 20, err, sizeof err);
	rc = st ? store_import(st, src, on_run, &s, err, sizeof err) : -1;
	T_CHECK(rc == 0 && s.n == 3 && s.already == 0, "import the test DB: 3 runs copied (%s)", rc ? err : "");
	T_CHECK(s.from[0] == 1 && s.to[0] == 1 && s.from[2] == 3 && s.to[2] == 3, "ids 1..3 here too (an empty target)");
	store_close(st);
	for (int i = 0; i < 3 && i < s.n; i++)
		same_views(target, src, s.from[i], s.to[i]);
	T_EQ_I(testdb_cli(target, "SELECT count(*) FROM v_imports WHERE source_file = 'test.db' AND source_schema > 0"), 3,
	       "v_imports: one row per run, naming test.db");
	T_EQ_I(testdb_cli(target, "SELECT source_run_id FROM v_imports WHERE run_id = 3"), 3, "v_imports: the source run id");
	T_EQ_I(testdb_cli(target, "SELECT count(*) FROM v_imports i JOIN runs r USING (run_id) WHERE "
			  "i.source_host IS r.hostname AND i.source_boot_id IS r.boot_id"), 3, "v_imports: host and boot id");
	T_CHECK(md5(src, h1) == 0 && strcmp(h0, h1) == 0, "the source file is unchanged");
	{
		struct stat sb;
		snprintf(cmd, sizeof cmd, "%s-wal", src);
		T_CHECK(stat(cmd, &sb) != 0, "and no -wal file appeared beside it");
	}

	/* Twice: nothing added. */
	{
		long long before = rows_total(target);
		struct seen s2 = { 0 };
		st = store_open(target, 1 << 20, err, sizeof err);
		rc = st ? store_import(st, src, on_run, &s2, err, sizeof err) : -1;
		T_CHECK(rc == 0 && s2.n == 3 && s2.already == 3, "importing again: 3 runs already here");
		store_close(st);
		T_EQ_I(rows_total(target), before, "importing again adds no row");
	}

	/* Through a second database: the same runs are recognised wherever they come from. */
	{
		char second[300];
		struct seen s3 = { 0 };
		snprintf(second, sizeof second, "%s/second.db", dir);
		st = store_open(second, 1 << 20, err, sizeof err);
		rc = st ? store_import(st, src, NULL, NULL, err, sizeof err) : -1;
		store_close(st);
		st = store_open(target, 1 << 20, err, sizeof err);
		rc |= st ? store_import(st, second, on_run, &s3, err, sizeof err) : -1;
		store_close(st);
		T_CHECK(rc == 0 && s3.already == 3, "a copy of a copy is recognised too (%d of 3)", s3.already);
	}

	/* An unfinished imported run is not this daemon's crash. */
	st = store_open(target, 1 << 20, err, sizeof err);
	T_EQ_I(st ? store_mark_crashed(st) : -1, 0, "store_mark_crashed leaves the imported unfinished run alone");
	store_close(st);
	T_CHECK(testdb_cli(target, "SELECT count(*) FROM runs WHERE run_id = 3 AND end_reason IS NULL") == 1,
		"run 3 still has no end");

	/* Refusals: the target itself, a newer schema, a foreign file, a missing file, a target in use. */
	st = store_open(target, 1 << 20, err, sizeof err);
	T_CHECK(st && store_import(st, target, NULL, NULL, err, sizeof err) < 0 && strstr(err, "target"),
		"importing the target into itself is refused (%s)", err);
	snprintf(other, sizeof other, "%s/newer.db", dir);
	snprintf(cmd, sizeof cmd, "cp '%s' '%s' && sqlite3 '%s' 'PRAGMA user_version = 999'", src, other, other);
	T_CHECK(system(cmd) == 0 && md5(other, h0) == 0, "a database of schema 999");
	T_CHECK(st && store_import(st, other, NULL, NULL, err, sizeof err) < 0 && strstr(err, "newer"),
		"a newer schema is refused (%s)", err);
	T_CHECK(md5(other, h1) == 0 && strcmp(h0, h1) == 0, "and left unchanged");
	/* Issue 31: a source whose migration fails (its tables there, its user_version lost: 0) freed the ATTACH
	 * text twice and aborted in malloc; refused instead, and the target keeps working. */
	snprintf(other, sizeof other, "%s/noversion.db", dir);
	snprintf(cmd, sizeof cmd, "cp '%s' '%s' && sqlite3 '%s' 'PRAGMA user_version = 0'", src, other, other);
	T_CHECK(system(cmd) == 0 && st && store_import(st, other, NULL, NULL, err, sizeof err) < 0 &&
		strstr(err, "migration"), "a source that cannot be migrated is refused, no crash (%s)", err);
	snprintf(other, sizeof other, "%s/foreign.db", dir);
	snprintf(cmd, sizeof cmd, "sqlite3 '%s' 'CREATE TABLE t (x)'", other);
	T_CHECK(system(cmd) == 0 && st && store_import(st, other, NULL, NULL, err, sizeof err) < 0 &&
		strstr(err, "not an fpusoakd database"), "a foreign SQLite file is refused (%s)", err);
	snprintf(other, sizeof other, "%s/junk.db", dir);
	snprintf(cmd, sizeof cmd, "head -c 9000 /dev/urandom > '%s'", other);
	T_CHECK(system(cmd) == 0 && st && store_import(st, other, NULL, NULL, err, sizeof err) < 0,
		"a file that is not SQLite is refused (%s)", err);
	T_CHECK(st && store_import(st, "/nonexistent/x.db", NULL, NULL, err, sizeof err) < 0, "a missing file (%s)", err);
	T_CHECK(store_open(target, 1 << 20, err, sizeof err) == NULL && strstr(err, "another fpusoakd"),
		"a target in use is refused by its lock (%s)", err);
	store_close(st);
	T_EQ_I(testdb_cli(target, "SELECT count(*) FROM runs"), 3, "after all refusals the target still has 3 runs");

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		T_CHECK(0, "remove %s", dir);
	T_DONE();
}
